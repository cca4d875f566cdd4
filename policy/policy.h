/*
 * policy - configuration, worker chains and the one access decision.
 *
 * This module owns everything golemfs knows about *what may happen*: it
 * reads the project config (YAML, libyaml) and any chain of worker files
 * into an immutable struct policy, and answers "may this op on this path
 * in this zone happen at this trust level?" with allow, ask or deny.
 *
 * Invariants:
 *  - A loaded policy is immutable; share it freely between threads.
 *    The live trust level is not part of it: callers pass it per request.
 *  - Rights are precomputed per zone and trust level at load time
 *    (zone->rights[level]); policy_decide() does bit tests, plus string
 *    work only for suffix and protect rules and for the text of a denial.
 *  - Nothing here knows FUSE, SQLite or git. No logging, no globals.
 *  - Paths kept in a policy are absolute and normalised (no "." or ".."
 *    components); they are not checked to exist.
 *
 * Zones and bind mounts are one thing here: a bind mount becomes a zone of
 * kind ZONE_MOUNT whose name is its target ("/", "/cache"). Named zones
 * have virtual path "/NAME" and lie over bind mounts.
 */
#ifndef GFS_POLICY_H
#define GFS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/gfs_err.h"

enum policy_trust {
	TRUST_UNTRUSTED,
	TRUST_SESSION,
	TRUST_WORKSPACE,
	TRUST_FULL,
	TRUST_COUNT
};

/* Rights, as in the trust table: r w l d, plus "create new files only". */
enum {
	RIGHT_R = 1 << 0, /* read file contents and attributes */
	RIGHT_W = 1 << 1, /* create, modify; implies RIGHT_C */
	RIGHT_L = 1 << 2, /* list directories */
	RIGHT_D = 1 << 3, /* delete, rename away */
	RIGHT_C = 1 << 4, /* create new names only, never overwrite */
	RIGHT_ALL = RIGHT_R | RIGHT_W | RIGHT_L | RIGHT_D | RIGHT_C,
	RIGHT_RO = RIGHT_R | RIGHT_L,
};

enum zone_kind {
	ZONE_PLAIN,     /* a named view of a real directory */
	ZONE_WORKSPACE, /* the program's working area */
	ZONE_REPO,      /* the user's git working tree */
	ZONE_STAGED,    /* staged commits (staging/) */
	ZONE_SESSION,   /* private per-session directory */
	ZONE_WORKERS,   /* worker definitions */
	ZONE_MOUNT,     /* a Docker-style bind mount */
};

enum approval {
	APPROVAL_PRE,     /* preApproved: no question asked */
	APPROVAL_ASK,     /* wait for a user or hook answer */
	APPROVAL_BLOCKED, /* never, whatever anyone answers */
};

enum symlink_rule {
	SYMLINKS_INSIDE, /* a link may only lead within its zone */
	SYMLINKS_DENY,   /* no symlink may be created */
};

enum audit_full {
	AUDIT_FULL_BLOCK,
	AUDIT_FULL_DROP,
	AUDIT_FULL_FAIL,
};

/* A staged zone's max_file_bytes when its config sets none: 1 GiB. */
#define POLICY_STAGED_MAX_FILE_BYTES (1ull << 30)

struct policy_zone {
	char *name;  /* "input"; for ZONE_MOUNT the target, "/cache" */
	char *vpath; /* where it appears in the virtual root: "/input" */
	enum zone_kind kind;
	char *path;   /* backing directory; NULL for ZONE_SESSION/STAGED */
	char *repo;   /* ZONE_STAGED: the trusted repository */
	char *branch; /* ZONE_STAGED: its trusted branch */
	/* ZONE_STAGED: clearance checks at push (clearance: key) */
	bool clear_allow_binary, clear_allow_entropy;
	uint64_t clear_max_bytes; /* 0: the default, 10 MB */
	bool ro;         /* mode: ro, mount readonly, or a worker's readonly */
	char **suffixes; /* NULL-terminated, or NULL for any name */
	uint64_t max_file_bytes; /* 0: no limit (staged zones: always one) */
	enum approval approve_write;
	enum approval approve_delete;
	uint8_t trust_rights[TRUST_COUNT]; /* table row, before mode/worker */
	uint8_t worker_rights;             /* what the worker chain left */
	const char *lowered_by;            /* worker that lowered it, or NULL */
	uint8_t rights[TRUST_COUNT];       /* effective: all of the above */
	int line, col;                     /* where it was declared */
	/* Filled by policy_resolve(); empty before it. */
	char *real; /* backing directory, symlinks resolved, or NULL */
	struct policy_guard *guards; /* golemfs's own files in this zone */
	size_t nguards;
	struct policy_nest *nests; /* other zones' directories in this one */
	size_t nnests;
	/* the part of @path (else of @real) after its outermost ".git"
	   component ("" for the .git itself), when the zone lies in one;
	   else NULL. Points into it; set by policy_finish() and
	   policy_resolve(). */
	const char *git_inner;
};

