// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the receiver
 *
 * The socket's data_ready callback runs tcp_read_sock() under the socket
 * lock (softirq, or the lock owner's context when the backlog drains) and
 * feeds every skb to the MPA parser (mpa/mpa_deframe.c), which calls back
 * here per ULPDU: begin, data pieces in order, end with the CRC verdict.
 * The parser runs in verify-first mode (RFC 5044 section 6): only FPDUs
 * whose CRC and Markers were checked are read out of the socket, so
 * nothing here (no lookup, no placement, no completion) ever sees an
 * octet of a bad FPDU; its error comes as the end callback's, alone.
 *
 * Of each ULPDU the receiver first collects the headers (DDP, and the
 * RDMA Read Request or Terminate header behind an untagged one) into
 * &eng_rx.hdr; with the header complete it validates the segment with
 * swi_rdmap_rx_check() against the STag table, the ORQ or the posted receive,
 * and places the payload that follows straight from the skb into the
 * target pages. A bad CRC ends the stream with a Terminate.
 *
 * Any error raises the Terminate of RFC 5040 section 7 (queued to the
 * transmitter) and a QP event, then stops the parser for good.
 */
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "engine/stream.h"
#include "rdmap/rdmap_trace.h"

static struct eng_stream *eng_rx_stream(void *ctx)
{
	return ctx;
}

/* Stop the receiver with a Terminate for @cause */
static int eng_rx_fail(struct eng_stream *s, u8 layer, u8 etype, u8 code)
{
	struct rdmap_term_cause cause = {
		.layer = layer, .etype = etype, .code = code,
	};
	struct eng_rx *rx = &s->rx;
	struct rdmap_term_offender seg = {
		.hdr = rx->hdr,
		.len = rx->hdr_got,
		.seg_len = rx->ulpdu_len,
	};
	bool with_hdr = rx->hdr_got >= DDP_TAGGED_HDR_SIZE;

	rx->failed = true;
	trace_rx_refused(s->link.qp_num, &cause, rx->hdr, rx->hdr_got,
			 rx->ulpdu_len);
	net_info_ratelimited("softiwarp: QP %u: sending Terminate: %s\n",
			     s->link.qp_num,
			     swi_rdmap_term_name(layer, etype, code));
	/*
	 * Queued, not sent: the transmitter is kicked by the QP's move to
	 * TERMINATE, so TERM_SENT cannot overtake the error event.
	 */
	swi_eng_tx_queue_term(s, &cause, with_hdr ? &seg : NULL, false);
	swi_qp_raise(s->link.qp, RDMAP_QPE_LOCAL_ERROR,
		     swi_rdmap_qp_err_from_term(&cause));
	return -EPROTO;
}

static int eng_rx_fail_cause(struct eng_stream *s,
			     const struct rdmap_term_cause *c)
{
	return eng_rx_fail(s, c->layer, c->etype, c->code);
}

/* Malformed header: too short for what its opcode needs */
static int eng_rx_malformed(struct eng_stream *s)
{
	return eng_rx_fail(s, TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_OPERATION,
			   TERM_RDMAP_UNSPECIFIED);
}

/* @opcode is Immediate Data, on a stream that accepts it */
static bool eng_rx_is_imm(const struct eng_stream *s, u8 opcode)
{
	return s->rx.ddp.ulp_ext &&
	       (opcode == RDMAP_IMM || opcode == RDMAP_IMM_SE);
}

/* From the first two octets: how long the headers of this ULPDU are */
static int eng_rx_hdr_len(struct eng_stream *s)
{
	struct eng_rx *rx = &s->rx;
	bool tagged = rx->hdr[0] & (DDP_CTRL_T >> 8);
	u8 opcode = rx->hdr[1] & RDMAP_CTRL_OPCODE;
	unsigned int need = ddp_hdr_size(tagged);

	if (!tagged && opcode == RDMAP_READ_REQ)
		need += RDMAP_READ_REQ_SIZE;
	/* its 8 octets are kept as a header: none is placed */
	if (!tagged && eng_rx_is_imm(s, opcode))
		need += RDMAP_IMM_SIZE;
	/* RFC 7306's Atomic messages are all header (Figures 4 and 6) */
	if (!tagged && s->rx.ddp.ulp_ext && opcode == RDMAP_ATOMIC_REQ)
		need += RDMAP_ATOMIC_REQ_SIZE;
	if (!tagged && s->rx.ddp.ulp_ext && opcode == RDMAP_ATOMIC_RESP)
		need += RDMAP_ATOMIC_RESP_SIZE;
	if (!tagged && opcode == RDMAP_TERMINATE && rx->ulpdu_len > need)
		need += min_t(unsigned int, rx->ulpdu_len - need,
			      RDMAP_TERM_MAX_SIZE);
	if (rx->ulpdu_len < need)
		return eng_rx_malformed(s);
	rx->hdr_len = need;
	return 0;
}

/*
 * The object behind @stag, held: the one kept from the last segment, or
 * found. A hold, not a use reference: a segment the peer leaves
 * unfinished never makes a deregistration wait.
 */
static struct rdmap_mem *eng_rx_mem(struct eng_stream *s, u32 stag)
{
	struct eng_rx *rx = &s->rx;
	struct rdmap_mem *mem = rx->kept;

	if (mem && rx->kept_stag == stag) {
		rx->kept = NULL;
		return mem;
	}
	mem = swi_rdmap_mem_lookup(s->link.mem, stag);
	if (!IS_ERR(mem)) {
		swi_rdmap_mem_hold(mem);
		swi_rdmap_mem_put(mem);
	}
	return mem;
}

/* Keep @mem, held, found by @stag, for the next segment */
static void eng_rx_keep(struct eng_rx *rx, struct rdmap_mem *mem, u32 stag)
{
	swi_rdmap_mem_unhold(rx->kept);
	rx->kept = mem;
	rx->kept_stag = stag;
}

/* Let go of the kept object: the read burst is over */
static void eng_rx_drop_kept(struct eng_rx *rx)
{
	swi_rdmap_mem_unhold(rx->kept);
	rx->kept = NULL;
}

/* Let go of the current segment's target */
static void eng_rx_drop_mem(struct eng_rx *rx)
{
	swi_rdmap_mem_unhold(rx->mem);
	rx->mem = NULL;
}

/* The receive buffer is done with: let go of its objects */
static void eng_rx_rqe_unhold(struct eng_rx *rx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx->rqe_mem); i++) {
		swi_rdmap_mem_unhold(rx->rqe_mem[i]);
		rx->rqe_mem[i] = NULL;
	}
}

