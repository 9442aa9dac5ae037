/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the engine's door
 *
 * The engine moves a QP's data over its TCP stream in MPA Full Operation:
 * the stream's life cycle and socket callbacks (engine/stream.c), the
 * transmitter (engine/tx.c), the receiver (engine/rx.c) and the order of
 * completions (engine/cq.c). Its state, struct eng_stream, is private to
 * those four files (engine/stream.h);
 * everyone else holds an opaque pointer and uses the calls below. This
 * header is the only one of engine/ that other folders include.
 *
 * The engine sits below the verbs device (dev/) and above the protocol
 * (rdmap/, ddp/, mpa/); it includes nothing of dev/ or cm/. What it
 * needs of its QP crosses one seam, in two directions:
 *
 * - down, at creation: struct eng_qp_link, the QP's protection domain,
 *   the device's STag table, the QP's state word and lock, its number
 *   and read queue depths, given once and fixed for the stream's life;
 * - up, while it runs: the calls under "provided by the device" below,
 *   which dev/ implements (work requests, completions, state events,
 *   statistics, a fast-register's memory object, setup fault injection).
 *   The engine passes them back the opaque struct swi_qp it was given.
 *
 * The QP (dev/qp.c) creates a stream when the connection manager
 * attaches a socket, starts it when the QP enters RTS, and, following its
 * state table, asks it to close, to abort, to flush or whether it is busy.
 */
#ifndef SOFTIWARP_ENGINE_H
#define SOFTIWARP_ENGINE_H

#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/types.h>
#include <rdma/siw-abi.h>

#include "mpa/mpa_frame.h"
#include "rdmap/rdmap.h"

struct ib_mr;
struct ib_pd;
struct rdmap_mem;
struct rdmap_mem_table;
struct rdmap_term_cause;
struct rdmap_term_offender;
struct swi_qp;
struct eng_stream;

/* The deepest read queues a stream has: the device's max IRD and ORD */
#define ENG_MAX_IRD		128
#define ENG_MAX_ORD		128
/* room for swi_eng_setup_term_fpdu(): a Terminate FPDU with two Markers */
#define ENG_SETUP_TERM_MAX	64

/* How long an idle transmitter keeps its buffers (engine/tx.c) */
#define ENG_TX_IDLE_MS		1000

/* SQE flag of a work request the engine made itself: never completes */
#define ENG_WQE_INTERNAL	BIT(15)
/*
 * SQE flag of an RDMA Write with Immediate Data (kernel QPs only): the
 * Write, then an Immediate Data message (RFC 7306 section 6) carrying
 * &eng_sqe_ext.imm
 */
#define ENG_WQE_IMM		BIT(14)
/*
 * SQE flag of a masked atomic (kernel QPs only): it completes as
 * IB_WC_MASKED_FETCH_ADD or IB_WC_MASKED_COMP_SWAP (its CQE carries
 * ENG_CQE_MASKED)
 */
#define ENG_WQE_MASKED		BIT(13)
/*
 * CQE flag of a receive that Immediate Data completed: the CQE's
 * @imm_data holds the 32-bit immediate, in network order
 */
#define ENG_CQE_IMM		BIT(7)
/* CQE flag of a masked atomic's completion (ENG_WQE_MASKED) */
#define ENG_CQE_MASKED		BIT(6)

/**
 * struct eng_sqe_ext - what a kernel work request carries beyond its SQE
 * @imm: the immediate data of an RDMA Write with Immediate (ENG_WQE_IMM),
 *	in network order, as ib_send_wr gives it
 * @data: an atomic's Add Data (FetchAdd) or Swap Data (CmpSwap)
 * @data_mask: its Add Mask or Swap Mask (RFC 7306 sections 5.1.1, 5.1.2)
 * @compare: a CmpSwap's Compare Data
 * @compare_mask: a CmpSwap's Compare Mask
 *
 * struct siw_sqe, the ring's format, has no room for them: the QP keeps
 * one per SQ slot beside the ring (&swi_qp.sq_ext).
 */
struct eng_sqe_ext {
	__be32 imm;
	u64 data;
	u64 data_mask;
	u64 compare;
	u64 compare_mask;
};

/* swi_qp_take_sqe()'s @hold: which work requests may not start now */
#define ENG_SQ_HOLD_READ	BIT(0)	/* the ORQ is full: no Read, no atomic */
#define ENG_SQ_HOLD_FENCE	BIT(1)	/* Reads outstanding: no fenced WR */

/**
 * eng_op_is_read() - is an SQE opcode an RDMA Read?
 * @op: SIW_OP_* of an SQE
 *
 * Context: any context.
 * Return: true for SIW_OP_READ and SIW_OP_READ_LOCAL_INV.
 */
static inline bool eng_op_is_read(u8 op)
{
	return op == SIW_OP_READ || op == SIW_OP_READ_LOCAL_INV;
}

/**
 * eng_op_is_atomic() - is an SQE opcode an RFC 7306 Atomic Operation?
 * @op: SIW_OP_* of an SQE
 *
 * Context: any context.
 * Return: true for SIW_OP_FETCH_AND_ADD and SIW_OP_COMP_AND_SWAP.
 */
static inline bool eng_op_is_atomic(u8 op)
{
	return op == SIW_OP_FETCH_AND_ADD || op == SIW_OP_COMP_AND_SWAP;
}

/**
 * eng_op_is_rd_atomic() - does an SQE opcode wait in the ORQ?
 * @op: SIW_OP_* of an SQE
 *
 * RDMA Reads and Atomic Requests share queue 1, the ORD and the ORQ
 * (RFC 7306 section 5.2): each waits there for its Response.
 *
 * Context: any context.
 * Return: true for the Reads and the atomics.
 */
static inline bool eng_op_is_rd_atomic(u8 op)
{
	return eng_op_is_read(op) || eng_op_is_atomic(op);
}

/**
 * struct eng_qp_link - what a stream knows of its QP, fixed at creation
 * @qp: the QP, opaque here, handed back in the device's calls below; it
 *	outlives the stream (destroy_qp frees the stream)
 * @pd: the QP's protection domain, checked by every memory access
 * @mem: the device's STag table, where the stream's STags are found
 * @state: the QP's state word, which the engine only reads (READ_ONCE())
 * @state_lock: the lock its changes are made under; swi_eng_stream_start()
 *	asserts that it is held
 * @qp_num: the QP's number, for traces and log lines
 * @ird: the QP's IRD, which sizes the stream's IRQ unless the
 *	negotiated configuration names one
 * @ord: the same for the ORQ
 * @ext: RFC 7306's messages are accepted from the peer (a kernel QP
 *	created while the module parameter rfc7306 was on): Immediate Data,
 *	Atomic Requests and Atomic Responses
 */
struct eng_qp_link {
	struct swi_qp *qp;
	struct ib_pd *pd;
	struct rdmap_mem_table *mem;
	const enum rdmap_qps *state;
	struct mutex *state_lock;	/* the QP's: asserted, never taken */
	u32 qp_num;
	u32 ird;
	u32 ord;
	bool ext;
};

/**
 * struct eng_stream_cfg - how a stream in Full Operation was negotiated
 * @tx: our sending direction: stream position, Markers, CRC
 * @rx: the peer's sending direction
 * @rdmac: the peer speaks RDMAC (MPA revision 0, DDP/RDMAP version 0)
 * @hold: we are the MPA responder: send nothing before the first FPDU
 *	from the initiator arrived (RFC 5044 section 7.1.2)
 * @rtr: we are the initiator in RFC 6581 peer-to-peer mode: send a
 *	zero-length RDMA Write as Ready-To-Receive before anything else
 * @rev: the MPA revision negotiated (0, 1 or 2); shown, not acted upon
 * @p2p: RFC 6581 peer-to-peer mode was negotiated (either role); shown,
 *	not acted upon (@rtr is what the transmitter follows)
 * @rd_limits: @ird and @ord are what MPA negotiated; false: the QP's
 * @ird: the IRD negotiated, which sizes the stream's IRQ; 0: every Read
 *	Request finds no buffer (RFC 5040 section 6.1)
 * @ord: the ORD negotiated, which sizes its ORQ and bounds the Reads it
 *	has outstanding; 0 when the peer's IRD is 0: the stream sends no
 *	RDMA Read (RFC 6581 section 9.1, RFC 5040 section 6.1). Given here,
 *	not read back from the QP, so that a modify_qp() racing the accept
 *	cannot change them
 */
struct eng_stream_cfg {
	struct mpa_fo_cfg tx;
	struct mpa_fo_cfg rx;
	bool rdmac;
	bool hold;
	bool rtr;
	u8 rev;
	bool p2p;
	bool rd_limits;
	u32 ird;
	u32 ord;
};

/**
 * struct eng_stream_info - a snapshot of a stream, for ``rdma resource``
 * @cfg: how it was negotiated (positions not kept up to date)
 * @mulpdu: the MULPDU the transmitter uses now, from the current MSS
 * @orq_used: our RDMA Read and Atomic Requests awaiting their Response
 * @irq_used: the peer's Read and Atomic Requests not yet answered
 * @tx_job: what the transmitter is working on: 0 nothing, 1 a work
 *	request of the SQ, 2 a Read Response, 3 the Terminate, 4 an Atomic
 *	Response
 * @tx_unsent: octets of its current batch the socket has not taken yet
 *	(waiting for write space)
 * @tx_nospace: the socket refused the last send for want of space
 * @tx_buf: octets of transmit buffers the stream holds now: 0 but while
 *	it sends, and for ENG_TX_IDLE_MS after
 */
struct eng_stream_info {
	struct eng_stream_cfg cfg;
	u32 mulpdu;
	u32 orq_used;
	u32 irq_used;
	u32 tx_job;
	u32 tx_unsent;
	bool tx_nospace;
	u32 tx_buf;
};

/* engine/stream.c */
int swi_eng_init(void);
void swi_eng_exit(void);
struct eng_stream *swi_eng_stream_create(const struct eng_qp_link *link,
					 struct socket *sock,
					 const struct eng_stream_cfg *cfg);
void swi_eng_stream_start(struct eng_stream *s);
void swi_eng_stream_close(struct eng_stream *s);
bool swi_eng_stream_fin_due(struct eng_stream *s);
bool swi_eng_stream_closing(struct eng_stream *s);
void swi_eng_stream_stop(struct eng_stream *s, bool abort);
void swi_eng_stream_free(struct eng_stream *s);
void swi_eng_stream_abandon(struct eng_stream *s);
bool swi_eng_stream_busy(struct eng_stream *s);
bool swi_eng_stream_cut_short(struct eng_stream *s);
void swi_eng_stream_get_info(struct eng_stream *s, struct eng_stream_info *info);
void swi_eng_stream_rd_limits(const struct eng_stream *s, u32 *ird, u32 *ord);

/* engine/tx.c */
void swi_eng_tx_kick(struct eng_stream *s, bool inline_ok);
int swi_eng_setup_term_fpdu(const struct mpa_fo_cfg *tx, bool rdmac, u8 code,
			    u8 *buf, size_t size);
void swi_eng_tx_queue_term(struct eng_stream *s,
			   const struct rdmap_term_cause *cause,
			   const struct rdmap_term_offender *seg, bool kick);
void swi_eng_stream_flush_tx(struct eng_stream *s);

/* engine/rx.c */
void swi_eng_stream_flush_rx(struct eng_stream *s);

#if IS_ENABLED(CONFIG_KUNIT)
void swi_eng_tx_fail_allocs(unsigned int n);
void swi_eng_rx_race_flush(unsigned int n);
void swi_eng_tx_lose_rresp_src(int n);
#endif

/*
 * Provided by the device: the QP's side of the seam (dev/qp.c, dev/mr.c,
 * dev/counters.c, dev/fault.c). The engine calls them from its own
 * contexts (the socket callbacks, the transmitter's work, a poster);
 * each says in its kernel-doc which context it accepts.
 */
int swi_qp_take_sqe(struct swi_qp *qp, struct siw_sqe *sqe,
		    struct eng_sqe_ext *ext, unsigned int hold);
int swi_qp_take_rqe(struct swi_qp *qp, struct siw_rqe *rqe);
void swi_qp_raise(struct swi_qp *qp, enum rdmap_qp_event event,
		  enum rdmap_qp_err err);
void swi_qp_complete_sqe(struct swi_qp *qp, const struct siw_sqe *sqe,
			 u32 bytes, enum siw_wc_status status);
void swi_qp_complete_rqe(struct swi_qp *qp, const struct siw_rqe *rqe,
			 u32 bytes, enum siw_wc_status status, u32 inval);
void swi_qp_complete_rqe_imm(struct swi_qp *qp, const struct siw_rqe *rqe,
			     u32 bytes, __be32 imm);
void swi_qp_count_tx(struct swi_qp *qp, u32 fpdus, u32 octets, u32 markers);
void swi_qp_count_rx(struct swi_qp *qp, bool crc_error, u32 octets,
		     u32 markers);
void swi_qp_count_term(struct swi_qp *qp, bool sent, u8 layer);
struct rdmap_mem *swi_mr_mem(struct ib_mr *ibmr);
bool swi_fault_setup_alloc(void);

#endif /* SOFTIWARP_ENGINE_H */
