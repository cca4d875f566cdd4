/*
 * Clearance: the one place the trusted repository is written. The staged
 * tree's new objects are copied into the trusted repository, a commit is
 * made on the staged base, and the branch moves by fast-forward only
 * (compare-and-swap on the ref). Optionally the branch is pushed to a
 * remote with the host's credentials.
 */
#include <errno.h>
#include <stdio.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stage_int.h"

/* Copy one object into @dst unless it is there already. */
static int copy_object(git_odb *src, git_odb *dst, const git_oid *id)
{
	git_odb_object *o = NULL;
	git_oid out;
	int rc;

	if (git_odb_exists(dst, id))
		return 0;
	rc = git_odb_read(&o, src, id);
	if (rc == 0)
		rc = git_odb_write(&out, dst, git_odb_object_data(o),
				   git_odb_object_size(o),
				   git_odb_object_type(o));
	git_odb_object_free(o);
	return rc;
}

struct copy_ctx {
	git_odb *src, *dst;
	int rc;
};

static int copy_entry(const char *root, const git_tree_entry *e, void *p)
{
	struct copy_ctx *c = p;

	(void)root;
	if (git_tree_entry_type(e) == GIT_OBJECT_COMMIT)
		return 0; /* a submodule: not ours to copy */
	c->rc = copy_object(c->src, c->dst, git_tree_entry_id(e));
	return c->rc < 0 ? -1 : 0;
}

/* Make every object of @tree exist in the trusted repository. */
static int copy_tree(struct stage *s, git_repository *t, git_tree *tree,
		     struct gfs_err *err)
{
	struct copy_ctx c = { 0 };
	int rc;

	if (git_repository_odb(&c.src, s->repo) < 0 ||
	    git_repository_odb(&c.dst, t) < 0) {
		rc = stage_gerr(err, "object databases");
		goto out;
	}
	rc = copy_object(c.src, c.dst, git_tree_id(tree));
	if (rc == 0 &&
	    git_tree_walk(tree, GIT_TREEWALK_PRE, copy_entry, &c) < 0)
		rc = -1;
	if (rc < 0)
		rc = stage_gerr(err,
				"copying objects into the trusted repository");
out:
	git_odb_free(c.src);
	git_odb_free(c.dst);
	return rc;
}

static int signature(git_signature **out, git_repository *t)
{
	if (git_signature_default(out, t) == 0)
		return 0;
	return git_signature_now(out, "golemfs", "golemfs@localhost");
}

/* Credentials from the host: ssh-agent, or a token for https. */
static int credentials(git_credential **out, const char *url, const char *user,
		       unsigned int allowed, void *payload)
{
	const char *token = getenv("GIT_TOKEN");

	(void)url;
	(void)payload;
	if (!token)
		token = getenv("GITHUB_TOKEN");
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && user)
		return git_credential_ssh_key_from_agent(out, user);
	if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && token)
		return git_credential_userpass_plaintext_new(
		    out, "x-access-token", token);
	return GIT_PASSTHROUGH;
}

static int push_remote(git_repository *t, const char *remote, const char *ref,
		       struct gfs_err *err)
{
	git_push_options po = GIT_PUSH_OPTIONS_INIT;
	git_remote *r = NULL;
	char *spec = NULL;
	char *specs[1];
	git_strarray refspecs = { specs, 1 };
	int rc = 0;

	if (asprintf(&spec, "%s:%s", ref, ref) < 0)
		return gfs_err_set(err, -ENOMEM, "out of memory");
	specs[0] = spec;
	po.callbacks.credentials = credentials;
	if (git_remote_lookup(&r, t, remote) < 0)
		rc = stage_gerr(err, remote);
	else if (git_remote_push(r, &refspecs, &po) < 0)
		rc = stage_gerr(err, "push");
	git_remote_free(r);
	free(spec);
	return rc;
}

/*
 * Move refs/heads/@branch to @commit: create it, or fast-forward it from
 * @base with a compare-and-swap, so a branch that moved meanwhile is
 * never overwritten.
 */
