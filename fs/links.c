/*
 * symlinks: inside, the facts for the rule. policy_link_check() decides
 * whether a symlink target is safe at a depth below its zone's top, and
 * policy_check_symlinks(), policy_check_link_place() and
 * policy_check_link_walk() whether links may be made or moved at all;
 * this file finds the depth physically, by walking ".." from the backing
 * directory up to the zone's top (the node's cached name plays no part),
 * reads the links a rename moves higher up, and holds renames apart from
 * link creation (gfs->shape_lock) so that no depth changes between a check
 * and its act. Renames on the host beside the mount are not ours to order.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "links.h"
#include "op.h"

/* No path is deeper than this many directories. */
#define DEPTH_MAX (PATH_MAX / 2)

void links_lock_new(struct gfs *g)
{
	pthread_rwlock_rdlock(&g->shape_lock);
}

void links_lock_move(struct gfs *g)
{
	pthread_rwlock_wrlock(&g->shape_lock);
}

void links_unlock(struct gfs *g)
{
	pthread_rwlock_unlock(&g->shape_lock);
}

static bool zoned(struct op *op)
{
	return op->zone && op->g->tops &&
	       op->g->tops[op->zone - op->g->policy->zones].known;
}

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The known zone top that @st is, or NULL. */
static const struct zone_top *top_at(struct gfs *g, const struct stat *st)
{
	size_t i;

	for (i = 0; i < g->policy->nzones; i++)
		if (g->tops[i].known && g->tops[i].dev == st->st_dev &&
		    g->tops[i].ino == st->st_ino)
			return &g->tops[i];
	return NULL;
}

/*
 * How many directories @dirfd lies below the nearest zone top above it,
 * walking ".." as the host does, and which top that is (*@met): the
 * zone's own, or that of another zone whose directory lies inside it, as
 * a link there must stay inside that zone's directory too. -EXDEV if the
 * walk reaches the root of the host without meeting one.
 */
static int zone_depth(struct gfs *g, int dirfd, size_t *out,
		      const struct zone_top **met)
{
	const struct zone_top *t = NULL;
	struct stat st, up;
	int cur = dirfd, next, rc = 0;
	size_t depth;

	for (depth = 0; depth <= DEPTH_MAX; depth++) {
		if (fstat(cur, &st) < 0) {
			rc = -errno;
			break;
		}
		t = top_at(g, &st);
		if (t)
			break;
		next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0) {
			rc = -errno;
			break;
		}
		if (fstat(next, &up) < 0 || same(&st, &up))
			rc = -EXDEV; /* the host's root */
		if (cur != dirfd)
			close(cur);
		cur = next;
		if (rc < 0)
			break;
	}
	if (cur != dirfd)
		close(cur);
	if (rc == 0 && !t)
		rc = -EXDEV;
	if (rc == 0) {
		*out = depth;
		*met = t;
	}
	return rc;
}

/*
 * Where a link in @dirfd would stand, for @op's request: measured when
 * the zone's top is known, then judged (policy_check_link_place()).
 * *@met is the zone top met, when the answer is 0.
 */
static int link_place(struct op *op, int dirfd, enum policy_link_act act,
		      struct policy_link_place *at, const struct zone_top **met)
{
	memset(at, 0, sizeof(*at));
	at->vpath = op->vpath;
	at->zone = op->zone;
	at->zoned = zoned(op);
	if (at->zoned)
		at->depth_rc = zone_depth(op->g, dirfd, &at->depth, met);
	if (at->zoned && at->depth_rc == 0)
		at->host_top = (*met)->host;
	return policy_check_link_place(act, at, &op->why);
}

