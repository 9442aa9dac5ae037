/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the engine's private state
 *
 * Included by engine/stream.c, engine/tx.c and engine/rx.c only;
 * ``make lint`` (tools/check-layers.sh) refuses it anywhere else.
 * Everyone else sees struct eng_stream as an opaque pointer behind
 * engine/engine.h. Which part of the state belongs to whom
 * is written at each field; the locks are described in
 * Documentation/locking.rst.
 */
#ifndef SOFTIWARP_STREAM_H
#define SOFTIWARP_STREAM_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include <rdma/ib_verbs.h>

#include "compat.h"
#include "ddp/ddp.h"
#include "engine/engine.h"
#include "rdmap/rdmap.h"

/**
 * struct eng_rreq - an RDMA Read Request received, to be answered
 * @sink_stag: where the Read Response goes (the peer's STag)
 * @sink_to: and at which tagged offset
 * @size: octets to read
 * @src_to: where they come from in @src
 * @src_stag: the Data Source STag the Request named
 * @src: our memory object @src_stag was checked against, held
 *	(swi_rdmap_mem_hold()) while the entry lives (NULL for a zero-size
 *	read); each FPDU of the Response checks it again
 * @msn: the Request's MSN on queue 1, for a Terminate about it
 * @atomic: the entry is an Atomic Request (RFC 7306 section 5.2.1), which
 *	shares queue 1 and the IRD with the Read Requests: @at is it, @src
 *	the object its target was checked against, held; @src_stag and
 *	@src_to are its Remote STag and Tagged Offset
 * @at: the Atomic Request
 */
struct eng_rreq {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u64 src_to;
	u32 src_stag;
	struct rdmap_mem *src;
	u32 msn;
	bool atomic;
	struct rdmap_atomic_req_info at;
};

/**
 * struct eng_orqe - an RDMA Read or atomic of ours awaiting its Response
 * @sqe: the work request
 * @sink: the memory object its Data Sink (an atomic's result buffer) was
 *	checked against when the Request left, held (swi_rdmap_mem_hold())
 *	while the entry lives; NULL for a zero-length Read. The Response
 *	lands in this object only, checked again for each segment
 *	(swi_rdmap_mem_use())
 * @cq_at: its slot in the completion FIFO (swi_eng_cq_reserve())
 * @req_id: an atomic's Request Identifier, the MSN its Request carried
 *	on queue 1: its Response must name it (RFC 7306 section 5.2.2)
 */
struct eng_orqe {
	struct siw_sqe sqe;
	struct rdmap_mem *sink;
	u32 cq_at;
	u32 req_id;
};

/**
 * struct eng_cq_ent - a work request's completion, in SQ order
 * @id: the work request's id
 * @bytes: octets transferred
 * @flags: its SQE flags (signalled or not)
 * @opcode: its SIW_OP_*
 * @status: its SIW_WC_* status
 * @ready: done: the entry may complete once it is at the head
 */
struct eng_cq_ent {
	u64 id;
	u32 bytes;
	u16 flags;
	u8 opcode;
	u8 status;
	bool ready;
};

/* What the transmitter is working on (struct eng_tx_job kind) */
enum eng_tx_kind {
	ENG_TX_NONE,
	ENG_TX_SQE,		/* a work request of the SQ */
	ENG_TX_RRESP,		/* a Read Response */
	ENG_TX_TERM,		/* the Terminate */
	ENG_TX_ARESP,		/* an Atomic Response */
};

/**
 * struct eng_tx_job - the message being transmitted
 * @kind: enum eng_tx_kind
 * @sqe: the work request (ENG_TX_SQE)
 * @rr: the Read or Atomic Request answered (ENG_TX_RRESP, ENG_TX_ARESP)
 * @len: payload octets of the message
 * @done: payload octets already framed
 * @last: the FPDU on the wire is the message's last
 * @rr_released: the Read Response's IRD entry is released (its last FPDU
 *	is staged); @rr then owns the reference to the source region
 * @sink: an RDMA Read's Data Sink object, held from the check of the
 *	work request until it moves to the ORQ entry
 * @ext: what the work request carries beyond @sqe (ENG_TX_SQE)
 * @imm: the message is the Immediate Data of an RDMA Write with
 *	Immediate (ENG_WQE_IMM), which follows the Write's last FPDU
 * @wlen: the Write's length then, for the work request's completion
 * @orig: the value an Atomic Request found in its target (ENG_TX_ARESP),
 *	which its Response carries
 */
