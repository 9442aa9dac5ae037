// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-user verbs-random: seeded random sequences of verbs calls from
 * several processes at once, each with its own objects on the device:
 * user contexts, PDs, MRs, CQs, SRQs and QPs created, modified, posted
 * to, polled and destroyed in random order, with arguments inside the
 * device's limits and outside them, while each process keeps a
 * connection to the sink (rdma_cm) with SENDs, RDMA Writes and Reads
 * going, its QP now and then modified at random too, torn down and made
 * again at random. A reconnect the sink refuses or does not answer is
 * tried again a second later; a process ends early only after
 * VR_LOST_MAX failed in a row (the first hour on the debug kernel lasted
 * 12 minutes: each process ended at its first failed reconnect).
 *
 * What it checks itself: every call returns within tmo(5) s, no process
 * dies of a signal, every process ends by itself within its time. What
 * the kernel made of it is the test's to judge (tools/e2e/19-hostile-
 * user.sh: a clean kernel log on the debug kernel, nothing left in
 * `rdma resource show`). Results of the calls do not matter: a refusal
 * is as good as a success.
 *
 * It keeps to what libsiw needs of its user, which is not the kernel's
 * business: a CQ or SRQ libsiw failed to destroy (in use) is never used
 * again (libsiw unmapped its ring first) but destroyed by hand once no QP
 * is left (at most VR_DEAD wait: the first long run on the debug kernel
 * piled up their rings until the guest ran out of memory; libsiw's own
 * second destroy unmaps an address another ring may have by then), and
 * no receive is
 * posted to a
 * QP with an SRQ (libsiw divides by its RQ size, 0), and inline data
 * comes from the process's own memory (libsiw copies it).
 *
 * -S SEED (default: from the clock) and -j PROCS (4) set the run; the
 * seed is printed first. Process k draws from SEED + k, so a run replays
 * the same calls per process (their interleaving is the scheduler's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "hostile-user.h"

#define VR_CTX		2
#define VR_PD		4
#define VR_MR		16
#define VR_CQ		6
#define VR_SRQ		3
#define VR_QP		8
#define VR_BUF		(256 * 1024)
#define VR_DEAD		8	/* CQs or SRQs libsiw failed to destroy */
#define VR_LOST_MAX	10	/* reconnects failed in a row: the sink is gone */

enum vr_op {
	VR_CTX_OP, VR_PD_OP, VR_MR_OP, VR_CQ_OP, VR_SRQ_OP, VR_QP_OP,
	VR_MODIFY, VR_SEND, VR_RECV, VR_SRQ_RECV, VR_POLL, VR_QUERY,
	VR_TRAFFIC, VR_RECONNECT, VR_NOPS
};

static const char *const vr_names[VR_NOPS] = {
	"context", "pd", "mr", "cq", "srq", "qp", "modify", "post_send",
	"post_recv", "post_srq_recv", "poll", "query", "traffic", "reconnect",
};

/* weights of the operations, out of their sum */
static const unsigned int vr_weight[VR_NOPS] = {
	1, 3, 6, 3, 2, 5, 6, 8, 5, 3, 8, 2, 6, 1,
};

struct vr {
	uint64_t rnd;
	struct ibv_context *ctx[VR_CTX];
	struct ibv_pd *pd[VR_PD];
	int pd_ctx[VR_PD];
	struct ibv_mr *mr[VR_MR];
	int mr_pd[VR_MR];
	struct ibv_cq *cq[VR_CQ];
	int cq_ctx[VR_CQ];
	struct ibv_srq *srq[VR_SRQ];
	int srq_pd[VR_SRQ];
	struct ibv_cq *dead_cq[VR_DEAD];
	struct ibv_srq *dead_srq[VR_DEAD];
	struct ibv_qp *qp[VR_QP];
	int qp_pd[VR_QP];
	bool qp_srq[VR_QP];	/* libsiw divides by its RQ size, 0 then */
	struct ibv_device_attr attr;
	struct conn c;
	bool connected;
	int lost;	/* reconnects failed in a row */
	char *buf;		/* what the MRs cover */
	unsigned long calls[VR_NOPS], ok[VR_NOPS];
	double slowest;
	int slowest_op;
};

static uint64_t vr_next(struct vr *v)
{
	/* xorshift64* */
	v->rnd ^= v->rnd >> 12;
	v->rnd ^= v->rnd << 25;
	v->rnd ^= v->rnd >> 27;
	return v->rnd * 0x2545f4914f6cdd1dULL;
}

static uint32_t vr_below(struct vr *v, uint32_t n)
{
	return n ? vr_next(v) % n : 0;
}

/* a value near the limit, at it, past it, zero, or anything */
static uint32_t vr_count(struct vr *v, uint32_t limit)
{
	switch (vr_below(v, 8)) {
	case 0:
		return 0;
	case 1:
		return limit;
	case 2:
		return limit + 1;
	case 3:
		return (uint32_t)vr_next(v);
	default:
		return 1 + vr_below(v, limit < 64 ? limit : 64);
	}
}

static int vr_ctx_of(struct vr *v)
{
	int i = vr_below(v, VR_CTX);

	return v->ctx[i] ? i : 0;
}

/* an existing object of table @tab of @n, or -1 */
static int vr_pick(struct vr *v, void *const *tab, int n)
{
	int i = vr_below(v, n), k;

	for (k = 0; k < n && !tab[i]; k++)
		i = (i + 1) % n;
	return k < n ? i : -1;
}

static int vr_any_pd(struct vr *v)
{
	return vr_pick(v, (void *const *)v->pd, VR_PD);
}

static int vr_any_mr(struct vr *v)
{
	return vr_pick(v, (void *const *)v->mr, VR_MR);
}

static int vr_any_cq(struct vr *v)
{
	return vr_pick(v, (void *const *)v->cq, VR_CQ);
}

static int vr_any_srq(struct vr *v)
{
	return vr_pick(v, (void *const *)v->srq, VR_SRQ);
}

static int vr_any_qp(struct vr *v)
{
	return vr_pick(v, (void *const *)v->qp, VR_QP);
}

/*
 * DESTROY_CQ or DESTROY_SRQ of handle @handle written to uverbs by hand:
 * libsiw's own destroy would munmap the ring's old address again, which
 * by now may hold another object's ring.
 */
static int vr_raw_destroy(struct ibv_context *ctx, uint32_t cmd,
			  uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		__u64 response;
		__u32 handle;
		__u32 reserved;
	} c = { .handle = handle };
	__u32 resp[2];

	c.response = (uintptr_t)resp;
	return uverbs_cmd(ctx->cmd_fd, cmd, &c, sizeof(c), sizeof(resp));
}

