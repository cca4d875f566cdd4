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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * A model of a zone, to test that the rule keeps its promise under moves:
 * a tree of directories, files and links, changed at random by mkdir,
 * symlink, hard links of links, renames and exchanges, each refused as
 * fs/links.c refuses it; after every change each link is resolved as the
 * kernel does (".." from where a link led, at most 40 links) and must
 * never take ".." at the zone's top.
 */
#define M_MAX 64
#define M_LINKS 40

enum m_kind { M_FREE, M_DIR, M_FILE, M_LINK, M_ANY /* for m_pick */ };

struct m_node {
	enum m_kind kind;
	int parent;
	char name[4];
	char target[64];
};

static struct m_node m[M_MAX]; /* m[0] is the zone's top */

static int m_child(int dir, const char *name, size_t n)
{
	int i;

	for (i = 1; i < M_MAX; i++)
		if (m[i].kind != M_FREE && m[i].parent == dir &&
		    strlen(m[i].name) == n && !strncmp(m[i].name, name, n))
			return i;
	return -1;
}

static size_t m_depth(int dir)
{
	size_t d = 0;

	for (; dir != 0; dir = m[dir].parent)
		d++;
	return d;
}

static bool m_within(int n, int top)
{
	for (; n != 0; n = m[n].parent)
		if (n == top)
			return true;
	return top == 0;
}

/* Resolve @rest from directory @cur; false if it climbs above the top. */
static bool m_stays(int cur, const char *rest, int *links)
{
	char path[1024];
	const char *p = rest;
	size_t n;
	int c;

	while (*p) {
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n + (p[n] == '/');
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (cur == 0)
				return false; /* out of the zone */
			cur = m[cur].parent;
			p += n + (p[n] == '/');
			continue;
		}
		c = m_child(cur, p, n);
		p += n + (p[n] == '/');
		if (c < 0 || m[c].kind == M_FILE)
			return true; /* ENOENT, ENOTDIR: leads nowhere */
		if (m[c].kind == M_DIR) {
			cur = c;
			continue;
		}
		if (++*links > M_LINKS)
			return true; /* ELOOP */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", m[c].target,
				     p) >= sizeof(path))
			fail_msg("model: path too long");
		if (path[0] == '/') /* accepted only as TOP/..., names only */
			return m_stays(0, path + strlen(TOP), links);
		return m_stays(cur, path, links);
	}
	return true;
}

static bool m_all_stay(void)
{
	int i, links;

	for (i = 1; i < M_MAX; i++) {
		links = 0;
		if (m[i].kind == M_LINK &&
		    !m_stays(m[i].parent, m[i].target, &links))
			return false;
	}
	return true;
}

/* May every link in @n's subtree sit @depth levels deeper than now? */
static bool m_fits(int n, size_t depth)
{
	struct gfs_err err = { 0 };
	int i;

	if (m[n].kind == M_LINK)
		return policy_link_check(m[n].target, depth, TOP, &err) == 0;
	for (i = 1; i < M_MAX; i++)
		if (m[i].kind != M_FREE && m[i].parent == n &&
		    !m_fits(i, depth + 1))
			return false;
	return true;
}

static int m_free_slot(void)
{
	int i;

	for (i = 1; i < M_MAX; i++)
		if (m[i].kind == M_FREE)
			return i;
	return -1;
}

static int m_pick(enum m_kind kind)
{
	int i, tries;

	for (tries = 0; tries < 200; tries++) {
		i = rand() % M_MAX;
		if (m[i].kind == kind || (kind == M_ANY && i && m[i].kind))
			return i;
	}
	return kind == M_DIR ? 0 : -1;
}

