/*
 * Staged commits over libgit2. See stage.h for the layout on disk and the
 * rules; this file keeps libgit2's error codes inside: every function
 * returns 0 or -errno, with the reason in a struct gfs_err.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/gfs_dir.h"
#include "common/gfs_esc.h"
#include "stage_int.h"

#define STAGE_DEFAULT_MAX_BYTES (10u * 1000 * 1000)
#define ENTROPY_MIN_BYTES 4096
#define ENTROPY_LIMIT 7.5 /* bits per byte: compressed or encrypted */
/* a blob larger than this is never read whole by a diff or a check */
#define STAGE_DIFF_MAX_BLOB (64u << 20)

int stage_gerr(struct gfs_err *err, const char *what)
{
	const git_error *e = git_error_last();

	return gfs_err_set(err, -EIO, "%s: %s", what,
			   e && e->message ? e->message : "libgit2 failed");
}

/*
 * libgit2 once per process, with an isolated configuration: no system,
 * global or XDG config file is read, so nothing on the host or in the
 * sandbox changes how clearance behaves.
 */
static void stage_global_init(void)
{
	static int done;
	static const int levels[] = { GIT_CONFIG_LEVEL_SYSTEM,
				      GIT_CONFIG_LEVEL_XDG,
				      GIT_CONFIG_LEVEL_GLOBAL,
				      GIT_CONFIG_LEVEL_PROGRAMDATA };
	size_t i;

	if (done++)
		return;
	git_libgit2_init();
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, levels[i],
				 "/nonexistent/golemfs-no-config");
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 1);
}

bool stage_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n > 64 || id[0] == '.' || id[0] == '-')
		return false;
	for (; *id; id++)
		if (!((*id >= 'a' && *id <= 'z') ||
		      (*id >= 'A' && *id <= 'Z') ||
		      (*id >= '0' && *id <= '9') || *id == '-' || *id == '_' ||
		      *id == '.'))
			return false;
	return true;
}

/* A path inside a staged commit: relative, no "." or ".." parts. */
static bool path_ok(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/')
		return false;
	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.') ||
		    (n == 4 && strncmp(s, ".git", 4) == 0))
			return false;
		s += n;
		if (*s)
			s++;
	}
	return true;
}

static enum stage_status parse_status(const char *s);

/* The reason first: the path itself may fill the whole message. */
static int stage_too_long(struct gfs_err *err, struct stage *s, const char *id)
{
	return gfs_err_set(err, -ENAMETOOLONG,
			   "path too long for staged commit '%s' (a shorter "
			   "sandbox root or id would fit): %s",
			   id, s->dir);
}

/* ---- small state files, written atomically ---- */

static int state_path(struct stage *s, const char *id, const char *name,
		      char *buf, size_t size)
{
	return gfs_fmt(buf, size, "%s/%s%s%s", s->dir, id, *name ? "/" : "",
		       name);
}