/*
 * Every QP destroyed, then the CQs and SRQs libsiw failed to destroy
 * while a QP held them: destroyed now, by hand. Their rings stay the
 * kernel's until then, so the dead are few.
 */
static void vr_reap(struct vr *v)
{
	for (int i = 0; i < VR_QP; i++)
		if (v->qp[i] && !ibv_destroy_qp(v->qp[i]))
			v->ok[VR_QP_OP]++;
	memset(v->qp, 0, sizeof(v->qp));
	for (int i = 0; i < VR_DEAD; i++) {
		struct ibv_srq *s = v->dead_srq[i];

		if (s && vr_raw_destroy(s->context, IB_USER_VERBS_CMD_DESTROY_SRQ,
					s->handle))
			say("an SRQ without QPs: DESTROY_SRQ: %s", strerror(errno));
		v->dead_srq[i] = NULL;
	}
	for (int i = 0; i < VR_DEAD; i++) {
		struct ibv_cq *c = v->dead_cq[i];

		if (c && vr_raw_destroy(c->context, IB_USER_VERBS_CMD_DESTROY_CQ,
					c->handle))
			say("a CQ without QPs: DESTROY_CQ: %s", strerror(errno));
		v->dead_cq[i] = NULL;
	}
}

/* a CQ or SRQ libsiw failed to destroy goes to @dead; reaped when full */
static void vr_bury(struct vr *v, void **dead, void *obj)
{
	for (int i = 0; i < VR_DEAD; i++)
		if (!dead[i]) {
			dead[i] = obj;
			return;
		}
	vr_reap(v);
	dead[0] = obj;
}

