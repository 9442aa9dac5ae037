// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suites softiwarp_cq and softiwarp_srq
 *
 * The CQ and SRQ rings without a device: a bare struct swi_cq or struct
 * swi_srq whose ring is set up with swi_cq_init_ring() or
 * swi_srq_init_ring(), driven through the verbs and the data path calls.
 *
 * CQ: push and poll order over several laps of the ring, in batches;
 * overflow refused with IB_EVENT_CQ_ERR, raised once while the CQ stays
 * full; polling an empty CQ; the
 * siw -> IB status and opcode mapping, remote invalidation and bad
 * values; NEXT_COMP and SOLICITED arming firing the completion handler
 * once; REPORT_MISSED_EVENTS; a user CQ consumed and armed the way
 * libsiw does it; pushes from softirq and hardirq-off context.
 *
 * SRQ: posting until full and with too many SGEs (bad_wr), taking
 * entries in order over several laps, the limit event fired once per
 * arming, modify/query, and a malformed user-written entry.
 */
#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>

#include "dev/softiwarp.h"

#define CQ_NUM	8
#define SRQ_NUM	4

struct cq_test {
	struct swi_cq cq;
	int comp_calls;
	int events;
	struct ib_event last;
};

static void cq_test_comp(struct ib_cq *ibcq, void *ctx)
{
	struct cq_test *ct = ctx;

	ct->comp_calls++;
}

static void cq_test_event(struct ib_event *ev, void *ctx)
{
	struct cq_test *ct = ctx;

	ct->events++;
	ct->last = *ev;
}

static struct cq_test *cq_test_setup(struct kunit *test, bool user)
{
	struct cq_test *ct = kunit_kzalloc(test, sizeof(*ct), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ct);
	KUNIT_ASSERT_EQ(test, swi_cq_init_ring(&ct->cq, CQ_NUM, user), 0);
	ct->cq.base.comp_handler = cq_test_comp;
	ct->cq.base.event_handler = cq_test_event;
	ct->cq.base.cq_context = ct;
	test->priv = ct;
	return ct;
}

static void cq_test_exit(struct kunit *test)
{
	struct cq_test *ct = test->priv;

	if (ct)
		swi_cq_free_ring(&ct->cq);
}

static int cq_push_id(struct cq_test *ct, u64 id, bool solicited)
{
	struct siw_cqe cqe = {
		.id = id,
		.opcode = SIW_OP_RECEIVE,
		.status = SIW_WC_SUCCESS,
		.bytes = 100,
	};

	return swi_cq_push(&ct->cq, &cqe, solicited);
}

static void cq_init_ring_needs_power_of_two(struct kunit *test)
{
	struct swi_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cq);
	KUNIT_EXPECT_EQ(test, swi_cq_init_ring(cq, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_cq_init_ring(cq, 6, false), -EINVAL);
	KUNIT_ASSERT_EQ(test, swi_cq_init_ring(cq, 1, false), 0);
	KUNIT_EXPECT_EQ(test, cq->ring.num, 1U);
	KUNIT_EXPECT_PTR_EQ(test, (void *)cq->ctrl,
			    (void *)((struct siw_cqe *)cq->ring.queue + 1));
	KUNIT_EXPECT_EQ(test, cq->ctrl->flags, (u32)SIW_NOTIFY_NOT);
	swi_cq_free_ring(cq);
}

static void cq_poll_empty_gives_zero(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_wc wc[2];

	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 2, wc), 0);
	KUNIT_ASSERT_EQ(test, cq_push_id(ct, 1, false), 0);
	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 0, wc), 0);
	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 2, wc), 1);
	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 2, wc), 0);
}

/* Batches of 5 on a ring of 8: every slot is used in every position */
static void cq_push_poll_order_wraps(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_wc wc[CQ_NUM];
	u64 next_put = 1, next_get = 1;
	int lap, i, n;

	for (lap = 0; lap < 5 * CQ_NUM; lap++) {
		for (i = 0; i < 5; i++)
			KUNIT_ASSERT_EQ(test, cq_push_id(ct, next_put++, false), 0);
		n = swi_poll_cq(&ct->cq.base, 3, wc);
		n += swi_poll_cq(&ct->cq.base, CQ_NUM, wc + n);
		KUNIT_ASSERT_EQ(test, n, 5);
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, next_get++);
			KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
			KUNIT_EXPECT_EQ(test, wc[i].byte_len, 100U);
		}
	}
	KUNIT_EXPECT_EQ(test, ct->cq.ring.put, 25U * CQ_NUM);
	KUNIT_EXPECT_EQ(test, ct->cq.ring.get, ct->cq.ring.put);
	KUNIT_EXPECT_EQ(test, ct->events, 0);
}

