/*
 * stagetool ROOT ZONE REPO BRANCH CMD ID [ARGS] - make staged edits with
 * the staging library directly, for tests of the clearance commands that
 * must not depend on the mount: create ID | put ID PATH TEXT |
 * putbin ID PATH | message ID TEXT.
 */
#include <stdio.h>
#include <string.h>

#include "staging/stage.h"

int main(int argc, char **argv)
{
	static const char bin[] = { 'x', 0, 'y', 0, 1, 2, 3 };
	struct gfs_err err = { 0 };
	struct stage *s = NULL;
	const char *cmd, *id;
	int rc;

	if (argc < 7)
		return 2;
	if (stage_open(&s, argv[1], argv[2], argv[3], argv[4], &err) < 0) {
		fprintf(stderr, "stagetool: %s\n", err.msg);
		return 1;
	}
	cmd = argv[5];
	id = argv[6];
	if (!strcmp(cmd, "create"))
		rc = stage_create(s, id, false, &err);
	else if (!strcmp(cmd, "put") && argc == 9)
		rc = stage_put(s, id, argv[7], argv[8], strlen(argv[8]), false,
			       &err);
	else if (!strcmp(cmd, "putbin") && argc == 8)
		rc = stage_put(s, id, argv[7], bin, sizeof(bin), false, &err);
	else if (!strcmp(cmd, "message") && argc == 8)
		rc = stage_set_message(s, id, argv[7], &err);
	else
		rc = gfs_err_set(&err, -22, "bad command");
	if (rc < 0)
		fprintf(stderr, "stagetool: %s\n", err.msg);
	stage_free(s);
	return rc < 0 ? 1 : 0;
}
