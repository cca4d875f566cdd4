/*
 * lockorder - a run-time check of the daemon's lock order (fs/fs.h says
 * the order and why), for debug and sanitizer builds.
 *
 * Each lock of the order is named with its level once, where it is
 * initialised (lock_order_name()). In a build with the check (meson
 * option lock_check, on by default with -Db_sanitize), the golemfs binary
 * is linked with -Wl,--wrap for pthread_mutex_lock/unlock/destroy and
 * pthread_rwlock_rdlock/wrlock/unlock/destroy: each lock of a named lock
 * is checked against what the thread holds, and a lock taken while the
 * thread holds one at its own level or below it in the order aborts the
 * daemon with "golemfs: lock order violated: ..." (the integration
 * tests fail on that line). Locks not named (libraries', cmocka's) are
 * not checked. In other builds lock_order_name() is a no-op and nothing
 * is wrapped.
 *
 * The rule itself (struct lock_held) is pure, and unit-tested in every
 * build (tests/unit/test_lockorder.c).
 */
#ifndef GFS_LOCKORDER_H
#define GFS_LOCKORDER_H

/* The order of fs/fs.h: a lock may be taken holding only lower levels. */
enum lock_level {
	LOCK_GIT,       /* gfs.git_lock (gitguard.c) */
	LOCK_SHAPE,     /* gfs.shape_lock (links.c) */
	LOCK_STG_ZONE,  /* stg_zone.lock (staged.c) */
	LOCK_APPROVALS, /* approvals.lock (approve.c) */
	LOCK_TABLE,     /* gfs.lock (inode.c) */
	LOCK_LOOP,      /* gfs_loop.lock (loop.c) */
	LOCK_COMM,      /* comm_lock (record.c) */
	LOCK_NOTICE,    /* nt.lock (notice.c) */
	LOCK_AUDIT,     /* audit.lock (audit/) */
	LOCK_LEVELS
};

/* What one thread holds: how many locks of each level. */
struct lock_held {
	unsigned short n[LOCK_LEVELS];
};

/*
 * lock_held_take() - a thread holding @h takes a lock of @level.
 * Return: -1, allowed (and now counted in @h); else the level it holds
 * that forbids it (the same level, or one after it in the order), @h
 * unchanged.
 */
int lock_held_take(struct lock_held *h, enum lock_level level);
/* lock_held_drop() - it let go of a lock of @level. */
void lock_held_drop(struct lock_held *h, enum lock_level level);
/* lock_level_name() - e.g. "gfs.lock"; "?" out of range. */
const char *lock_level_name(int level);

#ifdef GFS_LOCK_CHECK
/* lock_order_name() - @lock (a mutex or rwlock) has @level. */
void lock_order_name(const void *lock, enum lock_level level);
/* For the wrappers (lockwrap.c): before taking @lock (aborts if the
   order forbids it), after letting it go, when it is destroyed. */
void lock_order_take(const void *lock);
void lock_order_drop(const void *lock);
void lock_order_forget(const void *lock);
#else
static inline void lock_order_name(const void *lock, enum lock_level level)
{
	(void)lock;
	(void)level;
}
#endif

#endif
