/*
 * record - what the daemon tells the audit about each decision.
 *
 * fs/ calls record() once per decision point, after acting and before
 * replying, denials included. Until the SQLite audit log lands (audit/)
 * this goes to the operator log at LOG_INFO for denials and LOG_DEBUG for
 * the rest. Thread-safe; never blocks for long.
 */
#ifndef GFS_RECORD_H
#define GFS_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "policy/policy.h"

enum rec_op {
	REC_OPEN,
	REC_CREATE,
	REC_MKDIR,
	REC_MKNOD,
	REC_UNLINK,
	REC_RMDIR,
	REC_RENAME,
	REC_LINK,
	REC_SYMLINK,
	REC_SETATTR,
	REC_SETXATTR,
	REC_GETXATTR,
	REC_READLINK,
	REC_READDIR,
	REC_WRITE,
};

struct rec {
	enum rec_op op;
	const char *zone;   /* zone name, "" for the virtual root */
	const char *vpath;  /* path in the virtual root */
	int err;            /* 0 or a positive errno */
	const char *reason; /* for a denial, or NULL */
	uint64_t bytes;
	enum policy_trust trust;
	pid_t pid;
	uid_t uid;
};

const char *record_op_name(enum rec_op op);
void record(const struct rec *r);

#endif
