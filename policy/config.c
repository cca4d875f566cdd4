/*
 * The project config: YAML text -> struct policy.
 *
 * Every unknown key, wrong type or bad value is an error naming the file,
 * line and column; a policy is handed out only when all of it was read.
 * Paths are resolved here, once: in "sandboxed" mode zone paths are under
 * the sandbox root, in "direct" mode under the config file's directory.
 * Repositories (repo and staged zones), bind-mount sources, the approval
 * hook and the audit path are always relative to the config's directory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/gfs_strv.h"
#include "policy_int.h"
#include "policy_keys.h"

const char policy_default_yaml[] =
    "# golemfs embedded default configuration\n"
    "sandbox:\n"
    "  mode: sandboxed\n"
    "  root: .sandbox\n"
    "  zones:\n"
    "    cache:     { path: ./cache, mode: rw }\n"
    "    workspace: { kind: workspace, path: ./workspace, mode: rw }\n"
    "trust: session\n";

static const char *const default_protect[] = { ".git/hooks/**", ".git/config",
					       ".bashrc",       ".profile",
					       ".mcp.json",     NULL };

struct key_handler;

/* One key of a mapping being read: its name node and value node. */
struct ykey {
	yaml_node_t *key, *val;
	const char *name;
	const struct policy_key *pk; /* its row of the key table */
	const struct key_handler *h; /* its handler */
};

typedef int (*key_fn)(struct ydoc *d, struct policy *p, void *obj,
		      struct ykey *k);

/*
 * The parser of one key of a mapping. A key is taken only when both the
 * key table (policy_keys.h) and a handler know it; a mapping's keys have
 * their handlers in @sub.
 */
struct key_handler {
	const char *name;
	key_fn fn;
	const struct key_handler *sub;
};

/*
 * The key table's path of key @name in the mapping at table path
 * @prefix ("" at the top), into @buf. Return: @buf, or NULL when it does
 * not fit (no key's path is that long).
 */
static const char *key_path(char *buf, size_t size, const char *prefix,
			    const char *name)
{
	int n = snprintf(buf, size, "%s%s%s", prefix, *prefix ? "." : "", name);

	return n >= 0 && (size_t)n < size ? buf : NULL;
}

/* The table path of what lies in the mapping or list of table key @k. */
static const char *sub_prefix(char *buf, size_t size,
			      const struct policy_key *k)
{
	const char *step = k->type == PKT_NAMES  ? ".NAME"
			   : k->type == PKT_LIST ? "[]"
						 : "";
	int n = snprintf(buf, size, "%s%s", k->path, step);

	return n >= 0 && (size_t)n < size ? buf : NULL;
}

/* Run the handler named by @k->name; unknown keys are errors. */
static int dispatch_key(struct ydoc *d, const struct key_handler *h,
			const char *prefix, struct policy *p, void *obj,
			struct ykey *k, const char *what)
{
	const char *path;
	char buf[128];
	int i;

	for (i = 0; h[i].name && strcmp(h[i].name, k->name); i++)
		;
	path = key_path(buf, sizeof(buf), prefix, k->name);
	k->pk = path ? policy_key_find(path) : NULL;
	k->h = &h[i];
	if (!h[i].name || !k->pk)
		return pol_ydoc_error(d, k->key, "unknown key '%s' in %s",
				      k->name, what);
	return h[i].fn(d, p, obj, k);
}

/* Read pair @pair of a mapping into @k. */
static int key_at(struct ydoc *d, yaml_node_pair_t *pair, struct ykey *k)
{
	k->key = pol_ydoc_node(d, pair->key);
	k->val = pol_ydoc_node(d, pair->value);
	return pol_ydoc_string(d, k->key, "a key", &k->name);
}

/*
 * Call the handler for each key of mapping @map, whose keys have table
 * paths below @prefix and handlers in @h; unknown keys are errors.
 */
static int each_key(struct ydoc *d, yaml_node_t *map, const char *what,
		    const char *prefix, const struct key_handler *h,
		    struct policy *p, void *obj)
{
	yaml_node_pair_t *pair;
	struct ykey k;
	int rc;

