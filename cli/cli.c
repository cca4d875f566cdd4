/*
 * The one option parser of the commands (see cli.h).
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"

#define CLI_MAX_OPTS 48

/* getopt_long's two tables from ours. Return: 0, or -E2BIG. */
static int tables(const struct cli_cmd *c, char *shortopts, size_t ssize,
		  struct option *longopts, size_t lsize)
{
	const struct cli_opt *o;
	size_t s = 0, l = 0;

	if (!(c->flags & CLI_PERMUTE))
		shortopts[s++] = '+';
	for (o = c->opts; o->key; o++) {
		if (s + 3 >= ssize || l + 1 >= lsize)
			return -E2BIG;
		if (o->shrt) {
			shortopts[s++] = (char)o->key;
			if (o->arg)
				shortopts[s++] = ':';
		}
		if (o->name)
			longopts[l++] =
			    (struct option){ o->name,
					     o->arg ? required_argument
						    : no_argument,
					     NULL, o->key };
	}
	shortopts[s] = '\0';
	longopts[l] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

static void usage(const struct cli_cmd *c, FILE *f)
{
	if (c->usage)
		c->usage(f);
	else if (c->help)
		fputs(c->help, f);
}

/* An option getopt did not know, or one take() did not want. */
static int unknown(const struct cli_cmd *c)
{
	if (c->flags & CLI_USAGE_ON_ERROR)
		usage(c, stderr);
	if (c->hint)
		gfs_err_print(NULL, c->hint);
	return CLI_USAGE;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *ctx,
	      struct cli_args *a)
{
	struct option longopts[CLI_MAX_OPTS + 1];
	char shortopts[2 * CLI_MAX_OPTS + 2];
	struct gfs_err err = { 0 };
	int key, rc;

	if (tables(c, shortopts, sizeof(shortopts), longopts,
		   CLI_MAX_OPTS + 1) < 0) {
		gfs_err_print(argv[0], "too many options in its table");
		return CLI_USAGE;
	}
	optind = 1;
	while ((key = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		if (key == 'h') {
			usage(c, stdout);
			return CLI_OK;
		}
		if (key == 'j' && a) {
			a->json = true;
			continue;
		}
		rc = key == '?' || key == ':' || !c->take
			 ? 0
			 : c->take(ctx, key, optarg, &err);
		if (rc == 0)
			return unknown(c);
		if (rc < 0) {
			if (err.msg[0])
				gfs_err_print(NULL, err.msg);
			return CLI_USAGE;
		}
	}
	return CLI_GO;
}

int cli_exit_code(int rc)
{
	if (rc == -EINVAL || rc == -ENOENT || rc == -ENOTDIR ||
	    rc == -ENOTEMPTY)
		return CLI_USAGE;
	return rc < 0 ? CLI_FAILED : CLI_OK;
}
