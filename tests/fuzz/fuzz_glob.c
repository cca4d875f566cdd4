/*
 * The protect-glob matcher: input "PATTERN\0PATH". Checks: a pattern
 * without '*' or '?' matches exactly itself; "**" matches anything;
 * policy_is_protected() matches when the glob matches the path or any
 * tail of it after a '/'; and both answer as the old backtracking matcher
 * (tests/glob_ref.h) where that one finishes in time.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "policy/policy_int.h"
#include "tests/glob_ref.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/*
 * The reference (tests/glob_ref.h) backtracks, so its time grows as the
 * path's length to the power of the glob's stars: it is asked only about
 * globs of at most three stars and paths of at most 200 bytes. The
 * matcher under test is a single pass and gets every input; matching it
 * once per tail of the path (glob length times path length times '/'s)
 * is left out only where that would take seconds.
 */
static bool ref_affordable(const char *pat, const char *path)
{
	size_t stars = 0;

	for (; *pat; pat++)
		stars += *pat == '*';
	return stars <= 3 && strlen(path) <= 200;
}

static bool tails_affordable(const char *pat, const char *path)
{
	size_t slashes = 0;
	const char *c;

	for (c = path; *c; c++)
		slashes += *c == '/';
	return (slashes + 1) * (strlen(path) + 1) * (strlen(pat) + 1) <=
	       (size_t)1 << 20;
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
	bool m, prot, any = false;

	m = pol_glob_match(pat, path);
	if (!strpbrk(pat, "*?"))
		FUZZ_CHECK(m == (strcmp(pat, path) == 0));
	if (!strpbrk(path, "*?"))
		FUZZ_CHECK(pol_glob_match(path, path));
	FUZZ_CHECK(pol_glob_match("**", path));
	prot = policy_is_protected(&p, path, false, &glob);
	FUZZ_CHECK(!prot || glob == pat);
	if (tails_affordable(pat, path)) {
		for (tail = path; tail; tail = strchr(tail, '/')) {
			if (*tail == '/')
				tail++;
			any = any || pol_glob_match(pat, tail);
		}
		FUZZ_CHECK(prot == any);
	}
	if (ref_affordable(pat, path)) {
		FUZZ_CHECK(m == glob_ref_match(pat, path));
		FUZZ_CHECK(prot == (glob_ref_protected(protect, path) != NULL));
	}
	free(pat);
	free(path);
	return 0;
}