	rc = pol_ydoc_expect(d, map, YAML_MAPPING_NODE, what);
	for (pair = map->data.mapping.pairs.start;
	     rc == 0 && pair < map->data.mapping.pairs.top; pair++) {
		rc = key_at(d, pair, &k);
		if (rc == 0)
			rc = dispatch_key(d, h, prefix, p, obj, &k, what);
	}
	return rc;
}

/* Each key of @k's value, a mapping named @what, by @k's sub-handlers. */
static int each_sub_key(struct ydoc *d, struct ykey *k, const char *what,
			struct policy *p, void *obj)
{
	char buf[128];
	const char *prefix = sub_prefix(buf, sizeof(buf), k->pk);

	if (!prefix)
		return pol_ydoc_error(d, k->key, "unknown key '%s' in %s",
				      k->name, what);
	return each_key(d, k->val, what, prefix, k->h->sub, p, obj);
}

/* The value of @k, one of its table row's values: its index in them. */
static int key_enum(struct ydoc *d, struct ykey *k, int *out)
{
	char list[160];
	const char *s, *values;

	if (pol_ydoc_string(d, k->val, k->pk->noun, &s) < 0)
		return -EINVAL;
	*out = policy_key_enum(k->pk, s);
	if (*out >= 0)
		return 0;
	values = policy_key_values(k->pk, list, sizeof(list));
	return pol_ydoc_error(d, k->val, "%s must be %s, not '%s'", k->pk->noun,
			      values ? values : "another value", s);
}

/* The whole number @k holds, within its table row's range if it has one. */
static int key_uint(struct ydoc *d, struct ykey *k, uint64_t *out)
{
	const struct policy_key *pk = k->pk;

	if (pol_ydoc_u64(d, k->val, pk->noun, out) < 0)
		return -EINVAL;
	if (pk->max && (*out < pk->min || *out > pk->max))
		return pol_ydoc_error(d, k->val, "%s must be %llu to %llu %s",
				      pk->noun, (unsigned long long)pk->min,
				      (unsigned long long)pk->max, pk->unit);
	return 0;
}

static int key_str(struct ydoc *d, struct ykey *k, char **dst)
{
	const char *s;

	if (pol_ydoc_string(d, k->val, k->name, &s) < 0)
		return -EINVAL;
	if (!*s)
		return pol_ydoc_error(d, k->val, "%s must not be empty",
				      k->name);
	return pol_set_str(dst, s);
}

/*
 * The path or command @k holds, as kept: a path resolved against the
 * config file's directory; a bare command name is left to be looked up
 * in PATH at run time.
 */
static int key_where(struct ydoc *d, struct policy *p, struct ykey *k,
		     char **out)
{
	char *s = NULL;
	int rc = key_str(d, k, &s);

	if (rc < 0)
		return rc;
	if (k->pk->type == PKT_COMMAND && !strchr(s, '/')) {
		*out = s;
		return 0;
	}
	*out = pol_path_resolve(p->config_dir, s);
	free(s);
	return *out ? 0 : -ENOMEM;
}

/*
 * A key -o also sets (policy_keys.h): read by its table row's type and
 * range, stored by the row's apply(), as policy_set_override() does.
 */
static int key_setting(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	const struct policy_key *pk = k->pk;
	struct policy_val v = { 0 };
	char *s = NULL;
	int rc;

	(void)obj;
	switch (pk->type) {
	case PKT_ENUM:
		rc = key_enum(d, k, &v.i);
		break;
	case PKT_BOOL:
		rc = pol_ydoc_bool(d, k->val, pk->noun, &v.b);
		break;
	case PKT_UINT:
		rc = key_uint(d, k, &v.u);
		break;
	default: /* PKT_PATH, PKT_COMMAND */
		rc = key_where(d, p, k, &s);
		v.s = s;
		break;
	}
	if (rc == 0)
		rc = pk->apply ? pk->apply(p, &v) : -EINVAL;
	free(s);
	return rc;
}

/* ---- zones ---- */

