/*
 * readers: the bookkeeping of who reads /dev/fuse. See readers.h for the
 * states and the invariant each function keeps.
 */
#include "readers.h"

void readers_init(struct readers *r, unsigned max_parked)
{
	*r = (struct readers){ .readers = 1,
			       .threads = 1,
			       .max_parked = max_parked };
}

enum readers_next readers_after_request(struct readers *r, bool may_leave)
{
	if (r->exit || r->readers <= 1)
		return READERS_READ; /* the last reader reads on */
	r->readers--; /* in this step, not when the thread gets there */
	if (may_leave && r->parked - r->tokens >= r->max_parked) {
		r->leaving++;
		return READERS_LEAVE;
	}
	r->parked++;
	return READERS_PARK;
}

bool readers_woken(struct readers *r)
{
	if (r->tokens) {
		r->tokens--; /* counted as a reader by whoever gave it */
		r->parked--;
		return true;
	}
	if (r->exit)
		r->parked--;
	return false;
}

enum readers_add readers_wait_begin(struct readers *r)
{
	r->readers--;
	r->waiting++;
	if (r->readers > 0 || r->exit)
		return READERS_ADD_NONE;
	r->readers++; /* the one we get now */
	if (r->parked > r->tokens) {
		r->tokens++;
		return READERS_ADD_WAKE;
	}
	r->threads++;
	return READERS_ADD_THREAD;
}

void readers_no_thread(struct readers *r)
{
	r->threads--;
	r->waiting--; /* the one that waits reads again after its wait */
}

void readers_wait_end(struct readers *r, bool counted)
{
	if (!counted)
		return;
	r->waiting--;
	r->readers++;
}

void readers_gone(struct readers *r)
{
	r->leaving--;
	r->threads--;
}

void readers_end(struct readers *r)
{
	r->exit = true;
}

bool readers_ok(const struct readers *r)
{
	if (r->exit)
		return true;
	return r->readers >= 1 && r->tokens <= r->parked &&
	       r->readers + r->waiting + (r->parked - r->tokens) + r->leaving ==
		   r->threads;
}