struct eng_tx_job {
	u8 kind;
	struct siw_sqe sqe;
	struct eng_sqe_ext ext;
	bool imm;
	u32 wlen;
	u64 orig;
	struct rdmap_mem *sink;
	struct eng_rreq rr;
	u32 len;
	u32 done;
	bool last;
	bool rr_released;
};

/* Octets of ULPDU that rx collects before placing payload */
#define ENG_RX_HDR_MAX	(DDP_UNTAGGED_HDR_SIZE + RDMAP_TERM_MAX_SIZE)
/* an Atomic Request is all header, and collected whole */
static_assert(DDP_UNTAGGED_HDR_SIZE + RDMAP_ATOMIC_REQ_SIZE <= ENG_RX_HDR_MAX);

/**
 * struct eng_rx - receive state of one stream, used under the socket lock
 * @hdr: the headers of the current segment, collected
 * @hdr_got: octets in @hdr
 * @hdr_len: octets of header the segment has (known after two octets)
 * @ulpdu_len: length of the current ULPDU
 * @h: the parsed DDP header of the current segment
 * @rr: the parsed Read Request (RDMAP_READ_REQ)
 * @ddp: the untagged queues' state, for swi_rdmap_rx_check()
 * @mem: target of the current tagged segment, held (swi_rdmap_mem_hold()):
 *	the object its STag was checked against at the segment's start;
 *	each placement checks it again (swi_rdmap_mem_use())
 * @mem_access: the IB_ACCESS_* right @mem's placements need
 * @kept: the object the last segment used, still held, for the next
 *	segment of the same read burst: a message in one MR costs one
 *	lookup per burst, not one per FPDU; put when swi_eng_rx_data_ready()
 *	returns, so that no idle stream holds an MR
 * @kept_stag: the STag that found @kept
 * @rqe: the receive buffer of the Send in progress
 * @rqe_mem: the memory object of each of its SGEs, as checked when it was
 *	taken, held (swi_rdmap_mem_hold()) until it completes; each placement
 *	checks it again (swi_rdmap_mem_use()). NULL for a zero-length SGE
 * @rresp_got: octets of the Read Response to the oldest outstanding Read
 *	placed so far, in order
 * @rresp_at: the ORQ position (&eng_stream.orq_get) of the Read the last
 *	Read Response segment was checked for: the receiver completes that
 *	Read only, never one a flush moved to the ORQ's head meanwhile
 * @rqe_valid: @rqe is taken
 * @failed: a Terminate was raised, nothing more is processed
 * @open: the messages in progress: BIT(qn) for an untagged queue whose
 *	message had a segment without L and not yet the one with L,
 *	ENG_RX_OPEN_WRITE likewise for an RDMA Write (swi_eng_stream_cut_short())
 * @write_got: octets of the RDMA Write in progress placed so far
 * @write_len: octets of the last whole RDMA Write, until Immediate Data
 *	reports them (ib_wc.byte_len of IB_WC_RECV_RDMA_WITH_IMM) or another
 *	message on queue 0 completes
 */
struct eng_rx {
	u8 hdr[ENG_RX_HDR_MAX];
	u8 hdr_got;
	u8 hdr_len;
	u16 ulpdu_len;
	struct ddp_hdr_info h;
	struct rdmap_read_req_info rr;
	struct ddp_rx_state ddp;
	struct rdmap_mem *mem;
	int mem_access;
	struct rdmap_mem *kept;
	u32 kept_stag;
	struct siw_rqe rqe;
	struct rdmap_mem *rqe_mem[SIW_MAX_SGE];
	u32 rresp_got;
	u32 rresp_at;
	bool rqe_valid;
	bool failed;
	u8 open;
	u32 write_got;
	u32 write_len;
};

/* &eng_rx.open: an RDMA Write in progress; the bits below are the queues */
#define ENG_RX_OPEN_WRITE	BIT(RDMAP_QN_COUNT)

/*
 * FPDUs of one message handed to the socket in one sock_sendmsg() call at
 * most; the batch also ends when its ULPDUs fill the stage (MPA_MULPDU_MAX
 * octets at most, struct eng_tx_buf) or its kvecs the wire array
 */
#define ENG_TX_BATCH		16
#define ENG_TX_RUNS		8	/* runs of octets one ULPDU may have */
#define ENG_TX_WIRE_MAX		(2 * MPA_FPDU_MAX_PIECES + ENG_TX_RUNS)

