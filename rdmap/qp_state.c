// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: iWARP QP state transitions
 *
 * One table, indexed by state and event, gives the next state and the
 * actions; a rule may give a second outcome for when work is outstanding
 * (struct rdmap_qp_ctx busy), and the peer's FIN in RTS a third for when
 * it cut a message short (cut; busy first). Two substitutions then apply:
 * the async event of an error becomes the one of the error's class
 * (ctx->err), and on a QP with an SRQ, "flush the RQ" becomes "report
 * LAST_WQE_REACHED" (the SRQ's receives belong to the SRQ, only the end
 * of consumption is reported). A forbidden move returns -EINVAL and
 * leaves everything to the caller as it was. An event reported after the
 * QP left the state it belongs to is accepted and does nothing (same
 * state, no action).
 *
 * Each rule names where it comes from:
 *
 * - V: the iWARP verbs (RDMA Protocol Verbs Specification of the RDMA
 *   Consortium, draft-hilland-rddp-verbs): the five QP states, and which
 *   moves the consumer may request.
 * - R6.1: RFC 5040 section 6.1, stream initialisation: RDMAP messages
 *   flow only once the LLP stream is in MPA Full Operation (RFC 5044).
 * - R6.2: RFC 5040 section 6.2, stream teardown: graceful close, abortive
 *   close, and a graceful close while an RDMA Read is outstanding is an
 *   error.
 * - R7: RFC 5040 section 7, error management: a detected error is
 *   reported to the peer with one Terminate message, the last message
 *   sent on the stream, and then the stream is closed; after a Terminate
 *   is received, nothing more is processed.
 * - IW: the Linux iWARP connection manager (iw_cm): a graceful disconnect
 *   is modify_qp to SQD, an abrupt one (and destroy, and ib_drain_qp) to
 *   ERR. iw_cm ignores the result, as the QP may already be closed, but
 *   librdmacm's rdma_disconnect() returns it to the program: SQD is
 *   accepted, as a no-op, in every state a connection ends in (IDLE after
 *   the peer's close, TERMINATE, ERROR), as siw and hardware do.
 * - IB: the IB verbs the core speaks: ERR to ERR and ERR to RESET are
 *   allowed, RTS to RTS changes attributes only.
 * - L: a late report (the stream is already gone, or the event belongs to
 *   a state the QP left): accepted, nothing to do.
 * - LLP: the peer's FIN cut a message short (struct rdmap_qp_ctx cut): its
 *   last DDP segment, or the rest of an FPDU, can never come. That is no
 *   graceful termination (RFC 5040 section 6.2: LLP Graceful Termination
 *   follows a ULP Graceful Termination, which a message in progress
 *   rules out; RFC 5041 section 5.4: the message can no longer be
 *   Delivered) but an LLP error, RFC 5044 section 8 code 1 ("TCP
 *   connection closed ... This includes ... FIN received"), which DDP
 *   reports as fatal and completes outstanding requests in error (RFC
 *   5041 section 6.2.2). RDMAP SHOULD invoke Terminate for an LLP error
 *   (RFC 5040 section 6.2.1), and the outgoing half is still intact to
 *   carry it (RFC 5041 section 6.2.2: the ULP may still send an error
 *   syndrome there): the QP goes to TERMINATE, the Terminate (layer LLP,
 *   code 1, no DDP header: RFC 5040 section 4.8 Figure 10) goes out,
 *   then our FIN (RFC 5040 section 7; TERM_SENT). An RDMA Read of ours
 *   outstanding still aborts the stream as before (busy wins).
 * - D: a decision of this driver, reason given.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "rdmap/qp_state.h"
#include "rdmap/rdmap_proto.h"
#include "rdmap/terminate.h"

#define A_START		RDMAP_QPA_START
#define A_TERM		RDMAP_QPA_SEND_TERM
#define A_FLUSH		(RDMAP_QPA_FLUSH_SQ | RDMAP_QPA_FLUSH_RQ)
#define A_EV		BIT(15)	/* the async event of ctx->err */
#define A_CLOSE		RDMAP_QPA_CLOSE_LLP
#define A_ABORT		RDMAP_QPA_ABORT_LLP
#define A_TIMER		RDMAP_QPA_ARM_TIMER

/*
 * One cell of the table: allowed or not, the outcome, for a few cells
 * another outcome when work is outstanding, for one (the peer's FIN in
 * RTS) a third when the FIN cut a message short, and for one (a local
 * error in CLOSING) another when our FIN is still due.
 */
struct rdmap_qp_rule {
	u8 ok;
	u8 next;
	u16 act;
	u8 busy;
	u8 busy_next;
	u16 busy_act;
	u8 cut;
	u8 cut_next;
	u16 cut_act;
	u8 due;
	u8 due_next;
	u16 due_act;
};

#define NO		{ .ok = 0 }
#define GO(s, a)	{ .ok = 1, .next = RDMAP_QPS_##s, .act = (a) }
#define BUSY(s, a, bs, ba) \
			{ .ok = 1, .next = RDMAP_QPS_##s, .act = (a), \
			  .busy = 1, .busy_next = RDMAP_QPS_##bs, \
			  .busy_act = (ba) }
#define BUSY_CUT(s, a, bs, ba, cs, ca) \
			{ .ok = 1, .next = RDMAP_QPS_##s, .act = (a), \
			  .busy = 1, .busy_next = RDMAP_QPS_##bs, \
			  .busy_act = (ba), \
			  .cut = 1, .cut_next = RDMAP_QPS_##cs, .cut_act = (ca) }
#define FIN_DUE(s, a, ds, da) \
			{ .ok = 1, .next = RDMAP_QPS_##s, .act = (a), \
			  .due = 1, .due_next = RDMAP_QPS_##ds, .due_act = (da) }

static const struct rdmap_qp_rule
rdmap_qp_rules[RDMAP_QPS_COUNT][RDMAP_QPE_COUNT] = {
	[RDMAP_QPS_IDLE] = {
		/* IB, V: RESET, INIT, RTR set attributes only */
		[RDMAP_QPE_MOD_IDLE] = GO(IDLE, 0),
		/* R6.1, V: RTS needs a stream, which comes with LLP_UP */
		[RDMAP_QPE_MOD_RTS] = NO,
		/*
		 * IW, L: a graceful disconnect after the peer's close
		 * completed (rdma_disconnect() after DISCONNECTED): the
		 * stream is gone already, nothing to close
		 */
		[RDMAP_QPE_MOD_CLOSING] = GO(IDLE, 0),
		/* V: TERMINATE is a left state of RTS only */
		[RDMAP_QPE_MOD_TERMINATE] = NO,
		/* V: flush what was posted */
		[RDMAP_QPE_MOD_ERROR] = GO(ERROR, A_FLUSH),
		/* R6.1, V: stream in Full Operation handed over */
		[RDMAP_QPE_LLP_UP] = GO(RTS, A_START),
		/* L: no stream is attached in IDLE */
		[RDMAP_QPE_LLP_FIN] = GO(IDLE, 0),
		[RDMAP_QPE_LLP_RESET] = GO(IDLE, 0),
		[RDMAP_QPE_LOCAL_ERROR] = GO(IDLE, 0),
		[RDMAP_QPE_TERM_RCVD] = GO(IDLE, 0),
		[RDMAP_QPE_TERM_SENT] = GO(IDLE, 0),
		[RDMAP_QPE_CLOSE_DONE] = GO(IDLE, 0),
		[RDMAP_QPE_TIMEOUT] = GO(IDLE, 0),
	},
	[RDMAP_QPS_RTS] = {
		/* V: the stream must be closed first */
		[RDMAP_QPE_MOD_IDLE] = NO,
		/* IB: attributes only */
		[RDMAP_QPE_MOD_RTS] = GO(RTS, 0),
		/*
		 * V, R6.2, IW: orderly close; with work outstanding the QP
		 * goes to ERROR and the abort tells the peer
		 */
		[RDMAP_QPE_MOD_CLOSING] = BUSY(CLOSING, A_CLOSE | A_TIMER,
					       ERROR, A_FLUSH | A_ABORT),
		/* V, R7: consumer-requested Terminate */
		[RDMAP_QPE_MOD_TERMINATE] = GO(TERMINATE,
					       A_TERM | A_FLUSH | A_TIMER),
		/* V, IW, R6.2: abrupt disconnect, abortive close */
		[RDMAP_QPE_MOD_ERROR] = GO(ERROR, A_FLUSH | A_ABORT),
		/* D: a second stream for a connected QP is a caller bug */
		[RDMAP_QPE_LLP_UP] = NO,
		/*
		 * V, R6.2: answer the FIN; an outstanding Read is an error.
		 * LLP: a FIN inside a message (ctx cut) is an LLP error:
		 * Terminate, flush, fatal event (no A_EV: an LLP error is
		 * fatal whatever ctx->err says)
		 */
		[RDMAP_QPE_LLP_FIN] = BUSY_CUT(CLOSING, A_CLOSE | A_TIMER,
					       ERROR, A_FLUSH | A_ABORT,
					       TERMINATE, A_TERM | A_FLUSH |
					       RDMAP_QPA_EV_FATAL | A_TIMER),
		/* V, R6.2: the connection manager reports the loss */
		[RDMAP_QPE_LLP_RESET] = GO(ERROR, A_FLUSH | A_ABORT),
		/* R7: send a Terminate, report the error */
		[RDMAP_QPE_LOCAL_ERROR] = GO(TERMINATE, A_TERM | A_FLUSH |
					     A_EV | A_TIMER),
		/* R7: nothing more processed, no Terminate in reply */
		[RDMAP_QPE_TERM_RCVD] = GO(ERROR, A_FLUSH | A_EV | A_CLOSE),
		/* D: no Terminate, no close and no timer run in RTS */
		[RDMAP_QPE_TERM_SENT] = NO,
		[RDMAP_QPE_CLOSE_DONE] = NO,
		[RDMAP_QPE_TIMEOUT] = NO,
	},
	[RDMAP_QPS_CLOSING] = {
		/* V: CLOSING ends when the close completes, not on request */
		[RDMAP_QPE_MOD_IDLE] = NO,
		/* V: a closed stream cannot be resumed */
		[RDMAP_QPE_MOD_RTS] = NO,
		/* IW: both sides disconnecting */
		[RDMAP_QPE_MOD_CLOSING] = GO(CLOSING, 0),
		/* R7, D: our FIN is out, a Terminate cannot follow it */
		[RDMAP_QPE_MOD_TERMINATE] = NO,
		/* V, IW, D: flush; let the close under way finish */
		[RDMAP_QPE_MOD_ERROR] = GO(ERROR, A_FLUSH),
		/* D: caller bug, as in RTS */
		[RDMAP_QPE_LLP_UP] = NO,
		/* R6.2: the peer's half of the close */
		[RDMAP_QPE_LLP_FIN] = GO(CLOSING, 0),
		/* V, R6.2: the close failed */
		[RDMAP_QPE_LLP_RESET] = GO(ERROR, A_FLUSH | A_ABORT),
		/*
		 * R7: the Terminate goes out before our FIN while the FIN
		 * is still due (Read Responses owed go first); D: none can
		 * follow our FIN: abort instead
		 */
		[RDMAP_QPE_LOCAL_ERROR] = FIN_DUE(ERROR, A_FLUSH | A_EV | A_ABORT,
						  TERMINATE, A_TERM | A_FLUSH |
						  A_EV | A_TIMER),
		/* R7: the close under way goes on */
		[RDMAP_QPE_TERM_RCVD] = GO(ERROR, A_FLUSH | A_EV),
		/* D: a Terminate leaves from TERMINATE only (LOCAL_ERROR above) */
		[RDMAP_QPE_TERM_SENT] = NO,
		/* V: to IDLE when all work finished, to ERROR if not */
		[RDMAP_QPE_CLOSE_DONE] = BUSY(IDLE, 0, ERROR, A_FLUSH),
		/* D: the close hangs */
		[RDMAP_QPE_TIMEOUT] = GO(ERROR, A_FLUSH | A_ABORT),
	},
	[RDMAP_QPS_TERMINATE] = {
		/* V, R7: TERMINATE leads to ERROR only */
		[RDMAP_QPE_MOD_IDLE] = NO,
		[RDMAP_QPE_MOD_RTS] = NO,
		/* IW, L: a disconnect meets the Terminate; it goes on */
		[RDMAP_QPE_MOD_CLOSING] = GO(TERMINATE, 0),
		/* D: already terminating */
		[RDMAP_QPE_MOD_TERMINATE] = GO(TERMINATE, 0),
		/* V, IW: the queued Terminate still goes out before the FIN */
		[RDMAP_QPE_MOD_ERROR] = GO(ERROR, A_CLOSE),
		/* D: caller bug, as in RTS */
		[RDMAP_QPE_LLP_UP] = NO,
		/* R7: our half of the stream still carries the Terminate */
		[RDMAP_QPE_LLP_FIN] = GO(TERMINATE, 0),
		/* R6.2: the Terminate is lost */
		[RDMAP_QPE_LLP_RESET] = GO(ERROR, A_ABORT),
		/* R7: one Terminate per stream */
		[RDMAP_QPE_LOCAL_ERROR] = GO(TERMINATE, 0),
		/* R7: both ends failed; ours goes out before the FIN */
		[RDMAP_QPE_TERM_RCVD] = GO(ERROR, A_CLOSE),
		/* R7: the Terminate was the last message: close */
		[RDMAP_QPE_TERM_SENT] = GO(ERROR, A_CLOSE),
		/* D: no close was begun in TERMINATE */
		[RDMAP_QPE_CLOSE_DONE] = NO,
		/* D: the Terminate cannot be sent */
		[RDMAP_QPE_TIMEOUT] = GO(ERROR, A_ABORT),
	},
	[RDMAP_QPS_ERROR] = {
		/* V, IB: reset for reuse */
		[RDMAP_QPE_MOD_IDLE] = GO(IDLE, 0),
		/* V: only IDLE leaves ERROR */
		[RDMAP_QPE_MOD_RTS] = NO,
		/* IW, L: a disconnect after the stream failed or was reset */
		[RDMAP_QPE_MOD_CLOSING] = GO(ERROR, 0),
		[RDMAP_QPE_MOD_TERMINATE] = NO,
		/* IB, IW */
		[RDMAP_QPE_MOD_ERROR] = GO(ERROR, 0),
		/* D: the caller must drop the new stream */
		[RDMAP_QPE_LLP_UP] = NO,
		/* L */
		[RDMAP_QPE_LLP_FIN] = GO(ERROR, 0),
		[RDMAP_QPE_LLP_RESET] = GO(ERROR, 0),
		[RDMAP_QPE_LOCAL_ERROR] = GO(ERROR, 0),
		[RDMAP_QPE_TERM_RCVD] = GO(ERROR, 0),
		[RDMAP_QPE_TERM_SENT] = GO(ERROR, 0),
		[RDMAP_QPE_CLOSE_DONE] = GO(ERROR, 0),
		[RDMAP_QPE_TIMEOUT] = GO(ERROR, 0),
	},
};

/* The two substitutions of the DOC block above. */
static u32 rdmap_qp_resolve(u32 act, const struct rdmap_qp_ctx *ctx)
{
	static const u16 ev[RDMAP_QP_ERR_COUNT] = {
		[RDMAP_QP_ERR_FATAL] = RDMAP_QPA_EV_FATAL,
		[RDMAP_QP_ERR_REQ] = RDMAP_QPA_EV_REQ_ERR,
		[RDMAP_QP_ERR_ACCESS] = RDMAP_QPA_EV_ACCESS_ERR,
	};

	if (act & A_EV)
		act = (act & ~A_EV) | ev[ctx->err];
	if (ctx->srq && (act & RDMAP_QPA_FLUSH_RQ))
		act = (act & ~RDMAP_QPA_FLUSH_RQ) | RDMAP_QPA_EV_LAST_WQE;
	return act;
}

/**
 * swi_rdmap_qp_next() - the transition of a QP on one event
 * @state: the current state
 * @event: what happened
 * @ctx: outstanding work, SRQ, error class, a message cut short, our FIN
 *	due; NULL is all zero (no work outstanding, no SRQ, a fatal error,
 *	nothing cut, no FIN due)
 * @actions: set to the RDMAP_QPA_* flags to carry out, 0 on error
 *
 * Pure: reads the rules only. A state, event or error class out of range
 * is refused like a forbidden move.
 *
 * Context: any context; the caller serialises the events of one QP.
 * Return: the next state (enum rdmap_qps), or -EINVAL when the move is not
 * allowed; the QP then stays as it is.
 */
int swi_rdmap_qp_next(enum rdmap_qps state, enum rdmap_qp_event event,
		      const struct rdmap_qp_ctx *ctx, u32 *actions)
{
	static const struct rdmap_qp_ctx none;
	const struct rdmap_qp_rule *r;

	*actions = 0;
	if (!ctx)
		ctx = &none;
	if ((unsigned int)state >= RDMAP_QPS_COUNT ||
	    (unsigned int)event >= RDMAP_QPE_COUNT ||
	    ctx->err >= RDMAP_QP_ERR_COUNT)
		return -EINVAL;
	r = &rdmap_qp_rules[state][event];
	if (!r->ok)
		return -EINVAL;
	if (ctx->busy && r->busy) {
		*actions = rdmap_qp_resolve(r->busy_act, ctx);
		return r->busy_next;
	}
	if (ctx->cut && r->cut) {
		*actions = rdmap_qp_resolve(r->cut_act, ctx);
		return r->cut_next;
	}
	if (ctx->fin_due && r->due) {
		*actions = rdmap_qp_resolve(r->due_act, ctx);
		return r->due_next;
	}
	*actions = rdmap_qp_resolve(r->act, ctx);
	return r->next;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_qp_next);

/*
 * modify_qp: IB state requested -> iWARP state. RESET, INIT and RTR only
 * set attributes of a QP without a stream; SQD is iw_cm's graceful
 * disconnect ("the RDMAC CLOSING state"), SQE the iWARP Terminate.
 */
static const u8 rdmap_qps_of_ib[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = RDMAP_QPS_IDLE,
	[IB_QPS_INIT] = RDMAP_QPS_IDLE,
	[IB_QPS_RTR] = RDMAP_QPS_IDLE,
	[IB_QPS_RTS] = RDMAP_QPS_RTS,
	[IB_QPS_SQD] = RDMAP_QPS_CLOSING,
	[IB_QPS_SQE] = RDMAP_QPS_TERMINATE,
	[IB_QPS_ERR] = RDMAP_QPS_ERROR,
};

/*
 * query_qp: iWARP state -> IB state. IDLE is reported as INIT: receives
 * may be posted in IDLE, as in INIT and unlike RESET.
 */
static const u8 rdmap_qps_ib[RDMAP_QPS_COUNT] = {
	[RDMAP_QPS_IDLE] = IB_QPS_INIT,
	[RDMAP_QPS_RTS] = IB_QPS_RTS,
	[RDMAP_QPS_CLOSING] = IB_QPS_SQD,
	[RDMAP_QPS_TERMINATE] = IB_QPS_SQE,
	[RDMAP_QPS_ERROR] = IB_QPS_ERR,
};

/**
 * swi_rdmap_qps_from_ib() - the iWARP state a modify_qp request asks for
 * @ib: the IB state of the request
 *
 * Use rdmap_qp_modify_event() on the result to get the event.
 *
 * Context: any context.
 * Return: enum rdmap_qps, or -EINVAL for a value that is no IB QP state.
 */
int swi_rdmap_qps_from_ib(enum ib_qp_state ib)
{
	if ((unsigned int)ib >= ARRAY_SIZE(rdmap_qps_of_ib))
		return -EINVAL;
	return rdmap_qps_of_ib[ib];
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_qps_from_ib);

/**
 * swi_rdmap_qps_to_ib() - the IB state query_qp reports
 * @state: the iWARP state
 *
 * Context: any context.
 * Return: enum ib_qp_state, or -EINVAL for a value that is no state.
 */
int swi_rdmap_qps_to_ib(enum rdmap_qps state)
{
	if ((unsigned int)state >= RDMAP_QPS_COUNT)
		return -EINVAL;
	return rdmap_qps_ib[state];
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_qps_to_ib);

/*
 * Error class by Terminate layer and error type (RFC 5040 Terminate
 * header): protection and tagged buffer errors are access errors, remote
 * operation and untagged buffer errors invalid requests, catastrophic and
 * LLP errors fatal.
 */
static const u8 rdmap_qp_err_of_term[3][3] = {
	[TERM_LAYER_RDMAP] = {
		[TERM_ETYPE_RDMAP_CATASTROPHIC] = RDMAP_QP_ERR_FATAL,
		[TERM_ETYPE_RDMAP_PROTECTION] = RDMAP_QP_ERR_ACCESS,
		[TERM_ETYPE_RDMAP_OPERATION] = RDMAP_QP_ERR_REQ,
	},
	[TERM_LAYER_DDP] = {
		[TERM_ETYPE_DDP_CATASTROPHIC] = RDMAP_QP_ERR_FATAL,
		[TERM_ETYPE_DDP_TAGGED] = RDMAP_QP_ERR_ACCESS,
		[TERM_ETYPE_DDP_UNTAGGED] = RDMAP_QP_ERR_REQ,
	},
	[TERM_LAYER_LLP] = {
		RDMAP_QP_ERR_FATAL, RDMAP_QP_ERR_FATAL, RDMAP_QP_ERR_FATAL,
	},
};

/**
 * swi_rdmap_qp_err_from_term() - the error class of a Terminate cause
 * @c: the cause, of a Terminate to send or one received; may be NULL
 *
 * Context: any context.
 * Return: the enum rdmap_qp_err to put in struct rdmap_qp_ctx;
 * RDMAP_QP_ERR_FATAL for NULL and for a layer or type no RFC defines.
 */
enum rdmap_qp_err swi_rdmap_qp_err_from_term(const struct rdmap_term_cause *c)
{
	if (!c || c->layer >= ARRAY_SIZE(rdmap_qp_err_of_term) ||
	    c->etype >= ARRAY_SIZE(rdmap_qp_err_of_term[0]))
		return RDMAP_QP_ERR_FATAL;
	return rdmap_qp_err_of_term[c->layer][c->etype];
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_qp_err_from_term);

static const char * const rdmap_qps_names[RDMAP_QPS_COUNT] = {
	[RDMAP_QPS_IDLE] = "IDLE",
	[RDMAP_QPS_RTS] = "RTS",
	[RDMAP_QPS_CLOSING] = "CLOSING",
	[RDMAP_QPS_TERMINATE] = "TERMINATE",
	[RDMAP_QPS_ERROR] = "ERROR",
};

/**
 * swi_rdmap_qps_name() - name of a state, for logs and debugfs
 * @state: the state
 *
 * Context: any context.
 * Return: a static string, "UNKNOWN" for a value that is no state.
 */
const char *swi_rdmap_qps_name(enum rdmap_qps state)
{
	if ((unsigned int)state >= RDMAP_QPS_COUNT)
		return "UNKNOWN";
	return rdmap_qps_names[state];
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_qps_name);

static const char * const rdmap_qp_event_names[RDMAP_QPE_COUNT] = {
	[RDMAP_QPE_MOD_IDLE] = "MOD_IDLE",
	[RDMAP_QPE_MOD_RTS] = "MOD_RTS",
	[RDMAP_QPE_MOD_CLOSING] = "MOD_CLOSING",
	[RDMAP_QPE_MOD_TERMINATE] = "MOD_TERMINATE",
	[RDMAP_QPE_MOD_ERROR] = "MOD_ERROR",
	[RDMAP_QPE_LLP_UP] = "LLP_UP",
	[RDMAP_QPE_LLP_FIN] = "LLP_FIN",
	[RDMAP_QPE_LLP_RESET] = "LLP_RESET",
	[RDMAP_QPE_LOCAL_ERROR] = "LOCAL_ERROR",
	[RDMAP_QPE_TERM_RCVD] = "TERM_RCVD",
	[RDMAP_QPE_TERM_SENT] = "TERM_SENT",
	[RDMAP_QPE_CLOSE_DONE] = "CLOSE_DONE",
	[RDMAP_QPE_TIMEOUT] = "TIMEOUT",
};

/**
 * swi_rdmap_qp_event_name() - name of an event, for logs and debugfs
 * @event: the event
 *
 * Context: any context.
 * Return: a static string, "UNKNOWN" for a value that is no event.
 */
const char *swi_rdmap_qp_event_name(enum rdmap_qp_event event)
{
	if ((unsigned int)event >= RDMAP_QPE_COUNT)
		return "UNKNOWN";
	return rdmap_qp_event_names[event];
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_qp_event_name);
