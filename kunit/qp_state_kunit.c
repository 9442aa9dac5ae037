// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_qp_state
 *
 * The QP state machine against expectations written by hand from the
 * iWARP verbs, RFC 5040 and the iw_cm's use of modify_qp: every state
 * with every event (the allowed moves with their exact actions, the
 * forbidden ones refused with no action), outstanding work where it
 * decides, a message cut short by the peer's FIN where that decides, the
 * error class choosing the async event, the SRQ turning the RQ flush
 * into LAST_WQE_REACHED, values out of range; the IB state mapping both
 * ways; the names; whole sequences (connect, close, errors, Terminate,
 * reset and reuse).
 */
#include <kunit/test.h>

#include "rdmap/qp_state.h"
#include "rdmap/terminate.h"

/* Action flags, short */
#define Q_START		RDMAP_QPA_START
#define Q_TERM		RDMAP_QPA_SEND_TERM
#define Q_FSQ		RDMAP_QPA_FLUSH_SQ
#define Q_FRQ		RDMAP_QPA_FLUSH_RQ
#define Q_FATAL		RDMAP_QPA_EV_FATAL
#define Q_REQ		RDMAP_QPA_EV_REQ_ERR
#define Q_ACC		RDMAP_QPA_EV_ACCESS_ERR
#define Q_LAST		RDMAP_QPA_EV_LAST_WQE
#define Q_CLOSE		RDMAP_QPA_CLOSE_LLP
#define Q_ABORT		RDMAP_QPA_ABORT_LLP
#define Q_TIMER		RDMAP_QPA_ARM_TIMER

#define ERR_FATAL	RDMAP_QP_ERR_FATAL
#define ERR_REQ		RDMAP_QP_ERR_REQ
#define ERR_ACCESS	RDMAP_QP_ERR_ACCESS

#define ACTIONS_POISON	0xdeadbeefU

struct step_case {
	const char *desc;
	u8 state;
	u8 event;
	struct rdmap_qp_ctx ctx;
	int next;		/* enum rdmap_qps, or -EINVAL */
	u32 act;
};

