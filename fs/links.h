/*
 * links - symlinks: inside (links.c): the facts the policy's symlink
 * rules need, and gfs->shape_lock, which keeps them true until the act.
 */
#ifndef GFS_LINKS_H
#define GFS_LINKS_H

#include "fs.h"

/*
 * links_check_new() - may a symlink with @target be made (symlink(2), or
 * link(2) of a symlink) in @op's directory? Call with shape_lock held for
 * reading (links_lock_new). Return: 0 or -errno, @op->why set.
 */
int links_check_new(struct op *op, const char *target);
/*
 * links_check_move() - may renameat2(@from's dir, @name, @to's dir,
 * @newname, @flags) happen? Every symlink it moves higher up (the entry,
 * or those in a directory's subtree, both sides of an exchange) must stay
 * inside the zone at its new depth. Call with shape_lock held for
 * writing (links_lock_move) until the nodes are updated.
 * Return: 0 or -errno, @from->why set.
 */
int links_check_move(struct op *from, struct op *to, const char *name,
		     const char *newname, unsigned int flags);
void links_lock_new(struct gfs *g);
void links_lock_move(struct gfs *g);
void links_unlock(struct gfs *g);

#endif