/* Raw zone keys; paths are resolved in zone_finish() once mode is known. */
struct zone_raw {
	struct policy_zone *z;
	char *path;
	bool has_mode;
	bool has_trust[TRUST_COUNT];
	yaml_node_t *path_node;
	yaml_node_t *clearance_node;
};

static int zkey_path(struct ydoc *d, struct policy *p, void *obj,
		     struct ykey *k)
{
	struct zone_raw *r = obj;

	(void)p;
	r->path_node = k->val;
	return key_str(d, k, &r->path);
}

static int zkey_mode(struct ydoc *d, struct policy *p, void *obj,
		     struct ykey *k)
{
	struct zone_raw *r = obj;
	int i;

	(void)p;
	if (key_enum(d, k, &i) < 0)
		return -EINVAL;
	r->z->ro = i == 0; /* ro, rw */
	r->has_mode = true;
	return 0;
}

static int zkey_kind(struct ydoc *d, struct policy *p, void *obj,
		     struct ykey *k)
{
	struct zone_raw *r = obj;
	int i;

	(void)p;
	if (key_enum(d, k, &i) < 0)
		return -EINVAL;
	r->z->kind = (enum zone_kind)i;
	return 0;
}

static size_t node_len(yaml_node_t *n)
{
	if (n->type == YAML_MAPPING_NODE)
		return (size_t)(n->data.mapping.pairs.top -
				n->data.mapping.pairs.start);
	if (n->type == YAML_SEQUENCE_NODE)
		return (size_t)(n->data.sequence.items.top -
				n->data.sequence.items.start);
	return 0;
}

/* Refuses a string of a list (key_strings()); 0 or -EINVAL. */
typedef int (*item_check)(struct ydoc *d, yaml_node_t *e, const char *s);

/*
 * A YAML list of strings (@what; each one @item, passed by @check) into a
 * NULL-terminated array that replaces *@out at once, so that the policy
 * frees what was read when a later item fails.
 */
