/*
 * Unit tests of the policy core: the trust table, the mode ceiling, worker
 * chains, approvals, suffixes, size limits, protect globs, and the reason
 * text a denied program reads. Real YAML text through the real loader.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy/policy.h"
#include "policy/policy_int.h"
#include "tests/glob_ref.h"

static struct policy *load(const char *yaml)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	int rc = policy_parse(&p, yaml, strlen(yaml), "t.yaml", "/proj", &err);

	if (rc != 0)
		fail_msg("policy_parse: %s", err.msg);
	return p;
}

static int load_err(const char *yaml, struct gfs_err *err)
{
	struct policy *p = NULL;
	int rc = policy_parse(&p, yaml, strlen(yaml), "t.yaml", "/proj", err);

	assert_null(p);
	return rc;
}

static int worker(struct policy *p, const char *text, struct gfs_err *err)
{
	return policy_apply_worker_text(p, text, strlen(text), "w.worker", err);
}

static int decide(struct policy *p, const char *zone, enum policy_trust t,
		  enum policy_op op, const char *path, struct gfs_err *why)
{
	struct policy_req r = { .op = op, .trust = t, .path = path };

	r.zone = policy_find_zone(p, zone);
	assert_non_null(r.zone);
	return policy_decide(p, &r, why);
}

static const char *kinds_yaml =
    "sandbox:\n"
    "  zones:\n"
    "    sess: { kind: session }\n"
    "    work: { kind: workspace, path: ./w }\n"
    "    repo: { kind: repo, path: . }\n"
    "    staged: { kind: staged, repo: . }\n"
    "    workers: { kind: workers, path: ./workers }\n";

/* The built-in trust table (README), cell by cell. */
static void test_policy_builtin_trust_table_every_cell(void **state)
{
	static const struct {
		const char *zone;
		const char *cells[TRUST_COUNT];
	} want[] = {
		{ "sess", { "rwld", "rwld", "rwld", "rwld" } },
		{ "work", { "-", "rwld", "rwld", "rwld" } },
		{ "repo", { "-", "-", "rl", "rwld" } },
		{ "staged", { "c", "rwld", "rwld", "rwld" } },
		{ "workers", { "rl", "rl", "rl", "rwld" } },
	};
	struct policy *p = load(kinds_yaml);
	char buf[8];
	size_t i;
	int t;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct policy_zone *z = policy_find_zone(p, want[i].zone);

		for (t = 0; t < TRUST_COUNT; t++)
			assert_string_equal(
			    policy_rights_str(z->rights[t], buf),
			    want[i].cells[t]);
	}
	policy_free(p);
}

static void test_policy_custom_zone_gets_mode_at_session_and_above(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    out: { path: ./o, mode: rw }\n"
				"    in: { path: ./i, mode: ro }\n");
	char buf[8];

	(void)s;
	assert_int_equal(policy_find_zone(p, "out")->rights[TRUST_UNTRUSTED],
			 0);
	assert_string_equal(
	    policy_rights_str(policy_find_zone(p, "out")->rights[TRUST_SESSION],
			      buf),
	    "rwld");
	assert_string_equal(
	    policy_rights_str(policy_find_zone(p, "in")->rights[TRUST_FULL],
			      buf),
	    "rl");
	policy_free(p);
}

static void test_policy_plain_zone_defaults_to_ro(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n    a: { path: ./a }\n");

	(void)s;
	assert_true(policy_find_zone(p, "a")->ro);
	policy_free(p);
}

static void test_policy_zone_trust_override(void **s)
{
	struct policy *p =
	    load("sandbox:\n  zones:\n    final:\n      path: ./f\n"
		 "      mode: rw\n"
		 "      trust: { untrusted: \"\", session: rl, workspace: rwld,"
		 " full: rwld }\n");
	const struct policy_zone *z = policy_find_zone(p, "final");

	(void)s;
	assert_int_equal(z->rights[TRUST_UNTRUSTED], 0);
	assert_int_equal(z->rights[TRUST_SESSION], RIGHT_RO);
	assert_int_equal(z->rights[TRUST_WORKSPACE], RIGHT_ALL);
	policy_free(p);
}

static void test_policy_mode_is_ceiling_of_trust_override(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    in: { path: ./i, mode: ro, trust: "
				"{ session: rwld } }\n");

	(void)s;
	assert_int_equal(policy_find_zone(p, "in")->rights[TRUST_SESSION],
			 RIGHT_RO);
	policy_free(p);
}

static void test_policy_decide_denies_write_in_ro_zone(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    input: { path: ./i, mode: ro }\n"
				"    output: { path: ./o, mode: rw }\n"
				"    session: { kind: session }\n");
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    decide(p, "input", TRUST_SESSION, POP_WRITE, "a.md", &why), -EROFS);
	assert_string_equal(why.msg, "/input is read-only; writable: "
				     "/output, /session");
	assert_int_equal(
	    decide(p, "input", TRUST_SESSION, POP_READ, "a.md", NULL), 0);
	assert_int_equal(
	    decide(p, "output", TRUST_SESSION, POP_WRITE, "a.md", NULL), 0);
	policy_free(p);
}

static void test_policy_decide_trust_denial_is_eacces(void **s)
{
	struct policy *p = load(kinds_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    decide(p, "repo", TRUST_WORKSPACE, POP_WRITE, "f", &why), -EACCES);
	assert_non_null(strstr(why.msg, "trust level 'workspace'"));
	assert_int_equal(
	    decide(p, "repo", TRUST_WORKSPACE, POP_READ, "f", NULL), 0);
	assert_int_equal(decide(p, "repo", TRUST_FULL, POP_DELETE, "f", NULL),
			 0);
	policy_free(p);
}

static void test_policy_decide_hidden_zone_is_enoent(void **s)
{
	struct policy *p = load(kinds_yaml);

	(void)s;
	assert_int_equal(decide(p, "repo", TRUST_SESSION, POP_READ, "", NULL),
			 -ENOENT);
	assert_false(
	    policy_zone_visible(policy_find_zone(p, "repo"), TRUST_SESSION));
	assert_true(
	    policy_zone_visible(policy_find_zone(p, "repo"), TRUST_WORKSPACE));
	policy_free(p);
}

static void test_policy_repo_readable_follows_repo_zone_or_table(void **s)
{
	struct policy *p = load(kinds_yaml);
	struct policy *q = load("sandbox:\n  zones:\n"
				"    st: { kind: staged, repo: ./r }\n");
	struct policy *o = load("sandbox:\n  zones:\n"
				"    r: { kind: repo, path: ., trust: "
				"{ session: rl } }\n");

	(void)s;
	/* the repo zone's own rights */
	assert_false(policy_repo_readable(p, "/proj", TRUST_SESSION));
	assert_true(policy_repo_readable(p, "/proj", TRUST_WORKSPACE));
	assert_true(policy_repo_readable(o, "/proj", TRUST_SESSION));
	/* no repo zone: the built-in row */
	assert_false(policy_repo_readable(q, "/proj/r", TRUST_SESSION));
	assert_true(policy_repo_readable(q, "/proj/r", TRUST_FULL));
	policy_free(p);
	policy_free(q);
	policy_free(o);
}

