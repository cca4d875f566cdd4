/*
 * What a rename or exchange of a directory takes along: a bounded walk of
 * everything beneath it, so that the policy can judge each entry where it
 * leaves and where it arrives (policy_decide_beneath()).
 *
 * The walk never follows a link: each directory is opened from its
 * parent's fd with O_NOFOLLOW|O_DIRECTORY. It is bounded in entries, depth
 * and path length; past a bound the move is refused with EXDEV, so that
 * mv(1) falls back to copying and deleting, each name checked on its own.
 * Entries that vanish while it walks are not moved, and are skipped.
 *
 * It is race-free where it matters: an entry protected where it is now
 * cannot be put into the walked tree meanwhile, since putting it there
 * (create, rename, link) is itself judged at that place. See the README
 * (Safety) for the one race that remains with custom protect globs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inode.h"
#include "subtree.h"

struct walk {
	struct gfs *g;
	subtree_fn fn;
	void *arg;
	size_t entries;
	char path[PATH_MAX];
};

enum { GIT_NONE = -1, GIT_USER = 0, GIT_OWN = 1 };

static bool is_dot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* Whose is the .git entry @name in @dfd: the program's own, or not. */
static int git_owner(struct walk *w, int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && node_own_git_has(w->g, &st))
		return GIT_OWN;
	return GIT_USER;
}

static bool entry_is_dir(int dfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

static int walk_dir(struct walk *w, int fd, size_t len, int depth, int git);

static int walk_entry(struct walk *w, int dfd, const struct dirent *de,
		      size_t len, int depth, int git)
{
	size_t n = strlen(de->d_name), at = len ? len + 1 : 0;
	int rc, cfd;

	if (++w->entries > POLICY_MOVE_MAX_ENTRIES || at + n >= sizeof(w->path))
		return -EXDEV;
	if (len)
		w->path[len] = '/';
	memcpy(w->path + at, de->d_name, n + 1);
	if (git == GIT_NONE && strcmp(de->d_name, ".git") == 0)
		git = git_owner(w, dfd, de->d_name);
	rc = w->fn(w->arg, w->path, git == GIT_OWN);
	if (rc < 0 || !entry_is_dir(dfd, de))
		return rc;
	if (depth >= POLICY_MOVE_MAX_DEPTH)
		return -EXDEV;
	cfd = openat(dfd, de->d_name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0)
		/* gone, or no longer a directory: nothing beneath moves */
		return (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			   ? 0
			   : -errno;
	return walk_dir(w, cfd, at + n, depth + 1, git);
}

/* Walk the directory open at @fd (taken over); w->path[0..len) names it. */
static int walk_dir(struct walk *w, int fd, size_t len, int depth, int git)
{
	struct dirent *de;
	DIR *dp = fdopendir(fd);
	int rc = 0;

	if (!dp) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (rc == 0) {
		errno = 0;
		de = readdir(dp);
		if (!de) {
			rc = errno ? -errno : 0;
			break;
		}
		if (is_dot(de->d_name))
			continue;
		rc = walk_entry(w, dirfd(dp), de, len, depth, git);
		w->path[len] = '\0';
	}
	closedir(dp);
	return rc;
}

int subtree_walk(struct gfs *g, int dirfd, const char *name, subtree_fn fn,
		 void *arg)
{
	struct walk *w;
	int fd, rc;

	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->g = g;
	w->fn = fn;
	w->arg = arg;
	/* a .git above is the caller's to judge; "name" itself is not
	   beneath, so a moved ".git" is judged by the caller too */
	rc = walk_dir(w, fd, 0, 1, GIT_NONE);
	free(w);
	return rc;
}
