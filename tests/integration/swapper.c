/*
 * swapper DIR A B SECONDS - atomically exchange names A and B in DIR
 * (renameat2 RENAME_EXCHANGE) as fast as possible for SECONDS: the backing
 * tree changing under the daemon, for the escape test.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	time_t end;
	long n = 0;
	int dfd;

	if (argc != 5)
		return 2;
	dfd = open(argv[1], O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return 1;
	end = time(NULL) + atoi(argv[4]);
	while (time(NULL) < end) {
		if (renameat2(dfd, argv[2], dfd, argv[3], RENAME_EXCHANGE) == 0)
			n++;
		/* leave each state up a moment, so readers on a loaded
		   machine meet both */
		usleep(200);
	}
	printf("%ld swaps\n", n);
	return n > 0 ? 0 : 1;
}