static void vr_ctx(struct vr *v)
{
	int i = 1;	/* context 0 is the connection's, kept */
	struct ibv_device **list;

	if (v->ctx[i]) {
		/* the dead of this context go by its fd: before it closes */
		vr_reap(v);
		for (int k = 0; k < VR_PD; k++)
			if (v->pd_ctx[k] == i && v->pd[k])
				return;	/* its objects first */
		for (int k = 0; k < VR_CQ; k++)
			if (v->cq_ctx[k] == i && v->cq[k])
				return;
		if (!ibv_close_device(v->ctx[i]))
			v->ok[VR_CTX_OP]++;
		v->ctx[i] = NULL;
		return;
	}
	list = ibv_get_device_list(NULL);
	for (int k = 0; list && list[k]; k++)
		if (list[k] == v->ctx[0]->device ||
		    !strcmp(ibv_get_device_name(list[k]),
			    ibv_get_device_name(v->ctx[0]->device)))
			v->ctx[i] = ibv_open_device(list[k]);
	if (list)
		ibv_free_device_list(list);
	if (v->ctx[i])
		v->ok[VR_CTX_OP]++;
}

static void vr_pd(struct vr *v)
{
	int i = vr_below(v, VR_PD), c;

	if (v->pd[i]) {
		if (!ibv_dealloc_pd(v->pd[i])) {	/* EBUSY while in use */
			v->pd[i] = NULL;
			v->ok[VR_PD_OP]++;
		}
		return;
	}
	c = vr_ctx_of(v);
	v->pd[i] = ibv_alloc_pd(v->ctx[c]);
	v->pd_ctx[i] = c;
	if (v->pd[i])
		v->ok[VR_PD_OP]++;
}

static void vr_mr(struct vr *v)
{
	static const int access[] = {
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_WRITE,	/* without LOCAL_WRITE: refused */
		IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE,
		0x7fffffff,
	};
	int i = vr_below(v, VR_MR), p;
	size_t off, len;
	void *addr;

	if (v->mr[i]) {
		if (!ibv_dereg_mr(v->mr[i]))
			v->ok[VR_MR_OP]++;
		v->mr[i] = NULL;
		return;
	}
	p = vr_any_pd(v);
	if (p < 0)
		return;
	off = vr_below(v, VR_BUF);
	len = vr_below(v, 4) ? 1 + vr_below(v, VR_BUF - off) :
			       vr_below(v, 2) ? 0 : (size_t)1 << 40;
	addr = vr_below(v, 16) ? v->buf + off : (void *)(uintptr_t)vr_next(v);
	v->mr[i] = ibv_reg_mr(v->pd[p], addr, len,
			      access[vr_below(v, ARRAY_SIZE(access))]);
	v->mr_pd[i] = p;
	if (v->mr[i])
		v->ok[VR_MR_OP]++;
}

static void vr_cq(struct vr *v)
{
	int i = vr_below(v, VR_CQ), c;

	if (v->cq[i]) {
		/*
		 * EBUSY while a QP has it. libsiw unmaps the ring before it
		 * asks the kernel, so a CQ it failed to destroy cannot be
		 * polled any more: buried, destroyed once its QPs are gone.
		 */
		if (!ibv_destroy_cq(v->cq[i]))
			v->ok[VR_CQ_OP]++;
		else
			vr_bury(v, (void **)v->dead_cq, v->cq[i]);
		v->cq[i] = NULL;
		return;
	}
	c = vr_ctx_of(v);
	v->cq[i] = ibv_create_cq(v->ctx[c], (int)vr_count(v, v->attr.max_cqe),
				 NULL, NULL, 0);
	v->cq_ctx[i] = c;
	if (v->cq[i])
		v->ok[VR_CQ_OP]++;
}

