/*
 * The lock-order check (common/lockorder.h): the rule, and in builds with
 * the check (-Dlock_check, or -Db_sanitize) that a lock taken out of
 * order aborts with the message the integration tests look for.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/lockorder.h"

static void test_lockorder_allows_the_order_of_fs_h(void **s)
{
	struct lock_held h = { 0 };

	(void)s;
	/* a rename: git_lock -> shape_lock -> gfs.lock */
	assert_int_equal(lock_held_take(&h, LOCK_GIT), -1);
	assert_int_equal(lock_held_take(&h, LOCK_SHAPE), -1);
	assert_int_equal(lock_held_take(&h, LOCK_TABLE), -1);
	lock_held_drop(&h, LOCK_TABLE);
	lock_held_drop(&h, LOCK_SHAPE);
	lock_held_drop(&h, LOCK_GIT);
	/* a question names its command: approvals.lock -> comm_lock */
	assert_int_equal(lock_held_take(&h, LOCK_APPROVALS), -1);
	assert_int_equal(lock_held_take(&h, LOCK_COMM), -1);
	lock_held_drop(&h, LOCK_COMM);
	lock_held_drop(&h, LOCK_APPROVALS);
	/* nothing held: anything */
	assert_int_equal(lock_held_take(&h, LOCK_GIT), -1);
}

static void test_lockorder_refuses_a_lock_above_one_held(void **s)
{
	struct lock_held h = { 0 };

	(void)s;
	assert_int_equal(lock_held_take(&h, LOCK_TABLE), -1);
	assert_int_equal(lock_held_take(&h, LOCK_APPROVALS), LOCK_TABLE);
	assert_int_equal(lock_held_take(&h, LOCK_GIT), LOCK_TABLE);
	/* refused takes are not counted */
	lock_held_drop(&h, LOCK_TABLE);
	assert_int_equal(lock_held_take(&h, LOCK_GIT), -1);
	/* the audit lock is last: nothing under it */
	assert_int_equal(lock_held_take(&h, LOCK_AUDIT), -1);
	assert_int_equal(lock_held_take(&h, LOCK_NOTICE), LOCK_AUDIT);
	assert_int_equal(lock_held_take(&h, LOCK_LOOP), LOCK_AUDIT);
}

static void test_lockorder_refuses_two_of_one_level(void **s)
{
	struct lock_held h = { 0 };

	(void)s;
	/* two staged zones' locks have no order between them */
	assert_int_equal(lock_held_take(&h, LOCK_STG_ZONE), -1);
	assert_int_equal(lock_held_take(&h, LOCK_STG_ZONE), LOCK_STG_ZONE);
	assert_string_equal(lock_level_name(LOCK_STG_ZONE), "stg_zone.lock");
	assert_string_equal(lock_level_name(LOCK_LEVELS), "?");
}

#ifdef GFS_LOCK_CHECK
/* Run @fn in a child; its stderr. Return: its wait status. */
static int in_child(void (*fn)(void), char *err, size_t len)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 2);
		fn();
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], err, len - 1);
	err[n > 0 ? n : 0] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static pthread_mutex_t table = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t approvals = PTHREAD_MUTEX_INITIALIZER;

static void in_order(void)
{
	pthread_mutex_lock(&approvals);
	pthread_mutex_lock(&table);
	pthread_mutex_unlock(&table);
	pthread_mutex_unlock(&approvals);
	/* let go of: may be taken again, in any order */
	pthread_mutex_lock(&table);
	pthread_mutex_unlock(&table);
}

static void out_of_order(void)
{
	pthread_mutex_lock(&table);
	pthread_mutex_lock(&approvals);
}

static void test_lockorder_wrapped_locks_abort_out_of_order(void **s)
{
	char err[512];
	int st;

	(void)s;
	lock_order_name(&table, LOCK_TABLE);
	lock_order_name(&approvals, LOCK_APPROVALS);
	st = in_child(in_order, err, sizeof(err));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = in_child(out_of_order, err, sizeof(err));
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	assert_non_null(strstr(err, "lock order violated: approvals.lock "
				    "taken while holding gfs.lock"));
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockorder_allows_the_order_of_fs_h),
		cmocka_unit_test(test_lockorder_refuses_a_lock_above_one_held),
		cmocka_unit_test(test_lockorder_refuses_two_of_one_level),
#ifdef GFS_LOCK_CHECK
		cmocka_unit_test(
		    test_lockorder_wrapped_locks_abort_out_of_order),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