/*
 * A CQ that stays full raises IB_EVENT_CQ_ERR once, not once per lost
 * completion: a user who fills its CQ ring and flushes a full SQ into it
 * must not queue thousands of events (each an allocation in uverbs);
 * after a push succeeds again, the next overflow raises it again.
 */
static void cq_overflow_event_once(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_wc wc;
	int i;

	for (i = 0; i < CQ_NUM; i++)
		KUNIT_ASSERT_EQ(test, cq_push_id(ct, i, false), 0);
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_EQ(test, cq_push_id(ct, 100 + i, false), -ENOMEM);
	KUNIT_EXPECT_EQ(test, ct->events, 1);
	KUNIT_ASSERT_EQ(test, swi_poll_cq(&ct->cq.base, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, CQ_NUM, false), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 2000, false), -ENOMEM);
	KUNIT_EXPECT_EQ(test, ct->events, 2);
}

static void cq_overflow_refused(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_wc wc;
	int i;

	for (i = 0; i < CQ_NUM; i++)
		KUNIT_ASSERT_EQ(test, cq_push_id(ct, i, false), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 100, false), -ENOMEM);
	KUNIT_EXPECT_EQ(test, ct->events, 1);
	KUNIT_EXPECT_EQ(test, ct->last.event, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_PTR_EQ(test, ct->last.element.cq, &ct->cq.base);

	/* one slot freed: room for exactly one more */
	KUNIT_ASSERT_EQ(test, swi_poll_cq(&ct->cq.base, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0ULL);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, CQ_NUM, false), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 101, false), -ENOMEM);
	for (i = 1; i <= CQ_NUM; i++) {
		KUNIT_ASSERT_EQ(test, swi_poll_cq(&ct->cq.base, 1, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
	}
	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 1, &wc), 0);
}

struct map_case {
	const char *desc;
	u8 opcode;
	u16 status;
	u8 flags;
	enum ib_wc_opcode ib_opcode;
	enum ib_wc_status ib_status;
	int wc_flags;
};

#define MAP_OK(op, ibop) \
	{ #op " -> " #ibop, SIW_OP_##op, SIW_WC_SUCCESS, 0, IB_WC_##ibop, \
	  IB_WC_SUCCESS, 0 }
#define MAP_ST(st) \
	{ #st, SIW_OP_SEND, SIW_WC_##st, 0, IB_WC_SEND, IB_WC_##st, 0 }

static const struct map_case map_cases[] = {
	MAP_OK(WRITE, RDMA_WRITE),
	MAP_OK(READ, RDMA_READ),
	MAP_OK(READ_LOCAL_INV, RDMA_READ),
	MAP_OK(SEND, SEND),
	MAP_OK(SEND_WITH_IMM, SEND),
	MAP_OK(SEND_REMOTE_INV, SEND),
	MAP_OK(RECEIVE, RECV),
	MAP_OK(REG_MR, REG_MR),
	MAP_OK(INVAL_STAG, LOCAL_INV),
	MAP_ST(LOC_LEN_ERR),
	MAP_ST(LOC_PROT_ERR),
	MAP_ST(LOC_QP_OP_ERR),
	MAP_ST(WR_FLUSH_ERR),
	MAP_ST(BAD_RESP_ERR),
	MAP_ST(LOC_ACCESS_ERR),
	MAP_ST(REM_ACCESS_ERR),
	MAP_ST(REM_INV_REQ_ERR),
	MAP_ST(GENERAL_ERR),
	{ "RECEIVE with remote invalidation", SIW_OP_RECEIVE, SIW_WC_SUCCESS,
	  SIW_WQE_REM_INVAL, IB_WC_RECV, IB_WC_SUCCESS,
	  IB_WC_WITH_INVALIDATE },
	{ "status out of range", SIW_OP_SEND, SIW_NUM_WC_STATUS, 0,
	  IB_WC_SEND, IB_WC_GENERAL_ERR, 0 },
	{ "READ_RESPONSE is internal", SIW_OP_READ_RESPONSE, SIW_WC_SUCCESS,
	  0, IB_WC_SEND, IB_WC_GENERAL_ERR, 0 },
	{ "opcode out of range", 0xff, SIW_WC_SUCCESS, 0, IB_WC_SEND,
	  IB_WC_GENERAL_ERR, 0 },
};

KUNIT_ARRAY_PARAM_DESC(map_cases, map_cases, desc);

static void cq_maps_status_and_opcode(struct kunit *test)
{
	const struct map_case *c = test->param_value;
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_qp *qp = (struct ib_qp *)ct;	/* only compared */
	struct siw_cqe cqe = {
		.id = 0x1122334455667788ULL,
		.flags = c->flags,
		.opcode = c->opcode,
		.status = c->status,
		.bytes = 4096,
		.inval_stag = 0xabcdef01,
		.base_qp = qp,
	};
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, swi_cq_push(&ct->cq, &cqe, false), 0);
	KUNIT_ASSERT_EQ(test, swi_poll_cq(&ct->cq.base, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, cqe.id);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4096U);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, qp);
	KUNIT_EXPECT_EQ(test, wc.status, c->ib_status);
	if (c->ib_status == IB_WC_SUCCESS) {
		KUNIT_EXPECT_EQ(test, wc.opcode, c->ib_opcode);
		KUNIT_EXPECT_EQ(test, wc.vendor_err, 0U);
	} else {
		KUNIT_EXPECT_EQ(test, wc.vendor_err, (u32)c->status);
	}
	KUNIT_EXPECT_EQ(test, wc.wc_flags, c->wc_flags);
	if (c->wc_flags & IB_WC_WITH_INVALIDATE)
		KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0xabcdef01U);
}

