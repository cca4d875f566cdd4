/*
 * Unit tests of the git metadata rules (policy/gitmeta.c): the git-config
 * reader finds every key that makes git run a program in every spelling
 * git accepts, refuses what it cannot read, and lets the config git
 * itself writes through. Each refused spelling was checked to be read by
 * git 2.39 as the key named (git config --file F --list). Then what a
 * git directory's config and hooks may be, with the words of each
 * refusal.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "policy/policy.h"

static int check(const char *text, struct gfs_err *why)
{
	memset(why, 0, sizeof(*why));
	return policy_gitconfig_check(text, strlen(text), why);
}

/* @text is refused, and the reason names @key. */
static void refused(const char *text, const char *key)
{
	struct gfs_err why;

	if (check(text, &why) != -EACCES)
		fail_msg("not refused: %s", text);
	if (key && !strstr(why.msg, key))
		fail_msg("reason '%s' does not name '%s'", why.msg, key);
}

static void allowed(const char *text)
{
	struct gfs_err why;

	if (check(text, &why) != 0)
		fail_msg("refused (%s): %s", why.msg, text);
}

static void test_gitconfig_allows_what_git_init_writes(void **state)
{
	(void)state;
	allowed(
	    "[core]\n"
	    "\trepositoryformatversion = 0\n"
	    "\tfilemode = true\n"
	    "\tbare = false\n"
	    "\tlogallrefupdates = true\n"
	    "[user]\n\tname = A U Thor\n\temail = a@b.c\n"
	    "[remote \"origin\"]\n"
	    "\turl = /tmp/x\n"
	    "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	    "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
	    "[submodule \"lib\"]\n\turl = ../lib\n\tactive = true\n"
	    "\tupdate = rebase\n");
	allowed("");
	allowed("\xef\xbb\xbf[core]\n\tbare = true\n");
	allowed("# only a comment\n; and another\n");
}

static void test_gitconfig_refuses_fsmonitor_spellings(void **state)
{
	(void)state;
	refused("[core]\n\tfsmonitor = touch /tmp/m\n", "core.fsmonitor");
	refused("[core] fsmonitor=x\n", "core.fsmonitor");
	refused("[core]fsmonitor=x", "core.fsmonitor");
	refused("[Core]\n\tFSMonitor = x\n", "core.fsmonitor");
	refused("[CORE]\r\n\tfsMonitor\t=\tx\r\n", "core.fsmonitor");
	refused("[core]\n\tfsmonitor\n", "core.fsmonitor"); /* boolean */
	refused("[core]\n\tfsmonitor =\n", "core.fsmonitor");
	refused("[core]\n\tbare = false\n\tfsmonitor = x", "core.fsmonitor");
	refused("[user]\n\tname = x\n[core]\n# c\n\n  fsmonitor = x\n",
		"core.fsmonitor");
	/* a section may start again anywhere; the last one counts */
	refused("[core]\n[user]\n[core]\n\tfsmonitor = x\n", "core.fsmonitor");
}

static void test_gitconfig_names_the_line(void **state)
{
	struct gfs_err why;

	(void)state;
	assert_int_equal(
	    check("[core]\n\tbare = false\n\tpager = less\n", &why), -EACCES);
	assert_non_null(strstr(why.msg, "core.pager"));
	assert_non_null(strstr(why.msg, "line 3"));
}

static void test_gitconfig_refuses_every_core_program(void **state)
{
	static const char *const keys[] = {
		"hooksPath", "sshCommand", "gitProxy", "alternateRefsCommand",
		"pager",     "editor",     "askPass",  NULL,
	};
	char text[128], key[64];
	int i;

	(void)state;
	for (i = 0; keys[i]; i++) {
		snprintf(text, sizeof(text), "[core]\n\t%s = x\n", keys[i]);
		snprintf(key, sizeof(key), "core.%s", keys[i]);
		for (char *k = key; *k; k++)
			*k = (char)((*k >= 'A' && *k <= 'Z') ? *k + 32 : *k);
		refused(text, key);
	}
}

static void test_gitconfig_refuses_aliases(void **state)
{
	(void)state;
	refused("[alias]\n\tx = \"!sh -c 'touch m'\"\n", "alias.x");
	refused("[alias]\n\tx = !sh\n", "alias.x");
	/* no '!', but an alias can still set a program with -c */
	refused("[alias]\n\tst = -c core.pager=evil status\n", "alias.st");
	refused("[Alias]\n\tLG = log\n", "alias.lg");
}

