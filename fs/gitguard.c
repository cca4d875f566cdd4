/*
 * gitguard: the checks that keep a git directory made through the mount
 * free of what the host's git would run (see gitguard.h for the
 * invariant and the locking). The rules themselves - which names matter,
 * which config keys run a program, what a config or hooks may be, and
 * the words of each refusal - are pure, in policy/gitmeta.c; here they
 * meet the backing tree: every look is relative to an open directory fd,
 * without following symlinks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitguard.h"
#include "handle.h"
#include "inode.h"

void gitguard_begin(struct gfs *g, struct gitguard *gg, const char *rel,
		    const char *rel2, bool writer)
{
	gg->held = 0;
	if ((rel && policy_git_sensitive(rel)) ||
	    (rel2 && policy_git_sensitive(rel2))) {
		pthread_rwlock_wrlock(&g->git_lock);
		gg->held = 2;
	} else if (writer) {
		pthread_rwlock_rdlock(&g->git_lock);
		gg->held = 1;
	}
}

void gitguard_end(struct gfs *g, struct gitguard *gg)
{
	if (gg->held)
		pthread_rwlock_unlock(&g->git_lock);
	gg->held = 0;
}

/* Might git take @dfd for a git directory? Unsure counts as yes. */
static bool dir_is_git(int dfd)
{
	static const char *const markers[] = { "HEAD", "objects", "refs",
					       "commondir", NULL };
	struct stat st;
	int i;

	for (i = 0; markers[i]; i++) {
		if (fstatat(dfd, markers[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
		if (errno != ENOENT && errno != ENOTDIR)
			return true;
	}
	return false;
}

/* The physical parent of @dfd: is it a git directory? 1, 0 or -errno. */
static int parent_is_git(int dfd)
{
	int pfd = openat(dfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	bool git;

	if (pfd < 0)
		return -errno;
	git = dir_is_git(pfd);
	close(pfd);
	return git;
}

static int read_all(int fd, size_t size, char **out)
{
	char *buf = malloc(size + 1);
	size_t got = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while (got < size) {
		n = pread(fd, buf + got, size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	return (int)got;
}

/*
 * The config text that is about to be (or stay) a git directory's config:
 * a regular file with one name. Its writers are revoked first, so the
 * text checked is the text that stays.
 */
static int check_config_fd(struct gfs *g, int fd, struct gfs_err *why)
{
	struct stat st;
	char *text = NULL;
	int n, rc;

	if (fstat(fd, &st) < 0)
		return -errno;
	rc = policy_check_gitconfig_file(st.st_mode, st.st_nlink,
					 (uint64_t)st.st_size, why);
	if (rc < 0)
		return rc;
	fh_revoke_writers(g, st.st_dev, st.st_ino);
	n = read_all(fd, (size_t)st.st_size, &text);
	if (n < 0)
		return n;
	rc = policy_gitconfig_check(text, (size_t)n, why);
	free(text);
	return rc;
}

static int check_config_at(struct gfs *g, int dfd, const char *name,
			   struct gfs_err *why)
{
	int fd, rc;

	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return policy_check_gitconfig_open(errno, why);
	rc = check_config_fd(g, fd, why);
	close(fd);
	return rc;
}

/* A hooks directory git would run nothing from: only *.sample names. */
static int check_hooks_at(int dfd, const char *name, struct gfs_err *why)
{
	struct dirent *de;
	DIR *dp;
	int fd, rc = 0;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return policy_check_git_hooks_dir(errno, why);
	dp = fdopendir(fd);
	if (!dp) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rc = policy_check_git_hook(de->d_name, false, why);
	closedir(dp);
	return rc;
}

/* @dfd is about to become a git directory: does it plant anything? */
static int check_dir(struct gfs *g, int dfd, struct gfs_err *why)
{
	static const char *const configs[] = { "config", "config.worktree",
					       NULL };
	struct stat st;
	int i, rc;

	for (i = 0; configs[i]; i++) {
		if (fstatat(dfd, configs[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		rc = check_config_at(g, dfd, configs[i], why);
		if (rc < 0)
			return rc;
	}
	if (fstatat(dfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	rc = policy_check_git_hooks(st.st_mode & S_IFMT, why);
	if (rc < 0)
		return rc;
	return S_ISDIR(st.st_mode) ? check_hooks_at(dfd, "hooks", why) : 0;
}

int gitguard_new_name(struct gfs *g, int dfd, const char *name, const char *rel,
		      mode_t fmt, int srcdfd, const char *srcname,
		      bool exchange, struct gfs_err *why)
{
	struct stat st;
	int rc;

	if (srcname) {
		if (fstatat(srcdfd, srcname, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		fmt = st.st_mode & S_IFMT;
	}
	if (policy_git_in_hooks(rel) && !policy_git_hook_name_ok(name)) {
		rc = parent_is_git(dfd);
		if (rc)
			return rc < 0 ? rc
				      : policy_check_git_hook(name, true, why);
	}
	switch (policy_git_name_kind(name)) {
	case GIT_NAME_CONFIG:
		if (!dir_is_git(dfd))
			return 0;
		rc =
		    policy_check_git_new_config(srcname && !exchange, fmt, why);
		return rc < 0 ? rc : check_config_at(g, srcdfd, srcname, why);
	case GIT_NAME_MARKER:
		return dir_is_git(dfd) ? 0 : check_dir(g, dfd, why);
	case GIT_NAME_HOOKS:
		if (!dir_is_git(dfd))
			return 0;
		rc = policy_check_git_hooks(fmt, why);
		if (rc < 0)
			return rc;
		if (srcname && fmt == S_IFDIR)
			return check_hooks_at(srcdfd, srcname, why);
		return 0;
	default:
		return 0;
	}
}

int gitguard_write_node(struct gfs *g, struct node *n, const char *rel,
			struct gfs_err *why)
{
	const char *base = strrchr(rel, '/');
	char name[NAME_MAX + 1];
	struct node *parent;
	bool git;
	int pfd;

	if (policy_git_name_kind(base ? base + 1 : rel) != GIT_NAME_CONFIG ||
	    n->type != NODE_PASS)
		return 0;
	pfd = node_parent_fd(g, n, name, sizeof(name), &parent);
	if (pfd < 0)
		return pfd;
	git = dir_is_git(pfd);
	node_fd_put(g, parent);
	node_put(g, parent);
	return git ? policy_check_git_new_config(false, 0, why) : 0;
}