static void cq_notify_next_comp_fires_once(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);

	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 1, false), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 0);	/* not armed */
	KUNIT_EXPECT_EQ(test, swi_req_notify_cq(&ct->cq.base,
						IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 2, false), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
	KUNIT_EXPECT_EQ(test, ct->cq.ctrl->flags, (u32)SIW_NOTIFY_NOT);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 3, true), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
	swi_req_notify_cq(&ct->cq.base, IB_CQ_NEXT_COMP);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 4, true), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 2);
	KUNIT_EXPECT_EQ(test, swi_req_notify_cq(&ct->cq.base, 0), -EINVAL);
}

static void cq_notify_solicited_only(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);

	swi_req_notify_cq(&ct->cq.base, IB_CQ_SOLICITED);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 1, false), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 2, false), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 0);
	KUNIT_EXPECT_EQ(test, ct->cq.ctrl->flags, (u32)SIW_NOTIFY_SOLICITED);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 3, true), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 4, true), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
}

static void cq_report_missed_events(struct kunit *test)
{
	const enum ib_cq_notify_flags f =
		IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS;
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_wc wc[2];

	KUNIT_EXPECT_EQ(test, swi_req_notify_cq(&ct->cq.base, f), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 1, false), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 2, false), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
	KUNIT_EXPECT_GT(test, swi_req_notify_cq(&ct->cq.base, f), 0);
	KUNIT_EXPECT_GT(test, swi_req_notify_cq(&ct->cq.base,
						IB_CQ_SOLICITED |
						IB_CQ_REPORT_MISSED_EVENTS), 0);
	KUNIT_EXPECT_EQ(test, swi_req_notify_cq(&ct->cq.base,
						IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 2, wc), 2);
	KUNIT_EXPECT_EQ(test, swi_req_notify_cq(&ct->cq.base, f), 0);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
}

/* libsiw's side of a user CQ: consume by clearing flags, arm by storing */
static void cq_user_ring_like_libsiw(struct kunit *test)
{
	const enum ib_cq_notify_flags f =
		IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS;
	struct cq_test *ct = cq_test_setup(test, true);
	struct siw_cqe *q = ct->cq.ring.queue;
	struct ib_wc wc;
	int i;

	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 1, &wc), -EOPNOTSUPP);
	for (i = 0; i < CQ_NUM; i++)
		KUNIT_ASSERT_EQ(test, cq_push_id(ct, i, false), 0);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 100, false), -ENOMEM);
	for (i = 0; i < CQ_NUM; i++) {
		KUNIT_EXPECT_EQ(test, q[i].id, (u64)i);
		KUNIT_EXPECT_TRUE(test, q[i].flags & SIW_WQE_VALID);
	}
	WRITE_ONCE(q[0].flags, 0);
	WRITE_ONCE(ct->cq.ctrl->flags,
		   SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, CQ_NUM, false), 0);
	KUNIT_EXPECT_EQ(test, q[0].id, (u64)CQ_NUM);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
	KUNIT_EXPECT_EQ(test, ct->cq.ctrl->flags, (u32)SIW_NOTIFY_NOT);
	KUNIT_EXPECT_GT(test, swi_req_notify_cq(&ct->cq.base, f), 0);
	for (i = 0; i < CQ_NUM; i++)
		WRITE_ONCE(q[i].flags, 0);
	KUNIT_EXPECT_EQ(test, swi_req_notify_cq(&ct->cq.base, f), 0);
}

