/*
 * `golemfs status` and `golemfs trust`: requests to a mount's control
 * socket (fs/control_client.h), the reply shown escaped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/gfs_esc.h"
#include "fs/control_client.h"
#include "policy/policy.h"

static const struct cli_opt help_only[] = {
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

/* Options (--help only), and at most @max operands.
   Return: CLI_GO, or the exit status. */
static int simple_usage(int argc, char **argv, const char *usage, int max)
{
	const struct cli_cmd cmd = { .opts = help_only,
				     .help = usage,
				     .flags = CLI_USAGE_ON_ERROR };
	int rc;

	rc = cli_parse(&cmd, argc, argv, NULL, NULL);
	if (rc == CLI_GO && argc - optind > max) {
		fputs(usage, stderr);
		rc = CLI_USAGE;
	}
	return rc;
}

/* control_request() with the reply shown escaped line by line: mount
   and session names, paths and reasons in it are not ours to trust. */
static int request_escaped(const char *mnt, const char *line,
			   struct gfs_err *err)
{
	char *buf = NULL, *p, *nl;
	size_t size = 0, k;
	FILE *m = open_memstream(&buf, &size);
	int rc;

	if (!m)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	rc = control_request(mnt, line, m, err);
	if (fclose(m) != 0 && rc == 0)
		rc = gfs_err_set(err, -ENOMEM, "out of memory");
	for (p = buf; rc == 0 && p < buf + size; p += k) {
		nl = memchr(p, '\n', (size_t)(buf + size - p));
		k = nl ? (size_t)(nl - p) + 1 : (size_t)(buf + size - p);
		gfs_esc_line(stdout, p, k);
	}
	free(buf);
	return rc;
}

int cmd_status(int argc, char **argv)
{
	struct gfs_err err = { 0 };
	int rc;

	rc = simple_usage(argc, argv,
			  "usage: golemfs status [MOUNTPOINT]\n\n"
			  "The live state of a mount: session, trust level, "
			  "workers, the zones\nvisible now and their rights, "
			  "staged commits, pending approvals.\nWithout "
			  "MOUNTPOINT: the only golemfs mount or sandbox.\n"
			  "A `golemfs run` sandbox is named run:PID.\n",
			  1);
	if (rc != CLI_GO)
		return rc;
	rc = request_escaped(optind < argc ? argv[optind] : NULL, "status",
			     &err);
	if (rc < 0)
		gfs_err_print("status", err.msg);
	return rc < 0 ? CLI_FAILED : CLI_OK;
}

int cmd_trust(int argc, char **argv)
{
	struct gfs_err err = { 0 };
	enum policy_trust t;
	char line[64], reply[256] = "";
	FILE *m;
	int rc;

	rc = simple_usage(argc, argv,
			  "usage: golemfs trust LEVEL [MOUNTPOINT]\n\n"
			  "Change a live mount's trust level (untrusted, "
			  "session, workspace, full).\nIt takes effect at "
			  "once: ls / follows; handles opened before keep\n"
			  "the access they were opened with. MOUNTPOINT may be "
			  "run:PID\nfor a `golemfs run` sandbox.\n",
			  2);
	if (rc != CLI_GO)
		return rc;
	if (optind >= argc || policy_trust_parse(&t, argv[optind]) < 0) {
		fprintf(stderr, "golemfs: trust: give a level: untrusted, "
				"session, workspace or full\n");
		return CLI_USAGE;
	}
	snprintf(line, sizeof(line), "trust %s", argv[optind]);
	m = fmemopen(reply, sizeof(reply) - 1, "w");
	rc = m ? control_request(optind + 1 < argc ? argv[optind + 1] : NULL,
				 line, m, &err)
	       : -ENOMEM;
	if (m)
		fclose(m);
	if (rc < 0) {
		gfs_err_print("trust", err.msg);
		return CLI_FAILED;
	}
	if (strncmp(reply, "ok ", 3) != 0) {
		fprintf(stderr, "golemfs: trust: %s", reply);
		return CLI_FAILED;
	}
	printf("trust: %s", reply + 3);
	return CLI_OK;
}
