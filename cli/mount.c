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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/mount_int.h"
#include "fs/loop.h"

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

int mount_take_opt(struct mount_opts *o, struct policy_cli *cli, int c,
		   char *arg, struct gfs_err *err)
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
		o->debug = true; /* and -f: parse_args() */
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
	return policy_cli_take(cli, c, arg, err);
}

int mount_prepare(struct gfs *g, struct mount_opts *o, struct policy_cli *cli,
		  struct gfs_err *err)
{
	struct policy *p = NULL;
	int rc;

	rc = policy_cli_load(&p, cli, err);
	if (rc < 0)
		return rc;
	o->fuse_opts = cli->fuse_opts;
	return gfs_prepare(g, p, o, err);
}

/* What `golemfs mount` parses: the mount's options, the policy's, and
   its own. */
struct mount_args {
	struct mount_opts m;
	struct policy_cli cli;
	bool foreground; /* do not daemonize */
};

static int mount_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	struct mount_args *a = ctx;

	if (key == 'f') {
		a->foreground = true;
		return 1;
	}
	return mount_take_opt(&a->m, &a->cli, key, arg, err);
}

static const struct cli_opt mount_opts_table[] = {
	MOUNT_OPTS,
	{ "foreground", 'f', false, true },
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

static const struct cli_cmd mount_cmd = {
	.opts = mount_opts_table,
	.usage = mount_usage,
	.hint = "mount: see 'golemfs mount --help'",
	.take = mount_take,
};

/* Return: CLI_GO, or the exit status (the message printed). */
static int parse_args(struct mount_args *a, int argc, char **argv)
{
	int rc;

	rc = cli_parse(&mount_cmd, argc, argv, a, NULL);
	if (rc != CLI_GO)
		return rc;
	if (optind != argc - 1) {
		gfs_err_print(NULL, "mount: expected one MOUNTPOINT; see "
				    "'golemfs mount --help'");
		return CLI_USAGE;
	}
	a->m.mountpoint = argv[optind];
	a->foreground |= a->m.debug; /* -d implies -f */
	return CLI_GO;
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

/*
 * Detach (unless -f): the process forks, and the parent, which the user's
 * `golemfs mount` is, waits until the child says the mount is ready --
 * control socket and audit included -- so that `golemfs mount M &&
 * golemfs status M` always works. If the child ends first, the parent
 * exits with the child's status; the child's errors went to the same
 * stderr, which it keeps until it is ready.
 */
static int detach(struct mount_args *a, int *ready, struct gfs_err *err)
{
	int p[2], status;
	pid_t pid;
	ssize_t n;
	char c;

	*ready = -1;
	if (a->foreground)
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
static void detach_done(struct mount_args *a, int ready)
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
	gfs_log_use_syslog(!a->foreground && !log);
	if (write(ready, "", 1) != 1)
		gfs_log(LOG_WARNING, "detach: cannot tell the parent: %s",
			strerror(errno));
	close(ready);
}

static int serve(struct gfs *g, struct mount_args *a, struct gfs_err *err)
{
	int rc, ready;

	rc = gfs_session_open(g, &a->m, err);
	if (rc < 0)
		return rc;
	if (fuse_set_signal_handlers(g->se) != 0) {
		rc = gfs_err_set(err, -EIO, "cannot set signal handlers");
		goto out;
	}
	rc = detach(a, &ready, err);
	if (rc == 0)
		rc = gfs_serve_begin(g, a->m.mountpoint, err);
	if (rc == 0) {
		detach_done(a, ready);
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

int cmd_mount(int argc, char **argv)
{
	struct mount_args a = { .m = { .fd_cap = FD_CAP_DEFAULT } };
	struct gfs_err err = { 0 };
	struct gfs g = { 0 };
	char *real = NULL;
	int rc;

	rc = parse_args(&a, argc, argv);
	if (rc != CLI_GO)
		return rc;
	rc = check_mountpoint(a.m.mountpoint, &err);
	/* the daemon leaves the cwd; unmounting at exit needs the full path */
	if (rc == 0 && !(real = realpath(a.m.mountpoint, NULL)))
		rc = gfs_err_set(&err, -errno, "mountpoint '%s': %s",
				 a.m.mountpoint, strerror(errno));
	if (rc == 0)
		a.m.mountpoint = real;
	if (rc == 0) {
		gfs_log_set_level(a.m.debug ? LOG_DEBUG : LOG_NOTICE);
		rc = mount_prepare(&g, &a.m, &a.cli, &err);
	}
	if (rc == 0)
		rc = serve(&g, &a, &err);
	gfs_release(&g);
	free(real);
	if (rc < 0)
		gfs_err_print(NULL, err.msg[0] ? err.msg : strerror(-rc));
	return cli_exit_code(rc);
}

/* ---- umount ---- */

static int umount_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	bool *lazy = ctx;

	(void)arg;
	(void)err;
	if (key != 'z')
		return 0;
	*lazy = true;
	return 1;
}

static const struct cli_opt umount_opts[] = {
	{ "lazy", 'z', false, true },
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

static const struct cli_cmd umount_cmd = {
	.opts = umount_opts,
	.help = "usage: golemfs umount [-z] MOUNTPOINT\n\n"
		"Unmount a golemfs mount, also a stale one whose daemon "
		"died\n('Transport endpoint is not connected').\n\n"
		"  -z, --lazy   detach now even if busy\n"
		"  -h, --help   this help\n",
	.take = umount_take,
};

int cmd_umount(int argc, char **argv)
{
	bool lazy = false;
	const char *mnt;
	int rc;

	rc = cli_parse(&umount_cmd, argc, argv, &lazy, NULL);
	if (rc != CLI_GO)
		return rc;
	if (optind != argc - 1) {
		fprintf(stderr, "golemfs: umount: expected one MOUNTPOINT\n");
		return CLI_USAGE;
	}
	mnt = argv[optind];
	if (geteuid() != 0)
		return mount_fusermount_unmount(mnt, lazy, false);
	if (umount2(mnt, lazy ? MNT_DETACH : 0) == 0)
		return CLI_OK;
	fprintf(stderr, "golemfs: umount '%s': %s\n", mnt,
		errno == EINVAL ? "not mounted" : strerror(errno));
	return CLI_FAILED;
}
