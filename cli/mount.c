/*
 * `golemfs mount` and `golemfs umount`.
 *
 * mount returns only when the mount is ready (exit 0) or has failed: exit
 * 2 for bad usage or config, 1 for a failed operation, and in both cases
 * nothing is left mounted. Everything that can be checked is checked
 * before the kernel mount; after it, the process daemonizes (unless -f)
 * and serves until unmounted or sent SIGTERM/SIGINT/SIGHUP.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cli/commands.h"
#include "cli/mount_int.h"
#include "fs/approve.h"
#include "fs/control.h"
#include "fs/fs.h"
#include "fs/record.h"
#include "fs/staged.h"

/* Descriptors kept open at most for cold inodes; see fs.h. */
#define FD_CAP_DEFAULT 4096

static void mount_usage(FILE *f)
{
	fprintf(f,
		"usage: golemfs mount [-c CONFIG] [--worker FILE]... "
		"[--trust LEVEL]\n"
		"                     [--session ID] [-f] [-d] "
		"[-o OPTIONS] MOUNTPOINT\n"
		"\n"
		"Mount the sandbox's virtual root at MOUNTPOINT (an empty "
		"directory).\nReturns once the mount is ready; the daemon "
		"runs in the background\nunless -f. Unmount with 'golemfs "
		"umount MOUNTPOINT'.\n"
		"\n" POLICY_CLI_HELP
		"  -s, --session ID     resume session ID (its private "
		"directory);\n"
		"                       default: a new session\n"
		"  -f, --foreground     do not daemonize\n"
		"  -d, --debug          log every decision (implies "
		"-f)\n" MOUNT_CACHE_HELP
		"  -o OPTIONS           settings (trust=, symlinks=, ...) and "
		"FUSE\n"
		"                       options (allow_other, ...), "
		"comma-separated\n"
		"  -h, --help           this help\n"
		"\nExit status: 0 mounted, 1 failed, 2 bad usage or "
		"configuration.\n");
}

static bool session_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 64 || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return false;
	return true;
}

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

int mount_take_opt(struct mount_opts *o, int c, char *arg, struct gfs_err *err)
{
	char *end;

	switch (c) {
	case 's':
		if (!session_ok(arg))
			return gfs_err_set(err, -EINVAL,
					   "--session: '%s' must be letters, "
					   "digits, '-', '_' or '.'",
					   arg);
		o->session = arg;
		return 1;
	case 'd':
		o->debug = o->foreground = true;
		return 1;
	case 'M':
		o->fd_cap = strtoul(arg, &end, 10);
		if (*end || o->fd_cap < 1 || o->fd_cap > 1000000)
			return gfs_err_set(err, -EINVAL,
					   "--max-fds: '%s' is not a number "
					   "from 1 to 1000000",
					   arg);
		return 1;
	case 'K':
		errno = 0;
		o->cache_timeout = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->cache_timeout >= 0) ||
		    o->cache_timeout > 86400)
			return gfs_err_set(err, -EINVAL,
					   "--cache-timeout: '%s' is not a "
					   "number of seconds from 0 to 86400",
					   arg);
		o->cache_set = true;
		return 1;
	}
	return policy_cli_take(&o->cli, c, arg, err);
}

static int parse_args(struct mount_opts *o, int argc, char **argv,
		      struct gfs_err *err)
{
	static const struct option longopts[] = {
		MOUNT_LONGOPTS,
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+" MOUNT_SHORTOPTS "fh", longopts,
				NULL)) != -1) {
		if (c == 'f') {
			o->foreground = true;
			continue;
		}
		if (c == 'h') {
			mount_usage(stdout);
			exit(0);
		}
		rc = mount_take_opt(o, c, optarg, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return gfs_err_set(err, -EINVAL,
					   "mount: see 'golemfs mount --help'");
	}
	if (optind != argc - 1)
		return gfs_err_set(err, -EINVAL,
				   "mount: expected one MOUNTPOINT; see "
				   "'golemfs mount --help'");
	o->mountpoint = argv[optind];
	return 0;
}

/* The mountpoint must be an existing, empty directory. */
static int check_mountpoint(const char *mnt, struct gfs_err *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(mnt, &st) < 0)
		return gfs_err_set(err, -errno, "mountpoint '%s': %s", mnt,
				   strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gfs_err_set(err, -ENOTDIR,
				   "mountpoint '%s': not a directory", mnt);
	d = opendir(mnt);
	if (!d)
		return gfs_err_set(err, -errno, "mountpoint '%s': %s", mnt,
				   strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de)
		return gfs_err_set(err, -ENOTEMPTY,
				   "mountpoint '%s': not empty", mnt);
	return 0;
}

