/*
 * fsbench - small filesystem workloads timed in-process, so that process
 * start-up does not drown what is measured.
 *
 *   fsbench create DIR N   N files of 4 KiB in N/100 directories
 *   fsbench stat DIR N     stat every file made by create
 *   fsbench read DIR N     read every file made by create
 *   fsbench mix DIR N      like a package manager: N files of 1 KiB, in
 *                          N/20 two-level directories, each written to a
 *                          temp name, renamed, stat'ed, and a missing
 *                          sibling looked up
 *
 * Prints the elapsed seconds. Exit 1 on any error.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void path_of(char *buf, size_t size, const char *dir, long i)
{
	snprintf(buf, size, "%s/d%ld/f%ld", dir, i / 100, i);
}

static int mix_one(const char *dir, long i)
{
	static char data[1024];
	char d[4096], p[4200], q[4200];
	struct stat st;
	int fd;

	snprintf(d, sizeof(d), "%s/m%ld", dir, i / 400);
	if (i % 400 == 0 && mkdir(d, 0755) < 0)
		return -1;
	snprintf(d, sizeof(d), "%s/m%ld/pkg%ld", dir, i / 400, i / 20);
	if (i % 20 == 0 && mkdir(d, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/f%ld.tmp", d, i);
	snprintf(q, sizeof(q), "%s/f%ld", d, i);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, data, sizeof(data)) < 0 || close(fd) < 0 ||
	    rename(p, q) < 0 || stat(q, &st) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/f%ld.json", d, i);
	return stat(p, &st) < 0 ? 0 : -1;
}

static int run(const char *op, const char *dir, long n)
{
	static char data[4096];
	char p[4096];
	struct stat st;
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		path_of(p, sizeof(p), dir, i);
		if (!strcmp(op, "create")) {
			if (i % 100 == 0) {
				snprintf(p, sizeof(p), "%s/d%ld", dir, i / 100);
				if (mkdir(p, 0755) < 0)
					return -1;
				path_of(p, sizeof(p), dir, i);
			}
			fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, data, sizeof(data)) < 0 ||
			    close(fd) < 0)
				return -1;
		} else if (!strcmp(op, "stat")) {
			if (stat(p, &st) < 0)
				return -1;
		} else if (!strcmp(op, "read")) {
			fd = open(p, O_RDONLY);
			if (fd < 0 || read(fd, data, sizeof(data)) < 0 ||
			    close(fd) < 0)
				return -1;
		} else if (!strcmp(op, "mix")) {
			if (mix_one(dir, i) < 0)
				return -1;
		} else {
			return -2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	double t0;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: fsbench create|stat|read|mix DIR N\n");
		return 2;
	}
	t0 = now();
	rc = run(argv[1], argv[2], atol(argv[3]));
	if (rc == -2) {
		fprintf(stderr, "fsbench: unknown workload '%s'\n", argv[1]);
		return 2;
	}
	if (rc < 0) {
		perror("fsbench");
		return 1;
	}
	printf("%.4f\n", now() - t0);
	return 0;
}
