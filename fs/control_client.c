/*
 * Where the control sockets are, and the client's side of them (see
 * control_client.h); the daemon's side is control.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/gfs_err.h"
#include "common/gfs_esc.h"
#include "control_client.h"

/* ---- where ---- */

int control_runtime_dir(char *buf, size_t size)
{
	const char *own = getenv("GOLEMFS_RUNTIME_DIR");
	const char *x = getenv("XDG_RUNTIME_DIR");
	int n;

	if (own && *own)
		n = snprintf(buf, size, "%s", own);
	else if (x && *x)
		n = snprintf(buf, size, "%s/golemfs", x);
	else if (geteuid() == 0)
		n = snprintf(buf, size, "/run/golemfs");
	else
		n = snprintf(buf, size, "/tmp/golemfs-%u", (unsigned)geteuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int control_runtime_dir_make(char *buf, size_t size, struct gfs_err *err)
{
	struct stat st;

	if (control_runtime_dir(buf, size) < 0)
		return gfs_err_set(err, -ENAMETOOLONG,
				   "runtime directory: "
				   "path too long");
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return gfs_err_set(err, -errno, "%s: %s", buf, strerror(errno));
	/* in /tmp, another user could have made it first */
	if (lstat(buf, &st) < 0)
		return gfs_err_set(err, -errno, "%s: %s", buf, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077))
		return gfs_err_set(err, -EPERM,
				   "%s: not a private directory "
				   "of yours (owner %u, mode %03o); remove it",
				   buf, (unsigned)st.st_uid,
				   (unsigned)(st.st_mode & 0777));
	return 0;
}

int control_path(const char *mnt, char *buf, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char dir[80];
	const char *s;
	int n;

	if (control_runtime_dir(dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	if (strncmp(mnt, "run:", 4) == 0) {
		n = snprintf(buf, size, "%s/run-%s.sock", dir, mnt + 4);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	for (s = mnt; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	n = snprintf(buf, size, "%s/%016llx.sock", dir, (unsigned long long)h);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* ---- client ---- */

/* Ask the daemon at socket @path to commit its audit queue; wait for its
   answer at most 2 s (a hung daemon is skipped). */
static void flush_one(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 2 };
	char buf[16];
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0 &&
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    write(fd, "flush\n", 6) == 6 && read(fd, buf, sizeof(buf)) < 0)
		gfs_log(LOG_DEBUG, "flush %s: %s, ignoring", path,
			strerror(errno));
	close(fd);
}

void control_flush_all(void)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	size_t len;
	DIR *d;

	if (control_runtime_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".sock") != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			flush_one(path);
	}
	closedir(d);
}

/* Is the control socket at @path served (a live `golemfs run`)? */
static bool socket_live(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;
	bool ok;

	/* a path that does not fit would name another socket */
	if (gfs_strlcpy(a.sun_path, path, sizeof(a.sun_path)) >=
	    sizeof(a.sun_path))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Live `golemfs run` sandboxes of this user, as "run:PID" keys. */
static int count_runs(char *buf, size_t size)
{
	char dir[80], path[400];
	struct dirent *de;
	unsigned long pid;
	int n = 0;
	DIR *d;

	if (control_runtime_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "run-%lu.sock", &pid) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!socket_live(path))
			continue;
		if (n++ == 0)
			snprintf(buf, size, "run:%lu", pid);
	}
	closedir(d);
	return n;
}

/* The only golemfs mount (mountinfo) or sandbox (run sockets), into @buf. */
static int only_mount(char *buf, size_t size, struct gfs_err *err)
{
	char *line = NULL, *point, spare[64], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 0;
	bool cut = false;
	int n = 0;

	/* whole lines and fields: a long mount point is never read cut */
	while (f && getline(&line, &cap, f) > 0) {
		char *dash = strstr(line, " - ");

		point = NULL;
		if (dash && sscanf(line, "%*s %*s %*s %*s %ms", &point) == 1 &&
		    sscanf(dash + 3, "%63s", type) == 1 &&
		    strcmp(type, "fuse.golemfs") == 0 && n++ == 0)
			cut = gfs_strlcpy(buf, point, size) >= size;
		free(point);
	}
	free(line);
	if (f)
		fclose(f);
	if (n == 1 && cut)
		return gfs_err_set(err, -ENAMETOOLONG,
				   "the golemfs mount's "
				   "path is too long: name it");
	n += count_runs(n ? spare : buf, n ? sizeof(spare) : size);
	if (n == 1)
		return 0;
	return gfs_err_set(err, -EINVAL,
			   n ? "several golemfs mounts and sandboxes: name "
			       "one (MOUNTPOINT or run:PID)"
			     : "no golemfs mount or sandbox found");
}

int control_connect(const char *mnt, struct gfs_err *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char found[4096], *real;
	int fd, rc;

	if (!mnt) {
		rc = only_mount(found, sizeof(found), err);
		if (rc < 0)
			return rc;
		mnt = found;
	}
	real = strncmp(mnt, "run:", 4) == 0 ? strdup(mnt) : realpath(mnt, NULL);
	if (!real)
		return gfs_err_set(err, -errno, "'%s': %s", mnt,
				   strerror(errno));
	rc = control_path(real, a.sun_path, sizeof(a.sun_path));
	free(real);
	if (rc < 0)
		return gfs_err_set(err, rc, "control socket path too long");
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = gfs_err_set(err, -errno,
				 "'%s' has no control socket (%s): not a "
				 "golemfs mount of yours?",
				 mnt, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

int control_request(const char *mnt, const char *line, FILE *out,
		    struct gfs_err *err)
{
	char buf[4096];
	ssize_t n;
	int fd, rc = 0;

	fd = control_connect(mnt, err);
	if (fd < 0)
		return fd;
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		rc = gfs_err_set(err, -errno, "control: %s", strerror(errno));
	while (rc == 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, out);
	close(fd);
	return rc;
}

int control_send_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = send(fd, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}
