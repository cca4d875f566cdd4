/*
 * loop - how the daemon serves the kernel's requests.
 *
 * One thread reads a request from /dev/fuse, handles it and replies, then
 * reads the next: no hand-off between threads, which on this kind of
 * machine made every request 2-4x slower with libfuse's multithreaded
 * loop (docs/performance.md). A handler about to wait long (an approval,
 * an fsync, room in a full audit queue) calls gfs_wait_begin(): a parked thread
 * (or a new one) takes over the reading, so one slow request never stalls the
 * others. When the wait is over, the extra reader parks itself again after its
 * next request. So there is always at least one thread free to read, and as
 * many more as there are requests waiting.
 *
 * That "always" is an invariant, kept by the bookkeeping in readers.c
 * and asserted under the lock after every change (builds without
 * NDEBUG): a thread stops counting as a reader in the same step in which
 * it decides to park, leave or wait, and only when another reader stays
 * or is made in that step. readers.h says it in full.
 *
 * The first thread's gfs_loop() returns when the session ends; then the
 * caller unmounts (which ends the helpers' reads) and gfs_loop_join()
 * waits for the helpers, before the session is destroyed.
 *
 * A reader that finds no request waiting keeps asking for SPIN_NS before
 * it sleeps in poll(2): see receive().
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>

#include "common/lockorder.h"
#include "loop.h"
#include "op.h"
#include "readers.h"

#define MAX_PARKED 4

/*
 * How long a reader keeps asking for the next request after a reply,
 * before it sleeps. A program working through a tree sends its next
 * request a few microseconds after our reply; caught while the reader is
 * still awake, it skips the wake-up of a sleeping thread, which on a
 * virtual machine costs as much as the rest of the round trip (measured:
 * stat, read and ls -lR 20-25 % faster, docs/performance-notes.md). The
 * price is at most this much CPU after a burst of requests.
 */
#define SPIN_NS 25000L

/* A thread we made; on the ended list once it leaves its loop. */
struct helper {
	struct gfs *g;
	pthread_t thread;
	struct helper *next;
};

struct gfs_loop {
	pthread_mutex_t lock; /* taken last: no other lock is taken under it */
	pthread_cond_t wake, gone;
	struct readers r;     /* under lock; its invariant: readers.h */
	unsigned helpers;     /* threads we made, alive; under lock */
	bool nonblock;        /* the device is O_NONBLOCK: spin, then poll */
	struct helper *ended; /* still to be joined (reap_ended()) */
};

/*
 * This thread's place in the loop: -1 not one of its threads (a control
 * or audit thread, or the loop not serving yet); else how many
 * gfs_wait_begin() calls it is inside. Only the outermost wait counts, and
 * only a thread of the loop can hand its reading over.
 */
static _Thread_local int wait_depth = -1;

static struct gfs_loop *loop_of(struct gfs *g)
{
	return g->loop;
}

/* Under lock, after every change of l->r: someone reads the device. */
static void check(const struct gfs_loop *l)
{
	assert(readers_ok(&l->r));
	(void)l;
}

/* Under lock: the session ended; wake the parked, so they leave. */
static void end_session(struct gfs_loop *l)
{
	readers_end(&l->r);
	pthread_cond_broadcast(&l->wake);
}

/*
 * Under lock, for a thread readers_after_request() told to park. Return:
 * true to read again (it was given a token); false at the end of the
 * session.
 */
static bool park(struct gfs *g, struct gfs_loop *l)
{
	struct timespec until;

	while (!readers_woken(&l->r)) {
		check(l);
		if (l->r.exit)
			return false;
		/* a signal may have ended the session while we slept */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&l->wake, &l->lock, &until);
		if (fuse_session_exited(g->se))
			end_session(l);
	}
	check(l);
	return true;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/*
 * The next request, as fuse_session_receive_buf(). With a non-blocking
 * device: ask again for SPIN_NS, then sleep in poll(2) - at most a second
 * at a time, so that a session ended by a signal is seen (-EINTR: the
 * caller checks and asks again).
 */
static int receive(struct gfs *g, struct fuse_buf *buf)
{
	struct pollfd p = { .fd = fuse_session_fd(g->se), .events = POLLIN };
	long until = 0;
	int res;

	if (!loop_of(g)->nonblock)
		return fuse_session_receive_buf(g->se, buf);
	for (;;) {
		res = fuse_session_receive_buf(g->se, buf);
		if (res != -EAGAIN)
			return res;
		if (!until) {
			until = now_ns() + SPIN_NS;
		} else if (now_ns() >= until) {
			res = poll(&p, 1, 1000);
			if (res < 0 && errno != EINTR)
				return -errno;
			if (res <= 0)
				return -EINTR;
			until = 0;
		}
	}
}

