/*
 * record() until the audit log exists: denials to the operator log.
 */
#include "record.h"

#include <string.h>

const char *record_op_name(enum rec_op op)
{
	static const char *const names[] = {
		[REC_OPEN] = "open",	     [REC_CREATE] = "create",
		[REC_MKDIR] = "mkdir",	     [REC_MKNOD] = "mknod",
		[REC_UNLINK] = "unlink",     [REC_RMDIR] = "rmdir",
		[REC_RENAME] = "rename",     [REC_LINK] = "link",
		[REC_SYMLINK] = "symlink",   [REC_SETATTR] = "setattr",
		[REC_SETXATTR] = "setxattr", [REC_GETXATTR] = "getxattr",
		[REC_READLINK] = "readlink", [REC_READDIR] = "readdir",
		[REC_WRITE] = "write",
	};

	return op <= REC_WRITE ? names[op] : "?";
}

void record(const struct rec *r)
{
	if (!r->err) {
		gfs_log(LOG_DEBUG, "%s %s: allowed (pid %d)",
			record_op_name(r->op), r->vpath, (int)r->pid);
		return;
	}
	gfs_log(LOG_INFO, "%s %s refused: %s (pid %d)", record_op_name(r->op),
		r->vpath, r->reason ? r->reason : strerror(r->err),
		(int)r->pid);
}
