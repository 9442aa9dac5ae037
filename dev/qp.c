// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: queue pairs
 *
 * A QP owns two rings in the siw ABI's layout: the SQ (struct siw_sqe) and
 * the RQ (struct siw_rqe, absent with an SRQ). Kernel consumers fill them
 * through post_send/post_recv; libsiw writes them in place and rings the
 * doorbell with an empty POST_SEND. Who owns an entry follows the slot
 * protocol of dev/ring.h: taking an entry copies it out and frees the
 * slot for the producer.
 *
 * State changes go through swi_rdmap_qp_next() (rdmap/qp_state.c) under
 * @state_lock, always in process context: the receiver and the
 * transmitter, which cannot sleep or hold the transmitter's mutex while
 * flushing, report their events with swi_qp_raise(), and a work item
 * applies them. See Documentation/device.rst.
 */
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "cm/cm.h"
#include "dev/softiwarp.h"
#include "rdmap/rdmap_trace.h"

/* Runs swi_qp_err_work(); see swi_qp_init() */
static struct workqueue_struct *swi_qp_wq;

static void swi_qp_sweep(struct work_struct *work);

static unsigned int close_timeout_ms = 10000;
module_param(close_timeout_ms, uint, 0644);
MODULE_PARM_DESC(close_timeout_ms,
		 "Time a QP may spend in CLOSING (the orderly close) or TERMINATE (the Terminate going out) before the connection is reset (default 10000)");

static bool rfc7306 = true;
module_param(rfc7306, bool, 0644);
MODULE_PARM_DESC(rfc7306,
		 "RFC 7306 extensions for the kernel QPs of devices added from now on: RDMA Write with Immediate Data, FetchAdd and CmpSwap (masked too) sent, Immediate Data and Atomic Requests answered, atomic_cap reported (default Y; N: refused and answered with a Terminate, as by siw). Per device: /sys/class/infiniband/DEV/rfc7306");

/**
 * swi_qp_rfc7306() - are RFC 7306's extensions on for a device added now?
 *
 * A device takes this as the first value of its own switch (&struct
 * swi_device, @ext), which sysfs changes (swi_dev_set_ext()).
 *
 * Context: any context.
 * Return: the module parameter rfc7306.
 */
bool swi_qp_rfc7306(void)
{
	return READ_ONCE(rfc7306);
}

/* Raised events, applied in this order by swi_qp_err_work() */
static const u8 swi_qp_raise_order[] = {
	RDMAP_QPE_LOCAL_ERROR, RDMAP_QPE_TERM_RCVD, RDMAP_QPE_LLP_RESET,
	RDMAP_QPE_LLP_FIN, RDMAP_QPE_TERM_SENT, RDMAP_QPE_CLOSE_DONE,
};

static void swi_qp_close_timeout(struct work_struct *work);

static struct siw_sqe *swi_sq_slot(struct swi_qp *qp, u32 i)
{
	return swi_ring_slot(&qp->sq, i);
}

static struct siw_rqe *swi_rq_slot(struct swi_qp *qp, u32 i)
{
	return swi_ring_slot(&qp->rq, i);
}

static int swi_qp_check_attr(const struct ib_qp_init_attr *attr)
{
	const struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	if (!cap->max_send_wr || cap->max_send_wr > SWI_MAX_QP_WR ||
	    cap->max_send_sge > SWI_MAX_SGE ||
	    cap->max_inline_data > SWI_MAX_INLINE)
		return -EINVAL;
	if (!attr->srq && (!cap->max_recv_wr ||
			   cap->max_recv_wr > SWI_MAX_QP_WR ||
			   cap->max_recv_sge > SWI_MAX_SGE))
		return -EINVAL;
	return 0;
}

