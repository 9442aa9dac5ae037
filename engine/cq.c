// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: completion order
 *
 * RFC 5040 section 5.5, rule 15: RDMA Operations are Completed in the
 * order the ULP submitted them. Most work requests are done when their
 * last FPDU is in the socket, but an RDMA Read is done only when its last
 * Read Response arrives, later, on the receiver. A Send, a Write or a
 * local work request posted behind a Read must not complete before it.
 *
 * A stream that never posts a Read has nothing to order: its work
 * requests complete as the transmitter finishes them, one after the
 * other. With its first Read the stream gets a completion FIFO
 * (&eng_stream.cq), sized ORD + %ENG_CQ_SLACK: the transmitter puts in
 * it, in SQ order, a slot for each Read when the Read enters the ORQ and
 * an entry for every other work request when it is done. A Read's slot
 * is filled when its Response is placed or the Read is flushed. Entries
 * leave from the head, the moment they are filled, and only then reach
 * the CQ.
 *
 * Pushing a CQE runs the CQ's comp_handler, which may post work and so
 * come back here: nothing is pushed under @qlock. One context drains at a
 * time (&eng_stream.cq_drainer); another that fills an entry meanwhile
 * leaves it to the drainer, which looks again before it stops. Once the
 * QP is in ERROR, what it had not completed is flushed: entries that
 * reach the head then complete with a flush error, whatever their own
 * status was.
 *
 * The transmitter takes no work request while the FIFO is full
 * (swi_eng_cq_room()); the drain that makes room kicks it.
 */
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "engine/stream.h"

/* Completion slots beyond the ORD: work requests behind the Reads */
#define ENG_CQ_SLACK	64

/**
 * swi_eng_cq_alloc() - give the stream its completion FIFO
 * @s: the stream, whose transmitter is taking its first RDMA Read
 *
 * Context: the transmitter (under @s->tx_mutex); process context.
 * Return: 0, or -ENOMEM.
 */
int swi_eng_cq_alloc(struct eng_stream *s)
{
	u32 n = s->ord + ENG_CQ_SLACK;
	struct eng_cq_ent *cq;
	unsigned long flags;

	lockdep_assert_held(&s->tx_mutex);
	if (s->cq)
		return 0;
	cq = kcalloc(n, sizeof(*cq), GFP_NOIO);
	if (!cq)
		return -ENOMEM;
	spin_lock_irqsave(&s->qlock, flags);
	s->cq_size = n;
	s->cq = cq;
	spin_unlock_irqrestore(&s->qlock, flags);
	return 0;
}

/**
 * swi_eng_cq_room() - may the transmitter take another work request
 * @s: the stream
 *
 * Each work request the transmitter takes adds one entry at most.
 *
 * Context: the transmitter.
 * Return: false when the completion FIFO is full.
 */
bool swi_eng_cq_room(struct eng_stream *s)
{
	return !s->cq ||
	       READ_ONCE(s->cq_put) - READ_ONCE(s->cq_get) < s->cq_size;
}

/* Fill @e from @sqe; not ready */
static void eng_cq_fill(struct eng_cq_ent *e, const struct siw_sqe *sqe)
{
	*e = (struct eng_cq_ent) {
		.id = sqe->id,
		.flags = sqe->flags,
		.opcode = sqe->opcode,
	};
}

/**
 * swi_eng_cq_reserve() - a slot for an RDMA Read entering the ORQ
 * @s: the stream, with its FIFO (swi_eng_cq_alloc()) and room in it
 * @sqe: the Read
 *
 * Context: the transmitter, under @s->qlock.
 * Return: the slot's position, for swi_eng_cq_read_done().
 */
u32 swi_eng_cq_reserve(struct eng_stream *s, const struct siw_sqe *sqe)
{
	u32 at = s->cq_put;

	lockdep_assert_held(&s->qlock);
	eng_cq_fill(&s->cq[at % s->cq_size], sqe);
	WRITE_ONCE(s->cq_put, at + 1);
	return at;
}

