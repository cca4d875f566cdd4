/*
 * `golemfs check`: validate config and worker files and print the
 * effective permission table (policy_cli_print_table()). Mounts nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/policy_cli.h"

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: golemfs check [-c CONFIG] [--worker FILE]... "
		"[--trust LEVEL] [-o NAME=VALUE]\n"
		"\n"
		"Validate the configuration and worker files and print the "
		"effective\npermission table: one row per zone, one column "
		"per trust level, and each\nzone's backing directory with "
		"symlinks resolved; below it, what no\noperation through the "
		"mount may change (golemfs's own files, zones inside\nother "
		"zones). Mounts nothing. Exit 0 when valid, 2 on any error "
		"(named\nFILE:LINE:COL).\n"
		"\n" POLICY_CLI_HELP
		"  -o NAME=VALUE        override a setting (see golemfs(1))\n"
		"  -h, --help           this help\n");
}

static int check_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	return policy_cli_take(ctx, key, arg, err);
}

static const struct cli_opt check_opts[] = {
	CLI_OPTS_POLICY,
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

static const struct cli_cmd check_cmd = {
	.opts = check_opts,
	.usage = check_usage,
	.flags = CLI_USAGE_ON_ERROR,
	.take = check_take,
};

int cmd_check(int argc, char **argv)
{
	struct policy_cli o = { 0 };
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	int rc;

	rc = cli_parse(&check_cmd, argc, argv, &o, NULL);
	if (rc != CLI_GO)
		return rc;
	if (optind < argc) {
		fprintf(stderr, "golemfs: check: unexpected argument '%s'\n",
			argv[optind]);
		return CLI_USAGE;
	}
	if (o.fuse_opts[0]) {
		fprintf(stderr, "golemfs: check: -o %s: not a setting\n",
			o.fuse_opts);
		return CLI_USAGE;
	}
	rc = policy_cli_load(&p, &o, &err);
	if (rc < 0) {
		gfs_err_print(NULL, err.msg[0] ? err.msg : strerror(-rc));
		return rc == -ENOMEM || rc == -EIO ? CLI_FAILED : CLI_USAGE;
	}
	policy_cli_print_table(p, p->trust);
	policy_free(p);
	return CLI_OK;
}
