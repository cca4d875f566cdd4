/*
 * What each zone holds that is not the program's: golemfs's own files
 * (guards) and other zones' directories (nests).
 *
 * A zone is a view of a host directory, and that directory may hold the
 * config file that decides the next session, the approval hook the
 * daemon runs on the host, the sandbox root with the audit database and
 * the staging repositories, or another zone's directory with stricter
 * rules. policy_resolve() finds them once, on the host, after the policy
 * is complete; policy_guard_find() and policy_area() then answer from
 * zone-relative paths alone, and policy_decide() applies both.
 *
 * Paths are compared in two forms, as written (lexically normalised) and
 * with symlinks resolved: a program must neither change the file a path
 * leads to nor the symlinks on the way there.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy_int.h"

const char *policy_path_rel(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return path[0] == '/' ? path + 1 : NULL;
	if (strncmp(path, top, n) || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

bool policy_path_within(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(path, top, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

bool pol_rel_within(const char *rel, const char *top)
{
	size_t n = strlen(top);

	if (!n)
		return true;
	return strncmp(rel, top, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

bool pol_op_moves(enum policy_op op, bool empty_dir)
{
	return op == POP_DELETE || op == POP_REPLACE ||
	       (op == POP_CREATE && !empty_dir);
}

const struct policy_guard *policy_guard_find(const struct policy_zone *z,
					     const char *rel, enum policy_op op,
					     bool empty_dir)
{
	const struct policy_guard *g;
	size_t i;

	if (op == POP_READ || op == POP_LIST)
		return NULL;
	for (i = 0; i < z->nguards; i++) {
		g = &z->guards[i];
		if (pol_rel_within(rel, g->rel) &&
		    (g->tree || strlen(rel) == strlen(g->rel)))
			return g;
		if (pol_rel_within(g->rel, rel) && pol_op_moves(op, empty_dir))
			return g;
	}
	return NULL;
}

size_t policy_area(const struct policy_zone *z, const char *rel)
{
	size_t i, best = 0, best_len = 0;

	for (i = 0; i < z->nnests; i++) {
		size_t n = strlen(z->nests[i].rel);

		if (pol_rel_within(rel, z->nests[i].rel) &&
		    (!best || n > best_len)) {
			best = i + 1;
			best_len = n;
		}
	}
	return best;
}

/* ---- on the host: policy_resolve() ---- */

/*
 * @path with symlinks resolved as far as it exists, the rest appended
 * as written; malloc'd, NULL on ENOMEM. A path that cannot be resolved
 * for another reason stays as written.
 */
static char *resolve_host(const char *path)
{
	char *real = realpath(path, NULL), *parent, *slash, *out;
	const char *base;

	if (real || (errno != ENOENT && errno != ENOTDIR))
		return real ? real : strdup(path);
	slash = strrchr(path, '/');
	if (!slash || slash == path)
		return strdup(path);
	parent = strndup(path, (size_t)(slash - path));
	if (!parent)
		return NULL;
	real = resolve_host(parent);
	free(parent);
	if (!real)
		return NULL;
	base = slash + 1;
	if (asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "", base) < 0)
		out = NULL;
	free(real);
	return out;
}

struct gsrc {
	char *path; /* absolute, as written */
	const char *what;
	bool tree;
};

struct gsrcs {
	struct gsrc *v;
	size_t n;
};

static int src_add(struct gsrcs *s, const char *base, const char *path,
		   const char *what, bool tree)
{
	struct gsrc *v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	v[s->n].path = pol_path_resolve(base, path);
	if (!v[s->n].path)
		return -ENOMEM;
	v[s->n].what = what;
	v[s->n++].tree = tree;
	return 0;
}

static int src_add2(struct gsrcs *s, const char *dir, const char *name,
		    const char *what, bool tree)
{
	char *p;
	int rc;

	if (asprintf(&p, "%s/%s", strcmp(dir, "/") ? dir : "", name) < 0)
		return -ENOMEM;
	rc = src_add(s, "/", p, what, tree);
	free(p);
	return rc;
}

/* Every word of the hook command that names a file. */
static int hook_srcs(struct gsrcs *s, const struct policy *p)
{
	char *copy, *tok, *save = NULL;
	int rc = 0;

	if (!p->hook)
		return 0;
	copy = strdup(p->hook);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " \t", &save); rc == 0 && tok;
	     tok = strtok_r(NULL, " \t", &save))
		if (strchr(tok, '/'))
			rc = src_add(s, p->config_dir, tok, "the approval hook",
				     false);
	free(copy);
	return rc;
}

/* The names config discovery tries, from @cwd up to the filesystem root. */
static int discovery_srcs(struct gsrcs *s, const char *cwd)
{
	char *dir = strdup(cwd), *slash;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	for (;;) {
		rc = src_add2(s, dir, "golem.yaml",
			      "a config file golemfs would read", false);
		if (rc == 0)
			rc =
			    src_add2(s, dir, "golem-forge.config.yaml",
				     "a config file golemfs would read", false);
		slash = strrchr(dir, '/');
		if (rc < 0 || !slash || strcmp(dir, "/") == 0)
			break;
		slash[slash == dir ? 1 : 0] = '\0';
	}
	free(dir);
	return rc;
}

