/*
 * Unit tests of the symlinks: inside rule (policy/symlink.c): a target may
 * go up only before its first name, at most as many levels as the link's
 * directory lies below the zone's top; an absolute target must name the
 * zone's backing directory on the host.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "policy/policy.h"

#define TOP "/home/u/proj/ws"

static int check(const char *target, size_t depth)
{
	struct gfs_err err = { 0 };

	return policy_link_check(target, depth, TOP, &err);
}

static void test_link_down_is_safe_at_the_top(void **s)
{
	(void)s;
	assert_int_equal(check("a/b/c", 0), 0);
	assert_int_equal(check(".", 0), 0);
	assert_int_equal(check("./a//b/", 0), 0);
}

static void test_link_up_needs_as_much_depth(void **s)
{
	(void)s;
	assert_int_equal(check("../x", 1), 0);
	assert_int_equal(check("../x", 0), -EACCES);
	assert_int_equal(check("../../x/y", 2), 0);
	assert_int_equal(check("../../x/y", 1), -EACCES);
	assert_int_equal(check("..", 1), 0);
	assert_int_equal(check("./../.", 0), -EACCES);
}

static void test_link_dotdot_after_a_name_is_refused(void **s)
{
	(void)s;
	/* "s -> ." then "s/s/../../x": the host climbs from where s leads */
	assert_int_equal(check("s/s/../../x", 5), -EACCES);
	/* "up -> .." then "up/../OUTSIDE/canary" */
	assert_int_equal(check("up/../OUTSIDE/canary", 9), -EACCES);
	assert_int_equal(check("a/..", 3), -EACCES);
	assert_int_equal(check("../a/../b", 3), -EACCES);
}

static void test_link_need_counts_leading_ups(void **s)
{
	struct gfs_err err = { 0 };
	size_t need = 99;

	(void)s;
	assert_int_equal(policy_link_need(&need, "../../a", TOP, &err), 0);
	assert_int_equal(need, 2);
	assert_int_equal(policy_link_need(&need, "a", TOP, &err), 0);
	assert_int_equal(need, 0);
	need = 7;
	assert_int_equal(policy_link_need(&need, "a/../b", TOP, &err), -EACCES);
	assert_int_equal(need, 7); /* untouched on failure */
	assert_non_null(strstr(err.msg, "a/../b"));
}

static void test_link_absolute_only_under_host_top(void **s)
{
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(check(TOP "/a/b", 0), 0);
	assert_int_equal(check(TOP, 0), 0);
	assert_int_equal(check(TOP "/", 0), 0);
	assert_int_equal(check("/etc/passwd", 3), -EACCES);
	assert_int_equal(check(TOP "x/a", 0), -EACCES); /* a sibling */
	assert_int_equal(check(TOP "/../ws2", 0), -EACCES);
	assert_int_equal(check(TOP "/a/../../b", 0), -EACCES);
	/* the program's view of the zone is not a host path */
	assert_int_equal(check("/ws/a", 1), -EACCES);
	assert_int_equal(policy_link_check("/x", 0, NULL, &err), -EACCES);
	assert_non_null(strstr(err.msg, "absolute"));
}

static void test_link_absolute_when_zone_is_host_root(void **s)
{
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(policy_link_check("/etc/x", 0, "/", &err), 0);
	assert_int_equal(policy_link_check("/../etc", 0, "/", &err), -EACCES);
}

static void test_link_refusal_names_target_and_depth(void **s)
{
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(policy_link_check("../../o", 1, TOP, &err), -EACCES);
	assert_non_null(strstr(err.msg, "'../../o'"));
	assert_non_null(strstr(err.msg, "leads out of the zone"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_down_is_safe_at_the_top),
		cmocka_unit_test(test_link_up_needs_as_much_depth),
		cmocka_unit_test(test_link_dotdot_after_a_name_is_refused),
		cmocka_unit_test(test_link_need_counts_leading_ups),
		cmocka_unit_test(test_link_absolute_only_under_host_top),
		cmocka_unit_test(test_link_absolute_when_zone_is_host_root),
		cmocka_unit_test(test_link_refusal_names_target_and_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