int stage_state_write(struct stage *s, const char *id, const char *name,
		      const char *text)
{
	char path[4096], tmp[4200];
	size_t len = strlen(text);
	int fd, rc = 0;

	if (state_path(s, id, name, path, sizeof(path)) < 0 ||
	    gfs_fmt(tmp, sizeof(tmp), "%s.tmp", path) < 0)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = -errno ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/*
 * Read a state file into @buf (trailing newline dropped); "" if absent;
 * -EFBIG (and "") if it does not fit: never a cut message or id.
 */
int stage_state_read(struct stage *s, const char *id, const char *name,
		     char *buf, size_t size)
{
	char path[4096], more;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (state_path(s, id, name, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	n = read(fd, buf, size - 1);
	if (n == (ssize_t)size - 1 && read(fd, &more, 1) == 1)
		n = -2;
	close(fd);
	if (n == -2) {
		buf[0] = '\0';
		return -EFBIG;
	}
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

int stage_require_pending(struct stage *s, const char *id, struct gfs_err *err)
{
	char status[32];

	if (!stage_id_ok(id))
		return gfs_err_set(err, -EINVAL,
				   "'%s' is not a staged commit "
				   "id",
				   id);
	stage_state_read(s, id, "status", status, sizeof(status));
	if (!status[0])
		return gfs_err_set(err, -ENOENT, "no staged commit '%s'", id);
	if (strcmp(status, "pending") != 0)
		return gfs_err_set(err, -EINVAL, "staged commit '%s' is %s", id,
				   status);
	return 0;
}

/* ---- opening ---- */

/* Let the staging repository read the trusted one's objects. */
static int set_alternates(struct stage *s, struct gfs_err *err)
{
	git_repository *t = NULL;
	char path[4096], line[4200];
	int fd, rc = 0;
	ssize_t len;

	if (git_repository_open_ext(&t, s->trusted,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return stage_gerr(err, s->trusted);
	if (gfs_fmt(path, sizeof(path), "%sobjects/info/alternates",
		    git_repository_path(s->repo)) < 0 ||
	    gfs_fmt(line, sizeof(line), "%sobjects\n", git_repository_path(t)) <
		0) {
		git_repository_free(t);
		return gfs_err_set(err, -ENAMETOOLONG,
				   "path too long: the "
				   "alternates of %s",
				   s->trusted);
	}
	git_repository_free(t);
	len = (ssize_t)strlen(line);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, (size_t)len) != len)
		rc = gfs_err_set(err, -EIO, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

int stage_open(struct stage **out, const char *root, const char *zone,
	       const char *repo, const char *branch, struct gfs_err *err)
{
	struct stage *s = calloc(1, sizeof(*s));
	char gitdir[4096];
	int rc = -ENOMEM;

	stage_global_init();
	if (!s)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	if (asprintf(&s->dir, "%s/staging/%s", root, zone) < 0)
		s->dir = NULL;
	s->trusted = strdup(repo);
	s->branch = strdup(branch);
	if (!s->dir || !s->trusted || !s->branch)
		goto fail;
	rc = gfs_mkdir_p(s->dir, 0700);
	if (rc < 0) {
		gfs_err_set(err, rc, "%s: %s", s->dir, strerror(-rc));
		goto fail;
	}
	if (gfs_fmt(gitdir, sizeof(gitdir), "%s.git", s->dir) < 0) {
		rc = gfs_err_set(err, -ENAMETOOLONG, "path too long: %s.git",
				 s->dir);
		goto fail;
	}
	if (git_repository_open_bare(&s->repo, gitdir) < 0 &&
	    git_repository_init(&s->repo, gitdir, 1) < 0) {
		rc = stage_gerr(err, gitdir);
		goto fail;
	}
	rc = set_alternates(s, err);
	if (rc < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	stage_free(s);
	return rc;
}

void stage_free(struct stage *s)
{
	if (!s)
		return;
	git_repository_free(s->repo);
	free(s->dir);
	free(s->trusted);
	free(s->branch);
	free(s);
}

/* ---- one staged commit ---- */

int stage_index_open(struct stage *s, const char *id, git_index **idx,
		     struct gfs_err *err)
{
	char path[4096];

	if (!stage_id_ok(id))
		return gfs_err_set(err, -EINVAL,
				   "'%s' is not a staged commit "
				   "id",
				   id);
	if (state_path(s, id, "index", path, sizeof(path)) < 0)
		return stage_too_long(err, s, id);
	/* libgit2 opens a missing index as an empty one: never let that
	   stand for a staged commit's tree */
	if (access(path, F_OK) < 0)
		return gfs_err_set(err, -ENOENT, "no staged commit '%s'", id);
	if (git_index_open(idx, path) < 0)
		return stage_gerr(err, path);
	return 0;
}

int stage_lock(struct stage *s, const char *id, bool exclusive,
	       struct gfs_err *err)
{
	char path[4096];
	int fd, rc;

	if (!stage_id_ok(id))
		return gfs_err_set(err, -EINVAL,
				   "'%s' is not a staged commit "
				   "id",
				   id);
	if (state_path(s, id, "", path, sizeof(path)) < 0)
		return stage_too_long(err, s, id);
	/* the commit's directory itself: it lives as long as the commit,
	   while its files are replaced by rename at every write */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT
			   ? gfs_err_set(err, -ENOENT, "no staged commit '%s'",
					 id)
			   : gfs_err_set(err, -errno, "%s: %s", path,
					 strerror(errno));
	do
		rc = flock(fd, exclusive ? LOCK_EX : LOCK_SH | LOCK_NB);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return fd;
	rc = errno;
	close(fd);
	if (rc == EWOULDBLOCK)
		return gfs_err_set(err, -EBUSY,
				   "staged commit '%s' is being "
				   "pushed: no edits until that is over",
				   id);
	return gfs_err_set(err, -rc, "locking '%s': %s", id, strerror(rc));
}

/*
 * The index of a pending commit, for an edit, under the commit's shared
 * lock (*@lock; give both back with close_pending()): the pending status
 * is read under it, so no edit lands after a push made its commit.
 */
static int open_pending(struct stage *s, const char *id, git_index **idx,
			int *lock, struct gfs_err *err)
{
	char status[32];
	int rc;

	*idx = NULL;
	*lock = stage_lock(s, id, false, err);
	if (*lock < 0)
		return *lock;
	rc = stage_index_open(s, id, idx, err);
	if (rc == 0) {
		stage_state_read(s, id, "status", status, sizeof(status));
		if (strcmp(status, "pending") != 0)
			rc =
			    gfs_err_set(err, -EINVAL,
					"staged commit '%s' is %s", id, status);
	}
	if (rc < 0) {
		git_index_free(*idx);
		*idx = NULL;
		close(*lock);
		*lock = -1;
	}
	return rc;
}

static void close_pending(git_index *idx, int lock)
{
	git_index_free(idx);
	if (lock >= 0)
		close(lock);
}

static int write_index(git_index *idx, struct gfs_err *err)
{
	/* libgit2 writes index.lock and renames it over the index */
	return git_index_write(idx) < 0 ? stage_gerr(err, "writing the index")
					: 0;
}

static int branch_head(struct stage *s, git_oid *out, struct gfs_err *err)
{
	git_repository *t = NULL;
	char ref[300];
	int rc = 0;

	if (gfs_fmt(ref, sizeof(ref), "refs/heads/%s", s->branch) < 0)
		return gfs_err_set(err, -ENAMETOOLONG,
				   "branch name too long: '%s'", s->branch);
	if (git_repository_open_ext(&t, s->trusted,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return stage_gerr(err, s->trusted);
	if (git_reference_name_to_id(out, t, ref) < 0)
		rc = gfs_err_set(err, -ENOENT, "branch '%s' not found in %s",
				 s->branch, s->trusted);
	git_repository_free(t);
	return rc;
}

/* Remove @path and what is under it; a name that does not fit is left. */
static int rm_rf(const char *path)
{
	struct dirent *de;
	char sub[4096];
	DIR *d = opendir(path);
	int rc = 0;

	if (!d)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (gfs_fmt(sub, sizeof(sub), "%s/%s", path, de->d_name) < 0)
			rc = -ENAMETOOLONG;
		else
			rm_rf(sub);
	}
	closedir(d);
	if (rc < 0)
		return rc;
	return rmdir(path) < 0 ? -errno : 0;
}

static int create_state(struct stage *s, const char *id, bool empty,
			struct gfs_err *err)
{
	git_commit *base = NULL;
	git_tree *tree = NULL;
	git_index *idx = NULL;
	char hex[GIT_OID_HEXSZ + 1], path[4096], now[32];
	git_oid oid;
	int rc = 0;

	if (!empty) {
		rc = branch_head(s, &oid, err);
		if (rc < 0)
			return rc;
		if (git_commit_lookup(&base, s->repo, &oid) < 0 ||
		    git_commit_tree(&tree, base) < 0)
			rc = stage_gerr(err, "reading the trusted branch");
	}
	if (rc == 0 && state_path(s, id, "index", path, sizeof(path)) < 0)
		rc = stage_too_long(err, s, id);
	if (rc == 0 && git_index_open(&idx, path) < 0)
		rc = stage_gerr(err, path);
	if (rc == 0 && tree && git_index_read_tree(idx, tree) < 0)
		rc = stage_gerr(err, "reading the base tree");
	if (rc == 0)
		rc = write_index(idx, err);
	if (rc == 0)
		rc = stage_state_write(
		    s, id, "base",
		    empty ? "empty" : git_oid_tostr(hex, sizeof(hex), &oid));
	snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
	if (rc == 0)
		rc = stage_state_write(s, id, "created", now);
	if (rc == 0)
		rc = stage_state_write(s, id, "status", "pending");
	if (rc < 0 && !err->code)
		gfs_err_set(err, rc, "staged commit '%s': %s", id,
			    strerror(-rc));
	git_index_free(idx);
	git_tree_free(tree);
	git_commit_free(base);
	return rc;
}

int stage_create(struct stage *s, const char *id, bool empty,
		 struct gfs_err *err)
{
	char path[4096];
	int rc;

	if (!stage_id_ok(id))
		return gfs_err_set(err, -EINVAL,
				   "'%s' is not a staged commit id (letters, "
				   "digits, '-', '_', '.')",
				   id);
	if (state_path(s, id, "", path, sizeof(path)) < 0)
		return stage_too_long(err, s, id);
	if (mkdir(path, 0700) < 0)
		return gfs_err_set(err, -errno, "staged commit '%s': %s", id,
				   errno == EEXIST ? "exists"
						   : strerror(errno));
	rc = create_state(s, id, empty, err);
	if (rc < 0)
		rm_rf(path); /* nothing half-made */
	return rc;
}

/* ---- edits ---- */

/* Point @path of the locked, pending index at blob @oid. */
static int put_entry(git_index *idx, const char *path, const git_oid *oid,
		     uint64_t len, bool exec, struct gfs_err *err)
{
	git_index_entry e;

	memset(&e, 0, sizeof(e));
	e.path = path;
	e.mode = exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	e.id = *oid;
	e.file_size = (uint32_t)len; /* git keeps the low 32 bits */
	if (git_index_add(idx, &e) < 0)
		return stage_gerr(err, path);
	return write_index(idx, err);
}

int stage_put(struct stage *s, const char *id, const char *path,
	      const void *data, size_t len, bool exec, struct gfs_err *err)
{
	git_index *idx = NULL;
	git_oid oid;
	int lock, rc;

	if (!path_ok(path))
		return gfs_err_set(err, -EINVAL, "'%s' cannot be staged", path);
	rc = open_pending(s, id, &idx, &lock, err);
	if (rc < 0)
		return rc;
	if (git_blob_create_from_buffer(&oid, s->repo, data, len) < 0)
		rc = stage_gerr(err, path);
	if (rc == 0)
		rc = put_entry(idx, path, &oid, len, exec, err);
	close_pending(idx, lock);
	return rc;
}

/*
 * Stream @size bytes of @fd into a new blob, a chunk at a time: the loose
 * object backend deflates and hashes as it goes, so memory stays at one
 * chunk whatever the size (a file over 2 GiB, or a sparse one).
 */
static int blob_from_fd(git_oid *out, struct stage *s, int fd, uint64_t size,
			const char *path, struct gfs_err *err)
{
	enum { CHUNK = 1 << 20 };
	git_odb_stream *st = NULL;
	git_odb *odb = NULL;
	uint64_t off = 0;
	char *buf = malloc(CHUNK);
	ssize_t n;
	int rc = 0;

	if (!buf)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	if (git_repository_odb(&odb, s->repo) < 0 ||
	    git_odb_open_wstream(&st, odb, size, GIT_OBJECT_BLOB) < 0) {
		rc = stage_gerr(err, path);
		goto out;
	}
	while (rc == 0 && off < size) {
		size_t want = size - off < CHUNK ? (size_t)(size - off) : CHUNK;

		n = pread(fd, buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = gfs_err_set(err, n < 0 ? -errno : -EIO,
					 "staging '%s': %s at byte %llu", path,
					 n < 0 ? strerror(errno)
					       : "the file shrank",
					 (unsigned long long)off);
		else if (git_odb_stream_write(st, buf, (size_t)n) < 0)
			rc = stage_gerr(err, path);
		else
			off += (uint64_t)n;
	}
	if (rc == 0 && git_odb_stream_finalize_write(out, st) < 0)
		rc = stage_gerr(err, path);
out:
	git_odb_stream_free(st);
	git_odb_free(odb);
	free(buf);
	return rc;
}

int stage_put_fd(struct stage *s, const char *id, const char *path, int fd,
		 bool exec, struct gfs_err *err)
{
	git_index *idx = NULL;
	struct stat st;
	git_oid oid;
	int lock, rc;

	if (!path_ok(path))
		return gfs_err_set(err, -EINVAL, "'%s' cannot be staged", path);
	if (fstat(fd, &st) < 0)
		return gfs_err_set(err, -errno, "staging '%s': %s", path,
				   strerror(errno));
	rc = open_pending(s, id, &idx, &lock, err);
	if (rc < 0)
		return rc;
	rc = blob_from_fd(&oid, s, fd, (uint64_t)st.st_size, path, err);
	if (rc == 0)
		rc =
		    put_entry(idx, path, &oid, (uint64_t)st.st_size, exec, err);
	close_pending(idx, lock);
	return rc;
}

/* Entries at @path or below it; positions into the index. */
static size_t entries_under(git_index *idx, const char *path, size_t *first)
{
	size_t n = git_index_entrycount(idx), i, len = strlen(path), count = 0;

	*first = n;
	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);

		if (strncmp(e->path, path, len) == 0 &&
		    (e->path[len] == '\0' || e->path[len] == '/')) {
			if (!count)
				*first = i;
			count++;
		} else if (count) {
			break; /* sorted: the run is over */
		}
	}
	return count;
}

int stage_remove(struct stage *s, const char *id, const char *path,
		 struct gfs_err *err)
{
	git_index *idx = NULL;
	size_t first, n;
	int lock, rc;

	rc = open_pending(s, id, &idx, &lock, err);
	if (rc < 0)
		return rc;
	n = entries_under(idx, path, &first);
	if (!n)
		rc = gfs_err_set(err, -ENOENT, "'%s' is not staged", path);
	else if (git_index_remove_directory(idx, path, 0) < 0 ||
		 (git_index_get_bypath(idx, path, 0) &&
		  git_index_remove(idx, path, 0) < 0))
		rc = stage_gerr(err, path);
	if (rc == 0)
		rc = write_index(idx, err);
	close_pending(idx, lock);
	return rc;
}

int stage_rename(struct stage *s, const char *id, const char *from,
		 const char *to, struct gfs_err *err)
{
	git_index *idx = NULL;
	git_index_entry e;
	size_t first, n, i, flen = strlen(from);
	char **olds = NULL, *newp = NULL;
	int lock, rc;

	if (!path_ok(to))
		return gfs_err_set(err, -EINVAL, "'%s' cannot be staged", to);
	rc = open_pending(s, id, &idx, &lock, err);
	if (rc < 0)
		return rc;
	n = entries_under(idx, from, &first);
	olds = calloc(n ? n : 1, sizeof(*olds));
	if (!n)
		rc = gfs_err_set(err, -ENOENT, "'%s' is not staged", from);
	else if (!olds)
		rc = -ENOMEM;
	for (i = 0; rc == 0 && i < n; i++) {
		olds[i] = strdup(git_index_get_byindex(idx, first + i)->path);
		if (!olds[i])
			rc = -ENOMEM;
	}
	for (i = 0; rc == 0 && i < n; i++) {
		const git_index_entry *old =
		    git_index_get_bypath(idx, olds[i], 0);

		e = *old;
		if (asprintf(&newp, "%s%s", to, olds[i] + flen) < 0) {
			newp = NULL;
			rc = gfs_err_set(err, -ENOMEM, "out of memory");
			break;
		}
		e.path = newp;
		/* an entry already at newp is replaced */
		if (git_index_remove(idx, olds[i], 0) < 0 ||
		    git_index_add(idx, &e) < 0)
			rc = stage_gerr(err, olds[i]);
		free(newp);
	}
	if (rc == 0)
		rc = write_index(idx, err);
	for (i = 0; olds && i < n; i++)
		free(olds[i]);
	free(olds);
	close_pending(idx, lock);
	return rc;
}

int stage_set_message(struct stage *s, const char *id, const char *msg,
		      struct gfs_err *err)
{
	git_index *idx = NULL;
	int lock, rc;

	if (strlen(msg) > STAGE_MESSAGE_MAX)
		return gfs_err_set(err, -EFBIG, "message: over %d bytes",
				   STAGE_MESSAGE_MAX);
	rc = open_pending(s, id, &idx, &lock, err);

	if (rc == 0)
		rc = stage_state_write(s, id, "message", msg);
	close_pending(idx, lock);
	return rc < 0 && !err->code
		   ? gfs_err_set(err, rc, "message: %s", strerror(-rc))
		   : rc;
}

/* The index entry of file @path, or -ENOENT / -EISDIR. */
static int file_entry(git_index *idx, const char *path,
		      const git_index_entry **out, struct gfs_err *err)
{
	size_t first;

	*out = git_index_get_bypath(idx, path, 0);
	if (*out)
		return 0;
	if (entries_under(idx, path, &first))
		return gfs_err_set(err, -EISDIR, "'%s' is a directory", path);
	return gfs_err_set(err, -ENOENT, "'%s' is not staged", path);
}

int stage_get(struct stage *s, const char *id, const char *path, void **data,
	      size_t *len, struct gfs_err *err)
{
	const git_index_entry *e;
	git_index *idx = NULL;
	git_blob *b = NULL;
	int rc;

	rc = stage_index_open(s, id, &idx, err);
	if (rc == 0)
		rc = file_entry(idx, path, &e, err);
	if (rc == 0 && git_blob_lookup(&b, s->repo, &e->id) < 0)
		rc = stage_gerr(err, path);
	if (rc == 0) {
		*len = (size_t)git_blob_rawsize(b);
		*data = malloc(*len ? *len : 1);
		if (*data)
			memcpy(*data, git_blob_rawcontent(b), *len);
		else
			rc = gfs_err_set(err, -ENOMEM, "out of memory");
	}
	git_blob_free(b);
	git_index_free(idx);
	return rc;
}

static int pwrite_all(int fd, const char *buf, size_t n, uint64_t off)
{
	ssize_t w;

	while (n) {
		w = pwrite(fd, buf, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static bool all_zero(const char *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/*
 * Blob @oid into @fd from offset 0: streamed a chunk at a time where the
 * object store can (loose objects, where every staged file lands), else
 * read whole (packed objects of the trusted repository).
 */
static int blob_to_fd(struct stage *s, const git_oid *oid, int fd,
		      uint64_t *len, const char *path, struct gfs_err *err)
{
	enum { CHUNK = 1 << 20 };
	git_odb_stream *st = NULL;
	git_object_t type;
	git_odb *odb = NULL;
	git_blob *b = NULL;
	uint64_t off = 0;
	size_t size = 0;
	char *buf = NULL;
	int n, rc = 0;

	if (git_repository_odb(&odb, s->repo) < 0)
		return stage_gerr(err, path);
	if (git_odb_open_rstream(&st, &size, &type, odb, oid) < 0) {
		git_error_clear();
		if (git_blob_lookup(&b, s->repo, oid) < 0)
			rc = stage_gerr(err, path);
		else
			rc = pwrite_all(fd, git_blob_rawcontent(b),
					(size_t)git_blob_rawsize(b), 0);
		off = b ? (uint64_t)git_blob_rawsize(b) : 0;
		goto out;
	}
	buf = malloc(CHUNK);
	if (!buf)
		rc = -ENOMEM;
	while (rc == 0 && off < size) {
		n = git_odb_stream_read(st, buf, CHUNK);
		if (n <= 0)
			rc = n < 0 ? stage_gerr(err, path)
				   : gfs_err_set(err, -EIO,
						 "'%s': object "
						 "ends early",
						 path);
		else if (!all_zero(buf, (size_t)n))
			rc = pwrite_all(fd, buf, (size_t)n, off);
		off += n > 0 ? (uint64_t)n : 0;
	}
	/* zero chunks were skipped: the file stays as sparse as the blob */
	if (rc == 0 && ftruncate(fd, (off_t)off) < 0)
		rc = -errno;
out:
	if (rc < 0 && err && !err->code)
		gfs_err_set(err, rc, "'%s': %s", path, strerror(-rc));
	if (rc == 0)
		*len = off;
	free(buf);
	git_blob_free(b);
	git_odb_stream_free(st);
	git_odb_free(odb);
	return rc;
}

int stage_get_fd(struct stage *s, const char *id, const char *path, int fd,
		 uint64_t *len, struct gfs_err *err)
{
	const git_index_entry *e;
	git_index *idx = NULL;
	int rc;

	rc = stage_index_open(s, id, &idx, err);
	if (rc == 0)
		rc = file_entry(idx, path, &e, err);
	if (rc == 0)
		rc = blob_to_fd(s, &e->id, fd, len, path, err);
	git_index_free(idx);
	return rc;
}

int stage_stat(struct stage *s, const char *id, const char *path,
	       struct stage_stat *out, struct gfs_err *err)
{
	const git_index_entry *e;
	git_index *idx = NULL;
	size_t first;
	int rc;

	rc = stage_index_open(s, id, &idx, err);
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	e = *path ? git_index_get_bypath(idx, path, 0) : NULL;
	if (e) {
		git_odb *odb = NULL;
		size_t len = 0;
		git_object_t type;

		out->exec = e->mode == GIT_FILEMODE_BLOB_EXECUTABLE;
		/* entries read from a tree carry no size: ask the objects */
		if (git_repository_odb(&odb, s->repo) < 0 ||
		    git_odb_read_header(&len, &type, odb, &e->id) < 0)
			rc = stage_gerr(err, path);
		out->size = len;
		git_odb_free(odb);
	} else if (!*path || entries_under(idx, path, &first)) {
		out->is_dir = true;
	} else {
		rc = -ENOENT;
	}
	git_index_free(idx);
	return rc;
}

int stage_readdir(struct stage *s, const char *id, const char *dir,
		  int (*fn)(const char *name, bool is_dir, void *ctx),
		  void *ctx, struct gfs_err *err)
{
	size_t n, i, dlen = strlen(dir), first = 0;
	char last[4096] = "", name[4096];
	git_index *idx = NULL;
	int rc;

	rc = stage_index_open(s, id, &idx, err);
	if (rc < 0)
		return rc;
	n = git_index_entrycount(idx);
	if (dlen)
		n = entries_under(idx, dir, &first) + first;
	for (i = first; rc == 0 && i < n; i++) {
		const char *p = git_index_get_byindex(idx, i)->path;
		const char *rest = dlen ? p + dlen + 1 : p;
		const char *slash = strchr(rest, '/');
		size_t len = slash ? (size_t)(slash - rest) : strlen(rest);

		if (dlen && p[dlen] != '/')
			continue; /* @dir itself is a file */
		if (len >= sizeof(name))
			continue;
		memcpy(name, rest, len);
		name[len] = '\0';
		if (strcmp(name, last) == 0)
			continue; /* sorted: one entry per name */
		memcpy(last, name, len + 1);
		rc = fn(name, slash != NULL, ctx);
	}
	git_index_free(idx);
	return rc;
}

int stage_set_exec(struct stage *s, const char *id, const char *path, bool exec,
		   struct gfs_err *err)
{
	const git_index_entry *old;
	git_index_entry e;
	git_index *idx = NULL;
	int lock, rc;

	rc = open_pending(s, id, &idx, &lock, err);
	if (rc < 0)
		return rc;
	old = git_index_get_bypath(idx, path, 0);
	if (!old) {
		rc = gfs_err_set(err, -ENOENT, "'%s' is not staged", path);
	} else {
		e = *old;
		e.mode =
		    exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		if (git_index_add(idx, &e) < 0)
			rc = stage_gerr(err, path);
		if (rc == 0)
			rc = write_index(idx, err);
	}
	close_pending(idx, lock);
	return rc;
}

int stage_message(struct stage *s, const char *id, char **out,
		  struct gfs_err *err)
{
	char *buf = malloc(STAGE_MESSAGE_MAX + 1);
	int rc;

	if (!buf)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	rc = stage_state_read(s, id, "message", buf, STAGE_MESSAGE_MAX + 1);
	if (rc < 0) {
		free(buf);
		return gfs_err_set(err, rc, "message of '%s': %s", id,
				   strerror(-rc));
	}
	*out = buf;
	return 0;
}

int stage_each(struct stage *s,
	       int (*fn)(const char *id, enum stage_status st, void *ctx),
	       void *ctx, struct gfs_err *err)
{
	enum stage_status st;
	struct dirent *de;
	DIR *d = opendir(s->dir);
	int rc = 0;

	if (!d)
		return gfs_err_set(err, -errno, "%s: %s", s->dir,
				   strerror(errno));
	while (rc == 0 && (de = readdir(d)))
		if (stage_status(s, de->d_name, &st) == 0)
			rc = fn(de->d_name, st, ctx);
	closedir(d);
	return rc;
}

int stage_status(struct stage *s, const char *id, enum stage_status *out)
{
	char buf[32];

	if (!stage_id_ok(id))
		return -ENOENT;
	stage_state_read(s, id, "status", buf, sizeof(buf));
	if (!buf[0])
		return -ENOENT;
	*out = parse_status(buf);
	return 0;
}

/* ---- trees and diffs ---- */

int stage_tree_id(struct stage *s, const char *id, git_oid *out,
		  struct gfs_err *err)
{
	git_index *idx = NULL;
	int rc;

	rc = stage_index_open(s, id, &idx, err);
	if (rc == 0 && git_index_write_tree_to(out, idx, s->repo) < 0)
		rc = stage_gerr(err, "writing the staged tree");
	git_index_free(idx);
	return rc;
}

/*
 * The base tree (NULL for an empty start) and the staged tree: @want, or
 * the index's tree when @want is NULL; its id in @tree_id.
 */
static int trees(struct stage *s, const char *id, const git_oid *want,
		 git_tree **base, git_tree **staged, git_oid *tree_id,
		 struct gfs_err *err)
{
	git_commit *c = NULL;
	char hex[64];
	git_oid base_oid;
	int rc = 0;

	*base = *staged = NULL;
	if (want)
		*tree_id = *want;
	else
		rc = stage_tree_id(s, id, tree_id, err);
	if (rc < 0)
		return rc;
	if (git_tree_lookup(staged, s->repo, tree_id) < 0)
		return stage_gerr(err, "the staged tree");
	stage_state_read(s, id, "base", hex, sizeof(hex));
	if (strcmp(hex, "empty") != 0 &&
	    (git_oid_fromstr(&base_oid, hex) < 0 ||
	     git_commit_lookup(&c, s->repo, &base_oid) < 0 ||
	     git_commit_tree(base, c) < 0))
		rc = stage_gerr(err, "reading the base commit");
	git_commit_free(c);
	if (rc < 0) {
		git_tree_free(*staged);
		*staged = NULL;
	}
	return rc;
}

/* Size of a blob; tree-to-tree deltas do not carry it. */
static uint64_t blob_size(git_odb *odb, const git_oid *id)
{
	git_object_t type;
	size_t len = 0;

	if (!odb || git_odb_read_header(&len, &type, odb, id) < 0)
		return 0;
	return len;
}

/* Does the diff hold a blob too large to read whole? */
static bool has_huge_blob(struct stage *s, git_diff *d)
{
	size_t i, n = git_diff_num_deltas(d);
	git_odb *odb = NULL;
	bool huge = false;

	if (git_repository_odb(&odb, s->repo) < 0)
		return true; /* when in doubt, read nothing whole */
	for (i = 0; i < n && !huge; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		huge = blob_size(odb, &dl->old_file.id) > STAGE_DIFF_MAX_BLOB ||
		       blob_size(odb, &dl->new_file.id) > STAGE_DIFF_MAX_BLOB;
	}
	git_odb_free(odb);
	return huge;
}

/*
 * The diff of two trees, with binary patches and renames found by
 * content; but where a blob is over STAGE_DIFF_MAX_BLOB, without binary
 * patches (a large file shows as "Binary files differ", by its size,
 * unread) and with exact renames only, so a diff never reads a file of
 * any size whole into memory.
 */
static int diff_trees(struct stage *s, git_tree *base, git_tree *staged,
		      git_diff **out, struct gfs_err *err)
{
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fo = GIT_DIFF_FIND_OPTIONS_INIT;
	bool huge;

	o.max_size = STAGE_DIFF_MAX_BLOB;
	if (git_diff_tree_to_tree(out, s->repo, base, staged, &o) < 0)
		return stage_gerr(err, "diff");
	huge = has_huge_blob(s, *out);
	if (!huge) {
		git_diff_free(*out);
		*out = NULL;
		o.flags = GIT_DIFF_SHOW_BINARY;
		if (git_diff_tree_to_tree(out, s->repo, base, staged, &o) < 0)
			return stage_gerr(err, "diff");
	}
	fo.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_FOR_UNTRACKED |
		   (huge ? GIT_DIFF_FIND_EXACT_MATCH_ONLY : 0);
	if (git_diff_find_similar(*out, &fo) < 0) {
		git_diff_free(*out);
		*out = NULL;
		return stage_gerr(err, "diff");
	}
	return 0;
}

/* The diff of @id's base to its staged tree (@want, or the index's). */
static int diff_of(struct stage *s, const char *id, const git_oid *want,
		   git_diff **out, git_oid *tree_id, struct gfs_err *err)
{
	git_tree *base = NULL, *staged = NULL;
	git_oid tid;
	int rc;

	rc = trees(s, id, want, &base, &staged, tree_id ? tree_id : &tid, err);
	if (rc == 0)
		rc = diff_trees(s, base, staged, out, err);
	git_tree_free(base);
	git_tree_free(staged);
	return rc;
}

/*
 * One piece of the patch. Contents and names are the program's: every line
 * goes through gfs_esc_line(), so no control byte reaches the terminal
 * and a newline in a name (libgit2 quotes those in headers anyway) cannot
 * start a line of its own.
 */
static int print_line(const git_diff_delta *d, const git_diff_hunk *h,
		      const git_diff_line *l, void *payload)
{
	FILE *f = payload;
	const char *s = l->content, *nl;
	size_t n = l->content_len, k;

	(void)d;
	(void)h;
	if (l->origin == GIT_DIFF_LINE_CONTEXT ||
	    l->origin == GIT_DIFF_LINE_ADDITION ||
	    l->origin == GIT_DIFF_LINE_DELETION) {
		fputc(l->origin, f);
		gfs_esc_line(f, s, n);
		return 0;
	}
	while (n > 0) {
		nl = memchr(s, '\n', n);
		k = nl ? (size_t)(nl - s) + 1 : n;
		gfs_esc_line(f, s, k);
		s += k;
		n -= k;
	}
	return 0;
}

static void put_name(FILE *f, const char *name)
{
	gfs_esc_name(f, name, strlen(name), 0);
}

/*
 * The summary under --stat, written here rather than by libgit2 (whose
 * summary leaves out the mode change of a renamed file): every creation,
 * deletion, rename and mode change, one line each, never elided.
 */
static void print_summary(git_diff *d, FILE *f)
{
	size_t i, n = git_diff_num_deltas(d);

	for (i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		if (dl->status == GIT_DELTA_ADDED) {
			fprintf(f, " create mode %06o ", dl->new_file.mode);
			put_name(f, dl->new_file.path);
			fputc('\n', f);
		} else if (dl->status == GIT_DELTA_DELETED) {
			fprintf(f, " delete mode %06o ", dl->old_file.mode);
			put_name(f, dl->old_file.path);
			fputc('\n', f);
		}
		if (dl->status == GIT_DELTA_RENAMED) {
			fputs(" rename ", f);
			put_name(f, dl->old_file.path);
			fputs(" => ", f);
			put_name(f, dl->new_file.path);
			fprintf(f, " (%u%%)\n", dl->similarity);
		}
		if (dl->status != GIT_DELTA_ADDED &&
		    dl->status != GIT_DELTA_DELETED &&
		    dl->old_file.mode != dl->new_file.mode) {
			fprintf(f, " mode change %06o => %06o ",
				dl->old_file.mode, dl->new_file.mode);
			put_name(f, dl->new_file.path);
			fputc('\n', f);
		}
	}
}

/* One file of --stat: its (quoted) name, and its lines added and deleted. */
struct stat_row {
	char *name;
	size_t width, add, del;
	bool binary;
};

static char *stat_name(const git_diff_delta *dl)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	if (dl->status == GIT_DELTA_RENAMED &&
	    strcmp(dl->old_file.path, dl->new_file.path)) {
		put_name(m, dl->old_file.path);
		fputs(" => ", m);
	}
	put_name(m, dl->new_file.path);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int stat_rows(git_diff *d, struct stat_row *rows, size_t n)
{
	git_patch *p = NULL;
	size_t i, ctx;

	for (i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		rows[i].name = stat_name(dl);
		if (!rows[i].name || git_patch_from_diff(&p, d, i) < 0)
			return -ENOMEM;
		rows[i].binary = dl->flags & GIT_DIFF_FLAG_BINARY;
		if (git_patch_line_stats(&ctx, &rows[i].add, &rows[i].del, p) <
		    0) {
			git_patch_free(p);
			return -EIO;
		}
		git_patch_free(p);
		rows[i].width = strlen(rows[i].name);
	}
	return 0;
}

/* A bar of @k of @c scaled so the longest fits @room. */
static void bar(FILE *f, char c, size_t k, size_t most, size_t room)
{
	size_t w = most > room ? (k * room + most - 1) / most : k;

	while (w--)
		fputc(c, f);
}

/* --stat as git shows it, names quoted (gfs_esc_name). */
static int print_stat(git_diff *d, FILE *f)
{
	size_t n = git_diff_num_deltas(d), i, wname = 0, most = 0, adds = 0,
	       dels = 0, room;
	struct stat_row *rows = calloc(n ? n : 1, sizeof(*rows));
	char num[32];
	int rc, wnum;

	if (!rows)
		return -ENOMEM;
	rc = stat_rows(d, rows, n);
	for (i = 0; rc == 0 && i < n; i++) {
		wname = rows[i].width > wname ? rows[i].width : wname;
		if (rows[i].add + rows[i].del > most)
			most = rows[i].add + rows[i].del;
		adds += rows[i].add;
		dels += rows[i].del;
	}
	wnum = snprintf(num, sizeof(num), "%zu", most);
	room = wname + (size_t)wnum + 40 < 80   ? 40
	       : 80 > wname + (size_t)wnum + 10 ? 80 - wname - (size_t)wnum - 6
						: 4;
	for (i = 0; rc == 0 && i < n; i++) {
		fprintf(f, " %-*s | ", (int)wname, rows[i].name);
		if (rows[i].binary) {
			fputs("Bin\n", f);
			continue;
		}
		fprintf(f, "%*zu ", wnum, rows[i].add + rows[i].del);
		bar(f, '+', rows[i].add, most, room);
		bar(f, '-', rows[i].del, most, room);
		fputc('\n', f);
	}
	if (rc == 0)
		fprintf(f,
			" %zu file%s changed, %zu insertion%s(+), %zu "
			"deletion%s(-)\n",
			n, n == 1 ? "" : "s", adds, adds == 1 ? "" : "s", dels,
			dels == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
	return rc;
}

int stage_diff(struct stage *s, const char *id, bool stat, FILE *f, char *tree,
	       struct gfs_err *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_diff *d = NULL;
	git_oid tid;
	int rc;

	/* one tree, read once: the id printed is the tree whose diff this is */
	rc = diff_of(s, id, NULL, &d, &tid, err);
	if (rc == 0) {
		git_oid_tostr(hex, sizeof(hex), &tid);
		fprintf(f, "staged tree %s\n", hex);
	}
	if (rc == 0 && stat) {
		rc = print_stat(d, f);
		if (rc < 0)
			rc = gfs_err_set(err, rc, "diff --stat: %s",
					 strerror(-rc));
		else
			print_summary(d, f);
	} else if (rc == 0 && git_diff_print(d, GIT_DIFF_FORMAT_PATCH,
					     print_line, f) < 0) {
		rc = stage_gerr(err, "diff");
	}
	if (rc == 0 && tree)
		memcpy(tree, hex, sizeof(hex));
	git_diff_free(d);
	return rc;
}

/* The blob ids of a tree, sorted, to tell repository content by its id. */
struct blobset {
	git_oid *v;
	size_t n, cap;
};

static int blob_collect(const char *root, const git_tree_entry *e,
			void *payload)
{
	struct blobset *b = payload;
	git_oid *v;

	(void)root;
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		v = realloc(b->v, b->cap * sizeof(*v));
		if (!v)
			return -1;
		b->v = v;
	}
	git_oid_cpy(&b->v[b->n++], git_tree_entry_id(e));
	return 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static bool blob_in(const struct blobset *b, const git_oid *id)
{
	return b->n && bsearch(id, b->v, b->n, sizeof(*b->v), oid_cmp);
}

/* The id of the empty blob: an empty file shows no one's content. */
static bool blob_empty(const git_oid *id)
{
	git_oid e;

	git_oid_fromstr(&e, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	return git_oid_equal(id, &e);
}

int stage_changes(struct stage *s, const char *id,
		  int (*fn)(const char *path, void *ctx), void *ctx,
		  struct gfs_err *err)
{
	git_tree *base = NULL, *staged = NULL;
	struct blobset blobs = { 0 };
	git_diff *d = NULL;
	git_oid tid;
	size_t i, n;
	int rc;

	rc = trees(s, id, NULL, &base, &staged, &tid, err);
	if (rc == 0 && base &&
	    git_tree_walk(base, GIT_TREEWALK_PRE, blob_collect, &blobs) < 0)
		rc = gfs_err_set(err, -ENOMEM, "listing the base tree");
	if (rc == 0 && blobs.n)
		qsort(blobs.v, blobs.n, sizeof(*blobs.v), oid_cmp);
	if (rc == 0)
		rc = diff_trees(s, base, staged, &d, err);
	n = rc == 0 ? git_diff_num_deltas(d) : 0;
	for (i = 0; rc == 0 && i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		if (dl->status == GIT_DELTA_DELETED)
			continue;
		/* moved or copied but unchanged: still the repository's */
		if (blob_in(&blobs, &dl->new_file.id) &&
		    !blob_empty(&dl->new_file.id))
			continue;
		rc = fn(dl->new_file.path, ctx);
	}
	git_diff_free(d);
	git_tree_free(base);
	git_tree_free(staged);
	free(blobs.v);
	return rc;
}

/* ---- info and list ---- */

static enum stage_status parse_status(const char *s)
{
	if (strcmp(s, "committed") == 0)
		return STAGE_COMMITTED;
	if (strcmp(s, "discarded") == 0)
		return STAGE_DISCARDED;
	return STAGE_PENDING;
}

static void count_changes(struct stage *s, git_diff *d, struct stage_info *out)
{
	size_t i, n = git_diff_num_deltas(d);
	git_odb *odb = NULL;

	if (git_repository_odb(&odb, s->repo) < 0)
		odb = NULL;
	for (i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		switch (dl->status) {
		case GIT_DELTA_ADDED:
			out->created_files++;
			out->bytes += blob_size(odb, &dl->new_file.id);
			break;
		case GIT_DELTA_DELETED:
			out->deleted_files++;
			break;
		default:
			out->updated_files++;
			out->bytes += blob_size(odb, &dl->new_file.id);
		}
	}
	git_odb_free(odb);
}

int stage_info(struct stage *s, const char *id, struct stage_info *out,
	       struct gfs_err *err)
{
	char buf[64], *msg = NULL, *nl;
	git_diff *d = NULL;
	git_oid tid;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = diff_of(s, id, NULL, &d, &tid, err);
	if (rc < 0)
		return rc;
	git_oid_tostr(out->tree, sizeof(out->tree), &tid);
	count_changes(s, d, out);
	git_diff_free(d);
	gfs_strlcpy(out->id, id, sizeof(out->id));
	stage_state_read(s, id, "status", buf, sizeof(buf));
	out->status = parse_status(buf);
	stage_state_read(s, id, "created", buf, sizeof(buf));
	out->created = (time_t)atoll(buf);
	if (stage_message(s, id, &msg, NULL) == 0) {
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		/* a summary for listings: the first line, cut to fit */
		gfs_strlcpy(out->message, msg, sizeof(out->message));
		free(msg);
	}
	stage_state_read(s, id, "base", buf, sizeof(buf));
	gfs_strlcpy(out->base, strcmp(buf, "empty") ? buf : "",
		    sizeof(out->base));
	stage_state_read(s, id, "commit", out->commit, sizeof(out->commit));
	return 0;
}

static int by_created(const void *a, const void *b)
{
	const struct stage_info *x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->id, y->id);
}

int stage_list(struct stage *s, struct stage_info **out, size_t *n,
	       struct gfs_err *err)
{
	struct stage_info *v = NULL, *nv;
	struct dirent *de;
	size_t count = 0;
	DIR *d = opendir(s->dir);
	int rc = 0;

	if (!d)
		return gfs_err_set(err, -errno, "%s: %s", s->dir,
				   strerror(errno));
	while (rc == 0 && (de = readdir(d))) {
		if (!stage_id_ok(de->d_name))
			continue;
		nv = realloc(v, (count + 1) * sizeof(*v));
		if (!nv) {
			rc = -ENOMEM;
			break;
		}
		v = nv;
		rc = stage_info(s, de->d_name, &v[count], err);
		if (rc == 0)
			count++;
	}
	closedir(d);
	if (rc < 0) {
		free(v);
		return rc;
	}
	if (count)
		qsort(v, count, sizeof(*v), by_created);
	*out = v;
	*n = count;
	return 0;
}

/* ---- clearance ---- */

static double entropy(const unsigned char *p, size_t n)
{
	size_t counts[256] = { 0 }, i;
	double h = 0;

	for (i = 0; i < n; i++)
		counts[p[i]]++;
	for (i = 0; i < 256; i++) {
		if (counts[i]) {
			double q = (double)counts[i] / (double)n;

			h -= q * log2(q);
		}
	}
	return h;
}

/* Findings for one new or changed file; returns how many. */
static int check_blob(struct stage *s, const git_diff_delta *dl,
		      const struct stage_push_opts *o, uint64_t max, FILE *f)
{
	git_blob *b = NULL;
	git_odb *odb = NULL;
	uint64_t n;
	int found = 0;

	/* the size first, from the object's header; what cannot be read,
	   or is too large to read whole, is a finding: never passed unread */
	n = git_repository_odb(&odb, s->repo) == 0
		? blob_size(odb, &dl->new_file.id)
		: 0;
	git_odb_free(odb);
	if (n > max) {
		fprintf(f, "  over %llu bytes: ", (unsigned long long)max);
		put_name(f, dl->new_file.path);
		fprintf(f, " (%llu bytes)\n", (unsigned long long)n);
		found++;
	}
	if (n > STAGE_DIFF_MAX_BLOB && o->binary_ok && o->entropy_ok)
		return found; /* no content check wanted */
	if (n > STAGE_DIFF_MAX_BLOB ||
	    git_blob_lookup(&b, s->repo, &dl->new_file.id) < 0) {
		fputs("  not checked (too large to read, or unreadable): ", f);
		put_name(f, dl->new_file.path);
		fputc('\n', f);
		return found + 1;
	}
	if (!o->binary_ok && git_blob_is_binary(b)) {
		fputs("  binary file: ", f);
		put_name(f, dl->new_file.path);
		fputc('\n', f);
		found++;
	}
	if (!o->entropy_ok && n >= ENTROPY_MIN_BYTES &&
	    !git_blob_is_binary(b) &&
	    entropy(git_blob_rawcontent(b), (size_t)n) > ENTROPY_LIMIT) {
		fputs("  very high entropy (compressed or encrypted?): ", f);
		put_name(f, dl->new_file.path);
		fputc('\n', f);
		found++;
	}
	git_blob_free(b);
	return found;
}

bool stage_tree_ok(const char *hex)
{
	size_t i, n = strlen(hex);

	for (i = 0; i < n; i++)
		if (!(hex[i] >= '0' && hex[i] <= '9') &&
		    !(hex[i] >= 'a' && hex[i] <= 'f'))
			return false;
	/* the whole id: a prefix could be matched by a crafted tree */
	return n == GIT_OID_HEXSZ;
}

int stage_parse_tree(git_oid *out, const char *hex, struct gfs_err *err)
{
	if (!stage_tree_ok(hex) || git_oid_fromstr(out, hex) < 0)
		return gfs_err_set(err, -EINVAL,
				   "'%s' is not a tree id (40 hex digits, as "
				   "'golemfs diff' prints it)",
				   hex);
	return 0;
}

int stage_check_tree(struct stage *s, const char *id, const git_oid *tree,
		     const struct stage_push_opts *o, FILE *f,
		     struct gfs_err *err)
{
	uint64_t max =
	    o->max_file_bytes ? o->max_file_bytes : STAGE_DEFAULT_MAX_BYTES;
	git_diff *d = NULL;
	size_t i, n;
	int found = 0, rc;

	rc = diff_of(s, id, tree, &d, NULL, err);
	if (rc < 0)
		return rc;
	n = git_diff_num_deltas(d);
	for (i = 0; i < n; i++) {
		const git_diff_delta *dl = git_diff_get_delta(d, i);

		if (dl->status != GIT_DELTA_DELETED)
			found += check_blob(s, dl, o, max, f);
	}
	git_diff_free(d);
	if (found && !o->allow_binary)
		return gfs_err_set(err, -EPERM,
				   "clearance refused %d finding%s in '%s' "
				   "(--allow-binary to push anyway)",
				   found, found > 1 ? "s" : "", id);
	return 0;
}

int stage_check(struct stage *s, const char *id,
		const struct stage_push_opts *o, FILE *f, struct gfs_err *err)
{
	git_oid want;
	int rc;

	if (!o->expect_tree)
		return stage_check_tree(s, id, NULL, o, f, err);
	rc = stage_parse_tree(&want, o->expect_tree, err);
	return rc < 0 ? rc : stage_check_tree(s, id, &want, o, f, err);
}