/*
 * Check the SGEs of a receive buffer just taken, and hold the object each
 * was checked against: its placements go there and nowhere else
 */
static int eng_rx_bind_rqe(struct eng_stream *s, u64 *len)
{
	struct eng_rx *rx = &s->rx;
	unsigned int i;
	int err = 0;

	*len = 0;
	for (i = 0; !err && i < rx->rqe.num_sge; i++) {
		const struct siw_sge *sge = &rx->rqe.sge[i];
		struct rdmap_mem *mem;

		*len += sge->length;
		if (!sge->length)
			continue;
		mem = swi_rdmap_mem_lookup(s->link.mem, sge->lkey);
		if (swi_rdmap_mem_local_check(mem, sge->lkey, s->link.pd,
					      IB_ACCESS_LOCAL_WRITE, sge->laddr,
					      sge->length))
			err = -EACCES;
		else
			swi_rdmap_mem_hold(mem);
		if (!err)
			rx->rqe_mem[i] = mem;
		swi_rdmap_mem_put(mem);
	}
	return err;
}

/* Take a receive buffer for a new Send; fill in queue 0's state */
static int eng_rx_take_rqe(struct eng_stream *s)
{
	struct ddp_rx_queue *q = &s->rx.ddp.queue[RDMAP_QN_SEND];
	struct eng_rx *rx = &s->rx;
	struct swi_qp *qp = s->link.qp;
	u64 len = 0;
	int err;

	if (rx->rqe_valid)
		return 0;
	q->buffers = 0;
	err = swi_qp_take_rqe(qp, &rx->rqe);
	if (err == -ENOENT)
		return 0;
	if (!err)
		err = eng_rx_bind_rqe(s, &len);
	if (err) {
		eng_rx_rqe_unhold(rx);
		swi_qp_complete_rqe(qp, &rx->rqe, 0, SIW_WC_LOC_PROT_ERR, 0);
		return eng_rx_fail(s, TERM_LAYER_RDMAP,
				   TERM_ETYPE_RDMAP_CATASTROPHIC,
				   TERM_RDMAP_CATASTROPHIC_STREAM);
	}
	rx->rqe_valid = true;
	q->buffers = 1;
	q->buf_len = min_t(u64, len, U32_MAX);
	return 0;
}

/*
 * The sink of a Read Response: the head of the ORQ, exactly. Its STag
 * must be the one the Request named, whatever the length (a zero-length
 * Response too), and the object the Read was checked against when it was
 * posted must still be valid for it: never what the STag's index names
 * now.
 */
static void eng_rx_rresp_stag(struct eng_stream *s, struct ddp_stag_check *c)
{
	struct eng_rx *rx = &s->rx;
	struct siw_sge sink = {};
	struct eng_orqe *e;
	unsigned long flags;

	memset(c, 0, sizeof(*c));
	c->state = DDP_STAG_INVALID;
	spin_lock_irqsave(&s->qlock, flags);
	if (s->orq_get == s->orq_put)
		goto out;
	/* a Response under way belongs to its Read, flushed or not */
	if (rx->rresp_got && rx->rresp_at != s->orq_get)
		goto out;
	rx->rresp_at = s->orq_get;
	e = &s->orq[s->orq_get % s->ord];
	/* an atomic awaits its Atomic Response, never a Read Response */
	if (!eng_op_is_read(e->sqe.opcode))
		goto out;
	if (e->sqe.num_sge)
		sink = e->sqe.sge[0];
	if (rx->h.stag != sink.lkey)
		goto out;
	if (sink.length) {
		if (!e->sink ||
		    swi_rdmap_mem_local_check(e->sink, sink.lkey, s->link.pd,
					      IB_ACCESS_LOCAL_WRITE, sink.laddr,
					      sink.length))
			goto out;
		swi_rdmap_mem_hold(e->sink);
		rx->mem = e->sink;
		rx->mem_access = IB_ACCESS_LOCAL_WRITE;
	}
	c->state = DDP_STAG_VALID;
	c->access = DDP_ACCESS_REMOTE_WRITE;
	c->base = sink.laddr;
	c->len = sink.length;
out:
	spin_unlock_irqrestore(&s->qlock, flags);
}

/*
 * A Read Response fills the sink of the oldest Read in order: each
 * segment starts where the one before ended, and the last one (L) ends at
 * the end of the sink. Else an octet of the sink would be left unwritten
 * by a Read that completes (RFC 5041 7.2: base or bounds violation).
 */
