/*
 * The virtual tree: built once at mount from the policy, never changed.
 *
 * Every named zone ("/input"), every bind-mount target ("/", "/a/b") and
 * the path to a worker's restrict become virtual directories. Each one's
 * underlay is the real directory that covers its path: the zone's own
 * directory for a named zone and anything inside it, else the newest bind
 * mount whose target contains the path (later mounts shadow earlier ones
 * at the same or a parent target). Named zones lie over bind mounts.
 *
 * Here the zones' directories are prepared too: in sandboxed mode they are
 * created under the sandbox root (as is sessions/ID); everything else must
 * already exist, or the mount is refused naming the zone and path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/gfs_dir.h"
#include "vtree.h"

static struct node *vdir_new(struct gfs *g, struct node *parent,
			     const char *name)
{
	struct node **all, *n = calloc(1, sizeof(*n));

	all = n ? realloc(g->vdirs, (g->nvdirs + 1) * sizeof(*all)) : NULL;
	if (!all || !(n->name = strdup(name))) {
		free(n);
		return NULL;
	}
	g->vdirs = all;
	g->vdirs[g->nvdirs] = n;
	n->type = NODE_VDIR;
	n->parent = parent;
	n->fd = -1;
	n->pinned = true;
	n->fmt = S_IFDIR;
	n->ino = VDIR_INO_BASE + (ino_t)g->nvdirs++;
	return n;
}

struct node *vdir_child(const struct node *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->nchildren; i++)
		if (strcmp(n->children[i].name, name) == 0)
			return n->children[i].node;
	return NULL;
}

static struct node *vdir_add_child(struct gfs *g, struct node *parent,
				   const char *name)
{
	struct node *n = vdir_child(parent, name);
	struct vchild *c;

	if (n)
		return n;
	c = realloc(parent->children, (parent->nchildren + 1) * sizeof(*c));
	if (!c)
		return NULL;
	parent->children = c;
	n = vdir_new(g, parent, name);
	if (!n)
		return NULL;
	c[parent->nchildren].name = n->name;
	c[parent->nchildren++].node = n;
	return n;
}

/* The virtual directory at @vpath, made with its parents as needed. */
static struct node *vdir_at(struct gfs *g, const char *vpath)
{
	struct node *n = g->root;
	char *copy = strdup(vpath), *tok, *save = NULL;

	if (!copy)
		return NULL;
	for (tok = strtok_r(copy, "/", &save); tok && n;
	     tok = strtok_r(NULL, "/", &save))
		n = vdir_add_child(g, n, tok);
	free(copy);
	return n;
}

/* The zone covering @vpath and the path below its top; NULL if none. */
static const struct policy_zone *cover(const struct policy *p,
				       const char *vpath, const char **rest)
{
	const struct policy_zone *z;
	size_t i;

	for (i = 0; i < p->nnamed; i++) {
		z = &p->zones[i];
		if (z->kind != ZONE_STAGED &&
		    policy_path_within(vpath, z->vpath))
			goto found;
	}
	for (i = p->nzones; i-- > p->nnamed;) {
		z = &p->zones[i];
		if (policy_path_within(vpath, z->vpath))
			goto found;
	}
	return NULL;
found:
	*rest = vpath + (strcmp(z->vpath, "/") ? strlen(z->vpath) : 0);
	while (**rest == '/')
		(*rest)++;
	return z;
}

/* The backing directory of @z for this mount; malloc'd. */
static char *zone_dir(struct gfs *g, const struct policy_zone *z)
{
	char *s = NULL;

	if (z->kind == ZONE_SESSION) {
		if (asprintf(&s, "%s/sessions/%s", g->policy->root,
			     g->session) < 0)
			return NULL;
		return s;
	}
	return strdup(z->path);
}

static bool made_by_us(const struct policy *p, const struct policy_zone *z)
{
	if (z->kind == ZONE_SESSION)
		return true;
	return !p->direct && z->kind != ZONE_MOUNT && z->kind != ZONE_REPO &&
	       policy_path_within(z->path, p->root);
}

/* Open @z's top directory, creating it where golemfs owns it. */
static int zone_open(struct gfs *g, const struct policy_zone *z,
		     struct gfs_err *err)
{
	char *dir = zone_dir(g, z);
	int fd, rc;

