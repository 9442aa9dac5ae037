// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: connection endpoints
 *
 * A connection endpoint (struct swi_cep) carries one TCP connection
 * through MPA startup. Connecting and the responder's wait for the Request
 * run as steps of a work item that never waits on the socket: the TCP
 * handshake is non-blocking and the peer's frame is read as it arrives.
 * While a step waits, the socket's callbacks (swi_cm_sk_event()) or the
 * timer of the wait's deadline run the work item again, so a thousand
 * connections in startup hold no worker. accept and reject run in the
 * caller's context (iw_cm calls them from process context). Once MPA is
 * in Full Operation the QP owns the socket; the endpoint stays attached
 * to the QP (&swi_qp.conn) to turn the QP's close into the iw_cm events
 * DISCONNECT and CLOSE, then goes.
 *
 * A listener delivers its CONNECT_REQUESTs in the order TCP accepted the
 * connections, whichever Request was read first (several endpoints read
 * theirs at once): consumers pair the connections a peer makes in a row
 * by their order (perftest matches its QPs so, and its ib_send_bw with
 * several QPs stalled for good when they came out of order). A Request
 * ready behind a connection still in startup waits at most
 * SWI_CM_ORDER_HOLD for it, so that a silent peer delays the others by
 * that much only (swi_cm_order_run()).
 *
 * The connection manager is split by concern: the endpoint's life, its
 * events to iw_cm and its socket callbacks here; the MPA exchange
 * (cm/startup.c), the active side (cm/connect.c), the passive side and
 * the order of CONNECT_REQUESTs (cm/passive.c), the listening sockets
 * (cm/listen.c), addresses and namespaces (cm/addr.c), debugfs
 * (cm/debugfs.c); their shared state is in cm/cep.h.
 *
 * References: the endpoint holds its iw_cm_id (add_ref/rem_ref) and the QP
 * while attached; a listener holds its iw_cm_id. Locking: &swi_cep.lock
 * serialises the endpoint's steps; nothing else is held across socket I/O.
 * &swi_listener.order_lock is taken before an endpoint's lock, never
 * after it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "cm/cep.h"
#include "cm/cm_trace.h"
#include "cm/rpcrdma_cm.h"

/* The endpoints' and listeners' work items run here (swi_cm_init()) */
struct workqueue_struct *swi_cm_wq;

/**
 * swi_cm_rpc_find() - recognise RFC 8797 private data in a frame
 * @r: what is found: @r->present and the parameters
 * @pdata: the private data, or NULL
 * @len: its length
 *
 * What the consumer sees of the private data is unchanged; this is for
 * the debugfs connections file.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_cm_rpc_find(struct swi_cm_rpc *r, const void *pdata,
		     size_t len)
{
	size_t off;

	r->present = pdata && !swi_rpcrdma_cm_find(pdata, len, &r->p, &off);
}

/**
 * swi_lst_free() - release a listener, its last reference gone
 * @ref: &swi_listener.ref
 *
 * Context: process context (it puts the iw_cm_id's reference).
 * Return: nothing.
 */
void swi_lst_free(struct kref *ref)
{
	struct swi_listener *lst = container_of(ref, struct swi_listener, ref);

	lst->cm_id->rem_ref(lst->cm_id);
	kfree(lst);
}

/**
 * swi_cep_free() - release an endpoint, its last reference gone
 * @ref: &swi_cep.ref
 *
 * Releases what the endpoint still holds: its socket, the QP, the
 * iw_cm_id and the listener, and its buffers.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_cep_free(struct kref *ref)
{
	struct swi_cep *cep = container_of(ref, struct swi_cep, ref);

	if (cep->sock)
		sock_release(cep->sock);
	if (cep->qp)
		swi_qp_put(&cep->qp->base);
	if (cep->cm_id)
		cep->cm_id->rem_ref(cep->cm_id);
	if (cep->lst)
		kref_put(&cep->lst->ref, swi_lst_free);
	kfree(cep->frame);
	kfree(cep->pdata);
	kfree(cep);
}

/**
 * swi_cep_put() - put a reference of an endpoint
 * @cep: the endpoint
 *
 * Context: process context (the last put frees it: swi_cep_free()).
 * Return: nothing.
 */
