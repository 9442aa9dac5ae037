// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: completion queues
 *
 * A CQ is the siw ABI's ring: a power of two of struct siw_cqe followed
 * by one struct siw_cq_ctrl, the notify word. A user CQ lives in
 * vmalloc_user() memory that libsiw maps; a kernel CQ in kernel memory
 * polled through swi_poll_cq().
 *
 * Ownership of an entry follows the slot protocol of dev/ring.h: the
 * kernel (swi_cq_push()) produces, libsiw or swi_poll_cq() (kernel CQs)
 * consumes. @ring.put is the kernel's producer index; @ring.get is used
 * for kernel CQs only, libsiw keeps its own.
 *
 * Notification: the notify word holds SIW_NOTIFY_* bits. libsiw arms a
 * user CQ by storing into it; swi_req_notify_cq() arms a kernel CQ the
 * same way. A push that finds the CQ armed for it (NEXT_COMPLETION, or
 * SOLICITED with a solicited completion) clears the word with cmpxchg and
 * calls the CQ's completion handler once, after dropping the lock.
 *
 * Locking: @lock (irqsave, any context) serialises the producers, the
 * kernel consumer and the kernel's changes of the notify word. The
 * completion and event handlers are called without it.
 *
 * Trust: in a user CQ, user space may write anything into the entries
 * and the notify word at any time. The kernel only ever reads the
 * SIW_WQE_VALID bit of an entry's flags (a slot wrongly marked valid just
 * makes the CQ overflow, which hurts that user only) and the notify bits
 * (any value is a valid arming state). It never polls a user CQ.
 */
#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dev/softiwarp.h"

/* Attempts to disarm against user space rewriting the notify word */
#define SWI_CQ_DISARM_TRIES	4

static atomic_t swi_cq_next_id = ATOMIC_INIT(0);

