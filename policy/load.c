/*
 * Loading a policy: config discovery (golem.yaml, golem-forge.config.yaml
 * from the starting directory upward), reading the file or the embedded
 * default, and the worker chain. The I/O of the policy module lives here
 * (and in ydoc.c's pol_read_file()), so that decide.c only decides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy_int.h"

const char *const pol_config_names[] = { "golem.yaml",
					 "golem-forge.config.yaml", NULL };

static int discover(const char *cwd, char **found)
{
	const char *const *names = pol_config_names;
	char *dir = strdup(cwd), *cand, *slash;
	int i;

	if (!dir)
		return -ENOMEM;
	for (;;) {
		for (i = 0; names[i]; i++) {
			if (asprintf(&cand, "%s/%s",
				     strcmp(dir, "/") ? dir : "",
				     names[i]) < 0) {
				free(dir);
				return -ENOMEM;
			}
			if (access(cand, F_OK) == 0) {
				free(dir);
				*found = cand;
				return 0;
			}
			free(cand);
		}
		slash = strrchr(dir, '/');
		if (!slash || strcmp(dir, "/") == 0)
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(dir);
	*found = NULL;
	return 0;
}

static int load_config(struct policy **out, const char *file,
		       struct gfs_err *err)
{
	char *text = NULL, *dir = NULL, *slash;
	size_t len;
	int rc;

	rc = pol_read_file(file, &text, &len, err);
	if (rc < 0)
		return rc == -ENOENT ? rc : (rc == -EFBIG ? -EINVAL : rc);
	if (len == 0) {
		free(text);
		return gfs_err_set(err, -EINVAL, "%s:1:1: empty file", file);
	}
	dir = strdup(file);
	if (!dir) {
		free(text);
		return -ENOMEM;
	}
	slash = strrchr(dir, '/');
	*slash = '\0';
	rc = policy_parse(out, text, len, file, *dir ? dir : "/", err);
	if (rc == 0) {
		(*out)->config_file = strdup(file);
		if (!(*out)->config_file) {
			policy_free(*out);
			rc = -ENOMEM;
		}
	}
	free(dir);
	free(text);
	return rc;
}

int policy_load(struct policy **out, const char *config,
		const char *const *workers, const char *cwd,
		struct gfs_err *err)
{
	struct policy *p = NULL;
	char *file = NULL;
	int rc = 0;

	if (config)
		file = pol_path_resolve(cwd, config);
	else
		rc = discover(cwd, &file);
	if (rc < 0 || (config && !file))
		return -ENOMEM;
	if (file)
		rc = load_config(&p, file, err);
	else
		rc = policy_parse(&p, policy_default_yaml,
				  strlen(policy_default_yaml),
				  "(embedded default)", cwd, err);
	free(file);
	for (; rc == 0 && workers && *workers; workers++) {
		char *wf = pol_path_resolve(cwd, *workers);

		rc = wf ? policy_apply_worker(p, wf, err) : -ENOMEM;
		if (rc == -EFBIG)
			rc = -EINVAL;
		free(wf);
	}
	if (rc < 0) {
		policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
