/*
 * The settings a user may give on the command line as -o name=value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"

static int set_path(struct policy *p, char **dst, const char *v)
{
	char *s = pol_path_resolve(p->config_dir, v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

bool policy_is_setting(const char *name)
{
	static const char *const names[] = {
		"trust",       "network",       "symlinks",
		"audit.path",  "audit.on_full", "audit.enabled",
		"audit.queue", "approval.hook", "approval.timeout",
		NULL,
	};
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

int policy_set_override(struct policy *p, const char *name, const char *value,
			struct gfs_err *err)
{
	unsigned long v;
	char *end;

	if (strcmp(name, "trust") == 0) {
		if (policy_trust_parse(&p->trust, value) == 0)
			return 0;
	} else if (strcmp(name, "network") == 0) {
		if (!strcmp(value, "true") || !strcmp(value, "false")) {
			p->network = strcmp(value, "true") == 0;
			return 0;
		}
	} else if (strcmp(name, "symlinks") == 0) {
		if (!strcmp(value, "inside") || !strcmp(value, "deny")) {
			p->symlinks = strcmp(value, "deny") == 0
					  ? SYMLINKS_DENY
					  : SYMLINKS_INSIDE;
			return 0;
		}
	} else if (strcmp(name, "audit.path") == 0 && *value) {
		return set_path(p, &p->audit_path, value);
	} else if (strcmp(name, "audit.on_full") == 0) {
		static const char *const f[] = { "block", "drop", "fail" };
		int i;

		for (i = 0; i < 3; i++) {
			if (strcmp(value, f[i]) == 0) {
				p->audit_on_full = (enum audit_full)i;
				return 0;
			}
		}
	} else if (strcmp(name, "audit.enabled") == 0) {
		if (!strcmp(value, "true") || !strcmp(value, "false")) {
			p->audit_enabled = strcmp(value, "true") == 0;
			return 0;
		}
	} else if (strcmp(name, "audit.queue") == 0) {
		v = strtoul(value, &end, 10);
		if (*value && !*end && v >= 4 && v <= 10000000) {
			p->audit_queue = v;
			return 0;
		}
	} else if (strcmp(name, "approval.hook") == 0 && *value) {
		return set_path(p, &p->hook, value);
	} else if (strcmp(name, "approval.timeout") == 0) {
		v = strtoul(value, &end, 10);
		if (*value && !*end && v >= 1 && v <= 3600) {
			p->hook_timeout = (unsigned)v;
			return 0;
		}
	} else {
		return gfs_err_set(err, -EINVAL,
				   "-o %s: unknown setting (known: trust, "
				   "network, symlinks, audit.path, "
				   "audit.on_full, audit.enabled, audit.queue, "
				   "approval.hook, approval.timeout)",
				   name);
	}
	return gfs_err_set(err, -EINVAL, "-o %s: bad value '%s'", name, value);
}
