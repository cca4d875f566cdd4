/*
 * `golemfs run`: mount the virtual root privately and run a program in a
 * bubblewrap sandbox that sees only it (and the system dirs of sandbox.h).
 *
 * One process: this one enters a private mount namespace (and, unless
 * root, a user namespace), mounts golemfs there, serves it on a thread and
 * starts bwrap, through a small keeper process (keeper()) that kills what
 * bwrap's setup would leave if we were killed. The mount exists only in
 * namespaces whose processes all die with us (bwrap has
 * --die-with-parent), so nothing is ever left mounted on the host, even
 * after `kill -9`. It ends when CMD ends, even if bwrap's init does not
 * follow (struct watch).
 *
 * Exit status: CMD's (128+N if killed by signal N); 2 bad usage or config;
 * 125 the sandbox could not be made (CMD did not run).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "cli/commands.h"
#include "cli/mount_int.h"
#include "fs/control.h" /* control_sweep_runs */
#include "fs/control_client.h"
#include "fs/loop.h"
#include "fs/notice.h"
#include "fs/sandbox.h"
#include "fs/sysfilter.h"
#include "fs/vtree.h"

#define RUN_SETUP_FAILED 125
#define MAX_ENV_OPTS 64

struct run_opts {
	struct mount_opts m;
	struct policy_cli cli;
	bool net;
	const char *at;
	char *env[MAX_ENV_OPTS];
	size_t nenv;
	char **cmd;
};

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: golemfs run [-c CONFIG] [--worker FILE]... "
		"[--trust LEVEL] [--session ID]\n"
		"                   [-o OPTIONS] [--net] [--at PATH] "
		"[-e NAME[=VALUE]]... -- CMD [ARG]...\n"
		"\n"
		"Mount the sandbox's virtual root privately and run CMD in a "
		"bubblewrap\nsandbox whose / holds the visible zones (at "
		"/ZONE) and read-only system\ndirectories only: /usr and its "
		"links, a minimal /etc, /dev, /proc, a\nprivate /tmp (also "
		"$HOME). No network unless the config says\n'network: true' "
		"or --net. Refusals are explained on CMD's stderr.\n"
		"CMD gets a new, empty session keyring and a system-call "
		"filter that\nrefuses with EPERM: keyctl add_key request_key "
		"bpf perf_event_open\nuserfaultfd io_uring_* kexec_* "
		"init_module finit_module delete_module\nopen_by_handle_at "
		"name_to_handle_at, mounting (mount umount2 pivot_root\n"
		"chroot fsopen fsconfig fsmount fspick move_mount open_tree "
		"mount_setattr),\nswapon swapoff reboot settimeofday "
		"clock_settime acct quotactl syslog\nvhangup iopl ioperm "
		"uselib lookup_dcookie, setns and unshare/clone with\n"
		"CLONE_NEW* flags, ptrace ATTACH/SEIZE, process_vm_readv/"
		"writev, pidfd_getfd,\nthe ioctls TIOCSTI and TIOCLINUX, "
		"personality flags other than UNAME26;\nclone3 gets ENOSYS "
		"(libc then uses clone). Also through the i386 and x32\n"
		"ABIs. See README, \"System calls\".\n"
		"golemfs run ends when CMD ends, and kills what CMD left "
		"behind (also when\nthe sandbox's init is stopped). SIGINT, "
		"SIGTERM, SIGHUP, SIGQUIT are passed on;\nif CMD still runs "
		"2 s after SIGTERM or SIGHUP, the sandbox is killed.\n"
		"The mount is gone when CMD ends, however it ends.\n"
		"\n" POLICY_CLI_HELP
		"  -s, --session ID     resume session ID (its private "
		"directory)\n"
		"  -d, --debug          log every decision to "
		"stderr\n" MOUNT_CACHE_HELP
		"  -o OPTIONS           settings (trust=, network=, ...), "
		"comma-separated\n"
		"      --net            share the host's network\n"
		"      --at PATH        put the whole virtual root at PATH "
		"instead, and\n"
		"                       start there\n"
		"  -e, --env NAME[=VALUE]\n"
		"                       pass the host's NAME (or set it); "
		"CMD's environment\n"
		"                       is otherwise clean: TERM, LANG, LC_*, "
		"TZ, PATH, HOME\n"
		"  -h, --help           this help\n"
		"\nA live sandbox is named run:PID for 'golemfs status', "
		"'trust' and 'approve'.\n"
		"Exit status: CMD's (128+N if killed by signal N); 2 bad "
		"usage or\nconfiguration; 125 the sandbox could not be made "
		"(CMD did not run).\n");
}