static void test_policy_untrusted_staged_takes_new_files_only(void **s)
{
	struct policy *p = load(kinds_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    decide(p, "staged", TRUST_UNTRUSTED, POP_CREATE, "x/new.c", NULL),
	    0);
	assert_int_equal(
	    decide(p, "staged", TRUST_UNTRUSTED, POP_WRITE, "x/old.c", &why),
	    -EACCES);
	assert_non_null(strstr(why.msg, "only new files"));
	assert_int_equal(
	    decide(p, "staged", TRUST_UNTRUSTED, POP_DELETE, "x/old.c", NULL),
	    -EACCES);
	assert_int_equal(
	    decide(p, "staged", TRUST_UNTRUSTED, POP_REPLACE, "x/old.c", NULL),
	    -EACCES);
	policy_free(p);
}

static const char *approval_yaml =
    "sandbox:\n  zones:\n"
    "    plain: { path: ./p, mode: rw }\n"
    "    final:\n      path: ./f\n      mode: rw\n"
    "      approval: { write: ask, delete: blocked }\n";

static void test_policy_approval_defaults_to_preapproved(void **s)
{
	struct policy *p = load(approval_yaml);

	(void)s;
	assert_int_equal(
	    decide(p, "plain", TRUST_SESSION, POP_CREATE, "a", NULL), 0);
	assert_int_equal(
	    decide(p, "plain", TRUST_SESSION, POP_DELETE, "a", NULL), 0);
	policy_free(p);
}

static void test_policy_approval_ask_and_blocked(void **s)
{
	struct policy *p = load(approval_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(
	    decide(p, "final", TRUST_SESSION, POP_CREATE, "a", NULL),
	    POLICY_ASK);
	assert_int_equal(
	    decide(p, "final", TRUST_SESSION, POP_WRITE, "a", NULL),
	    POLICY_ASK);
	assert_int_equal(
	    decide(p, "final", TRUST_SESSION, POP_DELETE, "a", &why), -EACCES);
	assert_string_equal(why.msg, "deletes in /final are blocked");
	/* rename over an existing file deletes it: blocked wins over ask */
	assert_int_equal(
	    decide(p, "final", TRUST_SESSION, POP_REPLACE, "a", NULL), -EACCES);
	assert_int_equal(decide(p, "final", TRUST_SESSION, POP_READ, "a", NULL),
			 0);
	policy_free(p);
}

/* gfs_fmt() refuses to cut; an error message that was cut says so. */
static void test_gfs_fmt_and_err_never_cut_silently(void **s)
{
	struct gfs_err err = { 0 };
	char buf[8] = "x", big[300];

	(void)s;
	assert_int_equal(gfs_fmt(buf, sizeof(buf), "%s", "1234567"), 0);
	assert_string_equal(buf, "1234567");
	assert_int_equal(gfs_fmt(buf, sizeof(buf), "%s", "12345678"),
			 -ENAMETOOLONG);
	assert_string_equal(buf, "");
	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	gfs_err_set(&err, -ENOENT, "%s", big);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	assert_string_equal(err.msg + sizeof(err.msg) - 4, "...");
	gfs_err_set(&err, -ENOENT, "short");
	gfs_err_prefix(&err, "%s", big);
	assert_string_equal(err.msg + sizeof(err.msg) - 4, "...");
	gfs_err_set(&err, -ENOENT, "short");
	gfs_err_prefix(&err, "zone");
	assert_string_equal(err.msg, "zone: short");
}

/* A long suffix list is shortened by whole names, never mid-name. */
static void test_policy_suffix_reason_never_cuts_a_suffix(void **s)
{
	struct policy *p =
	    load("sandbox:\n  zones:\n"
		 "    in: { path: ./i, mode: rw, suffixes: "
		 "[.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, "
		 ".bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, "
		 ".cccccccccccccccccccccccccccccccccccccccc, "
		 ".dddddddddddddddddddddddddddddddddddddddd, "
		 ".eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee] }\n");
	struct policy_req r = { .op = POP_CREATE, .trust = TRUST_SESSION };
	struct gfs_err why = { 0 };

	(void)s;
	r.zone = policy_find_zone(p, "in");
	r.path = "a.exe";
	assert_int_equal(policy_decide(p, &r, &why), -EACCES);
	assert_string_equal(why.msg,
			    "/in takes only files named "
			    "*{.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, "
			    ".bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, "
			    ".cccccccccccccccccccccccccccccccccccccccc, ...}");
	policy_free(p);
}

static void test_policy_suffix_list_limits_files_not_dirs(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    in: { path: ./i, mode: rw, suffixes: "
				"[.pdf, .md] }\n");
	struct policy_req r = { .op = POP_CREATE, .trust = TRUST_SESSION };
	struct gfs_err why = { 0 };

	(void)s;
	r.zone = policy_find_zone(p, "in");
	r.path = "docs/a.md";
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.path = "docs/a.exe";
	assert_int_equal(policy_decide(p, &r, &why), -EACCES);
	assert_string_equal(why.msg, "/in takes only files named *{.pdf, .md}");
	r.op = POP_READ;
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	r.is_dir = true;
	r.path = "docs";
	r.op = POP_CREATE;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	policy_free(p);
}

static void test_policy_max_file_bytes_is_efbig(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    o: { path: ./o, mode: rw, max_file_bytes:"
				" 100 }\n");
	struct policy_req r = { .op = POP_WRITE,
				.trust = TRUST_SESSION,
				.path = "f" };

	(void)s;
	r.zone = policy_find_zone(p, "o");
	r.size = 100;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.size = 101;
	assert_int_equal(policy_decide(p, &r, NULL), -EFBIG);
	policy_free(p);
}

static void test_policy_protect_defaults_refuse_hooks_and_rc_files(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    o: { path: ./o, mode: rw }\n");
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(decide(p, "o", TRUST_FULL, POP_CREATE,
				".git/hooks/pre-commit", &why),
			 -EACCES);
	/* the user's repository (test_gitrule.c has the git rules) */
	assert_non_null(strstr(why.msg, "existed before this mount"));
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, "a/.profile", &why),
	    -EACCES);
	assert_non_null(strstr(why.msg, "protected"));
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, ".bashrc", NULL), -EACCES);
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_WRITE, "sub/repo/.git/config", NULL),
	    -EACCES);
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_DELETE, ".mcp.json", NULL), -EACCES);
	/* the hooks directory itself cannot be replaced */
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_REPLACE, ".git/hooks", NULL),
	    -EACCES);
	assert_int_equal(decide(p, "o", TRUST_FULL, POP_READ, ".bashrc", NULL),
			 0);
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, "hooks/pre-commit", NULL),
	    0);
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, "x.bashrc", NULL), 0);
	policy_free(p);
}

