/*
 * The control socket of a mount, the daemon's side: it serves `golemfs
 * status`, `trust`, `approve` and `audit`'s flush. See control.h for the
 * protocol and the rules; the client's side is control_client.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "approve.h"
#include "audit/audit.h"
#include "common/gfs_esc.h"
#include "control.h"
#include "control_client.h"
#include "inode.h"
#include "record.h"
#include "stgtree.h"

/* ---- server ---- */

struct reply {
	FILE *f;
};

static void status_zones(struct gfs *g, FILE *f)
{
	const struct policy *p = g->policy;
	enum policy_trust t = gfs_trust(g);
	char r[8];
	size_t i;

	for (i = 0; i < p->nzones; i++) {
		const struct policy_zone *z = &p->zones[i];

		if (!policy_zone_visible(z, t))
			continue;
		fprintf(f, "zone: %s %s %s\n", z->vpath,
			policy_rights_str(z->rights[t], r),
			policy_kind_name(z->kind));
	}
}

static int count_pending(const char *id, enum stage_status st, void *ctx)
{
	(void)id;
	if (st == STAGE_PENDING)
		(*(size_t *)ctx)++;
	return 0;
}

static void status(struct gfs *g, FILE *f)
{
	const struct policy *p = g->policy;
	struct gfs_err err = { 0 };
	size_t i, n;

	fprintf(f,
		"mountpoint: %s\npid: %ld\nsession: %s\ntrust: %s\n"
		"config: %s\n",
		g->mountpoint, (long)getpid(), g->session,
		policy_trust_name(gfs_trust(g)),
		p->config_file ? p->config_file : "(embedded default)");
	fprintf(f, "workers:");
	for (i = 0; i < p->nworkers; i++)
		fprintf(f, " %s", p->workers[i].name);
	fprintf(f, "%s\n", p->nworkers ? "" : " (none)");
	fprintf(f, "audit: %s\n", p->audit_enabled ? p->audit_path : "off");
	fprintf(f, "control: %s\n", g->ctl_path);
	status_zones(g, f);
	for (i = 0; i < g->nstaged; i++) {
		n = 0;
		if (stgtree_pending(g, i, count_pending, &n, &err) == 0)
			fprintf(f, "staged: %s %zu pending\n",
				stgtree_zone_vpath(g, i), n);
	}
	fprintf(f, "approvals: %zu pending\n", approval_pending(g));
}

/* Make the kernel forget what it cached of every virtual directory. */
static void invalidate(struct gfs *g)
{
	size_t i, j;

	for (i = 0; i < g->nvdirs; i++) {
		struct node *n = g->vdirs[i];

		for (j = 0; j < n->nchildren; j++)
			fuse_lowlevel_notify_inval_entry(
			    g->se, node_ino(g, n), n->children[j].name,
			    strlen(n->children[j].name));
		fuse_lowlevel_notify_inval_inode(g->se, node_ino(g, n), 0, 0);
	}
}

static void set_trust(struct gfs *g, const char *arg, FILE *f)
{
	enum policy_trust t, old = gfs_trust(g);
	char why[64];
	struct rec r = {
		.op = REC_TRUST,
		.zone = "",
		.vpath = g->mountpoint,
		.pid = getpid(),
		.uid = getuid(),
		.comm = "golemfs",
		.reason = why,
	};

	if (policy_trust_parse(&t, arg) < 0) {
		fprintf(f,
			"error unknown trust level '%s' (untrusted, "
			"session, workspace, full)\n",
			arg);
		return;
	}
	__atomic_store_n(&g->trust, t, __ATOMIC_SEQ_CST);
	invalidate(g);
	snprintf(why, sizeof(why), "%s -> %s", policy_trust_name(old),
		 policy_trust_name(t));
	r.trust = t;
	record(g->audit, &r);
	gfs_log(LOG_INFO, "trust %s", why);
	fprintf(f, "ok %s %s\n", policy_trust_name(old), policy_trust_name(t));
}

static void serve_one(struct gfs *g, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char line[256];
	FILE *f = fdopen(fd, "r+");

	if (!f) {
		close(fd);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    (cred.uid != getuid() && cred.uid != 0)) {
		fprintf(f, "error not your mount\n");
		fclose(f);
		return;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, "approve") == 0) {
		/* a long session: approve.c owns the socket from here */
		int keep = dup(fd);

		fclose(f);
		if (keep >= 0)
			approval_serve(g, keep);
		return;
	}
	if (strcmp(line, "status") == 0) {
		status(g, f);
	} else if (strcmp(line, "flush") == 0) {
		audit_flush(g->audit);
		fprintf(f, "ok\n");
	} else if (strncmp(line, "trust ", 6) == 0)
		set_trust(g, line + 6, f);
	else
		fprintf(f, "error unknown request '%s'\n", line);
	fclose(f);
}

