/*
 * gfs_esc - how program-chosen text reaches a terminal, a protocol or JSON.
 *
 * Names, file contents, commit messages and command names are chosen by the
 * sandboxed program and are hostile: a newline in a name would make a line
 * that looks like another, an ESC sequence would repaint the user's terminal.
 * Every place that prints such text goes through one of these:
 *
 *   name  (gfs_esc_name)  - a path or ID, quoted as git's core.quotePath
 *         does: left as is when every byte is printable ASCII other than
 *         '"' and '\'; else in double quotes with \a \b \t \n \v \f \r \"
 *         \\ and three-digit octal (\033, \303) for every other byte below
 *         0x20 or from 0x7f. GFS_ESC_SPACE also quotes a name with a space
 *         (a field of a space-separated line), GFS_ESC_ALWAYS always quotes.
 *         Lossless: gfs_unquote() gives the bytes back.
 *   text  (gfs_esc_text)  - content, a message, a reason: readable text
 *         stays (UTF-8 too); C0 controls and DEL as cat -v shows them (^[,
 *         ^M, ^J, ^?), TAB kept unless GFS_ESC_TAB; every byte that is not
 *         valid UTF-8, and the bytes of C1 controls (U+0080..U+009F), of
 *         bidirectional overrides and isolates (U+202A..U+202E,
 *         U+2066..U+2069, U+200E, U+200F) and of line separators (U+2028,
 *         U+2029) as \xNN. Not lossless: for display.
 *   json  (gfs_esc_json)  - a JSON string, valid for any bytes: '"', '\',
 *         controls, DEL and C1 controls as \" \\ \n \t \uXXXX; a byte that
 *         is not part of valid UTF-8 as a lone low surrogate \udcNN (byte
 *         0xNN), the "surrogateescape" convention of Python, whose
 *         os.fsencode() gives the original bytes back.
 *
 * All functions write to a FILE; the _dup variants return a malloc'd
 * string (NULL when out of memory). Thread-safe; no state.
 */
#ifndef GFS_ESC_H
#define GFS_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GFS_ESC_SPACE 1u  /* name: quote a name with a space too */
#define GFS_ESC_ALWAYS 2u /* name: always quote */
#define GFS_ESC_TAB 4u    /* text: TAB as ^I too */

/*
 * gfs_utf8_next() - the length (1..4) of the valid UTF-8 sequence at @s
 * (@n bytes left, n >= 1) and its code point in @cp; 0 when @s does not
 * start one (a stray byte, an overlong form, a surrogate, beyond
 * U+10FFFF, cut short).
 */
size_t gfs_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* gfs_esc_name_needs() - would gfs_esc_name() quote @s (@n bytes)? */
bool gfs_esc_name_needs(const char *s, size_t n, unsigned flags);

/* gfs_esc_name() - @s (@n bytes) as a name, quoted if needed. */
void gfs_esc_name(FILE *f, const char *s, size_t n, unsigned flags);

/* gfs_esc_text() - @s (@n bytes) as display text, every newline escaped. */
void gfs_esc_text(FILE *f, const char *s, size_t n, unsigned flags);

/* gfs_esc_line() - one line of content: as gfs_esc_text(), except that a
   newline ending @s is written as is. */
void gfs_esc_line(FILE *f, const char *s, size_t n);

/* gfs_esc_json() - @s (@n bytes) as a JSON string, with its quotes. */
void gfs_esc_json(FILE *f, const char *s, size_t n);

/* gfs_esc_json_str() - the same for a NUL-terminated @s. */
void gfs_esc_json_str(FILE *f, const char *s);

/* The same for a NUL-terminated @s, into a malloc'd string (NULL: ENOMEM). */
char *gfs_esc_name_dup(const char *s, unsigned flags);
char *gfs_esc_text_dup(const char *s, unsigned flags);

/*
 * gfs_esc_stream() - copy @in to @out line by line as gfs_esc_line() does
 * (for replies read from a socket). Return: 0 or -errno.
 */
int gfs_esc_stream(FILE *in, FILE *out);

/*
 * gfs_unquote() - read one name at @s as gfs_esc_name() wrote it: a
 * double-quoted C string, or else the bytes up to a space or the end.
 * @out gets a malloc'd, NUL-terminated copy of the bytes (it may hold NULs:
 * @len says how many), @end the first byte after the name.
 * Return: 0, -EINVAL (a bad escape, no closing quote) or -ENOMEM.
 */
int gfs_unquote(const char *s, char **out, size_t *len, const char **end);

#endif