/*
 * A thing of golemfs's own that lies inside a zone: its config file, a
 * worker file, the approval hook, the sandbox root and what it holds
 * (sessions, staging repositories), the audit database, and the names
 * config discovery would find next time. Nothing may write, create,
 * delete or rename it, nor delete or rename a directory above it.
 */
struct policy_guard {
	char *rel;        /* within the zone, no leading '/'; "" its top */
	char *host;       /* the host path, for reasons */
	const char *what; /* "the config file", ... (static) */
	bool tree;        /* everything beneath it is guarded too */
};

/*
 * Another zone's backing directory inside this zone: a path reached
 * through both gets the stricter rules of both, and that directory (or
 * one above it) cannot be deleted or renamed through this zone.
 */
struct policy_nest {
	char *rel;   /* where the other zone's top lies in this zone */
	size_t zone; /* its index in policy->zones */
};

struct policy_worker {
	char *name;
	char *file;
};

struct policy {
	char *config_file; /* NULL for the embedded default */
	char *config_dir;  /* base for relative paths */
	char *root;        /* sandbox root directory */
	bool direct;       /* sandbox.mode: direct */
	struct policy_zone *zones;
	size_t nzones;  /* named zones first, then mounts in config order */
	size_t nnamed;  /* how many of zones[] are named (not mounts) */
	char **protect; /* NULL-terminated globs */
	enum symlink_rule symlinks;
	bool network;
	enum policy_trust trust; /* level at mount */
	char *restrict_path;     /* worker restrict, "/" when none */
	char *restrict_worker;   /* the worker that set it, its file and */
	char *restrict_file;     /* place, for errors; NULL when none */
	int restrict_line, restrict_col;
	char *hook;            /* approval hook command, or NULL */
	unsigned hook_timeout; /* seconds */
	char *audit_path;
	enum audit_full audit_on_full;
	bool audit_enabled;            /* audit.enabled, default true */
	size_t audit_queue;            /* audit.queue: events held in memory */
	struct policy_worker *workers; /* the chain, in order */
	size_t nworkers;
	char *writable[TRUST_COUNT]; /* "/a, /b" or "" per level, for reasons */
};

/* What a request wants to do; each maps to the right it needs. */
enum policy_op {
	POP_READ,   /* open for reading, read, getattr: r */
	POP_LIST,   /* readdir: l */
	POP_CREATE, /* a new name: create, mkdir, symlink, link, mknod: w or c
		     */
	POP_WRITE, /* change an existing object: write, truncate, chmod...: w */
	POP_DELETE,  /* unlink, rmdir, rename away: d */
	POP_REPLACE, /* rename onto an existing name: w and d */
};

struct policy_req {
	enum policy_op op;
	const struct policy_zone *zone;
	enum policy_trust trust;
	const char *path; /* within the zone, no leading '/'; "" is its top */
	bool is_dir;      /* suffix rules apply to non-directories only */
	bool empty_dir;   /* POP_CREATE of an empty directory (mkdir): it
			     plants nothing, so protect globs allow it */
	bool own_repo;    /* the outermost .git on the path is a directory
			     made through the mount this session (the
			     program's own repository): ".git/..." protect
			     globs and the git rules do not apply */
	uint64_t size;    /* POP_WRITE/POP_CREATE: size the file would reach */
};