static void *control_loop(void *arg)
{
	struct gfs *g = arg;
	struct pollfd p[2] = { { .fd = g->ctl_fd, .events = POLLIN },
			       { .fd = g->ctl_wake, .events = POLLIN } };
	int fd;

	/* asleep until a client or control_stop() comes */
	while (!(p[1].revents & POLLIN)) {
		if (poll(p, 2, -1) <= 0 || !(p[0].revents & POLLIN))
			continue;
		fd = accept4(g->ctl_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			serve_one(g, fd);
	}
	return NULL;
}

/* Is @fd still the file at @path (not one unlinked and made anew)? */
static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * One daemon at a time owns a socket path, by a lock on PATH.lock held
 * for its life: a mount made at a place whose previous daemon is still
 * ending (an unmount returns before the daemon has cleaned up) waits for
 * it (20 s at most: a daemon built with a sanitizer may take seconds to
 * end), instead of binding a socket the old daemon then removes. The owner
 * removes the lock file before it lets go, so a waiter that got a lock on
 * a removed file tries again.
 */
static int own_path(struct gfs *g, const char *sock, struct gfs_err *err)
{
	char lock[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
	int n, tries = 2000; /* 10 ms apart: 20 s */

	n = snprintf(lock, sizeof(lock), "%s.lock", sock);
	if (n < 0 || (size_t)n >= sizeof(lock))
		return gfs_err_set(err, -ENAMETOOLONG,
				   "%s.lock: path too "
				   "long",
				   sock);
	while (tries > 0) {
		g->ctl_lock =
		    open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (g->ctl_lock < 0)
			return gfs_err_set(err, -errno, "%s: %s", lock,
					   strerror(errno));
		while (flock(g->ctl_lock, LOCK_EX | LOCK_NB) < 0 &&
		       errno == EWOULDBLOCK && --tries > 0)
			usleep(10000);
		if (tries > 0 && same_file(g->ctl_lock, lock))
			return 0;
		close(g->ctl_lock);
		g->ctl_lock = -1;
	}
	return gfs_err_set(err, -EBUSY,
			   "%s: another golemfs daemon still "
			   "owns this mount's control socket",
			   sock);
}

/* The lock of own_path(), given up with its file. */
static void disown_path(struct gfs *g)
{
	char lock[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];

	if (g->ctl_lock < 0)
		return;
	if (g->ctl_path && (size_t)snprintf(lock, sizeof(lock), "%s.lock",
					    g->ctl_path) < sizeof(lock))
		unlink(lock);
	close(g->ctl_lock);
	g->ctl_lock = -1;
}

int control_start(struct gfs *g, const char *mnt, struct gfs_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	char dir[80];
	mode_t old;

	if (control_runtime_dir(dir, sizeof(dir)) < 0 ||
	    control_path(mnt, a.sun_path, sizeof(a.sun_path)) < 0)
		return gfs_err_set(err, -ENAMETOOLONG, "control socket path");
	if (control_runtime_dir_make(dir, sizeof(dir), err) < 0)
		return err->code;
	if (own_path(g, a.sun_path, err) < 0)
		return err->code;
	g->ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (g->ctl_fd < 0)
		return gfs_err_set(err, -errno, "socket: %s", strerror(errno));
	unlink(a.sun_path); /* a stale socket of a killed daemon */
	old = umask(0177);
	if (bind(g->ctl_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(g->ctl_fd, 16) < 0) {
		umask(old);
		close(g->ctl_fd);
		g->ctl_fd = -1;
		return gfs_err_set(err, -errno, "%s: %s", a.sun_path,
				   strerror(errno));
	}
	umask(old);
	g->ctl_path = strdup(a.sun_path);
	if (stat(a.sun_path, &st) == 0)
		g->ctl_ino = st.st_ino;
	g->ctl_wake = eventfd(0, EFD_CLOEXEC);
	if (g->ctl_wake < 0 ||
	    pthread_create(&g->ctl_thread, NULL, control_loop, g) != 0) {
		if (g->ctl_wake >= 0)
			close(g->ctl_wake);
		close(g->ctl_fd);
		g->ctl_fd = -1;
		return gfs_err_set(err, -EAGAIN, "control thread");
	}
	g->ctl_running = true;
	return 0;
}

void control_stop(struct gfs *g)
{
	uint64_t one = 1;
	struct stat st;

	if (g->ctl_running) {
		if (write(g->ctl_wake, &one, sizeof(one)) < 0)
			gfs_log(LOG_WARNING, "control: cannot wake: %s",
				strerror(errno));
		pthread_join(g->ctl_thread, NULL);
		close(g->ctl_wake);
		g->ctl_running = false;
	}
	if (g->ctl_fd >= 0)
		close(g->ctl_fd);
	g->ctl_fd = -1;
	/* ours alone while we hold its lock (own_path()) */
	if (g->ctl_path && stat(g->ctl_path, &st) == 0 &&
	    st.st_ino == g->ctl_ino)
		unlink(g->ctl_path);
	disown_path(g);
	free(g->ctl_path);
	g->ctl_path = NULL;
}

/* Remove run-PID.sock and its lock when no daemon owns them (own_path()). */
static void sweep_run(const char *dir, unsigned long pid)
{
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char lock[sizeof(sock) + 8];
	int n, m, fd;

	n = snprintf(sock, sizeof(sock), "%s/run-%lu.sock", dir, pid);
	m = snprintf(lock, sizeof(lock), "%s.lock", sock);
	if (n < 0 || (size_t)n >= sizeof(sock) || m < 0 ||
	    (size_t)m >= sizeof(lock))
		return;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	/* a live owner holds the lock: its files are never touched */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && same_file(fd, lock)) {
		unlink(sock);
		unlink(lock);
	}
	close(fd);
}

void control_sweep_runs(void)
{
	char dir[80];
	struct dirent *de;
	unsigned long pid;
	int end;
	DIR *d;

	if (control_runtime_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		end = 0;
		if (sscanf(de->d_name, "run-%lu.sock%n", &pid, &end) != 1 ||
		    (de->d_name[end] && strcmp(de->d_name + end, ".lock")) ||
		    !pid || pid > INT32_MAX || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		sweep_run(dir, pid);
	}
	closedir(d);
}