static int swi_qp_publish(struct swi_qp *qp, struct ib_udata *udata)
{
	struct siw_uresp_create_qp uresp = {
		.qp_id = qp->base.qp_num,
		.num_sqe = qp->sq.num,
		.num_rqe = qp->rq.num,
	};
	int err;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	err = swi_ring_publish(&qp->sq, udata, &uresp.sq_key);
	if (!err && qp->rq.num)
		err = swi_ring_publish(&qp->rq, udata, &uresp.rq_key);
	return err ? err : ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

static void swi_qp_init_fields(struct swi_qp *qp, struct ib_qp_init_attr *a,
			       bool user)
{
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	mutex_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	INIT_WORK(&qp->err_work, swi_qp_err_work);
	INIT_DELAYED_WORK(&qp->close_work, swi_qp_close_timeout);
	INIT_DELAYED_WORK(&qp->sweep_work, swi_qp_sweep);
	qp->state = RDMAP_QPS_IDLE;
	qp->scq = to_swi_cq(a->send_cq);
	qp->rcq = to_swi_cq(a->recv_cq);
	qp->srq = a->srq ? to_swi_srq(a->srq) : NULL;
	qp->ird = SWI_MAX_IRD;
	qp->ord = SWI_MAX_ORD;
	qp->send_sge = max(a->cap.max_send_sge, 1U);
	qp->recv_sge = a->srq ? 0 : max(a->cap.max_recv_sge, 1U);
	qp->sig_all = a->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->user = user;
	qp->ext = !user && READ_ONCE(qp->dev->ext);
	qp->owner = user ? get_pid(task_tgid(current)) : NULL;
}

/**
 * swi_create_qp() - create an RC QP (kernel or libsiw)
 * @ibqp: the QP, allocated by the IB core
 * @attr: requested attributes; the granted capabilities are written back
 * @udata: user data (struct siw_uresp_create_qp out), NULL for kernel QPs
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int swi_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct swi_device *dev = to_swi_dev(ibqp->device);
	struct swi_qp *qp = to_swi_qp(ibqp);
	u32 nrq, id;
	int err;

	err = swi_qp_check_attr(attr);
	if (err)
		return err;
	if (atomic_inc_return(&dev->num_qp) > SWI_MAX_QP) {
		err = -ENOMEM;
		goto out_count;
	}
	qp->dev = dev;
	swi_qp_init_fields(qp, attr, udata);
	nrq = attr->srq ? 0 : roundup_pow_of_two(attr->cap.max_recv_wr);
	err = swi_ring_alloc(&qp->sq, roundup_pow_of_two(attr->cap.max_send_wr),
			     sizeof(struct siw_sqe), 0, udata);
	if (!err)
		err = swi_ring_alloc(&qp->rq, nrq, sizeof(struct siw_rqe), 0,
				     udata);
	if (!err && qp->ext) {
		qp->sq_ext = kvcalloc(qp->sq.num, sizeof(*qp->sq_ext),
				      GFP_KERNEL);
		if (!qp->sq_ext)
			err = -ENOMEM;
	}
	if (err)
		goto out_rings;
	err = xa_alloc_cyclic(&dev->qp_xa, &id, qp, XA_LIMIT(1, SWI_MAX_QP * 4),
			      &dev->qp_next, GFP_KERNEL);
	if (err < 0)
		goto out_rings;
	ibqp->qp_num = id;
	if (udata) {
		err = swi_qp_publish(qp, udata);
		if (err)
			goto out_xa;
	}
	attr->cap.max_send_wr = qp->sq.num;
	attr->cap.max_recv_wr = qp->rq.num;
	attr->cap.max_send_sge = qp->send_sge;
	attr->cap.max_recv_sge = qp->recv_sge;
	attr->cap.max_inline_data = SWI_MAX_INLINE;
	return 0;

out_xa:
	xa_erase(&dev->qp_xa, id);
out_rings:
	kvfree(qp->sq_ext);
	qp->sq_ext = NULL;
	swi_ring_free(&qp->rq);
	swi_ring_free(&qp->sq);
out_count:
	put_pid(qp->owner);
	qp->owner = NULL;
	atomic_dec(&dev->num_qp);
	return err;
}

/* CQE for a QP: kernel CQs carry the QP pointer, user CQs its number */
static void swi_qp_cqe_owner(struct swi_qp *qp, struct swi_cq *cq,
			     struct siw_cqe *cqe)
{
	if (cq->ring.user)
		cqe->qp_id = qp->base.qp_num;
	else
		cqe->base_qp = &qp->base;
}

/*
 * A completion of a connected QP was lost to a full CQ (the CQ raised
 * IB_EVENT_CQ_ERR): the consumer can no longer tell what happened to its
 * work, so the QP fails as a local error would, with a Terminate to the
 * peer. Flush completions (ERROR) lost the same way change nothing.
 */
static void swi_qp_cq_overflow(struct swi_qp *qp)
{
	if (READ_ONCE(qp->state) == RDMAP_QPS_RTS)
		swi_qp_raise(qp, RDMAP_QPE_LOCAL_ERROR, RDMAP_QP_ERR_FATAL);
}

/*
 * Push @cqe to @cq; count a flushed work request (whether or not its
 * completion found room) and a completion lost to a full CQ, then let
 * swi_qp_cq_overflow() act on the loss
 */
static void swi_qp_push_cqe(struct swi_qp *qp, struct swi_cq *cq,
			    const struct siw_cqe *cqe, bool solicited)
{
	if (cqe->status == SIW_WC_WR_FLUSH_ERR)
		swi_count(qp->dev, SWI_CNT_WR_FLUSHED);
	if (swi_cq_push(cq, cqe, solicited)) {
		swi_count(qp->dev, SWI_CNT_CQ_OVERFLOWS);
		swi_qp_cq_overflow(qp);
	}
}

/**
 * swi_qp_complete_sqe() - complete a send work request
 * @qp: the QP
 * @sqe: the work request
 * @bytes: octets transferred
 * @status: its SIW_WC_* status
 *
 * Unsignalled successful work requests complete silently.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_complete_sqe(struct swi_qp *qp, const struct siw_sqe *sqe,
			 u32 bytes, enum siw_wc_status status)
{
	struct siw_cqe cqe = {
		.id = sqe->id,
		.opcode = sqe->opcode,
		.status = status,
		.bytes = bytes,
	};

	if (sqe->flags & ENG_WQE_INTERNAL)
		return;
	if (sqe->flags & ENG_WQE_MASKED)
		cqe.flags = ENG_CQE_MASKED;
	if (status == SIW_WC_SUCCESS && !qp->sig_all &&
	    !(sqe->flags & SIW_WQE_SIGNALLED))
		return;
	swi_qp_cqe_owner(qp, qp->scq, &cqe);
	swi_qp_push_cqe(qp, qp->scq, &cqe, false);
}

/**
 * swi_qp_complete_rqe() - complete a receive work request
 * @qp: the QP
 * @rqe: the work request
 * @bytes: octets received
 * @status: its SIW_WC_* status
 * @inval: the STag the peer invalidated, or 0
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_complete_rqe(struct swi_qp *qp, const struct siw_rqe *rqe,
			 u32 bytes, enum siw_wc_status status, u32 inval)
{
	struct siw_cqe cqe = {
		.id = rqe->id,
		.opcode = SIW_OP_RECEIVE,
		.status = status,
		.bytes = bytes,
	};

	if (inval) {
		cqe.flags = SIW_WQE_REM_INVAL;
		cqe.inval_stag = inval;
	}
	swi_qp_cqe_owner(qp, qp->rcq, &cqe);
	swi_qp_push_cqe(qp, qp->rcq, &cqe, rqe->flags & SIW_WQE_SOLICITED);
}

/**
 * swi_qp_complete_rqe_imm() - complete a receive with Immediate Data
 * @qp: the QP, a kernel QP (&swi_qp.ext)
 * @rqe: the work request the Immediate Data message consumed, its
 *	SIW_WQE_SOLICITED flag set for Immediate Data with SE
 * @bytes: octets of the RDMA Write that came before it, 0 if none did
 * @imm: the immediate, in network order
 *
 * The completion is ib_wc's IB_WC_RECV_RDMA_WITH_IMM (dev/cq.c), as for
 * InfiniBand's RDMA Write with Immediate, which RFC 7306 section 6 says
 * the pair of messages behaves as.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_complete_rqe_imm(struct swi_qp *qp, const struct siw_rqe *rqe,
			     u32 bytes, __be32 imm)
{
	struct siw_cqe cqe = {
		.id = rqe->id,
		.opcode = SIW_OP_RECEIVE,
		.status = SIW_WC_SUCCESS,
		.flags = ENG_CQE_IMM,
		.bytes = bytes,
		.imm_data = (__force u32)imm,
	};

	swi_qp_cqe_owner(qp, qp->rcq, &cqe);
	swi_qp_push_cqe(qp, qp->rcq, &cqe, rqe->flags & SIW_WQE_SOLICITED);
}

/*
 * A user SQE may name what libsiw can post, nothing else, with no more
 * SGEs than the QP was granted
 */
static bool swi_user_sqe_ok(const struct swi_qp *qp, const struct siw_sqe *sqe)
{
	switch (sqe->opcode) {
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_WRITE:
		break;
	case SIW_OP_READ:
		if (sqe->num_sge > SWI_MAX_SGE_RD)
			return false;
		break;
	default:
		return false;
	}
	if (sqe->flags & SIW_WQE_INLINE)
		return sqe->opcode != SIW_OP_READ &&
		       sqe->sge[0].length <= SWI_MAX_INLINE;
	return sqe->num_sge <= qp->send_sge;
}

/**
 * swi_qp_take_sqe() - take the next send work request off the SQ
 * @qp: the QP
 * @sqe: where the work request is copied
 * @ext: where what it carries beyond the SQE is copied (zeros for a QP
 *	without), or NULL
 * @hold: ENG_SQ_HOLD_* bits: the kinds of work request that may not
 *	start now; such a request is copied but stays on the SQ
 *
 * The slot is read once: what @hold is checked against is the copy the
 * caller goes on with, so user space rewriting a posted work request
 * cannot slip an RDMA Read past the ORD or a fence past the Reads.
 *
 * Context: any context; takes @qp->sq_lock unless the SQ looks empty (a
 * poster kicks the transmitter after its post, so a post missed by that
 * look is taken by the next run).
 * Return: 0, -ENOENT when the SQ is empty, -EAGAIN when @hold keeps the
 * next one back, -EINVAL for a malformed user work request (consumed all
 * the same).
 */
int swi_qp_take_sqe(struct swi_qp *qp, struct siw_sqe *sqe,
		    struct eng_sqe_ext *ext, unsigned int hold)
{
	struct siw_sqe *slot;
	unsigned long flags;
	int err = 0;

	/*
	 * An empty SQ, each transmitter run's last look: no lock. The full
	 * barrier (which the lock's atomic gave before) orders the freeing
	 * of the slot before this one ahead of the look: libsiw writes its
	 * new work request, then rings the doorbell only when that slot is
	 * free, so one of the two sides sees the other.
	 */
	smp_mb();
	if (!swi_slot_busy(swi_sq_slot(qp, READ_ONCE(qp->sq.get))))
		return -ENOENT;
	spin_lock_irqsave(&qp->sq_lock, flags);
	slot = swi_sq_slot(qp, qp->sq.get);
	if (!swi_slot_busy(slot)) {
		err = -ENOENT;
		goto out;
	}
	memcpy(sqe, slot, sizeof(*sqe));
	/* of the flags, user space has the ABI's only, never ours */
	if (qp->user)
		sqe->flags &= SWI_USER_SQE_FLAGS;
	if (qp->user && !swi_user_sqe_ok(qp, sqe)) {
		err = -EINVAL;
	} else if (((hold & ENG_SQ_HOLD_READ) &&
		    eng_op_is_rd_atomic(sqe->opcode)) ||
		   ((hold & ENG_SQ_HOLD_FENCE) &&
		    (sqe->flags & SIW_WQE_READ_FENCE))) {
		err = -EAGAIN;
		goto out;
	}
	if (ext && qp->sq_ext)
		*ext = qp->sq_ext[qp->sq.get & (qp->sq.num - 1)];
	else if (ext)
		*ext = (struct eng_sqe_ext){};
	swi_slot_free(slot);
	WRITE_ONCE(qp->sq.get, qp->sq.get + 1);
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_take_sqe);

/**
 * swi_qp_take_rqe() - take the next receive work request
 * @qp: the QP
 * @rqe: where the work request is copied
 *
 * Context: any context; takes @qp->rq_lock or the SRQ's lock.
 * Return: 0, -ENOENT when none is posted, -EINVAL for a malformed user
 * work request (consumed all the same).
 */
int swi_qp_take_rqe(struct swi_qp *qp, struct siw_rqe *rqe)
{
	struct siw_rqe *slot;
	unsigned long flags;
	int err = 0;

	if (qp->srq) {
		err = swi_srq_get(qp->srq, rqe);
		if (err != -ENOENT)
			WRITE_ONCE(qp->srq_taken, qp->srq_taken + 1);
		return err;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	slot = swi_rq_slot(qp, qp->rq.get);
	if (!swi_slot_busy(slot)) {
		err = -ENOENT;
		goto out;
	}
	memcpy(rqe, slot, sizeof(*rqe));
	swi_slot_free(slot);
	qp->rq.get++;
	if (rqe->num_sge > qp->recv_sge)	/* what the QP was granted */
		err = -EINVAL;
out:
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_take_rqe);

/*
 * Complete what is posted on the SQ with a flush error: one turn of the
 * ring at most. A user thread that keeps refilling its ring must not keep
 * the kernel here; what it posts after is flushed by its next doorbell
 * or the sweep.
 */
static void swi_qp_flush_sq_ring(struct swi_qp *qp)
{
	struct siw_sqe sqe;
	u32 budget = qp->sq.num;

	while (budget-- && swi_qp_take_sqe(qp, &sqe, NULL, 0) != -ENOENT)
		swi_qp_complete_sqe(qp, &sqe, 0, SIW_WC_WR_FLUSH_ERR);
}

/* As swi_qp_flush_sq_ring(), for the RQ */
static void swi_qp_flush_rq_ring(struct swi_qp *qp)
{
	struct siw_rqe rqe;
	u32 budget = qp->rq.num;

	if (qp->srq)
		return;
	while (budget-- && swi_qp_take_rqe(qp, &rqe) != -ENOENT)
		swi_qp_complete_rqe(qp, &rqe, 0, SIW_WC_WR_FLUSH_ERR, 0);
}

static void swi_qp_async_event(struct swi_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->base.device,
		.element.qp = &qp->base,
		.event = type,
	};

	if (qp->base.event_handler)
		qp->base.event_handler(&ev, qp->base.qp_context);
}

static void swi_qp_do_events(struct swi_qp *qp, u32 act)
{
	static const struct {
		u32 act;
		enum ib_event_type ev;
	} map[] = {
		{ RDMAP_QPA_EV_FATAL, IB_EVENT_QP_FATAL },
		{ RDMAP_QPA_EV_REQ_ERR, IB_EVENT_QP_REQ_ERR },
		{ RDMAP_QPA_EV_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
		{ RDMAP_QPA_EV_LAST_WQE, IB_EVENT_QP_LAST_WQE_REACHED },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (act & map[i].act)
			swi_qp_async_event(qp, map[i].ev);
}

/*
 * A user QP in ERROR: libsiw writes receive work requests into the ring
 * without a system call, so one posted after the transition's flush (a
 * consumer reposting from its completion handler as the connection dies)
 * would never complete, and a consumer waiting for its flush completion
 * (rping joins its CQ thread on it) would wait for ever; so would a send
 * posted in TERMINATE, whose move to ERROR flushes nothing more. The
 * sweep flushes both rings again, 10 ms after the move to ERROR and then
 * at doubling intervals of at most a second, until the QP leaves ERROR
 * or is destroyed.
 */
#define SWI_SWEEP_FIRST_MS	10
#define SWI_SWEEP_MAX_MS	1000

static void swi_qp_sweep(struct work_struct *work)
{
	struct swi_qp *qp = container_of(to_delayed_work(work), struct swi_qp,
					 sweep_work);

	mutex_lock(&qp->state_lock);
	if (qp->state == RDMAP_QPS_ERROR && !qp->sweep_off) {
		swi_qp_flush_sq_ring(qp);
		swi_qp_flush_rq_ring(qp);
		qp->sweep_ms = min(qp->sweep_ms * 2, SWI_SWEEP_MAX_MS);
		queue_delayed_work(swi_qp_wq, &qp->sweep_work,
				   msecs_to_jiffies(qp->sweep_ms));
	}
	mutex_unlock(&qp->state_lock);
}

static void swi_qp_sweep_arm(struct swi_qp *qp)
{
	lockdep_assert_held(&qp->state_lock);
	if (qp->sweep_off)
		return;
	qp->sweep_ms = SWI_SWEEP_FIRST_MS;
	mod_delayed_work(swi_qp_wq, &qp->sweep_work,
			 msecs_to_jiffies(qp->sweep_ms));
}

/*
 * The Terminate of RDMAP_QPA_SEND_TERM. A message the peer's FIN cut
 * short is an LLP error, RFC 5044 section 8 code 1, reported with no DDP
 * header (RFC 5040 section 4.8, Figure 10); anything else the receiver or
 * transmitter did not describe already is a catastrophic error. A no-op
 * when the receiver queued its own.
 */
static void swi_qp_queue_term(struct swi_qp *qp, bool cut)
{
	static const struct rdmap_term_cause unspecified = {
		.layer = TERM_LAYER_RDMAP,
		.etype = TERM_ETYPE_RDMAP_CATASTROPHIC,
		.code = TERM_RDMAP_UNSPECIFIED,
	};
	static const struct rdmap_term_cause llp_lost = {
		.layer = TERM_LAYER_LLP,
		.etype = TERM_ETYPE_LLP,
		.code = MPA_ERR_TCP_LOST,
	};

	if (cut)
		net_info_ratelimited("softiwarp: QP %u: peer closed inside a message: sending Terminate\n",
				     qp->base.qp_num);
	swi_eng_tx_queue_term(qp->stream, cut ? &llp_lost : &unspecified, NULL,
			      true);
}

/* Carry out the actions of a transition; the state is already set */
static void swi_qp_do_actions(struct swi_qp *qp, u32 act, bool cut)
{
	struct eng_stream *s = qp->stream;

	lockdep_assert_held(&qp->state_lock);
	if ((act & RDMAP_QPA_START) && s)
		swi_eng_stream_start(s);
	if ((act & RDMAP_QPA_SEND_TERM) && s)
		swi_qp_queue_term(qp, cut);
	if (act & RDMAP_QPA_ABORT_LLP && s)
		swi_eng_stream_stop(s, true);
	if (act & RDMAP_QPA_FLUSH_SQ) {
		if (s)
			swi_eng_stream_flush_tx(s);
		swi_qp_flush_sq_ring(qp);
	}
	if (act & RDMAP_QPA_FLUSH_RQ) {
		if (s)
			swi_eng_stream_flush_rx(s);
		swi_qp_flush_rq_ring(qp);
	}
	if (qp->user && qp->state == RDMAP_QPS_ERROR &&
	    !delayed_work_pending(&qp->sweep_work))
		swi_qp_sweep_arm(qp);
	if ((act & RDMAP_QPA_CLOSE_LLP) && s)
		swi_eng_stream_close(s);
	if (act & RDMAP_QPA_ARM_TIMER)
		mod_delayed_work(swi_qp_wq, &qp->close_work,
				 msecs_to_jiffies(READ_ONCE(close_timeout_ms)));
	swi_qp_do_events(qp, act);
}

/* A send work request is posted and not yet taken: a snapshot */
static bool swi_qp_sq_pending(struct swi_qp *qp)
{
	return swi_slot_busy(swi_sq_slot(qp, READ_ONCE(qp->sq.get)));
}

/*
 * Work is outstanding when the transmitter is inside a work request or a
 * Read awaits its Response (swi_eng_stream_busy()), and also while a posted
 * work request waits on the SQ: an orderly close would flush it unsent
 * while the peer sees a clean end of the stream. The peer's FIN in RTS
 * also asks whether it cut a message short (swi_eng_stream_cut_short()).
 */
static void swi_qp_ctx(struct swi_qp *qp, enum rdmap_qp_event event,
		       enum rdmap_qp_err err, struct rdmap_qp_ctx *ctx)
{
	ctx->busy = (qp->stream && swi_eng_stream_busy(qp->stream)) ||
		    swi_qp_sq_pending(qp);
	ctx->srq = !!qp->srq;
	ctx->err = err;
	ctx->cut = event == RDMAP_QPE_LLP_FIN &&
		   qp->state == RDMAP_QPS_RTS && !ctx->busy && qp->stream &&
		   swi_eng_stream_cut_short(qp->stream);
	ctx->fin_due = event == RDMAP_QPE_LOCAL_ERROR &&
		       qp->state == RDMAP_QPS_CLOSING && qp->stream &&
		       swi_eng_stream_fin_due(qp->stream);
}

static int swi_qp_event_locked(struct swi_qp *qp, enum rdmap_qp_event event,
			       enum rdmap_qp_err err)
{
	struct rdmap_qp_ctx ctx;
	int next, old;
	u32 act;

	lockdep_assert_held(&qp->state_lock);
	swi_qp_ctx(qp, event, err, &ctx);
	old = qp->state;
	next = swi_rdmap_qp_next(old, event, &ctx, &act);
	if (next >= 0) {
		trace_qp_state(qp->base.qp_num, old, next, event);
		WRITE_ONCE(qp->state, next);
		if (next != RDMAP_QPS_CLOSING && next != RDMAP_QPS_TERMINATE)
			cancel_delayed_work(&qp->close_work);
		swi_qp_do_actions(qp, act, ctx.cut);
		if (qp->conn && swi_cm_qp_changed(qp->conn, old, next))
			qp->conn = NULL;
	}
	/*
	 * A closed stream leaves the QP unusable: iw_cm expects it in ERR
	 * with its work flushed (the IB verbs have no IDLE after a close).
	 */
	if (next == RDMAP_QPS_IDLE && old == RDMAP_QPS_CLOSING) {
		next = swi_rdmap_qp_next(next, RDMAP_QPE_MOD_ERROR, &ctx, &act);
		trace_qp_state(qp->base.qp_num, RDMAP_QPS_IDLE, next,
			       RDMAP_QPE_MOD_ERROR);
		WRITE_ONCE(qp->state, next);
		swi_qp_do_actions(qp, act, false);
	}
	return next < 0 ? next : 0;
}

/**
 * swi_qp_event() - apply one event to the QP's state
 * @qp: the QP
 * @event: what happened
 * @err: the error class of an error event
 *
 * Context: process context; takes @qp->state_lock, may sleep.
 * Return: 0, or -EINVAL when the move is not allowed (nothing changed).
 */
int swi_qp_event(struct swi_qp *qp, enum rdmap_qp_event event,
		 enum rdmap_qp_err err)
{
	int ret;

	mutex_lock(&qp->state_lock);
	ret = swi_qp_event_locked(qp, event, err);
	mutex_unlock(&qp->state_lock);
	return ret;
}

/**
 * swi_qp_err_work() - apply the events raised by the data path
 * @work: &swi_qp.err_work
 *
 * Context: process context (workqueue).
 * Return: nothing.
 */
void swi_qp_err_work(struct work_struct *work)
{
	struct swi_qp *qp = container_of(work, struct swi_qp, err_work);
	unsigned long pending = atomic_xchg(&qp->err_event, 0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(swi_qp_raise_order); i++)
		if (pending & BIT(swi_qp_raise_order[i]))
			swi_qp_event(qp, swi_qp_raise_order[i],
				     READ_ONCE(qp->err_class));
	swi_qp_put(&qp->base);
}

/* The teardown timer expired: CLOSING or TERMINATE took too long */
static void swi_qp_close_timeout(struct work_struct *work)
{
	struct swi_qp *qp = container_of(to_delayed_work(work), struct swi_qp,
					 close_work);

	swi_qp_event(qp, RDMAP_QPE_TIMEOUT, RDMAP_QP_ERR_FATAL);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * swi_qp_set_close_timeout_ms() - set the teardown timeout (KUnit only)
 * @ms: the new value of the close_timeout_ms module parameter
 *
 * Context: any context.
 * Return: the previous value.
 */
unsigned int swi_qp_set_close_timeout_ms(unsigned int ms)
{
	return xchg(&close_timeout_ms, ms);
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_set_close_timeout_ms);
#endif

/**
 * swi_qp_raise() - report an event from the data path
 * @qp: the QP
 * @event: the event (one of those swi_qp_err_work() knows)
 * @err: its error class; the first error raised wins
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_raise(struct swi_qp *qp, enum rdmap_qp_event event,
		  enum rdmap_qp_err err)
{
	if (event == RDMAP_QPE_LOCAL_ERROR || event == RDMAP_QPE_TERM_RCVD)
		cmpxchg(&qp->err_class, RDMAP_QP_ERR_FATAL, err);
	atomic_or(BIT(event), &qp->err_event);
	swi_qp_get(&qp->base);
	if (!queue_work(swi_qp_wq, &qp->err_work))
		swi_qp_put(&qp->base);
}

/**
 * swi_qp_init() - create the workqueue of the QPs' error work
 *
 * The work is flushed when a QP is destroyed, which iw_cm does from its
 * own WQ_MEM_RECLAIM workqueue (a ULP's disconnect handler) and storage
 * ULPs do under memory reclaim: the queue must be WQ_MEM_RECLAIM as well.
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int swi_qp_init(void)
{
	swi_qp_wq = alloc_workqueue("softiwarp_qp", WQ_UNBOUND | WQ_MEM_RECLAIM,
				    0);
	return swi_qp_wq ? 0 : -ENOMEM;
}

/**
 * swi_qp_exit() - destroy the workqueue of swi_qp_init()
 *
 * Context: module exit, after every device is gone.
 * Return: nothing.
 */
void swi_qp_exit(void)
{
	destroy_workqueue(swi_qp_wq);
}

/**
 * swi_qp_set_rd_limits() - the IRD and ORD a connection negotiated
 * @qp: the QP, before its stream is created (swi_qp_stream_new())
 * @ird: inbound RDMA Read Requests the QP takes at once
 * @ord: outbound RDMA Read Requests it may have outstanding
 *
 * Both are capped at the device maximum, and 0 stays 0: an ORD of 0 lets
 * no RDMA Read out, an IRD of 0 takes none in (RFC 5040 section 6.1, RFC
 * 6581 section 9.1). They size the stream's read queues when it is
 * attached, and are left alone once a stream is.
 *
 * Context: process context; takes @qp's state_lock.
 * Return: nothing.
 */
void swi_qp_set_rd_limits(struct swi_qp *qp, u32 ird, u32 ord)
{
	mutex_lock(&qp->state_lock);
	/* a stream sized its read queues by them: fixed from then on */
	if (!qp->stream) {
		qp->ird = min_t(u32, ird, SWI_MAX_IRD);
		qp->ord = min_t(u32, ord, SWI_MAX_ORD);
	}
	mutex_unlock(&qp->state_lock);
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_set_rd_limits);

/**
 * swi_setup_term_fpdu() - the Terminate of an initiator's failed setup
 * @tx: the transmit framing MPA negotiated
 * @rdmac: DDP and RDMAP version 0 (a revision 0 peer)
 * @code: the MPA error code, layer LLP and error type MPA
 * @buf: where to build it
 * @size: room in @buf, ENG_SETUP_TERM_MAX suffices
 *
 * The connection manager's way to the engine's swi_eng_setup_term_fpdu(),
 * for a connection that never reached a QP (RFC 6581 section 8).
 *
 * Context: process context.
 * Return: the FPDU's length, or a negative errno.
 */
int swi_setup_term_fpdu(const struct mpa_fo_cfg *tx, bool rdmac, u8 code,
			u8 *buf, size_t size)
{
	return swi_eng_setup_term_fpdu(tx, rdmac, code, buf, size);
}

/**
 * swi_qp_stream_new() - allocate the stream a QP will run on
 * @qp: the QP
 * @sock: the connected TCP socket, still the caller's
 * @cfg: what MPA negotiated; its IRD and ORD size the stream's read
 *	queues (when 0, the QP's, swi_qp_set_rd_limits())
 *
 * Everything a connection needs is allocated here, before the connection
 * manager commits to the peer (a responder sends its Reply after this),
 * so that running out of memory can still refuse the connection.
 *
 * Context: process context, sleeps.
 * Return: the stream for swi_qp_attach_stream() or swi_qp_stream_drop(),
 * or ERR_PTR(-ENOMEM) or ERR_PTR(-EINVAL) (bad @cfg).
 */
struct eng_stream *swi_qp_stream_new(struct swi_qp *qp, struct socket *sock,
				     const struct eng_stream_cfg *cfg)
{
	struct eng_qp_link link = {
		.qp = qp,
		.pd = qp->base.pd,
		.mem = &qp->dev->mem,
		.state = &qp->state,
		.state_lock = &qp->state_lock,
		.qp_num = qp->base.qp_num,
		.ird = READ_ONCE(qp->ird),
		.ord = READ_ONCE(qp->ord),
		.ext = qp->ext,
	};

	return swi_eng_stream_create(&link, sock, cfg);
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_stream_new);

/**
 * swi_qp_stream_drop() - free a stream that was never attached
 * @s: from swi_qp_stream_new()
 *
 * Context: process context.
 * Return: nothing; the socket is the caller's again.
 */
void swi_qp_stream_drop(struct eng_stream *s)
{
	swi_eng_stream_abandon(s);
}

/**
 * swi_qp_attach() - hand a stream in MPA Full Operation to an IDLE QP
 * @qp: the QP
 * @sock: the connected TCP socket; owned by the QP from now on if this
 *	succeeds
 * @cfg: what MPA negotiated
 * @conn: the connection endpoint (cm/), told of the QP's close; or NULL
 *
 * swi_qp_stream_new() and swi_qp_attach_stream() in one: the QP goes to
 * RTS and the data path starts.
 *
 * Context: process context, sleeps.
 * Return: 0, -EINVAL when the QP is not IDLE, -ENOMEM.
 */
int swi_qp_attach(struct swi_qp *qp, struct socket *sock,
		  const struct eng_stream_cfg *cfg, struct swi_cep *conn)
{
	struct eng_stream *s = swi_qp_stream_new(qp, sock, cfg);

	if (IS_ERR(s))
		return PTR_ERR(s);
	return swi_qp_attach_stream(qp, s, conn);
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_attach);

/**
 * swi_qp_attach_stream() - start an IDLE QP on its stream
 * @qp: the QP
 * @s: from swi_qp_stream_new() for @qp; owned by the QP (with its socket)
 *	from now on if this succeeds, dropped (the socket the caller's
 *	again) if not
 * @conn: the connection endpoint (cm/), told of the QP's close; or NULL
 *
 * The QP goes to RTS and the data path starts.
 *
 * Context: process context, sleeps.
 * Return: 0, or -EINVAL when the QP is not IDLE.
 */
int swi_qp_attach_stream(struct swi_qp *qp, struct eng_stream *s,
			 struct swi_cep *conn)
{
	int err;

	/* checked and attached in one section: no state change between */
	mutex_lock(&qp->state_lock);
	err = -EINVAL;
	if (qp->state == RDMAP_QPS_IDLE && !qp->stream) {
		qp->stream = s;
		qp->conn = conn;
		/* what the stream's read queues hold, fixed from now on */
		swi_eng_stream_rd_limits(s, &qp->ird, &qp->ord);
		err = swi_qp_event_locked(qp, RDMAP_QPE_LLP_UP,
					  RDMAP_QP_ERR_FATAL);
		if (err) {
			qp->stream = NULL;
			qp->conn = NULL;
		}
	}
	mutex_unlock(&qp->state_lock);
	if (err)
		swi_eng_stream_abandon(s);	/* the socket is still the caller's */
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_attach_stream);

/**
 * swi_modify_qp() - change QP attributes and state
 * @ibqp: the QP
 * @attr: the attributes
 * @mask: which of them (IB_QP_*)
 * @udata: user data (unused)
 *
 * Context: process context, sleeps.
 * Return: 0, -EINVAL for a state change swi_rdmap_qp_next() refuses,
 * -EOPNOTSUPP for attributes an iWARP QP does not have.
 */
int swi_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct swi_qp *qp = to_swi_qp(ibqp);
	int target;

	if (mask & ~(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS |
		     IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC |
		     IB_QP_PKEY_INDEX | IB_QP_PORT))
		return -EOPNOTSUPP;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC &&
	     attr->max_rd_atomic > SWI_MAX_ORD) ||
	    (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	     attr->max_dest_rd_atomic > SWI_MAX_IRD))
		return -EINVAL;
	mutex_lock(&qp->state_lock);
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC && !qp->stream)
		qp->ord = max_t(u32, attr->max_rd_atomic, 1);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC && !qp->stream)
		qp->ird = max_t(u32, attr->max_dest_rd_atomic, 1);
	mutex_unlock(&qp->state_lock);
	if (!(mask & IB_QP_STATE))
		return 0;
	target = swi_rdmap_qps_from_ib(attr->qp_state);
	if (target < 0)
		return target;
	return swi_qp_event(qp, rdmap_qp_modify_event(target),
			    RDMAP_QP_ERR_FATAL);
}

