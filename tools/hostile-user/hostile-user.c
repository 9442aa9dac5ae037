// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-user: attack a softiwarp device from user space, as an
 * unprivileged local user could, through libibverbs, librdmacm and the
 * shared rings of the siw user ABI. Each case has its expected outcome and
 * prints one verdict line:
 *
 *	hostile-user: CASE: pass|fail: reason
 *
 * Lines "hostile-user: CASE: check: ..." before it say what each step saw.
 * The exit status is 1 when anything failed, 2 on a usage error.
 *
 * Every case has a server side (-s, in one network namespace) and a client
 * side (-c, in the other); tools/e2e/19-hostile-user.sh runs them. The
 * server of every case but modify-accept-race is the same "sink": it
 * accepts any number of connections, gives each a 64 KiB region filled
 * with 0xa5 for RDMA Read and Write (its address and STag in the private
 * data of the MPA Reply), keeps receives posted, answers a SEND starting
 * "ECHO" with the same message and one starting "GO8K" with 8 KiB, and
 * runs until SIGTERM (then passes) or its time limit.
 *
 * E2E_SLOW in the environment (tools/e2e/lib.sh) multiplies every time
 * limit and divides the round counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/siw-abi.h>

#include "hostile-user.h"

struct opts o = {
	.port = "7290", .dir = NULL, .rounds = 0, .limit = 240,
	.index_max = 64,
};

double slow = 1.0;
static int failures;
static atomic_int terminated;	/* set by SIGTERM, SIGINT */

/* --- output ----------------------------------------------------------- */

