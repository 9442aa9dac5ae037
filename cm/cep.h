/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the connection manager's own state
 *
 * The endpoint (struct swi_cep) and the listener (struct swi_listener),
 * and the calls the files of cm/ make of each other. Private to cm/: dev/
 * sees cm/cm.h only (tools/check-layers.sh).
 */
#ifndef SOFTIWARP_CM_CEP_H
#define SOFTIWARP_CM_CEP_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "cm/cm.h"
#include "cm/rpcrdma_cm.h"
#include "dev/softiwarp.h"

#define SWI_LISTEN_MAX	8	/* sockets per listener (one per address) */

/* How long a ready Request waits for an earlier connection in startup */
#define SWI_CM_ORDER_HOLD	(HZ / 10)

/* How often an initiator's wait looks whether its QP is still IDLE */
#define SWI_CM_POLL		(HZ / 10)
/* The longest Request or Reply we read: header, private data, v2 data */
#define SWI_CM_FRAME_MAX	(MPA_RR_HDR_SIZE + MPA_MAX_PRIVDATA + \
				 MPA_V2_DATA_SIZE)
/* A step's answer: wait for the socket, the work item runs again */
#define SWI_CM_WAIT		1

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
 * @work_done: the work item has ended the startup (or the listener's
 *	teardown ended it) and given up its reference: nothing queues it
 *	again (swi_cm_kick()); under @lock
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
 * @pend_entry: from its CONNECT_REQUEST until accept or reject, on its
 *	listener's &swi_listener.pending, or on the orphans once the
 *	listener is destroyed (under swi_cm_pend_lock; no reference: the
 *	iw_cm_id's keeps it, see swi_cm_orphans_release())
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
	bool work_done;
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
	struct list_head pend_entry;
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
 * @pending: its endpoints whose CONNECT_REQUEST went to iw_cm and that
 *	were neither accepted nor rejected yet (swi_cm_pend_lock)
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
	struct list_head pending;
};

/* cm/cep.c */
extern struct workqueue_struct *swi_cm_wq;
void swi_cm_rpc_find(struct swi_cm_rpc *r, const void *pdata,
		     size_t len);
void swi_lst_free(struct kref *ref);
void swi_cep_free(struct kref *ref);
void swi_cep_put(struct swi_cep *cep);
struct swi_cep *swi_cep_alloc(struct swi_device *dev, bool initiator);
int swi_cm_upcall(struct iw_cm_id *id, enum iw_cm_event_type type,
		  int status, struct swi_cep *cep, bool with_pdata);
int swi_cm_send(struct socket *sock, const void *buf, size_t len);
void swi_cm_trace_outcome(const struct swi_cep *cep, int err,
			  bool rejected);
void swi_cm_hook(struct swi_cep *cep);
void swi_cm_unhook(struct swi_cep *cep);
void swi_cm_wait(struct swi_cep *cep);
void swi_cm_kick(struct swi_cep *cep);
void swi_cm_work_end(struct swi_cep *cep);
void swi_cm_count_failed(struct swi_cep *cep);
void swi_cm_announce(struct swi_cep *cep, enum iw_cm_event_type type);

/* cm/startup.c */
int swi_cm_frame_begin(struct swi_cep *cep);
int swi_cm_frame_more(struct swi_cep *cep, enum mpa_startup_kind kind);
int swi_cm_negotiate(struct swi_cep *cep);
void swi_cm_sock_timeouts(struct socket *sock);
int swi_cm_prepare(struct swi_cep *cep);
int swi_cm_attach(struct swi_cep *cep);
int swi_cm_send_request(struct swi_cep *cep);
int swi_cm_send_reply(struct swi_cep *cep, bool reject,
		      const void *pdata, u16 len);

/* cm/connect.c */
struct swi_qp *swi_cm_qp_find(struct swi_device *dev,
			      struct iw_cm_id *id, u32 qpn);

/* cm/passive.c */
void swi_cm_passive_failed(struct swi_cep *cep, int err, bool refuse);
void swi_cm_order_run(struct swi_listener *lst);
void swi_cm_orphan_pending(struct swi_listener *lst);
void swi_cm_order_work(struct work_struct *work);
void swi_cm_order_drop(struct swi_listener *lst, struct swi_cep *cep);
void swi_cm_passive_work(struct work_struct *work);

/* cm/addr.c */
struct net *swi_cm_net(struct swi_device *dev);
bool swi_cm_addr_any(const struct sockaddr_storage *ss);
bool swi_cm_listen_here(struct swi_device *dev, struct iw_cm_id *id);
int swi_cm_addrs(struct net_device *nd, sa_family_t family,
		 struct sockaddr_storage *out, int max);

#endif /* SOFTIWARP_CM_CEP_H */