static int move_branch(git_repository *t, const char *ref, const char *branch,
		       const git_oid *commit, const git_oid *base,
		       bool has_base, const char *id, struct gfs_err *err)
{
	git_reference *r = NULL;
	char log[200], a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	git_oid head;
	int rc;

	snprintf(log, sizeof(log), "golemfs push %s", id);
	if (git_reference_name_to_id(&head, t, ref) < 0) {
		rc = git_reference_create(&r, t, ref, commit, 0, log);
		git_reference_free(r);
		return rc < 0 ? stage_gerr(err, ref) : 0;
	}
	if (!has_base || git_oid_cmp(&head, base) != 0)
		return gfs_err_set(
		    err, -EEXIST,
		    "branch '%s' is at %.12s but '%s' was "
		    "staged on %.12s: not a fast-forward; "
		    "push to another branch with --to",
		    branch, git_oid_tostr(a, sizeof(a), &head), id,
		    has_base ? git_oid_tostr(b, sizeof(b), base) : "(nothing)");
	rc = git_reference_create_matching(&r, t, ref, commit, 1, &head, log);
	git_reference_free(r);
	return rc < 0 ? stage_gerr(err, ref) : 0;
}

/* The commit of tree @tree_id (read under the push's lock) on o->branch. */
static int make_commit(struct stage *s, git_repository *t, const char *id,
		       const git_oid *tree_id, const struct stage_push_opts *o,
		       git_oid *out, struct gfs_err *err)
{
	char hex[64], dflt_branch[80], dflt_msg[100];
	char *stored = NULL, *ref = NULL;
	const char *msg = o->message, *branch = o->branch;
	git_commit *parent = NULL;
	const git_commit *parents[1];
	git_signature *sig = NULL;
	git_tree *tree = NULL, *ttree = NULL;
	git_oid base;
	bool has_base;
	int rc = 0;

	if (git_tree_lookup(&tree, s->repo, tree_id) < 0) {
		rc = stage_gerr(err, "the staged tree");
		goto out;
	}
	rc = copy_tree(s, t, tree, err);
	/* the commit is made of the trusted repository's own objects */
	if (rc == 0 && git_tree_lookup(&ttree, t, tree_id) < 0)
		rc = stage_gerr(err, "the copied tree");
	stage_state_read(s, id, "base", hex, sizeof(hex));
	has_base = strcmp(hex, "empty") != 0;
	if (rc == 0 && has_base &&
	    (git_oid_fromstr(&base, hex) < 0 ||
	     git_commit_lookup(&parent, t, &base) < 0))
		rc = stage_gerr(err, "the base commit");
	/* the whole message and branch name, never a cut one (an id is at
	   most 64 characters: the defaults fit) */
	if (rc == 0 && !msg) {
		rc = stage_message(s, id, &stored, err);
		msg = stored;
	}
	if (rc == 0 && !*msg) {
		gfs_fmt(dflt_msg, sizeof(dflt_msg), "golemfs: staged commit %s",
			id);
		msg = dflt_msg;
	}
	if (!branch) {
		gfs_fmt(dflt_branch, sizeof(dflt_branch), "golem/%s", id);
		branch = dflt_branch;
	}
	if (rc == 0 && asprintf(&ref, "refs/heads/%s", branch) < 0) {
		ref = NULL;
		rc = gfs_err_set(err, -ENOMEM, "out of memory");
	}
	if (rc == 0 && !git_reference_is_valid_name(ref))
		rc = gfs_err_set(err, -EINVAL, "'%s' is not a branch name",
				 branch);
	if (rc == 0 && signature(&sig, t) < 0)
		rc = stage_gerr(err, "signature");
	parents[0] = parent;
	if (rc == 0 && git_commit_create(out, t, NULL, sig, sig, NULL, msg,
					 ttree, parent ? 1 : 0, parents) < 0)
		rc = stage_gerr(err, "commit");
	if (rc == 0)
		rc = move_branch(t, ref, branch, out, &base, has_base, id, err);
	if (rc == 0 && o->remote)
		rc = push_remote(t, o->remote, ref, err);
out:
	free(stored);
	free(ref);
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(ttree);
	git_tree_free(tree);
	return rc;
}

