// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA Request/Reply frames and the startup negotiation
 *
 * Frame (RFC 5044 section 7.1.1, RFC 6581)::
 *
 *   Key (16 octets) | M C R H Res(4) Rev(8) | PD_Length (16) | Private Data
 *
 * With Rev 2 and H set, the private data starts with the 4 octets of RFC
 * 6581 enhanced connection data (IRD word, ORD word), counted in PD_Length
 * and hidden from the consumer. PD_Length is at most 512 except in
 * revision 0 frames (draft-ietf-rddp-mpa-01), where it may be 65535.
 *
 * Nothing here trusts the wire: the key is compared as soon as its first
 * octet is there, PD_Length is checked against its limit as soon as the
 * header is complete, and a frame whose bytes disagree with PD_Length (too
 * few or too many) is improperly formatted. Reserved bits are sent as zero
 * and never checked; R is only meaningful in a Reply.
 *
 * swi_mpa_startup_negotiate() is a pure function of the local policy, our role
 * and the peer's decoded frame; the connection manager owns the socket,
 * the timeouts and the private data buffers.
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "mpa/mpa_startup.h"

static const char *mpa_startup_key(enum mpa_startup_kind kind)
{
	return kind == MPA_STARTUP_REQUEST ? MPA_KEY_REQ : MPA_KEY_REP;
}

static unsigned int mpa_startup_pd_max(u8 rev)
{
	return rev == MPA_REV_0 ? MPA_REV0_MAX_PRIVDATA : MPA_MAX_PRIVDATA;
}

static bool mpa_startup_hdr_enhanced(const struct mpa_rr_hdr *hdr)
{
	return be16_get_bits(hdr->bits, MPA_REV_MASK) == MPA_REV_2 &&
	       be16_get_bits(hdr->bits, MPA_FLAG_H);
}

/* The checks of a complete header that need no private data octets. */
static int mpa_startup_check_hdr(const struct mpa_rr_hdr *hdr)
{
	unsigned int pd_len = be16_to_cpu(hdr->pd_len);

	if (pd_len > mpa_startup_pd_max(be16_get_bits(hdr->bits, MPA_REV_MASK)))
		return -EMSGSIZE;
	if (mpa_startup_hdr_enhanced(hdr) && pd_len < MPA_V2_DATA_SIZE)
		return -EPROTO;
	return 0;
}

/**
 * swi_mpa_startup_need() - how many more octets a startup frame needs
 * @buf: the octets received so far, from the first octet of the frame
 * @len: number of octets in @buf
 * @kind: the frame expected: a responder expects a Request, an initiator
 *	a Reply
 *
 * Meant to be called each time bytes were appended to @buf, in the spirit
 * of the strparser parse callback. Before the header is complete the
 * answer is what the header still needs; after, what the whole frame
 * needs. Feed the frame no more than asked for: the peer must not send
 * anything behind its frame before it hears from us, so extra octets are a
 * PD_Length that disagrees with the data.
 *
 * Context: any context.
 * Return: 0 when @buf holds exactly one complete frame; > 0, the number of
 * octets still missing; -EBADMSG when the key is not the one of @kind
 * (garbage, or an Initiator/Initiator startup), -EMSGSIZE when PD_Length
 * exceeds the limit of the revision, -EPROTO when PD_Length disagrees
 * with the data (octets beyond the frame, or Rev 2 with H and less than
 * the 4 octets of enhanced data).
 */
int swi_mpa_startup_need(const void *buf, size_t len, enum mpa_startup_kind kind)
{
	struct mpa_rr_hdr hdr;
	size_t total;
	int err;

	if (len && memcmp(buf, mpa_startup_key(kind),
			  min_t(size_t, len, MPA_KEY_SIZE)))
		return -EBADMSG;
	if (len < MPA_RR_HDR_SIZE)
		return MPA_RR_HDR_SIZE - len;
	memcpy(&hdr, buf, sizeof(hdr));
	err = mpa_startup_check_hdr(&hdr);
	if (err)
		return err;
	total = MPA_RR_HDR_SIZE + be16_to_cpu(hdr.pd_len);
	if (len > total)
		return -EPROTO;
	return total - len;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_need);

