/*
 * readers - who reads /dev/fuse: the bookkeeping of the request loop
 * (loop.c), kept apart from threads and locks so that it can be checked
 * on its own (tests/unit/test_readers.c walks every interleaving of a few
 * threads through it). Not thread-safe: loop.c calls it under its lock.
 *
 * Each thread of the loop is, at every moment, in exactly one state:
 *   reader   reading the device; or handling a request it read, after
 *            which it reads again; or woken (or just made) to read. No
 *            decision of its own is left between it and its next read.
 *            (Also a thread in a long wait for which no new thread could
 *            be made: the others wait for it, but it reads after it.)
 *   waiting  inside a long wait (gfs_wait_begin/end); reads after it.
 *   parked   asleep until it is given a token, which makes it a reader
 *            (the one who gives the token counts it as one at once).
 *   leaving  a helper that decided to end, until it is gone.
 *
 * The invariant - someone is reading the device - holds after every call
 * until the session ends (@exit):
 *
 *     readers >= 1
 *     readers + waiting + (parked - tokens) + leaving == threads
 *
 * Every call keeps it because a thread stops being a reader (to park, to
 * leave, to wait) only in the same step that either sees another reader
 * stay, or makes one: a token for a parked thread, or a new thread. The
 * count of a thread changes in the step that decides its new state,
 * never later: a helper that decides to leave stops counting as a reader
 * in that step, not when its thread ends (the old bug: the last real
 * reader parked, counting on one that was already leaving).
 *
 * What the invariant cannot see: a reader handling a request that waits
 * for something without gfs_wait_begin(). So every wait that may be long
 * (an approval, an fsync, room in the audit queue) must be inside
 * gfs_wait_begin/end.
 */
#ifndef GFS_READERS_H
#define GFS_READERS_H

#include <stdbool.h>

struct readers {
	unsigned readers, waiting, parked, tokens, leaving, threads;
	unsigned max_parked; /* more spare helpers than this leave */
	bool exit;           /* the session ended: everyone leaves */
};

enum readers_next {
	READERS_READ,  /* read the next request */
	READERS_PARK,  /* wait for a token (readers_woken()) */
	READERS_LEAVE, /* end the thread (a helper); readers_gone() */
};

enum readers_add {
	READERS_ADD_NONE,   /* another reader stays */
	READERS_ADD_WAKE,   /* a token was given: wake one parked thread */
	READERS_ADD_THREAD, /* start a new thread, or readers_no_thread() */
};

/* readers_init() - one thread (the caller) reading. */
void readers_init(struct readers *r, unsigned max_parked);

/*
 * readers_after_request() - a reader is done with a request: does it
 * read on? A spare one (another reader stays) parks, or leaves if it is
 * a helper (@may_leave) and max_parked others are parked already.
 */
enum readers_next readers_after_request(struct readers *r, bool may_leave);

/*
 * readers_woken() - a parked thread woke up. Return: true, it took a
 * token and reads; false, it sleeps again (no token), or the session
 * ended (@r->exit): it leaves without a token.
 */
bool readers_woken(struct readers *r);

/*
 * readers_wait_begin() - a reader starts a long wait: it stops reading.
 * If it was the last reader, the result says how to get another. Then
 * readers_wait_end() when the wait is over.
 */
enum readers_add readers_wait_begin(struct readers *r);

/*
 * readers_no_thread() - the thread READERS_ADD_THREAD asked for could
 * not be made: the waiting thread counts as the reader again, and its
 * readers_wait_end() must be given @counted false.
 */
void readers_no_thread(struct readers *r);

/* readers_wait_end() - the wait is over; @counted: no readers_no_thread()
   came between. */
void readers_wait_end(struct readers *r, bool counted);

/* readers_gone() - a leaving helper ended. */
void readers_gone(struct readers *r);

/* readers_end() - the session ended: every thread leaves. */
void readers_end(struct readers *r);

/* readers_ok() - does the invariant hold (or has the session ended)? */
bool readers_ok(const struct readers *r);

#endif