/* allowed with no work outstanding, no SRQ, fatal error class */
#define T(s, e, n, a) \
	{ #s " + " #e " -> " #n, RDMAP_QPS_##s, RDMAP_QPE_##e, {}, \
	  RDMAP_QPS_##n, (a) }
/* refused */
#define X(s, e) \
	{ #s " + " #e " refused", RDMAP_QPS_##s, RDMAP_QPE_##e, {}, \
	  -EINVAL, 0 }

/* Every state with every event; a stream event that is late is a no-op. */
static const struct step_case table_cases[] = {
	/* IDLE: no stream yet, or no more */
	T(IDLE, MOD_IDLE, IDLE, 0),
	X(IDLE, MOD_RTS),
	T(IDLE, MOD_CLOSING, IDLE, 0),
	X(IDLE, MOD_TERMINATE),
	T(IDLE, MOD_ERROR, ERROR, Q_FSQ | Q_FRQ),
	T(IDLE, LLP_UP, RTS, Q_START),
	T(IDLE, LLP_FIN, IDLE, 0),
	T(IDLE, LLP_RESET, IDLE, 0),
	T(IDLE, LOCAL_ERROR, IDLE, 0),
	T(IDLE, TERM_RCVD, IDLE, 0),
	T(IDLE, TERM_SENT, IDLE, 0),
	T(IDLE, CLOSE_DONE, IDLE, 0),
	T(IDLE, TIMEOUT, IDLE, 0),
	/* RTS */
	X(RTS, MOD_IDLE),
	T(RTS, MOD_RTS, RTS, 0),
	T(RTS, MOD_CLOSING, CLOSING, Q_CLOSE | Q_TIMER),
	T(RTS, MOD_TERMINATE, TERMINATE, Q_TERM | Q_FSQ | Q_FRQ | Q_TIMER),
	T(RTS, MOD_ERROR, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	X(RTS, LLP_UP),
	T(RTS, LLP_FIN, CLOSING, Q_CLOSE | Q_TIMER),
	T(RTS, LLP_RESET, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	T(RTS, LOCAL_ERROR, TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER),
	T(RTS, TERM_RCVD, ERROR, Q_FSQ | Q_FRQ | Q_FATAL | Q_CLOSE),
	X(RTS, TERM_SENT),
	X(RTS, CLOSE_DONE),
	X(RTS, TIMEOUT),
	/* CLOSING: our FIN is out or going out */
	X(CLOSING, MOD_IDLE),
	X(CLOSING, MOD_RTS),
	T(CLOSING, MOD_CLOSING, CLOSING, 0),
	X(CLOSING, MOD_TERMINATE),
	T(CLOSING, MOD_ERROR, ERROR, Q_FSQ | Q_FRQ),
	X(CLOSING, LLP_UP),
	T(CLOSING, LLP_FIN, CLOSING, 0),
	T(CLOSING, LLP_RESET, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	T(CLOSING, LOCAL_ERROR, ERROR, Q_FSQ | Q_FRQ | Q_FATAL | Q_ABORT),
	T(CLOSING, TERM_RCVD, ERROR, Q_FSQ | Q_FRQ | Q_FATAL),
	X(CLOSING, TERM_SENT),
	T(CLOSING, CLOSE_DONE, IDLE, 0),
	T(CLOSING, TIMEOUT, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	/* TERMINATE: queues flushed on entry, a Terminate queued */
	X(TERMINATE, MOD_IDLE),
	X(TERMINATE, MOD_RTS),
	T(TERMINATE, MOD_CLOSING, TERMINATE, 0),
	T(TERMINATE, MOD_TERMINATE, TERMINATE, 0),
	T(TERMINATE, MOD_ERROR, ERROR, Q_CLOSE),
	X(TERMINATE, LLP_UP),
	T(TERMINATE, LLP_FIN, TERMINATE, 0),
	T(TERMINATE, LLP_RESET, ERROR, Q_ABORT),
	T(TERMINATE, LOCAL_ERROR, TERMINATE, 0),
	T(TERMINATE, TERM_RCVD, ERROR, Q_CLOSE),
	T(TERMINATE, TERM_SENT, ERROR, Q_CLOSE),
	X(TERMINATE, CLOSE_DONE),
	T(TERMINATE, TIMEOUT, ERROR, Q_ABORT),
	/* ERROR: everything flushed, the stream going or gone */
	T(ERROR, MOD_IDLE, IDLE, 0),
	X(ERROR, MOD_RTS),
	T(ERROR, MOD_CLOSING, ERROR, 0),
	X(ERROR, MOD_TERMINATE),
	T(ERROR, MOD_ERROR, ERROR, 0),
	X(ERROR, LLP_UP),
	T(ERROR, LLP_FIN, ERROR, 0),
	T(ERROR, LLP_RESET, ERROR, 0),
	T(ERROR, LOCAL_ERROR, ERROR, 0),
	T(ERROR, TERM_RCVD, ERROR, 0),
	T(ERROR, TERM_SENT, ERROR, 0),
	T(ERROR, CLOSE_DONE, ERROR, 0),
	T(ERROR, TIMEOUT, ERROR, 0),
};

KUNIT_ARRAY_PARAM_DESC(table_cases, table_cases, desc);

/* with context: outstanding work, error class, SRQ */
#define C(d, s, e, b, q, r, n, a) \
	{ d, RDMAP_QPS_##s, RDMAP_QPE_##e, \
	  { .busy = (b), .srq = (q), .err = (r) }, (n), (a) }
/* with a message cut short by the peer's FIN, and outstanding work */
#define K(d, s, e, b, q, r, n, a) \
	{ d, RDMAP_QPS_##s, RDMAP_QPE_##e, \
	  { .busy = (b), .srq = (q), .err = (r), .cut = 1 }, (n), (a) }

/* with our FIN still due, and outstanding work */
#define D(d, s, e, b, q, r, n, a) \
	{ d, RDMAP_QPS_##s, RDMAP_QPE_##e, \
	  { .busy = (b), .srq = (q), .err = (r), .fin_due = 1 }, (n), (a) }

static const struct step_case ctx_cases[] = {
	C("busy: disconnect in RTS aborts to ERROR", RTS, MOD_CLOSING,
	  1, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	C("busy: peer FIN in RTS aborts to ERROR", RTS, LLP_FIN,
	  1, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	C("busy: close done in CLOSING goes to ERROR", CLOSING, CLOSE_DONE,
	  1, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ),
	C("busy: LLP up in IDLE still starts", IDLE, LLP_UP,
	  1, 0, 0, RDMAP_QPS_RTS, Q_START),
	C("busy: modify to ERROR in RTS unchanged", RTS, MOD_ERROR,
	  1, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	C("busy: peer FIN in CLOSING unchanged", CLOSING, LLP_FIN,
	  1, 0, 0, RDMAP_QPS_CLOSING, 0),
	C("busy: Terminate sent unchanged", TERMINATE, TERM_SENT,
	  1, 0, 0, RDMAP_QPS_ERROR, Q_CLOSE),
	C("request error in RTS reports QP_REQ_ERR", RTS, LOCAL_ERROR,
	  0, 0, ERR_REQ, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_REQ | Q_TIMER),
	C("access error in RTS reports QP_ACCESS_ERR", RTS, LOCAL_ERROR,
	  0, 0, ERR_ACCESS, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_ACC | Q_TIMER),
	C("Terminate with access error received in RTS", RTS, TERM_RCVD,
	  0, 0, ERR_ACCESS, RDMAP_QPS_ERROR,
	  Q_FSQ | Q_FRQ | Q_ACC | Q_CLOSE),
	C("request error in CLOSING reports QP_REQ_ERR", CLOSING,
	  LOCAL_ERROR, 0, 0, ERR_REQ, RDMAP_QPS_ERROR,
	  Q_FSQ | Q_FRQ | Q_REQ | Q_ABORT),
	C("Terminate with request error received in CLOSING", CLOSING,
	  TERM_RCVD, 0, 0, ERR_REQ, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_REQ),
	C("error class ignored where no event is reported", TERMINATE,
	  TERM_RCVD, 0, 0, ERR_ACCESS, RDMAP_QPS_ERROR, Q_CLOSE),
	C("SRQ: modify to ERROR in RTS reports LAST_WQE", RTS, MOD_ERROR,
	  0, 1, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_LAST | Q_ABORT),
	C("SRQ: modify to ERROR in IDLE reports LAST_WQE", IDLE, MOD_ERROR,
	  0, 1, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_LAST),
	C("SRQ: local access error in RTS", RTS, LOCAL_ERROR,
	  0, 1, ERR_ACCESS, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_ACC | Q_LAST | Q_TIMER),
	C("SRQ: Terminate sent, LAST_WQE was reported on entry", TERMINATE,
	  TERM_SENT, 0, 1, 0, RDMAP_QPS_ERROR, Q_CLOSE),
	C("SRQ: disconnect in RTS, no LAST_WQE yet", RTS, MOD_CLOSING,
	  0, 1, 0, RDMAP_QPS_CLOSING, Q_CLOSE | Q_TIMER),
	C("SRQ: close done to IDLE, no LAST_WQE", CLOSING, CLOSE_DONE,
	  0, 1, 0, RDMAP_QPS_IDLE, 0),
	C("SRQ and busy: close done to ERROR reports LAST_WQE", CLOSING,
	  CLOSE_DONE, 1, 1, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_LAST),
	C("SRQ: late event in ERROR does nothing", ERROR, LLP_RESET,
	  1, 1, ERR_ACCESS, RDMAP_QPS_ERROR, 0),
	C("error class 3 is refused", RTS, MOD_RTS,
	  0, 0, 3, -EINVAL, 0),
	C("error class 255 is refused", RTS, LOCAL_ERROR,
	  0, 0, 255, -EINVAL, 0),
	C("busy as any nonzero value", RTS, LLP_FIN,
	  0x80, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	/*
	 * RFC 5040 6.2.1, RFC 5041 6.2.2, RFC 5044 8 code 1: a FIN inside a
	 * message is an LLP error: Terminate (the outgoing half still
	 * stands), flush, fatal event, then the close of TERMINATE
	 */
	K("cut: peer FIN inside a message in RTS sends a Terminate", RTS,
	  LLP_FIN, 0, 0, 0, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER),
	K("cut: an LLP error is fatal whatever the error class", RTS,
	  LLP_FIN, 0, 0, ERR_ACCESS, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER),
	K("cut: SRQ reports LAST_WQE instead of the RQ flush", RTS,
	  LLP_FIN, 0, 1, 0, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FATAL | Q_LAST | Q_TIMER),
	K("cut and busy: a Read outstanding still aborts", RTS, LLP_FIN,
	  1, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
	K("cut: peer FIN in CLOSING, our FIN is out: unchanged", CLOSING,
	  LLP_FIN, 0, 0, 0, RDMAP_QPS_CLOSING, 0),
	K("cut: peer FIN in TERMINATE unchanged", TERMINATE, LLP_FIN,
	  0, 0, 0, RDMAP_QPS_TERMINATE, 0),
	K("cut: peer FIN in ERROR unchanged", ERROR, LLP_FIN,
	  0, 0, 0, RDMAP_QPS_ERROR, 0),
	K("cut: peer FIN in IDLE unchanged", IDLE, LLP_FIN,
	  0, 0, 0, RDMAP_QPS_IDLE, 0),
	K("cut ignored by other events: disconnect in RTS", RTS,
	  MOD_CLOSING, 0, 0, 0, RDMAP_QPS_CLOSING, Q_CLOSE | Q_TIMER),
	/*
	 * RFC 5040 7.1: a local error in CLOSING before our FIN went out
	 * (Read Responses owed still go first) sends the Terminate, which
	 * then goes before the FIN
	 */
	D("FIN due: local error in CLOSING sends the Terminate", CLOSING,
	  LOCAL_ERROR, 0, 0, 0, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER),
	D("FIN due: the error class gives the event", CLOSING,
	  LOCAL_ERROR, 0, 0, ERR_ACCESS, RDMAP_QPS_TERMINATE,
	  Q_TERM | Q_FSQ | Q_FRQ | Q_ACC | Q_TIMER),
	D("FIN due ignored by other events: peer FIN in CLOSING", CLOSING,
	  LLP_FIN, 0, 0, 0, RDMAP_QPS_CLOSING, 0),
	C("FIN out: local error in CLOSING aborts", CLOSING, LOCAL_ERROR,
	  0, 0, 0, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ | Q_FATAL | Q_ABORT),
};

KUNIT_ARRAY_PARAM_DESC(ctx_cases, ctx_cases, desc);

/* A refused move gives no action: the poison must be cleared. */
static void check_step(struct kunit *test)
{
	const struct step_case *c = test->param_value;
	u32 act = ACTIONS_POISON;
	int ret;

	ret = swi_rdmap_qp_next(c->state, c->event, &c->ctx, &act);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->next, "went to %s, expected %s",
			    swi_rdmap_qps_name(ret), swi_rdmap_qps_name(c->next));
	KUNIT_EXPECT_EQ_MSG(test, act, c->act, "actions 0x%x, expected 0x%x",
			    act, c->act);
}

static void qp_next_follows_the_table(struct kunit *test)
{
	check_step(test);
}

static void qp_next_uses_the_context(struct kunit *test)
{
	check_step(test);
}

/* The table above names every (state, event) pair exactly once. */
static void qp_table_cases_cover_every_pair(struct kunit *test)
{
	u8 seen[RDMAP_QPS_COUNT][RDMAP_QPE_COUNT] = {};
	unsigned int i, s, e;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(table_cases),
			RDMAP_QPS_COUNT * RDMAP_QPE_COUNT);
	for (i = 0; i < ARRAY_SIZE(table_cases); i++) {
		s = table_cases[i].state;
		e = table_cases[i].event;
		KUNIT_ASSERT_LT(test, s, RDMAP_QPS_COUNT);
		KUNIT_ASSERT_LT(test, e, RDMAP_QPE_COUNT);
		KUNIT_EXPECT_EQ_MSG(test, seen[s][e], 0, "%s twice",
				    table_cases[i].desc);
		seen[s][e] = 1;
	}
	for (s = 0; s < RDMAP_QPS_COUNT; s++)
		for (e = 0; e < RDMAP_QPE_COUNT; e++)
			KUNIT_EXPECT_EQ_MSG(test, seen[s][e], 1,
					    "%s + %s missing",
					    swi_rdmap_qps_name(s),
					    swi_rdmap_qp_event_name(e));
}

/*
 * Outstanding work decides in three places only: a close requested or
 * begun by the peer in RTS, and the end of the close.
 */
static bool busy_decides(unsigned int s, unsigned int e)
{
	return (s == RDMAP_QPS_RTS && e == RDMAP_QPE_MOD_CLOSING) ||
	       (s == RDMAP_QPS_RTS && e == RDMAP_QPE_LLP_FIN) ||
	       (s == RDMAP_QPS_CLOSING && e == RDMAP_QPE_CLOSE_DONE);
}

static void qp_next_busy_matters_only_at_close(struct kunit *test)
{
	static const struct rdmap_qp_ctx idle, busy = { .busy = 1 };
	unsigned int s, e, differ = 0;
	u32 a0, a1;
	int r0, r1;

	for (s = 0; s < RDMAP_QPS_COUNT; s++) {
		for (e = 0; e < RDMAP_QPE_COUNT; e++) {
			r0 = swi_rdmap_qp_next(s, e, &idle, &a0);
			r1 = swi_rdmap_qp_next(s, e, &busy, &a1);
			if (r0 == r1 && a0 == a1)
				continue;
			differ++;
			KUNIT_EXPECT_TRUE_MSG(test, busy_decides(s, e),
					      "%s + %s depends on busy",
					      swi_rdmap_qps_name(s),
					      swi_rdmap_qp_event_name(e));
		}
	}
	KUNIT_EXPECT_EQ(test, differ, 3);
}

/*
 * A message cut short decides in one place only: the peer's FIN in RTS
 * with no work outstanding.
 */
static void qp_next_cut_matters_only_at_peer_fin(struct kunit *test)
{
	static const struct rdmap_qp_ctx whole, cut = { .cut = 1 },
		busy = { .busy = 1 }, busy_cut = { .busy = 1, .cut = 1 };
	unsigned int s, e, differ = 0;
	u32 a0, a1;
	int r0, r1;

	for (s = 0; s < RDMAP_QPS_COUNT; s++) {
		for (e = 0; e < RDMAP_QPE_COUNT; e++) {
			r0 = swi_rdmap_qp_next(s, e, &busy, &a0);
			r1 = swi_rdmap_qp_next(s, e, &busy_cut, &a1);
			KUNIT_EXPECT_EQ_MSG(test, r0, r1, "%s + %s busy",
					    swi_rdmap_qps_name(s),
					    swi_rdmap_qp_event_name(e));
			KUNIT_EXPECT_EQ(test, a0, a1);
			r0 = swi_rdmap_qp_next(s, e, &whole, &a0);
			r1 = swi_rdmap_qp_next(s, e, &cut, &a1);
			if (r0 == r1 && a0 == a1)
				continue;
			differ++;
			KUNIT_EXPECT_TRUE_MSG(test, s == RDMAP_QPS_RTS &&
					      e == RDMAP_QPE_LLP_FIN,
					      "%s + %s depends on cut",
					      swi_rdmap_qps_name(s),
					      swi_rdmap_qp_event_name(e));
		}
	}
	KUNIT_EXPECT_EQ(test, differ, 1);
}

/* Our FIN still due decides in one place only: a local error in CLOSING */
static void qp_next_fin_due_matters_only_at_closing_error(struct kunit *test)
{
	static const struct rdmap_qp_ctx out, due = { .fin_due = 1 };
	unsigned int s, e, differ = 0;
	u32 a0, a1;
	int r0, r1;

	for (s = 0; s < RDMAP_QPS_COUNT; s++) {
		for (e = 0; e < RDMAP_QPE_COUNT; e++) {
			r0 = swi_rdmap_qp_next(s, e, &out, &a0);
			r1 = swi_rdmap_qp_next(s, e, &due, &a1);
			if (r0 == r1 && a0 == a1)
				continue;
			differ++;
			KUNIT_EXPECT_TRUE_MSG(test, s == RDMAP_QPS_CLOSING &&
					      e == RDMAP_QPE_LOCAL_ERROR,
					      "%s + %s depends on fin_due",
					      swi_rdmap_qps_name(s),
					      swi_rdmap_qp_event_name(e));
		}
	}
	KUNIT_EXPECT_EQ(test, differ, 1);
}

static void qp_next_refuses_values_out_of_range(struct kunit *test)
{
	u32 act = ACTIONS_POISON;

	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_next(RDMAP_QPS_COUNT,
						RDMAP_QPE_MOD_ERROR, NULL, &act),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, act, 0);
	act = ACTIONS_POISON;
	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_next(RDMAP_QPS_RTS, RDMAP_QPE_COUNT,
						NULL, &act), -EINVAL);
	KUNIT_EXPECT_EQ(test, act, 0);
	act = ACTIONS_POISON;
	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_next(-1, RDMAP_QPE_MOD_ERROR, NULL,
						&act), -EINVAL);
	KUNIT_EXPECT_EQ(test, act, 0);
}

/* NULL context: no work outstanding, no SRQ, fatal error */
static void qp_next_takes_null_context(struct kunit *test)
{
	u32 act;

	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_next(RDMAP_QPS_RTS,
						RDMAP_QPE_LOCAL_ERROR, NULL, &act),
			RDMAP_QPS_TERMINATE);
	KUNIT_EXPECT_EQ(test, act, Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_next(RDMAP_QPS_CLOSING,
						RDMAP_QPE_CLOSE_DONE, NULL, &act),
			RDMAP_QPS_IDLE);
	KUNIT_EXPECT_EQ(test, act, 0);
}

/* IB <-> iWARP */

struct ib_case {
	const char *desc;
	int ib;
	int state;		/* enum rdmap_qps, or -EINVAL */
	int event;		/* the modify event */
};

static const struct ib_case ib_cases[] = {
	{ "RESET is IDLE", IB_QPS_RESET, RDMAP_QPS_IDLE, RDMAP_QPE_MOD_IDLE },
	{ "INIT is IDLE", IB_QPS_INIT, RDMAP_QPS_IDLE, RDMAP_QPE_MOD_IDLE },
	{ "RTR is IDLE", IB_QPS_RTR, RDMAP_QPS_IDLE, RDMAP_QPE_MOD_IDLE },
	{ "RTS is RTS", IB_QPS_RTS, RDMAP_QPS_RTS, RDMAP_QPE_MOD_RTS },
	{ "SQD is CLOSING", IB_QPS_SQD, RDMAP_QPS_CLOSING,
	  RDMAP_QPE_MOD_CLOSING },
	{ "SQE is TERMINATE", IB_QPS_SQE, RDMAP_QPS_TERMINATE,
	  RDMAP_QPE_MOD_TERMINATE },
	{ "ERR is ERROR", IB_QPS_ERR, RDMAP_QPS_ERROR, RDMAP_QPE_MOD_ERROR },
	{ "one past ERR is refused", IB_QPS_ERR + 1, -EINVAL },
	{ "-1 is refused", -1, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(ib_cases, ib_cases, desc);

static void qps_from_ib_maps_modify_requests(struct kunit *test)
{
	const struct ib_case *c = test->param_value;
	int s = swi_rdmap_qps_from_ib(c->ib);

	KUNIT_EXPECT_EQ(test, s, c->state);
	if (s < 0)
		return;
	KUNIT_EXPECT_EQ(test, rdmap_qp_modify_event(s), c->event);
}

static void qps_to_ib_maps_query(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(RDMAP_QPS_IDLE), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(RDMAP_QPS_RTS), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(RDMAP_QPS_CLOSING), IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(RDMAP_QPS_TERMINATE),
			IB_QPS_SQE);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(RDMAP_QPS_ERROR), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(RDMAP_QPS_COUNT), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_rdmap_qps_to_ib(-1), -EINVAL);
}

/* What query_qp reports, modify_qp takes back to the same state. */
static void qps_ib_round_trip(struct kunit *test)
{
	int s, ib;

	for (s = 0; s < RDMAP_QPS_COUNT; s++) {
		ib = swi_rdmap_qps_to_ib(s);
		KUNIT_ASSERT_GE(test, ib, 0);
		KUNIT_EXPECT_EQ_MSG(test, swi_rdmap_qps_from_ib(ib), s,
				    "state %s", swi_rdmap_qps_name(s));
	}
}

/*
 * The rdma_cm / iw_cm sequence on the active side, as IB states: INIT and
 * RTR before the connection (cma_modify_qp_rtr), the stream handed over,
 * rdma_disconnect (SQD), then ib_drain_qp (ERR), then destroy.
 */
static void qp_iw_cm_sequence_through_ib_states(struct kunit *test)
{
	static const struct {
		int ib;			/* -1: the stream event instead */
		int next;
		u32 act;
	} seq[] = {
		{ IB_QPS_INIT, RDMAP_QPS_IDLE, 0 },
		{ IB_QPS_RTR, RDMAP_QPS_IDLE, 0 },
		{ -1, RDMAP_QPS_RTS, Q_START },
		{ IB_QPS_SQD, RDMAP_QPS_CLOSING, Q_CLOSE | Q_TIMER },
		{ IB_QPS_ERR, RDMAP_QPS_ERROR, Q_FSQ | Q_FRQ },
		{ IB_QPS_ERR, RDMAP_QPS_ERROR, 0 },
		{ IB_QPS_RESET, RDMAP_QPS_IDLE, 0 },
	};
	int state = RDMAP_QPS_IDLE, target;
	unsigned int i;
	u32 act;

	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		enum rdmap_qp_event ev = RDMAP_QPE_LLP_UP;

		if (seq[i].ib >= 0) {
			target = swi_rdmap_qps_from_ib(seq[i].ib);
			KUNIT_ASSERT_GE(test, target, 0);
			ev = rdmap_qp_modify_event(target);
		}
		state = swi_rdmap_qp_next(state, ev, NULL, &act);
		KUNIT_ASSERT_EQ_MSG(test, state, seq[i].next, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, act, seq[i].act, "step %u", i);
	}
}

/* Names */

static void qp_names_for_logs(struct kunit *test)
{
	static const char * const ev[RDMAP_QPE_COUNT] = {
		"MOD_IDLE", "MOD_RTS", "MOD_CLOSING", "MOD_TERMINATE",
		"MOD_ERROR", "LLP_UP", "LLP_FIN", "LLP_RESET", "LOCAL_ERROR",
		"TERM_RCVD", "TERM_SENT", "CLOSE_DONE", "TIMEOUT",
	};
	unsigned int i;

	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(RDMAP_QPS_IDLE), "IDLE");
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(RDMAP_QPS_RTS), "RTS");
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(RDMAP_QPS_CLOSING),
			   "CLOSING");
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(RDMAP_QPS_TERMINATE),
			   "TERMINATE");
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(RDMAP_QPS_ERROR), "ERROR");
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(RDMAP_QPS_COUNT), "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qps_name(-1), "UNKNOWN");
	KUNIT_ASSERT_EQ(test, RDMAP_QPE_COUNT, 13);
	for (i = 0; i < RDMAP_QPE_COUNT; i++)
		KUNIT_EXPECT_STREQ(test, swi_rdmap_qp_event_name(i), ev[i]);
	KUNIT_EXPECT_STREQ(test, swi_rdmap_qp_event_name(RDMAP_QPE_COUNT),
			   "UNKNOWN");
}

