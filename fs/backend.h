/*
 * backend - the operations of one kind of node, as libfuse's
 * fuse_lowlevel_ops and the kernel's inode_operations: the FUSE callbacks
 * (backend.c) resolve the node a request names, find its kind's table
 * (backend_of()), and call through it. A new kind of node (an overlay, a
 * copy-on-write session) is a new table, not a branch in every callback.
 *
 * The kinds today:
 *   vdir_backend     virtual directories made from the policy (the root,
 *                    zone tops, mount targets; pass.c). Where one has an
 *                    underlay, names in it are the passthrough's.
 *   pass_backend     a zone's backing tree, served through O_PATH fds
 *                    with *at() calls (pass.c)
 *   stgtree_backend  a staged zone: its top and everything below (the
 *                    staged commits, served from git; stgtree.c)
 *
 * Every entry replies to the request exactly once. Entries whose node
 * arguments are the parent directory get @name, checked by the entry.
 * Those named after a file handle (read ... lseek, readdir ...) get the
 * handle their kind's open/create/opendir gave the kernel.
 *
 * A missing (NULL) entry is a refusal, the same for every kind:
 *   readlink                 EINVAL (not a symlink)
 *   mknod, symlink, link     the kind's refuse entry (recorded)
 *   fallocate, lseek,
 *   setxattr, removexattr    EOPNOTSUPP
 *   copy_file_range          EXDEV (the kernel then copies by read/write)
 * A request on two nodes goes through one table only: a rename or
 * copy_file_range between kinds whose entries differ is EXDEV; a link
 * needs an entry in the directory's kind and the source's, else the
 * first of them without one refuses (the directory's, then the
 * source's). Every other entry is required.
 */
#ifndef GFS_BACKEND_H
#define GFS_BACKEND_H

#include "fs.h"
#include "record.h"

struct backend {
	const char *name;

	/* nodes and names */
	void (*lookup)(fuse_req_t req, struct node *parent, const char *name);
	void (*getattr)(fuse_req_t req, struct node *n,
			struct fuse_file_info *fi);
	void (*setattr)(fuse_req_t req, struct node *n, struct stat *attr,
			int valid, struct fuse_file_info *fi);
	void (*readlink)(fuse_req_t req, struct node *n);
	void (*mknod)(fuse_req_t req, struct node *parent, const char *name,
		      mode_t mode, dev_t rdev);
	void (*mkdir)(fuse_req_t req, struct node *parent, const char *name,
		      mode_t mode);
	void (*symlink)(fuse_req_t req, const char *link, struct node *parent,
			const char *name);
	void (*link)(fuse_req_t req, struct node *src, struct node *parent,
		     const char *name);
	/* unlink, or rmdir when @dir */
	void (*remove)(fuse_req_t req, struct node *parent, const char *name,
		       bool dir);
	void (*rename)(fuse_req_t req, struct node *parent, const char *name,
		       struct node *newparent, const char *newname,
		       unsigned int flags);
	/* the refusal of a missing mknod, symlink or link: @parent is the
	   directory the name was asked in, @kind the request's */
	void (*refuse)(fuse_req_t req, struct node *parent, const char *name,
		       enum rec_op kind);

	/* files */
	void (*open)(fuse_req_t req, struct node *n, struct fuse_file_info *fi);
	void (*create)(fuse_req_t req, struct node *parent, const char *name,
		       mode_t mode, struct fuse_file_info *fi);
	void (*read)(fuse_req_t req, size_t size, off_t off,
		     struct fuse_file_info *fi);
	void (*write_buf)(fuse_req_t req, struct fuse_bufvec *in, off_t off,
			  struct fuse_file_info *fi);
	void (*flush)(fuse_req_t req, struct fuse_file_info *fi);
	void (*release)(fuse_req_t req, struct fuse_file_info *fi);
	void (*fsync)(fuse_req_t req, int datasync, struct fuse_file_info *fi);
	void (*fallocate)(fuse_req_t req, int mode, off_t off, off_t len,
			  struct fuse_file_info *fi);
	void (*copy_file_range)(fuse_req_t req, off_t off_in,
				struct fuse_file_info *fi_in, off_t off_out,
				struct fuse_file_info *fi_out, size_t len,
				int flags);
	void (*lseek)(fuse_req_t req, off_t off, int whence,
		      struct fuse_file_info *fi);

	/* directories; readdir lists with attributes when @plus */
	void (*opendir)(fuse_req_t req, struct node *n,
			struct fuse_file_info *fi);
	void (*readdir)(fuse_req_t req, size_t size, off_t off,
			struct fuse_file_info *fi, bool plus);
	void (*releasedir)(fuse_req_t req, struct fuse_file_info *fi);
	void (*fsyncdir)(fuse_req_t req, int datasync,
			 struct fuse_file_info *fi);

	/* extended attributes; getxattr lists them when @name is NULL */
	void (*getxattr)(fuse_req_t req, struct node *n, const char *name,
			 size_t size);
	void (*setxattr)(fuse_req_t req, struct node *n, const char *name,
			 const char *value, size_t size, int flags);
	void (*removexattr)(fuse_req_t req, struct node *n, const char *name);
};

extern const struct backend vdir_backend;
extern const struct backend pass_backend;
extern const struct backend stgtree_backend;

/* backend_of() - the table of @n's kind. */
const struct backend *backend_of(const struct node *n);

/* gfs_ops - the FUSE callbacks, which call through backend_of(). */
extern const struct fuse_lowlevel_ops gfs_ops;

#endif
