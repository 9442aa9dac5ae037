// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the active side
 *
 * iw_cm's connect: the TCP handshake, started non-blocking in the
 * caller's context so that connections made in a row reach the listener
 * in that order, then the steps of the endpoint's work item (the
 * handshake's outcome, our Request, the Reply), none of which waits on the
 * socket; the outcome is IW_CM_EVENT_CONNECT_REPLY. An initiator that
 * read an accepting Reply and cannot go on sends the Terminate of RFC
 * 6581 section 8 before it resets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rdma/rdma_cm.h>

#include "cm/cep.h"
#include "cm/cm_trace.h"

/*
 * The initiator's QP left IDLE while its Request waits for the Reply: it
 * was destroyed (or moved to ERROR) and cannot go to Full Operation, so
 * the wait is over. Without this, destroy_qp would wait out
 * mpa_timeout_ms for the endpoint's reference.
 */
static bool swi_cm_qp_gone(const struct swi_cep *cep)
{
	return cep->initiator && swi_qp_state(cep->qp) != RDMAP_QPS_IDLE;
}

/*
 * The endpoint's socket in the device's namespace, bound to @laddr and
 * hooked (swi_cm_hook()). rdma_cm picked the local port in its own port
 * space, not in TCP's: one of our earlier connections may still hold it
 * in TIME_WAIT, which must not fail the bind.
 */
static int swi_cm_tcp_socket(struct swi_cep *cep, struct sockaddr *laddr)
{
	int err = -ENOMEM;

	if (!swi_fault_setup_alloc())
		err = sock_create_kern(swi_cm_net(cep->dev), laddr->sa_family,
				       SOCK_STREAM, IPPROTO_TCP, &cep->sock);
	if (err)
		return err;
	swi_cm_sock_timeouts(cep->sock);
	sock_set_reuseaddr(cep->sock->sk);
	err = kernel_bind(cep->sock, swi_sockaddr_arg(laddr),
			  rdma_addr_size(laddr));
	if (!err)
		swi_cm_hook(cep);
	return err;
}

/*
 * Create the socket, bind the mapped local address and start the TCP
 * handshake, non-blocking; its outcome runs the work item
 * (swi_cm_tcp_done()). rdma_cm lets several ids share a port (with
 * rdma_set_reuseaddr(): RTRS binds every connection of a path to the
 * first one's address and port), which TCP refuses for connections to
 * the same peer (-EADDRNOTAVAIL, at once): such a connection takes a
 * port TCP picks. Return: 0 connected, SWI_CM_WAIT, or a negative errno.
 */
static int swi_cm_tcp_start(struct swi_cep *cep)
{
	struct sockaddr *raddr = (struct sockaddr *)&cep->cm_id->m_remote_addr;
	struct sockaddr_storage laddr = cep->cm_id->m_local_addr;
	struct sockaddr *la = (struct sockaddr *)&laddr;
	int err;

	err = swi_cm_tcp_socket(cep, la);
	if (err)
		return err;
	cep->end = jiffies + msecs_to_jiffies(swi_cm_timeout_ms());
	err = kernel_connect(cep->sock, swi_sockaddr_arg(raddr),
			     rdma_addr_size(raddr), O_NONBLOCK);
	/* the port is at the same offset in sockaddr_in and _in6 */
	if (err == -EADDRNOTAVAIL && ((struct sockaddr_in *)la)->sin_port) {
		swi_cm_unhook(cep);
		sock_release(cep->sock);
		cep->sock = NULL;
		((struct sockaddr_in *)la)->sin_port = 0;
		err = swi_cm_tcp_socket(cep, la);
		if (err)
			return err;
		err = kernel_connect(cep->sock, swi_sockaddr_arg(raddr),
				     rdma_addr_size(raddr), O_NONBLOCK);
		kernel_getsockname(cep->sock, (struct sockaddr *)&cep->laddr);
	}
	return err == -EINPROGRESS ? SWI_CM_WAIT : err;
}

/*
 * The TCP handshake's outcome, asked of a non-blocking connect again:
 * 0 connected, SWI_CM_WAIT while it is under way within the MPA startup
 * timeout, -ETIMEDOUT past it, or the socket's error.
 */
static int swi_cm_tcp_done(struct swi_cep *cep)
{
	struct sockaddr *raddr = (struct sockaddr *)&cep->cm_id->m_remote_addr;
	int err;

	err = kernel_connect(cep->sock, swi_sockaddr_arg(raddr),
			     rdma_addr_size(raddr), O_NONBLOCK);
	if (err != -EALREADY && err != -EINPROGRESS)
		return err;
	return time_before(jiffies, cep->end) ? SWI_CM_WAIT : -ETIMEDOUT;
}

