/*
 * Git metadata that makes git run a program, as pure rules.
 *
 * A repository a sandboxed program makes lives on in the host's files; the
 * user's git will later read its config and run its hooks, unconfined.
 * These rules let the daemon keep such a repository free of anything git
 * would execute: which names make a directory a git directory, which
 * files in one git reads as config or runs as hooks, and a small git-config
 * reader that finds every key which makes git run a program.
 *
 * The reader follows git's own parser (config.c of git 2.39): sections,
 * "quoted" subsections and the old [section.sub] spelling, case-insensitive
 * section and key names, quoted values, backslash escapes and line
 * continuations, '#' and ';' comments, CRLF, a leading UTF-8 BOM. Whatever
 * it cannot read is refused: git would stop at it too (it dies on a bad
 * config line), so a refusal costs nothing a real git could use.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "policy.h"

/*
 * Config keys that make git run a program, read from git-config(1),
 * git-archive(1), git-interpret-trailers(1) and git-send-email(1) of git
 * 2.39, plus keys of newer git and git-lfs that do the same. A rule names
 * a section and a key (any subsection, or none); a NULL key takes every
 * key of the section. Matching ignores the subsection on purpose: a key
 * that only runs with one spelling is refused in all of them.
 */
static const struct exec_key {
	const char *section;
	const char *key; /* NULL: the whole section */
} exec_keys[] = {
	{ "core", "fsmonitor" }, /* hook run by git status */
	{ "core", "hookspath" }, /* hooks from anywhere */
	{ "core", "sshcommand" },
	{ "core", "gitproxy" },
	{ "core", "alternaterefscommand" },
	{ "core", "pager" },
	{ "core", "editor" },
	{ "core", "askpass" },
	{ "sequence", "editor" },
	{ "alias", NULL },   /* "!cmd", and "-c key=cmd" too */
	{ "pager", NULL },   /* pager.<cmd> is a pager command */
	{ "include", NULL }, /* config from any file */
	{ "includeif", NULL },
	{ "filter", NULL }, /* clean, smudge, process */
	{ "diff", "external" },
	{ "diff", "command" }, /* diff.<driver>.command */
	{ "diff", "textconv" },
	{ "difftool", "cmd" },
	{ "difftool", "path" },
	{ "merge", "driver" }, /* merge.<driver>.driver */
	{ "mergetool", "cmd" },
	{ "mergetool", "path" },
	{ "credential", "helper" },     /* also credential.<url>.helper */
	{ "gpg", "program" },           /* also gpg.<format>.program */
	{ "gpg", "defaultkeycommand" }, /* gpg.ssh.defaultKeyCommand */
	{ "web", "browser" },
	{ "browser", "cmd" },
	{ "browser", "path" },
	{ "help", "browser" },
	{ "man", "viewer" },
	{ "man", "cmd" },
	{ "man", "path" },
	{ "instaweb", NULL }, /* httpd, browser, modulePath */
	{ "guitool", "cmd" },
	{ "imap", "tunnel" },
	{ "interactive", "difffilter" },
	{ "remote", "uploadpack" }, /* run locally for local remotes */
	{ "remote", "receivepack" },
	{ "remote", "vcs" },     /* names a git-remote-<vcs> helper */
	{ "protocol", "allow" }, /* would allow ext:: commands */
	{ "uploadpack", "packobjectshook" },
	{ "tar", "command" }, /* tar.<format>.command */
	{ "trailer", "cmd" },
	{ "trailer", "command" },
	{ "sendemail", "smtpserver" }, /* a path runs it as sendmail */
	{ "sendemail", "sendmailcmd" },
	{ "sendemail", "tocmd" },
	{ "sendemail", "cccmd" },
	{ "sendemail", "headercmd" },
	{ "init", "templatedir" }, /* hooks copied in by git init */
	{ "svn", "authorsprog" },
	{ "hook", NULL },   /* hook.<name>.command, newer git */
	{ "lfs", "path" },  /* lfs.customtransfer.<n>.path */
	{ "lfs", "clean" }, /* lfs.extension.<n>.clean */
	{ "lfs", "smudge" },
};

