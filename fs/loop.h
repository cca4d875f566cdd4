/*
 * loop - the request loop (loop.c): the threads that read /dev/fuse and
 * serve the kernel's requests, and the waits during which others read.
 */
#ifndef GFS_LOOP_H
#define GFS_LOOP_H

#include "fs.h"

/*
 * gfs_loop() - serve requests on this thread (and helpers) until the
 * session ends; then unmount and call gfs_loop_join() before destroying
 * the session. Return: 0 or -ENOMEM.
 */
int gfs_loop(struct gfs *g);
void gfs_loop_join(struct gfs *g);
/*
 * gfs_wait_begin() / _end() - around a wait that may be long (approval,
 * fsync, room in a full audit queue: fs/mount.c's audit_wait): another
 * thread reads meanwhile. Every such wait of a request handler must be
 * inside them, or the mount may stop answering. Hand what
 * gfs_wait_begin() returned to gfs_wait_end(). No-ops when not serving,
 * on a thread that is not the loop's, and inside another such wait (only
 * the outermost counts). Take no lock across gfs_wait_begin() (the
 * loop's lock is the last in the lock order).
 */
bool gfs_wait_begin(struct gfs *g);
void gfs_wait_end(struct gfs *g, bool counted);

#endif