void verdict(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("hostile-user: %s: %s: ", o.cname, ok ? "pass" : "fail");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

/* check: a line per step; bad ones count as failures and say "BAD" */
bool expect(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("hostile-user: %s: check: %s: ", o.cname, ok ? "ok" : "BAD");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
	return ok;
}

void say(const char *fmt, ...)
{
	va_list ap;

	printf("hostile-user: %s: note: ", o.cname);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double tmo(double secs)
{
	return secs * slow;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static const char *evname(int e)
{
	return rdma_event_str(e);
}

/* --- connection manager ------------------------------------------------- */

struct cm_ev {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	struct pdata pd;
	bool has_pd;
};

/* next event on @ec within @secs (not scaled; <= 0: none waiting): 0, or -1 */
static int cm_next(struct rdma_event_channel *ec, struct cm_ev *ev, double secs)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *e;
	int ms = secs < 0 ? 0 : (int)(secs * 1000);
	const void *p;
	int n;

	memset(ev, 0, sizeof(*ev));
	n = poll(&pfd, 1, ms);
	if (n <= 0)
		return -1;
	if (rdma_get_cm_event(ec, &e))
		return -1;
	ev->type = e->event;
	ev->status = e->status;
	ev->id = e->id;
	ev->listen_id = e->listen_id;
	p = e->param.conn.private_data;
	if ((e->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	     e->event == RDMA_CM_EVENT_ESTABLISHED) && p &&
	    e->param.conn.private_data_len >= sizeof(struct pdata)) {
		memcpy(&ev->pd, p, sizeof(ev->pd));
		ev->has_pd = ev->pd.magic == PD_MAGIC;
	}
	rdma_ack_cm_event(e);
	return 0;
}

/* wait for @want on @ec; anything else is returned as it came */
static int cm_wait(struct rdma_event_channel *ec, enum rdma_cm_event_type want,
		   struct cm_ev *ev, double secs)
{
	if (cm_next(ec, ev, tmo(secs))) {
		say("no %s within %.0f s", evname(want), tmo(secs));
		return -1;
	}
	if (ev->type != want) {
		say("wanted %s, got %s (status %d)", evname(want),
		    evname(ev->type), ev->status);
		return -1;
	}
	return 0;
}

static int resolve(struct rdma_cm_id *id, struct rdma_event_channel *ec,
		   const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct cm_ev ev;
	int rc;

	rc = getaddrinfo(addr, port, &hints, &ai);
	if (rc) {
		say("getaddrinfo %s: %s", addr, gai_strerror(rc));
		return -1;
	}
	rc = rdma_resolve_addr(id, NULL, ai->ai_addr, (int)tmo(5000));
	freeaddrinfo(ai);
	if (rc) {
		say("rdma_resolve_addr: %s", strerror(errno));
		return -1;
	}
	if (cm_wait(ec, RDMA_CM_EVENT_ADDR_RESOLVED, &ev, 10))
		return -1;
	if (rdma_resolve_route(id, (int)tmo(5000))) {
		say("rdma_resolve_route: %s", strerror(errno));
		return -1;
	}
	return cm_wait(ec, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev, 10);
}

static int cm_listen(struct rdma_event_channel **ecp, struct rdma_cm_id **idp,
		     const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *ai;
	int rc;

	*ecp = rdma_create_event_channel();
	if (!*ecp || rdma_create_id(*ecp, idp, NULL, RDMA_PS_TCP)) {
		say("rdma_create_id: %s", strerror(errno));
		return -1;
	}
	rc = getaddrinfo(addr, port, &hints, &ai);
	if (rc) {
		say("getaddrinfo %s: %s", addr, gai_strerror(rc));
		return -1;
	}
	rc = rdma_bind_addr(*idp, ai->ai_addr);
	freeaddrinfo(ai);
	if (rc || rdma_listen(*idp, 16)) {
		say("bind/listen %s:%s: %s", addr, port, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- resources of one connection ---------------------------------------- */

const struct qp_want qp_default = { 64, NSLOTS + 8, 2, 2, 0, NSLOTS };

static void *page_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, PAGE, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

/* PD, CQ, QP on @c->id and the two regions; 0 or -1 */
static int conn_res(struct conn *c, const struct qp_want *w)
{
	struct ibv_qp_init_attr qa = {};
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_WRITE;

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd) {
		say("ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	c->cq = ibv_create_cq(c->id->verbs, 4 * (w->send_wr + w->recv_wr),
			      NULL, NULL, 0);
	if (!c->cq) {
		say("ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = w->send_wr;
	qa.cap.max_recv_wr = w->recv_wr;
	qa.cap.max_send_sge = w->send_sge;
	qa.cap.max_recv_sge = w->recv_sge;
	qa.cap.max_inline_data = w->inline_data;
	if (rdma_create_qp(c->id, c->pd, &qa)) {
		say("rdma_create_qp: %s", strerror(errno));
		return -1;
	}
	c->qp = c->id->qp;
	c->cap = qa.cap;
	c->buflen = NSLOTS * SLOT_LEN + GO_LEN;
	c->buf = page_alloc(c->buflen);
	c->rbuf = page_alloc(RMR_LEN);
	if (!c->buf || !c->rbuf)
		return -1;
	memset(c->buf + NSLOTS * SLOT_LEN, 0xa5, GO_LEN);
	memset(c->rbuf, 0xa5, RMR_LEN);
	c->mr = ibv_reg_mr(c->pd, c->buf, c->buflen, IBV_ACCESS_LOCAL_WRITE);
	c->rmr = ibv_reg_mr(c->pd, c->rbuf, RMR_LEN, acc);
	if (!c->mr || !c->rmr) {
		say("ibv_reg_mr: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static struct pdata conn_pdata(struct conn *c)
{
	struct pdata p = {
		.magic = PD_MAGIC, .rkey = c->rmr->rkey,
		.addr = (uintptr_t)c->rbuf, .len = RMR_LEN,
		.qpn = c->qp ? c->qp->qp_num : 0,
	};
	return p;
}

int post_recv_slot(struct conn *c, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + slot * SLOT_LEN),
		.length = SLOT_LEN, .lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WRID(WR_RECV, slot),
				  .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

int post_send(struct conn *c, uint64_t id, void *addr, uint32_t len,
	      uint32_t lkey, int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | flags },
			   *bad;

	return ibv_post_send(c->qp, &wr, &bad);
}

int post_rdma(struct conn *c, enum ibv_wr_opcode op, uint64_t id,
	      void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
	      uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(c->qp, &wr, &bad);
}

static void conn_free(struct conn *c)
{
	if (c->id && c->qp)
		rdma_destroy_qp(c->id);
	c->qp = NULL;
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->buf);
	free(c->rbuf);
	memset(c, 0, sizeof(*c));
}

/* a client connection to o.addr:o.port, with its own event channel */
int client_connect(struct conn *c, const struct qp_want *w,
		   struct rdma_conn_param *param)
{
	struct rdma_conn_param def = { .responder_resources = 8,
				       .initiator_depth = 8, .retry_count = 7,
				       .rnr_retry_count = 7 };
	struct pdata my;
	struct cm_ev ev;

	memset(c, 0, sizeof(*c));
	c->ec = rdma_create_event_channel();
	if (!c->ec || rdma_create_id(c->ec, &c->id, NULL, RDMA_PS_TCP)) {
		say("rdma_create_id: %s", strerror(errno));
		return -1;
	}
	if (resolve(c->id, c->ec, o.addr, o.port) || conn_res(c, w))
		return -1;
	for (int i = 0; i < w->prepost; i++)
		if (post_recv_slot(c, i)) {
			say("ibv_post_recv: %s", strerror(errno));
			return -1;
		}
	if (!param)
		param = &def;
	my = conn_pdata(c);
	param->private_data = &my;
	param->private_data_len = sizeof(my);
	if (rdma_connect(c->id, param)) {
		say("rdma_connect: %s", strerror(errno));
		return -1;
	}
	if (cm_wait(c->ec, RDMA_CM_EVENT_ESTABLISHED, &ev, 20))
		return -1;
	if (!ev.has_pd) {
		say("no private data from the server");
		return -1;
	}
	c->peer = ev.pd;
	c->established = true;
	return 0;
}

/* disconnect (when connected), wait a little for DISCONNECTED, free */
void client_close(struct conn *c)
{
	struct rdma_event_channel *ec = c->ec;
	struct cm_ev ev;

	if (c->established && c->id) {
		rdma_disconnect(c->id);
		while (!cm_next(ec, &ev, tmo(5)))
			if (ev.type == RDMA_CM_EVENT_DISCONNECTED)
				break;
	}
	conn_free(c);
	if (ec)
		rdma_destroy_event_channel(ec);
}

/* one completion within @secs (scaled): 1, 0 on a timeout, -1 on error */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now() + tmo(secs);
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
		usleep(200);
	} while (now() < end);
	return 0;
}

/* a completion of @kind; others are counted in @other */
static int poll_kind(struct ibv_cq *cq, unsigned int kind, struct ibv_wc *wc,
		     double secs, int *other)
{
	double end = now() + tmo(secs);

	while (now() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return -1;
		if (n == 0) {
			usleep(200);
			continue;
		}
		if (WRKIND(wc->wr_id) == kind)
			return 1;
		if (other)
			(*other)++;
	}
	return 0;
}

static bool status_valid(enum ibv_wc_status s)
{
	return (unsigned int)s <= IBV_WC_GENERAL_ERR;
}

/* --- the sink server ------------------------------------------------------ */

#define SINK_CONNS 16

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&terminated, 1);
}

static void sink_answer(struct conn *c, struct ibv_wc *wc)
{
	unsigned int slot = WRN(wc->wr_id);
	char *p = c->buf + slot * SLOT_LEN;
	int rc = 0;

	if (wc->byte_len >= 4 && !memcmp(p, "ECHO", 4)) {
		rc = post_send(c, WRID(WR_ECHO, slot), p, wc->byte_len,
			       c->mr->lkey, 0);
		if (!rc)
			return;	/* reposted when the echo completes */
	} else if (wc->byte_len >= 4 && !memcmp(p, "GO8K", 4)) {
		rc = post_send(c, WRID(WR_GO, slot), c->buf + NSLOTS * SLOT_LEN,
			       GO_LEN, c->mr->lkey, 0);
	}
	if (rc)
		c->dead = true;
	else if (post_recv_slot(c, slot))
		c->dead = true;
}

static int sink_server(void)
{
	struct rdma_event_channel *ec;
	struct rdma_cm_id *lid;
	struct conn *cs = calloc(SINK_CONNS, sizeof(*cs));
	unsigned long conns = 0, msgs = 0, errs = 0;
	double end = now() + o.limit;
	struct cm_ev ev;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (!cs || cm_listen(&ec, &lid, o.addr, o.port)) {
		verdict(false, "sink: cannot listen on %s:%s", o.addr, o.port);
		return 1;
	}
	say("sink listening on %s:%s", o.addr, o.port);
	while (!atomic_load(&terminated) && now() < end) {
		bool busy = false;
		int i;

		while (!cm_next(ec, &ev, 0)) {
			struct conn *c = NULL;

			busy = true;
			for (i = 0; i < SINK_CONNS; i++)
				if (cs[i].id && cs[i].id == ev.id)
					c = &cs[i];
			switch (ev.type) {
			case RDMA_CM_EVENT_CONNECT_REQUEST: {
				struct rdma_conn_param p = {
					.responder_resources = 8,
					.initiator_depth = 8,
				};
				struct pdata my;

				for (i = 0; i < SINK_CONNS; i++)
					if (!cs[i].id)
						break;
				if (i == SINK_CONNS) {
					rdma_reject(ev.id, NULL, 0);
					rdma_destroy_id(ev.id);
					break;
				}
				c = &cs[i];
				c->id = ev.id;
				if (conn_res(c, &qp_default)) {
					rdma_reject(ev.id, NULL, 0);
					conn_free(c);
					break;
				}
				for (int s = 0; s < NSLOTS; s++)
					post_recv_slot(c, s);
				my = conn_pdata(c);
				p.private_data = &my;
				p.private_data_len = sizeof(my);
				if (rdma_accept(c->id, &p))
					conn_free(c);
				break;
			}
			case RDMA_CM_EVENT_ESTABLISHED:
				if (c) {
					c->established = true;
					conns++;
				}
				break;
			case RDMA_CM_EVENT_DISCONNECTED:
			case RDMA_CM_EVENT_CONNECT_ERROR:
			case RDMA_CM_EVENT_UNREACHABLE:
			case RDMA_CM_EVENT_REJECTED:
				if (c) {
					if (ev.type == RDMA_CM_EVENT_DISCONNECTED)
						rdma_disconnect(c->id);
					conn_free(c);
				}
				break;
			default:
				break;
			}
		}
		for (i = 0; i < SINK_CONNS; i++) {
			struct conn *c = &cs[i];
			struct ibv_wc wc[16];
			int n, k;

			if (!c->qp)
				continue;
			n = ibv_poll_cq(c->cq, 16, wc);
			busy |= n > 0;
			for (k = 0; k < n; k++) {
				unsigned int kind = WRKIND(wc[k].wr_id);

				if (wc[k].status != IBV_WC_SUCCESS) {
					errs++;
					c->dead = true;
					continue;
				}
				if (kind == WR_RECV) {
					msgs++;
					if (!c->dead)
						sink_answer(c, &wc[k]);
				} else if (kind == WR_ECHO && !c->dead) {
					if (post_recv_slot(c, WRN(wc[k].wr_id)))
						c->dead = true;
				}
			}
		}
		if (!busy)
			usleep(100);
	}
	for (int i = 0; i < SINK_CONNS; i++)
		if (cs[i].id) {
			rdma_disconnect(cs[i].id);
			conn_free(&cs[i]);
		}
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ec);
	free(cs);
	if (!atomic_load(&terminated)) {
		verdict(false, "sink: not stopped within its %d s", o.limit);
		return 1;
	}
	verdict(true, "sink served %lu connections, %lu messages, %lu error completions",
		conns, msgs, errs);
	return 0;
}

/* --- dereg-reuse-read, dereg-reuse-send ------------------------------------ */

struct zfile {
	int fd;
	char path[256];
	void *map;
};

/* a file of one page of zeros, mapped read-only and shared */
static int zfile_open(struct zfile *z)
{
	const char *dir = o.dir ? o.dir : getenv("TMPDIR");

	snprintf(z->path, sizeof(z->path), "%s/hostile-user-XXXXXX",
		 dir ? dir : "/tmp");
	z->fd = mkstemp(z->path);
	if (z->fd < 0 || ftruncate(z->fd, PAGE)) {
		say("file in %s: %s", dir ? dir : "/tmp", strerror(errno));
		return -1;
	}
	z->map = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, z->fd, 0);
	if (z->map == MAP_FAILED) {
		say("mmap: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* nonzero octets in the file, read back with pread(2); -1 on error */
static long zfile_dirty(struct zfile *z)
{
	unsigned char b[PAGE];
	long n = 0;

	if (pread(z->fd, b, PAGE, 0) != PAGE)
		return -1;
	for (int i = 0; i < PAGE; i++)
		n += b[i] != 0;
	return n;
}

static void zfile_close(struct zfile *z)
{
	if (z->map && z->map != MAP_FAILED)
		munmap(z->map, PAGE);
	if (z->fd >= 0) {
		close(z->fd);
		unlink(z->path);
	}
}

/*
 * Register the read-only file mapping (access 0) until an MR gets STag
 * index @index; the others are kept until then, so that an allocator
 * that hands out the lowest free index moves on too. With @cq, stop
 * early when a completion arrives there (in @wc, @done set): the
 * operation ended before the index came back. Returns the MR on the
 * index (the others deregistered) or NULL; @maxidx is the largest index
 * seen, which shows whether stag_index_max is in effect.
 */
static struct ibv_mr *reuse_index(struct ibv_pd *pd, struct zfile *z,
				  uint32_t index, int *tries, uint32_t *maxidx,
				  struct ibv_cq *cq, struct ibv_wc *wc,
				  bool *done)
{
	static struct ibv_mr *held[4096];
	struct ibv_mr *hit = NULL;
	int n = 0, i;

	*maxidx = 0;
	for (*tries = 0; *tries < 4096; (*tries)++) {
		struct ibv_mr *mr;

		if (cq && ibv_poll_cq(cq, 1, wc) > 0) {
			*done = true;
			break;
		}
		mr = ibv_reg_mr(pd, z->map, PAGE, 0);
		if (!mr) {
			say("ibv_reg_mr of the read-only file (try %d): %s",
			    *tries + 1, strerror(errno));
			if (!cq || errno != ENOMEM)
				break;
			/* indexes exhausted: wait for the operation */
			if (poll_one(cq, wc, 15) > 0)
				*done = true;
			break;
		}
		if (mr->lkey >> 8 > *maxidx)
			*maxidx = mr->lkey >> 8;
		if (mr->lkey >> 8 == index) {
			hit = mr;
			(*tries)++;
			break;
		}
		held[n++] = mr;
	}
	for (i = 0; i < n; i++)
		ibv_dereg_mr(held[i]);
	return hit;
}

static int dereg_reuse_read(void)
{
	struct conn c;
	struct zfile z = { .fd = -1 };
	struct ibv_mr *a, *hit = NULL;
	struct ibv_wc wc;
	char *abuf = page_alloc(PAGE);
	uint32_t index, maxidx;
	double t0, t1;
	int tries = 0, n;
	long dirty;
	bool ok = true, done = false;

	if (!abuf || zfile_open(&z) || client_connect(&c, &qp_default, NULL)) {
		verdict(false, "setup");
		return 1;
	}
	a = ibv_reg_mr(c.pd, abuf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!a) {
		verdict(false, "ibv_reg_mr of A: %s", strerror(errno));
		return 1;
	}
	index = a->lkey >> 8;
	say("MR A lkey 0x%08x (index %u key %u)", a->lkey, index,
	    a->lkey & 0xff);
	t0 = now();
	if (post_rdma(&c, IBV_WR_RDMA_READ, WRID(WR_READ, 0), abuf, PAGE,
		      a->lkey, c.peer.addr, c.peer.rkey)) {
		verdict(false, "post RDMA Read: %s", strerror(errno));
		return 1;
	}
	/* the Read must still be outstanding, or the case proves nothing */
	n = ibv_poll_cq(c.cq, 1, &wc);
	if (n) {
		verdict(false, "the Read completed (status %d) %s",
			wc.status, "before the deregistration: no delay on the link?");
		return 1;
	}
	t1 = now();
	if (ibv_dereg_mr(a))
		ok = expect(false, "ibv_dereg_mr(A) with the Read outstanding: %s",
			    strerror(errno));
	else
		ok = expect(now() - t1 <= tmo(2),
			    "ibv_dereg_mr(A) returned after %.3f s (limit %.1f)",
			   now() - t1, tmo(2)) && ok;
	hit = reuse_index(c.pd, &z, index, &tries, &maxidx, c.cq, &wc, &done);
	if (!hit && !done) {
		verdict(false, "index %u not handed out again in %d registrations, %s %u",
			index, tries, "(stag_index_max set in debugfs?), largest seen",
			maxidx);
		return 1;
	}
	if (hit) {
		say("read-only file MR lkey 0x%08x on A's index after %d %s %.3f s after the post",
		    hit->lkey, tries, "registrations,", now() - t0);
		n = poll_one(c.cq, &wc, 15);
	} else {
		/* a kernel may keep the index while the Read holds A */
		ok = expect(maxidx <= (uint32_t)o.index_max && maxidx > 0,
			    "A's index not handed out again before the Read ended (%d registrations, largest index %u: stag_index_max in effect)",
			   tries, maxidx) && ok;
		n = 1;
	}
	if (n <= 0) {
		ok = expect(false, "no completion of the Read within %.0f s",
			    tmo(15));
	} else {
		/* unless A's index stayed A's, success would be a lie */
		ok = expect(hit ? wc.status != IBV_WC_SUCCESS :
			   status_valid(wc.status),
			   "the Read completed with status %d (%s) after %.3f s",
			   wc.status, ibv_wc_status_str(wc.status),
			   now() - t0) && ok;
	}
	dirty = zfile_dirty(&z);
	ok = expect(dirty == 0, "the read-only file has %ld nonzero octets",
		    dirty) && ok;
	if (hit)
		ibv_dereg_mr(hit);
	client_close(&c);
	zfile_close(&z);
	free(abuf);
	verdict(ok, ok ? "the Read into a deregistered MR failed, %s"
		       : "see the checks above%s",
		ok ? "the file whose MR took its STag stayed zero" : "");
	return !ok;
}

static int dereg_reuse_send(void)
{
	struct qp_want w = qp_default;
	struct conn c;
	struct zfile z = { .fd = -1 };
	struct ibv_mr *a, *b, *hit;
	struct ibv_wc wc;
	char *abuf = page_alloc(PAGE), *bbuf = page_alloc(PAGE);
	struct ibv_sge sge[2];
	struct ibv_recv_wr wr = { .wr_id = WRID(WR_DATA, 0), .sg_list = sge,
				  .num_sge = 2 }, *bad;
	uint32_t index, maxidx;
	int tries = 0, n, other = 0;
	long dirty;
	double t1;
	bool ok = true;

	w.prepost = 0;	/* the receive with two SGEs is the first */
	if (!abuf || !bbuf || zfile_open(&z) || client_connect(&c, &w, NULL)) {
		verdict(false, "setup");
		return 1;
	}
	a = ibv_reg_mr(c.pd, abuf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	b = ibv_reg_mr(c.pd, bbuf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!a || !b) {
		verdict(false, "ibv_reg_mr: %s", strerror(errno));
		return 1;
	}
	sge[0] = (struct ibv_sge){ (uintptr_t)abuf, PAGE, a->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)bbuf, PAGE, b->lkey };
	if (ibv_post_recv(c.qp, &wr, &bad)) {
		verdict(false, "ibv_post_recv with two SGEs: %s", strerror(errno));
		return 1;
	}
	index = b->lkey >> 8;
	say("MR B lkey 0x%08x (index %u), a receive of A then B posted",
	    b->lkey, index);
	t1 = now();
	if (ibv_dereg_mr(b))
		ok = expect(false, "ibv_dereg_mr(B) with the receive posted: %s",
			    strerror(errno));
	else
		ok = expect(now() - t1 <= tmo(2),
			    "ibv_dereg_mr(B) returned after %.3f s", now() - t1);
	hit = reuse_index(c.pd, &z, index, &tries, &maxidx, NULL, NULL, NULL);
	if (!hit) {
		verdict(false, "index %u not handed out again in %d registrations, %s %u",
			index, tries, "(stag_index_max set in debugfs?), largest seen",
			maxidx);
		return 1;
	}
	say("read-only file MR lkey 0x%08x on B's index after %d registrations",
	    hit->lkey, tries);
	/* now the peer sends 8 KiB: the first 4 KiB to A, the rest to B */
	memcpy(c.buf + NSLOTS * SLOT_LEN, "GO8K", 4);
	if (post_send(&c, WRID(WR_GO, 0), c.buf + NSLOTS * SLOT_LEN, 4,
		      c.mr->lkey, 0)) {
		verdict(false, "post the GO8K send: %s", strerror(errno));
		return 1;
	}
	n = poll_kind(c.cq, WR_DATA, &wc, 15, &other);
	if (n <= 0)
		ok = expect(false, "no completion of the receive within %.0f s",
			    tmo(15));
	else
		ok = expect(wc.status != IBV_WC_SUCCESS,
			    "the receive completed with status %d (%s), %u octets",
			   wc.status, ibv_wc_status_str(wc.status),
			   wc.status ? 0 : wc.byte_len) && ok;
	dirty = zfile_dirty(&z);
	ok = expect(dirty == 0, "the read-only file has %ld nonzero octets",
		    dirty) && ok;
	ibv_dereg_mr(hit);
	ibv_dereg_mr(a);
	client_close(&c);
	zfile_close(&z);
	free(abuf);
	free(bbuf);
	verdict(ok, ok ? "the receive into a deregistered MR failed, %s"
		       : "see the checks above%s",
		ok ? "the file whose MR took its STag stayed zero" : "");
	return !ok;
}

/* --- odd-sge ---------------------------------------------------------------- */

enum odd_kind {
	ODD_NSGE0, ODD_NSGE_MAX, ODD_NSGE_OVER, ODD_LEN0, ODD_LEN_MAX,
	ODD_LEN_SUM, ODD_BELOW, ODD_ABOVE, ODD_FAR, ODD_OTHER_PD, ODD_DEREG,
	ODD_INLINE, ODD_READ_SINK, ODD_WRITE_REMOTE, ODD_READ_REMOTE,
	ODD_NUM,
};

static const struct {
	const char *name;
	bool ok;	/* must succeed; otherwise must fail */
} odd_cases[ODD_NUM] = {
	[ODD_NSGE0] = { "num_sge 0 (zero-length send)", true },
	[ODD_NSGE_MAX] = { "num_sge max_send_sge", true },
	[ODD_NSGE_OVER] = { "num_sge max_send_sge + 1", false },
	[ODD_LEN0] = { "SGE length 0", true },
	[ODD_LEN_MAX] = { "SGE length 0xffffffff", false },
	[ODD_LEN_SUM] = { "three SGEs of 0x60000000 (sum over 2^32)", false },
	[ODD_BELOW] = { "SGE starting below the MR", false },
	[ODD_ABOVE] = { "SGE running past the MR's end", false },
	[ODD_FAR] = { "SGE a page above the MR", false },
	[ODD_OTHER_PD] = { "lkey of another PD's MR", false },
	[ODD_DEREG] = { "lkey of a deregistered MR", false },
	[ODD_INLINE] = { "inline data above max_inline_data", false },
	[ODD_READ_SINK] = { "RDMA Read sink past the local MR", false },
	[ODD_WRITE_REMOTE] = { "RDMA Write past the remote MR (a Read behind it)",
			       false },
	[ODD_READ_REMOTE] = { "RDMA Read source past the remote MR", false },
};

static bool odd_one(enum odd_kind k)
{
	struct qp_want w = qp_default;
	struct ibv_sge sge[SIW_MAX_SGE + 2];
	struct ibv_send_wr wr = { .wr_id = WRID(WR_DATA, k), .sg_list = sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_device_attr da;
	struct ibv_pd *pd2 = NULL;
	struct ibv_mr *mr2 = NULL;
	char *go, *p2 = NULL;
	struct ibv_wc wc;
	struct conn c;
	uint32_t lk;
	int rc, n, i, other = 0;
	bool ok;

	if (client_connect(&c, &w, NULL))
		return expect(false, "%s: no connection", odd_cases[k].name);
	if (ibv_query_device(c.id->verbs, &da))
		return expect(false, "ibv_query_device: %s", strerror(errno));
	go = c.buf + NSLOTS * SLOT_LEN;
	lk = c.mr->lkey;
	for (i = 0; i < SIW_MAX_SGE + 2; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)go + 16 * i, 16, lk };
	switch (k) {
	case ODD_NSGE0:
		wr.num_sge = 0;
		break;
	case ODD_NSGE_MAX:
		wr.num_sge = c.cap.max_send_sge;
		break;
	case ODD_NSGE_OVER:
		wr.num_sge = c.cap.max_send_sge + 1;
		say("%d SGEs on a QP with max_send_sge %u", wr.num_sge,
		    c.cap.max_send_sge);
		break;
	case ODD_LEN0:
		sge[0].length = 0;
		break;
	case ODD_LEN_MAX:
		sge[0].length = 0xffffffff;
		break;
	case ODD_LEN_SUM:
		wr.num_sge = 3;
		for (i = 0; i < 3; i++)
			sge[i] = (struct ibv_sge){ (uintptr_t)c.buf,
						   0x60000000, lk };
		break;
	case ODD_BELOW:
		sge[0].addr = (uintptr_t)c.buf - 16;
		sge[0].length = 32;
		break;
	case ODD_ABOVE:
		sge[0].addr = (uintptr_t)c.buf + c.buflen - 16;
		sge[0].length = 32;
		break;
	case ODD_FAR:
		sge[0].addr = (uintptr_t)c.buf + c.buflen + PAGE;
		break;
	case ODD_OTHER_PD:
	case ODD_DEREG:
		p2 = page_alloc(PAGE);
		pd2 = k == ODD_OTHER_PD ? ibv_alloc_pd(c.id->verbs) : c.pd;
		mr2 = pd2 && p2 ? ibv_reg_mr(pd2, p2, PAGE,
					     IBV_ACCESS_LOCAL_WRITE) : NULL;
		if (!mr2) {
			client_close(&c);
			return expect(false, "%s: setup: %s",
				     odd_cases[k].name, strerror(errno));
		}
		sge[0] = (struct ibv_sge){ (uintptr_t)p2, 16, mr2->lkey };
		if (k == ODD_DEREG) {
			ibv_dereg_mr(mr2);
			mr2 = NULL;
			pd2 = NULL;
		}
		break;
	case ODD_INLINE:
		wr.send_flags |= IBV_SEND_INLINE;
		sge[0].length = (c.cap.max_inline_data > SIW_MAX_INLINE ?
				 c.cap.max_inline_data : SIW_MAX_INLINE) + 1;
		break;
	case ODD_READ_SINK:
		wr.opcode = IBV_WR_RDMA_READ;
		sge[0] = (struct ibv_sge){ (uintptr_t)c.buf + c.buflen - 100,
					   PAGE, lk };
		wr.wr.rdma.remote_addr = c.peer.addr;
		wr.wr.rdma.rkey = c.peer.rkey;
		break;
	case ODD_WRITE_REMOTE:
	case ODD_READ_REMOTE:
		wr.opcode = k == ODD_WRITE_REMOTE ? IBV_WR_RDMA_WRITE :
						    IBV_WR_RDMA_READ;
		sge[0] = (struct ibv_sge){ (uintptr_t)c.buf + SLOT_LEN, PAGE,
					   lk };
		wr.wr.rdma.remote_addr = c.peer.addr + c.peer.len - 100;
		wr.wr.rdma.rkey = c.peer.rkey;
		break;
	default:
		break;
	}
	if (k == ODD_WRITE_REMOTE) {
		/*
		 * A Write completes when it is sent: the peer's Terminate
		 * comes later. A Read of valid memory posted behind it must
		 * then not succeed.
		 */
		static struct ibv_sge rs;
		static struct ibv_send_wr rd;

		rs = (struct ibv_sge){ (uintptr_t)c.buf + 2 * SLOT_LEN, 64,
				       lk };
		rd = (struct ibv_send_wr){ .wr_id = WRID(WR_DATA, k),
					   .sg_list = &rs, .num_sge = 1,
					   .opcode = IBV_WR_RDMA_READ,
					   .send_flags = IBV_SEND_SIGNALED };
		rd.wr.rdma.remote_addr = c.peer.addr;
		rd.wr.rdma.rkey = c.peer.rkey;
		wr.wr_id = WRID(WR_WRITE, k);
		wr.next = &rd;
	}
	rc = ibv_post_send(c.qp, &wr, &bad);
	if (rc) {
		ok = expect(!odd_cases[k].ok, "%s: ibv_post_send refused it: %s",
			    odd_cases[k].name, strerror(abs(rc)));
	} else {
		n = poll_kind(c.cq, WR_DATA, &wc, 10, &other);
		if (n <= 0)
			ok = expect(false, "%s: posted, but no completion within %.0f s",
				    odd_cases[k].name, tmo(10));
		else
			ok = expect(status_valid(wc.status) &&
				    (wc.status == IBV_WC_SUCCESS) ==
				   odd_cases[k].ok,
				   "%s: completion status %d (%s)",
				   odd_cases[k].name, wc.status,
				   ibv_wc_status_str(wc.status));
	}
	if (mr2)
		ibv_dereg_mr(mr2);
	if (pd2 && pd2 != c.pd)
		ibv_dealloc_pd(pd2);
	free(p2);
	client_close(&c);
	return ok;
}

static int odd_sge(void)
{
	int bad = 0;

	for (int k = 0; k < ODD_NUM; k++)
		bad += !odd_one(k);
	verdict(!bad, bad ? "%d of %d malformed work requests not handled as expected"
			  : "all %d malformed work requests refused or failed, valid ones passed",
		bad ? bad : ODD_NUM, ODD_NUM);
	return !!bad;
}

/* --- sqe-rewrite ------------------------------------------------------------- */

struct range {
	unsigned long lo, hi;
};

/* the mappings of /dev/infiniband/uverbs* */
static int uverbs_maps(struct range *r, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx", &r[n].lo, &r[n].hi) == 2)
			n++;
	}
	fclose(f);
	return n;
}

struct rewriter {
	struct siw_sqe *sq;
	unsigned int num;
	atomic_bool stop;
	unsigned long writes;
	uint64_t addr;		/* ring_refill_run(): what its SENDs carry */
	uint32_t lkey;
	struct ibv_cq *cq;	/* ring_refill_run() drains it too */
	double late;		/* from then on a success is late */
	unsigned long flushed, late_ok, other;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *rewrite_run(void *arg)
{
	struct rewriter *w = arg;
	uint64_t s = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();

	while (!atomic_load(&w->stop)) {
		uint64_t x = xorshift(&s);
		struct siw_sqe *q = &w->sq[x % w->num];
		int sg = (x >> 8) % SIW_MAX_SGE;

		switch ((x >> 16) % 8) {
		case 0:
			q->opcode = (uint8_t)(x >> 24);
			break;
		case 1:
			q->num_sge = (x >> 24) & 1 ? 255 : (uint8_t)(x >> 32);
			break;
		case 2:
			/* bits outside SIW_WQE_*: 0x8000 and random ones */
			q->flags = (uint16_t)(x >> 24) | 0x8000 |
				   ((x >> 40) & 1 ? SIW_WQE_VALID : 0);
			break;
		case 3:
			q->sge[sg].length = 0xffffffff;
			break;
		case 4:
			q->sge[sg].lkey = (uint32_t)(x >> 24);
			break;
		case 5:
			q->sge[sg].laddr = xorshift(&s);
			break;
		case 6:
			q->rkey = (uint32_t)(x >> 24);
			q->raddr = xorshift(&s);
			break;
		default:
			q->flags |= SIW_WQE_INLINE | 0x8000;
			q->sge[0].length = (uint32_t)(x >> 24);
			break;
		}
		w->writes++;
	}
	return NULL;
}

/*
 * The doorbell, as libsiw rings it: a POST_SEND command without work
 * requests, written to the context's command file
 */
static int ring_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req = {};
	struct ib_uverbs_post_send_resp resp = {};

	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = qp->handle;
	req.cmd.wqe_size = sizeof(struct ibv_send_wr);
	if (write(qp->context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return -1;
	return 0;
}

/*
 * A valid signalled SEND written into the free slot @slot by hand, with
 * flag bits outside SIW_WQE_* (bit 15 among them: the kernel may use such
 * a bit for work requests of its own), and the doorbell: it must complete
 * (masked) or fail, never vanish
 */
static bool sqe_foreign_flags(struct conn *c, struct siw_sqe *q)
{
	uint16_t fl = SIW_WQE_VALID | SIW_WQE_SIGNALLED | 0xff80;
	struct ibv_wc wc;
	int n;

	if (__atomic_load_n(&q->flags, __ATOMIC_ACQUIRE) & SIW_WQE_VALID)
		return expect(false, "flags 0x%04x: the next SQ slot is not free",
			      fl);
	q->id = WRID(WR_GO, 1);
	q->num_sge = 1;
	q->opcode = SIW_OP_SEND;
	q->rkey = 0;
	q->raddr = 0;
	q->sge[0].laddr = (uintptr_t)c->buf + NSLOTS * SLOT_LEN;
	q->sge[0].length = 64;
	q->sge[0].lkey = c->mr->lkey;
	__atomic_store_n(&q->flags, fl, __ATOMIC_RELEASE);
	if (ring_doorbell(c->qp))
		return expect(false, "flags 0x%04x: the doorbell: %s", fl,
			      strerror(errno));
	n = poll_kind(c->cq, WR_GO, &wc, 10, NULL);
	return expect(n > 0 && status_valid(wc.status),
		      "a signalled SEND with flags 0x%04x written into the ring: %s",
		      fl, n > 0 ? ibv_wc_status_str(wc.status) :
		      "no completion (taken for the kernel's own?)");
}

/*
 * A client connection (64 SQEs, 8 receives) and its SQ ring: the one new
 * mapping of the uverbs device with the SQ's size (the CQ's and the RQ's
 * differ). 0, or -1 with the verdict given.
 */
static int connect_ring(struct conn *c, struct rewriter *w)
{
	struct qp_want want = qp_default;
	struct range before[32], after[32];
	int nb, na, i, j, cand = 0;
	size_t sqlen;

	want.recv_wr = 8;
	want.prepost = 8;
	nb = uverbs_maps(before, 32);
	if (client_connect(c, &want, NULL)) {
		verdict(false, "setup");
		return -1;
	}
	sqlen = ((size_t)c->cap.max_send_wr * sizeof(struct siw_sqe) +
		 PAGE - 1) & ~(size_t)(PAGE - 1);
	na = uverbs_maps(after, 32);
	for (i = 0; i < na; i++) {
		bool old = false;

		for (j = 0; j < nb; j++)
			old |= before[j].lo == after[i].lo;
		if (!old && after[i].hi - after[i].lo == sqlen) {
			cand++;
			w->sq = (struct siw_sqe *)after[i].lo;
		}
	}
	if (cand != 1) {
		verdict(false, "SQ ring not found: %d new uverbs mappings of %zu octets",
			cand, sqlen);
		return -1;
	}
	w->num = c->cap.max_send_wr;
	return 0;
}

static int sqe_rewrite(void)
{
	struct rewriter w = {};
	struct conn c;
	pthread_t th;
	char *go;
	int i, found = 0;
	unsigned long posted = 0, refused = 0, st[32] = {}, invalid = 0;
	unsigned long compl = 0;
	double t, end;
	bool ok = true;

	if (connect_ring(&c, &w))
		return 1;
	go = c.buf + NSLOTS * SLOT_LEN;
	/* prove it is the SQ: our wr_ids show up in it */
	for (i = 0; i < 4; i++)
		if (!post_send(&c, WRID(WR_DATA, i), go, 64, c.mr->lkey, 0))
			posted++;
	for (i = 0; i < (int)w.num; i++)
		found += WRKIND(w.sq[i].id) == WR_DATA;
	if (!found) {
		verdict(false, "no posted wr_id in the mapping taken for the SQ");
		return 1;
	}
	say("SQ ring at %p, %u SQEs of %zu octets, %d of our wr_ids in it",
	    (void *)w.sq, w.num, sizeof(struct siw_sqe), found);
	/* those four done, libsiw's next slot is the fifth */
	for (i = 0; i < (int)posted; i++) {
		struct ibv_wc wc;

		if (poll_kind(c.cq, WR_DATA, &wc, 10, NULL) <= 0 ||
		    wc.status != IBV_WC_SUCCESS) {
			verdict(false, "the first sends did not complete");
			return 1;
		}
	}
	ok = sqe_foreign_flags(&c, &w.sq[posted % w.num]) && ok;
	pthread_create(&th, NULL, rewrite_run, &w);
	end = now() + tmo(3);
	while (now() < end) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c.cq, 16, wc);

		for (i = 0; i < n; i++) {
			compl++;
			if (!status_valid(wc[i].status))
				invalid++;
			else
				st[wc[i].status]++;
		}
		if (post_send(&c, WRID(WR_DATA, posted), go, 64, c.mr->lkey,
			      0)) {
			refused++;
			usleep(500);
		} else {
			posted++;
		}
	}
	atomic_store(&w.stop, true);
	pthread_join(th, NULL);
	sleep_s(tmo(1));
	for (;;) {
		struct ibv_wc wc;

		if (ibv_poll_cq(c.cq, 1, &wc) <= 0)
			break;
		compl++;
		if (!status_valid(wc.status))
			invalid++;
		else
			st[wc.status]++;
	}
	say("%lu SQE rewrites; posted %lu, refused %lu; %lu completions:",
	    w.writes, posted, refused, compl);
	say("%lu success, %lu flushed, %lu other", st[IBV_WC_SUCCESS],
	    st[IBV_WC_WR_FLUSH_ERR],
	    compl - invalid - st[IBV_WC_SUCCESS] - st[IBV_WC_WR_FLUSH_ERR]);
	ok = expect(invalid == 0, "%lu completions with an invalid status",
		    invalid) && ok;
	t = now();
	rdma_destroy_qp(c.id);
	c.qp = NULL;
	ok = expect(now() - t <= tmo(5), "rdma_destroy_qp took %.3f s",
		    now() - t) && ok;
	client_close(&c);
	verdict(ok, ok ? "rewritten SQEs did not crash, hang or garble completions"
		       : "see the checks above");
	return !ok;
}

/* --- sq-refill-error ------------------------------------------------------- */

struct refill {
	struct conn *c;
	atomic_bool stop;
	atomic_bool done;	/* the poster has ended */
	atomic_int phase;	/* 1 once the QP was moved to ERROR */
	double t_err;
	double slowest;		/* the longest post or doorbell after ERROR */
	unsigned long posted, post_err, ok, flushed, late_ok, other;
	unsigned long early;	/* flushes before ERROR was asked for */
	int other_status;
};

static void refill_poll(struct refill *r, int *outstanding)
{
	struct ibv_wc wc[64];
	int n = ibv_poll_cq(r->c->cq, 64, wc);

	for (int i = 0; i < n; i++) {
		if (WRKIND(wc[i].wr_id) == WR_DATA)
			(*outstanding)--;
		if (wc[i].status == IBV_WC_SUCCESS) {
			if (WRKIND(wc[i].wr_id) != WR_DATA)
				continue;
			r->ok++;
			if (atomic_load(&r->phase) &&
			    now() > r->t_err + tmo(1))
				r->late_ok++;
		} else if (wc[i].status == IBV_WC_WR_FLUSH_ERR) {
			r->flushed++;
			r->early += !atomic_load(&r->phase);
		} else {
			r->other++;
			r->other_status = wc[i].status;
		}
	}
}

/*
 * Sends through libsiw: before ERROR at a pace the sink keeps up with (8
 * outstanding, 2 ms apart), after it as fast as it goes, with the
 * doorbell rung by hand when libsiw finds the ring full
 */
static void *refill_run(void *arg)
{
	struct refill *r = arg;
	struct conn *c = r->c;
	char *go = c->buf + NSLOTS * SLOT_LEN;
	int outstanding = 0;

	while (!atomic_load(&r->stop)) {
		bool err = atomic_load(&r->phase);
		double t;
		int rc;

		refill_poll(r, &outstanding);
		if (!err && outstanding >= 8) {
			usleep(50);
			continue;
		}
		t = now();
		rc = post_send(c, WRID(WR_DATA, r->posted), go, 64,
			       c->mr->lkey, 0);
		if (rc) {
			r->post_err++;
			if (err)
				ring_doorbell(c->qp);
		} else {
			r->posted++;
			outstanding++;
		}
		if (err && now() - t > r->slowest)
			r->slowest = now() - t;
		if (!err)
			usleep(2000);
	}
	refill_poll(r, &outstanding);
	atomic_store(&r->done, true);
	return NULL;
}

/*
 * Valid SENDs written straight into every free slot of the ring, and the
 * CQ drained meanwhile: a flush that goes on while the ring is refilled
 * must neither stop for a full CQ nor keep the kernel busy for good
 */
static void *ring_refill_run(void *arg)
{
	struct rewriter *w = arg;

	while (!atomic_load(&w->stop)) {
		struct ibv_wc wc[64];
		int n = ibv_poll_cq(w->cq, 64, wc);

		for (int i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				w->flushed++;
			else if (wc[i].status != IBV_WC_SUCCESS)
				w->other++;
			else if (WRKIND(wc[i].wr_id) == WR_DATA &&
				 now() > w->late)
				w->late_ok++;
		}
		for (unsigned int i = 0; i < w->num; i++) {
			struct siw_sqe *q = &w->sq[i];

			if (__atomic_load_n(&q->flags, __ATOMIC_ACQUIRE) &
			    SIW_WQE_VALID)
				continue;
			q->id = WRID(WR_DATA, 0xffff);
			q->num_sge = 1;
			q->opcode = SIW_OP_SEND;
			q->sge[0].laddr = w->addr;
			q->sge[0].length = 64;
			q->sge[0].lkey = w->lkey;
			__atomic_store_n(&q->flags,
					 SIW_WQE_VALID | SIW_WQE_SIGNALLED,
					 __ATOMIC_RELEASE);
			w->writes++;
		}
	}
	return NULL;
}

static int sq_refill_error(void)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct rewriter w = {};
	struct refill r = {};
	struct conn c;
	pthread_t th, rth;
	double t;
	bool ok = true;

	if (connect_ring(&c, &w))
		return 1;
	r.c = &c;
	w.addr = (uintptr_t)c.buf + NSLOTS * SLOT_LEN;
	w.lkey = c.mr->lkey;
	w.cq = c.cq;
	pthread_create(&th, NULL, refill_run, &r);
	sleep_s(tmo(0.5));
	say("%lu sends posted, %lu completed before ERROR", r.posted, r.ok);
	t = now();
	r.t_err = t;
	/*
	 * From the call on, flushes are due: the kernel may flush (and the
	 * poller see it) before ibv_modify_qp() returns (seen on 7.3)
	 */
	atomic_store(&r.phase, 1);
	if (ibv_modify_qp(c.qp, &qa, IBV_QP_STATE))
		ok = expect(false, "ibv_modify_qp to ERROR: %s", strerror(errno));
	ok = expect(now() - t <= tmo(2), "ibv_modify_qp to ERROR took %.3f s",
		    now() - t) && ok;
	/* and the ring refilled behind libsiw's back, as fast as it goes */
	w.late = t + tmo(1);
	pthread_create(&rth, NULL, ring_refill_run, &w);
	sleep_s(5);
	atomic_store(&w.stop, true);
	atomic_store(&r.stop, true);
	pthread_join(rth, NULL);
	t = now();
	while (!atomic_load(&r.done) && now() - t < tmo(10))
		usleep(10000);
	if (!atomic_load(&r.done)) {
		/* a thread stuck in the kernel: report, and go */
		verdict(false, "the posting thread did not return within %.0f s of the stop",
			tmo(10));
		fflush(stdout);
		_exit(1);
	}
	pthread_join(th, NULL);
	say("posted %lu, refused %lu, completed %lu, flushed %lu, other %lu",
	    r.posted, r.post_err, r.ok, r.flushed, r.other);
	say("%lu SQEs refilled in the ring by hand; its thread saw %lu flushed, %lu other",
	    w.writes, w.flushed, w.other);
	r.late_ok += w.late_ok;
	r.other += w.other;
	r.flushed += w.flushed;
	ok = expect(r.early == 0,
		    "%lu sends flushed before the QP was moved to ERROR", r.early) && ok;
	ok = expect(r.late_ok == 0,
		    "%lu sends completed successfully more than %.0f s after ERROR",
		    r.late_ok, tmo(1)) && ok;
	ok = expect(r.other == 0, "%lu completions neither success nor flush (last status %d)",
		    r.other, r.other_status) && ok;
	ok = expect(r.flushed + r.post_err > 0,
		    "after ERROR: %lu flushed, %lu posts refused",
		    r.flushed, r.post_err) && ok;
	ok = expect(r.slowest <= tmo(2),
		    "the slowest post or doorbell after ERROR took %.3f s",
		    r.slowest) && ok;
	t = now();
	rdma_destroy_qp(c.id);
	c.qp = NULL;
	ok = expect(now() - t <= tmo(5), "rdma_destroy_qp took %.3f s",
		    now() - t) && ok;
	client_close(&c);
	verdict(ok, ok ? "posting into a QP in ERROR only flushes or is refused; destroy is prompt"
		       : "see the checks above");
	return !ok;
}

/* --- mr-not-mine -------------------------------------------------------------- */

/* Try to register [@p, @p + @len) with @access; true when it is refused */
static bool mr_refused(struct ibv_pd *pd, void *p, size_t len, int access,
		       const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, p, len, access);
	int err = errno;

	if (mr)
		ibv_dereg_mr(mr);
	return expect(!mr, "%s: %s", what, mr ? "registered" : strerror(err));
}

/*
 * RFC 5040 section 8.1.2, requirement 4, and RFC 5041 section 8.3.2, item
 * 4: a non-privileged ULP's right to a buffer is verified before an STag
 * is tied to it. MRs over memory the process has not mapped, or over a
 * read-only mapping with write access, are refused; its own page, the
 * control, is registered.
 */
static int mr_not_mine(void)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct qp_want w = qp_default;
	struct ibv_mr *mr;
	struct conn c;
	char *own, *ro;
	bool ok = true;

	if (client_connect(&c, &w, NULL)) {
		verdict(false, "no connection");
		return 1;
	}
	own = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED || ro == MAP_FAILED) {
		client_close(&c);
		verdict(false, "setup: mmap: %s", strerror(errno));
		return 1;
	}
	munmap(own + PAGE, 3 * PAGE);	/* the first page stays ours */
	ok = mr_refused(c.pd, own + PAGE, 2 * PAGE, IBV_ACCESS_LOCAL_WRITE,
			"an MR over unmapped memory refused") && ok;
	ok = mr_refused(c.pd, own, 2 * PAGE, IBV_ACCESS_LOCAL_WRITE,
			"an MR running past the mapping refused") && ok;
	ok = mr_refused(c.pd, ro, PAGE, rw,
			"a writable MR over read-only memory refused") && ok;
	own[0] = 1;
	mr = ibv_reg_mr(c.pd, own, PAGE, rw);
	ok = expect(!!mr, "an MR over the process's own page: %s",
		    mr ? "registered" : strerror(errno)) && ok;
	if (mr)
		ibv_dereg_mr(mr);
	munmap(own, PAGE);
	munmap(ro, PAGE);
	client_close(&c);
	verdict(ok, ok ? "MRs of memory not its own to write refused, its own page taken"
		       : "see the checks above");
	return !ok;
}

