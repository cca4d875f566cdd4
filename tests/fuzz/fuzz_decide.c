/*
 * policy_decide() with its invariants checked on every answer. The policy
 * is the fixed config of fuzz_policy.c, resolved on a real directory
 * tree (so golemfs's own files and a zone inside another are there), the
 * same under a fixed worker, and, when the first byte is odd, under a
 * worker file taken from the input (up to a NUL byte). The rest of the
 * input is a list of requests: op, zone, trust level, flags, size and a
 * path made of names (git's, protected ones, zone directories, others).
 *
 * Invariants, for every request and policy:
 *  - the answer is 0, ask, -EROFS, -EACCES, -EFBIG or -ENOENT; a denial
 *    says why; the answer is the same with and without a reason asked;
 *  - nothing is allowed or asked without the right the op needs at that
 *    trust level; a zone with no right there is ENOENT;
 *  - never a change in a read-only zone, never through a blocked
 *    approval, never without asking where the approval is ask;
 *  - never a change of a protected name, of git's config, hooks or
 *    markers in a repository that is not the program's own, of golemfs's
 *    own files, or past max_file_bytes;
 *  - inside a nested zone, never more than that zone itself allows;
 *  - a worker is a ceiling: never more than the policy without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_policy.h"
#include "policy/policy_int.h"

static const char fixed_worker[] =
    "---\n"
    "name: fixed\n"
    "sandbox:\n"
    "  zones:\n"
    "    - { name: drafts, mode: rw, approval: { delete: ask } }\n"
    "    - { name: inner, mode: rw }\n"
    "    - { name: final, mode: rw }\n"
    "    - { name: input }\n"
    "    - { name: repo, mode: rw }\n"
    "---\n";

static const char *const names[] = {
	".git",
	"config",
	"hooks",
	"pre-commit",
	"HEAD",
	"objects",
	"refs",
	"info",
	".bashrc",
	"a.md",
	"b.pdf",
	"x.key",
	"secret",
	"inner",
	"drafts",
	"docs",
	"final",
	"input",
	"golem.yaml",
	".sandbox",
	"audit.db",
	"sessions",
	"ws",
	"cache",
	"src",
	"commondir",
	"config.worktree",
	"rebase-merge",
	"sub",
	"x.sample",
	"golem-forge.config.yaml",
	"gitdir",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static struct policy *parent, *child;

static struct policy *load(const char *worker, struct gfs_err *err)
{
	const char *workers[2] = { worker, NULL };
	struct policy *p = NULL;

	if (policy_load(&p, fuzz_policy_setup(), worker ? workers : NULL,
			fuzz_dir(), err) < 0)
		return NULL;
	if (policy_resolve(p, fuzz_dir(), err) < 0) {
		policy_free(p);
		return NULL;
	}
	return p;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct gfs_err err = { 0 };
	char file[256];

	(void)argc;
	(void)argv;
	fuzz_policy_setup();
	snprintf(file, sizeof(file), "%s", fuzz_path("fixed.worker"));
	fuzz_write(file, fixed_worker, strlen(fixed_worker));
	parent = load(NULL, &err);
	if (!parent)
		fuzz_fail(__FILE__, __LINE__, err.msg);
	child = load(file, &err);
	if (!child)
		fuzz_fail(__FILE__, __LINE__, err.msg);
	fuzz_check_ceiling(parent, child);
	return 0;
}

struct input {
	const uint8_t *p, *end;
};

static unsigned byte(struct input *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

/* A zone-relative path as the daemon makes them: names joined by '/'. */
static void make_path(struct input *in, char *buf, size_t size)
{
	unsigned n = byte(in) % 6, b, k;
	size_t len = 0;
	char name[17];

	buf[0] = '\0';
	while (n-- > 0) {
		b = byte(in);
		if (b < 0xc0) {
			snprintf(name, sizeof(name), "%s", names[b % NNAMES]);
		} else {
			for (k = 0; k <= (b & 15); k++) {
				name[k] = (char)byte(in);
				if (name[k] == '/' || name[k] == '\0')
					name[k] = '_';
			}
			name[k] = '\0';
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				strcpy(name, "_");
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					len ? "/" : "", name);
		if (len >= size)
			abort();
	}
}

static uint8_t needs(enum policy_op op)
{
	static const uint8_t need[] = {
		[POP_READ] = RIGHT_R,   [POP_LIST] = RIGHT_L,
		[POP_CREATE] = RIGHT_C, [POP_WRITE] = RIGHT_W,
		[POP_DELETE] = RIGHT_D, [POP_REPLACE] = RIGHT_W | RIGHT_D,
	};
	return need[op];
}

static bool mutates(enum policy_op op)
{
	return op != POP_READ && op != POP_LIST;
}

/* NEEDSWORK: this repeats policy/decide.c's approval_for(), so it cannot
   catch a mistake there; write it from the README's approval table. */