static int key_strings(struct ydoc *d, struct ykey *k, const char *what,
		       const char *item, item_check check, char ***out)
{
	yaml_node_item_t *it;
	size_t i = 0;
	const char *s;
	char **v;

	if (pol_ydoc_expect(d, k->val, YAML_SEQUENCE_NODE, what) < 0)
		return -EINVAL;
	v = calloc(node_len(k->val) + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	gfs_strv_free(*out);
	*out = v;
	for (it = k->val->data.sequence.items.start;
	     it < k->val->data.sequence.items.top; it++) {
		yaml_node_t *e = pol_ydoc_node(d, *it);

		if (pol_ydoc_string(d, e, item, &s) < 0 || check(d, e, s) < 0)
			return -EINVAL;
		v[i] = strdup(s);
		if (!v[i++])
			return -ENOMEM;
	}
	return 0;
}

static int suffix_check(struct ydoc *d, yaml_node_t *e, const char *s)
{
	if (!*s || strchr(s, '/'))
		return pol_ydoc_error(d, e, "bad suffix '%s'", s);
	return 0;
}

static int zkey_suffixes(struct ydoc *d, struct policy *p, void *obj,
			 struct ykey *k)
{
	struct zone_raw *r = obj;

	(void)p;
	return key_strings(d, k, "suffixes", "a suffix", suffix_check,
			   &r->z->suffixes);
}

static int zkey_max(struct ydoc *d, struct policy *p, void *obj, struct ykey *k)
{
	struct zone_raw *r = obj;

	(void)p;
	return key_uint(d, k, &r->z->max_file_bytes);
}

static int akey_write(struct ydoc *d, struct policy *p, void *obj,
		      struct ykey *k)
{
	int i;

	(void)p;
	if (key_enum(d, k, &i) < 0)
		return -EINVAL;
	((struct policy_zone *)obj)->approve_write = (enum approval)i;
	return 0;
}

static int akey_delete(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	int i;

	(void)p;
	if (key_enum(d, k, &i) < 0)
		return -EINVAL;
	((struct policy_zone *)obj)->approve_delete = (enum approval)i;
	return 0;
}

static const struct key_handler approval_keys[] = {
	{ "write", akey_write },
	{ "delete", akey_delete },
	{ NULL, NULL },
};

static int zkey_approval(struct ydoc *d, struct policy *p, void *obj,
			 struct ykey *k)
{
	struct zone_raw *r = obj;

	return each_sub_key(d, k, "approval", p, r->z);
}

static int tkey_level(struct ydoc *d, struct policy *p, void *obj,
		      struct ykey *k)
{
	struct zone_raw *r = obj;
	enum policy_trust t;
	const char *s;

	(void)p;
	if (policy_trust_parse(&t, k->name) < 0)
		return pol_ydoc_error(d, k->key, "unknown trust level '%s'",
				      k->name);
	if (pol_ydoc_string(d, k->val, k->pk->noun, &s) < 0)
		return -EINVAL;
	if (pol_rights_parse(&r->z->trust_rights[t], s) < 0)
		return pol_ydoc_error(
		    d, k->val, "rights must be letters of 'rwld', not '%s'", s);
	r->has_trust[t] = true;
	return 0;
}

static const struct key_handler trust_keys[] = {
	{ "untrusted", tkey_level },
	{ "session", tkey_level },
	{ "workspace", tkey_level },
	{ "full", tkey_level },
	{ NULL, NULL },
};

static int zkey_trust(struct ydoc *d, struct policy *p, void *obj,
		      struct ykey *k)
{
	return each_sub_key(d, k, "trust", p, obj);
}

static int zkey_repo(struct ydoc *d, struct policy *p, void *obj,
		     struct ykey *k)
{
	struct zone_raw *r = obj;
	char *s = NULL;
	int rc = key_str(d, k, &s);

	if (rc == 0) {
		r->z->repo = pol_path_resolve(p->config_dir, s);
		rc = r->z->repo ? 0 : -ENOMEM;
	}
	free(s);
	return rc;
}

static int zkey_branch(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	(void)p;
	return key_str(d, k, &((struct zone_raw *)obj)->z->branch);
}

static int refuse_allow(struct ydoc *d, struct ykey *k, bool *allow)
{
	int i;

	if (key_enum(d, k, &i) < 0)
		return -EINVAL;
	*allow = i == 1; /* refuse, allow */
	return 0;
}

static int ckey_binary(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	(void)p;
	return refuse_allow(d, k,
			    &((struct policy_zone *)obj)->clear_allow_binary);
}

static int ckey_entropy(struct ydoc *d, struct policy *p, void *obj,
			struct ykey *k)
{
	(void)p;
	return refuse_allow(d, k,
			    &((struct policy_zone *)obj)->clear_allow_entropy);
}

static int ckey_max(struct ydoc *d, struct policy *p, void *obj, struct ykey *k)
{
	(void)p;
	return key_uint(d, k, &((struct policy_zone *)obj)->clear_max_bytes);
}

static const struct key_handler clearance_keys[] = {
	{ "binary", ckey_binary },
	{ "entropy", ckey_entropy },
	{ "max_file_bytes", ckey_max },
	{ NULL, NULL },
};

static int zkey_clearance(struct ydoc *d, struct policy *p, void *obj,
			  struct ykey *k)
{
	struct zone_raw *r = obj;

	r->clearance_node = k->key;
	return each_sub_key(d, k, "clearance", p, r->z);
}

static const struct key_handler zone_keys[] = {
	{ "path", zkey_path },
	{ "mode", zkey_mode },
	{ "kind", zkey_kind },
	{ "suffixes", zkey_suffixes },
	{ "max_file_bytes", zkey_max },
	{ "approval", zkey_approval, approval_keys },
	{ "trust", zkey_trust, trust_keys },
	{ "repo", zkey_repo },
	{ "branch", zkey_branch },
	{ "clearance", zkey_clearance, clearance_keys },
	{ NULL, NULL },
};

static bool name_ok(const char *s)
{
	if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-", *s)))
			return false;
	}
	return true;
}