static void mpa_startup_decode_hdr(const struct mpa_rr_hdr *hdr,
				   enum mpa_startup_kind kind,
				   struct mpa_startup_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->rev = be16_get_bits(hdr->bits, MPA_REV_MASK);
	f->markers = be16_get_bits(hdr->bits, MPA_FLAG_M);
	f->crc = be16_get_bits(hdr->bits, MPA_FLAG_C);
	/* R is "set to zero, and not checked on reception" in a Request */
	f->rejected = kind == MPA_STARTUP_REPLY &&
		      be16_get_bits(hdr->bits, MPA_FLAG_R);
	f->enhanced = mpa_startup_hdr_enhanced(hdr);
}

/* Take the RFC 6581 enhanced data off the front of the private data. */
static void mpa_startup_decode_v2(struct mpa_startup_frame *f)
{
	struct mpa_v2_data v2;

	memcpy(&v2, f->pdata, sizeof(v2));
	f->p2p = be16_get_bits(v2.ird, MPA_V2_PEER2PEER);
	f->ird = be16_get_bits(v2.ird, MPA_V2_IRD_ORD_MASK);
	f->ord = be16_get_bits(v2.ord, MPA_V2_IRD_ORD_MASK);
	if (be16_get_bits(v2.ird, MPA_V2_RTR_SEND))
		f->rtr |= MPA_RTR_SEND;
	if (be16_get_bits(v2.ord, MPA_V2_RTR_WRITE))
		f->rtr |= MPA_RTR_WRITE;
	if (be16_get_bits(v2.ord, MPA_V2_RTR_READ))
		f->rtr |= MPA_RTR_READ;
	f->pdata += sizeof(v2);
	f->pdata_len -= sizeof(v2);
}

/**
 * swi_mpa_startup_parse() - decode one complete Request or Reply frame
 * @buf: the frame, and nothing else
 * @len: number of octets in @buf
 * @kind: the frame expected (see swi_mpa_startup_need())
 * @f: the decoded frame; @f->pdata points into @buf
 *
 * Context: any context.
 * Return: 0 on success; the negative errno of swi_mpa_startup_need() when the
 * frame is malformed; -EPROTO when @buf is shorter than the frame
 * (PD_Length disagrees with the data). Any error means MPA_ERR_REQ_REP.
 */
int swi_mpa_startup_parse(const void *buf, size_t len, enum mpa_startup_kind kind,
			  struct mpa_startup_frame *f)
{
	struct mpa_rr_hdr hdr;
	int need;

	need = swi_mpa_startup_need(buf, len, kind);
	if (need)
		return need < 0 ? need : -EPROTO;
	memcpy(&hdr, buf, sizeof(hdr));
	mpa_startup_decode_hdr(&hdr, kind, f);
	f->pdata = (const u8 *)buf + MPA_RR_HDR_SIZE;
	f->pdata_len = be16_to_cpu(hdr.pd_len);
	if (f->enhanced)
		mpa_startup_decode_v2(f);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_parse);

/**
 * swi_mpa_startup_frame_len() - the length of the frame @f describes
 * @f: the frame to build
 *
 * Context: any context.
 * Return: header, enhanced data and consumer private data octets.
 */
size_t swi_mpa_startup_frame_len(const struct mpa_startup_frame *f)
{
	return MPA_RR_HDR_SIZE + (f->enhanced ? MPA_V2_DATA_SIZE : 0) +
	       f->pdata_len;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_frame_len);

