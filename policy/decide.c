/*
 * The decision: effective rights precomputed per zone and trust level, and
 * policy_decide(), which every FUSE callback asks before it acts.
 *
 * effective(zone, level) = mode ∩ trust table(level) ∩ worker chain.
 * Then, for mutating ops, protect globs, suffix rules and size limits;
 * then the zone's approval says allow, ask or block. Last, what lies in
 * the zone but is not the program's (guard.c): golemfs's own files are
 * refused, and inside another zone's directory that zone decides too,
 * the stricter answer winning.
 *
 * The reason of a denial is written for the program's reader (often an
 * LLM) and says what it may do instead; it is built only on denial.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"

static uint8_t mode_mask(const struct policy_zone *z)
{
	return z->ro ? RIGHT_RO : RIGHT_ALL;
}

/* The list "/a, /b" of zones that take writes at @t, for reasons. */
static char *writable_list(const struct policy *p, enum policy_trust t)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < p->nzones; i++)
		len += strlen(p->zones[i].vpath) + 2;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < p->nzones; i++) {
		if (!(p->zones[i].rights[t] & (RIGHT_W | RIGHT_C)))
			continue;
		if (*s)
			strcat(s, ", ");
		strcat(s, p->zones[i].vpath);
	}
	return s;
}

int policy_finish(struct policy *p)
{
	size_t i;
	int t;

	for (i = 0; i < p->nzones; i++) {
		struct policy_zone *z = &p->zones[i];

		pol_zone_git_inner(z);

		for (t = 0; t < TRUST_COUNT; t++) {
			z->rights[t] = mode_mask(z) & z->trust_rights[t] &
				       z->worker_rights;
			if (z->rights[t] & RIGHT_W)
				z->rights[t] |= RIGHT_C;
		}
	}
	for (t = 0; t < TRUST_COUNT; t++) {
		free(p->writable[t]);
		p->writable[t] = writable_list(p, (enum policy_trust)t);
		if (!p->writable[t])
			return -ENOMEM;
	}
	return 0;
}

bool policy_repo_readable(const struct policy *p, const char *repo,
			  enum policy_trust trust)
{
	uint8_t row[TRUST_COUNT];
	size_t i;

	for (i = 0; i < p->nzones; i++)
		if (p->zones[i].kind == ZONE_REPO &&
		    strcmp(p->zones[i].path, repo) == 0)
			return p->zones[i].rights[trust] & RIGHT_R;
	pol_trust_table_row(ZONE_REPO, row);
	return row[trust] & RIGHT_R;
}

bool policy_zone_visible(const struct policy_zone *z, enum policy_trust trust)
{
	return z->rights[trust] != 0;
}

static uint8_t op_needs(enum policy_op op)
{
	switch (op) {
	case POP_READ:
		return RIGHT_R;
	case POP_LIST:
		return RIGHT_L;
	case POP_CREATE:
		return RIGHT_C;
	case POP_WRITE:
		return RIGHT_W;
	case POP_DELETE:
		return RIGHT_D;
	case POP_REPLACE:
		return RIGHT_W | RIGHT_D;
	}
	return RIGHT_ALL;
}

static bool op_mutates(enum policy_op op)
{
	return op != POP_READ && op != POP_LIST;
}

static const char *verb(uint8_t missing)
{
	if (missing & RIGHT_W)
		return "writable";
	if (missing & RIGHT_C)
		return "writable";
	if (missing & RIGHT_D)
		return "deletable";
	if (missing & RIGHT_L)
		return "listable";
	return "readable";
}

/* Who removed @missing: the mode (EROFS), the trust level or a worker. */
static int deny_rights(const struct policy *p, const struct policy_req *r,
		       uint8_t missing, struct gfs_err *why)
{
	const struct policy_zone *z = r->zone;
	const char *lvl = policy_trust_name(r->trust);
	const char *w = p->writable[r->trust];
	char have[8];

	if (!why)
		return (missing & ~mode_mask(z)) ? -EROFS : -EACCES;
	if (missing & ~mode_mask(z))
		return gfs_err_set(why, -EROFS, "%s is read-only; writable: %s",
				   z->vpath, *w ? w : "nothing");
	if ((missing & RIGHT_W) && (z->rights[r->trust] & RIGHT_C))
		return gfs_err_set(why, -EACCES,
				   "%s takes only new files at trust level "
				   "'%s'; nothing there may be overwritten or "
				   "deleted",
				   z->vpath, lvl);
	policy_rights_str(z->rights[r->trust], have);
	if (missing & ~z->trust_rights[r->trust])
		return gfs_err_set(why, -EACCES,
				   "%s is not %s at trust level '%s' "
				   "(allowed: %s); writable: %s",
				   z->vpath, verb(missing), lvl, have,
				   *w ? w : "nothing");
	return gfs_err_set(why, -EACCES,
			   "worker '%s' does not make %s %s (allowed: %s); "
			   "writable: %s",
			   z->lowered_by ? z->lowered_by : "?", z->vpath,
			   verb(missing), have, *w ? w : "nothing");
}

static bool suffix_ok(const struct policy_zone *z, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i, n, sn;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (i = 0; z->suffixes[i]; i++) {
		sn = strlen(z->suffixes[i]);
		if (n >= sn && strcmp(base + n - sn, z->suffixes[i]) == 0)
			return true;
	}
	return false;
}

