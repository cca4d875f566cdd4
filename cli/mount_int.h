/*
 * mount_int - the options `golemfs mount` (cli/mount.c) and `golemfs run`
 * (cli/run.c) share; the mount itself is fs/mount.h's.
 */
#ifndef GFS_CLI_MOUNT_INT_H
#define GFS_CLI_MOUNT_INT_H

#include <getopt.h>

#include "cli/policy_cli.h"
#include "fs/mount.h"

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

/* mount_take_opt() - one option of MOUNT_*OPTS, into @o or @cli.
   Return: 1 taken, 0 not ours, -EINVAL (@err says why). */
int mount_take_opt(struct mount_opts *o, struct policy_cli *cli, int c,
		   char *arg, struct gfs_err *err);

/* mount_prepare() - load the policy @cli describes, then gfs_prepare(),
   with the FUSE options of @cli. */
int mount_prepare(struct gfs *g, struct mount_opts *o, struct policy_cli *cli,
		  struct gfs_err *err);

/* mount_exit_code() - 2 for bad usage or config, 1 for other failures. */
int mount_exit_code(int rc);

#endif
