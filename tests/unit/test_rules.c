/*
 * Unit tests of the rules fs/ asks besides policy_decide() (policy/rules.c):
 * each rule's allow and refuse cases, its errno, and the reason text the
 * program reads (the integration tests and the audit rows expect exactly
 * these words).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
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

static void test_rename_whiteout_is_a_device_node(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_rename_flags(0, &why), 0);
	assert_int_equal(policy_check_rename_flags(RENAME_NOREPLACE, &why), 0);
	assert_int_equal(policy_check_rename_flags(RENAME_EXCHANGE, &why), 0);
	assert_int_equal(why.code, 0);
	assert_int_equal(policy_check_rename_flags(RENAME_WHITEOUT, &why),
			 -EPERM);
	assert_string_equal(why.msg, "device nodes cannot be created (a "
				     "rename's whiteout is one)");
	assert_int_equal(
	    policy_check_rename_flags(RENAME_WHITEOUT | RENAME_NOREPLACE, NULL),
	    -EPERM);
}

static void test_falloc_end_counts_blocks_kept_beyond_the_size(void **s)
{
	(void)s;
	assert_int_equal(policy_falloc_end(0, 10, 20, 5), 30);
	assert_int_equal(policy_falloc_end(FALLOC_FL_KEEP_SIZE, 10, 20, 5), 30);
	assert_int_equal(
	    policy_falloc_end(FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 7,
			      5),
	    7);
	assert_int_equal(
	    policy_falloc_end(FALLOC_FL_INSERT_RANGE, 0, 4096, 8192), 12288);
	assert_int_equal(
	    policy_falloc_end(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			      1 << 30, 5),
	    0);
	assert_int_equal(
	    policy_falloc_end(FALLOC_FL_COLLAPSE_RANGE, 0, 4096, 8192), 0);
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

/* ---- two ends: EXDEV across zones ---- */

static void test_zones_same_zone_is_allowed(void **s)
{
	char vp[] = "/w";
	struct policy_zone z = { .vpath = vp };
	struct policy_end a = { &z, "a", "/w/a" }, b = { &z, "d/b", "/w/d/b" };

	(void)s;
	assert_int_equal(policy_check_zones(PAIR_RENAME, &a, &b, NULL), 0);
	assert_int_equal(policy_check_zones(PAIR_LINK, &a, &b, NULL), 0);
}

static void test_zones_rename_across_is_exdev(void **s)
{
	struct policy_zone z1 = { 0 }, z2 = { 0 };
	struct policy_end a = { &z1, "a", "/in/a" }, b = { &z2, "b", "/out/b" };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_zones(PAIR_RENAME, &a, &b, &why), -EXDEV);
	assert_string_equal(why.msg, "rename /in/a to /out/b crosses zones");
}

static void test_zones_link_across_or_from_no_zone_is_exdev(void **s)
{
	struct policy_zone z1 = { 0 }, z2 = { 0 };
	struct policy_end a = { &z1, NULL, "/in/a" };
	struct policy_end b = { &z2, "b", "/out/b" };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_zones(PAIR_LINK, &a, &b, &why), -EXDEV);
	assert_string_equal(why.msg, "/out/b: hard links stay within one zone");
	/* a virtual directory is in no zone, not even "the same" one */
	a.zone = NULL;
	b.zone = NULL;
	assert_int_equal(policy_check_zones(PAIR_LINK, &a, &b, NULL), -EXDEV);
}

/* A zone "repo" with zone 1's directory at "input" inside it. */
static void nest_zone(struct policy_zone *z, struct policy_nest *n)
{
	static char vp[] = "/repo", rel[] = "input";

	memset(z, 0, sizeof(*z));
	n->rel = rel;
	n->zone = 1;
	z->vpath = vp;
	z->nests = n;
	z->nnests = 1;
}

static void test_areas_same_area_is_allowed(void **s)
{
	struct policy_nest n;
	struct policy_zone z;
	struct policy_end a = { &z, "a", "/repo/a" };
	struct policy_end b = { &z, "x/b", "/repo/x/b" };

	(void)s;
	nest_zone(&z, &n);
	assert_int_equal(policy_check_areas(PAIR_RENAME, &a, &b, NULL), 0);
	a.rel = "input/a";
	b.rel = "input/sub/b";
	assert_int_equal(policy_check_areas(PAIR_LINK, &a, &b, NULL), 0);
	a.rel = "inputx"; /* a name that only starts like it */
	b.rel = "c";
	assert_int_equal(policy_check_areas(PAIR_RENAME, &a, &b, NULL), 0);
}

