// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the transmitter
 *
 * One transmitter per stream, always in process context, serialised by
 * &eng_stream.tx_mutex: a user QP's doorbell runs it in the poster's
 * context (no kernel thread has to be scheduled while user space
 * busy-polls its CQ); kernel posts, the socket's write-space callback and
 * the receiver (Read Requests to answer) queue &eng_stream.tx_work.
 *
 * It picks, in this order, the Terminate, the oldest Read Request to
 * answer, the next SQ work request; cuts the message into DDP segments of
 * at most MULPDU octets (from the socket's current MSS, so that FPDUs stay
 * aligned with TCP segments); builds each ULPDU's headers in the stage,
 * frames it with swi_mpa_fpdu_layout() and swi_mpa_fpdu_set_crc(), and hands up to
 * ENG_TX_BATCH FPDUs of the message to the socket in one sendmsg() without
 * blocking, as a kvec list over the framing octets, the headers and the
 * payload where it lies, in the source MR's pages (one lookup of the MR
 * per batch, which holds it). sendmsg() copies into the socket's buffers,
 * so the payload is copied once, and the work request can complete as
 * soon as the socket has taken its last FPDU: TCP's retransmissions read
 * the socket's copy, never the MR. When the socket takes only part of a
 * batch, the rest is copied into the stage before the transmitter
 * returns (eng_tx_settle()): no MR stays referenced between runs. Payload
 * in pages without a kernel address (highmem), or spread over more than
 * ENG_TX_RUNS runs, is copied into the stage as it is built.
 *
 * Its buffers (struct eng_tx_buf: the batch's FPDUs, their kvecs, the
 * stage) are allocated when it first has a message to frame, sized for
 * the EMSS of then, and freed once it has been idle for ENG_TX_IDLE_MS
 * (swi_eng_tx_idle_work()); the ORQ comes with the first RDMA Read. An idle
 * connection holds neither. Without the memory, the message fails as a
 * local catastrophic error: a Terminate, the QP to TERMINATE
 * (eng_tx_nomem()).
 */
#include <linux/bitfield.h>
#include <linux/highmem.h>
#include <linux/net.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "engine/stream.h"
#include "rdmap/rdmap_trace.h"

static struct workqueue_struct *eng_tx_wq;

/* Copy cursor for swi_rdmap_mem_walk() */
struct eng_copy {
	u8 *buf;
};

static int eng_copy_piece(void *ctx, struct page *page, unsigned int off,
			  unsigned int len)
{
	struct eng_copy *c = ctx;

	memcpy_from_page(c->buf, page, off, len);
	c->buf += len;
	return 0;
}

/* Add @len octets at @va to the ULPDU; @direct: outside the stage */
static int eng_ulpdu_add(struct eng_ulpdu *u, void *va, u32 len, bool direct)
{
	struct kvec *last = u->nr ? &u->run[u->nr - 1] : NULL;

	if (last && u->direct[u->nr - 1] == direct &&
	    last->iov_base + last->iov_len == va) {
		last->iov_len += len;
	} else {
		if (u->nr == ENG_TX_RUNS)
			return -ENOSPC;
		u->run[u->nr] = (struct kvec){ .iov_base = va, .iov_len = len };
		u->direct[u->nr++] = direct;
	}
	u->len += len;
	return 0;
}

/* Copy the whole ULPDU into its place in the stage: one run */
static void eng_ulpdu_flatten(struct eng_ulpdu *u)
{
	unsigned int i;
	u32 at = 0;

	for (i = 0; i < u->nr; at += u->run[i++].iov_len)
		if (u->direct[i])
			memcpy(u->stage + at, u->run[i].iov_base,
			       u->run[i].iov_len);
	u->run[0] = (struct kvec){ .iov_base = u->stage, .iov_len = u->len };
	u->direct[0] = false;
	u->nr = 1;
}

/* swi_rdmap_mem_walk() callback: the payload is sent from where it lies */
static int eng_point_piece(void *ctx, struct page *page, unsigned int off,
			   unsigned int len)
{
	if (PageHighMem(page))
		return -EAGAIN;	/* no lasting address: copied instead */
	return eng_ulpdu_add(ctx, page_address(page) + off, len, true);
}

/*
 * Add @len payload octets at @addr of @mem to the ULPDU: pointed at where
 * they lie when @direct allows and the pages have kernel addresses, else
 * copied to their place in the stage
 */
static int eng_ulpdu_mem(struct eng_ulpdu *u, struct rdmap_mem *mem,
			 u64 addr, u32 len, bool direct)
{
	unsigned int nr = u->nr;
	size_t tail = nr ? u->run[nr - 1].iov_len : 0;
	struct eng_copy c = { .buf = u->stage + u->len };
	u32 at = u->len;
	int err;

	if (direct) {
		err = swi_rdmap_mem_walk(mem, addr, len, eng_point_piece, u);
		if (err != -EAGAIN && err != -ENOSPC)
			return err;
		u->nr = nr;	/* undo what the walk added */
		if (nr)
			u->run[nr - 1].iov_len = tail;
		u->len = at;
	}
	err = swi_rdmap_mem_walk(mem, addr, len, eng_copy_piece, &c);
	if (err)
		return err;
	if (eng_ulpdu_add(u, u->stage + at, len, false)) {
		eng_ulpdu_flatten(u);	/* out of runs: all of it staged */
		u->run[0].iov_len += len;
		u->len += len;
	}
	return 0;
}

/*
 * The object behind @stag. The batch keeps one referenced, @s->tx_src,
 * whose pages its ULPDUs may point at (*@held set); another one is looked
 * up for this FPDU only, copied from, and put by the caller.
 */
static struct rdmap_mem *eng_tx_mem(struct eng_stream *s, u32 stag,
				    bool *held)
{
	struct rdmap_mem *mem;

	lockdep_assert_held(&s->tx_mutex);
	*held = s->tx_src && s->tx_src_stag == stag;
	if (*held)
		return s->tx_src;
	mem = swi_rdmap_mem_lookup(s->link.mem, stag);
	if (IS_ERR(mem) || s->tx_src)
		return mem;
	s->tx_src = mem;
	s->tx_src_stag = stag;
	*held = true;
	return mem;
}

/* Add @len octets at @addr of the object behind @stag to the ULPDU */
static int eng_gather_mem(struct eng_stream *s, u32 stag, u64 addr, u32 len,
			  struct eng_ulpdu *u)
{
	bool held;
	struct rdmap_mem *mem = eng_tx_mem(s, stag, &held);
	int err;

	if (IS_ERR(mem))
		return PTR_ERR(mem);
	/* checked for every FPDU: an MR may be invalidated mid-message */
	if (swi_rdmap_mem_local_check(mem, stag, s->link.pd, 0, addr, len) !=
	    IB_WC_SUCCESS)
		err = -EACCES;
	else
		err = eng_ulpdu_mem(u, mem, addr, len, held);
	if (!held)
		swi_rdmap_mem_put(mem);
	return err;
}

#if IS_ENABLED(CONFIG_KUNIT)
static atomic_t eng_tx_rresp_left = ATOMIC_INIT(-1);

/**
 * swi_eng_tx_lose_rresp_src() - a Read Response's source goes away (KUnit)
 * @n: how many more FPDUs of Read Responses, over all streams, still find
 *	their Data Source; every one after them fails as if it had been
 *	invalidated mid-Response; negative disarms
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_eng_tx_lose_rresp_src(int n)
{
	atomic_set(&eng_tx_rresp_left, n);
}
EXPORT_SYMBOL_IF_KUNIT(swi_eng_tx_lose_rresp_src);

static bool eng_tx_rresp_src_lost(void)
{
	int left = atomic_read(&eng_tx_rresp_left);

	if (left < 0)
		return false;
	return !left || atomic_dec_return(&eng_tx_rresp_left) < 0;
}
#else
static bool eng_tx_rresp_src_lost(void)
{
	return false;
}
#endif

/*
 * Add @len octets at @addr of a Read Response's Data Source to the ULPDU:
 * of the object the Request was checked against, checked again for every
 * FPDU (it may be invalidated or deregistered mid-Response), referenced
 * for the batch as @s->tx_src
 */
