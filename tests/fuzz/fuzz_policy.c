/* Policy invariants shared by the harnesses; see fuzz_policy.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_policy.h"

static bool normalised(const char *s)
{
	const char *c;
	size_t n;

	if (!s)
		return true;
	if (s[0] != '/')
		return false;
	if (strcmp(s, "/") == 0)
		return true;
	for (c = s + 1;; c += n + 1) {
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[n])
			return true;
	}
}

void fuzz_check_policy(const struct policy *p)
{
	const struct policy_zone *z;
	uint8_t max;
	size_t i;
	int t;

	FUZZ_CHECK(normalised(p->root));
	FUZZ_CHECK(normalised(p->config_dir));
	FUZZ_CHECK(normalised(p->audit_path));
	FUZZ_CHECK(normalised(p->restrict_path));
	FUZZ_CHECK(p->nnamed <= p->nzones);
	for (i = 0; i < p->nzones; i++) {
		z = &p->zones[i];
		FUZZ_CHECK(z->name && z->vpath && z->vpath[0] == '/');
		FUZZ_CHECK((i < p->nnamed) == (z->kind != ZONE_MOUNT));
		FUZZ_CHECK(normalised(z->path));
		for (t = 0; t < TRUST_COUNT; t++) {
			max = (z->ro ? RIGHT_RO : RIGHT_ALL) &
			      z->trust_rights[t] & z->worker_rights;
			if (max & RIGHT_W)
				max |= RIGHT_C;
			FUZZ_CHECK((z->rights[t] & ~max) == 0);
			FUZZ_CHECK(!(z->rights[t] & RIGHT_W) ||
				   (z->rights[t] & RIGHT_C));
			if (z->ro)
				FUZZ_CHECK(!(z->rights[t] &
					     (RIGHT_W | RIGHT_C | RIGHT_D)));
		}
	}
}

void fuzz_check_ceiling(const struct policy *parent, const struct policy *child)
{
	const struct policy_zone *a, *b;
	size_t i;
	int t;

	FUZZ_CHECK(parent->nzones == child->nzones);
	for (i = 0; i < parent->nzones; i++) {
		a = &parent->zones[i];
		b = &child->zones[i];
		FUZZ_CHECK(strcmp(a->name, b->name) == 0);
		FUZZ_CHECK(!a->ro || b->ro);
		FUZZ_CHECK(b->approve_write >= a->approve_write);
		FUZZ_CHECK(b->approve_delete >= a->approve_delete);
		for (t = 0; t < TRUST_COUNT; t++)
			FUZZ_CHECK((b->rights[t] & ~a->rights[t]) == 0);
	}
	/* a restrict can only narrow what is visible */
	FUZZ_CHECK(strcmp(parent->restrict_path, "/") == 0 ||
		   strncmp(child->restrict_path, parent->restrict_path,
			   strlen(parent->restrict_path)) == 0);
}

static const char config[] =
    "sandbox:\n"
    "  mode: direct\n"
    "  root: .sandbox\n"
    "  zones:\n"
    "    input:  { path: ./docs/input, mode: ro, suffixes: [.pdf, .md],"
    " max_file_bytes: 1000 }\n"
    "    drafts: { path: ./docs/drafts, mode: rw }\n"
    "    inner:  { path: ./docs/drafts/inner, mode: rw,"
    " approval: { delete: blocked } }\n"
    "    final:\n"
    "      path: ./docs/final\n"
    "      mode: rw\n"
    "      approval: { write: ask, delete: blocked }\n"
    "      trust: { untrusted: \"\", session: rl, workspace: rwld,"
    " full: rwld }\n"
    "    workspace: { kind: workspace, path: ./ws }\n"
    "    repo:    { kind: repo, path: . }\n"
    "    staged:  { kind: staged, repo: ., branch: main }\n"
    "    session: { kind: session }\n"
    "  mounts:\n"
    "    - { source: ./cache, target: /cache, readonly: true }\n"
    "  protect: [\".git/hooks/**\", \".git/config\", \".bashrc\","
    " \"*.key\", \"secret/**\"]\n"
    "trust: session\n"
    "audit: { path: .sandbox/audit.db, on_full: fail }\n";

const char *fuzz_policy_setup(void)
{
	static char file[256];

	if (file[0])
		return file;
	fuzz_mkdirs("docs/input");
	fuzz_mkdirs("docs/drafts/inner");
	fuzz_mkdirs("docs/final");
	fuzz_mkdirs("ws");
	fuzz_mkdirs("cache");
	fuzz_mkdirs(".sandbox");
	fuzz_mkdirs("src/lib");
	strcpy(file, fuzz_path("golem.yaml"));
	fuzz_write(file, config, strlen(config));
	return file;
}

struct policy *fuzz_load(const char *cfg, const char *const *workers)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	int rc;

	rc = policy_load(&p, cfg, workers, fuzz_dir(), &err);
	if (rc == 0)
		rc = policy_resolve(p, fuzz_dir(), &err);
	if (rc == 0)
		return p;
	FUZZ_CHECK(err.msg[0] != '\0');
	FUZZ_CHECK(rc == -EINVAL || rc == -ENOENT || rc == -EIO ||
		   rc == -ENOMEM);
	policy_free(p);
	return NULL;
}
