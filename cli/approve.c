/*
 * `golemfs approve`: answer a mount's approval requests, one at a time,
 * as a client of its control socket (the daemon's side is fs/approve.c;
 * the protocol's lines are fs/approve_proto.h's).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/gfs_esc.h"
#include "fs/approve_proto.h"
#include "fs/control_client.h"

static void approve_usage(FILE *f)
{
	fprintf(f,
		"usage: golemfs approve [--json] [MOUNTPOINT]\n\n"
		"Answer a mount's approval requests, one at a time. Each "
		"request is shown\n(its ID, operation, quoted path, process) "
		"and one line is read from standard\ninput: y (once), n "
		"(refuse), a (always: this path and operation for the\n"
		"session), d (this directory for the session); anything else "
		"refuses.\nThe answer may go on with the request's ID or its "
		"whole request line\n(\"y 7\", \"y ask 7 write ...\"): an "
		"answer naming another request is\nignored. Input while no "
		"request is shown is ignored. --json prints the\nrequests "
		"and results as JSON lines for programs (see README). Ends "
		"at\nend of input (after the last answer is confirmed) or "
		"when the mount goes.\nMOUNTPOINT may be run:PID for a "
		"`golemfs run` sandbox.\n");
}

/* Lines read from a descriptor, with no stdio buffer poll cannot see. */
struct lines {
	int fd;
	char *buf;
	size_t len, cap;
	bool eof;
};

#define LINE_MAX_BYTES (256u << 10)

/* Read what is there. Return: 0, or -1 on an error or an endless line. */
static int lines_fill(struct lines *l)
{
	ssize_t r;
	char *v;

	if (l->len + 4096 > l->cap) {
		if (l->cap >= LINE_MAX_BYTES)
			return -1;
		v = realloc(l->buf, l->cap + 8192);
		if (!v)
			return -1;
		l->buf = v;
		l->cap += 8192;
	}
	r = read(l->fd, l->buf + l->len, l->cap - l->len);
	if (r < 0 && errno == EINTR)
		return 0;
	if (r < 0)
		return -1;
	l->eof = r == 0;
	l->len += (size_t)r;
	return 0;
}

/* The next whole line (malloc'd, no newline); at the end, the rest. */
static char *lines_next(struct lines *l)
{
	char *nl = l->len ? memchr(l->buf, '\n', l->len) : NULL;
	size_t n = nl ? (size_t)(nl - l->buf) : l->len;
	char *line;

	if (!nl && !(l->eof && l->len))
		return NULL;
	line = strndup(l->buf, n);
	n += nl != NULL;
	memmove(l->buf, l->buf + n, l->len - n);
	l->len -= n;
	return line;
}

struct approver {
	bool json;
	int sock;
	struct approve_req *queue, *shown;
	unsigned acks;  /* answers sent and not yet confirmed */
	bool told_idle; /* "input ignored" said since the last request */
};

static void show(struct approver *ap, const struct approve_req *r)
{
	if (ap->json) {
		printf("{\"type\":\"ask\",\"id\":%u,\"op\":\"%s\",\"path\":",
		       r->id, r->op);
		gfs_esc_json(stdout, r->path, r->pathlen);
		printf(",\"pid\":%d,\"comm\":", r->pid);
		gfs_esc_json(stdout, r->comm, r->commlen);
		printf(",\"bytes\":%llu,\"request\":", r->bytes);
		gfs_esc_json_str(stdout, r->line);
		printf("}\n");
		return;
	}
	fprintf(stderr, "request %u: %s ", r->id, r->op);
	gfs_esc_name(stderr, r->path, r->pathlen, GFS_ESC_ALWAYS);
	fprintf(stderr, " by pid %d ", r->pid);
	gfs_esc_name(stderr, r->comm, r->commlen, GFS_ESC_ALWAYS);
	fprintf(stderr,
		", %llu bytes? [y]es [n]o [a]lways [d]irectory: ", r->bytes);
}

/*
 * Which request an answer line names: NULL for the shown one, else the
 * rest of the line after the answer word.
 */
static const char *answer_target(const char *in)
{
	in += strcspn(in, " ");
	in += strspn(in, " ");
	return *in ? in : NULL;
}

/* A line of input: the answer to the shown request. Return: 0 or -1. */
static int take_input(struct approver *ap, const char *in)
{
	struct approve_req *r = ap->shown;
	const char *t;
	char *out = NULL, x;
	char *end;
	int rc;

	if (!r) {
		if (!ap->told_idle)
			fprintf(stderr, "golemfs: approve: no request is "
					"shown; input ignored\n");
		ap->told_idle = true;
		return 0;
	}
	in += strspn(in, " ");
	t = answer_target(in);
	if (t && (strncmp(t, "ask ", 4) == 0
		      ? strcmp(t, r->line) != 0
		      : (strtoul(t, &end, 10) != r->id || *end || end == t))) {
		fprintf(stderr,
			"golemfs: approve: that answer names another "
			"request than %u, which is shown; ignored\n",
			r->id);
		return 0;
	}
	x = *in && strchr("ynad", *in) ? *in : 'n';
	if (asprintf(&out, "answer %u %c %s\n", r->id, x, r->line) < 0)
		return -1;
	rc = control_send_all(ap->sock, out, strlen(out));
	free(out);
	ap->acks++;
	ap->shown = NULL;
	approve_req_free(r);
	return rc;
}