/**
 * swi_query_qp() - report QP attributes
 * @ibqp: the QP
 * @attr: filled in
 * @mask: what is asked for (all is reported)
 * @init: filled in with the creation attributes
 *
 * Context: process context.
 * Return: 0.
 */
int swi_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct swi_qp *qp = to_swi_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = swi_rdmap_qps_to_ib(READ_ONCE(qp->state));
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->path_mtu = IB_MTU_4096;
	attr->port_num = 1;
	attr->cap.max_send_wr = qp->sq.num;
	attr->cap.max_recv_wr = qp->rq.num;
	attr->cap.max_send_sge = qp->send_sge;
	attr->cap.max_recv_sge = qp->recv_sge;
	attr->cap.max_inline_data = SWI_MAX_INLINE;
	init->cap = attr->cap;
	init->qp_type = IB_QPT_RC;
	init->send_cq = &qp->scq->base;
	init->recv_cq = &qp->rcq->base;
	init->srq = qp->srq ? &qp->srq->base : NULL;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/**
 * swi_destroy_qp() - destroy a QP
 * @ibqp: the QP
 * @udata: user data (unused)
 *
 * Moves the QP to ERROR (flushing its work), tears the stream down and
 * waits until no reference is left (iw_cm's, the work items'). A stream
 * asked to close in order (rdma_disconnect(): SQD, or the peer's FIN) is
 * shut down with a FIN, as the close under way would have ended, not
 * reset: a consumer that destroys its QP right after rdma_disconnect()
 * (cmtime does) must not turn the orderly close into an abort. One in
 * RTS was reset by the move to ERROR already.
 *
 * Context: process context, sleeps.
 * Return: 0.
 */