static int eng_rresp_mem(struct eng_stream *s, u64 addr, u32 len,
			 struct eng_ulpdu *u)
{
	const struct eng_rreq *rr = &s->job.rr;
	struct rdmap_mem *mem;

	lockdep_assert_held(&s->tx_mutex);
	if (!rr->src || eng_tx_rresp_src_lost())
		return -EACCES;
	if (s->tx_src != rr->src || s->tx_src_stag != rr->src_stag) {
		mem = swi_rdmap_mem_use(rr->src, rr->src_stag, s->link.pd,
					IB_ACCESS_REMOTE_READ, addr, len);
		if (IS_ERR(mem))
			return PTR_ERR(mem);
		swi_rdmap_mem_put(s->tx_src);
		s->tx_src = mem;
		s->tx_src_stag = rr->src_stag;
	} else if (swi_rdmap_mem_local_check(rr->src, rr->src_stag,
					     s->link.pd, IB_ACCESS_REMOTE_READ,
					     addr, len)) {
		return -EACCES;
	}
	return eng_ulpdu_mem(u, s->tx_src, addr, len, true);
}

/* Add message octets [@off, @off + @len) of @sqe's gather list */
static int eng_gather_sqe(struct eng_stream *s, const struct siw_sqe *sqe,
			  u32 off, u32 len, struct eng_ulpdu *u)
{
	unsigned int i;
	int err;

	if (sqe->flags & SIW_WQE_INLINE) {
		/* only after the header, which is staged: merges with it */
		memcpy(u->stage + u->len, (const u8 *)&sqe->sge[1] + off, len);
		return eng_ulpdu_add(u, u->stage + u->len, len, false);
	}
	for (i = 0; i < sqe->num_sge && len; i++) {
		const struct siw_sge *sge = &sqe->sge[i];
		u32 n;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = min(len, sge->length - off);
		err = eng_gather_mem(s, sge->lkey, sge->laddr + off, n, u);
		if (err)
			return err;
		len -= n;
		off = 0;
	}
	return len ? -EINVAL : 0;
}

/* Total length of @sqe's gather list, or -EINVAL when it overflows */
static s64 eng_sqe_len(const struct siw_sqe *sqe)
{
	u64 len = 0;
	unsigned int i;

	if (sqe->flags & SIW_WQE_INLINE)
		return sqe->sge[0].length;
	for (i = 0; i < sqe->num_sge; i++)
		len += sqe->sge[i].length;
	return len > U32_MAX ? -EINVAL : len;
}

/**
 * swi_eng_tx_mulpdu() - the largest ULPDU the transmitter frames now
 * @s: the stream, its socket still attached
 *
 * Context: any context; reads the socket's MSS without its lock.
 * Return: MULPDU in octets, from the TCP EMSS (RFC 5044 section 4.5).
 */
u32 swi_eng_tx_mulpdu(struct eng_stream *s)
{
	return swi_mpa_mulpdu(READ_ONCE(tcp_sk(s->sock->sk)->mss_cache),
			      s->cfg.tx.markers);
}

/* Fill in the DDP/RDMAP header of the next segment of the job */
static void eng_tx_hdr(struct eng_stream *s, struct ddp_hdr_info *h)
{
	static const u8 send_op[] = {
		[0] = RDMAP_SEND, [1] = RDMAP_SEND_SE,
		[2] = RDMAP_SEND_INVAL, [3] = RDMAP_SEND_SE_INVAL,
	};
	struct eng_tx_job *j = &s->job;
	const struct siw_sqe *sqe = &j->sqe;
	u8 v = s->cfg.rdmac ? DDP_VERSION_RDMAC : DDP_VERSION;

	memset(h, 0, sizeof(*h));
	h->dv = v;
	h->rv = s->cfg.rdmac ? RDMAP_VERSION_RDMAC : RDMAP_VERSION;
	if (j->kind == ENG_TX_RRESP) {
		h->tagged = 1;
		h->opcode = RDMAP_READ_RESP;
		h->stag = j->rr.sink_stag;
		h->to = j->rr.sink_to + j->done;
		return;
	}
	if (j->kind == ENG_TX_TERM) {
		h->opcode = RDMAP_TERMINATE;
		h->qn = RDMAP_QN_TERMINATE;
	} else if (j->kind == ENG_TX_ARESP) {
		/* RFC 7306 section 5.2.2 rules 2 and 3: untagged, queue 3 */
		h->opcode = RDMAP_ATOMIC_RESP;
		h->qn = RDMAP_QN_ATOMIC_RESP;
	} else if (j->imm) {
		/* RFC 7306 section 6.3: untagged, queue 0, with the Sends */
		h->opcode = sqe->flags & SIW_WQE_SOLICITED ? RDMAP_IMM_SE :
							     RDMAP_IMM;
		h->qn = RDMAP_QN_SEND;
	} else if (sqe->opcode == SIW_OP_WRITE) {
		h->tagged = 1;
		h->opcode = RDMAP_WRITE;
		h->stag = sqe->rkey;
		h->to = sqe->raddr + j->done;
		return;
	} else if (eng_op_is_read(sqe->opcode)) {
		h->opcode = RDMAP_READ_REQ;
		h->qn = RDMAP_QN_READ_REQ;
	} else if (eng_op_is_atomic(sqe->opcode)) {
		/* section 5.2.1 rules 2 and 3: untagged, queue 1 */
		h->opcode = RDMAP_ATOMIC_REQ;
		h->qn = RDMAP_QN_READ_REQ;
	} else {
		h->opcode = send_op[!!(sqe->flags & SIW_WQE_SOLICITED) +
				    2 * (sqe->opcode == SIW_OP_SEND_REMOTE_INV)];
		h->qn = RDMAP_QN_SEND;
		if (sqe->opcode == SIW_OP_SEND_REMOTE_INV)
			h->stag = sqe->rkey;
	}
	h->msn = s->msn[h->qn];
	h->mo = j->done;
}

/*
 * The last Response of a Read Request is staged: its IRD entry is free
 * before any of it is in the socket. The requester may send its next
 * Request the moment the Response is complete, which on a fast link is
 * before our sendmsg() has returned; counting the entry until then would
 * take that Request for one beyond the IRD. The job's copy of the entry
 * keeps the source reference until eng_tx_finish().
 */
static void eng_tx_release_ird(struct eng_stream *s)
{
	unsigned long flags;

	spin_lock_irqsave(&s->qlock, flags);
	s->irq_get++;
	spin_unlock_irqrestore(&s->qlock, flags);
	s->job.rr_released = true;
}

/*
 * The header behind DDP's of an Atomic Request (its Request Identifier
 * the MSN it carries, which the ORQ entry kept) or Response (RFC 7306
 * sections 5.2.1 and 5.2.2); return its length, 0 for other messages
 */
static u32 eng_tx_atomic_hdr(struct eng_stream *s,
			     const struct ddp_hdr_info *h, u8 *buf)
{
	const struct eng_tx_job *j = &s->job;

	if (h->opcode == RDMAP_ATOMIC_REQ) {
		const struct rdmap_atomic_req_info r = {
			.aop = j->sqe.opcode == SIW_OP_FETCH_AND_ADD ?
			       RDMAP_ATOMIC_FETCH_ADD : RDMAP_ATOMIC_CMP_SWAP,
			.req_id = h->msn, .stag = j->sqe.rkey,
			.to = j->sqe.raddr, .data = j->ext.data,
			.data_mask = j->ext.data_mask,
			.compare = j->ext.compare,
			.compare_mask = j->ext.compare_mask,
		};

		swi_rdmap_atomic_req_build((void *)buf, &r);
		return RDMAP_ATOMIC_REQ_SIZE;
	}
	if (h->opcode == RDMAP_ATOMIC_RESP) {
		const struct rdmap_atomic_resp_info r = {
			.req_id = j->rr.at.req_id, .orig = j->orig,
		};

		swi_rdmap_atomic_resp_build((void *)buf, &r);
		return RDMAP_ATOMIC_RESP_SIZE;
	}
	return 0;
}