static int zone_finish(struct ydoc *d, struct policy *p, struct zone_raw *r,
		       yaml_node_t *at)
{
	struct policy_zone *z = r->z;
	uint8_t row[TRUST_COUNT];
	const char *base;
	int t;

	if (!r->has_mode)
		z->ro = z->kind == ZONE_PLAIN; /* secure default for views */
	pol_trust_table_row(z->kind, row);
	for (t = 0; t < TRUST_COUNT; t++)
		if (!r->has_trust[t])
			z->trust_rights[t] = row[t];
	z->worker_rights = RIGHT_ALL;

	switch (z->kind) {
	case ZONE_SESSION:
		if (r->path)
			return pol_ydoc_error(d, r->path_node,
					      "a session zone takes no path");
		return 0;
	case ZONE_STAGED:
		if (r->path)
			return pol_ydoc_error(d, r->path_node,
					      "a staged zone takes 'repo', "
					      "not 'path'");
		if (!z->repo)
			return pol_ydoc_error(
			    d, at, "staged zone '%s' needs 'repo'", z->name);
		/* staged files become git objects: never without a bound */
		if (!z->max_file_bytes)
			z->max_file_bytes = POLICY_STAGED_MAX_FILE_BYTES;
		return z->branch ? 0 : pol_set_str(&z->branch, "main");
	default:
		if (r->clearance_node)
			return pol_ydoc_error(
			    d, r->clearance_node,
			    "only staged zones take 'clearance'");
		if (!r->path)
			return pol_ydoc_error(d, at, "zone '%s' needs a 'path'",
					      z->name);
		if (z->repo || z->branch)
			return pol_ydoc_error(
			    d, at,
			    "only staged zones take 'repo' and "
			    "'branch'");
		base = (p->direct || z->kind == ZONE_REPO) ? p->config_dir
							   : p->root;
		z->path = pol_path_resolve(base, r->path);
		return z->path ? 0 : -ENOMEM;
	}
}

static int zone_parse(struct ydoc *d, struct policy *p, struct ykey *k,
		      const char *prefix, const struct key_handler *h)
{
	struct policy_zone *z = &p->zones[p->nzones];
	struct zone_raw r = { .z = z };
	size_t i;
	int rc;

	if (!name_ok(k->name))
		return pol_ydoc_error(d, k->key,
				      "zone name '%s' must be letters, digits, "
				      "'.', '_' or '-'",
				      k->name);
	for (i = 0; i < p->nzones; i++)
		if (strcmp(p->zones[i].name, k->name) == 0)
			return pol_ydoc_error(d, k->key, "duplicate zone '%s'",
					      k->name);
	z->line = (int)k->key->start_mark.line + 1;
	z->col = (int)k->key->start_mark.column + 1;
	if (pol_set_str(&z->name, k->name) < 0)
		return -ENOMEM;
	p->nzones++;
	z->vpath = pol_path_resolve("/", k->name);
	if (!z->vpath)
		return -ENOMEM;
	rc = each_key(d, k->val, "zone", prefix, h, p, &r);
	if (rc == 0)
		rc = zone_finish(d, p, &r, k->key);
	free(r.path);
	return rc;
}

static int grow_zones(struct policy *p, size_t more)
{
	struct policy_zone *z;

	z = realloc(p->zones, (p->nzones + more) * sizeof(*z));
	if (!z)
		return -ENOMEM;
	memset(z + p->nzones, 0, more * sizeof(*z));
	p->zones = z;
	return 0;
}

static int skey_zones(struct ydoc *d, struct policy *p, void *obj,
		      struct ykey *k)
{
	yaml_node_pair_t *pair;
	const char *prefix;
	struct ykey zk;
	char buf[128];
	int rc;

