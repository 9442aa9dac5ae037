// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: driver details for "rdma resource show"
 *
 * The IB core's resource tracking lists every QP, CQ and MR; these
 * callbacks add what only the driver knows as driver attributes (shown
 * with ``rdma -dd resource show``): for a QP the iWARP state, its queues,
 * IRD/ORD and, once connected, what MPA negotiated (revision, CRC and
 * Markers per direction, peer-to-peer mode, MULPDU); for a CQ its ring;
 * for an MR its kind, state and access (not the STag, see
 * swi_fill_res_mr_entry()). Documentation/device.rst lists them.
 *
 * They run in process context (a netlink request or dump, may sleep), with
 * the core holding a reference on the object's tracking entry but no lock
 * of ours; each takes the lock that protects what it reads, as the
 * object's verbs do, and writes the message after dropping it.
 */
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "dev/softiwarp.h"

/* One driver attribute: a string, a number or a number shown in hex */
struct swi_res_attr {
	const char *name;
	const char *str;
	u32 val;
	bool hex;
};

#define SWI_U32(n, v)	((struct swi_res_attr){ .name = (n), .val = (v) })
#define SWI_HEX(n, v)	((struct swi_res_attr){ .name = (n), .val = (v), \
						.hex = true })
#define SWI_STR(n, s)	((struct swi_res_attr){ .name = (n), .str = (s) })
/* Empty: an attribute this object does not have */
#define SWI_NONE	((struct swi_res_attr){})
#define SWI_IF(c, attr)	((c) ? (attr) : SWI_NONE)

/* Put @n attributes into one RDMA_NLDEV_ATTR_DRIVER table */
static int swi_res_put(struct sk_buff *msg, const struct swi_res_attr *a,
		       unsigned int n)
{
	struct nlattr *table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	unsigned int i;
	int err = 0;

	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < n && !err; i++) {
		if (!a[i].name)
			continue;	/* not applicable to this object */
		if (a[i].str)
			err = rdma_nl_put_driver_string(msg, a[i].name,
							a[i].str);
		else if (a[i].hex)
			err = rdma_nl_put_driver_u32_hex(msg, a[i].name,
							 a[i].val);
		else
			err = rdma_nl_put_driver_u32(msg, a[i].name, a[i].val);
	}
	if (err) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/**
 * struct swi_res_qp - what a QP shows, read under its locks
 * @state: iWARP QP state
 * @ird: inbound RDMA Read queue depth
 * @ord: outbound RDMA Read queue depth
 * @connected: a stream is attached, @si is valid
 * @si: the stream's snapshot
 * @sq_posted: kernel QP: SQ work requests not yet taken by the engine
 * @rq_posted: kernel QP: receives posted and not yet consumed
 * @sq_taken: SQ work requests the transmitter has taken (modulo 2^32)
 * @sq_next: the SQ's next slot holds a work request not yet taken
 * @rq_taken: receive work requests taken from the QP's own RQ (modulo
 *	2^32; not with an SRQ)
 */
struct swi_res_qp {
	enum rdmap_qps state;
	u32 ird;
	u32 ord;
	bool connected;
	struct eng_stream_info si;
	u32 sq_posted;
	u32 rq_posted;
	u32 sq_taken;
	bool sq_next;
	u32 rq_taken;
};

static u32 swi_res_ring_used(struct swi_ring *r, spinlock_t *lock)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(lock, flags);
	n = r->put - r->get;
	spin_unlock_irqrestore(lock, flags);
	return n;
}

/*
 * state_lock keeps the stream and the rings from being freed under us:
 * 6.1 lets a resource dump run during destroy_qp, which frees both under
 * it (swi_destroy_qp())
 */
static void swi_res_qp_read(struct swi_qp *qp, struct swi_res_qp *r)
{
	struct siw_sqe *sqe;

	mutex_lock(&qp->state_lock);
	r->state = qp->state;
	r->ird = qp->ird;
	r->ord = qp->ord;
	r->connected = qp->stream;
	if (qp->stream)
		swi_eng_stream_get_info(qp->stream, &r->si);
	if (!qp->sq.queue)
		goto out;	/* destroyed */
	r->sq_taken = READ_ONCE(qp->sq.get);
	sqe = swi_ring_slot(&qp->sq, r->sq_taken);
	r->sq_next = swi_slot_busy(sqe);
	r->rq_taken = READ_ONCE(qp->rq.get);
	if (qp->user)
		goto out;	/* libsiw produces: the kernel sees no put */
	r->sq_posted = swi_res_ring_used(&qp->sq, &qp->sq_lock);
	if (!qp->srq)
		r->rq_posted = swi_res_ring_used(&qp->rq, &qp->rq_lock);
out:
	mutex_unlock(&qp->state_lock);
}