static bool eng_rx_rresp_in_order(const struct eng_rx *rx,
				  const struct ddp_stag_check *sink, u32 plen)
{
	return rx->h.to == sink->base + rx->rresp_got &&
	       (!rx->h.last || rx->rresp_got + plen == sink->len);
}

/*
 * The untagged buffers of queues 1 to 3 as DDP counts them: one for the
 * Terminate; the free IRD entries for the Read and Atomic Requests, which
 * share them (RFC 7306 section 5.2.2 rule 4), each Request its own size;
 * for the Atomic Responses one while the oldest of our outstanding
 * Requests is an atomic (rule 5: a buffer for each; the Responses come in
 * the order of the Requests, a Read's before the next atomic's)
 */
static void eng_rx_queue_room(struct eng_stream *s,
			      const struct ddp_hdr_info *h)
{
	struct ddp_rx_queue *q = &s->rx.ddp.queue[h->qn];
	unsigned long flags;

	switch (h->qn) {
	case RDMAP_QN_TERMINATE:
		q->buffers = 1;
		q->buf_len = RDMAP_TERM_MAX_SIZE;
		break;
	case RDMAP_QN_READ_REQ:
		q->buffers = s->ird - (READ_ONCE(s->irq_put) -
				       READ_ONCE(s->irq_get));
		q->buf_len = h->opcode == RDMAP_ATOMIC_REQ ?
			     RDMAP_ATOMIC_REQ_SIZE : RDMAP_READ_REQ_SIZE;
		break;
	default:
		spin_lock_irqsave(&s->qlock, flags);
		q->buffers = s->orq_get != s->orq_put && !s->rx.rresp_got &&
			     eng_op_is_atomic(s->orq[s->orq_get % s->ord].sqe.opcode);
		spin_unlock_irqrestore(&s->qlock, flags);
		q->buf_len = RDMAP_ATOMIC_RESP_SIZE;
		break;
	}
}

/* The headers are in: validate the segment before any payload lands */
static int eng_rx_seg_begin(struct eng_stream *s)
{
	struct eng_rx *rx = &s->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct rdmap_term_cause cause;
	struct ddp_stag_check chk;
	int hl = swi_ddp_hdr_parse(rx->hdr, rx->hdr_len, h);

	if (hl < 0)
		return eng_rx_malformed(s);
	rx->mem = NULL;
	if (h->tagged && h->opcode == RDMAP_READ_RESP) {
		eng_rx_rresp_stag(s, &chk);
	} else if (h->tagged) {
		rx->mem = eng_rx_mem(s, h->stag);
		rx->mem_access = IB_ACCESS_REMOTE_WRITE;
		swi_rdmap_mem_remote_check(rx->mem, h->stag, s->link.pd, s->id,
					   &chk);
		if (IS_ERR(rx->mem) || rx->ulpdu_len == hl)
			eng_rx_drop_mem(rx);	/* nothing to place */
	} else if (h->qn == RDMAP_QN_SEND && eng_rx_take_rqe(s)) {
		return -EPROTO;
	} else if (h->qn == RDMAP_QN_SEND && eng_rx_is_imm(s, h->opcode)) {
		/* one segment, exactly 8 octets (RFC 7306 section 6.3) */
		if (!h->last)
			return eng_rx_malformed(s);
		rx->ddp.queue[RDMAP_QN_SEND].buf_len = RDMAP_IMM_SIZE;
	} else if (h->qn < RDMAP_QN_COUNT && h->qn != RDMAP_QN_SEND) {
		eng_rx_queue_room(s, h);
	}
	if (!swi_rdmap_rx_check(h, rx->ulpdu_len - hl, &rx->ddp,
				h->tagged ? &chk : NULL, &cause)) {
		if (!h->tagged || h->opcode != RDMAP_READ_RESP)
			return 0;
		/* DDP lets zero-length tagged segments pass: RDMAP does not */
		if (chk.state == DDP_STAG_VALID &&
		    eng_rx_rresp_in_order(rx, &chk, rx->ulpdu_len - hl))
			return 0;
		cause = (struct rdmap_term_cause){
			.layer = TERM_LAYER_DDP,
			.etype = TERM_ETYPE_DDP_TAGGED,
			.code = chk.state == DDP_STAG_VALID ?
				TERM_DDP_T_BASE_BOUNDS :
				TERM_DDP_T_INVALID_STAG,
		};
	}
	eng_rx_drop_mem(rx);
	return eng_rx_fail_cause(s, &cause);
}

/* Copy cursor from an skb into pages found by swi_rdmap_mem_walk() */
struct eng_skb_cursor {
	struct mpa_rx *mrx;
	const struct sk_buff *skb;
	unsigned int off;
};

static int eng_place_piece(void *ctx, struct page *page, unsigned int off,
			   unsigned int len)
{
	struct eng_skb_cursor *c = ctx;
	void *dst = kmap_local_page(page);
	int err = swi_mpa_rx_copy_ulpdu(c->mrx, c->skb, &c->off, dst + off, len);

	kunmap_local(dst);
	return err;
}

/*
 * Scatter message octets at @mo into the receive buffer's SGEs, each into
 * the object it was checked against when the buffer was taken
 */
