// SPDX-License-Identifier: GPL-2.0
/*
 * qp-hold: hold N connected, idle RC QPs over rdma_cm, for
 * `make bench-scale` (the kernel memory a connected QP costs).
 *
 * Usage:
 *   qp-hold -s ADDR [-p PORT] [-n N] [-w WR] [-t SECS]
 *           accept N connections on ADDR (rdma_bind_addr, rdma_listen)
 *   qp-hold -c ADDR [-p PORT] [-n N] [-w WR] [-t SECS] [-W WINDOW]
 *           make N connections to ADDR
 *
 * Every connection has a QP of its own (WR send and WR receive queue
 * entries, default 16, one SGE each); the QPs of the process share one
 * PD and one CQ (256 entries). No work request is posted: nothing moves.
 * The server prints "listening" once it listens. Once all N connections
 * are established (within SECS, default 600) the tool prints "held N" and
 * sleeps until SIGTERM or SIGINT; a connection the peer closes meanwhile
 * is reported as "lost I". On the signal it disconnects every connection
 * still up, waits for the disconnects (up to 60 s), destroys the QPs and
 * IDs, prints "released N" and exits 0. The client has at most WINDOW
 * (default 16) connections in setup at a time.
 *
 * Any failure, a signal before "held" included, prints one line starting
 * "qp-hold: " on stderr and exits 1; the kernel reclaims what was left.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define CQ_ENTRIES	256
#define RESOLVE_MS	5000
#define RELEASE_SECS	60

enum conn_state { CONN_NONE, CONN_SETUP, CONN_UP, CONN_DOWN };

struct conn {
	struct rdma_cm_id *id;
	enum conn_state state;
};

static struct {
	int server, n, wr, window, secs;
	const char *addr, *port;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct conn *c;
	struct sockaddr_storage dst;
	int started, up, down, held, releasing, signalled, sfd;
} g = { .n = 1, .wr = 16, .window = 16, .secs = 600, .port = "7480" };

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("qp-hold: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* errno as text, for verbs that may fail without setting it (libsiw) */
static const char *why(void)
{
	return errno ? strerror(errno) : "no reason given (errno 0)";
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: qp-hold -s ADDR | -c ADDR [-p PORT] [-n N] [-w WR] [-t SECS] [-W WINDOW]\n");
	exit(2);
}

static int number(const char *s, int min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > 1000000)
		bad_usage();
	return (int)v;
}

/* the PD and CQ of the process, on the device of the first connection */
static void verbs_for(struct ibv_context *ctx)
{
	if (!ctx)
		die("rdma_cm gave no device");
	if (g.pd) {
		if (g.pd->context != ctx)
			die("connections on two devices");
		return;
	}
	errno = 0;
	g.pd = ibv_alloc_pd(ctx);
	if (!g.pd)
		die("ibv_alloc_pd: %s", why());
	errno = 0;
	g.cq = ibv_create_cq(ctx, CQ_ENTRIES, NULL, NULL, 0);
	if (!g.cq)
		die("ibv_create_cq: %s", why());
}

static void make_qp(struct conn *c)
{
	struct ibv_qp_init_attr a = {
		.send_cq = g.cq,
		.recv_cq = g.cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = g.wr,
			.max_recv_wr = g.wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	verbs_for(c->id->verbs);
	errno = 0;
	if (rdma_create_qp(c->id, g.pd, &a))
		die("connection %d: rdma_create_qp: %s", (int)(c - g.c), why());
}

static struct rdma_conn_param conn_param(void)
{
	struct rdma_conn_param p = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	return p;
}

static void accept_one(struct rdma_cm_id *id)
{
	struct rdma_conn_param p = conn_param();
	struct conn *c;

	if (g.started >= g.n) {
		rdma_reject(id, NULL, 0);
		die("a connection request beyond the %d expected", g.n);
	}
	c = &g.c[g.started++];
	c->id = id;
	c->state = CONN_SETUP;
	id->context = c;
	make_qp(c);
	if (rdma_accept(id, &p))
		die("connection %d: rdma_accept: %s", (int)(c - g.c), why());
}

static void connect_one(struct conn *c)
{
	struct rdma_conn_param p = conn_param();

	make_qp(c);
	if (rdma_connect(c->id, &p))
		die("connection %d: rdma_connect: %s", (int)(c - g.c), why());
}

static void start_one(void)
{
	struct conn *c = &g.c[g.started];

	if (rdma_create_id(g.ch, &c->id, c, RDMA_PS_TCP))
		die("connection %d: rdma_create_id: %s", g.started, why());
	c->state = CONN_SETUP;
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&g.dst,
			      RESOLVE_MS))
		die("connection %d: rdma_resolve_addr: %s", g.started, why());
	g.started++;
}

static void on_down(struct conn *c)
{
	int i;

	if (!c)
		die("a disconnect on the listening ID");
	i = (int)(c - g.c);
	if (c->state != CONN_UP)
		die("connection %d: disconnected before it was established", i);
	c->state = CONN_DOWN;
	g.down++;
	if (!g.held)
		die("connection %d: disconnected while the others connect", i);
	if (!g.releasing)
		printf("lost %d\n", i);
}

