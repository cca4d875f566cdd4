/*
 * Unit tests of common/gfs_esc: names, display text, JSON, and reading a
 * quoted name back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/gfs_esc.h"

typedef void (*esc_fn)(FILE *, const char *, size_t, unsigned);

/* @fn applied to @n bytes of @s, as a malloc'd string. */
static char *run(esc_fn fn, const char *s, size_t n, unsigned flags)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	assert_non_null(m);
	fn(m, s, n, flags);
	assert_int_equal(fclose(m), 0);
	return buf;
}

static void json_fn(FILE *f, const char *s, size_t n, unsigned flags)
{
	(void)flags;
	gfs_esc_json(f, s, n);
}

static void json_str_fn(FILE *f, const char *s, size_t n, unsigned flags)
{
	(void)n;
	(void)flags;
	gfs_esc_json_str(f, s);
}

static void expect(esc_fn fn, const char *s, size_t n, unsigned flags,
		   const char *want)
{
	char *got = run(fn, s, n, flags);

	assert_string_equal(got, want);
	free(got);
}

#define NAME(s, fl, want) expect(gfs_esc_name, s, sizeof(s) - 1, fl, want)
#define TEXT(s, fl, want) expect(gfs_esc_text, s, sizeof(s) - 1, fl, want)
#define JSON(s, want) expect(json_fn, s, sizeof(s) - 1, 0, want)

static void test_name_plain(void **state)
{
	(void)state;
	NAME("src/main.c", 0, "src/main.c");
	NAME("a b", 0, "a b");
	NAME("", 0, "");
	NAME("a-b_c.d~", GFS_ESC_SPACE, "a-b_c.d~");
}

static void test_name_quoted(void **state)
{
	(void)state;
	NAME("a\nb", 0, "\"a\\nb\"");
	NAME("x\033[31mred", 0, "\"x\\033[31mred\"");
	NAME("q\"s\\", 0, "\"q\\\"s\\\\\"");
	NAME("\t\r\a\b\v\f", 0, "\"\\t\\r\\a\\b\\v\\f\"");
	NAME("caf\xc3\xa9", 0, "\"caf\\303\\251\"");
	NAME("bad\xff", 0, "\"bad\\377\"");
	NAME("del\x7f", 0, "\"del\\177\"");
	NAME("a b", GFS_ESC_SPACE, "\"a b\"");
	NAME("", GFS_ESC_SPACE, "\"\"");
	NAME("plain", GFS_ESC_ALWAYS, "\"plain\"");
}

/* Every single byte, and a mix, come back from gfs_unquote(). */
static void test_name_roundtrip(void **state)
{
	char in[260], *q, *back;
	const char *end;
	size_t len;
	int c;

	(void)state;
	for (c = 1; c < 256; c++) {
		snprintf(in, sizeof(in), "a%cb c", c);
		q = gfs_esc_name_dup(in, GFS_ESC_SPACE);
		assert_non_null(q);
		assert_null(strchr(q, '\n'));
		assert_int_equal(gfs_unquote(q, &back, &len, &end), 0);
		assert_int_equal(len, strlen(in));
		assert_memory_equal(back, in, len);
		assert_int_equal(*end, '\0');
		free(back);
		free(q);
	}
	/* a plain field ends at a space */
	assert_int_equal(gfs_unquote("abc def", &back, &len, &end), 0);
	assert_string_equal(back, "abc");
	assert_string_equal(end, " def");
	free(back);
	/* a NUL byte in the middle is kept */
	assert_int_equal(gfs_unquote("\"a\\000b\" x", &back, &len, &end), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(back, "a\0b", 3);
	assert_string_equal(end, " x");
	free(back);
}

static void test_unquote_bad(void **state)
{
	char *back = NULL;
	const char *end;
	size_t len;

	(void)state;
	assert_int_equal(gfs_unquote("\"open", &back, &len, &end), -EINVAL);
	assert_int_equal(gfs_unquote("\"a\\q\"", &back, &len, &end), -EINVAL);
	assert_int_equal(gfs_unquote("\"a\\09\"", &back, &len, &end), -EINVAL);
	assert_int_equal(gfs_unquote("\"a\\", &back, &len, &end), -EINVAL);
	assert_null(back);
}

static void test_text(void **state)
{
	(void)state;
	TEXT("plain text", 0, "plain text");
	TEXT("tab\there", 0, "tab\there");
	TEXT("tab\there", GFS_ESC_TAB, "tab^Ihere");
	TEXT("\033[2J\033[Hgone", 0, "^[[2J^[[Hgone");
	TEXT("a\nb\rc\x7f", 0, "a^Jb^Mc^?");
	TEXT("caf\xc3\xa9 \xe2\x82\xac", 0, "caf\xc3\xa9 \xe2\x82\xac");
	TEXT("bad\xff\xc3", 0, "bad\\xff\\xc3");
	/* an overlong '/' and a surrogate are not valid UTF-8 */
	TEXT("\xc0\xaf", 0, "\\xc0\\xaf");
	TEXT("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	/* C1 CSI, a right-to-left override, a line separator */
	TEXT("\xc2\x9b"
	     "2J",
	     0, "\\xc2\\x9b2J");
	TEXT("x\xe2\x80\xaey", 0, "x\\xe2\\x80\\xaey");
	TEXT("\xe2\x80\xa8", 0, "\\xe2\\x80\\xa8");
	TEXT("\0z", 0, "^@z");
}

static void line_fn(FILE *f, const char *s, size_t n, unsigned flags)
{
	(void)flags;
	gfs_esc_line(f, s, n);
}

#define LINE(s, want) expect(line_fn, s, sizeof(s) - 1, 0, want)

static void test_line(void **state)
{
	(void)state;
	LINE("+x\033y\n", "+x^[y\n");
	LINE("a\rb\n\n", "a^Mb^J\n");
	LINE("no end", "no end");
}

static void test_json(void **state)
{
	(void)state;
	JSON("plain", "\"plain\"");
	JSON("q\"b\\", "\"q\\\"b\\\\\"");
	JSON("a\nb\tc\r\033", "\"a\\nb\\tc\\u000d\\u001b\"");
	JSON("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	JSON("bad\xff\xfe", "\"bad\\udcff\\udcfe\"");
	JSON("\xc2\x9b\x7f", "\"\\u009b\\u007f\"");
	JSON("\xe2\x80\xae", "\"\\u202e\"");
	JSON("\0", "\"\\u0000\"");
}

/* The NUL-terminated form writes what gfs_esc_json() writes for strlen. */
static void test_json_str(void **state)
{
	static const char *const in[] = { "", "plain", "a\"b\\c\n", "bad\xff",
					  "\xe2\x80\xae" };
	char *want, *got;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		want = run(json_fn, in[i], strlen(in[i]), 0);
		got = run(json_str_fn, in[i], 0, 0);
		assert_string_equal(got, want);
		free(got);
		free(want);
	}
	got = run(json_str_fn, "q\"\x01", 0, 0);
	assert_string_equal(got, "\"q\\\"\\u0001\"");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_plain),
		cmocka_unit_test(test_name_quoted),
		cmocka_unit_test(test_name_roundtrip),
		cmocka_unit_test(test_unquote_bad),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
