/*
 * The key table (policy_keys.h) and the -o name=value settings parsed
 * from it. The YAML side of the same keys is in config.c.
 *
 * -o takes the same values as the config file, with two spellings kept
 * narrower or looser than YAML's as they always were: a boolean is only
 * "true" or "false", and a number is read by strtoul(3). A path or
 * command given with -o is always resolved against the config file's
 * directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"
#include "policy_keys.h"

static const char *const v_trust[] = { "untrusted", "session", "workspace",
				       "full", NULL };
static const char *const v_sandbox_mode[] = { "sandboxed", "direct", NULL };
static const char *const v_kind[] = { "plain",   "workspace", "repo", "staged",
				      "session", "workers",   NULL };
static const char *const v_mode[] = { "ro", "rw", NULL };
static const char *const v_approval[] = { "preApproved", "ask", "blocked",
					  NULL };
static const char *const v_clearance[] = { "refuse", "allow", NULL };
static const char *const v_symlinks[] = { "inside", "deny", NULL };
static const char *const v_on_full[] = { "block", "drop", "fail", NULL };

_Static_assert(TRUST_UNTRUSTED == 0 && TRUST_FULL == 3, "v_trust order");
_Static_assert(ZONE_PLAIN == 0 && ZONE_WORKERS == 5, "v_kind order");
_Static_assert(APPROVAL_PRE == 0 && APPROVAL_BLOCKED == 2, "v_approval order");
_Static_assert(SYMLINKS_INSIDE == 0 && SYMLINKS_DENY == 1, "v_symlinks order");
_Static_assert(AUDIT_FULL_BLOCK == 0 && AUDIT_FULL_FAIL == 2,
	       "v_on_full order");

static int apply_trust(struct policy *p, const struct policy_val *v)
{
	p->trust = (enum policy_trust)v->i;
	return 0;
}

static int apply_network(struct policy *p, const struct policy_val *v)
{
	p->network = v->b;
	return 0;
}

static int apply_symlinks(struct policy *p, const struct policy_val *v)
{
	p->symlinks = (enum symlink_rule)v->i;
	return 0;
}

static int apply_hook(struct policy *p, const struct policy_val *v)
{
	return pol_set_str(&p->hook, v->s);
}

static int apply_timeout(struct policy *p, const struct policy_val *v)
{
	p->hook_timeout = (unsigned)v->u;
	return 0;
}

static int apply_audit_path(struct policy *p, const struct policy_val *v)
{
	return pol_set_str(&p->audit_path, v->s);
}

static int apply_on_full(struct policy *p, const struct policy_val *v)
{
	p->audit_on_full = (enum audit_full)v->i;
	return 0;
}

static int apply_enabled(struct policy *p, const struct policy_val *v)
{
	p->audit_enabled = v->b;
	return 0;
}

static int apply_queue(struct policy *p, const struct policy_val *v)
{
	p->audit_queue = (size_t)v->u;
	return 0;
}

#define Z "sandbox.zones.NAME."

const struct policy_key policy_keys[] = {
	{ .path = "sandbox",
	  .type = PKT_MAP,
	  .applies = "config",
	  .doc = "the zones, bind mounts and rules of the sandbox" },
	{ .path = "sandbox.mode",
	  .type = PKT_ENUM,
	  .values = v_sandbox_mode,
	  .def = "sandboxed",
	  .applies = "config",
	  .doc = "zone paths are relative to sandbox.root (sandboxed) or to "
		 "the config file's directory (direct)",
	  .noun = "sandbox mode" },
	{ .path = "sandbox.root",
	  .type = PKT_PATH,
	  .def = ".sandbox",
	  .applies = "config",
	  .doc = "the sandbox root: sessions, staging, the audit database",
	  .noun = "root" },
	{ .path = "sandbox.zones",
	  .type = PKT_NAMES,
	  .applies = "config",
	  .doc = "the zones by name (letters, digits, '.', '_', '-'); each "
		 "appears as /NAME",
	  .noun = "zones" },
	{ .path = Z "kind",
	  .type = PKT_ENUM,
	  .values = v_kind,
	  .def = "plain",
	  .applies = "zones",
	  .doc = "selects the zone's row of the built-in trust table",
	  .noun = "kind" },
	{ .path = Z "path",
	  .type = PKT_PATH,
	  .applies = "zones but session and staged, which take none",
	  .doc = "the backing directory (required): relative to sandbox.root; "
		 "in direct mode, and for repo zones, to the config file",
	  .noun = "path" },
	{ .path = Z "mode",
	  .type = PKT_ENUM,
	  .values = v_mode,
	  .def = "ro for plain zones, rw for the other kinds",
	  .applies = "zones",
	  .doc = "the ceiling of the zone's rights",
	  .noun = "mode" },
	{ .path = Z "suffixes",
	  .type = PKT_STRINGS,
	  .def = "any name",
	  .applies = "zones",
	  .doc = "files (not directories) must end with one of these",
	  .noun = "suffixes" },
	{ .path = Z "max_file_bytes",
	  .type = PKT_UINT,
	  .def = "0 (no limit); staged zones 1073741824 (1 GiB)",
	  .applies = "zones",
	  .doc = "the largest a file may grow (EFBIG past it)",
	  .noun = "max_file_bytes",
	  .unit = "bytes" },
	{ .path = Z "approval",
	  .type = PKT_MAP,
	  .applies = "zones",
	  .doc = "whether writes and deletes need an answer first",
	  .noun = "approval" },
	{ .path = Z "approval.write",
	  .type = PKT_ENUM,
	  .values = v_approval,
	  .def = "preApproved",
	  .applies = "zones",
	  .doc = "creating and changing files: allowed, asked, or refused",
	  .noun = "approval write" },
	{ .path = Z "approval.delete",
	  .type = PKT_ENUM,
	  .values = v_approval,
	  .def = "preApproved",
	  .applies = "zones",
	  .doc = "deleting and renaming away: allowed, asked, or refused",
	  .noun = "approval delete" },
	{ .path = Z "trust",
	  .type = PKT_MAP,
	  .applies = "zones",
	  .doc = "the zone's rights per trust level, replacing the built-in "
		 "table's row",
	  .noun = "trust" },
	{ .path = Z "trust.LEVEL",
	  .type = PKT_RIGHTS,
	  .def = "the built-in trust table",
	  .applies = "zones",
	  .doc = "rights at LEVEL (untrusted, session, workspace, full); the "
		 "mode stays the ceiling",
	  .noun = "rights" },
	{ .path = Z "repo",
	  .type = PKT_PATH,
	  .applies = "staged zones (required)",
	  .doc = "the trusted repository, relative to the config file",
	  .noun = "repo" },
	{ .path = Z "branch",
	  .type = PKT_STRING,
	  .def = "main",
	  .applies = "staged zones",
	  .doc = "the trusted branch that pushes go to",
	  .noun = "branch" },
	{ .path = Z "clearance",
	  .type = PKT_MAP,
	  .applies = "staged zones",
	  .doc = "the checks at push",
	  .noun = "clearance" },
	{ .path = Z "clearance.binary",
	  .type = PKT_ENUM,
	  .values = v_clearance,
	  .def = "refuse",
	  .applies = "staged zones",
	  .doc = "whether a push may carry binary files",
	  .noun = "clearance binary" },
	{ .path = Z "clearance.entropy",
	  .type = PKT_ENUM,
	  .values = v_clearance,
	  .def = "refuse",
	  .applies = "staged zones",
	  .doc = "whether a push may carry text that looks like a secret "
		 "(high entropy)",
	  .noun = "clearance entropy" },
	{ .path = Z "clearance.max_file_bytes",
	  .type = PKT_UINT,
	  .def = "10000000",
	  .applies = "staged zones",
	  .doc = "larger files are refused at push (0: the default)",
	  .noun = "clearance max_file_bytes",
	  .unit = "bytes" },
	{ .path = "sandbox.mounts",
	  .type = PKT_LIST,
	  .applies = "config",
	  .doc = "Docker-style bind mounts; later ones shadow earlier ones, "
		 "named zones lie over them",
	  .noun = "mounts" },
	{ .path = "sandbox.mounts[].source",
	  .type = PKT_PATH,
	  .applies = "mounts (required)",
	  .doc = "the host directory, relative to the config file",
	  .noun = "source" },
	{ .path = "sandbox.mounts[].target",
	  .type = PKT_STRING,
	  .applies = "mounts (required)",
	  .doc = "where it appears: an absolute path without '..'",
	  .noun = "target" },
	{ .path = "sandbox.mounts[].readonly",
	  .type = PKT_BOOL,
	  .def = "false",
	  .applies = "mounts",
	  .doc = "the mount is read-only (EROFS)",
	  .noun = "readonly" },
	{ .path = "sandbox.symlinks",
	  .type = PKT_ENUM,
	  .values = v_symlinks,
	  .def = "inside",
	  .applies = "config",
	  .doc = "which symlinks the program may make: inside, none that "
		 "leads out of its zone's directory on the host; deny, none",
	  .noun = "symlinks",
	  .option = "symlinks",
	  .apply = apply_symlinks },
	{ .path = "sandbox.protect",
	  .type = PKT_STRINGS,
	  .def = ".git/hooks/**, .git/config, .bashrc, .profile, .mcp.json",
	  .applies = "config",
	  .doc = "globs (*, ?, **) never changed through the mount, matched at "
		 "any depth; replaces the default list",
	  .noun = "protect" },
	{ .path = "sandbox.network",
	  .type = PKT_BOOL,
	  .def = "false",
	  .applies = "config",
	  .doc = "whether golemfs run lets the program reach the network",
	  .noun = "network",
	  .option = "network",
	  .apply = apply_network },
	{ .path = "trust",
	  .type = PKT_ENUM,
	  .values = v_trust,
	  .def = "session",
	  .applies = "config",
	  .doc = "the trust level at mount",
	  .noun = "trust",
	  .option = "trust",
	  .apply = apply_trust },
	{ .path = "approval",
	  .type = PKT_MAP,
	  .applies = "config",
	  .doc = "who answers the questions of zones whose approval is ask",
	  .noun = "approval" },
	{ .path = "approval.hook",
	  .type = PKT_COMMAND,
	  .def = "none",
	  .applies = "config",
	  .doc = "a command that answers (exit 0 approves); a path is "
		 "relative to the config file",
	  .noun = "hook",
	  .option = "approval.hook",
	  .apply = apply_hook },
	{ .path = "approval.timeout",
	  .type = PKT_UINT,
	  .min = 1,
	  .max = 3600,
	  .unit = "seconds",
	  .def = "60",
	  .applies = "config",
	  .doc = "no answer within it refuses",
	  .noun = "approval timeout",
	  .option = "approval.timeout",
	  .apply = apply_timeout },
	{ .path = "audit",
	  .type = PKT_MAP,
	  .applies = "config",
	  .doc = "the audit log of every decision",
	  .noun = "audit" },
	{ .path = "audit.path",
	  .type = PKT_PATH,
	  .def = "ROOT/audit.db",
	  .applies = "config",
	  .doc = "the audit database, relative to the config file; never "
		 "inside a zone",
	  .noun = "path",
	  .option = "audit.path",
	  .apply = apply_audit_path },
	{ .path = "audit.on_full",
	  .type = PKT_ENUM,
	  .values = v_on_full,
	  .def = "block",
	  .applies = "config",
	  .doc = "when the queue is full: wait, act unaudited (counted), or "
		 "refuse with EIO",
	  .noun = "on_full",
	  .option = "audit.on_full",
	  .apply = apply_on_full },
	{ .path = "audit.enabled",
	  .type = PKT_BOOL,
	  .def = "true",
	  .applies = "config",
	  .doc = "whether decisions are logged; false is for measurements "
		 "only",
	  .noun = "audit enabled",
	  .option = "audit.enabled",
	  .apply = apply_enabled },
	{ .path = "audit.queue",
	  .type = PKT_UINT,
	  .min = 4,
	  .max = 10000000,
	  .unit = "events",
	  .def = "65536",
	  .applies = "config",
	  .doc = "events held in memory before they are written",
	  .noun = "audit queue",
	  .option = "audit.queue",
	  .apply = apply_queue },
	{ .path = NULL },
};

/*
 * Worker files: the keys of their front matter. Other top-level keys
 * than these are ignored (a worker file may describe itself for other
 * tools); everything under sandbox is checked.
 */
