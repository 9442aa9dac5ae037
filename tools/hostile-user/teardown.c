// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-user: teardown under load: a process killed under traffic, then
 * its objects destroyed (destroy-under-traffic), ORD/IRD raised while
 * accepting (modify-accept-race).
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

int destroy_under_traffic(void)
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

int mar_server(void)
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

int mar_client(void)
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