static int run_take(void *ctx, int key, char *arg, struct gfs_err *err)
{
	struct run_opts *o = ctx;

	switch (key) {
	case 'N':
		o->net = true;
		return 1;
	case 'A':
		o->at = arg;
		return 1;
	case 'e':
		if (o->nenv == MAX_ENV_OPTS || !*arg || *arg == '=')
			return gfs_err_set(err, -EINVAL,
					   "run: -e '%s': give NAME or "
					   "NAME=VALUE (at most %d)",
					   arg, MAX_ENV_OPTS);
		o->env[o->nenv++] = arg;
		return 1;
	}
	return mount_take_opt(&o->m, &o->cli, key, arg, err);
}

static const struct cli_opt run_opts_table[] = {
	MOUNT_OPTS,
	{ "net", 'N', false, false },
	{ "at", 'A', true, false },
	{ "env", 'e', true, true },
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

static const struct cli_cmd run_cmd = {
	.opts = run_opts_table,
	.usage = run_usage,
	.hint = "run: see 'golemfs run --help'",
	.take = run_take,
};

/* Return: CLI_GO, or the exit status (the message printed). */
static int parse_args(struct run_opts *o, int argc, char **argv)
{
	int rc;

	rc = cli_parse(&run_cmd, argc, argv, o, NULL);
	if (rc != CLI_GO)
		return rc;
	if (optind >= argc) {
		gfs_err_print(NULL, "run: no command; usage: golemfs run "
				    "[OPTIONS] -- CMD [ARG]...");
		return CLI_USAGE;
	}
	o->cmd = argv + optind;
	return CLI_GO;
}

/* --at PATH: absolute, plain, and not over the sandbox's own dirs. */
static int at_check(const char *at, struct gfs_err *err)
{
	char first[256];
	const char *s;

	if (at[0] != '/' || !at[1] || strstr(at, "//") || strstr(at, "/./") ||
	    strstr(at, "/../") ||
	    (strlen(at) >= 3 && !strcmp(at + strlen(at) - 3, "/..")) ||
	    at[strlen(at) - 1] == '/' || strlen(at) > 200)
		return gfs_err_set(err, -EINVAL,
				   "run: --at '%s': give a plain absolute "
				   "path other than /",
				   at);
	s = strchr(at + 1, '/');
	snprintf(first, sizeof(first), "%.*s",
		 s ? (int)(s - at - 1) : (int)strlen(at + 1), at + 1);
	if (sandbox_is_system_name(first))
		return gfs_err_set(err, -EINVAL,
				   "run: --at '%s': /%s is the sandbox's own "
				   "system directory",
				   at, first);
	return 0;
}

/* ---- the sandbox's view ---- */

/* The visible top-level names of the virtual root, into @sb->zones. */
static int visible_zones(struct gfs *g, struct sandbox *sb, struct gfs_err *err)
{
	const struct node *root = g->root;
	size_t i;

	if (!sb->at && vdir_shows_underlay(g->root, gfs_trust(g)))
		return gfs_err_set(err, -EINVAL,
				   "run: a mount's target is / (the virtual "
				   "root is a directory of files): use --at "
				   "PATH");
	sb->zones = calloc(root->nchildren + 1, sizeof(*sb->zones));
	if (!sb->zones)
		return -ENOMEM;
	for (i = 0; i < root->nchildren; i++) {
		const char *name = root->children[i].name;

		if (!vdir_visible(root->children[i].node, gfs_trust(g)))
			continue;
		if (!sb->at && sandbox_is_system_name(name))
			return gfs_err_set(err, -EINVAL,
					   "run: zone '/%s' would hide the "
					   "sandbox's own /%s; rename it or "
					   "use --at PATH",
					   name, name);
		sb->zones[sb->nzones++] = name;
	}
	return 0;
}

/* The host directory behind the zone top @name, or NULL. */
static char *zone_host_dir(struct gfs *g, const char *name)
{
	struct node *n = vdir_child(g->root, name);
	char link[64];

	if (!n || n->fd < 0 || n->only_children)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", n->fd);
	return realpath(link, NULL);
}

/*
 * Where CMD starts: --at's PATH; else, when the host's cwd lies in a
 * visible zone, the same place inside; else /.
 */
static char *start_dir(struct gfs *g, struct sandbox *sb)
{
	char *cwd = getcwd(NULL, 0), *dir = NULL, *host, *in = NULL;
	struct stat st;
	size_t i, n;

	if (sb->at || !cwd) {
		free(cwd);
		return strdup(sb->at ? sb->at : "/");
	}
	for (i = 0; !dir && i < sb->nzones; i++) {
		host = zone_host_dir(g, sb->zones[i]);
		n = host ? strlen(host) : 0;
		if (host && !strncmp(cwd, host, n) &&
		    (cwd[n] == '/' || !cwd[n]) &&
		    asprintf(&dir, "/%s%s", sb->zones[i], cwd + n) < 0)
			dir = NULL;
		free(host);
	}
	free(cwd);
	/* hidden inside the zone (restrict, protect)? then the zone's top */
	if (dir && (asprintf(&in, "%s%s", sb->mnt, dir) < 0 ||
		    stat(in, &st) < 0 || !S_ISDIR(st.st_mode))) {
		char *slash = strchr(dir + 1, '/');

		if (slash)
			*slash = '\0';
	}
	free(in);
	return dir ? dir : strdup("/");
}

/* Refuse a sandbox root, audit log or staging repo under /usr or /etc. */
static int out_of_reach(const struct policy *p, struct gfs_err *err)
{
	const char *paths[] = { p->root, p->audit_path };
	size_t i;

	for (i = 0; i < 2; i++) {
		if (!paths[i] || (strncmp(paths[i], "/usr/", 5) &&
				  strncmp(paths[i], "/etc/", 5)))
			continue;
		return gfs_err_set(err, -EINVAL,
				   "run: %s lies under /usr or /etc, which the "
				   "sandbox can read; move it",
				   paths[i]);
	}
	return 0;
}

/* ---- the child ---- */

static void child_fail(const char *msg)
{
	if (write(STDERR_FILENO, msg, strlen(msg)) < 0)
		_exit(RUN_SETUP_FAILED);
	_exit(RUN_SETUP_FAILED);
}

/* After fork() in the keeper: only async-signal-safe calls until execve(). */
static void child_exec(struct sandbox *sb, pid_t parent)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(RUN_SETUP_FAILED);
	/* a new, empty session keyring: the caller's keys stay out */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno != ENOSYS)
		child_fail("golemfs: run: cannot give the sandbox a new "
			   "session keyring\n");
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	execve(sb->bwrap, sb->args.v, sb->env.v);
	_exit(RUN_SETUP_FAILED);
}