/*
 * The initiator's steps from where it stands: TCP connect, MPA Request,
 * the Reply. Return: 0 with the Reply decoded, SWI_CM_WAIT, or a negative
 * errno; -ECONNRESET at once when the QP is gone.
 */
static int swi_cm_connect_steps(struct swi_cep *cep)
{
	int err;

	if (swi_cm_qp_gone(cep))
		return -ECONNRESET;
	switch (cep->step) {
	case SWI_CEP_STEP_TCP:
		/* swi_cm_connect() started it: its outcome, then the socket's */
		err = cep->tcp_err == SWI_CM_WAIT ? swi_cm_tcp_done(cep) :
						    cep->tcp_err;
		break;
	default:
		return swi_cm_frame_more(cep, MPA_STARTUP_REPLY);
	}
	if (err)
		return err;
	cep->step = SWI_CEP_STEP_REPLY;
	err = swi_cm_send_request(cep);
	if (!err)
		err = swi_cm_frame_begin(cep);
	return err ?: swi_cm_frame_more(cep, MPA_STARTUP_REPLY);
}

/*
 * RFC 6581 sections 8 and 9.1 to 9.3: an initiator that read an accepting
 * Reply and cannot go on sends a Terminate before it resets: Insufficient
 * IRD, No matching RTR, or Local catastrophic for an error of its own, in
 * the framing the Reply negotiated. Best effort: the reset follows anyway.
 */
static void swi_cm_setup_term(struct swi_cep *cep, enum mpa_error code)
{
	const struct mpa_fo_cfg tx = {
		.crc = cep->res.crc_tx, .markers = cep->res.markers_tx,
	};
	u8 buf[ENG_SETUP_TERM_MAX];
	int n;

	if (!cep->sock)
		return;
	n = swi_setup_term_fpdu(&tx, cep->res.ddp_rdmap_ver == 0, code, buf,
				sizeof(buf));
	if (n > 0 && !swi_cm_send(cep->sock, buf, n))
		swi_count(cep->dev, SWI_CNT_TX_TERM_LLP);
}

/* Negotiate on the Reply, enter Full Operation; a Terminate on failure */
static int swi_cm_connect_finish(struct swi_cep *cep)
{
	int err = swi_cm_negotiate(cep);

	if (err == -EPROTO && (cep->res.error == MPA_ERR_INSUFFICIENT_IRD ||
			       cep->res.error == MPA_ERR_NO_MATCHING_RTR)) {
		swi_cm_setup_term(cep, cep->res.error);
		return err;
	}
	if (err)
		return err;
	err = swi_cm_prepare(cep);
	if (!err)
		err = swi_cm_attach(cep);
	if (err)
		swi_cm_setup_term(cep, MPA_ERR_LOCAL_CATASTROPHIC);
	return err;
}

/* The initiator's work item: its next steps, or its outcome */
static void swi_cm_connect_work(struct work_struct *work)
{
	struct swi_cep *cep = container_of(to_delayed_work(work),
					   struct swi_cep, work);
	struct iw_cm_id *id = cep->cm_id;
	int err;

	mutex_lock(&cep->lock);
	err = swi_cm_connect_steps(cep);
	if (err == SWI_CM_WAIT) {
		swi_cm_wait(cep);
		mutex_unlock(&cep->lock);
		return;
	}
	swi_cm_work_end(cep);
	if (!err)
		err = swi_cm_connect_finish(cep);
	swi_cm_trace_outcome(cep, err, cep->res.rejected);
	if (err) {
		/* a receive or connect that ran out of time: as documented */
		if (err == -EAGAIN || err == -EINPROGRESS)
			err = -ETIMEDOUT;
		net_info_ratelimited("connect failed: %d (MPA error %d)\n",
				     err, cep->res.error);
		swi_cm_count_failed(cep);
		if (err != -ECONNREFUSED && err != -ETIMEDOUT)
			err = -ECONNRESET;
		cep->state = SWI_CEP_DEAD;
	}
	if (err)
		swi_cm_upcall(id, IW_CM_EVENT_CONNECT_REPLY, err, cep, true);
	else
		swi_cm_announce(cep, IW_CM_EVENT_CONNECT_REPLY);
	mutex_unlock(&cep->lock);
	swi_cep_put(cep);
}