/* The data path pushes from softirq and with interrupts off */
static void cq_push_any_context(struct kunit *test)
{
	struct cq_test *ct = cq_test_setup(test, false);
	struct ib_wc wc[2];
	unsigned long flags;

	swi_req_notify_cq(&ct->cq.base, IB_CQ_NEXT_COMP);
	local_bh_disable();
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 1, false), 0);
	local_bh_enable();
	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, cq_push_id(ct, 2, false), 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ct->comp_calls, 1);
	KUNIT_EXPECT_EQ(test, swi_poll_cq(&ct->cq.base, 2, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 2ULL);
}

static struct kunit_case cq_cases[] = {
	KUNIT_CASE(cq_init_ring_needs_power_of_two),
	KUNIT_CASE(cq_poll_empty_gives_zero),
	KUNIT_CASE(cq_push_poll_order_wraps),
	KUNIT_CASE(cq_overflow_refused),
	KUNIT_CASE(cq_overflow_event_once),
	KUNIT_CASE_PARAM(cq_maps_status_and_opcode, map_cases_gen_params),
	KUNIT_CASE(cq_notify_next_comp_fires_once),
	KUNIT_CASE(cq_notify_solicited_only),
	KUNIT_CASE(cq_report_missed_events),
	KUNIT_CASE(cq_user_ring_like_libsiw),
	KUNIT_CASE(cq_push_any_context),
	{}
};

static struct kunit_suite cq_suite = {
	.name = "softiwarp_cq",
	.exit = cq_test_exit,
	.test_cases = cq_cases,
};

/* SRQ */

struct srq_test {
	struct swi_srq srq;
	int events;
	struct ib_event last;
};

static void srq_test_event(struct ib_event *ev, void *ctx)
{
	struct srq_test *st = ctx;

	st->events++;
	st->last = *ev;
}

static struct srq_test *srq_test_setup(struct kunit *test, bool user)
{
	struct srq_test *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_EQ(test, swi_srq_init_ring(&st->srq, SRQ_NUM, user), 0);
	st->srq.base.event_handler = srq_test_event;
	st->srq.base.srq_context = st;
	test->priv = st;
	return st;
}

static void srq_test_exit(struct kunit *test)
{
	struct srq_test *st = test->priv;

	if (st)
		swi_srq_free_ring(&st->srq);
}

/* WR i has i % 3 SGEs, SGE j of WR i describing (i, j) */
static void srq_make_wrs(struct ib_recv_wr *wr, struct ib_sge *sge, int n,
			 u64 first_id)
{
	struct ib_sge *s;
	u64 id;
	int i, j;

	for (i = 0; i < n; i++) {
		id = first_id + i;
		s = &sge[i * SWI_MAX_SGE];
		wr[i].wr_id = id;
		wr[i].num_sge = id % 3;
		wr[i].sg_list = s;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		for (j = 0; j < wr[i].num_sge; j++) {
			s[j].addr = 0x1000 * id + j;
			s[j].length = 64 + j;
			s[j].lkey = 0x100 + j;
		}
	}
}

static void srq_expect_rqe(struct kunit *test, const struct siw_rqe *rqe,
			   u64 id)
{
	int j;

	KUNIT_EXPECT_EQ(test, rqe->id, id);
	KUNIT_EXPECT_EQ(test, rqe->opcode, (u8)SIW_OP_RECEIVE);
	KUNIT_ASSERT_EQ(test, rqe->num_sge, (u8)(id % 3));
	for (j = 0; j < rqe->num_sge; j++) {
		KUNIT_EXPECT_EQ(test, rqe->sge[j].laddr, 0x1000 * id + j);
		KUNIT_EXPECT_EQ(test, rqe->sge[j].length, 64U + j);
		KUNIT_EXPECT_EQ(test, rqe->sge[j].lkey, 0x100U + j);
	}
	for (; j < SIW_MAX_SGE; j++)
		KUNIT_EXPECT_EQ(test, rqe->sge[j].length, 0U);
}