/*
 * The keeper: bwrap's parent, between it and us. bwrap's sandbox side
 * (pid 1 in the sandbox) asks for a parent-death signal only once its
 * setup is done, and first waits on an eventfd for the outer bwrap's go.
 * So a `golemfs run` killed with -9 in those milliseconds (its
 * parent-death signal kills the outer bwrap) left pid 1 behind: blocked
 * on the eventfd for ever, or, a little later, running CMD with nobody
 * watching (measured: 5 of 40 kills at random points of the setup). The
 * keeper is a subreaper, so pid 1 becomes its child when the outer bwrap
 * dies, and it outlives us: told of our death by its own parent-death
 * signal, it kills every child it has - pid 1's death ends the whole
 * sandbox (its pid namespace) - and leaves.
 *
 * Otherwise it is transparent: it passes on to bwrap what we send it
 * (not what a terminal sends the process group, which bwrap gets too),
 * and ends as bwrap ended (same code, same signal). Only our SIGKILL
 * (kill_sandbox()) ends it at once; bwrap's parent-death signal then
 * ends the outer bwrap, and we kill pid 1 through its pidfd.
 * After fork(): only async-signal-safe calls.
 */
/* The children file of this (single-threaded) process, without snprintf. */
static void kids_path(char *path)
{
	char digits[24];
	long self = (long)getpid();
	size_t i = 16, d = 0;

	memcpy(path, "/proc/self/task/", 16);
	do {
		digits[d++] = (char)('0' + self % 10);
		self /= 10;
	} while (self);
	while (d)
		path[i++] = digits[--d];
	memcpy(path + i, "/children", 10);
}

