/*
 * mount - the life of a mount, shared by `golemfs mount` and `golemfs run`
 * (cli/mount.c, cli/run.c): preparing the daemon's state, the kernel
 * mount, serving, and tearing down. In that order:
 *
 *   gfs_prepare()        everything checkable before the kernel mount
 *   gfs_session_open()   the FUSE session and the kernel mount
 *   gfs_serve_begin()    audit writer, mount record, control socket
 *   gfs_loop()           serve until unmounted (fs.h, loop.c); then
 *                        unmount and gfs_loop_join()
 *   gfs_serve_end()      undo gfs_serve_begin() (also after its failure)
 *   gfs_session_close()  unmount (if still mounted) and free the session
 *   gfs_release()        free what gfs_prepare() made (also after failure)
 */
#ifndef GFS_MOUNT_H
#define GFS_MOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "fs.h"

struct mount_opts {
	const char *session; /* NULL: a new one */
	const char *mountpoint;
	const char *fuse_opts; /* more FUSE -o options, comma-separated */
	bool debug;
	size_t fd_cap;
	bool cache_set;
	double cache_timeout; /* seconds, with cache_set */
};

/* gfs_prepare() - @p (loaded, resolved) is taken over, even on failure:
   gfs_release() frees it. */
int gfs_prepare(struct gfs *g, struct policy *p, struct mount_opts *o,
		struct gfs_err *err);
int gfs_session_open(struct gfs *g, struct mount_opts *o, struct gfs_err *err);
/* @ctl_key: the mountpoint, or "run:PID" for a private mount (control.h) */
int gfs_serve_begin(struct gfs *g, const char *ctl_key, struct gfs_err *err);
void gfs_serve_end(struct gfs *g);
void gfs_session_close(struct gfs *g);
void gfs_release(struct gfs *g);

/* mount_fusermount_unmount() - `fusermount3 -u [-z] [-q] MNT`, for an
   ordinary user. Return: 0, or 1 (fusermount3 said why unless @quiet). */
int mount_fusermount_unmount(const char *mnt, bool lazy, bool quiet);

#endif
