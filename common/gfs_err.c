/*
 * Error text and the operator log. See gfs_err.h for the contract.
 */
#include <errno.h>
#include "gfs_err.h"

#include <stdio.h>
#include <string.h>

#include "gfs_esc.h"

static bool log_syslog;
static int log_level = LOG_INFO;

/* A message that did not fit ends in "...": never a silently cut path. */
static void mark_cut(char *msg, size_t size, int n)
{
	if (n >= 0 && (size_t)n >= size)
		memcpy(msg + size - 4, "...", 4);
}

int gfs_err_vset(struct gfs_err *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		mark_cut(err->msg, sizeof(err->msg),
			 vsnprintf(err->msg, sizeof(err->msg), fmt, ap));
	}
	return code;
}

int gfs_err_set(struct gfs_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gfs_err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void gfs_err_prefix(struct gfs_err *err, const char *fmt, ...)
{
	char head[sizeof(err->msg)];
	char old[sizeof(err->msg)];
	va_list ap;
	int n;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* a message cut at 255 bytes is still worth having, marked */
	n = snprintf(err->msg, sizeof(err->msg), "%s: %s", head, old);
	if (n < 0)
		err->msg[0] = '\0';
	mark_cut(err->msg, sizeof(err->msg), n);
}

int gfs_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < size)
		return 0;
	if (size)
		buf[0] = '\0';
	return -ENAMETOOLONG;
}

size_t gfs_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

void gfs_log_use_syslog(bool on)
{
	if (on && !log_syslog)
		openlog("golemfs", LOG_PID, LOG_DAEMON);
	log_syslog = on;
}

void gfs_log_set_level(int level)
{
	log_level = level;
}

void gfs_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	if (log_syslog) {
		vsyslog(level, fmt, ap);
	} else {
		fputs("golemfs: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

void gfs_err_print(const char *what, const char *msg)
{
	fputs("golemfs: ", stderr);
	if (what)
		fprintf(stderr, "%s: ", what);
	gfs_esc_text(stderr, msg, strlen(msg), 0);
	fputc('\n', stderr);
}
