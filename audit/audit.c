/*
 * The audit writer: a bounded queue in front of one SQLite connection
 * owned by one thread. See audit.h for the contract.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "audit.h"
#include "common/lockorder.h"

/* One queued event: the struct and its strings in one allocation. */
struct qev {
	struct audit_event e;
	char strings[];
};

struct audit {
	sqlite3 *db;       /* writer thread only, after audit_open() */
	sqlite3_stmt *ins; /* writer thread only */
	char *session;
	enum audit_full on_full;
	pthread_t thread;
	const struct audit_wait *wait; /* set before the first event */
	void *wait_ctx;

	pthread_mutex_t lock; /* protects everything below */
	pthread_cond_t wake;  /* writer: work or stop */
	pthread_cond_t room;  /* producers: space, or a batch done */
	struct qev **q;
	size_t cap, head, len;
	size_t reserved;   /* slots promised by audit_reserve() */
	uint64_t dropped;  /* total, for audit_dropped() */
	uint64_t unlogged; /* dropped since the last "audit-drop" event */
	uint64_t queued, written; /* counters for audit_flush() */
	bool stop;
};

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int sql_err(struct gfs_err *err, sqlite3 *db, const char *what)
{
	return gfs_err_set(err, -EIO, "audit: %s: %s", what,
			   db ? sqlite3_errmsg(db) : "out of memory");
}

int audit_schema(void *sqlite_db, struct gfs_err *err)
{
	static const char schema[] =
	    "CREATE TABLE IF NOT EXISTS events("
	    " id INTEGER PRIMARY KEY,"
	    " time_us INTEGER NOT NULL,"
	    " session TEXT NOT NULL,"
	    " trust TEXT NOT NULL,"
	    " op TEXT NOT NULL,"
	    " zone TEXT NOT NULL,"
	    " path TEXT NOT NULL,"
	    " allowed INTEGER NOT NULL,"
	    " errno INTEGER NOT NULL,"
	    " reason TEXT,"
	    " bytes INTEGER NOT NULL DEFAULT 0,"
	    " rbytes INTEGER NOT NULL DEFAULT 0,"
	    " wbytes INTEGER NOT NULL DEFAULT 0,"
	    " pid INTEGER,"
	    " uid INTEGER,"
	    " comm TEXT);"
	    /*
	     * No indexes: they were 40 % of the writer's CPU per row,
	     * which on a busy two-core machine comes out of the
	     * program's time; a filtered query scans instead, 0.1-0.4 s per
	     * million rows (docs/performance-notes.md). Databases made
	     * before lose theirs here.
	     */
	    "DROP INDEX IF EXISTS events_time;"
	    "DROP INDEX IF EXISTS events_session;"
	    "PRAGMA user_version = 1;";
	sqlite3 *db = sqlite_db;
	int v = 0;
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) ==
		SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v > AUDIT_SCHEMA_VERSION)
		return gfs_err_set(err, -EINVAL,
				   "audit: schema version %d is newer than "
				   "this golemfs (%d)",
				   v, AUDIT_SCHEMA_VERSION);
	if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(err, db, "creating the schema");
	return 0;
}

