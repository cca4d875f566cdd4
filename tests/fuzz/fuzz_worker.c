/*
 * The worker-file parser through `golemfs check --worker`'s entry point:
 * policy_load() of a fixed config with the input as the worker file,
 * then policy_resolve(). Checks: an error says why; the parent is the
 * ceiling (no right, approval or visibility more than the config alone).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "fuzz_policy.h"

static struct policy *parent;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct gfs_err err = { 0 };

	(void)argc;
	(void)argv;
	if (policy_load(&parent, fuzz_policy_setup(), NULL, fuzz_dir(), &err) <
		0 ||
	    policy_resolve(parent, fuzz_dir(), &err) < 0)
		fuzz_fail(__FILE__, __LINE__, err.msg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy *p;
	char wfile[256];
	const char *workers[3];

	snprintf(wfile, sizeof(wfile), "%s", fuzz_path("fuzz.worker"));
	fuzz_write(wfile, data, size);
	/* alone, and as the child of itself: a chain of two */
	workers[0] = wfile;
	workers[1] = size % 2 ? wfile : NULL;
	workers[2] = NULL;
	p = fuzz_load(fuzz_policy_setup(), workers);
	if (!p)
		return 0;
	fuzz_check_policy(p);
	fuzz_check_ceiling(parent, p);
	policy_free(p);
	return 0;
}
