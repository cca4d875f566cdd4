/*
 * The protect-glob matcher as it was before it became a single pass: a
 * plain recursive backtracker, exponential in the number of stars, kept
 * as the reference that tests/unit/test_policy.c and the glob fuzz harness
 * compare pol_glob_match() and policy_is_protected() against. Only for
 * short globs and paths.
 */
#ifndef GFS_GLOB_REF_H
#define GFS_GLOB_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Does @pat match all of @s? */
static bool glob_ref_match(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (pat[0] == '*' && pat[1] == '*') {
			pat += 2;
			if (*pat == '\0')
				return true;
			if (*pat == '/')
				pat++;
			for (;;) {
				if (glob_ref_match(pat, s))
					return true;
				s = strchr(s, '/');
				if (!s)
					return false;
				s++;
			}
		}
		if (*pat == '*') {
			for (;; s++) {
				if (glob_ref_match(pat + 1, s))
					return true;
				if (*s == '\0' || *s == '/')
					return false;
			}
		}
		if (*s == '\0')
			return pat[0] == '/' && pat[1] == '*' &&
			       pat[2] == '*' && pat[3] == '\0';
		if (*pat == '?' ? *s == '/' : *pat != *s)
			return false;
	}
	return *s == '\0';
}

/* The first of @globs (NULL-terminated) to match a tail of @path, the
   longest tail first: what policy_is_protected() names, or NULL. */
static const char *glob_ref_protected(char *const *globs, const char *path)
{
	const char *tail;
	size_t i;

	for (tail = path; tail; tail = strchr(tail, '/')) {
		if (*tail == '/')
			tail++;
		for (i = 0; globs[i]; i++)
			if (glob_ref_match(globs[i], tail))
				return globs[i];
	}
	return NULL;
}

#endif