int swi_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct swi_qp *qp = to_swi_qp(ibqp);
	struct swi_device *dev = qp->dev;
	struct eng_stream *s;

	swi_qp_event(qp, RDMAP_QPE_MOD_ERROR, RDMAP_QP_ERR_FATAL);
	mutex_lock(&qp->state_lock);
	/* the rings go below: no sweep may be armed from here on */
	qp->sweep_off = true;
	if (qp->stream)
		swi_eng_stream_stop(qp->stream,
				    !swi_eng_stream_closing(qp->stream));
	mutex_unlock(&qp->state_lock);
	flush_work(&qp->err_work);
	/* ERROR arms no timer: once cancelled it stays so */
	cancel_delayed_work_sync(&qp->close_work);
	cancel_delayed_work_sync(&qp->sweep_work);
	xa_erase(&dev->qp_xa, ibqp->qp_num);
	swi_qp_put(ibqp);
	wait_for_completion(&qp->freed);
	/* rdma resource (6.1 lets it run during destroy) reads it locked */
	mutex_lock(&qp->state_lock);
	s = qp->stream;
	qp->stream = NULL;
	mutex_unlock(&qp->state_lock);
	if (s)
		swi_eng_stream_free(s);
	mutex_lock(&qp->state_lock);	/* as the stream: restrack reads them */
	swi_ring_free(&qp->rq);
	swi_ring_free(&qp->sq);
	kvfree(qp->sq_ext);
	qp->sq_ext = NULL;
	mutex_unlock(&qp->state_lock);
	put_pid(qp->owner);
	atomic_dec(&dev->num_qp);
	return 0;
}

