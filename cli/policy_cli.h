/*
 * policy_cli - the command-line options every policy-reading command
 * shares (-c, --worker, --trust, -o name=value: CLI_OPTS_POLICY in cli.h),
 * and loading from them.
 * Top-level code: may print. Not thread-safe; call from main only.
 */
#ifndef GFS_POLICY_CLI_H
#define GFS_POLICY_CLI_H

#include "policy/policy.h"

#define POLICY_CLI_MAX 32

struct policy_cli {
	const char *config;
	const char *workers[POLICY_CLI_MAX + 1]; /* NULL-terminated */
	size_t nworkers;
	const char *trust;
	char *settings[POLICY_CLI_MAX]; /* "name=value" meant for the policy */
	size_t nsettings;
	char fuse_opts[1024]; /* the rest of -o, comma-separated */
};

/* The help lines for those options, shared by every command's --help. */
#define POLICY_CLI_HELP                                                        \
	"  -c, --config FILE    config file (default: golem.yaml or\n"         \
	"                       golem-forge.config.yaml searched upward,\n"    \
	"                       else the embedded default)\n"                  \
	"  -W, --worker FILE    apply a worker file; repeat for a chain\n"     \
	"  -T, --trust LEVEL    untrusted, session, workspace or full\n"

/*
 * policy_cli_take() - consume option @c with argument @arg if it is one of
 * ours. Return: 1 taken, 0 not ours, -EINVAL (message in @err).
 */
int policy_cli_take(struct policy_cli *o, int c, char *arg,
		    struct gfs_err *err);

/*
 * policy_cli_load() - load the policy the options describe, with
 * --trust and -o settings applied.
 */
int policy_cli_load(struct policy **out, struct policy_cli *o,
		    struct gfs_err *err);

/* policy_cli_print_table() - the effective permission table of `check`. */
void policy_cli_print_table(const struct policy *p, enum policy_trust live);

#endif
