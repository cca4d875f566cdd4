/*
 * The clearance commands: golemfs staged, diff, push, discard. They work
 * with or without a running mount, on the staged zone of the configuration
 * (--zone NAME when there are several). Every action that changes state is
 * written to the audit log.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/gfs_esc.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/policy_cli.h"
#include "staging/stage.h"

struct stage_cli {
	struct policy_cli cli;
	const char *zone;
	struct policy *policy;
	const struct policy_zone *z;
	struct stage *stage;
};

/* The options of every clearance command (their help: STAGE_HELP). */
#define STAGE_OPTS CLI_OPTS_POLICY, { "zone", 'Z', true, false }, CLI_OPT_HELP

#define STAGE_HELP                                                             \
	POLICY_CLI_HELP                                                        \
	"  --zone NAME          the staged zone (when there are several)\n"    \
	"  -h, --help           this help\n"

static int take(struct stage_cli *c, int opt, char *arg, struct gfs_err *err)
{
	if (opt == 'Z') {
		c->zone = arg;
		return 1;
	}
	return policy_cli_take(&c->cli, opt, arg, err);
}

static int staged_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	return take(ctx, key, arg, err);
}

/* Load the policy, find the staged zone, open its staging area. */
static int open_stage(struct stage_cli *c)
{
	struct gfs_err err = { 0 };
	size_t i, n = 0;
	int rc;

	rc = policy_cli_load(&c->policy, &c->cli, &err);
	if (rc < 0) {
		gfs_err_print(NULL, err.msg);
		return CLI_USAGE;
	}
	for (i = 0; i < c->policy->nzones; i++) {
		const struct policy_zone *z = &c->policy->zones[i];

		if (z->kind != ZONE_STAGED)
			continue;
		if (!c->zone || strcmp(z->name, c->zone) == 0) {
			c->z = z;
			n++;
		}
	}
	if (n != 1) {
		fprintf(stderr, "golemfs: %s\n",
			n         ? "several staged zones: name one with --zone"
			: c->zone ? "no such staged zone"
				  : "the configuration has no staged zone");
		return CLI_USAGE;
	}
	rc = stage_open(&c->stage, c->policy->root, c->z->name, c->z->repo,
			c->z->branch, &err);
	if (rc < 0) {
		gfs_err_print(NULL, err.msg);
		return CLI_FAILED;
	}
	return CLI_OK;
}

static void close_stage(struct stage_cli *c)
{
	stage_free(c->stage);
	policy_free(c->policy);
}

/* Staging actions of the user go to the audit log too. */
static void audit_action(struct stage_cli *c, const char *op, const char *id,
			 int rc, const char *reason)
{
	struct audit_event e = {
		.trust = "user",
		.op = op,
		.zone = c->z->name,
		.allowed = rc == 0,
		.err = rc < 0 ? -rc : 0,
		.reason = reason,
		.pid = getpid(),
		.uid = getuid(),
		.comm = "golemfs",
	};
	struct audit *a = NULL;
	char *path = NULL;

	if (!c->policy->audit_enabled)
		return;
	if (asprintf(&path, "%s/%s", c->z->vpath, id) < 0) {
		fprintf(stderr, "golemfs: audit: out of memory\n");
		return;
	}
	e.path = path;
	if (audit_open(&a, c->policy->audit_path, "user", AUDIT_FULL_BLOCK, 16,
		       NULL) == 0) {
		audit_log(a, &e, false);
		audit_close(a);
	}
	free(path);
}

static const char *status_name(enum stage_status s)
{
	return s == STAGE_COMMITTED   ? "committed"
	       : s == STAGE_DISCARDED ? "discarded"
				      : "pending";
}

static void age(time_t t, char *buf, size_t size)
{
	long d = (long)(time(NULL) - t);

	if (d < 120)
		snprintf(buf, size, "%lds", d);
	else if (d < 7200)
		snprintf(buf, size, "%ldm", d / 60);
	else if (d < 172800)
		snprintf(buf, size, "%ldh", d / 3600);
	else
		snprintf(buf, size, "%ldd", d / 86400);
}

/* A row of `golemfs staged`: the ID quoted, the message escaped. */
static void print_row(const struct stage_info *v, const char *age_s)
{
	char *id = gfs_esc_name_dup(v->id, GFS_ESC_SPACE);

	printf("%-20s %-9s %6zu %6zu %6zu %10llu %5s  ", id ? id : "?",
	       status_name(v->status), v->created_files, v->updated_files,
	       v->deleted_files, (unsigned long long)v->bytes, age_s);
	gfs_esc_text(stdout, v->message, strlen(v->message), GFS_ESC_TAB);
	putchar('\n');
	free(id);
}

