/*
 * Unit tests of the small helpers in common/ that several modules share:
 * gfs_mkdir_p (gfs_dir.h) and struct gfs_strv (gfs_strv.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/gfs_dir.h"
#include "common/gfs_strv.h"

/* ---- gfs_mkdir_p ---- */

static char tmp[] = "/tmp/gfs-test-common-XXXXXX";

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int tmp_make(void **state)
{
	(void)state;
	strcpy(tmp + strlen(tmp) - 6, "XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int tmp_remove(void **state)
{
	(void)state;
	return nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* @rel under the temp dir, in a static buffer. */
static const char *at(const char *rel)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", tmp, rel);
	return buf;
}

static bool is_dir(const char *rel)
{
	struct stat st;

	return stat(at(rel), &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_mkdir_p_makes_parents(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(gfs_mkdir_p(at("a/b/c"), 0700), 0);
	assert_true(is_dir("a") && is_dir("a/b") && is_dir("a/b/c"));
	assert_int_equal(stat(at("a/b"), &st), 0);
	assert_int_equal(st.st_mode & 0077, 0);
	/* again: what exists is fine, with a trailing slash too */
	assert_int_equal(gfs_mkdir_p(at("a/b/c"), 0700), 0);
	assert_int_equal(gfs_mkdir_p(at("a/b/d/"), 0700), 0);
	assert_true(is_dir("a/b/d"));
	assert_int_equal(gfs_mkdir_p(at("a//e"), 0700), 0);
	assert_true(is_dir("a/e"));
	assert_int_equal(gfs_mkdir_p("/", 0700), 0);
}

static void test_mkdir_p_errors(void **state)
{
	int fd;

	(void)state;
	fd = open(at("file"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* a file in the way: the first mkdir beneath it fails */
	assert_int_equal(gfs_mkdir_p(at("file/x/y"), 0700), -ENOTDIR);
	assert_false(is_dir("file/x"));
	/* a file at the end is left for the opener to find */
	assert_int_equal(gfs_mkdir_p(at("file"), 0700), 0);
	assert_int_equal(gfs_mkdir_p("", 0700), -ENOENT);
}

/* ---- gfs_strv ---- */

static void test_strv_push(void **state)
{
	struct gfs_strv sv = { 0 };
	char name[16], orig[] = "orig";
	size_t i;

	(void)state;
	assert_null(sv.v);
	assert_int_equal(gfs_strv_push(&sv, orig), 0);
	orig[0] = 'X'; /* a copy was kept */
	assert_string_equal(sv.v[0], "orig");
	assert_null(sv.v[1]);
	/* past several growths: in order, NULL-terminated all along */
	for (i = 1; i < 100; i++) {
		snprintf(name, sizeof(name), "s%zu", i);
		assert_int_equal(gfs_strv_push(&sv, name), 0);
		assert_int_equal(sv.n, i + 1);
		assert_null(sv.v[sv.n]);
		assert_true(sv.cap >= sv.n + 1);
	}
	assert_string_equal(sv.v[42], "s42");
	assert_string_equal(sv.v[99], "s99");
	gfs_strv_release(&sv);
	assert_null(sv.v);
	assert_int_equal(sv.n, 0);
	assert_int_equal(sv.cap, 0);
	/* empty again, and usable */
	assert_int_equal(gfs_strv_push(&sv, "again"), 0);
	assert_string_equal(sv.v[0], "again");
	gfs_strv_release(&sv);
	gfs_strv_release(&sv); /* twice is fine */
}

static void test_strv_take_remove(void **state)
{
	struct gfs_strv sv = { 0 };
	char *s = strdup("owned");

	(void)state;
	assert_non_null(s);
	assert_int_equal(gfs_strv_take(&sv, s), 0);
	assert_ptr_equal(sv.v[0], s); /* not copied */
	assert_int_equal(gfs_strv_take(&sv, NULL), -ENOMEM);
	assert_int_equal(sv.n, 1);
	assert_int_equal(gfs_strv_push(&sv, "b"), 0);
	assert_int_equal(gfs_strv_push(&sv, "c"), 0);
	/* the last takes the place of the removed one */
	gfs_strv_remove(&sv, 0);
	assert_int_equal(sv.n, 2);
	assert_string_equal(sv.v[0], "c");
	assert_string_equal(sv.v[1], "b");
	assert_null(sv.v[2]);
	gfs_strv_remove(&sv, 1);
	gfs_strv_remove(&sv, 0);
	assert_int_equal(sv.n, 0);
	assert_null(sv.v[0]);
	gfs_strv_release(&sv);
}

static void test_strv_free(void **state)
{
	char **v = calloc(3, sizeof(*v));

	(void)state;
	assert_non_null(v);
	v[0] = strdup("a");
	v[1] = strdup("b");
	gfs_strv_free(v); /* the sanitizer build finds a leak */
	gfs_strv_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_p_makes_parents,
						tmp_make, tmp_remove),
		cmocka_unit_test_setup_teardown(test_mkdir_p_errors, tmp_make,
						tmp_remove),
		cmocka_unit_test(test_strv_push),
		cmocka_unit_test(test_strv_take_remove),
		cmocka_unit_test(test_strv_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