/* The target of the link @name in @dirfd; -ENAMETOOLONG never truncates. */
static int read_target(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n = readlinkat(dirfd, name, buf, size);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

int links_check_new(struct op *op, const char *target)
{
	const struct zone_top *top;
	struct policy_link_place at;
	int rc;

	rc = policy_check_symlinks(op->g->policy, &op->why);
	if (rc == 0)
		rc = link_place(op, op->dirfd, LINK_MAKE, &at, &top);
	if (rc == 0)
		rc = policy_link_check(target, at.depth, at.host_top, &op->why);
	return rc;
}

struct walk {
	struct op *op;
	const struct zone_top *top;
	size_t entries;
	char target[PATH_MAX];
};

static int walk_dir(struct walk *w, int dirfd, size_t depth, unsigned level);

/* Check the entry @name of @dirfd (type @st) when placed at @depth. */
static int walk_entry(struct walk *w, int dirfd, const char *name,
		      const struct stat *st, size_t depth, unsigned level)
{
	int fd, rc;

	rc = policy_check_link_walk(++w->entries, level, S_ISDIR(st->st_mode),
				    w->op->vpath, &w->op->why);
	if (rc < 0)
		return rc;
	if (S_ISLNK(st->st_mode)) {
		rc = read_target(dirfd, name, w->target, sizeof(w->target));
		if (rc < 0)
			return policy_link_unread(S_IFLNK, -rc, w->op->vpath,
						  &w->op->why);
		return policy_link_check(w->target, depth, w->top->host,
					 &w->op->why);
	}
	if (!S_ISDIR(st->st_mode))
		return 0;
	if (w->op->g->self_dev && st->st_dev == w->op->g->self_dev)
		return 0; /* this mount: never entered */
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return policy_link_unread(S_IFDIR, errno, w->op->vpath,
					  &w->op->why);
	return walk_dir(w, fd, depth + 1, level + 1); /* takes fd */
}

static int walk_dir(struct walk *w, int fd, size_t depth, unsigned level)
{
	DIR *dp = fdopendir(fd);
	struct dirent *de;
	struct stat st;
	int rc = 0;

	if (!dp) {
		close(fd);
		return -ENOMEM;
	}
	while (rc == 0 && (errno = 0, de = readdir(dp))) {
		if (op_bad_name(de->d_name))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			rc = -errno;
			break;
		}
		rc = walk_entry(w, fd, de->d_name, &st, depth, level);
	}
	if (rc == 0 && errno)
		rc = -errno;
	closedir(dp);
	if (rc < 0 && !w->op->why.code)
		policy_link_unread(S_IFDIR, -rc, w->op->vpath, &w->op->why);
	return rc < 0 ? -EACCES : 0;
}

/* May the entry @name of @dirfd (type @st) be placed at @depth? */
static int check_placed(struct op *op, const struct zone_top *top, int dirfd,
			const char *name, const struct stat *st, size_t depth)
{
	struct walk w = { .op = op, .top = top };

	return walk_entry(&w, dirfd, name, st, depth, 0);
}

/* @op's place, in the zone whose top @t is (the zone's own, or one whose
   directory lies inside it), for the rule between the two ends. */
static const struct policy_end *
end_at(const struct op *op, const struct zone_top *t, struct policy_end *end)
{
	op_end_of(op, end);
	end->zone = &op->g->policy->zones[t - op->g->tops];
	return end;
}

static bool holds_links(const struct stat *st)
{
	return S_ISLNK(st->st_mode) || S_ISDIR(st->st_mode);
}

int links_check_move(struct op *from, struct op *to, const char *name,
		     const char *newname, unsigned int flags)
{
	const struct zone_top *top_from, *top_to;
	bool exchange = flags & RENAME_EXCHANGE;
	struct stat a, b, da, db;
	struct policy_link_place at_from, at_to;
	size_t depth_from, depth_to;
	struct policy_end a_end, b_end;
	int rc;

	if (fstatat(from->dirfd, name, &a, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (exchange &&
	    fstatat(to->dirfd, newname, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!holds_links(&a) && !(exchange && holds_links(&b)))
		return 0; /* plain files: no link changes depth */
	if (fstat(from->dirfd, &da) < 0 || fstat(to->dirfd, &db) < 0)
		return -errno;
	if (same(&da, &db))
		return 0; /* within one directory: depths stay */
	rc = link_place(from, from->dirfd, LINK_MOVE, &at_from, &top_from);
	if (rc == 0)
		rc = link_place(from, to->dirfd, LINK_MOVE, &at_to, &top_to);
	if (rc < 0)
		return rc;
	depth_from = at_from.depth;
	depth_to = at_to.depth;
	rc = policy_check_zones(PAIR_RENAME, end_at(from, top_from, &a_end),
				end_at(to, top_to, &b_end), &from->why);
	if (rc < 0)
		return rc;
	/* lower or level: a link safe at depth d is safe deeper too */
	if (depth_to < depth_from && holds_links(&a))
		rc =
		    check_placed(from, top_to, from->dirfd, name, &a, depth_to);
	if (rc == 0 && exchange && depth_from < depth_to && holds_links(&b))
		rc = check_placed(from, top_from, to->dirfd, newname, &b,
				  depth_from);
	return rc;
}