/*
 * Read and handle requests; @is_helper: a thread of ours (helper_main()).
 * Return: true when it left as a spare helper (readers_gone() is due),
 * false when the session ended.
 */
static bool serve(struct gfs *g, bool is_helper)
{
	struct gfs_loop *l = loop_of(g);
	struct fuse_buf buf = { 0 };
	enum readers_next next = READERS_READ;
	bool ended = false;
	int res;

	wait_depth = 0; /* a thread of the loop from now on */
	while (!ended && !fuse_session_exited(g->se)) {
		res = receive(g, &buf);
		if (res == -EINTR)
			continue;
		if (res <= 0)
			break;
		fuse_session_process_buf(g->se, &buf);
		assert(op_open() == 0); /* it recorded or discarded, once */
		pthread_mutex_lock(&l->lock);
		next = readers_after_request(&l->r, is_helper);
		check(l);
		if (next == READERS_PARK)
			ended = !park(g, l);
		pthread_mutex_unlock(&l->lock);
		if (next == READERS_LEAVE)
			break;
	}
	free(buf.mem);
	wait_depth = -1;
	if (next == READERS_LEAVE)
		return true;
	pthread_mutex_lock(&l->lock);
	end_session(l); /* the others leave too */
	pthread_mutex_unlock(&l->lock);
	return false;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct gfs *g = h->g;
	struct gfs_loop *l = loop_of(g);
	sigset_t set;
	bool spare;

	/* signals that end the daemon go to the first thread */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	spare = serve(g, true);
	pthread_mutex_lock(&l->lock);
	if (spare)
		readers_gone(&l->r);
	check(l);
	l->helpers--;
	h->next = l->ended;
	l->ended = h;
	pthread_cond_broadcast(&l->gone);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/*
 * Under lock: join the helpers that left their loop. Joined, not
 * detached: a thread's exit runs libfuse's destructor of its splice pipe,
 * which must happen before the session (and its key) is destroyed.
 */
static void reap_ended(struct gfs_loop *l)
{
	struct helper *h;

	while ((h = l->ended)) {
		l->ended = h->next;
		pthread_join(h->thread, NULL); /* it holds no lock any more */
		free(h);
	}
}

/* Under lock: start a helper. Return: false, it could not be made. */
static bool start_helper(struct gfs *g, struct gfs_loop *l)
{
	struct helper *h;

	reap_ended(l);
	h = calloc(1, sizeof(*h));
	if (!h)
		return false;
	h->g = g;
	if (pthread_create(&h->thread, NULL, helper_main, h) != 0) {
		free(h);
		return false;
	}
	l->helpers++;
	return true;
}

bool gfs_wait_begin(struct gfs *g)
{
	struct gfs_loop *l = loop_of(g);
	bool counted = true;

	if (!l || wait_depth < 0 || wait_depth++ > 0)
		return false;
	pthread_mutex_lock(&l->lock);
	switch (readers_wait_begin(&l->r)) {
	case READERS_ADD_NONE:
		break;
	case READERS_ADD_WAKE:
		pthread_cond_signal(&l->wake);
		break;
	case READERS_ADD_THREAD:
		if (!start_helper(g, l)) {
			/* we read again after the wait: the others wait */
			readers_no_thread(&l->r);
			counted = false;
		}
		break;
	}
	check(l);
	pthread_mutex_unlock(&l->lock);
	return counted;
}

void gfs_wait_end(struct gfs *g, bool counted)
{
	struct gfs_loop *l = loop_of(g);

	if (!l || wait_depth < 0 || --wait_depth > 0)
		return;
	pthread_mutex_lock(&l->lock);
	readers_wait_end(&l->r, counted);
	check(l);
	pthread_mutex_unlock(&l->lock);
}

int gfs_loop(struct gfs *g)
{
	struct gfs_loop *l = calloc(1, sizeof(*l));
	int fd = fuse_session_fd(g->se), fl;

	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	lock_order_name(&l->lock, LOCK_LOOP);
	pthread_cond_init(&l->wake, NULL);
	pthread_cond_init(&l->gone, NULL);
	readers_init(&l->r, MAX_PARKED);
	fl = fcntl(fd, F_GETFL);
	l->nonblock = fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
	g->loop = l;
	serve(g, false); /* the first thread never leaves as a spare */
	return 0;
}

void gfs_loop_join(struct gfs *g)
{
	struct gfs_loop *l = loop_of(g);

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	end_session(l);
	while (l->helpers > 0)
		pthread_cond_wait(&l->gone, &l->lock);
	reap_ended(l);
	pthread_mutex_unlock(&l->lock);
	pthread_cond_destroy(&l->wake);
	pthread_cond_destroy(&l->gone);
	pthread_mutex_destroy(&l->lock);
	free(l);
	g->loop = NULL;
}
