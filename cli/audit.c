/*
 * `golemfs audit`: read, follow, summarise, export and prune the log.
 *
 *   golemfs audit [FILTERS] [--json] [--follow] [--summary]
 *   golemfs audit export [--json] [FILTERS]
 *   golemfs audit prune --before WHEN
 *
 * The database is --db PATH, else the audit.path of the configuration
 * (-c, or discovered as for mount). Filters become bound SQL parameters.
 */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/gfs_esc.h"
#include "cli/policy_cli.h"

enum mode { M_LIST, M_EXPORT, M_PRUNE };

struct filters {
	const char *session, *op, *zone, *path;
	bool denied;
	int64_t since, until; /* µs; 0: none */
	long pid;
	long limit;
	bool json, follow, summary;
	int64_t before; /* prune */
};

static void audit_usage(FILE *f)
{
	fprintf(f,
		"usage: golemfs audit [FILTERS] [--json] [--follow] "
		"[--summary]\n"
		"       golemfs audit export [--json] [FILTERS]\n"
		"       golemfs audit prune --before WHEN\n"
		"\n"
		"Read the audit log: who (pid, command) did what, where, "
		"allowed or not, and why.\n"
		"\n"
		"  --db PATH          the database (default: audit.path of "
		"the config)\n"
		"  -c, --config FILE  the config naming the database\n"
		"  --session ID       one session\n"
		"  --op OP            one operation (open, create, write, "
		"unlink, ...)\n"
		"  --zone NAME        one zone\n"
		"  --path GLOB        paths matching GLOB (* ? [..])\n"
		"  --denied           denials only\n"
		"  --since WHEN       from WHEN: 30s, 15m, 1h, 2d, 1w ago, or "
		"an ISO time\n"
		"                     (2026-11-22, 2026-11-22T10:00:00[Z]), or "
		"@EPOCH\n"
		"  --until WHEN       up to WHEN\n"
		"  --pid N            one process\n"
		"  --limit N          the newest N events (default 100; 0: "
		"all)\n"
		"  --json             JSON lines\n"
		"  --follow           then print new events as they come\n"
		"  --summary          counts per op, zone, result; top paths\n"
		"  --before WHEN      (prune) delete events older than WHEN\n"
		"  -h, --help         this help\n");
}

/* ---- SQL assembly ---- */

struct query {
	char sql[2048];
	const char *text[8];
	int ntext;
	int64_t num[4];
	int nnum;
	int order[12]; /* parameter order: >0 text index+1, <0 num index-1 */
	int nparams;
};

static void where(struct query *q, const char *clause)
{
	strcat(q->sql, strstr(q->sql, " WHERE ") ? " AND " : " WHERE ");
	strcat(q->sql, clause);
}

static void where_text(struct query *q, const char *clause, const char *v)
{
	where(q, clause);
	q->text[q->ntext] = v;
	q->order[q->nparams++] = ++q->ntext;
}

static void where_num(struct query *q, const char *clause, int64_t v)
{
	where(q, clause);
	q->num[q->nnum] = v;
	q->order[q->nparams++] = -(++q->nnum);
}

static void build_where(struct query *q, const struct filters *f,
			int64_t after_id)
{
	if (f->session)
		where_text(q, "session = ?", f->session);
	if (f->op)
		where_text(q, "op = ?", f->op);
	if (f->zone)
		where_text(q, "zone = ?", f->zone);
	if (f->path)
		where_text(q, "path GLOB ?", f->path);
	if (f->denied)
		where(q, "allowed = 0");
	if (f->since)
		where_num(q, "time_us >= ?", f->since);
	if (f->until)
		where_num(q, "time_us <= ?", f->until);
	if (f->pid)
		where_num(q, "pid = ?", f->pid);
	if (after_id)
		where_num(q, "id > ?", after_id);
}

static int query_prepare(sqlite3 *db, struct query *q, sqlite3_stmt **st)
{
	int i;

	if (sqlite3_prepare_v2(db, q->sql, -1, st, NULL) != SQLITE_OK) {
		fprintf(stderr, "golemfs: audit: %s\n", sqlite3_errmsg(db));
		return -EIO;
	}
	for (i = 0; i < q->nparams; i++) {
		if (q->order[i] > 0)
			sqlite3_bind_text(*st, i + 1, q->text[q->order[i] - 1],
					  -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(*st, i + 1,
					   q->num[-q->order[i] - 1]);
	}
	return 0;
}

/* ---- output ---- */

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

static void fmt_time(int64_t us, char *buf, size_t size, bool iso)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;
	char b[24];

	if (iso) {
		gmtime_r(&t, &tm);
		strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, size, "%s.%06dZ", b, (int)(us % 1000000));
	} else {
		localtime_r(&t, &tm);
		strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(buf, size, "%s.%03d", b, (int)(us % 1000000 / 1000));
	}
}