static void test_areas_into_another_zones_directory_is_exdev(void **s)
{
	struct policy_nest n;
	struct policy_zone z;
	struct policy_end a = { &z, "a", "/repo/a" };
	struct policy_end b = { &z, "input/b", "/repo/input/b" };
	struct gfs_err why = { 0 };

	(void)s;
	nest_zone(&z, &n);
	assert_int_equal(policy_check_areas(PAIR_RENAME, &a, &b, &why), -EXDEV);
	assert_string_equal(why.msg,
			    "rename /repo/a to /repo/input/b crosses zones");
	assert_int_equal(policy_check_areas(PAIR_LINK, &b, &a, &why), -EXDEV);
	assert_string_equal(why.msg,
			    "/repo/a: hard links stay within one zone "
			    "(/repo/input/b lies in another zone's directory)");
}

static void test_staged_move_within_one_commit_is_allowed(void **s)
{
	struct policy_zone z = { 0 };
	struct policy_end a = { &z, "c1/a", "/staged/c1/a" };
	struct policy_end b = { &z, "c1/d/b", "/staged/c1/d/b" };

	(void)s;
	assert_int_equal(policy_check_staged_move(&a, &b, NULL), 0);
}

static void test_staged_move_out_of_its_commit_is_exdev(void **s)
{
	struct policy_zone z = { 0 }, z2 = { 0 };
	struct policy_end a = { &z, "c1/a", "/staged/c1/a" };
	struct policy_end b = { &z, "c2/a", "/staged/c2/a" };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_staged_move(&a, &b, &why), -EXDEV);
	assert_string_equal(why.msg, "rename /staged/c1/a to /staged/c2/a "
				     "leaves its staged commit");
	b.rel = "c11/a"; /* an ID that only starts like it */
	assert_int_equal(policy_check_staged_move(&a, &b, NULL), -EXDEV);
	b.rel = "c1"; /* the commit itself */
	assert_int_equal(policy_check_staged_move(&a, &b, NULL), -EXDEV);
	assert_int_equal(policy_check_staged_move(&b, &a, NULL), -EXDEV);
	b.rel = "c1/b";
	b.zone = &z2; /* another staged zone */
	assert_int_equal(policy_check_staged_move(&a, &b, NULL), -EXDEV);
}

/* ---- a second name for a protected file ---- */

static int link_source(struct policy *p, struct policy_zone *z,
		       const char *path, struct gfs_err *why)
{
	struct policy_req r = { .op = POP_CREATE, /* ignored */
				.zone = z,
				.trust = TRUST_FULL,
				.path = path };

	return policy_check_link_source(p, &r, why);
}

static const char *o_yaml = "sandbox:\n  zones:\n"
			    "    o: { path: ./o, mode: rw }\n";

static void test_link_source_plain_file_is_allowed(void **s)
{
	struct policy *p = load(o_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(link_source(p, &p->zones[0], "src/main.c", &why), 0);
	assert_int_equal(why.code, 0);
	policy_free(p);
}

static void test_link_source_protected_or_git_is_refused(void **s)
{
	struct policy *p = load(o_yaml);
	struct policy_zone *z = &p->zones[0];
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(link_source(p, z, ".bashrc", &why), -EACCES);
	assert_string_equal(why.msg, "no second name for '.bashrc': "
				     "'.bashrc' is protected (.bashrc) and is "
				     "never written or deleted");
	memset(&why, 0, sizeof(why));
	assert_int_equal(link_source(p, z, ".git/config", &why), -EACCES);
	assert_non_null(strstr(why.msg, "no second name for '.git/config': "));
	policy_free(p);
}

static void test_link_source_own_file_is_refused(void **s)
{
	struct policy *p = load(o_yaml);
	char rel[] = "golem.db", host[] = "/proj/o/golem.db";
	struct policy_guard g = { .rel = rel, .host = host, .what = "db" };
	struct policy_zone *z = &p->zones[0];
	struct gfs_err why = { 0 };

	(void)s;
	z->guards = &g;
	z->nguards = 1;
	assert_int_equal(link_source(p, z, "golem.db", &why), -EACCES);
	assert_string_equal(why.msg,
			    "'golem.db' is protected and cannot be linked");
	z->guards = NULL;
	z->nguards = 0;
	policy_free(p);
}

/* ---- where a symlink may stand ---- */

static void test_symlinks_inside_may_be_made(void **s)
{
	struct policy *p = load(o_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(p->symlinks, SYMLINKS_INSIDE); /* the default */
	assert_int_equal(policy_check_symlinks(p, &why), 0);
	assert_int_equal(why.code, 0);
	policy_free(p);
}

static void test_symlinks_deny_refuses_every_link(void **s)
{
	struct policy *p = load("sandbox:\n  symlinks: deny\n  zones:\n"
				"    o: { path: ./o, mode: rw }\n");
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_symlinks(p, &why), -EACCES);
	assert_string_equal(why.msg,
			    "symlinks may not be created (symlinks: deny)");
	policy_free(p);
}

static void test_link_place_measured_in_a_zone_is_judged(void **s)
{
	char vp[] = "/w";
	struct policy_zone z = { .vpath = vp };
	struct policy_link_place at = { .vpath = "/w/d/l",
					.zone = &z,
					.zoned = true,
					.depth = 1,
					.host_top = "/h/w" };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_link_place(LINK_MAKE, &at, &why), 0);
	assert_int_equal(policy_check_link_place(LINK_MOVE, &at, &why), 0);
	assert_int_equal(why.code, 0);
}

