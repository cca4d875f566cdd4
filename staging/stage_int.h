/*
 * staging internals shared by stage.c and push.c. Not the contract.
 */
#ifndef GFS_STAGE_INT_H
#define GFS_STAGE_INT_H

#include <git2.h>

#include "stage.h"

struct stage {
	git_repository *repo; /* ROOT/staging/ZONE.git */
	char *dir;	      /* ROOT/staging/ZONE */
	char *trusted;	      /* the trusted repository */
	char *branch;
};

/* libgit2's last error as -EIO with "what: why". */
int stage_gerr(struct gfs_err *err, const char *what);

/* ROOT/staging/ZONE/ID/NAME, read (trailing newlines dropped; "" when
   absent) or written atomically (tmp + fsync + rename). */
int stage_state_read(struct stage *s, const char *id, const char *name,
		     char *buf, size_t size);
int stage_state_write(struct stage *s, const char *id, const char *name,
		      const char *text);

/* stage_index_open() - the index of staged commit @id, which must exist:
   -EINVAL (bad id), -ENOENT (no such commit), -ENAMETOOLONG, -EIO. */
int stage_index_open(struct stage *s, const char *id, git_index **idx,
		     struct gfs_err *err);

/* stage_require_pending() - 0 if @id exists and is pending, else -EINVAL
   (bad id or not pending) or -ENOENT, with the reason in @err. */
int stage_require_pending(struct stage *s, const char *id,
			  struct gfs_err *err);

#endif