/*
 * Kill and reap every child, again until none is left: one's death may
 * make another (pid 1 of the sandbox, when the outer bwrap dies) ours.
 * A pid read from the list is not reused before we reap it.
 */
static void kids_kill(void)
{
	char path[64], buf[4096];
	ssize_t n, k;
	long pid;
	int fd;

	kids_path(path);
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			break;
		buf[n] = ' ';
		for (k = 0, pid = 0; k <= n; k++) {
			if (buf[k] >= '0' && buf[k] <= '9') {
				pid = pid * 10 + (buf[k] - '0');
				continue;
			}
			if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
				while (waitpid((pid_t)pid, NULL, 0) < 0 &&
				       errno == EINTR)
					;
			pid = 0;
		}
	}
	/* whatever ended meanwhile */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* End the keeper as bwrap ended (@st), after the sandbox's last process. */
static void keeper_end(int st)
{
	sigset_t one;
	int sig;

	kids_kill();
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
	prctl(PR_SET_DUMPABLE, 0); /* bwrap dumped its core, if any */
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	kill(getpid(), sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	_exit(128 + sig);
}

static void keeper(struct sandbox *sb, pid_t parent, int info_fd)
{
	int info, filter, sig, st;
	pid_t bwrap, p, self;
	siginfo_t si;
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL); /* taken with sigwaitinfo() */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGHUP);
	if (getppid() != parent)
		_exit(RUN_SETUP_FAILED);
	/* moved out of the way first, so neither lands on the other */
	info = fcntl(info_fd, F_DUPFD, SANDBOX_FILTER_FD + 1);
	filter = fcntl(sb->filter_fd, F_DUPFD, SANDBOX_FILTER_FD + 1);
	if (info < 0 || filter < 0 || dup2(info, SANDBOX_INFO_FD) < 0 ||
	    dup2(filter, SANDBOX_FILTER_FD) < 0)
		_exit(RUN_SETUP_FAILED);
	/* no descriptor of the daemon leaks in, nor stays open here */
	close_range(SANDBOX_FILTER_FD + 1, ~0U, 0);
	self = getpid();
	bwrap = fork();
	if (bwrap == 0)
		child_exec(sb, self);
	close(SANDBOX_INFO_FD); /* bwrap's EOF must reach our reader */
	close(SANDBOX_FILTER_FD);
	if (bwrap < 0)
		child_fail("golemfs: run: cannot start bwrap\n");
	for (;;) {
		sig = sigwaitinfo(&all, &si);
		if (sig < 0)
			continue;
		if (getppid() != parent) /* `golemfs run` is gone */
			keeper_end(W_EXITCODE(RUN_SETUP_FAILED, 0));
		if (sig != SIGCHLD) {
			/* ours (forward(), kill_sandbox()); a terminal's
			   reached bwrap itself, in our process group */
			if (si.si_code == SI_USER && si.si_pid == parent)
				kill(bwrap, sig);
			continue;
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == bwrap)
				keeper_end(st);
	}
}

