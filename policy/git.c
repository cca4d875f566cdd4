/*
 * The rules that keep the user's git repositories out of a program's
 * reach, and that make protect globs hold for everything beneath a moved
 * directory.
 *
 * A git directory is recognised by name: a path component ".git" (a
 * directory, or the file of a worktree or submodule that names one), and
 * everything beneath the outermost such component - which includes what
 * a git directory points to in git's own layout: "commondir",
 * "worktrees/NAME", "modules/NAME" with its config and hooks. A zone whose
 * backing path itself lies in a .git is inside one everywhere.
 *
 * Whose it is, fs/ says (struct policy_req.own_repo): a .git directory
 * made through the mount in this session is the program's own; any other
 * existed before the mount, or was made beside it, and is the user's.
 * A user's git directory is never changed through the mount, except that a
 * zone of kind repo, at a trust level that may write there, may change its
 * ordinary contents (refs, objects, the index, HEAD); what makes git run a
 * program or read another repository stays out of reach even then.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "policy_int.h"

/* Inside a git dir, names never written: each makes git run or read
   something else (config, hooks, exec lines of a rebase todo, another
   repository's location). A component anywhere in the inner path. */
static const char *const git_sensitive_dirs[] = {
	"hooks",        "info",      ".git", "rebase-merge",
	"rebase-apply", "sequencer", NULL,
};

/* ... and as the last component. */
static const char *const git_sensitive_files[] = {
	"config", "config.worktree", "commondir", "gitdir", "alternates", NULL,
};

static bool comp_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(s, name, n) == 0;
}

static bool comp_in(const char *s, size_t n, const char *const *names)
{
	for (; *names; names++)
		if (comp_is(s, n, *names))
			return true;
	return false;
}

/* Where the outermost ".git" component of @path ends, or NULL. */
static const char *git_component_end(const char *path)
{
	const char *s = path;

	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (comp_is(s, n, ".git"))
			return s + n;
		s += n;
		while (*s == '/')
			s++;
	}
	return NULL;
}

/* Is the part of a path inside a git dir (@inner, "" for the dir)
   one of the names that stay protected at every level? */
static bool git_inner_sensitive(const char *inner)
{
	const char *s = inner;

	while (*s == '/')
		s++;
	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (comp_in(s, n, git_sensitive_dirs))
			return true;
		if (!e && comp_in(s, n, git_sensitive_files))
			return true;
		s += n;
		while (*s == '/')
			s++;
	}
	return false;
}

enum policy_git_place policy_git_place(const struct policy_zone *z,
				       const char *path)
{
	const char *end;

	if (z && z->git_inner) {
		/* the zone's own directory lies in a .git */
		char buf[PATH_MAX];

		if (snprintf(buf, sizeof(buf), "%s/%s", z->git_inner, path) >=
		    (int)sizeof(buf))
			return GIT_SENSITIVE; /* too long to judge: never */
		return git_inner_sensitive(buf) ? GIT_SENSITIVE : GIT_CONTENT;
	}
	end = git_component_end(path);
	if (!end)
		return GIT_OUTSIDE;
	if (*end == '\0')
		return GIT_ENTRY;
	return git_inner_sensitive(end) ? GIT_SENSITIVE : GIT_CONTENT;
}

static const char *git_inner_of(const char *path)
{
	const char *s = path ? strstr(path, "/.git") : NULL;

	for (; s; s = strstr(s + 1, "/.git"))
		if (s[5] == '/' || s[5] == '\0')
			return s[5] ? s + 6 : s + 5;
	return NULL;
}

void pol_zone_git_inner(struct policy_zone *z)
{
	z->git_inner = git_inner_of(z->path);
	if (!z->git_inner)
		z->git_inner = git_inner_of(z->real);
}

/* The outermost .git of @path, for reasons: "sub/.git", or the zone. */
static void git_dir_name(const struct policy_zone *z, const char *path,
			 const char **s, int *n)
{
	const char *end = z->git_inner ? NULL : git_component_end(path);

	*s = end ? path : z->vpath;
	*n = end ? (int)(end - path) : (int)strlen(z->vpath);
}

static bool repo_writable(const struct policy_req *r)
{
	return r->zone->kind == ZONE_REPO &&
	       (r->zone->rights[r->trust] & RIGHT_W);
}

int policy_decide_git(const struct policy_req *r, struct gfs_err *why)
{
	const struct policy_zone *z = r->zone;
	enum policy_git_place at = policy_git_place(z, r->path);
	const char *g;
	int n;

	if (at == GIT_OUTSIDE || r->own_repo)
		return 0;
	git_dir_name(z, r->path, &g, &n);
	if (at == GIT_ENTRY && r->op == POP_CREATE && r->is_dir && r->empty_dir)
		return 0; /* mkdir .git: the program's own repository */
	if (at == GIT_ENTRY && r->op == POP_CREATE)
		return gfs_err_set(why, -EACCES,
				   "'%s': a .git may only be made with mkdir "
				   "(git init); a .git file, link or moved "
				   "directory would point git at a repository "
				   "the mount does not guard",
				   r->path);
	if (at == GIT_ENTRY)
		return gfs_err_set(why, -EACCES,
				   "'%s' is a git repository that existed "
				   "before this mount; it is never changed, "
				   "moved or removed through it",
				   r->path);
	if (at == GIT_CONTENT && repo_writable(r) &&
	    !(r->op == POP_CREATE && r->is_dir && !r->empty_dir))
		return 0;
	if (at == GIT_CONTENT && repo_writable(r))
		return gfs_err_set(why, -EACCES,
				   "'%s': directories are not moved into the "
				   "git repository '%.*s'",
				   r->path, n, g);
	if (at == GIT_SENSITIVE && repo_writable(r))
		return gfs_err_set(why, -EACCES,
				   "'%s' is in the git repository '%.*s' and "
				   "makes git run or read something else "
				   "(config, hooks, info, commondir, a todo "
				   "list); it is never written through the "
				   "mount",
				   r->path, n, g);
	return gfs_err_set(why, -EACCES,
			   "'%s' is in the git repository '%.*s', which "
			   "existed before this mount; it is read-only "
			   "through the mount",
			   r->path, n, g);
}

int policy_check_protect(const struct policy *p, const struct policy_req *r,
			 struct gfs_err *why)
{
	const char *glob;
	int rc;

	rc = policy_decide_git(r, why);
	if (rc < 0)
		return rc;
	if (!(r->op == POP_CREATE && r->empty_dir) &&
	    policy_is_protected(p, r->path, r->own_repo, &glob))
		return gfs_err_set(why, -EACCES,
				   "'%s' is protected (%s) and is never "
				   "written or deleted",
				   r->path, glob);
	return 0;
}

int policy_decide_beneath(const struct policy *p, const struct policy_req *r,
			  const char *sub, bool sub_own, struct gfs_err *why)
{
	struct policy_req e = *r;
	char path[PATH_MAX];
	int rc;

	if (snprintf(path, sizeof(path), "%s%s%s", r->path, *r->path ? "/" : "",
		     sub) >= (int)sizeof(path))
		return gfs_err_set(why, -EXDEV, "'%s/%s': too deep to check",
				   r->path, sub);
	e.path = path;
	e.empty_dir = false;
	/* the outermost .git decides: above the moved directory, or in it */
	if (policy_git_place(r->zone, r->path) == GIT_OUTSIDE)
		e.own_repo = sub_own;
	rc = policy_check_protect(p, &e, why);
	if (rc < 0)
		gfs_err_prefix(why, "'%s' cannot move with what it holds",
			       *r->path ? r->path : "/");
	return rc;
}
