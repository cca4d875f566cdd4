/*
 * Growable arrays of strings. See gfs_strv.h.
 */
#include "gfs_strv.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void gfs_strv_release(struct gfs_strv *sv)
{
	gfs_strv_free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

/* Room for one more string and the NULL after it. */
static int grow(struct gfs_strv *sv)
{
	size_t cap;
	char **v;

	if (sv->n + 2 <= sv->cap)
		return 0;
	cap = sv->cap ? sv->cap * 2 : 8;
	if (cap > SIZE_MAX / sizeof(*v))
		return -ENOMEM;
	v = realloc(sv->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	sv->v = v;
	sv->cap = cap;
	return 0;
}

int gfs_strv_take(struct gfs_strv *sv, char *s)
{
	if (!s || grow(sv) < 0) {
		free(s);
		return -ENOMEM;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int gfs_strv_push(struct gfs_strv *sv, const char *s)
{
	return gfs_strv_take(sv, strdup(s));
}

void gfs_strv_remove(struct gfs_strv *sv, size_t i)
{
	free(sv->v[i]);
	sv->v[i] = sv->v[--sv->n];
	sv->v[sv->n] = NULL;
}

void gfs_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
