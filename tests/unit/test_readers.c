/*
 * The request loop's bookkeeping (fs/readers.c): someone always reads
 * /dev/fuse. Besides scenarios, a model check: a few threads, each a
 * small state machine driving the real functions, in every interleaving
 * (every reachable state is visited once); after each step the counts
 * must match what the threads really do, and some thread must be about
 * to read the device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fs/readers.h"

/* ---- scenarios ---- */

static void test_readers_first_thread_reads_alone(void **state)
{
	struct readers r;

	(void)state;
	readers_init(&r, 4);
	assert_true(readers_ok(&r));
	assert_int_equal(readers_after_request(&r, false), READERS_READ);
	assert_int_equal(r.readers, 1);
}

static void test_readers_wait_of_the_last_reader_makes_a_thread(void **state)
{
	struct readers r;

	(void)state;
	readers_init(&r, 4);
	assert_int_equal(readers_wait_begin(&r), READERS_ADD_THREAD);
	assert_int_equal(r.readers, 1); /* the new one */
	assert_true(readers_ok(&r));
	readers_wait_end(&r, true);
	assert_int_equal(r.readers, 2);
	/* the first of the two that finishes a request is spare */
	assert_int_equal(readers_after_request(&r, true), READERS_PARK);
	assert_int_equal(readers_after_request(&r, false), READERS_READ);
	assert_true(readers_ok(&r));
}

static void test_readers_wait_wakes_a_parked_thread(void **state)
{
	struct readers r;

	(void)state;
	readers_init(&r, 4);
	readers_wait_begin(&r);
	readers_wait_end(&r, true);
	readers_after_request(&r, true); /* parks */
	assert_int_equal(readers_wait_begin(&r), READERS_ADD_WAKE);
	assert_true(readers_ok(&r));
	assert_true(readers_woken(&r));
	assert_false(readers_woken(&r)); /* one token, one thread */
	assert_true(readers_ok(&r));
}

/*
 * The deadlock of issue 17: a helper that decides to leave must stop
 * counting as a reader at once, or the last real reader parks counting
 * on it.
 */
static void test_readers_leaving_helper_no_longer_counts(void **state)
{
	struct readers r;

	(void)state;
	readers_init(&r, 1);
	/* first thread waits; helper A reads; A waits; helper B reads */
	assert_int_equal(readers_wait_begin(&r), READERS_ADD_THREAD);
	assert_int_equal(readers_wait_begin(&r), READERS_ADD_THREAD);
	readers_wait_end(&r, true); /* A's wait ends: readers A, B */
	assert_int_equal(readers_after_request(&r, true), READERS_PARK); /* A */
	readers_wait_end(&r, true); /* first: readers first, B */
	assert_int_equal(readers_after_request(&r, true),
			 READERS_LEAVE); /* B */
	/* the first thread is now the only reader: it must read on */
	assert_int_equal(readers_after_request(&r, false), READERS_READ);
	assert_true(readers_ok(&r));
	readers_gone(&r);
	assert_true(readers_ok(&r));
	assert_int_equal(r.readers, 1);
}

static void test_readers_failed_thread_keeps_the_waiter_reading(void **state)
{
	struct readers r;

	(void)state;
	readers_init(&r, 4);
	assert_int_equal(readers_wait_begin(&r), READERS_ADD_THREAD);
	readers_no_thread(&r);
	assert_true(readers_ok(&r));
	assert_int_equal(r.readers, 1);
	readers_wait_end(&r, false);
	assert_true(readers_ok(&r));
	assert_int_equal(r.readers, 1);
}

static void test_readers_end_lets_the_parked_leave(void **state)
{
	struct readers r;

	(void)state;
	readers_init(&r, 4);
	readers_wait_begin(&r);
	readers_wait_end(&r, true);
	readers_after_request(&r, true); /* parks */
	readers_end(&r);
	assert_false(readers_woken(&r));
	assert_int_equal(r.parked, 0);
	assert_int_equal(readers_after_request(&r, true), READERS_READ);
}

/* ---- model check ---- */

enum tstate {
	T_NONE, /* not started (or gone: the slot may be reused) */
	T_READER,
	T_WAITING,
	T_WAITING_UNCOUNTED,
	T_PARKED,
	T_LEAVING,
};

#define NT 5 /* threads, the first included */

struct world {
	struct readers r;
	unsigned char t[NT];
};

/* A visited set of worlds, by a key of their fields (no padding). */
#define SET_BITS 20
#define KEY_SIZE (7 + NT)
static unsigned char (*seen)[KEY_SIZE];
static unsigned char *used;
static size_t nseen;

static void key_of(const struct world *w, unsigned char *k)
{
	unsigned i;

	k[0] = (unsigned char)w->r.readers;
	k[1] = (unsigned char)w->r.waiting;
	k[2] = (unsigned char)w->r.parked;
	k[3] = (unsigned char)w->r.tokens;
	k[4] = (unsigned char)w->r.leaving;
	k[5] = (unsigned char)w->r.threads;
	k[6] = (unsigned char)(w->r.max_parked | (w->r.exit << 7));
	for (i = 0; i < NT; i++)
		k[7 + i] = w->t[i];
}