static enum approval approval(const struct policy_zone *z, enum policy_op op)
{
	switch (op) {
	case POP_CREATE:
	case POP_WRITE:
		return z->approve_write;
	case POP_DELETE:
		return z->approve_delete;
	case POP_REPLACE:
		return z->approve_write > z->approve_delete ? z->approve_write
							    : z->approve_delete;
	default:
		return APPROVAL_PRE;
	}
}

/* The answer of @p to @r, checked against every invariant. */
static int check(const struct policy *p, const struct policy_req *r)
{
	const struct policy_zone *z = r->zone;
	struct gfs_err why = { 0 };
	enum policy_git_place at;
	int rc = policy_decide(p, r, &why), sub;
	const char *glob;
	size_t i;

	FUZZ_CHECK(rc == policy_decide(p, r, NULL));
	FUZZ_CHECK(rc == 0 || rc == POLICY_ASK || rc == -EROFS ||
		   rc == -EACCES || rc == -EFBIG || rc == -ENOENT);
	if (rc < 0) {
		FUZZ_CHECK(why.code == rc && why.msg[0]);
		return rc;
	}
	FUZZ_CHECK((z->rights[r->trust] & needs(r->op)) == needs(r->op));
	if (!mutates(r->op))
		return rc;
	FUZZ_CHECK(!z->ro);
	FUZZ_CHECK(approval(z, r->op) != APPROVAL_BLOCKED);
	FUZZ_CHECK(approval(z, r->op) != APPROVAL_ASK || rc == POLICY_ASK);
	FUZZ_CHECK((r->op == POP_CREATE && r->empty_dir) ||
		   !policy_is_protected(p, r->path, r->own_repo, &glob));
	at = policy_git_place(z, r->path);
	if (!r->own_repo) {
		FUZZ_CHECK(at != GIT_SENSITIVE);
		FUZZ_CHECK(at != GIT_ENTRY ||
			   (r->op == POP_CREATE && r->empty_dir));
		FUZZ_CHECK(at != GIT_CONTENT || z->kind == ZONE_REPO);
	}
	FUZZ_CHECK(!policy_guard_find(z, r->path, r->op, r->empty_dir));
	FUZZ_CHECK(!z->max_file_bytes || r->size <= z->max_file_bytes ||
		   r->op == POP_DELETE || r->op == POP_REPLACE);
	for (i = 0; i < z->nnests; i++) {
		struct policy_req in = *r;
		const char *rest;

		if (!pol_rel_within(r->path, z->nests[i].rel))
			continue;
		in.zone = &p->zones[z->nests[i].zone];
		rest = r->path + strlen(z->nests[i].rel);
		in.path = *z->nests[i].rel && *rest == '/' ? rest + 1 : rest;
		sub = policy_decide(p, &in, NULL);
		FUZZ_CHECK(sub >= 0);
		FUZZ_CHECK(sub != POLICY_ASK || rc == POLICY_ASK);
	}
	return rc;
}

/* @c is @p lowered by workers: it never answers more than @p. */
static void check_ceiling(const struct policy *p, const struct policy *c,
			  struct policy_req r, size_t zone)
{
	int a, b;

	r.zone = &p->zones[zone];
	a = check(p, &r);
	r.zone = &c->zones[zone];
	b = check(c, &r);
	FUZZ_CHECK(b < 0 || a >= 0);
	FUZZ_CHECK(a != POLICY_ASK || b != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, data + size };
	struct policy *mine = NULL;
	struct policy_req r;
	struct gfs_err err = { 0 };
	char path[512], file[256];
	const uint8_t *nul;
	size_t zone, n;
	unsigned f;

	if (size && (data[0] & 1)) {
		nul = memchr(data + 1, '\0', size - 1);
		n = nul ? (size_t)(nul - data - 1) : size - 1;
		snprintf(file, sizeof(file), "%s", fuzz_path("fuzz.worker"));
		fuzz_write(file, data + 1, n);
		mine = load(file, &err);
		if (mine)
			fuzz_check_ceiling(parent, mine);
		in.p = data + 1 + n;
	} else if (size) {
		in.p++;
	}
	for (n = 0; n < 64 && in.p < in.end; n++) {
		memset(&r, 0, sizeof(r));
		r.op = (enum policy_op)(byte(&in) % 6);
		zone = byte(&in) % parent->nzones;
		r.trust = (enum policy_trust)(byte(&in) % TRUST_COUNT);
		f = byte(&in);
		r.is_dir = f & 1;
		r.empty_dir = (f & 2) && r.is_dir && r.op == POP_CREATE;
		r.own_repo = f & 4;
		r.size = (uint64_t)(byte(&in) << 8 | byte(&in)) * 16;
		make_path(&in, path, sizeof(path));
		r.path = path;
		check_ceiling(parent, child, r, zone);
		if (mine)
			check_ceiling(parent, mine, r, zone);
	}
	policy_free(mine);
	return 0;
}
