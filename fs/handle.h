/*
 * handle - the open files of the passthrough backend (struct fh), and
 * the list of every handle the kernel holds, of any backend
 * (gfs->open_files; gfs_handle_track() and friends).
 *
 * Its own module so that what uses open files -- the passthrough's
 * callbacks (pass.c), gitguard's revocation of writers, a node served
 * through its handles once unlinked (inode.c), the unmount -- depends on
 * it, and it on none of them. The list is under gfs->lock.
 */
#ifndef GFS_HANDLE_H
#define GFS_HANDLE_H

#include "fs.h"

/* An open file: the real fd and what the audit needs at release. */
struct fh {
	struct fh_list link; /* first: gfs->open_files */
	int fd;
	const struct policy_zone *zone;
	char *vpath;
	bool may_write;
	uint64_t rbytes, wbytes; /* atomic adds; reported at release */
	uint64_t ticket;         /* the open (create) row, while queued */
	pid_t pid;               /* who opened it, for the release event */
	uid_t uid;
	char comm[16];
};

/*
 * fh_new() - a handle of @fd (taken over) for @op's file, tracked.
 * Return: 0 or -ENOMEM (@fd is then still the caller's).
 */
int fh_new(struct op *op, int fd, bool may_write, struct fh **out);
/* fh_free() - untrack, close and free. */
void fh_free(struct gfs *g, struct fh *fh);

/* fh_may_write() - not revoked; read under git_lock (shared). */
static inline bool fh_may_write(struct fh *fh)
{
	return __atomic_load_n(&fh->may_write, __ATOMIC_RELAXED);
}

/* fh_revoke_writers() - writes through any open handle of (@dev, @ino)
   fail from now on (gitguard: a file became a git directory's config). */
void fh_revoke_writers(struct gfs *g, dev_t dev, ino_t ino);

/*
 * gfs_handle_track() - remember a file or directory handle given to the
 * kernel (@h is the handle's first member), so one the kernel never
 * releases (the connection was aborted: a sandbox killed, a daemon told
 * to stop) is still dropped at unmount. gfs_handle_untrack() at release;
 * it is a no-op for a handle never tracked (h->next NULL).
 */
void gfs_handle_track(struct gfs *g, struct fh_list *h,
		      void (*drop)(struct gfs *g, struct fh_list *h));
void gfs_handle_untrack(struct gfs *g, struct fh_list *h);
/*
 * gfs_handle_fd() - an O_PATH fd of the file (@dev, @ino) taken from one
 * of its open handles: a file unlinked (or moved out of reach) while open
 * is still served through its handles, as on a local filesystem.
 * Return: the fd, or -ESTALE when no handle has it open.
 */
int gfs_handle_fd(struct gfs *g, dev_t dev, ino_t ino);
/* gfs_close_open_files() - at unmount: drop what the kernel never released. */
void gfs_close_open_files(struct gfs *g);

#endif