/* Return: true if @w was new (and is now remembered). */
static bool visit(const struct world *w)
{
	size_t mask = ((size_t)1 << SET_BITS) - 1, i;
	unsigned char k[KEY_SIZE];
	uint64_t h = 0xcbf29ce484222325ull;

	key_of(w, k);
	for (i = 0; i < KEY_SIZE; i++)
		h = (h ^ k[i]) * 0x100000001b3ull;
	for (i = h & mask; used[i]; i = (i + 1) & mask)
		if (!memcmp(seen[i], k, KEY_SIZE))
			return false;
	assert_true(nseen < mask / 2);
	used[i] = 1;
	memcpy(seen[i], k, KEY_SIZE);
	nseen++;
	return true;
}

/* The counts agree with the threads, and someone reads (or will). */
static void check_world(const struct world *w)
{
	unsigned n[T_LEAVING + 1] = { 0 }, i;

	assert_true(readers_ok(&w->r));
	for (i = 0; i < NT; i++)
		n[w->t[i]]++;
	/* a waiter no thread could be made for still counts as reader */
	assert_int_equal(w->r.readers,
			 n[T_READER] + n[T_WAITING_UNCOUNTED] + w->r.tokens);
	assert_int_equal(w->r.waiting, n[T_WAITING]);
	assert_int_equal(w->r.parked, n[T_PARKED]);
	assert_int_equal(w->r.leaving, n[T_LEAVING]);
	assert_int_equal(w->r.threads, NT - n[T_NONE]);
	/* the liveness that matters: a thread that will read by itself
	   (after its own wait, when no thread could be made for it) */
	assert_true(n[T_READER] >= 1 || n[T_WAITING_UNCOUNTED] >= 1 ||
		    (w->r.tokens >= 1 && n[T_PARKED] >= 1));
	assert_int_equal(w->t[0] == T_NONE || w->t[0] == T_LEAVING, 0);
}

static void explore(const struct world *w, size_t *steps);

static void step(struct world *w, size_t *steps)
{
	(*steps)++;
	check_world(w);
	if (visit(w))
		explore(w, steps);
}

static int free_slot(const struct world *w)
{
	int i;

	for (i = 1; i < NT; i++)
		if (w->t[i] == T_NONE)
			return i;
	return -1;
}

/* Every action any thread can take next. */
static void explore(const struct world *w, size_t *steps)
{
	struct world n;
	int i, slot;

	for (i = 0; i < NT; i++) {
		switch (w->t[i]) {
		case T_READER:
			n = *w;
			switch (readers_after_request(&n.r, i != 0)) {
			case READERS_READ:
				break;
			case READERS_PARK:
				n.t[i] = T_PARKED;
				break;
			case READERS_LEAVE:
				n.t[i] = T_LEAVING;
				break;
			}
			step(&n, steps);
			n = *w;
			n.t[i] = T_WAITING;
			if (readers_wait_begin(&n.r) == READERS_ADD_THREAD) {
				struct world f = n;

				/* the thread cannot be made */
				readers_no_thread(&f.r);
				f.t[i] = T_WAITING_UNCOUNTED;
				step(&f, steps);
				slot = free_slot(&n);
				if (slot < 0)
					break;
				n.t[slot] = T_READER;
			}
			step(&n, steps);
			break;
		case T_WAITING:
		case T_WAITING_UNCOUNTED:
			n = *w;
			readers_wait_end(&n.r, w->t[i] == T_WAITING);
			n.t[i] = T_READER;
			step(&n, steps);
			break;
		case T_PARKED:
			n = *w;
			if (readers_woken(&n.r)) {
				n.t[i] = T_READER;
				step(&n, steps);
			}
			break;
		case T_LEAVING:
			n = *w;
			readers_gone(&n.r);
			n.t[i] = T_NONE;
			step(&n, steps);
			break;
		case T_NONE:
			break;
		}
	}
}

static void model_check(unsigned max_parked)
{
	struct world w;
	size_t steps = 0;

	seen = calloc((size_t)1 << SET_BITS, KEY_SIZE);
	used = calloc((size_t)1 << SET_BITS, 1);
	assert_non_null(seen);
	assert_non_null(used);
	nseen = 0;
	memset(&w, 0, sizeof(w));
	readers_init(&w.r, max_parked);
	w.t[0] = T_READER;
	check_world(&w);
	visit(&w);
	explore(&w, &steps);
	/* enough of the space was seen to mean something */
	assert_true(nseen > 100);
	free(seen);
	free(used);
}

static void test_readers_every_interleaving_keeps_a_reader(void **state)
{
	unsigned max_parked;

	(void)state;
	for (max_parked = 1; max_parked <= NT; max_parked++)
		model_check(max_parked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readers_first_thread_reads_alone),
		cmocka_unit_test(
		    test_readers_wait_of_the_last_reader_makes_a_thread),
		cmocka_unit_test(test_readers_wait_wakes_a_parked_thread),
		cmocka_unit_test(test_readers_leaving_helper_no_longer_counts),
		cmocka_unit_test(
		    test_readers_failed_thread_keeps_the_waiter_reading),
		cmocka_unit_test(test_readers_end_lets_the_parked_leave),
		cmocka_unit_test(
		    test_readers_every_interleaving_keeps_a_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
