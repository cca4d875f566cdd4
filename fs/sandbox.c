/*
 * The host side of `golemfs run`: checks, namespaces, bwrap's argv.
 * See sandbox.h for the sandbox's exact filesystem.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The host's merged-usr links (or directories), shown as they are. */
static const char *const usr_links[] = {
	"bin", "sbin", "lib", "lib32", "lib64", "libx32", NULL,
};

/* /etc: what programs need to run, resolve names and verify TLS. */
static const char *const etc_names[] = {
	"passwd",          "group",
	"nsswitch.conf",   "hosts",
	"host.conf",       "ld.so.cache",
	"ld.so.conf",      "ld.so.conf.d",
	"localtime",       "timezone",
	"alternatives",    "ssl",
	"ca-certificates", "ca-certificates.conf",
	"profile",         "bash.bashrc",
	"inputrc",         "terminfo",
	"mime.types",      "os-release",
	"gitconfig",       NULL,
};

/* With --net only: name resolution against the host's resolver. */
static const char *const etc_net_names[] = {
	"resolv.conf", "gai.conf", "services", "protocols", NULL,
};

/* Host variables CMD keeps; everything else (tokens, keys) stays out. */
static const char *const env_keep[] = {
	"TERM",       "COLORTERM",  "NO_COLOR", "LANG",
	"LANGUAGE",   "LC_ALL",     "LC_CTYPE", "LC_MESSAGES",
	"LC_COLLATE", "LC_NUMERIC", "LC_TIME",  "LC_MONETARY",
	"TZ",         "COLUMNS",    "LINES",    NULL,
};

#define STR_(x) #x
#define STR(x) STR_(x)

#define SANDBOX_PATH                                                           \
	"/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

bool sandbox_is_system_name(const char *name)
{
	static const char *const own[] = { "usr",  "etc", "dev",
					   "proc", "tmp", NULL };
	size_t i;

	for (i = 0; own[i]; i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	for (i = 0; usr_links[i]; i++)
		if (strcmp(name, usr_links[i]) == 0)
			return true;
	return false;
}

int sandbox_find_bwrap(struct sandbox *sb, struct gfs_err *err)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;

	/* all of PATH, and a candidate only when its whole name fits */
	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (*dir != '/' ||
		    gfs_fmt(sb->bwrap, sizeof(sb->bwrap), "%s/bwrap", dir) < 0)
			continue;
		if (access(sb->bwrap, X_OK) == 0) {
			free(dirs);
			return 0;
		}
	}
	free(dirs);
	sb->bwrap[0] = '\0';
	return gfs_err_set(err, -ENOENT,
			   "run: bubblewrap (bwrap) is not installed; "
			   "install it (Debian: apt-get install bubblewrap)");
}

/* ---- namespaces ---- */

static long sysctl_read(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

/* Why the kernel refuses user namespaces, and what would allow them. */
static int userns_refused(int e, struct gfs_err *err)
{
	if (sysctl_read("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return gfs_err_set(err, -e,
				   "run: unprivileged user namespaces are off; "
				   "as root: sysctl -w "
				   "kernel.unprivileged_userns_clone=1");
	if (sysctl_read("/proc/sys/user/max_user_namespaces") == 0)
		return gfs_err_set(err, -e,
				   "run: user namespaces are off; as root: "
				   "sysctl -w user.max_user_namespaces=15000");
	if (sysctl_read("/proc/sys/kernel/"
			"apparmor_restrict_unprivileged_userns") == 1)
		return gfs_err_set(err, -e,
				   "run: AppArmor restricts unprivileged user "
				   "namespaces; as root: sysctl -w kernel."
				   "apparmor_restrict_unprivileged_userns=0, "
				   "or give golemfs and bwrap an AppArmor "
				   "profile with 'userns,'");
	return gfs_err_set(err, -e,
			   "run: cannot create a user namespace: %s (in a "
			   "container? it must allow nested namespaces)",
			   strerror(e));
}

/* Can we make a user namespace (bwrap needs one)? Tried in a child. */
static int userns_check(struct gfs_err *err)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) < 0 ? errno & 0xff : 0);
	if (pid < 0)
		return gfs_err_set(err, -errno, "run: fork: %s",
				   strerror(errno));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return gfs_err_set(err, -errno, "run: wait: %s",
					   strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return userns_refused(WIFEXITED(st) ? WEXITSTATUS(st) : EPERM, err);
}

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs = NULL, file[4400], *dir, *save = NULL;
	bool found = false;

	if (asprintf(&dirs, "%s:/usr/bin:/bin",
		     path && *path ? path : "/usr/local/bin") < 0)
		return false;
	for (dir = strtok_r(dirs, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save))
		found = *dir == '/' &&
			gfs_fmt(file, sizeof(file), "%s/%s", dir, prog) == 0 &&
			access(file, X_OK) == 0;
	free(dirs);
	return found;
}