/* --- cq-not-mine -------------------------------------------------------------- */

/* One legacy uverbs write() command on @fd: 0, or -1 with errno */
int uverbs_cmd(int fd, uint32_t command, void *cmd, size_t len,
	       size_t out_len)
{
	struct ib_uverbs_cmd_hdr *hdr = cmd;

	hdr->command = command;
	hdr->in_words = len / 4;
	hdr->out_words = out_len / 4;
	return write(fd, cmd, len) == (ssize_t)len ? 0 : -1;
}

/*
 * CREATE_QP by hand, naming @send_cq and @recv_cq by handle: the QP's
 * handle, or -1 with errno
 */
static int64_t raw_create_qp(struct ibv_context *ctx, uint32_t pd,
			     uint32_t send_cq, uint32_t recv_cq)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_qp c;
	} cmd = { 0 };
	uint32_t resp[64] = { 0 };	/* the core's answer, then siw's */
	struct ib_uverbs_create_qp_resp *r = (void *)resp;

	cmd.c.response = (uintptr_t)resp;
	cmd.c.pd_handle = pd;
	cmd.c.send_cq_handle = send_cq;
	cmd.c.recv_cq_handle = recv_cq;
	cmd.c.max_send_wr = 4;
	cmd.c.max_recv_wr = 4;
	cmd.c.max_send_sge = 1;
	cmd.c.max_recv_sge = 1;
	cmd.c.qp_type = IBV_QPT_RC;
	if (uverbs_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_QP, &cmd,
		       sizeof(cmd), sizeof(resp)))
		return -1;
	return r->qp_handle;
}