/* policy_decide() returns this for "ask the user first". */
#define POLICY_ASK 1

/*
 * policy_decide() - may this request happen?
 * @why: optional; on a denial, the reason for a reader, e.g.
 *       "/input is read-only; writable: /output, /session".
 * Return: 0 allow, POLICY_ASK, or a negative errno: -EROFS (zone or mount
 * read-only), -EACCES (trust, worker, suffix, protect, blocked), -EFBIG
 * (over max_file_bytes), -ENOENT (zone not visible at this level).
 */
int policy_decide(const struct policy *p, const struct policy_req *req,
		  struct gfs_err *why);

/*
 * policy_repo_readable() - may a program at @trust read repository @repo?
 * The rights of a repo zone with that path decide; without one, the
 * built-in table's repo row (r from workspace on).
 */
bool policy_repo_readable(const struct policy *p, const char *repo,
			  enum policy_trust trust);

/*
 * policy_link_need() - the least depth below its zone's top (the top is 0)
 * at which a symlink with @target stays inside the zone on the host,
 * whatever is renamed, exchanged or linked around it later. A relative
 * target must be "../" k times then names only (k is the need); an
 * absolute one must name @host_top (the zone's backing directory as the
 * host names it, no symlinks) or a path under it by names only (need 0).
 * @need: written on success.
 * @host_top: NULL when unknown: every absolute target is refused.
 * Return: 0, or -EACCES (@err says why) when no depth makes it safe.
 */
int policy_link_need(size_t *need, const char *target, const char *host_top,
		     struct gfs_err *err);

/*
 * policy_link_check() - may a symlink with @target sit in a directory
 * @depth levels below its zone's top? For symlink(2), link(2) of a
 * symlink, and each link that a rename or exchange moves higher up.
 * Return: 0 or -EACCES (@err says why).
 */
int policy_link_check(const char *target, size_t depth, const char *host_top,
		      struct gfs_err *err);

/* policy_zone_visible() - has the zone any right at @trust? */
bool policy_zone_visible(const struct policy_zone *z, enum policy_trust trust);

/*
 * policy_is_protected() - does a protect glob match @path (within a zone)?
 * Globs match at any depth ("sub/.git/config" too).
 * @own_repo: skip globs that start with ".git/" (see policy_req).
 * @glob: optional; the glob that matched.
 */
bool policy_is_protected(const struct policy *p, const char *path,
			 bool own_repo, const char **glob);

/* Where a path within a zone lies with respect to git directories. */
enum policy_git_place {
	GIT_OUTSIDE,   /* no component is ".git" */
	GIT_ENTRY,     /* the outermost ".git" itself: git dir or gitfile */
	GIT_CONTENT,   /* inside it: refs, objects, index, HEAD, logs */
	GIT_SENSITIVE, /* inside it, never written: config,
			  config.worktree, commondir, gitdir, alternates,
			  anything under hooks/, info/, rebase-merge/,
			  rebase-apply/, sequencer/, or a nested .git */
};

/*
 * policy_git_place() - classify @path (within zone @z, may be NULL) by its
 * ".git" components, lexically; a zone whose directory lies in a .git is
 * inside one everywhere. Pure string work.
 */
enum policy_git_place policy_git_place(const struct policy_zone *z,
				       const char *path);

/*
 * policy_decide_git() - the git rule alone for a mutating request: a git
 * directory that is not the program's own (@r->own_repo false) is never
 * changed, except its ordinary contents (GIT_CONTENT) in a zone of kind
 * repo whose rights at @r->trust include w; a new .git appears only by
 * mkdir. Return: 0 or -EACCES with a reason naming the repository.
 */
int policy_decide_git(const struct policy_req *r, struct gfs_err *why);

/*
 * policy_check_protect() - the git rule and the protect globs, without
 * rights or approvals: for where a moved object arrives, and for what it
 * takes along. Return: 0 or -EACCES.
 */
int policy_check_protect(const struct policy *p, const struct policy_req *r,
			 struct gfs_err *why);

