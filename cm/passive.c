// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the passive side
 *
 * A connection a listener accepted: its work item reads and negotiates
 * the Request, then the listener delivers the CONNECT_REQUESTs in the
 * order TCP accepted the connections (swi_cm_order_run()); iw_cm's
 * accept sends the Reply and enters Full Operation, its reject sends a
 * rejecting Reply.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "cm/cep.h"
#include "cm/cm_trace.h"

/**
 * swi_cm_passive_failed() - a responder that sends no CONNECT_REQUEST
 * @cep: the endpoint
 * @err: why
 * @refuse: a rejecting Reply was sent
 *
 * Says why (rate-limited), traces and counts it; the endpoint is dead.
 *
 * Context: process context, under @cep->lock.
 * Return: nothing.
 */
void swi_cm_passive_failed(struct swi_cep *cep, int err, bool refuse)
{
	lockdep_assert_held(&cep->lock);
	swi_cm_trace_outcome(cep, err, refuse);
	net_info_ratelimited("MPA Request refused: %d (MPA error %d)\n",
			     err, cep->res.error);
	swi_cm_count_failed(cep);
	cep->state = SWI_CEP_DEAD;
}

/*
 * Endpoints whose CONNECT_REQUEST went to iw_cm and that wait for accept
 * or reject: on their listener's pending list, then, once the listener
 * is destroyed, on the orphans. iw_cm drops the events still queued for a
 * listener it destroys (IWCM_F_DROP_EVENTS) and rejects nothing for
 * them, so an endpoint whose event it dropped is never answered; one
 * whose event it processed is, by its new iw_cm_id (which the core
 * destroys, rejecting, at the latest when the device goes). Which is
 * which cannot be told, so the orphans stay until their device is
 * unregistered: then only dropped ones are left, and
 * swi_cm_orphans_release() closes and frees them. Lock order: a
 * listener's order_lock, an endpoint's lock, then swi_cm_pend_lock.
 */
static DEFINE_MUTEX(swi_cm_pend_lock);
static LIST_HEAD(swi_cm_orphans);

static void swi_cm_pend(struct swi_listener *lst, struct swi_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	mutex_lock(&swi_cm_pend_lock);
	list_add_tail(&cep->pend_entry, &lst->pending);
	mutex_unlock(&swi_cm_pend_lock);
}

/* @cep is answered (accept or reject): off the pending or orphan list */
static void swi_cm_unpend(struct swi_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	mutex_lock(&swi_cm_pend_lock);
	list_del_init(&cep->pend_entry);
	mutex_unlock(&swi_cm_pend_lock);
}

/**
 * swi_cm_orphan_pending() - a destroyed listener's unanswered endpoints
 * @lst: the listener, in destroy_listen
 *
 * Moves them to the orphans (see above).
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_cm_orphan_pending(struct swi_listener *lst)
{
	mutex_lock(&swi_cm_pend_lock);
	list_splice_tail_init(&lst->pending, &swi_cm_orphans);
	mutex_unlock(&swi_cm_pend_lock);
}

/**
 * swi_cm_orphans_release() - close and free a device's orphans
 * @dev: the device, unregistered: none of its iw_cm_ids is left
 *
 * Each is closed as a reject without private data would close it, and
 * the iw_cm_id's reference, which nothing will put now, is put.
 *
 * Context: process context (dealloc_driver).
 * Return: nothing.
 */
void swi_cm_orphans_release(struct swi_device *dev)
{
	struct swi_cep *cep, *next;
	LIST_HEAD(mine);

	mutex_lock(&swi_cm_pend_lock);
	list_for_each_entry_safe(cep, next, &swi_cm_orphans, pend_entry)
		if (cep->dev == dev)
			list_move_tail(&cep->pend_entry, &mine);
	mutex_unlock(&swi_cm_pend_lock);
	list_for_each_entry_safe(cep, next, &mine, pend_entry) {
		list_del_init(&cep->pend_entry);
		mutex_lock(&cep->lock);
		if (cep->state == SWI_CEP_AWAIT_ACCEPT && cep->sock) {
			cep->state = SWI_CEP_DEAD;
			kernel_sock_shutdown(cep->sock, SHUT_RDWR);
		}
		mutex_unlock(&cep->lock);
		swi_cep_put(cep);	/* the dropped iw_cm_id's */
	}
}

