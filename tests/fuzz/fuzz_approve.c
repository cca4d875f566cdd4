/*
 * The approval protocol's lines (fs/approve_proto.c). The first byte
 * chooses:
 *   even: the rest is a line from the other side, read as an ask line
 *         (by `golemfs approve`) and as an answer line (by the mount);
 *   odd:  the rest is "PATH\0COMM\0" and numbers: the mount writes the ask
 *         line, which must be one line of printable ASCII; the client must
 *         read back exactly the fields written; and the answer that
 *         repeats the line must be read back as the same ID, answer and
 *         request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/approve_proto.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void read_lines(const uint8_t *data, size_t size)
{
	char *line = fuzz_str(data, size), *dup;
	struct approve_req *r;
	const char *req;
	unsigned id;
	char x;

	if (approve_answer_parse(line, &id, &x, &req) == 0) {
		FUZZ_CHECK(strchr("ynad", x) && x);
		FUZZ_CHECK(req >= line && req <= line + strlen(line));
	}
	dup = strdup(line);
	if (!dup)
		abort();
	r = approve_req_parse(dup); /* takes dup */
	if (r) {
		FUZZ_CHECK(r->line == dup);
		FUZZ_CHECK(strlen(r->path) <= r->pathlen);
		FUZZ_CHECK(strlen(r->comm) <= r->commlen);
	}
	approve_req_free(r);
	free(line);
}

static uint64_t take(const uint8_t **p, const uint8_t *end, int n)
{
	uint64_t v = 0;

	while (n-- > 0 && *p < end)
		v = v << 8 | *(*p)++;
	return v;
}

static void round_trip(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *p = data, *nul;
	char *path, *comm, *line = NULL, *answer = NULL, *dup, *c;
	size_t len = 0;
	unsigned id, aid;
	int pid;
	uint64_t bytes;
	bool write;
	struct approve_req *r;
	const char *req;
	char x;
	FILE *m;

	nul = memchr(p, '\0', (size_t)(end - p));
	path = fuzz_str(p, nul ? (size_t)(nul - p) : (size_t)(end - p));
	p = nul ? nul + 1 : end;
	nul = memchr(p, '\0', (size_t)(end - p));
	comm = fuzz_str(p, nul ? (size_t)(nul - p) : (size_t)(end - p));
	comm[strnlen(comm, 15)] = '\0'; /* a comm is at most 15 bytes */
	p = nul ? nul + 1 : end;
	id = (unsigned)take(&p, end, 4);
	pid = (int)take(&p, end, 4);
	bytes = take(&p, end, 8);
	write = take(&p, end, 1) & 1;

	m = open_memstream(&line, &len);
	if (!m)
		abort();
	approve_ask_write(m, id, write, path, pid, comm, bytes);
	if (fclose(m) != 0)
		abort();
	for (c = line; *c; c++)
		FUZZ_CHECK(*c >= 0x20 && *c < 0x7f);
	dup = strdup(line);
	if (!dup)
		abort();
	r = approve_req_parse(dup);
	FUZZ_CHECK(r != NULL);
	FUZZ_CHECK(r->id == id && r->pid == pid && r->bytes == bytes);
	FUZZ_CHECK(strcmp(r->op, write ? "write" : "delete") == 0);
	FUZZ_CHECK(r->pathlen == strlen(path) &&
		   memcmp(r->path, path, r->pathlen) == 0);
	FUZZ_CHECK(r->commlen == strlen(comm) &&
		   memcmp(r->comm, comm, r->commlen) == 0);
	approve_req_free(r);

	if (asprintf(&answer, "answer %u a %s", id, line) < 0)
		abort();
	FUZZ_CHECK(approve_answer_parse(answer, &aid, &x, &req) == 0);
	FUZZ_CHECK(aid == id && x == 'a' && strcmp(req, line) == 0);
	free(answer);
	free(line);
	free(path);
	free(comm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		round_trip(data + 1, size - 1);
	else
		read_lines(data + 1, size - 1);
	return 0;
}
