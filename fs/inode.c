/*
 * The inode table: nodes by FUSE inode number and by (dev, ino, zone),
 * lookup counts, and a bounded LRU of O_PATH descriptors with safe
 * re-finding of cold nodes. See fs.h for the rules.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/lockorder.h"
#include "handle.h"
#include "inode.h"

#define HASH_INITIAL 1024

static size_t hash_of(struct gfs *g, dev_t dev, ino_t ino,
		      const struct policy_zone *z)
{
	uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull;

	h ^= (uint64_t)dev + ((uint64_t)(uintptr_t)z >> 4);
	return (size_t)(h ^ (h >> 29)) & (g->hash_size - 1);
}

int gfs_table_init(struct gfs *g, size_t fd_cap)
{
	if (pthread_mutex_init(&g->lock, NULL))
		return -ENOMEM;
	if (pthread_rwlock_init(&g->shape_lock, NULL)) {
		pthread_mutex_destroy(&g->lock);
		return -ENOMEM;
	}
	if (pthread_rwlock_init(&g->git_lock, NULL)) {
		pthread_mutex_destroy(&g->lock);
		pthread_rwlock_destroy(&g->shape_lock);
		return -ENOMEM;
	}
	lock_order_name(&g->lock, LOCK_TABLE);
	lock_order_name(&g->shape_lock, LOCK_SHAPE);
	lock_order_name(&g->git_lock, LOCK_GIT);
	g->hash_size = HASH_INITIAL;
	g->hash = calloc(g->hash_size, sizeof(*g->hash));
	if (!g->hash)
		return -ENOMEM;
	g->lru.lru_next = g->lru.lru_prev = &g->lru;
	g->fd_cap = fd_cap;
	return 0;
}

static void lru_unlink(struct node *n)
{
	if (n->lru_next) {
		n->lru_next->lru_prev = n->lru_prev;
		n->lru_prev->lru_next = n->lru_next;
		n->lru_next = n->lru_prev = NULL;
	}
}

static void lru_push(struct gfs *g, struct node *n)
{
	n->lru_next = g->lru.lru_next;
	n->lru_prev = &g->lru;
	g->lru.lru_next->lru_prev = n;
	g->lru.lru_next = n;
}

/* Close cold descriptors until we are under the cap. Lock held. */
static void lru_evict(struct gfs *g)
{
	struct node *n = g->lru.lru_prev, *prev;

	while (g->fds > g->fd_cap && n != &g->lru) {
		prev = n->lru_prev;
		if (n->fd_pins == 0) {
			lru_unlink(n);
			close(n->fd);
			n->fd = -1;
			g->fds--;
		}
		n = prev;
	}
}

static void hash_grow(struct gfs *g)
{
	size_t old = g->hash_size, i;
	struct node **oh = g->hash, *n, *next;
	struct node **nh = calloc(old * 2, sizeof(*nh));

	if (!nh)
		return; /* longer chains, still correct */
	g->hash = nh;
	g->hash_size = old * 2;
	for (i = 0; i < old; i++) {
		for (n = oh[i]; n; n = next) {
			size_t h = hash_of(g, n->dev, n->ino, n->zone);

			next = n->hnext;
			n->hnext = nh[h];
			nh[h] = n;
		}
	}
	free(oh);
}

static void hash_remove(struct gfs *g, struct node *n)
{
	struct node **pp = &g->hash[hash_of(g, n->dev, n->ino, n->zone)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == n) {
			*pp = n->hnext;
			return;
		}
	}
}

/* Free @n if nothing refers to it any more; walks up parents. Lock held. */
static void node_maybe_free(struct gfs *g, struct node *n)
{
	struct node *parent;

	while (n && n->nlookup == 0 && n->refs == 0 && n->type != NODE_VDIR) {
		parent = n->parent;
		hash_remove(g, n);
		lru_unlink(n);
		if (n->fd >= 0) {
			close(n->fd);
			g->fds--;
		}
		free(n->name);
		free(n);
		g->nodes--;
		n = parent;
		if (n)
			n->refs--;
	}
}

void gfs_table_release(struct gfs *g)
{
	struct node *n, *next;
	size_t i;

	for (i = 0; g->hash && i < g->hash_size; i++) {
		for (n = g->hash[i]; n; n = next) {
			next = n->hnext;
			if (n->fd >= 0)
				close(n->fd);
			free(n->name);
			free(n);
		}
	}
	free(g->hash);
	g->hash = NULL;
	pthread_rwlock_destroy(&g->shape_lock);
	pthread_mutex_destroy(&g->lock);
	pthread_rwlock_destroy(&g->git_lock);
}

struct node *node_of(struct gfs *g, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? g->root : (struct node *)(uintptr_t)ino;
}

fuse_ino_t node_ino(struct gfs *g, struct node *n)
{
	return n == g->root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)n;
}

static void node_set_fd(struct gfs *g, struct node *n, int fd)
{
	n->fd = fd;
	g->fds++;
	lru_push(g, n);
	lru_evict(g);
}

