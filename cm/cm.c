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
 * References: the endpoint holds its iw_cm_id (add_ref/rem_ref) and the QP
 * while attached; a listener holds its iw_cm_id. Locking: &swi_cep.lock
 * serialises the endpoint's steps; nothing else is held across socket I/O.
 * &swi_listener.order_lock is taken before an endpoint's lock, never
 * after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "cm/cm.h"
#include "cm/cm_trace.h"
#include "cm/rpcrdma_cm.h"
#include "dev/softiwarp.h"

#define SWI_LISTEN_MAX	8	/* sockets per listener (one per address) */

/* How long a ready Request waits for an earlier connection in startup */
#define SWI_CM_ORDER_HOLD	(HZ / 10)

/* Where an initiator's startup is, for the next run of its work item */
enum swi_cep_step {
	SWI_CEP_STEP_TCP,	/* the TCP handshake under way */
	SWI_CEP_STEP_REPLY,	/* Request sent, the Reply arriving */
};

enum swi_cep_state {
	SWI_CEP_NEW,
	SWI_CEP_AWAIT_ACCEPT,	/* Request delivered to the listener */
	SWI_CEP_UP,		/* handed to the QP */
	SWI_CEP_DEAD,
};

struct swi_listener;

#define SWI_CEP_HELD_DISCONNECT	BIT(0)
#define SWI_CEP_HELD_CLOSE	BIT(1)

/**
 * struct swi_cm_rpc - RFC 8797 RPC-over-RDMA private data seen in a frame
 * @present: a version 1 message was found (section 5.2)
 * @p: its contents
 */
struct swi_cm_rpc {
	bool present;
	struct rpcrdma_cm_params p;
};

/**
 * struct swi_cep - one connection during MPA startup
 * @ref: references; the last put releases the socket if still owned
 * @lock: serialises accept, reject and the work item (their use of
 *	@sock, @state, @qp, @res); taken before the QP's state_lock
 * @dev: the device
 * @cm_id: the connection's iw_cm_id once known, referenced
 * @lst: the listener a passive endpoint came from, referenced
 * @sock: the socket until the QP takes it
 * @qp: the QP, referenced, from connect or accept
 * @stream: the QP's stream between swi_cm_prepare() and swi_cm_attach()
 * @work: the startup's steps, connect (initiator) or the wait for the
 *	Request (responder); run again by the socket's callbacks and by the
 *	timer of the wait's deadline; holds the reference of the allocation
 *	until the startup's end
 * @step: enum swi_cep_step (initiator)
 * @tcp_err: what starting the TCP connect in swi_cm_connect() returned:
 *	SWI_CM_WAIT while the handshake is under way, else its outcome
 * @hooked: swi_cm_sk_event() is the socket's data_ready and state_change
 * @end: the deadline of the current wait (jiffies)
 * @got: octets of the peer's frame in @frame
 * @saved_data_ready: the socket's data_ready before ours
 * @saved_state_change: the socket's state_change before ours
 * @state: enum swi_cep_state
 * @initiator: we connected
 * @closed: CLOSE was reported to iw_cm (or is held back, see @held)
 * @announced: CONNECT_REPLY or ESTABLISHED was delivered; until then
 *	DISCONNECT and CLOSE are held back, as iw_cm BUG()s on a CLOSE that
 *	comes before them (a reset right after the QP took the socket)
 * @held: SWI_CEP_HELD_* events held back until announced
 * @held_status: the status of a held CLOSE
 *
 * @closed, @announced, @held and @held_status are written under the QP's
 * state_lock (swi_cm_qp_changed(), swi_cm_announce()), not under @lock.
 * @pol: the startup policy
 * @res: the negotiation's outcome
 * @peer: the peer's frame; its private data points into @frame
 * @frame: the peer's frame octets
 * @pdata: our private data (initiator)
 * @pdata_len: its length
 * @order_entry: a responder's place in its listener's &swi_listener.order
 *	from accept until its CONNECT_REQUEST is delivered or it fails
 *	(under &swi_listener.order_lock; the entry holds a reference)
 * @ready_at: when its Request was negotiated (jiffies; responder)
 * @ready: its Request is negotiated, its CONNECT_REQUEST not yet sent
 *	(written under @lock, read under the listener's order_lock)
 * @reaped: the listener's teardown has taken it up (under the
 *	listener's order_lock)
 * @rpc_peer: RFC 8797 data in the peer's Request or Reply
 * @rpc_ours: RFC 8797 data in ours
 * @laddr: the local address and port, for trace events
 * @raddr: the peer's address and port, for trace events
 */