static const enum ib_wc_status swi_wc_status_map[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

/* Opcodes a CQE may carry; SIW_OP_READ_RESPONSE is internal and is not */
static const struct {
	bool valid;
	enum ib_wc_opcode ib;
} swi_wc_opcode_map[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = { true, IB_WC_RDMA_WRITE },
	[SIW_OP_READ] = { true, IB_WC_RDMA_READ },
	[SIW_OP_READ_LOCAL_INV] = { true, IB_WC_RDMA_READ },
	[SIW_OP_SEND] = { true, IB_WC_SEND },
	[SIW_OP_SEND_WITH_IMM] = { true, IB_WC_SEND },
	[SIW_OP_SEND_REMOTE_INV] = { true, IB_WC_SEND },
	[SIW_OP_FETCH_AND_ADD] = { true, IB_WC_FETCH_ADD },
	[SIW_OP_COMP_AND_SWAP] = { true, IB_WC_COMP_SWAP },
	[SIW_OP_RECEIVE] = { true, IB_WC_RECV },
	[SIW_OP_INVAL_STAG] = { true, IB_WC_LOCAL_INV },
	[SIW_OP_REG_MR] = { true, IB_WC_REG_MR },
};

static struct siw_cqe *swi_cq_slot(struct swi_cq *cq, u32 index)
{
	return swi_ring_slot(&cq->ring, index);
}

/**
 * swi_cq_init_ring() - allocate and set up the ring of a CQ
 * @cq: the CQ; its ring, indexes and lock are (re)initialised
 * @num: number of entries, a power of two
 * @user: allocate for user space mapping (vmalloc_user()), else for the
 *	kernel
 *
 * The entries and the notify word start zeroed: empty and disarmed.
 * swi_create_cq() uses it; KUnit tests use it on a bare struct swi_cq.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL if @num is not a power of two, or -ENOMEM.
 */
int swi_cq_init_ring(struct swi_cq *cq, u32 num, bool user)
{
	int err;

	if (!num)
		return -EINVAL;
	err = swi_ring_alloc(&cq->ring, num, sizeof(struct siw_cqe),
			     sizeof(struct siw_cq_ctrl), user);
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	cq->ctrl = cq->ring.queue + array_size(num, sizeof(struct siw_cqe));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cq_init_ring);

/**
 * swi_cq_free_ring() - release the ring set up by swi_cq_init_ring()
 * @cq: the CQ; nothing may push to it any more
 *
 * A ring published for user space mapping is withdrawn, and the mapping
 * machinery frees it once the last mapping is gone; any other ring is
 * freed at once.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_cq_free_ring(struct swi_cq *cq)
{
	swi_ring_free(&cq->ring);
	cq->ctrl = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cq_free_ring);

static int swi_cq_publish(struct swi_cq *cq, struct ib_udata *udata)
{
	struct siw_uresp_create_cq uresp = {
		.cq_id = cq->id,
		.num_cqe = cq->ring.num,
	};
	int err;

	err = swi_ring_publish(&cq->ring, udata, &uresp.cq_key);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * swi_create_cq() - the create_cq verb
 * @ibcq: the CQ allocated by the IB core
 * @attr: requested size (1 to SWI_MAX_CQE entries) and flags (none)
 * @arg: the uverbs bundle (6.11+) or udata (6.1); its udata is NULL for a
 *	kernel CQ
 *
 * The ring gets the requested size rounded up to a power of two, which
 * becomes @ibcq->cqe. For a user CQ, libsiw gets struct
 * siw_uresp_create_cq: the CQ id, the ring size and the mmap key of the
 * ring (entries followed by the notify word).
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP for flags; -EINVAL for a bad size or a response
 * buffer too small; -ENOMEM when out of memory or past SWI_MAX_CQ CQs;
 * an error of the mmap publication or of the copy to user space.
 */
int swi_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  SWI_CREATE_CQ_ARG *arg)
{
	struct swi_device *dev = to_swi_dev(ibcq->device);
	struct ib_udata *udata = swi_cq_udata(arg);
	struct swi_cq *cq = to_swi_cq(ibcq);
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > SWI_MAX_CQE)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_cq))
		return -EINVAL;
	if (atomic_inc_return(&dev->num_cq) > SWI_MAX_CQ) {
		err = -ENOMEM;
		goto out_count;
	}
	err = swi_cq_init_ring(cq, roundup_pow_of_two(attr->cqe), udata);
	if (err)
		goto out_count;
	cq->id = atomic_inc_return(&swi_cq_next_id);
	ibcq->cqe = cq->ring.num;
	if (udata) {
		err = swi_cq_publish(cq, udata);
		if (err)
			goto out_ring;
	}
	return 0;

out_ring:
	swi_cq_free_ring(cq);
out_count:
	atomic_dec(&dev->num_cq);
	return err;
}

/**
 * swi_destroy_cq() - the destroy_cq verb
 * @ibcq: the CQ; the IB core guarantees no QP uses it any more, and QP
 *	destruction guarantees the data path no longer pushes to it
 * @udata: unused
 *
 * Withdraws the mmap key (an existing mapping stays valid until user
 * space unmaps it, and keeps the ring until then) or frees the ring.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int swi_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct swi_cq *cq = to_swi_cq(ibcq);

	swi_cq_free_ring(cq);
	atomic_dec(&to_swi_dev(ibcq->device)->num_cq);
	return 0;
}

/* Fill @wc from a kernel CQE; bad opcodes or statuses become errors */
static void swi_cqe_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	u8 opcode = cqe->opcode;
	u16 status = cqe->status;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	if (status < SIW_NUM_WC_STATUS)
		wc->status = swi_wc_status_map[status];
	else
		wc->status = IB_WC_GENERAL_ERR;
	if (opcode < SIW_NUM_OPCODES && swi_wc_opcode_map[opcode].valid)
		wc->opcode = swi_wc_opcode_map[opcode].ib;
	else
		wc->status = IB_WC_GENERAL_ERR;
	if (wc->status != IB_WC_SUCCESS)
		wc->vendor_err = status;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->inval_stag;
	}
	if ((cqe->flags & ENG_CQE_MASKED) && wc->opcode == IB_WC_FETCH_ADD)
		wc->opcode = IB_WC_MASKED_FETCH_ADD;
	if ((cqe->flags & ENG_CQE_MASKED) && wc->opcode == IB_WC_COMP_SWAP)
		wc->opcode = IB_WC_MASKED_COMP_SWAP;
	/* a receive Immediate Data completed (RFC 7306 section 6) */
	if ((cqe->flags & ENG_CQE_IMM) && wc->opcode == IB_WC_RECV) {
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)(u32)cqe->imm_data;
	}
}

