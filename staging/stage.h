/*
 * staging - staged commits over libgit2, and their clearance into the
 * user's trusted repository.
 *
 * A staged zone keeps its own bare repository, ROOT/staging/ZONE.git, that
 * reads the trusted repository's objects through alternates; new blobs and
 * trees are written there only. Each staged commit ID has a directory
 * ROOT/staging/ZONE/ID/ holding:
 *   base     the commit it starts from (the trusted branch's head when it
 *            was made), or "empty" for one that starts from nothing
 *   index    the full tree of the staged state, as a git index file
 *            written atomically by libgit2 (lock file + rename)
 *   status   pending | committed | discarded
 *   message  the commit message (COMMIT_EDITMSG), may be absent
 *   commit   the trusted commit it became, once pushed
 * So a killed daemon loses nothing that was staged.
 *
 * An edit takes a shared flock(2) on the directory ROOT/staging/ZONE/ID,
 * without waiting; stage_push() takes it exclusively, so while a push
 * runs every edit of that commit fails with -EBUSY (the mount's writers
 * see EBUSY), and the tree committed is the one the push read under it.
 *
 * The trusted repository is written only by stage_push(). libgit2 runs
 * with an isolated configuration: no system, global or XDG config, no
 * config, attributes or hooks from the sandbox or the staged tree (libgit2
 * runs no hooks; blobs are made from buffers, never through filters).
 *
 * Thread-safety: a struct stage (and what it opens) is used by one thread
 * at a time; callers that share one serialise with their own lock.
 */
#ifndef GFS_STAGE_H
#define GFS_STAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/gfs_err.h"

struct stage;

enum stage_status {
	STAGE_PENDING,
	STAGE_COMMITTED,
	STAGE_DISCARDED,
};

struct stage_info {
	char id[65];
	enum stage_status status;
	time_t created;
	size_t created_files, updated_files, deleted_files;
	uint64_t bytes;    /* size of created and updated files */
	char message[128]; /* first line, cut to fit: a summary */
	char base[41];     /* hex, or "" for an empty start */
	char commit[41];   /* the trusted commit, once pushed */
	char tree[41];     /* the staged tree's id, as of now */
};

/*
 * stage_open() - the staging area of one staged zone.
 * @root:   the sandbox root; @zone: the zone's name.
 * @repo:   the trusted repository (a work tree or a bare repository).
 * @branch: its trusted branch.
 * Creates ROOT/staging/ZONE.git on first use.
 * Return: 0, or -errno with @err naming what and where.
 */
int stage_open(struct stage **out, const char *root, const char *zone,
	       const char *repo, const char *branch, struct gfs_err *err);
void stage_free(struct stage *s); /* NULL is a no-op */

/* stage_id_ok() - may @id name a staged commit? */
bool stage_id_ok(const char *id);

/* stage_tree_ok() - is @hex a whole tree id (40 lowercase hex digits)? */
bool stage_tree_ok(const char *hex);

/*
 * stage_create() - start staged commit @id on the trusted branch's head,
 * or on nothing when @empty (untrusted programs never see the repository).
 * Return: 0, -EEXIST, -EINVAL (bad id), -ENOENT (no such branch), -EIO.
 */
int stage_create(struct stage *s, const char *id, bool empty,
		 struct gfs_err *err);

/* stage_info() - the summary of one staged commit. */
int stage_info(struct stage *s, const char *id, struct stage_info *out,
	       struct gfs_err *err);

/*
 * stage_list() - every staged commit, oldest first.
 * @out: malloc'd array, free() it. Return: 0 or -errno.
 */
int stage_list(struct stage *s, struct stage_info **out, size_t *n,
	       struct gfs_err *err);

/* ---- edits (what the mount does for the program) ---- */

/*
 * stage_put() - set @path (within the staged commit) to @len bytes of
 * @data, executable or not. Creates leading directories implicitly.
 * Return: 0, -EINVAL (bad path, or not pending), -EIO.
 */
int stage_put(struct stage *s, const char *id, const char *path,
	      const void *data, size_t len, bool exec, struct gfs_err *err);

/*
 * stage_put_fd() - set @path to the bytes of file @fd (all of it, read
 * with pread from 0), streamed into the object database a chunk at a
 * time: memory stays small whatever the file's size.
 * Return: 0, -EINVAL, -EBUSY (being pushed), -EIO, or pread's -errno.
 */
int stage_put_fd(struct stage *s, const char *id, const char *path, int fd,
		 bool exec, struct gfs_err *err);

/* stage_remove() - delete @path, or everything below it. -ENOENT if none. */
int stage_remove(struct stage *s, const char *id, const char *path,
		 struct gfs_err *err);

/* stage_rename() - move a file or a directory's files. */
int stage_rename(struct stage *s, const char *id, const char *from,
		 const char *to, struct gfs_err *err);

/* The longest commit message (COMMIT_EDITMSG) kept, in bytes. */
#define STAGE_MESSAGE_MAX 65535

/* stage_set_message() - the commit message (COMMIT_EDITMSG); -EFBIG
   past STAGE_MESSAGE_MAX. */