/*
 * Build the next ULPDU of the job, of at most @mulpdu octets: its headers
 * in the stage at @u->stage, its payload pointed at in the source MR or
 * copied behind them; return its length or an error
 */
static int eng_tx_stage(struct eng_stream *s, struct eng_ulpdu *u, u32 mulpdu)
{
	struct eng_tx_job *j = &s->job;
	u8 *buf = u->stage;
	struct ddp_hdr_info h;
	u32 n, hl, room;
	int err;

	eng_tx_hdr(s, &h);
	hl = ddp_hdr_size(h.tagged);
	room = mulpdu - hl;
	n = min(j->len - j->done, room);
	h.last = j->done + n == j->len;
	if (h.opcode == RDMAP_READ_REQ || h.opcode == RDMAP_TERMINATE ||
	    h.opcode == RDMAP_ATOMIC_REQ || h.opcode == RDMAP_ATOMIC_RESP ||
	    j->imm) {
		n = 0;		/* one segment, all header */
		h.last = 1;
	}
	err = swi_ddp_hdr_build(buf, hl, &h);
	if (err < 0)
		return err;
	err = 0;
	if (h.opcode == RDMAP_READ_REQ) {
		struct rdmap_read_req_info r = {
			.sink_stag = j->sqe.sge[0].lkey,
			.sink_to = j->sqe.sge[0].laddr,
			.size = j->len,
			.src_stag = j->sqe.rkey,
			.src_to = j->sqe.raddr,
		};

		swi_rdmap_read_req_build((void *)(buf + hl), &r);
		hl += RDMAP_READ_REQ_SIZE;
	} else if (h.opcode == RDMAP_TERMINATE) {
		memcpy(buf + hl, &s->term, s->term_len);
		hl += s->term_len;
	} else if (j->imm) {
		swi_rdmap_imm_build((void *)(buf + hl), j->ext.imm);
		hl += RDMAP_IMM_SIZE;
	} else {
		hl += eng_tx_atomic_hdr(s, &h, buf + hl);
	}
	u->nr = 0;
	u->len = 0;
	eng_ulpdu_add(u, buf, hl, false);
	/* a Read Response's source is held by the job until eng_tx_finish() */
	if (j->kind == ENG_TX_RRESP && n)
		err = eng_rresp_mem(s, j->rr.src_to + j->done, n, u);
	else if (n)
		err = eng_gather_sqe(s, &j->sqe, j->done, n, u);
	if (err)
		return err;
	j->done += n;
	j->last = h.last;
	return hl + n;
}

/*
 * Add the kvecs of ULPDU octets [@off, @off + @len) to the batch from
 * @s->wire[@k], each with the place of its octets in the stage when they
 * lie outside it; return the next free index, or -ENOSPC
 */
static int eng_wire_ulpdu(struct eng_stream *s, const struct eng_ulpdu *u,
			  u32 off, u32 len, unsigned int k)
{
	struct eng_tx_buf *b = s->txb;
	unsigned int i;
	u32 at = 0;

	for (i = 0; i < u->nr && len; at += u->run[i++].iov_len) {
		u32 rl = u->run[i].iov_len, n;

		if (off >= at + rl)
			continue;
		if (k == ENG_TX_WIRE_MAX)
			return -ENOSPC;
		n = min(len, at + rl - off);
		b->wire[k].iov_base = u->run[i].iov_base + (off - at);
		b->wire[k].iov_len = n;
		b->wire_stage[k++] = u->direct[i] ? u->stage + off : NULL;
		off += n;
		len -= n;
	}
	return len ? -EINVAL : k;
}

/* Frame the ULPDU @u and add the FPDU to the batch */
static int eng_tx_frame(struct eng_stream *s, const struct eng_ulpdu *u)
{
	struct eng_tx_buf *b = s->txb;
	struct mpa_fpdu *f = &b->fpdu[s->nr_fpdu];
	unsigned int i, k = s->wire_nr;
	struct iov_iter it;
	int err;

	err = swi_mpa_fpdu_layout(&s->mtx, f, u->len);
	if (err)
		return err;
	iov_iter_kvec(&it, ITER_SOURCE, u->run, u->nr, u->len);
	err = swi_mpa_fpdu_set_crc(f, &it);
	if (err)
		return err;
	for (i = 0; i < f->nr_pieces; i++) {
		const struct mpa_piece *p = &f->piece[i];

		if (p->type == MPA_PIECE_PAYLOAD) {
			err = eng_wire_ulpdu(s, u, p->off, p->len, k);
			if (err < 0)
				return err;
			k = err;
			continue;
		}
		if (k == ENG_TX_WIRE_MAX)
			return -ENOSPC;
		b->wire[k].iov_base = f->bytes + p->off;
		b->wire[k].iov_len = p->len;
		b->wire_stage[k++] = NULL;
	}
	/* the batch goes out whole before anything else: its place is taken */
	err = swi_mpa_tx_commit(&s->mtx, f);
	if (err)
		return err;
	s->wire_nr = k;
	s->wire_len += f->len;
	s->wire_markers += f->nr_markers;
	s->nr_fpdu++;
	return 0;
}

/* Build and frame the job's next FPDU into the batch; all or nothing */
static int eng_tx_add_fpdu(struct eng_stream *s, u32 mulpdu)
{
	struct eng_ulpdu u = { .stage = s->txb->stage + s->stage_used };
	u32 done = s->job.done;
	bool last = s->job.last;
	int ulen = eng_tx_stage(s, &u, mulpdu);
	int err;

	if (ulen < 0)
		return ulen;
	err = eng_tx_frame(s, &u);
	if (err) {
		s->job.done = done;
		s->job.last = last;
		return err;
	}
	/* only once framed: a staging rolled back must not release it twice */
	if (s->job.last &&
	    (s->job.kind == ENG_TX_RRESP || s->job.kind == ENG_TX_ARESP))
		eng_tx_release_ird(s);
	s->stage_used += ulen;
	return 0;
}

/* Is there room in the batch for one more FPDU of @mulpdu octets? */
static bool eng_tx_batch_room(struct eng_stream *s, u32 mulpdu)
{
	return s->nr_fpdu < s->txb->nr_fpdu &&
	       s->stage_used + mulpdu <= s->txb->stage_size &&
	       s->wire_nr + MPA_FPDU_MAX_PIECES + ENG_TX_RUNS <=
	       ENG_TX_WIRE_MAX;
}

/*
 * What may not start now: a fence waits for every Read, the ORD caps
 * them. Only Responses arriving change the ORQ behind our back, and they
 * only empty it: a hold computed now is never too lax.
 */
static unsigned int eng_tx_sq_hold(struct eng_stream *s)
{
	u32 used = eng_orq_used(s);

	/* an ORD of 0 holds nothing: such a Read fails, eng_tx_read_ok() */
	return (s->ord && used >= s->ord ? ENG_SQ_HOLD_READ : 0) |
	       (used ? ENG_SQ_HOLD_FENCE : 0);
}

/*
 * A local error ends the job: the peer gets a Terminate (RFC 5040
 * section 7) and the QP moves to TERMINATE, with @err's async event. The
 * Terminate is queued here, not when the QP moves: the transmitter picks
 * it before anything else, so no later work request leaves in between.
 */
static void eng_tx_local_error(struct eng_stream *s, enum rdmap_qp_err err)
{
	static const struct rdmap_term_cause cause = {
		.layer = TERM_LAYER_RDMAP,
		.etype = TERM_ETYPE_RDMAP_CATASTROPHIC,
		.code = TERM_RDMAP_UNSPECIFIED,
	};

	s->job.kind = ENG_TX_NONE;
	swi_eng_tx_queue_term(s, &cause, NULL, false);
	swi_qp_raise(s->link.qp, RDMAP_QPE_LOCAL_ERROR, err);
}