struct swi_cep {
	struct kref ref;
	struct mutex lock;	/* the endpoint's steps */
	struct swi_device *dev;
	struct iw_cm_id *cm_id;
	struct swi_listener *lst;
	struct socket *sock;
	struct swi_qp *qp;
	struct eng_stream *stream;
	struct delayed_work work;
	u8 step;
	int tcp_err;
	bool hooked;
	unsigned long end;
	size_t got;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	u8 state;
	bool initiator;
	bool closed;
	bool announced;
	u8 held;
	int held_status;
	struct mpa_startup_policy pol;
	struct mpa_startup_result res;
	struct mpa_startup_frame peer;
	u8 *frame;
	u8 *pdata;
	u16 pdata_len;
	struct list_head order_entry;
	unsigned long ready_at;
	bool ready;
	bool reaped;
	struct swi_cm_rpc rpc_peer;
	struct swi_cm_rpc rpc_ours;
	struct sockaddr_storage laddr;
	struct sockaddr_storage raddr;
};

/**
 * struct swi_listener - the sockets behind one iw_cm listen
 * @ref: references: iw_cm's listen and each endpoint it produced
 * @cm_id: the listening iw_cm_id, referenced
 * @dev: the device
 * @sock: listening sockets, one per local address
 * @nsock: how many
 * @saved_data_ready: the sockets' callbacks before ours
 * @work: accepts what the sockets have
 * @order_lock: serialises @order and the delivery of CONNECT_REQUESTs
 * @order: its endpoints in startup, in the order they were accepted
 * @order_work: delivers again when a Request's hold ends; holds a
 *	reference while queued
 * @dying: destroy_listen ran; no more CONNECT_REQUESTs
 */
struct swi_listener {
	struct kref ref;
	struct iw_cm_id *cm_id;
	struct swi_device *dev;
	struct socket *sock[SWI_LISTEN_MAX];
	int nsock;
	void (*saved_data_ready)(struct sock *sk);
	struct work_struct work;
	struct mutex order_lock;	/* @order, delivery */
	struct list_head order;
	struct delayed_work order_work;
	bool dying;
};

static struct workqueue_struct *swi_cm_wq;

/* Recognise RFC 8797 private data; what the consumer sees is unchanged */
static void swi_cm_rpc_find(struct swi_cm_rpc *r, const void *pdata,
			    size_t len)
{
	size_t off;

	r->present = pdata && !swi_rpcrdma_cm_find(pdata, len, &r->p, &off);
}

static void swi_lst_free(struct kref *ref)
{
	struct swi_listener *lst = container_of(ref, struct swi_listener, ref);

	lst->cm_id->rem_ref(lst->cm_id);
	kfree(lst);
}

static void swi_cep_free(struct kref *ref)
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

static void swi_cep_put(struct swi_cep *cep)
{
	kref_put(&cep->ref, swi_cep_free);
}

static struct swi_cep *swi_cep_alloc(struct swi_device *dev, bool initiator)
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
	cep->dev = dev;
	cep->initiator = initiator;
	swi_cm_policy(&dev->knobs, initiator, &cep->pol);
	return cep;
}

