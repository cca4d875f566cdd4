/*
 * The passthrough backend (pass_backend: a zone's backing tree) and the
 * virtual directories' (vdir_backend), which share most of its entries:
 * backend.h. The FUSE callbacks of backend.c call them through those
 * tables. Every entry has the same shape:
 *
 *   resolve (node, zone, fd) -> decide (policy_decide) -> act (a *at()
 *   syscall on the zone's tree) -> record (op_record) -> reply, once,
 *   with no lock held.
 *
 * Names are always resolved one component at a time relative to an open
 * directory fd, with O_NOFOLLOW; files are re-opened through
 * /proc/self/fd of their O_PATH fd, which names the inode, not a path. So
 * the daemon never follows a symlink or ".." out of a zone, whatever the
 * backing tree does meanwhile.
 *
 * The request framework these callbacks share with the staged backend
 * (op_init, op_decide, op_record, ...) is op.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "audit/audit.h"
#include "backend.h"
#include "gitguard.h"
#include "handle.h"
#include "inode.h"
#include "links.h"
#include "loop.h"
#include "op.h"
#include "record.h"
#include "subtree.h"
#include "vtree.h"

struct dh_entry {
	char *name;
	unsigned char type;
};

/* An open directory: a stream for real ones, a snapshot for virtual. */
struct dh {
	struct fh_list link; /* first: gfs->open_files */
	DIR *dp;
	long offset; /* telldir of the entry at @next, or index */
	struct dirent *next;
	struct dh_entry *snap;
	size_t nsnap;
	struct node *node;
};

static struct gfs *gfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static double timeout_of(struct gfs *g, const struct policy_zone *z)
{
	return z && z->ro ? g->timeout_ro : g->timeout_rw;
}

static bool is_hidden(struct gfs *g, const struct stat *st)
{
	return (st->st_ino == g->hide_ino && st->st_dev == g->hide_dev) ||
	       (g->self_dev && st->st_dev == g->self_dev);
}