/*
 * policy_decide_beneath() - may the entry @sub beneath the directory a
 * rename or exchange moves be moved with it? @r describes one side of the
 * move: the directory's path there (leaving: POP_DELETE, arriving:
 * POP_CREATE) and whose the .git above it is (own_repo); @sub_own says
 * whose the outermost .git within @sub is, when @r->path has none.
 * Return: 0, -EACCES with a reason naming the protected path, -EXDEV
 * when the path is too long to judge.
 */
int policy_decide_beneath(const struct policy *p, const struct policy_req *r,
			  const char *sub, bool sub_own, struct gfs_err *why);

/*
 * The rules a callback needs besides policy_decide() (rules.c). Each is
 * pure: fs/ finds the facts (a mode, a name, an offset) and asks; the
 * answer is 0 or a negative errno with the reason in @why (optional).
 */

/*
 * policy_check_size() - may a file in @z reach @size bytes? The zone's
 * max_file_bytes at write time (write, fallocate, copy_file_range);
 * policy_decide() applies the same rule to POP_CREATE/POP_WRITE.
 * Return: 0, or -EFBIG "ZONE takes files of at most N bytes".
 */
int policy_check_size(const struct policy_zone *z, uint64_t size,
		      struct gfs_err *why);

/*
 * policy_check_mknod() - may mknod(2) make an object of @mode (type and
 * permission bits)? Fifos, sockets and regular files, yes; character and
 * block devices never. Return: 0 or -EPERM.
 */
int policy_check_mknod(mode_t mode, struct gfs_err *why);

/*
 * policy_check_rename_flags() - may a rename with renameat2(2) @flags
 * happen? Never with RENAME_WHITEOUT: it leaves a character device 0:0
 * where the source was, a device node mknod could not make (and one
 * under any name, golem.yaml too). Return: 0 or -EPERM.
 */
int policy_check_rename_flags(unsigned int flags, struct gfs_err *why);

/*
 * policy_falloc_end() - how far fallocate(2) with @mode at @off for @len
 * may make a file of @size reach, in size or in blocks, for
 * policy_check_size(): @off + @len, also with FALLOC_FL_KEEP_SIZE (the
 * blocks are the disk's all the same); @size + @len for
 * FALLOC_FL_INSERT_RANGE; 0 for the modes that only free space
 * (FALLOC_FL_PUNCH_HOLE, FALLOC_FL_COLLAPSE_RANGE).
 */
uint64_t policy_falloc_end(int mode, uint64_t off, uint64_t len, uint64_t size);

/*
 * policy_check_xattr() - may the extended attribute @name be set or
 * removed (through @vpath, for the reason)? Never in the security. and
 * trusted. namespaces: they carry capabilities and labels the host
 * honours. Return: 0 or -EACCES.
 */
int policy_check_xattr(const char *name, const char *vpath,
		       struct gfs_err *why);

/*
 * policy_allowed_mode() - the mode bits a program may give a new or
 * existing object: @mode without setuid and setgid, so that nothing made
 * or changed through the sandbox runs with its owner's or group's rights.
 * The sticky bit, permissions and type bits stay. A silent rule: the
 * call succeeds with the bits cleared, as on a nosuid mount.
 */
mode_t policy_allowed_mode(mode_t mode);

/*
 * policy_create_only() - does @z take only new names at @trust (right c
 * without w)? A create there must never open what exists (O_EXCL), so
 * an existing file is not truncated or written through it.
 */
bool policy_create_only(const struct policy_zone *z, enum policy_trust trust);

/* One end of a rename or a hard link, for the rules between two places. */
struct policy_end {
	const struct policy_zone *zone; /* NULL: no zone (a virtual place) */
	const char *rel;   /* within the zone, no leading '/'; "" its top */
	const char *vpath; /* as the program names it, for reasons */
};

/* What joins the two ends: the words of the EXDEV reason differ. */
enum policy_pair {
	PAIR_RENAME, /* rename or exchange, @from to @to */
	PAIR_LINK,   /* link(2): a second name @to for @from */
};

