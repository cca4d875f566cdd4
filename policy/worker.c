/*
 * Worker files: YAML front matter between '---' lines, of which only the
 * 'sandbox:' key matters to golemfs. Applying a worker can only keep or
 * lower what the policy grants (the parent is the ceiling):
 *
 *  - no 'sandbox:' at all: nothing is granted (an empty root);
 *  - 'zones:' present: only the listed zones stay, each at most at the
 *    listed mode; asking more than the parent has is an error;
 *  - 'zones:' absent: every zone stays as the parent had it;
 *  - 'readonly: true' makes every zone read-only (EROFS, like a ro mount);
 *  - 'restrict: /sub' shows only that virtual subtree, inside the parent's;
 *  - approvals may only become stricter.
 *
 * A worker is applied to a copy of the rights and committed only when the
 * whole file was valid, so a bad worker leaves the policy untouched.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"
#include "policy_keys.h"

struct wzone {
	uint8_t rights; /* worker_rights after this worker */
	bool ro;
	bool listed;
	enum approval aw, ad;
};

struct wstate {
	struct policy *p;
	const char *name;
	struct wzone *z; /* one per p->zones */
	bool has_zones;
	bool readonly;
	char *restrict_path;
	int restrict_line, restrict_col;
};

/*
 * Is @key, in the mapping at @prefix of the front matter, one of
 * policy_worker_keys[]? A key the parser reads but the table lacks is
 * refused like any unknown key.
 */
static bool wkey_known(const char *prefix, const char *key)
{
	char path[64];
	int n = snprintf(path, sizeof(path), "%s.%s", prefix, key);

	return n >= 0 && (size_t)n < sizeof(path) &&
	       policy_key_lookup(policy_worker_keys, path);
}

static int wz_mode(struct ydoc *d, yaml_node_t *n, bool *ro)
{
	const char *s;

	if (pol_ydoc_string(d, n, "mode", &s) < 0)
		return -EINVAL;
	if (strcmp(s, "ro") && strcmp(s, "rw"))
		return pol_ydoc_error(d, n, "mode must be ro or rw, not '%s'",
				      s);
	*ro = strcmp(s, "ro") == 0;
	return 0;
}

/* Parse approval: {write, delete}; each may only be stricter. */
static int wz_approval(struct ydoc *d, struct wstate *w, yaml_node_t *n,
		       size_t zi)
{
	const struct policy_zone *z = &w->p->zones[zi];
	yaml_node_pair_t *pair;
	enum approval a, *slot;
	const char *key, *s;

	if (pol_ydoc_expect(d, n, YAML_MAPPING_NODE, "approval") < 0)
		return -EINVAL;
	for (pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = pol_ydoc_node(d, pair->key);
		yaml_node_t *v = pol_ydoc_node(d, pair->value);

		if (pol_ydoc_string(d, k, "a key", &key) < 0 ||
		    pol_ydoc_string(d, v, "an approval", &s) < 0)
			return -EINVAL;
		if (!wkey_known("sandbox.zones[].approval", key))
			slot = NULL;
		else if (strcmp(key, "write") == 0)
			slot = &w->z[zi].aw;
		else if (strcmp(key, "delete") == 0)
			slot = &w->z[zi].ad;
		else
			slot = NULL;
		if (!slot)
			return pol_ydoc_error(
			    d, k, "unknown key '%s' in approval", key);
		if (strcmp(s, "preApproved") == 0)
			a = APPROVAL_PRE;
		else if (strcmp(s, "ask") == 0)
			a = APPROVAL_ASK;
		else if (strcmp(s, "blocked") == 0)
			a = APPROVAL_BLOCKED;
		else
			return pol_ydoc_error(
			    d, v,
			    "approval must be preApproved, ask "
			    "or blocked, not '%s'",
			    s);
		if (a < *slot)
			return pol_ydoc_error(
			    d, v,
			    "worker '%s': sets %s approval '%s' "
			    "on '%s' but parent requires '%s'",
			    w->name, key, s, z->name,
			    policy_approval_name(*slot));
		*slot = a;
	}
	return 0;
}

