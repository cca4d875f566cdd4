/*
 * The FUSE low-level callbacks: each resolves the node (or nodes) its
 * request names and calls through the table of the node's kind
 * (backend.h); a missing entry gives the refusal backend.h documents.
 * Only what every kind shares happens here: forgetting nodes (the inode
 * table's), statfs (the host's) and the session's start (gfs_init).
 */
#include <errno.h>
#include <sys/statvfs.h>

#include "backend.h"
#include "inode.h"

static struct gfs *gfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static bool in_staged(const struct node *n)
{
	return n->type == NODE_STG || (n->type == NODE_VDIR && n->zone &&
				       n->zone->kind == ZONE_STAGED);
}

const struct backend *backend_of(const struct node *n)
{
	if (in_staged(n))
		return &stgtree_backend;
	return n->type == NODE_VDIR ? &vdir_backend : &pass_backend;
}

/* The table of the node @ino names, and the node in *@n. */
static const struct backend *kind(fuse_req_t req, fuse_ino_t ino,
				  struct node **n)
{
	*n = node_of(gfs_of(req), ino);
	return backend_of(*n);
}

/* The table of the node behind a handle: only its kind is needed. */
static const struct backend *kind_fh(fuse_req_t req, fuse_ino_t ino)
{
	return backend_of(node_of(gfs_of(req), ino));
}

/* ---- nodes and names ---- */

static void gfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *d;

	kind(req, parent, &d)->lookup(req, d, name);
}

/* Virtual directories live as long as the mount: nothing to forget. */
static void forget_one(struct gfs *g, fuse_ino_t ino, uint64_t nlookup)
{
	struct node *n = node_of(g, ino);

	if (n->type != NODE_VDIR)
		node_forget(g, n, nlookup);
}

static void gfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(gfs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void gfs_forget_multi(fuse_req_t req, size_t count,
			     struct fuse_forget_data *forgets)
{
	size_t i;

	for (i = 0; i < count; i++)
		forget_one(gfs_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void gfs_getattr(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	struct node *n;

	kind(req, ino, &n)->getattr(req, n, fi);
}

static void gfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			int valid, struct fuse_file_info *fi)
{
	struct node *n;

	kind(req, ino, &n)->setattr(req, n, attr, valid, fi);
}

static void gfs_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct node *n;
	const struct backend *b = kind(req, ino, &n);

	if (b->readlink)
		b->readlink(req, n);
	else
		fuse_reply_err(req, EINVAL); /* not a symlink */
}

static void gfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, dev_t rdev)
{
	struct node *d;
	const struct backend *b = kind(req, parent, &d);

	if (b->mknod)
		b->mknod(req, d, name, mode, rdev);
	else
		b->refuse(req, d, name, REC_MKNOD);
}

static void gfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode)
{
	struct node *d;

	kind(req, parent, &d)->mkdir(req, d, name, mode);
}

static void gfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
			const char *name)
{
	struct node *d;
	const struct backend *b = kind(req, parent, &d);

	if (b->symlink)
		b->symlink(req, link, d, name);
	else
		b->refuse(req, d, name, REC_SYMLINK);
}

/* Both kinds must link; the first that does not refuses (backend.h). */
static void gfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		     const char *newname)
{
	struct node *src, *d;
	const struct backend *sb = kind(req, ino, &src);
	const struct backend *b = kind(req, newparent, &d);

	if (!b->link)
		b->refuse(req, d, newname, REC_LINK);
	else if (!sb->link)
		sb->refuse(req, d, newname, REC_LINK);
	else
		b->link(req, src, d, newname);
}

static void gfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *d;

	kind(req, parent, &d)->remove(req, d, name, false);
}

static void gfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *d;

	kind(req, parent, &d)->remove(req, d, name, true);
}

static void gfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		       fuse_ino_t newparent, const char *newname,
		       unsigned int flags)
{
	struct node *d, *nd;
	const struct backend *b = kind(req, parent, &d);

	if (b->rename != kind(req, newparent, &nd)->rename)
		fuse_reply_err(req, EXDEV); /* between kinds */
	else
		b->rename(req, d, name, nd, newname, flags);
}

/* The host filesystem beneath the node, or the sandbox root's. */
static void gfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct gfs *g = gfs_of(req);
	struct node *n = node_of(g, ino);
	struct statvfs sv;
	int fd, rc;

	fd = n->type == NODE_PASS ? node_fd(g, n) : n->fd;
	if (fd < 0)
		rc = statvfs(g->policy->root, &sv) < 0 ? -errno : 0;
	else
		rc = fstatvfs(fd, &sv) < 0 ? -errno : 0;
	if (fd >= 0 && n->type == NODE_PASS)
		node_fd_put(g, n);
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_statfs(req, &sv);
}

/* ---- files ---- */

static void gfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n;

	kind(req, ino, &n)->open(req, n, fi);
}

static void gfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode, struct fuse_file_info *fi)
{
	struct node *d;

	kind(req, parent, &d)->create(req, d, name, mode, fi);
}

