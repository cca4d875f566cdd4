/*
 * config_ref - the configuration reference, printed from the key table
 * (policy/policy_keys.h), so that the copies a reader sees cannot drift
 * from what the parser takes.
 *
 *   config_ref FORMAT                print it
 *   config_ref --check FORMAT FILE   exit 1 when FILE's copy differs
 *   config_ref --write FORMAT FILE   rewrite FILE's copy
 *
 * FORMAT: md (docs/config.md), man (man/golemfs.yaml.5), worker-md and
 * worker-man (the keys of worker files, in both), options (the -o
 * list of man/golemfs.1), trust-md and trust-man (the built-in trust
 * table, from pol_trust_table_row(), in both), schema
 * (docs/golem.schema.json, a JSON Schema for editors). md, man and options are
 * the lines between the lines that hold "BEGIN config-ref FORMAT" and "END
 * config-ref FORMAT" in FILE; schema is the whole file. The suite runs --check
 * on each (meson test config_ref_*); scripts/gen-config-ref runs --write.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gfs_esc.h"
#include "policy/policy_int.h"
#include "policy/policy_keys.h"

static const char *const type_words[] = {
	[PKT_MAP] = "mapping",
	[PKT_NAMES] = "mapping of names",
	[PKT_LIST] = "list of mappings",
	[PKT_STRINGS] = "list of strings",
	[PKT_ENUM] = "one of",
	[PKT_BOOL] = "true or false",
	[PKT_UINT] = "whole number",
	[PKT_PATH] = "path",
	[PKT_COMMAND] = "command",
	[PKT_STRING] = "string",
	[PKT_RIGHTS] = "letters of rwld (c: create only)",
};

/* @s with its first letter upper-cased, as a sentence. */
static void sentence(FILE *f, const char *s, void (*put)(FILE *, const char *))
{
	char first[2] = { (char)toupper((unsigned char)*s), '\0' };

	put(f, first);
	put(f, s + 1);
	put(f, ".");
}

/* ---- markdown ---- */

static void md_put(FILE *f, const char *s)
{
	for (; *s; s++)
		fprintf(f, *s == '|' ? "\\|" : "%c", *s);
}

static void md_type(FILE *f, const struct policy_key *k)
{
	int i;

	if (k->type != PKT_ENUM) {
		md_put(f, type_words[k->type]);
		if (k->max)
			fprintf(f, ", %llu to %llu %s",
				(unsigned long long)k->min,
				(unsigned long long)k->max, k->unit);
		return;
	}
	for (i = 0; k->values[i]; i++)
		fprintf(f, "%s`%s`", i ? " \\| " : "", k->values[i]);
}

static void md_table(FILE *f, const struct policy_key *table)
{
	const struct policy_key *k;

	fprintf(f, "| key | type | default | where | meaning |\n"
		   "| --- | --- | --- | --- | --- |\n");
	for (k = table; k->path; k++) {
		fprintf(f, "| `%s` | ", k->path);
		md_type(f, k);
		fprintf(f, " | ");
		md_put(f, k->def ? k->def : "");
		fprintf(f, " | ");
		md_put(f, k->applies);
		if (k->option)
			fprintf(f, ", `-o %s=`", k->option);
		fprintf(f, " | ");
		sentence(f, k->doc, md_put);
		fprintf(f, " |\n");
	}
}

/* ---- man ---- */

/* roff text: '\' and '-' escaped; callers start no line with '.' or '\''. */
static void man_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void man_type(FILE *f, const struct policy_key *k)
{
	int i;

	if (k->type != PKT_ENUM) {
		man_put(f, type_words[k->type]);
		if (k->max)
			fprintf(f, ", %llu to %llu %s",
				(unsigned long long)k->min,
				(unsigned long long)k->max, k->unit);
		return;
	}
	for (i = 0; k->values[i]; i++) {
		fputs(!i ? "" : k->values[i + 1] ? ", " : " or ", f);
		fputs("\\fB", f);
		man_put(f, k->values[i]);
		fputs("\\fR", f);
	}
}

static void man_list(FILE *f, const struct policy_key *table)
{
	const struct policy_key *k;

	for (k = table; k->path; k++) {
		fputs(".TP\n.B ", f);
		man_put(f, k->path);
		fputs("\n\\&", f);
		sentence(f, k->doc, man_put);
		fputs(k->type == PKT_ENUM ? "\nValues: " : "\nType: ", f);
		man_type(f, k);
		if (k->def) {
			fputs(". Default: ", f);
			man_put(f, k->def);
		}
		fputs(". In: ", f);
		man_put(f, k->applies);
		if (k->option) {
			fputs(", \\fB\\-o ", f);
			man_put(f, k->option);
			fputs("=\\fR", f);
		}
		fputs(".\n", f);
	}
}

