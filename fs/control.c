/*
 * The control socket of a mount: `golemfs status` and `golemfs trust`.
 * See control.h for the protocol and the rules.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "common/gfs_esc.h"
#include "audit/audit.h"
#include "control.h"
#include "record.h"
#include "staged.h"

/* ---- where ---- */

int control_runtime_dir(char *buf, size_t size)
{
	const char *own = getenv("GOLEMFS_RUNTIME_DIR");
	const char *x = getenv("XDG_RUNTIME_DIR");
	int n;

	if (own && *own)
		n = snprintf(buf, size, "%s", own);
	else if (x && *x)
		n = snprintf(buf, size, "%s/golemfs", x);
	else if (geteuid() == 0)
		n = snprintf(buf, size, "/run/golemfs");
	else
		n = snprintf(buf, size, "/tmp/golemfs-%u", (unsigned)geteuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int control_runtime_dir_make(char *buf, size_t size, struct gfs_err *err)
{
	struct stat st;

	if (control_runtime_dir(buf, size) < 0)
		return gfs_err_set(err, -ENAMETOOLONG,
				   "runtime directory: "
				   "path too long");
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return gfs_err_set(err, -errno, "%s: %s", buf, strerror(errno));
	/* in /tmp, another user could have made it first */
	if (lstat(buf, &st) < 0)
		return gfs_err_set(err, -errno, "%s: %s", buf, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return gfs_err_set(err, -EPERM,
				   "%s: not a private directory "
				   "of yours (owner %u, mode %03o); remove it",
				   buf, (unsigned)st.st_uid,
				   (unsigned)(st.st_mode & 0777));
	return 0;
}

int control_path(const char *mnt, char *buf, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char dir[80];
	const char *s;
	int n;

	if (control_runtime_dir(dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	if (strncmp(mnt, "run:", 4) == 0) {
		n = snprintf(buf, size, "%s/run-%s.sock", dir, mnt + 4);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	for (s = mnt; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	n = snprintf(buf, size, "%s/%016llx.sock", dir, (unsigned long long)h);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

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
		if (staged_pending(g, i, count_pending, &n, &err) == 0)
			fprintf(f, "staged: %s %zu pending\n",
				staged_zone_vpath(g, i), n);
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

/* ---- client ---- */

/* Ask the daemon at socket @path to commit its audit queue; wait for its
   answer at most 2 s (a hung daemon is skipped). */
static void flush_one(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 2 };
	char buf[16];
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0 &&
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    write(fd, "flush\n", 6) == 6 && read(fd, buf, sizeof(buf)) < 0)
		gfs_log(LOG_DEBUG, "flush %s: %s, ignoring", path,
			strerror(errno));
	close(fd);
}

void control_flush_all(void)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	size_t len;
	DIR *d;

	if (control_runtime_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".sock") != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			flush_one(path);
	}
	closedir(d);
}

/* Is the control socket at @path served (a live `golemfs run`)? */
static bool socket_live(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;
	bool ok;

	/* a path that does not fit would name another socket */
	if (gfs_strlcpy(a.sun_path, path, sizeof(a.sun_path)) >=
	    sizeof(a.sun_path))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Live `golemfs run` sandboxes of this user, as "run:PID" keys. */
static int count_runs(char *buf, size_t size)
{
	char dir[80], path[400];
	struct dirent *de;
	unsigned long pid;
	int n = 0;
	DIR *d;

	if (control_runtime_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "run-%lu.sock", &pid) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!socket_live(path))
			continue;
		if (n++ == 0)
			snprintf(buf, size, "run:%lu", pid);
	}
	closedir(d);
	return n;
}

/* The only golemfs mount (mountinfo) or sandbox (run sockets), into @buf. */
static int only_mount(char *buf, size_t size, struct gfs_err *err)
{
	char *line = NULL, *point, spare[64], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 0;
	bool cut = false;
	int n = 0;

	/* whole lines and fields: a long mount point is never read cut */
	while (f && getline(&line, &cap, f) > 0) {
		char *dash = strstr(line, " - ");

		point = NULL;
		if (dash && sscanf(line, "%*s %*s %*s %*s %ms", &point) == 1 &&
		    sscanf(dash + 3, "%63s", type) == 1 &&
		    strcmp(type, "fuse.golemfs") == 0 && n++ == 0)
			cut = gfs_strlcpy(buf, point, size) >= size;
		free(point);
	}
	free(line);
	if (f)
		fclose(f);
	if (n == 1 && cut)
		return gfs_err_set(err, -ENAMETOOLONG,
				   "the golemfs mount's "
				   "path is too long: name it");
	n += count_runs(n ? spare : buf, n ? sizeof(spare) : size);
	if (n == 1)
		return 0;
	return gfs_err_set(err, -EINVAL,
			   n ? "several golemfs mounts and sandboxes: name "
			       "one (MOUNTPOINT or run:PID)"
			     : "no golemfs mount or sandbox found");
}

int control_connect(const char *mnt, struct gfs_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char found[4096], *real;
	int fd, rc;

	if (!mnt) {
		rc = only_mount(found, sizeof(found), err);
		if (rc < 0)
			return rc;
		mnt = found;
	}
	real = strncmp(mnt, "run:", 4) == 0 ? strdup(mnt) : realpath(mnt, NULL);
	if (!real)
		return gfs_err_set(err, -errno, "'%s': %s", mnt,
				   strerror(errno));
	rc = control_path(real, a.sun_path, sizeof(a.sun_path));
	free(real);
	if (rc < 0)
		return gfs_err_set(err, rc, "control socket path too long");
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = gfs_err_set(err, -errno,
				 "'%s' has no control socket (%s): not a "
				 "golemfs mount of yours?",
				 mnt, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

int control_request(const char *mnt, const char *line, FILE *out,
		    struct gfs_err *err)
{
	char buf[4096];
	ssize_t n;
	int fd, rc = 0;

	fd = control_connect(mnt, err);
	if (fd < 0)
		return fd;
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		rc = gfs_err_set(err, -errno, "control: %s", strerror(errno));
	while (rc == 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, out);
	close(fd);
	return rc;
}

static int simple_usage(int argc, char **argv, const char *usage, int max)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		fputs(usage, stderr);
		return 2;
	}
	if (argc - optind > max) {
		fputs(usage, stderr);
		return 2;
	}
	return 0;
}

/* control_request() with the reply shown escaped line by line: mount
   and session names, paths and reasons in it are not ours to trust. */
static int request_escaped(const char *mnt, const char *line,
			   struct gfs_err *err)
{
	char *buf = NULL, *p, *nl;
	size_t size = 0, k;
	FILE *m = open_memstream(&buf, &size);
	int rc;

	if (!m)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	rc = control_request(mnt, line, m, err);
	if (fclose(m) != 0 && rc == 0)
		rc = gfs_err_set(err, -ENOMEM, "out of memory");
	for (p = buf; rc == 0 && p < buf + size; p += k) {
		nl = memchr(p, '\n', (size_t)(buf + size - p));
		k = nl ? (size_t)(nl - p) + 1 : (size_t)(buf + size - p);
		gfs_esc_line(stdout, p, k);
	}
	free(buf);
	return rc;
}

int cmd_status(int argc, char **argv)
{
	struct gfs_err err = { 0 };
	int rc;

	rc = simple_usage(argc, argv,
			  "usage: golemfs status [MOUNTPOINT]\n\n"
			  "The live state of a mount: session, trust level, "
			  "workers, the zones\nvisible now and their rights, "
			  "staged commits, pending approvals.\nWithout "
			  "MOUNTPOINT: the only golemfs mount or sandbox.\n"
			  "A `golemfs run` sandbox is named run:PID.\n",
			  1);
	if (rc)
		return rc;
	rc = request_escaped(optind < argc ? argv[optind] : NULL, "status",
			     &err);
	if (rc < 0)
		gfs_err_print("status", err.msg);
	return rc < 0 ? 1 : 0;
}

int cmd_trust(int argc, char **argv)
{
	struct gfs_err err = { 0 };
	enum policy_trust t;
	char line[64], reply[256] = "";
	FILE *m;
	int rc;

	rc = simple_usage(argc, argv,
			  "usage: golemfs trust LEVEL [MOUNTPOINT]\n\n"
			  "Change a live mount's trust level (untrusted, "
			  "session, workspace, full).\nIt takes effect at "
			  "once: ls / follows; handles opened before keep\n"
			  "the access they were opened with. MOUNTPOINT may be "
			  "run:PID\nfor a `golemfs run` sandbox.\n",
			  2);
	if (rc)
		return rc;
	if (optind >= argc || policy_trust_parse(&t, argv[optind]) < 0) {
		fprintf(stderr, "golemfs: trust: give a level: untrusted, "
				"session, workspace or full\n");
		return 2;
	}
	snprintf(line, sizeof(line), "trust %s", argv[optind]);
	m = fmemopen(reply, sizeof(reply) - 1, "w");
	rc = m ? control_request(optind + 1 < argc ? argv[optind + 1] : NULL,
				 line, m, &err)
	       : -ENOMEM;
	if (m)
		fclose(m);
	if (rc < 0) {
		gfs_err_print("trust", err.msg);
		return 1;
	}
	if (strncmp(reply, "ok ", 3) != 0) {
		fprintf(stderr, "golemfs: trust: %s", reply);
		return 1;
	}
	printf("trust: %s", reply + 3);
	return 0;
}
