/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: iWARP QP state machine
 *
 * The five states of an iWARP QP (IDLE, RTS, CLOSING, TERMINATE, ERROR),
 * the events that move it (modify requests of the consumer and events of
 * the LLP stream and of the RDMAP layer), and a pure transition function:
 * from the current state, one event and a small context it gives the next
 * state and the actions the caller must carry out, or -EINVAL when the
 * move is not allowed. The function keeps no state and takes no lock: the
 * caller holds its QP lock, stores the new state and performs the actions.
 * Also here: the mapping between the IB QP states of modify_qp and
 * query_qp and the iWARP states, and names for logs and debugfs. The
 * rules, with their sources, are in rdmap/qp_state.c and in
 * Documentation/qp-states.rst.
 */
#ifndef SOFTIWARP_QP_STATE_H
#define SOFTIWARP_QP_STATE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "compat.h"

struct rdmap_term_cause;

/**
 * enum rdmap_qps - iWARP QP states
 * @RDMAP_QPS_IDLE: no LLP stream; receives may be posted (IB RESET, INIT
 *	and RTR all map here)
 * @RDMAP_QPS_RTS: the LLP stream is in MPA Full Operation, both queues
 *	are processed
 * @RDMAP_QPS_CLOSING: orderly close of the stream under way; no new send
 *	work is started
 * @RDMAP_QPS_TERMINATE: an error was detected and a Terminate message is
 *	queued; nothing else is sent or processed
 * @RDMAP_QPS_ERROR: the stream is gone; work requests are completed with
 *	IB_WC_WR_FLUSH_ERR
 * @RDMAP_QPS_COUNT: number of states
 */
enum rdmap_qps {
	RDMAP_QPS_IDLE,
	RDMAP_QPS_RTS,
	RDMAP_QPS_CLOSING,
	RDMAP_QPS_TERMINATE,
	RDMAP_QPS_ERROR,
	RDMAP_QPS_COUNT
};

/**
 * enum rdmap_qp_event - what can move a QP
 * @RDMAP_QPE_MOD_IDLE: consumer modify_qp to IDLE (IB RESET, INIT, RTR)
 * @RDMAP_QPE_MOD_RTS: consumer modify_qp to RTS
 * @RDMAP_QPE_MOD_CLOSING: consumer modify_qp to CLOSING (IB SQD; iw_cm's
 *	graceful disconnect)
 * @RDMAP_QPE_MOD_TERMINATE: consumer modify_qp to TERMINATE (IB SQE)
 * @RDMAP_QPE_MOD_ERROR: consumer modify_qp to ERROR (IB ERR; iw_cm's
 *	abrupt disconnect, ib_drain_qp)
 * @RDMAP_QPE_LLP_UP: the connection manager hands over an LLP stream that
 *	reached MPA Full Operation
 * @RDMAP_QPE_LLP_FIN: the peer closed the LLP stream gracefully (FIN)
 * @RDMAP_QPE_LLP_RESET: the LLP stream was aborted (RST, or a socket
 *	error)
 * @RDMAP_QPE_LOCAL_ERROR: the receive or transmit path detected an error
 *	that must be reported to the peer with a Terminate message
 * @RDMAP_QPE_TERM_RCVD: a Terminate message arrived from the peer
 * @RDMAP_QPE_TERM_SENT: the Terminate message queued by
 *	RDMAP_QPA_SEND_TERM has been transmitted
 * @RDMAP_QPE_CLOSE_DONE: the orderly close begun by RDMAP_QPA_CLOSE_LLP
 *	in CLOSING has finished: both directions of the stream are closed
 * @RDMAP_QPE_TIMEOUT: the timer armed by RDMAP_QPA_ARM_TIMER expired
 * @RDMAP_QPE_COUNT: number of events
 *
 * The modify events have the values of their target states, so
 * rdmap_qp_modify_event() is a cast.
 */
enum rdmap_qp_event {
	RDMAP_QPE_MOD_IDLE = RDMAP_QPS_IDLE,
	RDMAP_QPE_MOD_RTS = RDMAP_QPS_RTS,
	RDMAP_QPE_MOD_CLOSING = RDMAP_QPS_CLOSING,
	RDMAP_QPE_MOD_TERMINATE = RDMAP_QPS_TERMINATE,
	RDMAP_QPE_MOD_ERROR = RDMAP_QPS_ERROR,
	RDMAP_QPE_LLP_UP,
	RDMAP_QPE_LLP_FIN,
	RDMAP_QPE_LLP_RESET,
	RDMAP_QPE_LOCAL_ERROR,
	RDMAP_QPE_TERM_RCVD,
	RDMAP_QPE_TERM_SENT,
	RDMAP_QPE_CLOSE_DONE,
	RDMAP_QPE_TIMEOUT,
	RDMAP_QPE_COUNT
};

