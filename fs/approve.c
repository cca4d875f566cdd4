/*
 * Approvals: who answers the policy's "ask", and how long we wait.
 * See approve.h for the rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "approve.h"
#include "approve_proto.h"
#include "common/gfs_esc.h"
#include "common/lockorder.h"
#include "control_client.h"
#include "loop.h"
#include "op.h"
#include "record.h"

struct ask {
	struct ask *next;
	unsigned id;
	char *line;  /* the request line as sent */
	char answer; /* 0 while waiting; y n a d; 'x' approver gone */
	pthread_cond_t cond;
};

struct grant {
	const struct policy_zone *zone;
	char *path;
	bool write; /* write class, else delete class */
	bool dir;   /* a directory prefix, else this path only */
};

struct approvals {
	pthread_mutex_t lock; /* protects everything below */
	struct ask *pending;
	size_t npending;
	unsigned next_id;
	int approver;      /* socket of a connected `golemfs approve`, or -1;
			      written with whole lines under lock */
	FILE *approver_in; /* its reading side, for the reader thread only */
	pthread_t thread;
	bool has_thread;
	struct grant *grants;
	size_t ngrants;
};

#define MAX_PENDING 256
#define MAX_GRANTS 4096

int approval_init(struct gfs *g)
{
	struct approvals *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	lock_order_name(&a->lock, LOCK_APPROVALS);
	a->approver = -1;
	g->approvals = a;
	g->ask = approval_ask;
	return 0;
}

void approval_release(struct gfs *g)
{
	struct approvals *a = g->approvals;
	size_t i;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	if (a->approver >= 0)
		shutdown(a->approver, SHUT_RDWR);
	pthread_mutex_unlock(&a->lock);
	if (a->has_thread)
		pthread_join(a->thread, NULL);
	for (i = 0; i < a->ngrants; i++)
		free(a->grants[i].path);
	free(a->grants);
	pthread_mutex_destroy(&a->lock);
	free(a);
	g->approvals = NULL;
	g->ask = NULL;
}

size_t approval_pending(struct gfs *g)
{
	struct approvals *a = g->approvals;
	size_t n;

	pthread_mutex_lock(&a->lock);
	n = a->npending;
	pthread_mutex_unlock(&a->lock);
	return n;
}

/* ---- grants ---- */

static bool is_write(enum policy_op pop)
{
	return pop == POP_CREATE || pop == POP_WRITE;
}

static bool granted(struct approvals *a, const struct op *op,
		    enum policy_op pop)
{
	size_t i, n;

	for (i = 0; i < a->ngrants; i++) {
		const struct grant *gr = &a->grants[i];

		if (gr->zone != op->zone || gr->write != is_write(pop))
			continue;
		n = strlen(gr->path);
		if (!gr->dir && strcmp(gr->path, op->rel) == 0)
			return true;
		if (gr->dir && (!n || (!strncmp(gr->path, op->rel, n) &&
				       op->rel[n] == '/')))
			return true;
	}
	return false;
}

static void grant(struct approvals *a, const struct op *op, enum policy_op pop,
		  bool dir)
{
	struct grant *v;
	char *path = strdup(op->rel), *slash;

	if (!path || a->ngrants >= MAX_GRANTS) {
		free(path);
		return; /* no grant: it will ask again */
	}
	if (dir) {
		slash = strrchr(path, '/');
		if (slash)
			*slash = '\0';
		else
			path[0] = '\0'; /* the zone's top */
	}
	v = realloc(a->grants, (a->ngrants + 1) * sizeof(*v));
	if (!v) {
		free(path);
		return;
	}
	a->grants = v;
	v[a->ngrants++] = (struct grant){ op->zone, path, is_write(pop), dir };
}

/* ---- audit ---- */

/* Return: 0, or -errno when the event could not be queued. */
static int note(struct op *op, enum rec_op kind, int rc, const char *why,
		uint64_t bytes)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(op->req);
	struct rec r = {
		.op = kind,
		.zone = op->zone->name,
		.vpath = op->vpath,
		.err = rc < 0 ? -rc : 0,
		.reason = why,
		.bytes = bytes,
		.trust = op->trust,
		.pid = ctx->pid,
		.uid = ctx->uid,
	};

	return record(op->g->audit, &r);
}

/* ---- the time we may wait ---- */

