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
 *
 * The FUSE callbacks reach it through its table, staged_backend
 * (backend.h); this header is for the mount (setup) and `golemfs status`.
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

#endif
