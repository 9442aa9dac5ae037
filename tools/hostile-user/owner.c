// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-user: other owners' objects: CQs of another process (cq-not-
 * mine), another process's QP number (foreign-qpn), a kernel consumer's QP
 * numbers (kernel-qpn).
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
int cq_not_mine(void)
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

int foreign_qpn(void)
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

int kernel_qpn(void)
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
