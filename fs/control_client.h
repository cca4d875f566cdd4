/*
 * control_client - where the per-mount control sockets are (shared with
 * the daemon's side, control.h, which describes the protocol) and the
 * client's side of them, used by the commands (cli/). Includes nothing of
 * the daemon.
 */
#ifndef GFS_CONTROL_CLIENT_H
#define GFS_CONTROL_CLIENT_H

#include <stddef.h>
#include <stdio.h>

#include "common/gfs_err.h"

/* control_runtime_dir() - the directory of the sockets into @buf. */
int control_runtime_dir(char *buf, size_t size);
/* control_runtime_dir_make() - the same, made if missing and checked to
   be ours alone (0700). Return: 0 or -errno (@err). */
int control_runtime_dir_make(char *buf, size_t size, struct gfs_err *err);

/* control_path() - the socket of the mount at @mnt (a real path, or
   "run:PID" for a `golemfs run` sandbox). */
int control_path(const char *mnt, char *buf, size_t size);

/* control_connect() - a connected socket to the mount at @mnt (a path or
   "run:PID"; NULL: the only golemfs mount or sandbox of this user).
   Return: fd or -errno (@err). */
int control_connect(const char *mnt, struct gfs_err *err);

/*
 * control_request() - send @line to the mount at @mnt (NULL: the only
 * golemfs mount of this user) and copy the reply to @out.
 * Return: 0, or -errno with @err saying what to do.
 */
int control_request(const char *mnt, const char *line, FILE *out,
		    struct gfs_err *err);

/* control_send_all() - write all of @s to socket @fd (no SIGPIPE).
   Return: 0 or -1. */
int control_send_all(int fd, const char *s, size_t n);

/*
 * control_flush_all() - ask every live mount and sandbox of this runtime
 * directory to commit its queued audit events and wait for them (2 s at
 * most each), so that a reader of the audit sees every event of an
 * operation that has returned.
 */
void control_flush_all(void);

#endif