/* A work request failed locally: it completes in error, then as above */
static void eng_tx_sqe_failed(struct eng_stream *s, enum siw_wc_status st)
{
	swi_eng_cq_sqe_done(s, &s->job.sqe, 0, st);
	eng_tx_local_error(s, RDMAP_QP_ERR_ACCESS);
}

/*
 * A Read Response cannot go on: its Data Source was invalidated or
 * deregistered under it. The peer gets a Terminate (RFC 5040 section
 * 7.1), a remote protection error, as the STag it named is invalid now,
 * with the Read Request's headers and the Request updated to the progress
 * made (section 4.8): Tagged Offsets moved on by what was sent, the size
 * what is left.
 */
static void eng_tx_rresp_failed(struct eng_stream *s)
{
	static const struct rdmap_term_cause cause = {
		.layer = TERM_LAYER_RDMAP,
		.etype = TERM_ETYPE_RDMAP_PROTECTION,
		.code = TERM_RDMAP_INVALID_STAG,
	};
	struct eng_tx_job *j = &s->job;
	struct ddp_hdr_info h = {
		.last = 1, .opcode = RDMAP_READ_REQ, .qn = RDMAP_QN_READ_REQ,
		.msn = j->rr.msn,
		.dv = s->cfg.rdmac ? DDP_VERSION_RDMAC : DDP_VERSION,
		.rv = s->cfg.rdmac ? RDMAP_VERSION_RDMAC : RDMAP_VERSION,
	};
	struct rdmap_read_req_info r = {
		.sink_stag = j->rr.sink_stag, .sink_to = j->rr.sink_to + j->done,
		.size = j->rr.size - j->done, .src_stag = j->rr.src_stag,
		.src_to = j->rr.src_to + j->done,
	};
	u8 hdr[DDP_UNTAGGED_HDR_SIZE + RDMAP_READ_REQ_SIZE];
	struct rdmap_term_offender seg = {
		.hdr = hdr, .len = sizeof(hdr), .seg_len = sizeof(hdr),
	};

	swi_ddp_hdr_build(hdr, DDP_UNTAGGED_HDR_SIZE, &h);
	swi_rdmap_read_req_build((void *)(hdr + DDP_UNTAGGED_HDR_SIZE), &r);
	/* the IRQ entry's source reference, once the job owns it */
	if (j->rr_released)
		swi_rdmap_mem_unhold(j->rr.src);
	j->rr_released = false;
	j->kind = ENG_TX_NONE;
	net_info_ratelimited("softiwarp: QP %u: sending Terminate: %s\n",
			     s->link.qp_num,
			     swi_rdmap_term_name(cause.layer, cause.etype,
						 cause.code));
	swi_eng_tx_queue_term(s, &cause, &seg, false);
	swi_qp_raise(s->link.qp, RDMAP_QPE_LOCAL_ERROR,
		     swi_rdmap_qp_err_from_term(&cause));
}

/*
 * An Atomic Response cannot be built: the target its Request was checked
 * against when it was Delivered went away (invalidated or deregistered)
 * or its word lies across pages. RFC 7306 section 8.1 rule 1: the
 * Terminate goes instead of the Response, with neither the DDP nor the
 * RDMA header; as for a Read Response that loses its source, a remote
 * protection error (RFC 5040 section 4.8), or the alignment error of
 * section 8.2.
 */
static void eng_tx_aresp_failed(struct eng_stream *s, bool misaligned)
{
	struct rdmap_term_cause cause = {
		.layer = TERM_LAYER_RDMAP,
		.etype = TERM_ETYPE_RDMAP_PROTECTION,
		.code = TERM_RDMAP_INVALID_STAG,
	};

	if (misaligned)
		cause = (struct rdmap_term_cause) {
			.layer = TERM_LAYER_RDMAP,
			.etype = TERM_ETYPE_RDMAP_OPERATION,
			.code = TERM_RDMAP_CATASTROPHIC_STREAM,
		};
	/* its IRD entry is not released: the flush lets go of its source */
	s->job.kind = ENG_TX_NONE;
	net_info_ratelimited("softiwarp: QP %u: sending Terminate: %s\n",
			     s->link.qp_num,
			     swi_rdmap_term_name(cause.layer, cause.etype,
						 cause.code));
	swi_eng_tx_queue_term(s, &cause, NULL, false);
	swi_qp_raise(s->link.qp, RDMAP_QPE_LOCAL_ERROR,
		     swi_rdmap_qp_err_from_term(&cause));
}

/* The stream cannot carry more: stop sending, report the loss */
static void eng_tx_abort(struct eng_stream *s)
{
	if (!test_and_set_bit(ENG_TX_STOPPED, &s->flags))
		swi_qp_raise(s->link.qp, RDMAP_QPE_LLP_RESET, RDMAP_QP_ERR_FATAL);
}

#if IS_ENABLED(CONFIG_KUNIT)
static atomic_t eng_tx_faults = ATOMIC_INIT(0);

/**
 * swi_eng_tx_fail_allocs() - fail the transmitter's next allocations (KUnit)
 * @n: how many of its allocations (buffers, ORQ) fail from now on, over
 *	all streams; 0 disarms
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_eng_tx_fail_allocs(unsigned int n)
{
	atomic_set(&eng_tx_faults, n);
}
EXPORT_SYMBOL_IF_KUNIT(swi_eng_tx_fail_allocs);

static bool eng_tx_alloc_fault(void)
{
	return atomic_dec_if_positive(&eng_tx_faults) >= 0;
}
#else
static bool eng_tx_alloc_fault(void)
{
	return false;
}
#endif

/*
 * The transmitter's buffers: ENG_TX_BATCH FPDUs, their wire arrays and a
 * stage of MPA_MULPDU_MAX octets, as the stream had them from its start
 * before, so that batches are cut as they were. Allocated when the
 * transmitter has a message to frame, kept until it is idle
 * (swi_eng_tx_idle_work()).
 *
 * kvmalloc(): physically contiguous (128 KiB) when the buddy allocator
 * has it, as the transmitter's buffers always were, vmalloc otherwise.
 * No I/O in reclaim (memalloc_noio_save()): the transmitter carries
 * kernel consumers' block and file I/O (nvme-rdma, xprtrdma) and runs on
 * a WQ_MEM_RECLAIM workqueue, so reclaim must not wait for I/O that waits
 * for it; kvmalloc() takes GFP_KERNEL only, the scope gives the rest. Not
 * counted by fail_setup_alloc, which is about connection setup: KUnit
 * fails it with swi_eng_tx_fail_allocs().
 */
static int eng_tx_buf_get(struct eng_stream *s)
{
	unsigned int noio;
	struct eng_tx_buf *b;
	size_t size;

	lockdep_assert_held(&s->tx_mutex);
	if (s->txb)
		return 0;
	if (eng_tx_alloc_fault())
		return -ENOMEM;
	size = struct_size(b, fpdu, ENG_TX_BATCH) + MPA_MULPDU_MAX;
	noio = memalloc_noio_save();
	b = kvmalloc(size, GFP_KERNEL);
	memalloc_noio_restore(noio);
	if (!b)
		return -ENOMEM;
	b->nr_fpdu = ENG_TX_BATCH;
	b->stage_size = MPA_MULPDU_MAX;
	b->stage = (u8 *)&b->fpdu[ENG_TX_BATCH];
	s->txb = b;
	WRITE_ONCE(s->txb_size, size);
	s->tx_used = jiffies;
	queue_delayed_work(eng_tx_wq, &s->tx_idle,
			   msecs_to_jiffies(ENG_TX_IDLE_MS));
	return 0;
}

/*
 * A Read needs an ORD of at least 1: with 0 the peer announced no room
 * for any (its IRD, RFC 6581 section 9.1), and RFC 5040 section 6.1 lets
 * no Read Request out beyond the ORD. The work request fails locally;
 * the consumer agreed to ORD 0 or could see it in the QP's attributes.
 */
static bool eng_tx_read_ok(struct eng_stream *s, const struct siw_sqe *sqe)
{
	if (!eng_op_is_rd_atomic(sqe->opcode) || s->ord)
		return true;
	pr_warn_ratelimited("softiwarp: QP %u: RDMA Read or atomic with ORD 0 refused\n",
			    s->link.qp_num);
	return false;
}