static int swi_res_put_qp(struct sk_buff *msg, const struct swi_qp *qp,
			  const struct swi_res_qp *r)
{
	const struct eng_stream_cfg *c = &r->si.cfg;
	bool kq = !qp->user, up = r->connected;
	const struct swi_res_attr a[] = {
		SWI_STR("iwarp_state", swi_rdmap_qps_name(r->state)),
		SWI_U32("sq_size", qp->sq.num),
		SWI_U32("rq_size", qp->rq.num),
		SWI_U32("srq", !!qp->srq),
		SWI_IF(kq, SWI_U32("sq_posted", r->sq_posted)),
		SWI_IF(kq && !qp->srq, SWI_U32("rq_posted", r->rq_posted)),
		SWI_U32("sq_taken", r->sq_taken),
		SWI_U32("sq_next", r->sq_next),
		SWI_IF(!qp->srq, SWI_U32("rq_taken", r->rq_taken)),
		/* each stream's share of the SRQ, RFC 5041 8.3.2 item 5 */
		SWI_IF(qp->srq, SWI_U32("srq_taken",
					READ_ONCE(qp->srq_taken))),
		SWI_U32("send_cq", qp->scq->id),
		SWI_U32("recv_cq", qp->rcq->id),
		SWI_U32("ird", r->ird),
		SWI_U32("ord", r->ord),
		/* what MPA negotiated, once connected */
		SWI_IF(up, SWI_STR("role", c->hold ? "responder" : "initiator")),
		SWI_IF(up, SWI_U32("mpa_rev", c->rev)),
		SWI_IF(up, SWI_U32("crc_tx", c->tx.crc)),
		SWI_IF(up, SWI_U32("crc_rx", c->rx.crc)),
		SWI_IF(up, SWI_U32("markers_tx", c->tx.markers)),
		SWI_IF(up, SWI_U32("markers_rx", c->rx.markers)),
		SWI_IF(up, SWI_U32("p2p", c->p2p)),
		SWI_IF(up, SWI_U32("rtr", c->rtr)),
		SWI_IF(up, SWI_U32("mulpdu", r->si.mulpdu)),
		SWI_IF(up, SWI_U32("orq_used", r->si.orq_used)),
		SWI_IF(up, SWI_U32("irq_used", r->si.irq_used)),
		SWI_IF(up, SWI_U32("tx_job", r->si.tx_job)),
		SWI_IF(up, SWI_U32("tx_unsent", r->si.tx_unsent)),
		SWI_IF(up, SWI_U32("tx_nospace", r->si.tx_nospace)),
	};

	return swi_res_put(msg, a, ARRAY_SIZE(a));
}

/**
 * swi_fill_res_qp_entry() - driver attributes of a QP
 * @msg: the netlink message
 * @ibqp: the QP, its tracking entry referenced by the core
 *
 * Context: process context, may sleep: takes the QP's state_lock and,
 * under it, its sq_lock and rq_lock (kernel QPs), one at a time.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int swi_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct swi_qp *qp = to_swi_qp(ibqp);
	struct swi_res_qp r = {};

	swi_res_qp_read(qp, &r);
	return swi_res_put_qp(msg, qp, &r);
}

/*
 * Entries of a user CQ libsiw has not polled yet: those with VALID set,
 * read one by one (a snapshot; user space clears them at any time)
 */
static u32 swi_res_cq_unpolled(struct swi_cq *cq)
{
	struct siw_cqe *slot;
	u32 i, n = 0;

	for (i = 0; i < cq->ring.num; i++) {
		slot = swi_ring_slot(&cq->ring, i);
		n += !!swi_slot_busy(slot);
	}
	return n;
}

/**
 * swi_fill_res_cq_entry() - driver attributes of a CQ
 * @msg: the netlink message
 * @ibcq: the CQ, its tracking entry referenced by the core
 *
 * Context: process context; takes the CQ's lock (irqsave) for a kernel
 * CQ's fill level.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int swi_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct swi_cq *cq = to_swi_cq(ibcq);
	bool kcq = !cq->ring.user;
	/* libsiw consumes a user CQ: the kernel knows no fill level */
	const struct swi_res_attr a[] = {
		SWI_U32("cq_id", cq->id),
		SWI_U32("ring_size", cq->ring.num),
		SWI_STR("owner", kcq ? "kernel" : "user"),
		SWI_IF(kcq, SWI_U32("pending",
				    swi_res_ring_used(&cq->ring, &cq->lock))),
		SWI_U32("produced", READ_ONCE(cq->ring.put)),
		SWI_IF(!kcq, SWI_U32("unpolled", swi_res_cq_unpolled(cq))),
	};

	return swi_res_put(msg, a, ARRAY_SIZE(a));
}

static const char *swi_res_mem_kind(u8 type)
{
	switch (type) {
	case RDMAP_MEM_MR:
		return "mr";
	case RDMAP_MEM_FRMR:
		return "frmr";
	case RDMAP_MEM_DMA:
		return "dma";
	}
	return "?";
}

static int swi_res_put_mr(struct sk_buff *msg, const struct swi_mr *mr,
			  const struct rdmap_mem_info *mi)
{
	const struct swi_res_attr a[] = {
		SWI_STR("kind", swi_res_mem_kind(mi->type)),
		SWI_U32("valid", mi->valid),
		SWI_HEX("access", mi->access),
		SWI_U32("remote_inval", mi->remote_inval),
		SWI_U32("pages", mi->npages),
		SWI_IF(mi->type == RDMAP_MEM_FRMR,
		       SWI_U32("max_pages", mr->max_pages)),
	};

	return swi_res_put(msg, a, ARRAY_SIZE(a));
}

/**
 * swi_fill_res_mr_entry() - driver attributes of an MR
 * @msg: the netlink message
 * @ibmr: the MR, its tracking entry referenced by the core (which drops
 *	it before dereg_mr, so the STag entry is alive)
 *
 * The STag is not repeated: it is the MR's lkey and rkey, which the core
 * shows to CAP_NET_ADMIN only, while driver attributes go to anyone.
 *
 * Context: process context; takes the STag entry's lock (irqsave).
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int swi_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct swi_mr *mr = to_swi_mr(ibmr);
	struct rdmap_mem_info mi;

	swi_rdmap_mem_get_info(mr->mem, &mi);
	return swi_res_put_mr(msg, mr, &mi);
}