static bool zone_has_dir(const struct policy_zone *z);

/* What the user's git config makes git run from a zone (gitpoint.c). */
static int point_add(void *ctx, const char *path, const char *what, bool tree)
{
	return src_add(ctx, "/", path, what, tree);
}

static int own_srcs(struct gsrcs *s, const struct policy *p, const char *cwd)
{
	static const char *const db_ext[] = { "", "-wal", "-shm", "-journal" };
	char *db;
	size_t i;
	int rc = 0;

	if (p->config_file)
		rc = src_add(s, "/", p->config_file, "the config file", false);
	for (i = 0; rc == 0 && i < p->nworkers; i++)
		rc =
		    src_add(s, cwd, p->workers[i].file, "a worker file", false);
	if (rc == 0)
		rc = hook_srcs(s, p);
	if (rc == 0)
		rc = src_add(s, "/", p->root, "the sandbox root", false);
	if (rc == 0)
		rc = src_add2(s, p->root, "sessions", "the sessions", true);
	if (rc == 0)
		rc = src_add2(s, p->root, "staging", "the staging repositories",
			      true);
	for (i = 0; rc == 0 && p->audit_path && i < 4; i++) {
		if (asprintf(&db, "%s%s", p->audit_path, db_ext[i]) < 0)
			return -ENOMEM;
		rc = src_add(s, "/", db, "the audit database", false);
		free(db);
	}
	if (rc == 0)
		rc = discovery_srcs(s, cwd);
	for (i = 0; rc == 0 && i < p->nzones; i++)
		if (zone_has_dir(&p->zones[i]))
			rc =
			    pol_git_pointed(p->zones[i].real ? p->zones[i].real
							     : p->zones[i].path,
					    point_add, s);
	return rc;
}

static bool zone_has_dir(const struct policy_zone *z)
{
	return z->path && z->kind != ZONE_STAGED && z->kind != ZONE_SESSION;
}