static void on_event(struct rdma_cm_event *ev)
{
	struct conn *c = ev->id->context;
	int i = c ? (int)(c - g.c) : -1;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(ev->id, RESOLVE_MS))
			die("connection %d: rdma_resolve_route: %s", i, why());
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		connect_one(c);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		accept_one(ev->id);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!c || c->state != CONN_SETUP)
			die("connection %d: established twice", i);
		c->state = CONN_UP;
		g.up++;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		on_down(c);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		die("connection %d: %s (status %d)", i,
		    rdma_event_str(ev->event), ev->status);
	}
}

/* Wait up to MS (-1: for ever) for a CM event or a signal; handle both. */
static void wait_event(int ms)
{
	struct pollfd p[2] = {
		{ .fd = g.ch->fd, .events = POLLIN },
		{ .fd = g.sfd, .events = POLLIN },
	};
	struct signalfd_siginfo si;
	struct rdma_cm_event *ev;
	int r = poll(p, 2, ms);

	if (r < 0 && errno != EINTR)
		die("poll: %s", strerror(errno));
	if (r <= 0)
		return;
	if (p[1].revents & POLLIN) {
		if (read(g.sfd, &si, sizeof(si)) != sizeof(si))
			die("signalfd: %s", strerror(errno));
		g.signalled = 1;
	}
	if (p[0].revents & POLLIN) {
		if (rdma_get_cm_event(g.ch, &ev))
			die("rdma_get_cm_event: %s", why());
		on_event(ev);
		rdma_ack_cm_event(ev);
	}
}

static int ms_until(double deadline)
{
	double left = deadline - now();

	return left > 0 ? (int)(left * 1000) + 1 : 0;
}

static void listen_on(struct addrinfo *ai)
{
	if (rdma_create_id(g.ch, &g.listen, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", why());
	if (rdma_bind_addr(g.listen, ai->ai_addr))
		die("rdma_bind_addr %s: %s", g.addr, why());
	if (rdma_listen(g.listen, 128))
		die("rdma_listen: %s", why());
	printf("listening\n");
}

static void establish(void)
{
	double deadline = now() + g.secs;

	while (g.up < g.n) {
		while (!g.server && g.started < g.n &&
		       g.started - g.up < g.window)
			start_one();
		wait_event(ms_until(deadline));
		if (g.signalled)
			die("signalled with %d of %d connected", g.up, g.n);
		if (g.up < g.n && now() >= deadline)
			die("%d of %d connected after %d s", g.up, g.n, g.secs);
	}
	g.held = 1;
	printf("held %d\n", g.n);
}

static void release(void)
{
	double deadline = now() + RELEASE_SECS;
	int i;

	g.releasing = 1;
	for (i = 0; i < g.started; i++)
		if (g.c[i].state == CONN_UP && rdma_disconnect(g.c[i].id))
			die("connection %d: rdma_disconnect: %s", i, why());
	while (g.down < g.up) {
		if (now() >= deadline)
			die("%d of %d connections not disconnected after %d s",
			    g.up - g.down, g.up, RELEASE_SECS);
		wait_event(ms_until(deadline));
	}
	for (i = 0; i < g.started; i++) {
		rdma_destroy_qp(g.c[i].id);
		if (rdma_destroy_id(g.c[i].id))
			die("connection %d: rdma_destroy_id: %s", i, why());
	}
	if (ibv_destroy_cq(g.cq))
		die("ibv_destroy_cq: %s", why());
	if (ibv_dealloc_pd(g.pd))
		die("ibv_dealloc_pd: %s", why());
	if (g.listen && rdma_destroy_id(g.listen))
		die("rdma_destroy_id (listen): %s", why());
	rdma_destroy_event_channel(g.ch);
	printf("released %d\n", g.n);
}

static struct addrinfo *resolve(void)
{
	struct addrinfo hints = {
		.ai_family = AF_INET,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = g.server ? AI_PASSIVE : 0,
	}, *ai;
	int err = getaddrinfo(g.addr, g.port, &hints, &ai);

	if (err)
		die("%s port %s: %s", g.addr, g.port, gai_strerror(err));
	return ai;
}

int main(int argc, char **argv)
{
	struct addrinfo *ai;
	sigset_t sigs;
	int op;

	while ((op = getopt(argc, argv, "s:c:p:n:w:t:W:")) != -1) {
		switch (op) {
		case 's':
		case 'c':
			if (g.addr)
				bad_usage();
			g.server = op == 's';
			g.addr = optarg;
			break;
		case 'p':
			g.port = optarg;
			break;
		case 'n':
			g.n = number(optarg, 1);
			break;
		case 'w':
			g.wr = number(optarg, 1);
			break;
		case 't':
			g.secs = number(optarg, 1);
			break;
		case 'W':
			g.window = number(optarg, 1);
			break;
		default:
			bad_usage();
		}
	}
	if (!g.addr || optind != argc)
		bad_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL))
		die("sigprocmask: %s", strerror(errno));
	g.sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (g.sfd < 0)
		die("signalfd: %s", strerror(errno));

	g.c = calloc(g.n, sizeof(*g.c));
	if (!g.c)
		die("out of memory for %d connections", g.n);
	g.ch = rdma_create_event_channel();
	if (!g.ch)
		die("rdma_create_event_channel: %s", why());

	ai = resolve();
	if (g.server)
		listen_on(ai);
	else
		memcpy(&g.dst, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);

	establish();
	while (!g.signalled)
		wait_event(-1);
	release();
	return 0;
}
