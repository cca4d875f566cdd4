/*
 * stress - many threads doing filesystem work at once, each operation
 * watched: one that takes longer than the limit is a hang, reported
 * with what it was doing, and the program exits 3 at once (the stuck
 * thread cannot be freed, but the test must not wait for it).
 *
 *   stress [-s SECONDS] [-l LIMIT] MODE=THREADS:DIR ...
 *
 * Every thread runs its mode in DIR until SECONDS (default 5) are over:
 *   fsync   rewrite its own 16 KiB file and fsync it, as
 *           `dd bs=4k count=4 conv=fsync` does
 *   create  create, write and close new files, removing its older ones
 *   rename  replace a name shared by all rename threads of DIR with a
 *           fresh file, and move its own file back and forth
 *   read    list DIR, stat and read what is there (names may vanish)
 *           and check that DIR/stable holds "stable\n"
 *   fsx     random writes, truncates and reads of its own file, every
 *           read checked against what was written
 *   ask     create and write new files (a zone that asks for approval:
 *           someone must answer yes), then remove them
 * Operations that may race with another thread's (a listed name gone)
 * may fail with ENOENT; every other failure is an error.
 *
 * Prints one line per mode ("fsync 123 ops 0 errors") and a total
 * ("ops N errors N hangs 0"). Exit: 0 all went well, 1 errors, 2 usage,
 * 3 a hang.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
#define FSX_SIZE (256 * 1024)

enum mode { M_FSYNC, M_CREATE, M_RENAME, M_READ, M_FSX, M_ASK, M_COUNT };

static const char *const mode_names[M_COUNT] = {
	"fsync", "create", "rename", "read", "fsx", "ask",
};

struct worker {
	pthread_t thread;
	enum mode mode;
	const char *dir;
	unsigned id;
	atomic_long since; /* start of the operation in progress, 0 idle */
	const char *what;  /* its name, for the report */
	unsigned long ops, errors;
	unsigned seed;
	bool joined;
	/* fsx: the file and what it must hold */
	int fd;
	unsigned char *model;
	size_t size;
};

static struct worker workers[MAX_THREADS];
static unsigned nworkers;
static long deadline_ns;
static long limit_ns = 10L * 1000000000L;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void begin(struct worker *w, const char *what)
{
	w->what = what;
	atomic_store(&w->since, now_ns());
}

/* End of one operation: @ok, or an error (ENOENT too when @racy). */
static void end(struct worker *w, int rc, bool racy, const char *path)
{
	int e = errno;

	atomic_store(&w->since, 0);
	if (rc >= 0 || (racy && e == ENOENT)) {
		w->ops++;
		return;
	}
	w->errors++;
	pthread_mutex_lock(&out_lock);
	if (w->errors <= 3)
		fprintf(stderr, "stress: %s thread %u: %s %s: %s\n",
			mode_names[w->mode], w->id, w->what, path, strerror(e));
	pthread_mutex_unlock(&out_lock);
}

static void fail_check(struct worker *w, const char *path, const char *why)
{
	w->errors++;
	pthread_mutex_lock(&out_lock);
	fprintf(stderr, "stress: %s thread %u: %s: %s\n", mode_names[w->mode],
		w->id, path, why);
	pthread_mutex_unlock(&out_lock);
}

