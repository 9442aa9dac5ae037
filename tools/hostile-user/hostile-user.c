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
atomic_int terminated;	/* set by SIGTERM, SIGINT */

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

void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

const char *evname(int e)
{
	return rdma_event_str(e);
}

/* --- connection manager ------------------------------------------------- */

/* next event on @ec within @secs (not scaled; <= 0: none waiting): 0, or -1 */
int cm_next(struct rdma_event_channel *ec, struct cm_ev *ev, double secs)
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
int cm_wait(struct rdma_event_channel *ec, enum rdma_cm_event_type want,
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

int resolve(struct rdma_cm_id *id, struct rdma_event_channel *ec,
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

int cm_listen(struct rdma_event_channel **ecp, struct rdma_cm_id **idp,
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

void *page_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, PAGE, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

/* PD, CQ, QP on @c->id and the two regions; 0 or -1 */
int conn_res(struct conn *c, const struct qp_want *w)
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

struct pdata conn_pdata(struct conn *c)
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

void conn_free(struct conn *c)
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
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
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
int poll_kind(struct ibv_cq *cq, unsigned int kind, struct ibv_wc *wc,
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

bool status_valid(enum ibv_wc_status s)
{
	return (unsigned int)s <= IBV_WC_GENERAL_ERR;
}

/* --- the sink server ------------------------------------------------------ */

#define SINK_CONNS 16

void on_term(int sig)
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
