/*
 * The staged tree (stgtree_*, not the staging library's stage_*): the
 * FUSE backend of staged zones, where requests on /ZONE/ID/... become
 * staging/ calls. See stgtree.h. The callbacks of backend.c reach it through
 * its table, stgtree_backend, at the end of this file. Every entry: resolve
 * (node -> zone, id, path) -> decide (the policy, as for any zone) -> act
 * (staging, under the zone's lock) -> record -> reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "common/gfs_strv.h"
#include "common/lockorder.h"
#include "handle.h"
#include "inode.h"
#include "op.h"
#include "staging/stage.h"
#include "stgtree.h"

#define EDITMSG "COMMIT_EDITMSG"
/* a file read whole into memory at open; a larger one goes through a
   temporary file, so reading a staged file of any size costs little */
#define STAGED_READ_IN_MEMORY (1 << 20)

/* The paths one staged commit creates or changes, for a limited view. */
struct view {
	char id[65];
	unsigned gen; /* of the zone when it was made */
	struct gfs_strv paths;
	bool valid;
};

struct stg_zone {
	const struct policy_zone *zone;
	struct stage *stage;
	pthread_mutex_t lock;       /* serialises everything below */
	struct gfs_strv empty_dirs; /* "ID/dir" made by mkdir, no files yet */
	unsigned gen;               /* bumped by every edit */
	struct view view;           /* cache for the last commit asked about */
};

/* An open staged file: its bytes, and where writes go until close. */
struct sfh {
	struct fh_list link; /* first: gfs->open_files, once given out */
	struct stg_zone *sz;
	char *rel;  /* "ID/path" */
	void *data; /* read-only opens: the blob */
	size_t len;
	int tmpfd; /* write opens: O_TMPFILE, else -1 */
	bool dirty;
	bool exec;
};

/* ---- the limited view ---- */

static void view_clear(struct view *v)
{
	gfs_strv_release(&v->paths);
	memset(v, 0, sizeof(*v));
}

static int view_add(const char *path, void *ctx)
{
	struct view *v = ctx;

	return gfs_strv_push(&v->paths, path);
}

/*
 * May a program at trust level @t see @path of staged commit @id? The
 * policy decides (policy_staged_limited(), policy_staged_shows()); the
 * commit's changes are read only for a limited view, and kept for the
 * next question. Zone lock held.
 */
static bool view_shows(struct gfs *g, enum policy_trust t, struct stg_zone *sz,
		       const char *id, const char *path)
{
	struct view *v = &sz->view;
	struct gfs_err err = { 0 };

	/* the top is shown without the list of changes */
	if (!policy_staged_limited(g->policy, sz->zone, t) ||
	    policy_staged_shows(path, NULL, 0))
		return true;
	if (!v->valid || v->gen != sz->gen || strcmp(v->id, id)) {
		view_clear(v);
		gfs_strlcpy(v->id, id, sizeof(v->id));
		if (stage_changes(sz->stage, id, view_add, v, &err) < 0) {
			view_clear(v);
			return false; /* when in doubt, show nothing */
		}
		v->gen = sz->gen;
		v->valid = true;
	}
	return policy_staged_shows(path, v->paths.v, v->paths.n);
}

/* ---- setup ---- */

int stgtree_init(struct gfs *g, struct gfs_err *err)
{
	const struct policy *p = g->policy;
	size_t i, n = 0;
	int rc;

	for (i = 0; i < p->nzones; i++)
		n += p->zones[i].kind == ZONE_STAGED;
	if (!n)
		return 0;
	g->staged = calloc(n, sizeof(*g->staged));
	if (!g->staged)
		return -ENOMEM;
	for (i = 0; i < p->nzones; i++) {
		struct stg_zone *sz = &g->staged[g->nstaged];
		const struct policy_zone *z = &p->zones[i];

		if (z->kind != ZONE_STAGED)
			continue;
		rc = stage_open(&sz->stage, p->root, z->name, z->repo,
				z->branch, err);
		if (rc < 0) {
			gfs_err_prefix(err, "zone '%s'", z->name);
			return rc;
		}
		sz->zone = z;
		pthread_mutex_init(&sz->lock, NULL);
		lock_order_name(&sz->lock, LOCK_STG_ZONE);
		g->nstaged++;
	}
	return 0;
}

void stgtree_release(struct gfs *g)
{
	size_t i;

	for (i = 0; i < g->nstaged; i++) {
		stage_free(g->staged[i].stage);
		gfs_strv_release(&g->staged[i].empty_dirs);
		view_clear(&g->staged[i].view);
		pthread_mutex_destroy(&g->staged[i].lock);
	}
	free(g->staged);
	g->staged = NULL;
	g->nstaged = 0;
}

const char *stgtree_zone_vpath(struct gfs *g, size_t i)
{
	return g->staged[i].zone->vpath;
}