static int raw_destroy_qp(struct ibv_context *ctx, uint32_t qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp c;
	} cmd = { 0 };
	struct ib_uverbs_destroy_qp_resp resp;

	cmd.c.response = (uintptr_t)&resp;
	cmd.c.qp_handle = qp;
	return uverbs_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_DESTROY_QP, &cmd,
			  sizeof(cmd), sizeof(resp));
}

#define CQ_NOT_MINE_N	8	/* CQs of the other process */

/*
 * The other process: opens @name, creates CQ_NOT_MINE_N CQs, writes their
 * handles to @out, waits for a byte on @in, then destroys them, each of
 * which must succeed (no QP of the attacker took one). Exit status 0 when
 * all went so.
 */
static int cq_owner(const char *name, int out, int in)
{
	struct ibv_cq *cq[CQ_NOT_MINE_N] = { NULL };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	uint32_t h[CQ_NOT_MINE_N];
	int bad = 0;
	char go;

	for (int i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return 2;
	for (int i = 0; i < CQ_NOT_MINE_N; i++) {
		cq[i] = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		if (!cq[i])
			return 3;
		h[i] = cq[i]->handle;
	}
	if (write(out, h, sizeof(h)) != sizeof(h) || read(in, &go, 1) != 1)
		bad++;
	for (int i = 0; i < CQ_NOT_MINE_N; i++)
		if (ibv_destroy_cq(cq[i])) {
			say("the other process's CQ %u: ibv_destroy_cq: %s",
			    h[i], strerror(errno));
			bad++;
		}
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return bad ? 4 : 0;
}

/*
 * RFC 5040 section 8.1.1, requirement 9: no CQ is shared with a ULP that is
 * not trusted. Another process creates CQs on the same device; this one
 * sends CREATE_QP by hand (the uverbs write() command) naming each of
 * their handles as its send CQ, and as its receive CQ, with its own PD:
 * every one refused. The control, the same command naming its own CQ,
 * creates a QP (destroyed by hand); the other process's CQs are then
 * destroyed by it, which fails while a QP uses one.
 */
static int cq_not_mine(void)
{
	uint32_t h[CQ_NOT_MINE_N], mine;
	int to_owner[2], from_owner[2], st;
	int tried = 0, refused = 0, why = 0;
	struct ibv_context *ctx;
	struct conn c;
	bool ok = true;
	int64_t qp;
	pid_t pid;

	if (client_connect(&c, &qp_default, NULL)) {
		verdict(false, "no connection");
		return 1;
	}
	ctx = c.id->verbs;
	mine = c.cq->handle;
	if (pipe(to_owner) || pipe(from_owner)) {
		verdict(false, "setup: pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		close(to_owner[1]);
		close(from_owner[0]);
		_exit(cq_owner(ibv_get_device_name(ctx->device), from_owner[1],
			       to_owner[0]));
	}
	close(to_owner[0]);
	close(from_owner[1]);
	if (pid < 0 || read(from_owner[0], h, sizeof(h)) != sizeof(h)) {
		verdict(false, "setup: the other process gave no CQ handles");
		return 1;
	}
	qp = raw_create_qp(ctx, c.pd->handle, mine, mine);
	ok = expect(qp >= 0, "control: CREATE_QP naming its own CQ %u: %s", mine,
		    qp >= 0 ? "created" : strerror(errno)) && ok;
	if (qp >= 0) {
		int err = raw_destroy_qp(ctx, qp) ? errno : 0;

		ok = expect(!err, "control: DESTROY_QP: %s",
			    err ? strerror(err) : "destroyed") && ok;
	}
	for (int i = 0; i < CQ_NOT_MINE_N; i++) {
		if (h[i] == mine)	/* that number names its own CQ here */
			continue;
		for (int as_recv = 0; as_recv < 2; as_recv++) {
			qp = as_recv ? raw_create_qp(ctx, c.pd->handle, mine, h[i])
				     : raw_create_qp(ctx, c.pd->handle, h[i], mine);
			tried++;
			if (qp < 0) {
				why = errno;
				refused++;
				continue;
			}
			say("CREATE_QP naming the other process's CQ %u as %s CQ: created",
			    h[i], as_recv ? "receive" : "send");
			raw_destroy_qp(ctx, qp);
		}
	}
	ok = expect(tried > 0 && refused == tried,
		    "%d of %d CREATE_QPs naming the other process's CQs refused (%s)",
		    refused, tried, why ? strerror(why) : "-") && ok;
	if (write(to_owner[1], "g", 1) != 1)
		ok = expect(false, "setup: the other process is gone") && ok;
	waitpid(pid, &st, 0);
	ok = expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "the other process created and destroyed its CQs (status %d)",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1) && ok;
	client_close(&c);
	verdict(ok, ok ? "no QP could take another process's CQ; its own one it could"
		       : "see the checks above");
	return !ok;
}

/* --- destroy-under-traffic --------------------------------------------------- */

struct traffic {
	struct conn *c;
	uint32_t lkey;		/* copies: the MR may go under the thread */
	char *src;
	atomic_bool stop;
	bool burst;		/* post one burst, return without polling */
	int echoes;		/* SENDs whose echo has not come back */
	unsigned long ops, ok, bad, refused;
	int last_status;
};

static void traffic_poll(struct traffic *t, int *out)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(t->c->cq, 16, wc);

	for (int i = 0; i < n; i++) {
		unsigned int kind = WRKIND(wc[i].wr_id);

		if (kind == WR_RECV) {
			if (wc[i].status == IBV_WC_SUCCESS) {
				t->echoes--;
				post_recv_slot(t->c, WRN(wc[i].wr_id));
			}
			continue;
		}
		(*out)--;
		if (wc[i].status == IBV_WC_SUCCESS) {
			t->ok++;
		} else {
			t->bad++;
			t->last_status = wc[i].status;
		}
	}
}

