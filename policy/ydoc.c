/*
 * A thin layer over libyaml's document API: typed accessors that report
 * the file, line and column of whatever is wrong, so every config error a
 * user sees points at the place to fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/gfs_esc.h"
#include "policy_int.h"

/* Config and worker files are small; anything bigger is a mistake. */
#define YDOC_MAX_BYTES (1 << 20)

int pol_ydoc_error(struct ydoc *d, const yaml_node_t *at, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!at)
		return gfs_err_set(d->err, -EINVAL, "%s: %s", d->file, what);
	return gfs_err_set(d->err, -EINVAL, "%s:%zu:%zu: %s", d->file,
			   d->line0 + at->start_mark.line + 1,
			   at->start_mark.column + 1, what);
}

int pol_ydoc_check_text(const char *text, size_t len, const char *file,
			size_t line0, struct gfs_err *err)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, line = 1, col = 1, n;
	uint32_t cp;

	while (i < len) {
		if (s[i] == '\0')
			return gfs_err_set(err, -EINVAL,
					   "%s:%zu:%zu: a binary file, not "
					   "YAML text (NUL byte)",
					   file, line0 + line, col);
		n = gfs_utf8_next(s + i, len - i, &cp);
		if (!n)
			return gfs_err_set(err, -EINVAL,
					   "%s:%zu:%zu: not UTF-8 text (byte "
					   "0x%02x); save the file as UTF-8",
					   file, line0 + line, col, s[i]);
		if (s[i] == '\n') {
			line++;
			col = 0;
		}
		i += n;
		col++;
	}
	return 0;
}

/* The key before @at in mapping @map named like @at's key, or NULL. */
static yaml_node_t *key_before(struct ydoc *d, yaml_node_t *map,
			       yaml_node_pair_t *at)
{
	yaml_node_t *k = pol_ydoc_node(d, at->key), *k2;
	yaml_node_pair_t *b;

	if (!k || k->type != YAML_SCALAR_NODE)
		return NULL;
	for (b = map->data.mapping.pairs.start; b < at; b++) {
		k2 = pol_ydoc_node(d, b->key);
		if (k2 && k2->type == YAML_SCALAR_NODE &&
		    strcmp(pol_ydoc_str(k), pol_ydoc_str(k2)) == 0)
			return k2;
	}
	return NULL;
}

/* A mapping that names a key twice: the second one, reported. */
static int check_duplicates(struct ydoc *d)
{
	yaml_node_t *n, *first;
	yaml_node_pair_t *a;

	for (n = d->doc.nodes.start; n < d->doc.nodes.top; n++) {
		if (n->type != YAML_MAPPING_NODE)
			continue;
		for (a = n->data.mapping.pairs.start;
		     a < n->data.mapping.pairs.top; a++) {
			first = key_before(d, n, a);
			if (first)
				return pol_ydoc_error(
				    d, pol_ydoc_node(d, a->key),
				    "duplicate key '%s' (first at line "
				    "%zu)",
				    pol_ydoc_str(first),
				    d->line0 + first->start_mark.line + 1);
		}
	}
	return 0;
}

int pol_ydoc_load(struct ydoc *d, const char *text, size_t len,
		  const char *file, size_t line0, struct gfs_err *err)
{
	yaml_parser_t parser;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->file = file;
	d->line0 = line0;
	d->err = err;
	rc = pol_ydoc_check_text(text, len, file, line0, err);
	if (rc < 0)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return gfs_err_set(err, -ENOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &d->doc)) {
		rc = gfs_err_set(err, -EINVAL, "%s:%zu:%zu: %s%s%s", file,
				 line0 + parser.problem_mark.line + 1,
				 parser.problem_mark.column + 1,
				 parser.problem ? parser.problem : "bad YAML",
				 parser.context ? " " : "",
				 parser.context ? parser.context : "");
		memset(&d->doc, 0, sizeof(d->doc));
		goto out;
	}
	if (!yaml_document_get_root_node(&d->doc)) {
		yaml_document_delete(&d->doc);
		memset(&d->doc, 0, sizeof(d->doc));
		rc = gfs_err_set(err, -EINVAL, "%s:%zu:1: empty file", file,
				 line0 + 1);
	}
	if (rc == 0 && check_duplicates(d) < 0) {
		yaml_document_delete(&d->doc);
		memset(&d->doc, 0, sizeof(d->doc));
		rc = -EINVAL;
	}
out:
	yaml_parser_delete(&parser);
	return rc;
}

void pol_ydoc_release(struct ydoc *d)
{
	if (d->doc.nodes.start)
		yaml_document_delete(&d->doc);
	memset(&d->doc, 0, sizeof(d->doc));
}

yaml_node_t *pol_ydoc_root(struct ydoc *d)
{
	return yaml_document_get_root_node(&d->doc);
}

yaml_node_t *pol_ydoc_node(struct ydoc *d, int index)
{
	return yaml_document_get_node(&d->doc, index);
}

static const char *type_name(yaml_node_type_t t)
{
	switch (t) {
	case YAML_SCALAR_NODE:
		return "a value";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

int pol_ydoc_expect(struct ydoc *d, yaml_node_t *n, yaml_node_type_t type,
		    const char *what)
{
	if (n->type == type)
		return 0;
	return pol_ydoc_error(d, n, "%s must be %s, not %s", what,
			      type_name(type), type_name(n->type));
}

const char *pol_ydoc_str(yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

int pol_ydoc_string(struct ydoc *d, yaml_node_t *n, const char *what,
		    const char **out)
{
	int rc = pol_ydoc_expect(d, n, YAML_SCALAR_NODE, what);

	if (rc == 0)
		*out = pol_ydoc_str(n);
	return rc;
}

int pol_ydoc_bool(struct ydoc *d, yaml_node_t *n, const char *what, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	const char *s;
	int i;

	if (pol_ydoc_string(d, n, what, &s) < 0)
		return -EINVAL;
	for (i = 0; yes[i]; i++) {
		if (strcmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return pol_ydoc_error(d, n, "%s must be true or false, not '%s'", what,
			      s);
}

int pol_ydoc_u64(struct ydoc *d, yaml_node_t *n, const char *what,
		 uint64_t *out)
{
	unsigned long long v;
	const char *s;
	char *end;

	if (pol_ydoc_string(d, n, what, &s) < 0)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno)
		return pol_ydoc_error(
		    d, n, "%s must be a whole number, not '%s'", what, s);
	*out = v;
	return 0;
}

int pol_read_file(const char *path, char **text, size_t *len,
		  struct gfs_err *err)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	size_t got = 0;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gfs_err_set(err, -errno, "%s: %s", path,
				   strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = gfs_err_set(err, -EINVAL, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size > YDOC_MAX_BYTES) {
		rc = gfs_err_set(err, -EFBIG, "%s: larger than %d bytes", path,
				 YDOC_MAX_BYTES);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = gfs_err_set(err, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while ((n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (n < 0) {
		rc = gfs_err_set(err, -errno, "%s: %s", path, strerror(errno));
		free(buf);
		goto out;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
out:
	close(fd);
	return rc;
}