/*
 * policy_check_zones() - do both ends lie in one zone? Renames and hard
 * links never cross zones: EXDEV makes mv(1) copy and delete, each name
 * decided on its own. Only the zones are compared (a NULL zone is never
 * the same as another); @rel may be NULL.
 * Return: 0, or -EXDEV "rename A to B crosses zones" (PAIR_RENAME),
 * "B: hard links stay within one zone" (PAIR_LINK).
 */
int policy_check_zones(enum policy_pair pair, const struct policy_end *from,
		       const struct policy_end *to, struct gfs_err *why);

/*
 * policy_check_areas() - do both ends of a move within one zone lie in
 * the same area of it (policy_area()): both outside, or both inside the
 * same other zone's directory? A move into or out of another zone's
 * directory crosses zones as well.
 * Return: 0, or -EXDEV: "rename A to B crosses zones" (PAIR_RENAME),
 * "B: hard links stay within one zone (A lies in another zone's
 * directory)" (PAIR_LINK).
 */
int policy_check_areas(enum policy_pair pair, const struct policy_end *from,
		       const struct policy_end *to, struct gfs_err *why);

/*
 * policy_check_staged_move() - does a rename in a staged zone stay inside
 * one staged commit? @rel is "ID/path" on both ends; a commit itself
 * ("ID") is never renamed, and nothing moves between commits or zones.
 * Return: 0, or -EXDEV "rename A to B leaves its staged commit".
 */
int policy_check_staged_move(const struct policy_end *from,
			     const struct policy_end *to, struct gfs_err *why);

/*
 * policy_check_link_source() - may the object at @r->path get a second
 * name (link(2))? A link is a writer of its inode, so the source is
 * judged as if written where it is (@r->op is ignored; @r->zone, trust,
 * path and own_repo as for a write there): not when the git rule or a
 * protect glob would refuse that write, nor when it is one of golemfs's
 * own files (policy_guard). Rights and approvals are the new name's
 * (policy_decide() of its POP_CREATE).
 * Return: 0, or -EACCES "no second name for 'P': <why>" or "'P' is
 * protected and cannot be linked".
 */
int policy_check_link_source(const struct policy *p, const struct policy_req *r,
			     struct gfs_err *why);

/*
 * symlinks: inside, beyond the target itself (policy_link_check()):
 * where a symlink may be made or moved to at all. The daemon measures
 * the place on the host, walking ".." from the link's directory up to the
 * nearest zone top, and asks.
 */
struct policy_link_place {
	const char *vpath;              /* the request's path, for reasons */
	const struct policy_zone *zone; /* the request's zone, for reasons */
	bool zoned;           /* the zone's top is known (opened at mount) */
	int depth_rc;         /* 0, or -errno: no zone top met, or I/O */
	size_t depth;         /* directories below that top, when 0 */
	const char *host_top; /* that top on the host, when 0 */
};

/* What puts a symlink at a place: the words of the refusal differ. */
enum policy_link_act {
	LINK_MAKE, /* symlink(2), or link(2) of a symlink */
	LINK_MOVE, /* a rename or exchange that moves links */
};

/*
 * policy_check_symlinks() - may symlinks be made at all?
 * Return: 0, or -EACCES "symlinks may not be created (symlinks: deny)".
 */
int policy_check_symlinks(const struct policy *p, struct gfs_err *why);

/*
 * policy_check_link_place() - can a symlink's target be judged at @at?
 * Only in a zone whose top is known, at a depth that was measured; then
 * policy_link_check(target, at->depth, at->host_top) decides.
 * Return: 0, or -EACCES: "V: symlinks are made only in a zone's
 * directory" (LINK_MAKE) or "V: not in a zone's directory" (LINK_MOVE)
 * when not zoned; "V: cannot tell where it lies in ZONE (error)" when
 * the depth is unknown.
 */
int policy_check_link_place(enum policy_link_act act,
			    const struct policy_link_place *at,
			    struct gfs_err *why);

/* How much a move that places links higher up may take along. */
#define POLICY_LINK_WALK_MAX_ENTRIES 100000
#define POLICY_LINK_WALK_MAX_LEVELS 128

