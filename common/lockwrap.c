/*
 * The pthread wrappers of the lock-order check: linked, with
 * -Wl,--wrap=NAME for each, only into the golemfs binary (and its unit
 * test) of a GFS_LOCK_CHECK build (meson.build: lock_check_link and
 * lock_check_src). See lockorder.h.
 */
#include <pthread.h>

#include "lockorder.h"

/* The wrappers -Wl,--wrap=NAME links in place of NAME (meson.build). */
int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __real_pthread_mutex_unlock(pthread_mutex_t *m);
int __real_pthread_mutex_destroy(pthread_mutex_t *m);
int __real_pthread_rwlock_rdlock(pthread_rwlock_t *l);
int __real_pthread_rwlock_wrlock(pthread_rwlock_t *l);
int __real_pthread_rwlock_unlock(pthread_rwlock_t *l);
int __real_pthread_rwlock_destroy(pthread_rwlock_t *l);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *m);
int __wrap_pthread_mutex_destroy(pthread_mutex_t *m);
int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t *l);
int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t *l);
int __wrap_pthread_rwlock_unlock(pthread_rwlock_t *l);
int __wrap_pthread_rwlock_destroy(pthread_rwlock_t *l);

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
	lock_order_take(m);
	return __real_pthread_mutex_lock(m);
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
	lock_order_drop(m);
	return __real_pthread_mutex_unlock(m);
}

int __wrap_pthread_mutex_destroy(pthread_mutex_t *m)
{
	lock_order_forget(m);
	return __real_pthread_mutex_destroy(m);
}

int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	lock_order_take(l);
	return __real_pthread_rwlock_rdlock(l);
}

int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	lock_order_take(l);
	return __real_pthread_rwlock_wrlock(l);
}

int __wrap_pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	lock_order_drop(l);
	return __real_pthread_rwlock_unlock(l);
}

int __wrap_pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	lock_order_forget(l);
	return __real_pthread_rwlock_destroy(l);
}
