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
#include "cli/policy_cli.h"

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
	const char *file = fuzz_path("fuzz.yaml");
	struct policy *p;

	fuzz_write(file, data, size);
	p = fuzz_load(file, NULL);
	if (!p)
		return 0;
	fuzz_check_policy(p);
	policy_cli_print_table(p, p->trust);
	policy_free(p);
	return 0;
}
