/*
 * Unit tests of the audit writer against a real SQLite file: events land
 * with their fields, close loses nothing, and each on_full mode does what
 * it says while the writer is really blocked by another connection's lock.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "audit/audit.h"

struct fixture {
	char dir[64];
	char db[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/golemfs-audit-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->db, sizeof(f->db), "%s/audit.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static long long scalar(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	long long v = -1;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* a writer on the fixture's database; the test fails if it cannot open */
static struct audit *open_writer(const struct fixture *f, const char *session,
				 enum audit_full on_full, size_t queue)
{
	struct audit *a = NULL;

	assert_int_equal(audit_open(&a, f->db, session, on_full, queue, NULL),
			 0);
	return a;
}

/* how many indexes: the writer keeps none (each costs it per row) */
static long long indexes(const char *db)
{
	return scalar(db, "SELECT count(*) FROM sqlite_master "
			  "WHERE type='index'");
}

static const struct audit_event ev = {
	.trust = "session",
	.op = "create",
	.zone = "work",
	.path = "/work/a.txt",
	.allowed = false,
	.err = EACCES,
	.reason = "worker 'w' does not make /work writable",
	.wbytes = 7,
	.rbytes = 5,
	.pid = 4242,
	.uid = 1000,
	.comm = "agent",
};

static void test_audit_event_lands_with_every_field(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL;

	a = open_writer(f, "s1", AUDIT_FULL_BLOCK, 16);
	assert_int_equal(audit_log(a, &ev, false), 0);
	audit_close(a);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events WHERE "
				       "session='s1' AND trust='session' AND "
				       "op='create' AND zone='work' AND "
				       "path='/work/a.txt' AND allowed=0 AND "
				       "errno=13 AND reason LIKE 'worker%' AND "
				       "bytes=12 AND rbytes=5 AND wbytes=7 AND "
				       "pid=4242 AND uid=1000 AND "
				       "comm='agent' AND time_us > 0"),
			 1);
	assert_int_equal(scalar(f->db, "PRAGMA user_version"), 1);
	assert_int_equal(indexes(f->db), 0);
	assert_int_equal(scalar(f->db,
				"SELECT count(*) FROM pragma_journal_mode"
				" WHERE journal_mode='wal'"),
			 1);
}

static void test_audit_close_writes_everything_queued(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL;
	int i;

	a = open_writer(f, "s", AUDIT_FULL_BLOCK, 64);
	for (i = 0; i < 5000; i++)
		assert_int_equal(audit_log(a, &ev, false), 0);
	audit_close(a);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events"), 5000);
}

static void test_audit_flush_commits_within_a_batch(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL;

	a = open_writer(f, "s", AUDIT_FULL_BLOCK, 64);
	assert_int_equal(audit_log(a, &ev, false), 0);
	/* without closing: the batch timer alone commits it */
	usleep(300 * 1000);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events"), 1);
	audit_close(a);
}

/* Another connection holds the write lock, so the writer cannot commit. */
static sqlite3 *lock_db(const char *db)
{
	sqlite3 *h = NULL;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
			 SQLITE_OK);
	return h;
}

