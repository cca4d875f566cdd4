/*
 * mount - a mount's life, shared by `golemfs mount` and `golemfs run`
 * (cli/mount.c, cli/run.c): preparing the daemon's state, the kernel
 * mount, serving and tearing down (see mount.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "fs/approve.h"
#include "fs/backend.h"
#include "fs/control.h"
#include "fs/handle.h"
#include "fs/inode.h"
#include "fs/loop.h"
#include "fs/mount.h"
#include "fs/record.h"
#include "fs/stgtree.h"
#include "fs/vtree.h"

static char *session_new(void)
{
	char *s = NULL;
	unsigned r = 0;
	struct tm tm;
	time_t now = time(NULL);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &r, sizeof(r)) != sizeof(r))
			r = (unsigned)getpid();
		close(fd);
	}
	localtime_r(&now, &tm);
	if (asprintf(&s, "%04d%02d%02d-%02d%02d%02d-%04x", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, r & 0xffff) < 0)
		return NULL;
	return s;
}

static int build_args(struct fuse_args *args, struct mount_opts *o)
{
	char opts[1400];

	snprintf(opts, sizeof(opts),
		 "fsname=golemfs,subtype=golemfs,default_permissions,nosuid,"
		 "nodev%s%s",
		 o->fuse_opts[0] ? "," : "", o->fuse_opts);
	if (fuse_opt_add_arg(args, "golemfs") || fuse_opt_add_arg(args, "-o") ||
	    fuse_opt_add_arg(args, opts))
		return -ENOMEM;
	if (o->debug && fuse_opt_add_arg(args, "-d"))
		return -ENOMEM;
	return 0;
}

/* Does @path lie in @dir (both absolute, normalised)? */
static bool path_in(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/*
 * The audit log must be out of the program's reach: refuse one inside a
 * zone's directory unless it is under the sandbox root (never shown).
 */
static int audit_placement(struct gfs *g, struct gfs_err *err)
{
	const struct policy *p = g->policy;
	char *dir = strdup(p->audit_path), *slash, *real, *zr, *root;
	int rc = 0;
	size_t i;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	*slash = '\0';
	real = realpath(*dir ? dir : "/", NULL);
	root = realpath(p->root, NULL);
	if (!real) {
		rc = gfs_err_set(err, -ENOENT,
				 "audit.path %s: directory %s: "
				 "%s",
				 p->audit_path, dir, strerror(errno));
		goto out;
	}
	for (i = 0; rc == 0 && i < p->nzones; i++) {
		if (!p->zones[i].path || (root && path_in(real, root)))
			continue;
		zr = realpath(p->zones[i].path, NULL);
		if (zr && path_in(real, zr))
			rc = gfs_err_set(err, -EINVAL,
					 "audit.path %s lies inside zone '%s' "
					 "(%s): the program could read it",
					 p->audit_path, p->zones[i].name, zr);
		free(zr);
	}
out:
	free(real);
	free(root);
	free(dir);
	return rc;
}

/* Requests waiting for room in the audit queue now; for the warning. */
static unsigned audit_waiters;

/*
 * A request that waits for room in the audit queue (audit.on_full: block,
 * while the database cannot take rows) hands its reading of requests
 * over, so others - a stat, a read through an open file - are answered.
 */
static bool audit_wait_begin(void *ctx)
{
	bool token = gfs_wait_begin(ctx);

	if (__atomic_fetch_add(&audit_waiters, 1, __ATOMIC_RELAXED) == 0)
		gfs_log(LOG_WARNING, "audit: the queue is full: requests "
				     "that change files wait for room "
				     "(audit.on_full: block)");
	return token;
}

static void audit_wait_end(void *ctx, bool token)
{
	__atomic_fetch_sub(&audit_waiters, 1, __ATOMIC_RELAXED);
	gfs_wait_end(ctx, token);
}

static const struct audit_wait audit_wait = {
	.begin = audit_wait_begin,
	.end = audit_wait_end,
};

/* Open the audit writer; before the mount, as a check that it can be. */
static int audit_start(struct gfs *g, struct gfs_err *err)
{
	const struct policy *p = g->policy;
	int rc;

	if (!p->audit_enabled)
		return 0;
	rc = audit_open(&g->audit, p->audit_path, g->session, p->audit_on_full,
			p->audit_queue, err);
	if (rc == 0)
		audit_set_wait(g->audit, &audit_wait, g);
	return rc;
}

static void audit_mark(struct gfs *g, enum rec_op op, const char *mnt)
{
	const struct policy *p = g->policy;
	char why[512];
	struct rec r = {
		.op = op,
		.zone = "",
		.vpath = mnt,
		.trust = gfs_trust(g),
		.pid = getpid(),
		.uid = getuid(),
		.comm = "golemfs",
		.reason = why,
		.mark = true,
	};
	size_t i, n;

	n = (size_t)snprintf(why, sizeof(why), "config %s; workers",
			     p->config_file ? p->config_file
					    : "(embedded default)");
	for (i = 0; i < p->nworkers && n < sizeof(why); i++)
		n += (size_t)snprintf(why + n, sizeof(why) - n, " %s",
				      p->workers[i].name);
	if (!p->nworkers && n < sizeof(why))
		snprintf(why + n, sizeof(why) - n, " none");
	record(g->audit, &r);
}

/*
 * Use every descriptor we may have (the soft limit is often 1024 while the
 * hard one is far higher), and keep the cache of cold-file descriptors well
 * below it: temp files, SQLite, libgit2 and requests in flight need room.
 */
static void fd_budget(struct mount_opts *o)
{
	struct rlimit rl;
	size_t room;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	room = rl.rlim_cur > 512 ? (size_t)rl.rlim_cur - 512 : 64;
	if (o->fd_cap > room) {
		gfs_log(LOG_NOTICE,
			"--max-fds %zu lowered to %zu: the open "
			"file limit is %llu",
			o->fd_cap, room, (unsigned long long)rl.rlim_cur);
		o->fd_cap = room;
	}
}

/* Prepare everything the daemon needs before anything is mounted. */
int gfs_prepare(struct gfs *g, struct policy *p, struct mount_opts *o,
		struct gfs_err *err)
{
	struct stat st;
	int rc;

	g->policy = p;
	g->trust = g->policy->trust;
	g->session = o->session ? strdup(o->session) : session_new();
	if (!g->session)
		return -ENOMEM;
	g->started = time(NULL);
	g->umask = umask(022); /* still one thread: read it, put it back */
	umask(g->umask);
	g->as_root = geteuid() == 0;
	g->ctl_fd = -1;
	g->ctl_lock = -1;
	g->mountpoint = strdup(o->mountpoint);
	if (!g->mountpoint)
		return -ENOMEM;
	g->uid = getuid();
	g->gid = getgid();
	g->timeout_rw = o->cache_set ? o->cache_timeout : 1.0;
	g->timeout_ro = o->cache_set ? o->cache_timeout : 10.0;
	g->open_files.next = g->open_files.prev = &g->open_files;
	fd_budget(o);
	rc = gfs_table_init(g, o->fd_cap);
	if (rc < 0)
		return rc;
	rc = mkdir(g->policy->root, 0700) < 0 && errno != EEXIST ? -errno : 0;
	if (rc < 0)
		return gfs_err_set(err, rc, "sandbox root %s: %s",
				   g->policy->root, strerror(-rc));
	rc = vtree_build(g, err);
	if (rc < 0)
		return rc;
	rc = stgtree_init(g, err);
	if (rc < 0)
		return rc;
	rc = approval_init(g);
	if (rc < 0)
		return rc;
	if (g->policy->audit_enabled) {
		rc = audit_placement(g, err);
		if (rc == 0)
			rc = audit_start(g, err); /* creates file and schema */
		audit_close(g->audit);            /* threads die in fork */
		g->audit = NULL;
		if (rc < 0)
			return rc;
	}
	/* the sandbox root is never shown inside a zone that contains it */
	if (stat(g->policy->root, &st) == 0) {
		g->hide_dev = st.st_dev;
		g->hide_ino = st.st_ino;
	}
	return 0;
}

void gfs_release(struct gfs *g)
{
	audit_close(g->audit);
	g->audit = NULL;
	gfs_close_open_files(g);
	approval_release(g); /* NULL-safe, once */
	stgtree_release(g);
	vtree_release(g);
	if (g->hash)
		gfs_table_release(g);
	policy_free(g->policy);
	free(g->session);
	free(g->mountpoint);
}

/*
 * The device number of the mount at @mnt, from /proc/self/mountinfo, so a
 * zone that contains the mountpoint does not show the mount inside itself.
 * Reading mountinfo sends no request to the not yet serving daemon.
 */
static dev_t self_dev_find(const char *mnt)
{
	char *line = NULL, *point, *real = realpath(mnt, NULL);
	unsigned maj, min;
	size_t cap = 0;
	dev_t dev = 0;
	FILE *f;

	/* whole lines: a long mount point is never read cut */
	f = real ? fopen("/proc/self/mountinfo", "re") : NULL;
	while (f && getline(&line, &cap, f) > 0) {
		point = NULL;
		if (sscanf(line, "%*u %*u %u:%u %*s %ms", &maj, &min, &point) ==
			3 &&
		    strcmp(point, real) == 0)
			dev = makedev(maj, min); /* the last one is on top */
		free(point);
	}
	if (f)
		fclose(f);
	free(line);
	free(real);
	return dev;
}

int gfs_session_open(struct gfs *g, struct mount_opts *o, struct gfs_err *err)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	int rc;

	rc = build_args(&args, o);
	if (rc == 0) {
		g->se = fuse_session_new(&args, &gfs_ops, sizeof(gfs_ops), g);
		if (!g->se)
			rc = gfs_err_set(err, -EINVAL, "bad FUSE options '%s'",
					 o->fuse_opts);
	}
	fuse_opt_free_args(&args);
	if (rc < 0)
		return rc;
	if (fuse_session_mount(g->se, o->mountpoint) != 0) {
		fuse_session_destroy(g->se);
		g->se = NULL;
		return gfs_err_set(err, -EIO, "cannot mount on '%s'",
				   o->mountpoint);
	}
	g->self_dev = self_dev_find(o->mountpoint);
	return 0;
}