/* bwrap's info: the pid (here) of its init in the sandbox, or 0. */
static pid_t read_info(int fd)
{
	char buf[1024], *p;
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1 &&
	       ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0 ||
		(r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	buf[n] = '\0';
	p = strstr(buf, "\"child-pid\":");
	return p ? (pid_t)strtol(p + 12, NULL, 10) : 0;
}

/* ---- the sandbox's processes ---- */

#define GRACE_CMD_MS 500   /* for init to follow CMD; then it is killed */
#define GRACE_TERM_MS 2000 /* for CMD to end after SIGTERM or SIGHUP */

/* Numeric field @n of /proc/@pid/stat, counted as proc(5) does, or -1. */
static long long stat_field(pid_t pid, int n)
{
	char path[64], line[1024], *p;
	long long v = -1;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* the command name, field 2, may hold anything but ends at ')' */
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	for (i = 3; p && i <= n; i++) {
		p = strchr(p, ' ');
		if (p && i == n)
			v = strtoll(p + 1, NULL, 10);
		else if (p)
			p++;
	}
	fclose(f);
	return v;
}

/* Calls @fn(pid, @ctx) for each child of @init; returns how many. */
static int each_child(pid_t init, void (*fn)(pid_t, void *), void *ctx)
{
	struct dirent *de;
	DIR *d = init > 0 ? opendir("/proc") : NULL;
	pid_t pid;
	int n = 0;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (stat_field(pid, 4) == init) {
			fn(pid, ctx);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

struct sig_count {
	int sig, sent;
};

static void send_one(pid_t pid, void *ctx)
{
	struct sig_count *c = ctx;

	if (kill(pid, c->sig) == 0)
		c->sent++;
}

/* Send @sig to the sandbox's processes: bwrap's init's children. */
static void forward(pid_t init, pid_t bwrap, int sig)
{
	struct sig_count c = { .sig = sig };

	each_child(init, send_one, &c);
	if (!c.sent) /* not started yet: end it all */
		kill(bwrap, sig);
}

struct oldest {
	pid_t pid;
	long long start;
};

static void keep_oldest(pid_t pid, void *ctx)
{
	struct oldest *o = ctx;
	long long start = stat_field(pid, 22);

	if (start >= 0 && (!o->pid || start < o->start)) {
		o->pid = pid;
		o->start = start;
	}
}

/*
 * How `golemfs run` follows the sandbox. bwrap's init (pid 1 inside)
 * normally ends right after CMD, and the kernel then kills every other
 * process of the sandbox. But init could be held (stopped), and CMD may
 * ignore SIGTERM: so CMD is watched itself, and a deadline kills init.
 */
struct watch {
	pid_t bwrap, init, cmd;
	int init_fd, cmd_fd; /* pidfds, or -1 */
	int search_ms;       /* next look for CMD; 0 once found */
	int cmd_status;      /* CMD's, read from its zombie, or -1 */
	int term_sig;        /* SIGTERM/SIGHUP that armed the deadline */
	int killed;          /* the sandbox was killed */
	long long deadline;  /* now_ms() to kill at; 0: none */
};

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Kill the sandbox @ms from now, unless it is to happen sooner. */
static void arm(struct watch *w, int ms)
{
	long long at = now_ms() + ms;

	if (!w->deadline || at < w->deadline)
		w->deadline = at;
}

/* CMD: init's first child. The pidfd is checked to be that process. */
static void cmd_find(struct watch *w)
{
	struct oldest o = { 0 };
	int fd;

	each_child(w->init, keep_oldest, &o);
	if (!o.pid)
		return;
	fd = (int)syscall(SYS_pidfd_open, o.pid, 0);
	if (fd < 0)
		return;
	if (stat_field(o.pid, 4) != w->init ||
	    stat_field(o.pid, 22) != o.start) {
		close(fd);
		return;
	}
	w->cmd = o.pid;
	w->cmd_fd = fd;
	w->search_ms = 0;
}

/* CMD ended: keep its status while it waits for init to collect it. */
static void cmd_ended(struct watch *w)
{
	char path[64], state = 0;
	long long code;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)w->cmd);
	f = fopen(path, "re");
	if (f) {
		char line[1024], *p = fgets(line, sizeof(line), f)
					  ? strrchr(line, ')')
					  : NULL;

		if (p && p[1] == ' ')
			state = p[2];
		fclose(f);
	}
	code = state == 'Z' ? stat_field(w->cmd, 52) : -1;
	if (code >= 0 && stat_field(w->cmd, 4) == w->init)
		w->cmd_status = (int)code;
	close(w->cmd_fd);
	w->cmd_fd = -1;
	arm(w, GRACE_CMD_MS);
}

static void kill_sandbox(struct watch *w)
{
	if (w->init_fd >= 0)
		syscall(SYS_pidfd_send_signal, w->init_fd, SIGKILL, NULL, 0);
	kill(w->bwrap, SIGKILL);
	w->killed = 1;
	w->deadline = 0;
}

static int wait_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : RUN_SETUP_FAILED;
}