/*
 * A 4 KiB RDMA Write, a 4 KiB RDMA Read and, with fewer than 4 echoes
 * outstanding (the sink's receives must not run out), a SEND the sink
 * echoes: the number of operations posted, or -1 when a post failed
 */
static int traffic_round(struct traffic *t)
{
	struct conn *c = t->c;
	uint64_t off = (t->ops % 8) * PAGE;
	int rc, n = 2;

	t->ops++;
	if (t->echoes < 4) {
		rc = post_send(c, WRID(WR_DATA, t->ops), t->src, 256, t->lkey,
			       0);
		if (rc)
			return -1;
		t->echoes++;
		n++;
	}
	rc = post_rdma(c, IBV_WR_RDMA_WRITE, WRID(WR_WRITE, t->ops),
		       t->src + PAGE, PAGE, t->lkey, c->peer.addr + off,
		       c->peer.rkey);
	if (rc)
		return -1;
	rc = post_rdma(c, IBV_WR_RDMA_READ, WRID(WR_READ, t->ops),
		       t->src + 2 * PAGE, PAGE, t->lkey, c->peer.addr + off,
		       c->peer.rkey);
	return rc ? -1 : n;
}

static void *traffic_run(void *arg)
{
	struct traffic *t = arg;
	int out = 0;

	while (!atomic_load(&t->stop)) {
		unsigned long bad = t->bad;
		int n;

		if (!t->burst)
			traffic_poll(t, &out);
		if (t->bad != bad)
			usleep(1000);	/* the QP failed: no need to spin */
		if (out >= 24) {
			usleep(100);
			continue;
		}
		n = traffic_round(t);
		if (n < 0) {
			t->refused++;
			if (t->burst)
				break;
			usleep(1000);
			continue;
		}
		out += n;
		if (t->burst && out >= 24)
			break;
	}
	return NULL;
}