static int zone_index(const struct policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nzones; i++)
		if (strcmp(p->zones[i].name, name) == 0)
			return (int)i;
	return -1;
}

static const char *parent_has(const struct policy_zone *z, uint8_t rights)
{
	if (!rights)
		return "no access";
	return (z->ro || !(rights & RIGHT_W)) ? "'ro'" : "'rw'";
}

static int wz_entry(struct ydoc *d, struct wstate *w, yaml_node_t *n)
{
	yaml_node_t *name = NULL, *mode = NULL, *appr = NULL;
	yaml_node_pair_t *pair;
	const struct policy_zone *z;
	const char *key, *zname;
	bool ro = true;
	int zi;

	if (pol_ydoc_expect(d, n, YAML_MAPPING_NODE, "a zone entry") < 0)
		return -EINVAL;
	for (pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = pol_ydoc_node(d, pair->key);

		if (pol_ydoc_string(d, k, "a key", &key) < 0)
			return -EINVAL;
		if (!wkey_known("sandbox.zones[]", key))
			return pol_ydoc_error(
			    d, k, "unknown key '%s' in worker zone", key);
		if (strcmp(key, "name") == 0)
			name = pol_ydoc_node(d, pair->value);
		else if (strcmp(key, "mode") == 0)
			mode = pol_ydoc_node(d, pair->value);
		else if (strcmp(key, "approval") == 0)
			appr = pol_ydoc_node(d, pair->value);
		else
			return pol_ydoc_error(
			    d, k, "unknown key '%s' in worker zone", key);
	}
	if (!name)
		return pol_ydoc_error(d, n, "worker zone needs a 'name'");
	if (pol_ydoc_string(d, name, "name", &zname) < 0)
		return -EINVAL;
	zi = zone_index(w->p, zname);
	if (zi < 0)
		return pol_ydoc_error(d, name, "unknown zone '%s'", zname);
	if (w->z[zi].listed)
		return pol_ydoc_error(d, name, "zone '%s' listed twice", zname);
	z = &w->p->zones[zi];
	if (mode && wz_mode(d, mode, &ro) < 0)
		return -EINVAL;
	if (!z->worker_rights ||
	    (!ro && (z->ro || !(z->worker_rights & RIGHT_W))))
		return pol_ydoc_error(d, mode ? mode : name,
				      "worker '%s': requests '%s' on '%s' but "
				      "parent %s%s",
				      w->name, ro ? "ro" : "rw", zname,
				      z->worker_rights ? "only has " : "has ",
				      parent_has(z, z->worker_rights));
	w->z[zi].listed = true;
	w->z[zi].rights = z->worker_rights & (ro ? RIGHT_RO : RIGHT_ALL);
	return appr ? wz_approval(d, w, appr, (size_t)zi) : 0;
}

static int wkey_zones(struct ydoc *d, struct wstate *w, yaml_node_t *n)
{
	yaml_node_item_t *it;
	size_t i;
	int rc;

	if (pol_ydoc_expect(d, n, YAML_SEQUENCE_NODE, "zones") < 0)
		return -EINVAL;
	w->has_zones = true;
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		rc = wz_entry(d, w, pol_ydoc_node(d, *it));
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < w->p->nzones; i++)
		if (!w->z[i].listed)
			w->z[i].rights = 0;
	return 0;
}

static int wkey_restrict(struct ydoc *d, struct wstate *w, yaml_node_t *n)
{
	const char *s;

	if (pol_ydoc_string(d, n, "restrict", &s) < 0)
		return -EINVAL;
	if (s[0] != '/')
		return pol_ydoc_error(
		    d, n, "restrict '%s' must be an absolute path", s);
	if (pol_path_leaves_root(s))
		return pol_ydoc_error(d, n, "restrict '%s' leaves the root", s);
	w->restrict_line = (int)(d->line0 + n->start_mark.line + 1);
	w->restrict_col = (int)n->start_mark.column + 1;
	w->restrict_path = pol_path_resolve("/", s);
	if (!w->restrict_path)
		return -ENOMEM;
	if (!policy_path_within(w->restrict_path, w->p->restrict_path))
		return pol_ydoc_error(d, n,
				      "worker '%s': restricts to '%s' outside "
				      "parent's '%s'",
				      w->name, w->restrict_path,
				      w->p->restrict_path);
	return 0;
}