int stgtree_pending(struct gfs *g, size_t i,
		    int (*fn)(const char *id, enum stage_status st, void *ctx),
		    void *ctx, struct gfs_err *err)
{
	struct stg_zone *sz = &g->staged[i];
	int rc;

	pthread_mutex_lock(&sz->lock);
	rc = stage_each(sz->stage, fn, ctx, err);
	pthread_mutex_unlock(&sz->lock);
	return rc;
}

static struct stg_zone *zone_of(struct gfs *g, const struct policy_zone *z)
{
	size_t i;

	for (i = 0; i < g->nstaged; i++)
		if (g->staged[i].zone == z)
			return &g->staged[i];
	return NULL;
}

/*
 * "ID/a/b" -> id "ID", path "a/b"; "ID" -> path "". An id too long for
 * @id becomes "", which names no staged commit: a cut one could name
 * another commit.
 */
static void split(const char *rel, char *id, size_t size, const char **path)
{
	const char *slash = strchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : strlen(rel);

	if (n >= size)
		n = 0;
	memcpy(id, rel, n);
	id[n] = '\0';
	*path = slash ? slash + 1 : "";
}

static uint64_t path_hash(const struct policy_zone *z, const char *rel)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *s;

	for (s = z->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h = (h ^ '/') * 0x100000001b3ull;
	for (s = rel; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h | 1; /* never 0 */
}

static bool empty_dir_has(struct stg_zone *sz, const char *rel)
{
	size_t i;

	for (i = 0; i < sz->empty_dirs.n; i++)
		if (strcmp(sz->empty_dirs.v[i], rel) == 0)
			return true;
	return false;
}

static int empty_dir_add(struct stg_zone *sz, const char *rel)
{
	return gfs_strv_push(&sz->empty_dirs, rel);
}

static void empty_dir_del(struct stg_zone *sz, const char *rel)
{
	size_t i;

	for (i = 0; i < sz->empty_dirs.n; i++) {
		if (strcmp(sz->empty_dirs.v[i], rel) == 0) {
			gfs_strv_remove(&sz->empty_dirs, i);
			return;
		}
	}
}

/* ---- attributes ---- */

static void fill_stat(struct gfs *g, const struct policy_zone *z,
		      const char *rel, bool dir, bool exec, uint64_t size,
		      struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = (ino_t)path_hash(z, rel);
	st->st_mode = dir ? S_IFDIR | 0755 : S_IFREG | (exec ? 0755 : 0644);
	st->st_nlink = dir ? 2 : 1;
	st->st_size = (off_t)size;
	st->st_uid = g->uid;
	st->st_gid = g->gid;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
	st->st_atime = st->st_mtime = st->st_ctime = g->started;
}

/* What @rel is, under the zone lock. -ENOENT when nothing. */
static int stat_rel(struct gfs *g, enum policy_trust t, struct stg_zone *sz,
		    const char *rel, struct stat *st)
{
	struct stage_stat ss;
	enum stage_status status;
	struct gfs_err err = { 0 };
	const char *path;
	char id[65], *msg = NULL;
	int rc;

	split(rel, id, sizeof(id), &path);
	if (!*rel) {
		fill_stat(g, sz->zone, rel, true, false, 0, st);
		return 0;
	}
	if (stage_status(sz->stage, id, &status) < 0 || status != STAGE_PENDING)
		return -ENOENT;
	if (strcmp(path, EDITMSG) == 0) {
		rc = stage_message(sz->stage, id, &msg, &err);
		if (rc == 0)
			fill_stat(g, sz->zone, rel, false, false, strlen(msg),
				  st);
		free(msg);
		return rc;
	}
	if (empty_dir_has(sz, rel)) {
		fill_stat(g, sz->zone, rel, true, false, 0, st);
		return 0;
	}
	if (!view_shows(g, t, sz, id, path))
		return -ENOENT;
	rc = stage_stat(sz->stage, id, path, &ss, &err);
	if (rc == 0)
		fill_stat(g, sz->zone, rel, ss.is_dir, ss.exec, ss.size, st);
	return rc;
}

/* Resolve @name under @parent (or @parent itself when name is NULL). */
static int resolve(struct op *op, struct node *parent, const char *name,
		   struct stg_zone **sz)
{
	op->node = parent;
	op->name = name;
	op->zone = parent->zone;
	*sz = zone_of(op->g, op->zone);
	if (op->reserve_rc < 0) {
		op_paths(op);
		return op_reserve_failed(op);
	}
	if (!*sz)
		return -EIO;
	if (name && op_bad_name(name))
		return -EINVAL;
	if (!policy_zone_visible(op->zone, op->trust)) {
		op_paths(op);
		return -ENOENT;
	}
	return op_paths(op);
}

static int entry_for(struct op *op, struct stg_zone *sz,
		     struct fuse_entry_param *e)
{
	struct node *n;
	int rc;

	memset(e, 0, sizeof(*e));
	pthread_mutex_lock(&sz->lock);
	rc = stat_rel(op->g, op->trust, sz, op->rel, &e->attr);
	pthread_mutex_unlock(&sz->lock);
	if (rc < 0)
		return rc;
	e->attr.st_dev = 0;
	rc = node_find_or_add(op->g, op->node, op->name, op->zone, NODE_STG,
			      &e->attr, &n);
	if (rc < 0)
		return rc;
	e->ino = node_ino(op->g, n);
	/* the staged tree changes only through us: cache briefly anyway,
	   the staging tools may change state behind the mount */
	e->attr_timeout = e->entry_timeout = 1.0;
	return 0;
}

static void stgtree_lookup(fuse_req_t req, struct node *parent,
			   const char *name)
{
	struct fuse_entry_param e;
	struct stg_zone *sz;
	struct op op;
	int rc;

	op_init(&op, req, REC_OPEN);
	rc = resolve(&op, parent, name, &sz);
	if (rc == 0)
		rc = entry_for(&op, sz, &e);
	op_discard(&op); /* lookups are not events */
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_entry(req, &e);
}

static void stgtree_getattr(fuse_req_t req, struct node *n,
			    struct fuse_file_info *fi)
{
	struct stg_zone *sz;
	struct stat st;
	struct op op;
	int rc;

	(void)fi; /* staged handles hold no attributes of their own */
	op_init(&op, req, REC_OPEN);
	rc = resolve(&op, n, NULL, &sz);
	if (rc == 0) {
		pthread_mutex_lock(&sz->lock);
		rc = stat_rel(op.g, op.trust, sz, op.rel, &st);
		pthread_mutex_unlock(&sz->lock);
	}
	op_discard(&op);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, 1.0);
}