static int db_open(struct audit *a, const char *path, struct gfs_err *err)
{
	static const char insert[] =
	    "INSERT INTO events(time_us, session, trust, op, zone, path,"
	    " allowed, errno, reason, bytes, rbytes, wbytes, pid, uid,"
	    " comm) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	int rc;

	rc = sqlite3_open_v2(path, &a->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK)
		return gfs_err_set(err, -EIO, "audit: %s: %s", path,
				   a->db ? sqlite3_errmsg(a->db)
					 : "out of memory");
	/* several mounts may share the file: wait for each other */
	sqlite3_busy_timeout(a->db, 10000);
	if (sqlite3_exec(a->db,
			 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
			 NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(err, a->db, path);
	rc = audit_schema(a->db, err);
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(a->db, insert, -1, &a->ins, NULL) != SQLITE_OK)
		return sql_err(err, a->db, path);
	return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int insert(struct audit *a, const struct audit_event *e)
{
	sqlite3_stmt *st = a->ins;
	int rc;

	sqlite3_bind_int64(st, 1, e->time_us);
	bind_text(st, 2, a->session);
	bind_text(st, 3, e->trust ? e->trust : "");
	bind_text(st, 4, e->op);
	bind_text(st, 5, e->zone ? e->zone : "");
	bind_text(st, 6, e->path ? e->path : "");
	sqlite3_bind_int(st, 7, e->allowed);
	sqlite3_bind_int(st, 8, e->err);
	bind_text(st, 9, e->reason);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)(e->rbytes + e->wbytes));
	sqlite3_bind_int64(st, 11, (sqlite3_int64)e->rbytes);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)e->wbytes);
	sqlite3_bind_int(st, 13, e->pid);
	sqlite3_bind_int64(st, 14, e->uid);
	bind_text(st, 15, e->comm);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/*
 * Errors a later try may not meet: another mount's lock, a full disk, an
 * I/O error. SQLite may have rolled the transaction back for them (it
 * does for a full disk at COMMIT), so the whole batch is tried again.
 */
static bool transient(sqlite3 *db)
{
	switch (sqlite3_errcode(db)) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_FULL:
	case SQLITE_IOERR:
	case SQLITE_NOMEM:
	case SQLITE_CANTOPEN:
		return true;
	default:
		return false;
	}
}

/*
 * One try at writing @n events in one transaction. An event SQLite
 * refuses for good is logged and left out; anything transient undoes the
 * transaction and returns -EAGAIN.
 */