/* submodule.<name>.update: "!command" runs it; only these are plain. */
static const char *const submodule_updates[] = {
	"checkout", "rebase", "merge", "none", NULL,
};

#define GITCFG_MAX_NAME 256

struct gcp {
	const unsigned char *s, *end;
	int line;
	bool eof;
	char section[GITCFG_MAX_NAME]; /* lowercased, before the first '.' */
	char sub[GITCFG_MAX_NAME];     /* as written; "" when none */
	bool has_sub;
	char key[GITCFG_MAX_NAME];
	char value[GITCFG_MAX_NAME]; /* only its start matters; see below */
	size_t vlen;
	bool vlong;
	struct gfs_err *why;
};

/* git's own character classes: ASCII only, whatever the locale. */
static bool g_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool g_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool g_keychar(int c)
{
	return g_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int g_lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* As git's get_next_char(): CRLF is LF, the end reads as a last LF. */
static int next(struct gcp *p)
{
	int c;

	if (p->s >= p->end) {
		p->eof = true;
		return '\n';
	}
	c = *p->s++;
	if (c == '\r' && p->s < p->end && *p->s == '\n')
		c = *p->s++;
	if (c == '\n')
		p->line++;
	return c;
}

static int bad(struct gcp *p, int line, const char *what)
{
	return gfs_err_set(p->why, -EACCES,
			   "git config line %d: %s; golemfs refuses config "
			   "it cannot read",
			   line, what);
}

static int add(char *buf, size_t *len, int c)
{
	if (*len + 1 >= GITCFG_MAX_NAME)
		return -ENAMETOOLONG;
	buf[(*len)++] = (char)c;
	buf[*len] = '\0';
	return 0;
}

/* [section "sub"]: after the first space; as get_extended_base_var(). */
static int header_sub(struct gcp *p, int c)
{
	size_t n = 0;

	do {
		if (c == '\n')
			return -EINVAL;
		c = next(p);
	} while (g_space(c));
	if (c != '"')
		return -EINVAL;
	for (;;) {
		c = next(p);
		if (c == '\n')
			return -EINVAL;
		if (c == '"')
			break;
		if (c == '\\') {
			c = next(p);
			if (c == '\n')
				return -EINVAL;
		}
		if (add(p->sub, &n, c) < 0)
			return -ENAMETOOLONG;
	}
	p->has_sub = true;
	return next(p) == ']' ? 0 : -EINVAL;
}

/* After '[': the section (and subsection) name; as get_base_var(). */
static int header(struct gcp *p)
{
	char base[GITCFG_MAX_NAME] = "";
	size_t n = 0;
	char *dot;
	int c, rc = 0;

	p->sub[0] = '\0';
	p->has_sub = false;
	for (;;) {
		c = next(p);
		if (p->eof)
			return -EINVAL;
		if (c == ']')
			break;
		if (g_space(c)) {
			rc = header_sub(p, c);
			break;
		}
		if (!g_keychar(c) && c != '.')
			return -EINVAL;
		if (add(base, &n, g_lower(c)) < 0)
			return -ENAMETOOLONG;
	}
	if (rc < 0)
		return rc;
	/* [a.b] is the old spelling of [a "b"]: split at the first dot */
	dot = strchr(base, '.');
	if (dot) {
		char sub[GITCFG_MAX_NAME];
		int n2;

		*dot = '\0';
		/* [a.b "c"] is a.b.c to git: only the section matters here */
		n2 = p->has_sub
			 ? snprintf(sub, sizeof(sub), "%s.%s", dot + 1, p->sub)
			 : snprintf(sub, sizeof(sub), "%s", dot + 1);
		if (n2 < 0 || (size_t)n2 >= sizeof(sub))
			return -ENAMETOOLONG;
		memcpy(p->sub, sub, (size_t)n2 + 1);
		p->has_sub = true;
	}
	memcpy(p->section, base, strlen(base) + 1);
	return 0;
}

/* The value after '=', through its line end; as git's parse_value(). */
static int value(struct gcp *p)
{
	bool quote = false, comment = false;
	int space = 0, c;

	p->vlen = 0;
	p->vlong = false;
	p->value[0] = '\0';
	for (;;) {
		c = next(p);
		if (c == '\n')
			return quote ? -EINVAL : 0;
		if (comment)
			continue;
		if (g_space(c) && !quote) {
			if (p->vlen || p->vlong)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			if (add(p->value, &p->vlen, ' ') < 0)
				p->vlong = true;
		if (c == '\\') {
			c = next(p);
			switch (c) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return -EINVAL;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		/* only the start of a value is ever judged: keep reading */
		if (add(p->value, &p->vlen, c) < 0)
			p->vlong = true;
	}
}

/*
 * For the reason: "section.sub.key", the subsection printable and short.
 * Section and key are those of a rule here, so short; the precision only
 * bounds what the compiler cannot know.
 */
static void key_name(const struct gcp *p, char *buf, size_t size)
{
	char sub[40];
	size_t i, n = 0;

	for (i = 0; p->sub[i] && n + 4 < sizeof(sub); i++) {
		unsigned char c = (unsigned char)p->sub[i];

		sub[n++] = (c >= 0x20 && c < 0x7f && c != '\'') ? (char)c : '?';
	}
	sub[n] = '\0';
	if (p->sub[i])
		strcat(sub, "...");
	if (p->has_sub)
		snprintf(buf, size, "%.40s.%s.%.40s", p->section, sub, p->key);
	else
		snprintf(buf, size, "%.40s.%.40s", p->section, p->key);
}

static bool submodule_update_plain(const char *v)
{
	int i;

	for (i = 0; submodule_updates[i]; i++)
		if (strcmp(v, submodule_updates[i]) == 0)
			return true;
	return false;
}

static bool key_executes(const struct gcp *p, bool has_value)
{
	size_t i;

	for (i = 0; i < sizeof(exec_keys) / sizeof(exec_keys[0]); i++)
		if (strcmp(p->section, exec_keys[i].section) == 0 &&
		    (!exec_keys[i].key ||
		     strcmp(p->key, exec_keys[i].key) == 0))
			return true;
	if (strcmp(p->section, "submodule") == 0 &&
	    strcmp(p->key, "update") == 0)
		return !has_value || p->vlong ||
		       !submodule_update_plain(p->value);
	return false;
}

/* A "key [= value]" line starting with @c; as git's get_value(). */
static int entry(struct gcp *p, int c)
{
	char name[160];
	bool has_value = false;
	int line = p->line, rc;
	size_t n = 0;

	p->key[0] = '\0';
	if (add(p->key, &n, g_lower(c)) < 0)
		return -ENAMETOOLONG;
	for (;;) {
		c = next(p);
		if (p->eof || !g_keychar(c))
			break;
		if (add(p->key, &n, g_lower(c)) < 0)
			return bad(p, line, "key name too long");
	}
	while (c == ' ' || c == '\t')
		c = next(p);
	if (c != '\n') {
		if (c != '=')
			return bad(p, line, "bad key line");
		rc = value(p);
		if (rc < 0)
			return bad(p, line, "bad value");
		has_value = true;
	}
	if (!key_executes(p, has_value))
		return 0;
	key_name(p, name, sizeof(name));
	return gfs_err_set(p->why, -EACCES,
			   "git config '%s' (line %d) makes git run a "
			   "program; a repository made in the sandbox may not "
			   "set it",
			   name, line);
}

int policy_gitconfig_check(const char *text, size_t len, struct gfs_err *why)
{
	struct gcp p = { .s = (const unsigned char *)text,
			 .end = (const unsigned char *)text + len,
			 .line = 1,
			 .why = why };
	bool comment = false;
	int c, line, rc;

	if (memchr(text, '\0', len))
		return bad(&p, 1, "a NUL byte");
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p.s += 3;
	for (;;) {
		line = p.line;
		c = next(&p);
		if (c == '\n') {
			if (p.eof)
				return 0;
			comment = false;
			continue;
		}
		if (comment || g_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			rc = header(&p);
			if (rc == -ENAMETOOLONG)
				return bad(&p, line, "section name too long");
			if (rc < 0)
				return bad(&p, line, "bad section header");
			continue;
		}
		if (!g_alpha(c))
			return bad(&p, line, "a line that is no key");
		rc = entry(&p, c);
		if (rc == -ENAMETOOLONG)
			return bad(&p, line, "key name too long");
		if (rc < 0)
			return rc;
	}
}

enum policy_git_name policy_git_name_kind(const char *name)
{
	static const char *const markers[] = { "HEAD", "objects", "refs",
					       "commondir", NULL };
	int i;

	if (!strcmp(name, "config") || !strcmp(name, "config.worktree"))
		return GIT_NAME_CONFIG;
	if (!strcmp(name, "hooks"))
		return GIT_NAME_HOOKS;
	for (i = 0; markers[i]; i++)
		if (!strcmp(name, markers[i]))
			return GIT_NAME_MARKER;
	return GIT_NAME_PLAIN;
}

bool policy_git_hook_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 7 && strcmp(name + n - 7, ".sample") == 0;
}

bool policy_git_in_hooks(const char *rel)
{
	const char *base = strrchr(rel, '/'), *dir;

	if (!base)
		return false;
	for (dir = base; dir > rel && dir[-1] != '/'; dir--)
		;
	return base - dir == 5 && strncmp(dir, "hooks", 5) == 0;
}

bool policy_git_sensitive(const char *rel)
{
	const char *base = strrchr(rel, '/');

	return policy_git_name_kind(base ? base + 1 : rel) != GIT_NAME_PLAIN ||
	       policy_git_in_hooks(rel);
}

/* ---- what stands in a git directory ---- */

int policy_check_gitconfig_open(int err, struct gfs_err *why)
{
	if (err == ELOOP)
		return gfs_err_set(why, -EACCES,
				   "a git directory's config may not be a "
				   "symlink");
	if (err)
		return gfs_err_set(why, -EACCES,
				   "a git directory's config must be a "
				   "readable regular file");
	return 0;
}

int policy_check_gitconfig_file(mode_t mode, uint64_t nlink, uint64_t size,
				struct gfs_err *why)
{
	if (!S_ISREG(mode))
		return gfs_err_set(why, -EACCES,
				   "a git directory's config must be a "
				   "regular file");
	if (nlink != 1)
		return gfs_err_set(why, -EACCES,
				   "a git directory's config may not have a "
				   "second name (a hard link writes it)");
	if (size > POLICY_GITCONFIG_MAX)
		return gfs_err_set(why, -EACCES,
				   "a git directory's config may not be "
				   "larger than %d bytes",
				   POLICY_GITCONFIG_MAX);
	return 0;
}

int policy_check_git_new_config(bool renamed, mode_t fmt, struct gfs_err *why)
{
	if (renamed && fmt == S_IFREG)
		return 0;
	return gfs_err_set(why, -EACCES,
			   "a git directory's config is only replaced by "
			   "renaming a checked file onto it, as git does");
}

int policy_check_git_hooks(mode_t fmt, struct gfs_err *why)
{
	if (fmt == S_IFLNK)
		return gfs_err_set(why, -EACCES,
				   "a git directory's hooks may not be a "
				   "symlink");
	return 0;
}

int policy_check_git_hooks_dir(int err, struct gfs_err *why)
{
	if (err)
		return gfs_err_set(why, -EACCES,
				   "a git directory's hooks must be a real "
				   "directory");
	return 0;
}

int policy_check_git_hook(const char *name, bool is_new, struct gfs_err *why)
{
	if (policy_git_hook_name_ok(name))
		return 0;
	if (is_new)
		return gfs_err_set(why, -EACCES,
				   "git would run this hook on the host; a git "
				   "directory's hooks may hold only *.sample "
				   "files");
	return gfs_err_set(why, -EACCES,
			   "hooks/ holds a name git would run on the host; a "
			   "git directory's hooks may hold only *.sample "
			   "files");
}
