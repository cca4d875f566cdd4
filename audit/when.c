/*
 * The times `golemfs audit` takes (--since, --until, --before): pure
 * parsing, apart from the clock and the local time zone, so that it is
 * unit-tested and fuzzed alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit.h"

/* @sec seconds as µs into @out, or -EINVAL past what int64 holds. */
static int to_us(int64_t *out, int64_t sec)
{
	int64_t us;

	if (__builtin_mul_overflow(sec, (int64_t)1000000, &us))
		return -EINVAL;
	*out = us;
	return 0;
}

int audit_parse_when(int64_t *out, const char *s)
{
	static const struct {
		char unit;
		int64_t sec;
	} units[] = { { 's', 1 },
		      { 'm', 60 },
		      { 'h', 3600 },
		      { 'd', 86400 },
		      { 'w', 604800 } };
	struct tm tm = { 0 };
	int64_t ago, sec;
	time_t t;
	const char *end;
	char *e;
	long long n;
	bool utc;
	size_t i;

	if (strcmp(s, "now") == 0)
		return to_us(out, (int64_t)time(NULL));
	errno = 0;
	if (s[0] == '@') {
		n = strtoll(s + 1, &e, 10);
		if (!*e && s[1] && errno != ERANGE)
			return to_us(out, n);
		return -EINVAL;
	}
	n = strtoll(s, &e, 10);
	for (i = 0; e != s && e[0] && !e[1] && i < 5; i++) {
		if (units[i].unit != e[0])
			continue;
		/* a number too large for any clock is not a time */
		if (errno == ERANGE ||
		    __builtin_mul_overflow(n, units[i].sec, &ago) ||
		    __builtin_sub_overflow((int64_t)time(NULL), ago, &sec))
			return -EINVAL;
		return to_us(out, sec);
	}
	tm.tm_isdst = -1;
	end = strptime(s, "%Y-%m-%d", &tm);
	if (end && (*end == 'T' || *end == ' '))
		end = strptime(end + 1, "%H:%M:%S", &tm);
	if (!end)
		return -EINVAL;
	utc = *end == 'Z';
	if (*end && !(utc && !end[1]))
		return -EINVAL;
	t = utc ? timegm(&tm) : mktime(&tm);
	return to_us(out, (int64_t)t);
}
