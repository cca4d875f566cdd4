/* Helpers of the libFuzzer harnesses; see fuzz.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/gfs_dir.h"
#include "fuzz.h"

static char dir[64];
static pid_t owner;

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_dir(void)
{
	if (dir[0] && getpid() == owner)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		strcpy(dir, "/tmp/golemfs-fuzz-XXXXXX");
		if (!mkdtemp(dir))
			fuzz_fail(__FILE__, __LINE__, "mkdtemp");
		owner = getpid();
		atexit(rm_dir);
	}
	return dir;
}

const char *fuzz_path(const char *name)
{
	static char buf[256];

	if (snprintf(buf, sizeof(buf), "%s/%s", fuzz_dir(), name) >=
	    (int)sizeof(buf))
		fuzz_fail(__FILE__, __LINE__, "path too long");
	return buf;
}

void fuzz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) ||
	    close(fd) < 0)
		fuzz_fail(__FILE__, __LINE__, "writing a temp file");
}

void fuzz_mkdirs(const char *rel)
{
	char *path = NULL;

	if (asprintf(&path, "%s/%s", fuzz_dir(), rel) < 0 ||
	    gfs_mkdir_p(path, 0700) < 0)
		fuzz_fail(__FILE__, __LINE__, "mkdir");
	free(path);
}

char *fuzz_str(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}