static int deny_suffix(const struct policy_zone *z, struct gfs_err *why)
{
	char list[160] = "";
	size_t i, n = 0;

	/* whole suffixes only: a cut one would name a suffix not allowed */
	for (i = 0; z->suffixes[i]; i++) {
		if (strlen(z->suffixes[i]) + 8 >= sizeof(list) - n) {
			strcpy(list + n, i ? ", ..." : "...");
			break;
		}
		n += (size_t)sprintf(list + n, "%s%s", i ? ", " : "",
				     z->suffixes[i]);
	}
	return gfs_err_set(why, -EACCES, "%s takes only files named *%s%s%s",
			   z->vpath, i > 1 || z->suffixes[i] ? "{" : "", list,
			   i > 1 || z->suffixes[i] ? "}" : "");
}

static enum approval approval_for(const struct policy_zone *z,
				  enum policy_op op)
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

/* The zone's own rules, without the guards and nests inside it. */
static int decide_zone(const struct policy *p, const struct policy_req *r,
		       struct gfs_err *why)
{
	const struct policy_zone *z = r->zone;
	uint8_t have = z->rights[r->trust], need = op_needs(r->op);
	int rc;

	if (!have)
		return gfs_err_set(why, -ENOENT,
				   "%s is not visible at trust "
				   "level '%s'",
				   z->vpath, policy_trust_name(r->trust));
	if ((have & need) != need)
		return deny_rights(p, r, need & ~have, why);
	if (!op_mutates(r->op))
		goto suffix;
	rc = policy_check_protect(p, r, why);
	if (rc < 0)
		return rc;
	if (r->op == POP_CREATE || r->op == POP_WRITE) {
		rc = policy_check_size(z, r->size, why);
		if (rc < 0)
			return rc;
	}
suffix:
	if (z->suffixes && !r->is_dir && r->op != POP_LIST &&
	    r->op != POP_DELETE && *r->path && !suffix_ok(z, r->path))
		return deny_suffix(z, why);
	switch (approval_for(z, r->op)) {
	case APPROVAL_BLOCKED:
		return gfs_err_set(why, -EACCES, "%ss in %s are blocked",
				   r->op == POP_DELETE ? "delete" : "write",
				   z->vpath);
	case APPROVAL_ASK:
		return POLICY_ASK;
	default:
		return 0;
	}
}

/* Where @r's path lies in another zone too: that zone's rules as well. */
static int decide_nested(const struct policy *p, const struct policy_req *r,
			 const struct policy_nest *n, struct gfs_err *why)
{
	const struct policy_zone *z = r->zone;
	struct policy_req in = *r;
	struct gfs_err e = { 0 };
	const char *sub;
	int rc;

	in.zone = &p->zones[n->zone];
	sub = r->path + strlen(n->rel);
	in.path = *n->rel && *sub == '/' ? sub + 1 : sub;
	rc = decide_zone(p, &in, why ? &e : NULL);
	if (rc >= 0)
		return rc;
	if (rc == -ENOENT)
		rc = -EACCES;
	return gfs_err_set(why, rc, "%s/%s is also %s%s%s: %s", z->vpath,
			   r->path, in.zone->vpath, *in.path ? "/" : "",
			   in.path, e.msg);
}

/*
 * The zones whose directories lie inside @r's zone: none may be moved
 * through it, and inside one its rules hold too. @rc is the outer zone's
 * answer (0 or POLICY_ASK); the stricter answer is returned.
 */
static int decide_nests(const struct policy *p, const struct policy_req *r,
			int rc, struct gfs_err *why)
{
	const struct policy_nest *n;
	size_t i;
	int sub;

	for (i = 0; i < r->zone->nnests; i++) {
		n = &r->zone->nests[i];
		if (pol_rel_within(n->rel, r->path) &&
		    pol_op_moves(r->op, r->empty_dir))
			return gfs_err_set(
			    why, -EACCES,
			    "'%s' %s the directory of zone %s, "
			    "which is never moved or replaced "
			    "through %s",
			    r->path,
			    strlen(n->rel) > strlen(r->path) ? "holds" : "is",
			    p->zones[n->zone].vpath, r->zone->vpath);
		if (!pol_rel_within(r->path, n->rel))
			continue;
		sub = decide_nested(p, r, n, why);
		if (sub < 0)
			return sub;
		if (sub == POLICY_ASK)
			rc = POLICY_ASK;
	}
	return rc;
}

/*
 * Does @r make, change or replace a file that golemfs would read as its
 * configuration when started in or below its directory? One planted by a
 * program would name an approval hook (run on the host) or a zone at the
 * host's "/" for the next sandbox started there. Staged zones are exempt:
 * what they hold reaches the host only through a reviewed push.
 */
static bool plants_config(const struct policy_req *r)
{
	const char *base = strrchr(r->path, '/');
	int i;

	if (r->op == POP_READ || r->op == POP_LIST || r->op == POP_DELETE ||
	    r->zone->kind == ZONE_STAGED)
		return false;
	base = base ? base + 1 : r->path;
	for (i = 0; pol_config_names[i]; i++)
		if (strcmp(base, pol_config_names[i]) == 0)
			return true;
	return false;
}

int policy_decide(const struct policy *p, const struct policy_req *r,
		  struct gfs_err *why)
{
	const struct policy_guard *g;
	int rc;

	rc = decide_zone(p, r, why);
	if (rc < 0)
		return rc;
	g = policy_guard_find(r->zone, r->path, r->op, r->empty_dir);
	if (g)
		return gfs_err_set(
		    why, -EACCES,
		    "'%s' %s %s (%s): golemfs's own files are "
		    "never changed, moved or replaced through "
		    "the mount",
		    r->path, strlen(g->rel) > strlen(r->path) ? "holds" : "is",
		    g->what, g->host);
	if (plants_config(r))
		return gfs_err_set(why, -EACCES,
				   "'%s': golemfs reads a file of this name as "
				   "its configuration when started below it; "
				   "none is made or changed through the mount",
				   r->path);
	return decide_nests(p, r, rc, why);
}
