/*
 * Escaping of program-chosen text. See gfs_esc.h for the rules.
 */
#include "gfs_esc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t gfs_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Code points that steer a terminal or reorder what is shown. */
static bool hidden_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x200e ||
	       c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* ---- names ---- */

static bool name_byte_plain(unsigned char c, unsigned flags)
{
	if (c == ' ')
		return !(flags & GFS_ESC_SPACE);
	return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
}

bool gfs_esc_name_needs(const char *s, size_t n, unsigned flags)
{
	size_t i;

	if (flags & GFS_ESC_ALWAYS)
		return true;
	if (n == 0 && (flags & GFS_ESC_SPACE))
		return true; /* an empty field must still be seen */
	for (i = 0; i < n; i++)
		if (!name_byte_plain((unsigned char)s[i], flags))
			return true;
	return false;
}

void gfs_esc_name(FILE *f, const char *s, size_t n, unsigned flags)
{
	static const char named[] = "\a\b\t\n\v\f\r\"\\";
	static const char letter[] = "abtnvfr\"\\";
	size_t i;

	if (!gfs_esc_name_needs(s, n, flags)) {
		fwrite(s, 1, n, f);
		return;
	}
	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *p = c ? strchr(named, c) : NULL;

		if (p)
			fprintf(f, "\\%c", letter[p - named]);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ---- display text ---- */

void gfs_esc_text(FILE *f, const char *s, size_t n, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len, k;
	uint32_t cp;

	while (i < n) {
		len = gfs_utf8_next(u + i, n - i, &cp);
		if (len == 1 && cp == '\t' && !(flags & GFS_ESC_TAB)) {
			fputc('\t', f);
		} else if (len == 1 && cp < 0x20) {
			fprintf(f, "^%c", (char)(cp + '@'));
		} else if (len == 1 && cp == 0x7f) {
			fputs("^?", f);
		} else if (len == 0 || hidden_control(cp)) {
			len = len ? len : 1;
			for (k = 0; k < len; k++)
				fprintf(f, "\\x%02x", u[i + k]);
		} else {
			fwrite(u + i, 1, len, f);
		}
		i += len;
	}
}

void gfs_esc_line(FILE *f, const char *s, size_t n)
{
	bool nl = n > 0 && s[n - 1] == '\n';

	gfs_esc_text(f, s, nl ? n - 1 : n, 0);
	if (nl)
		fputc('\n', f);
}

/* ---- JSON ---- */

void gfs_esc_json(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t cp;

	fputc('"', f);
	while (i < n) {
		len = gfs_utf8_next(u + i, n - i, &cp);
		if (len == 0) {
			fprintf(f, "\\udc%02x", u[i]); /* surrogateescape */
			len = 1;
		} else if (cp == '"' || cp == '\\') {
			fprintf(f, "\\%c", (char)cp);
		} else if (cp == '\n') {
			fputs("\\n", f);
		} else if (cp == '\t') {
			fputs("\\t", f);
		} else if (hidden_control(cp)) {
			fprintf(f, "\\u%04x", (unsigned)cp);
		} else {
			fwrite(u + i, 1, len, f);
		}
		i += len;
	}
	fputc('"', f);
}

void gfs_esc_json_str(FILE *f, const char *s)
{
	gfs_esc_json(f, s, strlen(s));
}

/* ---- into strings ---- */

static char *dup_with(void (*fn)(FILE *, const char *, size_t, unsigned),
		      const char *s, unsigned flags)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	fn(m, s, strlen(s), flags);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *gfs_esc_name_dup(const char *s, unsigned flags)
{
	return dup_with(gfs_esc_name, s, flags);
}

char *gfs_esc_text_dup(const char *s, unsigned flags)
{
	return dup_with(gfs_esc_text, s, flags);
}

int gfs_esc_stream(FILE *in, FILE *out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, in)) > 0)
		gfs_esc_line(out, line, (size_t)n);
	free(line);
	return ferror(in) ? -EIO : 0;
}

/* ---- reading a name back ---- */

static int unescape(const char **pp, FILE *m)
{
	static const char named[] = "\a\b\t\n\v\f\r\"\\";
	static const char letter[] = "abtnvfr\"\\";
	const char *p = *pp, *l;
	int v = 0, k;

	if (*p >= '0' && *p <= '3') {
		for (k = 0; k < 3; k++, p++) {
			if (*p < '0' || *p > '7')
				return -EINVAL;
			v = v * 8 + (*p - '0');
		}
		fputc(v, m);
		*pp = p;
		return 0;
	}
	l = *p ? strchr(letter, *p) : NULL;
	if (!l)
		return -EINVAL;
	fputc(named[l - letter], m);
	*pp = p + 1;
	return 0;
}

int gfs_unquote(const char *s, char **out, size_t *len, const char **end)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	int rc = 0;

	if (!m)
		return -ENOMEM;
	if (*s != '"') {
		size_t n = strcspn(s, " ");

		fwrite(s, 1, n, m);
		s += n;
	} else {
		for (s++; rc == 0 && *s && *s != '"';) {
			if (*s == '\\') {
				s++;
				rc = unescape(&s, m);
			} else {
				fputc(*s++, m);
			}
		}
		if (rc == 0 && *s != '"')
			rc = -EINVAL;
		s += rc == 0;
	}
	if (fclose(m) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	*len = size;
	*end = s;
	return 0;
}