static void test_link_place_outside_a_zone_is_refused(void **s)
{
	struct policy_link_place at = { .vpath = "/v/l" };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_link_place(LINK_MAKE, &at, &why),
			 -EACCES);
	assert_string_equal(why.msg, "/v/l: symlinks are made only in a zone's "
				     "directory");
	assert_int_equal(policy_check_link_place(LINK_MOVE, &at, &why),
			 -EACCES);
	assert_string_equal(why.msg, "/v/l: not in a zone's directory");
}

static void test_link_place_of_unknown_depth_is_refused(void **s)
{
	char vp[] = "/w";
	struct policy_zone z = { .vpath = vp };
	struct policy_link_place at = {
		.vpath = "/w/d/l", .zone = &z, .zoned = true, .depth_rc = -EXDEV
	};
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_link_place(LINK_MAKE, &at, &why),
			 -EACCES);
	assert_string_equal(why.msg, "/w/d/l: cannot tell where it lies in /w "
				     "(Invalid cross-device link)");
	at.depth_rc = -ENOENT;
	assert_int_equal(policy_check_link_place(LINK_MOVE, &at, NULL),
			 -EACCES);
}

static void test_link_walk_within_bounds_goes_on(void **s)
{
	(void)s;
	assert_int_equal(policy_check_link_walk(1, 0, true, "/w/d", NULL), 0);
	assert_int_equal(policy_check_link_walk(POLICY_LINK_WALK_MAX_ENTRIES,
						POLICY_LINK_WALK_MAX_LEVELS - 1,
						true, "/w/d", NULL),
			 0);
	/* a file or link that deep is checked; only directories stop */
	assert_int_equal(policy_check_link_walk(5, POLICY_LINK_WALK_MAX_LEVELS,
						false, "/w/d", NULL),
			 0);
}

static void test_link_walk_past_bounds_is_refused(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_check_link_walk(POLICY_LINK_WALK_MAX_ENTRIES + 1, 0, false,
				   "/w/d", &why),
	    -EACCES);
	assert_string_equal(why.msg,
			    "/w/d: moving more than 100000 entries higher up "
			    "is refused: the symlinks among them cannot all "
			    "be checked; move fewer");
	assert_int_equal(policy_check_link_walk(7, POLICY_LINK_WALK_MAX_LEVELS,
						true, "/w/d", &why),
			 -EACCES);
	assert_string_equal(why.msg, "/w/d: moving a tree deeper than 128 "
				     "levels higher up is refused");
}

/* ---- what /staged shows ---- */

static void test_staged_view_limited_where_repo_is_unreadable(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    staged: { kind: staged, repo: . }\n");
	struct policy *q =
	    load("sandbox:\n  zones:\n"
		 "    staged: { kind: staged, repo: . }\n"
		 "    repo: { kind: repo, path: ., mode: ro }\n");
	const struct policy_zone *z = policy_find_zone(p, "staged");

	(void)s;
	/* the built-in repo row: r from workspace on */
	assert_true(policy_staged_limited(p, z, TRUST_UNTRUSTED));
	assert_true(policy_staged_limited(p, z, TRUST_SESSION));
	assert_false(policy_staged_limited(p, z, TRUST_WORKSPACE));
	assert_false(policy_staged_limited(p, z, TRUST_FULL));
	/* a repo zone of that path decides instead */
	z = policy_find_zone(q, "staged");
	assert_true(policy_staged_limited(q, z, TRUST_SESSION));
	assert_false(policy_staged_limited(q, z, TRUST_WORKSPACE));
	policy_free(p);
	policy_free(q);
}