static int mpa_startup_check_build(const struct mpa_startup_frame *f)
{
	size_t pd_len = swi_mpa_startup_frame_len(f) - MPA_RR_HDR_SIZE;

	if (f->kind != MPA_STARTUP_REQUEST && f->kind != MPA_STARTUP_REPLY)
		return -EINVAL;
	if (f->rev > MPA_REV_2 || (f->enhanced && f->rev != MPA_REV_2))
		return -EINVAL;
	if (f->kind == MPA_STARTUP_REQUEST && f->rejected)
		return -EINVAL;
	if (f->enhanced && (f->ird > MPA_V2_IRD_ORD_MASK ||
			    f->ord > MPA_V2_IRD_ORD_MASK ||
			    (f->rtr & ~MPA_RTR_ALL)))
		return -EINVAL;
	if (f->pdata_len && !f->pdata)
		return -EINVAL;
	if (pd_len > mpa_startup_pd_max(f->rev))
		return -EMSGSIZE;
	return 0;
}

static void mpa_startup_encode_hdr(const struct mpa_startup_frame *f,
				   struct mpa_rr_hdr *hdr)
{
	memcpy(hdr->key, mpa_startup_key(f->kind), MPA_KEY_SIZE);
	hdr->bits = be16_encode_bits(f->markers, MPA_FLAG_M) |
		    be16_encode_bits(f->crc, MPA_FLAG_C) |
		    be16_encode_bits(f->rejected, MPA_FLAG_R) |
		    be16_encode_bits(f->enhanced, MPA_FLAG_H) |
		    be16_encode_bits(f->rev, MPA_REV_MASK);
	hdr->pd_len = cpu_to_be16(swi_mpa_startup_frame_len(f) - MPA_RR_HDR_SIZE);
}

static void mpa_startup_encode_v2(const struct mpa_startup_frame *f,
				  struct mpa_v2_data *v2)
{
	bool send = f->rtr & MPA_RTR_SEND;
	bool write = f->rtr & MPA_RTR_WRITE;
	bool read = f->rtr & MPA_RTR_READ;

	v2->ird = be16_encode_bits(f->p2p, MPA_V2_PEER2PEER) |
		  be16_encode_bits(send, MPA_V2_RTR_SEND) |
		  be16_encode_bits(f->ird, MPA_V2_IRD_ORD_MASK);
	v2->ord = be16_encode_bits(write, MPA_V2_RTR_WRITE) |
		  be16_encode_bits(read, MPA_V2_RTR_READ) |
		  be16_encode_bits(f->ord, MPA_V2_IRD_ORD_MASK);
}

/**
 * swi_mpa_startup_build() - write the Request or Reply frame @f describes
 * @f: the frame; reserved bits are sent as zero
 * @buf: where to write it
 * @size: room in @buf
 *
 * Context: any context.
 * Return: the number of octets written (swi_mpa_startup_frame_len()); -EINVAL
 * for a frame that cannot exist (revision above 2, enhanced data outside
 * revision 2, a rejecting Request, IRD or ORD over 14 bits, unknown RTR
 * bits, private data length without data); -EMSGSIZE when the private
 * data exceeds the limit of the revision; -ENOSPC when @size is too small.
 */
int swi_mpa_startup_build(const struct mpa_startup_frame *f, void *buf,
			  size_t size)
{
	size_t len = swi_mpa_startup_frame_len(f);
	struct mpa_rr_hdr hdr;
	struct mpa_v2_data v2;
	u8 *p = buf;
	int err;

	err = mpa_startup_check_build(f);
	if (err)
		return err;
	if (size < len)
		return -ENOSPC;
	mpa_startup_encode_hdr(f, &hdr);
	memcpy(p, &hdr, sizeof(hdr));
	p += sizeof(hdr);
	if (f->enhanced) {
		mpa_startup_encode_v2(f, &v2);
		memcpy(p, &v2, sizeof(v2));
		p += sizeof(v2);
	}
	if (f->pdata_len)
		memcpy(p, f->pdata, f->pdata_len);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_build);