static const struct cli_opt staged_opts[] = {
	STAGE_OPTS,
	CLI_OPT_JSON,
	CLI_OPTS_END,
};

static const struct cli_cmd staged_cmd = {
	.opts = staged_opts,
	.help = "usage: golemfs staged [--json]\n\n"
		"List staged commits: ID, status, files created/updated/"
		"deleted, bytes,\nage and message.\n\n" STAGE_HELP
		"  --json               JSON lines\n",
	.take = staged_take,
};

int cmd_staged(int argc, char **argv)
{
	struct stage_cli c = { 0 };
	struct stage_info *v = NULL;
	struct gfs_err err = { 0 };
	struct cli_args ca = { 0 };
	size_t n = 0, i;
	char a[32];
	int rc;

	rc = cli_parse(&staged_cmd, argc, argv, &c, &ca);
	if (rc != CLI_GO)
		return rc;
	rc = open_stage(&c);
	if (rc)
		return rc;
	if (stage_list(c.stage, &v, &n, &err) < 0) {
		gfs_err_print(NULL, err.msg);
		close_stage(&c);
		return CLI_FAILED;
	}
	if (!ca.json && n)
		printf("%-20s %-9s %6s %6s %6s %10s %5s  %s\n", "ID", "STATUS",
		       "CREATE", "UPDATE", "DELETE", "BYTES", "AGE", "MESSAGE");
	for (i = 0; i < n; i++) {
		age(v[i].created, a, sizeof(a));
		if (ca.json) {
			printf("{\"id\":");
			gfs_esc_json_str(stdout, v[i].id);
			printf(",\"status\":\"%s\",\"created\":%zu,"
			       "\"updated\":%zu,\"deleted\":%zu,"
			       "\"bytes\":%llu,\"created_at\":%lld,"
			       "\"base\":\"%s\",\"commit\":\"%s\","
			       "\"tree\":\"%s\",\"message\":",
			       status_name(v[i].status), v[i].created_files,
			       v[i].updated_files, v[i].deleted_files,
			       (unsigned long long)v[i].bytes,
			       (long long)v[i].created, v[i].base, v[i].commit,
			       v[i].tree);
			gfs_esc_json_str(stdout, v[i].message);
			printf("}\n");
		} else {
			print_row(&v[i], a);
		}
	}
	free(v);
	close_stage(&c);
	return CLI_OK;
}

/* The options of diff, push and discard: a command's own, then ours. */
struct id_take {
	struct stage_cli *c;
	int (*more)(int opt, char *arg, void *ctx);
	void *ctx;
};

static int id_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	struct id_take *t = ctx;
	int rc = t->more ? t->more(key, arg, t->ctx) : 0;

	return rc ? rc : take(t->c, key, arg, err);
}

/* -m and -y: short options of all three, taken by push only. */
/* clang-format off */
#define STAGE_ID_SHORT { NULL, 'm', true, true }, { NULL, 'y', false, true }
/* clang-format on */

/* Parse the options of diff, push and discard (@opts, @help), and their
   one ID. Return: CLI_GO, or the exit status. */
static int parse_id_cmd(int argc, char **argv, const struct cli_opt *opts,
			const char *help, struct stage_cli *c,
			int (*more)(int opt, char *arg, void *ctx), void *ctx,
			const char **id)
{
	const struct cli_cmd cmd = { .opts = opts,
				     .help = help,
				     .take = id_take };
	struct id_take t = { c, more, ctx };
	int rc;

	rc = cli_parse(&cmd, argc, argv, &t, NULL);
	if (rc != CLI_GO)
		return rc;
	if (optind != argc - 1) {
		fprintf(stderr, "golemfs: %s: expected one staged commit ID\n",
			argv[0]);
		return CLI_USAGE;
	}
	*id = argv[optind];
	return CLI_GO;
}

struct diff_args {
	bool stat, no_pager;
};

static int diff_more(int opt, char *arg, void *ctx)
{
	struct diff_args *d = ctx;

	(void)arg;
	if (opt == 'S')
		d->stat = true;
	else if (opt == 'P')
		d->no_pager = true;
	else
		return 0;
	return 1;
}

/*
 * As git does: output to a terminal goes through GOLEMFS_PAGER, else
 * PAGER, else less (with LESS=FRX unless set: one screen is just
 * printed); never into a pipe or file; "" or "cat" means none.
 * Return: the pager's input, or NULL for stdout.
 */