void gfs_session_close(struct gfs *g)
{
	if (!g->se)
		return;
	fuse_session_unmount(g->se);
	fuse_session_destroy(g->se);
	g->se = NULL;
}

int gfs_serve_begin(struct gfs *g, const char *ctl_key, struct gfs_err *err)
{
	int rc;

	rc = audit_start(g, err);
	if (rc < 0)
		return rc;
	audit_mark(g, REC_MOUNT, g->mountpoint);
	rc = control_start(g, ctl_key, err);
	if (rc < 0)
		return rc;
	gfs_log(LOG_INFO, "mounted %s, session %s, trust %s", g->mountpoint,
		g->session, policy_trust_name(gfs_trust(g)));
	return 0;
}

void gfs_serve_end(struct gfs *g)
{
	control_stop(g);
	approval_release(g);
	audit_mark(g, REC_UNMOUNT, g->mountpoint);
}

int mount_fusermount_unmount(const char *mnt, bool lazy, bool quiet)
{
	/* execvp() takes char *const[] and writes none of the strings:
	   writable copies keep the const promise without a cast */
	char prog[] = "fusermount3", uz[] = "-uz", u[] = "-u", q[] = "-q";
	char dd[] = "--";
	char *path = strdup(mnt);
	char *argv[] = { prog,
			 lazy ? uz : u,
			 quiet ? q : dd,
			 quiet ? dd : path,
			 quiet ? path : NULL,
			 NULL };
	int status;
	pid_t pid;

	if (!path)
		return 1;
	pid = fork();
	if (pid == 0) {
		execvp(prog, argv);
		fprintf(stderr, "golemfs: fusermount3: %s\n", strerror(errno));
		_exit(127);
	}
	free(path);
	if (pid < 0)
		return 1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
