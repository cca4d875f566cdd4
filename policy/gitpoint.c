/*
 * What the user's own git config makes git run or read from the working
 * tree: a hooks directory named by core.hooksPath (husky and the like put
 * it in the repository; for husky 9's ".husky/_", whose hooks run the
 * scripts in ".husky", the directory above), files named by include.path
 * and includeIf, and
 * programs named by path in keys that run one (a filter, an alias, an
 * fsmonitor hook kept in the repository). A program that may write the
 * working tree could change those, and the user's next git command would
 * run its code, so policy_resolve() guards them like golemfs's own files.
 *
 * Git directories of the user's that are not named ".git" - a bare
 * repository, the target of a .git file or of a commondir - are guarded
 * whole; those named .git are the git rule's (git.c).
 *
 * The repositories looked at: the one that holds a zone's directory, and
 * those up to BELOW_LEVELS below it (not in node_modules; links not
 * followed; at most BELOW_ENTRIES entries read). The config is the
 * user's, written before the mount and never changed through it, so this
 * reader takes git's usual spellings (sections, quoted subsections,
 * quoted values, escapes, comments, continuation lines) without defending
 * against hostile text.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy_int.h"

#define CONFIG_MAX (1 << 20) /* bytes of one config file read */
#define INCLUDE_DEPTH 5      /* git's own limit is 10 */
#define BELOW_LEVELS 3       /* repositories this deep in a zone */
#define BELOW_ENTRIES 20000  /* entries read looking for them */

/* Keys whose value is a command (or a path) git runs; '*' is any
   subsection. Names lower-cased, as scanned. */
static const char *const exec_keys[] = {
	"core.fsmonitor",    "core.sshcommand",
	"core.editor",       "core.pager",
	"core.askpass",      "sequence.editor",
	"gpg.program",       "gpg.*.program",
	"credential.helper", "credential.*.helper",
	"filter.*.clean",    "filter.*.smudge",
	"filter.*.process",  "diff.*.textconv",
	"diff.*.command",    "diff.external",
	"merge.*.driver",    "alias.*",
	"pager.*",           "uploadpack.packobjectshook",
	"web.browser",       "browser.*.cmd",
	"browser.*.path",    "mergetool.*.cmd",
	"mergetool.*.path",  "difftool.*.cmd",
	"difftool.*.path",   "core.gitproxy",
	"ssh.variant",       NULL,
};

/* "a.*.b" against "a.sub.b"; '*' is one subsection, dots and all. */
static bool key_is(const char *pat, const char *key)
{
	const char *star = strchr(pat, '*'), *last;
	size_t pre;

	if (!star)
		return strcmp(pat, key) == 0;
	pre = (size_t)(star - pat);
	if (strncmp(pat, key, pre))
		return false;
	if (star[1] == '\0') /* "alias.*" */
		return key[pre] != '\0';
	last = strrchr(key, '.');
	return last && last > key + pre && strcmp(last, star + 1) == 0;
}

bool pol_git_key_runs(const char *key)
{
	size_t i;

	for (i = 0; exec_keys[i]; i++)
		if (key_is(exec_keys[i], key))
			return true;
	return false;
}

/* ---- a reader of git config text ---- */

struct scan {
	const char *s, *end;
	char section[256]; /* "core", "includeif.gitdir:x" */
	git_config_fn fn;
	void *ctx;
};

