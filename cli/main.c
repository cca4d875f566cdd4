/*
 * golemfs: git-style dispatch to subcommands. Nothing else lives here.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "fs/control_client.h" /* control_flush_all */

#ifndef GOLEMFS_VERSION
#define GOLEMFS_VERSION "0"
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* `golemfs audit` reads its own writes: live mounts commit their queued
   events first, so every operation that has returned is in the log. */
static int cmd_audit_live(int argc, char **argv)
{
	control_flush_all();
	return cmd_audit(argc, argv);
}

static const struct command commands[] = {
	{ "mount", cmd_mount, "mount the sandbox's virtual root" },
	{ "run", cmd_run, "run a program in a sandbox that sees the root" },
	{ "umount", cmd_umount, "unmount, also a stale mount" },
	{ "status", cmd_status, "the live state of a mount" },
	{ "trust", cmd_trust, "change a live mount's trust level" },
	{ "approve", cmd_approve, "answer a mount's approval requests" },
	{ "check", cmd_check, "validate config and workers, print rights" },
	{ "audit", cmd_audit_live,
	  "read, follow, export and prune the audit log" },
	{ "staged", cmd_staged, "list staged commits" },
	{ "diff", cmd_diff, "show a staged commit as a diff" },
	{ "push", cmd_push, "clear a staged commit into the trusted repo" },
	{ "discard", cmd_discard, "discard a staged commit" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	int i;

	fprintf(f, "usage: golemfs COMMAND [ARGS]...\n\n"
		   "A FUSE filesystem that gives a program a sandboxed view "
		   "of the files\nit may touch.\n\nCommands:\n");
	for (i = 0; commands[i].name; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\n'golemfs COMMAND --help' describes each; see also "
		   "golemfs(1), golemfs.yaml(5).\n");
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("golemfs %s\n", GOLEMFS_VERSION);
		return CLI_OK;
	}
	for (i = 0; commands[i].name; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "golemfs: '%s' is not a command; see 'golemfs help'\n",
		argv[1]);
	return CLI_USAGE;
}