static void gfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	kind_fh(req, ino)->read(req, size, off, fi);
}

static void gfs_write_buf(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_bufvec *in, off_t off,
			  struct fuse_file_info *fi)
{
	kind_fh(req, ino)->write_buf(req, in, off, fi);
}

static void gfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	kind_fh(req, ino)->flush(req, fi);
}

static void gfs_release(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	kind_fh(req, ino)->release(req, fi);
}

static void gfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		      struct fuse_file_info *fi)
{
	kind_fh(req, ino)->fsync(req, datasync, fi);
}

static void gfs_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			  off_t len, struct fuse_file_info *fi)
{
	const struct backend *b = kind_fh(req, ino);

	if (b->fallocate)
		b->fallocate(req, mode, off, len, fi);
	else
		fuse_reply_err(req, EOPNOTSUPP);
}

static void gfs_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
				struct fuse_file_info *fi_in,
				fuse_ino_t ino_out, off_t off_out,
				struct fuse_file_info *fi_out, size_t len,
				int flags)
{
	const struct backend *b = kind_fh(req, ino_in);

	/* the kernel falls back to copying by read and write */
	if (!b->copy_file_range ||
	    b->copy_file_range != kind_fh(req, ino_out)->copy_file_range)
		fuse_reply_err(req, EXDEV);
	else
		b->copy_file_range(req, off_in, fi_in, off_out, fi_out, len,
				   flags);
}

static void gfs_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		      struct fuse_file_info *fi)
{
	const struct backend *b = kind_fh(req, ino);

	if (b->lseek)
		b->lseek(req, off, whence, fi);
	else
		fuse_reply_err(req, EOPNOTSUPP);
}

/* ---- directories ---- */

static void gfs_opendir(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	struct node *n;

	kind(req, ino, &n)->opendir(req, n, fi);
}

static void gfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	kind_fh(req, ino)->readdir(req, size, off, fi, false);
}

static void gfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			    off_t off, struct fuse_file_info *fi)
{
	kind_fh(req, ino)->readdir(req, size, off, fi, true);
}

static void gfs_releasedir(fuse_req_t req, fuse_ino_t ino,
			   struct fuse_file_info *fi)
{
	kind_fh(req, ino)->releasedir(req, fi);
}

static void gfs_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			 struct fuse_file_info *fi)
{
	kind_fh(req, ino)->fsyncdir(req, datasync, fi);
}

/* ---- extended attributes ---- */

static void gfs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			 const char *value, size_t size, int flags)
{
	struct node *n;
	const struct backend *b = kind(req, ino, &n);

	if (b->setxattr)
		b->setxattr(req, n, name, value, size, flags);
	else
		fuse_reply_err(req, EOPNOTSUPP);
}

static void gfs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct node *n;
	const struct backend *b = kind(req, ino, &n);

	if (b->removexattr)
		b->removexattr(req, n, name);
	else
		fuse_reply_err(req, EOPNOTSUPP);
}

static void gfs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			 size_t size)
{
	struct node *n;

	kind(req, ino, &n)->getxattr(req, n, name, size);
}

static void gfs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct node *n;

	kind(req, ino, &n)->getxattr(req, n, NULL, size);
}

/* ---- session ---- */

static void gfs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* replies are never spliced: see pass_read() in pass.c */
	if (conn->capable & FUSE_CAP_SPLICE_READ)
		conn->want |= FUSE_CAP_SPLICE_READ;
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO;
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	if (conn->capable & FUSE_CAP_AUTO_INVAL_DATA)
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	/* measured: no gain for create-heavy work here; and the policy
	   must see every write as it happens (max_file_bytes) */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	conn->max_background = 64;
	conn->congestion_threshold = 48;
}

const struct fuse_lowlevel_ops gfs_ops = {
	.init = gfs_init,
	.lookup = gfs_lookup,
	.forget = gfs_forget,
	.forget_multi = gfs_forget_multi,
	.getattr = gfs_getattr,
	.setattr = gfs_setattr,
	.readlink = gfs_readlink,
	.mknod = gfs_mknod,
	.mkdir = gfs_mkdir,
	.unlink = gfs_unlink,
	.rmdir = gfs_rmdir,
	.symlink = gfs_symlink,
	.rename = gfs_rename,
	.link = gfs_link,
	.open = gfs_open,
	.read = gfs_read,
	.write_buf = gfs_write_buf,
	.flush = gfs_flush,
	.release = gfs_release,
	.fsync = gfs_fsync,
	.opendir = gfs_opendir,
	.readdir = gfs_readdir,
	.readdirplus = gfs_readdirplus,
	.releasedir = gfs_releasedir,
	.fsyncdir = gfs_fsyncdir,
	.statfs = gfs_statfs,
	.setxattr = gfs_setxattr,
	.getxattr = gfs_getxattr,
	.listxattr = gfs_listxattr,
	.removexattr = gfs_removexattr,
	.create = gfs_create,
	.fallocate = gfs_fallocate,
	.copy_file_range = gfs_copy_file_range,
	.lseek = gfs_lseek,
};