static void test_policy_protect_allows_empty_dir_and_own_repo(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    o: { path: ./o, mode: rw }\n");
	struct policy_req r = { .op = POP_CREATE,
				.trust = TRUST_SESSION,
				.path = "sub/.profile",
				.is_dir = true };

	(void)s;
	r.zone = policy_find_zone(p, "o");
	/* mkdir plants nothing (in the user's .git it is refused all the
	   same: test_gitrule.c) ... */
	r.empty_dir = true;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	/* ... but moving a full directory there would */
	r.empty_dir = false;
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	/* a repository this session made is the program's own */
	r.path = ".git/hooks/pre-commit";
	r.is_dir = false;
	r.own_repo = true;
	assert_int_equal(policy_decide(p, &r, NULL), 0);
	r.path = ".bashrc";
	assert_int_equal(policy_decide(p, &r, NULL), -EACCES);
	policy_free(p);
}

static void test_policy_protect_globs_from_config(void **s)
{
	struct policy *p = load("sandbox:\n  protect: [\"secrets/**\", "
				"\"*.key\"]\n  zones:\n"
				"    o: { path: ./o, mode: rw }\n");

	(void)s;
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, "secrets/a/b/c", NULL),
	    -EACCES);
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, "d/id.key", NULL), -EACCES);
	/* the configured list replaces the default one */
	assert_int_equal(
	    decide(p, "o", TRUST_FULL, POP_CREATE, ".bashrc", NULL), 0);
	policy_free(p);
}

static void test_policy_glob_match_rules(void **s)
{
	(void)s;
	assert_true(pol_glob_match("*.c", "a.c"));
	assert_false(pol_glob_match("*.c", "d/a.c"));
	assert_true(pol_glob_match("**/*.c", "d/e/a.c"));
	assert_true(pol_glob_match("a/**", "a"));
	assert_true(pol_glob_match("a/**", "a/b/c"));
	assert_false(pol_glob_match("a/**", "ab"));
	assert_true(pol_glob_match("a?c", "abc"));
	assert_false(pol_glob_match("a?c", "a/c"));
}

/* Every string of up to @max bytes from @alpha, one after the other. */
static bool next_word(char *w, size_t max, const char *alpha)
{
	size_t n = strlen(w), i = n, k = strlen(alpha);

	while (i-- > 0) {
		const char *at = strchr(alpha, w[i]);

		if ((size_t)(at - alpha) + 1 < k) {
			w[i] = at[1];
			return true;
		}
		w[i] = alpha[0];
	}
	if (n == max)
		return false;
	w[n] = alpha[0];
	w[n + 1] = '\0';
	return true;
}

/* The single-pass matcher answers as the old backtracking one did. */
static void test_policy_glob_match_agrees_with_reference(void **s)
{
	char pat[8] = "", path[8];
	char *one[2] = { pat, NULL };
	struct policy p = { .protect = one };
	const char *glob;
	size_t pairs = 0;

	(void)s;
	do {
		path[0] = '\0';
		do {
			if (pol_glob_match(pat, path) !=
			    glob_ref_match(pat, path))
				fail_msg("glob '%s' path '%s'", pat, path);
			glob = NULL;
			if (policy_is_protected(&p, path, false, &glob) !=
			    (glob_ref_protected(one, path) != NULL))
				fail_msg("protect '%s' path '%s'", pat, path);
			assert_true(!glob || glob == pat);
			pairs++;
		} while (next_word(path, 6, "ab/"));
	} while (next_word(pat, 5, "a/*?"));
	assert_true(pairs > 1000000);
}

/* With two globs, the one named is the reference's: longest tail first. */
static void test_policy_protect_names_glob_as_reference(void **s)
{
	char g1[8] = "", g2[8], path[8];
	char *two[3] = { g1, g2, NULL };
	struct policy p = { .protect = two };
	const char *glob;

	(void)s;
	do {
		g2[0] = '\0';
		do {
			path[0] = '\0';
			do {
				glob = NULL;
				policy_is_protected(&p, path, false, &glob);
				if (glob != glob_ref_protected(two, path))
					fail_msg("'%s' '%s' path '%s'", g1, g2,
						 path);
			} while (next_word(path, 4, "a/"));
		} while (next_word(g2, 3, "a/*"));
	} while (next_word(g1, 3, "a/*"));
}

/*
 * Globs with many stars against long paths that almost match: the old
 * matcher took time exponential in the stars (it never finished these);
 * the pass is bounded by glob length times path length.
 */
static void test_policy_glob_match_many_stars_is_bounded(void **s)
{
	char pat[128] = "", path[256], deep[256] = "";
	char *one[2] = { pat, NULL };
	struct policy p = { .protect = one };
	size_t i;

	(void)s;
	for (i = 0; i < 30; i++)
		strcat(pat, "*a");
	strcat(pat, "b");
	memset(path, 'a', 200);
	path[200] = '\0';
	assert_false(pol_glob_match(pat, path));
	assert_false(policy_is_protected(&p, path, false, NULL));
	path[199] = 'b';
	assert_true(pol_glob_match(pat, path));

	pat[0] = '\0';
	for (i = 0; i < 30; i++)
		strcat(pat, "**/a");
	strcat(pat, "/b");
	for (i = 0; i < 99; i++)
		strcat(deep, "a/");
	strcat(deep, "c");
	assert_false(pol_glob_match(pat, deep));
	assert_false(policy_is_protected(&p, deep, false, NULL));
	deep[198] = 'b';
	assert_true(pol_glob_match(pat, deep));
	assert_true(policy_is_protected(&p, deep, false, NULL));
}

/* A glob longer than the matcher's stack buffer works the same. */
static void test_policy_glob_match_long_glob(void **s)
{
	char pat[301], path[301];

	(void)s;
	memset(pat, '?', 300);
	pat[300] = '\0';
	memset(path, 'x', 300);
	path[300] = '\0';
	assert_true(pol_glob_match(pat, path));
	path[299] = '\0';
	assert_false(pol_glob_match(pat, path));
	pat[150] = '*';
	assert_true(pol_glob_match(pat, path));
}

/* ---- worker chains ---- */

static const char *chain_yaml =
    "sandbox:\n  zones:\n"
    "    data: { path: ./d, mode: rw }\n"
    "    docs: { path: ./docs, mode: ro }\n"
    "    final: { path: ./f, mode: rw, approval: { write: ask } }\n";

static void test_worker_gets_only_what_it_declares(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n  zones:\n"
				"    - { name: data, mode: ro }\n---\nbody\n",
				&err),
			 0);
	assert_int_equal(policy_find_zone(p, "data")->rights[TRUST_SESSION],
			 RIGHT_RO);
	assert_int_equal(policy_find_zone(p, "docs")->rights[TRUST_FULL], 0);
	assert_int_equal(decide(p, "docs", TRUST_FULL, POP_READ, "x", NULL),
			 -ENOENT);
	policy_free(p);
}

static void test_worker_lowering_is_eacces_with_worker_name(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nname: fmt\nsandbox:\n  zones:\n"
				"    - { name: data, mode: ro }\n---\n",
				NULL),
			 0);
	assert_int_equal(decide(p, "data", TRUST_SESSION, POP_WRITE, "f", &why),
			 -EACCES);
	assert_non_null(strstr(why.msg, "worker 'fmt'"));
	policy_free(p);
}

