/*
 * fsop - perform one filesystem operation and print its result as "OK" or
 * the errno name ("EROFS"), so integration tests can assert exact errnos.
 *
 *   fsop OP PATH [ARG]
 *
 * "exchange A B" is renameat2(RENAME_EXCHANGE), which mv(1) cannot do.
 * "resolve PATH" instead prints where the host leads PATH (below).
 *
 * Exit status is always 0 unless the usage is wrong (2).
 */
#include <sys/syscall.h>
#include <linux/falloc.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *errname(int e)
{
	static const struct {
		int e;
		const char *n;
	} t[] = {
		{ EROFS, "EROFS" },           { EACCES, "EACCES" },
		{ EPERM, "EPERM" },           { ENOENT, "ENOENT" },
		{ EXDEV, "EXDEV" },           { EFBIG, "EFBIG" },
		{ EEXIST, "EEXIST" },         { EBUSY, "EBUSY" },
		{ ENOTDIR, "ENOTDIR" },       { EISDIR, "EISDIR" },
		{ EINVAL, "EINVAL" },         { ELOOP, "ELOOP" },
		{ ENOTEMPTY, "ENOTEMPTY" },   { ESTALE, "ESTALE" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENODATA, "ENODATA" },
		{ EBADF, "EBADF" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	return strerror(e);
}

/*
 * unlinked-open: create PATH, unlink it, and use the open handle as a
 * program does (write, fstat, fchmod, ftruncate, fsetxattr, and stat,
 * chmod, truncate through /proc/self/fd). Prints the first step that
 * failed ("fstat: ESTALE"), or OK when all worked and agree.
 */
static int unlinked_open(const char *path)
{
	char p[64], v[4];
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

#define STEP(what, call)                                                       \
	if ((call) < 0) {                                                      \
		printf("%s: %s\n", what, errname(errno));                      \
		return 0;                                                      \
	}
	STEP("open", fd);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	STEP("unlink", unlink(path));
	STEP("write", write(fd, "hello", 5));
	STEP("fstat", fstat(fd, &st));
	STEP("stat", stat(p, &st));
	STEP("fchmod", fchmod(fd, 0600));
	STEP("chmod", chmod(p, 0640));
	STEP("ftruncate", ftruncate(fd, 3));
	STEP("truncate", truncate(p, 2));
	STEP("fsetxattr", fsetxattr(fd, "user.golemfs", "1", 1, 0));
	STEP("fgetxattr", fgetxattr(fd, "user.golemfs", v, sizeof(v)));
	STEP("fstat", fstat(fd, &st));
#undef STEP
	printf(st.st_size == 2 && (st.st_mode & 0777) == 0640 && v[0] == '1'
		   ? "OK\n"
		   : "wrong: size %lld mode %o\n",
	       (long long)st.st_size, (unsigned)(st.st_mode & 0777));
	close(fd);
	return 0;
}

static int open_write(const char *path, int flags, const char *data)
{
	int fd = open(path, flags, 0644);
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	if (data)
		n = write(fd, data, strlen(data));
	if (close(fd) < 0 || n < 0)
		return -1;
	return 0;
}

static int do_read(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -1 : 0;
}

static int do_copy_range(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = -1;
	ssize_t n = -1;

	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT, 0644);
	if (out >= 0)
		n = copy_file_range(in, NULL, out, NULL, 1 << 20, 0);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n < 0 ? -1 : 0;
}

/* lseek(SEEK_DATA), which reaches the filesystem (SEEK_SET does not) */
static int do_seek_data(const char *path)
{
	int fd = open(path, O_RDONLY);
	off_t rc = -1;

	if (fd >= 0) {
		rc = lseek(fd, 0, SEEK_DATA);
		close(fd);
	}
	return rc < 0 ? -1 : 0;
}

static int do_fallocate(const char *path, const char *len, int mode)
{
	int fd = open(path, O_WRONLY);
	int rc = -1;

	if (fd >= 0) {
		rc = fallocate(fd, mode, 0, atol(len));
		close(fd);
	}
	return rc;
}

static int do_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	if (fd < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return rc;
}

static int do_readdir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	char buf[4096];
	long n;

	if (fd < 0)
		return -1;
	n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	close(fd);
	return n < 0 ? -1 : 0;
}

#define RESOLVE_LINKS 40 /* the kernel's limit of links followed */
#define RESOLVE_MAX 65536

/* Append "/@name" (@n bytes) to @cur; 0, or -1 when it would not fit. */
static int res_push(char *cur, const char *name, size_t n)
{
	size_t l = strlen(cur);

	if (l + 1 + n >= RESOLVE_MAX)
		return -1;
	cur[l] = '/';
	memcpy(cur + l + 1, name, n);
	cur[l + 1 + n] = '\0';
	return 0;
}

/*
 * Where the host leads @path: symlinks followed as the kernel does (".."
 * from where a link led, at most 40 links, then "ELOOP"), names that do
 * not exist taken as written (as realpath -m). Unlike realpath -m it
 * always ends. Prints the absolute path, "ELOOP" or "ENAMETOOLONG".
 */
