/*
 * op - the framework (op.c) for one FUSE request in flight (struct op,
 * in fs.h) that every backend's callbacks use, so all follow the same shape:
 * resolve -> decide -> act -> record -> reply.
 */
#ifndef GFS_OP_H
#define GFS_OP_H

#include "fs.h"

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
/*
 * op_decide() - ask the policy about @op's target; an "ask" goes to
 * approval_ask(). Return: 0 or -errno, @op->why set.
 * op_decide_req() - the same with a request the caller filled; it works
 * out r->own_repo. op_decide_as() - with r->own_repo as the caller
 * worked it out (a rename's arriving object).
 */
int op_decide(struct op *op, enum policy_op pop, bool is_dir, uint64_t size);
int op_decide_req(struct op *op, struct policy_req *r);
int op_decide_as(struct op *op, struct policy_req *r);
/*
 * op_own_repo() - is the outermost .git on @op's path the program's own
 * repository? When that .git is @op's name, @obj (if given) is the object
 * that will stand there, else the one there now.
 */
bool op_own_repo(struct op *op, const struct stat *obj);
/* op_end_of() - @op's place (zone, rel, vpath) as a policy_end in @end. */
static inline const struct policy_end *op_end_of(const struct op *op,
						 struct policy_end *end)
{
	end->zone = op->zone;
	end->rel = op->rel;
	end->vpath = op->vpath;
	return end;
}
/* op_record() - the audit event, once per request, before the reply;
   ends the request. */
void op_record(struct op *op, int rc);
/* op_discard() - end a request that records nothing; gives its slot back. */
void op_discard(struct op *op);

#endif