/*
 * The ORQ and the completion FIFO (engine/cq.c), allocated with the
 * stream's first RDMA Read and kept (Reads stay in it while the
 * transmitter is idle). Published under qlock, as the receiver reads them
 * there. GFP_NOIO, as eng_tx_buf_get().
 */
static int eng_tx_orq_get(struct eng_stream *s)
{
	struct eng_orqe *orq;
	unsigned long flags;

	if (s->orq)
		return 0;
	if (eng_tx_alloc_fault() || swi_eng_cq_alloc(s))
		return -ENOMEM;
	orq = kcalloc(s->ord, sizeof(*orq), GFP_NOIO);
	if (!orq)
		return -ENOMEM;
	spin_lock_irqsave(&s->qlock, flags);
	s->orq = orq;
	spin_unlock_irqrestore(&s->qlock, flags);
	return 0;
}

/*
 * No memory for what the job needs: a local catastrophic error. A work
 * request completes with LOC_QP_OP_ERR; a Read Response is not sent (its
 * Request stays in the IRQ, for the flush). The Terminate that follows
 * tries the allocation again; when the Terminate itself finds none, the
 * connection is reset.
 */
static void eng_tx_nomem(struct eng_stream *s)
{
	switch (s->job.kind) {
	case ENG_TX_SQE:
		swi_eng_cq_sqe_done(s, &s->job.sqe, 0, SIW_WC_LOC_QP_OP_ERR);
		eng_tx_local_error(s, RDMAP_QP_ERR_FATAL);
		break;
	case ENG_TX_RRESP:
	case ENG_TX_ARESP:
		eng_tx_local_error(s, RDMAP_QP_ERR_FATAL);
		break;
	default:		/* the Terminate */
		s->job.kind = ENG_TX_NONE;
		eng_tx_abort(s);
		break;
	}
}

/*
 * The batch is in the socket, or settled, or never built: its source
 * MR may go
 */
static void eng_tx_drop_src(struct eng_stream *s)
{
	swi_rdmap_mem_put(s->tx_src);
	s->tx_src = NULL;
}

/* The work request is not a Read in the ORQ: its sink is not held */
static void eng_tx_drop_sink(struct eng_stream *s)
{
	swi_rdmap_mem_unhold(s->job.sink);
	s->job.sink = NULL;
}

/* Check the local buffers of a new work request */
static enum siw_wc_status eng_tx_check_sqe(struct eng_stream *s)
{
	const struct siw_sqe *sqe = &s->job.sqe;
	int access = eng_op_is_rd_atomic(sqe->opcode) ? IB_ACCESS_LOCAL_WRITE :
							 0;
	enum siw_wc_status st = SIW_WC_SUCCESS;
	unsigned int i;

	/* an atomic's result: one 64-bit word (RFC 7306 section 5) */
	if (eng_op_is_atomic(sqe->opcode) &&
	    (sqe->num_sge != 1 || sqe->sge[0].length != sizeof(u64) ||
	     (sqe->flags & SIW_WQE_INLINE)))
		return SIW_WC_LOC_LEN_ERR;
	if (sqe->flags & SIW_WQE_INLINE)
		return SIW_WC_SUCCESS;
	for (i = 0; i < sqe->num_sge && st == SIW_WC_SUCCESS; i++) {
		const struct siw_sge *sge = &sqe->sge[i];
		struct rdmap_mem *mem;

		if (!sge->length)
			continue;
		mem = swi_rdmap_mem_lookup(s->link.mem, sge->lkey);
		if (swi_rdmap_mem_local_check(mem, sge->lkey, s->link.pd, access,
					      sge->laddr, sge->length))
			st = SIW_WC_LOC_PROT_ERR;
		if (IS_ERR(mem))
			continue;
		/* the gather of the first FPDU starts here: keep it */
		if (!s->tx_src && !access) {
			s->tx_src = mem;
			s->tx_src_stag = sge->lkey;
			continue;
		}
		/*
		 * a Read's one sink, an atomic's result: the Response lands
		 * in this object only
		 */
		if (access && st == SIW_WC_SUCCESS && !s->job.sink) {
			swi_rdmap_mem_hold(mem);
			s->job.sink = mem;
		}
		swi_rdmap_mem_put(mem);
	}
	if (st != SIW_WC_SUCCESS) {
		eng_tx_drop_src(s);
		eng_tx_drop_sink(s);
	}
	return st;
}

/*
 * Local work requests: fast-register and invalidate take effect at once,
 * and complete after the work requests ahead of them (engine/cq.c)
 */
static void eng_tx_local_wr(struct eng_stream *s)
{
	struct siw_sqe *sqe = &s->job.sqe;
	struct ib_mr *ibmr;
	int err;

	if (sqe->opcode == SIW_OP_INVAL_STAG) {
		err = swi_rdmap_mem_invalidate_local(s->link.mem, sqe->rkey,
						     s->link.pd);
	} else {
		ibmr = (struct ib_mr *)(uintptr_t)sqe->base_mr;
		err = swi_rdmap_mem_fast_reg(swi_mr_mem(ibmr), s->link.pd,
					     sqe->rkey, sqe->access, ibmr->iova,
					     ibmr->length);
	}
	if (err) {
		eng_tx_sqe_failed(s, SIW_WC_LOC_PROT_ERR);
		return;
	}
	swi_eng_cq_sqe_done(s, sqe, 0, SIW_WC_SUCCESS);
	s->job.kind = ENG_TX_NONE;
}

/* Start the SQ's next work request; false when there is none to start */
static bool eng_tx_pick_sqe(struct eng_stream *s)
{
	struct eng_tx_job *j = &s->job;
	enum siw_wc_status st;
	unsigned long flags;
	s64 len;
	int err;

	if (!swi_eng_cq_room(s))
		return false;	/* the drain that makes room kicks us */
	err = swi_qp_take_sqe(s->link.qp, &j->sqe, &j->ext, eng_tx_sq_hold(s));
	if (err == -ENOENT || err == -EAGAIN)
		return false;
	j->kind = ENG_TX_SQE;
	j->done = 0;
	j->last = false;
	j->imm = false;
	if (err) {
		eng_tx_sqe_failed(s, SIW_WC_LOC_QP_OP_ERR);
		return true;
	}
	if (j->sqe.opcode == SIW_OP_REG_MR ||
	    j->sqe.opcode == SIW_OP_INVAL_STAG) {
		eng_tx_local_wr(s);
		return true;
	}
	if (!eng_tx_read_ok(s, &j->sqe)) {
		eng_tx_sqe_failed(s, SIW_WC_LOC_QP_OP_ERR);
		return true;
	}
	/* before the checks take holds, and a Read its ORQ entry */
	if (eng_tx_buf_get(s) ||
	    (eng_op_is_rd_atomic(j->sqe.opcode) && eng_tx_orq_get(s))) {
		eng_tx_nomem(s);
		return true;
	}
	len = eng_sqe_len(&j->sqe);
	st = len < 0 ? SIW_WC_LOC_LEN_ERR : eng_tx_check_sqe(s);
	if (st != SIW_WC_SUCCESS) {
		eng_tx_sqe_failed(s, st);
		return true;
	}
	/* an Atomic Request is all header: its SGE takes the Response */
	j->len = eng_op_is_atomic(j->sqe.opcode) ? 0 : len;
	/* with no data, the Immediate Data message goes alone (section 6) */
	if ((j->sqe.flags & ENG_WQE_IMM) && !len) {
		j->imm = true;
		j->wlen = 0;
	}
	if (eng_op_is_rd_atomic(j->sqe.opcode)) {
		/* In the ORQ before the Request leaves: the Response may race */
		spin_lock_irqsave(&s->qlock, flags);
		s->orq[s->orq_put % s->ord] = (struct eng_orqe) {
			.sqe = j->sqe, .sink = j->sink,
			.cq_at = swi_eng_cq_reserve(s, &j->sqe),
			.req_id = s->msn[RDMAP_QN_READ_REQ],
		};
		WRITE_ONCE(s->orq_put, s->orq_put + 1);
		spin_unlock_irqrestore(&s->qlock, flags);
		j->sink = NULL;	/* the ORQ entry holds it */
	}
	return true;
}