static int eng_rx_place_rqe(struct eng_stream *s, struct eng_skb_cursor *c,
			    u32 mo, u32 len)
{
	struct eng_rx *rx = &s->rx;
	unsigned int i;
	int err = 0;

	for (i = 0; i < rx->rqe.num_sge && len && !err; i++) {
		const struct siw_sge *sge = &rx->rqe.sge[i];
		u32 n;

		if (mo >= sge->length) {
			mo -= sge->length;
			continue;
		}
		n = min(len, sge->length - mo);
		if (!rx->rqe_mem[i])
			return -EINVAL;
		err = swi_rdmap_mem_use_walk(rx->rqe_mem[i], sge->lkey,
					     s->link.pd, IB_ACCESS_LOCAL_WRITE,
					     sge->laddr + mo, n, eng_place_piece,
					     c);
		len -= n;
		mo = 0;
	}
	return err ? err : (len ? -EINVAL : 0);
}

/*
 * Place at @to of the current tagged segment's target, the object its
 * STag was checked against at the segment's start, checked again now
 */
static int eng_rx_place_tagged(struct eng_stream *s, struct eng_skb_cursor *c,
			       u64 to, u32 len)
{
	struct eng_rx *rx = &s->rx;

	if (!rx->mem)
		return -EINVAL;
	return swi_rdmap_mem_use_walk(rx->mem, rx->h.stag, s->link.pd,
				      rx->mem_access, to, len, eng_place_piece, c);
}

/* Payload octets @poff.. of the current segment are @skb's at @off */
static int eng_rx_place(struct eng_stream *s, struct sk_buff *skb,
			unsigned int off, unsigned int len, u32 poff)
{
	struct eng_skb_cursor c = { .mrx = &s->mrx, .skb = skb, .off = off };
	struct ddp_hdr_info *h = &s->rx.h;
	int err;

	if (h->tagged)
		err = eng_rx_place_tagged(s, &c, h->to + poff, len);
	else if (h->qn == RDMAP_QN_SEND)
		err = eng_rx_place_rqe(s, &c, h->mo + poff, len);
	else
		err = 0;	/* beyond a Terminate header: ignored */
	if (err)
		return eng_rx_fail(s, TERM_LAYER_RDMAP,
				   TERM_ETYPE_RDMAP_CATASTROPHIC,
				   TERM_RDMAP_CATASTROPHIC_STREAM);
	return 0;
}

/*
 * Take the oldest outstanding Read off the ORQ into @e: any when @at is
 * NULL (a flush), else only the one at position *@at, the Read whose
 * Response the receiver checked (a flush may have taken it meanwhile, and
 * the next Read must not complete with its data)
 */
static bool eng_rx_orq_pop(struct eng_stream *s, const u32 *at,
			   struct eng_orqe *e)
{
	unsigned long flags;
	bool got;

	spin_lock_irqsave(&s->qlock, flags);
	got = s->orq_get != s->orq_put && (!at || *at == s->orq_get);
	if (got) {
		*e = s->orq[s->orq_get % s->ord];
		WRITE_ONCE(s->orq_get, s->orq_get + 1);
	}
	spin_unlock_irqrestore(&s->qlock, flags);
	return got;
}

/* Complete @e, a Read taken off the ORQ, with @status */
static void eng_rx_orq_done(struct eng_stream *s, struct eng_orqe *e,
			    enum siw_wc_status status)
{
	const struct siw_sqe *sqe = &e->sqe;

	/* Read with Invalidate: the sink STag goes before the completion */
	if (status == SIW_WC_SUCCESS && sqe->opcode == SIW_OP_READ_LOCAL_INV &&
	    (!e->sink || swi_rdmap_mem_invalidate_held(e->sink, sqe->sge[0].lkey,
						       s->link.pd))) {
		status = SIW_WC_LOC_PROT_ERR;
		swi_qp_raise(s->link.qp, RDMAP_QPE_LOCAL_ERROR, RDMAP_QP_ERR_ACCESS);
	}
	swi_rdmap_mem_unhold(e->sink);
	swi_eng_cq_read_done(s, e->cq_at,
			     status || !sqe->num_sge ? 0 : sqe->sge[0].length,
			     status);
	if (status == SIW_WC_SUCCESS)
		swi_eng_tx_kick(s, false);	/* a fence or the ORD may let go */
}

/**
 * swi_eng_rx_orq_complete() - complete the oldest outstanding RDMA Read
 * @s: the stream
 * @status: the error it completes with (a flush)
 *
 * The receiver completes a Read whose last Response arrived itself, only
 * if it is still the one it checked (eng_rx_rresp_done()).
 *
 * Context: any context.
 * Return: 0, or -ENOENT when no Read is outstanding.
 */
int swi_eng_rx_orq_complete(struct eng_stream *s, enum siw_wc_status status)
{
	struct eng_orqe e;

	if (!eng_rx_orq_pop(s, NULL, &e))
		return -ENOENT;
	eng_rx_orq_done(s, &e, status);
	return 0;
}

#if IS_ENABLED(CONFIG_KUNIT)
static atomic_t eng_rx_flush_races = ATOMIC_INIT(0);

/**
 * swi_eng_rx_race_flush() - let a flush win the receiver's race (KUnit)
 * @n: how many of the next Read Responses' last segments (over all
 *	streams) find their Read flushed, as if the QP flushed its Reads
 *	between the receiver's check and its completion; 0 disarms
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_eng_rx_race_flush(unsigned int n)
{
	atomic_set(&eng_rx_flush_races, n);
}
EXPORT_SYMBOL_IF_KUNIT(swi_eng_rx_race_flush);

static void eng_rx_flush_race(struct eng_stream *s)
{
	if (atomic_dec_if_positive(&eng_rx_flush_races) >= 0)
		swi_eng_rx_orq_complete(s, SIW_WC_WR_FLUSH_ERR);
}
#else
static inline void eng_rx_flush_race(struct eng_stream *s) { }
#endif

/*
 * The last segment of a Read Response is placed: its Read completes,
 * unless a flush completed it already (with an error), in which case
 * nothing else does: the next Read's sink is indeterminate until its own
 * Response is Delivered (RFC 5040 section 5.5, rule 6)
 */