static void proc_path(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* ---- resolve ---- */

/* The node itself is the target. */
static int op_node(struct op *op, struct node *n)
{
	op->node = n;
	op->zone = op->node->zone;
	if (op->reserve_rc < 0) {
		op_paths(op);
		return op_reserve_failed(op);
	}
	if (op->node->type == NODE_PASS &&
	    !policy_zone_visible(op->zone, op->trust)) {
		op_paths(op);
		return -ENOENT;
	}
	return op_paths(op);
}

/*
 * A name in directory @parent is the target. Pins the directory's fd in
 * op->dirfd (released by op_done). A fixed child of a virtual directory
 * is not a name the program may create, remove or rename: -EBUSY.
 */
static int op_child(struct op *op, struct node *d, const char *name)
{
	int rc;

	op->node = d;
	op->name = name;
	if (op_bad_name(name))
		return -EINVAL;
	if (op->reserve_rc < 0)
		return op_reserve_failed(op);
	if (d->type == NODE_VDIR) {
		op->zone = vdir_shows_underlay(d, op->trust) ? d->zone : NULL;
		rc = op_paths(op);
		if (rc == 0)
			rc = policy_check_vdir_name(
			    op->g->policy, op->trust, vdir_child(d, name),
			    op->zone, d == op->g->root ? "/" : op->vpath,
			    &op->why);
		if (rc == 0)
			op->dirfd = d->fd;
		return rc;
	}
	op->zone = d->zone;
	rc = op_paths(op);
	if (rc == 0 && !policy_zone_visible(op->zone, op->trust))
		rc = -ENOENT;
	if (rc == 0) {
		rc = node_fd(op->g, d);
		if (rc >= 0) {
			op->dirfd = rc;
			rc = 0;
		}
	}
	return rc;
}

static void op_done(struct op *op)
{
	if (op->dirfd >= 0 && op->node->type == NODE_PASS)
		node_fd_put(op->g, op->node);
	op->dirfd = -1;
}

/* ---- attributes and entries ---- */

static int vdir_stat(struct gfs *g, struct node *n, enum policy_trust t,
		     struct stat *st)
{
	/* a real directory beneath (only_children or not): its attributes */
	if (n->fd >= 0 && n->zone && policy_zone_visible(n->zone, t)) {
		if (fstatat(n->fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			return -errno;
		if (n->only_children)
			st->st_mode = S_IFDIR | 0555;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_mode = S_IFDIR | 0555;
	if (n->zone && n->zone->kind == ZONE_STAGED)
		st->st_mode = S_IFDIR | 0755; /* mkdir starts a commit */
	st->st_nlink = 2;
	st->st_uid = g->uid;
	st->st_gid = g->gid;
	st->st_atime = st->st_mtime = st->st_ctime = g->started;
	st->st_blksize = 4096;
	return 0;
}

static int node_stat(struct gfs *g, struct node *n, struct stat *st)
{
	int fd, rc = 0;

	fd = node_fd(g, n);
	if (fd < 0)
		return fd;
	if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	node_fd_put(g, n);
	return rc;
}

/*
 * Look @name up in @d and fill @e, taking a lookup reference for real
 * nodes. -ENOENT for anything the program may not see at level @t.
 */
static int do_lookup(struct gfs *g, struct node *d, const char *name,
		     enum policy_trust t, struct fuse_entry_param *e)
{
	const struct policy_zone *z = d->zone;
	struct node *c, *n;
	struct stat st;
	int dfd, rc;

	memset(e, 0, sizeof(*e));
	if (d->type == NODE_VDIR) {
		c = vdir_child(d, name);
		if (c) {
			if (!vdir_visible(c, t))
				return -ENOENT;
			rc = vdir_stat(g, c, t, &e->attr);
			e->ino = node_ino(g, c);
			/* a live trust change invalidates these explicitly */
			e->attr_timeout = e->entry_timeout = g->timeout_rw;
			return rc;
		}
		if (!vdir_shows_underlay(d, t))
			return -ENOENT;
	} else if (!policy_zone_visible(z, t)) {
		return -ENOENT;
	}
	if (op_bad_name(name))
		return -ENOENT;
	dfd = node_fd(g, d);
	if (dfd < 0)
		return dfd;
	/*
	 * A stat by name, no descriptor: the node is known by device and
	 * inode number, and node_fd() opens it by parent and name when it
	 * is used, checking that the name still leads to this object. Most
	 * lookups are the kernel revalidating a known name (git status,
	 * make), for which this is one system call instead of three.
	 */
	rc = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (d->type == NODE_PASS)
		node_fd_put(g, d);
	if (rc == 0 && is_hidden(g, &st))
		rc = -ENOENT;
	if (rc < 0)
		return rc;
	rc = node_find_or_add(g, d, name, z, NODE_PASS, &st, &n);
	if (rc < 0)
		return rc;
	e->ino = node_ino(g, n);
	e->attr = st;
	e->attr_timeout = e->entry_timeout = timeout_of(g, z);
	return 0;
}

/* A fixed child, or a name in the underlay; never a negative entry. */
static void vdir_lookup(fuse_req_t req, struct node *d, const char *name)
{
	struct gfs *g = gfs_of(req);
	struct fuse_entry_param e;
	int rc;

	rc = do_lookup(g, d, name, gfs_trust(g), &e);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_entry(req, &e);
}

static void pass_lookup(fuse_req_t req, struct node *d, const char *name)
{
	struct gfs *g = gfs_of(req);
	struct fuse_entry_param e;
	int rc;

	rc = do_lookup(g, d, name, gfs_trust(g), &e);
	if (rc == -ENOENT) {
		/* a cached negative entry saves make and git many lookups */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = timeout_of(g, d->zone);
		fuse_reply_entry(req, &e);
	} else if (rc < 0) {
		fuse_reply_err(req, -rc);
	} else {
		fuse_reply_entry(req, &e);
	}
}

/* (Directories are never asked about by handle: no @fi here.) */
static void vdir_getattr(fuse_req_t req, struct node *n,
			 struct fuse_file_info *fi)
{
	struct gfs *g = gfs_of(req);
	struct stat st;
	int rc;

	(void)fi;
	rc = vdir_stat(g, n, gfs_trust(g), &st);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, timeout_of(g, n->zone));
}

static void pass_getattr(fuse_req_t req, struct node *n,
			 struct fuse_file_info *fi)
{
	struct gfs *g = gfs_of(req);
	struct fh *fh = fi ? (struct fh *)(uintptr_t)fi->fh : NULL;
	struct stat st;
	int rc;

	/*
	 * No visibility check here: after a trust change the kernel's
	 * entries of hidden zones are invalidated, so no path leads to them
	 * any more; what still reaches a known node is an open handle or a
	 * working directory, whose fstat keeps working like its reads.
	 */
	if (fh)
		rc = fstat(fh->fd, &st) < 0 ? -errno : 0;
	else
		rc = node_stat(g, n, &st);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, timeout_of(g, n->zone));
}

/* Entry for a name just made in op->dirfd; takes a lookup reference. */
static int op_new_entry(struct op *op, struct fuse_entry_param *e)
{
	return do_lookup(op->g, op->node, op->name, op->trust, e);
}

/* ---- setattr ---- */

static int set_mode(int fd, bool is_link, mode_t mode)
{
	char p[64];

	if (is_link)
		return -EOPNOTSUPP;
	proc_path(p, sizeof(p), fd);
	return chmod(p, policy_allowed_mode(mode & 07777)) < 0 ? -errno : 0;
}

static int set_times(struct op *op, int fd, bool is_link,
		     const struct stat *attr, int valid)
{
	struct node *parent;
	char name[NAME_MAX + 1];
	int pfd, rc;
	struct timespec tv[2] = { { .tv_nsec = UTIME_OMIT },
				  { .tv_nsec = UTIME_OMIT } };
	char p[64];

	if (valid & FUSE_SET_ATTR_ATIME_NOW)
		tv[0].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_ATIME)
		tv[0] = attr->st_atim;
	if (valid & FUSE_SET_ATTR_MTIME_NOW)
		tv[1].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_MTIME)
		tv[1] = attr->st_mtim;
	if (is_link) {
		/* a symlink's own times: by name in its directory */
		pfd = node_parent_fd(op->g, op->node, name, sizeof(name),
				     &parent);
		if (pfd < 0)
			return pfd;
		rc = utimensat(pfd, name, tv, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
		node_fd_put(op->g, parent);
		node_put(op->g, parent);
		return rc;
	}
	proc_path(p, sizeof(p), fd);
	return utimensat(AT_FDCWD, p, tv, 0) < 0 ? -errno : 0;
}

static int do_setattr(struct op *op, int fd, struct fh *fh,
		      const struct stat *attr, int valid)
{
	bool is_link = op->node->fmt == S_IFLNK;
	char p[64];
	int rc = 0;

	if (valid & FUSE_SET_ATTR_MODE)
		rc = fh ? (fchmod(fh->fd,
				  policy_allowed_mode(attr->st_mode & 07777))
			       ? -errno
			       : 0)
			: set_mode(fd, is_link, attr->st_mode);
	if (rc == 0 && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) &&
	    fchownat(fd, "",
		     (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1,
		     (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1,
		     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	if (rc == 0 && (valid & FUSE_SET_ATTR_SIZE)) {
		if (fh) {
			rc = ftruncate(fh->fd, attr->st_size) ? -errno : 0;
		} else {
			proc_path(p, sizeof(p), fd);
			rc = truncate(p, attr->st_size) ? -errno : 0;
		}
	}
	if (rc == 0 && (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)))
		rc = set_times(op, fd, is_link, attr, valid);
	return rc;
}

static void pass_setattr(fuse_req_t req, struct node *n, struct stat *attr,
			 int valid, struct fuse_file_info *fi)
{
	struct fh *fh = fi ? (struct fh *)(uintptr_t)fi->fh : NULL;
	struct gitguard gg = { 0 };
	struct op op;
	struct stat st;
	int fd = -1, rc;

	op_init(&op, req, REC_SETATTR);
	rc = op_node(&op, n);
	if (rc == 0)
		rc = op_decide(
		    &op, POP_WRITE, op.node->fmt == S_IFDIR,
		    (valid & FUSE_SET_ATTR_SIZE) ? (uint64_t)attr->st_size : 0);
	gitguard_begin(op.g, &gg, NULL, NULL, valid & FUSE_SET_ATTR_SIZE);
	if (rc == 0 && (valid & FUSE_SET_ATTR_SIZE))
		rc = fh ? (fh_may_write(fh) ? 0 : -EBADF)
			: gitguard_write_node(op.g, op.node, op.rel, &op.why);
	if (rc == 0) {
		fd = node_fd(op.g, op.node);
		rc = fd < 0 ? fd : do_setattr(&op, fd, fh, attr, valid);
		if (rc == 0 &&
		    fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			rc = -errno;
		if (fd >= 0 && op.node->type == NODE_PASS)
			node_fd_put(op.g, op.node);
	}
	gitguard_end(op.g, &gg);
	op_record(&op, rc);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, timeout_of(op.g, op.zone));
}

/* ---- names: mknod, mkdir, symlink, link, unlink, rmdir, rename ---- */

static void reply_entry_or_err(struct op *op, int rc,
			       struct fuse_entry_param *e)
{
	op_record(op, rc);
	op_done(op);
	if (rc < 0)
		fuse_reply_err(op->req, -rc);
	else
		fuse_reply_entry(op->req, e);
}

/* Does an object of mode @cur need chmod(@out) to have the bits @want?
   A setgid bit that the backing filesystem gave a directory made in a
   setgid directory stays; none is ever added. */
static bool mode_fix(mode_t cur, mode_t want, mode_t *out)
{
	*out = (want & 01777) | (S_ISDIR(cur) ? cur & S_ISGID : 0);
	return *out != (cur & 07777);
}

/*
 * A new file, directory, node or link as the kernel would make it on a
 * local filesystem. Its mode is exactly @mode: the kernel applied the
 * caller's umask already, and the daemon's own (g->umask) must not take
 * more bits away. When the daemon runs as root -- with allow_other, for
 * other users -- it belongs to the caller's uid, and to the caller's gid
 * unless its directory is setgid (then the directory's gid stays, as the
 * backing filesystem set it). A daemon that is not root cannot give files
 * away: they are its user's, as in any FUSE filesystem.
 * @fd: the new object if open, else -1: it is then found by name, no
 * symlink followed. Costs nothing in the usual case (a root caller whose
 * umask covers the daemon's).
 */
static int own_new(struct op *op, int dirfd, const char *name, int fd,
		   mode_t mode)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(op->req);
	bool give = op->g->as_root && (ctx->uid != 0 || ctx->gid != 0);
	int pfd = -1, rc = 0;
	struct stat st, dir;
	bool fix = false;
	mode_t to = 0;
	char p[64];

	if (!give && !(mode & 0777 & op->g->umask))
		return 0;
	if (fd < 0) {
		fd = pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0)
			return -errno;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (!S_ISLNK(st.st_mode))
		fix = mode_fix(st.st_mode, mode, &to);
	if (give && fstat(dirfd, &dir) < 0)
		rc = -errno;
	if (rc == 0 && give &&
	    fchownat(fd, "", ctx->uid,
		     (dir.st_mode & S_ISGID) ? (gid_t)-1 : ctx->gid,
		     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	/* after the chown, which may have cleared a directory's bits */
	if (rc == 0 && fix) {
		proc_path(p, sizeof(p), fd);
		if (chmod(p, to) < 0)
			rc = -errno;
	}
out:
	if (pfd >= 0)
		close(pfd);
	return rc;
}

static void pass_mknod(fuse_req_t req, struct node *parent, const char *name,
		       mode_t mode, dev_t rdev)
{
	struct fuse_entry_param e;
	struct gitguard gg = { 0 };
	struct op op;
	int rc;

	op_init(&op, req, REC_MKNOD);
	rc = op_child(&op, parent, name);
	if (rc == 0)
		rc = policy_check_mknod(mode, &op.why);
	if (rc == 0)
		rc = op_decide(&op, POP_CREATE, false, 0);
	if (rc == 0)
		gitguard_begin(op.g, &gg, op.rel, NULL, false);
	if (rc == 0)
		rc = gitguard_new_name(op.g, op.dirfd, name, op.rel,
				       mode & S_IFMT, -1, NULL, false, &op.why);
	if (rc == 0 &&
	    mknodat(op.dirfd, name, policy_allowed_mode(mode), rdev) < 0)
		rc = -errno;
	if (rc == 0)
		rc =
		    own_new(&op, op.dirfd, name, -1, policy_allowed_mode(mode));
	gitguard_end(op.g, &gg);
	if (rc == 0)
		rc = op_new_entry(&op, &e);
	reply_entry_or_err(&op, rc, &e);
}

static void pass_mkdir(fuse_req_t req, struct node *parent, const char *name,
		       mode_t mode)
{
	struct fuse_entry_param e;
	struct gitguard gg = { 0 };
	struct op op;
	int rc;

	struct policy_req r = { .op = POP_CREATE,
				.is_dir = true,
				.empty_dir = true };

	op_init(&op, req, REC_MKDIR);
	rc = op_child(&op, parent, name);
	if (rc == 0)
		rc = op_decide_req(&op, &r);
	if (rc == 0)
		gitguard_begin(op.g, &gg, op.rel, NULL, false);
	if (rc == 0)
		rc = gitguard_new_name(op.g, op.dirfd, name, op.rel, S_IFDIR,
				       -1, NULL, false, &op.why);
	if (rc == 0 && mkdirat(op.dirfd, name, policy_allowed_mode(mode)) < 0)
		rc = -errno;
	if (rc == 0)
		rc =
		    own_new(&op, op.dirfd, name, -1, policy_allowed_mode(mode));
	gitguard_end(op.g, &gg);
	if (rc == 0)
		rc = op_new_entry(&op, &e);
	if (rc == 0 && strcmp(name, ".git") == 0)
		node_own_git_add(op.g, &e.attr);
	reply_entry_or_err(&op, rc, &e);
}

static void pass_symlink(fuse_req_t req, const char *link, struct node *parent,
			 const char *name)
{
	struct fuse_entry_param e;
	struct gitguard gg = { 0 };
	struct op op;
	int rc;

	op_init(&op, req, REC_SYMLINK);
	rc = op_child(&op, parent, name);
	if (rc == 0)
		rc = op_decide(&op, POP_CREATE, false, 0);
	if (rc == 0)
		gitguard_begin(op.g, &gg, op.rel, NULL, false);
	if (rc == 0)
		rc = gitguard_new_name(op.g, op.dirfd, name, op.rel, S_IFLNK,
				       -1, NULL, false, &op.why);
	if (rc == 0) {
		links_lock_new(op.g);
		rc = links_check_new(&op, link);
		if (rc == 0 && symlinkat(link, op.dirfd, name) < 0)
			rc = -errno;
		if (rc == 0)
			rc = own_new(&op, op.dirfd, name, -1, 0777);
		links_unlock(op.g);
	}
	gitguard_end(op.g, &gg);
	if (rc == 0)
		rc = op_new_entry(&op, &e);
	reply_entry_or_err(&op, rc, &e);
}

/*
 * A second name must not open a way to write a protected file or one in
 * the user's git directory: the source is judged as if written there.
 * (In the program's own repository git links each new object into place;
 * what could run there is gitguard's to refuse.)
 */
static int link_source_ok(struct op *op, struct node *src, const char *srcrel)
{
	struct policy_req r = { .op = POP_WRITE,
				.zone = op->zone,
				.trust = op->trust,
				.path = srcrel };

	if (policy_git_place(op->zone, srcrel) != GIT_OUTSIDE)
		r.own_repo = node_in_own_git(op->g, src);
	return policy_check_link_source(op->g->policy, &r, &op->why);
}

/*
 * linkat() of the object behind O_PATH @fd (@p names it in /proc). A
 * second name of a symlink places that link at another depth: it is
 * judged as a new symlink there.
 */
static int link_at(struct op *op, int fd, const char *p, const char *newname,
		   bool is_link)
{
	char target[PATH_MAX];
	ssize_t n;
	int rc = 0;

	links_lock_new(op->g);
	if (is_link) {
		n = readlinkat(fd, "", target, sizeof(target));
		if (n < 0)
			rc = -errno;
		else if ((size_t)n >= sizeof(target))
			rc = -ENAMETOOLONG;
		else
			target[n] = '\0';
		if (rc == 0)
			rc = links_check_new(op, target);
	}
	if (rc == 0 &&
	    linkat(AT_FDCWD, p, op->dirfd, newname, AT_SYMLINK_FOLLOW))
		rc = -errno;
	links_unlock(op->g);
	return rc;
}

static void pass_link(fuse_req_t req, struct node *src, struct node *newparent,
		      const char *newname)
{
	struct gfs *g = gfs_of(req);
	struct fuse_entry_param e;
	char p[64], srcpath[PATH_MAX];
	const char *srcrel = "";
	struct policy_end from = { 0 }, to = { 0 };
	struct gitguard gg = { 0 };
	struct op op;
	int fd = -1, rc;

	op_init(&op, req, REC_LINK);
	rc = op_child(&op, newparent, newname);
	from.zone = src->type == NODE_PASS ? src->zone : NULL;
	if (rc == 0)
		rc = policy_check_zones(PAIR_LINK, &from, op_end_of(&op, &to),
					&op.why);
	if (rc == 0)
		rc =
		    node_vpath(g, src, NULL, srcpath, sizeof(srcpath), &srcrel);
	from.rel = srcrel;
	from.vpath = srcpath;
	if (rc == 0)
		rc = policy_check_areas(PAIR_LINK, &from, &to, &op.why);
	if (rc == 0)
		rc = op_decide(&op, POP_CREATE, false, 0);
	if (rc == 0)
		rc = link_source_ok(&op, src, srcrel);
	/* a link is a writer of its inode: no second name for a config */
	if (rc == 0)
		gitguard_begin(g, &gg, op.rel, NULL, true);
	if (rc == 0)
		rc = gitguard_write_node(g, src, srcrel, &op.why);
	if (rc == 0)
		rc = gitguard_new_name(g, op.dirfd, newname, op.rel, src->fmt,
				       -1, NULL, false, &op.why);
	if (rc == 0) {
		fd = node_fd(g, src);
		rc = fd < 0 ? fd : 0;
	}
	if (rc == 0) {
		proc_path(p, sizeof(p), fd);
		rc = link_at(&op, fd, p, newname, S_ISLNK(src->fmt));
		node_fd_put(g, src);
	}
	gitguard_end(g, &gg);
	if (rc == 0)
		rc = op_new_entry(&op, &e);
	reply_entry_or_err(&op, rc, &e);
}

static void pass_remove(fuse_req_t req, struct node *parent, const char *name,
			bool dir)
{
	struct stat st;
	struct op op;
	bool gone;
	int rc;

	op_init(&op, req, dir ? REC_RMDIR : REC_UNLINK);
	rc = op_child(&op, parent, name);
	if (rc == 0)
		rc = op_decide(&op, POP_DELETE, dir, 0);
	gone = rc == 0 && dir && strcmp(name, ".git") == 0 &&
	       fstatat(op.dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (rc == 0 && unlinkat(op.dirfd, name, dir ? AT_REMOVEDIR : 0) < 0)
		rc = -errno;
	if (rc == 0 && gone)
		node_own_git_del(op.g, &st);
	op_record(&op, rc);
	op_done(&op);
	fuse_reply_err(req, -rc);
}

/* The node now at @name in @d, if we know it, learns its new place. */
static void follow_name(struct op *op, struct node *d, const char *name)
{
	struct fuse_entry_param e;
	struct gfs *g = op->g;
	struct node *n;

	if (do_lookup(g, d, name, op->trust, &e) == 0 &&
	    e.ino != FUSE_ROOT_ID) {
		n = node_of(g, e.ino);
		if (n->type == NODE_PASS)
			node_forget(g, n, 1);
	}
}

/*
 * After a rename, the moved node must be found under its new name at once,
 * and after an exchange both: the kernel keeps its entries, and every path
 * decision (zone, protect globs, audit rows) and every re-open by parent
 * and name goes by the node's parent and name. The symlink rule does not
 * depend on it (links.c measures depth on the real tree, and holds
 * shape_lock across the rename and this update).
 * NEEDSWORK: another request on a node inside the moved directory that
 * runs between renameat2() and this update is decided on the old path.
 */
static void rename_follow(struct op *from, struct op *to, unsigned int flags)
{
	follow_name(to, to->node, to->name);
	if (flags & RENAME_EXCHANGE)
		follow_name(from, from->node, from->name);
}

/* What arrives at each name of a rename must plant nothing for git. */
static int gitguard_rename(struct op *from, struct op *to, unsigned flags)
{
	bool xchg = flags & RENAME_EXCHANGE;
	int rc;

	rc = gitguard_new_name(to->g, to->dirfd, to->name, to->rel, 0,
			       from->dirfd, from->name, xchg, &from->why);
	if (rc == 0 && xchg)
		rc = gitguard_new_name(from->g, from->dirfd, from->name,
				       from->rel, 0, to->dirfd, to->name, xchg,
				       &from->why);
	return rc;
}

/* One object a rename moves: where it leaves, where it arrives. */
struct move {
	struct op *from, *to;
	const struct stat *obj;
	struct policy_req leave, arrive;
};

static void move_init(struct move *m, struct op *from, struct op *to,
		      const struct stat *obj)
{
	struct policy_req r = { .zone = from->zone,
				.trust = from->trust,
				.is_dir = S_ISDIR(obj->st_mode) };

	m->from = from;
	m->to = to;
	m->obj = obj;
	m->leave = r;
	m->leave.op = POP_DELETE;
	m->leave.path = from->rel;
	m->leave.own_repo = op_own_repo(from, obj);
	m->arrive = r;
	m->arrive.op = POP_CREATE;
	m->arrive.path = to->rel;
	m->arrive.own_repo = op_own_repo(to, obj);
}

static int move_beneath_one(void *arg, const char *sub, bool git_own)
{
	struct move *m = arg;
	struct gfs_err *why = &m->from->why;
	int rc;

	rc = policy_decide_beneath(m->from->g->policy, &m->leave, sub, git_own,
				   why);
	if (rc == 0)
		rc = policy_decide_beneath(m->from->g->policy, &m->arrive, sub,
					   git_own, why);
	return rc;
}

/*
 * The object arrives where the rules of that place hold for it (a .git
 * only if it is the program's own), and so does everything beneath it:
 * each entry is judged where it leaves and where it arrives.
 */
static int move_check(struct move *m)
{
	struct gfs *g = m->from->g;
	int rc;

	rc = policy_check_protect(g->policy, &m->arrive, &m->from->why);
	if (rc < 0 || !S_ISDIR(m->obj->st_mode))
		return rc;
	rc =
	    subtree_walk(g, m->from->dirfd, m->from->name, move_beneath_one, m);
	if (rc == -EXDEV && !m->from->why.code)
		policy_move_too_large(m->from->vpath, &m->from->why);
	return rc;
}

/* Decide a rename (or exchange) of from's name to to's name. */
static int rename_decide(struct op *from, struct op *to, unsigned int flags,
			 const struct stat *sst, const struct stat *dst)
{
	bool exchange = flags & RENAME_EXCHANGE;
	struct policy_req r = { .op = POP_CREATE,
				.is_dir = S_ISDIR(sst->st_mode) };
	struct move m;
	int rc;

	rc = op_decide(from, exchange ? POP_REPLACE : POP_DELETE,
		       S_ISDIR(sst->st_mode), 0);
	if (rc < 0)
		return rc;
	if (dst) {
		rc = op_decide(to, POP_REPLACE, S_ISDIR(dst->st_mode), 0);
	} else {
		/* a .git arriving here is whatever the moved object is */
		r.own_repo = op_own_repo(to, sst);
		rc = op_decide_as(to, &r);
	}
	if (rc < 0) {
		from->why = to->why;
		return rc;
	}
	move_init(&m, from, to, sst);
	rc = move_check(&m);
	if (rc == 0 && exchange) {
		move_init(&m, to, from, dst);
		rc = move_check(&m);
		if (rc < 0)
			from->why = to->why;
	}
	return rc;
}

static void pass_rename(fuse_req_t req, struct node *parent, const char *name,
			struct node *newparent, const char *newname,
			unsigned int flags)
{
	struct stat sst, dst;
	struct op from, to;
	struct policy_end a, b;
	struct gitguard gg = { 0 };
	bool has_dst = false;
	int rc;

	op_init(&from, req, REC_RENAME);
	op_init_second(&to, &from); /* one request, one slot, one row */
	rc = op_child(&from, parent, name);
	if (rc == 0)
		rc = op_child(&to, newparent, newname);
	if (rc == 0)
		rc = policy_check_rename_flags(flags, &from.why);
	if (rc == 0)
		rc = policy_check_zones(PAIR_RENAME, op_end_of(&from, &a),
					op_end_of(&to, &b), &from.why);
	if (rc == 0 && fstatat(from.dirfd, name, &sst, AT_SYMLINK_NOFOLLOW))
		rc = -ENOENT;
	has_dst = rc == 0 &&
		  fstatat(to.dirfd, newname, &dst, AT_SYMLINK_NOFOLLOW) == 0;
	if (rc == 0 && (flags & RENAME_EXCHANGE) && !has_dst)
		rc = -ENOENT;
	if (rc == 0)
		rc = rename_decide(&from, &to, flags, &sst,
				   has_dst ? &dst : NULL);
	/* into or out of another zone's directory inside this one */
	if (rc == 0)
		rc = policy_check_areas(PAIR_RENAME, op_end_of(&from, &a),
					op_end_of(&to, &b), &from.why);
	if (rc == 0)
		gitguard_begin(from.g, &gg, from.rel, to.rel, false);
	if (rc == 0)
		rc = gitguard_rename(&from, &to, flags);
	if (rc == 0) {
		links_lock_move(from.g);
		rc = links_check_move(&from, &to, name, newname, flags);
		if (rc == 0 &&
		    renameat2(from.dirfd, name, to.dirfd, newname, flags) < 0)
			rc = -errno;
		if (rc == 0)
			rename_follow(&from, &to, flags);
		links_unlock(from.g);
	}
	gitguard_end(from.g, &gg);
	if (rc == 0 && has_dst && !(flags & RENAME_EXCHANGE) &&
	    S_ISDIR(dst.st_mode))
		node_own_git_del(from.g, &dst); /* replaced: gone */
	op_record(&from, rc);
	op_done(&to);
	op_done(&from);
	fuse_reply_err(req, -rc);
}

static void pass_readlink(fuse_req_t req, struct node *node)
{
	char buf[PATH_MAX + 1];
	struct op op;
	ssize_t n = 0;
	int fd, rc;

	op_init(&op, req, REC_READLINK);
	rc = op_node(&op, node);
	if (rc == 0)
		rc = op_decide(&op, POP_READ, false, 0);
	if (rc == 0) {
		fd = node_fd(op.g, op.node);
		rc = fd < 0 ? fd : 0;
		if (rc == 0) {
			n = readlinkat(fd, "", buf, sizeof(buf) - 1);
			rc = n < 0 ? -errno : 0;
			node_fd_put(op.g, op.node);
		}
	}
	if (rc < 0) {
		op_record(&op, rc);
		fuse_reply_err(req, -rc);
		return;
	}
	buf[n] = '\0';
	op_discard(&op); /* reads of links are not events; denials are */
	fuse_reply_readlink(req, buf);
}

/* ---- files ---- */

static bool wants_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

/* Decide an open: read needs r, write (or O_TRUNC) needs w. */
static int decide_open(struct op *op, int flags, bool exists)
{
	int rc = 0;

	if ((flags & O_ACCMODE) != O_WRONLY)
		rc = op_decide(op, POP_READ, false, 0);
	if (rc == 0 && wants_write(flags))
		rc = op_decide(op, exists ? POP_WRITE : POP_CREATE, false, 0);
	return rc;
}

static void set_open_flags(struct fuse_file_info *fi)
{
	/*
	 * Keep the page cache across opens: writes through the mount go
	 * through it, and a change made beside the mount (a new mtime or
	 * size, seen once the attributes time out) still drops it
	 * (FUSE_CAP_AUTO_INVAL_DATA, gfs_init()).
	 */
	fi->keep_cache = 1;
	/*
	 * No FLUSH on close: it was a round trip per close(2) that only
	 * closed a dup of the host fd. We take no POSIX locks on the host
	 * (the kernel keeps them), and the host fd is closed at release.
	 * Staged files keep their FLUSH: it commits the bytes.
	 */
	fi->noflush = 1;
}

static void pass_open(fuse_req_t req, struct node *n, struct fuse_file_info *fi)
{
	struct gitguard gg = { 0 };
	struct fh *fh = NULL;
	struct op op;
	char p[64];
	int fd = -1, pfd, rc;

	op_init(&op, req, REC_OPEN);
	rc = op_node(&op, n);
	if (rc == 0 && op.node->type != NODE_PASS)
		rc = -EISDIR;
	if (rc == 0)
		rc = decide_open(&op, fi->flags, true);
	gitguard_begin(op.g, &gg, NULL, NULL, wants_write(fi->flags));
	if (rc == 0 && wants_write(fi->flags))
		rc = gitguard_write_node(op.g, op.node, op.rel, &op.why);
	if (rc == 0) {
		pfd = node_fd(op.g, op.node);
		rc = pfd < 0 ? pfd : 0;
		if (rc == 0) {
			proc_path(p, sizeof(p), pfd);
			/* the kernel already applied O_NOFOLLOW; here it
			   would refuse the /proc magic link itself */
			fd = open(p, (fi->flags & ~(O_CREAT | O_EXCL |
						    O_NOCTTY | O_NOFOLLOW)) |
					 O_CLOEXEC);
			rc = fd < 0 ? -errno : 0;
			node_fd_put(op.g, op.node);
		}
	}
	if (rc == 0)
		rc = fh_new(&op, fd, wants_write(fi->flags), &fh);
	gitguard_end(op.g, &gg);
	op_record(&op, rc);
	if (fh)
		fh->ticket = op.ticket;
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, -rc);
		return;
	}
	fi->fh = (uintptr_t)fh;
	set_open_flags(fi);
	if (fuse_reply_open(req, fi) == -ENOENT)
		fh_free(op.g, fh); /* the opener was interrupted */
}

static void pass_create(fuse_req_t req, struct node *parent, const char *name,
			mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	struct gitguard gg = { 0 };
	struct fh *fh = NULL;
	bool made = false;
	struct op op;
	int fd = -1, rc, flags;

	op_init(&op, req, REC_CREATE);
	rc = op_child(&op, parent, name);
	if (rc == 0)
		rc = op_decide(&op, POP_CREATE, false, 0);
	if (rc == 0)
		gitguard_begin(op.g, &gg, op.rel, NULL, true);
	if (rc == 0)
		rc = gitguard_new_name(op.g, op.dirfd, name, op.rel, S_IFREG,
				       -1, NULL, false, &op.why);
	if (rc == 0) {
		flags =
		    (fi->flags & ~O_NOCTTY) | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
		/* a zone that may only create must never open what exists */
		if (policy_create_only(op.zone, op.trust))
			flags |= O_EXCL;
		/* made here, or (raced) opened as it is: only what we made
		   is given the caller's mode and owner */
		fd = openat(op.dirfd, name, flags | O_EXCL,
			    policy_allowed_mode(mode));
		made = fd >= 0;
		if (fd < 0 && errno == EEXIST && !(flags & O_EXCL))
			fd = openat(op.dirfd, name, flags & ~O_CREAT);
		rc = fd < 0 ? -errno : 0;
	}
	if (rc == 0 && made)
		rc =
		    own_new(&op, op.dirfd, name, fd, policy_allowed_mode(mode));
	if (rc == 0)
		rc = op_new_entry(&op, &e);
	if (rc == 0)
		rc = fh_new(&op, fd, true, &fh);
	gitguard_end(op.g, &gg);
	op_record(&op, rc);
	if (fh)
		fh->ticket = op.ticket;
	op_done(&op);
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, -rc);
		return;
	}
	fi->fh = (uintptr_t)fh;
	set_open_flags(fi);
	fuse_reply_create(req, &e, fi);
}

/*
 * The read buffer of this thread, grown to the largest read it served
 * (at most max_read); freed by the key's destructor when the thread ends.
 */
static pthread_key_t rbuf_key;
static pthread_once_t rbuf_once = PTHREAD_ONCE_INIT;

struct rbuf {
	size_t cap;
	char data[];
};

static void rbuf_make_key(void)
{
	if (pthread_key_create(&rbuf_key, free) != 0)
		abort(); /* at the first read: nothing to recover to */
}

static char *rbuf_get(size_t size)
{
	struct rbuf *b;

	pthread_once(&rbuf_once, rbuf_make_key);
	b = pthread_getspecific(rbuf_key);
	if (b && b->cap >= size)
		return b->data;
	free(b);
	b = malloc(sizeof(*b) + size);
	pthread_setspecific(rbuf_key, b);
	if (!b)
		return NULL;
	b->cap = size;
	return b->data;
}

/* Read up to @size bytes at @off; short only at end of file. */
static ssize_t read_full(int fd, char *buf, size_t size, off_t off)
{
	size_t got = 0;
	ssize_t n;

	while (got < size) {
		n = pread(fd, buf + got, size - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return got ? (ssize_t)got : -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * Data is copied through a buffer, never spliced: libfuse drops a
 * request, unanswered, when its splice into /dev/fuse fails (seen as
 * "fuse: splice from pipe: Invalid argument" in CI), and the reader
 * then waits in the kernel for ever. A reply by fuse_reply_buf is sent
 * or fails as a whole.
 */
static void pass_read(fuse_req_t req, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	char *buf;
	ssize_t n;

	buf = rbuf_get(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = read_full(fh->fd, buf, size, off);
	if (n < 0) {
		fuse_reply_err(req, (int)-n);
		return;
	}
	__atomic_fetch_add(&fh->rbytes, (uint64_t)n, __ATOMIC_RELAXED);
	fuse_reply_buf(req, buf, (size_t)n);
}

/* Size limit at write time: the file may not grow past max_file_bytes. */
static int check_size(fuse_req_t req, struct fh *fh, uint64_t end)
{
	struct gfs_err why; /* written only on a refusal */
	struct op op;
	int rc;

	rc = policy_check_size(fh->zone, end, &why);
	if (rc == 0)
		return 0;
	op_init(&op, req, REC_WRITE);
	op.zone = fh->zone;
	op.why = why;
	snprintf(op.vpath, sizeof(op.vpath), "%s", fh->vpath);
	op_record(&op, rc);
	return rc;
}

static void pass_write_buf(fuse_req_t req, struct fuse_bufvec *in, off_t off,
			   struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(in));
	ssize_t n;
	int rc;

	rc = check_size(req, fh, (uint64_t)off + fuse_buf_size(in));
	if (rc < 0) {
		fuse_reply_err(req, -rc);
		return;
	}
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = fh->fd;
	out.buf[0].pos = off;
	pthread_rwlock_rdlock(&gfs_of(req)->git_lock);
	n = fh_may_write(fh) ? fuse_buf_copy(&out, in, 0) : -EBADF;
	pthread_rwlock_unlock(&gfs_of(req)->git_lock);
	if (n > 0)
		__atomic_fetch_add(&fh->wbytes, (uint64_t)n, __ATOMIC_RELAXED);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

static void pass_flush(fuse_req_t req, struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	int fd;

	fd = dup(fh->fd);
	/* only staged files ask for FLUSH (set_open_flags()); a kernel
	   that ignores FOPEN_NOFLUSH still gets close(2) semantics */
	fuse_reply_err(req, fd < 0 ? errno : (close(fd) < 0 ? errno : 0));
}

/*
 * The bytes moved through @fh, reported as it closes: on its open (create)
 * row while that is still queued - most files close within the batch, and
 * a read of many small files is then one row per file, not two - else in
 * a release row.
 */
static void fh_report(struct gfs *g, const struct fh *fh)
{
	struct rec r = {
		.op = REC_RELEASE,
		.zone = fh->zone->name,
		.vpath = fh->vpath,
		.bytes = fh->wbytes,
		.rbytes = fh->rbytes,
		.trust = gfs_trust(g),
		.pid = fh->pid,
		.uid = fh->uid,
		.comm = fh->comm,
	};

	if (!audit_add_bytes(g->audit, fh->ticket, fh->rbytes, fh->wbytes))
		record(g->audit, &r);
}

static void pass_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	struct gfs *g = gfs_of(req);

	fh_report(g, fh);
	fh_free(g, fh);
	fuse_reply_err(req, 0);
}

static void pass_fsync(fuse_req_t req, int datasync, struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	bool w;
	int rc;

	w = gfs_wait_begin(gfs_of(req)); /* may take long: others go on */
	rc = datasync ? fdatasync(fh->fd) : fsync(fh->fd);
	rc = rc < 0 ? errno : 0;
	gfs_wait_end(gfs_of(req), w);
	fuse_reply_err(req, rc);
}

static void pass_fallocate(fuse_req_t req, int mode, off_t off, off_t len,
			   struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	struct stat st = { 0 };
	int rc = 0;

	pthread_rwlock_rdlock(&gfs_of(req)->git_lock);
	if (!fh_may_write(fh))
		rc = -EBADF;
	if (rc == 0 && (mode & FALLOC_FL_INSERT_RANGE) && fstat(fh->fd, &st))
		rc = -errno;
	if (rc == 0)
		rc = check_size(req, fh,
				policy_falloc_end(mode, (uint64_t)off,
						  (uint64_t)len,
						  (uint64_t)st.st_size));
	if (rc == 0 && fallocate(fh->fd, mode, off, len) < 0)
		rc = -errno;
	pthread_rwlock_unlock(&gfs_of(req)->git_lock);
	fuse_reply_err(req, -rc);
}

static void pass_copy_file_range(fuse_req_t req, off_t off_in,
				 struct fuse_file_info *fi_in, off_t off_out,
				 struct fuse_file_info *fi_out, size_t len,
				 int flags)
{
	struct fh *in = (struct fh *)(uintptr_t)fi_in->fh;
	struct fh *out = (struct fh *)(uintptr_t)fi_out->fh;
	ssize_t n;
	int rc;

	/* both ends were decided at open: read there, write here */
	pthread_rwlock_rdlock(&gfs_of(req)->git_lock);
	rc = fh_may_write(out) ? check_size(req, out, (uint64_t)off_out + len)
			       : -EBADF;
	if (rc < 0) {
		pthread_rwlock_unlock(&gfs_of(req)->git_lock);
		fuse_reply_err(req, -rc);
		return;
	}
	n = copy_file_range(in->fd, &off_in, out->fd, &off_out, len,
			    (unsigned)flags);
	pthread_rwlock_unlock(&gfs_of(req)->git_lock);
	if (n > 0) {
		__atomic_fetch_add(&in->rbytes, (uint64_t)n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&out->wbytes, (uint64_t)n, __ATOMIC_RELAXED);
	}
	if (n < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_write(req, (size_t)n);
}

static void pass_lseek(fuse_req_t req, off_t off, int whence,
		       struct fuse_file_info *fi)
{
	struct fh *fh = (struct fh *)(uintptr_t)fi->fh;
	off_t res;

	res = lseek(fh->fd, off, whence);
	if (res < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_lseek(req, res);
}

/* ---- directories ---- */

static int snap_add(struct dh *dh, const char *name, unsigned char type)
{
	struct dh_entry *e = realloc(dh->snap, (dh->nsnap + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	dh->snap = e;
	e[dh->nsnap].name = strdup(name);
	if (!e[dh->nsnap].name)
		return -ENOMEM;
	e[dh->nsnap++].type = type;
	return 0;
}

/* A virtual directory's listing: visible children, then the underlay. */
static int vdir_snapshot(struct gfs *g, struct node *n, enum policy_trust t,
			 struct dh *dh)
{
	struct dirent *de;
	struct stat st;
	DIR *dp = NULL;
	size_t i;
	int fd, rc;

	rc = snap_add(dh, ".", DT_DIR);
	if (rc == 0)
		rc = snap_add(dh, "..", DT_DIR);
	for (i = 0; rc == 0 && i < n->nchildren; i++)
		if (vdir_visible(n->children[i].node, t))
			rc = snap_add(dh, n->children[i].name, DT_DIR);
	if (rc < 0 || !vdir_shows_underlay(n, t))
		return rc;
	fd = openat(n->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dp = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while (rc == 0 && (de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    vdir_child(n, de->d_name))
			continue;
		if (de->d_ino == g->hide_ino &&
		    fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			0 &&
		    is_hidden(g, &st))
			continue;
		rc = snap_add(dh, de->d_name, de->d_type);
	}
	closedir(dp);
	return rc;
}

static void dh_free(struct gfs *g, struct dh *dh)
{
	size_t i;

	if (!dh)
		return;
	gfs_handle_untrack(g, &dh->link);
	if (dh->dp)
		closedir(dh->dp);
	for (i = 0; i < dh->nsnap; i++)
		free(dh->snap[i].name);
	free(dh->snap);
	free(dh);
}

static void dh_drop(struct gfs *g, struct fh_list *h)
{
	dh_free(g, (struct dh *)h);
}

static void pass_opendir(fuse_req_t req, struct node *n,
			 struct fuse_file_info *fi)
{
	struct dh *dh = NULL;
	struct op op;
	int fd = -1, pfd, rc;

	op_init(&op, req, REC_READDIR);
	rc = op_node(&op, n);
	dh = rc == 0 ? calloc(1, sizeof(*dh)) : NULL;
	if (rc == 0 && !dh)
		rc = -ENOMEM;
	if (rc == 0 && (op.node->type == NODE_PASS ||
			vdir_shows_underlay(op.node, op.trust)))
		rc = op_decide(&op, POP_LIST, true, 0);
	if (rc == 0 && op.node->type == NODE_VDIR) {
		rc = vdir_snapshot(op.g, op.node, op.trust, dh);
	} else if (rc == 0) {
		pfd = node_fd(op.g, op.node);
		rc = pfd < 0 ? pfd : 0;
		if (rc == 0) {
			fd = openat(pfd, ".",
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			rc = fd < 0 ? -errno : 0;
			node_fd_put(op.g, op.node);
		}
		if (rc == 0 && !(dh->dp = fdopendir(fd))) {
			rc = -errno;
			close(fd);
		}
	}
	op_record(&op, rc);
	if (rc < 0) {
		dh_free(op.g, dh);
		fuse_reply_err(req, -rc);
		return;
	}
	dh->node = op.node;
	fi->fh = (uintptr_t)dh;
	fi->cache_readdir = 0;
	gfs_handle_track(op.g, &dh->link, dh_drop);
	if (fuse_reply_open(req, fi) == -ENOENT)
		dh_free(op.g, dh);
}

/* The next entry of a real directory, hidden objects skipped. */
static struct dirent *dh_next(struct gfs *g, struct dh *dh)
{
	struct dirent *de;
	struct stat st;

	while ((de = readdir(dh->dp))) {
		if (de->d_ino != g->hide_ino)
			return de;
		if (fstatat(dirfd(dh->dp), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) < 0 ||
		    !is_hidden(g, &st))
			return de;
	}
	return NULL;
}

/* Add one entry to @buf; for readdirplus, look it up. 0 when full. */
static size_t add_entry(fuse_req_t req, struct dh *dh, enum policy_trust t,
			char *buf, size_t left, const char *name,
			unsigned char type, ino_t ino, off_t next, bool plus)
{
	struct gfs *g = gfs_of(req);
	struct fuse_entry_param e = { 0 };
	size_t n;

	if (!plus) {
		struct stat st = { .st_ino = ino, .st_mode = DTTOIF(type) };

		return fuse_add_direntry(req, buf, left, name, &st, next);
	}
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		e.attr.st_ino = ino;
		e.attr.st_mode = S_IFDIR;
		return fuse_add_direntry_plus(req, buf, left, name, &e, next);
	}
	if (do_lookup(g, dh->node, name, t, &e) < 0) {
		memset(&e, 0, sizeof(e)); /* vanished: list it, no lookup */
		e.attr.st_ino = ino;
		e.attr.st_mode = DTTOIF(type);
	}
	n = fuse_add_direntry_plus(req, buf, left, name, &e, next);
	if (n > left && e.ino && e.ino != FUSE_ROOT_ID &&
	    node_of(g, e.ino)->type == NODE_PASS)
		node_forget(g, node_of(g, e.ino), 1); /* did not fit */
	return n;
}

static void pass_readdir(fuse_req_t req, size_t size, off_t off,
			 struct fuse_file_info *fi, bool plus)
{
	struct gfs *g = gfs_of(req);
	struct dh *dh = (struct dh *)(uintptr_t)fi->fh;
	enum policy_trust t = gfs_trust(g); /* once for the whole listing */
	char *buf = calloc(1, size), *p = buf;
	size_t left = size, n;
	struct dirent *de;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (!dh->dp) {
		for (; (size_t)off < dh->nsnap; off++) {
			struct dh_entry *e = &dh->snap[off];

			n = add_entry(req, dh, t, p, left, e->name, e->type,
				      (ino_t)off + 1, off + 1, plus);
			if (n > left)
				break;
			p += n;
			left -= n;
		}
		goto reply;
	}
	if (off != dh->offset) {
		seekdir(dh->dp, off);
		dh->next = NULL;
		dh->offset = off;
	}
	for (;;) {
		if (!dh->next) {
			errno = 0;
			dh->next = dh_next(g, dh);
			if (!dh->next)
				break;
		}
		de = dh->next;
		n = add_entry(req, dh, t, p, left, de->d_name, de->d_type,
			      de->d_ino, telldir(dh->dp), plus);
		if (n > left)
			break;
		dh->offset = telldir(dh->dp);
		dh->next = NULL;
		p += n;
		left -= n;
	}
reply:
	fuse_reply_buf(req, buf, size - left);
	free(buf);
}

static void pass_releasedir(fuse_req_t req, struct fuse_file_info *fi)
{
	dh_free(gfs_of(req), (struct dh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void pass_fsyncdir(fuse_req_t req, int datasync,
			  struct fuse_file_info *fi)
{
	struct dh *dh = (struct dh *)(uintptr_t)fi->fh;
	bool w;
	int rc = 0;

	w = gfs_wait_begin(gfs_of(req));
	if (dh->dp)
		rc = datasync ? fdatasync(dirfd(dh->dp)) : fsync(dirfd(dh->dp));
	rc = rc < 0 ? errno : 0;
	gfs_wait_end(gfs_of(req), w);
	fuse_reply_err(req, rc);
}

/* ---- extended attributes ---- */

static void xattr_write(fuse_req_t req, struct node *n, const char *name,
			const char *value, size_t size, int flags, bool remove)
{
	struct op op;
	char p[64];
	int fd, rc;

	op_init(&op, req, REC_SETXATTR);
	rc = op_node(&op, n);
	if (rc == 0)
		rc = policy_check_xattr(name, op.vpath, &op.why);
	if (rc == 0)
		rc = op_decide(&op, POP_WRITE, op.node->fmt == S_IFDIR, 0);
	if (rc == 0 && op.node->fmt == S_IFLNK)
		rc = -EPERM;
	if (rc == 0) {
		fd = node_fd(op.g, op.node);
		rc = fd < 0 ? fd : 0;
		if (rc == 0) {
			proc_path(p, sizeof(p), fd);
			rc = (remove ? removexattr(p, name)
				     : setxattr(p, name, value, size, flags))
				 ? -errno
				 : 0;
			if (op.node->type == NODE_PASS)
				node_fd_put(op.g, op.node);
		}
	}
	op_record(&op, rc);
	fuse_reply_err(req, -rc);
}

static void pass_setxattr(fuse_req_t req, struct node *n, const char *name,
			  const char *value, size_t size, int flags)
{
	xattr_write(req, n, name, value, size, flags, false);
}

static void pass_removexattr(fuse_req_t req, struct node *n, const char *name)
{
	xattr_write(req, n, name, NULL, 0, 0, true);
}

/* getxattr, or listxattr when @name is NULL */
static void pass_getxattr(fuse_req_t req, struct node *node, const char *name,
			  size_t size)
{
	char p[64], *buf = NULL;
	struct op op;
	ssize_t n = 0;
	int fd, rc;

	op_init(&op, req, REC_GETXATTR);
	rc = op_node(&op, node);
	if (rc == 0 && !op.zone)
		rc = name ? -ENODATA : 0; /* virtual: no attributes */
	else if (rc == 0)
		rc = op_decide(&op, POP_READ, op.node->fmt == S_IFDIR, 0);
	if (rc == 0 && op.node->fmt == S_IFLNK)
		rc = name ? -ENODATA : 0;
	if (rc == 0 && size && !(buf = malloc(size)))
		rc = -ENOMEM;
	if (rc == 0 && op.node->fmt != S_IFLNK && op.zone) {
		fd = node_fd(op.g, op.node);
		rc = fd < 0 ? fd : 0;
		if (rc == 0) {
			proc_path(p, sizeof(p), fd);
			n = name ? getxattr(p, name, buf, size)
				 : listxattr(p, buf, size);
			rc = n < 0 ? -errno : 0;
			if (op.node->type == NODE_PASS)
				node_fd_put(op.g, op.node);
		}
	}
	if (rc < 0 && rc != -ENODATA)
		op_record(&op, rc);
	else
		op_discard(&op); /* attribute reads are not events */
	if (rc < 0) {
		fuse_reply_err(req, -rc);
	} else if (size) {
		fuse_reply_buf(req, buf, (size_t)n);
	} else {
		fuse_reply_xattr(req, (size_t)n);
	}
	free(buf);
}

/* ---- the tables ---- */

/* A file or directory of a zone's backing tree. */
const struct backend pass_backend = {
	.name = "passthrough",
	.lookup = pass_lookup,
	.getattr = pass_getattr,
	.setattr = pass_setattr,
	.readlink = pass_readlink,
	.mknod = pass_mknod,
	.mkdir = pass_mkdir,
	.symlink = pass_symlink,
	.link = pass_link,
	.remove = pass_remove,
	.rename = pass_rename,
	.open = pass_open,
	.create = pass_create,
	.read = pass_read,
	.write_buf = pass_write_buf,
	.flush = pass_flush,
	.release = pass_release,
	.fsync = pass_fsync,
	.fallocate = pass_fallocate,
	.copy_file_range = pass_copy_file_range,
	.lseek = pass_lseek,
	.opendir = pass_opendir,
	.readdir = pass_readdir,
	.releasedir = pass_releasedir,
	.fsyncdir = pass_fsyncdir,
	.getxattr = pass_getxattr,
	.setxattr = pass_setxattr,
	.removexattr = pass_removexattr,
};

/*
 * A virtual directory: its fixed children and attributes are its own;
 * names in its underlay, and refusals where it has none (op_child()),
 * are the passthrough's.
 */
const struct backend vdir_backend = {
	.name = "virtual",
	.lookup = vdir_lookup,
	.getattr = vdir_getattr,
	.setattr = pass_setattr,
	.readlink = pass_readlink,
	.mknod = pass_mknod,
	.mkdir = pass_mkdir,
	.symlink = pass_symlink,
	.link = pass_link,
	.remove = pass_remove,
	.rename = pass_rename,
	.open = pass_open,
	.create = pass_create,
	.read = pass_read,
	.write_buf = pass_write_buf,
	.flush = pass_flush,
	.release = pass_release,
	.fsync = pass_fsync,
	.fallocate = pass_fallocate,
	.copy_file_range = pass_copy_file_range,
	.lseek = pass_lseek,
	.opendir = pass_opendir,
	.readdir = pass_readdir,
	.releasedir = pass_releasedir,
	.fsyncdir = pass_fsyncdir,
	.getxattr = pass_getxattr,
	.setxattr = pass_setxattr,
	.removexattr = pass_removexattr,
};