/* ---- names ---- */

static void stgtree_mkdir(fuse_req_t req, struct node *parent, const char *name,
			  mode_t mode)
{
	struct policy_req r = { .op = POP_CREATE,
				.is_dir = true,
				.empty_dir = true };
	struct fuse_entry_param e;
	struct stg_zone *sz;
	struct stat st;
	struct op op;
	int rc;

	(void)mode; /* a staged directory has no mode of its own */
	op_init(&op, req, REC_MKDIR);
	rc = resolve(&op, parent, name, &sz);
	if (rc == 0)
		rc = op_decide_req(&op, &r);
	if (rc == 0) {
		pthread_mutex_lock(&sz->lock);
		if (stat_rel(op.g, op.trust, sz, op.rel, &st) == 0)
			rc = -EEXIST;
		else if (!strchr(op.rel, '/'))
			/* a new staged commit, from the branch or nothing */
			rc = stage_create(sz->stage, op.rel,
					  policy_staged_from_nothing(op.trust),
					  &op.why);
		else
			rc = empty_dir_add(sz, op.rel);
		pthread_mutex_unlock(&sz->lock);
	}
	if (rc == 0)
		rc = entry_for(&op, sz, &e);
	op_record(&op, rc);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_entry(req, &e);
}

static void stgtree_remove(fuse_req_t req, struct node *parent,
			   const char *name, bool dir)
{
	const char *path;
	struct stg_zone *sz;
	struct stat st;
	struct op op;
	char id[65];
	int rc;

	op_init(&op, req, dir ? REC_RMDIR : REC_UNLINK);
	rc = resolve(&op, parent, name, &sz);
	if (rc == 0)
		rc = op_decide(&op, POP_DELETE, dir, 0);
	if (rc < 0)
		goto out;
	split(op.rel, id, sizeof(id), &path);
	pthread_mutex_lock(&sz->lock);
	rc = stat_rel(op.g, op.trust, sz, op.rel, &st);
	if (rc == 0 && dir != S_ISDIR(st.st_mode))
		rc = dir ? -ENOTDIR : -EISDIR;
	if (rc == 0 && !*path)
		rc = stage_discard(sz->stage, id, &op.why); /* rmdir /ZONE/ID */
	else if (rc == 0 && strcmp(path, EDITMSG) == 0)
		rc = stage_set_message(sz->stage, id, "", &op.why);
	else if (rc == 0 && dir && empty_dir_has(sz, op.rel))
		empty_dir_del(sz, op.rel);
	else if (rc == 0 && dir)
		rc = -ENOTEMPTY; /* a staged directory exists by its files */
	else if (rc == 0)
		rc = stage_remove(sz->stage, id, path, &op.why);
	sz->gen++;
	pthread_mutex_unlock(&sz->lock);
out:
	op_record(&op, rc);
	fuse_reply_err(req, -rc);
}

