/*
 * sysprobe - calls the kernel interfaces `golemfs run` refuses, for
 * t_seccomp.sh. Run inside the sandbox; prints one line per call:
 * "NAME RESULT", RESULT "ok" or the errno's name (EPERM, ENOSYS, ...).
 *
 *   sysprobe deny        every refused call, with arguments that would do
 *                        nothing harmful if it were allowed
 *   sysprobe keys KEYID  the keyring attacks: read, update, link the
 *                        host's key KEYID, add keys, join a keyring
 *   sysprobe hold PID    (on the host, as root) stop PID with ptrace and
 *                        keep it stopped until killed; prints "held"
 *   sysprobe orphans US CMD...  (on the host) run CMD as a subreaper's
 *                        child, kill it with SIGKILL after US
 *                        microseconds, and print "left N": how many
 *                        processes it left (they become ours) still run
 *                        5 s later; those are then killed
 *
 * deny and keys refuse to run with any capability: on a host as root some
 * of these calls would act on the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void show(const char *name, long r)
{
	printf("%s %s\n", name, r >= 0 ? "ok" : strerrorname_np(errno));
	fflush(stdout);
}

#define TRY(name, ...) show(name, syscall(__VA_ARGS__))

static int no_capabilities(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int ok = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			ok = strtoull(line + 7, NULL, 16) == 0;
	if (f)
		fclose(f);
	if (!ok)
		fprintf(stderr,
			"sysprobe: refusing to run with capabilities\n");
	return ok;
}

static void probe_ptrace(void)
{
	long r;

	r = syscall(SYS_ptrace, PTRACE_ATTACH, 1, 0, 0);
	show("ptrace-attach-init", r);
	if (r == 0)
		ptrace(PTRACE_DETACH, 1, 0, 0);
	r = syscall(SYS_ptrace, PTRACE_SEIZE, 1, 0, 0);
	show("ptrace-seize-init", r);
	if (r == 0)
		ptrace(PTRACE_DETACH, 1, 0, 0);
	TRY("process_vm_readv", SYS_process_vm_readv, 1, NULL, 0, NULL, 0, 0);
	TRY("process_vm_writev", SYS_process_vm_writev, 1, NULL, 0, NULL, 0, 0);
	TRY("pidfd_getfd", SYS_pidfd_getfd, -1, 0, 0);
}

static void probe_persona(void)
{
	long old = personality(0xffffffff), r;

	r = syscall(SYS_personality, ADDR_NO_RANDOMIZE);
	show("personality-addr-no-randomize", r);
	r = syscall(SYS_personality, READ_IMPLIES_EXEC);
	show("personality-read-implies-exec", r);
	/* bit 31 set, but not the query: the kernel would set the flags */
	r = syscall(SYS_personality, 0x80000000ul | ADDR_NO_RANDOMIZE);
	show("personality-bit31", r);
	personality(old);
}

static void probe_namespaces(void)
{
	long r;

	TRY("unshare-user", SYS_unshare, CLONE_NEWUSER);
	TRY("unshare-net", SYS_unshare, CLONE_NEWNET);
	TRY("setns", SYS_setns, -1, 0);
	r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	show("clone-newuser", r);
	TRY("clone3", SYS_clone3, NULL, 0);
}

static void probe_mounts(void)
{
	TRY("mount", SYS_mount, "none", "/nonexistent-golemfs", "tmpfs", 0,
	    NULL);
	TRY("umount2", SYS_umount2, "/nonexistent-golemfs", 0);
	TRY("pivot_root", SYS_pivot_root, "/nonexistent-a", "/nonexistent-b");
	TRY("chroot", SYS_chroot, "/nonexistent-golemfs");
	TRY("fsopen", SYS_fsopen, "nonexistent-golemfs-fs", 0);
	TRY("fsconfig", SYS_fsconfig, -1, 0, NULL, NULL, 0);
	TRY("fsmount", SYS_fsmount, -1, 0, 0);
	TRY("fspick", SYS_fspick, -1, "", 0);
	TRY("move_mount", SYS_move_mount, -1, "", -1, "", 0);
	TRY("open_tree", SYS_open_tree, -1, "/nonexistent-golemfs", 0);
	TRY("mount_setattr", SYS_mount_setattr, -1, "", 0, NULL, 0);
}

static void probe_machine(void)
{
	TRY("swapon", SYS_swapon, "/nonexistent-golemfs", 0);
	TRY("swapoff", SYS_swapoff, "/nonexistent-golemfs");
	TRY("reboot", SYS_reboot, 0, 0, 0, NULL); /* bad magic */
	TRY("settimeofday", SYS_settimeofday, NULL, NULL);
	TRY("clock_settime", SYS_clock_settime, CLOCK_REALTIME, NULL);
	TRY("acct", SYS_acct, "/nonexistent-golemfs");
	TRY("quotactl", SYS_quotactl, 0, NULL, 0, NULL);
	TRY("quotactl_fd", SYS_quotactl_fd, -1, 0, 0, NULL);
	TRY("lookup_dcookie", SYS_lookup_dcookie, 0, NULL, 0);
	TRY("syslog", SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0);
	TRY("iopl", SYS_iopl, 0);
	TRY("ioperm", SYS_ioperm, 0, 0, 0);
	TRY("uselib", SYS_uselib, "/nonexistent-golemfs");
}