/*
 * Whether @qp, found for the caller (swi_qp_find() checked a user QP's
 * process), may be attached to @id. rdma_cm, iw_cm's one user, makes the
 * iw_cm_id's context its rdma_id_private, which begins with the
 * rdma_cm_id (see swi_cm_listen_here()). A kernel consumer's QP is its
 * rdma_cm_id's own: rdma_create_qp() sets id->qp and rdma_cm passes that
 * QP's number. User space's rdma_cm ids (ucma) never have a QP of their
 * own; theirs is a user QP created through uverbs. So a kernel QP goes
 * only with the rdma_cm_id it was created on, never with another
 * consumer's or a process's, and a user QP only with a user's id. An id
 * without a context has no rdma_cm behind it (the KUnit suites'): a
 * kernel caller, kernel QPs only.
 */
static bool swi_cm_qp_kind_ok(struct iw_cm_id *id, const struct swi_qp *qp)
{
	const struct rdma_cm_id *owner = id->context;
	const struct ib_qp *own;

	if (!owner)
		return !swi_qp_is_user(qp);
	own = READ_ONCE(owner->qp);
	return swi_qp_is_user(qp) ? !own : own == &qp->base;
}

/**
 * swi_cm_qp_find() - the QP of a connect or accept
 * @dev: the device
 * @id: the iw_cm_id it is for
 * @qpn: the consumer's QP number
 *
 * Found by the number for the caller (swi_qp_find() checks a user QP's
 * process), and only of @id's kind: a kernel QP goes only with the
 * rdma_cm_id it was created on, a user QP only with a user's id.
 *
 * Context: process context.
 * Return: the QP, referenced, or NULL.
 */
struct swi_qp *swi_cm_qp_find(struct swi_device *dev,
			      struct iw_cm_id *id, u32 qpn)
{
	struct swi_qp *qp = swi_qp_find(dev, qpn);

	if (qp && !swi_cm_qp_kind_ok(id, qp)) {
		ibdev_info_ratelimited(&dev->ibdev,
				       "QP %u refused: not the cm id's kind\n",
				       qpn);
		swi_qp_put(&qp->base);
		qp = NULL;
	}
	return qp;
}

/**
 * swi_cm_connect() - iw_cm's connect: start an active connection
 * @id: the connection's iw_cm_id (m_local_addr, m_remote_addr set)
 * @p: private data, IRD/ORD and QP number
 *
 * The TCP connect starts here, non-blocking, so that connects made in a
 * row reach the listener in that order; the handshake's outcome and the
 * MPA exchange run as steps of a work item, none of which waits on the
 * socket; the outcome is reported with IW_CM_EVENT_CONNECT_REPLY.
 *
 * Context: process context.
 * Return: 0 when the attempt started, or a negative errno.
 */
int swi_cm_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct swi_device *dev = to_swi_dev(id->device);
	struct swi_qp *qp;
	struct swi_cep *cep;

	if (p->private_data_len > MPA_MAX_PRIVDATA)
		return -EINVAL;
	/* referenced: the cep's from here */
	qp = swi_cm_qp_find(dev, id, p->qpn);
	if (!qp)
		return -EINVAL;
	cep = swi_cep_alloc(dev, true);
	if (!cep) {
		swi_qp_put(&qp->base);
		return -ENOMEM;
	}
	cep->qp = qp;
	/* a revision 2 Request's enhanced data take 4 of the 512 octets */
	if (p->private_data_len >
	    mpa_startup_pdata_room(cep->pol.rev == MPA_REV_2)) {
		swi_cep_put(cep);
		return -EINVAL;
	}
	if (p->private_data_len) {
		if (!swi_fault_setup_alloc())
			cep->pdata = kmemdup(p->private_data,
					     p->private_data_len, GFP_KERNEL);
		if (!cep->pdata) {
			swi_cep_put(cep);
			return -ENOMEM;
		}
		cep->pdata_len = p->private_data_len;
		swi_cm_rpc_find(&cep->rpc_ours, cep->pdata, cep->pdata_len);
	}
	/* the consumer's, 0 included: RFC 5040 section 6.1 */
	cep->pol.ird = min_t(u32, p->ird, SWI_MAX_IRD);
	cep->pol.ord = min_t(u32, p->ord, SWI_MAX_ORD);
	id->add_ref(id);
	cep->cm_id = id;
	cep->laddr = id->m_local_addr;
	cep->raddr = id->m_remote_addr;
	id->provider_data = cep;
	INIT_DELAYED_WORK(&cep->work, swi_cm_connect_work);
	/*
	 * The SYN leaves now, so that connections a consumer makes in a row
	 * reach the listener in that order (the work items run in any
	 * order); what it comes to, the work item reports.
	 */
	kref_get(&cep->ref);	/* until the first run is queued */
	mutex_lock(&cep->lock);
	cep->step = SWI_CEP_STEP_TCP;
	cep->tcp_err = swi_cm_tcp_start(cep);
	mutex_unlock(&cep->lock);
	swi_cm_kick(cep);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_connect);