int stage_set_message(struct stage *s, const char *id, const char *msg,
		      struct gfs_err *err);

/*
 * stage_get() - the contents of @path: malloc'd into *@data (free()),
 * with its size. Return: 0, -ENOENT, -EISDIR, -EIO.
 */
int stage_get(struct stage *s, const char *id, const char *path, void **data,
	      size_t *len, struct gfs_err *err);

/*
 * stage_get_fd() - write the contents of @path into @fd from offset 0,
 * streamed a chunk at a time where the object store allows (every file
 * staged here), and its size into *@len. Return: as stage_get().
 */
int stage_get_fd(struct stage *s, const char *id, const char *path, int fd,
		 uint64_t *len, struct gfs_err *err);

struct stage_stat {
	bool is_dir;
	bool exec;
	uint64_t size;
};

/* stage_stat() - what @path is ("" is the top). -ENOENT if nothing. */
int stage_stat(struct stage *s, const char *id, const char *path,
	       struct stage_stat *out, struct gfs_err *err);

/*
 * stage_readdir() - call @fn for each name directly inside @dir ("" for
 * the top), once per name, with whether it is a directory. Stops when @fn
 * returns non-zero and returns that.
 */
int stage_readdir(struct stage *s, const char *id, const char *dir,
		  int (*fn)(const char *name, bool is_dir, void *ctx),
		  void *ctx, struct gfs_err *err);

/* stage_message() - the whole message, malloc'd ("" when none). */
int stage_message(struct stage *s, const char *id, char **out,
		  struct gfs_err *err);

/* stage_each() - call @fn for every staged commit id and its status. */
int stage_each(struct stage *s,
	       int (*fn)(const char *id, enum stage_status st, void *ctx),
	       void *ctx, struct gfs_err *err);

/*
 * stage_changes() - call @fn for every path @id creates or changes whose
 * contents are the program's own: not deletions, and not a file whose
 * contents are those of a file of the base commit (moved, copied or
 * renamed with its directory, but unchanged). An empty file is always
 * reported.
 */
int stage_changes(struct stage *s, const char *id,
		  int (*fn)(const char *path, void *ctx), void *ctx,
		  struct gfs_err *err);

/* stage_set_exec() - set or clear the executable bit of file @path. */
int stage_set_exec(struct stage *s, const char *id, const char *path, bool exec,
		   struct gfs_err *err);

/* stage_status() - the status of @id; -ENOENT when there is none. */
int stage_status(struct stage *s, const char *id, enum stage_status *out);

/* ---- review and clearance (what the user does) ---- */

/*
 * stage_diff() - print the unified diff of @id against its base to @f, as
 * `git diff` would, or its --stat summary. Renames, deletions and mode
 * changes are always shown, however many files. The first line names the
 * tree the diff is of, "staged tree HEX"; @tree (optional, 41 bytes)
 * receives that HEX, so a caller can push exactly what it showed.
 */
int stage_diff(struct stage *s, const char *id, bool stat, FILE *f, char *tree,
	       struct gfs_err *err);

struct stage_push_opts {
	const char *message;     /* overrides COMMIT_EDITMSG; may be NULL */
	const char *branch;      /* default "golem/ID" */
	const char *remote;      /* push there too; may be NULL */
	bool allow_binary;       /* --allow-binary: push despite findings */
	bool binary_ok;          /* the zone allows binary files */
	bool entropy_ok;         /* the zone allows very high entropy */
	uint64_t max_file_bytes; /* clearance: larger files refused; 0: 10 MB */
	const char *expect_tree; /* 40 hex digits: push this tree or nothing */
	const char *expect_message; /* the message shown (unless .message) */
};

/*
 * stage_check() - the clearance checks: binary files, files over the size
 * limit, very high entropy, of o->expect_tree when set (else of the tree
 * the index holds now). Prints each finding to @f.
 * Return: 0 clean, -EPERM findings (refused unless allow_binary), -errno.
 */
int stage_check(struct stage *s, const char *id,
		const struct stage_push_opts *o, FILE *f, struct gfs_err *err);

/*
 * stage_push() - make the commit in the trusted repository on o->branch
 * (a new branch, or an existing one by fast-forward only), optionally push
 * it to o->remote with the host's credentials, and mark @id committed.
 * The commit's tree is the staged tree as read once under the commit's
 * exclusive lock: edits (a live mount) wait for nothing and fail with
 * -EBUSY until the push is over, and with o->expect_tree set, a staged
 * tree that is not that tree is refused, and so is a staged message that
 * is not o->expect_message.
 * @commit: the new commit's hex id (41 bytes).
 * Return: 0; -EPERM (clearance findings), -EEXIST (branch moved: not a
 * fast-forward; @err names both heads), -ESTALE (the staged tree is not
 * o->expect_tree), -EINVAL (not pending, or a malformed expect_tree),
 * -EIO.
 */
int stage_push(struct stage *s, const char *id, const struct stage_push_opts *o,
	       char *commit, struct gfs_err *err);

/* stage_discard() - mark @id discarded; its edits are kept for review. */
int stage_discard(struct stage *s, const char *id, struct gfs_err *err);

#endif