static void print_md(FILE *f)
{
	md_table(f, policy_keys);
}

static void print_worker_md(FILE *f)
{
	md_table(f, policy_worker_keys);
}

static void print_man(FILE *f)
{
	man_list(f, policy_keys);
}

static void print_worker_man(FILE *f)
{
	man_list(f, policy_worker_keys);
}

static void print_options(FILE *f)
{
	const struct policy_key *k, *next;
	bool first = true;

	for (k = policy_keys; k->path; k++) {
		if (!k->option)
			continue;
		for (next = k + 1; next->path && !next->option; next++)
			;
		fprintf(f, ".%s %s%s= %s\n", first ? "RB (" : "BR", "",
			k->option, next->path ? "," : ")");
		first = false;
	}
}

/* ---- the built-in trust table ---- */

static const enum zone_kind table_kinds[] = { ZONE_SESSION, ZONE_WORKSPACE,
					      ZONE_REPO,    ZONE_STAGED,
					      ZONE_WORKERS, ZONE_PLAIN };

#define NKINDS (sizeof(table_kinds) / sizeof(table_kinds[0]))

/* The rights of @kind at @t as the tables show them. */
static const char *cell(size_t kind, int t, char buf[8])
{
	uint8_t row[TRUST_COUNT];

	pol_trust_table_row(table_kinds[kind], row);
	return policy_rights_str(row[t], buf);
}

static void print_trust_md(FILE *f)
{
	char buf[8];
	size_t i;
	int t;

	fputs("| level |", f);
	for (i = 0; i < NKINDS; i++)
		fprintf(f, " %s |", policy_kind_name(table_kinds[i]));
	fputs("\n| --- |", f);
	for (i = 0; i < NKINDS; i++)
		fputs(" --- |", f);
	fputs("\n", f);
	for (t = 0; t < TRUST_COUNT; t++) {
		fprintf(f, "| %s |", policy_trust_name((enum policy_trust)t));
		for (i = 0; i < NKINDS; i++)
			fprintf(f, " %s |", cell(i, t, buf));
		fputs("\n", f);
	}
}

static void print_trust_man(FILE *f)
{
	char buf[8];
	size_t i;
	int t;

	fputs(".nf\nlevel     ", f);
	for (i = 0; i < NKINDS; i++)
		fprintf(f, i + 1 < NKINDS ? " %-9s" : " %s",
			policy_kind_name(table_kinds[i]));
	fputs("\n", f);
	for (t = 0; t < TRUST_COUNT; t++) {
		fprintf(f, "%-10s", policy_trust_name((enum policy_trust)t));
		for (i = 0; i < NKINDS; i++)
			fprintf(f, i + 1 < NKINDS ? " %-9s" : " %s",
				cell(i, t, buf));
		fputs("\n", f);
	}
	fputs(".fi\n", f);
}

/* ---- JSON Schema ---- */

static void ind(FILE *f, int n)
{
	fprintf(f, "%*s", 2 * n, "");
}

static void json_str(FILE *f, const char *s)
{
	gfs_esc_json(f, s, strlen(s));
}

static void plain_put(FILE *f, const char *s)
{
	fputs(s, f);
}

/* The reader's text of @k: what it means, its default, where it applies. */
static void schema_description(FILE *f, const struct policy_key *k, int n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		exit(2);
	sentence(m, k->doc, plain_put);
	if (k->def)
		fprintf(m, " Default: %s.", k->def);
	fprintf(m, " In: %s.", k->applies);
	if (k->option)
		fprintf(m, " Also -o %s=VALUE.", k->option);
	if (fclose(m))
		exit(2);
	ind(f, n);
	fputs("\"description\": ", f);
	json_str(f, text);
	free(text);
}

static void schema_node(FILE *f, const struct policy_key *k, int n);