/* The send flags a kernel work request may carry */
#define SWI_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED | \
			 IB_SEND_INLINE)

/*
 * A Read with Invalidate invalidates its Data Sink STag, as iWARP RNICs do.
 * ex.invalidate_rkey must name the same MR; its key octet is not compared:
 * rdma_rw (core/rw.c) sets it before it moves the MR to a new key.
 */
static bool swi_read_inv_ok(const struct ib_send_wr *wr)
{
	return wr->num_sge == 1 &&
	       rdmap_stag_index(wr->ex.invalidate_rkey) ==
	       rdmap_stag_index(wr->sg_list[0].lkey);
}

/*
 * An atomic (RFC 7306 section 5.1) as the kernel verbs post it: its
 * operands beside the SQE, in the form the Atomic Request carries them.
 * The unmasked CmpSwap compares and swaps all 64 bits; the unmasked
 * FetchAdd is one 64-bit addition (Add Mask 0); the masked ones take
 * ib_atomic_wr's masks as they are. Its one SGE takes the original
 * value; the engine checks that it is 8 octets.
 */
static int swi_sqe_atomic(const struct swi_qp *qp, const struct ib_send_wr *wr,
			  struct siw_sqe *sqe, struct eng_sqe_ext *ext)
{
	const struct ib_atomic_wr *a = atomic_wr(wr);
	bool masked = wr->opcode == IB_WR_MASKED_ATOMIC_FETCH_AND_ADD ||
		      wr->opcode == IB_WR_MASKED_ATOMIC_CMP_AND_SWP;