static void traffic_init(struct traffic *t, struct conn *c)
{
	memset(t, 0, sizeof(*t));
	t->c = c;
	t->lkey = c->rmr->lkey;
	t->src = c->rbuf;
	memcpy(t->src, "ECHO", 4);
}

/* connect and run traffic for @secs (scaled); the thread keeps running */
static int traffic_start(struct conn *c, struct traffic *t, pthread_t *th,
			 double secs)
{
	if (client_connect(c, &qp_default, NULL))
		return -1;
	traffic_init(t, c);
	pthread_create(th, NULL, traffic_run, t);
	sleep_s(tmo(secs));
	if (!t->ok) {
		say("no completed operation after %.1f s of traffic",
		    tmo(secs));
		atomic_store(&t->stop, true);
		pthread_join(*th, NULL);
		return -1;
	}
	return 0;
}

static void traffic_stop(struct traffic *t, pthread_t th)
{
	atomic_store(&t->stop, true);
	pthread_join(th, NULL);
}

/* the rest of the connection goes, within 10 s */
static bool timed_close(struct conn *c, const char *what)
{
	double t = now();

	client_close(c);
	return expect(now() - t <= tmo(10), "%s: teardown took %.3f s", what,
		     now() - t);
}

static bool dut_step(int step)
{
	static const char * const names[] = {
		"dereg the MR in use", "destroy the QP", "destroy the CQ",
		"dealloc the PD",
	};
	const char *name = names[step];
	struct traffic t;
	struct conn c;
	pthread_t th;
	double t0, d;
	bool ok = true;
	int rc = 0;

	if (traffic_start(&c, &t, &th, 1))
		return expect(false, "%s: no traffic", name);
	if (step > 0) {
		/* the thread goes; a burst stays in flight in the kernel */
		traffic_stop(&t, th);
		t.burst = true;
		atomic_store(&t.stop, false);
		traffic_run(&t);
	}
	t0 = now();
	switch (step) {
	case 0:
		rc = ibv_dereg_mr(c.rmr);
		if (!rc)
			c.rmr = NULL;
		break;
	case 1:
		rdma_destroy_qp(c.id);
		c.qp = NULL;
		break;
	case 2:
		rc = ibv_destroy_cq(c.cq);
		if (!rc)
			c.cq = NULL;
		break;
	default:
		rc = ibv_dealloc_pd(c.pd);
		if (!rc)
			c.pd = NULL;
		break;
	}
	d = now() - t0;
	if (step == 0) {
		sleep_s(tmo(0.5));
		traffic_stop(&t, th);
	}
	ok = expect(d <= tmo(5), "%s under traffic: %s after %.3f s (%lu done, %lu failed)",
		    name, rc ? strerror(rc) : "0", d, t.ok, t.bad) && ok;
	if (step == 0)
		ok = expect(!rc, "%s: ibv_dereg_mr succeeds", name) && ok;
	if (step >= 2)
		ok = expect(rc != 0, "%s: refused while the QP uses it", name) &&
		     ok;
	return timed_close(&c, name) && ok;
}

static bool dut_kill(void)
{
	int p[2], st;
	pid_t pid;
	char x;
	double t0;
	bool ok;

	if (pipe(p))
		return expect(false, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		struct traffic t;
		struct conn c;
		pthread_t th;

		close(p[0]);
		if (traffic_start(&c, &t, &th, 0.5))
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pthread_join(th, NULL);	/* until killed */
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &x, 1) != 1) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		return expect(false, "kill -9: the child got no traffic going");
	}
	close(p[0]);
	sleep_s(tmo(1));
	t0 = now();
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, WNOHANG) == 0 && now() - t0 < tmo(10))
		usleep(10000);
	ok = expect(waitpid(pid, &st, WNOHANG) < 0 && now() - t0 <= tmo(5),
		    "kill -9 under traffic: the process was gone after %.3f s",
		   now() - t0);
	if (now() - t0 > tmo(10)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return ok;
}

static int destroy_under_traffic(void)
{
	struct traffic t;
	struct conn c;
	pthread_t th;
	bool ok = true;
	int step;

	/*
	 * The kill first: librdmacm keeps its device contexts for the
	 * process, so the child must fork before the parent opens any
	 */
	ok = dut_kill() && ok;
	for (step = 0; step < 4; step++)
		ok = dut_step(step) && ok;
	/* the peer and the device still work */
	if (traffic_start(&c, &t, &th, 1)) {
		ok = expect(false, "fresh traffic after all that: no connection or no progress");
	} else {
		traffic_stop(&t, th);
		sleep_s(tmo(0.5));
		ok = expect(t.ok > 0 && t.bad == 0,
			    "fresh traffic after all that: %lu operations, %lu failed",
			   t.ok, t.bad) && ok;
		ok = timed_close(&c, "fresh traffic") && ok;
	}
	verdict(ok, ok ? "each destroy and the kill returned promptly, the device still works"
		       : "see the checks above");
	return !ok;
}

/* --- modify-accept-race ------------------------------------------------------ */

struct modifier {
	struct ibv_qp *qp;
	int ord, ird;
	atomic_bool stop;
	unsigned long ok, err;
};

static void *modify_run(void *arg)
{
	struct modifier *m = arg;

	while (!atomic_load(&m->stop)) {
		struct ibv_qp_attr a = { .max_rd_atomic = m->ord,
					 .max_dest_rd_atomic = m->ird };

		if (ibv_modify_qp(m->qp, &a, IBV_QP_MAX_QP_RD_ATOMIC |
				  IBV_QP_MAX_DEST_RD_ATOMIC))
			m->err++;
		else
			m->ok++;
	}
	return NULL;
}

#define MAR_READS 64

static const struct qp_want qp_mar = { MAR_READS + 8, 8, 1, 1, 0, 1 };

/*
 * MAR_READS RDMA Reads of the peer's region, then a "DONE" each way:
 * 1 when all went well, 0 when the connection failed (cleanly), -1 on
 * a timeout (a hang)
 */
static int mar_traffic(struct conn *c)
{
	char *sink = c->buf + SLOT_LEN, *go = c->buf + NSLOTS * SLOT_LEN;
	int i, n, reads = 0, bad = 0, got_done = 0, sent_done = 0;
	int first = -1, first_kind = 0, first_read = -1;
	double end = now() + tmo(20);
	struct ibv_wc wc;

	for (i = 0; i < MAR_READS; i++)
		if (post_rdma(c, IBV_WR_RDMA_READ, WRID(WR_READ, i),
			      sink + 64 * i, 64, c->mr->lkey,
			      c->peer.addr + 64 * i, c->peer.rkey))
			break;
	if (i < MAR_READS) {
		say("post of Read %d: %s", i, strerror(errno));
		bad++;
	}
	n = i;
	while (now() < end && (reads < n || !got_done || !sent_done)) {
		if (ibv_poll_cq(c->cq, 1, &wc) <= 0) {
			usleep(200);
			if (bad && reads == n)
				break;
			continue;
		}
		if (!status_valid(wc.status))
			return expect(false, "completion status %d", wc.status),
			       -1;
		if (wc.status != IBV_WC_SUCCESS && !bad++) {
			first = wc.status;
			first_kind = WRKIND(wc.wr_id);
			first_read = reads;
		}
		switch (WRKIND(wc.wr_id)) {
		case WR_READ:
			reads++;
			if (reads == n && !bad) {
				memcpy(go, "DONE", 4);
				if (post_send(c, WRID(WR_DONE, 0), go, 4,
					      c->mr->lkey, 0))
					bad++;
			}
			break;
		case WR_DONE:
			sent_done = 1;
			break;
		case WR_RECV:
			got_done = wc.status == IBV_WC_SUCCESS;
			break;
		}
		if (bad && reads == n)
			break;
	}
	if (now() >= end) {
		expect(false, "%d of %d Reads completed, DONE %s/%s after %.0f s",
		       reads, n, sent_done ? "sent" : "not sent",
		      got_done ? "received" : "not received", tmo(20));
		return -1;
	}
	if (bad)
		say("%d of %d Reads completed; the first error: %s on %s, after %d Reads",
		    reads, n, first < 0 ? "a post" : ibv_wc_status_str(first),
		    first_kind == WR_READ ? "a Read" : first_kind == WR_RECV ?
		    "the DONE receive" : "the DONE send", first_read);
	return bad ? 0 : 1;
}

/*
 * Every round connects and completes: the IRD and ORD MPA negotiated (1
 * and 1) are the stream's, whatever modify_qp() said meanwhile, so no
 * side ever has more Reads in flight than the other's IRD. (Before the
 * stream took them from the negotiation, the race raised the ORD and the
 * peer terminated the connection; before that, the IRQ overflowed.)
 */
static int mar_verdict(int rounds, int conns, int good, int clean, int hung)
{
	bool ok = !hung && !clean && conns == rounds && good == rounds;

	if (clean)
		say("%d of %d rounds failed cleanly (the kernel log has the Terminates)",
		    clean, rounds);
	verdict(ok, "%d rounds, %d connected: %d clean, %d failed cleanly, %d hung",
		rounds, conns, good, clean, hung);
	return !ok;
}

