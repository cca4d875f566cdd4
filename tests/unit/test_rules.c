/*
 * Unit tests of the rules fs/ asks besides policy_decide() (policy/rules.c):
 * each rule's allow and refuse cases, its errno, and the reason text the
 * program reads (the integration tests and the audit rows expect exactly
 * these words).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "policy/policy.h"

static struct policy *load(const char *yaml)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	int rc = policy_parse(&p, yaml, strlen(yaml), "t.yaml", "/proj", &err);

	if (rc != 0)
		fail_msg("policy_parse: %s", err.msg);
	return p;
}

/* ---- the size limit ---- */

static void test_size_limit_allows_up_to_max_file_bytes(void **s)
{
	char vpath[] = "/out";
	struct policy_zone z = { .vpath = vpath, .max_file_bytes = 100 };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_size(&z, 0, &why), 0);
	assert_int_equal(policy_check_size(&z, 100, &why), 0);
	assert_int_equal(why.code, 0);
	z.max_file_bytes = 0; /* no limit */
	assert_int_equal(policy_check_size(&z, UINT64_MAX, &why), 0);
}

static void test_size_limit_refuses_one_byte_more_with_efbig(void **s)
{
	char vpath[] = "/out";
	struct policy_zone z = { .vpath = vpath, .max_file_bytes = 100 };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_size(&z, 101, NULL), -EFBIG);
	assert_int_equal(policy_check_size(&z, 101, &why), -EFBIG);
	assert_string_equal(why.msg, "/out takes files of at most 100 bytes");
}

/* policy_decide() words the same limit the same way: one text. */
static void test_size_limit_decide_and_write_time_agree(void **s)
{
	struct policy *p = load("sandbox:\n"
				"  zones:\n"
				"    o: { path: ./o, mode: rw, "
				"max_file_bytes: 10 }\n");
	struct policy_req r = {
		.op = POP_WRITE, .trust = TRUST_FULL, .path = "f", .size = 11
	};
	struct gfs_err a = { 0 }, b = { 0 };

	(void)s;
	r.zone = policy_find_zone(p, "o");
	assert_int_equal(policy_decide(p, &r, &a), -EFBIG);
	assert_int_equal(policy_check_size(r.zone, 11, &b), -EFBIG);
	assert_string_equal(a.msg, b.msg);
	r.op = POP_CREATE;
	assert_int_equal(policy_decide(p, &r, NULL), -EFBIG);
	r.size = 10;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	policy_free(p);
}

/* ---- device nodes ---- */

static void test_mknod_allows_fifos_sockets_and_files(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_mknod(S_IFIFO | 0644, &why), 0);
	assert_int_equal(policy_check_mknod(S_IFSOCK | 0755, &why), 0);
	assert_int_equal(policy_check_mknod(S_IFREG | 0600, &why), 0);
	assert_int_equal(why.code, 0);
}

static void test_mknod_refuses_devices_with_eperm(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_mknod(S_IFCHR | 0666, &why), -EPERM);
	assert_string_equal(why.msg, "device nodes cannot be created");
	memset(&why, 0, sizeof(why));
	assert_int_equal(policy_check_mknod(S_IFBLK | 0600, &why), -EPERM);
	assert_string_equal(why.msg, "device nodes cannot be created");
	assert_int_equal(policy_check_mknod(S_IFCHR, NULL), -EPERM);
}

/* ---- extended attributes ---- */

static void test_xattr_allows_user_namespace(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_xattr("user.note", "/w/f", &why), 0);
	assert_int_equal(
	    policy_check_xattr("system.posix_acl_access", "/w/f", &why), 0);
	assert_int_equal(policy_check_xattr("securityx", "/w/f", &why), 0);
	assert_int_equal(why.code, 0);
}

static void test_xattr_refuses_security_and_trusted(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_check_xattr("security.capability", "/w/f", &why), -EACCES);
	assert_string_equal(why.msg,
			    "/w/f: 'security.capability' attributes cannot "
			    "be set");
	assert_int_equal(
	    policy_check_xattr("trusted.overlay.opaque", "/w/d", &why),
	    -EACCES);
	assert_string_equal(why.msg, "/w/d: 'trusted.overlay.opaque' "
				     "attributes cannot be set");
	assert_int_equal(policy_check_xattr("security.", "/w", NULL), -EACCES);
}

/* ---- create-only zones ---- */

static void test_create_only_follows_rights_at_each_level(void **s)
{
	struct policy *p = load("sandbox:\n"
				"  zones:\n"
				"    staged: { kind: staged, repo: . }\n"
				"    o: { path: ./o, mode: rw }\n");
	const struct policy_zone *st = policy_find_zone(p, "staged");
	const struct policy_zone *o = policy_find_zone(p, "o");

	(void)s;
	/* the built-in table: an untrusted program only adds to staged */
	assert_true(policy_create_only(st, TRUST_UNTRUSTED));
	assert_false(policy_create_only(st, TRUST_SESSION));
	assert_false(policy_create_only(o, TRUST_FULL));
	policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_limit_allows_up_to_max_file_bytes),
		cmocka_unit_test(
		    test_size_limit_refuses_one_byte_more_with_efbig),
		cmocka_unit_test(test_size_limit_decide_and_write_time_agree),
		cmocka_unit_test(test_mknod_allows_fifos_sockets_and_files),
		cmocka_unit_test(test_mknod_refuses_devices_with_eperm),
		cmocka_unit_test(test_xattr_allows_user_namespace),
		cmocka_unit_test(test_xattr_refuses_security_and_trusted),
		cmocka_unit_test(test_create_only_follows_rights_at_each_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
