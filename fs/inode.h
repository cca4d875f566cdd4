/*
 * inode - the inode table (inode.c): nodes by FUSE inode number and by
 * (dev, ino, zone), their references and their cached O_PATH fds. The
 * rules (locking, eviction, re-finding) are in fs.h.
 */
#ifndef GFS_INODE_H
#define GFS_INODE_H

#include "fs.h"

int gfs_table_init(struct gfs *g, size_t fd_cap);
void gfs_table_release(struct gfs *g);
struct node *node_of(struct gfs *g, fuse_ino_t ino);
fuse_ino_t node_ino(struct gfs *g, struct node *n);

/*
 * node_find_or_add() - the node for (dev, ino), new or existing; takes one
 * kernel lookup reference. A node gets its fd from node_fd(), when used.
 * Return: 0 or -ENOMEM.
 */
int node_find_or_add(struct gfs *g, struct node *parent, const char *name,
		     const struct policy_zone *zone, enum node_type type,
		     const struct stat *st, struct node **out);
void node_forget(struct gfs *g, struct node *n, uint64_t nlookup);
void node_get(struct gfs *g, struct node *n);
void node_put(struct gfs *g, struct node *n);

/*
 * node_fd() - the node's O_PATH fd, re-opened if it was evicted; pinned
 * until node_fd_put(). Return: fd >= 0 or -errno (-ESTALE when the name
 * now names another object).
 */
int node_fd(struct gfs *g, struct node *n);
void node_fd_put(struct gfs *g, struct node *n);

/* node_find() - the known node for (dev, ino, zone), or NULL; with a
   reference (node_put()), so that no forget frees it meanwhile. */
struct node *node_find(struct gfs *g, dev_t dev, ino_t ino,
		       const struct policy_zone *zone);

/* node_rename() - the node now lives at (parent, name). */
int node_rename(struct gfs *g, struct node *n, struct node *parent,
		const char *name);

/*
 * node_vpath() - the node's virtual path ("/zone/a/b") into @buf, and
 * where its zone-relative part starts (no leading '/').
 * Return: 0 or -ENAMETOOLONG.
 */
int node_vpath(struct gfs *g, struct node *n, const char *name, char *buf,
	       size_t size, const char **rel);

/*
 * node_parent_fd() - a pinned fd of @n's parent directory and @n's name
 * there, checked to still name @n (dev, ino). For operations that cannot
 * act on an O_PATH fd of a symlink. Release with node_fd_put(*parent).
 */
int node_parent_fd(struct gfs *g, struct node *n, char *name, size_t size,
		   struct node **parent);

/* node_own_git_add() - remember a .git directory made by the program. */
void node_own_git_add(struct gfs *g, const struct stat *st);
/*
 * node_in_own_git() - is the outermost .git among @n and its ancestors
 * such a directory? False when there is none.
 */
bool node_in_own_git(struct gfs *g, struct node *n);
/* node_own_git_del() - a .git of the program's is gone (its inode number
   may come back as another object's). */
void node_own_git_del(struct gfs *g, const struct stat *st);
/* node_own_git_has() - is the object @st such a .git directory? */
bool node_own_git_has(struct gfs *g, const struct stat *st);

#endif