static int node_update_name(struct gfs *g, struct node *n, struct node *parent,
			    const char *name)
{
	struct node *old = n->parent;
	char *copy;

	if (n->parent == parent && strcmp(n->name, name) == 0)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(n->name);
	n->name = copy;
	if (old != parent) {
		parent->refs++;
		n->parent = parent;
		old->refs--;
		node_maybe_free(g, old);
	}
	return 0;
}

int node_find_or_add(struct gfs *g, struct node *parent, const char *name,
		     const struct policy_zone *zone, enum node_type type,
		     const struct stat *st, struct node **out)
{
	struct node *n;
	size_t h;
	int rc = 0;

	pthread_mutex_lock(&g->lock);
	h = hash_of(g, st->st_dev, st->st_ino, zone);
	for (n = g->hash[h]; n; n = n->hnext)
		/*
		 * Of another type, it is a stale node: its object was deleted
		 * and the inode number given to this one while the kernel
		 * still knew the old node. This one gets a node of its own,
		 * or the kernel would see one inode change its type (and a
		 * chmod of a file would be refused as one of a link).
		 */
		if (n->ino == st->st_ino && n->dev == st->st_dev &&
		    n->zone == zone && n->fmt == (st->st_mode & S_IFMT))
			break;
	if (n) {
		n->nlookup++;
		/* remember the newest name: the old one may be gone */
		node_update_name(g, n, parent, name);
		goto out;
	}
	n = calloc(1, sizeof(*n));
	if (n)
		n->name = strdup(name);
	if (!n || !n->name) {
		free(n);
		n = NULL;
		rc = -ENOMEM;
		goto out;
	}
	n->type = type;
	n->zone = zone;
	n->parent = parent;
	parent->refs++;
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->fmt = st->st_mode & S_IFMT;
	n->nlookup = 1;
	n->fd = -1;
	n->hnext = g->hash[h];
	g->hash[h] = n;
	if (++g->nodes > g->hash_size)
		hash_grow(g);
out:
	pthread_mutex_unlock(&g->lock);
	if (n)
		*out = n;
	return rc;
}

void node_forget(struct gfs *g, struct node *n, uint64_t nlookup)
{
	pthread_mutex_lock(&g->lock);
	n->nlookup = nlookup > n->nlookup ? 0 : n->nlookup - nlookup;
	node_maybe_free(g, n);
	pthread_mutex_unlock(&g->lock);
}

void node_get(struct gfs *g, struct node *n)
{
	pthread_mutex_lock(&g->lock);
	n->refs++;
	pthread_mutex_unlock(&g->lock);
}

void node_put(struct gfs *g, struct node *n)
{
	pthread_mutex_lock(&g->lock);
	n->refs--;
	node_maybe_free(g, n);
	pthread_mutex_unlock(&g->lock);
}

/* Open @n again from its parent by name; check it is the same object. */
static int node_reopen(struct gfs *g, struct node *n)
{
	struct node *parent;
	struct stat st;
	char *name;
	int pfd, fd;

	pthread_mutex_lock(&g->lock);
	parent = n->parent;
	parent->refs++;
	name = strdup(n->name);
	pthread_mutex_unlock(&g->lock);
	fd = name ? 0 : -ENOMEM;
	pfd = fd == 0 ? node_fd(g, parent) : fd;
	if (pfd >= 0) {
		fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			fd = errno == ENOENT ? -ESTALE : -errno;
		node_fd_put(g, parent);
	} else {
		fd = pfd;
	}
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != n->ino ||
			st.st_dev != n->dev)) {
		close(fd);
		fd = -ESTALE; /* the name now leads elsewhere */
	}
	/* unlinked while open: its handles still reach it */
	if (fd == -ESTALE && n->fmt == S_IFREG)
		fd = gfs_handle_fd(g, n->dev, n->ino);
	free(name);
	node_put(g, parent);
	return fd;
}

int node_fd(struct gfs *g, struct node *n)
{
	int fd;

	if (n->pinned)
		return n->fd >= 0 ? n->fd : -ENOENT;
	pthread_mutex_lock(&g->lock);
	if (n->fd >= 0) {
		n->fd_pins++;
		lru_unlink(n);
		lru_push(g, n);
		fd = n->fd;
		pthread_mutex_unlock(&g->lock);
		return fd;
	}
	pthread_mutex_unlock(&g->lock);
	fd = node_reopen(g, n);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&g->lock);
	if (n->fd >= 0) {
		close(fd); /* another thread was first */
	} else {
		n->fd_pins++; /* before set_fd, so eviction spares it */
		node_set_fd(g, n, fd);
		n->fd_pins--;
	}
	n->fd_pins++;
	fd = n->fd;
	pthread_mutex_unlock(&g->lock);
	return fd;
}

void node_fd_put(struct gfs *g, struct node *n)
{
	if (n->pinned)
		return;
	pthread_mutex_lock(&g->lock);
	n->fd_pins--;
	lru_evict(g);
	pthread_mutex_unlock(&g->lock);
}

