/*
 * policy_keys - the one table of configuration keys.
 *
 * Every key golem.yaml takes is described here once: its path, type,
 * allowed values, default, where it applies and what it means. The config
 * parser (config.c) takes its enum values, ranges and error nouns from
 * it, -o name=value is parsed from it (policy_set_override()), and the
 * reference in docs/config.md, golemfs.yaml(5), golemfs(1) and
 * docs/golem.schema.json is printed from it (tools/config_ref.c; a test
 * fails when a committed copy differs). A unit test checks that the
 * parser takes exactly the keys listed here. policy_worker_keys[] does
 * the same for worker files: worker.c takes no key it does not list.
 *
 * To add a key: a row here, its handler in config.c, and then
 * scripts/gen-config-ref to rewrite the reference.
 */
#ifndef GFS_POLICY_KEYS_H
#define GFS_POLICY_KEYS_H

#include "policy.h"

enum policy_key_type {
	PKT_MAP,     /* a mapping of the keys below it */
	PKT_NAMES,   /* a mapping from names (NAME in paths) to mappings */
	PKT_LIST,    /* a list of mappings ([] in paths) */
	PKT_STRINGS, /* a list of strings */
	PKT_ENUM,    /* one of @values */
	PKT_BOOL,    /* true or false (also yes/no, on/off in YAML) */
	PKT_UINT,    /* a whole number, @min to @max when @max is set */
	PKT_PATH,    /* a path, relative to the config file's directory */
	PKT_COMMAND, /* a command: a path, or a bare name looked up in PATH */
	PKT_STRING,  /* any non-empty string */
	PKT_RIGHTS,  /* letters of "rwld" (c: create new files only) */
};

/* A value taken from YAML or -o, typed by its key. */
struct policy_val {
	const char *s; /* PKT_PATH, PKT_COMMAND: resolved as it is kept */
	uint64_t u;    /* PKT_UINT */
	int i;         /* PKT_ENUM: index in @values, as the C enum counts */
	bool b;        /* PKT_BOOL */
};

struct policy_key {
	/* "audit.on_full"; NAME stands for a zone name, LEVEL for a trust
	   level, [] for each item of a list */
	const char *path;
	enum policy_key_type type;
	const char *const *values; /* PKT_ENUM: NULL-terminated, enum order */
	uint64_t min, max;         /* PKT_UINT: range; max 0 for none */
	const char *unit;          /* PKT_UINT: "seconds", for readers */
	const char *def;           /* the default, for readers; NULL: none */
	const char *applies;       /* where it applies, for readers */
	const char *doc;           /* one line, for readers */
	const char *noun;          /* what error messages call the value */
	const char *option;        /* the name -o takes, or NULL */
	/* -o settings: store a parsed value; 0 or -ENOMEM */
	int (*apply)(struct policy *p, const struct policy_val *v);
};

/* All keys, parents before their children; the last has path NULL. */
extern const struct policy_key policy_keys[];
/* The same for the front matter of worker files (worker.c). */
extern const struct policy_key policy_worker_keys[];

/* policy_key_lookup() - the key of @table at @path, or NULL. */
const struct policy_key *policy_key_lookup(const struct policy_key *table,
					   const char *path);
/* policy_key_find() - the key of policy_keys[] at @path, or NULL. */
const struct policy_key *policy_key_find(const char *path);

/* policy_key_option() - the key -o calls @name, or NULL. */
const struct policy_key *policy_key_option(const char *name);

/*
 * policy_key_is_child() - does @k lie directly in the mapping or list of
 * the key at @parent ("" for the top level)?
 */
bool policy_key_is_child(const struct policy_key *k, const char *parent);

/* policy_key_enum() - @s's index in @k's values, or -1. */
int policy_key_enum(const struct policy_key *k, const char *s);

/*
 * policy_key_values() - @k's values as "a, b or c" into @buf of @size
 * bytes; an error when they do not fit. Return: @buf, or NULL.
 */
const char *policy_key_values(const struct policy_key *k, char *buf,
			      size_t size);

#endif
