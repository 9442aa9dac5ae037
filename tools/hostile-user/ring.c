// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-user: the shared rings: SQEs rewritten by hand (sqe-rewrite), an
 * SQ refilled while its QP goes to ERROR (sq-refill-error).
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

int sqe_rewrite(void)
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

int sq_refill_error(void)
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