static void m_target(char *t, size_t size)
{
	static const char *const parts[] = { "a", "b", "c", "..", ".", "a" };
	size_t i, n = 0;
	int k = rand() % 4;

	t[0] = '\0';
	if (rand() % 8 == 0)
		n = (size_t)snprintf(t, size, "%s", rand() % 2 ? TOP : "/etc");
	while (k-- > 0 && n + 4 < size)
		n += (size_t)snprintf(t + n, size - n, "%s../", n ? "/" : "");
	for (i = (size_t)(rand() % 4); i > 0 && n + 4 < size; i--)
		n += (size_t)snprintf(t + n, size - n, "%s%s",
				      n && t[n - 1] != '/' ? "/" : "",
				      parts[rand() % 6]);
	if (!t[0])
		snprintf(t, size, ".");
}

/* One random change, refused where fs/ would refuse it. */
static void m_step(void)
{
	struct gfs_err err = { 0 };
	static const char *const names[] = { "a", "b", "c" };
	int d = m_pick(M_DIR), x, y, slot = m_free_slot(), px;
	const char *name = names[rand() % 3];
	char t[64];

	switch (rand() % 6) {
	case 0: /* mkdir, create */
	case 1:
		if (slot < 0 || m_child(d, name, strlen(name)) >= 0)
			return;
		m[slot] = (struct m_node){ .kind = rand() % 3 ? M_DIR : M_FILE,
					   .parent = d };
		snprintf(m[slot].name, sizeof(m[slot].name), "%s", name);
		return;
	case 2: /* symlink, or link(2) of one: a new link at d */
		x = m_pick(M_LINK);
		if (x >= 0 && rand() % 2)
			snprintf(t, sizeof(t), "%s", m[x].target);
		else
			m_target(t, sizeof(t));
		if (slot < 0 || m_child(d, name, strlen(name)) >= 0 ||
		    policy_link_check(t, m_depth(d), TOP, &err))
			return;
		m[slot] = (struct m_node){ .kind = M_LINK, .parent = d };
		snprintf(m[slot].name, sizeof(m[slot].name), "%s", name);
		snprintf(m[slot].target, sizeof(m[slot].target), "%s", t);
		return;
	case 3: /* rename x into d, higher up only if its links fit */
		x = m_pick(rand() % 2 ? M_DIR : M_LINK);
		if (x <= 0 || m_within(d, x) ||
		    m_child(d, name, strlen(name)) >= 0)
			return;
		if (m_depth(d) < m_depth(m[x].parent) && !m_fits(x, m_depth(d)))
			return;
		m[x].parent = d;
		snprintf(m[x].name, sizeof(m[x].name), "%s", name);
		return;
	case 4: /* exchange x and y */
		x = m_pick(rand() % 2 ? M_DIR : M_LINK);
		y = m_pick(rand() % 2 ? M_DIR : M_LINK);
		if (x <= 0 || y <= 0 || x == y || m_within(x, y) ||
		    m_within(y, x))
			return;
		px = m[x].parent;
		if (m_depth(m[y].parent) < m_depth(px) &&
		    !m_fits(x, m_depth(m[y].parent)))
			return;
		if (m_depth(px) < m_depth(m[y].parent) &&
		    !m_fits(y, m_depth(px)))
			return;
		m[x].parent = m[y].parent;
		m[y].parent = px;
		memcpy(t, m[x].name, sizeof(m[x].name));
		memcpy(m[x].name, m[y].name, sizeof(m[x].name));
		memcpy(m[y].name, t, sizeof(m[y].name));
		return;
	default: /* unlink, rmdir (only when empty) */
		x = m_pick(M_ANY);
		if (x <= 0)
			return;
		for (y = 1; y < M_MAX; y++)
			if (m[y].kind != M_FREE && m[y].parent == x)
				return;
		m[x].kind = M_FREE;
		return;
	}
}

static void test_link_rule_holds_under_random_moves(void **s)
{
	unsigned seed;
	int step;

	(void)s;
	for (seed = 1; seed <= 300; seed++) {
		srand(seed);
		memset(m, 0, sizeof(m));
		m[0].kind = M_DIR;
		for (step = 0; step < 300; step++) {
			m_step();
			if (!m_all_stay())
				fail_msg("seed %u step %d: a link leads out",
					 seed, step);
		}
	}
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
		cmocka_unit_test(test_link_rule_holds_under_random_moves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
