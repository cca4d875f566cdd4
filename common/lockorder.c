/*
 * The lock-order check: the rule, and (GFS_LOCK_CHECK builds) the table
 * of named locks and what each thread holds, for the pthread wrappers of
 * lockwrap.c. See lockorder.h.
 */
#include "lockorder.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const level_names[LOCK_LEVELS] = {
	[LOCK_GIT] = "gfs.git_lock",       [LOCK_SHAPE] = "gfs.shape_lock",
	[LOCK_STG_ZONE] = "stg_zone.lock", [LOCK_APPROVALS] = "approvals.lock",
	[LOCK_TABLE] = "gfs.lock",         [LOCK_LOOP] = "gfs_loop.lock",
	[LOCK_COMM] = "comm_lock",         [LOCK_NOTICE] = "nt.lock",
	[LOCK_AUDIT] = "audit.lock",
};

const char *lock_level_name(int level)
{
	return level >= 0 && level < LOCK_LEVELS ? level_names[level] : "?";
}

int lock_held_take(struct lock_held *h, enum lock_level level)
{
	int l;

	for (l = LOCK_LEVELS - 1; l >= (int)level; l--)
		if (h->n[l])
			return l;
	h->n[level]++;
	return -1;
}

void lock_held_drop(struct lock_held *h, enum lock_level level)
{
	if (h->n[level])
		h->n[level]--;
}

#ifdef GFS_LOCK_CHECK
/*
 * The named locks: a small table of addresses, written when a lock is
 * initialised or destroyed and read at every lock and unlock. A slot is
 * claimed first, and its address published after its level.
 */
#define NAMED_MAX 256

static struct {
	const void *lock; /* atomic; NULL: free */
	enum lock_level level;
} named[NAMED_MAX];

static _Thread_local struct lock_held held;

/* A slot being filled: matches no lock. */
static const char claimed;

void lock_order_name(const void *lock, enum lock_level level)
{
	const void *none;
	size_t i;

	for (i = 0; i < NAMED_MAX; i++) {
		none = NULL;
		if (!__atomic_compare_exchange_n(
			&named[i].lock, &none, (const void *)&claimed, false,
			__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		named[i].level = level;
		__atomic_store_n(&named[i].lock, lock, __ATOMIC_RELEASE);
		return;
	}
	/* more than NAMED_MAX locks alive: the rest go unchecked */
}

/* The level of @lock, or -1 when it is not named. */
static int level_of(const void *lock)
{
	size_t i;

	for (i = 0; i < NAMED_MAX; i++)
		if (__atomic_load_n(&named[i].lock, __ATOMIC_ACQUIRE) == lock)
			return (int)named[i].level;
	return -1;
}

void lock_order_forget(const void *lock)
{
	size_t i;

	for (i = 0; i < NAMED_MAX; i++)
		if (__atomic_load_n(&named[i].lock, __ATOMIC_ACQUIRE) == lock)
			__atomic_store_n(&named[i].lock, NULL,
					 __ATOMIC_RELEASE);
}

void lock_order_take(const void *lock)
{
	int level = level_of(lock), bad;

	if (level < 0)
		return;
	bad = lock_held_take(&held, (enum lock_level)level);
	if (bad < 0)
		return;
	fprintf(stderr,
		"golemfs: lock order violated: %s taken while holding %s "
		"(the order is in fs/fs.h)\n",
		lock_level_name(level), lock_level_name(bad));
	abort();
}

void lock_order_drop(const void *lock)
{
	int level = level_of(lock);

	if (level >= 0)
		lock_held_drop(&held, (enum lock_level)level);
}
#endif
