/*
 * The git-config checker (policy_gitconfig_check), which decides whether
 * a config a program wrote may reach the host's git. Checks: the answer
 * is 0 or -EACCES with a reason; and text it accepts, followed by a
 * section that sets core.hooksPath, is refused (nothing in the accepted
 * text can hide the key that follows it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "policy/policy.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char tail[] = "\n\n[core]\n\thooksPath = /tmp/x\n";
	struct gfs_err why = { 0 };
	char *text;
	int rc;

	rc = policy_gitconfig_check((const char *)data, size, &why);
	FUZZ_CHECK(rc == 0 || rc == -EACCES);
	if (rc < 0) {
		FUZZ_CHECK(why.code == rc && why.msg[0]);
		return 0;
	}
	text = malloc(size + sizeof(tail));
	if (!text)
		abort();
	memcpy(text, data, size);
	memcpy(text + size, tail, sizeof(tail));
	memset(&why, 0, sizeof(why));
	rc = policy_gitconfig_check(text, size + sizeof(tail) - 1, &why);
	FUZZ_CHECK(rc == -EACCES);
	free(text);
	return 0;
}