static void vr_srq(struct vr *v)
{
	struct ibv_srq_init_attr a = { 0 };
	int i = vr_below(v, VR_SRQ), p;

	if (v->srq[i]) {
		/* as a CQ: one libsiw failed to destroy is buried */
		if (!ibv_destroy_srq(v->srq[i]))
			v->ok[VR_SRQ_OP]++;
		else
			vr_bury(v, (void **)v->dead_srq, v->srq[i]);
		v->srq[i] = NULL;
		return;
	}
	p = vr_any_pd(v);
	if (p < 0)
		return;
	a.attr.max_wr = vr_count(v, v->attr.max_srq_wr);
	a.attr.max_sge = vr_count(v, v->attr.max_srq_sge);
	a.attr.srq_limit = vr_below(v, 4) ? 0 : vr_count(v, a.attr.max_wr);
	v->srq[i] = ibv_create_srq(v->pd[p], &a);
	v->srq_pd[i] = p;
	if (v->srq[i])
		v->ok[VR_SRQ_OP]++;
}

static void vr_qp(struct vr *v)
{
	struct ibv_qp_init_attr a = { 0 };
	int i = vr_below(v, VR_QP), p, s, r, q;

	if (v->qp[i]) {
		if (!ibv_destroy_qp(v->qp[i]))
			v->ok[VR_QP_OP]++;
		v->qp[i] = NULL;
		return;
	}
	p = vr_any_pd(v);
	s = vr_any_cq(v);
	r = vr_any_cq(v);
	if (p < 0 || s < 0 || r < 0)
		return;
	q = vr_below(v, 3) ? -1 : vr_any_srq(v);
	a.send_cq = v->cq[s];
	a.recv_cq = v->cq[r];
	a.srq = q >= 0 ? v->srq[q] : NULL;
	a.qp_type = vr_below(v, 16) ? IBV_QPT_RC : IBV_QPT_UD;
	a.sq_sig_all = vr_below(v, 2);
	a.cap.max_send_wr = vr_count(v, v->attr.max_qp_wr);
	a.cap.max_recv_wr = vr_count(v, v->attr.max_qp_wr);
	a.cap.max_send_sge = vr_count(v, v->attr.max_sge);
	a.cap.max_recv_sge = vr_count(v, v->attr.max_sge);
	a.cap.max_inline_data = vr_below(v, 2) ? 0 : vr_count(v, 80);
	v->qp[i] = ibv_create_qp(v->pd[p], &a);
	v->qp_pd[i] = p;
	v->qp_srq[i] = a.srq;
	if (v->qp[i])
		v->ok[VR_QP_OP]++;
}

static void vr_modify(struct vr *v)
{
	static const enum ibv_qp_state st[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR, 77,
	};
	struct ibv_qp_attr a = { 0 };
	int i = vr_any_qp(v), mask;
	struct ibv_qp *qp = i >= 0 ? v->qp[i] : NULL;

	/* now and then the connected QP, under its traffic */
	if (v->connected && !vr_below(v, 8))
		qp = v->c.qp;
	if (!qp)
		return;
	a.qp_state = st[vr_below(v, ARRAY_SIZE(st))];
	a.cur_qp_state = st[vr_below(v, ARRAY_SIZE(st))];
	a.qp_access_flags = (int)vr_next(v);
	a.max_rd_atomic = vr_count(v, v->attr.max_qp_rd_atom);
	a.max_dest_rd_atomic = vr_count(v, v->attr.max_qp_rd_atom);
	a.pkey_index = vr_below(v, 2);
	a.port_num = vr_below(v, 3);
	a.dest_qp_num = (uint32_t)vr_next(v);
	a.sq_psn = (uint32_t)vr_next(v);
	a.rq_psn = (uint32_t)vr_next(v);
	a.cap.max_send_wr = vr_count(v, v->attr.max_qp_wr);
	mask = vr_below(v, 4) ? IBV_QP_STATE : (int)vr_next(v) & 0x1fffff;
	if (!ibv_modify_qp(qp, &a, mask))
		v->ok[VR_MODIFY]++;
}