/* Send @cep's CONNECT_REQUEST, or refuse it once the listen has ended */
static void swi_cm_deliver(struct swi_listener *lst, struct swi_cep *cep)
{
	int err = -ECONNREFUSED;

	lockdep_assert_held(&lst->order_lock);
	mutex_lock(&cep->lock);
	cep->ready = false;
	if (!READ_ONCE(lst->dying)) {
		cep->state = SWI_CEP_AWAIT_ACCEPT;
		kref_get(&cep->ref);	/* held by the new iw_cm_id */
		err = swi_cm_upcall(lst->cm_id, IW_CM_EVENT_CONNECT_REQUEST, 0,
				    cep, true);
		if (err)
			swi_cep_put(cep);
		else
			swi_cm_pend(lst, cep);
	}
	if (err)
		swi_cm_passive_failed(cep, err, false);
	mutex_unlock(&cep->lock);
}

/* Run swi_cm_order_run() again in @delay jiffies */
static void swi_cm_order_later(struct swi_listener *lst, unsigned long delay)
{
	kref_get(&lst->ref);
	if (mod_delayed_work(swi_cm_wq, &lst->order_work, delay))
		kref_put(&lst->ref, swi_lst_free);	/* one was queued */
}

/**
 * swi_cm_order_run() - deliver the CONNECT_REQUESTs that may go
 * @lst: the listener
 *
 * In accept order: a ready Request goes when every endpoint accepted
 * before it is gone, or it has waited SWI_CM_ORDER_HOLD for those still
 * in startup; a later one never passes an earlier ready one.
 *
 * Context: process context; takes @lst->order_lock, then each
 * endpoint's lock.
 * Return: nothing.
 */
void swi_cm_order_run(struct swi_listener *lst)
{
	struct swi_cep *cep, *next;
	bool behind = false;

	mutex_lock(&lst->order_lock);
	list_for_each_entry_safe(cep, next, &lst->order, order_entry) {
		if (!READ_ONCE(cep->ready)) {
			behind = true;	/* still in startup */
			continue;
		}
		if (behind && !READ_ONCE(lst->dying) &&
		    time_before(jiffies, cep->ready_at + SWI_CM_ORDER_HOLD)) {
			swi_cm_order_later(lst, cep->ready_at +
					   SWI_CM_ORDER_HOLD - jiffies);
			break;
		}
		list_del_init(&cep->order_entry);
		swi_cm_deliver(lst, cep);
		swi_cep_put(cep);	/* the entry's */
	}
	mutex_unlock(&lst->order_lock);
}

/**
 * swi_cm_order_work() - a listener's delayed delivery
 * @work: &swi_listener.order_work, which holds a reference
 *
 * Runs swi_cm_order_run() when a Request's hold ends.
 *
 * Context: the connection manager's workqueue.
 * Return: nothing.
 */
void swi_cm_order_work(struct work_struct *work)
{
	struct swi_listener *lst = container_of(to_delayed_work(work),
						struct swi_listener,
						order_work);

	swi_cm_order_run(lst);
	kref_put(&lst->ref, swi_lst_free);
}

/**
 * swi_cm_order_drop() - an endpoint failed in startup
 * @lst: its listener
 * @cep: the endpoint
 *
 * Out of the order, and the others may go.
 *
 * Context: process context; takes @lst->order_lock.
 * Return: nothing.
 */
void swi_cm_order_drop(struct swi_listener *lst, struct swi_cep *cep)
{
	bool listed;

	mutex_lock(&lst->order_lock);
	listed = !list_empty(&cep->order_entry);
	list_del_init(&cep->order_entry);
	mutex_unlock(&lst->order_lock);
	if (listed)
		swi_cep_put(cep);	/* the entry's */
	swi_cm_order_run(lst);
}

/**
 * swi_cm_passive_work() - the responder's work item
 * @work: &swi_cep.work, which holds a reference
 *
 * The Request as it comes, then its turn in the listener's order
 * (swi_cm_order_run()).
 *
 * Context: the connection manager's workqueue.
 * Return: nothing.
 */
void swi_cm_passive_work(struct work_struct *work)
{
	struct swi_cep *cep = container_of(to_delayed_work(work),
					   struct swi_cep, work);
	struct swi_listener *lst = cep->lst;
	bool refuse;
	int err;

	mutex_lock(&cep->lock);
	if (cep->state == SWI_CEP_DEAD) {
		/* ended by its listener's teardown, which owns the rest */
		mutex_unlock(&cep->lock);
		return;
	}
	err = swi_cm_frame_more(cep, MPA_STARTUP_REQUEST);
	if (err == SWI_CM_WAIT) {
		swi_cm_wait(cep);
		mutex_unlock(&cep->lock);
		return;
	}
	swi_cm_work_end(cep);
	if (!err)
		err = swi_cm_negotiate(cep);
	refuse = err == -EPROTO &&
		 (cep->res.error == MPA_ERR_INSUFFICIENT_IRD ||
		  cep->res.error == MPA_ERR_NO_MATCHING_RTR);
	if (refuse)
		swi_cm_send_reply(cep, true, NULL, 0);
	if (err) {
		swi_cm_passive_failed(cep, err, refuse);
	} else {
		cep->ready_at = jiffies;
		WRITE_ONCE(cep->ready, true);
	}
	mutex_unlock(&cep->lock);
	if (err)
		swi_cm_order_drop(lst, cep);
	else
		swi_cm_order_run(lst);
	swi_cep_put(cep);
}