	if (!dir)
		return -ENOMEM;
	if (made_by_us(g->policy, z)) {
		rc = gfs_mkdir_p(dir, 0700);
		if (rc < 0) {
			gfs_err_set(err, rc, "zone '%s': cannot create %s: %s",
				    z->name, dir, strerror(-rc));
			free(dir);
			return rc;
		}
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		gfs_err_set(err, -errno, "zone '%s': %s: %s", z->name, dir,
			    strerror(errno));
	free(dir);
	return fd < 0 ? -errno : fd;
}

/* Open @rest beneath @top without following any symlink or "..". */
static int open_beneath(int top, const char *rest)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (!*rest)
		return fcntl(top, F_DUPFD_CLOEXEC, 3);
	fd = syscall(SYS_openat2, top, rest, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

static int vdir_underlay(struct gfs *g, struct node *n, const char *vpath,
			 int *zone_fds, struct gfs_err *err)
{
	const struct policy_zone *z;
	const char *rest;
	size_t zi;
	int fd;

	z = cover(g->policy, vpath, &rest);
	if (!z)
		return 0;
	zi = (size_t)(z - g->policy->zones);
	if (zone_fds[zi] < 0) {
		fd = zone_open(g, z, err);
		if (fd < 0)
			return fd;
		zone_fds[zi] = fd;
	}
	fd = open_beneath(zone_fds[zi], rest);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP || fd == -EXDEV)
		return 0; /* nothing real here: a purely virtual directory */
	if (fd < 0)
		return gfs_err_set(err, fd, "%s: %s", vpath, strerror(-fd));
	n->zone = z;
	n->fd = fd;
	return 0;
}

/* Give each virtual directory its underlay; depth first with its path. */
static int vtree_underlays(struct gfs *g, struct node *n, char *path,
			   size_t len, int *zone_fds, struct gfs_err *err)
{
	size_t i, l;
	int rc;

	rc = vdir_underlay(g, n, len ? path : "/", zone_fds, err);
	for (i = 0; rc == 0 && i < n->nchildren; i++) {
		l = strlen(n->children[i].name);
		if (len + l + 2 > 4096)
			return gfs_err_set(err, -ENAMETOOLONG, "path too long");
		path[len] = '/';
		memcpy(path + len + 1, n->children[i].name, l + 1);
		rc = vtree_underlays(g, n->children[i].node, path, len + 1 + l,
				     zone_fds, err);
		path[len] = '\0';
	}
	return rc;
}

static bool in_restrict(const struct policy *p, const char *vpath)
{
	return policy_path_within(vpath, p->restrict_path) ||
	       policy_path_within(p->restrict_path, vpath);
}

static int vtree_shape(struct gfs *g, struct gfs_err *err)
{
	const struct policy *p = g->policy;
	struct node *n;
	size_t i;

	for (i = 0; i < p->nzones; i++) {
		const struct policy_zone *z = &p->zones[i];

		if (i >= p->nnamed && p->nnamed) {
			const char *rest;
			const struct policy_zone *c = cover(p, z->vpath, &rest);

			if (c && c->kind != ZONE_MOUNT && *rest)
				return gfs_err_set(err, -EINVAL,
						   "mount target '%s' lies "
						   "inside zone '%s'",
						   z->vpath, c->name);
		}
		if (!in_restrict(p, z->vpath))
			continue;
		n = vdir_at(g, z->vpath);
		if (!n)
			return -ENOMEM;
		if (z->kind == ZONE_STAGED)
			n->zone = z; /* served by stgtree.c, no underlay */
	}
	n = vdir_at(g, p->restrict_path);
	if (!n)
		return -ENOMEM;
	/* directories above the restrict show only the way down */
	for (n = n->parent; n; n = n->parent)
		n->only_children = true;
	return 0;
}

/*
 * Remember each served zone's backing directory: its (dev, ino), where
 * the symlink rule counts depth from, and its path as the host names it,
 * which an absolute symlink target must lie under.
 */
static int vtree_tops(struct gfs *g, const int *zone_fds, struct gfs_err *err)
{
	size_t i, nz = g->policy->nzones;
	char p[64], host[PATH_MAX];
	struct stat st;
	ssize_t n;

	g->tops = calloc(nz ? nz : 1, sizeof(*g->tops));
	if (!g->tops)
		return -ENOMEM;
	for (i = 0; i < nz; i++) {
		if (zone_fds[i] < 0)
			continue;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", zone_fds[i]);
		n = readlink(p, host, sizeof(host));
		if (n < 0 || (size_t)n >= sizeof(host) ||
		    fstat(zone_fds[i], &st) < 0)
			return gfs_err_set(err, n < 0 ? -errno : -ENAMETOOLONG,
					   "zone '%s': cannot name its "
					   "directory",
					   g->policy->zones[i].name);
		host[n] = '\0';
		g->tops[i].host = strdup(host);
		if (!g->tops[i].host)
			return -ENOMEM;
		g->tops[i].dev = st.st_dev;
		g->tops[i].ino = st.st_ino;
		g->tops[i].known = true;
	}
	return 0;
}

int vtree_build(struct gfs *g, struct gfs_err *err)
{
	size_t i, nz = g->policy->nzones;
	int *zone_fds = malloc((nz ? nz : 1) * sizeof(int));
	char *path = malloc(4096);
	int rc = -ENOMEM;

	g->root = vdir_new(g, NULL, "");
	if (!zone_fds || !path || !g->root)
		goto out;
	for (i = 0; i < nz; i++)
		zone_fds[i] = -1;
	rc = vtree_shape(g, err);
	path[0] = '\0';
	if (rc == 0)
		rc = vtree_underlays(g, g->root, path, 0, zone_fds, err);
	if (rc == 0)
		rc = vtree_tops(g, zone_fds, err);
out:
	for (i = 0; zone_fds && i < nz; i++)
		if (zone_fds[i] >= 0)
			close(zone_fds[i]);
	free(zone_fds);
	free(path);
	if (rc == -ENOMEM)
		gfs_err_set(err, rc, "out of memory");
	return rc;
}

void vtree_release(struct gfs *g)
{
	size_t i;

	for (i = 0; i < g->nvdirs; i++) {
		struct node *n = g->vdirs[i];

		if (n->fd >= 0)
			close(n->fd);
		free(n->children);
		free(n->name);
		free(n);
	}
	for (i = 0; g->tops && i < g->policy->nzones; i++)
		free(g->tops[i].host);
	free(g->tops);
	g->tops = NULL;
	free(g->vdirs);
	g->vdirs = NULL;
	g->nvdirs = 0;
}

bool vdir_shows_underlay(const struct node *n, enum policy_trust t)
{
	return n->zone && n->fd >= 0 && !n->only_children &&
	       policy_zone_visible(n->zone, t);
}

bool vdir_visible(const struct node *n, enum policy_trust t)
{
	size_t i;

	if (n->zone && !n->only_children && policy_zone_visible(n->zone, t))
		return true;
	for (i = 0; i < n->nchildren; i++)
		if (vdir_visible(n->children[i].node, t))
			return true;
	return false;
}
