/*
 * Unit tests of the git rules and of protect globs beneath a moved
 * directory (policy/git.c): where a path lies with respect to .git
 * components, what a user's repository allows in each kind of zone and
 * at each trust level, and what a rename may take along.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/policy.h"
#include "policy/policy_int.h"

static const char *zones_yaml =
    "sandbox:\n"
    "  zones:\n"
    "    ws: { path: ./ws, mode: rw }\n"
    "    repo: { kind: repo, path: ./r }\n"
    "    gd: { path: ./r/.git/modules, mode: rw }\n";

static struct policy *load(void)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;

	if (policy_parse(&p, zones_yaml, strlen(zones_yaml), "t.yaml", "/proj",
			 &err))
		fail_msg("policy_parse: %s", err.msg);
	return p;
}

/* A request in @zone; @own says whose the outermost .git is. */
static struct policy_req req(struct policy *p, const char *zone,
			     enum policy_trust t, enum policy_op op,
			     const char *path, bool own)
{
	struct policy_req r = {
		.op = op, .trust = t, .path = path, .own_repo = own
	};

	r.zone = policy_find_zone(p, zone);
	assert_non_null(r.zone);
	return r;
}

static int decide(struct policy *p, const char *zone, enum policy_trust t,
		  enum policy_op op, const char *path, struct gfs_err *why)
{
	struct policy_req r = req(p, zone, t, op, path, false);

	return policy_decide(p, &r, why);
}

static void test_git_place_by_components(void **s)
{
	(void)s;
	assert_int_equal(policy_git_place(NULL, ""), GIT_OUTSIDE);
	assert_int_equal(policy_git_place(NULL, "a/b.git/c"), GIT_OUTSIDE);
	assert_int_equal(policy_git_place(NULL, "a/.gitx"), GIT_OUTSIDE);
	assert_int_equal(policy_git_place(NULL, ".git"), GIT_ENTRY);
	assert_int_equal(policy_git_place(NULL, "sub/mod/.git"), GIT_ENTRY);
	assert_int_equal(policy_git_place(NULL, ".git/HEAD"), GIT_CONTENT);
	assert_int_equal(policy_git_place(NULL, ".git/refs/heads/main"),
			 GIT_CONTENT);
	assert_int_equal(policy_git_place(NULL, ".git/objects/ab/cdef"),
			 GIT_CONTENT);
	assert_int_equal(policy_git_place(NULL, ".git/modules/sub/index"),
			 GIT_CONTENT);
	assert_int_equal(policy_git_place(NULL, "r/.git/worktrees/w/HEAD"),
			 GIT_CONTENT);
}

static void test_git_place_sensitive_names_at_every_level(void **s)
{
	static const char *const sensitive[] = {
		".git/config",
		".git/config.worktree",
		".git/commondir",
		".git/hooks",
		".git/hooks/pre-commit",
		".git/hooks/pre-commit/x",
		".git/info",
		".git/info/exclude",
		".git/objects/info/alternates",
		".git/modules/sub/config",
		".git/modules/lib/sub/config",
		".git/modules/sub/hooks/post-checkout",
		".git/worktrees/w/commondir",
		".git/worktrees/w/gitdir",
		".git/worktrees/w/config.worktree",
		".git/rebase-merge/git-rebase-todo",
		".git/sequencer/todo",
		".git/hooks/.git",
		".git/modules/sub/.git",
		"a/.git/x/.git/y",
		NULL,
	};
	size_t i;

	(void)s;
	for (i = 0; sensitive[i]; i++)
		if (policy_git_place(NULL, sensitive[i]) != GIT_SENSITIVE)
			fail_msg("'%s' is not sensitive", sensitive[i]);
}

static void test_git_place_zone_inside_a_git_dir(void **s)
{
	struct policy *p = load();
	const struct policy_zone *z = policy_find_zone(p, "gd");

	(void)s;
	assert_string_equal(z->git_inner, "modules");
	assert_int_equal(policy_git_place(z, ""), GIT_CONTENT);
	assert_int_equal(policy_git_place(z, "sub/index"), GIT_CONTENT);
	assert_int_equal(policy_git_place(z, "sub/config"), GIT_SENSITIVE);
	assert_int_equal(policy_git_place(z, "sub/hooks/x"), GIT_SENSITIVE);
	assert_null(policy_find_zone(p, "ws")->git_inner);
	policy_free(p);
}

