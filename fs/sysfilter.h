/*
 * sysfilter - the system-call filter of `golemfs run`.
 *
 * A seccomp program, built with libseccomp, that refuses with EPERM the
 * kernel interfaces a sandboxed program has no use for and that widen the
 * host's attack surface (keyrings, bpf, perf, userfaultfd, kexec, modules,
 * file handles, mounting, clocks, swap, reboot, io_uring, attaching to
 * another process, terminal input injection, new namespaces, ...). It
 * never kills: a refused call fails like any call a program lacks the
 * privilege for. clone3 alone gets ENOSYS, since its flags cannot be read
 * by a filter and C libraries fall back to clone on ENOSYS only. The list
 * and the reason for each entry is in README ("What CMD's / holds").
 *
 * The native ABI and, on x86-64, the i386 and x32 ABIs get the same rules;
 * a call through any other ABI is refused with EPERM.
 *
 * bwrap applies it (--seccomp FD) right before it executes CMD, so CMD and
 * everything it starts run under it; bwrap's own init in the sandbox does
 * not, which is why attaching to another process is refused too.
 */
#ifndef GFS_SYSFILTER_H
#define GFS_SYSFILTER_H

#include "common/gfs_err.h"

/*
 * sysfilter_make() - the filter as a compiled BPF program in a memory
 * file positioned at its start, for bwrap --seccomp.
 * @out: the file descriptor (O_CLOEXEC) on success; the caller closes it.
 * Return: 0, -ENOMEM, or another -errno with @err saying what failed.
 */
int sysfilter_make(int *out, struct gfs_err *err);

#endif
