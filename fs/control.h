/*
 * control - the per-mount control socket, the daemon's side (its clients
 * and where the sockets are: control_client.h).
 *
 * Each mount listens on a unix socket, mode 0600 in a 0700 directory
 * outside the mount and outside every zone:
 *   $GOLEMFS_RUNTIME_DIR, else $XDG_RUNTIME_DIR/golemfs/, else
 *   /run/golemfs/ (root), else
 *   /tmp/golemfs-UID/; the socket is named after a hash of the
 *   mountpoint's real path, so `golemfs status MNT` finds it; a
 *   `golemfs run` sandbox's (mounted privately, invisible to the host) is
 *   run-PID.sock, addressed as "run:PID".
 * Only the mount's own user (or root) is served (SO_PEERCRED).
 *
 * Protocol: one request line, then reply lines, then the server closes.
 *   status            -> "key: value" lines
 *   flush             -> "ok" once the audit queue is committed
 *   trust LEVEL       -> "ok OLD NEW" or "error REASON"
 *   approve           -> "ok 2", then "ask ID OP PATH PID COMM BYTES" lines
 *                        (PATH and COMM always quoted, gfs_esc_name) to
 *                        which the client answers "answer ID X REQUEST"
 *                        (REQUEST: the ask line exactly as received);
 *                        the server says "done ID X", "refused ID WHY"
 *                        or, for a request no longer waiting, "gone ID".
 *                        The README has the whole protocol.
 *
 * A trust change takes effect at once: the kernel's cached entries of the
 * virtual root are invalidated, so `ls /` follows; every later request is
 * decided at the new level. Handles opened before keep the access they
 * were opened with, as with Unix permissions.
 */
#ifndef GFS_CONTROL_H
#define GFS_CONTROL_H

#include <stddef.h>

#include "fs.h"

/* control_start() - listen and serve on a thread; control_stop() ends it. */
int control_start(struct gfs *g, const char *mnt, struct gfs_err *err);
void control_stop(struct gfs *g);

/*
 * control_sweep_runs() - remove the sockets (and their locks) that killed
 * `golemfs run`s left: run-PID.sock whose PID is gone and whose lock
 * nobody holds. A live sandbox's socket is never touched.
 */
void control_sweep_runs(void);

#endif
