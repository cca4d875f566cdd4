/*
 * The config parser through `golemfs check`'s entry points: the input is
 * written to a golem.yaml and loaded with policy_load() and
 * policy_resolve(), then the permission table is printed (to /dev/null).
 * Checks: an error says why; a loaded policy holds fuzz_check_policy().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "fuzz_policy.h"
#include "policy/policy_cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	fuzz_policy_setup(); /* directories a config may name */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gfs_err err = { 0 };
	struct policy *p = NULL;
	const char *file = fuzz_path("fuzz.yaml");
	int rc;

	fuzz_write(file, data, size);
	rc = policy_load(&p, file, NULL, fuzz_dir(), &err);
	if (rc == 0)
		rc = policy_resolve(p, fuzz_dir(), &err);
	if (rc < 0) {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOENT || rc == -EIO ||
			   rc == -ENOMEM);
		policy_free(p);
		return 0;
	}
	fuzz_check_policy(p);
	policy_cli_print_table(p, p->trust);
	policy_free(p);
	return 0;
}