/* Error class of a Terminate cause (RFC 5040 layer and error type) */

struct err_case {
	const char *desc;
	struct rdmap_term_cause cause;
	int err;
};

static const struct err_case err_cases[] = {
	{ "RDMAP local catastrophic", { 0, 0, 0x00 }, ERR_FATAL },
	{ "RDMAP protection: invalid STag", { 0, 1, 0x00 }, ERR_ACCESS },
	{ "RDMAP protection: TO wrap", { 0, 1, 0x04 }, ERR_ACCESS },
	{ "RDMAP operation: unexpected opcode", { 0, 2, 0x06 }, ERR_REQ },
	{ "RDMAP operation: unspecified", { 0, 2, 0xff }, ERR_REQ },
	{ "DDP local catastrophic", { 1, 0, 0x00 }, ERR_FATAL },
	{ "DDP tagged: base or bounds", { 1, 1, 0x01 }, ERR_ACCESS },
	{ "DDP untagged: no buffer", { 1, 2, 0x02 }, ERR_REQ },
	{ "DDP untagged: message too long", { 1, 2, 0x05 }, ERR_REQ },
	{ "LLP: CRC error", { 2, 0, 0x02 }, ERR_FATAL },
	{ "LLP with error type 1", { 2, 1, 0x00 }, ERR_FATAL },
	{ "RDMAP error type 3 (none defined)", { 0, 3, 0x00 }, ERR_FATAL },
	{ "layer 3 (none defined)", { 3, 1, 0x00 }, ERR_FATAL },
	{ "layer 15, type 15", { 15, 15, 0xff }, ERR_FATAL },
};