struct node *node_find(struct gfs *g, dev_t dev, ino_t ino,
		       const struct policy_zone *zone)
{
	struct node *n;

	pthread_mutex_lock(&g->lock);
	for (n = g->hash[hash_of(g, dev, ino, zone)]; n; n = n->hnext)
		if (n->ino == ino && n->dev == dev && n->zone == zone)
			break;
	if (n)
		n->refs++; /* a forget on another thread must not free it */
	pthread_mutex_unlock(&g->lock);
	return n;
}

int node_rename(struct gfs *g, struct node *n, struct node *parent,
		const char *name)
{
	int rc;

	pthread_mutex_lock(&g->lock);
	rc = node_update_name(g, n, parent, name);
	pthread_mutex_unlock(&g->lock);
	return rc;
}

/* Put "/" @s in front of *@p, which must stay at or after @start. */
static int prepend(char **p, char *start, const char *s)
{
	size_t len = strlen(s);

	if ((size_t)(*p - start) < len + 1)
		return -ENAMETOOLONG;
	*p -= len;
	memcpy(*p, s, len);
	*--(*p) = '/';
	return 0;
}

int node_vpath(struct gfs *g, struct node *n, const char *name, char *buf,
	       size_t size, const char **rel)
{
	const struct policy_zone *z = n->zone;
	char *p = buf + size - 1;
	const char *r;
	size_t zlen;
	int rc = 0;

	*p = '\0';
	pthread_mutex_lock(&g->lock);
	if (name)
		rc = prepend(&p, buf, name);
	for (; rc == 0 && n && n != g->root; n = n->parent)
		rc = prepend(&p, buf, n->name);
	pthread_mutex_unlock(&g->lock);
	if (rc < 0)
		return rc;
	if (*p == '\0')
		*--p = '/';
	memmove(buf, p, strlen(p) + 1);
	if (!rel)
		return 0;
	r = buf + strlen(buf);
	if (z) {
		zlen = strlen(z->vpath);
		if (zlen == 1)
			r = buf + 1;
		else if (strncmp(buf, z->vpath, zlen) == 0)
			r = buf[zlen] == '/' ? buf + zlen + 1 : buf + zlen;
	}
	*rel = r;
	return 0;
}

void node_own_git_add(struct gfs *g, const struct stat *st)
{
	pthread_mutex_lock(&g->lock);
	/* past the cap, new repositories simply stay protected */
	if (g->nown_git < sizeof(g->own_git) / sizeof(g->own_git[0])) {
		g->own_git[g->nown_git].dev = st->st_dev;
		g->own_git[g->nown_git++].ino = st->st_ino;
	}
	pthread_mutex_unlock(&g->lock);
}

void node_own_git_del(struct gfs *g, const struct stat *st)
{
	size_t i;

	pthread_mutex_lock(&g->lock);
	for (i = 0; i < g->nown_git; i++) {
		if (g->own_git[i].dev == st->st_dev &&
		    g->own_git[i].ino == st->st_ino) {
			g->own_git[i] = g->own_git[--g->nown_git];
			break;
		}
	}
	pthread_mutex_unlock(&g->lock);
}

/* Is (@dev, @ino) a .git made through the mount? Lock held. */
static bool own_git_has_locked(struct gfs *g, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < g->nown_git; i++)
		if (g->own_git[i].dev == dev && g->own_git[i].ino == ino)
			return true;
	return false;
}

bool node_own_git_has(struct gfs *g, const struct stat *st)
{
	bool own;

	pthread_mutex_lock(&g->lock);
	own = own_git_has_locked(g, st->st_dev, st->st_ino);
	pthread_mutex_unlock(&g->lock);
	return own;
}

bool node_in_own_git(struct gfs *g, struct node *n)
{
	bool own = false;

	/*
	 * The outermost .git decides: a .git made inside the user's
	 * (.git/hooks/.git) must not make what lies below it the program's.
	 */
	pthread_mutex_lock(&g->lock);
	for (; n && n->type == NODE_PASS; n = n->parent)
		if (strcmp(n->name, ".git") == 0)
			own = S_ISDIR(n->fmt) &&
			      own_git_has_locked(g, n->dev, n->ino);
	pthread_mutex_unlock(&g->lock);
	return own;
}

int node_parent_fd(struct gfs *g, struct node *n, char *name, size_t size,
		   struct node **parent)
{
	struct node *p;
	struct stat st;
	int fd;

	pthread_mutex_lock(&g->lock);
	p = n->parent;
	p->refs++;
	fd = gfs_strlcpy(name, n->name, size) >= size ? -ENAMETOOLONG : 0;
	pthread_mutex_unlock(&g->lock);
	if (fd == 0)
		fd = node_fd(g, p);
	if (fd >= 0 && (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			st.st_ino != n->ino || st.st_dev != n->dev)) {
		node_fd_put(g, p);
		fd = -ESTALE;
	}
	if (fd < 0) {
		node_put(g, p);
		return fd;
	}
	*parent = p; /* keeps the ref until the caller's node_put */
	return fd;
}
