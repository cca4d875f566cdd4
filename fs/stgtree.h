/*
 * stgtree - the staged tree: the FUSE backend of staged zones.
 *
 * Named apart from the staging library on purpose: stgtree_* (this file
 * and stgtree.c) is the daemon's view of a staged zone as a tree of
 * files; stage_* (staging/stage.h) is the library of staged commits in
 * git that it calls, and that the clearance commands use too.
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
 *
 * The FUSE callbacks reach it through its table, stgtree_backend
 * (backend.h); this header is for the mount (setup) and `golemfs status`.
 */
#ifndef GFS_STGTREE_H
#define GFS_STGTREE_H

#include "fs.h"
#include "staging/stage.h"

int stgtree_init(struct gfs *g, struct gfs_err *err);
void stgtree_release(struct gfs *g);

/* For `golemfs status`: staged zone @i's path and its commits. */
const char *stgtree_zone_vpath(struct gfs *g, size_t i);
int stgtree_pending(struct gfs *g, size_t i,
		    int (*fn)(const char *id, enum stage_status st, void *ctx),
		    void *ctx, struct gfs_err *err);

#endif