static void test_worker_asking_more_than_parent_is_exact_error(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n  zones:\n"
				"    - { name: data, mode: ro }\n---\n",
				&err),
			 0);
	assert_int_equal(worker(p,
				"---\nname: b\nsandbox:\n  zones:\n"
				"    - { name: data, mode: rw }\n---\n",
				&err),
			 -EINVAL);
	assert_string_equal(err.msg, "w.worker:5:27: worker 'b': requests "
				     "'rw' on 'data' but parent only has 'ro'");
	/* and the failed worker left the policy as it was */
	assert_int_equal(p->nworkers, 1);
	assert_int_equal(policy_find_zone(p, "data")->rights[TRUST_SESSION],
			 RIGHT_RO);
	policy_free(p);
}

static void test_worker_rw_on_ro_zone_is_refused(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n  zones:\n"
				"    - { name: docs, mode: rw }\n---\n",
				&err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "requests 'rw' on 'docs' but parent "
					"only has 'ro'"));
	policy_free(p);
}

static void test_worker_without_sandbox_gets_empty_root(void **s)
{
	struct policy *p = load(chain_yaml);
	size_t i;
	int t;

	(void)s;
	assert_int_equal(worker(p, "---\nname: a\ndescription: x\n---\n", NULL),
			 0);
	for (i = 0; i < p->nzones; i++)
		for (t = 0; t < TRUST_COUNT; t++)
			assert_int_equal(p->zones[i].rights[t], 0);
	/* found by fuzz_worker: the zones kept their mode and approvals
	   (they used to become rw and preApproved, under no rights) */
	assert_true(policy_find_zone(p, "docs")->ro);
	assert_int_equal(policy_find_zone(p, "final")->approve_write,
			 APPROVAL_ASK);
	policy_free(p);
}

/* Found by fuzz_worker: "---\r" and no newline read before the text. */
static void test_worker_opening_line_without_newline_is_an_error(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p, "---\r-m", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "must start with YAML front matter"));
	policy_free(p);
}

/* Found by fuzz_config: a config without zones (memcpy to NULL). */
static void test_config_without_zones_loads(void **s)
{
	struct policy *p = load("sandbox:\n  zones: {}\n");

	(void)s;
	assert_int_equal(p->nzones, 0);
	policy_free(p);
}

static void test_worker_chain_three_levels_deep(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n  zones:\n"
				"    - { name: data, mode: rw }\n"
				"    - { name: docs, mode: ro }\n---\n",
				&err),
			 0);
	assert_int_equal(worker(p,
				"---\nname: b\nsandbox:\n  zones:\n"
				"    - { name: data, mode: rw }\n---\n",
				&err),
			 0);
	assert_int_equal(worker(p,
				"---\nname: c\nsandbox:\n  zones:\n"
				"    - { name: docs, mode: ro }\n---\n",
				&err),
			 -EINVAL);
	assert_string_equal(err.msg, "w.worker:5:27: worker 'c': requests "
				     "'ro' on 'docs' but parent has no access");
	assert_int_equal(worker(p,
				"---\nname: c\nsandbox:\n  zones:\n"
				"    - { name: data, mode: ro }\n---\n",
				&err),
			 0);
	assert_int_equal(p->nworkers, 3);
	assert_int_equal(policy_find_zone(p, "data")->rights[TRUST_SESSION],
			 RIGHT_RO);
	assert_int_equal(policy_find_zone(p, "docs")->rights[TRUST_SESSION], 0);
	policy_free(p);
}

static void test_worker_approval_only_stricter(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n  zones:\n"
				"    - { name: final, mode: rw, approval: "
				"{ write: preApproved } }\n---\n",
				&err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "parent requires 'ask'"));
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n  zones:\n"
				"    - { name: data, mode: rw, approval: "
				"{ delete: blocked } }\n---\n",
				&err),
			 0);
	assert_int_equal(
	    decide(p, "data", TRUST_SESSION, POP_DELETE, "x", NULL), -EACCES);
	policy_free(p);
}

static void test_worker_readonly_makes_everything_erofs(void **s)
{
	struct policy *p = load(chain_yaml);

	(void)s;
	assert_int_equal(
	    worker(p, "---\nsandbox:\n  readonly: true\n---\n", NULL), 0);
	assert_int_equal(decide(p, "data", TRUST_FULL, POP_CREATE, "x", NULL),
			 -EROFS);
	assert_int_equal(decide(p, "data", TRUST_FULL, POP_READ, "x", NULL), 0);
	policy_free(p);
}

static void test_worker_restrict_must_stay_in_parent(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nsandbox:\n  restrict: /data/src\n"
				"---\n",
				&err),
			 0);
	assert_string_equal(p->restrict_path, "/data/src");
	assert_int_equal(worker(p,
				"---\nname: b\nsandbox:\n"
				"  restrict: /docs\n---\n",
				&err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "outside parent's '/data/src'"));
	policy_free(p);
}

static void test_worker_unknown_zone_names_line_and_col(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p,
				"---\nsandbox:\n  zones:\n"
				"    - { name: nope }\n---\n",
				&err),
			 -EINVAL);
	assert_string_equal(err.msg, "w.worker:4:15: unknown zone 'nope'");
	policy_free(p);
}