static void test_gitconfig_refuses_sections_with_subsections(void **state)
{
	(void)state;
	refused("[filter \"lfs\"]\n\tclean = git-lfs clean %f\n", "filter");
	refused("[diff \"pdf\"]\n\ttextconv = pdftotext\n", "textconv");
	refused("[diff \"x\"]\n\tcommand = x\n", "diff.x.command");
	refused("[diff]\n\texternal = x\n", "diff.external");
	refused("[merge \"ours\"]\n\tdriver = true\n", "merge.ours.driver");
	refused("[credential]\n\thelper = store\n", "credential.helper");
	refused("[credential \"https://example.com\"]\n\thelper = !x\n",
		"helper");
	refused("[gpg]\n\tprogram = x\n", "gpg.program");
	refused("[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program");
	refused("[gpg \"ssh\"]\n\tdefaultKeyCommand = x\n",
		"defaultkeycommand");
	refused("[pager]\n\tlog = x\n", "pager.log");
	refused("[sequence]\n\teditor = x\n", "sequence.editor");
	refused("[web]\n\tbrowser = x\n", "web.browser");
	refused("[uploadpack]\n\tpackObjectsHook = x\n", "packobjectshook");
	refused("[remote \"o\"]\n\tuploadpack = x\n", "remote.o.uploadpack");
	refused("[remote \"o\"]\n\treceivepack = x\n", "receivepack");
	refused("[protocol \"ext\"]\n\tallow = always\n", "protocol.ext.allow");
	refused("[tar \"tgz\"]\n\tcommand = x\n", "tar.tgz.command");
	refused("[trailer \"t\"]\n\tcmd = x\n", "trailer.t.cmd");
	refused("[interactive]\n\tdiffFilter = x\n", "difffilter");
	refused("[sendemail \"id\"]\n\tsmtpServer = /bin/x\n", "smtpserver");
	refused("[init]\n\ttemplateDir = /x\n", "init.templatedir");
	refused("[hook \"h\"]\n\tcommand = x\n", "hook.h.command");
}

static void test_gitconfig_refuses_includes(void **state)
{
	(void)state;
	refused("[include]\n\tpath = /tmp/evil\n", "include.path");
	refused("[includeIf \"gitdir:x\"]\n\tpath = /tmp/evil\n",
		"includeif.gitdir:x.path");
	refused("[IncludeIf \"onbranch:main\"]\n\tpath = e\n", "includeif");
}

static void test_gitconfig_old_subsection_spelling(void **state)
{
	(void)state;
	/* [a.b] is [a "b"] to git */
	refused("[diff.pdf]\n\ttextconv = x\n", "diff.pdf.textconv");
	refused("[core.x]\n\tfsmonitor = y\n", "core.x.fsmonitor");
	refused("[filter.a.b]\n\tsmudge = y\n", "filter");
	refused("[core.a \"b\"]\n\tpager = y\n", "core.a.b.pager");
	allowed("[a.b \"c\"]\n\tx = 1\n");
}

static void test_gitconfig_subsection_quoting(void **state)
{
	(void)state;
	refused("[diff \"a\\\"]b\"]\n\ttextconv = x\n", "textconv");
	refused("[alias \"\\\\\"]\n\tx = y\n", "alias");
	refused("[credential   \"https://x\"]\n\thelper = y\n", "helper");
	/* an odd subsection is shown escaped and short */
	refused("[diff \"\\\x01\\\x02xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxx\"]\n\ttextconv = x\n",
		"diff.??xxxx");
}

static void test_gitconfig_continuation_lines(void **state)
{
	(void)state;
	/* a value continued with '\' hides no key... */
	allowed("[user]\n\tname = a \\\n[core] fsmonitor = x\n");
	allowed("[user]\n\tname = \"a \\\nfsmonitor = x\"\n");
	/* ...and the next line after it is a key again */
	refused("[user]\n\tname = a \\\nb\n\tpager = x\n[core]\n\tpager = y\n",
		"core.pager");
	refused("[core]\n\tbare = a\\\nb\n\teditor = vi\n", "core.editor");
	/* comments end at the line end, a backslash does not continue them */
	refused("[core] # \\\n\tpager = x\n", "core.pager");
	refused("[user]\n\tname = a ; c \\\n[core]\n\tpager = x\n",
		"core.pager");
	/* a '#' inside quotes is no comment: the quote spans the line */
	allowed("[user]\n\tname = \"a # b\"\n");
}

static void test_gitconfig_submodule_update(void **state)
{
	(void)state;
	allowed("[submodule \"a\"]\n\tupdate = checkout\n");
	allowed("[submodule \"a\"]\n\tupdate = \"merge\"\n");
	refused("[submodule \"a\"]\n\tupdate = !sh -c x\n",
		"submodule.a.update");
	refused("[submodule \"a\"]\n\tupdate = \"!x\"\n", "update");
	refused("[submodule \"a\"]\n\tupdate\n", "update");
}