static void eng_rx_rresp_done(struct eng_stream *s)
{
	struct eng_orqe e;

	eng_rx_flush_race(s);
	if (eng_rx_orq_pop(s, &s->rx.rresp_at, &e))
		eng_rx_orq_done(s, &e, SIW_WC_SUCCESS);
}

/* A whole RDMA Read Request arrived: check it, queue the Response */
static int eng_rx_read_req(struct eng_stream *s)
{
	struct rdmap_read_req_info *r = &s->rx.rr;
	struct rdmap_term_cause cause;
	struct rdmap_mem *mem = NULL;
	struct ddp_stag_check chk = {};
	unsigned long flags;

	swi_rdmap_read_req_parse(s->rx.hdr + DDP_UNTAGGED_HDR_SIZE,
				 RDMAP_READ_REQ_SIZE, r);
	if (r->size) {
		mem = swi_rdmap_mem_lookup(s->link.mem, r->src_stag);
		swi_rdmap_mem_remote_check(mem, r->src_stag, s->link.pd, s->id,
					   &chk);
		if (IS_ERR(mem))
			mem = NULL;
	}
	if (swi_rdmap_read_req_check(r, &chk, &cause)) {
		swi_rdmap_mem_put(mem);
		return eng_rx_fail_cause(s, &cause);
	}
	if (mem) {
		/* held, not referenced: a stalled Response pins no pages */
		swi_rdmap_mem_hold(mem);
		swi_rdmap_mem_put(mem);
	}
	spin_lock_irqsave(&s->qlock, flags);
	s->irq[s->irq_put % s->ird] = (struct eng_rreq) {
		.sink_stag = r->sink_stag, .sink_to = r->sink_to,
		.size = r->size, .src_to = r->src_to,
		.src_stag = r->src_stag, .src = mem, .msn = s->rx.h.msn,
	};
	WRITE_ONCE(s->irq_put, s->irq_put + 1);
	spin_unlock_irqrestore(&s->qlock, flags);
	swi_eng_tx_kick(s, false);
	return 0;
}

/*
 * A whole Atomic Request arrived (RFC 7306 section 5.2.1): check it, queue
 * it with the Read Requests; the transmitter processes it in their order
 * (eng_tx_atomic_run()). Its Terminates carry the DDP header only
 * (section 8.1 rule 2: swi_rdmap_term_build() adds an RDMA header to a
 * Read Request's only).
 */
static int eng_rx_atomic_req(struct eng_stream *s)
{
	struct rdmap_atomic_req_info r;
	struct rdmap_term_cause cause;
	struct ddp_stag_check chk = {};
	struct rdmap_mem *mem;
	unsigned long flags;

	if (swi_rdmap_atomic_req_parse(s->rx.hdr + DDP_UNTAGGED_HDR_SIZE,
				       s->rx.hdr_len - DDP_UNTAGGED_HDR_SIZE,
				       &r) < 0)
		return eng_rx_malformed(s);
	mem = swi_rdmap_mem_lookup(s->link.mem, r.stag);
	swi_rdmap_mem_remote_check(mem, r.stag, s->link.pd, s->id, &chk);
	if (IS_ERR(mem))
		mem = NULL;
	if (swi_rdmap_atomic_req_check(&r, &chk, &cause)) {
		swi_rdmap_mem_put(mem);
		return eng_rx_fail_cause(s, &cause);
	}
	if (!mem)	/* the check passed: cannot be */
		return eng_rx_malformed(s);
	/* held, not referenced, as a Read Request's source */
	swi_rdmap_mem_hold(mem);
	swi_rdmap_mem_put(mem);
	spin_lock_irqsave(&s->qlock, flags);
	s->irq[s->irq_put % s->ird] = (struct eng_rreq) {
		.src_stag = r.stag, .src_to = r.to, .src = mem,
		.msn = s->rx.h.msn, .atomic = true, .at = r,
	};
	WRITE_ONCE(s->irq_put, s->irq_put + 1);
	spin_unlock_irqrestore(&s->qlock, flags);
	swi_eng_tx_kick(s, false);
	return 0;
}

/* Store what the target held, in host order, in the atomic's result */
static int eng_rx_result_piece(void *ctx, struct page *page, unsigned int off,
			       unsigned int len)
{
	u8 *va = kmap_local_page(page);

	memcpy(va + off, ctx, len);
	kunmap_local(va);
	return 0;
}

/*
 * An Atomic Response arrived (RFC 7306 section 5.2.2): queue 3 had a
 * buffer, so the oldest outstanding Request is an atomic. Its Original
 * Request Identifier must name it (rule 7: else an error is surfaced:
 * the atomic completes with a bad response, and the peer gets a
 * Terminate); the original value goes to the atomic's result buffer,
 * checked again, and the atomic completes.
 */