static FILE *pager_open(bool off)
{
	const char *p = getenv("GOLEMFS_PAGER");
	FILE *f;

	if (off || !isatty(STDOUT_FILENO))
		return NULL;
	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = "less";
	if (!*p || strcmp(p, "cat") == 0)
		return NULL;
	setenv("LESS", "FRX", 0);
	setenv("LV", "-c", 0);
	fflush(stdout);
	f = popen(p, "we");
	if (f)
		signal(SIGPIPE, SIG_IGN); /* the user may quit it early */
	return f;
}

int cmd_diff(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		STAGE_OPTS,
		STAGE_ID_SHORT,
		{ "stat", 'S', false, false },
		{ "no-pager", 'P', false, false },
		CLI_OPTS_END,
	};
	struct stage_cli c = { 0 };
	struct gfs_err err = { 0 };
	struct diff_args d = { 0 };
	const char *id;
	FILE *pager;
	int rc;

	rc = parse_id_cmd(
	    argc, argv, opts,
	    "usage: golemfs diff [--stat] [--no-pager] ID\n\n"
	    "The unified diff of staged commit ID against the "
	    "commit it started from,\nas git diff shows it; "
	    "--stat for the summary (creations, deletions,\n"
	    "renames and mode changes are always listed). "
	    "Names are quoted as git\nquotes them, control "
	    "characters and invalid UTF-8 in contents shown\n"
	    "escaped (^[, \\xff). To a terminal it goes "
	    "through GOLEMFS_PAGER, else\nPAGER, else less "
	    "(LESS=FRX).\n\n"
	    "  --stat               the summary only\n"
	    "  --no-pager           never through a pager\n" STAGE_HELP,
	    &c, diff_more, &d, &id);
	if (rc != CLI_GO)
		return rc;
	rc = open_stage(&c);
	if (rc)
		return rc;
	pager = pager_open(d.no_pager);
	rc =
	    stage_diff(c.stage, id, d.stat, pager ? pager : stdout, NULL, &err);
	if (pager)
		pclose(pager);
	if (rc < 0)
		gfs_err_print(NULL, err.msg);
	close_stage(&c);
	return rc == -ENOENT || rc == -EINVAL ? CLI_USAGE
	       : rc < 0                       ? CLI_FAILED
					      : CLI_OK;
}

struct push_args {
	struct stage_push_opts o;
	const char *expect; /* --expect TREE */
	bool yes;
};

static int push_more(int opt, char *arg, void *ctx)
{
	struct push_args *p = ctx;

	switch (opt) {
	case 'm':
		p->o.message = arg;
		return 1;
	case 't':
		p->o.branch = arg;
		return 1;
	case 'r':
		p->o.remote = arg;
		return 1;
	case 'y':
		p->yes = true;
		return 1;
	case 'b':
		p->o.allow_binary = true;
		return 1;
	case 'E':
		if (!stage_tree_ok(arg)) {
			fprintf(stderr,
				"golemfs: push: --expect '%s': not a "
				"tree id (the 40 hex digits of 'staged "
				"tree' in golemfs diff)\n",
				arg);
			return -1;
		}
		p->expect = arg;
		return 1;
	}
	return 0;
}

