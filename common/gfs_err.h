/*
 * gfs_err - how errors travel between golemfs modules.
 *
 * Every function that can fail returns 0 or a negative errno. Text meant for
 * a human travels beside it in a caller-provided struct gfs_err, never in a
 * global. The struct is plain data: fill it on one thread, read it on any.
 * Also home of gfs_log(), the operator log used by top-level code only.
 */
#ifndef GFS_ERR_H
#define GFS_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <syslog.h>

struct gfs_err {
	int code;      /* negative errno; 0 while unset */
	char msg[256]; /* one line, no trailing newline */
};

/*
 * gfs_err_set() - record an error and return its code.
 * @err:  optional; left as is when NULL.
 * @code: negative errno.
 * Return: @code, so callers can write `return gfs_err_set(err, ...);`.
 */
int gfs_err_set(struct gfs_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* gfs_err_vset() - as gfs_err_set() with a va_list. */
int gfs_err_vset(struct gfs_err *err, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/*
 * gfs_err_prefix() - prepend "what: " to an already set message, so a
 * lower layer's reason gains the caller's context.
 */
/*
 * gfs_err_print() - "golemfs: [WHAT: ]MSG" on stderr, for a command's
 * user. @msg may hold names a sandboxed program chose (paths, staged IDs,
 * messages): control characters and invalid UTF-8 in it are escaped, so
 * no error line can move the cursor or pretend to be another line.
 */
void gfs_err_print(const char *what, const char *msg);

void gfs_err_prefix(struct gfs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * gfs_strlcpy() - copy @src into @dst of @size bytes, cut to fit and
 * always terminated (for size > 0). Return: strlen(src), so a result >=
 * size says it was cut.
 */
#include <stddef.h>
size_t gfs_strlcpy(char *dst, const char *src, size_t size);

/*
 * gfs_fmt() - snprintf() that never cuts: a path or name that does not
 * fit is an error, not a shorter path that names something else.
 * Return: 0, or -ENAMETOOLONG (then @buf holds "", so a caller that
 * ignores the result uses no cut string).
 */
int gfs_fmt(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * gfs_log() - operator log: stderr while in the foreground, syslog once
 * the daemon has detached (see gfs_log_use_syslog()). Messages below
 * the level set by gfs_log_set_level() are dropped.
 */
void gfs_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gfs_log_use_syslog(bool on);
void gfs_log_set_level(int level);

#endif
