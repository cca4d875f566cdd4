/*
 * The rules a FUSE callback needs besides policy_decide(), as pure
 * functions: the size limit at write time, device nodes, attribute
 * namespaces, create-only zones. Each one takes what the daemon found out
 * (a mode, a name, an offset) and answers with 0 or a negative errno and
 * the reason for the program's reader; fs/ asks and acts, and never
 * words a refusal of its own. Nothing here does I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "policy_int.h"

int policy_check_size(const struct policy_zone *z, uint64_t size,
		      struct gfs_err *why)
{
	if (!z->max_file_bytes || size <= z->max_file_bytes)
		return 0;
	return gfs_err_set(why, -EFBIG,
			   "%s takes files of at most %" PRIu64 " bytes",
			   z->vpath, z->max_file_bytes);
}

int policy_check_mknod(mode_t mode, struct gfs_err *why)
{
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return gfs_err_set(why, -EPERM,
				   "device nodes cannot be created");
	return 0;
}

int policy_check_xattr(const char *name, const char *vpath, struct gfs_err *why)
{
	if (strncmp(name, "security.", 9) == 0 ||
	    strncmp(name, "trusted.", 8) == 0)
		return gfs_err_set(why, -EACCES,
				   "%s: '%s' attributes cannot be set", vpath,
				   name);
	return 0;
}

bool policy_create_only(const struct policy_zone *z, enum policy_trust trust)
{
	return !(z->rights[trust] & RIGHT_W);
}