/* Is @point where the sandbox binds the mount (/ZONE, or --at's PATH)? */
static bool bind_target(const struct sandbox *sb, const char *point)
{
	size_t i;

	if (sb->at)
		return strcmp(point, sb->at) == 0;
	for (i = 0; i < sb->nzones; i++)
		if (point[0] == '/' && strcmp(point + 1, sb->zones[i]) == 0)
			return true;
	return false;
}

/*
 * How many of its binds of our mount @pid's namespace holds in their
 * final place (after bwrap's pivot_root), or -1 when it is gone.
 */
static int binds_done(const struct sandbox *sb, pid_t pid)
{
	char path[64], *line = NULL, *point;
	unsigned maj, min;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* whole lines: a long mount point is never read cut */
	while (getline(&line, &cap, f) > 0) {
		point = NULL;
		if (sscanf(line, "%*u %*u %u:%u %*s %ms", &maj, &min, &point) ==
			3 &&
		    makedev(maj, min) == sb->dev && bind_target(sb, point))
			n++;
		free(point);
	}
	free(line);
	fclose(f);
	return n;
}

/*
 * An ordinary user's mount is on the host, made by fusermount3: once the
 * sandbox holds its own binds of it (they keep the filesystem alive), it
 * leaves the host, mountpoint and all, so `kill -9` leaves nothing.
 */
static void host_detach(struct sandbox *sb, pid_t init)
{
	int want = sb->at ? 1 : (int)sb->nzones, n, i;

	if (!sb->host_mnt)
		return;
	for (i = 0; i < 10000; i++) { /* 10 s at most */
		n = binds_done(sb, init);
		if (n < 0 || n >= want)
			break;
		usleep(1000);
	}
	if (n >= want && mount_fusermount_unmount(sb->mnt, true, true) == 0 &&
	    rmdir(sb->mnt) == 0)
		sb->host_mnt = false;
}

static int watch_timeout(const struct watch *w)
{
	long long left = -1;

	if (w->deadline) {
		left = w->deadline - now_ms();
		if (left < 0)
			left = 0;
	}
	if (w->search_ms && (left < 0 || w->search_ms < left))
		left = w->search_ms;
	return (int)left;
}

/* What `golemfs run` returns once bwrap ended with @st. */
static int watch_status(const struct watch *w, int st)
{
	if (!w->killed)
		return wait_status(st);
	if (w->cmd_status >= 0)
		return wait_status(w->cmd_status);
	return 128 + (w->term_sig ? w->term_sig : SIGKILL);
}

/*
 * One signal for `golemfs run`. Returns 1 when bwrap has ended (*@st
 * set), else 0. SIGTERM and SIGHUP are passed on, and end the sandbox if
 * it still runs GRACE_TERM_MS later (at once on a second one).
 */
static int watch_signal(struct watch *w, struct sandbox *sb,
			const struct signalfd_siginfo *si, int *st)
{
	int sig = (int)si->ssi_signo;

	if (sig == SIGCHLD)
		return waitpid(w->bwrap, st, WNOHANG) == w->bwrap;
	if (sig == SIGTERM || sig == SIGHUP) {
		if (w->term_sig)
			kill_sandbox(w);
		else
			arm(w, GRACE_TERM_MS);
		w->term_sig = sig;
	}
	/* typed at a shared terminal: CMD got it already */
	if (si->ssi_code == SI_KERNEL && !sb->new_session)
		return 0;
	forward(w->init, w->bwrap, sig);
	return 0;
}