	if (!qp->ext)
		return -EOPNOTSUPP;
	if (wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    wr->opcode == IB_WR_MASKED_ATOMIC_FETCH_AND_ADD) {
		sqe->opcode = SIW_OP_FETCH_AND_ADD;
		ext->data = a->compare_add;
		ext->data_mask = masked ? a->compare_add_mask : 0;
		/* unused: zero and all ones on transmit (section 5.2.1) */
		ext->compare_mask = U64_MAX;
	} else {
		sqe->opcode = SIW_OP_COMP_AND_SWAP;
		ext->data = a->swap;
		ext->data_mask = masked ? a->swap_mask : U64_MAX;
		ext->compare = a->compare_add;
		ext->compare_mask = masked ? a->compare_add_mask : U64_MAX;
	}
	if (masked)
		sqe->flags |= ENG_WQE_MASKED;
	sqe->raddr = a->remote_addr;
	sqe->rkey = a->rkey;
	return 0;
}

static int swi_sqe_opcode(const struct swi_qp *qp, const struct ib_send_wr *wr,
			  struct siw_sqe *sqe, struct eng_sqe_ext *ext)
{
	switch (wr->opcode) {
	case IB_WR_SEND:
		sqe->opcode = SIW_OP_SEND;
		return 0;
	case IB_WR_SEND_WITH_INV:
		sqe->opcode = SIW_OP_SEND_REMOTE_INV;
		sqe->rkey = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_RDMA_WRITE:
		sqe->opcode = SIW_OP_WRITE;
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/* the Write, then Immediate Data (RFC 7306 section 6) */
		if (!qp->ext)
			return -EOPNOTSUPP;
		sqe->opcode = SIW_OP_WRITE;
		sqe->flags |= ENG_WQE_IMM;
		ext->imm = wr->ex.imm_data;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		if (wr->num_sge > SWI_MAX_SGE_RD)
			return -EINVAL;
		sqe->opcode = SIW_OP_READ;
		if (wr->opcode == IB_WR_RDMA_READ_WITH_INV) {
			if (!swi_read_inv_ok(wr))
				return -EINVAL;
			sqe->opcode = SIW_OP_READ_LOCAL_INV;
		}
		break;
	case IB_WR_LOCAL_INV:
		sqe->opcode = SIW_OP_INVAL_STAG;
		sqe->rkey = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_REG_MR:
		sqe->opcode = SIW_OP_REG_MR;
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
		return swi_sqe_atomic(qp, wr, sqe, ext);
	default:
		/* RFC 7306 has no Send with Immediate (rfc7306.rst) */
		return -EOPNOTSUPP;
	}
	sqe->raddr = rdma_wr(wr)->remote_addr;
	sqe->rkey = rdma_wr(wr)->rkey;
	return 0;
}