static unsigned read_uint(const char *path)
{
	unsigned v = 0;
	FILE *f = fopen(path, "re");

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * The wait for an answer: approval.timeout, kept below the kernel's FUSE
 * request timeout where one is set (default_request_timeout applies to a
 * server that asks for none, as we do; max_request_timeout caps it),
 * or the kernel would abort the whole connection.
 */
static unsigned wait_limit(struct gfs *g)
{
	unsigned t = g->policy->hook_timeout, k = 0, d, m;

	d = read_uint("/proc/sys/fs/fuse/default_request_timeout");
	m = read_uint("/proc/sys/fs/fuse/max_request_timeout");
	k = d && m ? (d < m ? d : m) : (d ? d : m);
	if (k > 1 && t >= k)
		t = k - 1;
	return t ? t : 1;
}

/* ---- a connected `golemfs approve` ---- */

/* Write all of @s to the approver, under a->lock. Return: 0 or -1. */
static int to_approver(struct approvals *a, const char *s, size_t n)
{
	return control_send_all(a->approver, s, n);
}

/*
 * The request line (no newline) for question @id: every field the program
 * chose is quoted, so it holds no space, newline or control byte.
 */
static char *ask_line(unsigned id, struct op *op, enum policy_op pop,
		      uint64_t bytes)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(op->req);
	char comm[16], *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	record_comm(ctx->pid, comm);
	approve_ask_write(m, id, is_write(pop), op->vpath, (int)ctx->pid, comm,
			  bytes);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int ask_approver(struct approvals *a, struct op *op, enum policy_op pop,
			uint64_t bytes, unsigned limit, char *answer)
{
	struct ask k = { .answer = 0 };
	struct ask **pp;
	struct timespec until;
	char gone[32];
	int rc = 0;

	k.id = ++a->next_id;
	k.line = ask_line(k.id, op, pop, bytes);
	if (!k.line)
		return -ENOMEM;
	pthread_cond_init(&k.cond, NULL);
	k.next = a->pending;
	a->pending = &k;
	a->npending++;
	if (to_approver(a, k.line, strlen(k.line)) < 0 ||
	    to_approver(a, "\n", 1) < 0)
		k.answer = 'x';
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += limit;
	while (!k.answer && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&k.cond, &a->lock, &until);
	for (pp = &a->pending; *pp; pp = &(*pp)->next) {
		if (*pp == &k) {
			*pp = k.next;
			break;
		}
	}
	a->npending--;
	if (!k.answer && a->approver >= 0) {
		/* the approver stops showing it */
		snprintf(gone, sizeof(gone), "gone %u\n", k.id);
		to_approver(a, gone, strlen(gone));
	}
	pthread_cond_destroy(&k.cond);
	free(k.line);
	*answer = k.answer;
	return k.answer ? 0 : -ETIMEDOUT;
}

/*
 * One answer line from the approver: "answer ID X REQUEST", where REQUEST
 * is the request line exactly as it was sent. Anything else is refused
 * and changes nothing. Under a->lock.
 */
static void take_answer(struct approvals *a, const char *line)
{
	char reply[96], x = 0;
	unsigned id = 0;
	struct ask *k = NULL;
	const char *why = "not an answer line", *request;

	if (approve_answer_parse(line, &id, &x, &request) == 0) {
		for (k = a->pending; k && k->id != id; k = k->next)
			;
		why = !k || k->answer            ? "no such request is waiting"
		      : strcmp(request, k->line) ? "the answer does not "
						   "match the request"
						 : NULL;
	}
	if (why) {
		snprintf(reply, sizeof(reply), "refused %u %s\n", id, why);
	} else {
		k->answer = x;
		pthread_cond_signal(&k->cond);
		snprintf(reply, sizeof(reply), "done %u %c\n", id, x);
	}
	to_approver(a, reply, strlen(reply));
}

/* The reader of an approve session, one answer per line. */
static void *approver_loop(void *arg)
{
	struct gfs *g = arg;
	struct approvals *a = g->approvals;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct ask *k;

	while ((n = getline(&line, &cap, a->approver_in)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		pthread_mutex_lock(&a->lock);
		take_answer(a, line);
		pthread_mutex_unlock(&a->lock);
	}
	free(line);
	pthread_mutex_lock(&a->lock);
	for (k = a->pending; k; k = k->next) {
		if (k->answer)
			continue;
		k->answer = 'x'; /* the approver left */
		pthread_cond_signal(&k->cond);
	}
	fclose(a->approver_in); /* closes the socket too */
	a->approver_in = NULL;
	a->approver = -1;
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

void approval_serve(struct gfs *g, int fd)
{
	struct approvals *a = g->approvals;

	pthread_mutex_lock(&a->lock);
	if (a->approver >= 0) {
		pthread_mutex_unlock(&a->lock);
		dprintf(fd, "error another approve session is connected\n");
		close(fd);
		return;
	}
	if (a->has_thread)
		pthread_join(a->thread, NULL); /* the previous session's */
	a->approver_in = fdopen(fd, "r");
	a->approver = a->approver_in ? fd : -1;
	a->has_thread = a->approver_in &&
			pthread_create(&a->thread, NULL, approver_loop, g) == 0;
	if (!a->has_thread) {
		if (a->approver_in)
			fclose(a->approver_in);
		else
			close(fd);
		a->approver_in = NULL;
		a->approver = -1;
	} else {
		dprintf(fd, "ok %d\n", APPROVE_PROTOCOL);
	}
	pthread_mutex_unlock(&a->lock);
}

/* ---- the hook ---- */

/* In the hook's child, between fork and exec: takes none of our locks. */
static void hook_env(struct op *op, enum policy_op pop, uint64_t bytes,
		     const char *comm)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(op->req);
	char num[32];

	setenv("GOLEMFS_OP", is_write(pop) ? "write" : "delete", 1);
	setenv("GOLEMFS_PATH", op->vpath, 1);
	setenv("GOLEMFS_ZONE", op->zone->name, 1);
	snprintf(num, sizeof(num), "%d", (int)ctx->pid);
	setenv("GOLEMFS_PID", num, 1);
	setenv("GOLEMFS_COMM", comm, 1);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)bytes);
	setenv("GOLEMFS_BYTES", num, 1);
	setenv("GOLEMFS_SESSION", op->g->session, 1);
}