static int eng_rx_atomic_resp(struct eng_stream *s)
{
	struct rdmap_atomic_resp_info r;
	struct eng_orqe e;
	u32 at;
	int err;

	if (swi_rdmap_atomic_resp_parse(s->rx.hdr + DDP_UNTAGGED_HDR_SIZE,
					s->rx.hdr_len - DDP_UNTAGGED_HDR_SIZE,
					&r) < 0)
		return eng_rx_malformed(s);
	at = READ_ONCE(s->orq_get);
	if (!eng_rx_orq_pop(s, &at, &e))
		return 0;	/* flushed meanwhile: nothing completes */
	if (!eng_op_is_atomic(e.sqe.opcode) || e.req_id != r.req_id) {
		eng_rx_orq_done(s, &e, SIW_WC_BAD_RESP_ERR);
		return eng_rx_fail(s, TERM_LAYER_RDMAP,
				   TERM_ETYPE_RDMAP_OPERATION,
				   TERM_RDMAP_UNSPECIFIED);
	}
	err = -EACCES;
	if (e.sink)
		err = swi_rdmap_mem_use_walk(e.sink, e.sqe.sge[0].lkey,
					     s->link.pd, IB_ACCESS_LOCAL_WRITE,
					     e.sqe.sge[0].laddr, sizeof(r.orig),
					     eng_rx_result_piece, &r.orig);
	if (err) {
		eng_rx_orq_done(s, &e, SIW_WC_LOC_PROT_ERR);
		return eng_rx_fail(s, TERM_LAYER_RDMAP,
				   TERM_ETYPE_RDMAP_CATASTROPHIC,
				   TERM_RDMAP_CATASTROPHIC_STREAM);
	}
	eng_rx_orq_done(s, &e, SIW_WC_SUCCESS);
	return 0;
}

/* The peer's Terminate: nothing more is processed on this stream */
static int eng_rx_terminate(struct eng_stream *s)
{
	struct rdmap_term_info ti = {};
	struct eng_rx *rx = &s->rx;

	if (swi_rdmap_term_parse(rx->hdr + DDP_UNTAGGED_HDR_SIZE,
				 rx->hdr_len - DDP_UNTAGGED_HDR_SIZE, &ti) < 0)
		ti.cause = (struct rdmap_term_cause) {
			.layer = TERM_LAYER_RDMAP,
			.etype = TERM_ETYPE_RDMAP_CATASTROPHIC,
			.code = TERM_RDMAP_UNSPECIFIED,
		};
	trace_term_recv(s->link.qp_num, &ti.cause);
	net_info_ratelimited("softiwarp: QP %u: peer sent Terminate: %s\n",
			     s->link.qp_num,
			     swi_rdmap_term_name(ti.cause.layer, ti.cause.etype,
						 ti.cause.code));
	rx->failed = true;
	swi_qp_count_term(s->link.qp, false, ti.cause.layer);
	swi_qp_raise(s->link.qp, RDMAP_QPE_TERM_RCVD,
		     swi_rdmap_qp_err_from_term(&ti.cause));
	return -ECONNABORTED;
}

/* The last segment of a Send arrived: invalidate, complete */
static int eng_rx_send_done(struct eng_stream *s, u32 bytes)
{
	struct eng_rx *rx = &s->rx;
	struct swi_qp *qp = s->link.qp;
	struct rdmap_term_cause cause;
	u8 op = rx->h.opcode;
	u32 inval = 0;

	if (op == RDMAP_SEND_INVAL || op == RDMAP_SEND_SE_INVAL) {
		if (swi_rdmap_mem_invalidate_remote(s->link.mem, rx->h.stag,
						    s->link.pd, s->id, &cause))
			return eng_rx_fail_cause(s, &cause);
		inval = rx->h.stag;
	}
	rx->rqe.flags = op == RDMAP_SEND_SE || op == RDMAP_SEND_SE_INVAL ?
			SIW_WQE_SOLICITED : 0;
	rx->rqe_valid = false;
	rx->write_len = 0;	/* no Immediate Data tells its length now */
	eng_rx_rqe_unhold(rx);
	swi_qp_complete_rqe(qp, &rx->rqe, bytes, SIW_WC_SUCCESS, inval);
	return 0;
}

/*
 * Immediate Data arrived (RFC 7306 section 6): it completes the receive it
 * took, with the length of the RDMA Write before it
 */
static int eng_rx_imm_done(struct eng_stream *s)
{
	struct eng_rx *rx = &s->rx;
	__be32 imm;

	if (swi_rdmap_imm_parse(rx->hdr + DDP_UNTAGGED_HDR_SIZE,
				rx->hdr_len - DDP_UNTAGGED_HDR_SIZE, &imm) < 0)
		return eng_rx_malformed(s);
	rx->rqe.flags = rx->h.opcode == RDMAP_IMM_SE ? SIW_WQE_SOLICITED : 0;
	rx->rqe_valid = false;
	eng_rx_rqe_unhold(rx);
	swi_qp_complete_rqe_imm(s->link.qp, &rx->rqe, rx->write_len, imm);
	rx->write_len = 0;
	return 0;
}

/* Note whether the message of @bit (&eng_rx.open) is in progress */
static void eng_rx_mark_open(struct eng_rx *rx, u8 bit, bool open)
{
	if (open)
		rx->open |= bit;
	else
		rx->open &= ~bit;
}

/*
 * A segment of an RDMA Write was placed: count its octets, and keep the
 * length of a whole Write for the Immediate Data that may follow
 */
static void eng_rx_write_seg(struct eng_rx *rx, u32 n)
{
	rx->write_got = min_t(u64, (u64)rx->write_got + n, U32_MAX);
	if (!rx->h.last)
		return;
	rx->write_len = rx->write_got;
	rx->write_got = 0;
}