static const char *err_name(int e)
{
	const char *n = e ? strerrorname_np(e) : "ok";

	return n ? n : "?";
}

#define COLUMNS                                                                \
	"id, time_us, session, trust, op, zone, path, allowed, errno, "        \
	"reason, bytes, rbytes, wbytes, pid, uid, comm"

static void print_json(sqlite3_stmt *st)
{
	static const char *const names[] = {
		"id",     "time_us", "session", "trust",  "op",    "zone",
		"path",   "allowed", "errno",   "reason", "bytes", "rbytes",
		"wbytes", "pid",     "uid",     "comm",
	};
	char t[64];
	int i;

	printf("{");
	for (i = 0; i < 16; i++) {
		printf("%s\"%s\":", i ? "," : "", names[i]);
		if (i == 7)
			printf("%s",
			       sqlite3_column_int(st, i) ? "true" : "false");
		else if (sqlite3_column_type(st, i) == SQLITE_NULL)
			printf("null");
		else if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
			printf("%lld", sqlite3_column_int64(st, i));
		else
			gfs_esc_json_str(stdout, col(st, i));
	}
	fmt_time(sqlite3_column_int64(st, 1), t, sizeof(t), true);
	printf(",\"time\":\"%s\",\"error\":", t);
	gfs_esc_json_str(stdout, sqlite3_column_int(st, 8)
				     ? err_name(sqlite3_column_int(st, 8))
				     : "");
	printf("}\n");
}

/* Column @i escaped for display (a path quoted), padded to @w. */
static void field(sqlite3_stmt *st, int i, int w, bool name)
{
	const char *s = col(st, i);
	char *e =
	    name ? gfs_esc_name_dup(s, 0) : gfs_esc_text_dup(s, GFS_ESC_TAB);

	printf("%-*s", w, e ? e : "?");
	free(e);
}

static void print_row(sqlite3_stmt *st)
{
	static const int cols[] = { 2, 3, 4, 5 }, widths[] = { 0, 9, 8, 9 };
	char t[64], extra[64] = "";
	int e = sqlite3_column_int(st, 8);
	size_t i;

	fmt_time(sqlite3_column_int64(st, 1), t, sizeof(t), false);
	if (sqlite3_column_int64(st, 10))
		snprintf(extra, sizeof(extra), " [r %lld w %lld]",
			 sqlite3_column_int64(st, 11),
			 sqlite3_column_int64(st, 12));
	printf("%s", t);
	for (i = 0; i < 4; i++) {
		putchar(' ');
		field(st, cols[i], widths[i], false);
	}
	printf(" %-7s %-6s ", sqlite3_column_int(st, 7) ? "ok" : err_name(e),
	       col(st, 13));
	field(st, 15, 15, false);
	putchar(' ');
	field(st, 6, 0, true);
	printf("%s%s", extra, *col(st, 9) ? ": " : "");
	field(st, 9, 0, false);
	putchar('\n');
}

/* Export: tab-separated, each field escaped (TAB and newline too). */
static void print_tsv(sqlite3_stmt *st)
{
	const char *s;
	int i;

	for (i = 0; i < 16; i++) {
		s = col(st, i);
		if (i)
			putchar('\t');
		gfs_esc_text(stdout, s, strlen(s), GFS_ESC_TAB);
	}
	putchar('\n');
}

static volatile sig_atomic_t stop_follow;

static void on_signal(int sig)
{
	(void)sig;
	stop_follow = 1;
}

/* Print the selected events; returns the last id printed. */
static int64_t list_events(sqlite3 *db, const struct filters *f, enum mode m,
			   int64_t after_id, int *rc)
{
	struct query q = { .sql = "SELECT " COLUMNS " FROM events" };
	sqlite3_stmt *st = NULL;
	int64_t last = after_id;
	char tail[128];

	build_where(&q, f, after_id);
	if (m == M_LIST && f->limit > 0 && !after_id) {
		/* the newest N, printed oldest first */
		snprintf(tail, sizeof(tail), " ORDER BY id DESC LIMIT %ld",
			 f->limit);
		strcat(q.sql, tail);
		memmove(q.sql + strlen("SELECT " COLUMNS " FROM ("), q.sql,
			strlen(q.sql) + 1);
		memcpy(q.sql, "SELECT " COLUMNS " FROM (",
		       strlen("SELECT " COLUMNS " FROM ("));
		strcat(q.sql, ") ORDER BY id");
	} else {
		strcat(q.sql, " ORDER BY id");
	}
	*rc = query_prepare(db, &q, &st);
	if (*rc < 0)
		return last;
	if (m == M_EXPORT && !f->json)
		printf(
		    "id\ttime_us\tsession\ttrust\top\tzone\tpath\tallowed\t"
		    "errno\treason\tbytes\trbytes\twbytes\tpid\tuid\tcomm\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		if (f->json)
			print_json(st);
		else if (m == M_EXPORT)
			print_tsv(st);
		else
			print_row(st);
	}
	sqlite3_finalize(st);
	fflush(stdout);
	return last;
}