static int mar_server(void)
{
	struct rdma_event_channel *ec;
	struct rdma_cm_id *lid;
	struct ibv_device_attr da;
	int rounds = o.rounds, r, conns = 0, good = 0, clean = 0, hung = 0;
	struct cm_ev ev, next;
	bool pending = false;

	signal(SIGTERM, on_term);
	if (cm_listen(&ec, &lid, o.addr, o.port) || !lid->verbs ||
	    ibv_query_device(lid->verbs, &da)) {
		verdict(false, "cannot listen on %s:%s", o.addr, o.port);
		return 1;
	}
	say("device max_qp_rd_atom %d max_qp_init_rd_atom %d",
	    da.max_qp_rd_atom, da.max_qp_init_rd_atom);
	for (r = 0; r < rounds && !atomic_load(&terminated); r++) {
		struct rdma_conn_param p = { .responder_resources = 1,
					     .initiator_depth = 1 };
		struct modifier m = {};
		struct conn c = {};
		struct pdata my;
		pthread_t th;
		bool est = false;
		int res;

		double until = now() + tmo(30);

		if (pending) {
			ev = next;
			pending = false;
		} else {
			/* late events of the connection before are dropped */
			do {
				if (cm_next(ec, &ev, until - now()))
					ev.type = RDMA_CM_EVENT_DEVICE_REMOVAL;
			} while (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST &&
				 ev.type != RDMA_CM_EVENT_DEVICE_REMOVAL);
		}
		if (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (atomic_load(&terminated))
				break;
			say("round %d: no connect request", r + 1);
			hung++;
			break;
		}
		c.id = ev.id;
		c.peer = ev.pd;
		if (!ev.has_pd || conn_res(&c, &qp_mar) ||
		    post_recv_slot(&c, 0)) {
			rdma_reject(ev.id, NULL, 0);
			conn_free(&c);
			clean++;
			continue;
		}
		m.qp = c.qp;
		m.ord = da.max_qp_init_rd_atom;
		m.ird = da.max_qp_rd_atom;
		pthread_create(&th, NULL, modify_run, &m);
		my = conn_pdata(&c);
		p.private_data = &my;
		p.private_data_len = sizeof(my);
		if (rdma_accept(c.id, &p)) {
			say("round %d: rdma_accept: %s", r + 1, strerror(errno));
			res = 0;
		} else if (cm_next(ec, &ev, tmo(20))) {
			say("round %d: no event after rdma_accept", r + 1);
			res = -1;
		} else if (ev.type != RDMA_CM_EVENT_ESTABLISHED) {
			say("round %d: %s after rdma_accept", r + 1,
			    evname(ev.type));
			res = 0;
		} else {
			res = 1;
			est = true;
		}
		atomic_store(&m.stop, true);
		pthread_join(th, NULL);
		if (res == 1)
			res = mar_traffic(&c);
		say("round %d: %s; ibv_modify_qp %lu times accepted, %lu refused",
		    r + 1, res > 0 ? "all Reads done" :
		     res == 0 ? "failed cleanly" : "HUNG", m.ok, m.err);
		good += res > 0;
		clean += res == 0;
		hung += res < 0;
		conns += est;
		/* the client disconnects; its next request may come first */
		while (est && !cm_next(ec, &ev, tmo(10))) {
			if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
				next = ev;
				pending = true;
				continue;
			}
			if (ev.id == c.id &&
			    (ev.type == RDMA_CM_EVENT_DISCONNECTED ||
			     ev.type == RDMA_CM_EVENT_CONNECT_ERROR ||
			     ev.type == RDMA_CM_EVENT_REJECTED))
				break;
		}
		conn_free(&c);
	}
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ec);
	return mar_verdict(r, conns, good, clean, hung);
}

static int mar_client(void)
{
	int r, conns = 0, good = 0, clean = 0, hung = 0;

	for (r = 0; r < o.rounds; r++) {
		struct rdma_conn_param p = { .responder_resources = 1,
					     .initiator_depth = 1 };
		struct conn c;
		int res;

		if (client_connect(&c, &qp_mar, &p)) {
			say("round %d: no connection", r + 1);
			res = 0;
		} else {
			conns++;
			res = mar_traffic(&c);
		}
		good += res > 0;
		clean += res == 0;
		hung += res < 0;
		client_close(&c);
		sleep_s(0.1);
	}
	return mar_verdict(r, conns, good, clean, hung);
}

/* --- foreign-qpn -------------------------------------------------------------- */

/* process A: a QP of its own, its number to @wfd, then on a byte from @rfd a ping */
static int fq_victim(int wfd, int rfd)
{
	struct conn c = {};
	struct cm_ev ev;
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8 };
	struct pdata my;
	struct ibv_wc wc;
	uint32_t qpn;
	char x;
	int n;

	c.ec = rdma_create_event_channel();
	if (!c.ec || rdma_create_id(c.ec, &c.id, NULL, RDMA_PS_TCP) ||
	    resolve(c.id, c.ec, o.addr, o.port) || conn_res(&c, &qp_default) ||
	    post_recv_slot(&c, 0))
		return expect(false, "A: setup"), 1;
	qpn = c.qp->qp_num;
	if (write(wfd, &qpn, sizeof(qpn)) != sizeof(qpn) ||
	    read(rfd, &x, 1) != 1)
		return 1;
	my = conn_pdata(&c);
	p.private_data = &my;
	p.private_data_len = sizeof(my);
	if (rdma_connect(c.id, &p) ||
	    cm_wait(c.ec, RDMA_CM_EVENT_ESTABLISHED, &ev, 20))
		return expect(false, "A: its QP %u no longer connects", qpn), 1;
	c.established = true;
	memcpy(c.rbuf, "ECHO", 4);
	if (post_send(&c, WRID(WR_DATA, 0), c.rbuf, 64, c.rmr->lkey, 0))
		return expect(false, "A: post send: %s", strerror(errno)), 1;
	n = poll_kind(c.cq, WR_RECV, &wc, 10, NULL);
	if (!expect(n > 0 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 64,
		    "A: QP %u connects afterwards and its SEND is echoed (%s)",
		   qpn, n > 0 ? ibv_wc_status_str(wc.status) : "no completion"))
		return 1;
	client_close(&c);
	return 0;
}

static bool fq_bad_event(struct cm_ev *ev)
{
	return ev->type == RDMA_CM_EVENT_ESTABLISHED;
}

/* process B, active: rdma_connect without a QP, naming A's */
static bool fq_connect(uint32_t qpn)
{
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8, .qp_num = qpn };
	struct rdma_cm_id *id;
	struct cm_ev ev;
	bool ok;

	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) ||
	    resolve(id, ec, o.addr, o.port))
		return expect(false, "B: setup");
	if (rdma_connect(id, &p)) {
		ok = expect(true, "B: rdma_connect naming A's QP %u refused: %s",
			    qpn, strerror(errno));
	} else if (cm_next(ec, &ev, tmo(20))) {
		ok = expect(false, "B: rdma_connect naming A's QP %u: no event",
			    qpn);
	} else {
		ok = expect(!fq_bad_event(&ev),
			    "B: rdma_connect naming A's QP %u: %s (status %d)",
			   qpn, evname(ev.type), ev.status);
		if (ev.type == RDMA_CM_EVENT_ESTABLISHED) {
			rdma_disconnect(id);
			cm_next(ec, &ev, tmo(5));
		}
	}
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	return ok;
}

/* process B, passive: rdma_accept without a QP, naming A's */
static bool fq_accept(uint32_t qpn)
{
	struct rdma_event_channel *ec;
	struct rdma_cm_id *lid;
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8, .qp_num = qpn };
	struct cm_ev ev;
	bool ok;

	if (cm_listen(&ec, &lid, o.laddr, o.lport))
		return expect(false, "B: listen on %s:%s", o.laddr, o.lport);
	say("B: listening on %s:%s", o.laddr, o.lport);
	if (cm_next(ec, &ev, tmo(60)) ||
	    ev.type != RDMA_CM_EVENT_CONNECT_REQUEST) {
		ok = expect(false, "B: no connect request from the peer");
	} else if (rdma_accept(ev.id, &p)) {
		ok = expect(true, "B: rdma_accept naming A's QP %u refused: %s",
			    qpn, strerror(errno));
		rdma_reject(ev.id, NULL, 0);
		rdma_destroy_id(ev.id);
	} else {
		struct rdma_cm_id *cid = ev.id;

		if (cm_next(ec, &ev, tmo(20)))
			ok = expect(true, "B: rdma_accept naming A's QP %u: no connection",
				    qpn);
		else
			ok = expect(!fq_bad_event(&ev),
				    "B: rdma_accept naming A's QP %u: %s",
				   qpn, evname(ev.type));
		if (ev.type == RDMA_CM_EVENT_ESTABLISHED)
			rdma_disconnect(cid);
		rdma_destroy_id(cid);
	}
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ec);
	return ok;
}

/* the peer of B's listener, in the other namespace: it must not connect */
static int fq_peer(void)
{
	struct conn c;
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8 };
	struct pdata my;
	struct cm_ev ev;
	bool ok;

	memset(&c, 0, sizeof(c));
	c.ec = rdma_create_event_channel();
	if (!c.ec || rdma_create_id(c.ec, &c.id, NULL, RDMA_PS_TCP) ||
	    resolve(c.id, c.ec, o.addr, o.port) || conn_res(&c, &qp_default)) {
		verdict(false, "setup");
		return 1;
	}
	my = conn_pdata(&c);
	p.private_data = &my;
	p.private_data_len = sizeof(my);
	if (rdma_connect(c.id, &p)) {
		ok = expect(false, "peer: rdma_connect: %s", strerror(errno));
	} else if (cm_next(c.ec, &ev, tmo(30))) {
		ok = expect(false, "peer: no answer to the connect");
	} else {
		ok = expect(ev.type != RDMA_CM_EVENT_ESTABLISHED,
			    "peer: the listener that named a foreign QP answered %s (status %d)",
			   evname(ev.type), ev.status);
		c.established = ev.type == RDMA_CM_EVENT_ESTABLISHED;
	}
	client_close(&c);
	verdict(ok, ok ? "a connection to a listener naming a foreign QP did not come up"
		       : "see the checks above");
	return !ok;
}

static int foreign_qpn(void)
{
	int up[2], down[2], st = 0;
	uint32_t qpn;
	pid_t pid;
	bool ok = true;

	if (o.peer)
		return fq_peer();
	if (!o.laddr) {
		verdict(false, "needs -L ADDR:PORT for its listener");
		return 1;
	}
	if (pipe(up) || pipe(down))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		_exit(fq_victim(up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &qpn, sizeof(qpn)) != sizeof(qpn)) {
		waitpid(pid, NULL, 0);
		verdict(false, "process A created no QP");
		return 1;
	}
	say("process A (pid %d) holds QP %u", (int)pid, qpn);
	ok = fq_connect(qpn) && ok;
	ok = fq_accept(qpn) && ok;
	if (write(down[1], "g", 1) != 1)
		ok = false;
	waitpid(pid, &st, 0);
	ok = expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "process A exited with status 0x%x", st) && ok;
	verdict(ok, ok ? "B could neither connect nor accept with A's QP, and A still works"
		       : "see the checks above");
	return !ok;
}

/* --- kernel-qpn ------------------------------------------------------------------ */

/*
 * QP numbers are handed out in order: the attacker names the KQ_WINDOW
 * after its own QP's, where the kernel consumer's QPs (and those of the
 * listener's peer) appear while it spins.
 */
#define KQ_WINDOW	256

/* a fresh cm_id without a QP, its route to the listener resolved */
static int kq_id(struct rdma_event_channel *ec, struct rdma_cm_id **id)
{
	if (rdma_create_id(ec, id, NULL, RDMA_PS_TCP)) {
		*id = NULL;
		return -1;
	}
	return resolve(*id, ec, o.addr, o.port);
}