const struct policy_key policy_worker_keys[] = {
	{ .path = "name",
	  .type = PKT_STRING,
	  .def = "the file name without .worker",
	  .applies = "worker files",
	  .doc = "the worker's name, in errors and the audit log",
	  .noun = "name" },
	{ .path = "sandbox",
	  .type = PKT_MAP,
	  .def = "none: an empty root",
	  .applies = "worker files",
	  .doc = "what the worker keeps of its parent's sandbox",
	  .noun = "sandbox" },
	{ .path = "sandbox.zones",
	  .type = PKT_LIST,
	  .def = "every zone as the parent had it",
	  .applies = "worker files",
	  .doc = "the zones kept; a zone not listed is gone",
	  .noun = "zones" },
	{ .path = "sandbox.zones[].name",
	  .type = PKT_STRING,
	  .applies = "worker zones (required)",
	  .doc = "a zone of the config, listed once",
	  .noun = "name" },
	{ .path = "sandbox.zones[].mode",
	  .type = PKT_ENUM,
	  .values = v_mode,
	  .def = "ro",
	  .applies = "worker zones",
	  .doc = "at most the parent's mode: asking rw of a zone the parent "
		 "has ro is an error",
	  .noun = "mode" },
	{ .path = "sandbox.zones[].approval",
	  .type = PKT_MAP,
	  .applies = "worker zones",
	  .doc = "approvals, each as strict as the parent's or stricter",
	  .noun = "approval" },
	{ .path = "sandbox.zones[].approval.write",
	  .type = PKT_ENUM,
	  .values = v_approval,
	  .def = "the parent's",
	  .applies = "worker zones",
	  .doc = "creating and changing files: allowed, asked, or refused",
	  .noun = "approval" },
	{ .path = "sandbox.zones[].approval.delete",
	  .type = PKT_ENUM,
	  .values = v_approval,
	  .def = "the parent's",
	  .applies = "worker zones",
	  .doc = "deleting and renaming away: allowed, asked, or refused",
	  .noun = "approval" },
	{ .path = "sandbox.restrict",
	  .type = PKT_STRING,
	  .def = "the parent's (/ at the top)",
	  .applies = "worker files",
	  .doc =
	      "a virtual path: only that subtree is visible; it must exist "
	      "(in a zone or on the way to one) and lie within the parent's; "
	      "'..' may not climb above the root",
	  .noun = "restrict" },
	{ .path = "sandbox.readonly",
	  .type = PKT_BOOL,
	  .def = "false",
	  .applies = "worker files",
	  .doc = "every zone read-only (EROFS, like a read-only mount)",
	  .noun = "readonly" },
	{ .path = NULL },
};