static int follow(sqlite3 *db, const struct filters *f, int64_t last)
{
	int rc = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop_follow && rc == 0) {
		usleep(200000);
		last = list_events(db, f, M_LIST, last, &rc);
	}
	return rc;
}

static void summary_section(sqlite3 *db, const struct filters *f,
			    const char *title, const char *select,
			    const char *group)
{
	struct query q;
	sqlite3_stmt *st = NULL;

	memset(&q, 0, sizeof(q));
	snprintf(q.sql, sizeof(q.sql), "SELECT %s FROM events", select);
	build_where(&q, f, 0);
	strcat(q.sql, group);
	printf("%s\n", title);
	if (query_prepare(db, &q, &st) < 0)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		printf("  ");
		field(st, 0, 40, strncmp(select, "path", 4) == 0);
		printf(" %8lld %8lld\n", sqlite3_column_int64(st, 1),
		       sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
}

static void summary(sqlite3 *db, const struct filters *f)
{
	printf("%-42s %8s %8s\n", "", "allowed", "denied");
	summary_section(db, f, "by op:", "op, sum(allowed), sum(1 - allowed)",
			" GROUP BY op ORDER BY count(*) DESC");
	summary_section(db, f,
			"by zone:", "zone, sum(allowed), sum(1 - allowed)",
			" GROUP BY zone ORDER BY count(*) DESC");
	summary_section(
	    db, f, "by session:", "session, sum(allowed), sum(1 - allowed)",
	    " GROUP BY session ORDER BY count(*) DESC");
	summary_section(db, f,
			"top paths:", "path, sum(allowed), sum(1 - allowed)",
			" GROUP BY path ORDER BY count(*) DESC LIMIT 10");
}

static int prune(sqlite3 *db, int64_t before)
{
	sqlite3_stmt *st = NULL;

	sqlite3_busy_timeout(db, 10000);
	if (sqlite3_prepare_v2(db, "DELETE FROM events WHERE time_us < ?", -1,
			       &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "golemfs: audit prune: %s\n",
			sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_bind_int64(st, 1, before);
	if (sqlite3_step(st) != SQLITE_DONE) {
		fprintf(stderr, "golemfs: audit prune: %s\n",
			sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return 1;
	}
	sqlite3_finalize(st);
	printf("pruned %d events\n", sqlite3_changes(db));
	return 0;
}

/* ---- arguments ---- */

static int take_when(const char *opt, const char *arg, int64_t *out)
{
	if (audit_parse_when(out, arg) == 0)
		return 0;
	fprintf(stderr,
		"golemfs: audit: %s '%s': not a time (30s, 15m, 1h, 2d, 1w, "
		"2026-11-22T10:00:00, @EPOCH)\n",
		opt, arg);
	return -EINVAL;
}

static int take_num(const char *opt, const char *arg, long *out)
{
	char *e;

	*out = strtol(arg, &e, 10);
	if (*arg && !*e && *out >= 0)
		return 0;
	fprintf(stderr, "golemfs: audit: %s '%s': not a number\n", opt, arg);
	return -EINVAL;
}

/* A take_*() result as audit_take() returns it. */
static int taken(int rc)
{
	return rc < 0 ? rc : 1;
}

struct audit_args {
	struct filters *f;
	struct policy_cli *cli;
	const char **db;
};

static int audit_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	struct audit_args *a = ctx;
	struct filters *f = a->f;

	switch (key) {
	case 'D':
		*a->db = arg;
		return 1;
	case 's':
		f->session = arg;
		return 1;
	case 'O':
		f->op = arg;
		return 1;
	case 'z':
		f->zone = arg;
		return 1;
	case 'p':
		f->path = arg;
		return 1;
	case 'n':
		f->denied = true;
		return 1;
	case 'F':
		f->follow = true;
		return 1;
	case 'y':
		f->summary = true;
		return 1;
	case 'S':
		return taken(take_when("--since", arg, &f->since));
	case 'U':
		return taken(take_when("--until", arg, &f->until));
	case 'B':
		return taken(take_when("--before", arg, &f->before));
	case 'P':
		return taken(take_num("--pid", arg, &f->pid));
	case 'l':
		return taken(take_num("--limit", arg, &f->limit));
	}
	return policy_cli_take(a->cli, key, arg, err);
}

static const struct cli_opt audit_opts[] = {
	CLI_OPTS_POLICY,
	{ "db", 'D', true, false },
	{ "session", 's', true, false },
	{ "op", 'O', true, false },
	{ "zone", 'z', true, false },
	{ "path", 'p', true, false },
	{ "denied", 'n', false, false },
	{ "since", 'S', true, false },
	{ "until", 'U', true, false },
	{ "pid", 'P', true, false },
	{ "limit", 'l', true, false },
	CLI_OPT_JSON,
	{ "follow", 'F', false, false },
	{ "summary", 'y', false, false },
	{ "before", 'B', true, false },
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

static const struct cli_cmd audit_cmd = {
	.opts = audit_opts,
	.usage = audit_usage,
	.flags = CLI_PERMUTE,
	.take = audit_take,
};

/* Return: CLI_GO, or the exit status. */
static int parse(int argc, char **argv, struct filters *f,
		 struct policy_cli *cli, const char **db)
{
	struct audit_args a = { f, cli, db };
	struct cli_args ca = { 0 };
	int rc;

	rc = cli_parse(&audit_cmd, argc, argv, &a, &ca);
	f->json = ca.json;
	if (rc == CLI_GO && optind < argc) {
		fprintf(stderr, "golemfs: audit: unexpected '%s'\n",
			argv[optind]);
		rc = CLI_USAGE;
	}
	return rc;
}

/* The database named by --db or by the configuration. */
static char *db_path(struct policy_cli *cli, const char *db)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	char *path;

	if (db)
		return strdup(db);
	if (policy_cli_load(&p, cli, &err) < 0) {
		gfs_err_print(NULL, err.msg);
		return NULL;
	}
	path = strdup(p->audit_path);
	policy_free(p);
	return path;
}

int cmd_audit(int argc, char **argv)
{
	struct filters f = { .limit = 100 };
	struct policy_cli cli = { 0 };
	const char *dbarg = NULL;
	enum mode m = M_LIST;
	struct gfs_err err = { 0 };
	sqlite3 *db = NULL;
	char *path;
	int rc = 0;

	if (argc > 1 && strcmp(argv[1], "export") == 0)
		m = M_EXPORT;
	else if (argc > 1 && strcmp(argv[1], "prune") == 0)
		m = M_PRUNE;
	if (m != M_LIST) {
		argc--;
		argv++;
	}
	rc = parse(argc, argv, &f, &cli, &dbarg);
	if (rc != CLI_GO)
		return rc;
	if (m == M_PRUNE && !f.before) {
		fprintf(stderr, "golemfs: audit prune: --before WHEN is "
				"required\n");
		return CLI_USAGE;
	}
	path = db_path(&cli, dbarg);
	if (!path)
		return CLI_USAGE;
	if (access(path, F_OK) < 0) {
		fprintf(stderr,
			"golemfs: audit: no audit log at %s (nothing "
			"mounted with it yet?)\n",
			path);
		free(path);
		return CLI_FAILED;
	}
	if (sqlite3_open_v2(path, &db,
			    m == M_PRUNE ? SQLITE_OPEN_READWRITE
					 : SQLITE_OPEN_READONLY,
			    NULL) != SQLITE_OK ||
	    (m == M_PRUNE && audit_schema(db, &err) < 0)) {
		fprintf(stderr, "golemfs: audit: %s: %s\n", path,
			err.msg[0] ? err.msg : sqlite3_errmsg(db));
		sqlite3_close(db);
		free(path);
		return CLI_FAILED;
	}
	sqlite3_busy_timeout(db, 10000);
	if (m == M_PRUNE) {
		rc = prune(db, f.before);
	} else if (f.summary) {
		summary(db, &f);
		rc = CLI_OK;
	} else {
		int64_t last = list_events(db, &f, m, 0, &rc);

		if (rc == 0 && f.follow)
			rc = follow(db, &f, last);
		rc = rc < 0 ? CLI_FAILED : CLI_OK;
	}
	sqlite3_close(db);
	free(path);
	return rc;
}