static int mpa_startup_fail(struct mpa_startup_result *res,
			    enum mpa_error error)
{
	res->error = error;
	return -EPROTO;
}

static bool mpa_startup_policy_ok(const struct mpa_startup_policy *pol)
{
	return (pol->rev == MPA_REV_1 || pol->rev == MPA_REV_2) &&
	       !(pol->rtr & ~MPA_RTR_ALL) &&
	       pol->ird <= MPA_V2_IRD_ORD_MASK &&
	       pol->ord <= MPA_V2_IRD_ORD_MASK;
}

/*
 * The revision of the connection, or -1 when we cannot talk to the peer.
 * The policy's revision is the one we initiate with; a responder answers
 * a revision 1 or 2 Request in kind, both being ours: an enhanced
 * responder answers an enhanced Request enhanced (RFC 6581 section 10).
 */
static int mpa_startup_rev(const struct mpa_startup_policy *pol,
			   enum mpa_startup_role role, u8 peer_rev)
{
	if (peer_rev == MPA_REV_0)
		return pol->permissive ? MPA_REV_0 : -1;
	if (peer_rev > MPA_REV_2)
		return -1;
	if (role == MPA_STARTUP_RESPONDER)
		return peer_rev;
	/* A Reply may step down from the revision we sent, never up. */
	return peer_rev <= pol->rev ? peer_rev : -1;
}

static void mpa_startup_framing(const struct mpa_startup_policy *pol,
				const struct mpa_startup_frame *peer,
				struct mpa_startup_result *res)
{
	if (res->rev == MPA_REV_0) {
		/* Appendix C: RDMAC wants and sends both, and speaks V=0 */
		res->crc_tx = true;
		res->crc_rx = true;
		res->markers_tx = true;
		res->markers_rx = true;
		res->ddp_rdmap_ver = 0;
		return;
	}
	/* 7.1.1: C in either frame means CRCs both ways */
	res->crc_tx = pol->crc || peer->crc;
	res->crc_rx = res->crc_tx;
	/* M asks for Markers in what its sender receives */
	res->markers_tx = peer->markers;
	res->markers_rx = pol->markers_rx;
	res->ddp_rdmap_ver = 1;
}

/*
 * RFC 6581 section 9.1: our IRD must cover the RDMA Reads the peer will
 * issue (its ORD); otherwise "Insufficient IRD". Our ORD must not exceed
 * the peer's IRD: lower it, unless the policy wants that to fail as well.
 * An IRD or ORD of all ones (0x3FFF) leaves the other side's value to the
 * ULP: ours stays, and a responder puts 0x3FFF in that field of its Reply.
 */
static int mpa_startup_ird_ord(const struct mpa_startup_policy *pol,
			       enum mpa_startup_role role,
			       const struct mpa_startup_frame *peer,
			       struct mpa_startup_result *res)
{
	bool ulp_ord = peer->ord == MPA_V2_IRD_ORD_ULP;
	bool ulp_ird = peer->ird == MPA_V2_IRD_ORD_ULP;

	if (!ulp_ord && peer->ord > pol->ird)
		return mpa_startup_fail(res, MPA_ERR_INSUFFICIENT_IRD);
	if (!ulp_ird && pol->ord > peer->ird) {
		if (pol->ord_strict)
			return mpa_startup_fail(res, MPA_ERR_INSUFFICIENT_IRD);
		res->ord = peer->ird;
	}
	res->rep_ird = res->ird;
	res->rep_ord = res->ord;
	if (role == MPA_STARTUP_RESPONDER && ulp_ord)
		res->rep_ird = MPA_V2_IRD_ORD_ULP;
	if (role == MPA_STARTUP_RESPONDER && ulp_ird)
		res->rep_ord = MPA_V2_IRD_ORD_ULP;
	return 0;
}