static int watch_loop(struct watch *w, struct sandbox *sb, int sigfd)
{
	struct signalfd_siginfo si;
	struct pollfd p[2];
	int st, timeout;

	for (;;) {
		timeout = watch_timeout(w);
		p[0] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = w->cmd_fd, .events = POLLIN };
		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			return -errno;
		while (read(sigfd, &si, sizeof(si)) == sizeof(si))
			if (watch_signal(w, sb, &si, &st))
				return watch_status(w, st);
		if (w->cmd_fd >= 0 && (p[1].revents & POLLIN))
			cmd_ended(w);
		if (w->search_ms) {
			cmd_find(w);
			if (w->search_ms && w->search_ms < 64)
				w->search_ms *= 2;
		}
		if (w->deadline && now_ms() >= w->deadline)
			kill_sandbox(w);
	}
}

/*
 * Start bwrap, pass signals on, and end when CMD ends (see struct
 * watch). Signals typed at a shared terminal already reach CMD (same
 * process group): not sent twice.
 */
static int run_child(struct sandbox *sb, const sigset_t *set)
{
	struct watch w = {
		.init_fd = -1, .cmd_fd = -1, .search_ms = 1, .cmd_status = -1
	};
	int info[2], st, sigfd, rc;
	pid_t parent = getpid();

	sigfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		return -errno;
	if (pipe2(info, O_CLOEXEC) < 0) {
		rc = -errno;
		close(sigfd);
		return rc;
	}
	w.bwrap = fork(); /* the keeper, bwrap's parent */
	if (w.bwrap == 0)
		keeper(sb, parent, info[1]);
	close(info[1]);
	if (w.bwrap < 0) {
		rc = -errno;
		close(info[0]);
		close(sigfd);
		return rc;
	}
	w.init = read_info(info[0]);
	close(info[0]);
	if (!w.init) { /* bwrap ended before making the sandbox: it said why */
		while (waitpid(w.bwrap, &st, 0) < 0 && errno == EINTR)
			;
		close(sigfd);
		return -EPERM;
	}
	w.init_fd = (int)syscall(SYS_pidfd_open, w.init, 0);
	host_detach(sb, w.init);
	rc = watch_loop(&w, sb, sigfd);
	if (w.init_fd >= 0)
		close(w.init_fd);
	if (w.cmd_fd >= 0)
		close(w.cmd_fd);
	close(sigfd);
	return rc;
}

/* ---- the whole run ---- */

static void *loop_main(void *arg)
{
	gfs_loop(arg);
	return NULL;
}

/* Remove what a killed ordinary user's run left: RUNDIR/mnt-PID. */
static void stale_mountpoints(const char *dir)
{
	char path[400];
	struct dirent *de;
	int pid;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (sscanf(de->d_name, "mnt-%d", &pid) != 1 || pid <= 0 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (rmdir(path) < 0 && errno == EBUSY) {
			mount_fusermount_unmount(path, true, true);
			rmdir(path);
		}
	}
	if (d)
		closedir(d);
}

/*
 * Where to mount. Root mounts in its private namespace, on one shared
 * RUNDIR/mnt; an ordinary user on the host, on RUNDIR/mnt-PID (removed
 * as soon as the sandbox holds the mount).
 */
static int run_mountpoint(char *buf, size_t size, struct gfs_err *err)
{
	char dir[80];
	int rc = control_runtime_dir_make(dir, sizeof(dir), err);

	if (rc < 0)
		return rc;
	control_sweep_runs();
	if (geteuid() == 0) {
		snprintf(buf, size, "%s/mnt", dir);
	} else {
		stale_mountpoints(dir);
		snprintf(buf, size, "%s/mnt-%d", dir, (int)getpid());
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return gfs_err_set(err, -errno, "%s: %s", buf, strerror(errno));
	return 0;
}

/* Does a terminal ioctl from the sandbox reach the user's shell? */
static bool tty_injection_possible(void)
{
	FILE *f = fopen("/proc/sys/dev/tty/legacy_tiocsti", "re");
	int v = 1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 1;
		fclose(f);
	}
	return v != 0;
}