static int guard_add(struct policy_zone *z, const char *rel,
		     const struct gsrc *src)
{
	struct policy_guard *g;
	size_t i;

	for (i = 0; i < z->nguards; i++)
		if (strcmp(z->guards[i].rel, rel) == 0) {
			z->guards[i].tree |= src->tree;
			return 0;
		}
	g = realloc(z->guards, (z->nguards + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	z->guards = g;
	g += z->nguards;
	g->rel = strdup(rel);
	g->host = strdup(src->path);
	g->what = src->what;
	g->tree = src->tree;
	if (!g->rel || !g->host) {
		free(g->rel);
		free(g->host);
		return -ENOMEM;
	}
	z->nguards++;
	return 0;
}

/* Guard @src in every zone whose directory holds it, in both forms. */
static int guard_place(struct policy *p, const struct gsrc *src)
{
	char *real = resolve_host(src->path);
	const char *forms[2] = { src->path, real }, *bases[2], *rel;
	size_t i, f, b;
	int rc = 0;

	if (!real)
		return -ENOMEM;
	for (i = 0; rc == 0 && i < p->nzones; i++) {
		struct policy_zone *z = &p->zones[i];

		if (!zone_has_dir(z))
			continue;
		bases[0] = z->path;
		bases[1] = z->real ? z->real : z->path;
		for (f = 0; rc == 0 && f < 2; f++)
			for (b = 0; rc == 0 && b < 2; b++) {
				rel = policy_path_rel(forms[f], bases[b]);
				if (rel)
					rc = guard_add(z, rel, src);
			}
	}
	free(real);
	return rc;
}

static int nest_add(struct policy_zone *z, const char *rel, size_t zone)
{
	struct policy_nest *n = realloc(z->nests, (z->nnests + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	z->nests = n;
	n[z->nnests].rel = strdup(rel);
	if (!n[z->nnests].rel)
		return -ENOMEM;
	n[z->nnests++].zone = zone;
	return 0;
}

static int nests_find(struct policy *p)
{
	const char *rel;
	size_t i, j;
	int rc = 0;

	for (i = 0; rc == 0 && i < p->nzones; i++)
		for (j = 0; rc == 0 && j < p->nzones; j++) {
			if (i == j || !p->zones[i].real || !p->zones[j].real)
				continue;
			rel =
			    policy_path_rel(p->zones[j].real, p->zones[i].real);
			if (rel)
				rc = nest_add(&p->zones[i], rel, j);
		}
	return rc;
}

static bool zone_writable(const struct policy_zone *z)
{
	int t;

	for (t = 0; t < TRUST_COUNT; t++)
		if (z->rights[t] & (RIGHT_W | RIGHT_C | RIGHT_D))
			return true;
	return false;
}

/* "FILE:LINE:COL: zone 'NAME'" (or "mount TARGET") for errors. */
static void zone_where(const struct policy *p, const struct policy_zone *z,
		       char *buf, size_t size)
{
	snprintf(buf, size, "%s:%d:%d: %s%s%s%s",
		 p->config_file ? p->config_file : "(embedded default)",
		 z->line, z->col, z->kind == ZONE_MOUNT ? "mount " : "zone '",
		 z->name, z->kind == ZONE_MOUNT ? "" : "'", "");
}

/*
 * The first symlink on @path at or below @start (an index into it), into
 * @buf; false when there is none.
 */
static bool first_link(const char *path, size_t start, char *buf, size_t size)
{
	size_t len = strlen(path), k;
	struct stat st;

	if (len >= size)
		return false;
	for (k = start; k < len; k++) {
		if (path[k + 1] != '/' && path[k + 1] != '\0')
			continue;
		memcpy(buf, path, k + 1);
		buf[k + 1] = '\0';
		if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode))
			return true;
	}
	return false;
}

/*
 * A zone path that runs through a symlink inside another writable zone:
 * the program could point that link elsewhere, and the next mount would
 * serve whatever it chose.
 */
static int symlink_check(const struct policy *p, const struct policy_zone *n,
			 struct gfs_err *err)
{
	char link[PATH_MAX], where[PATH_MAX + 64];
	const char *rel;
	size_t i;

	for (i = 0; i < p->nzones; i++) {
		const struct policy_zone *z = &p->zones[i];

		if (z == n || !zone_has_dir(z) || !zone_writable(z))
			continue;
		rel = policy_path_rel(n->path, z->path);
		if (!rel && z->real)
			rel = policy_path_rel(n->path, z->real);
		if (!rel || !*rel ||
		    !first_link(n->path, (size_t)(rel - n->path), link,
				sizeof(link)))
			continue;
		zone_where(p, n, where, sizeof(where));
		return gfs_err_set(err, -EINVAL,
				   "%s: path %s runs through symlink %s inside "
				   "writable zone '%s': the program could "
				   "point it elsewhere",
				   where, n->path, link, z->name);
	}
	return 0;
}

/* The zone a virtual path lies in, as the virtual tree finds it. */
static const struct policy_zone *vcover(const struct policy *p,
					const char *vpath, const char **rest)
{
	const struct policy_zone *z;
	size_t i;

	for (i = 0; i < p->nzones; i++) {
		z = &p->zones[i < p->nnamed ? i
					    : p->nzones - 1 - (i - p->nnamed)];
		if (z->kind == ZONE_STAGED && i < p->nnamed)
			continue;
		*rest = policy_path_rel(vpath, z->vpath);
		if (*rest)
			return z;
	}
	return NULL;
}

/* A worker's restrict must name a directory the program could see. */
static int restrict_check(const struct policy *p, struct gfs_err *err)
{
	const char *r = p->restrict_path, *rest = NULL;
	const struct policy_zone *z;
	char *host = NULL;
	struct stat st;
	size_t i;
	int rc = 0;

	if (strcmp(r, "/") == 0)
		return 0;
	for (i = 0; i < p->nzones; i++)
		if (policy_path_rel(p->zones[i].vpath, r))
			return 0; /* on the way to a zone or mount */
	z = vcover(p, r, &rest);
	if (z && !zone_has_dir(z))
		return 0; /* staged commits and sessions come and go */
	if (z && asprintf(&host, "%s/%s", z->path, rest) < 0)
		return -ENOMEM;
	if (z && stat(host, &st) == 0 && S_ISDIR(st.st_mode))
		goto out;
	rc = gfs_err_set(err, -EINVAL,
			 "%s:%d:%d: worker '%s': restrict '%s' does not exist"
			 "%s%s%s",
			 p->restrict_file ? p->restrict_file : "?",
			 p->restrict_line, p->restrict_col,
			 p->restrict_worker ? p->restrict_worker : "?", r,
			 z ? " (" : ": no zone or mount holds it",
			 z ? host : "", z ? " is not a directory)" : "");
out:
	free(host);
	return rc;
}

int policy_resolve(struct policy *p, const char *cwd, struct gfs_err *err)
{
	struct gsrcs s = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < p->nzones; i++) {
		struct policy_zone *z = &p->zones[i];

		if (!zone_has_dir(z) || z->real)
			continue;
		z->real = resolve_host(z->path);
		if (!z->real)
			rc = -ENOMEM;
		pol_zone_git_inner(z);
	}
	for (i = 0; rc == 0 && i < p->nzones; i++)
		if (zone_has_dir(&p->zones[i]))
			rc = symlink_check(p, &p->zones[i], err);
	if (rc == 0)
		rc = restrict_check(p, err);
	if (rc == 0)
		rc = own_srcs(&s, p, cwd);
	for (i = 0; rc == 0 && i < s.n; i++)
		rc = guard_place(p, &s.v[i]);
	if (rc == 0)
		rc = nests_find(p);
	for (i = 0; i < s.n; i++)
		free(s.v[i].path);
	free(s.v);
	return rc;
}