/* Preference: Write needs no resources, Read an ORD credit, Send a WQE. */
static u8 mpa_startup_pick_rtr(u8 types)
{
	if (types & MPA_RTR_WRITE)
		return MPA_RTR_WRITE;
	if (types & MPA_RTR_READ)
		return MPA_RTR_READ;
	return types & MPA_RTR_SEND;
}

/*
 * RFC 6581 section 9.2. A responder names each type offered that it
 * supports (SHOULD), and when it supports none of them, the one of its
 * own it prefers (MUST); the initiator, unable to send that, answers with
 * Terminate 2/0/0x07. An initiator picks one type, of those it offered,
 * among those the Reply names (MUST), or fails with No matching RTR.
 */
static int mpa_startup_rtr(const struct mpa_startup_policy *pol,
			   enum mpa_startup_role role,
			   const struct mpa_startup_frame *peer,
			   struct mpa_startup_result *res)
{
	bool responder = role == MPA_STARTUP_RESPONDER;
	u8 types = peer->rtr & pol->rtr;
	u16 initiator_ord, responder_ird;

	if (!peer->p2p)
		return 0;
	/* P in a Reply only echoes P in our Request */
	if (!responder && !pol->p2p)
		return mpa_startup_fail(res, MPA_ERR_REQ_REP);
	res->p2p = true;
	/*
	 * A zero length RDMA Read takes one of the initiator's ORD credits
	 * and an entry of the responder's IRQ: an IRD of 0 would refuse it
	 * (no buffer, RFC 5040 section 6.1)
	 */
	initiator_ord = responder ? peer->ord : res->ord;
	responder_ird = responder ? res->ird : peer->ird;
	if (!initiator_ord || !responder_ird)
		types &= ~MPA_RTR_READ;
	if (responder)
		res->rtr = types ?: mpa_startup_pick_rtr(pol->rtr);
	else
		res->rtr = mpa_startup_pick_rtr(types);
	if (!res->rtr)
		return mpa_startup_fail(res, MPA_ERR_NO_MATCHING_RTR);
	return 0;
}

/**
 * swi_mpa_startup_negotiate() - decide the parameters of Full Operation
 * @pol: the local policy
 * @role: initiator (processing the peer's Reply) or responder (processing
 *	the peer's Request)
 * @peer: the peer's frame, as swi_mpa_startup_parse() decoded it
 * @res: the outcome
 *
 * CRCs are used both ways when either frame has C. We send Markers when
 * the peer set M and expect them when we set M. A revision 0 peer is
 * accepted only when @pol is permissive, and then gets revision 0 with
 * Markers and CRCs both ways and DDP/RDMAP version 0 (RFC 5044 Appendix
 * C). A responder answers with the lower of the two revisions; an
 * initiator accepts a Reply of its revision or lower. RFC 6581 IRD/ORD and
 * peer-to-peer mode are negotiated when the connection is revision 2 and
 * the peer's frame carries the enhanced data. On MPA_ERR_INSUFFICIENT_IRD
 * and MPA_ERR_NO_MATCHING_RTR the framing fields of @res are valid, so
 * that a Reply and a Terminate can still be sent.
 *
 * Context: any context.
 * Return: 0 when the connection may enter Full Operation as @res says;
 * -ECONNREFUSED when the peer's Reply rejects the connection
 * (@res->rejected); -EPROTO when the negotiation fails, with the MPA error
 * in @res->error: MPA_ERR_REQ_REP (wrong frame kind, revision we cannot
 * talk to, P in a Reply we did not ask for), MPA_ERR_INSUFFICIENT_IRD or
 * MPA_ERR_NO_MATCHING_RTR; -EINVAL for an invalid @pol or @role.
 */
int swi_mpa_startup_negotiate(const struct mpa_startup_policy *pol,
			      enum mpa_startup_role role,
			      const struct mpa_startup_frame *peer,
			      struct mpa_startup_result *res)
{
	enum mpa_startup_kind want = role == MPA_STARTUP_INITIATOR ?
				     MPA_STARTUP_REPLY : MPA_STARTUP_REQUEST;
	int rev, err;

