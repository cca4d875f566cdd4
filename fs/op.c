/*
 * The request framework of op.h: a request's start (op_init, with its
 * audit slot), its paths, the decision (op_decide: the policy, then an
 * approval when it asks, through g->ask) and its one end (op_record or
 * op_discard). Every backend's callbacks (pass.c, stgtree.c) go through
 * it, so each request is decided and recorded the same way whatever it
 * acts on.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "inode.h"
#include "op.h"
#include "record.h"

static struct gfs *gfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

bool op_bad_name(const char *name)
{
	return !*name || strchr(name, '/') || !strcmp(name, ".") ||
	       !strcmp(name, "..");
}

/* ---- begin and end ---- */

/* Requests of this thread begun and not yet ended (op_open()). */
static _Thread_local unsigned open_ops;

void op_init(struct op *op, fuse_req_t req, enum rec_op kind)
{
	memset(op, 0, offsetof(struct op, vpath));
	op->g = gfs_of(req);
	op->req = req;
	op->kind = kind;
	op->dirfd = -1;
	op->vpath[0] = '\0';
	op->why.code = 0;
	op->why.msg[0] = '\0';
	/* audit.on_full: fail - no room to record it, so it must not happen */
	op->reserve_rc = audit_reserve(op->g->audit);
	op->trust = gfs_trust(op->g);
	open_ops++;
}

void op_init_second(struct op *op, const struct op *first)
{
	memset(op, 0, offsetof(struct op, vpath));
	op->g = first->g;
	op->req = first->req;
	op->kind = first->kind;
	op->dirfd = -1;
	op->vpath[0] = '\0';
	op->why.code = 0;
	op->why.msg[0] = '\0';
	/* the request's slot is @first's: no slot, but its refusal */
	op->reserve_rc = first->reserve_rc < 0 ? first->reserve_rc : 0;
	op->trust = first->trust;
	op->second = true;
	op->ended = true; /* nothing to record: op_done() is its end */
}

unsigned op_open(void)
{
	return open_ops;
}

/* The one way out of a request: exactly once (asserted), then never. */
static void op_end(struct op *op)
{
	assert(!op->ended);
	op->ended = true;
	open_ops--;
}

int op_reserve_failed(struct op *op)
{
	return gfs_err_set(&op->why, -EIO,
			   "the audit log is full (audit.on_full: fail)");
}

/* A request that ends without an event gives its audit slot back. */
void op_discard(struct op *op)
{
	op_end(op);
	if (op->reserve_rc > 0)
		audit_unreserve(op->g->audit);
	op->reserve_rc = 0;
}

/* Paths for the audit and the policy; only after zone is known. */
int op_paths(struct op *op)
{
	return node_vpath(op->g, op->node, op->name, op->vpath,
			  sizeof(op->vpath), &op->rel);
}

/* ---- decide ---- */

/*
 * Is the outermost .git on op's path the program's own repository (made
 * through the mount this session)? When that .git is op's name itself,
 * the object there decides: @obj when given (a rename's arriving object),
 * else what the name holds now.
 */
bool op_own_repo(struct op *op, const struct stat *obj)
{
	struct stat st;

	if (op->name && strcmp(op->name, ".git") == 0 &&
	    policy_git_place(op->zone, op->rel) == GIT_ENTRY) {
		if (!obj && (op->dirfd < 0 || fstatat(op->dirfd, op->name, &st,
						      AT_SYMLINK_NOFOLLOW) < 0))
			return false;
		if (!obj)
			obj = &st;
		return S_ISDIR(obj->st_mode) && node_own_git_has(op->g, obj);
	}
	return node_in_own_git(op->g, op->node);
}

int op_decide(struct op *op, enum policy_op pop, bool is_dir, uint64_t size)
{
	struct policy_req r = {
		.op = pop,
		.is_dir = is_dir,
		.size = size,
	};

	return op_decide_req(op, &r);
}

int op_decide_as(struct op *op, struct policy_req *r)
{
	enum policy_op pop = r->op;
	int rc;

	r->zone = op->zone;
	r->trust = op->trust;
	r->path = op->rel;
	rc = policy_check_in_zone(op->zone, op->vpath, &op->why);
	if (rc < 0)
		return rc;
	rc = policy_decide(op->g->policy, r, &op->why);
	if (rc == POLICY_ASK) {
		assert(op->g->ask); /* approval_init() ran at mount */
		rc = op->g->ask(op, pop, r->size);
	}
	return rc;
}

int op_decide_req(struct op *op, struct policy_req *r)
{
	if (r->op != POP_READ && r->op != POP_LIST && op->zone &&
	    policy_git_place(op->zone, op->rel) != GIT_OUTSIDE)
		r->own_repo = op_own_repo(op, NULL);
	return op_decide_as(op, r);
}

/* ---- record ---- */

void op_record(struct op *op, int rc)
{
	struct rec r = {
		.op = op->kind,
		.zone = op->zone ? op->zone->name : "",
		.vpath = op->vpath,
		.err = rc < 0 ? -rc : 0,
		.reason = op->why.code ? op->why.msg : NULL,
		.trust = op->trust,
		.reserved = op->reserve_rc > 0,
		.ticket = &op->ticket,
	};
	const struct fuse_ctx *ctx = fuse_req_ctx(op->req);
	static bool warned;

	op_end(op);
	r.pid = ctx->pid;
	r.uid = ctx->uid;
	if (op->reserve_rc < 0)
		return; /* nothing happened, and there is no room to say so */
	op->reserve_rc = 0; /* record() uses the slot, even when it fails */
	if (record(op->g->audit, &r) < 0 &&
	    !__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
		gfs_log(LOG_WARNING,
			"audit: %s %s: the event could not be "
			"queued (out of memory?); warning once",
			record_op_name(op->kind), op->vpath);
}