static void stgtree_rename(fuse_req_t req, struct node *parent,
			   const char *name, struct node *newparent,
			   const char *newname, unsigned int flags)
{
	const char *p1, *p2;
	struct stg_zone *sz, *sz2;
	struct policy_end a, b;
	struct op from, to;
	struct stat st, dst;
	char id1[65], id2[65];
	bool exists;
	int rc;

	op_init(&from, req, REC_RENAME);
	op_init_second(&to, &from); /* one request, one slot, one row */
	rc = resolve(&from, parent, name, &sz);
	if (rc == 0)
		rc = resolve(&to, newparent, newname, &sz2);
	if (rc == 0 && flags)
		rc = -EINVAL; /* no exchange or noreplace in a staged tree */
	if (rc < 0)
		goto out;
	rc = policy_check_staged_move(op_end_of(&from, &a), op_end_of(&to, &b),
				      &from.why);
	if (rc < 0)
		goto out;
	split(from.rel, id1, sizeof(id1), &p1);
	split(to.rel, id2, sizeof(id2), &p2);
	pthread_mutex_lock(&sz->lock);
	rc = stat_rel(from.g, from.trust, sz, from.rel, &st);
	exists = stat_rel(from.g, from.trust, sz, to.rel, &dst) == 0;
	pthread_mutex_unlock(&sz->lock);
	if (rc == 0)
		rc = op_decide(&from, POP_DELETE, S_ISDIR(st.st_mode), 0);
	if (rc == 0) {
		rc = op_decide(&to, exists ? POP_REPLACE : POP_CREATE,
			       S_ISDIR(st.st_mode), 0);
		if (rc < 0)
			from.why = to.why;
	}
	if (rc == 0 && (!strcmp(p1, EDITMSG) || !strcmp(p2, EDITMSG)))
		rc = -EINVAL;
	if (rc == 0 && exists && S_ISDIR(st.st_mode) != S_ISDIR(dst.st_mode))
		rc = S_ISDIR(dst.st_mode) ? -EISDIR : -ENOTDIR;
	if (rc == 0) {
		pthread_mutex_lock(&sz->lock);
		/* a staged file at p2 is replaced in the same index write:
		   nothing is lost unless the move is made */
		rc = stage_rename(sz->stage, id1, p1, p2, &from.why);
		sz->gen++;
		pthread_mutex_unlock(&sz->lock);
	}
	/* the kernel keeps the moved inode: it must answer to its new name */
	if (rc == 0) {
		struct node *moved = node_find(
		    from.g, 0, (ino_t)path_hash(sz->zone, from.rel), sz->zone);

		if (moved) {
			node_rename(from.g, moved, newparent, newname);
			node_put(from.g, moved);
		}
	}
out:
	op_record(&from, rc);
	fuse_reply_err(req, -rc);
}

static void stgtree_refuse(fuse_req_t req, struct node *parent,
			   const char *name, enum rec_op kind)
{
	struct stg_zone *sz;
	struct op op;
	int rc;

	op_init(&op, req, kind);
	rc = resolve(&op, parent, name, &sz);
	if (rc == 0)
		rc = policy_staged_refuse_kind(&op.why);
	op_record(&op, rc);
	fuse_reply_err(req, -rc);
}

/* ---- files ---- */

static struct gfs *gfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void sfh_drop(struct gfs *g, struct fh_list *l);

static void sfh_free(struct gfs *g, struct sfh *h)
{
	if (!h)
		return;
	gfs_handle_untrack(g, &h->link);
	if (h->tmpfd >= 0)
		close(h->tmpfd);
	free(h->data);
	free(h->rel);
	free(h);
}