/* Deliver an event to @id's consumer */
static int swi_cm_upcall(struct iw_cm_id *id, enum iw_cm_event_type type,
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

/* Send all of @buf, blocking (with the socket's send timeout) */
static int swi_cm_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int n = kernel_sendmsg(sock, &msg, &kv, 1, len);

	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

/* Why the peer's frame was refused, from the errno of the codec */
static int swi_cm_frame_reason(int err)
{
	switch (err) {
	case -EBADMSG:
		return SWI_CM_BAD_KEY;
	case -EMSGSIZE:
		return SWI_CM_PD_TOO_LONG;
	default:
		return SWI_CM_BAD_LENGTH;
	}
}

/* Why the negotiation refused the peer's frame, from its MPA error */
static int swi_cm_mpa_reason(const struct swi_cep *cep)
{
	switch (cep->res.error) {
	case MPA_ERR_INSUFFICIENT_IRD:
		return SWI_CM_NO_IRD;
	case MPA_ERR_NO_MATCHING_RTR:
		return SWI_CM_NO_RTR;
	default:
		return cep->initiator && cep->peer.p2p && !cep->pol.p2p ?
		       SWI_CM_BAD_P2P : SWI_CM_BAD_REV;
	}
}

/*
 * Trace the peer's frame refused for @reason (enum swi_cm_bad_input);
 * @got octets of it arrived. Return: @err.
 */
static int swi_cm_bad_input(const struct swi_cep *cep, int reason, int err,
			    size_t got)
{
	const struct mpa_rr_hdr *hdr = (const void *)cep->frame;
	int rev = -1, pd_len = -1;

	if (got >= MPA_RR_HDR_SIZE) {
		rev = be16_get_bits(hdr->bits, MPA_REV_MASK);
		pd_len = be16_to_cpu(hdr->pd_len);
	}
	trace_mpa_input_rejected(&cep->laddr, &cep->raddr, !cep->initiator,
				 reason, err, rev, pd_len);
	return err;
}

/*
 * Trace how the startup ended: @err 0 or the errno, @rejected when a
 * Reply with R was sent or received
 */
static void swi_cm_trace_outcome(const struct swi_cep *cep, int err,
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

/* How often an initiator's wait looks whether its QP is still IDLE */
#define SWI_CM_POLL		(HZ / 10)
/* The longest Request or Reply we read: header, private data, v2 data */
#define SWI_CM_FRAME_MAX	(MPA_RR_HDR_SIZE + MPA_MAX_PRIVDATA + \
				 MPA_V2_DATA_SIZE)
/* A step's answer: wait for the socket, the work item runs again */
#define SWI_CM_WAIT		1

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

/* Our callbacks on the endpoint's socket, for the startup's waits */
static void swi_cm_hook(struct swi_cep *cep)
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

/*
 * The socket's callbacks back to TCP's when the startup's waits are over,
 * before the stream takes the socket. Called by the work item itself: a
 * run that a callback or the deadline queued meanwhile is withdrawn, so
 * that nothing runs the work item once its reference is put.
 */
static void swi_cm_unhook(struct swi_cep *cep)
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

/*
 * A step waits: the work item runs again at the wait's deadline (an
 * initiator's at least every SWI_CM_POLL, for swi_cm_qp_gone()), or
 * sooner when the socket's callback queues it. A callback that came
 * since the step looked has queued it already, which this leaves be.
 */
static void swi_cm_wait(struct swi_cep *cep)
{
	long left = max_t(long, (long)(cep->end - jiffies), 0);

	if (cep->initiator)
		left = min_t(long, left, SWI_CM_POLL);
	queue_delayed_work(swi_cm_wq, &cep->work, left);
}

/* Start the wait for the peer's frame, bounded by the startup timeout */
static int swi_cm_frame_begin(struct swi_cep *cep)
{
	if (!swi_fault_setup_alloc())
		cep->frame = kmalloc(SWI_CM_FRAME_MAX, GFP_KERNEL);
	if (!cep->frame)
		return -ENOMEM;
	cep->got = 0;
	cep->end = jiffies + msecs_to_jiffies(swi_cm_timeout_ms());
	return 0;
}

/* Up to @len octets of the frame, without waiting: -EAGAIN when none */
static int swi_cm_recv_some(struct swi_cep *cep, size_t len)
{
	struct kvec kv = { .iov_base = cep->frame + cep->got, .iov_len = len };
	struct msghdr msg = {};
	int n = kernel_recvmsg(cep->sock, &msg, &kv, 1, len, MSG_DONTWAIT);

	return n ? n : -ECONNRESET;	/* 0: the peer's FIN */
}

/*
 * Read what the socket has of the peer's Request or Reply, exactly (not
 * an octet of the FPDUs behind it), and decode the frame into @cep once
 * it is complete. The deadline is the wait's, which a peer trickling its
 * frame in cannot renew. Return: 0, SWI_CM_WAIT, or a negative errno
 * (-EAGAIN when the time is up).
 */
static int swi_cm_frame_more(struct swi_cep *cep, enum mpa_startup_kind kind)
{
	int need = swi_mpa_startup_need(cep->frame, cep->got, kind);
	int err;

	while (need > 0 && cep->got + need <= SWI_CM_FRAME_MAX) {
		err = swi_cm_recv_some(cep, need);
		if (err == -EAGAIN && time_before(jiffies, cep->end))
			return SWI_CM_WAIT;
		if (err == -EAGAIN)
			swi_count(cep->dev, SWI_CNT_MPA_TIMEOUTS);
		if (err < 0)
			return err;
		cep->got += err;
		need = swi_mpa_startup_need(cep->frame, cep->got, kind);
	}
	if (need > 0)	/* a revision 0 frame beyond our buffer */
		need = -EMSGSIZE;
	err = need < 0 ? need : swi_mpa_startup_parse(cep->frame, cep->got, kind,
						   &cep->peer);
	if (err)
		return swi_cm_bad_input(cep, swi_cm_frame_reason(err), err,
					cep->got);
	swi_cm_rpc_find(&cep->rpc_peer, cep->peer.pdata, cep->peer.pdata_len);
	if (kind == MPA_STARTUP_REQUEST)
		trace_mpa_request_recv(&cep->laddr, &cep->raddr, &cep->peer);
	else
		trace_mpa_reply_recv(&cep->laddr, &cep->raddr, &cep->peer);
	return 0;
}

/* Negotiate on the peer's frame; trace a refusal */
static int swi_cm_negotiate(struct swi_cep *cep)
{
	enum mpa_startup_role role = cep->initiator ? MPA_STARTUP_INITIATOR :
						      MPA_STARTUP_RESPONDER;
	int err;

	err = swi_mpa_startup_negotiate(&cep->pol, role, &cep->peer, &cep->res);
	if (err == -EPROTO && cep->res.error != MPA_ERR_NONE)
		swi_cm_bad_input(cep, swi_cm_mpa_reason(cep), err,
				 MPA_RR_HDR_SIZE);
	return err;
}

static void swi_cm_sock_timeouts(struct socket *sock)
{
	long t = msecs_to_jiffies(swi_cm_timeout_ms());

	sock->sk->sk_rcvtimeo = t;
	sock->sk->sk_sndtimeo = t;
}

/*
 * Everything the connection will need, allocated before the responder
 * sends its Reply: the stream, sized by the negotiated IRD/ORD
 */
static int swi_cm_prepare(struct swi_cep *cep)
{
	struct eng_stream_cfg cfg = {
		.tx = { .crc = cep->res.crc_tx, .markers = cep->res.markers_tx },
		.rx = { .crc = cep->res.crc_rx, .markers = cep->res.markers_rx },
		.rdmac = cep->res.ddp_rdmap_ver == 0,
		.hold = !cep->initiator,
		.rtr = cep->initiator && cep->res.p2p,
		.rev = cep->res.rev,
		.p2p = cep->res.p2p,
		.rd_limits = true,
		.ird = cep->res.ird,
		.ord = cep->res.ord,
	};
	struct eng_stream *s;

	swi_qp_set_rd_limits(cep->qp, cep->res.ird, cep->res.ord);
	s = swi_qp_stream_new(cep->qp, cep->sock, &cfg);
	if (IS_ERR(s))
		return PTR_ERR(s);
	cep->stream = s;
	return 0;
}

/* Full Operation: hand the socket, in its prepared stream, to the QP */
static int swi_cm_attach(struct swi_cep *cep)
{
	struct eng_stream *s = cep->stream;
	int err;

	cep->stream = NULL;
	kref_get(&cep->ref);	/* held by qp->conn */
	err = swi_qp_attach_stream(cep->qp, s, cep);
	if (err) {
		kref_put(&cep->ref, swi_cep_free);	/* never the last */
		return err;
	}
	cep->sock = NULL;	/* the QP's now */
	cep->state = SWI_CEP_UP;
	return 0;
}

static struct net *swi_cm_net(struct swi_device *dev)
{
	return dev_net(dev->netdev);
}

/*
 * Create the socket in the device's namespace, bind the mapped local
 * address and start the TCP handshake, non-blocking; its outcome runs the
 * work item (swi_cm_tcp_done()). Return: 0 connected, SWI_CM_WAIT, or a
 * negative errno.
 */
static int swi_cm_tcp_start(struct swi_cep *cep)
{
	struct sockaddr *raddr = (struct sockaddr *)&cep->cm_id->m_remote_addr;
	struct sockaddr *laddr = (struct sockaddr *)&cep->cm_id->m_local_addr;
	int err = -ENOMEM;

	if (!swi_fault_setup_alloc())
		err = sock_create_kern(swi_cm_net(cep->dev), raddr->sa_family,
				       SOCK_STREAM, IPPROTO_TCP, &cep->sock);
	if (err)
		return err;
	swi_cm_sock_timeouts(cep->sock);
	/*
	 * rdma_cm picked the local port in its own port space, not in TCP's:
	 * one of our earlier connections may still hold it in TIME_WAIT,
	 * which must not fail the bind (connect still refuses a duplicate
	 * four-tuple).
	 */
	sock_set_reuseaddr(cep->sock->sk);
	err = kernel_bind(cep->sock, swi_sockaddr_arg(laddr),
			  rdma_addr_size(laddr));
	if (err)
		return err;
	swi_cm_hook(cep);
	cep->end = jiffies + msecs_to_jiffies(swi_cm_timeout_ms());
	err = kernel_connect(cep->sock, swi_sockaddr_arg(raddr),
			     rdma_addr_size(raddr), O_NONBLOCK);
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
 * Build our MPA Request or Reply @f and send it on the endpoint's socket,
 * the one sequence of both (a rejecting Reply is counted)
 */
static int swi_cm_send_frame(struct swi_cep *cep,
			     const struct mpa_startup_frame *f)
{
	size_t len = swi_mpa_startup_frame_len(f);
	u8 *buf = swi_fault_setup_alloc() ? NULL : kmalloc(len, GFP_KERNEL);
	int err;

	if (!buf)
		return -ENOMEM;
	err = swi_mpa_startup_build(f, buf, len);
	if (err >= 0)
		err = swi_cm_send(cep->sock, buf, len);
	kfree(buf);
	if (err)
		return err;
	if (f->kind == MPA_STARTUP_REQUEST) {
		trace_mpa_request_sent(&cep->laddr, &cep->raddr, f);
	} else {
		trace_mpa_reply_sent(&cep->laddr, &cep->raddr, f);
		if (f->rejected)
			swi_count(cep->dev, SWI_CNT_TX_MPA_REJECTS);
	}
	return 0;
}

/* Send our MPA Request on the connected socket */
static int swi_cm_send_request(struct swi_cep *cep)
{
	struct mpa_startup_frame req;

	swi_mpa_startup_request(&cep->pol, cep->pdata, cep->pdata_len, &req);
	return swi_cm_send_frame(cep, &req);
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
 * A connection attempt ends before Full Operation: count it, and the
 * peer's rejecting Reply that ended it if there was one
 */
static void swi_cm_count_failed(struct swi_cep *cep)
{
	swi_count(cep->dev, SWI_CNT_CONN_FAILED);
	if (cep->res.rejected)
		swi_count(cep->dev, SWI_CNT_RX_MPA_REJECTS);
}

/*
 * Deliver CONNECT_REPLY (success) or ESTABLISHED, then whatever the QP
 * reported meanwhile (swi_cm_qp_changed() held it back), in that order.
 * Called with @cep->lock held and a reference of the caller's own.
 */
static void swi_cm_announce(struct swi_cep *cep, enum iw_cm_event_type type)
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
	swi_cm_unhook(cep);
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

/*
 * The QP of a connect or accept, referenced: found by the consumer's
 * number for the caller and of @id's kind. Return: the QP or NULL.
 */
static struct swi_qp *swi_cm_qp_find(struct swi_device *dev,
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
	mutex_lock(&cep->lock);
	cep->step = SWI_CEP_STEP_TCP;
	cep->tcp_err = swi_cm_tcp_start(cep);
	mutex_unlock(&cep->lock);
	queue_delayed_work(swi_cm_wq, &cep->work, 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_connect);

/* Send a Reply: accepting with @res, or rejecting, with private data */
static int swi_cm_send_reply(struct swi_cep *cep, bool reject,
			     const void *pdata, u16 len)
{
	struct mpa_startup_frame rep;

	swi_mpa_startup_reply(&cep->pol, &cep->res, pdata, len, &rep);
	rep.rejected = reject;
	return swi_cm_send_frame(cep, &rep);
}

/* A responder that will send no CONNECT_REQUEST: say why, count it */
static void swi_cm_passive_failed(struct swi_cep *cep, int err, bool refuse)
{
	lockdep_assert_held(&cep->lock);
	swi_cm_trace_outcome(cep, err, refuse);
	net_info_ratelimited("MPA Request refused: %d (MPA error %d)\n",
			     err, cep->res.error);
	swi_cm_count_failed(cep);
	cep->state = SWI_CEP_DEAD;
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

/*
 * Deliver the CONNECT_REQUESTs that may go, in accept order: a ready
 * Request goes when every endpoint accepted before it is gone, or it has
 * waited SWI_CM_ORDER_HOLD for those still in startup; a later one never
 * passes an earlier ready one.
 */
static void swi_cm_order_run(struct swi_listener *lst)
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

static void swi_cm_order_work(struct work_struct *work)
{
	struct swi_listener *lst = container_of(to_delayed_work(work),
						struct swi_listener,
						order_work);

	swi_cm_order_run(lst);
	kref_put(&lst->ref, swi_lst_free);
}

/* @cep failed in startup: out of the order, and the others may go */
static void swi_cm_order_drop(struct swi_listener *lst, struct swi_cep *cep)
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

/*
 * The responder's work item: the Request as it comes, then its turn in
 * the listener's order (swi_cm_order_run())
 */
static void swi_cm_passive_work(struct work_struct *work)
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
	swi_cm_unhook(cep);
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

/* A new connection on a listening socket: child callbacks back to TCP's */
static void swi_cm_accept_one(struct swi_listener *lst, struct socket *ns)
{
	struct sock *sk = ns->sk;
	struct swi_cep *cep;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = lst->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cep = swi_cep_alloc(lst->dev, false);
	if (!cep) {
		sock_release(ns);
		return;
	}
	cep->sock = ns;
	kernel_getsockname(ns, (struct sockaddr *)&cep->laddr);
	kernel_getpeername(ns, (struct sockaddr *)&cep->raddr);
	kref_get(&lst->ref);
	cep->lst = lst;
	swi_cm_sock_timeouts(ns);
	if (swi_cm_frame_begin(cep)) {
		swi_count(cep->dev, SWI_CNT_CONN_FAILED);
		swi_cep_put(cep);
		return;
	}
	INIT_DELAYED_WORK(&cep->work, swi_cm_passive_work);
	kref_get(&cep->ref);	/* the order's entry */
	mutex_lock(&lst->order_lock);
	list_add_tail(&cep->order_entry, &lst->order);
	mutex_unlock(&lst->order_lock);
	swi_cm_hook(cep);	/* the Request may be there: look at once */
	queue_delayed_work(swi_cm_wq, &cep->work, 0);
}

static void swi_cm_listen_work(struct work_struct *work)
{
	struct swi_listener *lst = container_of(work, struct swi_listener,
						work);
	struct socket *ns;
	int i;

	/* acquire: the sockets the count covers are in place */
	for (i = 0; i < smp_load_acquire(&lst->nsock); i++)
		while (!READ_ONCE(lst->dying) &&
		       !kernel_accept(lst->sock[i], &ns, O_NONBLOCK))
			swi_cm_accept_one(lst, ns);
	kref_put(&lst->ref, swi_lst_free);
}

static void swi_cm_listen_ready(struct sock *sk)
{
	struct swi_listener *lst;

	read_lock_bh(&sk->sk_callback_lock);
	lst = sk->sk_user_data;
	if (lst && sk->sk_state == TCP_LISTEN) {
		kref_get(&lst->ref);
		if (!queue_work(swi_cm_wq, &lst->work))
			kref_put(&lst->ref, swi_lst_free);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * One listening socket on @addr in the device's namespace. IPv6 sockets
 * are IPv6-only, so that the IPv4 and IPv6 wildcards of one port can be
 * listened on at once (as nfsd does). @freebind: the address was read off
 * the netdev and may still be tentative (IPv6 duplicate address
 * detection running).
 */
static int swi_cm_listen_on(struct swi_listener *lst,
			    struct sockaddr_storage *addr, bool freebind,
			    int backlog)
{
	struct sockaddr *sa = (struct sockaddr *)addr;
	struct socket *sock;
	struct sock *sk;
	int err;

	if (lst->nsock == SWI_LISTEN_MAX)
		return -ENOSPC;
	if (swi_fault_setup_alloc())
		return -ENOMEM;
	err = sock_create_kern(swi_cm_net(lst->dev), sa->sa_family,
			       SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err)
		return err;
	sk = sock->sk;
	sock_set_reuseaddr(sk);
	if (freebind)
		ip_sock_set_freebind(sk);
	if (IS_ENABLED(CONFIG_IPV6) && sa->sa_family == AF_INET6)
		err = ip6_sock_set_v6only(sk);
	if (!err)
		err = kernel_bind(sock, swi_sockaddr_arg(sa),
				  rdma_addr_size(sa));
	if (err) {
		sock_release(sock);
		return err;
	}
	/*
	 * The callback and the socket's place in the listener come before
	 * the listen: a connection completing at once must find both, or
	 * it would wait in the accept queue for the next one to arrive.
	 */
	write_lock_bh(&sk->sk_callback_lock);
	lst->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = lst;
	sk->sk_data_ready = swi_cm_listen_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	lst->sock[lst->nsock] = sock;
	smp_store_release(&lst->nsock, lst->nsock + 1);	/* pairs: listen work */
	return kernel_listen(sock, backlog);
}

/* The netdev's IPv4 addresses, port 0 */
static int swi_cm_addrs_ipv4(struct net_device *nd,
			     struct sockaddr_storage *out, int max)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int n = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(nd);
	if (in_dev)
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			struct sockaddr_in *sin = (void *)&out[n];

			if (n == max)
				break;
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = ifa->ifa_local;
			n++;
		}
	rcu_read_unlock();
	return n;
}

/* The netdev's IPv6 addresses, port 0; link-local ones with their scope */
static int swi_cm_addrs_ipv6(struct net_device *nd,
			     struct sockaddr_storage *out, int max)
{
	int n = 0;
#if IS_ENABLED(CONFIG_IPV6)
	struct inet6_ifaddr *ifp;
	struct inet6_dev *idev = in6_dev_get(nd);

	if (!idev)
		return 0;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		struct sockaddr_in6 *sin6 = (void *)&out[n];

		if (n == max)
			break;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = ifp->addr;
		if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = nd->ifindex;
		n++;
	}
	read_unlock_bh(&idev->lock);
	in6_dev_put(idev);
#endif
	return n;
}

/*
 * A wildcard listen: one socket per address of the netdev in @family. A
 * netdev without such an address listens on nothing and succeeds: rdma_cm
 * listens on the wildcard through every device, and one device without,
 * say, IPv6 must not fail the listen of all of them.
 */
static int swi_cm_listen_any(struct swi_listener *lst, sa_family_t family,
			     __be16 port, int backlog)
{
	struct sockaddr_storage *addrs;
	int n, i, err = 0;

	addrs = kcalloc(SWI_LISTEN_MAX, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	if (family == AF_INET)
		n = swi_cm_addrs_ipv4(lst->dev->netdev, addrs, SWI_LISTEN_MAX);
	else
		n = swi_cm_addrs_ipv6(lst->dev->netdev, addrs, SWI_LISTEN_MAX);
	for (i = 0; i < n && !err; i++) {
		/* port is at the same offset in sockaddr_in and _in6 */
		((struct sockaddr_in *)&addrs[i])->sin_port = port;
		err = swi_cm_listen_on(lst, &addrs[i], true, backlog);
	}
	kfree(addrs);
	return err;
}

static void swi_cm_listen_close(struct swi_listener *lst)
{
	int i;

	WRITE_ONCE(lst->dying, true);
	for (i = 0; i < lst->nsock; i++) {
		struct sock *sk = lst->sock[i]->sk;

		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = lst->saved_data_ready;
		write_unlock_bh(&sk->sk_callback_lock);
	}
	if (cancel_work_sync(&lst->work))
		kref_put(&lst->ref, swi_lst_free);	/* the work's */
	for (i = 0; i < lst->nsock; i++)
		sock_release(lst->sock[i]);
	lst->nsock = 0;
}

/* The IPv4 or IPv6 wildcard address */
static bool swi_cm_addr_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return sin->sin_addr.s_addr == htonl(INADDR_ANY);
	return ss->ss_family == AF_INET6 && ipv6_addr_any(&sin6->sin6_addr);
}

/*
 * Whether a wildcard listen of @id belongs on @dev. rdma_cm passes a
 * wildcard listen to every iWARP device, whatever namespace the device
 * and its netdev are in (cma_listen_on_all()), in shared and in exclusive
 * mode. Listening on a device whose netdev is in another namespace would
 * take the port there from that namespace's own consumers (two
 * containers with a server on one port), and rdma_cm refuses the
 * connections arriving there anyway (cma_validate_port()). The consumer's
 * namespace is that of its rdma_cm_id: rdma_cm, the one user of iw_cm,
 * makes the iw_cm_id's context its rdma_id_private (cma_iw_listen()),
 * which begins with that rdma_cm_id (drivers/infiniband/core/cma_priv.h).
 * In exclusive mode the device itself must be that namespace's too
 * (rdma_dev_access_netns()): one moved away by "rdma dev set" while its
 * netdev stayed takes no port there either. An id without a context (the
 * KUnit suites') listens.
 */
static bool swi_cm_listen_here(struct swi_device *dev, struct iw_cm_id *id)
{
	const struct rdma_cm_id *owner = id->context;
	struct net *net;

	if (!owner)
		return true;
	net = READ_ONCE(owner->route.addr.dev_addr.net);
	return net_eq(net, swi_cm_net(dev)) &&
	       rdma_dev_access_netns(&dev->ibdev, net);
}

/**
 * swi_cm_create_listen() - iw_cm's listen
 * @id: the listening iw_cm_id (m_local_addr: address and port)
 * @backlog: the TCP backlog
 *
 * A wildcard address, IPv4 or IPv6, listens on each address of that family
 * the device's netdev has when the listen begins (IPv6 link-local ones
 * with the netdev's scope), so that another iWARP device on the same host
 * can listen on the same port; another address gets one socket. IPv6
 * sockets take IPv6 only: the IPv4 and IPv6 wildcards are two listens.
 * Each listen has its own sockets; failing or ending one leaves every
 * other as it was. A wildcard listen made in another network namespace
 * than the netdev's gets no socket (swi_cm_listen_here()).
 *
 * Context: process context.
 * Return: 0 or a negative errno (-EADDRINUSE: an address of the listen is
 * taken by another socket on that port).
 */
int swi_cm_create_listen(struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage addr = id->m_local_addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&addr;
	struct swi_listener *lst;
	int err;

	if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (swi_cm_addr_any(&addr) &&
	    !swi_cm_listen_here(to_swi_dev(id->device), id))
		return 0;	/* another namespace's: no listener, no socket */
	lst = swi_fault_setup_alloc() ? NULL : kzalloc(sizeof(*lst), GFP_KERNEL);
	if (!lst)
		return -ENOMEM;
	kref_init(&lst->ref);
	lst->dev = to_swi_dev(id->device);
	lst->cm_id = id;
	INIT_WORK(&lst->work, swi_cm_listen_work);
	mutex_init(&lst->order_lock);
	INIT_LIST_HEAD(&lst->order);
	INIT_DELAYED_WORK(&lst->order_work, swi_cm_order_work);
	id->add_ref(id);
	if (addr.ss_family == AF_INET6 && !sin6->sin6_scope_id &&
	    (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		sin6->sin6_scope_id = lst->dev->netdev->ifindex;
	if (swi_cm_addr_any(&addr))
		err = swi_cm_listen_any(lst, addr.ss_family, sin6->sin6_port,
					backlog);
	else
		err = swi_cm_listen_on(lst, &addr, false, backlog);
	if (err) {
		ibdev_info_ratelimited(&lst->dev->ibdev,
				       "listen on %pISpc failed: %d\n",
				       &id->m_local_addr, err);
		swi_cm_listen_close(lst);
		kref_put(&lst->ref, swi_lst_free);
		return err;
	}
	id->provider_data = lst;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_create_listen);

/*
 * End @cep's startup for its listener's teardown, if it is still waiting
 * for its Request: the work item no longer runs (a run already under way
 * sees SWI_CEP_DEAD and leaves), the socket's callbacks are TCP's again,
 * and the work item's reference and the order's entry are given back
 * here. One that has its Request, or has failed, finishes on its own.
 */
static void swi_cm_reap(struct swi_listener *lst, struct swi_cep *cep)
{
	bool waiting;

	mutex_lock(&cep->lock);
	waiting = cep->state == SWI_CEP_NEW && !cep->ready;
	if (waiting) {
		swi_cm_unhook(cep);
		swi_cm_passive_failed(cep, -ECONNABORTED, false);
	}
	mutex_unlock(&cep->lock);
	if (!waiting)
		return;
	cancel_delayed_work_sync(&cep->work);
	swi_cm_order_drop(lst, cep);
	swi_cep_put(cep);	/* the work item's */
}

/* The next endpoint of a dying listener to reap, referenced, or NULL */
static struct swi_cep *swi_cm_next_reap(struct swi_listener *lst)
{
	struct swi_cep *cep, *found = NULL;

	mutex_lock(&lst->order_lock);
	list_for_each_entry(cep, &lst->order, order_entry) {
		if (!cep->reaped) {
			cep->reaped = true;
			kref_get(&cep->ref);
			found = cep;
			break;
		}
	}
	mutex_unlock(&lst->order_lock);
	return found;
}

/*
 * A listener's teardown: every endpoint it accepted that is still in
 * startup ends now, before destroy_listen returns, so that none outlives
 * the device (the core frees it once its listens and connections are
 * gone) or its namespace. Endpoints whose CONNECT_REQUEST was delivered
 * belong to iw_cm, which rejects them when it destroys their ids.
 */
static void swi_cm_listen_reap(struct swi_listener *lst)
{
	struct swi_cep *cep;

	while ((cep = swi_cm_next_reap(lst))) {
		swi_cm_reap(lst, cep);
		swi_cep_put(cep);
	}
	swi_cm_order_run(lst);	/* refuses the Requests that wait their turn */
	if (cancel_delayed_work_sync(&lst->order_work))
		kref_put(&lst->ref, swi_lst_free);	/* the queued run's */
}

/**
 * swi_cm_destroy_listen() - iw_cm's destroy_listen
 * @id: the listening iw_cm_id
 *
 * The listening sockets close, and every connection still in MPA startup
 * ends before it returns: one waiting for its Request is closed, one
 * whose Request waits its turn is refused (swi_cm_listen_reap()).
 *
 * Context: process context.
 * Return: 0.
 */
int swi_cm_destroy_listen(struct iw_cm_id *id)
{
	struct swi_listener *lst = id->provider_data;

	if (!lst)
		return 0;
	id->provider_data = NULL;
	swi_cm_listen_close(lst);
	swi_cm_listen_reap(lst);
	kref_put(&lst->ref, swi_lst_free);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_destroy_listen);

static void swi_cm_show_rpc(struct seq_file *m, const char *who,
			    const struct swi_cm_rpc *r)
{
	if (!r->present) {
		seq_printf(m, " rpcrdma_%s=none", who);
		return;
	}
	seq_printf(m, " rpcrdma_%s=v1,send=%u,recv=%u,remote_inv=%d", who,
		   r->p.send_size, r->p.recv_size, r->p.remote_inv);
}

static void swi_cm_show_cep(struct swi_qp *qp, struct swi_cep *cep,
			    void *arg)
{
	const struct mpa_startup_result *r = &cep->res;
	struct seq_file *m = arg;

	seq_printf(m, "qp %u %s rev %u crc tx/rx %d/%d markers tx/rx %d/%d ird %u ord %u p2p %d",
		   qp->base.qp_num, cep->initiator ? "initiator" : "responder",
		   r->rev, r->crc_tx, r->crc_rx, r->markers_tx, r->markers_rx,
		   r->ird, r->ord, r->p2p);
	swi_cm_show_rpc(m, "peer", &cep->rpc_peer);
	swi_cm_show_rpc(m, "ours", &cep->rpc_ours);
	seq_putc(m, '\n');
}

/* One line per connected QP of the device */
static int swi_cm_conn_show(struct seq_file *m, void *unused)
{
	swi_qp_walk_conns(m->private, swi_cm_show_cep, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swi_cm_conn);

/**
 * swi_cm_debugfs_add() - the connection manager's file in a device's directory
 * @dev: the registered device, its debugfs directory made (dev/device.c)
 *
 * softiwarp/DEV/connections lists every connected QP: the negotiated MPA
 * parameters and the RFC 8797 private data of either side, if any.
 *
 * Context: process context.
 * Return: nothing (debugfs failures are not errors).
 */
void swi_cm_debugfs_add(struct swi_device *dev)
{
	debugfs_create_file("connections", 0400, dev->debugfs, dev,
			    &swi_cm_conn_fops);
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
