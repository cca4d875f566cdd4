/*
 * Unit tests of the key table (policy/policy_keys.h): the config parser
 * takes exactly the keys the table lists, every row says what the
 * reference prints, and -o and the config file read each setting alike.
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
#include "policy/policy_keys.h"

static struct policy *parse(const char *yaml);

static size_t nrows(void)
{
	size_t n = 0;

	while (policy_keys[n].path)
		n++;
	return n;
}

struct seen {
	bool *row; /* per policy_keys[] row: some handler reads it */
	int paths;
};

static int mark_seen(void *ctx, const char *path)
{
	struct seen *s = ctx;
	const struct policy_key *k = policy_key_find(path);

	if (!k)
		fail_msg("the parser reads '%s', which the key table lacks",
			 path);
	s->row[k - policy_keys] = true;
	s->paths++;
	return 0;
}

/* A key in the parser and not in the table, or the reverse, fails. */
static void test_parser_takes_exactly_the_table(void **state)
{
	struct seen s = { calloc(nrows(), sizeof(bool)), 0 };
	size_t i;

	(void)state;
	assert_non_null(s.row);
	assert_int_equal(pol_config_walk(mark_seen, &s), 0);
	assert_true(s.paths > 30);
	for (i = 0; policy_keys[i].path; i++)
		if (!s.row[i])
			fail_msg("the key table lists '%s', which the parser "
				 "does not read",
				 policy_keys[i].path);
	free(s.row);
}

/* Parents come before their children, so the reference reads in order. */
static void check_rows(const struct policy_key *table)
{
	const struct policy_key *k, *p;
	int i;

	for (k = table; k->path; k++) {
		if (!k->doc || !k->applies || !*k->doc)
			fail_msg("%s: no doc or applies", k->path);
		assert_ptr_equal(policy_key_lookup(table, k->path), k);
		assert_true(k->type != PKT_ENUM || k->values);
		assert_true(k->type != PKT_UINT || k->unit);
		for (i = 0; k->values && k->values[i]; i++)
			assert_int_equal(policy_key_enum(k, k->values[i]), i);
		/* -o settings: exactly those with an apply() */
		assert_true(!k->option == !k->apply);
		if (policy_key_is_child(k, ""))
			continue;
		for (p = table; p < k; p++)
			if (policy_key_is_child(k, p->path))
				break;
		if (p == k)
			fail_msg("%s: no parent row before it", k->path);
		assert_true(p->type == PKT_MAP || p->type == PKT_NAMES ||
			    p->type == PKT_LIST);
	}
}

static void test_rows_are_complete(void **state)
{
	const struct policy_key *k;

	(void)state;
	check_rows(policy_keys);
	check_rows(policy_worker_keys);
	for (k = policy_worker_keys; k->path; k++)
		assert_null(k->option);
}

/*
 * A worker file with every key of policy_worker_keys[] loads, and a key
 * the table lacks is refused (worker.c reads no key the table does not
 * list).
 */
static void test_worker_keys_are_read(void **state)
{
	static const char full[] =
	    "---\n"
	    "name: tidy\n"
	    "description: ignored, as any other top-level key\n"
	    "sandbox:\n"
	    "  zones:\n"
	    "    - name: a\n"
	    "      mode: rw\n"
	    "      approval: { write: ask, delete: blocked }\n"
	    "  restrict: /a\n"
	    "  readonly: false\n"
	    "---\n";
	static const char *const refused[] = {
		"---\nsandbox: { colour: 1 }\n---\n",
		"---\nsandbox: { zones: [ { name: a, colour: 1 } ] }\n---\n",
		"---\nsandbox: { zones: [ { name: a, approval: { read: ask } } "
		"] }\n---\n",
	};
	struct policy *p = parse("sandbox:\n  zones:\n    a: { path: ./a, "
				 "mode: rw }\n");
	const struct policy_key *k;
	struct gfs_err err = { 0 };
	char seg[64];
	size_t i;

	(void)state;
	for (k = policy_worker_keys; k->path; k++) {
		const char *last = strrchr(k->path, '.');

		snprintf(seg, sizeof(seg), "%s:", last ? last + 1 : k->path);
		if (!strstr(full, seg))
			fail_msg("the test's worker lacks '%s'", k->path);
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(policy_apply_worker_text(p, refused[i],
							  strlen(refused[i]),
							  "w.worker", &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "unknown key"));
	}
	if (policy_apply_worker_text(p, full, strlen(full), "w.worker", &err))
		fail_msg("%s", err.msg);
	assert_string_equal(p->restrict_path, "/a");
	policy_free(p);
}

