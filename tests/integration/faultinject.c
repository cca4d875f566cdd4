/*
 * faultinject - an LD_PRELOAD seam for the fault tests (t_faults.sh): the
 * backing filesystem answers EIO. Loaded into a golemfs daemon with
 *
 *   GOLEMFS_FAULT_EIO=SUBSTRING
 *
 * every pread, pwrite, read, write, splice, fsync and fdatasync on a
 * descriptor whose path (/proc/self/fd/N) contains SUBSTRING fails with
 * EIO, as a failing disk would; everything else goes to the C library.
 * libfuse moves file data with these calls (fuse_buf_copy, splice) and
 * the daemon syncs with them, so the daemon's own error paths run.
 * Test-only: never linked into golemfs.
 */
/* both pread and pread64 are defined here: no redirection of one to the
   other */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static bool faulty(int fd)
{
	const char *want = getenv("GOLEMFS_FAULT_EIO");
	char link[64], path[4096];
	ssize_t n;

	if (!want || !*want || fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return false;
	path[n] = '\0';
	return strstr(path, want) != NULL;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))
#define FAIL_IF(fd)                                                            \
	do {                                                                   \
		if (faulty(fd)) {                                              \
			errno = EIO;                                           \
			return -1;                                             \
		}                                                              \
	} while (0)

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	FAIL_IF(fd);
	return REAL(pread64)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	FAIL_IF(fd);
	return REAL(pwrite64)(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	FAIL_IF(fd);
	return REAL(pread)(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	FAIL_IF(fd);
	return REAL(pwrite)(fd, buf, n, off);
}

ssize_t read(int fd, void *buf, size_t n)
{
	FAIL_IF(fd);
	return REAL(read)(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	FAIL_IF(fd);
	return REAL(write)(fd, buf, n);
}

ssize_t splice(int in, off64_t *inoff, int out, off64_t *outoff, size_t n,
	       unsigned flags)
{
	FAIL_IF(in);
	FAIL_IF(out);
	return REAL(splice)(in, inoff, out, outoff, n, flags);
}

int fsync(int fd)
{
	FAIL_IF(fd);
	return REAL(fsync)(fd);
}

int fdatasync(int fd)
{
	FAIL_IF(fd);
	return REAL(fdatasync)(fd);
}