static void unlock_db(sqlite3 *h)
{
	assert_int_equal(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
}

static void test_audit_full_drop_counts_and_logs_the_count(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL;
	sqlite3 *h;
	int i;

	a = open_writer(f, "s", AUDIT_FULL_DROP, 8);
	h = lock_db(f->db);
	for (i = 0; i < 100; i++)
		assert_int_equal(audit_log(a, &ev, false), 0);
	assert_true(audit_dropped(a) >= 100 - 16);
	unlock_db(h);
	audit_close(a);
	assert_true(scalar(f->db, "SELECT count(*) FROM events WHERE "
				  "op='audit-drop' AND reason LIKE "
				  "'% events dropped%'") >= 1);
	/* every event is either in the log or counted there as dropped */
	assert_int_equal(
	    scalar(f->db, "SELECT count(*) FROM events WHERE op='create'") +
		scalar(f->db, "SELECT sum(CAST(reason AS INTEGER)) "
			      "FROM events WHERE op='audit-drop'"),
	    100);
}

static void test_audit_full_fail_refuses_before_acting(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL;
	sqlite3 *h;
	int i, taken = 0, rc = 0;

	a = open_writer(f, "s", AUDIT_FULL_FAIL, 8);
	h = lock_db(f->db);
	for (i = 0; i < 100 && rc >= 0; i++) {
		rc = audit_reserve(a);
		if (rc > 0) {
			taken++;
			assert_int_equal(audit_log(a, &ev, true), 0);
		}
	}
	/* the queue, plus at most one batch the writer took out */
	assert_int_equal(rc, -EIO);
	assert_true(taken >= 8 && taken <= 16);
	unlock_db(h);
	audit_close(a);
	/* everything that was allowed to happen was recorded */
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events"), taken);
}

struct blocker {
	struct audit *a;
	int done;
};

static void *log_many(void *arg)
{
	struct blocker *b = arg;
	int i;

	for (i = 0; i < 50; i++) {
		audit_log(b->a, &ev, false);
		__atomic_store_n(&b->done, i + 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void test_audit_full_block_waits_for_room(void **state)
{
	struct fixture *f = *state;
	struct blocker b = { 0 };
	pthread_t t;
	sqlite3 *h;

	b.a = open_writer(f, "s", AUDIT_FULL_BLOCK, 8);
	h = lock_db(f->db);
	assert_int_equal(pthread_create(&t, NULL, log_many, &b), 0);
	usleep(300 * 1000);
	assert_true(__atomic_load_n(&b.done, __ATOMIC_SEQ_CST) < 50);
	unlock_db(h);
	pthread_join(t, NULL);
	audit_close(b.a);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events"), 50);
}

static void *log_mark(void *arg)
{
	struct blocker *b = arg;

	__atomic_store_n(&b->done, audit_log_mark(b->a, &ev) == 0 ? 1 : -1,
			 __ATOMIC_SEQ_CST);
	return NULL;
}

/* an unmount row with a full queue in fail mode: waits, is not lost */
static void test_audit_mark_waits_even_in_fail_mode(void **state)
{
	struct fixture *f = *state;
	struct blocker b = { 0 };
	int i, taken = 0;
	pthread_t t;
	sqlite3 *h;

	b.a = open_writer(f, "s", AUDIT_FULL_FAIL, 8);
	h = lock_db(f->db);
	/* fill the queue twice: the writer takes one batch out, then hangs
	   on the lock (its wait for a batch is AUDIT_BATCH_MS) */
	for (i = 0; i < 2; i++) {
		while (audit_reserve(b.a) > 0 && taken < 100) {
			assert_int_equal(audit_log(b.a, &ev, true), 0);
			taken++;
		}
		usleep(100 * 1000);
	}
	assert_int_equal(audit_log(b.a, &ev, false), -EIO);
	assert_int_equal(pthread_create(&t, NULL, log_mark, &b), 0);
	usleep(300 * 1000);
	assert_int_equal(__atomic_load_n(&b.done, __ATOMIC_SEQ_CST), 0);
	unlock_db(h);
	pthread_join(t, NULL);
	assert_int_equal(b.done, 1);
	audit_close(b.a);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events"),
			 taken + 1);
}

/* a release's bytes go onto its open row while that is still queued */
static void test_audit_bytes_fold_into_a_queued_event(void **state)
{
	struct fixture *f = *state;
	struct audit_event open_ev = ev;
	uint64_t first = 0, second = 0;
	struct audit *a = NULL;
	sqlite3 *h;

	open_ev.op = "open";
	open_ev.rbytes = open_ev.wbytes = 0;
	a = open_writer(f, "s", AUDIT_FULL_BLOCK, 16);
	h = lock_db(f->db);
	/* the writer takes the first out, then hangs on the lock */
	assert_int_equal(audit_log_ticket(a, &open_ev, false, &first), 0);
	usleep(300 * 1000);
	open_ev.path = "/work/b.txt";
	assert_int_equal(audit_log_ticket(a, &open_ev, false, &second), 0);
	assert_true(first > 0 && second > first);
	assert_false(audit_add_bytes(a, first, 1, 1)); /* being written */
	assert_true(audit_add_bytes(a, second, 5, 7));
	assert_true(audit_add_bytes(a, second, 1, 0));
	assert_false(audit_add_bytes(a, 0, 1, 1)); /* nothing was queued */
	assert_false(audit_add_bytes(NULL, second, 1, 1));
	unlock_db(h);
	audit_close(a);
	assert_int_equal(scalar(f->db, "SELECT rbytes * 100 + wbytes FROM "
				       "events WHERE path='/work/b.txt'"),
			 607);
	assert_int_equal(scalar(f->db, "SELECT rbytes + wbytes FROM events "
				       "WHERE path='/work/a.txt'"),
			 0);
}

/* a database made by an earlier version loses the indexes it had */
static void test_audit_drops_the_old_indexes(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL;
	sqlite3 *h = NULL;

	a = open_writer(f, "s", AUDIT_FULL_BLOCK, 8);
	audit_close(a);
	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
				      "CREATE INDEX events_time ON "
				      "events(time_us); CREATE INDEX "
				      "events_session ON events(session, "
				      "time_us)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	a = open_writer(f, "s", AUDIT_FULL_BLOCK, 8);
	assert_int_equal(audit_log(a, &ev, false), 0);
	audit_close(a);
	assert_int_equal(indexes(f->db), 0);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events"), 1);
}

static void test_audit_two_writers_share_one_file(void **state)
{
	struct fixture *f = *state;
	struct audit *a = NULL, *b = NULL;
	int i;

	a = open_writer(f, "one", AUDIT_FULL_BLOCK, 64);
	b = open_writer(f, "two", AUDIT_FULL_BLOCK, 64);
	for (i = 0; i < 2000; i++) {
		assert_int_equal(audit_log(a, &ev, false), 0);
		assert_int_equal(audit_log(b, &ev, false), 0);
	}
	audit_close(a);
	audit_close(b);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events WHERE "
				       "session='one'"),
			 2000);
	assert_int_equal(scalar(f->db, "SELECT count(*) FROM events WHERE "
				       "session='two'"),
			 2000);
}

static void test_audit_open_names_a_bad_path(void **state)
{
	struct gfs_err err = { 0 };
	struct audit *a = NULL;

	(void)state;
	assert_int_equal(audit_open(&a, "/nonexistent/dir/audit.db", "s",
				    AUDIT_FULL_BLOCK, 8, &err),
			 -EIO);
	assert_null(a);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/audit.db"));
}

/* Found by fuzz_when: these overflowed int64 (undefined behaviour). */
static void test_audit_parse_when_refuses_times_out_of_range(void **state)
{
	int64_t t = 42;

	(void)state;
	assert_int_equal(audit_parse_when(&t, "@9223372036854775807"), -EINVAL);
	assert_int_equal(audit_parse_when(&t, "@99999999999999999999"),
			 -EINVAL);
	assert_int_equal(audit_parse_when(&t, "17000000000000s"), -EINVAL);
	assert_int_equal(audit_parse_when(&t, "-9223372036854775807w"),
			 -EINVAL);
	assert_int_equal(t, 42); /* untouched on failure */
	assert_int_equal(audit_parse_when(&t, "@1700000000"), 0);
	assert_true(t == 1700000000LL * 1000000);
	assert_int_equal(audit_parse_when(&t, "2026-11-22T10:00:00Z"), 0);
	assert_true(t == 1795341600LL * 1000000);
	assert_int_equal(audit_parse_when(&t, "1h"), 0);
	assert_int_equal(audit_parse_when(&t, "1x"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_audit_event_lands_with_every_field, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_close_writes_everything_queued, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_flush_commits_within_a_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_full_drop_counts_and_logs_the_count, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_full_fail_refuses_before_acting, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_full_block_waits_for_room, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_mark_waits_even_in_fail_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_bytes_fold_into_a_queued_event, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_drops_the_old_indexes, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_audit_two_writers_share_one_file, setup, teardown),
		cmocka_unit_test(test_audit_open_names_a_bad_path),
		cmocka_unit_test(
		    test_audit_parse_when_refuses_times_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