/* Consume the entry at @get of a kernel CQ into @wc, if there is one */
static bool swi_cq_take_locked(struct swi_cq *cq, struct ib_wc *wc)
{
	struct siw_cqe *slot = swi_cq_slot(cq, cq->ring.get);

	lockdep_assert_held(&cq->lock);
	if (!swi_slot_busy(slot))
		return false;
	swi_cqe_to_wc(slot, wc);
	swi_slot_free(slot);
	cq->ring.get++;
	return true;
}

/**
 * swi_poll_cq() - the poll_cq verb, for kernel CQs
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: work completions, filled in CQ order
 *
 * Converts each consumed struct siw_cqe: wr_id, byte_len and qp
 * (cqe->base_qp) copied; status and opcode mapped, an unknown value of
 * either giving IB_WC_GENERAL_ERR; vendor_err is the siw status of an
 * unsuccessful completion; SIW_WQE_REM_INVAL in the CQE's flags gives
 * IB_WC_WITH_INVALIDATE with ex.invalidate_rkey from cqe->inval_stag;
 * ENG_CQE_IMM on a receive gives IB_WC_RECV_RDMA_WITH_IMM and
 * IB_WC_WITH_IMM with ex.imm_data from cqe->imm_data; ENG_CQE_MASKED on an
 * atomic its masked opcode.
 * User CQs are polled by libsiw in user space, never here.
 *
 * Context: any context; takes the CQ lock with interrupts saved.
 * Return: the number of completions stored (0 when empty), or
 * -EOPNOTSUPP for a user CQ.
 */
int swi_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct swi_cq *cq = to_swi_cq(ibcq);
	unsigned long flags;
	int n;

	if (cq->ring.user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++)
		if (!swi_cq_take_locked(cq, &wc[n]))
			break;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(swi_poll_cq);

/*
 * Completions not consumed yet: exact for a kernel CQ; for a user CQ,
 * which libsiw consumes in order, 1 while the newest entry is still
 * valid, else 0.
 */
static int swi_cq_pending_locked(struct swi_cq *cq)
{
	lockdep_assert_held(&cq->lock);
	if (!cq->ring.user)
		return cq->ring.put - cq->ring.get;
	return swi_slot_busy(swi_cq_slot(cq, cq->ring.put - 1)) ? 1 : 0;
}

/**
 * swi_req_notify_cq() - the req_notify_cq verb
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * Arms the notify word: SIW_NOTIFY_SOLICITED for IB_CQ_SOLICITED, that
 * and SIW_NOTIFY_NEXT_COMPLETION for IB_CQ_NEXT_COMP (as libsiw does).
 * The next matching swi_cq_push() calls the completion handler once.
 *
 * Context: any context; takes the CQ lock with interrupts saved.
 * Return: 0; with IB_CQ_REPORT_MISSED_EVENTS, a positive number if
 * completions are waiting to be polled; -EINVAL if @flags asks for
 * neither notification type.
 */
int swi_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct swi_cq *cq = to_swi_cq(ibcq);
	unsigned long irqflags;
	u32 arm;
	int pending = 0;

	switch (flags & IB_CQ_SOLICITED_MASK) {
	case IB_CQ_SOLICITED:
		arm = SIW_NOTIFY_SOLICITED;
		break;
	case IB_CQ_NEXT_COMP:
		arm = SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;
		break;
	default:
		return -EINVAL;
	}
	spin_lock_irqsave(&cq->lock, irqflags);
	WRITE_ONCE(cq->ctrl->flags, arm);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		pending = swi_cq_pending_locked(cq);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return pending;
}
EXPORT_SYMBOL_IF_KUNIT(swi_req_notify_cq);