/* The object whose keys are those lying directly under @parent. */
static void schema_object(FILE *f, const char *parent, int n)
{
	const struct policy_key *c;
	const char *name;
	bool first = true;
	int t;

	ind(f, n);
	fputs("\"type\": \"object\",\n", f);
	ind(f, n);
	fputs("\"additionalProperties\": false,\n", f);
	ind(f, n);
	fputs("\"properties\": {", f);
	for (c = policy_keys; c->path; c++) {
		if (!policy_key_is_child(c, parent))
			continue;
		name = strrchr(c->path, '.');
		name = name ? name + 1 : c->path;
		for (t = 0; t < TRUST_COUNT; t++) {
			fputs(first ? "\n" : ",\n", f);
			first = false;
			ind(f, n + 1);
			json_str(f,
				 strcmp(name, "LEVEL")
				     ? name
				     : policy_trust_name((enum policy_trust)t));
			fputs(": ", f);
			schema_node(f, c, n + 1);
			if (strcmp(name, "LEVEL"))
				break;
		}
	}
	fputs("\n", f);
	ind(f, n);
	fputs("}", f);
}

static void schema_type(FILE *f, const struct policy_key *k, int n)
{
	int i;

	switch (k->type) {
	case PKT_MAP:
		schema_object(f, k->path, n);
		break;
	case PKT_NAMES:
		ind(f, n);
		fputs("\"type\": \"object\",\n", f);
		ind(f, n);
		fputs("\"propertyNames\": { \"pattern\": "
		      "\"^(?!\\\\.\\\\.?$)[A-Za-z0-9._-]+$\" },\n",
		      f);
		ind(f, n);
		fputs("\"additionalProperties\": {\n", f);
		schema_object(f, k->path, n + 1);
		fputs("\n", f);
		ind(f, n);
		fputs("}", f);
		break;
	case PKT_LIST:
		ind(f, n);
		fputs("\"type\": \"array\",\n", f);
		ind(f, n);
		fputs("\"items\": {\n", f);
		schema_object(f, k->path, n + 1);
		fputs("\n", f);
		ind(f, n);
		fputs("}", f);
		break;
	case PKT_STRINGS:
		ind(f, n);
		fputs("\"type\": \"array\",\n", f);
		ind(f, n);
		fputs("\"items\": { \"type\": \"string\", \"minLength\": 1 }",
		      f);
		break;
	case PKT_ENUM:
		ind(f, n);
		fputs("\"enum\": [", f);
		for (i = 0; k->values[i]; i++) {
			fputs(i ? ", " : "", f);
			json_str(f, k->values[i]);
		}
		fputs("]", f);
		break;
	case PKT_BOOL:
		/* YAML 1.1 spellings too, as golemfs reads them */
		ind(f, n);
		fputs("\"enum\": [true, false, \"true\", \"false\", \"yes\", "
		      "\"no\", \"on\", \"off\"]",
		      f);
		break;
	case PKT_UINT:
		ind(f, n);
		fprintf(f, "\"type\": \"integer\",\n");
		ind(f, n);
		fprintf(f, "\"minimum\": %llu", (unsigned long long)k->min);
		if (k->max)
			fprintf(f, ",\n%*s\"maximum\": %llu", 2 * n, "",
				(unsigned long long)k->max);
		break;
	case PKT_RIGHTS:
		ind(f, n);
		fputs("\"type\": \"string\",\n", f);
		ind(f, n);
		fputs("\"pattern\": \"^[rwldc-]*$\"", f);
		break;
	default: /* PKT_PATH, PKT_COMMAND, PKT_STRING */
		ind(f, n);
		fputs("\"type\": \"string\",\n", f);
		ind(f, n);
		fputs("\"minLength\": 1", f);
		break;
	}
}

static void schema_node(FILE *f, const struct policy_key *k, int n)
{
	fputs("{\n", f);
	schema_description(f, k, n + 1);
	fputs(",\n", f);
	schema_type(f, k, n + 1);
	fputs("\n", f);
	ind(f, n);
	fputs("}", f);
}

static void print_schema(FILE *f)
{
	fputs("{\n"
	      "  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n"
	      "  \"title\": \"golem.yaml\",\n"
	      "  \"description\": \"The golemfs configuration file "
	      "(docs/config.md). Generated from policy/keys.c by "
	      "scripts/gen-config-ref: do not edit.\",\n",
	      f);
	schema_object(f, "", 1);
	fputs("\n}\n", f);
}

/* ---- checking and rewriting the committed copies ---- */

static const struct format {
	const char *name;
	void (*print)(FILE *f);
	bool whole; /* the whole file, not a marked region */
} formats[] = {
	{ "md", print_md, false },
	{ "man", print_man, false },
	{ "worker-md", print_worker_md, false },
	{ "worker-man", print_worker_man, false },
	{ "options", print_options, false },
	{ "trust-md", print_trust_md, false },
	{ "trust-man", print_trust_man, false },
	{ "schema", print_schema, true },
	{ NULL, NULL, false },
};