static void test_staged_view_shows_changes_and_their_dirs(void **s)
{
	char a[] = "src/new.c", b[] = "README.md";
	char *const changes[] = { a, b };

	(void)s;
	assert_true(policy_staged_shows("", NULL, 0));
	assert_true(policy_staged_shows("", changes, 2));
	assert_true(policy_staged_shows("src/new.c", changes, 2));
	assert_true(policy_staged_shows("src", changes, 2));
	assert_true(policy_staged_shows("README.md", changes, 2));
}

static void test_staged_view_hides_the_rest_of_the_repo(void **s)
{
	char a[] = "src/new.c", b[] = "README.md";
	char *const changes[] = { a, b };

	(void)s;
	assert_false(policy_staged_shows("src/old.c", changes, 2));
	assert_false(policy_staged_shows("sr", changes, 2));
	assert_false(policy_staged_shows("src/new", changes, 2));
	assert_false(policy_staged_shows("README", changes, 2));
	assert_false(policy_staged_shows("src/new.c/x", changes, 2));
	assert_false(policy_staged_shows("secret", NULL, 0));
}

static void test_staged_commit_from_nothing_only_untrusted(void **s)
{
	(void)s;
	assert_true(policy_staged_from_nothing(TRUST_UNTRUSTED));
	assert_false(policy_staged_from_nothing(TRUST_SESSION));
	assert_false(policy_staged_from_nothing(TRUST_WORKSPACE));
	assert_false(policy_staged_from_nothing(TRUST_FULL));
}

/* ---- the virtual tree, the bounds of a move, staged kinds ---- */

static const char *two_yaml = "sandbox:\n  zones:\n"
			      "    in: { path: ./in, mode: ro }\n"
			      "    out: { path: ./out, mode: rw }\n";

static void test_vdir_name_over_a_zone_is_allowed(void **s)
{
	struct policy *p = load(two_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_check_vdir_name(p, TRUST_FULL, false, true, "/x", &why), 0);
	assert_int_equal(why.code, 0);
	policy_free(p);
}

static void test_vdir_fixed_child_is_ebusy_without_reason(void **s)
{
	struct policy *p = load(two_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_check_vdir_name(p, TRUST_FULL, true, true, "/in", &why),
	    -EBUSY);
	assert_int_equal(
	    policy_check_vdir_name(p, TRUST_FULL, true, false, "/in", &why),
	    -EBUSY);
	assert_int_equal(why.code, 0);
	policy_free(p);
}

static void test_vdir_without_zone_under_it_is_eacces(void **s)
{
	struct policy *p = load(two_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_check_vdir_name(p, TRUST_FULL, false, false, "/", &why),
	    -EACCES);
	assert_string_equal(why.msg, "/ holds only zones; writable: /out");
	p->zones[1].rights[TRUST_FULL] = RIGHT_RO; /* nothing writable */
	free(p->writable[TRUST_FULL]);
	p->writable[TRUST_FULL] = strdup("");
	assert_int_equal(
	    policy_check_vdir_name(p, TRUST_FULL, false, false, "/a/x", &why),
	    -EACCES);
	assert_string_equal(why.msg,
			    "/a/x holds only zones; writable: nothing");
	policy_free(p);
}

static void test_in_zone_needs_a_zone(void **s)
{
	struct policy_zone z = { 0 };
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_in_zone(&z, "/w/a", &why), 0);
	assert_int_equal(why.code, 0);
	assert_int_equal(policy_check_in_zone(NULL, "/a", &why), -EACCES);
	assert_string_equal(why.msg, "/a is a virtual directory");
}

static void test_move_too_large_is_exdev_with_the_bounds(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_move_too_large("/w/big", &why), -EXDEV);
	assert_string_equal(why.msg, "/w/big holds more than 16384 entries or "
				     "64 levels to check; moving it is copying "
				     "and deleting");
	assert_int_equal(policy_move_too_large("/w/big", NULL), -EXDEV);
}

static void test_staged_refuses_other_kinds_with_eperm(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_staged_refuse_kind(&why), -EPERM);
	assert_string_equal(why.msg,
			    "a staged commit holds only files and directories");
}

