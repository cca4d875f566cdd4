/*
 * gitguard - a git repository a program makes plants nothing the host's
 * git will run.
 *
 * The invariant, for every directory D reached through the mount: when D
 * holds HEAD, objects, refs or commondir (git may take it for a git
 * directory, whatever its name: .git, a bare repository, a gitdir: or
 * commondir target, modules/NAME, worktrees/NAME), then
 *  - D/config and D/config.worktree are absent, or regular files with one
 *    name and no writer, whose text sets no key that runs a program
 *    (policy_gitconfig_check());
 *  - D/hooks is absent, or a real directory holding only *.sample names.
 * It holds because every change that could break it is checked under one
 * lock: a config arrives only by rename of a checked file (as git writes
 * it: lock file, then rename), and writers of that file lose their right
 * to write; a directory becomes a git directory only after its config and
 * hooks pass; a hook name other than *.sample is never made in one.
 *
 * Locking: g->git_lock (a rwlock) is taken before g->lock. Operations
 * that make a sensitive name hold it exclusively from check to act; those
 * that give a writer to an existing inode (open for write, create, link,
 * truncate) hold it shared from decide to act, so no writer appears
 * between the check and the rename.
 */
#ifndef GFS_GITGUARD_H
#define GFS_GITGUARD_H

#include "fs.h"

struct gitguard {
	int held; /* 0 none, 1 shared, 2 exclusive */
};

/*
 * gitguard_begin() - take the git lock for making the names @rel and
 * @rel2 (zone-relative; @rel2 may be NULL): exclusive when one is
 * sensitive, else shared when @writer, else not at all.
 */
void gitguard_begin(struct gfs *g, struct gitguard *gg, const char *rel,
		    const char *rel2, bool writer);
void gitguard_end(struct gfs *g, struct gitguard *gg);

/*
 * gitguard_new_name() - may @name appear in the directory @dfd, whose
 * zone-relative path with the name is @rel?
 * @fmt:     S_IFMT of what appears (S_IFDIR for mkdir, S_IFLNK, ...).
 * @srcdfd, @srcname: for a rename, what arrives; else -1 and NULL.
 * @exchange: RENAME_EXCHANGE.
 * Return: 0 or -EACCES with @why; call under gitguard_begin().
 */
int gitguard_new_name(struct gfs *g, int dfd, const char *name, const char *rel,
		      mode_t fmt, int srcdfd, const char *srcname,
		      bool exchange, struct gfs_err *why);

/*
 * gitguard_write_node() - may @n, at zone-relative @rel, be opened for
 * writing, truncated or given another name? Not a git directory's config.
 * Return: 0 or -EACCES with @why.
 */
int gitguard_write_node(struct gfs *g, struct node *n, const char *rel,
			struct gfs_err *why);

#endif