/* A temporary file for writes, under the sandbox root (never shown). */
static int tmpfile_in(struct gfs *g)
{
	int fd = open(g->policy->root, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
}

/*
 * Current bytes of @rel (a file or the message): into h->data when
 * @to_fd is false, else into h->tmpfd from offset 0, streamed, so a file
 * of any size costs the daemon one chunk of memory. Zone lock held.
 */
static int load(struct stg_zone *sz, struct sfh *h, bool to_fd,
		struct gfs_err *err)
{
	const char *path;
	char id[65];
	char *msg = NULL;
	uint64_t len;
	ssize_t n;
	int rc;

	split(h->rel, id, sizeof(id), &path);
	if (strcmp(path, EDITMSG) != 0)
		return to_fd ? stage_get_fd(sz->stage, id, path, h->tmpfd, &len,
					    err)
			     : stage_get(sz->stage, id, path, &h->data, &h->len,
					 err);
	rc = stage_message(sz->stage, id, &msg, err);
	if (rc == 0 && to_fd) {
		n = pwrite(h->tmpfd, msg, strlen(msg), 0);
		if (n != (ssize_t)strlen(msg))
			rc = gfs_err_set(
			    err, n < 0 ? -errno : -EIO, "%s: %s", EDITMSG,
			    n < 0 ? strerror(errno) : "short write");
		free(msg);
	} else if (rc == 0) {
		h->data = msg;
		h->len = strlen(msg);
	}
	return rc;
}

static int open_write(struct op *op, struct stg_zone *sz, struct sfh *h,
		      bool trunc, bool exists)
{
	int rc = 0;

	h->tmpfd = tmpfile_in(op->g);
	if (h->tmpfd < 0)
		return h->tmpfd;
	if (exists && !trunc) {
		pthread_mutex_lock(&sz->lock);
		rc = load(sz, h, true, &op->why);
		pthread_mutex_unlock(&sz->lock);
	}
	h->dirty = !exists || trunc;
	return rc;
}

static struct sfh *sfh_new(struct stg_zone *sz, const char *rel)
{
	struct sfh *h = calloc(1, sizeof(*h));

	if (h && !(h->rel = strdup(rel))) {
		free(h);
		h = NULL;
	}
	if (h) {
		h->sz = sz;
		h->tmpfd = -1;
	}
	return h;
}

static void stgtree_open(fuse_req_t req, struct node *n,
			 struct fuse_file_info *fi)
{
	bool wr = (fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC);
	struct stg_zone *sz;
	struct sfh *h = NULL;
	struct stat st;
	struct op op;
	int rc;

	op_init(&op, req, REC_OPEN);
	rc = resolve(&op, n, NULL, &sz);
	if (rc == 0 && (fi->flags & O_ACCMODE) != O_WRONLY)
		rc = op_decide(&op, POP_READ, false, 0);
	if (rc == 0 && wr)
		rc = op_decide(&op, POP_WRITE, false, 0);
	if (rc == 0 && !(h = sfh_new(sz, op.rel)))
		rc = -ENOMEM;
	if (rc == 0) {
		pthread_mutex_lock(&sz->lock);
		rc = stat_rel(op.g, op.trust, sz, op.rel, &st);
		if (rc == 0 && !wr && st.st_size > STAGED_READ_IN_MEMORY) {
			h->tmpfd = tmpfile_in(op.g);
			rc = h->tmpfd < 0 ? h->tmpfd : 0;
		}
		if (rc == 0 && !wr)
			rc = load(sz, h, h->tmpfd >= 0, &op.why);
		pthread_mutex_unlock(&sz->lock);
		h->exec = rc == 0 && (st.st_mode & 0100);
	}
	if (rc == 0 && wr)
		rc = open_write(&op, sz, h, fi->flags & O_TRUNC, true);
	op_record(&op, rc);
	if (rc < 0) {
		sfh_free(gfs_of(req), h);
		fuse_reply_err(req, -rc);
		return;
	}
	fi->fh = (uintptr_t)h;
	fi->direct_io = 1; /* sizes change at close: no stale page cache */
	gfs_handle_track(op.g, &h->link, sfh_drop);
	if (fuse_reply_open(req, fi) == -ENOENT)
		sfh_free(gfs_of(req), h);
}

/* The message in the temp file, read whole: it is small or refused. */
static int commit_message(struct stg_zone *sz, const char *id, int fd,
			  struct gfs_err *err)
{
	char *buf;
	struct stat st;
	ssize_t n;
	int rc;

	if (fstat(fd, &st) < 0)
		return gfs_err_set(err, -errno, "%s: %s", EDITMSG,
				   strerror(errno));
	if (st.st_size > STAGE_MESSAGE_MAX)
		return gfs_err_set(err, -EFBIG, "%s: over %d bytes", EDITMSG,
				   STAGE_MESSAGE_MAX);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	n = pread(fd, buf, (size_t)st.st_size, 0);
	if (n != st.st_size) {
		rc = gfs_err_set(err, n < 0 ? -errno : -EIO, "%s: %s", EDITMSG,
				 n < 0 ? strerror(errno) : "short read");
	} else {
		buf[n] = '\0';
		rc = stage_set_message(sz->stage, id, buf, err);
	}
	free(buf);
	return rc;
}

/* A file in directories made by mkdir: those directories now exist. */
static void empty_dirs_filled(struct stg_zone *sz, const char *rel)
{
	char *dir = strdup(rel), *slash;

	while (dir && (slash = strrchr(dir, '/'))) {
		*slash = '\0';
		empty_dir_del(sz, dir);
	}
	free(dir);
}

/*
 * Write the temp file's bytes into the staged commit, streamed.
 * NEEDSWORK: the zone lock is held while the blob is hashed and deflated
 * (about a minute for 4 GiB here), so the zone's other requests wait;
 * making the blob outside it needs a git_repository per thread.
 */
static int commit_file(struct sfh *h, struct gfs_err *err)
{
	struct stg_zone *sz = h->sz;
	const char *path;
	char id[65];
	int rc;

	if (!h->dirty || h->tmpfd < 0)
		return 0;
	split(h->rel, id, sizeof(id), &path);
	pthread_mutex_lock(&sz->lock);
	if (strcmp(path, EDITMSG) == 0)
		rc = commit_message(sz, id, h->tmpfd, err);
	else
		rc = stage_put_fd(sz->stage, id, path, h->tmpfd, h->exec, err);
	sz->gen++;
	if (rc == 0)
		empty_dirs_filled(sz, h->rel);
	pthread_mutex_unlock(&sz->lock);
	if (rc == 0)
		h->dirty = false;
	return rc;
}

/* Never released (the connection went): keep what was written. */
static void sfh_drop(struct gfs *g, struct fh_list *l)
{
	struct sfh *h = (struct sfh *)l;
	struct gfs_err err = { 0 };

	if (commit_file(h, &err) < 0)
		gfs_log(LOG_WARNING, "staging '%s': %s", h->rel, err.msg);
	sfh_free(g, h);
}

static void stgtree_create(fuse_req_t req, struct node *parent,
			   const char *name, mode_t mode,
			   struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	struct stg_zone *sz;
	struct sfh *h = NULL;
	struct stat st;
	const char *path;
	char id[65];
	struct op op;
	int rc;

	op_init(&op, req, REC_CREATE);
	rc = resolve(&op, parent, name, &sz);
	if (rc == 0)
		rc = op_decide(&op, POP_CREATE, false, 0);
	if (rc == 0) {
		split(op.rel, id, sizeof(id), &path);
		pthread_mutex_lock(&sz->lock);
		if (!*path)
			rc = -EPERM; /* /ZONE holds staged commits only */
		else if (stat_rel(op.g, op.trust, sz, op.rel, &st) == 0)
			rc = -EEXIST; /* create means a new name here */
		pthread_mutex_unlock(&sz->lock);
	}
	if (rc == 0 && !(h = sfh_new(sz, op.rel)))
		rc = -ENOMEM;
	if (rc == 0) {
		h->exec = mode & 0100;
		rc = open_write(&op, sz, h, true, false);
	}
	/* the name exists from now on: stage it empty */
	if (rc == 0)
		rc = commit_file(h, &op.why);
	if (rc == 0) {
		h->dirty = false;
		rc = entry_for(&op, sz, &e);
	}
	op_record(&op, rc);
	if (rc < 0) {
		sfh_free(gfs_of(req), h);
		fuse_reply_err(req, -rc);
		return;
	}
	fi->fh = (uintptr_t)h;
	fi->direct_io = 1;
	gfs_handle_track(op.g, &h->link, sfh_drop);
	if (fuse_reply_create(req, &e, fi) == -ENOENT)
		sfh_free(op.g, h);
}

static void stgtree_read(fuse_req_t req, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	struct sfh *h = (struct sfh *)(uintptr_t)fi->fh;
	char *buf;
	ssize_t n;

	if (h->tmpfd >= 0) {
		buf = malloc(size ? size : 1);
		n = buf ? pread(h->tmpfd, buf, size, off) : -1;
		if (n < 0)
			fuse_reply_err(req, buf ? errno : ENOMEM);
		else
			fuse_reply_buf(req, buf, (size_t)n);
		free(buf);
		return;
	}
	if ((size_t)off >= h->len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(
		    req, (char *)h->data + off,
		    h->len - (size_t)off < size ? h->len - (size_t)off : size);
}

static void stgtree_write_buf(fuse_req_t req, struct fuse_bufvec *in, off_t off,
			      struct fuse_file_info *fi)
{
	struct sfh *h = (struct sfh *)(uintptr_t)fi->fh;
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(in));
	ssize_t n;

	if (h->tmpfd < 0) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (policy_check_size(h->sz->zone, (uint64_t)off + fuse_buf_size(in),
			      NULL) < 0) {
		fuse_reply_err(req, EFBIG);
		return;
	}
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = h->tmpfd;
	out.buf[0].pos = off;
	n = fuse_buf_copy(&out, in, 0);
	if (n < 0) {
		fuse_reply_err(req, (int)-n);
		return;
	}
	h->dirty = true;
	fuse_reply_write(req, (size_t)n);
}

static void stgtree_flush(fuse_req_t req, struct fuse_file_info *fi)
{
	struct sfh *h = (struct sfh *)(uintptr_t)fi->fh;
	struct gfs_err err = { 0 };
	int rc;

	/* at close(2): from here on a killed daemon loses nothing */
	rc = commit_file(h, &err);
	if (rc < 0)
		gfs_log(LOG_WARNING, "staging '%s': %s", h->rel, err.msg);
	/* refused while a push held the commit: close(2) said so, and the
	   bytes never land later behind the reviewer's back */
	if (rc == -EBUSY)
		h->dirty = false;
	fuse_reply_err(req, -rc);
}

static void stgtree_release_file(fuse_req_t req, struct fuse_file_info *fi)
{
	struct sfh *h = (struct sfh *)(uintptr_t)fi->fh;
	struct gfs_err err = { 0 };

	if (commit_file(h, &err) < 0)
		gfs_log(LOG_WARNING, "staging '%s': %s", h->rel, err.msg);
	sfh_free(gfs_of(req), h);
	fuse_reply_err(req, 0);
}

static void stgtree_setattr(fuse_req_t req, struct node *n, struct stat *attr,
			    int valid, struct fuse_file_info *fi)
{
	struct sfh *h = fi ? (struct sfh *)(uintptr_t)fi->fh : NULL;
	struct sfh *own = NULL;
	struct stg_zone *sz;
	const char *path;
	struct stat st;
	struct op op;
	char id[65];
	int rc;

	op_init(&op, req, REC_SETATTR);
	rc = resolve(&op, n, NULL, &sz);
	if (rc == 0 && (valid & (FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MODE)))
		rc = op_decide(
		    &op, POP_WRITE, false,
		    (valid & FUSE_SET_ATTR_SIZE) ? (uint64_t)attr->st_size : 0);
	split(op.rel, id, sizeof(id), &path);
	if (rc == 0 && (valid & FUSE_SET_ATTR_SIZE)) {
		if (!h || h->tmpfd < 0) {
			own = h = sfh_new(sz, op.rel);
			rc = h ? open_write(&op, sz, h, false, true) : -ENOMEM;
		}
		if (rc == 0 && ftruncate(h->tmpfd, attr->st_size) < 0)
			rc = -errno;
		if (rc == 0) {
			h->dirty = true;
			if (own)
				rc = commit_file(h, &op.why);
		}
	}
	if (rc == 0 && (valid & FUSE_SET_ATTR_MODE) && *path &&
	    strcmp(path, EDITMSG)) {
		pthread_mutex_lock(&sz->lock);
		if (stat_rel(op.g, op.trust, sz, op.rel, &st) == 0 &&
		    S_ISREG(st.st_mode))
			rc = stage_set_exec(sz->stage, id, path,
					    attr->st_mode & 0100, &op.why);
		sz->gen++;
		pthread_mutex_unlock(&sz->lock);
		if (h)
			h->exec = attr->st_mode & 0100;
	}
	/* times and owners are not kept in git: accepted, not stored */
	if (rc == 0) {
		pthread_mutex_lock(&sz->lock);
		rc = stat_rel(op.g, op.trust, sz, op.rel, &st);
		pthread_mutex_unlock(&sz->lock);
		if (rc == 0 && h && h->tmpfd >= 0) {
			struct stat t;

			if (fstat(h->tmpfd, &t) == 0)
				st.st_size = t.st_size;
		}
	}
	sfh_free(gfs_of(req), own);
	if (valid & (FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MODE) || rc < 0)
		op_record(&op, rc);
	else
		op_discard(&op);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, 1.0);
}

