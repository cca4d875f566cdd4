/*
 * The backend tables (fs/backend.h): every kind has the entries the FUSE
 * callbacks call without asking, a kind without mknod, symlink or link
 * has the refusal that answers for them, and each node goes to its
 * kind's table. A table missing one would crash the daemon at its first
 * such request; here it fails in milliseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fs/backend.h"

static const struct backend *const kinds[] = {
	&vdir_backend,
	&pass_backend,
	&stgtree_backend,
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Entries backend.c calls with no fallback: required of every kind. */
static void test_backend_every_kind_has_the_required_entries(void **s)
{
	size_t i;

	(void)s;
	for (i = 0; i < NKINDS; i++) {
		const struct backend *b = kinds[i];

		assert_non_null(b->name);
		assert_non_null(b->lookup);
		assert_non_null(b->getattr);
		assert_non_null(b->setattr);
		assert_non_null(b->mkdir);
		assert_non_null(b->remove);
		assert_non_null(b->rename);
		assert_non_null(b->open);
		assert_non_null(b->create);
		assert_non_null(b->read);
		assert_non_null(b->write_buf);
		assert_non_null(b->flush);
		assert_non_null(b->release);
		assert_non_null(b->fsync);
		assert_non_null(b->opendir);
		assert_non_null(b->readdir);
		assert_non_null(b->releasedir);
		assert_non_null(b->fsyncdir);
		assert_non_null(b->getxattr);
	}
}

static void test_backend_a_kind_that_makes_no_names_refuses_them(void **s)
{
	size_t i;

	(void)s;
	for (i = 0; i < NKINDS; i++) {
		const struct backend *b = kinds[i];

		if (!b->mknod || !b->symlink || !b->link)
			assert_non_null(b->refuse);
	}
}

/* What the staged tree cannot do is a missing entry, so backend.c
   answers it as backend.h documents. */
static void
test_backend_the_staged_tree_leaves_out_what_git_cannot_hold(void **s)
{
	const struct backend *b = &stgtree_backend;

	(void)s;
	assert_null(b->mknod);
	assert_null(b->symlink);
	assert_null(b->link);
	assert_null(b->readlink);
	assert_null(b->fallocate);
	assert_null(b->lseek);
	assert_null(b->copy_file_range);
	assert_null(b->setxattr);
	assert_null(b->removexattr);
}

/* Names in a virtual directory's underlay are the passthrough's: a
   rename or link between the two is one request, not two kinds. */
static void
test_backend_virtual_directories_share_the_passthrough_names(void **s)
{
	(void)s;
	assert_ptr_equal(vdir_backend.rename, pass_backend.rename);
	assert_ptr_equal(vdir_backend.link, pass_backend.link);
	assert_ptr_equal(vdir_backend.copy_file_range,
			 pass_backend.copy_file_range);
	assert_ptr_not_equal(vdir_backend.lookup, pass_backend.lookup);
	assert_ptr_not_equal(stgtree_backend.rename, pass_backend.rename);
}

static void test_backend_of_each_node_is_its_kind(void **s)
{
	struct policy_zone plain = { .kind = ZONE_PLAIN };
	struct policy_zone staged = { .kind = ZONE_STAGED };
	struct node root = { .type = NODE_VDIR };
	struct node top = { .type = NODE_VDIR, .zone = &plain };
	struct node stop = { .type = NODE_VDIR, .zone = &staged };
	struct node file = { .type = NODE_PASS, .zone = &plain };
	struct node sfile = { .type = NODE_STG, .zone = &staged };

	(void)s;
	assert_ptr_equal(backend_of(&root), &vdir_backend);
	assert_ptr_equal(backend_of(&top), &vdir_backend);
	assert_ptr_equal(backend_of(&stop), &stgtree_backend);
	assert_ptr_equal(backend_of(&file), &pass_backend);
	assert_ptr_equal(backend_of(&sfile), &stgtree_backend);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_backend_every_kind_has_the_required_entries),
		cmocka_unit_test(
		    test_backend_a_kind_that_makes_no_names_refuses_them),
		cmocka_unit_test(
		    test_backend_the_staged_tree_leaves_out_what_git_cannot_hold),
		cmocka_unit_test(
		    test_backend_virtual_directories_share_the_passthrough_names),
		cmocka_unit_test(test_backend_of_each_node_is_its_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