int sandbox_enter(struct gfs_err *err)
{
	int fd;

	if (geteuid() != 0) {
		if (access("/dev/fuse", F_OK) < 0)
			return gfs_err_set(err, -ENODEV,
					   "run: /dev/fuse is "
					   "missing (modprobe fuse; in a "
					   "container, pass --device "
					   "/dev/fuse)");
		/* fusermount3 opens it with the user's rights */
		if (access("/dev/fuse", R_OK | W_OK) < 0)
			return gfs_err_set(err, -EACCES,
					   "run: /dev/fuse is "
					   "not usable by ordinary users here; "
					   "as root: chmod 0666 /dev/fuse (its "
					   "usual mode)");
		if (!on_path("fusermount3"))
			return gfs_err_set(err, -ENOENT,
					   "run: fusermount3 "
					   "is not installed (Debian: apt-get "
					   "install fuse3)");
		return userns_check(err);
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return gfs_err_set(err, -errno,
				   "run: /dev/fuse: %s (modprobe fuse; in a "
				   "container, pass --device /dev/fuse)",
				   strerror(errno));
	close(fd);
	if (unshare(CLONE_NEWNS) < 0)
		return gfs_err_set(err, -errno,
				   "run: private mount namespace: "
				   "%s",
				   strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return gfs_err_set(err, -errno,
				   "run: making mounts private: %s",
				   strerror(errno));
	return 0;
}

/* ---- bwrap's command line ---- */

/* Append the strings up to NULL to bwrap's argv. */
static int arg(struct sandbox *sb, ...)
{
	const char *s;
	va_list ap;
	int rc = 0;

	va_start(ap, sb);
	while (rc == 0 && (s = va_arg(ap, const char *)))
		rc = gfs_strv_push(&sb->args, s);
	va_end(ap);
	return rc;
}

static int env_set(struct sandbox *sb, const char *name, const char *val)
{
	size_t i, n = strlen(name);
	char *s;

	if (asprintf(&s, "%s=%s", name, val) < 0)
		return -ENOMEM;
	for (i = 0; i < sb->env.n; i++)
		if (!strncmp(sb->env.v[i], name, n) && sb->env.v[i][n] == '=') {
			free(sb->env.v[i]);
			sb->env.v[i] = s;
			return 0;
		}
	return gfs_strv_take(&sb->env, s);
}

/*
 * Made empty in the sandbox's /proc: the memory of its pid 1 (bwrap's
 * init, outside the system-call filter: writing it would run code there)
 * and the lists of the kernel's keys, which name the host user's keys.
 */
static int proc_masks(struct sandbox *sb)
{
	static const char *const keys[] = { "/proc/keys", "/proc/key-users",
					    NULL };
	size_t i;
	int rc;

	rc = arg(sb, "--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind",
		 "/dev/null", "/proc/1/task/1/mem", NULL);
	for (i = 0; rc == 0 && keys[i]; i++) /* a kernel with keys */
		if (access(keys[i], F_OK) == 0)
			rc = arg(sb, "--ro-bind", "/dev/null", keys[i], NULL);
	return rc;
}

static int system_dirs(struct sandbox *sb)
{
	char src[64], target[256];
	struct stat st;
	ssize_t n;
	size_t i;
	int rc = arg(sb, "--ro-bind", "/usr", "/usr", NULL);

	for (i = 0; rc == 0 && usr_links[i]; i++) {
		snprintf(src, sizeof(src), "/%s", usr_links[i]);
		if (lstat(src, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(src, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			rc = arg(sb, "--symlink", target, src, NULL);
		} else if (S_ISDIR(st.st_mode)) {
			rc = arg(sb, "--ro-bind", src, src, NULL);
		}
	}
	for (i = 0; rc == 0 && etc_names[i]; i++) {
		snprintf(src, sizeof(src), "/etc/%s", etc_names[i]);
		if (access(src, F_OK) == 0)
			rc = arg(sb, "--ro-bind", src, src, NULL);
	}
	for (i = 0; rc == 0 && sb->net && etc_net_names[i]; i++) {
		snprintf(src, sizeof(src), "/etc/%s", etc_net_names[i]);
		if (access(src, F_OK) == 0)
			rc = arg(sb, "--ro-bind", src, src, NULL);
	}
	if (rc == 0)
		rc = arg(sb, "--dev", "/dev", "--proc", "/proc", "--tmpfs",
			 "/tmp", NULL);
	return rc == 0 ? proc_masks(sb) : rc;
}

static int zone_binds(struct sandbox *sb)
{
	char src[4200], dst[300];
	size_t i;
	int rc = 0;

	if (sb->at)
		return arg(sb, "--bind", sb->mnt, sb->at, NULL);
	for (i = 0; rc == 0 && i < sb->nzones; i++) {
		if (gfs_fmt(src, sizeof(src), "%s/%s", sb->mnt, sb->zones[i]) <
			0 ||
		    gfs_fmt(dst, sizeof(dst), "/%s", sb->zones[i]) < 0)
			return -ENAMETOOLONG;
		rc = arg(sb, "--bind", src, dst, NULL);
	}
	return rc;
}

static int environment(struct sandbox *sb, char **keep, size_t nkeep,
		       const char *session)
{
	struct passwd *pw = getpwuid(geteuid());
	const char *v, *eq;
	char name[256];
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && env_keep[i]; i++)
		if ((v = getenv(env_keep[i])))
			rc = env_set(sb, env_keep[i], v);
	if (rc == 0)
		rc = env_set(sb, "PATH", SANDBOX_PATH);
	if (rc == 0)
		rc = env_set(sb, "HOME", "/tmp");
	if (rc == 0 && pw)
		rc = env_set(sb, "USER", pw->pw_name);
	if (rc == 0 && pw)
		rc = env_set(sb, "LOGNAME", pw->pw_name);
	if (rc == 0)
		rc = env_set(sb, "PWD", sb->cwd);
	if (rc == 0)
		rc = env_set(sb, "GOLEMFS_SESSION", session);
	for (i = 0; rc == 0 && i < nkeep; i++) {
		eq = strchr(keep[i], '=');
		snprintf(name, sizeof(name), "%.*s",
			 eq ? (int)(eq - keep[i]) : (int)strlen(keep[i]),
			 keep[i]);
		if (eq)
			rc = env_set(sb, name, eq + 1);
		else if ((v = getenv(name)))
			rc = env_set(sb, name, v);
	}
	if (rc == 0 && !sb->env.n)
		rc = env_set(sb, "GOLEMFS_SESSION", session);
	return rc;
}

int sandbox_build(struct sandbox *sb, char **keep, size_t nkeep,
		  const char *session)
{
	size_t i;
	int rc;

	rc = arg(sb, sb->bwrap, "--die-with-parent", "--unshare-user",
		 "--disable-userns", "--unshare-pid", "--unshare-ipc",
		 "--unshare-uts", "--unshare-cgroup-try", "--hostname",
		 "golemfs", "--cap-drop", "ALL", NULL);
	if (rc == 0 && !sb->net)
		rc = arg(sb, "--unshare-net", NULL);
	if (rc == 0)
		rc = system_dirs(sb);
	if (rc == 0)
		rc = zone_binds(sb);
	if (rc == 0)
		rc = arg(sb, "--remount-ro", "/", "--chdir", sb->cwd,
			 "--info-fd", STR(SANDBOX_INFO_FD), NULL);
	if (rc == 0 && sb->filter_fd >= 0)
		rc = arg(sb, "--seccomp", STR(SANDBOX_FILTER_FD), NULL);
	if (rc == 0 && sb->new_session)
		rc = arg(sb, "--new-session", NULL);
	if (rc == 0)
		rc = arg(sb, "--", NULL);
	for (i = 0; rc == 0 && sb->cmd[i]; i++)
		rc = arg(sb, sb->cmd[i], NULL);
	if (rc == 0)
		rc = environment(sb, keep, nkeep, session);
	return rc;
}

void sandbox_release(struct sandbox *sb)
{
	gfs_strv_release(&sb->args);
	gfs_strv_release(&sb->env);
}
