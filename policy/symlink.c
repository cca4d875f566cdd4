/*
 * The symlinks: inside rule, as pure functions: may a symlink with a given
 * target sit at a given depth below its zone's top, so that the host,
 * resolving it, never leaves the zone's backing directory?
 *
 * The host resolves ".." physically: after a symlink component, ".." goes
 * to the parent of wherever that link led, not back to where the name
 * stood. So a lexical walk of the target ("s/s/../../x" looks like one
 * level down) decides nothing once other links exist or are made later.
 * The rule here holds however the tree around the link changes, because it
 * lets the target go up only before any name:
 *
 *   - a relative target is "../" k times, then names only (no ".." after
 *     a name; "." and empty components are ignored). Resolved from the
 *     link's directory at depth d >= k, the k steps up end at a real
 *     directory of the zone (depth d - k >= 0); every later step goes down
 *     into a directory of the zone or through another link, which obeys
 *     the same rule. By induction nothing resolves above the zone's top.
 *   - an absolute target is a path on the host: it must be the zone's
 *     backing directory (as the host names it, without symlinks) followed
 *     by names only. It needs no depth.
 *
 * The one fact that can change later is the depth d: a rename, an exchange
 * or a hard link can place a link (or a directory holding links) higher up.
 * fs/ checks those moves with policy_link_check() at the new depth.
 */
#include <errno.h>
#include <string.h>

#include "policy.h"

/* The next component of *@s (skipping "/" and "."), or 0 at the end. */
static size_t next_name(const char **s)
{
	size_t n;

	for (;;) {
		while (**s == '/')
			(*s)++;
		n = strcspn(*s, "/");
		if (!(n == 1 && **s == '.'))
			return n;
		*s += n;
	}
}

/* Count the leading ".." of @s; -1 when a ".." follows a name. */
static long ups_of(const char *s)
{
	long ups = 0;
	bool named = false;
	size_t n;

	while ((n = next_name(&s)) > 0) {
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (named)
				return -1;
			ups++;
		} else {
			named = true;
		}
		s += n;
	}
	return ups;
}

/* Does @target name @top or a path under it (component-wise)? */
static const char *under_top(const char *target, const char *top)
{
	size_t tl = strlen(top);

	while (tl > 1 && top[tl - 1] == '/')
		tl--;
	if (tl == 1 && top[0] == '/')
		return target; /* the zone is the host's root */
	if (strncmp(target, top, tl) ||
	    (target[tl] != '/' && target[tl] != '\0'))
		return NULL;
	return target + tl;
}

int policy_link_need(size_t *need, const char *target, const char *host_top,
		     struct gfs_err *err)
{
	const char *rest;
	long ups;

	if (target[0] == '/') {
		rest = host_top ? under_top(target, host_top) : NULL;
		if (!rest)
			return gfs_err_set(err, -EACCES,
					   "symlink target '%s' is an absolute "
					   "path outside the zone's directory "
					   "on the host; use a relative target",
					   target);
		if (ups_of(rest) != 0)
			return gfs_err_set(err, -EACCES,
					   "symlink target '%s' has '..' after "
					   "a name; write it without",
					   target);
		*need = 0;
		return 0;
	}
	ups = ups_of(target);
	if (ups < 0)
		return gfs_err_set(err, -EACCES,
				   "symlink target '%s' has '..' after a name, "
				   "which the host resolves from wherever that "
				   "name leads; put every '..' first",
				   target);
	*need = (size_t)ups;
	return 0;
}

int policy_link_check(const char *target, size_t depth, const char *host_top,
		      struct gfs_err *err)
{
	size_t need;
	int rc;

	rc = policy_link_need(&need, target, host_top, err);
	if (rc == 0 && need > depth)
		rc = gfs_err_set(err, -EACCES,
				 "symlink target '%s' goes %zu level%s up from "
				 "a directory %zu below the zone's top: it "
				 "leads out of the zone",
				 target, need, need == 1 ? "" : "s", depth);
	return rc;
}