/* The first line of the hook's output, printable characters only. */
static void read_reason(int fd, char *why, size_t size, unsigned limit)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0, i;
	ssize_t r;

	while (n < size - 1 && poll(&p, 1, (int)limit * 1000) > 0) {
		r = read(fd, why + n, size - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (memchr(why, '\n', n))
			break;
	}
	why[n] = '\0';
	why[strcspn(why, "\n")] = '\0';
	for (i = 0; why[i]; i++)
		if ((unsigned char)why[i] < 0x20 ||
		    (unsigned char)why[i] > 0x7e)
			why[i] = '?';
}

static int run_hook(struct op *op, enum policy_op pop, uint64_t bytes,
		    unsigned limit, char *why, size_t size)
{
	int pipefd[2], status = 0;
	time_t end = time(NULL) + limit;
	pid_t pid, w = 0;
	char cmd[4200], comm[16];

	/* exec: the hook's own exit status or signal reaches us; a cut
	   command would run something else: refuse instead */
	if (gfs_fmt(cmd, sizeof(cmd), "exec %s", op->g->policy->hook) < 0) {
		snprintf(why, size, "the approval hook's command is too long");
		return -ENAMETOOLONG;
	}
	/* before the fork: another thread may hold the cache's lock then,
	   and the child would wait for it forever */
	record_comm(fuse_req_ctx(op->req)->pid, comm);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pipefd[1], STDOUT_FILENO);
		hook_env(op, pop, bytes, comm);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return -errno;
	}
	read_reason(pipefd[0], why, size, limit);
	close(pipefd[0]);
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && time(NULL) < end)
		usleep(20000);
	if (w == 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		snprintf(why, size,
			 "the approval hook gave no answer within "
			 "%u s",
			 limit);
		return -ETIMEDOUT;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!*why && WIFSIGNALED(status))
		snprintf(why, size, "the approval hook died (signal %d)",
			 WTERMSIG(status));
	else if (!*why)
		snprintf(why, size, "the approval hook refused (exit %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -EACCES;
}

/* ---- the question ---- */

int approval_ask(struct op *op, enum policy_op pop, uint64_t bytes)
{
	struct approvals *a = op->g->approvals;
	unsigned limit = wait_limit(op->g);
	char why[200] = "", ans = 0;
	bool w, asked = false, known;
	int rc = -EACCES;

	/* a->lock guards the questions and grants, nothing more: it is not
	   held while recording, nor across the wait for the loop or a hook */
	pthread_mutex_lock(&a->lock);
	known = granted(a, op, pop);
	pthread_mutex_unlock(&a->lock);
	if (known)
		return 0;
	/* a question that cannot be audited is not asked (on_full: fail) */
	if (note(op, REC_APPROVAL_ASK, 0, is_write(pop) ? "write" : "delete",
		 bytes) < 0)
		return op_reserve_failed(op);
	w = gfs_wait_begin(op->g); /* others are served meanwhile */
	pthread_mutex_lock(&a->lock);
	if (a->approver >= 0 && a->npending < MAX_PENDING) {
		int e;

		asked = true;
		e = ask_approver(a, op, pop, bytes, limit, &ans);
		if (e == -ETIMEDOUT)
			snprintf(why, sizeof(why), "no answer within %u s",
				 limit);
		else if (e < 0)
			snprintf(why, sizeof(why), "out of memory");
		else if (ans == 'x')
			snprintf(why, sizeof(why), "the approve session left");
		else if (ans == 'n')
			snprintf(why, sizeof(why), "refused by the user");
		if (ans == 'y' || ans == 'a' || ans == 'd')
			rc = 0;
		if (ans == 'a' || ans == 'd')
			grant(a, op, pop, ans == 'd');
	}
	pthread_mutex_unlock(&a->lock);
	if (!asked && op->g->policy->hook)
		rc = run_hook(op, pop, bytes, limit, why, sizeof(why));
	else if (!asked)
		snprintf(why, sizeof(why),
			 "no approver is connected and no approval hook is "
			 "set");
	gfs_wait_end(op->g, w);
	if (rc < 0 && rc != -EACCES)
		rc = -EACCES;
	/* nor does an approval count that cannot be audited */
	if (note(op, REC_APPROVAL_ANSWER, rc, rc == 0 ? "approved" : why,
		 bytes) < 0)
		return op_reserve_failed(op);
	if (rc < 0)
		gfs_err_set(&op->why, -EACCES, "%s %s needs approval: %s",
			    is_write(pop) ? "write" : "delete", op->vpath, why);
	return rc;
}