static void srq_post_until_full(struct kunit *test)
{
	struct srq_test *st = srq_test_setup(test, false);
	/* on the heap: a frame over 1024 octets on the KASAN kernel */
	struct ib_sge *sge = kunit_kcalloc(test, (SRQ_NUM + 2) * SWI_MAX_SGE,
					   sizeof(*sge), GFP_KERNEL);
	struct ib_recv_wr *wr = kunit_kcalloc(test, SRQ_NUM + 2, sizeof(*wr),
					      GFP_KERNEL);
	const struct ib_recv_wr *bad = NULL;
	struct siw_rqe rqe;

	KUNIT_ASSERT_NOT_NULL(test, sge);
	KUNIT_ASSERT_NOT_NULL(test, wr);
	srq_make_wrs(wr, sge, SRQ_NUM + 2, 0);
	KUNIT_EXPECT_EQ(test, swi_post_srq_recv(&st->srq.base, wr, &bad),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[SRQ_NUM]);
	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
	srq_expect_rqe(test, &rqe, 0);
	bad = NULL;
	KUNIT_EXPECT_EQ(test, swi_post_srq_recv(&st->srq.base, &wr[SRQ_NUM],
						&bad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[SRQ_NUM + 1]);
}

static void srq_too_many_sges(struct kunit *test)
{
	struct srq_test *st = srq_test_setup(test, false);
	struct ib_sge sge[2 * SWI_MAX_SGE];
	struct ib_recv_wr wr[2];
	const struct ib_recv_wr *bad = NULL;
	struct siw_rqe rqe;

	srq_make_wrs(wr, sge, 2, 1);
	wr[1].num_sge = SWI_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, swi_post_srq_recv(&st->srq.base, wr, &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[1]);
	wr[1].num_sge = -1;
	bad = NULL;
	KUNIT_EXPECT_EQ(test, swi_post_srq_recv(&st->srq.base, &wr[1], &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr[1]);
	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
	srq_expect_rqe(test, &rqe, 1);
	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), -ENOENT);
}

static void srq_get_in_order_wraps(struct kunit *test)
{
	struct srq_test *st = srq_test_setup(test, false);
	struct ib_sge sge[3 * SWI_MAX_SGE];
	struct ib_recv_wr wr[3];
	const struct ib_recv_wr *bad;
	struct siw_rqe rqe;
	u64 id = 0;
	int lap, i;

	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), -ENOENT);
	for (lap = 0; lap < 4 * SRQ_NUM; lap++) {
		srq_make_wrs(wr, sge, 3, id);
		KUNIT_ASSERT_EQ(test, swi_post_srq_recv(&st->srq.base, wr,
							&bad), 0);
		for (i = 0; i < 3; i++) {
			KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
			srq_expect_rqe(test, &rqe, id++);
		}
		KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), -ENOENT);
	}
	KUNIT_EXPECT_EQ(test, st->events, 0);
}