static void test_gitconfig_refuses_what_git_cannot_read(void **state)
{
	struct gfs_err why;

	(void)state;
	refused("[core\n\tfsmonitor = x\n", "line 1");
	refused("[core \"x]\n", NULL);
	refused("[core \"x\" ]\n", NULL);
	refused("[ core]\n", NULL);
	refused("[core]\n\t1x = y\n", NULL);
	refused("[core]\n\tfoo bar = y\n", NULL);
	refused("[core]\n\tfoo = \"unclosed\n", NULL);
	refused("[core]\n\tfoo = a\\q\n", NULL);
	refused("[core]\n\tfoo # c\n", NULL);
	refused("[core]\n\tfoo_bar = 1\n", NULL);
	assert_int_equal(
	    policy_gitconfig_check("[core]\n\0\tpager = x\n", 18, &why),
	    -EACCES);
	assert_non_null(strstr(why.msg, "NUL"));
}

static void test_gitconfig_long_names_are_refused(void **state)
{
	char text[1200];

	(void)state;
	memset(text, 'a', sizeof(text));
	text[0] = '[';
	memcpy(text + 600, "]\n", 3);
	refused(text, "too long");
	snprintf(text, sizeof(text), "[core]\n\t%0600d = 1\n", 0);
	text[8] = 'k';
	refused(text, "too long");
}

static void test_gitconfig_long_values_still_read(void **state)
{
	char text[2048];

	(void)state;
	snprintf(text, sizeof(text),
		 "[user]\n\tname = %01500d\n[core]\n"
		 "\tpager = x\n",
		 0);
	refused(text, "core.pager");
	snprintf(text, sizeof(text),
		 "[submodule \"s\"]\n\tupdate = checkout"
		 "%01500d\n",
		 0);
	refused(text, "update");
}

static void test_git_name_kinds(void **state)
{
	(void)state;
	assert_int_equal(policy_git_name_kind("config"), GIT_NAME_CONFIG);
	assert_int_equal(policy_git_name_kind("config.worktree"),
			 GIT_NAME_CONFIG);
	assert_int_equal(policy_git_name_kind("config.lock"), GIT_NAME_PLAIN);
	assert_int_equal(policy_git_name_kind("HEAD"), GIT_NAME_MARKER);
	assert_int_equal(policy_git_name_kind("objects"), GIT_NAME_MARKER);
	assert_int_equal(policy_git_name_kind("refs"), GIT_NAME_MARKER);
	assert_int_equal(policy_git_name_kind("commondir"), GIT_NAME_MARKER);
	assert_int_equal(policy_git_name_kind("hooks"), GIT_NAME_HOOKS);
	assert_int_equal(policy_git_name_kind("head"), GIT_NAME_PLAIN);
	assert_true(policy_git_hook_name_ok("pre-commit.sample"));
	assert_false(policy_git_hook_name_ok(".sample"));
	assert_false(policy_git_hook_name_ok("pre-commit"));
	assert_false(policy_git_hook_name_ok("pre-commit.sample.x"));
}

static void test_git_sensitive_paths(void **state)
{
	(void)state;
	assert_true(policy_git_sensitive(".git/config"));
	assert_true(policy_git_sensitive("config"));
	assert_true(policy_git_sensitive("a/b/HEAD"));
	assert_true(policy_git_sensitive("x/hooks"));
	assert_true(policy_git_sensitive("x/hooks/pre-commit"));
	assert_true(policy_git_sensitive("hooks/pre-commit"));
	assert_false(policy_git_sensitive("src/hooks.ts"));
	assert_false(policy_git_sensitive("x/myhooks/a"));
	assert_false(policy_git_sensitive("x/hooks/a/b"));
	assert_false(policy_git_sensitive(".git/config.lock"));
	assert_false(policy_git_sensitive("README"));
	assert_true(policy_git_in_hooks(".git/hooks/x"));
	assert_true(policy_git_in_hooks("hooks/x"));
	assert_false(policy_git_in_hooks("hooks"));
	assert_false(policy_git_in_hooks("xhooks/x"));
}

/* ---- what stands in a git directory ---- */

static void test_gitconfig_file_regular_single_small_is_allowed(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_gitconfig_open(0, &why), 0);
	assert_int_equal(
	    policy_check_gitconfig_file(S_IFREG | 0644, 1, 92, &why), 0);
	assert_int_equal(policy_check_gitconfig_file(
			     S_IFREG | 0600, 1, POLICY_GITCONFIG_MAX, &why),
			 0);
	assert_int_equal(why.code, 0);
}

