/*
 * op - one FUSE request in flight, shared by the callbacks of ops.c and
 * the staged backend (staged.c), so both follow the same shape:
 * resolve -> decide -> act -> record -> reply.
 */
#ifndef GFS_OP_H
#define GFS_OP_H

#include <limits.h>

#include "fs.h"
#include "record.h"

/* One request in flight: what it acts on and why it was refused. */
struct op {
	struct gfs *g;
	fuse_req_t req;
	enum rec_op kind;
	struct node *node;              /* the target, or the parent of @name */
	const char *name;               /* child name, or NULL */
	const struct policy_zone *zone; /* NULL: a purely virtual place */
	int dirfd;               /* pinned fd of node when @name is set */
	enum policy_trust trust; /* the live level, read once at op_init():
				    the request decides and records at it */
	bool ended;              /* op_record() or op_discard() was called */
	bool second;             /* op_init_second(): records nothing */
	char vpath[PATH_MAX];    /* op_init() clears what comes before */
	const char *rel;
	struct gfs_err why;
	int reserve_rc;  /* audit_reserve(): 1 taken, 0 none, -EIO full */
	uint64_t ticket; /* of the recorded event (open, create) */
};
/*
 * A request's audit slot is taken once, by op_init(), and ends exactly
 * once, in op_record() (an event) or op_discard() (none), which give the
 * slot to the event or back: every handler goes out through one of them,
 * once. A second target of the same request (a rename's destination)
 * is an op_init_second(): it takes no slot and records nothing. In
 * builds with asserts, ending twice aborts, and the request loop checks
 * after every request that none was left open (op_open()); the audit
 * checks at unmount that no slot is left reserved.
 */
/* op_init() - start a request; reserves an audit slot (on_full: fail). */
void op_init(struct op *op, fuse_req_t req, enum rec_op kind);
/* op_init_second() - a second target of @first's request. */
void op_init_second(struct op *op, const struct op *first);
/* op_open() - requests this thread began and did not end yet. */
unsigned op_open(void);
/* op_bad_name() - a name no request may carry: "", ".", "..", "a/b". */
bool op_bad_name(const char *name);
/* op_reserve_failed() - the refusal when audit.on_full=fail had no room. */
int op_reserve_failed(struct op *op);
/* op_paths() - fill vpath and rel from node and name. */
int op_paths(struct op *op);
/* op_decide() - ask the policy; ask-approvals are refused for now. */
int op_decide(struct op *op, enum policy_op pop, bool is_dir, uint64_t size);
int op_decide_req(struct op *op, struct policy_req *r);
/* op_record() - the audit event, once per request, before the reply;
   ends the request. */
void op_record(struct op *op, int rc);
/* op_discard() - end a request that records nothing; gives its slot back. */
void op_discard(struct op *op);

#endif
