/*
 * gfs_strv - a growable array of malloc'd strings. The array is kept
 * NULL-terminated, so that it can be passed as an argv or an environment
 * (execve) as it is. Not locked: its owner serialises.
 */
#ifndef GFS_STRV_H
#define GFS_STRV_H

#include <stddef.h>

struct gfs_strv {
	char **v;   /* n strings then NULL; NULL while nothing was added */
	size_t n;   /* strings in v */
	size_t cap; /* slots in v, its NULL included */
};

/* A zeroed struct gfs_strv is empty and ready; gfs_strv_release() makes
   it so again, freeing the strings and the array. */
void gfs_strv_release(struct gfs_strv *sv);

/* gfs_strv_push() - append a copy of @s. Return: 0 or -ENOMEM (then
   @sv is as it was). */
int gfs_strv_push(struct gfs_strv *sv, const char *s);

/* gfs_strv_take() - append @s itself (malloc'd), which @sv owns from
   then on; on failure @s is freed. Return: 0 or -ENOMEM. */
int gfs_strv_take(struct gfs_strv *sv, char *s);

/* gfs_strv_remove() - free string @i (< n); the last string takes its
   place (the order is not kept). */
void gfs_strv_remove(struct gfs_strv *sv, size_t i);

/* gfs_strv_free() - free a NULL-terminated array of malloc'd strings
   (such as gfs_strv's v); NULL is a no-op. */
void gfs_strv_free(char **v);

#endif
