/*
 * Refusal lines on the sandboxed program's stderr. See notice.h.
 */
#include "notice.h"

#include "common/gfs_esc.h"
#include "common/lockorder.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEEN_SLOTS 4096 /* distinct refusals remembered */

static struct {
	pthread_mutex_t lock;
	int fd;
	uint64_t seen[SEEN_SLOTS]; /* hashes; 0 = empty */
	size_t nseen;
	time_t window;        /* start of the current window */
	unsigned shown;       /* lines in the current window */
	unsigned long hidden; /* not shown since the last summary */
} nt = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

__attribute__((constructor)) static void nt_lock_name(void)
{
	lock_order_name(&nt.lock, LOCK_NOTICE);
}

static uint64_t hash(const char *op, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *s;

	for (s = op; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h = (h ^ ' ') * 0x100000001b3ull;
	for (s = path; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ? h : 1;
}

/* Remember @h; false if it was seen before. Under nt.lock. */
static bool first_time(uint64_t h)
{
	size_t i = h % SEEN_SLOTS, n;

	for (n = 0; n < SEEN_SLOTS; n++, i = (i + 1) % SEEN_SLOTS) {
		if (nt.seen[i] == h)
			return false;
		if (nt.seen[i] == 0) {
			if (nt.nseen < SEEN_SLOTS * 3 / 4) {
				nt.seen[i] = h;
				nt.nseen++;
			}
			return true;
		}
	}
	return true;
}

/*
 * Write @line (under PIPE_BUF bytes) unless that could block: the program
 * (or whoever reads its stderr) may not be reading, and a request thread
 * must never wait for it. Return: false, not written.
 */
static bool say(const char *line, size_t n)
{
	struct pollfd p = { .fd = nt.fd, .events = POLLOUT };
	ssize_t w;

	if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT))
		return false;
	while (n > 0) {
		w = write(nt.fd, line, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		line += w;
		n -= (size_t)w;
	}
	return true;
}

/* Under nt.lock. */
static void summary(void)
{
	char line[160];
	int n;

	if (!nt.hidden)
		return;
	n = snprintf(line, sizeof(line),
		     "golemfs: %lu more refusal%s not shown; the audit log "
		     "has them all\n",
		     nt.hidden, nt.hidden == 1 ? "" : "s");
	if (say(line, (size_t)n))
		nt.hidden = 0;
}

void notice_start(int fd)
{
	/* atomic: notice_refusal() looks before it takes the lock */
	pthread_mutex_lock(&nt.lock);
	__atomic_store_n(&nt.fd, fd, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nt.lock);
}

/* "golemfs: OP PATH refused: REASON\n", the path quoted and the reason
   escaped (both may be the program's), into a malloc'd line. */
static char *refusal_line(const char *op, const char *vpath, int err,
			  const char *reason, size_t *len)
{
	const char *why = reason ? reason : strerror(err);
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		return NULL;
	fprintf(m, "golemfs: %s ", op);
	gfs_esc_name(m, vpath, strlen(vpath), 0);
	fputs(" refused: ", m);
	gfs_esc_text(m, why, strlen(why), 0);
	fputc('\n', m);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void notice_refusal(const char *op, const char *vpath, int err,
		    const char *reason)
{
	char *line;
	time_t now;
	size_t n = 0;

	if (__atomic_load_n(&nt.fd, __ATOMIC_RELAXED) < 0 ||
	    (err != EACCES && err != EPERM && err != EROFS && err != EFBIG))
		return;
	now = time(NULL);
	pthread_mutex_lock(&nt.lock);
	if (nt.fd < 0 || !first_time(hash(op, vpath)))
		goto out;
	if (now - nt.window >= NOTICE_WINDOW) {
		nt.window = now;
		nt.shown = 0;
		summary();
	}
	if (nt.shown >= NOTICE_BURST) {
		nt.hidden++;
		goto out;
	}
	nt.shown++;
	line = refusal_line(op, vpath, err, reason, &n);
	if (!line || !say(line, n))
		nt.hidden++; /* said later, in the summary */
	free(line);
out:
	pthread_mutex_unlock(&nt.lock);
}

void notice_stop(void)
{
	pthread_mutex_lock(&nt.lock);
	if (nt.fd >= 0)
		summary();
	__atomic_store_n(&nt.fd, -1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nt.lock);
}