/* The Terminate goes out: its cause, from the header built for it */
static void eng_tx_trace_term(const struct eng_stream *s)
{
	struct rdmap_term_cause c = {
		.layer = be32_get_bits(s->term.ctrl, RDMAP_TERM_LAYER),
		.etype = be32_get_bits(s->term.ctrl, RDMAP_TERM_ETYPE),
		.code = be32_get_bits(s->term.ctrl, RDMAP_TERM_CODE),
	};

	trace_term_sent(s->link.qp_num, &c);
}

/*
 * A responder that has not received a valid FPDU may send none (RFC 5044
 * section 7.1.2 rule 4), and its Terminate is no exception: the stream is
 * reset instead, as when a Terminate cannot be sent. The QP took the
 * error already (its move to TERMINATE flushed the work and raised the
 * async event); the reset takes it on to ERROR.
 */
static void eng_tx_term_held(struct eng_stream *s)
{
	net_info_ratelimited("softiwarp: QP %u: no valid FPDU received yet: resetting, no Terminate\n",
			     s->link.qp_num);
	eng_tx_abort(s);
}

/* The operation of an Atomic Request on its word, and what it found */
struct eng_atomic_op {
	const struct rdmap_atomic_req_info *r;
	u64 orig;
};

/*
 * Apply the operation to the word at @off of @page: a compare-and-exchange
 * loop, so that it is atomic with respect to every other atomic of the
 * device (RFC 7306 section 5.3: they all run here, on any CPU) and to the
 * CPU's own atomic instructions on the word. The word is one piece,
 * aligned in its page; a region whose pages are not 8-octet aligned
 * behind an aligned Tagged Offset gives -EINVAL.
 */
static int eng_atomic_piece(void *ctx, struct page *page, unsigned int off,
			    unsigned int len)
{
	struct eng_atomic_op *op = ctx;
	u64 old, cur;
	u8 *va;
	u64 *w;

	if (len != sizeof(u64) || !IS_ALIGNED(off, sizeof(u64)))
		return -EINVAL;
	va = kmap_local_page(page);
	w = (u64 *)(va + off);
	cur = READ_ONCE(*w);
	do {
		old = cur;
		cur = cmpxchg64(w, old, swi_rdmap_atomic_result(op->r, old));
	} while (cur != old);
	kunmap_local(va);
	op->orig = old;
	return 0;
}

/*
 * The Atomic Request at the head of the IRQ is processed now, in its
 * order with the Read Requests around it (RFC 7306 section 5.2.2 rule 8,
 * section 7): on the object it was checked against when it was
 * Delivered, checked again, as a Read Response's source is for each FPDU
 */
static void eng_tx_atomic_run(struct eng_stream *s)
{
	struct eng_tx_job *j = &s->job;
	struct eng_atomic_op op = { .r = &j->rr.at };
	int err = -EACCES;

	lockdep_assert_held(&s->tx_mutex);
	if (j->rr.src && !eng_tx_rresp_src_lost())
		err = swi_rdmap_mem_use_walk(j->rr.src, j->rr.src_stag,
					     s->link.pd,
					     IB_ACCESS_REMOTE_ATOMIC,
					     j->rr.src_to, sizeof(u64),
					     eng_atomic_piece, &op);
	if (err) {
		eng_tx_aresp_failed(s, err == -EINVAL);
		return;
	}
	j->orig = op.orig;
}

/*
 * Choose the next message: the Terminate, a Read or Atomic Response, the
 * SQ. The SQ is served in RTS only; the Responses in CLOSING too, so that
 * an orderly close answers the peer's Requests before its FIN. A
 * responder's hold (ENG_TX_HOLD) holds back everything, the Terminate
 * too: once the QP has left RTS for TERMINATE or ERROR, a Terminate held
 * back is dropped and the stream reset (eng_tx_term_held()).
 */
static bool eng_tx_pick(struct eng_stream *s)
{
	enum rdmap_qps state = READ_ONCE(*s->link.state);
	bool hold = test_bit(ENG_TX_HOLD, &s->flags);
	struct eng_tx_job *j = &s->job;
	bool got = true, drop = false;
	unsigned long flags;

	j->done = 0;
	j->last = false;
	j->imm = false;
	/*
	 * Only the SQ has work: no lock. A Terminate, a Read Request or an
	 * RTR queued after this look is followed by a kick, which runs the
	 * transmitter again once this run lets go of @s->tx_mutex.
	 */
	if (state == RDMAP_QPS_RTS && !hold && !READ_ONCE(s->term_len) &&
	    !test_bit(ENG_TX_RTR, &s->flags) &&
	    READ_ONCE(s->irq_put) == s->irq_get)
		return eng_tx_pick_sqe(s);
	spin_lock_irqsave(&s->qlock, flags);
	if (s->term_len && !s->term_sent &&
	    test_bit(ENG_TX_HOLD, &s->flags)) {
		/*
		 * Read again under the lock the Terminate was queued under:
		 * an FPDU that ended the hold came before it. The QP's
		 * move to TERMINATE (from RTS, or from CLOSING while our FIN
		 * is due) kicks us again.
		 */
		drop = state == RDMAP_QPS_TERMINATE || state == RDMAP_QPS_ERROR;
		if (drop)
			s->term_sent = true;
		got = false;
	} else if (s->term_len && !s->term_sent) {
		s->term_sent = true;
		if (trace_term_sent_enabled())
			eng_tx_trace_term(s);
		j->kind = ENG_TX_TERM;
		j->len = 0;
	} else if (hold || (state != RDMAP_QPS_RTS &&
			    state != RDMAP_QPS_CLOSING)) {
		got = false;
	} else if (state == RDMAP_QPS_RTS &&
		   test_and_clear_bit(ENG_TX_RTR, &s->flags)) {
		/* RFC 6581 RTR: a zero-length RDMA Write, STag 0 */
		memset(&j->sqe, 0, sizeof(j->sqe));
		j->sqe.opcode = SIW_OP_WRITE;
		j->sqe.flags = ENG_WQE_INTERNAL;
		j->kind = ENG_TX_SQE;
		j->len = 0;
	} else if (s->irq_get != s->irq_put) {
		j->rr = s->irq[s->irq_get % s->ird];
		j->kind = j->rr.atomic ? ENG_TX_ARESP : ENG_TX_RRESP;
		j->len = j->rr.atomic ? 0 : j->rr.size;
	} else {
		got = false;
	}
	spin_unlock_irqrestore(&s->qlock, flags);
	if (got) {
		if (eng_tx_buf_get(s))
			eng_tx_nomem(s);
		else if (j->kind == ENG_TX_ARESP)
			eng_tx_atomic_run(s);
		return true;
	}
	if (drop)
		eng_tx_term_held(s);
	if (state != RDMAP_QPS_RTS || hold)
		return false;
	return eng_tx_pick_sqe(s);
}

/*
 * The Write of an RDMA Write with Immediate is in the socket: the job
 * goes on as its Immediate Data message (RFC 7306 section 6), which the
 * transmitter frames next, before any other message
 */
static void eng_tx_imm_next(struct eng_tx_job *j)
{
	j->imm = true;
	j->wlen = j->len;
	j->len = 0;
	j->done = 0;
	j->last = false;
}

