// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: shared receive queues
 *
 * An SRQ is the siw ABI's ring of struct siw_rqe, a power of two of
 * entries. libsiw maps a user SRQ (vmalloc_user() memory) and posts into
 * it itself; kernel consumers post through swi_post_srq_recv(). The data
 * path takes entries in order with swi_srq_get().
 *
 * Ownership of an entry follows the slot protocol of dev/ring.h (libsiw
 * sets SIW_WQE_VALID with an atomic store of its own); the consumer,
 * swi_srq_get(), copies the entry out and frees the slot. @rq.put is the
 * kernel's producer index (kernel SRQs only), @rq.get the consumer index.
 *
 * Limit: with a non-zero limit armed (at creation or with IB_SRQ_LIMIT),
 * the first swi_srq_get() that leaves fewer than limit entries posted
 * disarms it and raises IB_EVENT_SRQ_LIMIT_REACHED. Posted entries are
 * contiguous from @rq.get on, so "fewer than limit" is "the slot limit - 1
 * past @rq.get is not valid", which works for user SRQs too, whose
 * producer index only libsiw knows.
 *
 * Locking: @lock (irqsave, any context) serialises the kernel producer,
 * the consumer and the limit state. The event handler is called without
 * it.
 *
 * Trust: user space may write anything into a user SRQ at any time.
 * swi_srq_get() reads each field of an entry once into a private copy
 * and checks num_sge (at most SIW_MAX_SGE) before copying the SGEs; it
 * ignores the opcode and the flags other than SIW_WQE_VALID. The id is
 * opaque. The caller must still check every SGE (lkey, laddr, length)
 * against the STag table before placing data, as for any receive.
 */
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "dev/softiwarp.h"

static struct siw_rqe *swi_srq_slot(struct swi_srq *srq, u32 index)
{
	return swi_ring_slot(&srq->rq, index);
}

/**
 * swi_srq_init_ring() - allocate and set up the ring of an SRQ
 * @srq: the SRQ; its ring, indexes, limit and lock are (re)initialised
 * @num: number of entries, a power of two
 * @user: allocate for user space mapping (vmalloc_user()), else for the
 *	kernel
 *
 * The ring starts empty, the limit at 0 and disarmed.
 * swi_create_srq() uses it; KUnit tests use it on a bare struct swi_srq.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL if @num is not a power of two, or -ENOMEM.
 */
int swi_srq_init_ring(struct swi_srq *srq, u32 num, bool user)
{
	int err;

	if (!num)
		return -EINVAL;
	err = swi_ring_alloc(&srq->rq, num, sizeof(struct siw_rqe), 0, user);
	if (err)
		return err;
	spin_lock_init(&srq->lock);
	srq->limit = 0;
	srq->armed = false;
	srq->user = user;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_srq_init_ring);

/**
 * swi_srq_free_ring() - release the ring set up by swi_srq_init_ring()
 * @srq: the SRQ; nothing may use it any more
 *
 * A ring published for user space mapping is withdrawn, and the mapping
 * machinery frees it once the last mapping is gone; any other ring is
 * freed at once.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_srq_free_ring(struct swi_srq *srq)
{
	swi_ring_free(&srq->rq);
}
EXPORT_SYMBOL_IF_KUNIT(swi_srq_free_ring);

static int swi_srq_check_attr(const struct ib_srq_init_attr *attr)
{
	const struct ib_srq_attr *a = &attr->attr;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > SWI_MAX_SRQ_WR ||
	    a->max_sge > SWI_MAX_SGE || a->srq_limit > a->max_wr)
		return -EINVAL;
	return 0;
}

static int swi_srq_publish(struct swi_srq *srq, struct ib_udata *udata)
{
	struct siw_uresp_create_srq uresp = {
		.num_rqe = srq->rq.num,
	};
	int err;

	err = swi_ring_publish(&srq->rq, udata, &uresp.srq_key);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * swi_create_srq() - the create_srq verb
 * @ibsrq: the SRQ allocated by the IB core
 * @attr: IB_SRQT_BASIC with max_wr 1 to SWI_MAX_SRQ_WR, max_sge up to
 *	SWI_MAX_SGE and srq_limit up to max_wr (0: not armed); on success
 *	max_wr and max_sge are set to the actual values
 * @udata: NULL for a kernel SRQ
 *
 * The ring gets max_wr rounded up to a power of two. For a user SRQ,
 * libsiw gets struct siw_uresp_create_srq: the ring size and its mmap
 * key.
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP for another SRQ type; -EINVAL for bad
 * attributes or a response buffer too small; -ENOMEM when out of memory
 * or past SWI_MAX_SRQ SRQs; an error of the mmap publication or of the
 * copy to user space.
 */
