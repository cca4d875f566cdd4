/*
 * Directories golemfs makes for itself. See gfs_dir.h.
 */
#include "gfs_dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int gfs_mkdir_p(const char *path, mode_t mode)
{
	char *copy = strdup(path), *s;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	/* from the second byte: a leading '/' is the root, not a cut */
	for (s = copy + (copy[0] != '\0'); rc == 0; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST)
			rc = -errno;
		*s = c;
		if (c == '\0')
			break;
	}
	free(copy);
	return rc;
}
