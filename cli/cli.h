/*
 * cli - what every command shares: the table of its options and the one
 * parser over it, --help, --json, and the exit codes.
 *
 * A command describes its options in a table (struct cli_opt) and itself
 * in a struct cli_cmd; cli_parse() reads argv with getopt_long (so the
 * messages for an unknown option or a missing argument are getopt's),
 * answers --help, sets --json, and hands every other option to the
 * command's take(). Operands are the command's own. Top-level code: may
 * print; not thread-safe (getopt).
 */
#ifndef GFS_CLI_H
#define GFS_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h> /* optind: the first operand after cli_parse() */

#include "common/gfs_err.h"

/* The exit status of every command (run: also CMD's, and 125). */
enum cli_exit {
	CLI_OK = 0,     /* done; also after --help */
	CLI_FAILED = 1, /* an operation failed */
	CLI_USAGE = 2,  /* bad usage or configuration */
};

/* cli_parse(): go on, the operands start at optind. */
#define CLI_GO (-1)

/* One option. */
struct cli_opt {
	const char *name; /* --NAME, or NULL for a short option only */
	int key;          /* the letter take() gets */
	bool arg;         /* takes an argument */
	bool shrt;        /* -KEY works too */
};

/* clang-format off */
#define CLI_OPTS_END { NULL, 0, false, false }
/* -h, --help: the parser prints the usage to stdout, exit CLI_OK */
#define CLI_OPT_HELP { "help", 'h', false, true }
/* --json: the parser sets struct cli_args.json */
#define CLI_OPT_JSON { "json", 'j', false, false }
/* -c -W -T -o: every command that reads the policy (cli/policy_cli.h) */
#define CLI_OPTS_POLICY                                                        \
	{ "config", 'c', true, true },                                         \
	{ "worker", 'W', true, true },                                         \
	{ "trust", 'T', true, true },                                          \
	{ "option", 'o', true, true }
/* clang-format on */

/* What a bad option does besides exiting CLI_USAGE. */
enum cli_flags {
	CLI_PERMUTE = 1,        /* options may follow operands (getopt's
				   default); else they end at the first */
	CLI_USAGE_ON_ERROR = 2, /* print the usage to stderr */
};

/* A command, as its parser sees it. */
struct cli_cmd {
	const struct cli_opt *opts; /* ends with CLI_OPTS_END */
	void (*usage)(FILE *f);     /* --help, or NULL: @help */
	const char *help;
	unsigned flags;   /* enum cli_flags */
	const char *hint; /* printed for an unknown option, or NULL */
	/* take() - option @key: 1 taken, 0 not ours (as an unknown
	   option), or -errno: bad, with @err saying why (or left empty when
	   take() printed the message itself). NULL: no options but
	   --help and --json. */
	int (*take)(void *ctx, int key, char *arg, struct gfs_err *err);
};

/* What the parser keeps for the command. */
struct cli_args {
	bool json; /* --json */
};

/*
 * cli_parse() - the options of @argv (argv[0] is the command's name) by
 * @c's table, each to @c->take(@ctx, ...); @a may be NULL for a command
 * without --json. Return: CLI_GO with optind at the first operand, or the
 * exit status to end with now (CLI_OK after --help, CLI_USAGE after a
 * bad option, its message printed).
 */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *ctx,
	      struct cli_args *a);

/* cli_exit_code() - the exit status for a -errno: CLI_USAGE for bad usage
   or config (EINVAL, ENOENT, ENOTDIR, ENOTEMPTY), else CLI_FAILED; 0:
   CLI_OK. */
int cli_exit_code(int rc);

#endif