static void test_key_is_child(void **state)
{
	const struct policy_key *kind =
	    policy_key_find("sandbox.zones.NAME.kind");
	const struct policy_key *src =
	    policy_key_find("sandbox.mounts[].source");

	(void)state;
	assert_true(policy_key_is_child(policy_key_find("trust"), ""));
	assert_false(policy_key_is_child(kind, ""));
	assert_false(policy_key_is_child(kind, "sandbox"));
	assert_true(policy_key_is_child(kind, "sandbox.zones"));
	assert_true(policy_key_is_child(src, "sandbox.mounts"));
	assert_false(policy_key_is_child(src, "sandbox.mount"));
	assert_true(policy_key_is_child(
	    policy_key_find("sandbox.zones.NAME.trust.LEVEL"),
	    "sandbox.zones.NAME.trust"));
}

static void test_key_find_matches_levels(void **state)
{
	const struct policy_key *k;

	(void)state;
	k = policy_key_find("sandbox.zones.NAME.trust.full");
	assert_non_null(k);
	assert_string_equal(k->path, "sandbox.zones.NAME.trust.LEVEL");
	assert_null(policy_key_find("sandbox.zones.NAME.trust.max"));
	assert_null(policy_key_find("sandbox.zones.NAME.trust.LEVEL.x"));
	assert_null(policy_key_find("audit.on_full.x"));
	assert_null(policy_key_find("colour"));
	assert_non_null(policy_key_find("trust"));
}

static void test_values_read_as_a_list(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(policy_key_values(policy_key_find("audit.on_full"),
					      buf, sizeof(buf)),
			    "block, drop or fail");
	assert_string_equal(
	    policy_key_values(policy_key_find("sandbox.symlinks"), buf,
			      sizeof(buf)),
	    "inside or deny");
	/* too small: an error, never a cut list */
	assert_null(
	    policy_key_values(policy_key_find("audit.on_full"), buf, 10));
}

static struct policy *parse(const char *yaml)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;

	if (policy_parse(&p, yaml, strlen(yaml), "t.yaml", "/proj", &err))
		fail_msg("policy_parse: %s\n%s", err.msg, yaml);
	return p;
}

/* golem.yaml text that sets table key @path (no NAME or []) to @v. */
static void yaml_for(char *buf, size_t size, const char *path, const char *v)
{
	const char *dot;
	size_t n = 0;
	int depth = 0;

	for (; (dot = strchr(path, '.')); path = dot + 1, depth++)
		n += (size_t)snprintf(buf + n, size - n, "%*s%.*s:\n",
				      2 * depth, "", (int)(dot - path), path);
	snprintf(buf + n, size - n, "%*s%s: %s\n", 2 * depth, "", path, v);
}

static void assert_same_settings(const struct policy *a, const struct policy *b)
{
	assert_int_equal(a->trust, b->trust);
	assert_int_equal(a->network, b->network);
	assert_int_equal(a->symlinks, b->symlinks);
	assert_int_equal(a->audit_on_full, b->audit_on_full);
	assert_int_equal(a->audit_enabled, b->audit_enabled);
	assert_int_equal(a->audit_queue, b->audit_queue);
	assert_int_equal(a->hook_timeout, b->hook_timeout);
	assert_string_equal(a->audit_path, b->audit_path);
	assert_true(!a->hook == !b->hook);
	if (a->hook)
		assert_string_equal(a->hook, b->hook);
}

/* @v set by the config file and by -o gives the same policy. */
static void check_alike(const struct policy_key *k, const char *v)
{
	struct gfs_err err = { 0 };
	struct policy *y, *o;
	char yaml[256];

	yaml_for(yaml, sizeof(yaml), k->path, v);
	y = parse(yaml);
	o = parse("trust: session\n");
	if (policy_set_override(o, k->option, v, &err))
		fail_msg("-o %s=%s: %s", k->option, v, err.msg);
	assert_same_settings(y, o);
	policy_free(y);
	policy_free(o);
}

static void test_option_and_config_read_alike(void **state)
{
	const struct policy_key *k;
	char num[32];
	int i, n = 0;

	(void)state;
	for (k = policy_keys; k->path; k++) {
		if (!k->option)
			continue;
		n++;
		switch (k->type) {
		case PKT_ENUM:
			for (i = 0; k->values[i]; i++)
				check_alike(k, k->values[i]);
			break;
		case PKT_BOOL:
			check_alike(k, "true");
			check_alike(k, "false");
			break;
		case PKT_UINT:
			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)k->min);
			check_alike(k, num);
			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)k->max);
			check_alike(k, num);
			break;
		default:
			check_alike(k, "./sub/../x");
			check_alike(k, "/abs/y");
			break;
		}
	}
	assert_int_equal(n, 9);
}

