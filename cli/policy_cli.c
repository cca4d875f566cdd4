/*
 * The options every policy-reading command shares, and loading from them
 * (see policy_cli.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/policy_cli.h"

int policy_cli_take(struct policy_cli *o, int c, char *arg, struct gfs_err *err)
{
	char *tok, *save = NULL, *eq;
	size_t n;

	switch (c) {
	case 'c':
		o->config = arg;
		return 1;
	case 'W':
		if (o->nworkers == POLICY_CLI_MAX)
			return gfs_err_set(err, -EINVAL,
					   "--worker: at most %d workers",
					   POLICY_CLI_MAX);
		o->workers[o->nworkers++] = arg;
		return 1;
	case 'T':
		o->trust = arg;
		return 1;
	case 'o':
		break;
	default:
		return 0;
	}
	/* -o a=b,c: policy settings stay here, the rest goes to FUSE */
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (eq) {
			*eq = '\0';
			if (policy_is_setting(tok)) {
				*eq = '=';
				if (o->nsettings == POLICY_CLI_MAX)
					return gfs_err_set(err, -EINVAL,
							   "-o: too many "
							   "settings");
				o->settings[o->nsettings++] = tok;
				continue;
			}
			*eq = '=';
		}
		n = strlen(o->fuse_opts);
		if (n + strlen(tok) + 2 > sizeof(o->fuse_opts))
			return gfs_err_set(err, -EINVAL, "-o: too long");
		snprintf(o->fuse_opts + n, sizeof(o->fuse_opts) - n, "%s%s",
			 n ? "," : "", tok);
	}
	return 1;
}

int policy_cli_load(struct policy **out, struct policy_cli *o,
		    struct gfs_err *err)
{
	struct policy *p = NULL;
	char cwd[4096];
	size_t i;
	int rc;

	if (!getcwd(cwd, sizeof(cwd)))
		return gfs_err_set(err, -errno,
				   "cannot get the current "
				   "directory: %s",
				   strerror(errno));
	o->workers[o->nworkers] = NULL;
	rc = policy_load(&p, o->config, o->workers, cwd, err);
	for (i = 0; rc == 0 && i < o->nsettings; i++) {
		char *eq = strchr(o->settings[i], '=');

		*eq = '\0';
		rc = policy_set_override(p, o->settings[i], eq + 1, err);
		*eq = '=';
	}
	if (rc == 0 && o->trust && policy_trust_parse(&p->trust, o->trust))
		rc = gfs_err_set(err, -EINVAL,
				 "--trust: unknown level '%s' (untrusted, "
				 "session, workspace, full)",
				 o->trust);
	if (rc == 0)
		rc = policy_resolve(p, cwd, err);
	if (rc < 0) {
		policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* Shorten @path relative to @base for display when it lies below it. */
static const char *rel_to(const char *path, const char *base)
{
	size_t n = strlen(base);

	if (path && strncmp(path, base, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path ? path : "";
}

static void print_zone(const struct policy *p, const struct policy_zone *z)
{
	char buf[8];
	size_t i;
	int t;

	printf("%-12s %-9s %-2s", z->vpath, policy_kind_name(z->kind),
	       z->ro ? "ro" : "rw");
	for (t = 0; t < TRUST_COUNT; t++)
		printf(" %-10s", policy_rights_str(z->rights[t], buf));
	printf(" %-11s %-11s", policy_approval_name(z->approve_write),
	       policy_approval_name(z->approve_delete));
	printf(" ");
	/* printed whole: a suffix is a name, never shown cut */
	if (z->max_file_bytes)
		printf("max %" PRIu64 " B ", z->max_file_bytes);
	for (i = 0; z->suffixes && z->suffixes[i]; i++)
		printf("%s ", z->suffixes[i]);
	if (z->kind == ZONE_STAGED)
		printf("repo %s (%s)", z->repo, z->branch);
	else if (z->kind == ZONE_SESSION)
		printf("%s/sessions/ID", rel_to(p->root, p->config_dir));
	else if (z->real && strcmp(z->real, z->path))
		printf("%s -> %s", z->path, z->real);
	else
		printf("%s", z->path);
	printf("\n");
}

/* What golemfs keeps out of the program's reach inside each zone. */
static void print_guards(const struct policy *p)
{
	const struct policy_zone *z;
	size_t i, k;
	bool any = false;

	for (i = 0; i < p->nzones; i++) {
		z = &p->zones[i];
		for (k = 0; k < z->nguards; k++) {
			if (!any)
				printf("\nnever changed through the mount:\n");
			any = true;
			printf("  %s/%s%s  %s (%s)\n",
			       strcmp(z->vpath, "/") ? z->vpath : "",
			       z->guards[k].rel, z->guards[k].tree ? "/**" : "",
			       z->guards[k].what, z->guards[k].host);
		}
		for (k = 0; k < z->nnests; k++) {
			if (!any)
				printf("\nnever changed through the mount:\n");
			any = true;
			printf("  %s/%s  is also %s: the stricter rules of "
			       "both hold; never moved\n",
			       strcmp(z->vpath, "/") ? z->vpath : "",
			       z->nests[k].rel,
			       p->zones[z->nests[k].zone].vpath);
		}
	}
}

void policy_cli_print_table(const struct policy *p, enum policy_trust live)
{
	size_t i;
	int t;

	printf("config:   %s\n",
	       p->config_file ? p->config_file : "(embedded default)");
	printf("root:     %s\n", p->root);
	printf("workers:  ");
	for (i = 0; i < p->nworkers; i++)
		printf("%s%s", i ? " -> " : "", p->workers[i].name);
	printf("%s\n", p->nworkers ? "" : "(none)");
	printf("restrict: %s\n", p->restrict_path);
	printf("trust:    %s\n", policy_trust_name(live));
	printf("symlinks: %s   network: %s\n",
	       p->symlinks == SYMLINKS_DENY ? "deny" : "inside",
	       p->network ? "on" : "off");
	printf("audit:    %s%s (on_full %s, queue %zu)\n", p->audit_path,
	       p->audit_enabled ? "" : " [disabled]",
	       p->audit_on_full == AUDIT_FULL_BLOCK  ? "block"
	       : p->audit_on_full == AUDIT_FULL_DROP ? "drop"
						     : "fail",
	       p->audit_queue);
	printf("protect: ");
	for (i = 0; p->protect && p->protect[i]; i++)
		printf(" %s", p->protect[i]);
	printf("\n\n%-12s %-9s %-2s", "ZONE", "KIND", "MO");
	for (t = 0; t < TRUST_COUNT; t++) {
		char h[16];

		snprintf(h, sizeof(h), "%s%s", policy_trust_name(t),
			 t == (int)live ? "*" : "");
		printf(" %-10s", h);
	}
	printf(" %-11s %-11s %s\n", "WRITE", "DELETE", "LIMITS / SOURCE");
	for (i = 0; i < p->nzones; i++)
		print_zone(p, &p->zones[i]);
	print_guards(p);
	printf("\nrights: r read, w write, c create new files only, l list, "
	       "d delete; * live level\n");
}
