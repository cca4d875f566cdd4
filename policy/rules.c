/*
 * The rules a FUSE callback needs besides policy_decide(), as pure
 * functions: the size limit at write time, device nodes, attribute
 * namespaces, setuid and setgid bits, create-only zones, renames and links
 * across zones, second names for protected files, where a symlink may stand,
 * what /staged shows a program that may not read the repository, names in the
 * virtual tree, and the bounds of a move. Each one
 * takes what the daemon found out (a mode, a name, an offset, a depth it
 * measured) and answers with 0 or a negative errno and the reason for the
 * program's reader; fs/ asks and acts, and never words a refusal of its
 * own. Nothing here does I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/stat.h>

#include "policy_int.h"

int policy_check_size(const struct policy_zone *z, uint64_t size,
		      struct gfs_err *why)
{
	if (!z->max_file_bytes || size <= z->max_file_bytes)
		return 0;
	return gfs_err_set(why, -EFBIG,
			   "%s takes files of at most %" PRIu64 " bytes",
			   z->vpath, z->max_file_bytes);
}

int policy_check_mknod(mode_t mode, struct gfs_err *why)
{
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return gfs_err_set(why, -EPERM,
				   "device nodes cannot be created");
	return 0;
}

int policy_check_rename_flags(unsigned int flags, struct gfs_err *why)
{
	if (flags & RENAME_WHITEOUT)
		return gfs_err_set(why, -EPERM,
				   "device nodes cannot be created (a "
				   "rename's whiteout is one)");
	return 0;
}

uint64_t policy_falloc_end(int mode, uint64_t off, uint64_t len, uint64_t size)
{
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE))
		return 0;
	if (mode & FALLOC_FL_INSERT_RANGE)
		return size + len;
	return off + len;
}

int policy_check_xattr(const char *name, const char *vpath, struct gfs_err *why)
{
	if (strncmp(name, "security.", 9) == 0 ||
	    strncmp(name, "trusted.", 8) == 0)
		return gfs_err_set(why, -EACCES,
				   "%s: '%s' attributes cannot be set", vpath,
				   name);
	return 0;
}

mode_t policy_allowed_mode(mode_t mode)
{
	return mode & ~(mode_t)(S_ISUID | S_ISGID);
}

bool policy_create_only(const struct policy_zone *z, enum policy_trust trust)
{
	return !(z->rights[trust] & RIGHT_W);
}

int policy_check_zones(enum policy_pair pair, const struct policy_end *from,
		       const struct policy_end *to, struct gfs_err *why)
{
	if (from->zone && from->zone == to->zone)
		return 0;
	if (pair == PAIR_LINK)
		return gfs_err_set(why, -EXDEV,
				   "%s: hard links stay within one zone",
				   to->vpath);
	return gfs_err_set(why, -EXDEV, "rename %s to %s crosses zones",
			   from->vpath, to->vpath);
}

int policy_check_areas(enum policy_pair pair, const struct policy_end *from,
		       const struct policy_end *to, struct gfs_err *why)
{
	if (policy_area(from->zone, from->rel) ==
	    policy_area(to->zone, to->rel))
		return 0;
	if (pair == PAIR_LINK)
		return gfs_err_set(why, -EXDEV,
				   "%s: hard links stay within one zone "
				   "(%s lies in another zone's directory)",
				   to->vpath, from->vpath);
	return gfs_err_set(why, -EXDEV, "rename %s to %s crosses zones",
			   from->vpath, to->vpath);
}

/* The length of the commit ID that starts @rel, when a path follows. */
static size_t staged_commit(const char *rel)
{
	const char *slash = strchr(rel, '/');

	return slash && slash[1] ? (size_t)(slash - rel) : 0;
}

int policy_check_staged_move(const struct policy_end *from,
			     const struct policy_end *to, struct gfs_err *why)
{
	size_t n = staged_commit(from->rel);

	if (from->zone == to->zone && n && n == staged_commit(to->rel) &&
	    strncmp(from->rel, to->rel, n) == 0)
		return 0;
	return gfs_err_set(why, -EXDEV,
			   "rename %s to %s leaves its staged commit",
			   from->vpath, to->vpath);
}

int policy_check_link_source(const struct policy *p, const struct policy_req *r,
			     struct gfs_err *why)
{
	struct policy_req w = *r;
	int rc;