/* Is the staged tree @tree the one the caller reviewed? */
static int expect_tree(const char *id, const git_oid *tree,
		       const struct stage_push_opts *o, struct gfs_err *err)
{
	char now[GIT_OID_HEXSZ + 1];
	git_oid want;
	int rc;

	if (!o->expect_tree)
		return 0;
	rc = stage_parse_tree(&want, o->expect_tree, err);
	if (rc < 0 || git_oid_equal(&want, tree))
		return rc;
	return gfs_err_set(err, -ESTALE,
			   "staged commit '%s' changed since it was reviewed: "
			   "its tree is now %s, not %s; nothing was pushed, "
			   "review it again ('golemfs diff %s')",
			   id, git_oid_tostr(now, sizeof(now), tree),
			   o->expect_tree, id);
}

/* Is the staged message the one the caller showed? (-m overrides it.) */
static int expect_message(struct stage *s, const char *id,
			  const struct stage_push_opts *o, struct gfs_err *err)
{
	char *now = NULL;
	int rc;

	if (!o->expect_message || o->message)
		return 0;
	rc = stage_message(s, id, &now, err);
	if (rc == 0 && strcmp(now, o->expect_message) != 0)
		rc = gfs_err_set(err, -ESTALE,
				 "the message of staged commit '%s' changed "
				 "since it was reviewed; nothing was pushed, "
				 "review it again",
				 id);
	free(now);
	return rc;
}

/* The push proper, with the commit's exclusive lock held. */
static int push_locked(struct stage *s, const char *id,
		       const struct stage_push_opts *o, char *commit,
		       struct gfs_err *err)
{
	git_repository *t = NULL;
	git_oid tree, oid;
	FILE *devnull;
	int rc;

	rc = stage_require_pending(s, id, err);
	if (rc == 0)
		rc = stage_tree_id(s, id, &tree, err);
	if (rc == 0)
		rc = expect_tree(id, &tree, o, err);
	if (rc == 0)
		rc = expect_message(s, id, o, err);
	if (rc < 0)
		return rc;
	devnull = fopen("/dev/null", "we");
	rc = stage_check_tree(s, id, &tree, o, devnull ? devnull : stderr, err);
	if (devnull)
		fclose(devnull);
	if (rc < 0)
		return rc;
	if (git_repository_open_ext(&t, s->trusted,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return stage_gerr(err, s->trusted);
	rc = make_commit(s, t, id, &tree, o, &oid, err);
	git_repository_free(t);
	if (rc < 0)
		return rc;
	git_oid_tostr(commit, GIT_OID_HEXSZ + 1, &oid);
	rc = stage_state_write(s, id, "commit", commit);
	if (rc == 0)
		rc = stage_state_write(s, id, "status", "committed");
	return rc < 0 ? gfs_err_set(err, rc, "recording the push of '%s': %s",
				    id, strerror(-rc))
		      : 0;
}

int stage_push(struct stage *s, const char *id, const struct stage_push_opts *o,
	       char *commit, struct gfs_err *err)
{
	int lock, rc;

	/* waits for edits in flight; new ones fail until it is released */
	lock = stage_lock(s, id, true, err);
	if (lock < 0)
		return lock;
	rc = push_locked(s, id, o, commit, err);
	close(lock);
	return rc;
}

int stage_discard(struct stage *s, const char *id, struct gfs_err *err)
{
	int lock, rc;

	lock = stage_lock(s, id, false, err);
	if (lock < 0)
		return lock;
	rc = stage_require_pending(s, id, err);
	if (rc == 0) {
		rc = stage_state_write(s, id, "status", "discarded");
		if (rc < 0)
			gfs_err_set(err, rc, "discard '%s': %s", id,
				    strerror(-rc));
	}
	close(lock);
	return rc;
}