static void srq_limit_event_once(struct kunit *test)
{
	struct srq_test *st = srq_test_setup(test, false);
	struct ib_srq_attr attr = { .srq_limit = 2 };
	struct ib_sge sge[SRQ_NUM * SWI_MAX_SGE];
	struct ib_recv_wr wr[SRQ_NUM];
	const struct ib_recv_wr *bad;
	struct siw_rqe rqe;

	KUNIT_ASSERT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_LIMIT, NULL), 0);
	srq_make_wrs(wr, sge, SRQ_NUM, 0);
	KUNIT_ASSERT_EQ(test, swi_post_srq_recv(&st->srq.base, wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);	/* 3 left */
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);	/* 2 left */
	KUNIT_EXPECT_EQ(test, st->events, 0);
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);	/* 1 left */
	KUNIT_EXPECT_EQ(test, st->events, 1);
	KUNIT_EXPECT_EQ(test, st->last.event, IB_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_PTR_EQ(test, st->last.element.srq, &st->srq.base);
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);	/* 0 left */
	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), -ENOENT);
	KUNIT_EXPECT_EQ(test, st->events, 1);

	/* re-armed: fires again on the next take below the limit */
	KUNIT_ASSERT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_LIMIT, NULL), 0);
	KUNIT_ASSERT_EQ(test, swi_post_srq_recv(&st->srq.base, wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
	KUNIT_EXPECT_EQ(test, st->events, 1);
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
	KUNIT_ASSERT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
	KUNIT_EXPECT_EQ(test, st->events, 2);
}

static void srq_modify_and_query(struct kunit *test)
{
	struct srq_test *st = srq_test_setup(test, false);
	struct ib_srq_attr attr = { .max_wr = 64, .srq_limit = 3 };
	struct ib_srq_attr q;

	KUNIT_EXPECT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_MAX_WR, NULL),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_MAX_WR | IB_SRQ_LIMIT,
					     NULL), -EOPNOTSUPP);
	KUNIT_EXPECT_FALSE(test, st->srq.armed);
	attr.srq_limit = SRQ_NUM + 1;
	KUNIT_EXPECT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_LIMIT, NULL), -EINVAL);
	attr.srq_limit = 3;
	KUNIT_EXPECT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_LIMIT, NULL), 0);
	KUNIT_EXPECT_TRUE(test, st->srq.armed);
	KUNIT_EXPECT_EQ(test, swi_query_srq(&st->srq.base, &q), 0);
	KUNIT_EXPECT_EQ(test, q.max_wr, (u32)SRQ_NUM);
	KUNIT_EXPECT_EQ(test, q.max_sge, (u32)SWI_MAX_SGE);
	KUNIT_EXPECT_EQ(test, q.srq_limit, 3U);
	attr.srq_limit = 0;
	KUNIT_EXPECT_EQ(test, swi_modify_srq(&st->srq.base, &attr,
					     IB_SRQ_LIMIT, NULL), 0);
	KUNIT_EXPECT_FALSE(test, st->srq.armed);
}

/* What libsiw (or a hostile user) writes into a mapped SRQ */
static void srq_user_entries_checked(struct kunit *test)
{
	struct srq_test *st = srq_test_setup(test, true);
	struct siw_rqe *q = st->srq.rq.queue;
	struct ib_recv_wr wr = { .wr_id = 1 };
	const struct ib_recv_wr *bad = NULL;
	struct siw_rqe rqe;

	KUNIT_EXPECT_EQ(test, swi_post_srq_recv(&st->srq.base, &wr, &bad),
			-EOPNOTSUPP);
	KUNIT_EXPECT_PTR_EQ(test, bad, &wr);

	q[0].id = 7;
	q[0].num_sge = 200;
	q[0].opcode = SIW_OP_WRITE;
	WRITE_ONCE(q[0].flags, SIW_WQE_VALID);
	q[1].id = 8;
	q[1].num_sge = 1;
	q[1].opcode = 0xee;
	q[1].sge[0].laddr = 0x5000;
	q[1].sge[0].length = 10;
	q[1].sge[0].lkey = 0x77;
	q[1].sge[1].length = 99;	/* beyond num_sge: not copied */
	WRITE_ONCE(q[1].flags, SIW_WQE_VALID | SIW_WQE_SIGNALLED);

	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), -EINVAL);
	KUNIT_EXPECT_EQ(test, rqe.id, 7ULL);
	KUNIT_EXPECT_EQ(test, rqe.num_sge, 0);
	KUNIT_EXPECT_EQ(test, q[0].flags, 0);
	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 8ULL);
	KUNIT_EXPECT_EQ(test, rqe.num_sge, 1);
	KUNIT_EXPECT_EQ(test, rqe.opcode, (u8)SIW_OP_RECEIVE);
	KUNIT_EXPECT_EQ(test, rqe.flags, (u16)SIW_WQE_VALID);
	KUNIT_EXPECT_EQ(test, rqe.sge[0].laddr, 0x5000ULL);
	KUNIT_EXPECT_EQ(test, rqe.sge[0].lkey, 0x77U);
	KUNIT_EXPECT_EQ(test, rqe.sge[1].length, 0U);
	KUNIT_EXPECT_EQ(test, swi_srq_get(&st->srq, &rqe), -ENOENT);
}

static struct kunit_case srq_cases[] = {
	KUNIT_CASE(srq_post_until_full),
	KUNIT_CASE(srq_too_many_sges),
	KUNIT_CASE(srq_get_in_order_wraps),
	KUNIT_CASE(srq_limit_event_once),
	KUNIT_CASE(srq_modify_and_query),
	KUNIT_CASE(srq_user_entries_checked),
	{}
};

static struct kunit_suite srq_suite = {
	.name = "softiwarp_srq",
	.exit = srq_test_exit,
	.test_cases = srq_cases,
};

kunit_test_suites(&cq_suite, &srq_suite);