static int build_args(struct fuse_args *args, struct mount_opts *o)
{
	char opts[1400];

	snprintf(opts, sizeof(opts),
		 "fsname=golemfs,subtype=golemfs,default_permissions,nosuid,"
		 "nodev%s%s",
		 o->cli.fuse_opts[0] ? "," : "", o->cli.fuse_opts);
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

/* Open the audit writer; before the mount, as a check that it can be. */
static int audit_start(struct gfs *g, struct gfs_err *err)
{
	const struct policy *p = g->policy;

	if (!p->audit_enabled)
		return 0;
	return audit_open(&g->audit, p->audit_path, g->session,
			  p->audit_on_full, p->audit_queue, err);
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
int gfs_prepare(struct gfs *g, struct mount_opts *o, struct gfs_err *err)
{
	struct stat st;
	int rc;

	rc = policy_cli_load(&g->policy, &o->cli, err);
	if (rc < 0)
		return rc;
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
	rc = staged_init(g, err);
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
	staged_release(g);
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
					 o->cli.fuse_opts);
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

/*
 * Detach (unless -f): the process forks, and the parent, which the user's
 * `golemfs mount` is, waits until the child says the mount is ready --
 * control socket and audit included -- so that `golemfs mount M &&
 * golemfs status M` always works. If the child ends first, the parent
 * exits with the child's status; the child's errors went to the same
 * stderr, which it keeps until it is ready.
 */
static int detach(struct mount_opts *o, int *ready, struct gfs_err *err)
{
	int p[2], status;
	pid_t pid;
	ssize_t n;
	char c;

	*ready = -1;
	if (o->foreground)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return gfs_err_set(err, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return gfs_err_set(err, -errno, "fork: %s", strerror(errno));
	}
	if (pid > 0) {
		close(p[1]);
		while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n == 1)
			_exit(0);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	close(p[0]);
	*ready = p[1];
	if (setsid() < 0 || chdir("/") < 0)
		gfs_log(LOG_WARNING, "detach: %s, ignoring", strerror(errno));
	return 0;
}

/* The child of detach() is ready: let its parent exit 0, and leave the
   terminal (stderr goes to GOLEMFS_LOG_FILE if set, for debugging). */
static void detach_done(struct mount_opts *o, int ready)
{
	const char *log = getenv("GOLEMFS_LOG_FILE");
	int fd;

	if (ready < 0)
		return;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (!log)
			dup2(fd, STDERR_FILENO);
		close(fd);
	}
	if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			      0600)) >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	gfs_log_use_syslog(!o->foreground && !log);
	if (write(ready, "", 1) != 1)
		gfs_log(LOG_WARNING, "detach: cannot tell the parent: %s",
			strerror(errno));
	close(ready);
}

static int serve(struct gfs *g, struct mount_opts *o, struct gfs_err *err)
{
	int rc, ready;

	rc = gfs_session_open(g, o, err);
	if (rc < 0)
		return rc;
	if (fuse_set_signal_handlers(g->se) != 0) {
		rc = gfs_err_set(err, -EIO, "cannot set signal handlers");
		goto out;
	}
	rc = detach(o, &ready, err);
	if (rc == 0)
		rc = gfs_serve_begin(g, o->mountpoint, err);
	if (rc == 0) {
		detach_done(o, ready);
		rc = gfs_loop(g);
	} else if (ready >= 0) {
		close(ready); /* the parent exits with our status */
	}
	fuse_session_unmount(g->se); /* ends the helpers' reads */
	gfs_loop_join(g);
	gfs_serve_end(g);
	fuse_remove_signal_handlers(g->se);
out:
	gfs_session_close(g);
	return rc;
}

int mount_exit_code(int rc)
{
	if (rc == -EINVAL || rc == -ENOENT || rc == -ENOTDIR ||
	    rc == -ENOTEMPTY)
		return 2;
	return rc < 0 ? 1 : 0;
}

int cmd_mount(int argc, char **argv)
{
	struct mount_opts o = { .fd_cap = FD_CAP_DEFAULT };
	struct gfs_err err = { 0 };
	struct gfs g = { 0 };
	char *real = NULL;
	int rc;

	rc = parse_args(&o, argc, argv, &err);
	if (rc == 0)
		rc = check_mountpoint(o.mountpoint, &err);
	/* the daemon leaves the cwd; unmounting at exit needs the full path */
	if (rc == 0 && !(real = realpath(o.mountpoint, NULL)))
		rc = gfs_err_set(&err, -errno, "mountpoint '%s': %s",
				 o.mountpoint, strerror(errno));
	if (rc == 0)
		o.mountpoint = real;
	if (rc == 0) {
		gfs_log_set_level(o.debug ? LOG_DEBUG : LOG_NOTICE);
		rc = gfs_prepare(&g, &o, &err);
	}
	if (rc == 0)
		rc = serve(&g, &o, &err);
	gfs_release(&g);
	free(real);
	if (rc < 0)
		gfs_err_print(NULL, err.msg[0] ? err.msg : strerror(-rc));
	return mount_exit_code(rc);
}

/* ---- umount ---- */

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

int cmd_umount(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lazy", no_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool lazy = false;
	const char *mnt;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+zh", longopts, NULL)) != -1) {
		if (c == 'z') {
			lazy = true;
		} else if (c == 'h') {
			printf("usage: golemfs umount [-z] MOUNTPOINT\n\n"
			       "Unmount a golemfs mount, also a stale one "
			       "whose daemon died\n('Transport endpoint is "
			       "not connected').\n\n"
			       "  -z, --lazy   detach now even if busy\n"
			       "  -h, --help   this help\n");
			return 0;
		} else {
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "golemfs: umount: expected one MOUNTPOINT\n");
		return 2;
	}
	mnt = argv[optind];
	if (geteuid() != 0)
		return mount_fusermount_unmount(mnt, lazy, false);
	if (umount2(mnt, lazy ? MNT_DETACH : 0) == 0)
		return 0;
	fprintf(stderr, "golemfs: umount '%s': %s\n", mnt,
		errno == EINVAL ? "not mounted" : strerror(errno));
	return 1;
}