/* an SGE over an MR of ours, or with a key and range of anything */
static void vr_sge(struct vr *v, struct ibv_sge *sge)
{
	int m = vr_any_mr(v);

	if (m >= 0 && vr_below(v, 8)) {
		struct ibv_mr *mr = v->mr[m];

		sge->lkey = mr->lkey;
		sge->addr = (uintptr_t)mr->addr + vr_below(v, mr->length + 8);
		sge->length = vr_below(v, 4) ? vr_below(v, mr->length + 1) :
					       (uint32_t)vr_next(v);
		return;
	}
	sge->lkey = (uint32_t)vr_next(v);
	sge->addr = vr_below(v, 2) ? (uintptr_t)v->buf : vr_next(v);
	sge->length = vr_below(v, 2) ? vr_below(v, 4096) : (uint32_t)vr_next(v);
}

static void vr_send(struct vr *v)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP, 99,
	};
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge[4][4];
	int i = vr_any_qp(v), n = 1 + vr_below(v, 4);

	if (i < 0)
		return;
	memset(wr, 0, sizeof(wr));
	for (int k = 0; k < n; k++) {
		wr[k].wr_id = vr_next(v);
		wr[k].opcode = ops[vr_below(v, ARRAY_SIZE(ops))];
		/* at most our array: libsiw reads num_sge of them */
		wr[k].num_sge = vr_below(v, 5);
		wr[k].sg_list = sge[k];
		for (int s = 0; s < 4; s++)
			vr_sge(v, &sge[k][s]);
		wr[k].send_flags = (int)vr_next(v) & 0x3f;
		/* libsiw copies inline data itself: from our own memory */
		if (wr[k].send_flags & IBV_SEND_INLINE)
			for (int s = 0; s < 4; s++) {
				sge[k][s].addr = (uintptr_t)v->buf +
						 vr_below(v, 4096);
				sge[k][s].length = vr_below(v, 64);
			}
		wr[k].wr.rdma.remote_addr = vr_next(v);
		wr[k].wr.rdma.rkey = (uint32_t)vr_next(v);
		wr[k].invalidate_rkey = (uint32_t)vr_next(v);
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
	}
	if (!ibv_post_send(v->qp[i], wr, &bad))
		v->ok[VR_SEND]++;
}

static void vr_recv(struct vr *v, bool srq)
{
	struct ibv_recv_wr wr[4], *bad;
	struct ibv_sge sge[4][4];
	int i = srq ? vr_any_srq(v) : vr_any_qp(v);
	int n = 1 + vr_below(v, 4), rc;

	if (i < 0 || (!srq && v->qp_srq[i]))
		return;
	memset(wr, 0, sizeof(wr));
	for (int k = 0; k < n; k++) {
		wr[k].wr_id = vr_next(v);
		wr[k].num_sge = vr_below(v, 5);
		wr[k].sg_list = sge[k];
		for (int s = 0; s < 4; s++)
			vr_sge(v, &sge[k][s]);
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
	}
	rc = srq ? ibv_post_srq_recv(v->srq[i], wr, &bad) :
		   ibv_post_recv(v->qp[i], wr, &bad);
	if (!rc)
		v->ok[srq ? VR_SRQ_RECV : VR_RECV]++;
}

static void vr_poll(struct vr *v)
{
	struct ibv_wc wc[16];
	int i = vr_any_cq(v);

	if (i < 0)
		return;
	if (vr_below(v, 4) == 0) {
		if (!ibv_req_notify_cq(v->cq[i], vr_below(v, 2)))
			v->ok[VR_POLL]++;
		return;
	}
	if (ibv_poll_cq(v->cq[i], 1 + vr_below(v, 16), wc) >= 0)
		v->ok[VR_POLL]++;
}

static void vr_query(struct vr *v)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_srq_attr sa;
	struct ibv_port_attr pa;
	int i;

	switch (vr_below(v, 4)) {
	case 0:
		i = vr_any_qp(v);
		if (i >= 0 && !ibv_query_qp(v->qp[i], &qa, (int)vr_next(v), &ia))
			v->ok[VR_QUERY]++;
		break;
	case 1:
		i = vr_any_srq(v);
		if (i >= 0 && !ibv_query_srq(v->srq[i], &sa))
			v->ok[VR_QUERY]++;
		break;
	case 2:
		if (!ibv_query_port(v->ctx[0], vr_below(v, 3), &pa))
			v->ok[VR_QUERY]++;
		break;
	default:
		i = vr_any_cq(v);
		if (i >= 0 && !ibv_resize_cq(v->cq[i], vr_count(v, 4096)))
			v->ok[VR_QUERY]++;
	}
}

