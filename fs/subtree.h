/*
 * subtree - a bounded, no-follow walk of what lies beneath a directory,
 * for judging what a rename or exchange of it takes along.
 */
#ifndef GFS_SUBTREE_H
#define GFS_SUBTREE_H

#include <stdbool.h>

#include "fs.h"

/* Past POLICY_MOVE_MAX_ENTRIES and POLICY_MOVE_MAX_DEPTH (policy.h) the
   walk stops with -EXDEV (mv then copies and deletes). */

/*
 * Called for each entry: @sub is its path below the walked directory
 * ("a", "a/b"); @git_own whether the outermost ".git" within @sub is a
 * directory the program made through the mount (false when there is
 * none). Return 0 to go on, a negative errno to stop the walk with it.
 */
typedef int (*subtree_fn)(void *arg, const char *sub, bool git_own);

/*
 * subtree_walk() - call @fn for every entry beneath the directory @name in
 * @dirfd (not for @name itself), parents before children, without
 * following links.
 * Return: 0, the first error of @fn, -EXDEV past a bound, -ENOTDIR when
 * @name is not a directory, or another -errno of the walk.
 */
int subtree_walk(struct gfs *g, int dirfd, const char *name, subtree_fn fn,
		 void *arg);

#endif
