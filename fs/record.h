/*
 * record - what the daemon tells the audit about each decision.
 *
 * fs/ calls record() once per decision point, after acting and before
 * replying, denials included: so a denial is in the audit queue before
 * its reply reaches the kernel. record() adds the caller's command name
 * (from /proc, cached per pid for a second) and hands the event to the
 * audit writer (audit/); denials also go to the operator log at LOG_INFO
 * (visible with mount -d). Thread-safe.
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
	REC_RELEASE,
	REC_MOUNT,
	REC_UNMOUNT,
	REC_TRUST,
	REC_APPROVAL_ASK,
	REC_APPROVAL_ANSWER,
};

struct rec {
	enum rec_op op;
	const char *zone;   /* zone name, "" for the virtual root */
	const char *vpath;  /* path in the virtual root */
	int err;            /* 0 or a positive errno */
	const char *reason; /* for a denial, or NULL */
	uint64_t bytes;
	enum policy_trust trust;
	uint64_t rbytes; /* REC_RELEASE: bytes read and written */
	pid_t pid;
	uid_t uid;
	const char *comm; /* NULL: looked up from pid */
	bool reserved;    /* an audit slot was reserved for it */
	bool mark;        /* the daemon's own (mount, unmount): never
			     refused or dropped, it waits for room */
	uint64_t *ticket; /* out, may be NULL: the queued event, for
			     audit_add_bytes() (release) */
};

struct audit;

const char *record_op_name(enum rec_op op);
/* record() - log @r to @a (may be NULL: operator log only). */
int record(struct audit *a, const struct rec *r);
/* record_comm() - the command name of @pid into @buf (16 bytes). */
void record_comm(pid_t pid, char *buf);

#endif
