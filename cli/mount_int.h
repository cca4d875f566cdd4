/*
 * mount_int - the pieces of a mount that `golemfs mount` (cmd_mount.c) and
 * `golemfs run` (cmd_run.c) share: options, preparing the daemon's state,
 * the kernel mount, serving, and tearing down. In that order:
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
#ifndef GFS_MOUNT_INT_H
#define GFS_MOUNT_INT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/policy_cli.h"
#include "fs/fs.h"

struct mount_opts {
	struct policy_cli cli;
	const char *session;
	const char *mountpoint;
	bool foreground;
	bool debug;
	size_t fd_cap;
	bool cache_set;
	double cache_timeout; /* seconds, with cache_set */
};

/* Options both commands take: the policy's (-c -W -T -o), then these. */
#define MOUNT_SHORTOPTS "c:W:T:o:s:d"
#define MOUNT_LONGOPTS                                                         \
	POLICY_CLI_LONGOPTS, { "session", required_argument, NULL, 's' },      \
	    { "debug", no_argument, NULL, 'd' },                               \
	    { "max-fds", required_argument, NULL, 'M' },                       \
	{                                                                      \
		"cache-timeout", required_argument, NULL, 'K'                  \
	}

/* Their help lines (the policy's are POLICY_CLI_HELP). */
#define MOUNT_CACHE_HELP                                                       \
	"      --max-fds N      descriptors kept for cold files (default "     \
	"4096)\n"                                                              \
	"      --cache-timeout SECONDS\n"                                      \
	"                       how long the kernel trusts names, "            \
	"attributes\n"                                                         \
	"                       and cached contents (default: 1 in rw "        \
	"zones,\n"                                                             \
	"                       10 in ro zones); changes made beside the\n"    \
	"                       mount show up after at most this long\n"

/* mount_take_opt() - one option of MOUNT_*OPTS. Return: 1 taken, 0 not
   ours, -EINVAL (@err says why). */
int mount_take_opt(struct mount_opts *o, int c, char *arg, struct gfs_err *err);

int gfs_prepare(struct gfs *g, struct mount_opts *o, struct gfs_err *err);
int gfs_session_open(struct gfs *g, struct mount_opts *o, struct gfs_err *err);
/* @ctl_key: the mountpoint, or "run:PID" for a private mount (control.h) */
int gfs_serve_begin(struct gfs *g, const char *ctl_key, struct gfs_err *err);
void gfs_serve_end(struct gfs *g);
void gfs_session_close(struct gfs *g);
void gfs_release(struct gfs *g);

/* mount_fusermount_unmount() - `fusermount3 -u [-z] [-q] MNT`, for an
   ordinary user. Return: 0, or 1 (fusermount3 said why unless @quiet). */
int mount_fusermount_unmount(const char *mnt, bool lazy, bool quiet);

/* mount_exit_code() - 2 for bad usage or config, 1 for other failures. */
int mount_exit_code(int rc);

#endif