void swi_cep_put(struct swi_cep *cep)
{
	kref_put(&cep->ref, swi_cep_free);
}
EXPORT_SYMBOL_IF_KUNIT(swi_cep_put);

/**
 * swi_cep_alloc() - a new endpoint, with the device's startup policy
 * @dev: the device
 * @initiator: we connect (true) or accepted the connection (false)
 *
 * Context: process context; allocates.
 * Return: the endpoint with one reference, or NULL.
 */
struct swi_cep *swi_cep_alloc(struct swi_device *dev, bool initiator)
{
	struct swi_cep *cep;

	if (swi_fault_setup_alloc())
		return NULL;
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	INIT_LIST_HEAD(&cep->order_entry);
	INIT_LIST_HEAD(&cep->pend_entry);
	cep->dev = dev;
	cep->initiator = initiator;
	swi_cm_policy(&dev->knobs, initiator, &cep->pol);
	return cep;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cep_alloc);

/**
 * swi_cm_upcall() - deliver an event to an iw_cm_id's consumer
 * @id: the iw_cm_id
 * @type: the event
 * @status: its status
 * @cep: the endpoint it is about, or NULL: the addresses of its socket,
 *	the IRD and ORD (RFC 6581 section 9.1: the peer's when it sent
 *	them), the endpoint as provider data of a CONNECT_REQUEST
 * @with_pdata: the peer's private data goes with it
 *
 * Context: process context; the consumer's handler may sleep.
 * Return: what the consumer's event handler returned.
 */
int swi_cm_upcall(struct iw_cm_id *id, enum iw_cm_event_type type,
		  int status, struct swi_cep *cep, bool with_pdata)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
	};

	if (cep && cep->sock) {
		kernel_getsockname(cep->sock,
				   (struct sockaddr *)&ev.local_addr);
		kernel_getpeername(cep->sock,
				   (struct sockaddr *)&ev.remote_addr);
	} else {
		ev.local_addr = id->m_local_addr;
		ev.remote_addr = id->m_remote_addr;
	}
	if (cep && with_pdata && cep->peer.pdata_len) {
		ev.private_data = (void *)cep->peer.pdata;
		ev.private_data_len = min_t(u16, cep->peer.pdata_len, U8_MAX);
	}
	if (cep) {
		/*
		 * RFC 6581 section 9.1: the peer's IRD and ORD, of an accepting
		 * or a rejecting frame, when it sent them; else ours
		 */
		bool peer = cep->peer.enhanced && cep->res.rev == MPA_REV_2;

		ev.ird = min_t(u16, peer ? cep->peer.ird : cep->res.ird, U8_MAX);
		ev.ord = min_t(u16, peer ? cep->peer.ord : cep->res.ord, U8_MAX);
	}
	if (type == IW_CM_EVENT_CONNECT_REQUEST)
		ev.provider_data = cep;
	return id->event_handler(id, &ev);
}

/**
 * swi_cm_send() - send all of a buffer on a startup socket
 * @sock: the socket
 * @buf: the octets
 * @len: how many
 *
 * Context: process context; blocks, up to the socket's send timeout.
 * Return: 0, -EIO when only part went, or the socket's error.
 */
int swi_cm_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int n = kernel_sendmsg(sock, &msg, &kv, 1, len);

	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

/**
 * swi_cm_trace_outcome() - trace how an endpoint's startup ended
 * @cep: the endpoint
 * @err: 0 or the errno
 * @rejected: a Reply with R was sent or received
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_cm_trace_outcome(const struct swi_cep *cep, int err,
			  bool rejected)
{
	int outcome = SWI_CM_FAILED;

	if (rejected)
		outcome = SWI_CM_REJECTED;
	else if (!err)
		outcome = SWI_CM_ESTABLISHED;
	else if (err == -EAGAIN || err == -ETIMEDOUT || err == -EINPROGRESS)
		outcome = SWI_CM_TIMED_OUT;
	trace_cm_outcome(&cep->laddr, &cep->raddr, cep->initiator, outcome,
			 err, &cep->res);
}

/*
 * The socket's data_ready and state_change during startup (softirq, or
 * process context with the socket's backlog): data, the handshake's
 * outcome, a FIN or a reset for the step that waits. Runs the work item
 * now; its reference keeps the endpoint while we are the callback.
 */