/* Does segment @want of a table path stand for segment @got of @path? */
static bool seg_match(const char *want, size_t wn, const char *got, size_t gn)
{
	enum policy_trust t;
	char level[16];

	if (wn == gn && strncmp(want, got, wn) == 0)
		return true;
	if (wn == 5 && strncmp(want, "LEVEL", 5) == 0 && gn < sizeof(level)) {
		memcpy(level, got, gn);
		level[gn] = '\0';
		return policy_trust_parse(&t, level) == 0;
	}
	return false;
}

/* Does table path @want name @path (LEVEL matching a trust level)? */
static bool path_match(const char *want, const char *path)
{
	const char *we, *pe;

	for (;;) {
		we = strchr(want, '.');
		pe = strchr(path, '.');
		if (!we)
			we = want + strlen(want);
		if (!pe)
			pe = path + strlen(path);
		if (!seg_match(want, (size_t)(we - want), path,
			       (size_t)(pe - path)))
			return false;
		if (!*we || !*pe)
			return !*we && !*pe;
		want = we + 1;
		path = pe + 1;
	}
}

const struct policy_key *policy_key_lookup(const struct policy_key *table,
					   const char *path)
{
	const struct policy_key *k;

	for (k = table; k->path; k++)
		if (path_match(k->path, path))
			return k;
	return NULL;
}