/*
 * policy_check_link_walk() - may a rename that moves a tree higher up go
 * on to its @entries-th entry (counting from 1), which lies @level
 * directories below the moved object and is a directory when @is_dir?
 * Past these bounds its symlinks cannot all be checked.
 * Return: 0, or -EACCES "V: moving more than N entries higher up is
 * refused: ..." or "V: moving a tree deeper than N levels higher up is
 * refused" (V is @vpath).
 */
int policy_check_link_walk(size_t entries, unsigned level, bool is_dir,
			   const char *vpath, struct gfs_err *why);

/*
 * policy_link_unread() - the refusal of such a move when a symlink
 * (@fmt S_IFLNK) or a directory (any other) in the tree could not be
 * read (@err, an errno): what was not read may lead anywhere.
 * Return: -EACCES "V: a symlink it moves cannot be read (error)" or
 * "V: a directory it moves cannot be read (error)".
 */
int policy_link_unread(mode_t fmt, int err, const char *vpath,
		       struct gfs_err *why);

/*
 * What /ZONE shows of a staged commit (staged zone @z) to a program at
 * @trust. policy_staged_limited() - may it not read the repository the
 * zone stages for (policy_repo_readable())? Then it sees only what the
 * commit creates or changes, so that /staged is no way to read the
 * repository: policy_staged_shows() says whether @path (within the
 * commit, "" its top) is shown, given the commit's @changes (@n paths):
 * the top, each changed path, and the directories that hold one.
 */
bool policy_staged_limited(const struct policy *p, const struct policy_zone *z,
			   enum policy_trust trust);
bool policy_staged_shows(const char *path, char *const *changes, size_t n);

/*
 * policy_staged_from_nothing() - does a staged commit made at @trust
 * start from an empty tree rather than the trusted branch? An untrusted
 * program never sees the repository, so its commit starts from nothing.
 */
bool policy_staged_from_nothing(enum policy_trust trust);

/*
 * policy_check_vdir_name() - may a name in a directory of the virtual
 * tree (the root, or a directory on the way to a zone) be made, removed
 * or renamed? Not a fixed child (@fixed: a zone, or a directory on the
 * way to one): -EBUSY, without a reason. Nor when no zone's directory
 * shows through the virtual one at @trust (@underlay false): -EACCES
 * "WHERE holds only zones; writable: LIST" (@where names the place).
 * Return: 0, -EBUSY or -EACCES.
 */
int policy_check_vdir_name(const struct policy *p, enum policy_trust trust,
			   bool fixed, bool underlay, const char *where,
			   struct gfs_err *why);

/*
 * policy_check_in_zone() - is there a zone to decide in at all? A
 * request on a purely virtual place (@z NULL) is refused before any
 * rule: -EACCES "VPATH is a virtual directory". Return: 0 or -EACCES.
 */
int policy_check_in_zone(const struct policy_zone *z, const char *vpath,
			 struct gfs_err *why);

/*
 * How much a directory that a rename or exchange moves may hold, for
 * policy_decide_beneath() to judge every entry where it leaves and
 * where it arrives. A larger one is refused with EXDEV, so that mv(1)
 * copies and deletes, each name decided on its own.
 */
#define POLICY_MOVE_MAX_ENTRIES 16384
#define POLICY_MOVE_MAX_DEPTH 64

/*
 * policy_move_too_large() - the refusal of a move whose tree is past
 * those bounds (or whose paths are too long to walk): -EXDEV "VPATH
 * holds more than N entries or M levels to check; moving it is copying
 * and deleting".
 */
int policy_move_too_large(const char *vpath, struct gfs_err *why);

/*
 * policy_staged_refuse_kind() - a staged commit holds only regular files
 * and directories (made by create and mkdir): mknod, symlink and link(2)
 * there are refused with -EPERM "a staged commit holds only files and
 * directories".
 */
int policy_staged_refuse_kind(struct gfs_err *why);