static void probe_kernel(void)
{
	long r;

	TRY("bpf", SYS_bpf, 0 /* MAP_CREATE */, NULL, 0);
	TRY("perf_event_open", SYS_perf_event_open, NULL, 0, -1, -1, 0);
	r = syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */);
	show("userfaultfd", r);
	if (r >= 0)
		close((int)r);
	TRY("io_uring_setup", SYS_io_uring_setup, 1, NULL);
	TRY("io_uring_enter", SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	TRY("io_uring_register", SYS_io_uring_register, -1, 0, NULL, 0);
	TRY("kexec_load", SYS_kexec_load, 0, 0, NULL, 0xffff0000ul);
	TRY("kexec_file_load", SYS_kexec_file_load, -1, -1, 0, NULL,
	    0xffff0000ul);
	TRY("init_module", SYS_init_module, NULL, 0, "");
	TRY("finit_module", SYS_finit_module, -1, "", 0);
	TRY("delete_module", SYS_delete_module, "golemfs_no_such_module",
	    O_NONBLOCK);
	TRY("open_by_handle_at", SYS_open_by_handle_at, -1, NULL, 0);
	TRY("name_to_handle_at", SYS_name_to_handle_at, AT_FDCWD, "/", NULL,
	    NULL, 0);
}

static void probe_tty(void)
{
	char c = 'x';

	/* fd -1: were the filter missing, EBADF, and no byte typed */
	TRY("ioctl-tiocsti", SYS_ioctl, -1, TIOCSTI, &c);
	TRY("ioctl-tiocsti-high-bits", SYS_ioctl, -1,
	    (unsigned long)TIOCSTI | (1ul << 32), &c);
	TRY("ioctl-tioclinux", SYS_ioctl, -1, TIOCLINUX, &c);
}

/* A call through another ABI of the same kernel: -1 and errno set. */
static long other_abi(long nr, long a, long b, int i386)
{
	long r = -ENOSYS;

#if defined(__x86_64__)
	if (i386)
		__asm__ volatile("int $0x80"
				 : "=a"(r)
				 : "a"(nr), "b"(a), "c"(b)
				 : "memory", "r8", "r9", "r10", "r11");
	else
		return syscall(nr | 0x40000000l /* __X32_SYSCALL_BIT */, a, b);
#else
	(void)nr, (void)a, (void)b, (void)i386;
#endif
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static void probe_keys(long host_key)
{
	/* i386's keyctl is 288; x32's is x86-64's (250) */
	show("keyctl-i386-abi", other_abi(288, KEYCTL_GET_KEYRING_ID,
					  KEY_SPEC_SESSION_KEYRING, 1));
	show("keyctl-x32-abi", other_abi(250, KEYCTL_GET_KEYRING_ID,
					 KEY_SPEC_SESSION_KEYRING, 0));
	TRY("keyctl-get-session", SYS_keyctl, KEYCTL_GET_KEYRING_ID,
	    KEY_SPEC_SESSION_KEYRING, 0);
	TRY("keyctl-join", SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
	TRY("add_key-session", SYS_add_key, "user", "golemfs-planted", "x", 1,
	    KEY_SPEC_SESSION_KEYRING);
	TRY("add_key-user", SYS_add_key, "user", "golemfs-planted", "x", 1,
	    KEY_SPEC_USER_KEYRING);
	TRY("request_key", SYS_request_key, "user", "golemfs-no-such-key", NULL,
	    0);
	if (host_key > 0) {
		char buf[256];

		TRY("keyctl-read-host-key", SYS_keyctl, KEYCTL_READ, host_key,
		    buf, sizeof(buf));
		TRY("keyctl-update-host-key", SYS_keyctl, KEYCTL_UPDATE,
		    host_key, "planted", 7);
		TRY("keyctl-unlink-host-key", SYS_keyctl, KEYCTL_UNLINK,
		    host_key, KEY_SPEC_SESSION_KEYRING);
	}
}

static int hold(pid_t pid)
{
	int st;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 ||
	    waitpid(pid, &st, __WALL) < 0) {
		perror("sysprobe: hold");
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* Our children now, by pid, from /proc/self/task/TID/children. */
static int children(pid_t *pids, int max)
{
	char path[64], buf[4096], *p, *end;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	f = fopen(path, "re");
	if (!f)
		return 0;
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		pids[n++] = (pid_t)v;
	}
	return n;
}

static int orphans(long us, char **cmd)
{
	struct timespec at = { us / 1000000, us % 1000000 * 1000 }, left;
	struct timespec end, now;
	pid_t pid, kids[64];
	sigset_t chld;
	int n, i;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	nanosleep(&at, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* the orphans: each SIGCHLD may be the last one's, for 5 s */
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 5;
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!children(kids, 64))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		sigtimedwait(&chld, NULL, &left);
	}
	n = children(kids, 64);
	printf("left %d\n", n);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold((pid_t)atoi(argv[2]));
	if (argc > 3 && !strcmp(argv[1], "orphans"))
		return orphans(atol(argv[2]), argv + 3);
	if (argc < 2 || !no_capabilities())
		return 2;
	if (!strcmp(argv[1], "deny")) {
		probe_ptrace();
		probe_persona();
		probe_namespaces();
		probe_mounts();
		probe_machine();
		probe_kernel();
		probe_tty();
		probe_keys(0);
		return 0;
	}
	if (!strcmp(argv[1], "keys") && argc == 3) {
		probe_keys(atol(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: sysprobe deny | keys KEYID | hold PID | "
			"orphans US CMD...\n");
	return 2;
}
