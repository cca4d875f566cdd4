/*
 * `golemfs status` and `golemfs trust`: requests to a mount's control
 * socket (fs/control_client.h), the reply shown escaped.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/gfs_esc.h"
#include "fs/control_client.h"
#include "policy/policy.h"

static int simple_usage(int argc, char **argv, const char *usage, int max)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		fputs(usage, stderr);
		return 2;
	}
	if (argc - optind > max) {
		fputs(usage, stderr);
		return 2;
	}
	return 0;
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
	if (rc)
		return rc;
	rc = request_escaped(optind < argc ? argv[optind] : NULL, "status",
			     &err);
	if (rc < 0)
		gfs_err_print("status", err.msg);
	return rc < 0 ? 1 : 0;
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
	if (rc)
		return rc;
	if (optind >= argc || policy_trust_parse(&t, argv[optind]) < 0) {
		fprintf(stderr, "golemfs: trust: give a level: untrusted, "
				"session, workspace or full\n");
		return 2;
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
		return 1;
	}
	if (strncmp(reply, "ok ", 3) != 0) {
		fprintf(stderr, "golemfs: trust: %s", reply);
		return 1;
	}
	printf("trust: %s", reply + 3);
	return 0;
}