/* traffic on the connection to the sink: an ECHO, a Write, a Read */
static void vr_traffic(struct vr *v)
{
	struct conn *c = &v->c;
	struct ibv_wc wc[16];
	int k = vr_below(v, 3), rc, n;

	if (!v->connected)
		return;
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			if (WRKIND(wc[i].wr_id) == WR_RECV &&
			    wc[i].status == IBV_WC_SUCCESS)
				post_recv_slot(c, WRN(wc[i].wr_id));
	if (k == 0) {
		memcpy(c->buf + NSLOTS * SLOT_LEN, "ECHO", 4);
		rc = post_send(c, WRID(WR_ECHO, 0), c->buf + NSLOTS * SLOT_LEN,
			       64, c->mr->lkey, 0);
	} else {
		rc = post_rdma(c, k == 1 ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
			       WRID(WR_DATA, 0), c->rbuf,
			       1 + vr_below(v, RMR_LEN), c->rmr->lkey,
			       c->peer.addr, c->peer.rkey);
	}
	if (!rc)
		v->ok[VR_TRAFFIC]++;
}

static void vr_reconnect(struct vr *v)
{
	if (v->connected)
		client_close(&v->c);
	v->connected = !client_connect(&v->c, &qp_default, NULL);
	if (v->connected) {
		v->c.established = true;
		v->ok[VR_RECONNECT]++;
		v->lost = 0;
	} else {
		v->lost++;
		sleep_s(1);	/* the sink may be busy: try again */
	}
}

static void vr_recv_qp(struct vr *v)
{
	vr_recv(v, false);
}

static void vr_recv_srq(struct vr *v)
{
	vr_recv(v, true);
}

static void (*const vr_step[VR_NOPS])(struct vr *v) = {
	[VR_CTX_OP] = vr_ctx,		[VR_PD_OP] = vr_pd,
	[VR_MR_OP] = vr_mr,		[VR_CQ_OP] = vr_cq,
	[VR_SRQ_OP] = vr_srq,		[VR_QP_OP] = vr_qp,
	[VR_MODIFY] = vr_modify,	[VR_SEND] = vr_send,
	[VR_RECV] = vr_recv_qp,		[VR_SRQ_RECV] = vr_recv_srq,
	[VR_POLL] = vr_poll,		[VR_QUERY] = vr_query,
	[VR_TRAFFIC] = vr_traffic,	[VR_RECONNECT] = vr_reconnect,
};

static int vr_pick_op(struct vr *v)
{
	unsigned int sum = 0, r;
	int op;

	for (op = 0; op < VR_NOPS; op++)
		sum += vr_weight[op];
	r = vr_below(v, sum);
	for (op = 0; r >= vr_weight[op]; op++)
		r -= vr_weight[op];
	return op;
}

/* everything of ours destroyed, QPs first */
static void vr_teardown(struct vr *v)
{
	vr_reap(v);
	for (int i = 0; i < VR_SRQ; i++)
		if (v->srq[i])
			ibv_destroy_srq(v->srq[i]);
	for (int i = 0; i < VR_MR; i++)
		if (v->mr[i])
			ibv_dereg_mr(v->mr[i]);
	for (int i = 0; i < VR_CQ; i++)
		if (v->cq[i])
			ibv_destroy_cq(v->cq[i]);
	for (int i = 0; i < VR_PD; i++)
		if (v->pd[i])
			ibv_dealloc_pd(v->pd[i]);
	if (v->ctx[1])
		ibv_close_device(v->ctx[1]);
	if (v->connected)
		client_close(&v->c);
}

static atomic_int vr_cur_op = -1;	/* lock-free: read by the handler */