/* A good FPDU ended: account for the segment, complete messages */
static int eng_rx_seg_end(struct eng_stream *s)
{
	struct eng_rx *rx = &s->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct ddp_rx_queue *q;
	u32 bytes;
	int err = 0;

	if (rx->mem)
		eng_rx_keep(rx, rx->mem, h->stag);
	rx->mem = NULL;
	/* with an RDMAC peer, the first segment's versions are the stream's */
	swi_ddp_rx_fix_version(&rx->ddp, h);
	if (h->tagged) {
		if (h->opcode != RDMAP_READ_RESP) {
			eng_rx_mark_open(rx, ENG_RX_OPEN_WRITE, !h->last);
			eng_rx_write_seg(rx, rx->ulpdu_len - DDP_TAGGED_HDR_SIZE);
			return 0;
		}
		rx->rresp_got += rx->ulpdu_len - DDP_TAGGED_HDR_SIZE;
		if (h->last) {
			rx->rresp_got = 0;
			eng_rx_rresp_done(s);
		}
		return 0;
	}
	q = &rx->ddp.queue[h->qn];
	q->received += rx->ulpdu_len - DDP_UNTAGGED_HDR_SIZE;
	eng_rx_mark_open(rx, BIT(h->qn), !h->last);
	if (!h->last)
		return 0;
	bytes = q->received;
	q->msn++;
	q->received = 0;
	q->buffers = 0;
	if (h->qn == RDMAP_QN_SEND && eng_rx_is_imm(s, h->opcode))
		err = eng_rx_imm_done(s);
	else if (h->qn == RDMAP_QN_SEND)
		err = eng_rx_send_done(s, bytes);
	else if (h->qn == RDMAP_QN_READ_REQ && h->opcode == RDMAP_ATOMIC_REQ)
		err = eng_rx_atomic_req(s);
	else if (h->qn == RDMAP_QN_READ_REQ)
		err = eng_rx_read_req(s);
	else if (h->qn == RDMAP_QN_ATOMIC_RESP)
		err = eng_rx_atomic_resp(s);
	else
		err = eng_rx_terminate(s);
	return err;
}

static int eng_rx_begin(void *ctx, unsigned int ulpdu_len)
{
	struct eng_stream *s = eng_rx_stream(ctx);
	enum rdmap_qps state = READ_ONCE(*s->link.state);

	if (s->rx.failed ||
	    (state != RDMAP_QPS_RTS && state != RDMAP_QPS_CLOSING)) {
		s->rx.failed = true;
		return -ESHUTDOWN;
	}
	/*
	 * Verify-first: this FPDU passed its CRC and Marker checks. The
	 * initiator's first valid FPDU lets the responder send (RFC 5044
	 * section 7.1.2 rule 4), its Terminate for a DDP or RDMAP error in
	 * this very FPDU included.
	 */
	if (test_bit(ENG_TX_HOLD, &s->flags) &&
	    test_and_clear_bit(ENG_TX_HOLD, &s->flags))
		swi_eng_tx_kick(s, false);
	s->rx.ulpdu_len = ulpdu_len;
	s->rx.hdr_got = 0;
	s->rx.hdr_len = DDP_CTRL_SIZE;
	return 0;
}

/* Collect header octets; run the checks when the header is complete */
static int eng_rx_hdr_bytes(struct eng_stream *s, struct sk_buff *skb,
			    unsigned int *off, unsigned int n)
{
	struct eng_rx *rx = &s->rx;
	bool had_ctrl = rx->hdr_got >= DDP_CTRL_SIZE;
	int err;

	err = swi_mpa_rx_copy_ulpdu(&s->mrx, skb, off, rx->hdr + rx->hdr_got, n);
	if (err)
		return err;
	rx->hdr_got += n;
	if (!had_ctrl && rx->hdr_got == DDP_CTRL_SIZE) {
		err = eng_rx_hdr_len(s);
		if (err)
			return err;
	}
	if (rx->hdr_got == rx->hdr_len && rx->hdr_len > DDP_CTRL_SIZE)
		return eng_rx_seg_begin(s);
	return 0;
}

static int eng_rx_data(void *ctx, struct sk_buff *skb, unsigned int off,
		       unsigned int len, unsigned int ulpdu_off)
{
	struct eng_stream *s = eng_rx_stream(ctx);
	struct eng_rx *rx = &s->rx;
	unsigned int n;
	int err;

	if (rx->failed)
		return -ESHUTDOWN;
	if (rx->hdr_got < rx->hdr_len) {
		n = min_t(unsigned int, len, rx->hdr_len - rx->hdr_got);
		err = eng_rx_hdr_bytes(s, skb, &off, n);
		if (err || n == len)
			return err;
		len -= n;
		ulpdu_off += n;
		if (rx->hdr_got < rx->hdr_len)	/* the two control octets */
			return eng_rx_data(ctx, skb, off, len, ulpdu_off);
	}
	return eng_rx_place(s, skb, off, len, ulpdu_off - rx->hdr_len);
}

/* An FPDU ended: count it, its octets and Markers, a CRC error */
static void eng_rx_count_fpdu(struct eng_stream *s, enum mpa_error err)
{
	if (err != MPA_ERR_NONE) {	/* the checker stopped it, unread */
		swi_qp_count_rx(s->link.qp, err == MPA_ERR_CRC, 0, 0);
		return;
	}
	swi_qp_count_rx(s->link.qp, false, mpa_rx_fpdu_octets(&s->mrx),
			mpa_rx_fpdu_markers(&s->mrx));
}