/* The last FPDU of the job is in the socket */
static void eng_tx_finish(struct eng_stream *s)
{
	struct eng_tx_job *j = &s->job;

	switch (j->kind) {
	case ENG_TX_SQE:
		if (eng_op_is_rd_atomic(j->sqe.opcode)) {
			s->msn[RDMAP_QN_READ_REQ]++;
			break;
		}
		if ((j->sqe.flags & ENG_WQE_IMM) && !j->imm) {
			eng_tx_imm_next(j);
			return;
		}
		if (j->sqe.opcode != SIW_OP_WRITE || j->imm)
			s->msn[RDMAP_QN_SEND]++;
		swi_eng_cq_sqe_done(s, &j->sqe, j->imm ? j->wlen : j->len,
				    SIW_WC_SUCCESS);
		break;
	case ENG_TX_ARESP:
		s->msn[RDMAP_QN_ATOMIC_RESP]++;
		fallthrough;
	case ENG_TX_RRESP:
		/* its IRD entry was released when the last FPDU was staged */
		swi_rdmap_mem_unhold(j->rr.src);
		j->rr_released = false;
		break;
	case ENG_TX_TERM:
		swi_qp_count_term(s->link.qp, true,
				  be32_get_bits(s->term.ctrl, RDMAP_TERM_LAYER));
		s->msn[RDMAP_QN_TERMINATE]++;
		set_bit(ENG_TX_STOPPED, &s->flags);
		swi_qp_raise(s->link.qp, RDMAP_QPE_TERM_SENT, RDMAP_QP_ERR_FATAL);
		break;
	}
	j->kind = ENG_TX_NONE;
	j->last = false;
}

/* Hand the rest of the batch to the socket without blocking */
static int eng_tx_push(struct eng_stream *s)
{
	while (s->wire_sent < s->wire_len) {
		struct msghdr msg = {
			.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL |
				     (s->job.last ? 0 : MSG_MORE),
		};
		int n;

		iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, s->txb->wire,
			      s->wire_nr, s->wire_len);
		iov_iter_advance(&msg.msg_iter, s->wire_sent);
		n = sock_sendmsg(s->sock, &msg);
		if (n <= 0)
			return n ? n : -EPIPE;
		s->wire_sent += n;
	}
	return 0;
}

/* The socket took the whole batch: count its FPDUs, octets and Markers */
static void eng_tx_count_batch(struct eng_stream *s)
{
	swi_qp_count_tx(s->link.qp, s->nr_fpdu, s->wire_len, s->wire_markers);
}

/*
 * The socket did not take the whole batch: copy the octets it still
 * points at in MRs to their places in the stage, so that no reference to
 * a source outlives this run of the transmitter. A consumer may
 * deregister an MR once its work requests are flushed, and a stream
 * whose socket never drains again must not make it wait.
 */
static void eng_tx_settle(struct eng_stream *s)
{
	struct eng_tx_buf *b = s->txb;
	size_t at = 0;
	unsigned int i;

	for (i = 0; i < s->wire_nr; at += b->wire[i++].iov_len) {
		if (!b->wire_stage[i] || at + b->wire[i].iov_len <= s->wire_sent)
			continue;
		memcpy(b->wire_stage[i], b->wire[i].iov_base,
		       b->wire[i].iov_len);
		b->wire[i].iov_base = b->wire_stage[i];
		b->wire_stage[i] = NULL;
	}
	eng_tx_drop_src(s);
}

/*
 * Build the next batch of FPDUs of the job, or pick a job; false when
 * idle. A batch ends with its message, or when it is full. An FPDU that
 * cannot be built ends the batch; when it is the first, the job fails.
 */
static bool eng_tx_next(struct eng_stream *s)
{
	u32 emss = READ_ONCE(tcp_sk(s->sock->sk)->mss_cache);
	u32 seg_end = s->mtx.pos, room;	/* no segment before the first */
	int err;

	if (s->job.kind == ENG_TX_NONE && !eng_tx_pick(s))
		return false;
	if (s->job.kind == ENG_TX_NONE)
		return true;	/* completed without a wire message */
	s->tx_used = jiffies;
	s->nr_fpdu = 0;
	s->stage_used = 0;
	s->wire_nr = 0;
	s->wire_len = 0;
	s->wire_sent = 0;
	s->wire_markers = 0;
	do {
		room = swi_mpa_tx_ulpdu_room(&s->mtx, emss, &seg_end);
		err = eng_tx_add_fpdu(s, room);
	} while (!err && !s->job.last &&
		 eng_tx_batch_room(s, room + MPA_MARKER_SIZE));
	if (err && !s->nr_fpdu) {
		eng_tx_drop_src(s);
		if (s->job.kind == ENG_TX_SQE)
			eng_tx_sqe_failed(s, SIW_WC_LOC_PROT_ERR);
		else if (s->job.kind == ENG_TX_RRESP &&
			 (err == -EACCES || err == -ENOENT))
			eng_tx_rresp_failed(s);
		else
			eng_tx_abort(s);
	}
	return true;
}

/*
 * Batches one run of the transmitter builds at most. A user thread that
 * keeps refilling its SQ (or a peer its Read Requests) must not keep a
 * doorbell system call or a worker from returning: past the budget the
 * rest goes to a fresh run of the work item, which lets others run first
 * (as nvme-tcp's io_work does).
 */
#define ENG_TX_BUDGET	64

static void eng_tx_run_locked(struct eng_stream *s)
{
	unsigned int budget = ENG_TX_BUDGET;
	int err;

	lockdep_assert_held(&s->tx_mutex);
	for (;;) {
		if (s->wire_sent < s->wire_len) {
			err = eng_tx_push(s);
			if (err) {
				if (err != -EAGAIN)
					eng_tx_abort(s);
				eng_tx_settle(s);
				return;
			}
			eng_tx_count_batch(s);
			s->wire_len = 0;
			s->wire_sent = 0;
			eng_tx_drop_src(s);
			if (s->job.last)
				eng_tx_finish(s);
			continue;
		}
		if (test_bit(ENG_TX_STOPPED, &s->flags))
			break;
		if (!budget--) {
			/* swi_eng_stream_stop() cancels it after STOPPED is set */
			queue_work(eng_tx_wq, &s->tx_work);
			return;
		}
		if (!eng_tx_next(s))
			break;
	}
	if (test_bit(ENG_TX_CLOSE, &s->flags) &&
	    (s->job.kind == ENG_TX_NONE ||
	     test_bit(ENG_TX_STOPPED, &s->flags)) &&
	    test_and_clear_bit(ENG_TX_CLOSE, &s->flags)) {
		kernel_sock_shutdown(s->sock, SHUT_WR);
		set_bit(ENG_TX_FIN_OUT, &s->flags);
	}
}

/**
 * swi_eng_tx_work() - the transmitter run by &eng_stream.tx_work
 * @work: the stream's tx_work
 *
 * Context: process context (the softiwarp_tx workqueue).
 * Return: nothing.
 */
void swi_eng_tx_work(struct work_struct *work)
{
	struct eng_stream *s = container_of(work, struct eng_stream, tx_work);

	mutex_lock(&s->tx_mutex);
	eng_tx_run_locked(s);
	mutex_unlock(&s->tx_mutex);
}

/**
 * swi_eng_tx_idle_work() - free the transmitter's buffers once it is idle
 * @work: the stream's tx_idle
 *
 * Frees &eng_stream.txb when the transmitter has built no batch for
 * ENG_TX_IDLE_MS and has neither a message in progress nor a batch the
 * socket has not taken; otherwise looks again when that time would be
 * up. The next message allocates them again (eng_tx_buf_get()), sized for
 * the EMSS of then. A stopped stream that still holds a batch keeps them
 * until it is freed. A transmitter running now is not idle: when
 * &eng_stream.tx_mutex is taken, it looks again later rather than wait.
 *
 * Context: process context (the softiwarp_tx workqueue); takes
 * &eng_stream.tx_mutex by trylock.
 * Return: nothing.
 */
void swi_eng_tx_idle_work(struct work_struct *work)
{
	struct eng_stream *s = container_of(to_delayed_work(work),
					    struct eng_stream, tx_idle);
	unsigned long idle = msecs_to_jiffies(ENG_TX_IDLE_MS), due;

	if (!mutex_trylock(&s->tx_mutex)) {
		queue_delayed_work(eng_tx_wq, &s->tx_idle, idle);
		return;
	}
	due = s->tx_used + idle;
	if (s->job.kind != ENG_TX_NONE || s->wire_sent < s->wire_len) {
		if (!test_bit(ENG_TX_STOPPED, &s->flags))
			queue_delayed_work(eng_tx_wq, &s->tx_idle, idle);
	} else if (time_before(jiffies, due)) {
		queue_delayed_work(eng_tx_wq, &s->tx_idle, due - jiffies);
	} else {
		kvfree(s->txb);
		s->txb = NULL;
		WRITE_ONCE(s->txb_size, 0);
	}
	mutex_unlock(&s->tx_mutex);
}

