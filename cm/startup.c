// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the MPA exchange
 *
 * An endpoint's side of MPA startup (RFC 5044 section 7.1, RFC 6581):
 * reading the peer's Request or Reply as it arrives, without waiting on
 * the socket, and decoding it with mpa/'s codec; the negotiation; our own
 * Request or Reply, built and sent by one function (swi_cm_send_frame());
 * and, once negotiated, the stream the QP will run on and the hand-over
 * of the socket to it (Full Operation).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "cm/cep.h"
#include "cm/cm_trace.h"

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

/**
 * swi_cm_frame_begin() - start the wait for the peer's Request or Reply
 * @cep: the endpoint
 *
 * Its buffer, and the deadline: the startup timeout (mpa_timeout_ms).
 *
 * Context: process context; allocates.
 * Return: 0 or -ENOMEM.
 */
int swi_cm_frame_begin(struct swi_cep *cep)
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

/**
 * swi_cm_frame_more() - read and decode the peer's frame as it comes
 * @cep: the endpoint, its wait begun (swi_cm_frame_begin())
 * @kind: the frame expected, Request or Reply
 *
 * Reads what the socket has of it, exactly (not an octet of the FPDUs
 * behind it), and decodes it into @cep once it is complete. The
 * deadline is the wait's, which a peer trickling its frame in cannot
 * renew.
 *
 * Context: process context, under @cep->lock; never waits on the socket.
 * Return: 0, SWI_CM_WAIT, or a negative errno (-EAGAIN when the time is
 * up).
 */
int swi_cm_frame_more(struct swi_cep *cep, enum mpa_startup_kind kind)
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

/**
 * swi_cm_negotiate() - negotiate on the peer's frame
 * @cep: the endpoint, its peer's frame decoded
 *
 * The outcome goes to @cep->res; a refusal is traced.
 *
 * Context: any context.
 * Return: 0, or -EPROTO with @cep->res.error set.
 */
int swi_cm_negotiate(struct swi_cep *cep)
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

/**
 * swi_cm_sock_timeouts() - a startup socket's send and receive timeouts
 * @sock: the socket
 *
 * Both are the startup timeout (mpa_timeout_ms).
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_cm_sock_timeouts(struct socket *sock)
{
	long t = msecs_to_jiffies(swi_cm_timeout_ms());

	sock->sk->sk_rcvtimeo = t;
	sock->sk->sk_sndtimeo = t;
}

/**
 * swi_cm_prepare() - allocate what the connection will need
 * @cep: the endpoint, negotiated, its QP set
 *
 * The stream, sized by the negotiated IRD and ORD; a responder does it
 * before it sends its Reply, so that running out of memory still refuses
 * the connection.
 *
 * Context: process context; allocates.
 * Return: 0 or a negative errno.
 */
int swi_cm_prepare(struct swi_cep *cep)
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

/**
 * swi_cm_attach() - Full Operation: hand the socket to the QP
 * @cep: the endpoint, its stream prepared (swi_cm_prepare())
 *
 * The QP takes the socket in its stream and holds the endpoint
 * (&swi_qp.conn) until it reports its close.
 *
 * Context: process context, under @cep->lock.
 * Return: 0 or a negative errno (the QP is not IDLE).
 */
int swi_cm_attach(struct swi_cep *cep)
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

/**
 * swi_cm_send_request() - send our MPA Request on the connected socket
 * @cep: the initiator's endpoint
 *
 * Context: process context; blocks on the socket.
 * Return: 0 or a negative errno.
 */
int swi_cm_send_request(struct swi_cep *cep)
{
	struct mpa_startup_frame req;

	swi_mpa_startup_request(&cep->pol, cep->pdata, cep->pdata_len, &req);
	return swi_cm_send_frame(cep, &req);
}

/**
 * swi_cm_send_reply() - send our MPA Reply
 * @cep: the responder's endpoint, negotiated
 * @reject: a rejecting Reply (R set)
 * @pdata: our private data
 * @len: its length
 *
 * Context: process context; blocks on the socket.
 * Return: 0 or a negative errno.
 */
int swi_cm_send_reply(struct swi_cep *cep, bool reject,
		      const void *pdata, u16 len)
{
	struct mpa_startup_frame rep;

	swi_mpa_startup_reply(&cep->pol, &cep->res, pdata, len, &rep);
	rep.rejected = reject;
	return swi_cm_send_frame(cep, &rep);
}