/* Every change inside the user's repository is refused in a rw zone. */
static void test_git_user_repo_is_read_only_in_rw_zone(void **s)
{
	static const char *const paths[] = {
		".git/HEAD",
		".git/refs/heads/main",
		".git/index",
		".git/objects/ab/cd",
		"sub/.git/modules/m/config",
		".git/hooks/pre-commit",
		NULL,
	};
	static const enum policy_op ops[] = { POP_CREATE, POP_WRITE, POP_DELETE,
					      POP_REPLACE };
	struct policy *p = load();
	struct gfs_err why = { 0 };
	size_t i, j;

	(void)s;
	for (i = 0; paths[i]; i++)
		for (j = 0; j < 4; j++)
			if (decide(p, "ws", TRUST_FULL, ops[j], paths[i],
				   NULL) != -EACCES)
				fail_msg("%s %s allowed",
					 policy_op_name(ops[j]), paths[i]);
	assert_int_equal(decide(p, "ws", TRUST_FULL, POP_WRITE,
				"r/.git/refs/heads/main", &why),
			 -EACCES);
	assert_non_null(strstr(why.msg, "'r/.git'"));
	assert_non_null(strstr(why.msg, "existed before this mount"));
	/* reading stays allowed */
	assert_int_equal(
	    decide(p, "ws", TRUST_FULL, POP_READ, ".git/config", NULL), 0);
	assert_int_equal(
	    decide(p, "ws", TRUST_FULL, POP_WRITE, "src/a.c", NULL), 0);
	policy_free(p);
}

/* The empty-directory exemption of protect globs is no way in. */
static void test_git_mkdir_inside_user_repo_is_refused(void **s)
{
	struct policy *p = load();
	struct policy_req r = req(p, "ws", TRUST_FULL, POP_CREATE,
				  ".git/hooks/pre-commit", false);

	(void)s;
	r.is_dir = r.empty_dir = true;
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.path = ".git/hooks/.git";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.path = ".git/modules/sub/.git";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.path = ".git/newdir";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	/* elsewhere an empty directory with a protected name plants nothing */
	r.path = ".bashrc";
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	policy_free(p);
}

/* The .git itself: never changed; a new one only by mkdir. */
static void test_git_entry_rules(void **s)
{
	struct policy *p = load();
	struct policy_req r =
	    req(p, "ws", TRUST_FULL, POP_CREATE, "new/.git", false);
	struct gfs_err why = { 0 };

	(void)s;
	r.is_dir = r.empty_dir = true;
	assert_int_equal(policy_decide(p, &r, NULL), 0); /* git init */
	r.empty_dir = false; /* a directory moved there */
	assert_int_equal(policy_decide(p, &r, &why), -EACCES);
	assert_non_null(strstr(why.msg, "only be made with mkdir"));
	r.is_dir = false; /* a gitfile or a link */
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.own_repo = true; /* the program's own .git moved there */
	r.is_dir = true;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	/* a user's gitfile or git dir: not written, moved or removed */
	assert_int_equal(
	    decide(p, "ws", TRUST_FULL, POP_WRITE, "sub/.git", &why), -EACCES);
	assert_non_null(strstr(why.msg, "existed before this mount"));
	assert_int_equal(decide(p, "ws", TRUST_FULL, POP_DELETE, ".git", NULL),
			 -EACCES);
	assert_int_equal(
	    decide(p, "ws", TRUST_FULL, POP_REPLACE, "a/.git", NULL), -EACCES);
	policy_free(p);
}

/* The program's own repository is left to the rules for it. */
static void test_git_own_repo_is_not_the_users(void **s)
{
	struct policy *p = load();
	struct policy_req r = req(p, "ws", TRUST_SESSION, POP_CREATE,
				  "mine/.git/refs/heads/main", true);

	(void)s;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.op = POP_DELETE;
	r.path = "mine/.git";
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	policy_free(p);
}