static int sandbox_up(struct gfs *g, struct run_opts *o, struct sandbox *sb,
		      const sigset_t *set, struct gfs_err *err)
{
	char key[32];
	pthread_t loop;
	int rc, status = 0;

	rc = gfs_session_open(g, &o->m, err);
	if (rc < 0)
		return rc;
	snprintf(key, sizeof(key), "run:%d", (int)getpid());
	rc = gfs_serve_begin(g, key, err);
	if (rc == 0 && pthread_create(&loop, NULL, loop_main, g) != 0)
		rc = gfs_err_set(err, -EAGAIN, "run: cannot start a thread");
	if (rc < 0) {
		gfs_serve_end(g);
		gfs_session_close(g);
		return rc;
	}
	sb->dev = g->self_dev;
	rc = visible_zones(g, sb, err);
	if (rc == 0 && !(sb->cwd = start_dir(g, sb)))
		rc = -ENOMEM;
	if (rc == 0)
		rc = sysfilter_make(&sb->filter_fd, err);
	if (rc == 0)
		rc = sandbox_build(sb, o->env, o->nenv, g->session);
	if (rc == 0) {
		notice_start(STDERR_FILENO);
		status = run_child(sb, set);
		notice_stop();
		if (status == -EPERM)
			rc = gfs_err_set(err, status,
					 "run: bubblewrap could "
					 "not make the sandbox (its reason is "
					 "above); CMD did not run");
		else if (status < 0)
			rc = gfs_err_set(err, status,
					 "run: cannot start "
					 "bwrap: %s",
					 strerror(-status));
	}
	/* the loop ends when the kernel drops the mount */
	fuse_session_exit(g->se);
	if (geteuid() == 0)
		umount2(o->m.mountpoint, MNT_DETACH);
	else if (sb->host_mnt)
		mount_fusermount_unmount(o->m.mountpoint, true, true);
	pthread_join(loop, NULL);
	gfs_loop_join(g);
	gfs_serve_end(g);
	gfs_session_close(g);
	free(sb->cwd);
	free(sb->zones);
	return rc < 0 ? rc : status;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .m = { .fd_cap = 4096 } };
	struct sandbox sb = { .filter_fd = -1 };
	struct gfs_err err = { 0 };
	struct gfs g = { 0 };
	char mnt[160];
	sigset_t set;
	int rc;

	rc = parse_args(&o, argc, argv);
	if (rc != CLI_GO)
		return rc;
	if (o.at && at_check(o.at, &err) < 0) {
		gfs_err_print(NULL, err.msg);
		return CLI_USAGE;
	}
	gfs_log_set_level(o.m.debug ? LOG_DEBUG : LOG_NOTICE);
	/* before any thread: every thread inherits this mask */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = sandbox_find_bwrap(&sb, &err);
	if (rc == 0)
		rc = sandbox_enter(&err);
	if (rc == 0)
		rc = run_mountpoint(mnt, sizeof(mnt), &err);
	if (rc < 0) {
		gfs_err_print(NULL, err.msg);
		return RUN_SETUP_FAILED;
	}
	o.m.mountpoint = mnt;
	sb.host_mnt = geteuid() != 0;
	/* fusermount3 unmounts if we die before the sandbox holds it */
	if (sb.host_mnt)
		policy_cli_take(&o.cli, 'o', (char[]){ "auto_unmount" }, &err);
	rc = mount_prepare(&g, &o.m, &o.cli, &err);
	if (rc == 0)
		rc = out_of_reach(g.policy, &err);
	if (rc == 0) {
		sb.net = o.net || g.policy->network;
		sb.new_session =
		    !isatty(STDIN_FILENO) || tty_injection_possible();
		sb.at = o.at;
		sb.mnt = mnt;
		sb.cmd = o.cmd;
		rc = sandbox_up(&g, &o, &sb, &set, &err);
	}
	gfs_release(&g);
	if (sb.host_mnt)
		rmdir(mnt);
	sandbox_release(&sb);
	if (sb.filter_fd >= 0)
		close(sb.filter_fd);
	if (rc < 0) {
		gfs_err_print(NULL, err.msg[0] ? err.msg : strerror(-rc));
		return rc == -EINVAL || rc == -ENOENT ? CLI_USAGE
						      : RUN_SETUP_FAILED;
	}
	return rc;
}
