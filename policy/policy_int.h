/*
 * policy internals shared by config.c, worker.c, decide.c and tests.
 * Not part of the module's contract. Their global names start with pol_
 * (the contract's with policy_), so that no generic name (read_file,
 * glob_match) leaks from the library into a program that links it.
 */
#ifndef GFS_POLICY_INT_H
#define GFS_POLICY_INT_H

#include <yaml.h>

#include "policy.h"

/* A parsed YAML document with the name used in error messages. */
struct ydoc {
	yaml_document_t doc;
	const char *file;
	size_t line0; /* lines before the text parsed (worker front matter) */
	struct gfs_err *err;
};

/* pol_ydoc_load() - parse @text; on a syntax error fill err "FILE:L:C: ...". */
int pol_ydoc_load(struct ydoc *d, const char *text, size_t len,
		  const char *file, size_t line0, struct gfs_err *err);
void pol_ydoc_release(struct ydoc *d);
/*
 * pol_ydoc_check_text() - refuse text that is not UTF-8 or holds a NUL byte
 * (a binary file), naming FILE:LINE:COL of the first bad byte.
 */
int pol_ydoc_check_text(const char *text, size_t len, const char *file,
			size_t line0, struct gfs_err *err);
yaml_node_t *pol_ydoc_root(struct ydoc *d);
yaml_node_t *pol_ydoc_node(struct ydoc *d, int index);

/* pol_ydoc_error() - "FILE:LINE:COL: <fmt>"; returns -EINVAL. */
int pol_ydoc_error(struct ydoc *d, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Typed accessors; each reports a wrong type at the node and -EINVAL. */
int pol_ydoc_expect(struct ydoc *d, yaml_node_t *n, yaml_node_type_t type,
		    const char *what);
const char *pol_ydoc_str(yaml_node_t *n);
int pol_ydoc_bool(struct ydoc *d, yaml_node_t *n, const char *what, bool *out);
int pol_ydoc_u64(struct ydoc *d, yaml_node_t *n, const char *what,
		 uint64_t *out);
int pol_ydoc_string(struct ydoc *d, yaml_node_t *n, const char *what,
		    const char **out);

/*
 * pol_config_walk() - call @fn with the key table path of each key the
 * config parser has a handler for ("sandbox.zones.NAME.trust.full"),
 * parents first. Return: 0, the first error of @fn, or -ENOENT when a
 * mapping's key has no row in the key table.
 */
int pol_config_walk(int (*fn)(void *ctx, const char *path), void *ctx);

/* Rights bitmask from "rwld" letters (also "c"); -EINVAL on others. */
int pol_rights_parse(uint8_t *out, const char *s);

/* Built-in trust table row for a zone kind. */
void pol_trust_table_row(enum zone_kind kind, uint8_t row[TRUST_COUNT]);

/* Set zone->git_inner from its path as written, else as resolved. */
void pol_zone_git_inner(struct policy_zone *z);

/* Recompute zone->rights[] and p->writable[] after any change. */
int policy_finish(struct policy *p);

/*
 * pol_path_resolve() - @rel made absolute against @base and lexically
 * normalised. Return: malloc'd string or NULL on ENOMEM.
 */
char *pol_path_resolve(const char *base, const char *rel);

/* pol_set_str() - replace the malloc'd *@dst by a copy of @s.
   Return: 0, or -ENOMEM (then *@dst is as it was). */
int pol_set_str(char **dst, const char *s);

/* pol_rel_within() - is zone-relative @rel at or below @top ("": the top)? */
bool pol_rel_within(const char *rel, const char *top);
/* pol_op_moves() - could @op move away or swap out what lies below its path? */
bool pol_op_moves(enum policy_op op, bool empty_dir);

/* pol_path_leaves_root() - do ".." components of @path climb above "/"? */
bool pol_path_leaves_root(const char *path);

/* pol_glob_match() - '*' and '?' stop at '/', '**' crosses it. */
bool pol_glob_match(const char *pat, const char *s);

/* The names config discovery looks for, in each directory upward. */
extern const char *const pol_config_names[];

int pol_read_file(const char *path, char **text, size_t *len,
		  struct gfs_err *err);

/* ---- gitpoint.c: what the user's git config names ---- */

/* Called per "section[.subsection].key" (names lower-cased) and value. */
typedef int (*git_config_fn)(void *ctx, const char *key, const char *val);
/* pol_git_config_scan() - each key of git config @text; stops at an error. */
int pol_git_config_scan(const char *text, size_t len, git_config_fn fn,
			void *ctx);
/* pol_git_key_runs() - is @key (lower-cased) one whose value git runs? */
bool pol_git_key_runs(const char *key);
/* Called per host path git would run or read: @tree for a directory. */
typedef int (*git_point_fn)(void *ctx, const char *path, const char *what,
			    bool tree);
/*
 * pol_git_pointed() - the paths the config of the repository holding @dir,
 * and of those up to three levels below it, makes git run or read:
 * core.hooksPath, include.path/includeIf, and commands given by path. Return: 0
 * or the first error of @fn, -ENOMEM.
 */
int pol_git_pointed(const char *dir, git_point_fn fn, void *ctx);

#endif
