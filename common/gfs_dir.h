/*
 * gfs_dir - directories on the host that golemfs makes for itself (its
 * state under the sandbox root, staging repositories, zone directories).
 * Thread-safe; no state.
 */
#ifndef GFS_DIR_H
#define GFS_DIR_H

#include <sys/types.h>

/*
 * gfs_mkdir_p() - mkdir -p: make @path and every missing parent with
 * @mode; a component that already exists is left as it is (a file there
 * is found by whoever opens @path next). Follows symlinks, as mkdir(1)
 * does: for paths golemfs chose, never for names a program chose.
 * Return: 0, or -errno of the first mkdir() that failed (-ENOMEM).
 */
int gfs_mkdir_p(const char *path, mode_t mode);

#endif