/* the peer of the attacker's listener: connects with a QP of its own */
static int kq_peer(double end)
{
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8 };
	int tries = 0, up = 0;
	struct cm_ev ev;
	struct conn c;

	while (now() < end && !terminated) {
		memset(&c, 0, sizeof(c));
		c.ec = rdma_create_event_channel();
		if (!c.ec || rdma_create_id(c.ec, &c.id, NULL, RDMA_PS_TCP) ||
		    resolve(c.id, c.ec, o.addr, o.port) ||
		    conn_res(&c, &qp_default)) {
			client_close(&c);
			return !expect(false, "peer: setup");
		}
		tries++;
		if (!rdma_connect(c.id, &p) && !cm_next(c.ec, &ev, tmo(10)) &&
		    ev.type == RDMA_CM_EVENT_ESTABLISHED) {
			c.established = true;
			up++;
		}
		client_close(&c);
		sleep_s(0.1);
	}
	return !expect(tries > 0 && up == 0,
		       "peer: %d connects to the attacker's listener, %d came up",
		       tries, up);
}

/* rdma_connect naming each QP of the window once, on an id without a QP */
static unsigned long kq_connects(struct rdma_event_channel *ec,
				 struct rdma_cm_id **id, uint32_t base,
				 unsigned long *n)
{
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8 };
	unsigned long taken = 0;
	int i;

	for (i = 0; i < KQ_WINDOW && *id; i++, (*n)++) {
		p.qp_num = base + 1 + i;
		if (rdma_connect(*id, &p))
			continue;
		taken++;
		expect(false, "rdma_connect naming QP %u was taken", p.qp_num);
		rdma_destroy_id(*id);
		if (kq_id(ec, id))
			*id = NULL;
	}
	return taken;
}

/* rdma_accept naming the next QP of the window for each request waiting */
static unsigned long kq_accepts(struct rdma_event_channel *lec, uint32_t base,
				unsigned long *n)
{
	struct rdma_conn_param p = { .responder_resources = 8,
				     .initiator_depth = 8 };
	unsigned long taken = 0;
	struct cm_ev ev;

	while (!cm_next(lec, &ev, 0)) {
		if (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST)
			continue;
		p.qp_num = base + 1 + (*n)++ % KQ_WINDOW;
		if (!rdma_accept(ev.id, &p)) {
			taken++;
			expect(false, "rdma_accept naming QP %u was taken",
			       p.qp_num);
			rdma_disconnect(ev.id);
		}
		rdma_destroy_id(ev.id);
	}
	return taken;
}

static int kernel_qpn(void)
{
	struct rdma_event_channel *lec, *cec = rdma_create_event_channel();
	unsigned long connects = 0, accepts = 0, taken = 0;
	double end = now() + tmo(o.limit);
	struct rdma_cm_id *lid, *cid = NULL;
	struct conn own = {};
	uint32_t base;
	pid_t pid;
	int st = 0;
	bool ok;

	if (!cec || cm_listen(&lec, &lid, o.addr, o.port)) {
		verdict(false, "listen on %s:%s", o.addr, o.port);
		return 1;
	}
	signal(SIGTERM, on_term);
	/* before any memory is registered here: nothing pinned is forked */
	pid = fork();
	if (pid == 0)
		_exit(kq_peer(end));
	own.ec = rdma_create_event_channel();
	if (!own.ec || rdma_create_id(own.ec, &own.id, NULL, RDMA_PS_TCP) ||
	    resolve(own.id, own.ec, o.addr, o.port) ||
	    conn_res(&own, &qp_default) || kq_id(cec, &cid)) {
		verdict(false, "setup on %s:%s", o.addr, o.port);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	base = own.qp->qp_num;
	say("own QP %u: naming QPs %u to %u until SIGTERM (at most %.0f s)",
	    base, base + 1, base + KQ_WINDOW, tmo(o.limit));
	while (now() < end && cid && !terminated) {
		taken += kq_connects(cec, &cid, base, &connects);
		taken += kq_accepts(lec, base, &accepts);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	taken += kq_accepts(lec, base, &accepts);
	ok = expect(cid, "the attacker's id still usable") &&
	     expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "the peer exited with status 0x%x", st);
	ok = expect(taken == 0 && connects > KQ_WINDOW && accepts > 0,
		    "%lu rdma_connect and %lu rdma_accept naming QPs %u to %u, %lu taken",
		    connects, accepts, base + 1, base + KQ_WINDOW, taken) && ok;
	if (cid)
		rdma_destroy_id(cid);
	rdma_destroy_event_channel(cec);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(lec);
	client_close(&own);
	verdict(ok, ok ? "no QP could be named by a user's rdma_connect or rdma_accept"
		       : "see the checks above");
	return !ok;
}

/* --- main ----------------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*client)(void);
	int (*server)(void);	/* NULL: the sink */
	int rounds;
	const char *help;
} cases[] = {
	{ "dereg-reuse-read", dereg_reuse_read, NULL, 1,
	  "RDMA Read into MR A outstanding (delayed by netem), A deregistered,\n"
	  "\t\tits STag index taken by a read-only file's MR: the Read must\n"
	  "\t\tfail and the file stay zero" },
	{ "dereg-reuse-send", dereg_reuse_send, NULL, 1,
	  "a receive over MRs A and B posted, B deregistered and its index\n"
	  "\t\ttaken by a read-only file's MR, then the peer sends 8 KiB: the\n"
	  "\t\treceive must fail and the file stay zero" },
	{ "modify-accept-race", mar_client, mar_server, 20,
	  "the server raises ORD/IRD with ibv_modify_qp in a loop while it\n"
	  "\t\taccepts with 1/1, then 64 RDMA Reads each way; no hang, no\n"
	  "\t\treport, each round clean or failed cleanly" },
	{ "sq-refill-error", sq_refill_error, NULL, 1,
	  "a QP moved to ERROR while a thread posts sends (and rings the\n"
	  "\t\tdoorbell) as fast as it can and another refills the SQ ring\n"
	  "\t\tby hand, 5 s: posts refused or flushed, every post and the\n"
	  "\t\tdestroy prompt" },
	{ "sqe-rewrite", sqe_rewrite, NULL, 1,
	  "a SEND with flag bits outside SIW_WQE_* (0xff80) written into\n"
	  "\t\tthe SQ ring by hand must complete or fail; then posted SQEs\n"
	  "\t\trewritten in the ring (opcode, num_sge 255, unknown flags,\n"
	  "\t\tlengths, keys): valid completions only, destroy prompt" },
	{ "foreign-qpn", foreign_qpn, NULL, 1,
	  "process B connects and accepts with process A's QP number on a\n"
	  "\t\tcm_id without a QP: refused, A's QP still works (-L, -P)" },
	{ "kernel-qpn", kernel_qpn, NULL, 1,
	  "until SIGTERM (or -t SECS), rdma_connect and rdma_accept on\n"
	  "\t\tcm_ids without a QP\n"
	  "\t\tnaming each of the 256 QP numbers after the attacker's own\n"
	  "\t\t(while a kernel consumer, NVMe-oF, creates its QPs): every\n"
	  "\t\tone refused, no connection comes up (-a: an address of the\n"
	  "\t\tconsumer's device, -p: the attacker's listener)" },
	{ "odd-sge", odd_sge, NULL, 1,
	  "malformed SGE lists, lengths, addresses, keys, inline sizes:\n"
	  "\t\teach refused at post or failed in its completion" },
	{ "mr-not-mine", mr_not_mine, NULL, 1,
	  "MRs over unmapped memory, past the end of a mapping, and with\n"
	  "\t\twrite access over a read-only mapping: each refused; the\n"
	  "\t\tprocess's own page registered" },
	{ "cq-not-mine", cq_not_mine, NULL, 1,
	  "another process creates CQs; CREATE_QP sent by hand naming each\n"
	  "\t\tof their handles as send or receive CQ: each refused, the\n"
	  "\t\tsame command naming its own CQ creates a QP" },
	{ "verbs-random", verbs_random, NULL, 1,
	  "-j PROCS processes (4) for -t SECS each create, modify, post to,\n"
	  "\t\tpoll and destroy contexts, PDs, MRs, CQs, SRQs and QPs in a\n"
	  "\t\trandom order drawn from -S SEED (printed), arguments inside\n"
	  "\t\tand outside the limits, with traffic to the sink: every call\n"
	  "\t\tprompt, every process ends clean" },
	{ "destroy-under-traffic", destroy_under_traffic, NULL, 1,
	  "a process killed with SIGKILL under SEND/Write/Read traffic,\n"
	  "\t\tthen MR, QP, CQ, PD destroyed under it: each prompt, the\n"
	  "\t\tdevice usable afterwards" },
};

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: hostile-user CASE -s -a ADDR [-p PORT] [-t SECS]\n"
		"       hostile-user CASE -c -a ADDR [-p PORT] [-n ROUNDS] [-d DIR] [-m MAX]\n"
		"                   [-L ADDR:PORT] [-P] [-S SEED] [-j PROCS]\n"
		"\n"
		"Attacks a softiwarp device from user space; each case prints\n"
		"\"hostile-user: CASE: pass|fail: reason\" and exits 1 on a failure.\n"
		"\n"
		"  -s         the server side (modify-accept-race: its own server;\n"
		"             every other case: the sink, which runs until SIGTERM)\n"
		"  -c         the client side, the attacker\n"
		"  -a ADDR    the server's address (listen on it with -s)\n"
		"  -p PORT    its port (7290)\n"
		"  -n ROUNDS  rounds of modify-accept-race (20, divided by E2E_SLOW)\n"
		"  -d DIR     where the read-only files go ($TMPDIR or /tmp)\n"
		"  -t SECS    the time limit of the sink, of kernel-qpn and of\n"
		"             verbs-random (240)\n"
		"  -m MAX     dereg-reuse-*: the stag_index_max set in debugfs (64)\n"
		"  -L A:P     foreign-qpn: process B's listener address and port\n"
		"  -P         foreign-qpn: the peer that connects to that listener\n"
		"  -S SEED    verbs-random: the seed (default: the clock)\n"
		"  -j PROCS   verbs-random: processes (4)\n"
		"  -h         this text\n"
		"\n"
		"E2E_SLOW=N in the environment multiplies the time limits.\n"
		"\n"
		"cases:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		fprintf(f, "  %-22s\n\t\t%s\n", cases[i].name, cases[i].help);
}

int main(int argc, char **argv)
{
	const char *e = getenv("E2E_SLOW");
	int ci = -1, opt, rc;
	bool client = false;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		print_usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(argv[1], cases[i].name))
			ci = i;
	if (ci < 0) {
		fprintf(stderr, "hostile-user: no case %s (see --help)\n",
			argv[1]);
		return 2;
	}
	o.cname = cases[ci].name;
	if (e && atof(e) >= 1)
		slow = atof(e);
	optind = 2;
	while ((opt = getopt(argc, argv, "sca:p:n:d:t:m:L:PS:j:h")) != -1) {
		switch (opt) {
		case 's':
			o.server = true;
			break;
		case 'c':
			client = true;
			break;
		case 'a':
			o.addr = optarg;
			break;
		case 'p':
			o.port = optarg;
			break;
		case 'n':
			o.rounds = atoi(optarg);
			break;
		case 'd':
			o.dir = optarg;
			break;
		case 't':
			o.limit = atoi(optarg);
			break;
		case 'm':
			o.index_max = atoi(optarg);
			break;
		case 'L': {
			char *c = strrchr(optarg, ':');

			if (!c) {
				print_usage(stderr);
				return 2;
			}
			*c = 0;
			o.laddr = optarg;
			o.lport = c + 1;
			break;
		}
		case 'P':
			o.peer = true;
			break;
		case 'S':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			o.procs = atoi(optarg);
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (o.server == client || !o.addr) {
		print_usage(stderr);
		return 2;
	}
	if (!o.rounds) {
		o.rounds = (int)(cases[ci].rounds / slow);
		if (o.rounds < 1)
			o.rounds = 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!o.server)
		rc = cases[ci].client();
	else if (cases[ci].server)
		rc = cases[ci].server();
	else
		rc = sink_server();
	return rc || failures ? 1 : 0;
}
