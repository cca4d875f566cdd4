/*
 * staged - the FUSE backend of staged zones.
 *
 * /ZONE lists the pending staged commits; mkdir /ZONE/ID starts one (on
 * the trusted branch's head, or empty at trust level untrusted); inside,
 * the commit's tree is served from git objects through staging/, and
 * edited with ordinary tools. A file COMMIT_EDITMSG at the top of a staged
 * commit is its message. Files open for writing live in an anonymous
 * temporary file (O_TMPFILE under the sandbox root) and become a blob and
 * an index entry at close (flush), written atomically by libgit2, so a
 * killed daemon loses no closed file. rmdir /ZONE/ID discards it.
 *
 * Nodes of a staged zone are NODE_STG nodes in the common table: parent
 * and name like passthrough nodes, identified by a hash of their path.
 * One mutex per staged zone serialises its libgit2 use.
 */
#ifndef GFS_STAGED_H
#define GFS_STAGED_H

#include "fs.h"
#include "staging/stage.h"

int staged_init(struct gfs *g, struct gfs_err *err);
void staged_release(struct gfs *g);

/* For `golemfs status`: staged zone @i's path and its commits. */
const char *staged_zone_vpath(struct gfs *g, size_t i);
int staged_pending(struct gfs *g, size_t i,
		   int (*fn)(const char *id, enum stage_status st, void *ctx),
		   void *ctx, struct gfs_err *err);

/* Is @n the top of a staged zone, or inside one? */
bool staged_node(const struct node *n);

void staged_lookup(fuse_req_t req, struct node *parent, const char *name);
void staged_getattr(fuse_req_t req, struct node *n);
void staged_setattr(fuse_req_t req, struct node *n, struct stat *attr,
		    int valid, struct fuse_file_info *fi);
void staged_mkdir(fuse_req_t req, struct node *parent, const char *name);
void staged_remove(fuse_req_t req, struct node *parent, const char *name,
		   bool dir);
void staged_rename(fuse_req_t req, struct node *parent, const char *name,
		   struct node *newparent, const char *newname,
		   unsigned int flags);
void staged_open(fuse_req_t req, struct node *n, struct fuse_file_info *fi);
void staged_create(fuse_req_t req, struct node *parent, const char *name,
		   mode_t mode, struct fuse_file_info *fi);
void staged_read(fuse_req_t req, size_t size, off_t off,
		 struct fuse_file_info *fi);
void staged_write_buf(fuse_req_t req, struct fuse_bufvec *in, off_t off,
		      struct fuse_file_info *fi);
void staged_flush(fuse_req_t req, struct fuse_file_info *fi);
void staged_release_file(fuse_req_t req, struct fuse_file_info *fi);
void staged_opendir(fuse_req_t req, struct node *n, struct fuse_file_info *fi);
void staged_readdir(fuse_req_t req, struct node *n, size_t size, off_t off,
		    struct fuse_file_info *fi, bool plus);
void staged_releasedir(fuse_req_t req, struct fuse_file_info *fi);
/* A refusal for what staged trees cannot hold (links, devices, xattrs). */
void staged_refuse(fuse_req_t req, struct node *parent, const char *name,
		   enum rec_op kind);

#endif