static void test_gitconfig_file_refusals_name_what_is_wrong(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_gitconfig_open(ELOOP, &why), -EACCES);
	assert_string_equal(why.msg,
			    "a git directory's config may not be a symlink");
	assert_int_equal(policy_check_gitconfig_open(EACCES, &why), -EACCES);
	assert_string_equal(why.msg, "a git directory's config must be a "
				     "readable regular file");
	assert_int_equal(
	    policy_check_gitconfig_file(S_IFIFO | 0644, 1, 0, &why), -EACCES);
	assert_string_equal(why.msg,
			    "a git directory's config must be a regular file");
	assert_int_equal(
	    policy_check_gitconfig_file(S_IFREG | 0644, 2, 9, &why), -EACCES);
	assert_string_equal(why.msg, "a git directory's config may not have a "
				     "second name (a hard link writes it)");
	assert_int_equal(policy_check_gitconfig_file(
			     S_IFREG | 0644, 1, POLICY_GITCONFIG_MAX + 1, &why),
			 -EACCES);
	assert_string_equal(why.msg, "a git directory's config may not be "
				     "larger than 1048576 bytes");
}

static void test_git_new_config_only_by_renaming_a_file(void **s)
{
	static const char text[] = "a git directory's config is only replaced "
				   "by renaming a checked file onto it, as git "
				   "does";
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_git_new_config(true, S_IFREG, &why), 0);
	assert_int_equal(why.code, 0);
	assert_int_equal(policy_check_git_new_config(false, S_IFREG, &why),
			 -EACCES);
	assert_string_equal(why.msg, text);
	assert_int_equal(policy_check_git_new_config(true, S_IFLNK, &why),
			 -EACCES);
	assert_int_equal(policy_check_git_new_config(true, S_IFDIR, NULL),
			 -EACCES);
	assert_int_equal(policy_check_git_new_config(false, 0, NULL), -EACCES);
}

static void test_git_hooks_real_directory_of_samples(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_git_hooks(S_IFDIR, &why), 0);
	assert_int_equal(policy_check_git_hooks(S_IFREG, &why), 0);
	assert_int_equal(policy_check_git_hooks_dir(0, &why), 0);
	assert_int_equal(policy_check_git_hook("pre-commit.sample", true, &why),
			 0);
	assert_int_equal(
	    policy_check_git_hook("post-update.sample", false, &why), 0);
	assert_int_equal(why.code, 0);
}

static void test_git_hooks_refusals_name_what_is_wrong(void **s)
{
	struct gfs_err why = { 0 };

	(void)s;
	assert_int_equal(policy_check_git_hooks(S_IFLNK, &why), -EACCES);
	assert_string_equal(why.msg,
			    "a git directory's hooks may not be a symlink");
	assert_int_equal(policy_check_git_hooks_dir(ENOTDIR, &why), -EACCES);
	assert_string_equal(why.msg,
			    "a git directory's hooks must be a real directory");
	assert_int_equal(policy_check_git_hook("pre-commit", true, &why),
			 -EACCES);
	assert_string_equal(why.msg, "git would run this hook on the host; a "
				     "git directory's hooks may hold only "
				     "*.sample files");
	assert_int_equal(policy_check_git_hook("post-checkout", false, &why),
			 -EACCES);
	assert_string_equal(why.msg, "hooks/ holds a name git would run on "
				     "the host; a git directory's hooks may "
				     "hold only *.sample files");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gitconfig_allows_what_git_init_writes),
		cmocka_unit_test(test_gitconfig_refuses_fsmonitor_spellings),
		cmocka_unit_test(test_gitconfig_names_the_line),
		cmocka_unit_test(test_gitconfig_refuses_every_core_program),
		cmocka_unit_test(test_gitconfig_refuses_aliases),
		cmocka_unit_test(
		    test_gitconfig_refuses_sections_with_subsections),
		cmocka_unit_test(test_gitconfig_refuses_includes),
		cmocka_unit_test(test_gitconfig_old_subsection_spelling),
		cmocka_unit_test(test_gitconfig_subsection_quoting),
		cmocka_unit_test(test_gitconfig_continuation_lines),
		cmocka_unit_test(test_gitconfig_submodule_update),
		cmocka_unit_test(test_gitconfig_refuses_what_git_cannot_read),
		cmocka_unit_test(test_gitconfig_long_names_are_refused),
		cmocka_unit_test(test_gitconfig_long_values_still_read),
		cmocka_unit_test(test_git_name_kinds),
		cmocka_unit_test(test_git_sensitive_paths),
		cmocka_unit_test(
		    test_gitconfig_file_regular_single_small_is_allowed),
		cmocka_unit_test(
		    test_gitconfig_file_refusals_name_what_is_wrong),
		cmocka_unit_test(test_git_new_config_only_by_renaming_a_file),
		cmocka_unit_test(test_git_hooks_real_directory_of_samples),
		cmocka_unit_test(test_git_hooks_refusals_name_what_is_wrong),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