/* kind: repo with w: ordinary contents yes, what runs or points no. */
static void test_git_repo_zone_writes_contents_not_config(void **s)
{
	struct policy *p = load();
	struct policy_req r = req(p, "repo", TRUST_FULL, POP_CREATE,
				  ".git/refs/heads/golem", false);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.path = ".git/objects/ab/cdef";
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.op = POP_WRITE;
	r.path = ".git/index";
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.path = ".git/modules/sub/config";
	assert_int_equal(policy_decide(p, &r, &why), -EACCES);
	assert_non_null(strstr(why.msg, "never written"));
	r.path = ".git/commondir";
	r.op = POP_CREATE;
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.path = ".git/info/exclude";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.path = ".git/rebase-merge/git-rebase-todo";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.path = ".git/hooks/pre-commit";
	r.is_dir = r.empty_dir = true; /* the denial-of-service mkdir */
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	/* a directory moved in could change while it is checked */
	r.path = ".git/refs/heads/dir";
	r.empty_dir = false;
	assert_int_equal(policy_decide(p, &r, &why), -EACCES);
	assert_non_null(strstr(why.msg, "not moved into"));
	r.op = POP_DELETE;
	r.path = ".git";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	/* at workspace the repo zone is read-only anyway */
	r = req(p, "repo", TRUST_WORKSPACE, POP_CREATE, ".git/refs/heads/golem",
		false);
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	policy_free(p);
}

/* A zone that lies in a .git is the user's repository all through. */
static void test_git_zone_inside_git_dir_is_read_only(void **s)
{
	struct policy *p = load();
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    decide(p, "gd", TRUST_FULL, POP_WRITE, "sub/index", &why), -EACCES);
	assert_non_null(strstr(why.msg, "/gd"));
	assert_int_equal(decide(p, "gd", TRUST_FULL, POP_CREATE, "x", NULL),
			 -EACCES);
	policy_free(p);
}

/* What a rename takes along is judged where it leaves and arrives. */
static void test_beneath_refuses_moving_protected_entries(void **s)
{
	struct policy *p = load();
	struct policy_req leave =
	    req(p, "ws", TRUST_FULL, POP_DELETE, "proj", false);
	struct policy_req arrive =
	    req(p, "ws", TRUST_FULL, POP_CREATE, "moved", false);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    policy_decide_beneath(p, &leave, "src/a.c", false, NULL), 0);
	/* the user's repository inside */
	assert_int_equal(policy_decide_beneath(p, &leave, ".git", false, &why),
			 -EACCES);
	assert_non_null(strstr(why.msg, "'proj' cannot move"));
	assert_non_null(strstr(why.msg, "'proj/.git'"));
	assert_int_equal(
	    policy_decide_beneath(p, &leave, "m/.git/config", false, NULL),
	    -EACCES);
	/* a protect glob at any depth */
	assert_int_equal(
	    policy_decide_beneath(p, &leave, "home/.bashrc", false, &why),
	    -EACCES);
	assert_non_null(strstr(why.msg, "proj/home/.bashrc"));
	/* the program's own repository moves */
	assert_int_equal(
	    policy_decide_beneath(p, &leave, "mine/.git/config", true, NULL),
	    0);
	assert_int_equal(
	    policy_decide_beneath(p, &arrive, "mine/.git/HEAD", true, NULL), 0);
	policy_free(p);
}

static void test_beneath_judges_the_arrival(void **s)
{
	struct policy *p = load();
	struct policy_req arrive =
	    req(p, "ws", TRUST_FULL, POP_CREATE, "r/.git", false);
	struct gfs_err why = { 0 };

	(void)s;
	/* a directory renamed over the place of a .git: its hooks land */
	assert_int_equal(
	    policy_decide_beneath(p, &arrive, "hooks/pre-commit", false, &why),
	    -EACCES);
	assert_non_null(strstr(why.msg, "r/.git/hooks/pre-commit"));
	/* into a user's git dir (even in a repo zone at full) */
	arrive =
	    req(p, "repo", TRUST_FULL, POP_CREATE, ".git/modules/x", false);
	assert_int_equal(
	    policy_decide_beneath(p, &arrive, "config", false, NULL), -EACCES);
	assert_int_equal(
	    policy_decide_beneath(p, &arrive, "objects/ab", false, NULL), 0);
	/* an own .git arriving takes its contents along */
	arrive = req(p, "ws", TRUST_FULL, POP_CREATE, "b/.git", true);
	assert_int_equal(
	    policy_decide_beneath(p, &arrive, "config", false, NULL), 0);
	policy_free(p);
}