static int try_batch(struct audit *a, struct qev **batch, size_t n,
		     uint64_t dropped, const char **why)
{
	struct audit_event drop = { .op = "audit-drop", .allowed = true };
	char reason[96];
	size_t i;

	if (sqlite3_exec(a->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		*why = sqlite3_errmsg(a->db);
		return -EAGAIN;
	}
	for (i = 0; i < n; i++) {
		if (insert(a, &batch[i]->e) == 0)
			continue;
		if (transient(a->db))
			goto undo;
		gfs_log(LOG_WARNING, "audit: insert: %s, event left out",
			sqlite3_errmsg(a->db));
	}
	if (dropped) {
		snprintf(reason, sizeof(reason),
			 "%llu events dropped: the audit queue was full",
			 (unsigned long long)dropped);
		drop.time_us = now_us();
		drop.reason = reason;
		if (insert(a, &drop) < 0 && transient(a->db))
			goto undo;
	}
	if (sqlite3_exec(a->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
undo:
	*why = sqlite3_errstr(sqlite3_errcode(a->db));
	if (!sqlite3_get_autocommit(a->db))
		sqlite3_exec(a->db, "ROLLBACK", NULL, NULL, NULL);
	return -EAGAIN;
}

/*
 * Write @n events in one transaction, until it succeeds: events are never
 * given up. busy_timeout already waited for other mounts; anything else
 * (a full disk) is warned about once per batch and retried after a pause
 * — the whole transaction, since SQLite rolls back a COMMIT that found
 * the disk full. Meanwhile the queue fills and on_full decides.
 */
static void write_batch(struct audit *a, struct qev **batch, size_t n,
			uint64_t dropped)
{
	const char *why = "";
	bool warned = false;

	while (try_batch(a, batch, n, dropped, &why) < 0) {
		if (!warned)
			gfs_log(LOG_WARNING,
				"audit: cannot write %zu events: %s, retrying",
				n + (dropped != 0), why);
		warned = true;
		usleep(50000);
	}
	if (warned)
		gfs_log(LOG_WARNING, "audit: %zu events written after all",
			n + (dropped != 0));
}

static void *writer(void *arg)
{
	struct audit *a = arg;
	struct qev **batch = malloc(a->cap * sizeof(*batch));
	struct timespec until;
	uint64_t dropped;
	size_t n, i;
	bool stop;

	for (;;) {
		pthread_mutex_lock(&a->lock);
		/* idle: no timer, the first event (or stop) wakes us */
		while (!a->stop && a->len == 0 && a->unlogged == 0)
			pthread_cond_wait(&a->wake, &a->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += AUDIT_BATCH_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!a->stop && a->len < a->cap / 2 &&
		       pthread_cond_timedwait(&a->wake, &a->lock, &until) == 0)
			;
		for (n = 0; batch && n < a->len; n++)
			batch[n] = a->q[(a->head + n) % a->cap];
		a->head = (a->head + n) % a->cap;
		a->len -= n;
		dropped = a->unlogged;
		a->unlogged = 0;
		stop = a->stop;
		pthread_mutex_unlock(&a->lock);

		if (n || dropped)
			write_batch(a, batch, n, dropped);
		for (i = 0; i < n; i++)
			free(batch[i]);
		pthread_mutex_lock(&a->lock);
		a->written += n;
		pthread_cond_broadcast(&a->room);
		stop = stop && a->len == 0;
		pthread_mutex_unlock(&a->lock);
		if (stop)
			break;
	}
	free(batch);
	return NULL;
}

int audit_open(struct audit **out, const char *path, const char *session,
	       enum audit_full on_full, size_t queue, struct gfs_err *err)
{
	struct audit *a = calloc(1, sizeof(*a));
	int rc = -ENOMEM;

	if (!a)
		return gfs_err_set(err, -ENOMEM, "audit: out of memory");
	a->cap = queue ? queue : AUDIT_QUEUE_DEFAULT;
	a->on_full = on_full;
	a->session = strdup(session);
	a->q = calloc(a->cap, sizeof(*a->q));
	if (!a->session || !a->q)
		goto fail;
	rc = db_open(a, path, err);
	if (rc < 0)
		goto fail;
	pthread_mutex_init(&a->lock, NULL);
	lock_order_name(&a->lock, LOCK_AUDIT);
	pthread_cond_init(&a->wake, NULL);
	pthread_cond_init(&a->room, NULL);
	if (pthread_create(&a->thread, NULL, writer, a) != 0) {
		rc = gfs_err_set(err, -EAGAIN, "audit: cannot start writer");
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->wake);
		pthread_cond_destroy(&a->room);
		goto fail;
	}
	*out = a;
	return 0;
fail:
	sqlite3_finalize(a->ins);
	sqlite3_close(a->db);
	free(a->q);
	free(a->session);
	free(a);
	if (rc == -ENOMEM)
		gfs_err_set(err, rc, "audit: out of memory");
	return rc;
}

int audit_reserve(struct audit *a)
{
	int rc = 1;

	if (!a || a->on_full != AUDIT_FULL_FAIL)
		return 0;
	pthread_mutex_lock(&a->lock);
	if (a->len + a->reserved >= a->cap)
		rc = -EIO;
	else
		a->reserved++;
	pthread_mutex_unlock(&a->lock);
	return rc;
}

void audit_unreserve(struct audit *a)
{
	if (!a || a->on_full != AUDIT_FULL_FAIL)
		return;
	pthread_mutex_lock(&a->lock);
	a->reserved--;
	pthread_mutex_unlock(&a->lock);
}

static size_t slen(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* Copy @s into @p (if set); returns the copy and advances @p. */
static const char *scopy(char **p, const char *s)
{
	char *c = *p;
	size_t n = slen(s);

	if (!s)
		return NULL;
	memcpy(c, s, n);
	*p += n;
	return c;
}

static struct qev *qev_new(const struct audit_event *e)
{
	size_t n = slen(e->trust) + slen(e->op) + slen(e->zone) +
		   slen(e->path) + slen(e->reason) + slen(e->comm);
	struct qev *q = malloc(sizeof(*q) + n);
	char *p;

	if (!q)
		return NULL;
	p = q->strings;
	q->e = *e;
	if (!q->e.time_us)
		q->e.time_us = now_us();
	q->e.trust = scopy(&p, e->trust);
	q->e.op = scopy(&p, e->op);
	q->e.zone = scopy(&p, e->zone);
	q->e.path = scopy(&p, e->path);
	q->e.reason = scopy(&p, e->reason);
	q->e.comm = scopy(&p, e->comm);
	return q;
}

/* audit_log_ticket() with the full-queue behaviour @on_full. */
static int enqueue(struct audit *a, const struct audit_event *e, bool reserved,
		   enum audit_full on_full, uint64_t *ticket)
{
	struct qev *q = qev_new(e);
	bool waiting = false, token = false;

	pthread_mutex_lock(&a->lock);
	if (reserved)
		a->reserved--;
	if (!q) {
		pthread_mutex_unlock(&a->lock);
		return -ENOMEM;
	}
	while (a->len + a->reserved >= a->cap && !reserved) {
		if (on_full != AUDIT_FULL_BLOCK) {
			if (on_full == AUDIT_FULL_DROP) {
				a->dropped++;
				if (a->unlogged++ == 0)
					pthread_cond_signal(&a->wake);
			}
			pthread_mutex_unlock(&a->lock);
			free(q);
			return on_full == AUDIT_FULL_FAIL ? -EIO : 0;
		}
		if (a->wait && !waiting) {
			/* the hook takes the caller's locks: ours goes last */
			pthread_mutex_unlock(&a->lock);
			token = a->wait->begin(a->wait_ctx);
			waiting = true;
			pthread_mutex_lock(&a->lock);
			continue; /* room may have come meanwhile */
		}
		pthread_cond_signal(&a->wake);
		pthread_cond_wait(&a->room, &a->lock);
	}
	a->q[(a->head + a->len++) % a->cap] = q;
	if (ticket)
		*ticket = a->queued + 1; /* its sequence number, plus one */
	a->queued++;
	/* the first wakes the idle writer; half full cuts its wait short */
	if (a->len == 1 || a->len >= a->cap / 2)
		pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	if (waiting)
		a->wait->end(a->wait_ctx, token);
	return 0;
}

void audit_set_wait(struct audit *a, const struct audit_wait *w, void *ctx)
{
	if (!a)
		return;
	a->wait = w;
	a->wait_ctx = ctx;
}

int audit_log(struct audit *a, const struct audit_event *e, bool reserved)
{
	return audit_log_ticket(a, e, reserved, NULL);
}

int audit_log_ticket(struct audit *a, const struct audit_event *e,
		     bool reserved, uint64_t *ticket)
{
	if (ticket)
		*ticket = 0;
	return a ? enqueue(a, e, reserved, a->on_full, ticket) : 0;
}

int audit_log_mark(struct audit *a, const struct audit_event *e)
{
	return a ? enqueue(a, e, false, AUDIT_FULL_BLOCK, NULL) : 0;
}

bool audit_add_bytes(struct audit *a, uint64_t ticket, uint64_t rbytes,
		     uint64_t wbytes)
{
	uint64_t taken;
	struct qev *q;
	bool queued;

	if (!a || !ticket)
		return false;
	pthread_mutex_lock(&a->lock);
	/* the queue holds sequence numbers [queued - len, queued) */
	taken = a->queued - a->len;
	queued = ticket - 1 >= taken;
	if (queued) {
		q = a->q[(a->head + (ticket - 1 - taken)) % a->cap];
		q->e.rbytes += rbytes;
		q->e.wbytes += wbytes;
	}
	pthread_mutex_unlock(&a->lock);
	return queued;
}

void audit_flush(struct audit *a)
{
	uint64_t target;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	target = a->queued;
	pthread_cond_signal(&a->wake);
	while (a->written < target)
		pthread_cond_wait(&a->room, &a->lock);
	pthread_mutex_unlock(&a->lock);
}

uint64_t audit_dropped(struct audit *a)
{
	uint64_t n;

	if (!a)
		return 0;
	pthread_mutex_lock(&a->lock);
	n = a->dropped;
	pthread_mutex_unlock(&a->lock);
	return n;
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	/* every slot taken was used or given back (our bug otherwise) */
	assert(a->reserved == 0);
	a->stop = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	sqlite3_finalize(a->ins);
	sqlite3_close(a->db);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->wake);
	pthread_cond_destroy(&a->room);
	free(a->q);
	free(a->session);
	free(a);
}
