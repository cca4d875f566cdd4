/*
 * staging internals shared by stage.c and push.c. Not the contract.
 */
#ifndef GFS_STAGE_INT_H
#define GFS_STAGE_INT_H

#include <git2.h>

#include "stage.h"

struct stage {
	git_repository *repo; /* ROOT/staging/ZONE.git */
	char *dir;            /* ROOT/staging/ZONE */
	char *trusted;        /* the trusted repository */
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

/* stage_tree_id() - the id of @id's staged tree, as its index holds it
   now (the tree's objects are written into the staging repository). */
int stage_tree_id(struct stage *s, const char *id, git_oid *out,
		  struct gfs_err *err);

/* stage_parse_tree() - a whole 40-digit tree id, else -EINVAL. */
int stage_parse_tree(git_oid *out, const char *hex, struct gfs_err *err);

/* stage_check_tree() - stage_check() of tree @tree (NULL: the index's). */
int stage_check_tree(struct stage *s, const char *id, const git_oid *tree,
		     const struct stage_push_opts *o, FILE *f,
		     struct gfs_err *err);

/*
 * stage_lock() - lock staged commit @id: shared for an edit (many at
 * once), exclusive for a push, which thereby sees no edit in flight and
 * lets none start. Edits never wait: -EBUSY while a push holds it; a push
 * waits for the edits in flight. Return: the lock's fd (close it to
 * unlock), or -errno with @err set.
 */
int stage_lock(struct stage *s, const char *id, bool exclusive,
	       struct gfs_err *err);

/* stage_require_pending() - 0 if @id exists and is pending, else -EINVAL
   (bad id or not pending) or -ENOENT, with the reason in @err. */
int stage_require_pending(struct stage *s, const char *id, struct gfs_err *err);

#endif