static int wsandbox(struct ydoc *d, struct wstate *w, yaml_node_t *sb)
{
	yaml_node_pair_t *pair;
	const char *key;
	int rc = 0;

	if (pol_ydoc_expect(d, sb, YAML_MAPPING_NODE, "sandbox") < 0)
		return -EINVAL;
	for (pair = sb->data.mapping.pairs.start;
	     rc == 0 && pair < sb->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = pol_ydoc_node(d, pair->key);
		yaml_node_t *v = pol_ydoc_node(d, pair->value);

		if (pol_ydoc_string(d, k, "a key", &key) < 0)
			return -EINVAL;
		if (!wkey_known("sandbox", key))
			rc = pol_ydoc_error(d, k, "unknown key '%s' in sandbox",
					    key);
		else if (strcmp(key, "zones") == 0)
			rc = wkey_zones(d, w, v);
		else if (strcmp(key, "restrict") == 0)
			rc = wkey_restrict(d, w, v);
		else if (strcmp(key, "readonly") == 0)
			rc = pol_ydoc_bool(d, v, "readonly", &w->readonly);
		else
			rc = pol_ydoc_error(d, k, "unknown key '%s' in sandbox",
					    key);
	}
	return rc;
}

/*
 * Find the front matter: the text must start with a line "---" and the
 * matter ends at the next line that is exactly "---".
 */
static int front_matter(const char *text, size_t len, size_t *start,
			size_t *mlen)
{
	const char *end = text + len, *s, *nl;

	if (len < 4 || strncmp(text, "---", 3) ||
	    (text[3] != '\n' && text[3] != '\r'))
		return -EINVAL;
	s = memchr(text, '\n', len);
	if (!s) /* "---\r" and no line after it */
		return -EINVAL;
	*start = (size_t)(++s - text);
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (nl - s >= 3 && strncmp(s, "---", 3) == 0 &&
		    (nl - s == 3 || (nl - s == 4 && s[3] == '\r'))) {
			*mlen = (size_t)(s - text) - *start;
			return 0;
		}
		s = nl + 1;
	}
	return -EINVAL;
}

static int worker_name(struct ydoc *d, yaml_node_t *root, const char *file,
		       char **out)
{
	yaml_node_pair_t *pair;
	const char *s;
	char *copy, *base, *dot;

	for (pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = pol_ydoc_node(d, pair->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp(pol_ydoc_str(k), "name") == 0) {
			if (pol_ydoc_string(d, pol_ydoc_node(d, pair->value),
					    "name", &s) < 0)
				return -EINVAL;
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
	}
	copy = strdup(file);
	if (!copy)
		return -ENOMEM;
	base = basename(copy);
	dot = strstr(base, ".worker");
	if (dot && dot[7] == '\0')
		*dot = '\0';
	*out = strdup(base);
	free(copy);
	return *out ? 0 : -ENOMEM;
}

static yaml_node_t *find_key(struct ydoc *d, yaml_node_t *map, const char *k)
{
	yaml_node_pair_t *pair;

	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = pol_ydoc_node(d, pair->key);

		if (key->type == YAML_SCALAR_NODE &&
		    strcmp(pol_ydoc_str(key), k) == 0)
			return pol_ydoc_node(d, pair->value);
	}
	return NULL;
}

static int wstate_init(struct wstate *w, struct policy *p)
{
	size_t i;

	w->p = p;
	w->z = calloc(p->nzones ? p->nzones : 1, sizeof(*w->z));
	if (!w->z)
		return -ENOMEM;
	for (i = 0; i < p->nzones; i++) {
		w->z[i].rights = p->zones[i].worker_rights;
		w->z[i].ro = p->zones[i].ro;
		w->z[i].aw = p->zones[i].approve_write;
		w->z[i].ad = p->zones[i].approve_delete;
	}
	return 0;
}

