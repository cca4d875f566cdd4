/*
 * notice - tell a sandboxed program why the mount refused it.
 *
 * Under `golemfs run` the daemon shares the program's stderr. Each
 * distinct refusal (operation + path) is written there once, as
 *   golemfs: write /input/a.md refused: /input is read-only; writable: ...
 * so a program (or an LLM reading its shell) learns what to do instead.
 * At most NOTICE_BURST lines per NOTICE_WINDOW seconds; the rest are
 * counted and summed up in one line later. Off until notice_start().
 * Thread-safe; costs nothing on allowed operations.
 */
#ifndef GFS_NOTICE_H
#define GFS_NOTICE_H

#define NOTICE_BURST 20
#define NOTICE_WINDOW 10

/* notice_start() - write refusals to @fd (not closed by us). */
void notice_start(int fd);
/* notice_refusal() - @err is a positive errno; only refusals (EACCES,
   EPERM, EROFS, EFBIG) are told, not "no such file". */
void notice_refusal(const char *op, const char *vpath, int err,
		    const char *reason);
/* notice_stop() - say how many were not shown, and stop. */
void notice_stop(void);

#endif
