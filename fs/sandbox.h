/*
 * sandbox - the operating-system side of `golemfs run`: checking the host,
 * the daemon's private mount namespace, and bubblewrap's command line.
 *
 * The sandbox's filesystem is exactly (see README "Sandbox any program"):
 *   /usr                          read-only, the host's
 *   /bin /sbin /lib /lib32 /lib64 /libx32
 *                                 the host's merged-usr links (or, on a
 *                                 host without merged /usr, read-only)
 *   /etc                          read-only, only SANDBOX_ETC's names
 *   /dev                          a minimal devtmpfs (null, zero, tty, ...)
 *   /proc                         the sandbox's own pid namespace
 *   /tmp                          private, empty, gone at the end ($HOME)
 *   /ZONE...                      the zones and mounts visible at start,
 *                                 each the golemfs mount's /ZONE
 * or, with --at PATH, the whole virtual root at PATH instead of /ZONE....
 * "/" itself is read-only. Nothing else of the host is there. In /proc,
 * /proc/1/mem (bwrap's init, which runs without the system-call filter)
 * and the kernel keyring lists /proc/keys and /proc/key-users read as
 * empty.
 *
 * Not thread-safe; used by cli/run.c's main thread only.
 */
#ifndef GFS_SANDBOX_H
#define GFS_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/gfs_err.h"
#include "common/gfs_strv.h"

/* The descriptors bwrap gets: its info pipe, the seccomp program. */
#define SANDBOX_INFO_FD 3
#define SANDBOX_FILTER_FD 4

struct sandbox {
	/* filled by the caller */
	char bwrap[256];    /* sandbox_find_bwrap() */
	bool net;           /* share the host's network */
	bool new_session;   /* setsid(): no terminal ioctls on the host's tty */
	const char *at;     /* --at PATH, or NULL */
	const char *mnt;    /* the golemfs mountpoint */
	bool host_mnt;      /* mnt is on the host, until host_detach() */
	dev_t dev;          /* the mount's device number */
	const char **zones; /* top-level names bound at /NAME (not with at) */
	size_t nzones;
	char *cwd;     /* where CMD starts, inside (owned) */
	char **cmd;    /* CMD ARG... (NULL-terminated) */
	int filter_fd; /* sysfilter_make()'s, or -1; given to bwrap
			  as SANDBOX_FILTER_FD */
	/* built by sandbox_build() */
	struct gfs_strv args; /* bwrap's argv */
	struct gfs_strv env;  /* CMD's environment */
};

/* sandbox_is_system_name() - is /NAME one of the sandbox's own dirs? */
bool sandbox_is_system_name(const char *name);

/* sandbox_find_bwrap() - bubblewrap on PATH (or /usr/bin) into @sb->bwrap.
   Return: 0, or -ENOENT with @err saying how to install it. */
int sandbox_find_bwrap(struct sandbox *sb, struct gfs_err *err);

/*
 * sandbox_enter() - check the host and, as root, move this (still
 * single-threaded) process into a private mount namespace, so the golemfs
 * mount is seen by nobody but us and the sandbox, and vanishes with us.
 * An ordinary user mounts with fusermount3 on the host instead (cli/run.c
 * detaches that mount as soon as the sandbox holds it); this checks
 * fusermount3 and that user namespaces (bwrap's) are allowed.
 * Return: 0, or -errno with @err saying what to fix on the host.
 */
int sandbox_enter(struct gfs_err *err);

/* sandbox_build() - bwrap's argv and CMD's environment; @keep: the -e
   options (NAME or NAME=VALUE), @nkeep of them. Return: 0 or -ENOMEM. */
int sandbox_build(struct sandbox *sb, char **keep, size_t nkeep,
		  const char *session);

void sandbox_release(struct sandbox *sb);

#endif