static void swi_cm_sk_event(struct sock *sk)
{
	struct swi_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep)
		mod_delayed_work(swi_cm_wq, &cep->work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * swi_cm_hook() - our callbacks on the endpoint's socket, for its waits
 * @cep: the endpoint, its socket set
 *
 * data_ready and state_change run the endpoint's work item (data, the
 * handshake's outcome, a FIN or a reset); swi_cm_unhook() gives them back.
 *
 * Context: process context; takes the socket's callback lock.
 * Return: nothing.
 */
void swi_cm_hook(struct swi_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = cep;
	sk->sk_data_ready = swi_cm_sk_event;
	sk->sk_state_change = swi_cm_sk_event;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->hooked = true;
}

/**
 * swi_cm_unhook() - give the socket's callbacks back to TCP
 * @cep: the endpoint
 *
 * When the startup's waits are over, before the stream takes the socket.
 * Called by the work item itself: a run that a callback or the deadline
 * queued meanwhile is withdrawn, so that nothing runs the work item once
 * its reference is put.
 *
 * Context: process context, under @cep->lock.
 * Return: nothing.
 */
void swi_cm_unhook(struct swi_cep *cep)
{
	struct sock *sk;

	if (!cep->hooked)
		return;
	sk = cep->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->hooked = false;
	cancel_delayed_work(&cep->work);
}

/**
 * swi_cm_kick() - queue the first run of an endpoint's work item
 * @cep: the endpoint, with a reference its caller took before it hooked
 *	the socket (swi_cm_hook()), which this puts
 *
 * Once the socket is hooked, its callbacks may run the work item before
 * this queues it, even to the startup's end (swi_cm_work_end()), after
 * which a run queued here would find the endpoint's reference gone, or
 * the endpoint freed. So the run is queued under @cep->lock, only while
 * the work item is not done, and the caller's reference keeps the
 * endpoint until then; a run queued while the work item runs is withdrawn
 * by the swi_cm_unhook() with which that run ends.
 *
 * Context: process context; takes @cep->lock; may free @cep.
 * Return: nothing.
 */
void swi_cm_kick(struct swi_cep *cep)
{
	mutex_lock(&cep->lock);
	if (!cep->work_done)
		queue_delayed_work(swi_cm_wq, &cep->work, 0);
	mutex_unlock(&cep->lock);
	swi_cep_put(cep);
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_kick);

/**
 * swi_cm_work_end() - the work item ends the startup
 * @cep: the endpoint
 *
 * The socket's callbacks are TCP's again and a run queued meanwhile is
 * withdrawn (swi_cm_unhook()); nothing queues the work item any more
 * (swi_cm_kick()). Its reference is the caller's to put.
 *
 * Context: process context, under @cep->lock.
 * Return: nothing.
 */
void swi_cm_work_end(struct swi_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	swi_cm_unhook(cep);
	cep->work_done = true;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_work_end);

/**
 * swi_cm_wait() - a step of the endpoint's work item waits
 * @cep: the endpoint
 *
 * The work item runs again at the wait's deadline (an initiator's at
 * least every SWI_CM_POLL, for its QP's state), or sooner when the
 * socket's callback queues it. A callback that came since the step
 * looked has queued it already, which this leaves be.
 *
 * Context: process context, under @cep->lock.
 * Return: nothing.
 */
void swi_cm_wait(struct swi_cep *cep)
{
	long left = max_t(long, (long)(cep->end - jiffies), 0);

	if (cep->initiator)
		left = min_t(long, left, SWI_CM_POLL);
	queue_delayed_work(swi_cm_wq, &cep->work, left);
}

/**
 * swi_cm_count_failed() - count a connection attempt that failed
 * @cep: the endpoint, ended before Full Operation
 *
 * Counts the peer's rejecting Reply that ended it too, if there was one.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_cm_count_failed(struct swi_cep *cep)
{
	swi_count(cep->dev, SWI_CNT_CONN_FAILED);
	if (cep->res.rejected)
		swi_count(cep->dev, SWI_CNT_RX_MPA_REJECTS);
}

/**
 * swi_cm_announce() - tell iw_cm the connection is up
 * @cep: the endpoint, attached to its QP
 * @type: IW_CM_EVENT_CONNECT_REPLY (initiator) or _ESTABLISHED
 *
 * Then delivers what the QP reported meanwhile (swi_cm_qp_changed()
 * held it back), in that order.
 *
 * Context: process context, under @cep->lock, with a reference of the
 * caller's own; takes the QP's state lock.
 * Return: nothing.
 */
void swi_cm_announce(struct swi_cep *cep, enum iw_cm_event_type type)
{
	struct swi_qp *qp = cep->qp;

	swi_count(cep->dev, SWI_CNT_CONN_ESTABLISHED);
	swi_cm_upcall(cep->cm_id, type, 0, cep,
		      type == IW_CM_EVENT_CONNECT_REPLY);
	swi_qp_lock_state(qp);
	cep->announced = true;
	if (cep->held & SWI_CEP_HELD_DISCONNECT)
		swi_cm_upcall(cep->cm_id, IW_CM_EVENT_DISCONNECT, 0, NULL,
			      false);
	if (cep->held & SWI_CEP_HELD_CLOSE)
		swi_cm_upcall(cep->cm_id, IW_CM_EVENT_CLOSE, cep->held_status,
			      NULL, false);
	cep->held = 0;
	swi_qp_unlock_state(qp);
}

/**
 * swi_cm_qp_changed() - report a QP's state change to iw_cm
 * @cep: the QP's endpoint (&swi_qp.conn)
 * @old: the state before
 * @new: the state now
 *
 * Leaving RTS is IW_CM_EVENT_DISCONNECT; reaching IDLE or ERROR is
 * IW_CM_EVENT_CLOSE, after which the endpoint lets go of the QP. Before
 * the connection was announced to iw_cm both are held back and delivered
 * by swi_cm_announce() right after it.
 *
 * Context: process context, under the QP's state_lock.
 * Return: true when the endpoint let go: the QP must forget @cep.
 */
bool swi_cm_qp_changed(struct swi_cep *cep, enum rdmap_qps old,
		       enum rdmap_qps new)
{
	int status = new == RDMAP_QPS_IDLE ? 0 : -ECONNRESET;

	swi_qp_assert_state_locked(cep->qp);
	if (old == new)
		return false;
	if (old == RDMAP_QPS_RTS) {
		if (cep->announced)
			swi_cm_upcall(cep->cm_id, IW_CM_EVENT_DISCONNECT, 0,
				      NULL, false);
		else
			cep->held |= SWI_CEP_HELD_DISCONNECT;
	}
	if (new != RDMAP_QPS_IDLE && new != RDMAP_QPS_ERROR)
		return false;
	if (!cep->closed) {
		cep->closed = true;
		if (cep->announced) {
			swi_cm_upcall(cep->cm_id, IW_CM_EVENT_CLOSE, status,
				      NULL, false);
		} else {
			cep->held |= SWI_CEP_HELD_CLOSE;
			cep->held_status = status;
		}
	}
	swi_cep_put(cep);
	return true;
}

/**
 * swi_cm_init() - create the connection manager's workqueue
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int swi_cm_init(void)
{
	/* flushed from iw_cm's WQ_MEM_RECLAIM work: reclaim-safe too */
	swi_cm_wq = alloc_workqueue("softiwarp_cm", WQ_UNBOUND | WQ_MEM_RECLAIM,
				    0);
	if (!swi_cm_wq)
		return -ENOMEM;
	return 0;
}

/**
 * swi_cm_exit() - wait for the endpoints' work and destroy the workqueue
 *
 * Context: module exit, after every device is gone.
 * Return: nothing.
 */
void swi_cm_exit(void)
{
	destroy_workqueue(swi_cm_wq);
}
