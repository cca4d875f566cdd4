/*
 * approve_proto - the text lines of the approval protocol, with no socket,
 * lock or FUSE in sight, so that they can be tested and fuzzed alone.
 *
 *   mount -> client: "ask ID OP PATH PID COMM BYTES"   (approve_ask_write,
 *                                                        approve_req_parse)
 *   client -> mount: "answer ID X REQUEST"             (approve_answer_parse)
 *
 * PATH and COMM are chosen by the sandboxed program: they are always
 * quoted (gfs_esc_name, GFS_ESC_ALWAYS), so an ask line holds no space
 * inside a field, no newline and no control byte, and the client gets the
 * exact bytes back. Thread-safe; no state.
 */
#ifndef GFS_APPROVE_PROTO_H
#define GFS_APPROVE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The protocol version the mount's "ok" names. */
#define APPROVE_PROTOCOL 2

/* One "ask" line as the client holds it. */
struct approve_req {
	struct approve_req *next; /* the client's queue */
	unsigned id;
	char op[8];
	char *path, *comm, *line; /* path and comm may hold NULs: see lens */
	size_t pathlen, commlen;
	int pid;
	unsigned long long bytes;
};

/* approve_ask_write() - the ask line for question @id to @f, no newline.
   @write: a write-class question, else a delete. */
void approve_ask_write(FILE *f, unsigned id, bool write, const char *path,
		       int pid, const char *comm, uint64_t bytes);

/*
 * approve_req_parse() - read an ask line; @line is taken over (kept as
 * r->line, or freed). Return: a new request (free with approve_req_free),
 * or NULL for a line that is not one or when out of memory.
 */
struct approve_req *approve_req_parse(char *line);
void approve_req_free(struct approve_req *r); /* NULL is a no-op */

/*
 * approve_answer_parse() - read "answer ID X REQUEST": @x one of y n a d,
 * @request points into @line at the request line the answer repeats;
 * @id is also written on failure (0 when the line names none), for the
 * refusal. Return: 0, or -EINVAL for anything else.
 */
int approve_answer_parse(const char *line, unsigned *id, char *x,
			 const char **request);

#endif