/*
 * policy_load() - read config (or the embedded default) and a worker chain.
 * @out:     new policy on success, free with policy_free(); untouched on
 *           failure.
 * @config:  file to read, or NULL for discovery from @cwd upward
 *           (golem.yaml, golem-forge.config.yaml), else the embedded default.
 * @workers: NULL-terminated list of worker files applied in order, or NULL.
 * @cwd:     directory discovery starts at and the default root is under.
 * @err:     "FILE:LINE:COL: what is wrong" on failure.
 * Return: 0, -EINVAL (bad config or worker), -ENOENT, -EIO, -ENOMEM.
 */
int policy_load(struct policy **out, const char *config,
		const char *const *workers, const char *cwd,
		struct gfs_err *err);

/*
 * policy_parse() - as policy_load() for config text held in memory.
 * @name: shown in errors as the file name; @dir: base for relative paths.
 */
int policy_parse(struct policy **out, const char *text, size_t len,
		 const char *name, const char *dir, struct gfs_err *err);

/*
 * policy_apply_worker() - lower @p by one worker file (parent is ceiling).
 * On failure @p is unchanged.
 */
int policy_apply_worker(struct policy *p, const char *file,
			struct gfs_err *err);
/* The same for worker text in memory; @name is used in errors. */
int policy_apply_worker_text(struct policy *p, const char *text, size_t len,
			     const char *name, struct gfs_err *err);

void policy_free(struct policy *p); /* NULL is a no-op */

/*
 * policy_resolve() - look at the host once the policy is complete (after
 * overrides): resolve every zone's backing directory, find golemfs's own
 * files and other zones' directories inside each zone (policy_guard,
 * policy_nest), and check what only the host can tell: a worker's
 * restrict must exist, a zone path must not run through a symlink inside
 * another writable zone.
 * @cwd: where golemfs started (config discovery starts there next time).
 * Return: 0, -EINVAL (with "what is wrong" in @err), -ENOMEM.
 */
int policy_resolve(struct policy *p, const char *cwd, struct gfs_err *err);

/*
 * policy_guard_find() - the guard @op on @rel in @z would touch, or NULL.
 * Any change of a guarded name (or beneath a guarded tree) touches it;
 * delete, replace and any create but an empty mkdir of a directory
 * above it do too (they could move it away or swap in another one).
 * @empty_dir: the op is a mkdir, which plants nothing.
 */
const struct policy_guard *policy_guard_find(const struct policy_zone *z,
					     const char *rel, enum policy_op op,
					     bool empty_dir);

/*
 * policy_area() - which zone's rules also hold at @rel in @z: 0 for
 * none, else 1 + the index in z->nests of the deepest nested zone whose
 * directory holds @rel. A rename or hard link between two areas crosses
 * zones (EXDEV).
 */
size_t policy_area(const struct policy_zone *z, const char *rel);

/* policy_path_rel() - @path below @top ("" for @top itself), or NULL. */
const char *policy_path_rel(const char *path, const char *top);

/* policy_path_within() - is the absolute @path @top or below it, by whole
   components ("/a/bc" is not within "/a/b"; everything is within "/")? */
bool policy_path_within(const char *path, const char *top);

/* policy_find_zone() - named zone or mount by name; borrowed, or NULL. */
const struct policy_zone *policy_find_zone(const struct policy *p,
					   const char *name);

/*
 * policy_set_override() - apply one "-o name=value" setting (the keys of
 * the key table, policy_keys.h, that have an -o name: trust, network,
 * symlinks, audit.*, approval.*) before the policy is used.
 * Return: 0, -EINVAL (unknown name, bad value; @err says which), -ENOMEM.
 */
/* policy_is_setting() - is @name one of those -o names? */
bool policy_is_setting(const char *name);
int policy_set_override(struct policy *p, const char *name, const char *value,
			struct gfs_err *err);

/* Names and parsing of the small enums; parse returns 0 or -EINVAL. */
const char *policy_trust_name(enum policy_trust t);
int policy_trust_parse(enum policy_trust *out, const char *s);
const char *policy_kind_name(enum zone_kind k);
const char *policy_approval_name(enum approval a);
const char *policy_op_name(enum policy_op op);

/* policy_rights_str() - "rwld" letters, "-" for none; @buf >= 8 bytes. */
const char *policy_rights_str(uint8_t rights, char *buf);