/*
 * Take the iw_cm_id of a passive endpoint; refuse a wrong state. Returns
 * with the endpoint's lock held when it returns an endpoint.
 */
static struct swi_cep *swi_cm_passive_get(struct iw_cm_id *id)
{
	struct swi_cep *cep = id->provider_data;

	if (!cep)
		return NULL;
	mutex_lock(&cep->lock);
	if (cep->state != SWI_CEP_AWAIT_ACCEPT || !cep->sock) {
		mutex_unlock(&cep->lock);
		return NULL;
	}
	return cep;
}

/**
 * swi_cm_accept() - iw_cm's accept: send the Reply, go to Full Operation
 * @id: the connection's iw_cm_id, from IW_CM_EVENT_CONNECT_REQUEST
 * @p: our private data, IRD/ORD and QP number
 *
 * Context: process context; sends on the socket.
 * Return: 0 (IW_CM_EVENT_ESTABLISHED follows), or a negative errno.
 */
int swi_cm_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct swi_cep *cep = swi_cm_passive_get(id);
	struct swi_qp *qp;
	bool refuse;
	int err;

	if (!cep)
		return -EINVAL;
	/* referenced: the cep's from here */
	qp = p->private_data_len > mpa_startup_pdata_room(cep->res.enhanced) ?
	     NULL : swi_cm_qp_find(cep->dev, id, p->qpn);
	if (!qp) {
		mutex_unlock(&cep->lock);
		return -EINVAL;
	}
	swi_cm_unpend(cep);
	id->add_ref(id);
	cep->cm_id = id;
	cep->qp = qp;
	/* the consumer's, 0 included: RFC 5040 section 6.1 */
	cep->pol.ird = min_t(u32, p->ird, SWI_MAX_IRD);
	cep->pol.ord = min_t(u32, p->ord, SWI_MAX_ORD);
	swi_cm_rpc_find(&cep->rpc_ours, p->private_data, p->private_data_len);
	/* Again with the consumer's IRD/ORD: the same frame, pure function */
	err = swi_cm_negotiate(cep);
	refuse = err && cep->res.error == MPA_ERR_INSUFFICIENT_IRD;
	if (!err) {
		err = swi_cm_prepare(cep);
		refuse = err == -ENOMEM;	/* the peer hears it at once */
	}
	if (refuse)
		swi_cm_send_reply(cep, true, p->private_data,
				  p->private_data_len);
	if (!err)
		err = swi_cm_send_reply(cep, false, p->private_data,
					p->private_data_len);
	if (!err)
		err = swi_cm_attach(cep);
	if (cep->stream) {	/* prepared, but the Reply failed */
		swi_qp_stream_drop(cep->stream);
		cep->stream = NULL;
	}
	swi_cm_trace_outcome(cep, err, refuse);
	if (err) {
		swi_cm_count_failed(cep);
		cep->state = SWI_CEP_DEAD;
		kernel_sock_shutdown(cep->sock, SHUT_RDWR);
	} else {
		swi_cm_announce(cep, IW_CM_EVENT_ESTABLISHED);
	}
	/* The iw_cm_id's reference: the QP holds the endpoint from now on */
	id->provider_data = NULL;
	mutex_unlock(&cep->lock);
	swi_cep_put(cep);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_accept);

/**
 * swi_cm_reject() - iw_cm's reject: a rejecting Reply with private data
 * @id: the connection's iw_cm_id, from IW_CM_EVENT_CONNECT_REQUEST
 * @pdata: private data for the peer
 * @len: its length
 *
 * Context: process context; sends on the socket, then closes it.
 * Return: 0 or a negative errno.
 */
int swi_cm_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct swi_cep *cep = swi_cm_passive_get(id);
	int err;

	if (!cep)
		return -EINVAL;
	swi_cm_unpend(cep);
	err = swi_cm_send_reply(cep, true, pdata, len);
	swi_cm_count_failed(cep);
	swi_cm_trace_outcome(cep, err, true);
	cep->state = SWI_CEP_DEAD;
	kernel_sock_shutdown(cep->sock, SHUT_RDWR);
	id->provider_data = NULL;
	mutex_unlock(&cep->lock);
	swi_cep_put(cep);	/* the reference of the iw_cm_id */
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_reject);