static bool confirm(const char *id, const char *branch, const char *repo)
{
	char line[16];

	fputs("Commit ", stderr);
	gfs_esc_name(stderr, id, strlen(id), GFS_ESC_ALWAYS);
	fputs(" onto branch ", stderr);
	gfs_esc_name(stderr, branch, strlen(branch), GFS_ESC_ALWAYS);
	fprintf(stderr, " of %s? [y/N] ", repo);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

int cmd_push(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		STAGE_OPTS,
		{ "message", 'm', true, true },
		{ "to", 't', true, false },
		{ "remote", 'r', true, false },
		{ "yes", 'y', false, true },
		{ "allow-binary", 'b', false, false },
		{ "expect", 'E', true, false },
		CLI_OPTS_END,
	};
	struct push_args p = { 0 };
	struct stage_cli c = { 0 };
	struct gfs_err err = { 0 };
	char commit[64], shown[41], *branch = NULL, *msg = NULL;
	const char *id;
	int rc;

	rc = parse_id_cmd(argc, argv, opts,
			  "usage: golemfs push [-m MSG] [--to BRANCH] "
			  "[--remote NAME] [--yes] [--allow-binary]\n"
			  "                    [--expect TREE] ID\n\n"
			  "Clear staged commit ID into the trusted "
			  "repository: show its summary,\nask, run the "
			  "clearance checks, commit onto BRANCH (default "
			  "golem/ID;\nan existing branch only by "
			  "fast-forward), and push to a remote.\n\n"
			  "The commit holds exactly the staged tree the "
			  "summary names ('staged tree\nTREE') and the "
			  "message it shows (unless -m): if either changed "
			  "after the\nsummary was shown, push refuses; while "
			  "it runs, a live mount's writes to\nthat commit "
			  "fail with EBUSY.\n\n"
			  "  -m, --message MSG    commit message (default: "
			  "the staged COMMIT_EDITMSG)\n"
			  "  --to BRANCH          the branch (default "
			  "golem/ID)\n"
			  "  --remote NAME        also push the branch there "
			  "(ssh-agent, GIT_TOKEN)\n"
			  "  -y, --yes            do not ask\n"
			  "  --allow-binary       push despite clearance "
			  "findings\n"
			  "  --expect TREE        push only if the staged "
			  "tree is TREE (40 hex digits,\n"
			  "                       as 'golemfs diff ID' "
			  "printed it): for harnesses\n" STAGE_HELP,
			  &c, push_more, &p, &id);
	if (rc != CLI_GO)
		return rc;
	rc = open_stage(&c);
	if (rc)
		return rc;
	/* the zone's clearance settings */
	p.o.binary_ok = c.z->clear_allow_binary;
	p.o.entropy_ok = c.z->clear_allow_entropy;
	p.o.max_file_bytes = c.z->clear_max_bytes;
	if (asprintf(&branch, p.o.branch ? "%s" : "golem/%s",
		     p.o.branch ? p.o.branch : id) < 0) {
		fprintf(stderr, "golemfs: push: out of memory\n");
		close_stage(&c);
		return CLI_FAILED;
	}
	/* what is shown is what is pushed: this message (unless -m) and
	   the tree of this summary */
	rc = p.o.message ? 0 : stage_message(c.stage, id, &msg, &err);
	if (rc == 0 && msg) {
		fprintf(stderr, "message ");
		gfs_esc_text(stderr, msg, strlen(msg), 0);
		fprintf(stderr, "\n");
		p.o.expect_message = msg;
	}
	if (rc == 0)
		rc = stage_diff(c.stage, id, true, stderr, shown, &err);
	if (rc == 0 && p.expect && strcmp(p.expect, shown) != 0)
		rc = gfs_err_set(&err, -ESTALE,
				 "staged commit '%s' changed since it was "
				 "reviewed: its tree is now %s, not %s; "
				 "review it again ('golemfs diff %s')",
				 id, shown, p.expect, id);
	p.o.expect_tree = shown;
	if (rc == 0)
		rc = stage_check(c.stage, id, &p.o, stderr, &err);
	if (rc == 0 && !p.yes && !confirm(id, branch, c.z->repo))
		rc = gfs_err_set(&err, -ECANCELED, "not pushed");
	if (rc == 0)
		rc = stage_push(c.stage, id, &p.o, commit, &err);
	if (rc == 0) {
		gfs_esc_name(stdout, branch, strlen(branch), GFS_ESC_SPACE);
		printf(" %s\n", commit);
	} else {
		fputs("golemfs: push: ", stderr);
		gfs_esc_text(stderr, err.msg, strlen(err.msg), 0);
		fputc('\n', stderr);
	}
	if (rc != -ECANCELED)
		audit_action(&c, "stage-push", id, rc,
			     rc == 0 ? branch : err.msg);
	free(branch);
	free(msg);
	close_stage(&c);
	return rc == -ENOENT ? CLI_USAGE : rc < 0 ? CLI_FAILED : CLI_OK;
}

int cmd_discard(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		STAGE_OPTS,
		STAGE_ID_SHORT,
		CLI_OPTS_END,
	};
	struct stage_cli c = { 0 };
	struct gfs_err err = { 0 };
	const char *id;
	int rc;

	rc = parse_id_cmd(argc, argv, opts,
			  "usage: golemfs discard ID\n\n"
			  "Mark staged commit ID discarded; it is never "
			  "pushed. Its edits stay\nreadable with "
			  "'golemfs diff'.\n\n" STAGE_HELP,
			  &c, NULL, NULL, &id);
	if (rc != CLI_GO)
		return rc;
	rc = open_stage(&c);
	if (rc)
		return rc;
	rc = stage_discard(c.stage, id, &err);
	if (rc < 0)
		gfs_err_print("discard", err.msg);
	audit_action(&c, "stage-discard", id, rc, rc < 0 ? err.msg : NULL);
	close_stage(&c);
	return rc == -ENOENT ? CLI_USAGE : rc < 0 ? CLI_FAILED : CLI_OK;
}