static const char *defaults_yaml = "sandbox:\n"
				   "  zones:\n"
				   "    a: { path: ./a }\n"
				   "    s: { kind: staged, repo: . }\n"
				   "  mounts:\n"
				   "    - { source: ./m, target: /m }\n";

static const char *def_of(const char *path)
{
	const struct policy_key *k = policy_key_find(path);

	assert_non_null(k);
	assert_non_null(k->def);
	return k->def;
}

static int enum_def(const char *path)
{
	const struct policy_key *k = policy_key_find(path);
	int i = policy_key_enum(k, def_of(path));

	assert_true(i >= 0);
	return i;
}

/* What the reference calls a key's default is what a config without it
 * gets. */
static void test_table_defaults_are_the_parsers(void **state)
{
	struct policy *p = parse(defaults_yaml), *o;
	const struct policy_zone *a = policy_find_zone(p, "a");
	const struct policy_zone *s = policy_find_zone(p, "s");
	const struct policy_zone *m = policy_find_zone(p, "/m");
	const struct policy_key *k;
	struct gfs_err err = { 0 };
	char joined[256] = "";
	size_t i;

	(void)state;
	assert_non_null(a);
	assert_non_null(s);
	assert_non_null(m);
	/* each -o setting given its documented default changes nothing */
	for (k = policy_keys; k->path; k++) {
		if (!k->option || k->type == PKT_PATH || k->type == PKT_COMMAND)
			continue;
		o = parse(defaults_yaml);
		if (policy_set_override(o, k->option, k->def, &err))
			fail_msg("%s: default '%s': %s", k->path, k->def,
				 err.msg);
		assert_same_settings(p, o);
		policy_free(o);
	}
	assert_int_equal(enum_def("sandbox.mode"), p->direct);
	assert_string_equal(p->root, "/proj/.sandbox");
	assert_string_equal(def_of("sandbox.root"), ".sandbox");
	assert_int_equal(enum_def("sandbox.zones.NAME.kind"), a->kind);
	assert_true(a->ro); /* plain */
	assert_false(s->ro);
	assert_int_equal(enum_def("sandbox.zones.NAME.approval.write"),
			 a->approve_write);
	assert_int_equal(enum_def("sandbox.zones.NAME.approval.delete"),
			 a->approve_delete);
	assert_string_equal(def_of("sandbox.zones.NAME.branch"), s->branch);
	assert_int_equal(enum_def("sandbox.zones.NAME.clearance.binary"),
			 s->clear_allow_binary);
	assert_int_equal(enum_def("sandbox.zones.NAME.clearance.entropy"),
			 s->clear_allow_entropy);
	assert_int_equal(a->max_file_bytes, 0);
	assert_int_equal(s->max_file_bytes, 1073741824);
	assert_non_null(
	    strstr(def_of("sandbox.zones.NAME.max_file_bytes"), "1073741824"));
	assert_string_equal(def_of("sandbox.mounts[].readonly"),
			    m->ro ? "true" : "false");
	for (i = 0; p->protect[i]; i++)
		snprintf(joined + strlen(joined),
			 sizeof(joined) - strlen(joined), "%s%s", i ? ", " : "",
			 p->protect[i]);
	assert_string_equal(def_of("sandbox.protect"), joined);
	assert_string_equal(def_of("audit.path"), "ROOT/audit.db");
	assert_string_equal(p->audit_path, "/proj/.sandbox/audit.db");
	assert_string_equal(def_of("approval.hook"), "none");
	assert_null(p->hook);
	policy_free(p);
}