static void test_worker_without_front_matter_is_error(void **s)
{
	struct policy *p = load(chain_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(worker(p, "sandbox: {}\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "w.worker:1:1:"));
	policy_free(p);
}

/* ---- bind mounts ---- */

static void test_mounts_keep_order_and_resolve_paths(void **s)
{
	struct policy *p =
	    load("sandbox:\n  mounts:\n"
		 "    - { source: /home/u/prog, target: / }\n"
		 "    - { source: npm, target: /cache/, readonly:"
		 " true }\n");

	(void)s;
	assert_int_equal(p->nzones, 2);
	assert_int_equal(p->nnamed, 0);
	assert_string_equal(p->zones[0].name, "/");
	assert_string_equal(p->zones[1].name, "/cache");
	assert_string_equal(p->zones[1].path, "/proj/npm");
	assert_true(p->zones[1].ro);
	assert_int_equal(
	    decide(p, "/cache", TRUST_SESSION, POP_CREATE, "x", NULL), -EROFS);
	policy_free(p);
}

static void test_mounts_come_after_named_zones_in_any_order(void **s)
{
	struct policy *p = load("sandbox:\n  mounts:\n"
				"    - { source: /a, target: / }\n"
				"  zones:\n    w: { path: ./w }\n");

	(void)s;
	assert_int_equal(p->nnamed, 1);
	assert_string_equal(p->zones[0].name, "w");
	assert_string_equal(p->zones[1].name, "/");
	policy_free(p);
}

/* ---- loading and bad input ---- */

static void test_config_paths_resolve_per_mode(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    a: { path: ./a }\n"
				"    r: { kind: repo, path: . }\n"
				"  root: box\n");
	struct policy *d = load("sandbox:\n  mode: direct\n  zones:\n"
				"    a: { path: ../a }\n");

	(void)s;
	assert_string_equal(p->root, "/proj/box");
	assert_string_equal(policy_find_zone(p, "a")->path, "/proj/box/a");
	assert_string_equal(policy_find_zone(p, "r")->path, "/proj");
	assert_string_equal(p->audit_path, "/proj/box/audit.db");
	assert_string_equal(policy_find_zone(d, "a")->path, "/a");
	policy_free(p);
	policy_free(d);
}

static void test_config_clearance_for_staged_zones(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    st: { kind: staged, repo: ., clearance: "
				"{ binary: allow, max_file_bytes: 500 } }\n");
	const struct policy_zone *z = policy_find_zone(p, "st");
	struct gfs_err err = { 0 };

	(void)s;
	assert_true(z->clear_allow_binary);
	assert_false(z->clear_allow_entropy);
	assert_int_equal(z->clear_max_bytes, 500);
	policy_free(p);
	assert_int_equal(load_err("sandbox:\n  zones:\n    w: { path: x, "
				  "clearance: { binary: allow } }\n",
				  &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.yaml:3:19: only staged zones take "
				     "'clearance'");
	assert_int_equal(load_err("sandbox:\n  zones:\n    s: { kind: "
				  "staged, repo: ., clearance: { binary: "
				  "maybe } }\n",
				  &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.yaml:3:54: clearance binary must be "
				     "refuse or allow, not 'maybe'");
}

/* A staged zone always has a file size bound: 1 GiB, or its own. */
static void test_config_staged_zone_max_file_bytes_defaults_to_1gib(void **s)
{
	struct policy *p = load("sandbox:\n  zones:\n"
				"    st: { kind: staged, repo: . }\n"
				"    big: { kind: staged, repo: ., "
				"max_file_bytes: 5000000000 }\n"
				"    w: { path: w, mode: rw }\n");

	(void)s;
	assert_int_equal(policy_find_zone(p, "st")->max_file_bytes,
			 1073741824ull);
	assert_int_equal(policy_find_zone(p, "big")->max_file_bytes,
			 5000000000ull);
	assert_int_equal(policy_find_zone(p, "w")->max_file_bytes, 0);
	policy_free(p);
}

static void test_embedded_default_has_cache_and_workspace(void **s)
{
	struct policy *p = load(policy_default_yaml);

	(void)s;
	assert_int_equal(p->nzones, 2);
	assert_string_equal(policy_find_zone(p, "cache")->path,
			    "/proj/.sandbox/cache");
	assert_false(policy_find_zone(p, "workspace")->ro);
	assert_int_equal(p->trust, TRUST_SESSION);
	policy_free(p);
}

static const struct {
	const char *yaml;
	const char *msg;
} bad[] = {
	{ "sandbox: [1, 2\n", "t.yaml:2:1: did not find expected ',' or ']' "
			      "while parsing a flow sequence" },
	{ "sandbox:\n  zonez: {}\n",
	  "t.yaml:2:3: unknown key 'zonez' in sandbox" },
	{ "sandbox:\n  zones: []\n",
	  "t.yaml:2:10: zones must be a mapping, not a list" },
	{ "sandbox:\n  zones:\n    a: { path: x, mode: rx }\n",
	  "t.yaml:3:25: mode must be ro or rw, not 'rx'" },
	{ "sandbox:\n  zones:\n    a: { path: x, kind: weird }\n",
	  "t.yaml:3:25: kind must be plain, workspace, repo, staged, session "
	  "or workers, not 'weird'" },
	{ "trust: high\n", "t.yaml:1:8: trust must be untrusted, session, "
			   "workspace or full, not 'high'" },
	{ "sandbox:\n  zones:\n    f: { path: x, approval: { write: maybe } "
	  "}\n",
	  "t.yaml:3:38: approval write must be preApproved, ask or blocked, "
	  "not 'maybe'" },
	{ "sandbox:\n  zones:\n    a: { mode: rw }\n",
	  "t.yaml:3:5: zone 'a' needs a 'path'" },
	{ "sandbox:\n  zones:\n    a: { path: x }\n    a: { path: y }\n",
	  "t.yaml:4:5: duplicate key 'a' (first at line 3)" },
	{ "sandbox:\n  mounts:\n    - { source: /x, target: rel }\n",
	  "t.yaml:3:29: mount target 'rel' must be an absolute path" },
	{ "sandbox:\n  zones:\n    a: { path: x, max_file_bytes: lots }\n",
	  "t.yaml:3:35: max_file_bytes must be a whole number, not 'lots'" },
	{ "sandbox:\n  zones:\n    a: { path: x, trust: { session: rwx } }\n",
	  "t.yaml:3:37: rights must be letters of 'rwld', not 'rwx'" },
	{ "sandbox:\n  zones:\n    s: { kind: staged }\n",
	  "t.yaml:3:5: staged zone 's' needs 'repo'" },
	{ "sandbox:\n  network: maybe\n",
	  "t.yaml:2:12: network must be true or false, not 'maybe'" },
	{ "audit: { on_full: explode }\n",
	  "t.yaml:1:19: on_full must be block, drop or fail, not 'explode'" },
	{ "sandbox:\n  zones:\n    ../x: { path: x }\n",
	  "t.yaml:3:5: zone name '../x' must be letters, digits, '.', '_' or "
	  "'-'" },
	{ "- a\n- b\n",
	  "t.yaml:1:1: the configuration must be a mapping, not a list" },
};

static void test_config_bad_input_names_file_line_col(void **s)
{
	struct gfs_err err;
	size_t i;

	(void)s;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(load_err(bad[i].yaml, &err), -EINVAL);
		assert_string_equal(err.msg, bad[i].msg);
	}
}

static void test_config_empty_text_is_error(void **s)
{
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(load_err("", &err), -EINVAL);
	assert_string_equal(err.msg, "t.yaml:1:1: empty file");
	assert_int_equal(load_err("# only a comment\n", &err), -EINVAL);
}

static void test_override_settings(void **s)
{
	struct policy *p = load(policy_default_yaml);
	struct gfs_err err = { 0 };

	(void)s;
	assert_int_equal(policy_set_override(p, "trust", "full", &err), 0);
	assert_int_equal(p->trust, TRUST_FULL);
	assert_int_equal(policy_set_override(p, "network", "true", &err), 0);
	assert_true(p->network);
	assert_int_equal(policy_set_override(p, "trust", "max", &err), -EINVAL);
	assert_string_equal(err.msg, "-o trust: bad value 'max'");
	assert_int_equal(policy_set_override(p, "colour", "x", &err), -EINVAL);
	policy_free(p);
}

static void test_path_resolve_normalises(void **s)
{
	char *a = pol_path_resolve("/a/b", "../c/./d//e/..");
	char *b = pol_path_resolve("/a", "/x/../../y");

	(void)s;
	assert_string_equal(a, "/a/c/d");
	assert_string_equal(b, "/y");
	free(a);
	free(b);
}

/* ---- guards and nests (policy_resolve, on a real temp dir) ---- */

static char tmpdir[64];

static void tmp_make(const char *const *dirs)
{
	char p[256];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gfs-unit.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	for (; *dirs; dirs++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, *dirs);
		assert_int_equal(mkdir(p, 0700), 0);
	}
}

static void tmp_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

/* @yaml parsed as TMP/golem.yaml and resolved from TMP; NULL on error. */
static struct policy *load_resolved(const char *yaml, struct gfs_err *err)
{
	struct policy *p = NULL;
	char file[128];

	snprintf(file, sizeof(file), "%s/golem.yaml", tmpdir);
	if (policy_parse(&p, yaml, strlen(yaml), file, tmpdir, err))
		return NULL;
	p->config_file = strdup(file);
	assert_non_null(p->config_file);
	if (policy_resolve(p, tmpdir, err)) {
		policy_free(p);
		return NULL;
	}
	return p;
}

static int decide_req(struct policy *p, const char *zone, enum policy_op op,
		      const char *path, bool empty_dir, struct gfs_err *why)
{
	struct policy_req r = { .op = op,
				.trust = TRUST_FULL,
				.path = path,
				.empty_dir = empty_dir };

	r.zone = policy_find_zone(p, zone);
	assert_non_null(r.zone);
	return policy_decide(p, &r, why);
}

static const char *own_yaml =
    "sandbox:\n"
    "  mode: direct\n"
    "  root: ./data/sb\n"
    "  zones:\n"
    "    repo: { kind: repo, path: . }\n"
    "    input: { path: ./input, mode: ro }\n"
    "    final: { path: ./final, mode: rw, approval: { write: ask } }\n"
    "trust: full\n"
    "approval: { hook: ./scripts/approve.sh }\n";

/* A config planted below any zone would be found by discovery when golemfs
   starts there: no name of one is made, changed or replaced, at any depth,
   in any zone but a staged one (reviewed before it reaches the host). */
static void test_config_names_are_never_planted(void **s)
{
	static const char *const dirs[] = { "data", "input", "final", NULL };
	static const enum policy_op ops[] = { POP_CREATE, POP_WRITE,
					      POP_REPLACE };
	struct gfs_err why = { 0 };
	struct policy *p;
	size_t i;

	(void)s;
	tmp_make(dirs);
	p = load_resolved(own_yaml, &why);
	assert_non_null(p);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		assert_int_equal(
		    decide_req(p, "final", ops[i], "golem.yaml", false, &why),
		    -EACCES);
		assert_non_null(strstr(why.msg, "configuration"));
		assert_int_equal(decide_req(p, "final", ops[i],
					    "a/b/golem-forge.config.yaml",
					    false, NULL),
				 -EACCES);
		assert_int_equal(decide_req(p, "repo", ops[i],
					    "sub/dir/golem.yaml", false, NULL),
				 -EACCES);
	}
	/* a directory of that name too (discovery only asks if it exists) */
	assert_int_equal(
	    decide_req(p, "final", POP_CREATE, "golem.yaml", true, NULL),
	    -EACCES);
	/* reading, deleting, and names that only look alike are fine */
	assert_int_equal(
	    decide_req(p, "final", POP_READ, "golem.yaml", false, NULL), 0);
	assert_int_equal(
	    decide_req(p, "final", POP_CREATE, "golem.yaml.bak", false, NULL),
	    POLICY_ASK);
	assert_int_equal(
	    decide_req(p, "final", POP_CREATE, "my-golem.yaml", false, NULL),
	    POLICY_ASK);
	policy_free(p);
}

static void test_guard_own_files_never_change_through_a_zone(void **s)
{
	static const char *const dirs[] = { "data", "input", "final", NULL };
	struct gfs_err why = { 0 };
	struct policy *p;

	(void)s;
	tmp_make(dirs);
	p = load_resolved(own_yaml, &why);
	assert_non_null(p);
	assert_int_equal(
	    decide_req(p, "repo", POP_WRITE, "golem.yaml", false, &why),
	    -EACCES);
	assert_non_null(strstr(why.msg, "the config file"));
	assert_int_equal(
	    decide_req(p, "repo", POP_READ, "golem.yaml", false, NULL), 0);
	assert_int_equal(
	    decide_req(p, "repo", POP_DELETE, "golem.yaml", false, NULL),
	    -EACCES);
	/* the hook does not exist: its name and the way there are guarded */
	assert_int_equal(decide_req(p, "repo", POP_CREATE, "scripts/approve.sh",
				    false, NULL),
			 -EACCES);
	assert_int_equal(
	    decide_req(p, "repo", POP_CREATE, "scripts", true, NULL), 0);
	assert_int_equal(
	    decide_req(p, "repo", POP_CREATE, "scripts", false, NULL), -EACCES);
	assert_int_equal(
	    decide_req(p, "repo", POP_DELETE, "scripts", false, NULL), -EACCES);
	/* a directory above the sandbox root: not moved, not replaced */
	assert_int_equal(decide_req(p, "repo", POP_DELETE, "data", false, &why),
			 -EACCES);
	assert_non_null(strstr(why.msg, "holds the sandbox root"));
	assert_int_equal(
	    decide_req(p, "repo", POP_REPLACE, "data", false, NULL), -EACCES);
	assert_int_equal(decide_req(p, "repo", POP_WRITE, "data", false, NULL),
			 0);
	assert_int_equal(
	    decide_req(p, "repo", POP_CREATE, "data/x", false, NULL), 0);
	assert_int_equal(decide_req(p, "repo", POP_CREATE, "data/sb/sessions/x",
				    false, NULL),
			 -EACCES);
	assert_int_equal(decide_req(p, "repo", POP_CREATE,
				    "data/sb/audit.db-wal", false, NULL),
			 -EACCES);
	/* what discovery would read next time */
	assert_int_equal(decide_req(p, "repo", POP_CREATE,
				    "golem-forge.config.yaml", false, NULL),
			 -EACCES);
	assert_int_equal(
	    decide_req(p, "repo", POP_CREATE, "other.yaml", false, NULL), 0);
	policy_free(p);
	tmp_remove();
}

static void test_nested_zone_gets_the_stricter_rules_of_both(void **s)
{
	static const char *const dirs[] = { "data", "input", "final", NULL };
	const struct policy_zone *repo;
	struct gfs_err why = { 0 };
	struct policy *p;

	(void)s;
	tmp_make(dirs);
	p = load_resolved(own_yaml, &why);
	assert_non_null(p);
	assert_int_equal(
	    decide_req(p, "repo", POP_WRITE, "input/a.md", false, &why),
	    -EROFS);
	assert_non_null(strstr(why.msg, "/repo/input/a.md is also "
					"/input/a.md: /input is read-only"));
	assert_int_equal(
	    decide_req(p, "repo", POP_READ, "input/a.md", false, NULL), 0);
	assert_int_equal(
	    decide_req(p, "repo", POP_CREATE, "final/x", false, NULL),
	    POLICY_ASK);
	assert_int_equal(
	    decide_req(p, "repo", POP_CREATE, "finalx", false, NULL), 0);
	assert_int_equal(decide_req(p, "repo", POP_DELETE, "input", true, &why),
			 -EACCES);
	assert_non_null(strstr(why.msg, "directory of zone /input"));
	/* through the inner zone, its own rules */
	assert_int_equal(decide_req(p, "final", POP_CREATE, "x", false, NULL),
			 POLICY_ASK);
	repo = policy_find_zone(p, "repo");
	assert_int_equal(policy_area(repo, "a.txt"), 0);
	assert_int_not_equal(policy_area(repo, "input/a"), 0);
	assert_int_not_equal(policy_area(repo, "input/a"),
			     policy_area(repo, "final/a"));
	assert_int_equal(policy_area(repo, "inputx"), 0);
	policy_free(p);
	tmp_remove();
}

static void test_guard_find_rules(void **s)
{
	char rel0[] = "a/conf", host0[] = "/h", rel1[] = "t", host1[] = "/t";
	struct policy_guard g[] = {
		{ .rel = rel0, .host = host0, .what = "x" },
		{ .rel = rel1, .host = host1, .what = "y", .tree = true },
	};
	struct policy_zone z = { .guards = g, .nguards = 2 };

	(void)s;
	assert_null(policy_guard_find(&z, "a/conf", POP_READ, false));
	assert_ptr_equal(policy_guard_find(&z, "a/conf", POP_WRITE, false),
			 &g[0]);
	assert_null(policy_guard_find(&z, "a/conf2", POP_WRITE, false));
	assert_null(policy_guard_find(&z, "a/conf/x", POP_CREATE, false));
	assert_ptr_equal(policy_guard_find(&z, "a", POP_DELETE, false), &g[0]);
	assert_ptr_equal(policy_guard_find(&z, "a", POP_REPLACE, false), &g[0]);
	assert_ptr_equal(policy_guard_find(&z, "a", POP_CREATE, false), &g[0]);
	assert_null(policy_guard_find(&z, "a", POP_CREATE, true));
	assert_null(policy_guard_find(&z, "a", POP_WRITE, false));
	assert_ptr_equal(policy_guard_find(&z, "t/deep/x", POP_CREATE, true),
			 &g[1]);
	assert_null(policy_guard_find(&z, "tt", POP_DELETE, false));
	assert_string_equal(policy_path_rel("/a/b/c", "/a/b"), "c");
	assert_string_equal(policy_path_rel("/a/b", "/a/b"), "");
	assert_null(policy_path_rel("/a/bc", "/a/b"));
	assert_string_equal(policy_path_rel("/a", "/"), "a");
	assert_true(policy_path_within("/a/b/c", "/a/b"));
	assert_true(policy_path_within("/a/b", "/a/b"));
	assert_false(policy_path_within("/a/bc", "/a/b"));
	assert_false(policy_path_within("/a", "/a/b"));
	assert_true(policy_path_within("/a", "/"));
	assert_true(policy_path_within("/", "/"));
}

static void test_zone_path_through_symlink_in_writable_zone_is_error(void **s)
{
	static const char *const dirs[] = { "real", NULL };
	struct gfs_err err = { 0 };
	char link[128];
	struct policy *p;

	(void)s;
	tmp_make(dirs);
	snprintf(link, sizeof(link), "%s/in", tmpdir);
	assert_int_equal(symlink("real", link), 0);
	p = load_resolved("sandbox:\n"
			  "  mode: direct\n"
			  "  zones:\n"
			  "    all: { path: ., mode: rw }\n"
			  "    input: { path: ./in/sub, mode: ro }\n",
			  &err);
	assert_null(p);
	assert_non_null(strstr(err.msg, "golem.yaml:5:5: zone 'input': "));
	assert_non_null(strstr(err.msg, "runs through symlink"));
	assert_non_null(strstr(err.msg, "writable zone 'all'"));
	/* the same link inside a read-only zone is fine */
	p = load_resolved("sandbox:\n"
			  "  mode: direct\n"
			  "  zones:\n"
			  "    all: { path: ., mode: ro }\n"
			  "    input: { path: ./in, mode: ro }\n",
			  &err);
	assert_non_null(p);
	assert_non_null(strstr(policy_find_zone(p, "input")->real, "/real"));
	policy_free(p);
	tmp_remove();
}

static void test_worker_restrict_must_exist_and_stay_in_root(void **s)
{
	static const char *const dirs[] = { "w", "w/src", NULL };
	struct gfs_err err = { 0 };
	struct policy *p;
	static const char *yaml = "sandbox:\n"
				  "  mode: direct\n"
				  "  zones:\n"
				  "    work: { path: ./w, mode: rw }\n";

	(void)s;
	tmp_make(dirs);
	p = load_resolved(yaml, &err);
	assert_non_null(p);
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n"
				"  restrict: /../etc\n---\n",
				&err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "w.worker:4:13: restrict '/../etc' "
					"leaves the root"));
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n"
				"  zones: [ { name: work } ]\n"
				"  restrict: /work/nope\n---\n",
				&err),
			 0);
	assert_int_equal(policy_resolve(p, tmpdir, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "w.worker:5:13: worker 'a': restrict "
					"'/work/nope' does not exist"));
	policy_free(p);
	p = load_resolved(yaml, &err);
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n"
				"  zones: [ { name: work } ]\n"
				"  restrict: /work/src\n---\n",
				&err),
			 0);
	assert_int_equal(policy_resolve(p, tmpdir, &err), 0);
	policy_free(p);
	p = load_resolved(yaml, &err);
	assert_int_equal(worker(p,
				"---\nname: a\nsandbox:\n"
				"  restrict: /elsewhere\n---\n",
				&err),
			 0);
	assert_int_equal(policy_resolve(p, tmpdir, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no zone or mount holds it"));
	policy_free(p);
	tmp_remove();
}

/* suffixes and protect: lists of strings, each item checked, in order. */
static void test_config_string_lists(void **s)
{
	struct gfs_err err = { 0 };
	struct policy *p;

	(void)s;
	p = load("sandbox:\n"
		 "  protect: [\"*.key\", \"secret/**\"]\n"
		 "  zones:\n"
		 "    a: { path: ./a, suffixes: [.md, .txt] }\n");
	assert_string_equal(p->protect[0], "*.key");
	assert_string_equal(p->protect[1], "secret/**");
	assert_null(p->protect[2]);
	assert_string_equal(p->zones[0].suffixes[0], ".md");
	assert_string_equal(p->zones[0].suffixes[1], ".txt");
	assert_null(p->zones[0].suffixes[2]);
	policy_free(p);
	assert_int_equal(
	    load_err("sandbox:\n  zones:\n"
		     "    a: { path: ./a, suffixes: [.md, a/b] }\n",
		     &err),
	    -EINVAL);
	assert_string_equal(err.msg, "t.yaml:3:37: bad suffix 'a/b'");
	assert_int_equal(load_err("sandbox:\n  zones:\n"
				  "    a: { path: ./a, suffixes: .md }\n",
				  &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.yaml:3:31: suffixes must be a list, "
				     "not a value");
	assert_int_equal(load_err("sandbox:\n  protect: [a, /etc]\n", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.yaml:2:16: protect glob '/etc' must "
				     "be a relative pattern");
	assert_int_equal(load_err("sandbox:\n  protect: [a, [b]]\n", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.yaml:2:16: a protect glob must be a "
				     "value, not a list");
}

static void test_config_duplicate_keys_are_errors(void **s)
{
	struct gfs_err err = { 0 };
	struct policy *p;

	(void)s;
	assert_int_equal(
	    load_err("trust: full\nsandbox: {}\ntrust: session\n", &err),
	    -EINVAL);
	assert_string_equal(err.msg, "t.yaml:3:1: duplicate key 'trust' "
				     "(first at line 1)");
	assert_int_equal(load_err("sandbox:\n"
				  "  zones:\n"
				  "    a: { path: ./a }\n"
				  "    a: { path: ./b, mode: rw }\n",
				  &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.yaml:4:5: duplicate key 'a' "
				     "(first at line 3)");
	assert_int_equal(load_err("sandbox:\n"
				  "  zones:\n"
				  "    a: { path: ./a, mode: ro, mode: rw }\n",
				  &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "t.yaml:3:31: duplicate key 'mode'"));
	p = load("sandbox:\n  zones:\n    a: { path: ./a }\n");
	assert_int_equal(worker(p, "---\nname: w\nname: v\n---\n", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "w.worker:3:1: duplicate key 'name' "
				     "(first at line 2)");
	policy_free(p);
}

static void test_config_binary_or_not_utf8_is_named(void **s)
{
	static const char nul[] = "trust: full\nsand\0box: {}\n";
	static const char bin[] = "---\nname: w\n---\n\x01\x02\0\x03";
	struct gfs_err err = { 0 };
	struct policy *p = NULL;

	(void)s;
	assert_int_equal(load_err("trust: full\n# caf\xe9\n", &err), -EINVAL);
	assert_string_equal(err.msg, "t.yaml:2:6: not UTF-8 text (byte "
				     "0xe9); save the file as UTF-8");
	assert_int_equal(
	    policy_parse(&p, nul, sizeof(nul) - 1, "t.yaml", "/proj", &err),
	    -EINVAL);
	assert_null(p);
	assert_string_equal(err.msg, "t.yaml:2:5: a binary file, not YAML "
				     "text (NUL byte)");
	assert_int_equal(load_err("\xff\xfet\0r\0", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not UTF-8 text (byte 0xff)"));
	/* overlong and surrogate encodings are not UTF-8 either */
	assert_int_equal(load_err("# \xc0\xaf\n", &err), -EINVAL);
	assert_int_equal(load_err("# \xed\xa0\x80\n", &err), -EINVAL);
	p = load("# caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82\ntrust: full\n");
	policy_free(p);
	p = load("sandbox:\n  zones:\n    a: { path: ./a }\n");
	assert_int_equal(
	    policy_apply_worker_text(p, bin, sizeof(bin) - 1, "w.worker", &err),
	    -EINVAL);
	assert_string_equal(err.msg, "w.worker:4:3: a binary file, not YAML "
				     "text (NUL byte)");
	policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_builtin_trust_table_every_cell),
		cmocka_unit_test(
		    test_policy_custom_zone_gets_mode_at_session_and_above),
		cmocka_unit_test(test_policy_plain_zone_defaults_to_ro),
		cmocka_unit_test(test_policy_zone_trust_override),
		cmocka_unit_test(test_policy_mode_is_ceiling_of_trust_override),
		cmocka_unit_test(test_policy_decide_denies_write_in_ro_zone),
		cmocka_unit_test(test_policy_decide_trust_denial_is_eacces),
		cmocka_unit_test(test_policy_decide_hidden_zone_is_enoent),
		cmocka_unit_test(
		    test_policy_untrusted_staged_takes_new_files_only),
		cmocka_unit_test(
		    test_policy_repo_readable_follows_repo_zone_or_table),
		cmocka_unit_test(test_policy_approval_defaults_to_preapproved),
		cmocka_unit_test(test_policy_approval_ask_and_blocked),
		cmocka_unit_test(test_policy_suffix_list_limits_files_not_dirs),
		cmocka_unit_test(test_policy_suffix_reason_never_cuts_a_suffix),
		cmocka_unit_test(test_gfs_fmt_and_err_never_cut_silently),
		cmocka_unit_test(test_policy_max_file_bytes_is_efbig),
		cmocka_unit_test(
		    test_policy_protect_defaults_refuse_hooks_and_rc_files),
		cmocka_unit_test(
		    test_policy_protect_allows_empty_dir_and_own_repo),
		cmocka_unit_test(test_policy_protect_globs_from_config),
		cmocka_unit_test(test_policy_glob_match_rules),
		cmocka_unit_test(test_policy_glob_match_agrees_with_reference),
		cmocka_unit_test(test_policy_protect_names_glob_as_reference),
		cmocka_unit_test(test_policy_glob_match_many_stars_is_bounded),
		cmocka_unit_test(test_policy_glob_match_long_glob),
		cmocka_unit_test(test_worker_gets_only_what_it_declares),
		cmocka_unit_test(
		    test_worker_lowering_is_eacces_with_worker_name),
		cmocka_unit_test(
		    test_worker_asking_more_than_parent_is_exact_error),
		cmocka_unit_test(test_worker_rw_on_ro_zone_is_refused),
		cmocka_unit_test(test_worker_without_sandbox_gets_empty_root),
		cmocka_unit_test(test_config_without_zones_loads),
		cmocka_unit_test(
		    test_worker_opening_line_without_newline_is_an_error),
		cmocka_unit_test(test_worker_chain_three_levels_deep),
		cmocka_unit_test(test_worker_approval_only_stricter),
		cmocka_unit_test(test_worker_readonly_makes_everything_erofs),
		cmocka_unit_test(test_worker_restrict_must_stay_in_parent),
		cmocka_unit_test(test_worker_unknown_zone_names_line_and_col),
		cmocka_unit_test(test_worker_without_front_matter_is_error),
		cmocka_unit_test(test_mounts_keep_order_and_resolve_paths),
		cmocka_unit_test(
		    test_mounts_come_after_named_zones_in_any_order),
		cmocka_unit_test(test_config_paths_resolve_per_mode),
		cmocka_unit_test(test_config_clearance_for_staged_zones),
		cmocka_unit_test(
		    test_config_staged_zone_max_file_bytes_defaults_to_1gib),
		cmocka_unit_test(test_embedded_default_has_cache_and_workspace),
		cmocka_unit_test(test_config_bad_input_names_file_line_col),
		cmocka_unit_test(test_config_empty_text_is_error),
		cmocka_unit_test(test_override_settings),
		cmocka_unit_test(test_path_resolve_normalises),
		cmocka_unit_test(
		    test_guard_own_files_never_change_through_a_zone),
		cmocka_unit_test(test_config_names_are_never_planted),
		cmocka_unit_test(
		    test_nested_zone_gets_the_stricter_rules_of_both),
		cmocka_unit_test(test_guard_find_rules),
		cmocka_unit_test(
		    test_zone_path_through_symlink_in_writable_zone_is_error),
		cmocka_unit_test(
		    test_worker_restrict_must_exist_and_stay_in_root),
		cmocka_unit_test(test_config_string_lists),
		cmocka_unit_test(test_config_duplicate_keys_are_errors),
		cmocka_unit_test(test_config_binary_or_not_utf8_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