static int write_all(int fd, const char *buf, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(fd, buf, n);
		if (r < 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Create @path (O_EXCL unless @trunc) with @n bytes of @c; one op. */
static int put_file(struct worker *w, const char *path, bool trunc, size_t n,
		    bool sync)
{
	char buf[4096];
	int fd, rc = 0;
	size_t k;

	memset(buf, 'a' + (int)(w->id % 26), sizeof(buf));
	begin(w, "open");
	fd = open(path,
		  O_WRONLY | O_CREAT | O_CLOEXEC | (trunc ? O_TRUNC : O_EXCL),
		  0644);
	end(w, fd, false, path);
	if (fd < 0)
		return -1;
	for (; rc == 0 && n; n -= k) {
		k = n < sizeof(buf) ? n : sizeof(buf);
		begin(w, "write");
		rc = write_all(fd, buf, k);
		end(w, rc, false, path);
	}
	if (rc == 0 && sync) {
		begin(w, "fsync");
		rc = fsync(fd);
		end(w, rc, false, path);
	}
	begin(w, "close");
	end(w, close(fd), false, path);
	return rc;
}

static void do_fsync(struct worker *w)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/fsync-%u", w->dir, w->id);
	put_file(w, p, true, 16384, true);
}

static void do_create(struct worker *w, unsigned long n, bool ask)
{
	char p[4200];
	const char *pre = ask ? "ask" : "c";

	snprintf(p, sizeof(p), "%s/%s-%d-%u-%lu", w->dir, pre, (int)getpid(),
		 w->id, n);
	put_file(w, p, false, 100 + n % 3000, false);
	if (n < 8 && !ask)
		return;
	snprintf(p, sizeof(p), "%s/%s-%d-%u-%lu", w->dir, pre, (int)getpid(),
		 w->id, ask ? n : n - 8);
	begin(w, "unlink");
	end(w, unlink(p), false, p);
}

static void do_rename(struct worker *w, unsigned long n)
{
	char a[4200], b[4200], s[4200];

	snprintf(a, sizeof(a), "%s/r-%u", w->dir, w->id);
	snprintf(b, sizeof(b), "%s/r-%u.moved", w->dir, w->id);
	snprintf(s, sizeof(s), "%s/shared", w->dir);
	if (n == 0)
		put_file(w, a, true, 10, false);
	begin(w, "rename");
	end(w, rename(a, b), false, a);
	begin(w, "rename");
	end(w, rename(b, a), false, b);
	/* a fresh file over the name every rename thread replaces */
	snprintf(b, sizeof(b), "%s/r-%u.tmp", w->dir, w->id);
	if (put_file(w, b, true, 64, false) == 0) {
		begin(w, "rename");
		end(w, rename(b, s), false, b);
	}
}

static void check_stable(struct worker *w)
{
	char p[4200], buf[64];
	ssize_t n = 0;
	int fd;

	snprintf(p, sizeof(p), "%s/stable", w->dir);
	begin(w, "open");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	end(w, fd, false, p);
	if (fd < 0)
		return;
	begin(w, "read");
	n = read(fd, buf, sizeof(buf));
	end(w, (int)n, false, p);
	close(fd);
	if (n >= 0 && (n != 7 || memcmp(buf, "stable\n", 7)))
		fail_check(w, p, "wrong contents");
}

static void do_read(struct worker *w)
{
	char p[4200], buf[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	begin(w, "opendir");
	d = opendir(w->dir);
	end(w, d ? 0 : -1, false, w->dir);
	if (!d)
		return;
	for (;;) {
		begin(w, "readdir");
		errno = 0;
		de = readdir(d);
		end(w, de || !errno ? 0 : -1, false, w->dir);
		if (!de)
			break;
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", w->dir, de->d_name);
		begin(w, "stat");
		end(w, lstat(p, &st), true, p);
		begin(w, "open");
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		end(w, fd, true, p);
		if (fd < 0)
			continue;
		begin(w, "read");
		end(w, (int)read(fd, buf, sizeof(buf)), false, p);
		close(fd);
	}
	closedir(d);
	check_stable(w);
}

/* One random step on the thread's own file, checked against @model. */
static void fsx_step(struct worker *w, int fd, unsigned char *model,
		     size_t *size, const char *p)
{
	unsigned char buf[8192];
	size_t off = (size_t)rand_r(&w->seed) % (FSX_SIZE - sizeof(buf));
	size_t len = 1 + (size_t)rand_r(&w->seed) % sizeof(buf), i, want;
	ssize_t n;

	switch (rand_r(&w->seed) % 4) {
	case 0: /* write */
		for (i = 0; i < len; i++)
			buf[i] = (unsigned char)rand_r(&w->seed);
		begin(w, "pwrite");
		n = pwrite(fd, buf, len, (off_t)off);
		end(w, n == (ssize_t)len ? 0 : -1, false, p);
		if (n == (ssize_t)len) {
			if (off > *size)
				memset(model + *size, 0, off - *size);
			memcpy(model + off, buf, len);
			if (off + len > *size)
				*size = off + len;
		}
		break;
	case 1: /* truncate */
		begin(w, "ftruncate");
		n = ftruncate(fd, (off_t)off);
		end(w, (int)n, false, p);
		if (n == 0) {
			if (off > *size)
				memset(model + *size, 0, off - *size);
			*size = off;
		}
		break;
	default: /* read and check */
		begin(w, "pread");
		n = pread(fd, buf, len, (off_t)off);
		end(w, (int)n, false, p);
		if (n < 0)
			break;
		want = off >= *size ? 0 : *size - off;
		if (want > len)
			want = len;
		if ((size_t)n != want || memcmp(buf, model + off, want))
			fail_check(w, p, "read back other bytes than written");
	}
}

static void do_fsx(struct worker *w, unsigned long n)
{
	char p[4200];
	int i;

	snprintf(p, sizeof(p), "%s/fsx-%u", w->dir, w->id);
	if (n == 0) {
		w->model = calloc(1, FSX_SIZE);
		begin(w, "open");
		w->fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		end(w, w->fd, false, p);
		w->size = 0;
	}
	if (w->fd < 0 || !w->model)
		return;
	for (i = 0; i < 16; i++)
		fsx_step(w, w->fd, w->model, &w->size, p);
	if (n % 64 == 63) { /* and through a new descriptor */
		close(w->fd);
		begin(w, "open");
		w->fd = open(p, O_RDWR | O_CLOEXEC);
		end(w, w->fd, false, p);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long n;

	for (n = 0; now_ns() < deadline_ns; n++) {
		switch (w->mode) {
		case M_FSYNC:
			do_fsync(w);
			break;
		case M_CREATE:
			do_create(w, n, false);
			break;
		case M_ASK:
			do_create(w, n, true);
			break;
		case M_RENAME:
			do_rename(w, n);
			break;
		case M_READ:
			do_read(w);
			break;
		case M_FSX:
			do_fsx(w, n);
			break;
		case M_COUNT:
			break;
		}
	}
	return NULL;
}

/* The watchdog: an operation past the limit ends the program. */
static void watch(void)
{
	struct timespec tick = { 0, 100 * 1000000L };
	unsigned i, done;
	long since, t;

	for (;;) {
		nanosleep(&tick, NULL);
		t = now_ns();
		for (i = 0, done = 0; i < nworkers; i++) {
			since = atomic_load(&workers[i].since);
			if (since && t - since > limit_ns) {
				printf("HANG: %s thread %u: %s in %s for "
				       "over %ld s\n",
				       mode_names[workers[i].mode],
				       workers[i].id, workers[i].what,
				       workers[i].dir, limit_ns / 1000000000L);
				fflush(stdout);
				_exit(3);
			}
			if (!workers[i].joined &&
			    pthread_tryjoin_np(workers[i].thread, NULL) == 0)
				workers[i].joined = true;
			done += workers[i].joined;
		}
		if (done == nworkers)
			return;
	}
}

static int add_workers(const char *spec)
{
	char name[16];
	unsigned n, i;
	int m, off = 0;

	if (sscanf(spec, "%15[a-z]=%u:%n", name, &n, &off) != 2 || !off ||
	    !spec[off])
		return -1;
	for (m = 0; m < M_COUNT && strcmp(name, mode_names[m]); m++)
		;
	if (m == M_COUNT || n > MAX_THREADS - nworkers)
		return -1;
	for (i = 0; i < n; i++) {
		struct worker *w = &workers[nworkers];

		w->mode = (enum mode)m;
		w->dir = spec + off;
		w->id = nworkers;
		w->seed = nworkers * 7919u + 1;
		w->fd = -1;
		nworkers++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long ops[M_COUNT] = { 0 }, errs[M_COUNT] = { 0 };
	unsigned long tops = 0, terrs = 0;
	double secs = 5;
	unsigned i;
	int c;

	while ((c = getopt(argc, argv, "s:l:")) != -1) {
		if (c == 's')
			secs = atof(optarg);
		else if (c == 'l')
			limit_ns = (long)(atof(optarg) * 1e9);
		else
			goto usage;
	}
	if (optind >= argc)
		goto usage;
	for (; optind < argc; optind++)
		if (add_workers(argv[optind]) < 0)
			goto usage;
	deadline_ns = now_ns() + (long)(secs * 1e9);
	for (i = 0; i < nworkers; i++) {
		if (pthread_create(&workers[i].thread, NULL, worker_main,
				   &workers[i])) {
			fprintf(stderr, "stress: cannot start a thread\n");
			return 1;
		}
	}
	watch();
	for (i = 0; i < nworkers; i++) {
		ops[workers[i].mode] += workers[i].ops;
		errs[workers[i].mode] += workers[i].errors;
		if (workers[i].fd >= 0)
			close(workers[i].fd);
		free(workers[i].model);
	}
	for (i = 0; i < M_COUNT; i++) {
		if (!ops[i] && !errs[i])
			continue;
		printf("%s %lu ops %lu errors\n", mode_names[i], ops[i],
		       errs[i]);
		tops += ops[i];
		terrs += errs[i];
	}
	printf("ops %lu errors %lu hangs 0\n", tops, terrs);
	return terrs ? 1 : 0;
usage:
	fprintf(stderr, "usage: stress [-s SECONDS] [-l LIMIT] "
			"MODE=THREADS:DIR ...\n");
	return 2;
}
