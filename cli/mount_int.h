/*
 * mount_int - the options `golemfs mount` (cli/mount.c) and `golemfs run`
 * (cli/run.c) share; the mount itself is fs/mount.h's.
 */
#ifndef GFS_CLI_MOUNT_INT_H
#define GFS_CLI_MOUNT_INT_H

#include "cli/cli.h"
#include "cli/policy_cli.h"
#include "fs/mount.h"

/* Options both commands take: the policy's (-c -W -T -o), then these. */
/* clang-format off */
#define MOUNT_OPTS                                                             \
	CLI_OPTS_POLICY,                                                       \
	{ "session", 's', true, true },                                        \
	{ "debug", 'd', false, true },                                         \
	{ "max-fds", 'M', true, false },                                       \
	{ "cache-timeout", 'K', true, false }
/* clang-format on */

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

/* mount_take_opt() - one option of MOUNT_OPTS, into @o or @cli.
   Return: 1 taken, 0 not ours, -EINVAL (@err says why). */
int mount_take_opt(struct mount_opts *o, struct policy_cli *cli, int c,
		   char *arg, struct gfs_err *err);

/* mount_prepare() - load the policy @cli describes, then gfs_prepare(),
   with the FUSE options of @cli. */
int mount_prepare(struct gfs *g, struct mount_opts *o, struct policy_cli *cli,
		  struct gfs_err *err);

#endif
