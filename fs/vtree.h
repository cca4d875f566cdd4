/*
 * vtree - the virtual tree (vtree.c), built once at mount from the
 * policy: the root, zone tops, mount targets and their parents.
 */
#ifndef GFS_VTREE_H
#define GFS_VTREE_H

#include "fs.h"

/*
 * vtree_build() - make the virtual directories and zone roots of @g->policy;
 * creates sandboxed zone directories and the session directory.
 */
int vtree_build(struct gfs *g, struct gfs_err *err);
void vtree_release(struct gfs *g);
/* vdir_visible() - may the program see this directory at level @t? */
bool vdir_visible(const struct node *n, enum policy_trust t);
/* vdir_shows_underlay() - do the underlay's entries show through at @t? */
bool vdir_shows_underlay(const struct node *n, enum policy_trust t);
/* vdir_child() - the fixed child named @name, visible or not, or NULL. */
struct node *vdir_child(const struct node *n, const char *name);

#endif