static bool sp(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static bool key_char(int c)
{
	return c == '-' || (lower(c) >= 'a' && lower(c) <= 'z') ||
	       (c >= '0' && c <= '9');
}

static void skip_line(struct scan *sc)
{
	while (sc->s < sc->end && *sc->s != '\n')
		sc->s++;
}

/* "[name]", "[name \"sub\"]" or "[name.sub]". */
static void header(struct scan *sc)
{
	size_t n = 0;
	bool quoted = false;

	sc->s++;
	while (sc->s < sc->end && *sc->s != '\n' &&
	       n + 1 < sizeof(sc->section)) {
		char c = *sc->s++;

		if (!quoted && c == ']')
			break;
		if (!quoted && sp(c)) {
			if (n && sc->section[n - 1] != '.')
				sc->section[n++] = '.';
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (quoted && c == '\\' && sc->s < sc->end)
			c = *sc->s++;
		sc->section[n++] = quoted ? c : (char)lower(c);
	}
	sc->section[n] = '\0';
	skip_line(sc);
}

/* The value after '=', unquoted, escapes and continuations applied. */
static void value(struct scan *sc, char *out, size_t size)
{
	size_t n = 0, keep = 0;
	bool quoted = false;

	while (sc->s < sc->end && sp(*sc->s))
		sc->s++;
	while (sc->s < sc->end && *sc->s != '\n' && n + 1 < size) {
		char c = *sc->s++;

		if (c == '\\' && sc->s < sc->end) {
			c = *sc->s++;
			if (c == '\n')
				continue;
			c = c == 'n'   ? '\n'
			    : c == 't' ? '\t'
			    : c == 'b' ? '\b'
				       : c;
			out[n++] = c;
			keep = n;
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			keep = n;
			continue;
		}
		if (!quoted && (c == '#' || c == ';')) {
			skip_line(sc);
			break;
		}
		out[n++] = c;
		if (quoted || !sp(c))
			keep = n;
	}
	out[keep] = '\0';
}

static int entry(struct scan *sc)
{
	char key[512], val[PATH_MAX];
	size_t n = 0;

	n = (size_t)snprintf(key, sizeof(key), "%s.", sc->section);
	while (sc->s < sc->end && n + 1 < sizeof(key) && key_char(*sc->s))
		key[n++] = (char)lower(*sc->s++);
	key[n] = '\0';
	while (sc->s < sc->end && sp(*sc->s))
		sc->s++;
	if (sc->s >= sc->end || *sc->s != '=') {
		skip_line(sc); /* a boolean, or not a key */
		return 0;
	}
	sc->s++;
	value(sc, val, sizeof(val));
	return sc->fn(sc->ctx, key, val);
}

int pol_git_config_scan(const char *text, size_t len, git_config_fn fn,
			void *ctx)
{
	struct scan sc = { .s = text, .end = text + len, .fn = fn, .ctx = ctx };
	int rc = 0;

	while (rc == 0 && sc.s < sc.end) {
		while (sc.s < sc.end && (sp(*sc.s) || *sc.s == '\n'))
			sc.s++;
		if (sc.s >= sc.end)
			break;
		if (*sc.s == '[')
			header(&sc);
		else if (*sc.s == '#' || *sc.s == ';')
			skip_line(&sc);
		else
			rc = entry(&sc);
	}
	return rc;
}

/* ---- on the host: the repositories and what their config names ---- */

struct repo {
	const char *top; /* the working tree's top */
	git_point_fn fn;
	void *ctx;
	int depth;       /* of includes */
	const char *dir; /* of the config file being read */
};

static int scan_file(struct repo *r, const char *path);

/* @word made absolute: "~/x" from $HOME, "x" from @base. */
static char *abs_path(const char *base, const char *word)
{
	const char *home = getenv("HOME");
	char *p;

	if (word[0] == '~' && word[1] == '/') {
		if (!home || asprintf(&p, "%s/%s", home, word + 2) < 0)
			return NULL;
		return p;
	}
	return pol_path_resolve(base, word);
}

/* The first word of a command, when it names a file by path. */
static char *command_path(const char *top, const char *cmd)
{
	char word[PATH_MAX];
	size_t n = 0;
	char q = 0;

	while (*cmd == '!' || sp(*cmd))
		cmd++;
	if (*cmd == '"' || *cmd == '\'')
		q = *cmd++;
	while (*cmd && n + 1 < sizeof(word) && (q ? *cmd != q : !sp(*cmd)))
		word[n++] = *cmd++;
	word[n] = '\0';
	if (!strchr(word, '/'))
		return NULL; /* looked up in PATH, which no zone should be */
	return abs_path(top, word);
}

static int config_entry(void *ctx, const char *key, const char *val)
{
	struct repo *r = ctx;
	char *p = NULL;
	int rc = 0;

	if (strcmp(key, "core.hookspath") == 0) {
		p = abs_path(r->top, val);
		/* husky 9: the hooks in ".husky/_" run the scripts beside it */
		if (p && strlen(p) > 2 && strcmp(p + strlen(p) - 2, "/_") == 0)
			p[strlen(p) - 2] = '\0';
		if (p)
			rc = r->fn(r->ctx, p,
				   "a hooks directory the user's git runs "
				   "(core.hooksPath)",
				   true);
	} else if (strcmp(key, "include.path") == 0 ||
		   (strncmp(key, "includeif.", 10) == 0 &&
		    key_is("includeif.*.path", key))) {
		p = abs_path(r->dir, val);
		if (p)
			rc = r->fn(r->ctx, p,
				   "a file the user's git config "
				   "includes",
				   false);
		if (p && rc == 0 && r->depth < INCLUDE_DEPTH) {
			r->depth++;
			rc = scan_file(r, p);
			r->depth--;
		}
	} else if (pol_git_key_runs(key)) {
		p = command_path(r->top, val);
		if (p)
			rc = r->fn(r->ctx, p,
				   "a program the user's git config "
				   "runs",
				   false);
	}
	free(p);
	return rc;
}

static int scan_file(struct repo *r, const char *path)
{
	const char *saved = r->dir;
	char *text = NULL, *dir = NULL, *slash;
	size_t len;
	int rc;

	if (pol_read_file(path, &text, &len, NULL) < 0)
		return 0; /* absent or unreadable: nothing git reads there */
	dir = strdup(path);
	if (!dir) {
		free(text);
		return -ENOMEM;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	r->dir = dir;
	rc = len > CONFIG_MAX ? 0
			      : pol_git_config_scan(text, len, config_entry, r);
	r->dir = saved;
	free(dir);
	free(text);
	return rc;
}

/*
 * The system's and the user's global config apply to every repository, and
 * a relative path in them (core.hooksPath = .githooks) names a file of
 * each working tree, read where git reads them (GIT_CONFIG_SYSTEM,
 * GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME, HOME, GIT_CONFIG_NOSYSTEM).
 */
static int scan_shared(struct repo *r)
{
	const char *sys = getenv("GIT_CONFIG_SYSTEM");
	const char *glob = getenv("GIT_CONFIG_GLOBAL");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *p = NULL;
	int rc = 0;

	if (!getenv("GIT_CONFIG_NOSYSTEM"))
		rc = scan_file(r, sys && *sys ? sys : "/etc/gitconfig");
	if (rc == 0 && glob && *glob)
		return scan_file(r, glob);
	if (rc == 0 && ((xdg && *xdg) ? asprintf(&p, "%s/git/config", xdg)
			: home ? asprintf(&p, "%s/.config/git/config", home)
			       : -1) >= 0) {
		rc = scan_file(r, p);
		free(p);
		p = NULL;
	}
	if (rc == 0 && home && asprintf(&p, "%s/.gitconfig", home) >= 0) {
		rc = scan_file(r, p);
		free(p);
	}
	return rc;
}

/* The git dir for the working tree @top: .git, or what a gitfile names. */
static char *git_dir_of(const char *top)
{
	char *dotgit, *text = NULL, *gd = NULL;
	struct stat st;
	size_t len;

	if (asprintf(&dotgit, "%s/.git", top) < 0)
		return NULL;
	if (lstat(dotgit, &st) == 0 && S_ISDIR(st.st_mode))
		return dotgit;
	if (S_ISREG(st.st_mode) &&
	    pol_read_file(dotgit, &text, &len, NULL) == 0 &&
	    strncmp(text, "gitdir:", 7) == 0) {
		text[strcspn(text, "\r\n")] = '\0';
		gd = pol_path_resolve(top, text + 7 + strspn(text + 7, " \t"));
	}
	free(text);
	free(dotgit);
	return gd;
}

/* Is @path in or at a ".git" component, which the git rule covers? */
static bool under_dot_git(const char *path)
{
	const char *s = strstr(path, "/.git");

	for (; s; s = strstr(s + 1, "/.git"))
		if (s[5] == '/' || s[5] == '\0')
			return true;
	return false;
}

/* A git directory of the user's that is not named .git: all of it. */
static int other_git_dir(const char *gd, git_point_fn fn, void *ctx,
			 const char *what)
{
	return under_dot_git(gd) ? 0 : fn(ctx, gd, what, true);
}

static int scan_repo(const char *top, git_point_fn fn, void *ctx)
{
	struct repo r = { .top = top, .fn = fn, .ctx = ctx };
	char *gd = git_dir_of(top), *p = NULL, *common = NULL, *cd = NULL;
	size_t len;
	int rc = 0;

	if (!gd)
		return 0;
	if (asprintf(&p, "%s/commondir", gd) >= 0 &&
	    pol_read_file(p, &common, &len, NULL) == 0) {
		common[strcspn(common, "\r\n")] = '\0';
		cd = pol_path_resolve(gd, common);
	}
	free(p);
	p = NULL;
	rc = other_git_dir(gd, fn, ctx,
			   "a git directory of the user's "
			   "(a .git file names it)");
	if (rc == 0 && cd)
		rc = other_git_dir(cd, fn, ctx,
				   "a git directory of the "
				   "user's (a commondir names it)");
	if (rc == 0)
		rc = scan_shared(&r);
	if (rc == 0 && cd && asprintf(&p, "%s/config", cd) >= 0)
		rc = scan_file(&r, p);
	free(p);
	p = NULL;
	if (rc == 0 && asprintf(&p, "%s/config", gd) >= 0)
		rc = scan_file(&r, p);
	free(p);
	p = NULL;
	if (rc == 0 && asprintf(&p, "%s/config.worktree", gd) >= 0)
		rc = scan_file(&r, p);
	free(p);
	free(common);
	free(cd);
	free(gd);
	return rc;
}

/* The working tree that holds @dir: the nearest directory with a .git. */
static int scan_enclosing(const char *dir, git_point_fn fn, void *ctx)
{
	char *d = strdup(dir), *slash, *dotgit;
	struct stat st;
	int rc = 0;

	if (!d)
		return -ENOMEM;
	for (;;) {
		if (asprintf(&dotgit, "%s/.git", strcmp(d, "/") ? d : "") < 0) {
			rc = -ENOMEM;
			break;
		}
		if (lstat(dotgit, &st) == 0) {
			free(dotgit);
			rc = scan_repo(d, fn, ctx);
			break;
		}
		free(dotgit);
		slash = strrchr(d, '/');
		if (!slash || strcmp(d, "/") == 0)
			break;
		slash[slash == d ? 1 : 0] = '\0';
	}
	free(d);
	return rc;
}

struct below {
	git_point_fn fn;
	void *ctx;
	size_t seen; /* entries read, against BELOW_ENTRIES */
};

static bool skipped(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..") ||
	       !strcmp(name, ".git") || !strcmp(name, "node_modules");
}

/* Would git take @dir for a git directory (HEAD, objects, refs)? */
static bool is_bare(const char *dir)
{
	static const char *const need[] = { "HEAD", "objects", "refs", NULL };
	struct stat st;
	char *p;
	int i, ok;

	for (i = 0; need[i]; i++) {
		if (asprintf(&p, "%s/%s", dir, need[i]) < 0)
			return false;
		ok = lstat(p, &st) == 0;
		free(p);
		if (!ok)
			return false;
	}
	return true;
}

/* Repositories in @dir and below, @levels deep; no link followed. */
static int scan_below(struct below *b, const char *dir, int levels)
{
	struct dirent *de;
	struct stat st;
	char *sub;
	DIR *dp;
	int rc = 0;

	dp = levels > 0 ? opendir(dir) : NULL;
	while (dp && rc == 0 && (de = readdir(dp)) &&
	       b->seen++ < BELOW_ENTRIES) {
		if (skipped(de->d_name) ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (asprintf(&sub, "%s/%s", strcmp(dir, "/") ? dir : "",
			     de->d_name) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(sub);
			continue;
		}
		if (is_bare(sub)) {
			rc = other_git_dir(sub, b->fn, b->ctx,
					   "a bare git repository of the "
					   "user's");
		} else {
			rc = scan_repo(sub, b->fn, b->ctx);
			if (rc == 0)
				rc = scan_below(b, sub, levels - 1);
		}
		free(sub);
	}
	if (dp)
		closedir(dp);
	return rc;
}

int pol_git_pointed(const char *dir, git_point_fn fn, void *ctx)
{
	struct below b = { .fn = fn, .ctx = ctx };
	int rc;

	rc = scan_enclosing(dir, fn, ctx);
	if (rc == 0 && is_bare(dir))
		rc = other_git_dir(dir, fn, ctx,
				   "a bare git repository of the user's");
	else if (rc == 0)
		rc = scan_below(&b, dir, BELOW_LEVELS);
	return rc;
}