const struct policy_key *policy_key_find(const char *path)
{
	return policy_key_lookup(policy_keys, path);
}

const struct policy_key *policy_key_option(const char *name)
{
	const struct policy_key *k;

	for (k = policy_keys; k->path; k++)
		if (k->option && strcmp(k->option, name) == 0)
			return k;
	return NULL;
}

int policy_key_enum(const struct policy_key *k, const char *s)
{
	int i;

	for (i = 0; k->values && k->values[i]; i++)
		if (strcmp(k->values[i], s) == 0)
			return i;
	return -1;
}

const char *policy_key_values(const struct policy_key *k, char *buf,
			      size_t size)
{
	size_t n = 0, i;
	int w;

	buf[0] = '\0';
	for (i = 0; k->values && k->values[i]; i++) {
		w = snprintf(buf + n, size - n, "%s%s",
			     !i                 ? ""
			     : k->values[i + 1] ? ", "
						: " or ",
			     k->values[i]);
		if (w < 0 || (size_t)w >= size - n)
			return NULL;
		n += (size_t)w;
	}
	return buf;
}

bool policy_key_is_child(const struct policy_key *k, const char *parent)
{
	size_t n = strlen(parent);
	const char *rest = k->path;

	if (n) {
		if (strncmp(k->path, parent, n))
			return false;
		rest = k->path + n;
		if (strncmp(rest, ".NAME.", 6) == 0)
			rest += 6;
		else if (strncmp(rest, "[].", 3) == 0)
			rest += 3;
		else if (*rest == '.')
			rest++;
		else
			return false;
	}
	return *rest && !strchr(rest, '.');
}

