/*
 * fs - the daemon's internals: nodes, the inode table, the virtual tree,
 * the FUSE callbacks and the handles the kernel holds. The only part of
 * golemfs that knows FUSE.
 *
 * Nodes, each served by its kind's table of operations (backend.h):
 *  - NODE_VDIR: a directory made at mount from the policy: the root, each
 *    zone's top, each mount target, their parents, and the path to a
 *    worker's restrict. It has fixed children and maybe an "underlay": the
 *    real directory that covers it (the zone's own directory, or the
 *    newest bind mount whose target contains it), whose entries show
 *    through beside the fixed children.
 *  - NODE_PASS: a file or directory of a zone's backing tree. It knows its
 *    zone, its parent and name (to be found again), and its device and
 *    inode number (to check that what is found again is the same object).
 *  - NODE_STG: a file or directory of a staged commit (stgtree.c); the top
 *    of a staged zone is a NODE_VDIR that the staged tree's table serves.
 *
 * Descriptors: each node may hold an O_PATH fd. Zone roots and virtual
 * directories keep theirs for the life of the mount; other nodes' fds are
 * cached in an LRU bounded by gfs->fd_cap, and a node whose fd was closed
 * is re-opened from its parent by name, O_NOFOLLOW, and must still have
 * the same (dev, ino) or the request fails with ESTALE. So trees of any
 * size work under RLIMIT_NOFILE.
 *
 * Locking: gfs->lock (the table lock) protects every node's nlookup,
 * parent, name, fd, fd_pins and LRU links, and the hash. It is never held
 * across a syscall that may block on the backing filesystem for long, nor
 * across fuse_reply_*(). Node fields not listed here never change. A node
 * handed from one thread to another, or kept past the table lock by a
 * lookup that did not come from the kernel (node_find()), holds a
 * reference (refs), so a forget on another thread cannot free it.
 *
 * Lock order. The daemon's locks, each guarding what its declaration says:
 *
 *   gfs.git_lock      (gitguard.c) git directories: rwlock, see gitguard.h
 *   gfs.shape_lock    (links.c)   where symlinks stand: rwlock, see below
 *   stg_zone.lock     (stgtree.c) a staged zone's repository and views
 *   approvals.lock    (approve.c) questions, grants, the approver socket
 *   gfs.lock          (here)      the inode table, handles, own_git
 *   gfs_loop.lock     (loop.c)    who reads /dev/fuse (readers.h)
 *   comm_lock         (record.c)  the pid -> command cache
 *   nt.lock           (notice.c)  refusal notices
 *   audit.lock        (audit/)    the event queue
 *
 * A lock may be taken while holding only locks above it in this list
 * (checked at run time in sanitizer builds, or with -Dlock_check=true:
 * common/lockorder.h, whose levels follow this list);
 * today's nestings: git_lock -> shape_lock -> gfs.lock (a rename), and
 * approvals.lock -> comm_lock (a question names the asking command).
 * No lock of ours is held across record() or op_record() (the audit
 * queue may wait for room), gfs_wait_begin() or _end(), a wait for an
 * approval's answer (but the approvals cond wait, which releases its
 * lock), an approval hook, fork(), fuse_reply_*() or
 * fuse_lowlevel_notify_*(). A write to the program's stderr (notice.c)
 * never blocks.
 *
 * The trust level is read once per request (struct op's trust, or
 * gfs_trust() once in a callback without an op), so a request sees one
 * level from its first decision to its audit row.
 */
#ifndef GFS_FS_H
#define GFS_FS_H

#define FUSE_USE_VERSION 34

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "policy/policy.h"

enum node_type {
	NODE_VDIR,
	NODE_PASS,
	NODE_STG, /* inside a staged zone (stgtree.c); no fd */
};

struct vchild;

/* Synthetic inode numbers of virtual directories with no underlay. */
#define VDIR_INO_BASE 0x7fffff00u