/**
 * swi_eng_tx_kick() - make the transmitter run
 * @s: the stream
 * @inline_ok: the caller is in process context and may run it itself
 *	(a user QP's doorbell); otherwise a work item runs it
 *
 * The work item runs on the CPU that queues it: the one that processed
 * the socket's acknowledgment (write space), the peer's Read Request,
 * or ran the kernel consumer's post. That is this end's CPU, where its
 * receive processing runs too; an unbound worker would go to any idle
 * CPU, which may be the one doing the peer's work (Documentation/
 * performance.rst). The worker's high priority preempts a user poller
 * spinning there at once.
 *
 * Context: any context; process context when @inline_ok.
 * Return: nothing.
 */
void swi_eng_tx_kick(struct eng_stream *s, bool inline_ok)
{
	if (inline_ok && mutex_trylock(&s->tx_mutex)) {
		eng_tx_run_locked(s);
		mutex_unlock(&s->tx_mutex);
		return;
	}
	queue_work(eng_tx_wq, &s->tx_work);
}

/**
 * swi_eng_tx_queue_term() - queue the stream's Terminate message
 * @s: the stream
 * @cause: the error it reports
 * @seg: the received segment the error is about, or NULL
 * @kick: run the transmitter; the receiver leaves that to the QP's move
 *	to TERMINATE, so that TERM_SENT never overtakes its error event
 *
 * Only the first Terminate of a stream is sent (RFC 5040 section 7); it
 * goes out before anything else still queued.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_eng_tx_queue_term(struct eng_stream *s,
			   const struct rdmap_term_cause *cause,
			   const struct rdmap_term_offender *seg, bool kick)
{
	unsigned long flags;

	spin_lock_irqsave(&s->qlock, flags);
	if (!s->term_len && !s->term_sent)
		WRITE_ONCE(s->term_len, swi_rdmap_term_build(&s->term, cause, seg));
	spin_unlock_irqrestore(&s->qlock, flags);
	if (kick)
		swi_eng_tx_kick(s, false);
}

/* The FPDU @f of the ULPDU @u, octet by octet into @buf */
static void eng_fpdu_copy(const struct mpa_fpdu *f, const u8 *u, u8 *buf)
{
	unsigned int i, at = 0;

	for (i = 0; i < f->nr_pieces; i++) {
		const struct mpa_piece *p = &f->piece[i];

		memcpy(buf + at, (p->type == MPA_PIECE_FRAMING ? f->bytes : u) +
		       p->off, p->len);
		at += p->len;
	}
}

/**
 * swi_eng_setup_term_fpdu() - the Terminate of a connection setup that failed
 * @tx: the transmit framing negotiated (CRC, Markers; position 0)
 * @rdmac: DDP and RDMAP version 0 (a revision 0 peer), else 1
 * @code: the MPA error code (layer LLP, error type MPA: RFC 6581 section 8)
 * @buf: where to build the FPDU
 * @size: room in @buf, ENG_SETUP_TERM_MAX suffices
 *
 * An initiator that read an accepting Reply and cannot enter Full
 * Operation sends one Terminate before it resets the connection (RFC 6581
 * sections 8, 9.1 to 9.3): the first FPDU of the stream, on DDP queue 2
 * with MSN 1, with no header of a received segment (there is none).
 *
 * Context: process context.
 * Return: the FPDU's length, or -ENOMEM, -ENOSPC, or the error of
 * swi_mpa_tx_init() for a bad @tx.
 */
int swi_eng_setup_term_fpdu(const struct mpa_fo_cfg *tx, bool rdmac, u8 code,
			    u8 *buf, size_t size)
{
	const struct rdmap_term_cause cause = {
		.layer = TERM_LAYER_LLP, .etype = TERM_ETYPE_LLP, .code = code,
	};
	struct ddp_hdr_info h = {
		.last = 1, .opcode = RDMAP_TERMINATE, .qn = RDMAP_QN_TERMINATE,
		.msn = 1,
		.dv = rdmac ? DDP_VERSION_RDMAC : DDP_VERSION,
		.rv = rdmac ? RDMAP_VERSION_RDMAC : RDMAP_VERSION,
	};
	u8 u[DDP_UNTAGGED_HDR_SIZE + sizeof(struct rdmap_term_hdr)];
	struct mpa_fpdu *f;
	struct iov_iter it;
	struct kvec kv;
	struct mpa_tx t;
	int n, err;

	err = swi_mpa_tx_init(&t, tx);
	if (err)
		return err;
	n = swi_ddp_hdr_build(u, DDP_UNTAGGED_HDR_SIZE, &h);
	if (n < 0)
		return n;
	n += swi_rdmap_term_build((struct rdmap_term_hdr *)(u + n), &cause, NULL);
	f = kmalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	kv = (struct kvec){ .iov_base = u, .iov_len = n };
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, n);
	err = swi_mpa_fpdu_layout(&t, f, n);
	if (!err)
		err = swi_mpa_fpdu_set_crc(f, &it);
	if (!err && f->len > size)
		err = -ENOSPC;
	if (!err) {
		eng_fpdu_copy(f, u, buf);
		err = f->len;
	}
	kfree(f);
	return err;
}

/**
 * swi_eng_stream_flush_tx() - flush the transmitter's work
 * @s: the stream
 *
 * Completes the work request in progress and the RDMA Reads awaiting
 * their Response with a flush error, and drops the Read Requests not yet
 * answered. A Terminate in progress is kept: it still goes out.
 *
 * Context: process context; takes @s->tx_mutex.
 * Return: nothing.
 */
void swi_eng_stream_flush_tx(struct eng_stream *s)
{
	struct eng_tx_job *j = &s->job;
	struct eng_rreq rr;
	unsigned long flags;

	mutex_lock(&s->tx_mutex);
	if (j->kind == ENG_TX_SQE && !eng_op_is_rd_atomic(j->sqe.opcode))
		swi_eng_cq_sqe_done(s, &j->sqe, 0, SIW_WC_WR_FLUSH_ERR);
	/*
	 * A Read or Atomic Response job shares the IRQ head's reference
	 * until its IRD entry is released, and owns it from then on
	 */
	if ((j->kind == ENG_TX_RRESP || j->kind == ENG_TX_ARESP) &&
	    j->rr_released)
		swi_rdmap_mem_unhold(j->rr.src);
	j->rr_released = false;
	if (j->kind != ENG_TX_TERM) {
		j->kind = ENG_TX_NONE;
		j->last = false;
	}
	spin_lock_irqsave(&s->qlock, flags);
	while (s->irq_get != s->irq_put) {
		rr = s->irq[s->irq_get++ % s->ird];
		swi_rdmap_mem_unhold(rr.src);
	}
	spin_unlock_irqrestore(&s->qlock, flags);
	mutex_unlock(&s->tx_mutex);
	while (swi_eng_rx_orq_complete(s, SIW_WC_WR_FLUSH_ERR) == 0)
		;
	swi_eng_cq_settle(s);
}

/**
 * swi_eng_tx_init() - create the transmit workqueue: per CPU, high priority
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int swi_eng_tx_init(void)
{
	eng_tx_wq = alloc_workqueue("softiwarp_tx", WQ_HIGHPRI |
				    WQ_MEM_RECLAIM | SWI_WQ_PERCPU, 0);
	return eng_tx_wq ? 0 : -ENOMEM;
}

/**
 * swi_eng_tx_exit() - destroy the transmit workqueue
 *
 * Context: module exit, after every device is gone.
 * Return: nothing.
 */
void swi_eng_tx_exit(void)
{
	destroy_workqueue(eng_tx_wq);
}