KUNIT_ARRAY_PARAM_DESC(err_cases, err_cases, desc);

static void qp_err_from_term_classifies_cause(struct kunit *test)
{
	const struct err_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_err_from_term(&c->cause), c->err);
}

static void qp_err_from_term_takes_null(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, swi_rdmap_qp_err_from_term(NULL), ERR_FATAL);
}

/* Scenarios: one QP through several events */

struct scen_step {
	u8 event;
	struct rdmap_qp_ctx ctx;
	int next;		/* -EINVAL: refused, the state stays */
	u32 act;
};

struct scenario {
	const char *desc;
	u8 start;
	u8 n;
	struct scen_step step[8];
};

/* step: event, next state, actions; refused step; step with context */
#define S(e, n, a)	{ RDMAP_QPE_##e, {}, RDMAP_QPS_##n, (a) }
#define R(e)		{ RDMAP_QPE_##e, {}, -EINVAL, 0 }
#define SC(e, b, q, r, n, a) \
	{ RDMAP_QPE_##e, { .busy = (b), .srq = (q), .err = (r) }, \
	  RDMAP_QPS_##n, (a) }

static const struct scenario scenarios[] = {
	{ "active close: connect, disconnect, peer FIN, done, IDLE",
	  RDMAP_QPS_IDLE, 6, {
		S(MOD_IDLE, IDLE, 0),
		S(MOD_IDLE, IDLE, 0),
		S(LLP_UP, RTS, Q_START),
		S(MOD_CLOSING, CLOSING, Q_CLOSE | Q_TIMER),
		S(LLP_FIN, CLOSING, 0),
		S(CLOSE_DONE, IDLE, 0),
	} },
	{ "passive close: peer FIN, disconnect, done with a Read out",
	  RDMAP_QPS_IDLE, 6, {
		S(LLP_UP, RTS, Q_START),
		S(LLP_FIN, CLOSING, Q_CLOSE | Q_TIMER),
		S(MOD_CLOSING, CLOSING, 0),
		SC(CLOSE_DONE, 1, 0, 0, ERROR, Q_FSQ | Q_FRQ),
		S(MOD_ERROR, ERROR, 0),
		S(MOD_IDLE, IDLE, 0),
	} },
	{ "peer closes first, then rdma_disconnect() (SQD) succeeds",
	  RDMAP_QPS_RTS, 4, {
		S(LLP_FIN, CLOSING, Q_CLOSE | Q_TIMER),
		S(CLOSE_DONE, IDLE, 0),
		S(MOD_CLOSING, IDLE, 0),
		S(MOD_ERROR, ERROR, Q_FSQ | Q_FRQ),
	} },
	{ "peer FIN inside a message: Terminate, sent, close, ERROR",
	  RDMAP_QPS_RTS, 6, {
		{ RDMAP_QPE_LLP_FIN, { .cut = 1 }, RDMAP_QPS_TERMINATE,
		  Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER },
		S(MOD_CLOSING, TERMINATE, 0),
		S(TERM_SENT, ERROR, Q_CLOSE),
		S(CLOSE_DONE, ERROR, 0),
		S(MOD_ERROR, ERROR, 0),
		S(MOD_IDLE, IDLE, 0),
	} },
	{ "peer FIN with a Read outstanding: abort to ERROR",
	  RDMAP_QPS_RTS, 3, {
		SC(LLP_FIN, 1, 0, 0, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
		S(CLOSE_DONE, ERROR, 0),
		S(MOD_CLOSING, ERROR, 0),
	} },
	{ "protocol error: Terminate, second error, FIN, sent, ERROR",
	  RDMAP_QPS_RTS, 7, {
		SC(LOCAL_ERROR, 0, 0, ERR_ACCESS, TERMINATE,
		   Q_TERM | Q_FSQ | Q_FRQ | Q_ACC | Q_TIMER),
		SC(LOCAL_ERROR, 0, 0, ERR_REQ, TERMINATE, 0),
		S(MOD_CLOSING, TERMINATE, 0),
		S(LLP_FIN, TERMINATE, 0),
		S(TERM_SENT, ERROR, Q_CLOSE),
		S(CLOSE_DONE, ERROR, 0),
		R(MOD_RTS),
	} },
	{ "Terminate received, then disconnect and drain",
	  RDMAP_QPS_RTS, 4, {
		SC(TERM_RCVD, 0, 0, ERR_REQ, ERROR,
		   Q_FSQ | Q_FRQ | Q_REQ | Q_CLOSE),
		S(MOD_CLOSING, ERROR, 0),
		S(MOD_ERROR, ERROR, 0),
		S(LLP_FIN, ERROR, 0),
	} },
	{ "consumer Terminate that cannot be sent: timeout aborts",
	  RDMAP_QPS_RTS, 4, {
		S(MOD_TERMINATE, TERMINATE, Q_TERM | Q_FSQ | Q_FRQ | Q_TIMER),
		R(MOD_RTS),
		S(TIMEOUT, ERROR, Q_ABORT),
		S(TERM_SENT, ERROR, 0),
	} },
	{ "drain during the Terminate: it still goes out before the FIN",
	  RDMAP_QPS_RTS, 3, {
		S(LOCAL_ERROR, TERMINATE,
		  Q_TERM | Q_FSQ | Q_FRQ | Q_FATAL | Q_TIMER),
		S(MOD_ERROR, ERROR, Q_CLOSE),
		S(TERM_SENT, ERROR, 0),
	} },
	{ "SRQ: disconnect, then drain, then close done",
	  RDMAP_QPS_RTS, 3, {
		SC(MOD_CLOSING, 0, 1, 0, CLOSING, Q_CLOSE | Q_TIMER),
		SC(MOD_ERROR, 0, 1, 0, ERROR, Q_FSQ | Q_LAST),
		SC(CLOSE_DONE, 0, 1, 0, ERROR, 0),
	} },
	{ "reset in RTS, reset the QP, connect again",
	  RDMAP_QPS_IDLE, 6, {
		S(LLP_UP, RTS, Q_START),
		S(LLP_RESET, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
		R(LLP_UP),
		R(MOD_RTS),
		S(MOD_IDLE, IDLE, 0),
		S(LLP_UP, RTS, Q_START),
	} },
	{ "the close hangs: timeout aborts, a late timeout is ignored",
	  RDMAP_QPS_RTS, 3, {
		S(MOD_CLOSING, CLOSING, Q_CLOSE | Q_TIMER),
		S(TIMEOUT, ERROR, Q_FSQ | Q_FRQ | Q_ABORT),
		S(TIMEOUT, ERROR, 0),
	} },
};

KUNIT_ARRAY_PARAM_DESC(scenarios, scenarios, desc);

static void qp_scenario_runs_as_expected(struct kunit *test)
{
	const struct scenario *sc = test->param_value;
	int state = sc->start, ret;
	unsigned int i;
	u32 act;

	KUNIT_ASSERT_GT(test, sc->n, 0);
	KUNIT_ASSERT_LE(test, sc->n, ARRAY_SIZE(sc->step));
	/* n counts every step written */
	for (i = sc->n; i < ARRAY_SIZE(sc->step); i++)
		KUNIT_ASSERT_NULL(test, memchr_inv(&sc->step[i], 0,
						   sizeof(sc->step[i])));
	for (i = 0; i < sc->n; i++) {
		const struct scen_step *st = &sc->step[i];

		act = ACTIONS_POISON;
		ret = swi_rdmap_qp_next(state, st->event, &st->ctx, &act);
		KUNIT_EXPECT_EQ_MSG(test, ret, st->next, "step %u: %s in %s",
				    i, swi_rdmap_qp_event_name(st->event),
				    swi_rdmap_qps_name(state));
		KUNIT_EXPECT_EQ_MSG(test, act, st->act, "step %u: %s in %s",
				    i, swi_rdmap_qp_event_name(st->event),
				    swi_rdmap_qps_name(state));
		if (ret >= 0)
			state = ret;
	}
}

static struct kunit_case qp_state_cases[] = {
	KUNIT_CASE_PARAM(qp_next_follows_the_table, table_cases_gen_params),
	KUNIT_CASE(qp_table_cases_cover_every_pair),
	KUNIT_CASE_PARAM(qp_next_uses_the_context, ctx_cases_gen_params),
	KUNIT_CASE(qp_next_busy_matters_only_at_close),
	KUNIT_CASE(qp_next_cut_matters_only_at_peer_fin),
	KUNIT_CASE(qp_next_fin_due_matters_only_at_closing_error),
	KUNIT_CASE(qp_next_refuses_values_out_of_range),
	KUNIT_CASE(qp_next_takes_null_context),
	KUNIT_CASE_PARAM(qps_from_ib_maps_modify_requests,
			 ib_cases_gen_params),
	KUNIT_CASE(qps_to_ib_maps_query),
	KUNIT_CASE(qps_ib_round_trip),
	KUNIT_CASE(qp_iw_cm_sequence_through_ib_states),
	KUNIT_CASE(qp_names_for_logs),
	KUNIT_CASE_PARAM(qp_err_from_term_classifies_cause,
			 err_cases_gen_params),
	KUNIT_CASE(qp_err_from_term_takes_null),
	KUNIT_CASE_PARAM(qp_scenario_runs_as_expected,
			 scenarios_gen_params),
	{}
};

static struct kunit_suite qp_state_suite = {
	.name = "softiwarp_qp_state",
	.test_cases = qp_state_cases,
};

kunit_test_suites(&qp_state_suite);