struct node {
	enum node_type type;
	const struct policy_zone *zone; /* PASS: its zone; VDIR: underlay's,
					   or NULL when it has none */
	struct node *parent;            /* ref held; NULL for the root */
	char *name;                     /* name in parent; "" for the root */
	dev_t dev;
	ino_t ino;
	mode_t fmt;         /* S_IFMT bits */
	bool pinned;        /* fd kept open for the mount's life */
	int fd;             /* O_PATH, or -1 */
	unsigned fd_pins;   /* users of fd right now; not evicted while > 0 */
	uint64_t nlookup;   /* kernel references */
	unsigned refs;      /* children and in-flight users */
	struct node *hnext; /* hash chain by (dev, ino) */
	struct node *lru_prev, *lru_next; /* open-fd LRU, unpinned only */
	/* NODE_VDIR */
	struct vchild *children;
	size_t nchildren;
	bool only_children; /* on the way to a restrict: underlay hidden */
};

/* A fixed child of a virtual directory. */
struct vchild {
	char *name;
	struct node *node; /* NODE_VDIR */
};

struct audit;
struct stg_zone;
struct approvals;
struct gfs_loop;
struct op;

struct gfs {
	struct policy *policy;
	struct audit *audit;     /* NULL when audit.enabled is false */
	enum policy_trust trust; /* live level: read with gfs_trust(), once
				    per request; changed (atomically) only
				    by the control thread */
	char *session;
	char *mountpoint;
	int ctl_fd; /* control socket (control.c), or -1 */
	char *ctl_path;
	ino_t ctl_ino; /* of the socket file we bound */
	int ctl_lock;  /* flock()ed SOCKET.lock: the path is ours */
	pthread_t ctl_thread;
	int ctl_wake; /* eventfd: the control thread should stop */
	bool ctl_running;
	struct node *root;
	struct stg_zone *staged;     /* one per staged zone (stgtree.c) */
	struct approvals *approvals; /* approve.c */
	/* answers the policy's "ask": approval_ask(), set by approval_init().
	   op.c asks through it, so the request framework includes nothing
	   of the approvals built on it (approve.c includes op.h) */
	int (*ask)(struct op *op, enum policy_op pop, uint64_t bytes);
	struct gfs_loop *loop; /* loop.c, while serving */
	size_t nstaged;
	struct node **vdirs; /* all of them, for release */
	size_t nvdirs;
	struct fuse_session *se;
	time_t started;
	uid_t uid;
	gid_t gid;
	dev_t hide_dev; /* the sandbox root, never shown in a zone */
	ino_t hide_ino;
	dev_t self_dev; /* this mount: never shown inside itself */
	double timeout_rw, timeout_ro;

	/* .git directories made through this mount: the program's own repos */
	struct {
		dev_t dev;
		ino_t ino;
	} own_git[64]; /* protected by lock */
	size_t nown_git;

	struct fh_list {
		struct fh_list *prev, *next;
		/* untracks and frees the handle (gfs_close_open_files) */
		void (*drop)(struct gfs *g, struct fh_list *h);
	} open_files; /* every handle the kernel holds; under lock */

	/* each zone's backing directory, indexed as policy->zones (vtree.c) */
	struct zone_top {
		bool known; /* opened at mount: the zone is served */
		dev_t dev;
		ino_t ino;
		char *host; /* its path on the host, without symlinks */
	} * tops;
	/*
	 * Where symlinks stand (links.c): a rename holds it for writing from
	 * its symlink check to the node update, symlink(2) and link(2) for
	 * reading from their check to the act; so no rename moves a link's
	 * directory between its check and its creation. Taken before lock,
	 * never across an approval or a reply.
	 */
	pthread_rwlock_t shape_lock;

	pthread_mutex_t lock;      /* the table lock, see above */
	pthread_rwlock_t git_lock; /* gitguard.h; taken before lock */
	struct node **hash;
	size_t hash_size, nodes;
	struct node lru; /* list head of nodes holding a cached fd */
	size_t fds, fd_cap;
	mode_t umask; /* the daemon's own, never applied to a caller's file */
	bool as_root; /* new objects are given to the calling uid/gid */
};