static void test_link_unread_is_refused_naming_what(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_link_unread(S_IFLNK, ENAMETOOLONG, "/w/d", &why), -EACCES);
	assert_string_equal(why.msg, "/w/d: a symlink it moves cannot be read "
				     "(File name too long)");
	assert_int_equal(policy_link_unread(S_IFDIR, EACCES, "/w/d", &why),
			 -EACCES);
	assert_string_equal(why.msg, "/w/d: a directory it moves cannot be "
				     "read (Permission denied)");
	assert_int_equal(policy_link_unread(S_IFDIR, EIO, "/w/d", NULL),
			 -EACCES);
}

/* ---- setuid and setgid ---- */

static void test_allowed_mode_keeps_permissions_type_and_sticky(void **s)
{
	(void)s;
	assert_int_equal(policy_allowed_mode(0755), 0755);
	assert_int_equal(policy_allowed_mode(S_IFREG | 0644), S_IFREG | 0644);
	assert_int_equal(policy_allowed_mode(S_IFDIR | 01777), S_IFDIR | 01777);
}

static void test_allowed_mode_clears_setuid_and_setgid(void **s)
{
	(void)s;
	assert_int_equal(policy_allowed_mode(04755), 0755);
	assert_int_equal(policy_allowed_mode(02755), 0755);
	assert_int_equal(policy_allowed_mode(S_IFREG | 06777), S_IFREG | 0777);
	assert_int_equal(policy_allowed_mode(S_IFDIR | 03775), S_IFDIR | 01775);
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
		cmocka_unit_test(test_rename_whiteout_is_a_device_node),
		cmocka_unit_test(
		    test_falloc_end_counts_blocks_kept_beyond_the_size),
		cmocka_unit_test(test_xattr_allows_user_namespace),
		cmocka_unit_test(test_xattr_refuses_security_and_trusted),
		cmocka_unit_test(test_create_only_follows_rights_at_each_level),
		cmocka_unit_test(test_zones_same_zone_is_allowed),
		cmocka_unit_test(test_zones_rename_across_is_exdev),
		cmocka_unit_test(
		    test_zones_link_across_or_from_no_zone_is_exdev),
		cmocka_unit_test(test_areas_same_area_is_allowed),
		cmocka_unit_test(
		    test_areas_into_another_zones_directory_is_exdev),
		cmocka_unit_test(test_staged_move_within_one_commit_is_allowed),
		cmocka_unit_test(test_staged_move_out_of_its_commit_is_exdev),
		cmocka_unit_test(test_link_source_plain_file_is_allowed),
		cmocka_unit_test(test_link_source_protected_or_git_is_refused),
		cmocka_unit_test(test_link_source_own_file_is_refused),
		cmocka_unit_test(test_symlinks_inside_may_be_made),
		cmocka_unit_test(test_symlinks_deny_refuses_every_link),
		cmocka_unit_test(test_link_place_measured_in_a_zone_is_judged),
		cmocka_unit_test(test_link_place_outside_a_zone_is_refused),
		cmocka_unit_test(test_link_place_of_unknown_depth_is_refused),
		cmocka_unit_test(test_link_walk_within_bounds_goes_on),
		cmocka_unit_test(test_link_walk_past_bounds_is_refused),
		cmocka_unit_test(
		    test_staged_view_limited_where_repo_is_unreadable),
		cmocka_unit_test(test_staged_view_shows_changes_and_their_dirs),
		cmocka_unit_test(test_staged_view_hides_the_rest_of_the_repo),
		cmocka_unit_test(
		    test_staged_commit_from_nothing_only_untrusted),
		cmocka_unit_test(test_vdir_name_over_a_zone_is_allowed),
		cmocka_unit_test(test_vdir_fixed_child_is_ebusy_without_reason),
		cmocka_unit_test(test_vdir_without_zone_under_it_is_eacces),
		cmocka_unit_test(test_in_zone_needs_a_zone),
		cmocka_unit_test(test_move_too_large_is_exdev_with_the_bounds),
		cmocka_unit_test(test_staged_refuses_other_kinds_with_eperm),
		cmocka_unit_test(test_link_unread_is_refused_naming_what),
		cmocka_unit_test(
		    test_allowed_mode_keeps_permissions_type_and_sticky),
		cmocka_unit_test(test_allowed_mode_clears_setuid_and_setgid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
