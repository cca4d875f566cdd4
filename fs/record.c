/*
 * record(): from a FUSE decision to an audit event. See record.h.
 */
#include "record.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/lockorder.h"
#include "notice.h"

const char *record_op_name(enum rec_op op)
{
	static const char *const names[] = {
		[REC_OPEN] = "open",
		[REC_CREATE] = "create",
		[REC_MKDIR] = "mkdir",
		[REC_MKNOD] = "mknod",
		[REC_UNLINK] = "unlink",
		[REC_RMDIR] = "rmdir",
		[REC_RENAME] = "rename",
		[REC_LINK] = "link",
		[REC_SYMLINK] = "symlink",
		[REC_SETATTR] = "setattr",
		[REC_SETXATTR] = "setxattr",
		[REC_GETXATTR] = "getxattr",
		[REC_READLINK] = "readlink",
		[REC_READDIR] = "readdir",
		[REC_WRITE] = "write",
		[REC_RELEASE] = "release",
		[REC_MOUNT] = "mount",
		[REC_UNMOUNT] = "unmount",
		[REC_TRUST] = "trust",
		[REC_APPROVAL_ASK] = "approval-ask",
		[REC_APPROVAL_ANSWER] = "approval-answer",
	};

	return op <= REC_APPROVAL_ANSWER ? names[op] : "?";
}

/* A small cache of pid -> command name: /proc reads cost ~10 µs. */
#define COMM_SLOTS 128
static struct {
	pid_t pid;
	time_t at;
	char comm[16];
} comm_cache[COMM_SLOTS];
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((constructor)) static void comm_lock_name(void)
{
	lock_order_name(&comm_lock, LOCK_COMM);
}

static void comm_read(pid_t pid, char *buf)
{
	char path[40];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, 15);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

void record_comm(pid_t pid, char *buf)
{
	size_t slot = (size_t)pid % COMM_SLOTS;
	time_t now = time(NULL);

	pthread_mutex_lock(&comm_lock);
	if (comm_cache[slot].pid == pid && now - comm_cache[slot].at <= 1) {
		memcpy(buf, comm_cache[slot].comm, 16);
		pthread_mutex_unlock(&comm_lock);
		return;
	}
	pthread_mutex_unlock(&comm_lock);
	comm_read(pid, buf);
	pthread_mutex_lock(&comm_lock);
	comm_cache[slot].pid = pid;
	comm_cache[slot].at = now;
	memcpy(comm_cache[slot].comm, buf, 16);
	pthread_mutex_unlock(&comm_lock);
}

int record(struct audit *a, const struct rec *r)
{
	struct audit_event e = {
		.trust = policy_trust_name(r->trust),
		.op = record_op_name(r->op),
		.zone = r->zone,
		.path = r->vpath,
		.allowed = r->err == 0,
		.err = r->err,
		.reason = r->reason,
		.rbytes = r->rbytes,
		.wbytes = r->bytes,
		.pid = r->pid,
		.uid = r->uid,
		.comm = r->comm,
	};
	char comm[16];

	if (!e.comm && r->pid > 0) {
		record_comm(r->pid, comm);
		e.comm = comm;
	}
	if (r->err)
		notice_refusal(record_op_name(r->op), r->vpath, r->err,
			       r->reason);
	if (r->err)
		gfs_log(LOG_INFO, "%s %s refused: %s (pid %d %s)",
			record_op_name(r->op), r->vpath,
			r->reason ? r->reason : strerror(r->err), (int)r->pid,
			e.comm ? e.comm : "");
	else
		gfs_log(LOG_DEBUG, "%s %s: allowed (pid %d)",
			record_op_name(r->op), r->vpath, (int)r->pid);
	if (r->mark)
		return audit_log_mark(a, &e);
	return audit_log_ticket(a, &e, r->reserved, r->ticket);
}
