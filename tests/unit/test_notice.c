/*
 * Refusal notices (fs/notice.c) on the program's stderr: a reader that
 * does not read never holds up the daemon; what could not be said is
 * summed up once there is room.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fs/notice.h"

static void on_alarm(int sig)
{
	(void)sig;
	_exit(99); /* blocked: the test fails */
}

/* A pipe whose buffer is full, the write end blocking again. */
static void full_pipe(int p[2])
{
	char buf[4096] = { 0 };
	int fl;

	assert_int_equal(pipe(p), 0);
	fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	assert_int_equal(errno, EAGAIN);
	fcntl(p[1], F_SETFL, fl);
}

static void test_notice_never_blocks_on_a_full_pipe(void **state)
{
	char buf[65536];
	ssize_t n, got = 0;
	int p[2];

	(void)state;
	full_pipe(p);
	signal(SIGALRM, on_alarm);
	alarm(5);
	notice_start(p[1]);
	notice_refusal("write", "/ro/a", EROFS, "/ro is read-only");
	notice_refusal("write", "/ro/b", EROFS, "/ro is read-only");
	alarm(0);
	/* room again: the summary says what was not shown */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (read(p[0], buf, sizeof(buf)) > 0)
		;
	notice_stop();
	n = read(p[0], buf, sizeof(buf) - 1);
	if (n > 0)
		got = n;
	buf[got] = '\0';
	assert_non_null(strstr(buf, "2 more refusals not shown"));
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notice_never_blocks_on_a_full_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