/* Write @cqe into the slot at @put unless the consumer still owns it */
static int swi_cq_put_locked(struct swi_cq *cq, const struct siw_cqe *cqe)
{
	struct siw_cqe *slot = swi_cq_slot(cq, cq->ring.put);

	lockdep_assert_held(&cq->lock);
	if (swi_slot_busy(slot))
		return -ENOMEM;
	slot->id = cqe->id;
	slot->opcode = cqe->opcode;
	slot->status = cqe->status;
	slot->bytes = cqe->bytes;
	slot->imm_data = cqe->imm_data;
	slot->qp_id = cqe->qp_id;
	swi_slot_fill(slot, cqe->flags);
	cq->ring.put++;
	return 0;
}

static bool swi_cq_armed_for(u32 notify, bool solicited)
{
	return (notify & SIW_NOTIFY_NEXT_COMPLETION) ||
	       ((notify & SIW_NOTIFY_SOLICITED) && solicited);
}

/*
 * Disarm if armed for this completion. User space may store into the
 * word concurrently (re-arming); cmpxchg makes exactly one of a racing
 * arm and disarm win. A user space rewriting it without end only costs
 * its own notification.
 */
static bool swi_cq_disarm_locked(struct swi_cq *cq, bool solicited)
{
	u32 old = READ_ONCE(cq->ctrl->flags);
	int i;

	lockdep_assert_held(&cq->lock);
	for (i = 0; i < SWI_CQ_DISARM_TRIES; i++) {
		if (!swi_cq_armed_for(old, solicited))
			return false;
		if (try_cmpxchg(&cq->ctrl->flags, &old, SIW_NOTIFY_NOT))
			return true;
	}
	return false;
}

static void swi_cq_error_event(struct swi_cq *cq)
{
	struct ib_event ev = {
		.device = cq->base.device,
		.element.cq = &cq->base,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->base.event_handler)
		cq->base.event_handler(&ev, cq->base.cq_context);
}

/**
 * swi_cq_push() - add a completion to a CQ
 * @cq: the CQ
 * @cqe: the completion; its flags are copied and SIW_WQE_VALID added.
 *	For a kernel CQ, @cqe->base_qp must point to the QP; for a user CQ,
 *	@cqe->qp_id must be the QP number, never a kernel pointer.
 *	SIW_WQE_REM_INVAL in the flags marks a remote invalidation of
 *	@cqe->inval_stag.
 * @solicited: the completion is solicited (fires a SOLICITED arming)
 *
 * Writes the entry at the producer index if the consumer has freed that
 * slot, publishing SIW_WQE_VALID last with release semantics. If the CQ
 * is armed for this completion, disarms it and calls the completion
 * handler; if the CQ is full, raises IB_EVENT_CQ_ERR through the event
 * handler instead, once until a push succeeds again (a user filling its
 * ring must not queue an event per lost completion). Both handlers are
 * called after the lock is dropped.
 *
 * Context: any context (process, softirq, hardirq); takes the CQ lock
 * with interrupts saved. Must not be called with it held.
 * Return: 0, or -ENOMEM when the CQ is full (overflow).
 */
int swi_cq_push(struct swi_cq *cq, const struct siw_cqe *cqe,
		bool solicited)
{
	unsigned long flags;
	bool notify = false, first = false;
	int err;

	spin_lock_irqsave(&cq->lock, flags);
	err = swi_cq_put_locked(cq, cqe);
	if (!err)
		notify = swi_cq_disarm_locked(cq, solicited);
	first = err && !cq->overflowed;
	cq->overflowed = err;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (first)
		swi_cq_error_event(cq);
	else if (notify && cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cq_push);