/* a worker killed by a signal says in which call, and where */
static void vr_fatal(int sig)
{
	void *bt[32];
	char line[96];
	int n = snprintf(line, sizeof(line),
			 "hostile-user: verbs-random: note: signal %d in %s\n",
			 sig, atomic_load(&vr_cur_op) >= 0 ?
			 vr_names[atomic_load(&vr_cur_op)] : "setup");

	if (write(STDOUT_FILENO, line, n) < 0)
		_exit(128 + sig);
	backtrace_symbols_fd(bt, backtrace(bt, 32), STDOUT_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* one process: until @end, then everything destroyed; 0 when all went well */
static int vr_worker(uint64_t seed, double end)
{
	struct vr *v = calloc(1, sizeof(*v));
	unsigned long n = 0;
	int bad = 0;

	if (!v)
		return 1;
	signal(SIGSEGV, vr_fatal);
	signal(SIGFPE, vr_fatal);
	signal(SIGBUS, vr_fatal);
	signal(SIGABRT, vr_fatal);
	v->rnd = seed * 0x9e3779b97f4a7c15ULL + 1;
	v->buf = mmap(NULL, VR_BUF, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->buf == MAP_FAILED)
		return 1;
	v->calls[VR_RECONNECT]++;
	vr_reconnect(v);
	if (!v->connected) {
		say("seed %llu: no connection to the sink",
		    (unsigned long long)seed);
		return 1;
	}
	v->ctx[0] = v->c.id->verbs;
	if (ibv_query_device(v->ctx[0], &v->attr))
		return 1;
	while (now() < end) {
		int op = vr_pick_op(v);
		double t0 = now(), dt;

		v->calls[op]++;
		atomic_store(&vr_cur_op, op);
		vr_step[op](v);
		atomic_store(&vr_cur_op, -1);
		if (op == VR_RECONNECT && v->connected)
			v->ctx[0] = v->c.id->verbs;
		dt = now() - t0;
		if (dt > v->slowest) {
			v->slowest = dt;
			v->slowest_op = op;
		}
		n++;
		/* the device or the sink gone: nothing more to do */
		if (!v->connected && op == VR_RECONNECT && v->lost >= VR_LOST_MAX)
			break;
	}
	vr_teardown(v);
	if (v->slowest > tmo(5) && v->slowest_op != VR_RECONNECT) {
		say("seed %llu: %s took %.3f s", (unsigned long long)seed,
		    vr_names[v->slowest_op], v->slowest);
		bad = 1;
	}
	printf("hostile-user: %s: note: seed %llu: %lu calls:",
	       o.cname, (unsigned long long)seed, n);
	for (int op = 0; op < VR_NOPS; op++)
		printf(" %s %lu/%lu", vr_names[op], v->ok[op], v->calls[op]);
	printf(" (succeeded/called); slowest %.3f s (%s)\n", v->slowest,
	       vr_names[v->slowest_op]);
	fflush(stdout);
	return bad;
}

/**
 * verbs_random() - the verbs-random case (the top of this file)
 *
 * Return: 0 when every process ended by itself, in time, without a slow
 * call; 1 otherwise.
 */
int verbs_random(void)
{
	uint64_t seed = o.seed ? o.seed : (uint64_t)time(NULL);
	int procs = o.procs > 0 ? o.procs : 4, done = 0, good = 0, st;
	double end = now() + o.limit, deadline = end + tmo(60);
	pid_t pid[64];

	if (procs > 64)
		procs = 64;
	say("seed %llu, %d processes, %d s (replay: -S %llu -j %d)",
	    (unsigned long long)seed, procs, o.limit,
	    (unsigned long long)seed, procs);
	for (int k = 0; k < procs; k++) {
		pid[k] = fork();
		if (pid[k] == 0)
			_exit(vr_worker(seed + k, end));
	}
	while (done < procs && now() < deadline) {
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p <= 0) {
			usleep(100000);
			continue;
		}
		done++;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			good++;
		else if (WIFSIGNALED(st))
			say("a process died of signal %d", WTERMSIG(st));
		else
			say("a process exited %d", WEXITSTATUS(st));
	}
	for (int k = 0; k < procs && done < procs; k++)
		kill(pid[k], SIGKILL);
	expect(done == procs, "%d of %d processes ended within %.0f s of the end",
	       done, procs, tmo(60));
	verdict(done == procs && good == procs,
		"seed %llu: %d of %d processes clean", (unsigned long long)seed,
		good, procs);
	return !(done == procs && good == procs);
}
