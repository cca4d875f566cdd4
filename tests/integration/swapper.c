/*
 * swapper DIR A B SECONDS - atomically exchange names A and B in DIR
 * (renameat2 RENAME_EXCHANGE) for SECONDS, or until SIGTERM: the backing
 * tree changing under the daemon, for the escape test. It always ends with
 * the names back in place. It alternates bursts of rapid swaps
 * (20 ms) with pauses (20 ms) in the original state, so readers on a
 * loaded machine meet both the race and quiet windows.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	double end, burst;
	long n = 0;
	int dfd;

	if (argc != 5)
		return 2;
	dfd = open(argv[1], O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return 1;
	signal(SIGTERM, on_term);
	end = now() + atoi(argv[4]);
	while (now() < end && !stop) {
		for (burst = now() + 0.02; now() < burst && !stop;) {
			if (renameat2(dfd, argv[2], dfd, argv[3],
				      RENAME_EXCHANGE) == 0)
				n++;
			usleep(50);
		}
		/* back to the original state, then a quiet window */
		if (n % 2 &&
		    renameat2(dfd, argv[2], dfd, argv[3], RENAME_EXCHANGE) == 0)
			n++;
		usleep(20000);
	}
	printf("%ld swaps\n", n);
	return n > 0 ? 0 : 1;
}
