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

#include "policy_int.h"

/* Config and worker files are small; anything bigger is a mistake. */
#define YDOC_MAX_BYTES (1 << 20)

int ydoc_error(struct ydoc *d, const yaml_node_t *at, const char *fmt, ...)
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
			   at->start_mark.column + 1,
			   what);
}

int ydoc_load(struct ydoc *d, const char *text, size_t len, const char *file,
	      size_t line0, struct gfs_err *err)
{
	yaml_parser_t parser;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->file = file;
	d->line0 = line0;
	d->err = err;
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
out:
	yaml_parser_delete(&parser);
	return rc;
}

void ydoc_release(struct ydoc *d)
{
	if (d->doc.nodes.start)
		yaml_document_delete(&d->doc);
	memset(&d->doc, 0, sizeof(d->doc));
}

yaml_node_t *ydoc_root(struct ydoc *d)
{
	return yaml_document_get_root_node(&d->doc);
}

yaml_node_t *ydoc_node(struct ydoc *d, int index)
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

int ydoc_expect(struct ydoc *d, yaml_node_t *n, yaml_node_type_t type,
		const char *what)
{
	if (n->type == type)
		return 0;
	return ydoc_error(d, n, "%s must be %s, not %s", what, type_name(type),
			  type_name(n->type));
}

const char *ydoc_str(yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

int ydoc_string(struct ydoc *d, yaml_node_t *n, const char *what,
		const char **out)
{
	int rc = ydoc_expect(d, n, YAML_SCALAR_NODE, what);

	if (rc == 0)
		*out = ydoc_str(n);
	return rc;
}

int ydoc_bool(struct ydoc *d, yaml_node_t *n, const char *what, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	const char *s;
	int i;

	if (ydoc_string(d, n, what, &s) < 0)
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
	return ydoc_error(d, n, "%s must be true or false, not '%s'", what, s);
}

int ydoc_u64(struct ydoc *d, yaml_node_t *n, const char *what, uint64_t *out)
{
	unsigned long long v;
	const char *s;
	char *end;

	if (ydoc_string(d, n, what, &s) < 0)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno)
		return ydoc_error(d, n, "%s must be a whole number, not '%s'",
				  what, s);
	*out = v;
	return 0;
}

int read_file(const char *path, char **text, size_t *len, struct gfs_err *err)
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
