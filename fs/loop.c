/*
 * loop - how the daemon serves the kernel's requests.
 *
 * One thread reads a request from /dev/fuse, handles it and replies, then
 * reads the next: no hand-off between threads, which on this kind of
 * machine made every request 2-4x slower with libfuse's multithreaded
 * loop (docs/performance.md). A handler about to wait long (an approval,
 * an fsync) calls gfs_wait_begin(): a parked thread (or a new one) takes
 * over the reading, so one slow request never stalls the others. When the
 * wait is over, the extra reader parks itself again after its next
 * request. So there is always exactly one thread free to read, and as
 * many more as there are requests waiting.
 *
 * The first thread's gfs_loop() returns when the session ends; then the
 * caller unmounts (which ends the helpers' reads) and gfs_loop_join()
 * waits for the helpers, before the session is destroyed.
 *
 * A reader that finds no request waiting keeps asking for SPIN_NS before
 * it sleeps in poll(2): see receive().
 *
 * Counts, under lock: running (in the read loop, blocked ones included),
 * blocked (inside gfs_wait_begin/end), parked (on the wake condition),
 * helpers (threads we made, alive). Free readers = running - blocked.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>

#include "fs.h"

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
	pthread_mutex_t lock;
	pthread_cond_t wake, gone;
	unsigned running, blocked, parked, helpers, tokens;
	bool exit;
	bool nonblock; /* the device is O_NONBLOCK: spin, then poll */
	struct helper *ended; /* still to be joined (reap_ended()) */
};

static struct gfs_loop *loop_of(struct gfs *g)
{
	return g->loop;
}

/* Under lock: should this thread stop reading (a spare reader)? */
static bool spare(struct gfs_loop *l)
{
	return l->running - l->blocked > 1;
}

/*
 * Under lock. Return: true to read again; false to leave the loop - at
 * the end of the session, or a helper (@is_helper) when MAX_PARKED
 * others are parked. The first thread never leaves early: its return
 * ends the mount.
 */
static bool park(struct gfs *g, struct gfs_loop *l, bool is_helper)
{
	struct timespec until;

	if (l->parked >= MAX_PARKED && is_helper)
		return false; /* enough spares: a helper ends, never the first */
	l->running--;
	l->parked++;
	while (!l->tokens && !l->exit) {
		/* a signal may have ended the session while we slept */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&l->wake, &l->lock, &until);
		if (fuse_session_exited(g->se))
			l->exit = true;
	}
	l->parked--;
	if (l->exit) {
		l->running++; /* left by the caller's exit path */
		return false;
	}
	l->tokens--; /* running was counted by the waker */
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

/* Read and handle requests; @is_helper: a thread of ours (helper_main()). */
static void serve(struct gfs *g, bool is_helper)
{
	struct gfs_loop *l = loop_of(g);
	struct fuse_buf buf = { 0 };
	bool again = true;
	int res;

	while (again && !fuse_session_exited(g->se)) {
		res = receive(g, &buf);
		if (res == -EINTR)
			continue;
		if (res <= 0)
			break;
		fuse_session_process_buf(g->se, &buf);
		pthread_mutex_lock(&l->lock);
		if (spare(l))
			again = park(g, l, is_helper);
		pthread_mutex_unlock(&l->lock);
	}
	free(buf.mem);
	if (again) { /* the session ended: wake the parked */
		pthread_mutex_lock(&l->lock);
		l->exit = true;
		pthread_cond_broadcast(&l->wake);
		pthread_mutex_unlock(&l->lock);
	}
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct gfs *g = h->g;
	struct gfs_loop *l = loop_of(g);
	sigset_t set;

	/* signals that end the daemon go to the first thread */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	serve(g, true);
	pthread_mutex_lock(&l->lock);
	l->running--;
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

/* Under lock: one more reader - a parked one, else a new thread. */
static void add_reader(struct gfs *g, struct gfs_loop *l)
{
	struct helper *h;

	l->running++;
	if (l->parked > l->tokens) {
		l->tokens++;
		pthread_cond_signal(&l->wake);
		return;
	}
	reap_ended(l);
	h = calloc(1, sizeof(*h));
	if (h) {
		h->g = g;
		if (pthread_create(&h->thread, NULL, helper_main, h) == 0) {
			l->helpers++;
			return;
		}
		free(h);
	}
	l->running--; /* the others wait, slower */
}

void gfs_wait_begin(struct gfs *g)
{
	struct gfs_loop *l = loop_of(g);

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->blocked++;
	if (l->running - l->blocked == 0 && !l->exit)
		add_reader(g, l);
	pthread_mutex_unlock(&l->lock);
}

void gfs_wait_end(struct gfs *g)
{
	struct gfs_loop *l = loop_of(g);

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->blocked--;
	pthread_mutex_unlock(&l->lock);
}

int gfs_loop(struct gfs *g)
{
	struct gfs_loop *l = calloc(1, sizeof(*l));
	int fd = fuse_session_fd(g->se), fl;

	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	pthread_cond_init(&l->gone, NULL);
	l->running = 1;
	fl = fcntl(fd, F_GETFL);
	l->nonblock = fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
	g->loop = l;
	serve(g, false);
	pthread_mutex_lock(&l->lock);
	l->running--;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

void gfs_loop_join(struct gfs *g)
{
	struct gfs_loop *l = loop_of(g);

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->exit = true;
	pthread_cond_broadcast(&l->wake);
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