int swi_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct swi_device *dev = to_swi_dev(ibsrq->device);
	struct swi_srq *srq = to_swi_srq(ibsrq);
	int err;

	err = swi_srq_check_attr(attr);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_srq))
		return -EINVAL;
	if (atomic_inc_return(&dev->num_srq) > SWI_MAX_SRQ) {
		err = -ENOMEM;
		goto out_count;
	}
	err = swi_srq_init_ring(srq, roundup_pow_of_two(attr->attr.max_wr),
				udata);
	if (err)
		goto out_count;
	srq->limit = attr->attr.srq_limit;
	srq->armed = srq->limit != 0;
	if (udata) {
		err = swi_srq_publish(srq, udata);
		if (err)
			goto out_ring;
	}
	attr->attr.max_wr = srq->rq.num;
	attr->attr.max_sge = SWI_MAX_SGE;
	return 0;

out_ring:
	swi_srq_free_ring(srq);
out_count:
	atomic_dec(&dev->num_srq);
	return err;
}

/**
 * swi_modify_srq() - the modify_srq verb
 * @ibsrq: the SRQ
 * @attr: the new srq_limit, at most the ring size; 0 disarms
 * @mask: IB_SRQ_LIMIT; resizing (IB_SRQ_MAX_WR) is not supported
 * @udata: unused
 *
 * Setting a non-zero limit arms IB_EVENT_SRQ_LIMIT_REACHED once.
 *
 * Context: any context; takes the SRQ lock with interrupts saved.
 * Return: 0, -EOPNOTSUPP for a resize or an unknown mask bit, -EINVAL
 * for a limit larger than the ring.
 */
int swi_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct swi_srq *srq = to_swi_srq(ibsrq);
	unsigned long flags;

	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->rq.num)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	srq->armed = srq->limit != 0;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_modify_srq);

/**
 * swi_query_srq() - the query_srq verb
 * @ibsrq: the SRQ
 * @attr: filled with the ring size, SWI_MAX_SGE and the current limit
 *
 * Context: any context; takes the SRQ lock with interrupts saved.
 * Return: 0.
 */
int swi_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct swi_srq *srq = to_swi_srq(ibsrq);
	unsigned long flags;

	attr->max_wr = srq->rq.num;
	attr->max_sge = SWI_MAX_SGE;
	spin_lock_irqsave(&srq->lock, flags);
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_query_srq);

