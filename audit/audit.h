/*
 * audit - the SQLite audit log: who did what, where, allowed or not, why.
 *
 * The writer (struct audit) owns one SQLite connection, used only by its
 * own thread. audit_log() copies the event into a bounded queue and
 * returns; the thread sleeps until an event comes, then commits what
 * came within AUDIT_BATCH_MS in one transaction (sooner when the queue
 * is half full). So a killed daemon loses at
 * most the last batch, and the database (WAL) is never corrupted.
 * audit_close() writes everything still queued.
 *
 * A full queue does what on_full says: AUDIT_FULL_BLOCK waits for room,
 * AUDIT_FULL_DROP drops the event and counts it (the count is written as
 * an event of its own, op "audit-drop", once there is room), and
 * AUDIT_FULL_FAIL makes the operation fail: callers take a slot with
 * audit_reserve() *before* acting, so nothing unaudited ever happens.
 *
 * Several daemons may share one database file (each its own session).
 * Thread-safe. Knows nothing of FUSE; events are plain strings.
 *
 * Schema (PRAGMA user_version = 1), documented in the README:
 *   events(id, time_us, session, trust, op, zone, path, allowed, errno,
 *          reason, bytes, rbytes, wbytes, pid, uid, comm)
 */
#ifndef GFS_AUDIT_H
#define GFS_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/gfs_err.h"
#include "policy/policy.h" /* enum audit_full */

#define AUDIT_SCHEMA_VERSION 1
#define AUDIT_BATCH_MS 25
#define AUDIT_QUEUE_DEFAULT 65536

struct audit;

struct audit_event {
	int64_t time_us; /* 0: now */
	const char *trust;
	const char *op;
	const char *zone;
	const char *path;
	bool allowed;
	int err;            /* positive errno, 0 when allowed */
	const char *reason; /* may be NULL */
	uint64_t rbytes, wbytes;
	pid_t pid;
	uid_t uid;
	const char *comm; /* may be NULL */
};

/*
 * audit_open() - open (create) the database and start the writer.
 * @out:      new writer; free with audit_close().
 * @path:     database file; its directory must exist.
 * @session:  written in every event.
 * @queue:    capacity of the queue (events).
 * Return: 0, or -errno with @err naming the file and SQLite's reason.
 */
int audit_open(struct audit **out, const char *path, const char *session,
	       enum audit_full on_full, size_t queue, struct gfs_err *err);

/*
 * struct audit_wait - what a caller does around a wait for room in the
 * queue (AUDIT_FULL_BLOCK, or audit_log_mark()), which lasts as long as
 * the database cannot take rows (another process holds its write lock,
 * the disk is full). @begin is called once before the wait, @end once
 * after it with what @begin returned; both without the audit's lock held
 * and on the thread that waits. The daemon hands its part in reading
 * requests over meanwhile, so other requests are served.
 */
struct audit_wait {
	bool (*begin)(void *ctx);
	void (*end)(void *ctx, bool token);
};

/* audit_set_wait() - install @w (static, or outliving @a) before the
   first event is logged. NULL @a is a no-op. */
void audit_set_wait(struct audit *a, const struct audit_wait *w, void *ctx);

/*
 * audit_reserve() - with AUDIT_FULL_FAIL, take a queue slot before an
 * operation acts. Return: 1 a slot was taken; 0 none is needed (other
 * modes, or a NULL writer); -EIO the queue is full and the operation
 * must not happen. A taken slot must be used by audit_log(..., true) or
 * given back with audit_unreserve(), before audit_close() (asserted).
 */
int audit_reserve(struct audit *a);
void audit_unreserve(struct audit *a);

/*
 * audit_log() - queue one event (strings are copied).
 * @reserved: a slot was taken with audit_reserve().
 * Return: 0; -EIO (fail mode, full); -ENOMEM. With a NULL writer: 0.
 */
int audit_log(struct audit *a, const struct audit_event *e, bool reserved);

/*
 * audit_log_ticket() - audit_log(), and @ticket names the queued event
 * for audit_add_bytes() (0 when nothing was queued).
 */
int audit_log_ticket(struct audit *a, const struct audit_event *e,
		     bool reserved, uint64_t *ticket);

/*
 * audit_add_bytes() - add bytes read and written to the event @ticket,
 * if it is still in the queue: an open whose handle closed before its
 * row was written carries its bytes itself, and needs no release row.
 * Return: true, added; false, the row is written (or @ticket is 0, or
 * the writer NULL) - log the bytes in an event of their own.
 */
bool audit_add_bytes(struct audit *a, uint64_t ticket, uint64_t rbytes,
		     uint64_t wbytes);

/*
 * audit_log_mark() - queue one of the daemon's own events (mount,
 * unmount): it waits for room whatever on_full says, as it stands for no
 * operation that could be refused instead, and must not be lost.
 */
int audit_log_mark(struct audit *a, const struct audit_event *e);

/* audit_flush() - wait until everything queued so far is committed. */
void audit_flush(struct audit *a);

/* audit_close() - write what is queued, stop, close. NULL is a no-op. */
void audit_close(struct audit *a);

/* audit_dropped() - events dropped so far (AUDIT_FULL_DROP). */
uint64_t audit_dropped(struct audit *a);

/* The schema, for the writer and for readers creating an empty log. */
int audit_schema(void *sqlite_db, struct gfs_err *err);

/*
 * audit_parse_when() - a time as `golemfs audit` takes it: "now", a
 * duration ago ("30s", "15m", "1h", "2d", "1w"), an ISO date or time
 * ("2026-11-22", "2026-11-22T10:00:00", local, or with "Z", UTC), or
 * "@EPOCH". @out: µs since the epoch, written only on success.
 * Return: 0, or -EINVAL, also for a time µs since the epoch cannot hold.
 */
int audit_parse_when(int64_t *out, const char *s);

#endif
