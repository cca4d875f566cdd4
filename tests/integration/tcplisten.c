/*
 * tcplisten: listen on 127.0.0.1 (a free port), print the port, then
 * answer each connection with "ok\n" until killed. For the network tests
 * of `golemfs run`.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), c;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(s, 8) < 0 || getsockname(s, (struct sockaddr *)&a, &len)) {
		perror("tcplisten");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	while ((c = accept(s, NULL, NULL)) >= 0) {
		if (write(c, "ok\n", 3) != 3)
			perror("tcplisten: write");
		close(c);
	}
	return 0;
}