bool policy_is_setting(const char *name)
{
	return policy_key_option(name) != NULL;
}

/*
 * The value -o gives key @k as @s; a path is resolved into *@owned.
 * Return: 0, -EINVAL (not a value of @k), -ENOMEM.
 */
static int option_value(const struct policy *p, const struct policy_key *k,
			const char *s, struct policy_val *v, char **owned)
{
	unsigned long n;
	char *end;

	switch (k->type) {
	case PKT_ENUM:
		v->i = policy_key_enum(k, s);
		return v->i < 0 ? -EINVAL : 0;
	case PKT_BOOL:
		if (strcmp(s, "true") && strcmp(s, "false"))
			return -EINVAL;
		v->b = strcmp(s, "true") == 0;
		return 0;
	case PKT_UINT:
		n = strtoul(s, &end, 10);
		if (!*s || *end || n < k->min || (k->max && n > k->max))
			return -EINVAL;
		v->u = n;
		return 0;
	case PKT_PATH:
	case PKT_COMMAND:
		if (!*s)
			return -EINVAL;
		*owned = pol_path_resolve(p->config_dir, s);
		v->s = *owned;
		return v->s ? 0 : -ENOMEM;
	default:
		return -EINVAL;
	}
}

static int unknown_setting(const char *name, struct gfs_err *err)
{
	const struct policy_key *k;
	char known[256] = "";
	size_t n = 0;
	int w;

	for (k = policy_keys; k->path; k++) {
		if (!k->option)
			continue;
		w = snprintf(known + n, sizeof(known) - n, "%s%s",
			     n ? ", " : "", k->option);
		if (w < 0 || (size_t)w >= sizeof(known) - n)
			return gfs_err_set(err, -EINVAL,
					   "-o %s: unknown setting", name);
		n += (size_t)w;
	}
	return gfs_err_set(err, -EINVAL, "-o %s: unknown setting (known: %s)",
			   name, known);
}

int policy_set_override(struct policy *p, const char *name, const char *value,
			struct gfs_err *err)
{
	const struct policy_key *k = policy_key_option(name);
	struct policy_val v = { 0 };
	char *owned = NULL;
	int rc;

	if (!k)
		return unknown_setting(name, err);
	rc = option_value(p, k, value, &v, &owned);
	if (rc == 0)
		rc = k->apply(p, &v);
	free(owned);
	if (rc == -EINVAL)
		return gfs_err_set(err, -EINVAL, "-o %s: bad value '%s'", name,
				   value);
	return rc;
}