/* Copy the gather list of @wr into @sqe as inline data */
static int swi_sqe_inline(const struct ib_send_wr *wr, struct siw_sqe *sqe)
{
	u8 *dst = (u8 *)&sqe->sge[1];
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 n = wr->sg_list[i].length;

		if (n > SWI_MAX_INLINE - len)
			return -EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		len += n;
	}
	sqe->sge[0].length = len;
	sqe->num_sge = 1;
	sqe->flags |= SIW_WQE_INLINE;
	return 0;
}

static int swi_sqe_from_wr(struct swi_qp *qp, const struct ib_send_wr *wr,
			   struct siw_sqe *sqe, struct eng_sqe_ext *ext)
{
	int err;

	memset(sqe, 0, sizeof(*sqe));
	memset(ext, 0, sizeof(*ext));
	sqe->id = wr->wr_id;
	err = swi_sqe_opcode(qp, wr, sqe, ext);
	if (!err && wr->send_flags & ~SWI_SEND_FLAGS)
		err = -EINVAL;
	if (err)
		return err;
	if (wr->send_flags & IB_SEND_SIGNALED)
		sqe->flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		sqe->flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		sqe->flags |= SIW_WQE_READ_FENCE;
	if (sqe->opcode == SIW_OP_REG_MR || sqe->opcode == SIW_OP_INVAL_STAG)
		return 0;
	if (wr->num_sge > qp->send_sge)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE &&
	    !eng_op_is_rd_atomic(sqe->opcode))
		return swi_sqe_inline(wr, sqe);
	memcpy(sqe->sge, wr->sg_list, wr->num_sge * sizeof(sqe->sge[0]));
	sqe->num_sge = wr->num_sge;
	return 0;
}

