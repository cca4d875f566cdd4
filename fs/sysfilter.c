/*
 * The system-call filter of `golemfs run`: which calls are refused, and
 * the compiled program bwrap loads. See sysfilter.h; README lists why
 * each call is refused.
 */
#include "sysfilter.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <unistd.h>

/* Refused whatever their arguments. A name the ABI lacks is skipped. */
static const char *const refused[] = {
	/* kernel keyrings: the user's keys (Kerberos, ecryptfs, ...) */
	"keyctl",
	"add_key",
	"request_key",
	/* large kernel attack surfaces, and kernel-address leaks */
	"bpf",
	"perf_event_open",
	"userfaultfd",
	"io_uring_setup",
	"io_uring_enter",
	"io_uring_register",
	/* replacing or extending the kernel */
	"kexec_load",
	"kexec_file_load",
	"init_module",
	"finit_module",
	"delete_module",
	/* file handles walk around path lookup (the "shocker" escape) */
	"open_by_handle_at",
	"name_to_handle_at",
	/* mounting, old and new API, and changing root */
	"mount",
	"umount",
	"umount2",
	"pivot_root",
	"chroot",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"move_mount",
	"open_tree",
	"mount_setattr",
	/* the machine's state: swap, power, clocks, accounting, quotas */
	"swapon",
	"swapoff",
	"reboot",
	"settimeofday",
	"clock_settime",
	"stime",
	"acct",
	"quotactl",
	"quotactl_fd",
	"lookup_dcookie",
	"syslog",
	"vhangup",
	"iopl",
	"ioperm",
	"uselib",
	"vm86",
	"vm86old",
	/* other namespaces, and other processes' memory and files: the
	   sandbox's init (bwrap's) runs without this filter */
	"setns",
	"process_vm_readv",
	"process_vm_writev",
	"pidfd_getfd",
	NULL,
};

/* Namespace flags that clone and unshare may not carry. */
static const uint64_t ns_flags[] = {
	CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET,
	CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP, 0x80 /* NEWTIME */,
};

/* personality(2): the flags a program may set (PER_* types, UNAME26). */
#define PERSONA_SAFE 0x000200ffull
#define PERSONA_QUERY_BIT 0x80000000ull

static int rule(scmp_filter_ctx ctx, int err, const char *name, unsigned ncmp,
		const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, ncmp, cmp);
}

/* Refuse @name when (argument @arg & @mask) == @val. */
static int rule_masked(scmp_filter_ctx ctx, const char *name, unsigned arg,
		       uint64_t mask, uint64_t val)
{
	struct scmp_arg_cmp c = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, val);

	return rule(ctx, EPERM, name, 1, &c);
}

/*
 * personality(): a filter compares each argument once per rule, so "only
 * safe flags, or the query 0xffffffff" is one rule per bit. The kernel
 * reads the low 32 bits only; so do the masks.
 */
static int persona_rules(scmp_filter_ctx ctx)
{
	uint64_t bit;
	int rc = 0;

	for (bit = 1; rc == 0 && bit < PERSONA_QUERY_BIT; bit <<= 1) {
		/* bit 31 clear (a change): no unsafe flag */
		if (!(bit & PERSONA_SAFE))
			rc = rule_masked(ctx, "personality", 0,
					 PERSONA_QUERY_BIT | bit, bit);
		/* bit 31 set: a query only when all other bits are set */
		if (rc == 0)
			rc = rule_masked(ctx, "personality", 0,
					 PERSONA_QUERY_BIT | bit,
					 PERSONA_QUERY_BIT);
	}
	return rc;
}

static int arg_rules(scmp_filter_ctx ctx)
{
	size_t i;
	int rc;

	/* attach to a running process; a child may still ask its parent
	   to trace it (PTRACE_TRACEME: a debugger's own program) */
	rc = rule_masked(ctx, "ptrace", 0, ~0ull, PTRACE_ATTACH);
	if (rc == 0)
		rc = rule_masked(ctx, "ptrace", 0, ~0ull, PTRACE_SEIZE);
	/* typing into the terminal, also the user's after CMD ends */
	if (rc == 0)
		rc = rule_masked(ctx, "ioctl", 1, 0xffffffffull, TIOCSTI);
	if (rc == 0)
		rc = rule_masked(ctx, "ioctl", 1, 0xffffffffull, TIOCLINUX);
	for (i = 0; rc == 0 && i < sizeof(ns_flags) / sizeof(*ns_flags); i++) {
		rc = rule_masked(ctx, "clone", 0, ns_flags[i], ns_flags[i]);
		if (rc == 0)
			rc = rule_masked(ctx, "unshare", 0, ns_flags[i],
					 ns_flags[i]);
	}
	if (rc == 0)
		rc = persona_rules(ctx);
	/* its flags are behind a pointer; ENOSYS makes libc use clone */
	if (rc == 0)
		rc = rule(ctx, ENOSYS, "clone3", 0, NULL);
	return rc;
}

/* The ABIs a process of this host can call the kernel through. */
static int arches(scmp_filter_ctx ctx)
{
	static const uint32_t x86_64_also[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
	static const uint32_t aarch64_also[] = { SCMP_ARCH_ARM };
	const uint32_t *also = NULL;
	size_t n = 0, i;
	int rc;

	if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
		also = x86_64_also;
		n = 2;
	} else if (seccomp_arch_native() == SCMP_ARCH_AARCH64) {
		also = aarch64_also;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		rc = seccomp_arch_add(ctx, also[i]);
		if (rc < 0 && rc != -EEXIST)
			return rc;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			      SCMP_ACT_ERRNO(EPERM));
	/* a binary tree of syscall numbers: allowed calls pay ~log(n) */
	return rc < 0 ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
}

int sysfilter_make(int *out, struct gfs_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	const char *what = "architectures";
	size_t i;
	int rc, fd = -1;

	if (!ctx)
		return gfs_err_set(err, -ENOMEM, "run: seccomp: out of memory");
	rc = arches(ctx);
	for (i = 0; rc == 0 && refused[i]; i++) {
		what = refused[i];
		rc = rule(ctx, EPERM, refused[i], 0, NULL);
	}
	if (rc == 0) {
		what = "rules on arguments";
		rc = arg_rules(ctx);
	}
	if (rc == 0) {
		what = "memfd";
		fd = memfd_create("golemfs-seccomp", MFD_CLOEXEC);
		rc = fd < 0 ? -errno : 0;
	}
	if (rc == 0) {
		what = "export";
		rc = seccomp_export_bpf(ctx, fd);
	}
	if (rc == 0 && lseek(fd, 0, SEEK_SET) < 0)
		rc = -errno;
	seccomp_release(ctx);
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		return gfs_err_set(err, rc, "run: seccomp filter (%s): %s",
				   what, strerror(-rc));
	}
	*out = fd;
	return 0;
}