static char *generate(const struct format *fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	fmt->print(m);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

static char *read_all(const char *path)
{
	char *text = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *in = fopen(path, "r"), *m;

	if (!in)
		return NULL;
	m = open_memstream(&text, &len);
	if (!m) {
		fclose(in);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, m);
	if (ferror(in) | fclose(m)) {
		free(text);
		text = NULL;
	}
	fclose(in);
	return text;
}

/* The line holding @marker (not as the start of a longer word) from @s. */
static const char *marker_line(const char *s, const char *marker)
{
	const char *at = s;
	size_t n = strlen(marker);

	while ((at = strstr(at, marker))) {
		if (!isalnum((unsigned char)at[n]) && at[n] != '-') {
			while (at > s && at[-1] != '\n')
				at--;
			return at;
		}
		at += n;
	}
	return NULL;
}

/*
 * The region of @text that @fmt fills: [*b, *e). Return: 0, or -ENOENT
 * when a marker line is missing.
 */
static int find_region(const char *text, const struct format *fmt, size_t *b,
		       size_t *e)
{
	char begin[64], end[64];
	const char *bl, *el;

	if (fmt->whole) {
		*b = 0;
		*e = strlen(text);
		return 0;
	}
	snprintf(begin, sizeof(begin), "BEGIN config-ref %s", fmt->name);
	snprintf(end, sizeof(end), "END config-ref %s", fmt->name);
	bl = marker_line(text, begin);
	if (!bl || !strchr(bl, '\n'))
		return -ENOENT;
	bl = strchr(bl, '\n') + 1;
	el = marker_line(bl, end);
	if (!el)
		return -ENOENT;
	*b = (size_t)(bl - text);
	*e = (size_t)(el - text);
	return 0;
}

static int report_diff(const char *file, const char *have, size_t n,
		       const char *want)
{
	size_t i, line = 1;

	for (i = 0; i < n && have[i] == want[i]; i++)
		if (have[i] == '\n')
			line++;
	fprintf(stderr,
		"config_ref: %s differs from the key table (policy/keys.c) "
		"from line %zu of its generated part; run "
		"scripts/gen-config-ref\n",
		file, line);
	return 1;
}

static int write_file(const char *file, const char *text, size_t b, size_t e,
		      const char *gen)
{
	char tmp[4096];
	FILE *out;
	int n = snprintf(tmp, sizeof(tmp), "%s.tmp", file);

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return 2;
	out = fopen(tmp, "w");
	if (!out)
		return 2;
	fwrite(text, 1, b, out);
	fputs(gen, out);
	fputs(text + e, out);
	if (fclose(out) || rename(tmp, file)) {
		remove(tmp);
		return 2;
	}
	return 0;
}

static int check_or_write(const struct format *fmt, const char *file,
			  bool write)
{
	char *gen = generate(fmt), *text = read_all(file);
	size_t b, e;
	int rc;

	if (!gen || !text) {
		fprintf(stderr, "config_ref: %s: %s\n", file, strerror(errno));
		rc = 2;
	} else if (find_region(text, fmt, &b, &e) < 0) {
		fprintf(stderr,
			"config_ref: %s: no lines with 'BEGIN config-ref %s' "
			"and 'END config-ref %s'\n",
			file, fmt->name, fmt->name);
		rc = 2;
	} else if (write) {
		rc = write_file(file, text, b, e, gen);
		if (rc)
			fprintf(stderr, "config_ref: cannot write %s\n", file);
	} else if (e - b != strlen(gen) || memcmp(text + b, gen, e - b)) {
		rc = report_diff(file, text + b, e - b, gen);
	} else {
		rc = 0;
	}
	free(gen);
	free(text);
	return rc;
}

static const struct format *format_named(const char *name)
{
	const struct format *f;

	for (f = formats; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	fprintf(stderr,
		"config_ref: unknown format '%s' (md, man, worker-md, "
		"worker-man, options, trust-md, trust-man, schema)\n",
		name);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct format *fmt;
	char *gen;

	if (argc == 2 && (fmt = format_named(argv[1]))) {
		gen = generate(fmt);
		if (!gen)
			return 2;
		fputs(gen, stdout);
		free(gen);
		return 0;
	}
	if (argc == 4 &&
	    (!strcmp(argv[1], "--check") || !strcmp(argv[1], "--write"))) {
		fmt = format_named(argv[2]);
		return fmt ? check_or_write(fmt, argv[3],
					    !strcmp(argv[1], "--write"))
			   : 2;
	}
	fprintf(stderr, "usage: config_ref [--check|--write] "
			"FORMAT [FILE]\n");
	return 2;
}