/**
 * swi_destroy_srq() - the destroy_srq verb
 * @ibsrq: the SRQ; the IB core guarantees no QP uses it any more
 * @udata: unused
 *
 * Withdraws the mmap key (an existing mapping keeps the ring until user
 * space unmaps it) or frees the ring.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int swi_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct swi_srq *srq = to_swi_srq(ibsrq);

	swi_srq_free_ring(srq);
	atomic_dec(&to_swi_dev(ibsrq->device)->num_srq);
	return 0;
}

/* Copy one receive WR into the slot at @put, if that slot is free */
static int swi_srq_post_one_locked(struct swi_srq *srq,
				   const struct ib_recv_wr *wr)
{
	struct siw_rqe *rqe = swi_srq_slot(srq, srq->rq.put);
	int i;

	lockdep_assert_held(&srq->lock);
	if (wr->num_sge < 0 || wr->num_sge > SWI_MAX_SGE)
		return -EINVAL;
	if (swi_slot_busy(rqe))
		return -ENOMEM;
	rqe->id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	rqe->opcode = SIW_OP_RECEIVE;
	for (i = 0; i < wr->num_sge; i++) {
		rqe->sge[i].laddr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	swi_slot_fill(rqe, 0);
	srq->rq.put++;
	return 0;
}

/**
 * swi_post_srq_recv() - the post_srq_recv verb, for kernel SRQs
 * @ibsrq: the SRQ
 * @wr: a chain of receive WRs, each with at most SWI_MAX_SGE SGEs
 * @bad_wr: on error, the first WR not posted
 *
 * Posts the WRs in order; those before *@bad_wr are posted. libsiw posts
 * to a user SRQ in user space, never here.
 *
 * Context: any context; takes the SRQ lock with interrupts saved.
 * Return: 0; -EINVAL for a WR with too many SGEs; -ENOMEM when the ring
 * is full; -EOPNOTSUPP for a user SRQ.
 */
int swi_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct swi_srq *srq = to_swi_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = swi_srq_post_one_locked(srq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_post_srq_recv);

/*
 * Copy the entry at @get into @rqe, reading each field of the (maybe
 * user-written) slot once, and hand the slot back.
 */
static int swi_srq_take_locked(struct swi_srq *srq, struct siw_rqe *rqe)
{
	struct siw_rqe *slot = swi_srq_slot(srq, srq->rq.get);
	u8 num_sge;
	int err = 0;

	lockdep_assert_held(&srq->lock);
	if (!swi_slot_busy(slot))
		return -ENOENT;
	memset(rqe, 0, sizeof(*rqe));
	rqe->id = READ_ONCE(slot->id);
	rqe->flags = SIW_WQE_VALID;
	rqe->opcode = SIW_OP_RECEIVE;
	num_sge = READ_ONCE(slot->num_sge);
	if (num_sge <= SWI_MAX_SGE) {
		rqe->num_sge = num_sge;
		memcpy(rqe->sge, slot->sge, num_sge * sizeof(rqe->sge[0]));
	} else {
		err = -EINVAL;
	}
	swi_slot_free(slot);
	srq->rq.get++;
	return err;
}

/* Disarm the limit if fewer than limit entries are left posted */
static bool swi_srq_limit_reached_locked(struct swi_srq *srq)
{
	struct siw_rqe *probe;

	lockdep_assert_held(&srq->lock);
	if (!srq->armed || !srq->limit)
		return false;
	probe = swi_srq_slot(srq, srq->rq.get + srq->limit - 1);
	if (swi_slot_busy(probe))
		return false;
	srq->armed = false;
	return true;
}

static void swi_srq_limit_event(struct swi_srq *srq)
{
	struct ib_event ev = {
		.device = srq->base.device,
		.element.srq = &srq->base,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->base.event_handler)
		srq->base.event_handler(&ev, srq->base.srq_context);
}

/**
 * swi_srq_get() - take the next receive WQE of an SRQ
 * @srq: the SRQ
 * @rqe: where the entry is copied; opcode SIW_OP_RECEIVE, flags
 *	SIW_WQE_VALID, unused SGEs zeroed
 *
 * Takes the oldest posted entry and frees its slot. Of a user-written
 * entry only num_sge is checked here; the caller must check each SGE
 * (lkey, laddr, length) against the STag table before use. Raises
 * IB_EVENT_SRQ_LIMIT_REACHED (once per arming) when fewer than the limit
 * entries are left, after dropping the lock.
 *
 * Context: any context; takes the SRQ lock with interrupts saved.
 * Return: 0 with the entry in @rqe; -ENOENT when the SRQ is empty;
 * -EINVAL when the entry had more than SIW_MAX_SGE SGEs: it is consumed,
 * @rqe holds its id and no SGE, and the caller must complete it in error.
 */
int swi_srq_get(struct swi_srq *srq, struct siw_rqe *rqe)
{
	unsigned long flags;
	bool event = false;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	err = swi_srq_take_locked(srq, rqe);
	if (err != -ENOENT)
		event = swi_srq_limit_reached_locked(srq);
	spin_unlock_irqrestore(&srq->lock, flags);

	if (event)
		swi_srq_limit_event(srq);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_srq_get);