/*
 * Git metadata that makes git run a program (gitmeta.c). A directory that
 * holds HEAD, objects, refs or commondir is one git may take for a git
 * directory; in one, git reads config and config.worktree as config and
 * runs hooks/NAME. golemfs keeps every such directory a program touches
 * free of what git would execute.
 */
enum policy_git_name {
	GIT_NAME_PLAIN,  /* nothing to git */
	GIT_NAME_CONFIG, /* config, config.worktree */
	GIT_NAME_MARKER, /* HEAD, objects, refs, commondir */
	GIT_NAME_HOOKS,  /* hooks */
};
enum policy_git_name policy_git_name_kind(const char *name);
/* policy_git_hook_name_ok() - a name git never runs as a hook: *.sample */
bool policy_git_hook_name_ok(const char *name);
/* policy_git_in_hooks() - is @rel's parent directory called hooks? */
bool policy_git_in_hooks(const char *rel);
/*
 * policy_git_sensitive() - may making the name @rel (zone-relative) change
 * what git runs: a config, marker or hooks name, or a name in a directory
 * called hooks? The daemon then looks at the directory itself.
 */
bool policy_git_sensitive(const char *rel);
/*
 * policy_gitconfig_check() - may this git config text reach the host?
 * Return: 0 when it sets no key that makes git run a program; -EACCES
 * with @why naming the key and its line, also for text git could not
 * read either (a bad line, a NUL byte).
 */
int policy_gitconfig_check(const char *text, size_t len, struct gfs_err *why);

/*
 * What may stand in a directory git may take for a git directory (the
 * daemon looks at the directory; these judge what it found). A config
 * is at most POLICY_GITCONFIG_MAX bytes: git's are a few KiB.
 */
#define POLICY_GITCONFIG_MAX (1024 * 1024)

/*
 * policy_check_gitconfig_open() - @err is the errno of opening a git
 * directory's config without following a symlink (0: it opened).
 * Return: 0, or -EACCES "... may not be a symlink" (ELOOP), "... must be
 * a readable regular file" (any other).
 */
int policy_check_gitconfig_open(int err, struct gfs_err *why);

/*
 * policy_check_gitconfig_file() - may the file of @mode, @nlink names and
 * @size bytes be (or stay) a git directory's config? A regular file with
 * one name (a second name would write it) of at most POLICY_GITCONFIG_MAX
 * bytes; its text then goes to policy_gitconfig_check().
 * Return: 0 or -EACCES naming what is wrong.
 */
int policy_check_gitconfig_file(mode_t mode, uint64_t nlink, uint64_t size,
				struct gfs_err *why);

/*
 * policy_check_git_new_config() - may a git directory's config be made,
 * written or replaced this way? Only by renaming a (checked) regular
 * file onto it, as git does: @renamed for a rename that is not an
 * exchange, @fmt what arrives. Writes and links pass false.
 * Return: 0 or -EACCES "a git directory's config is only replaced by
 * renaming a checked file onto it, as git does".
 */
int policy_check_git_new_config(bool renamed, mode_t fmt, struct gfs_err *why);

/*
 * policy_check_git_hooks() - may a git directory's hooks be of type @fmt
 * (S_IFMT; what stands there, or arrives)? Not a symlink.
 * Return: 0 or -EACCES "a git directory's hooks may not be a symlink".
 */
int policy_check_git_hooks(mode_t fmt, struct gfs_err *why);

/*
 * policy_check_git_hooks_dir() - @err is the errno of opening a git
 * directory's hooks as a directory without following a symlink (0: it
 * opened). Return: 0 or -EACCES "... must be a real directory".
 */
int policy_check_git_hooks_dir(int err, struct gfs_err *why);

/*
 * policy_check_git_hook() - may @name stand in a git directory's hooks?
 * Only names git never runs (policy_git_hook_name_ok()). @is_new: a name
 * being made there, else one found in a hooks directory that is about to
 * count (the words differ). Return: 0 or -EACCES.
 */
int policy_check_git_hook(const char *name, bool is_new, struct gfs_err *why);

/* The embedded default configuration, as YAML. */
extern const char policy_default_yaml[];

#endif
