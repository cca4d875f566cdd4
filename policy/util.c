/*
 * Small pure helpers of the policy module: path normalisation, globs,
 * rights letters and enum names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"

int pol_set_str(char **dst, const char *s)
{
	char *c = strdup(s);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

char *pol_path_resolve(const char *base, const char *rel)
{
	size_t cap = strlen(base) + strlen(rel) + 3;
	char *out = malloc(cap);
	const char *s;
	size_t len = 0;
	int pass;

	if (!out)
		return NULL;
	out[0] = '\0';
	/* Walk base (unless rel is absolute), then rel, component by component.
	 */
	for (pass = rel[0] == '/' ? 1 : 0; pass < 2; pass++) {
		s = pass == 0 ? base : rel;
		while (*s) {
			const char *e = strchr(s, '/');
			size_t n = e ? (size_t)(e - s) : strlen(s);

			if (n == 0 || (n == 1 && s[0] == '.')) {
				/* skip */
			} else if (n == 2 && s[0] == '.' && s[1] == '.') {
				while (len > 0 && out[len - 1] != '/')
					len--;
				if (len > 0)
					len--;
			} else {
				out[len++] = '/';
				memcpy(out + len, s, n);
				len += n;
			}
			s += n;
			if (*s == '/')
				s++;
		}
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return out;
}

bool pol_path_leaves_root(const char *path)
{
	const char *s = path;
	long depth = 0;

	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (--depth < 0)
				return true;
		} else if (n && !(n == 1 && s[0] == '.')) {
			depth++;
		}
		s += n;
		while (*s == '/')
			s++;
	}
	return false;
}

/* Does @pat match all of @s? */
static bool glob_here(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (pat[0] == '*' && pat[1] == '*') {
			pat += 2;
			/* "x/" "**" also matches "x" itself */
			if (*pat == '\0')
				return true;
			if (*pat == '/')
				pat++;
			for (;;) {
				if (glob_here(pat, s))
					return true;
				s = strchr(s, '/');
				if (!s)
					return false;
				s++;
			}
		}
		if (*pat == '*') {
			for (;; s++) {
				if (glob_here(pat + 1, s))
					return true;
				if (*s == '\0' || *s == '/')
					return false;
			}
		}
		if (*s == '\0')
			return pat[0] == '/' && pat[1] == '*' &&
			       pat[2] == '*' && pat[3] == '\0';
		if (*pat == '?' ? *s == '/' : *pat != *s)
			return false;
	}
	return *s == '\0';
}

bool pol_glob_match(const char *pat, const char *s)
{
	return glob_here(pat, s);
}

bool policy_is_protected(const struct policy *p, const char *path,
			 bool own_repo, const char **glob)
{
	const char *tail;
	size_t i;

	if (!p->protect)
		return false;
	/* A glob matches at any depth: "sub/.git/config" is protected too. */
	for (tail = path; tail; tail = strchr(tail, '/')) {
		if (*tail == '/')
			tail++;
		for (i = 0; p->protect[i]; i++) {
			if (own_repo && !strncmp(p->protect[i], ".git/", 5))
				continue;
			if (glob_here(p->protect[i], tail)) {
				if (glob)
					*glob = p->protect[i];
				return true;
			}
		}
	}
	return false;
}

int pol_rights_parse(uint8_t *out, const char *s)
{
	uint8_t r = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'r':
			r |= RIGHT_R;
			break;
		case 'w':
			r |= RIGHT_W | RIGHT_C;
			break;
		case 'l':
			r |= RIGHT_L;
			break;
		case 'd':
			r |= RIGHT_D;
			break;
		case 'c':
			r |= RIGHT_C;
			break;
		case '-':
			break;
		default:
			return -EINVAL;
		}
	}
	*out = r;
	return 0;
}

const char *policy_rights_str(uint8_t rights, char *buf)
{
	char *b = buf;

	if (rights & RIGHT_R)
		*b++ = 'r';
	if (rights & RIGHT_W)
		*b++ = 'w';
	else if (rights & RIGHT_C)
		*b++ = 'c';
	if (rights & RIGHT_L)
		*b++ = 'l';
	if (rights & RIGHT_D)
		*b++ = 'd';
	if (b == buf)
		*b++ = '-';
	*b = '\0';
	return buf;
}

static const char *const trust_names[TRUST_COUNT] = { "untrusted", "session",
						      "workspace", "full" };

const char *policy_trust_name(enum policy_trust t)
{
	return t < TRUST_COUNT ? trust_names[t] : "?";
}

int policy_trust_parse(enum policy_trust *out, const char *s)
{
	int i;

	for (i = 0; i < TRUST_COUNT; i++) {
		if (strcmp(s, trust_names[i]) == 0) {
			*out = (enum policy_trust)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *policy_kind_name(enum zone_kind k)
{
	switch (k) {
	case ZONE_PLAIN:
		return "plain";
	case ZONE_WORKSPACE:
		return "workspace";
	case ZONE_REPO:
		return "repo";
	case ZONE_STAGED:
		return "staged";
	case ZONE_SESSION:
		return "session";
	case ZONE_WORKERS:
		return "workers";
	case ZONE_MOUNT:
		return "mount";
	}
	return "?";
}

const char *policy_approval_name(enum approval a)
{
	switch (a) {
	case APPROVAL_PRE:
		return "preApproved";
	case APPROVAL_ASK:
		return "ask";
	case APPROVAL_BLOCKED:
		return "blocked";
	}
	return "?";
}

const char *policy_op_name(enum policy_op op)
{
	static const char *const names[] = {
		[POP_READ] = "read",     [POP_LIST] = "list",
		[POP_CREATE] = "create", [POP_WRITE] = "write",
		[POP_DELETE] = "delete", [POP_REPLACE] = "replace",
	};

	return op <= POP_REPLACE ? names[op] : "?";
}

/*
 * The built-in trust table (the README's table of levels and zone
 * kinds). A plain (custom) zone has its mode's rights at session and above
 * and nothing at untrusted; so does a bind mount.
 */
void pol_trust_table_row(enum zone_kind kind, uint8_t row[TRUST_COUNT])
{
	const uint8_t all = RIGHT_ALL, rl = RIGHT_RO;

	switch (kind) {
	case ZONE_SESSION:
		row[0] = all, row[1] = all, row[2] = all, row[3] = all;
		break;
	case ZONE_REPO:
		row[0] = 0, row[1] = 0, row[2] = rl, row[3] = all;
		break;
	case ZONE_STAGED:
		row[0] = RIGHT_C, row[1] = all, row[2] = all, row[3] = all;
		break;
	case ZONE_WORKERS:
		row[0] = rl, row[1] = rl, row[2] = rl, row[3] = all;
		break;
	case ZONE_WORKSPACE:
	case ZONE_PLAIN:
	case ZONE_MOUNT:
		row[0] = 0, row[1] = all, row[2] = all, row[3] = all;
		break;
	}
}