/* gfs_trust() - the live trust level; read it once per request. */
static inline enum policy_trust gfs_trust(struct gfs *g)
{
	return __atomic_load_n(&g->trust, __ATOMIC_ACQUIRE);
}

/* ---- loop.c ---- */
/*
 * gfs_loop() - serve requests on this thread (and helpers) until the
 * session ends; then unmount and call gfs_loop_join() before destroying
 * the session. Return: 0 or -ENOMEM.
 */
int gfs_loop(struct gfs *g);
void gfs_loop_join(struct gfs *g);
/*
 * gfs_wait_begin() / _end() - around a wait that may be long (approval,
 * fsync, room in a full audit queue: fs/mount.c's audit_wait): another
 * thread reads meanwhile. Every such wait of a request handler must be
 * inside them, or the mount may stop answering. Hand what
 * gfs_wait_begin() returned to gfs_wait_end(). No-ops when not serving,
 * on a thread that is not the loop's, and inside another such wait (only
 * the outermost counts). Take no lock across gfs_wait_begin() (the
 * loop's lock is the last in the lock order).
 */
bool gfs_wait_begin(struct gfs *g);
void gfs_wait_end(struct gfs *g, bool counted);

/* ---- inode.c ---- */
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

/* ---- links.c: symlinks: inside ---- */
/*
 * links_check_new() - may a symlink with @target be made (symlink(2), or
 * link(2) of a symlink) in @op's directory? Call with shape_lock held for
 * reading (links_lock_new). Return: 0 or -errno, @op->why set.
 */
int links_check_new(struct op *op, const char *target);
/*
 * links_check_move() - may renameat2(@from's dir, @name, @to's dir,
 * @newname, @flags) happen? Every symlink it moves higher up (the entry,
 * or those in a directory's subtree, both sides of an exchange) must stay
 * inside the zone at its new depth. Call with shape_lock held for
 * writing (links_lock_move) until the nodes are updated.
 * Return: 0 or -errno, @from->why set.
 */
int links_check_move(struct op *from, struct op *to, const char *name,
		     const char *newname, unsigned int flags);
void links_lock_new(struct gfs *g);
void links_lock_move(struct gfs *g);
void links_unlock(struct gfs *g);

/* ---- vtree.c ---- */
/*
 * vtree_build() - make the virtual directories and zone roots of @g->policy;
 * creates sandboxed zone directories and the session directory.
 */
int vtree_build(struct gfs *g, struct gfs_err *err);
void vtree_release(struct gfs *g);
/* vdir_visible() - may the program see this directory at level @t? */
bool vdir_visible(const struct node *n, enum policy_trust t);
/* vdir_shows_underlay() - do the underlay's entries show through at @t? */
bool vdir_shows_underlay(const struct node *n, enum policy_trust t);
/* vdir_child() - the fixed child named @name, visible or not, or NULL. */
struct node *vdir_child(const struct node *n, const char *name);

/* ---- backend.c: the FUSE callbacks ---- */
extern const struct fuse_lowlevel_ops gfs_ops;

/* ---- handle.c: the handles the kernel holds ---- */
/*
 * gfs_handle_track() - remember a file or directory handle given to the
 * kernel (@h is the handle's first member), so one the kernel never
 * releases (the connection was aborted: a sandbox killed, a daemon told
 * to stop) is still dropped at unmount. gfs_handle_untrack() at release;
 * it is a no-op for a handle never tracked (h->next NULL).
 */
void gfs_handle_track(struct gfs *g, struct fh_list *h,
		      void (*drop)(struct gfs *g, struct fh_list *h));
void gfs_handle_untrack(struct gfs *g, struct fh_list *h);
/*
 * gfs_handle_fd() - an O_PATH fd of the file (@dev, @ino) taken from one
 * of its open handles: a file unlinked (or moved out of reach) while open
 * is still served through its handles, as on a local filesystem.
 * Return: the fd, or -ESTALE when no handle has it open.
 */
int gfs_handle_fd(struct gfs *g, dev_t dev, ino_t ino);
/* gfs_close_open_files() - at unmount: drop what the kernel never released. */
void gfs_close_open_files(struct gfs *g);

#endif