static int eng_rx_end(void *ctx, unsigned int ulpdu_len, enum mpa_error err)
{
	struct eng_stream *s = eng_rx_stream(ctx);
	struct eng_rx *rx = &s->rx;

	eng_rx_count_fpdu(s, err);
	if (rx->failed)
		return -ESHUTDOWN;
	if (err != MPA_ERR_NONE) {
		/* nothing of a bad FPDU was read: no DDP header to show */
		rx->hdr_got = 0;
		return eng_rx_fail(s, TERM_LAYER_LLP, TERM_ETYPE_LLP, err);
	}
	if (rx->hdr_got < rx->hdr_len || rx->hdr_len <= DDP_CTRL_SIZE)
		return eng_rx_malformed(s);
	return eng_rx_seg_end(s);
}

static const struct mpa_rx_ops eng_rx_ops = {
	.begin = eng_rx_begin,
	.data = eng_rx_data,
	.end = eng_rx_end,
};

/**
 * swi_eng_rx_init() - set up the receive side of a stream
 * @s: the stream, its @cfg set
 *
 * Context: process context.
 * Return: 0, or -EINVAL for a bad stream position.
 */
int swi_eng_rx_init(struct eng_stream *s)
{
	unsigned int i;

	memset(&s->rx, 0, sizeof(s->rx));
	s->rx.ddp.rdmac = s->cfg.rdmac;
	s->rx.ddp.ulp_ext = s->link.ext;
	for (i = 0; i < RDMAP_QN_COUNT; i++)
		s->rx.ddp.queue[i].msn = DDP_MSN_FIRST;
	return swi_mpa_rx_init_verified(&s->mrx, &s->mscan, &s->cfg.rx, U16_MAX,
					&eng_rx_ops, s);
}

/**
 * swi_eng_rx_release() - drop what the receiver still holds
 * @s: the stream, detached from its socket
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_eng_rx_release(struct eng_stream *s)
{
	eng_rx_drop_mem(&s->rx);
	eng_rx_drop_kept(&s->rx);
	eng_rx_rqe_unhold(&s->rx);
}

/**
 * swi_eng_rx_peer_closed() - let a segment the peer cut short release its MR
 * @s: the stream, attached
 * @sk: its socket
 *
 * Once the peer sends nothing more (its FIN or RST came, or we shut the
 * socket down) and every octet it sent has been read, a tagged segment
 * still incomplete never completes: its MR must not stay referenced
 * until the QP is destroyed, since consumers deregister their MRs first
 * and swi_rdmap_mem_dereg() waits for the last reference. Called from the
 * state_change callback and after every read (a FIN riding on the last
 * data is seen before that data is read).
 *
 * Context: under the socket lock, as the receiver.
 * Return: nothing.
 */
void swi_eng_rx_peer_closed(struct eng_stream *s, struct sock *sk)
{
	if (s->rx.mem && (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
	    skb_queue_empty_lockless(&sk->sk_receive_queue)) {
		eng_rx_drop_mem(&s->rx);
	}
}

/**
 * swi_eng_stream_cut_short() - did the peer's FIN cut a message short?
 * @s: the stream, started
 *
 * After the peer's FIN: whether its half of the stream ended inside a
 * message, so that the message can never be Delivered (RFC 5041 section
 * 5.4): a DDP message had segments without L and not the one with L (an
 * untagged queue's, or an RDMA Write's; a Read Response's stays with the
 * Read outstanding, which the QP counts as busy), or an FPDU is left
 * incomplete in the socket. The receiver reads every complete FPDU out
 * of the socket as it arrives (verify-first, see the DOC above), so what
 * the socket holds once the FIN came is the start of an FPDU whose rest
 * never comes. The socket lock orders this after the data_ready run of
 * the segment that carried the FIN. RFC 5044 section 8's code 1 is an
 * error the peer is told of only where it interrupts a message.
 *
 * Context: process context; takes the socket lock (under the QP's
 * state_lock: the lock order of swi_eng_stream_start()).
 * Return: true when the FIN came and a message or an FPDU is incomplete;
 * false too when the receiver already failed (its Terminate is queued).
 */
bool swi_eng_stream_cut_short(struct eng_stream *s)
{
	struct sock *sk = s->sock->sk;
	bool cut;

	lock_sock(sk);
	cut = !s->rx.failed && (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
	      (s->rx.open || s->rx.rresp_got || tcp_inq(sk) > 0);
	release_sock(sk);
	return cut;
}

/**
 * swi_eng_rx_data_ready() - the socket's data_ready callback
 * @sk: the socket
 *
 * Context: under the socket lock (bh-locked in softirq, or owned).
 * Return: nothing.
 */
void swi_eng_rx_data_ready(struct sock *sk)
{
	struct eng_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && !s->rx.failed)
		swi_mpa_rx_tcp_read(&s->mrx, sk);
	if (s) {
		eng_rx_drop_kept(&s->rx);
		swi_eng_rx_peer_closed(s, sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * swi_eng_stream_flush_rx() - flush the receive buffer in use
 * @s: the stream
 *
 * Context: process context; takes the socket lock.
 * Return: nothing.
 */
void swi_eng_stream_flush_rx(struct eng_stream *s)
{
	struct sock *sk = s->sock->sk;

	lock_sock(sk);
	if (s->rx.rqe_valid)
		swi_qp_complete_rqe(s->link.qp, &s->rx.rqe, 0, SIW_WC_WR_FLUSH_ERR,
				    0);
	s->rx.rqe_valid = false;
	eng_rx_rqe_unhold(&s->rx);
	release_sock(sk);
}