	memset(res, 0, sizeof(*res));
	if (!mpa_startup_policy_ok(pol) || (role != MPA_STARTUP_INITIATOR &&
					    role != MPA_STARTUP_RESPONDER))
		return -EINVAL;
	rev = mpa_startup_rev(pol, role, peer->rev);
	if (peer->kind != want || rev < 0)
		return mpa_startup_fail(res, MPA_ERR_REQ_REP);
	res->rev = rev;
	res->ird = pol->ird;
	res->ord = pol->ord;
	res->rep_ird = pol->ird;
	res->rep_ord = pol->ord;
	mpa_startup_framing(pol, peer, res);
	if (peer->kind == MPA_STARTUP_REPLY && peer->rejected) {
		res->rejected = true;
		return -ECONNREFUSED;
	}
	if (rev != MPA_REV_2 || !peer->enhanced)
		return 0;
	res->enhanced = true;
	err = mpa_startup_ird_ord(pol, role, peer, res);
	if (!err)
		err = mpa_startup_rtr(pol, role, peer, res);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_negotiate);

/**
 * swi_mpa_startup_request() - describe the Request an initiator sends
 * @pol: the local policy
 * @pdata: the consumer's private data, or NULL
 * @pdata_len: its length
 * @req: the frame, ready for swi_mpa_startup_build()
 *
 * A revision 2 Request always carries the enhanced data: our IRD and ORD,
 * and P with the RTR types we can send when @pol asks for peer-to-peer.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_mpa_startup_request(const struct mpa_startup_policy *pol,
			     const void *pdata, u16 pdata_len,
			     struct mpa_startup_frame *req)
{
	memset(req, 0, sizeof(*req));
	req->kind = MPA_STARTUP_REQUEST;
	req->rev = pol->rev;
	req->markers = pol->markers_rx;
	req->crc = pol->crc;
	req->enhanced = pol->rev == MPA_REV_2;
	if (req->enhanced) {
		req->p2p = pol->p2p;
		req->rtr = pol->p2p ? pol->rtr : 0;
		req->ird = pol->ird;
		req->ord = pol->ord;
	}
	req->pdata = pdata;
	req->pdata_len = pdata_len;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_request);

/**
 * swi_mpa_startup_reply() - describe the Reply a responder sends
 * @pol: the local policy
 * @res: what swi_mpa_startup_negotiate() made of the peer's Request
 * @pdata: the consumer's private data, or NULL
 * @pdata_len: its length
 * @rep: the frame, ready for swi_mpa_startup_build(); set @rep->rejected to
 *	refuse the connection
 *
 * The Reply has the negotiated revision, our M and C (both set towards a
 * revision 0 peer, Appendix C.2.4) and, when the Request had enhanced
 * data, our IRD and ORD (0x3FFF echoed where the Request had it, RFC 6581
 * section 9.1), P echoed and the RTR types it names: each one offered
 * that we support, or when there is none, the one of ours we prefer (RFC
 * 6581 section 9.2).
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_mpa_startup_reply(const struct mpa_startup_policy *pol,
			   const struct mpa_startup_result *res,
			   const void *pdata, u16 pdata_len,
			   struct mpa_startup_frame *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->kind = MPA_STARTUP_REPLY;
	rep->rev = res->rev;
	rep->markers = res->markers_rx;
	rep->crc = res->rev == MPA_REV_0 || pol->crc;
	rep->enhanced = res->enhanced;
	if (rep->enhanced) {
		rep->p2p = res->p2p;
		rep->rtr = res->rtr;
		rep->ird = res->rep_ird;
		rep->ord = res->rep_ord;
	}
	rep->pdata = pdata;
	rep->pdata_len = pdata_len;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_startup_reply);