	w.op = POP_WRITE;
	rc = policy_check_protect(p, &w, why);
	if (rc < 0) {
		gfs_err_prefix(why, "no second name for '%s'", w.path);
		return rc;
	}
	if (policy_guard_find(w.zone, w.path, POP_WRITE, false))
		return gfs_err_set(why, -EACCES,
				   "'%s' is protected and cannot be linked",
				   w.path);
	return 0;
}

int policy_check_symlinks(const struct policy *p, struct gfs_err *why)
{
	if (p->symlinks == SYMLINKS_DENY)
		return gfs_err_set(why, -EACCES,
				   "symlinks may not be created "
				   "(symlinks: deny)");
	return 0;
}

int policy_check_link_place(enum policy_link_act act,
			    const struct policy_link_place *at,
			    struct gfs_err *why)
{
	if (!at->zoned && act == LINK_MAKE)
		return gfs_err_set(why, -EACCES,
				   "%s: symlinks are made only in a zone's "
				   "directory",
				   at->vpath);
	if (!at->zoned)
		return gfs_err_set(why, -EACCES,
				   "%s: not in a zone's directory", at->vpath);
	if (at->depth_rc < 0)
		return gfs_err_set(
		    why, -EACCES, "%s: cannot tell where it lies in %s (%s)",
		    at->vpath, at->zone->vpath, strerror(-at->depth_rc));
	return 0;
}

int policy_check_link_walk(size_t entries, unsigned level, bool is_dir,
			   const char *vpath, struct gfs_err *why)
{
	if (entries > POLICY_LINK_WALK_MAX_ENTRIES)
		return gfs_err_set(why, -EACCES,
				   "%s: moving more than %d entries higher up "
				   "is refused: the symlinks among them "
				   "cannot all be checked; move fewer",
				   vpath, POLICY_LINK_WALK_MAX_ENTRIES);
	if (is_dir && level >= POLICY_LINK_WALK_MAX_LEVELS)
		return gfs_err_set(why, -EACCES,
				   "%s: moving a tree deeper than %d levels "
				   "higher up is refused",
				   vpath, POLICY_LINK_WALK_MAX_LEVELS);
	return 0;
}

int policy_link_unread(mode_t fmt, int err, const char *vpath,
		       struct gfs_err *why)
{
	return gfs_err_set(
	    why, -EACCES, "%s: a %s it moves cannot be read (%s)", vpath,
	    fmt == S_IFLNK ? "symlink" : "directory", strerror(err));
}

bool policy_staged_limited(const struct policy *p, const struct policy_zone *z,
			   enum policy_trust trust)
{
	return !policy_repo_readable(p, z->repo, trust);
}

bool policy_staged_shows(const char *path, char *const *changes, size_t n)
{
	size_t i, len = strlen(path);

	if (!*path)
		return true;
	for (i = 0; i < n; i++)
		if (strncmp(changes[i], path, len) == 0 &&
		    (changes[i][len] == '\0' || changes[i][len] == '/'))
			return true;
	return false;
}

bool policy_staged_from_nothing(enum policy_trust trust)
{
	return trust == TRUST_UNTRUSTED;
}

int policy_check_vdir_name(const struct policy *p, enum policy_trust trust,
			   bool fixed, bool underlay, const char *where,
			   struct gfs_err *why)
{
	const char *w = p->writable[trust];

	if (fixed)
		return -EBUSY;
	if (!underlay)
		return gfs_err_set(why, -EACCES,
				   "%s holds only zones; writable: %s", where,
				   *w ? w : "nothing");
	return 0;
}

int policy_check_in_zone(const struct policy_zone *z, const char *vpath,
			 struct gfs_err *why)
{
	if (!z)
		return gfs_err_set(why, -EACCES, "%s is a virtual directory",
				   vpath);
	return 0;
}

int policy_move_too_large(const char *vpath, struct gfs_err *why)
{
	return gfs_err_set(why, -EXDEV,
			   "%s holds more than %d entries or %d levels to "
			   "check; moving it is copying and deleting",
			   vpath, POLICY_MOVE_MAX_ENTRIES,
			   POLICY_MOVE_MAX_DEPTH);
}

int policy_staged_refuse_kind(struct gfs_err *why)
{
	return gfs_err_set(why, -EPERM,
			   "a staged commit holds only files and directories");
}