/* Drop request @id wherever it waits here (the mount gave up on it). */
static void forget(struct approver *ap, unsigned id)
{
	struct approve_req **pp, *r;

	if (ap->shown && ap->shown->id == id) {
		approve_req_free(ap->shown);
		ap->shown = NULL;
		if (!ap->json)
			fprintf(stderr,
				"\ngolemfs: approve: request %u "
				"timed out\n",
				id);
	}
	for (pp = &ap->queue; *pp; pp = &(*pp)->next) {
		if ((*pp)->id == id) {
			r = *pp;
			*pp = r->next;
			approve_req_free(r);
			break;
		}
	}
}

/* A line from the mount: a request, a result, or a request given up. */
static void take_reply(struct approver *ap, char *line)
{
	struct approve_req **pp, *r;
	unsigned id;
	char x;
	int at = -1;

	if (strncmp(line, "ask ", 4) == 0) {
		r = approve_req_parse(line);
		if (!r)
			return;
		for (pp = &ap->queue; *pp; pp = &(*pp)->next)
			;
		*pp = r;
		return;
	}
	if (sscanf(line, "gone %u", &id) == 1) {
		if (ap->json)
			printf("{\"type\":\"gone\",\"id\":%u}\n", id);
		forget(ap, id);
	} else if (sscanf(line, "done %u %c", &id, &x) == 2) {
		ap->acks -= ap->acks > 0;
		if (ap->json)
			printf("{\"type\":\"done\",\"id\":%u,\"answer\":"
			       "\"%c\"}\n",
			       id, x);
	} else if (sscanf(line, "refused %u %n", &id, &at) == 1 && at > 0) {
		ap->acks -= ap->acks > 0;
		if (ap->json) {
			printf("{\"type\":\"refused\",\"id\":%u,\"reason\":",
			       id);
			gfs_esc_json_str(stdout, line + at);
			printf("}\n");
		} else {
			fprintf(stderr,
				"golemfs: approve: answer to request "
				"%u refused: ",
				id);
			gfs_esc_text(stderr, line + at, strlen(line + at), 0);
			fputc('\n', stderr);
		}
	}
	free(line);
}

/*
 * The session: requests are shown one at a time, each answer goes to the
 * shown one. At the end of input, answers sent are confirmed before we go.
 */
static int approve_loop(struct approver *ap, struct lines *sock,
			struct lines *in)
{
	struct pollfd p[2] = { { .fd = sock->fd, .events = POLLIN },
			       { .fd = in->fd, .events = POLLIN } };
	char *line;

	for (;;) {
		while ((line = lines_next(sock)))
			take_reply(ap, line);
		if (!ap->shown && ap->queue) {
			ap->shown = ap->queue;
			ap->queue = ap->shown->next;
			ap->told_idle = false;
			show(ap, ap->shown);
		}
		if ((line = lines_next(in))) {
			int rc = take_input(ap, line);

			free(line);
			if (rc < 0)
				return 1;
			continue;
		}
		if (sock->eof || (in->eof && !ap->acks))
			return 0;
		if (poll(p, in->eof ? 1 : 2, -1) < 0 && errno != EINTR)
			return 1;
		if ((p[0].revents && lines_fill(sock) < 0) ||
		    (!in->eof && p[1].revents && lines_fill(in) < 0))
			return 1;
	}
}

static const struct cli_opt approve_opts[] = {
	{ "json", 'j', false, true },
	CLI_OPT_HELP,
	CLI_OPTS_END,
};

static const struct cli_cmd approve_cmd = {
	.opts = approve_opts,
	.usage = approve_usage,
	.flags = CLI_USAGE_ON_ERROR,
};

int cmd_approve(int argc, char **argv)
{
	struct gfs_err err = { 0 };
	struct approver ap = { 0 };
	struct lines sock = { 0 }, in = { .fd = STDIN_FILENO };
	char *hello = NULL;
	struct cli_args ca = { 0 };
	int fd, rc;

	rc = cli_parse(&approve_cmd, argc, argv, NULL, &ca);
	if (rc != CLI_GO)
		return rc;
	ap.json = ca.json;
	rc = CLI_FAILED;
	fd = control_connect(optind < argc ? argv[optind] : NULL, &err);
	if (fd < 0) {
		gfs_err_print("approve", err.msg);
		return CLI_FAILED;
	}
	ap.sock = sock.fd = fd;
	if (control_send_all(fd, "approve\n", 8) == 0)
		while (!(hello = lines_next(&sock)) && !sock.eof &&
		       lines_fill(&sock) == 0)
			;
	if (!hello || strncmp(hello, "ok", 2) != 0) {
		fprintf(stderr, "golemfs: approve: ");
		gfs_esc_text(stderr, hello ? hello : "no answer",
			     strlen(hello ? hello : "no answer"), 0);
		fputc('\n', stderr);
	} else {
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (ap.json)
			printf("{\"type\":\"ready\",\"protocol\":%d}\n",
			       APPROVE_PROTOCOL);
		else
			fprintf(stderr, "golemfs: approve: waiting for "
					"requests\n");
		rc = approve_loop(&ap, &sock, &in);
	}
	free(hello);
	approve_req_free(ap.shown);
	while (ap.queue) {
		struct approve_req *r = ap.queue;

		ap.queue = r->next;
		approve_req_free(r);
	}
	free(sock.buf);
	free(in.buf);
	close(fd);
	return rc;
}
