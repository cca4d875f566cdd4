/*
 * approve - answers to the policy's "ask".
 *
 * approval_ask() blocks the calling FUSE thread (the others keep serving)
 * until an answer comes from, in order:
 *   1. a connected `golemfs approve` session (one at a time, through the
 *      control socket; the client is cli/approve.c): y (once), n, a (this path
 * and op for the session), d (this directory for the session);
 *   2. else the configured approval.hook, run with GOLEMFS_OP, _PATH,
 *      _ZONE, _PID, _COMM, _BYTES, _SESSION in its environment: exit 0
 *      approves, anything else refuses; the first line of its output is
 *      kept as the reason;
 *   3. else a refusal.
 * No answer within approval.timeout seconds (kept below the kernel's FUSE
 * request timeout when one is set) refuses. Grants from 'a' and 'd' are
 * checked before anyone is asked. Every question and answer is audited.
 * Thread-safe.
 */
#ifndef GFS_APPROVE_H
#define GFS_APPROVE_H

#include "fs.h"

int approval_init(struct gfs *g);
void approval_release(struct gfs *g);

/* approval_ask() - 0 approved, or -EACCES with the reason in op->why. */
int approval_ask(struct op *op, enum policy_op pop, uint64_t bytes);

/* The control socket hands a connection that said "approve" here
   (@fd is taken over). */
void approval_serve(struct gfs *g, int fd);

/* approval_pending() - how many questions wait now. */
size_t approval_pending(struct gfs *g);

#endif
