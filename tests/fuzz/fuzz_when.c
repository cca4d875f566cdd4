/*
 * The times of `golemfs audit --since/--until/--before`
 * (audit_parse_when). Checks: 0 or -EINVAL, and no undefined behaviour
 * (UBSan aborts the run), whatever the text.
 */
#include <errno.h>
#include <stdlib.h>

#include "audit/audit.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("TZ", "UTC", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	int64_t t = 0;
	int rc = audit_parse_when(&t, s);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	free(s);
	return 0;
}