/**
 * struct eng_tx_buf - the transmitter's buffers, one allocation
 * @wire: the batch on its way into the socket, as kvecs over the framing
 *	octets of each @fpdu and its ULPDU: headers in @stage, payload in
 *	the source MR's pages or, copied, in @stage
 * @wire_stage: for each kvec of @wire that points into an MR, the place
 *	of the same octets in @stage, for eng_tx_settle(); else NULL
 * @stage: the batch's ULPDUs, one after the other; @stage_size octets,
 *	behind @fpdu in the same allocation
 * @stage_size: octets of @stage: MPA_MULPDU_MAX
 * @nr_fpdu: entries of @fpdu: ENG_TX_BATCH
 * @fpdu: the batch of FPDUs being sent, all of one message
 *
 * Allocated when the transmitter first has a message to frame
 * (eng_tx_buf_get()), not with the stream: an idle connection needs
 * none of it. Freed once the transmitter has been idle ENG_TX_IDLE_MS
 * (swi_eng_tx_idle_work()), and with the stream. Used under tx_mutex only.
 */
struct eng_tx_buf {
	struct kvec wire[ENG_TX_WIRE_MAX];
	u8 *wire_stage[ENG_TX_WIRE_MAX];
	u8 *stage;
	u32 stage_size;
	u32 nr_fpdu;
	struct mpa_fpdu fpdu[];
};

/**
 * struct eng_ulpdu - where the octets of a ULPDU being framed lie
 * @stage: its place in the stage, of the ULPDU's length: the headers are
 *	built there, and payload that is not sent from where it lies is
 *	copied to its offset there
 * @run: the octets in order, merged where adjacent
 * @direct: the run lies outside the stage (in an MR's pages)
 * @nr: runs in use
 * @len: octets in all runs
 */
struct eng_ulpdu {
	u8 *stage;
	struct kvec run[ENG_TX_RUNS];
	bool direct[ENG_TX_RUNS];
	unsigned int nr;
	u32 len;
};

/* struct eng_stream flags bits */
#define ENG_TX_STOPPED	1	/* nothing more is sent */
#define ENG_TX_CLOSE	2	/* shut down writing once idle */
#define ENG_TX_HOLD	3	/* responder: wait for the first FPDU */
#define ENG_TX_RTR	4	/* initiator: the RTR goes first */
#define ENG_TX_FIN_OUT	5	/* the close's FIN went out */

/**
 * struct eng_stream - a QP's TCP stream in Full Operation
 * @link: its QP as the engine knows it, fixed at creation: @link.qp is
 *	handed back in the device's calls (the QP outlives its stream:
 *	destroy_qp frees the stream)
 * @sock: the kernel socket, owned
 * @saved_data_ready: the socket's callbacks before attach
 * @saved_write_space: see @saved_data_ready
 * @saved_state_change: see @saved_data_ready
 * @tx_work: runs the transmitter where the poster cannot
 * @tx_mutex: held by whoever runs the transmitter or flushes its job;
 *	process context only
 * @tx_idle: frees @txb once the transmitter is idle (swi_eng_tx_idle_work());
 *	queued when @txb is allocated, cancelled when the stream is freed
 * @flags: ENG_TX_* bits
 * @cfg: what was negotiated
 * @mtx: MPA transmit state (transmitter only)
 * @txb: the buffers of the batch (transmitter only): NULL until the
 *	transmitter has a message to frame, and again once it has been idle;
 *	never NULL while @job is a message or a batch is unsent
 * @tx_used: jiffies when the transmitter last built a batch in @txb
 * @txb_size: octets of @txb, 0 while there is none; written with @txb,
 *	read as a snapshot by swi_eng_stream_get_info()
 * @nr_fpdu: FPDUs in the batch, in @txb->fpdu
 * @stage_used: octets of @txb->stage in use
 * @wire_nr: kvecs in @txb->wire
 * @wire_len: octets of the batch
 * @wire_sent: of which the socket took these; the batch lives in @txb
 *	while @wire_sent < @wire_len
 * @wire_markers: Markers in the batch, for the statistics
 * @job: the message being transmitted (transmitter only)
 * @tx_src: the local memory object the batch sends from, referenced,
 *	found by @tx_src_stag: one lookup per batch rather than one per FPDU.
 *	Held until the socket has taken the whole batch, or the transmitter
 *	returns, whichever is first (eng_tx_settle()) (transmitter only)
 * @tx_src_stag: the STag that found @tx_src
 * @msn: next MSN per untagged queue we send on (transmitter only)
 * @ird: entries of @irq, the IRD the stream was created with, fixed
 * @ord: entries of @orq, the ORD the stream was created with, fixed
 * @qlock: protects @irq_*, @orq_*, @cq_*, @term_* (any context, irqsave)
 * @irq: Read Requests received and not yet answered, @ird entries,
 *	allocated with the stream: the receiver fills it, maybe in softirq
 * @irq_put: producer index (receiver)
 * @irq_get: consumer index (transmitter)
 * @orq: our RDMA Read work requests awaiting their Response, @ord entries;
 *	NULL until the transmitter takes the stream's first Read (set under
 *	@qlock by the transmitter, then kept until the stream is freed)
 * @orq_put: producer index (transmitter)
 * @orq_get: consumer index (receiver)
 * @cq: the completion FIFO (engine/cq.c), @cq_size entries; NULL until
 *	the stream's first RDMA Read (set under @qlock by the transmitter)
 * @cq_size: its entries, ORD plus slack
 * @cq_put: producer index (transmitter)
 * @cq_get: consumer index (the drainer)
 * @cq_drainer: the context completing entries, NULL when none is
 * @term: the Terminate to send
 * @term_len: its length, 0 when none is queued
 * @term_sent: a Terminate went out or is being sent
 * @mrx: MPA receive state (receiver only)
 * @mscan: the checker in front of @mrx: CRC and Markers of each FPDU are
 *	verified before any of it is read out of the socket (receiver only)
 * @rx: DDP/RDMAP receive state (receiver only)
 * @id: the stream's identity, unique for the module's life and never 0:
 *	what a memory object notes of the streams whose peers used it
 *	(&rdmap_mem.used_by)
 */