/*
 * No sandbox: key: nothing is granted. Only the rights go; the zones stay
 * read-only and their approvals as strict as the parent made them.
 */
static void worker_empty_root(struct wstate *w)
{
	size_t i;

	for (i = 0; i < w->p->nzones; i++)
		w->z[i].rights = 0;
}

/* Commit a fully validated worker into the policy. */
static int wstate_commit(struct wstate *w, char *name, const char *file)
{
	struct policy *p = w->p;
	struct policy_worker *wk;
	char *fcopy = strdup(file);
	size_t i;

	wk =
	    fcopy ? realloc(p->workers, (p->nworkers + 1) * sizeof(*wk)) : NULL;
	if (!wk) {
		free(fcopy);
		free(name);
		return -ENOMEM;
	}
	p->workers = wk;
	wk = &p->workers[p->nworkers++];
	wk->name = name;
	wk->file = fcopy;
	for (i = 0; i < p->nzones; i++) {
		struct policy_zone *z = &p->zones[i];

		if (w->z[i].rights != z->worker_rights || w->readonly)
			z->lowered_by = wk->name;
		z->worker_rights = w->z[i].rights;
		if (w->readonly) {
			z->ro = true;
			z->worker_rights &= RIGHT_RO;
		}
		z->approve_write = w->z[i].aw;
		z->approve_delete = w->z[i].ad;
	}
	if (w->restrict_path) {
		free(p->restrict_path);
		p->restrict_path = w->restrict_path;
		w->restrict_path = NULL;
		free(p->restrict_worker);
		free(p->restrict_file);
		p->restrict_worker = strdup(wk->name);
		p->restrict_file = strdup(wk->file);
		if (!p->restrict_worker || !p->restrict_file)
			return -ENOMEM;
		p->restrict_line = w->restrict_line;
		p->restrict_col = w->restrict_col;
	}
	return policy_finish(p);
}

int policy_apply_worker_text(struct policy *p, const char *text, size_t len,
			     const char *file, struct gfs_err *err)
{
	struct wstate w = { 0 };
	struct ydoc d;
	yaml_node_t *root, *sb;
	char *name = NULL;
	size_t start, mlen;
	int rc;

	rc = pol_ydoc_check_text(text, len, file, 0, err);
	if (rc < 0)
		return rc;
	if (front_matter(text, len, &start, &mlen) < 0)
		return gfs_err_set(err, -EINVAL,
				   "%s:1:1: a worker file must start with "
				   "YAML front matter between '---' lines",
				   file);
	rc = wstate_init(&w, p);
	if (rc < 0)
		return rc;
	/* the matter starts on line 2: after the opening '---' */
	rc = pol_ydoc_load(&d, text + start, mlen, file, 1, err);
	if (rc < 0)
		goto out_free;
	root = pol_ydoc_root(&d);
	rc =
	    pol_ydoc_expect(&d, root, YAML_MAPPING_NODE, "worker front matter");
	if (rc == 0)
		rc = worker_name(&d, root, file, &name);
	if (rc == 0) {
		w.name = name;
		sb = find_key(&d, root, "sandbox");
		if (sb)
			rc = wsandbox(&d, &w, sb);
		else
			worker_empty_root(&w);
	}
	if (rc == 0) {
		rc = wstate_commit(&w, name, file); /* takes name */
		name = NULL;
	}
	pol_ydoc_release(&d);
out_free:
	free(name);
	free(w.restrict_path);
	free(w.z);
	if (rc == -ENOMEM)
		gfs_err_set(err, rc, "%s: out of memory", file);
	return rc;
}

int policy_apply_worker(struct policy *p, const char *file, struct gfs_err *err)
{
	char *text = NULL;
	size_t len;
	int rc;

	rc = pol_read_file(file, &text, &len, err);
	if (rc == 0)
		rc = policy_apply_worker_text(p, text, len, file, err);
	free(text);
	return rc;
}