static void test_beneath_too_long_is_exdev(void **s)
{
	struct policy *p = load();
	struct policy_req leave =
	    req(p, "ws", TRUST_FULL, POP_DELETE, "d", false);
	char *sub = malloc(5000);

	(void)s;
	memset(sub, 'a', 4999);
	sub[4999] = '\0';
	assert_int_equal(policy_decide_beneath(p, &leave, sub, false, NULL),
			 -EXDEV);
	free(sub);
	policy_free(p);
}

struct seen {
	char keys[16][64];
	char vals[16][128];
	int n;
};

static int collect(void *ctx, const char *key, const char *val)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
		snprintf(s->vals[s->n++], sizeof(s->vals[0]), "%s", val);
	}
	return 0;
}

/* The spellings git itself writes and reads in a user's config. */
static void test_git_config_scan_spellings(void **s)
{
	static const char text[] = "# a comment\n"
				   "[core]\n"
				   "\trepositoryformatversion = 0\n"
				   "\tbare\n"
				   "\tHooksPath = .husky/_ ; trailing comment\n"
				   "[alias \"Fmt\"]\n"
				   "\tx = \"!./scripts/fmt.sh \\\"a b\\\"\"\n"
				   "[includeIf \"gitdir:~/w/\"]\n"
				   "  path = ../shared.cfg\n"
				   "[Filter.lfs]\n"
				   "\tclean = git-lfs clean \\\n -- %f\n";
	struct seen got = { 0 };

	(void)s;
	assert_int_equal(
	    pol_git_config_scan(text, sizeof(text) - 1, collect, &got), 0);
	assert_int_equal(got.n, 5);
	assert_string_equal(got.keys[0], "core.repositoryformatversion");
	assert_string_equal(got.keys[1], "core.hookspath");
	assert_string_equal(got.vals[1], ".husky/_");
	assert_string_equal(got.keys[2], "alias.Fmt.x");
	assert_string_equal(got.vals[2], "!./scripts/fmt.sh \"a b\"");
	assert_string_equal(got.keys[3], "includeif.gitdir:~/w/.path");
	assert_string_equal(got.vals[3], "../shared.cfg");
	assert_string_equal(got.keys[4], "filter.lfs.clean");
	assert_string_equal(got.vals[4], "git-lfs clean  -- %f");
}

static void test_git_key_runs_list(void **s)
{
	(void)s;
	assert_true(pol_git_key_runs("core.fsmonitor"));
	assert_true(pol_git_key_runs("alias.st"));
	assert_true(pol_git_key_runs("filter.lfs.smudge"));
	assert_true(pol_git_key_runs("diff.a.b.textconv"));
	assert_true(pol_git_key_runs("credential.https://x.helper"));
	assert_false(pol_git_key_runs("core.bare"));
	assert_false(pol_git_key_runs("filter.lfs.required"));
	assert_false(pol_git_key_runs("alias."));
	assert_false(pol_git_key_runs("remote.origin.url"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_place_by_components),
		cmocka_unit_test(test_git_place_sensitive_names_at_every_level),
		cmocka_unit_test(test_git_place_zone_inside_a_git_dir),
		cmocka_unit_test(test_git_user_repo_is_read_only_in_rw_zone),
		cmocka_unit_test(test_git_mkdir_inside_user_repo_is_refused),
		cmocka_unit_test(test_git_entry_rules),
		cmocka_unit_test(test_git_own_repo_is_not_the_users),
		cmocka_unit_test(test_git_repo_zone_writes_contents_not_config),
		cmocka_unit_test(test_git_zone_inside_git_dir_is_read_only),
		cmocka_unit_test(test_beneath_refuses_moving_protected_entries),
		cmocka_unit_test(test_beneath_judges_the_arrival),
		cmocka_unit_test(test_beneath_too_long_is_exdev),
		cmocka_unit_test(test_git_config_scan_spellings),
		cmocka_unit_test(test_git_key_runs_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