/* What -o refuses, with the texts users and tests see. */
static void test_option_refusals(void **state)
{
	struct policy *p = parse("trust: session\n");
	struct gfs_err err = { 0 };

	(void)state;
	assert_int_equal(policy_set_override(p, "audit.queue", "3", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "-o audit.queue: bad value '3'");
	assert_int_equal(
	    policy_set_override(p, "audit.queue", "10000001", &err), -EINVAL);
	assert_int_equal(policy_set_override(p, "approval.timeout", "", &err),
			 -EINVAL);
	assert_int_equal(policy_set_override(p, "audit.path", "", &err),
			 -EINVAL);
	assert_int_equal(policy_set_override(p, "symlinks", "allow", &err),
			 -EINVAL);
	/* booleans are spelt true or false on the command line only */
	assert_int_equal(policy_set_override(p, "network", "yes", &err),
			 -EINVAL);
	assert_string_equal(err.msg, "-o network: bad value 'yes'");
	/* the config file's own names are not -o names */
	assert_false(policy_is_setting("sandbox.network"));
	assert_true(policy_is_setting("network"));
	assert_int_equal(policy_set_override(p, "colour", "x", &err), -EINVAL);
	assert_string_equal(err.msg,
			    "-o colour: unknown setting (known: symlinks, "
			    "network, trust, approval.hook, approval.timeout, "
			    "audit.path, audit.on_full, audit.enabled, "
			    "audit.queue)");
	policy_free(p);
}

/* A bare command: YAML leaves it to PATH, -o resolves it (as before). */
static void test_hook_bare_name(void **state)
{
	struct policy *p = parse("approval: { hook: notify }\n");
	struct gfs_err err = { 0 };

	(void)state;
	assert_string_equal(p->hook, "notify");
	assert_int_equal(
	    policy_set_override(p, "approval.hook", "notify", &err), 0);
	assert_string_equal(p->hook, "/proj/notify");
	policy_free(p);
}

/* The config file's errors for these keys, worded from the table. */
static void test_config_errors_from_the_table(void **state)
{
	static const struct {
		const char *yaml, *msg;
	} cases[] = {
		{ "audit: { queue: 3 }\n",
		  "t.yaml:1:17: audit queue must be 4 to 10000000 events" },
		{ "approval: { timeout: 0 }\n",
		  "t.yaml:1:22: approval timeout must be 1 to 3600 seconds" },
		{ "approval: { timeout: soon }\n",
		  "t.yaml:1:22: approval timeout must be a whole number, not "
		  "'soon'" },
		{ "sandbox: { mode: open }\n",
		  "t.yaml:1:18: sandbox mode must be sandboxed or direct, not "
		  "'open'" },
		{ "sandbox: { symlinks: [a] }\n",
		  "t.yaml:1:22: symlinks must be a value, not a list" },
		{ "audit: { enabled: maybe }\n",
		  "t.yaml:1:19: audit enabled must be true or false, not "
		  "'maybe'" },
		{ "approval: { hook: '' }\n", "t.yaml:1:19: hook must not be "
					      "empty" },
		{ "audit: { colour: red }\n",
		  "t.yaml:1:10: unknown key 'colour' in audit" },
	};
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(policy_parse(&p, cases[i].yaml,
					      strlen(cases[i].yaml), "t.yaml",
					      "/proj", &err),
				 -EINVAL);
		assert_string_equal(err.msg, cases[i].msg);
	}
}

/*
 * The README's example config (the first yaml block of its Configuration
 * section) is one golemfs takes: the README keeps no copy of the reference
 * that could drift, and its one example stays valid.
 */
static void test_readme_example_loads(void **state)
{
	const char *readme = getenv("GOLEMFS_README");
	char *text = NULL, *at, *end;
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	size_t len;

	(void)state;
	if (!readme)
		skip();
	assert_int_equal(pol_read_file(readme, &text, &len, &err), 0);
	at = strstr(text, "\n## Configuration\n");
	assert_non_null(at);
	at = strstr(at, "\n```yaml\n");
	assert_non_null(at);
	at += strlen("\n```yaml\n");
	end = strstr(at, "\n```\n");
	assert_non_null(end);
	if (policy_parse(&p, at, (size_t)(end - at) + 1, "README.md", "/proj",
			 &err))
		fail_msg("the README's example: %s", err.msg);
	assert_non_null(policy_find_zone(p, "staged"));
	policy_free(p);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parser_takes_exactly_the_table),
		cmocka_unit_test(test_rows_are_complete),
		cmocka_unit_test(test_key_is_child),
		cmocka_unit_test(test_worker_keys_are_read),
		cmocka_unit_test(test_key_find_matches_levels),
		cmocka_unit_test(test_values_read_as_a_list),
		cmocka_unit_test(test_option_and_config_read_alike),
		cmocka_unit_test(test_option_refusals),
		cmocka_unit_test(test_table_defaults_are_the_parsers),
		cmocka_unit_test(test_hook_bare_name),
		cmocka_unit_test(test_readme_example_loads),
		cmocka_unit_test(test_config_errors_from_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