/* ---- directories ---- */

struct sdh {
	struct fh_list link; /* first: gfs->open_files, once given out */
	struct gfs_strv names;
	bool *dirs; /* names.n of them */
};

static int sdh_add(struct sdh *d, const char *name, bool dir)
{
	bool *b = realloc(d->dirs, (d->names.n + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	d->dirs = b;
	b[d->names.n] = dir;
	return gfs_strv_push(&d->names, name);
}

/* Listing a directory of a staged commit, through the view. */
struct list_ctx {
	struct gfs *g;
	enum policy_trust trust;
	struct stg_zone *sz;
	const char *id, *dir;
	struct sdh *d;
};

static int add_entry(const char *name, bool is_dir, void *ctx)
{
	struct list_ctx *c = ctx;
	char *path = NULL;
	bool shown;

	if (asprintf(&path, "%s%s%s", c->dir, *c->dir ? "/" : "", name) < 0)
		return -ENOMEM;
	shown = view_shows(c->g, c->trust, c->sz, c->id, path);
	free(path);
	return shown ? sdh_add(c->d, name, is_dir) : 0;
}

static int add_pending(const char *id, enum stage_status st, void *ctx)
{
	return st == STAGE_PENDING ? sdh_add(ctx, id, true) : 0;
}

static void sdh_free(struct gfs *g, struct sdh *d)
{
	if (!d)
		return;
	gfs_handle_untrack(g, &d->link);
	gfs_strv_release(&d->names);
	free(d->dirs);
	free(d);
}

static void sdh_drop(struct gfs *g, struct fh_list *l)
{
	sdh_free(g, (struct sdh *)l);
}

/* Empty directories made by mkdir directly inside @rel. */
static int add_empty_dirs(struct stg_zone *sz, const char *rel, struct sdh *d)
{
	size_t i, n = strlen(rel);
	int rc = 0;

	for (i = 0; rc == 0 && i < sz->empty_dirs.n; i++) {
		const char *e = sz->empty_dirs.v[i];

		if (!strncmp(e, rel, n) && e[n] == '/' &&
		    !strchr(e + n + 1, '/'))
			rc = sdh_add(d, e + n + 1, true);
	}
	return rc;
}

static int snapshot(struct op *op, struct stg_zone *sz, struct sdh *d)
{
	struct list_ctx lc;
	const char *path;
	char id[65], *msg = NULL;
	int rc;

	rc = sdh_add(d, ".", true);
	if (rc == 0)
		rc = sdh_add(d, "..", true);
	if (rc < 0)
		return rc;
	if (!*op->rel)
		return stage_each(sz->stage, add_pending, d, &op->why);
	split(op->rel, id, sizeof(id), &path);
	lc.g = op->g;
	lc.trust = op->trust;
	lc.sz = sz;
	lc.id = id;
	lc.dir = path;
	lc.d = d;
	rc = stage_readdir(sz->stage, id, path, add_entry, &lc, &op->why);
	if (rc == 0)
		rc = add_empty_dirs(sz, op->rel, d);
	if (rc == 0 && !*path &&
	    stage_message(sz->stage, id, &msg, &op->why) == 0 && *msg)
		rc = sdh_add(d, EDITMSG, false);
	free(msg);
	return rc;
}

static void stgtree_opendir(fuse_req_t req, struct node *n,
			    struct fuse_file_info *fi)
{
	struct sdh *d = calloc(1, sizeof(*d));
	struct stg_zone *sz;
	struct stat st;
	struct op op;
	int rc;

	op_init(&op, req, REC_READDIR);
	rc = d ? resolve(&op, n, NULL, &sz) : -ENOMEM;
	if (rc == 0)
		rc = op_decide(&op, POP_LIST, true, 0);
	if (rc == 0) {
		pthread_mutex_lock(&sz->lock);
		rc = stat_rel(op.g, op.trust, sz, op.rel, &st);
		if (rc == 0)
			rc = snapshot(&op, sz, d);
		pthread_mutex_unlock(&sz->lock);
	}
	op_record(&op, rc);
	if (rc < 0) {
		sdh_free(gfs_of(req), d);
		fuse_reply_err(req, -rc);
		return;
	}
	fi->fh = (uintptr_t)d;
	gfs_handle_track(op.g, &d->link, sdh_drop);
	if (fuse_reply_open(req, fi) == -ENOENT)
		sdh_free(op.g, d);
}

static void stgtree_readdir(fuse_req_t req, size_t size, off_t off,
			    struct fuse_file_info *fi, bool plus)
{
	struct sdh *d = (struct sdh *)(uintptr_t)fi->fh;
	char *buf = calloc(1, size), *p = buf;
	size_t left = size, len;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (; (size_t)off < d->names.n; off++) {
		struct stat st = {
			.st_ino = (ino_t)off + 1,
			.st_mode = d->dirs[off] ? S_IFDIR : S_IFREG,
		};
		struct fuse_entry_param e = { .attr = st };

		/* no lookups here: plain entries, attributes on demand */
		len = plus ? fuse_add_direntry_plus(
				 req, p, left, d->names.v[off], &e, off + 1)
			   : fuse_add_direntry(req, p, left, d->names.v[off],
					       &st, off + 1);
		if (len > left)
			break;
		p += len;
		left -= len;
	}
	fuse_reply_buf(req, buf, size - left);
	free(buf);
}

static void stgtree_releasedir(fuse_req_t req, struct fuse_file_info *fi)
{
	sdh_free(gfs_of(req), (struct sdh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void stgtree_fsync(fuse_req_t req, int datasync,
			  struct fuse_file_info *fi)
{
	(void)datasync;
	stgtree_flush(req, fi); /* staged at once, atomically */
}

/* A staged directory is written with its files: nothing to sync. */
static void stgtree_fsyncdir(fuse_req_t req, int datasync,
			     struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	fuse_reply_err(req, 0);
}

/* Git keeps no extended attributes: none to get, an empty list. */
static void stgtree_getxattr(fuse_req_t req, struct node *n, const char *name,
			     size_t size)
{
	(void)n;
	if (name || size)
		fuse_reply_err(req, name ? ENODATA : ERANGE);
	else
		fuse_reply_xattr(req, 0);
}

/*
 * No mknod, symlink or link (refused by stgtree_refuse), readlink,
 * fallocate, lseek, copy_file_range, setxattr or removexattr: backend.h
 * says what each missing entry answers.
 */
const struct backend stgtree_backend = {
	.name = "staged",
	.lookup = stgtree_lookup,
	.getattr = stgtree_getattr,
	.setattr = stgtree_setattr,
	.mkdir = stgtree_mkdir,
	.remove = stgtree_remove,
	.rename = stgtree_rename,
	.refuse = stgtree_refuse,
	.open = stgtree_open,
	.create = stgtree_create,
	.read = stgtree_read,
	.write_buf = stgtree_write_buf,
	.flush = stgtree_flush,
	.release = stgtree_release_file,
	.fsync = stgtree_fsync,
	.opendir = stgtree_opendir,
	.readdir = stgtree_readdir,
	.releasedir = stgtree_releasedir,
	.fsyncdir = stgtree_fsyncdir,
	.getxattr = stgtree_getxattr,
};
