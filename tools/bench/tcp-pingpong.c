// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-pingpong: TCP's round trip over a link, for `make bench`.
 *
 * Usage:
 *   tcp-pingpong -s [-p PORT] [-b]             serve one client, echo
 *   tcp-pingpong -c ADDR [-p PORT] [-n N] [-m SIZE] [-b]
 *
 * The client sends SIZE octets (default 64), the server echoes them, N
 * times (default 10000, after 100 not counted). Both ends spin on a
 * non-blocking recv() unless -b is given (-b: block in recv(), as
 * qperf's tcp_lat does). The client prints the one-way latency (half a
 * round trip) in microseconds: "min MIN median MED p90 P90". Spinning
 * sockets are what a busy-polling RDMA consumer compares with: no
 * thread sleeps and wakes for a message, as none does for perftest's
 * ib_send_lat without -e.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WARMUP		100
#define MAX_SIZE	65536

static int blocking;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void print_help(FILE *f, int status)
{
	fprintf(f,
		"usage: tcp-pingpong -s [-p PORT] [-b]\n"
		"       tcp-pingpong -c ADDR [-p PORT] [-n N] [-m SIZE] [-b]\n"
		"  -s       serve one client: echo what it sends\n"
		"  -c ADDR  measure against the server at IPv4 ADDR\n"
		"  -p PORT  TCP port (default 5999)\n"
		"  -n N     round trips counted (default 10000)\n"
		"  -m SIZE  octets per message, 1 to %d (default 64)\n"
		"  -b       block in recv() instead of spinning\n"
		"The client prints the one-way latency in microseconds.\n",
		MAX_SIZE);
	exit(status);
}

/* Receive exactly @len octets; spin unless blocking */
static void recv_all(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(fd, buf + got, len - got,
				 blocking ? 0 : MSG_DONTWAIT);

		if (n > 0)
			got += n;
		else if (n == 0)
			exit(0);	/* the peer closed */
		else if (errno != EAGAIN && errno != EINTR)
			die("recv");
	}
}

static void send_all(int fd, const char *buf, size_t len)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t n = send(fd, buf + sent, len - sent, 0);

		if (n < 0 && errno != EAGAIN && errno != EINTR)
			die("send");
		if (n > 0)
			sent += n;
	}
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

static void serve(struct sockaddr_in *a, char *buf, size_t len)
{
	int one = 1, l, fd;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)a, sizeof(*a)) || listen(l, 1))
		die("bind/listen");
	fd = accept(l, NULL, NULL);
	if (fd < 0)
		die("accept");
	nodelay(fd);
	recv_all(fd, buf, sizeof(int));	/* the client's message size */
	memcpy(&one, buf, sizeof(int));
	if (one < 1 || one > MAX_SIZE)
		print_help(stderr, 2);
	len = one;
	for (;;) {
		recv_all(fd, buf, len);
		send_all(fd, buf, len);
	}
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void measure(struct sockaddr_in *a, char *buf, int len, long n)
{
	double *t = calloc(n, sizeof(*t)), start;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	long i;

	if (!t || fd < 0)
		die("setup");
	if (connect(fd, (struct sockaddr *)a, sizeof(*a)))
		die("connect");
	nodelay(fd);
	send_all(fd, (const char *)&len, sizeof(len));
	for (i = -WARMUP; i < n; i++) {
		start = now_us();
		send_all(fd, buf, len);
		recv_all(fd, buf, len);
		if (i >= 0)
			t[i] = (now_us() - start) / 2;
	}
	qsort(t, n, sizeof(*t), cmp_double);
	printf("tcp-pingpong %s %d B one-way usec: min %.2f median %.2f p90 %.2f\n",
	       blocking ? "blocking" : "spinning", len, t[0], t[n / 2],
	       t[n * 9 / 10]);
	free(t);
	close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	static char buf[MAX_SIZE];
	int opt, server = 0, port = 5999, len = 64;
	const char *addr = NULL;
	long n = 10000;

	while ((opt = getopt(argc, argv, "sc:p:n:m:bh")) != -1) {
		switch (opt) {
		case 's':
			server = 1;
			break;
		case 'c':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 'm':
			len = atoi(optarg);
			break;
		case 'b':
			blocking = 1;
			break;
		case 'h':
			print_help(stdout, 0);
			break;
		default:
			print_help(stderr, 2);
		}
	}
	if (server == !!addr || n < 1 || len < 1 || len > MAX_SIZE ||
	    port < 1 || port > 65535)
		print_help(stderr, 2);
	a.sin_port = htons(port);
	if (server)
		serve(&a, buf, len);
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		print_help(stderr, 2);
	measure(&a, buf, len, n);
	return 0;
}