struct eng_stream {
	struct eng_qp_link link;
	u64 id;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct work_struct tx_work;
	struct mutex tx_mutex;		/* the transmitter */
	struct delayed_work tx_idle;
	unsigned long flags;
	struct eng_stream_cfg cfg;
	struct mpa_tx mtx;
	struct eng_tx_buf *txb;
	unsigned long tx_used;
	u32 txb_size;
	u32 nr_fpdu;
	u32 stage_used;
	u32 wire_nr;
	u32 wire_len;
	u32 wire_sent;
	u32 wire_markers;
	struct eng_tx_job job;
	struct rdmap_mem *tx_src;
	u32 tx_src_stag;
	u32 msn[RDMAP_QN_COUNT];
	u32 ird;
	u32 ord;
	spinlock_t qlock;		/* IRQ, ORQ, CQ FIFO, Terminate */
	struct eng_rreq *irq;
	u32 irq_put;
	u32 irq_get;
	struct eng_orqe *orq;
	u32 orq_put;
	u32 orq_get;
	struct eng_cq_ent *cq;
	u32 cq_size;
	u32 cq_put;
	u32 cq_get;
	struct task_struct *cq_drainer;
	struct rdmap_term_hdr term;
	u8 term_len;
	bool term_sent;
	struct mpa_rx mrx;
	struct mpa_rx mscan;
	struct eng_rx rx;
};

/**
 * eng_orq_used() - RDMA Reads of ours awaiting their Response
 * @s: the stream
 *
 * Context: any context; a snapshot.
 * Return: the number of ORQ entries in use.
 */
static inline u32 eng_orq_used(struct eng_stream *s)
{
	return READ_ONCE(s->orq_put) - READ_ONCE(s->orq_get);
}

/* engine/cq.c */
int swi_eng_cq_alloc(struct eng_stream *s);
bool swi_eng_cq_room(struct eng_stream *s);
u32 swi_eng_cq_reserve(struct eng_stream *s, const struct siw_sqe *sqe);
void swi_eng_cq_read_done(struct eng_stream *s, u32 at, u32 bytes,
			  enum siw_wc_status status);
void swi_eng_cq_sqe_done(struct eng_stream *s, const struct siw_sqe *sqe,
			 u32 bytes, enum siw_wc_status status);
void swi_eng_cq_settle(struct eng_stream *s);

/* engine/tx.c */
int swi_eng_tx_init(void);
void swi_eng_tx_exit(void);
void swi_eng_tx_work(struct work_struct *work);
void swi_eng_tx_idle_work(struct work_struct *work);
u32 swi_eng_tx_mulpdu(struct eng_stream *s);

/* engine/rx.c */
int swi_eng_rx_init(struct eng_stream *s);
void swi_eng_rx_release(struct eng_stream *s);
void swi_eng_rx_peer_closed(struct eng_stream *s, struct sock *sk);
void swi_eng_rx_data_ready(struct sock *sk);
int swi_eng_rx_orq_complete(struct eng_stream *s, enum siw_wc_status status);

#endif /* SOFTIWARP_STREAM_H */