static int do_resolve(const char *path)
{
	static char cur[RESOLVE_MAX], name[RESOLVE_MAX];
	char *todo = strdup(path), *next, *p, *slash;
	const char *out = NULL;
	char target[PATH_MAX + 1];
	struct stat st;
	int links = 0;
	ssize_t n;
	size_t len;

	cur[0] = '\0';
	if (!todo || (path[0] != '/' && !getcwd(cur, sizeof(cur))))
		goto out;
	if (strcmp(cur, "/") == 0)
		cur[0] = '\0';
	for (p = todo; *p;) {
		len = strcspn(p, "/");
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		while (*p == '/')
			p++;
		if (len == 0 || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			slash = strrchr(cur, '/');
			if (slash)
				*slash = '\0';
			continue;
		}
		len = strlen(cur);
		if (res_push(cur, name, strlen(name)) < 0) {
			out = "ENAMETOOLONG";
			goto out;
		}
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			continue; /* missing: as written; else a real name */
		n = readlink(cur, target, sizeof(target) - 1);
		cur[len] = '\0';
		if (n < 0)
			goto out;
		target[n] = '\0';
		if (++links > RESOLVE_LINKS) {
			out = "ELOOP";
			goto out;
		}
		if (target[0] == '/')
			cur[0] = '\0';
		if (asprintf(&next, "%s/%s", target, p) < 0)
			goto out;
		free(todo);
		todo = p = next;
	}
	out = cur[0] ? cur : "/";
out:
	free(todo);
	if (out)
		puts(out);
	return out ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *op, *p, *a;
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
	char buf[256];
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: fsop OP PATH [ARG]\n");
		return 2;
	}
	op = argv[1];
	p = argv[2];
	a = argc > 3 ? argv[3] : "";
	if (!strcmp(op, "unlinked-open"))
		return unlinked_open(p);
	if (!strcmp(op, "create"))
		rc = open_write(p, O_WRONLY | O_CREAT | O_EXCL, "new\n");
	else if (!strcmp(op, "write"))
		rc = open_write(p, O_WRONLY, a);
	else if (!strcmp(op, "append"))
		rc = open_write(p, O_WRONLY | O_APPEND, a);
	else if (!strcmp(op, "trunc-open"))
		rc = open_write(p, O_WRONLY | O_TRUNC, NULL);
	else if (!strcmp(op, "read"))
		rc = do_read(p);
	else if (!strcmp(op, "connect"))
		rc = do_connect(p);
	else if (!strcmp(op, "readdir"))
		rc = do_readdir(p);
	else if (!strcmp(op, "truncate"))
		rc = truncate(p, atol(a));
	else if (!strcmp(op, "chmod"))
		rc = chmod(p, (mode_t)strtol(a, NULL, 8));
	else if (!strcmp(op, "chown"))
		rc = chown(p, getuid(), getgid());
	else if (!strcmp(op, "utimens"))
		rc = utimes(p, tv);
	else if (!strcmp(op, "mkdir"))
		rc = mkdir(p, 0755);
	else if (!strcmp(op, "rmdir"))
		rc = rmdir(p);
	else if (!strcmp(op, "unlink"))
		rc = unlink(p);
	else if (!strcmp(op, "rename"))
		rc = rename(p, a);
	else if (!strcmp(op, "resolve"))
		return do_resolve(p) < 0 ? (perror("fsop resolve"), 1) : 0;
	else if (!strcmp(op, "exchange"))
		rc = renameat2(AT_FDCWD, p, AT_FDCWD, a, RENAME_EXCHANGE);
	else if (!strcmp(op, "whiteout"))
		rc = renameat2(AT_FDCWD, p, AT_FDCWD, a, RENAME_WHITEOUT);
	else if (!strcmp(op, "link"))
		rc = link(p, a);
	else if (!strcmp(op, "symlink"))
		rc = symlink(a, p);
	else if (!strcmp(op, "mkfifo"))
		rc = mknod(p, S_IFIFO | 0644, 0);
	else if (!strcmp(op, "mknod-chr"))
		rc = mknod(p, S_IFCHR | 0644, makedev(1, 3));
	else if (!strcmp(op, "setxattr"))
		rc = setxattr(p, *a ? a : "user.golem", "v", 1, 0);
	else if (!strcmp(op, "removexattr"))
		rc = removexattr(p, *a ? a : "user.golem");
	else if (!strcmp(op, "fallocate"))
		rc = do_fallocate(p, *a ? a : "4096", 0);
	else if (!strcmp(op, "fallocate-keep"))
		rc = do_fallocate(p, *a ? a : "4096", FALLOC_FL_KEEP_SIZE);
	else if (!strcmp(op, "readlink"))
		rc = readlink(p, buf, sizeof(buf)) < 0 ? -1 : 0;
	else if (!strcmp(op, "getxattr"))
		rc = getxattr(p, *a ? a : "user.golem", buf, sizeof(buf)) < 0
			 ? -1
			 : 0;
	else if (!strcmp(op, "listxattr"))
		rc = listxattr(p, buf, sizeof(buf)) < 0 ? -1 : 0;
	else if (!strcmp(op, "seek-data"))
		rc = do_seek_data(p);
	else if (!strcmp(op, "copy-range"))
		rc = do_copy_range(p, a);
	else if (!strcmp(op, "stat")) {
		struct stat st;

		rc = lstat(p, &st);
	} else {
		fprintf(stderr, "fsop: unknown op '%s'\n", op);
		return 2;
	}
	puts(rc == 0 ? "OK" : errname(errno));
	return 0;
}
