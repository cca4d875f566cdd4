/*
 * Small pure helpers of the policy module: path normalisation, globs,
 * rights letters and enum names.
 */
#include <errno.h>
#include <stdint.h>
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

/*
 * The protect-glob matcher. The syntax: '?' is one byte but '/', '*' is
 * any run of bytes without '/', "**" at the end matches everything, and
 * "**" elsewhere (with the '/' after it, if any) skips nothing or a run
 * of bytes that ends in '/'; "x/" "**" also matches "x" itself. Bytes
 * stand for themselves (no classes, no escapes).
 *
 * It runs as a set of states over one pass of the path, never backtracks:
 * time is O(strlen(path) * strlen(glob)), memory two words per byte of the
 * glob. A state is a place in the glob: "on" at a token (a byte, '?', '*'
 * or the entry into a "**"), or "skip" inside the "**" starting there. Each
 * state keeps the earliest place in the path where the match reaching it
 * began, so one pass also answers which tail (the path after some '/')
 * matches first, as policy_is_protected() asks.
 */
#define GLOB_NONE SIZE_MAX
#define GLOB_STACK 64 /* globs up to this long need no heap */

struct glob_run {
	const char *pat;
	size_t len;   /* strlen(pat) */
	size_t *on;   /* [len + 1]: where the match at this token began */
	size_t *skip; /* [len + 1]: the same, inside the "**" at this token */
	size_t best;  /* earliest start of a whole match so far */
};

static bool glob_is_2star(const char *pat, size_t p)
{
	return pat[p] == '*' && pat[p + 1] == '*';
}

/* Where a "**" at @p goes on: past the stars and one '/'. */
static size_t glob_after_2star(const char *pat, size_t p)
{
	return p + 2 + (pat[p + 2] == '/');
}

static void glob_set(size_t *slot, size_t start)
{
	if (start < *slot)
		*slot = start;
}

/*
 * Follow the moves that consume nothing (into a '*', into and past a
 * "**"); they only go forward in the glob, so one ascending walk suffices.
 * Return: whether a state that can still beat the best match is left.
 */
static bool glob_close(struct glob_run *g)
{
	bool alive = false;
	size_t p;

	for (p = 0; p <= g->len; p++) {
		if (g->on[p] >= g->best)
			g->on[p] = GLOB_NONE;
		if (g->skip[p] >= g->best)
			g->skip[p] = GLOB_NONE;
		alive =
		    alive || g->on[p] != GLOB_NONE || g->skip[p] != GLOB_NONE;
		if (g->on[p] == GLOB_NONE)
			continue;
		if (glob_is_2star(g->pat, p) && g->pat[p + 2] == '\0') {
			glob_set(&g->best, g->on[p]);
		} else if (glob_is_2star(g->pat, p)) {
			glob_set(&g->on[glob_after_2star(g->pat, p)], g->on[p]);
			glob_set(&g->skip[p], g->on[p]);
		} else if (g->pat[p] == '*') {
			glob_set(&g->on[p + 1], g->on[p]);
		}
	}
	return alive;
}

/*
 * Consume byte @c. Moves go to the same or a later token, so a descending
 * walk updates in place without moving a state twice.
 */
static void glob_step(struct glob_run *g, char c)
{
	size_t p = g->len + 1, from;

	while (p-- > 0) {
		from = g->on[p];
		g->on[p] = GLOB_NONE;
		if (g->skip[p] != GLOB_NONE && c == '/')
			glob_set(&g->on[glob_after_2star(g->pat, p)],
				 g->skip[p]);
		if (from == GLOB_NONE || p == g->len ||
		    glob_is_2star(g->pat, p))
			continue;
		if (g->pat[p] == '*') {
			if (c != '/')
				g->on[p] = from;
		} else if (g->pat[p] == '?' ? c != '/' : g->pat[p] == c) {
			glob_set(&g->on[p + 1], from);
		}
	}
}

/* At the end of the path: the glob's end, or a last "/" "**" left over. */
static void glob_finish(struct glob_run *g)
{
	size_t p;

	for (p = 0; p <= g->len; p++) {
		if (g->on[p] == GLOB_NONE)
			continue;
		if (p == g->len || (p + 3 == g->len && g->pat[p] == '/' &&
				    glob_is_2star(g->pat, p + 1)))
			glob_set(&g->best, g->on[p]);
	}
}

/*
 * glob_first() - where the earliest match of @pat in @s begins: at 0 only,
 * or (@tails) also after any '/' (but not at 0 when @s starts with '/').
 * Return: that offset, GLOB_NONE for none; 0 when out of memory, so that
 * a protect glob fails closed.
 */
static size_t glob_first(const char *pat, const char *s, bool tails)
{
	size_t stack[2 * (GLOB_STACK + 1)], *heap = NULL, *mem = stack;
	struct glob_run g = { .pat = pat, .len = strlen(pat) };
	size_t i, p;

	if (g.len > GLOB_STACK) {
		heap = malloc(2 * (g.len + 1) * sizeof(*heap));
		if (!heap)
			return 0;
		mem = heap;
	}
	g.on = mem;
	g.skip = mem + g.len + 1;
	for (p = 0; p <= g.len; p++)
		g.on[p] = g.skip[p] = GLOB_NONE;
	g.best = GLOB_NONE;
	if (!tails || s[0] != '/')
		g.on[0] = 0;
	for (i = 0;; i++) {
		if (!glob_close(&g) && (!tails || g.best != GLOB_NONE))
			break;
		if (s[i] == '\0') {
			glob_finish(&g);
			break;
		}
		glob_step(&g, s[i]);
		if (tails && s[i] == '/' && g.best == GLOB_NONE)
			glob_set(&g.on[0], i + 1);
	}
	free(heap);
	return g.best;
}

bool pol_glob_match(const char *pat, const char *s)
{
	return glob_first(pat, s, false) != GLOB_NONE;
}

bool policy_is_protected(const struct policy *p, const char *path,
			 bool own_repo, const char **glob)
{
	size_t i, at, first = GLOB_NONE;
	const char *found = NULL;

	if (!p->protect)
		return false;
	/*
	 * A glob matches at any depth: "sub/.git/config" is protected too.
	 * The glob named is the one matching the longest tail, the first
	 * listed among those.
	 */
	for (i = 0; p->protect[i]; i++) {
		if (own_repo && !strncmp(p->protect[i], ".git/", 5))
			continue;
		at = glob_first(p->protect[i], path, true);
		if (at < first) {
			first = at;
			found = p->protect[i];
		}
	}
	if (!found)
		return false;
	if (glob)
		*glob = found;
	return true;
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