/* Push one entry to the CQ */
static void eng_cq_push(struct eng_stream *s, const struct eng_cq_ent *e)
{
	struct siw_sqe sqe = {
		.id = e->id,
		.flags = e->flags,
		.opcode = e->opcode,
	};

	if (e->status == SIW_WC_SUCCESS &&
	    READ_ONCE(*s->link.state) == RDMAP_QPS_ERROR)
		swi_qp_complete_sqe(s->link.qp, &sqe, 0, SIW_WC_WR_FLUSH_ERR);
	else
		swi_qp_complete_sqe(s->link.qp, &sqe, e->bytes, e->status);
}

/* Complete the ready entries at the head, unless another context does */
static void eng_cq_drain(struct eng_stream *s)
{
	struct eng_cq_ent e;
	unsigned long flags;
	bool room = false;

	spin_lock_irqsave(&s->qlock, flags);
	if (s->cq_drainer) {
		spin_unlock_irqrestore(&s->qlock, flags);
		return;
	}
	s->cq_drainer = current;
	while (s->cq_get != s->cq_put && s->cq[s->cq_get % s->cq_size].ready) {
		e = s->cq[s->cq_get % s->cq_size];
		room |= s->cq_put - s->cq_get == s->cq_size;
		WRITE_ONCE(s->cq_get, s->cq_get + 1);
		spin_unlock_irqrestore(&s->qlock, flags);
		eng_cq_push(s, &e);
		spin_lock_irqsave(&s->qlock, flags);
	}
	WRITE_ONCE(s->cq_drainer, NULL);
	spin_unlock_irqrestore(&s->qlock, flags);
	if (room)
		swi_eng_tx_kick(s, false);
}

/**
 * swi_eng_cq_read_done() - an RDMA Read is done: complete it in order
 * @s: the stream
 * @at: its slot (swi_eng_cq_reserve())
 * @bytes: octets read
 * @status: its SIW_WC_* status
 *
 * Context: any context; not under @s->qlock.
 * Return: nothing.
 */
void swi_eng_cq_read_done(struct eng_stream *s, u32 at, u32 bytes,
			  enum siw_wc_status status)
{
	struct eng_cq_ent *e;
	unsigned long flags;

	spin_lock_irqsave(&s->qlock, flags);
	e = &s->cq[at % s->cq_size];
	e->bytes = bytes;
	e->status = status;
	e->ready = true;
	spin_unlock_irqrestore(&s->qlock, flags);
	eng_cq_drain(s);
}

/**
 * swi_eng_cq_sqe_done() - a work request other than a Read is done
 * @s: the stream
 * @sqe: the work request
 * @bytes: octets transferred
 * @status: its SIW_WC_* status
 *
 * Completes it now when the stream never took a Read, else after every
 * work request ahead of it.
 *
 * Context: the transmitter (under @s->tx_mutex), which made room for the
 * entry before it took @sqe (swi_eng_cq_room()).
 * Return: nothing.
 */
void swi_eng_cq_sqe_done(struct eng_stream *s, const struct siw_sqe *sqe,
			 u32 bytes, enum siw_wc_status status)
{
	struct eng_cq_ent *e;
	unsigned long flags;

	lockdep_assert_held(&s->tx_mutex);
	if (sqe->flags & ENG_WQE_INTERNAL)
		return;
	if (!s->cq) {
		swi_qp_complete_sqe(s->link.qp, sqe, bytes, status);
		return;
	}
	spin_lock_irqsave(&s->qlock, flags);
	if (WARN_ON_ONCE(s->cq_put - s->cq_get >= s->cq_size)) {
		spin_unlock_irqrestore(&s->qlock, flags);
		return;
	}
	e = &s->cq[s->cq_put % s->cq_size];
	eng_cq_fill(e, sqe);
	e->bytes = bytes;
	e->status = status;
	e->ready = true;
	WRITE_ONCE(s->cq_put, s->cq_put + 1);
	spin_unlock_irqrestore(&s->qlock, flags);
	eng_cq_drain(s);
}

/**
 * swi_eng_cq_settle() - wait until every filled entry reached the CQ
 * @s: the stream, whose Reads were all flushed
 *
 * A flush completes the rings' work requests after the stream's: those
 * the stream holds must go first, also when another context is draining.
 * A no-op when called from within the drain itself.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_eng_cq_settle(struct eng_stream *s)
{
	struct task_struct *d;

	if (!s->cq)
		return;
	eng_cq_drain(s);
	while ((d = READ_ONCE(s->cq_drainer)) && d != current)
		cond_resched();
}