	(void)obj;
	prefix = sub_prefix(buf, sizeof(buf), k->pk);
	if (!prefix ||
	    pol_ydoc_expect(d, k->val, YAML_MAPPING_NODE, "zones") < 0)
		return -EINVAL;
	if (grow_zones(p, node_len(k->val)) < 0)
		return -ENOMEM;
	for (pair = k->val->data.mapping.pairs.start;
	     pair < k->val->data.mapping.pairs.top; pair++) {
		zk.key = pol_ydoc_node(d, pair->key);
		zk.val = pol_ydoc_node(d, pair->value);
		if (pol_ydoc_string(d, zk.key, "a zone name", &zk.name) < 0)
			return -EINVAL;
		rc = zone_parse(d, p, &zk, prefix, k->h->sub);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- bind mounts ---- */

struct mount_raw {
	struct policy_zone *z;
	char *source;
	yaml_node_t *target_node;
};

static int mkey_source(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	(void)p;
	return key_str(d, k, &((struct mount_raw *)obj)->source);
}

static bool has_dotdot(const char *s)
{
	const char *c;

	for (c = s; (c = strstr(c, "..")); c += 2)
		if ((c == s || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

static int mkey_target(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	struct mount_raw *r = obj;
	const char *s;

	(void)p;
	if (pol_ydoc_string(d, k->val, "target", &s) < 0)
		return -EINVAL;
	if (s[0] != '/')
		return pol_ydoc_error(
		    d, k->val, "mount target '%s' must be an absolute path", s);
	if (has_dotdot(s))
		return pol_ydoc_error(
		    d, k->val, "mount target '%s' must not contain '..'", s);
	r->target_node = k->val;
	r->z->name = pol_path_resolve("/", s);
	return r->z->name ? 0 : -ENOMEM;
}

static int mkey_readonly(struct ydoc *d, struct policy *p, void *obj,
			 struct ykey *k)
{
	(void)p;
	return pol_ydoc_bool(d, k->val, k->pk->noun,
			     &((struct mount_raw *)obj)->z->ro);
}

static const struct key_handler mount_keys[] = {
	{ "source", mkey_source },
	{ "target", mkey_target },
	{ "readonly", mkey_readonly },
	{ NULL, NULL },
};

static int mount_parse(struct ydoc *d, struct policy *p, yaml_node_t *n,
		       const char *prefix, const struct key_handler *h)
{
	struct policy_zone *z = &p->zones[p->nzones];
	struct mount_raw r = { .z = z };
	int rc;

	z->kind = ZONE_MOUNT;
	z->line = (int)n->start_mark.line + 1;
	z->col = (int)n->start_mark.column + 1;
	p->nzones++;
	rc = each_key(d, n, "mount", prefix, h, p, &r);
	if (rc == 0 && !r.source)
		rc = pol_ydoc_error(d, n, "mount needs a 'source'");
	if (rc == 0 && !z->name)
		rc = pol_ydoc_error(d, n, "mount needs a 'target'");
	if (rc == 0) {
		z->path = pol_path_resolve(p->config_dir, r.source);
		z->vpath = strdup(z->name);
		rc = (z->path && z->vpath) ? 0 : -ENOMEM;
	}
	if (rc == 0) {
		pol_trust_table_row(ZONE_MOUNT, z->trust_rights);
		z->worker_rights = RIGHT_ALL;
	}
	free(r.source);
	return rc;
}

static int skey_mounts(struct ydoc *d, struct policy *p, void *obj,
		       struct ykey *k)
{
	yaml_node_item_t *it;
	const char *prefix;
	char buf[128];
	int rc;

	(void)obj;
	prefix = sub_prefix(buf, sizeof(buf), k->pk);
	if (!prefix ||
	    pol_ydoc_expect(d, k->val, YAML_SEQUENCE_NODE, "mounts") < 0)
		return -EINVAL;
	if (grow_zones(p, node_len(k->val)) < 0)
		return -ENOMEM;
	for (it = k->val->data.sequence.items.start;
	     it < k->val->data.sequence.items.top; it++) {
		rc =
		    mount_parse(d, p, pol_ydoc_node(d, *it), prefix, k->h->sub);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- sandbox: and top level ---- */

static int skey_mode(struct ydoc *d, struct policy *p, void *obj,
		     struct ykey *k)
{
	int i;

	(void)obj;
	if (key_enum(d, k, &i) < 0)
		return -EINVAL;
	p->direct = i == 1; /* sandboxed, direct */
	return 0;
}

static int skey_root(struct ydoc *d, struct policy *p, void *obj,
		     struct ykey *k)
{
	char *s = NULL;
	int rc = key_str(d, k, &s);

	(void)obj;
	if (rc == 0) {
		free(p->root);
		p->root = pol_path_resolve(p->config_dir, s);
		rc = p->root ? 0 : -ENOMEM;
	}
	free(s);
	return rc;
}

static int protect_check(struct ydoc *d, yaml_node_t *e, const char *s)
{
	if (!*s || s[0] == '/')
		return pol_ydoc_error(d, e,
				      "protect glob '%s' must be a "
				      "relative pattern",
				      s);
	return 0;
}

static int skey_protect(struct ydoc *d, struct policy *p, void *obj,
			struct ykey *k)
{
	(void)obj;
	return key_strings(d, k, "protect", "a protect glob", protect_check,
			   &p->protect);
}

static const struct key_handler sandbox_keys[] = {
	{ "mode", skey_mode },
	{ "root", skey_root },
	{ "zones", skey_zones, zone_keys },
	{ "mounts", skey_mounts, mount_keys },
	{ "symlinks", key_setting },
	{ "protect", skey_protect },
	{ "network", key_setting },
	{ NULL, NULL },
};

static bool is_first_pass_key(const char *name)
{
	return strcmp(name, "mode") == 0 || strcmp(name, "root") == 0;
}

/*
 * sandbox: is read in two passes: mode and root first, because zone paths
 * depend on them wherever they appear in the mapping.
 */
static int tkey_sandbox(struct ydoc *d, struct policy *p, void *obj,
			struct ykey *k)
{
	yaml_node_pair_t *pair;
	const char *prefix;
	struct ykey sk;
	char buf[128];
	int rc = 0, pass;

	(void)obj;
	prefix = sub_prefix(buf, sizeof(buf), k->pk);
	if (!prefix ||
	    pol_ydoc_expect(d, k->val, YAML_MAPPING_NODE, "sandbox") < 0)
		return -EINVAL;
	for (pass = 0; pass < 2 && rc == 0; pass++) {
		for (pair = k->val->data.mapping.pairs.start;
		     rc == 0 && pair < k->val->data.mapping.pairs.top; pair++) {
			rc = key_at(d, pair, &sk);
			if (rc < 0 || is_first_pass_key(sk.name) != (pass == 0))
				continue;
			rc = dispatch_key(d, k->h->sub, prefix, p, NULL, &sk,
					  "sandbox");
		}
	}
	return rc;
}

static const struct key_handler hook_keys[] = {
	{ "hook", key_setting },
	{ "timeout", key_setting },
	{ NULL, NULL },
};

static int tkey_approval(struct ydoc *d, struct policy *p, void *obj,
			 struct ykey *k)
{
	return each_sub_key(d, k, "approval", p, obj);
}

static const struct key_handler audit_keys[] = {
	{ "path", key_setting },
	{ "on_full", key_setting },
	{ "enabled", key_setting },
	{ "queue", key_setting },
	{ NULL, NULL },
};

static int tkey_audit(struct ydoc *d, struct policy *p, void *obj,
		      struct ykey *k)
{
	return each_sub_key(d, k, "audit", p, obj);
}

static const struct key_handler top_keys[] = {
	{ "sandbox", tkey_sandbox, sandbox_keys },
	{ "trust", key_setting },
	{ "approval", tkey_approval, hook_keys },
	{ "audit", tkey_audit, audit_keys },
	{ NULL, NULL },
};

/* Each key of handler table @h below table path @prefix, and theirs. */
static int walk_keys(const struct key_handler *h, const char *prefix,
		     int (*fn)(void *ctx, const char *path), void *ctx)
{
	const struct policy_key *pk;
	char buf[128], sub[128];
	const char *path;
	int rc = 0;

	for (; rc == 0 && h->name; h++) {
		path = key_path(buf, sizeof(buf), prefix, h->name);
		rc = path ? fn(ctx, path) : -ENAMETOOLONG;
		if (rc < 0 || !h->sub)
			continue;
		pk = policy_key_find(path);
		path = pk ? sub_prefix(sub, sizeof(sub), pk) : NULL;
		rc = path ? walk_keys(h->sub, path, fn, ctx) : -ENOENT;
	}
	return rc;
}

int pol_config_walk(int (*fn)(void *ctx, const char *path), void *ctx)
{
	return walk_keys(top_keys, "", fn, ctx);
}

static int policy_defaults(struct policy *p, const char *dir)
{
	size_t i, n = sizeof(default_protect) / sizeof(default_protect[0]);

	p->config_dir = strdup(dir);
	p->root = pol_path_resolve(dir, ".sandbox");
	p->restrict_path = strdup("/");
	p->protect = calloc(n, sizeof(char *));
	if (!p->config_dir || !p->root || !p->restrict_path || !p->protect)
		return -ENOMEM;
	for (i = 0; default_protect[i]; i++) {
		p->protect[i] = strdup(default_protect[i]);
		if (!p->protect[i])
			return -ENOMEM;
	}
	p->trust = TRUST_SESSION;
	p->hook_timeout = 60;
	p->audit_enabled = true;
	p->audit_queue = 65536;
	return 0;
}

/* Named zones first, then bind mounts in config order (policy.h). */
static int zones_partition(struct policy *p)
{
	struct policy_zone *z =
	    malloc((p->nzones ? p->nzones : 1) * sizeof(*z));
	size_t i, n = 0;
	int pass;

	if (!z)
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < p->nzones; i++)
			if ((p->zones[i].kind == ZONE_MOUNT) == (pass == 1))
				z[n++] = p->zones[i];
	if (p->nzones) /* no zones: p->zones is NULL */
		memcpy(p->zones, z, p->nzones * sizeof(*z));
	free(z);
	for (p->nnamed = 0;
	     p->nnamed < p->nzones && p->zones[p->nnamed].kind != ZONE_MOUNT;
	     p->nnamed++)
		;
	return 0;
}

int policy_parse(struct policy **out, const char *text, size_t len,
		 const char *name, const char *dir, struct gfs_err *err)
{
	struct policy *p = calloc(1, sizeof(*p));
	struct ydoc d;
	int rc;

	if (!p)
		return -ENOMEM;
	rc = policy_defaults(p, dir);
	if (rc == 0)
		rc = pol_ydoc_load(&d, text, len, name, 0, err);
	if (rc < 0)
		goto out;
	rc = each_key(&d, pol_ydoc_root(&d), "the configuration", "", top_keys,
		      p, NULL);
	pol_ydoc_release(&d);
	if (rc == 0 && !p->audit_path) {
		p->audit_path = pol_path_resolve(p->root, "audit.db");
		rc = p->audit_path ? 0 : -ENOMEM;
	}
	if (rc == 0)
		rc = zones_partition(p);
	if (rc == 0)
		rc = policy_finish(p);
out:
	if (rc == -ENOMEM)
		gfs_err_set(err, rc, "%s: out of memory", name);
	if (rc < 0) {
		policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static void zone_release(struct policy_zone *z)
{
	size_t i;

	free(z->name);
	free(z->vpath);
	free(z->path);
	free(z->repo);
	free(z->branch);
	gfs_strv_free(z->suffixes);
	free(z->real);
	for (i = 0; i < z->nguards; i++) {
		free(z->guards[i].rel);
		free(z->guards[i].host);
	}
	free(z->guards);
	for (i = 0; i < z->nnests; i++)
		free(z->nests[i].rel);
	free(z->nests);
}

void policy_free(struct policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nzones; i++)
		zone_release(&p->zones[i]);
	free(p->zones);
	for (i = 0; i < p->nworkers; i++) {
		free(p->workers[i].name);
		free(p->workers[i].file);
	}
	free(p->workers);
	for (i = 0; i < TRUST_COUNT; i++)
		free(p->writable[i]);
	gfs_strv_free(p->protect);
	free(p->config_file);
	free(p->config_dir);
	free(p->root);
	free(p->restrict_path);
	free(p->restrict_worker);
	free(p->restrict_file);
	free(p->hook);
	free(p->audit_path);
	free(p);
}

const struct policy_zone *policy_find_zone(const struct policy *p,
					   const char *name)
{
	size_t i;

	for (i = 0; i < p->nzones; i++)
		if (strcmp(p->zones[i].name, name) == 0)
			return &p->zones[i];
	return NULL;
}