/**
 * enum rdmap_qp_err - the class of an error, for the async event
 * @RDMAP_QP_ERR_FATAL: catastrophic or LLP error: IB_EVENT_QP_FATAL
 * @RDMAP_QP_ERR_REQ: invalid request (remote operation error, untagged
 *	buffer error): IB_EVENT_QP_REQ_ERR
 * @RDMAP_QP_ERR_ACCESS: protection error (remote protection error,
 *	tagged buffer error): IB_EVENT_QP_ACCESS_ERR
 * @RDMAP_QP_ERR_COUNT: number of classes
 */
enum rdmap_qp_err {
	RDMAP_QP_ERR_FATAL,
	RDMAP_QP_ERR_REQ,
	RDMAP_QP_ERR_ACCESS,
	RDMAP_QP_ERR_COUNT
};

/*
 * Actions, to be carried out in bit order (the Terminate is queued before
 * the queues are flushed, the events are reported after the flushes, the
 * stream is closed last).
 */
#define RDMAP_QPA_START		BIT(0)	/* attach the stream, start RX/TX */
#define RDMAP_QPA_SEND_TERM	BIT(1)	/* queue a Terminate on QN 2 */
#define RDMAP_QPA_FLUSH_SQ	BIT(2)	/* SQ and ORQ: IB_WC_WR_FLUSH_ERR */
#define RDMAP_QPA_FLUSH_RQ	BIT(3)	/* RQ: IB_WC_WR_FLUSH_ERR */
#define RDMAP_QPA_EV_FATAL	BIT(4)	/* IB_EVENT_QP_FATAL */
#define RDMAP_QPA_EV_REQ_ERR	BIT(5)	/* IB_EVENT_QP_REQ_ERR */
#define RDMAP_QPA_EV_ACCESS_ERR	BIT(6)	/* IB_EVENT_QP_ACCESS_ERR */
#define RDMAP_QPA_EV_LAST_WQE	BIT(7)	/* IB_EVENT_QP_LAST_WQE_REACHED */
#define RDMAP_QPA_CLOSE_LLP	BIT(8)	/* FIN after what is queued */
#define RDMAP_QPA_ABORT_LLP	BIT(9)	/* drop the stream now, no FIN */
#define RDMAP_QPA_ARM_TIMER	BIT(10)	/* start the teardown timer */

/**
 * struct rdmap_qp_ctx - what the transition function needs besides the
 *	state
 * @busy: work is outstanding: a send work request not yet completed, an
 *	RDMA Read Request without its Response, or an inbound Read Request
 *	not yet answered
 * @srq: the QP takes its receives from a shared receive queue; its RQ is
 *	never flushed, RDMAP_QPA_EV_LAST_WQE is reported instead
 * @err: enum rdmap_qp_err of the error, for RDMAP_QPE_LOCAL_ERROR and
 *	RDMAP_QPE_TERM_RCVD (see swi_rdmap_qp_err_from_term())
 * @cut: for RDMAP_QPE_LLP_FIN: the peer's half of the stream ended inside
 *	a message (a DDP message whose last segment, or an FPDU whose last
 *	octets, never came); the stream is then torn down with a Terminate
 *	of the LLP layer (RFC 5044 section 8, code 1), not closed in order.
 *	@busy takes precedence over it
 * @fin_due: for RDMAP_QPE_LOCAL_ERROR in CLOSING: our FIN has not gone out
 *	yet (Read Responses owed still go before it), or went out after the
 *	Terminate: the Terminate precedes the FIN (RFC 5040 section 7.1)
 */
struct rdmap_qp_ctx {
	u8 busy;
	u8 srq;
	u8 err;
	u8 cut;
	u8 fin_due;
};

int swi_rdmap_qp_next(enum rdmap_qps state, enum rdmap_qp_event event,
		      const struct rdmap_qp_ctx *ctx, u32 *actions);
int swi_rdmap_qps_from_ib(enum ib_qp_state ib);
int swi_rdmap_qps_to_ib(enum rdmap_qps state);
enum rdmap_qp_err swi_rdmap_qp_err_from_term(const struct rdmap_term_cause *c);
const char *swi_rdmap_qps_name(enum rdmap_qps state);
const char *swi_rdmap_qp_event_name(enum rdmap_qp_event event);

/**
 * rdmap_qp_modify_event() - the event of a modify_qp request
 * @target: the requested state, from swi_rdmap_qps_from_ib()
 *
 * Context: any context.
 * Return: the RDMAP_QPE_MOD_* event moving to @target.
 */
static inline enum rdmap_qp_event rdmap_qp_modify_event(enum rdmap_qps target)
{
	return (enum rdmap_qp_event)target;
}

#endif /* SOFTIWARP_QP_STATE_H */
