/*
 * fs - the daemon's shared types: the nodes, the daemon (struct gfs), a
 * request in flight (struct op), and the rules and the lock order that
 * go with them. The daemon is the only part of golemfs that knows FUSE.
 *
 * Types only: each file's functions are declared in its own header
 * (inode.h, vtree.h, links.h, loop.h, handle.h, backend.h, op.h, ...),
 * so that every header but this one belongs to one .c file and the files
 * of fs/ include each other in no circle (tests/check_docs.sh).
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
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "policy/policy.h"
#include "record.h"

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

/* One request in flight: what it acts on and why it was refused. */
struct op {
	struct gfs *g;
	fuse_req_t req;
	enum rec_op kind;
	struct node *node;              /* the target, or the parent of @name */
	const char *name;               /* child name, or NULL */
	const struct policy_zone *zone; /* NULL: a purely virtual place */
	int dirfd;               /* pinned fd of node when @name is set */
	enum policy_trust trust; /* the live level, read once at op_init():
				    the request decides and records at it */
	bool ended;              /* op_record() or op_discard() was called */
	bool second;             /* op_init_second(): records nothing */
	char vpath[PATH_MAX];    /* op_init() clears what comes before */
	const char *rel;
	struct gfs_err why;
	int reserve_rc;  /* audit_reserve(): 1 taken, 0 none, -EIO full */
	uint64_t ticket; /* of the recorded event (open, create) */
};

/* gfs_trust() - the live trust level; read it once per request. */
static inline enum policy_trust gfs_trust(struct gfs *g)
{
	return __atomic_load_n(&g->trust, __ATOMIC_ACQUIRE);
}

#endif