static int swi_post_send_one(struct swi_qp *qp, const struct ib_send_wr *wr)
{
	struct siw_sqe sqe, *slot;
	struct eng_sqe_ext ext;
	unsigned long flags;
	int err = swi_sqe_from_wr(qp, wr, &sqe, &ext);

	if (err) {
		ibdev_warn_ratelimited(&qp->dev->ibdev,
				       "QP %u: work request opcode %d flags 0x%x num_sge %d refused (%d)\n",
				       qp->base.qp_num, wr->opcode,
				       wr->send_flags, wr->num_sge, err);
		return err;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	slot = swi_sq_slot(qp, qp->sq.put);
	if (swi_slot_busy(slot)) {
		err = -ENOMEM;
	} else {
		memcpy(slot, &sqe, sizeof(sqe));
		/* a QP without them posts no work request that needs them */
		if (qp->sq_ext)
			qp->sq_ext[qp->sq.put & (qp->sq.num - 1)] = ext;
		swi_slot_fill(slot, sqe.flags);
		qp->sq.put++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return err;
}

/**
 * swi_post_send() - post send work requests, or ring libsiw's doorbell
 * @ibqp: the QP
 * @wr: the work requests (kernel QPs); ignored for user QPs
 * @bad_wr: set to the first one not posted
 *
 * In IDLE a kernel QP refuses them (-ENOTCONN). In RTS they go to the
 * transmitter; in any other state (CLOSING, TERMINATE, ERROR) they are
 * posted and flushed at once (ib_drain_sq() relies on that in ERROR). A
 * user QP's doorbell runs the transmitter in the caller's context; a
 * kernel QP's, which may be posted from any context, is run by a work
 * item.
 *
 * Context: any context for kernel QPs; process context for user QPs.
 * Return: 0, or -EINVAL, -ENOMEM (SQ full), -ENOTCONN (no stream yet)
 * with @bad_wr set.
 */
int swi_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct swi_qp *qp = to_swi_qp(ibqp);
	enum rdmap_qps state = READ_ONCE(qp->state);
	int err = 0;

	if (qp->user) {
		if (state == RDMAP_QPS_RTS && qp->stream)
			swi_eng_tx_kick(qp->stream, true);
		else if (state == RDMAP_QPS_ERROR)
			swi_qp_flush_sq_ring(qp);
		return 0;
	}
	if (state == RDMAP_QPS_IDLE) {
		*bad_wr = wr;
		return -ENOTCONN;
	}
	for (; wr; wr = wr->next) {
		err = swi_post_send_one(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (READ_ONCE(qp->state) == RDMAP_QPS_RTS && qp->stream)
		swi_eng_tx_kick(qp->stream, false);
	else if (READ_ONCE(qp->state) != RDMAP_QPS_IDLE)
		swi_qp_flush_sq_ring(qp);
	return err;
}

static int swi_post_recv_one(struct swi_qp *qp, const struct ib_recv_wr *wr)
{
	struct siw_rqe *slot;
	unsigned long flags;
	int err = 0;

	if (wr->num_sge > qp->recv_sge)
		return -EINVAL;
	spin_lock_irqsave(&qp->rq_lock, flags);
	slot = swi_rq_slot(qp, qp->rq.put);
	if (swi_slot_busy(slot)) {
		err = -ENOMEM;
	} else {
		slot->id = wr->wr_id;
		slot->num_sge = wr->num_sge;
		slot->opcode = SIW_OP_RECEIVE;
		memcpy(slot->sge, wr->sg_list,
		       wr->num_sge * sizeof(slot->sge[0]));
		swi_slot_fill(slot, 0);
		qp->rq.put++;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return err;
}

/**
 * swi_post_recv() - post receive work requests (kernel QPs)
 * @ibqp: the QP
 * @wr: the work requests
 * @bad_wr: set to the first one not posted
 *
 * In ERROR, work requests are posted and flushed at once.
 *
 * Context: any context.
 * Return: 0, or -EINVAL (user QP, SRQ attached, too many SGEs), -ENOMEM
 * (RQ full) with @bad_wr set.
 */
int swi_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct swi_qp *qp = to_swi_qp(ibqp);
	int err = 0;

	if (qp->user || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		err = swi_post_recv_one(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (READ_ONCE(qp->state) == RDMAP_QPS_ERROR)
		swi_qp_flush_rq_ring(qp);
	return err;
}

static void swi_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct swi_qp, ref)->freed);
}

/**
 * swi_qp_get() - take a QP reference
 * @ibqp: the QP
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_get(struct ib_qp *ibqp)
{
	kref_get(&to_swi_qp(ibqp)->ref);
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_get);

/**
 * swi_qp_put() - drop a QP reference (also iw_cm's iw_rem_ref)
 * @ibqp: the QP
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_put(struct ib_qp *ibqp)
{
	kref_put(&to_swi_qp(ibqp)->ref, swi_qp_release);
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_put);

/**
 * swi_qp_iw_add_ref() - iw_cm's iw_add_ref: the reference is there already
 * @ibqp: the QP swi_get_qp() just returned, referenced
 *
 * iw_cm calls it only right after iw_get_qp, whose reference it thereby
 * takes over (see swi_get_qp()); taking a second one here would leak it.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_iw_add_ref(struct ib_qp *ibqp)
{
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_iw_add_ref);

/* A user QP is named by the process that created it only */
static bool swi_qp_caller_owns(const struct swi_qp *qp)
{
	return !qp->user || qp->owner == task_tgid(current);
}

/**
 * swi_get_qp() - find a QP by number (iw_cm's iw_get_qp)
 * @ibdev: the device
 * @qpn: the QP number, from the consumer's connect or accept
 *
 * The QP comes with a reference, which iw_cm owns from here and drops
 * with iw_rem_ref: iw_cm calls iw_add_ref (swi_qp_iw_add_ref()) right
 * after a successful iw_get_qp, under the same lock, and nowhere else
 * (drivers/infiniband/core/iwcm.c, iw_cm_connect() and iw_cm_accept()).
 * Dropping ours here and letting iw_add_ref take another would leave a
 * window in which a concurrent destroy_qp frees the QP under iw_cm. A
 * user QP is found for the process that created it only: another process
 * must not connect or accept with it; which kind of cm id may take the QP
 * is decided by swi_cm_connect() and swi_cm_accept().
 *
 * Context: any context (iw_cm holds a spinlock with interrupts off).
 * Return: the QP, referenced, or NULL.
 */
struct ib_qp *swi_get_qp(struct ib_device *ibdev, int qpn)
{
	struct swi_qp *qp = swi_qp_find(to_swi_dev(ibdev), qpn);

	return qp ? &qp->base : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(swi_get_qp);

/**
 * swi_qp_find() - find a QP by number, referenced, for its owner
 * @dev: the device
 * @qpn: the QP number the consumer gave
 *
 * Context: process context of the consumer's connect or accept (a user
 * QP's owner is compared with the calling process).
 * Return: the QP with a reference (swi_qp_put()), or NULL when no QP has
 * the number, it is being destroyed, or it is another process's user QP.
 */
struct swi_qp *swi_qp_find(struct swi_device *dev, u32 qpn)
{
	struct swi_qp *qp;

	xa_lock(&dev->qp_xa);
	qp = xa_load(&dev->qp_xa, qpn);
	if (qp && (!swi_qp_caller_owns(qp) || !kref_get_unless_zero(&qp->ref)))
		qp = NULL;
	xa_unlock(&dev->qp_xa);
	return qp;
}
EXPORT_SYMBOL_IF_KUNIT(swi_qp_find);

/**
 * swi_qp_walk_conns() - visit every QP of a device that has a connection
 * @dev: the device
 * @fn: called with the QP, its connection endpoint and @arg, under the
 *	QP's state_lock and with a reference held
 * @arg: passed to @fn
 *
 * A QP created or destroyed during the walk may or may not be visited.
 *
 * Context: process context; takes each QP's state_lock.
 * Return: nothing.
 */
void swi_qp_walk_conns(struct swi_device *dev, swi_qp_conn_fn fn, void *arg)
{
	struct swi_qp *qp;
	unsigned long i;
	bool got;

	xa_for_each(&dev->qp_xa, i, qp) {
		xa_lock(&dev->qp_xa);
		got = xa_load(&dev->qp_xa, i) == qp &&
		      kref_get_unless_zero(&qp->ref);
		xa_unlock(&dev->qp_xa);
		if (!got)
			continue;
		mutex_lock(&qp->state_lock);
		if (qp->conn)
			fn(qp, qp->conn, arg);
		mutex_unlock(&qp->state_lock);
		swi_qp_put(&qp->base);
	}
}
