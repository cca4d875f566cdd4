/*
 * The approval protocol's lines: written by the mount, read by `golemfs
 * approve`, and the answers read back by the mount. See approve_proto.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "approve_proto.h"
#include "common/gfs_esc.h"

void approve_ask_write(FILE *f, unsigned id, bool write, const char *path,
		       int pid, const char *comm, uint64_t bytes)
{
	fprintf(f, "ask %u %s ", id, write ? "write" : "delete");
	gfs_esc_name(f, path, strlen(path), GFS_ESC_ALWAYS);
	fprintf(f, " %d ", pid);
	gfs_esc_name(f, comm, strlen(comm), GFS_ESC_ALWAYS);
	fprintf(f, " %llu", (unsigned long long)bytes);
}

void approve_req_free(struct approve_req *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->comm);
	free(r->line);
	free(r);
}

struct approve_req *approve_req_parse(char *line)
{
	struct approve_req *r = calloc(1, sizeof(*r));
	const char *p;
	int at = -1;

	if (!r) {
		free(line);
		return NULL;
	}
	r->line = line;
	if (sscanf(line, "ask %u %7s %n", &r->id, r->op, &at) != 2 || at < 0 ||
	    gfs_unquote(line + at, &r->path, &r->pathlen, &p) < 0)
		goto bad;
	at = -1;
	if (sscanf(p, " %d %n", &r->pid, &at) != 1 || at < 0 ||
	    gfs_unquote(p + at, &r->comm, &r->commlen, &p) < 0)
		goto bad;
	at = -1;
	if (sscanf(p, " %llu%n", &r->bytes, &at) != 1 || p[at] != '\0')
		goto bad;
	return r;
bad:
	approve_req_free(r);
	return NULL;
}

int approve_answer_parse(const char *line, unsigned *id, char *x,
			 const char **request)
{
	unsigned i = 0;
	char c = 0;
	int at = -1;

	int n = sscanf(line, "answer %u %c %n", &i, &c, &at);

	*id = n >= 1 ? i : 0;
	if (n != 2 || at <= 0 || !c || !strchr("ynad", c))
		return -EINVAL;
	*x = c;
	*request = line + at;
	return 0;
}
