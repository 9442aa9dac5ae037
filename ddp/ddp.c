// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: DDP headers and receive-side validation
 *
 * Builds and parses the DDP tagged and untagged headers (RFC 5041 section
 * 4) together with the RDMAP control bits they carry (RFC 5040 section
 * 4.1), and the RDMA Read Request header (RFC 5040, RDMA Read Request
 * Header).
 *
 * ddp_rx_check() decides whether one incoming DDP segment may be accepted,
 * given the receiver's state, and if not, which Terminate error it is.
 * The checks run in this order, the first failure wins:
 *
 * 1. DDP version (RFC 5041 sections 4.1 and 7.2): DV must be 1, or 0 on a
 *    connection with an RDMA Consortium peer (RFC 5044 appendix C). The
 *    error type follows the T bit: tagged or untagged buffer error.
 * 2. RDMAP version (RFC 5040 section 4.1): RV likewise; a remote
 *    operation error.
 * 3. Opcode (RFC 5040 section 4.2): defined, and of the buffer model the
 *    T bit says (Write and Read Response tagged, the others untagged);
 *    otherwise "unexpected opcode", a remote operation error.
 * 4. Untagged segments (RFC 5041 sections 4.3 and 7.1):
 *
 *    a. the QN must be the queue of the opcode (0 Send, 1 Read Request,
 *       2 Terminate): "invalid QN";
 *    b. MSN: MPA over TCP delivers segments in order, and a message ends
 *       (L set) before the next message of its queue starts, so the only
 *       acceptable MSN is the one of the message in progress (or of the
 *       next one). An MSN behind it, or 2^31 or more ahead of it (modulo
 *       2^32), is out of range: "invalid MSN - MSN range not valid". An
 *       MSN ahead of it for which no buffer is posted is "invalid MSN -
 *       no buffer available" (also the expected MSN when no buffer is
 *       posted at all). An MSN ahead of it that has a buffer skips a
 *       message, impossible on an in-order stream: "MSN range not valid";
 *    c. MO must equal the octets already received of the message:
 *       "invalid MO";
 *    d. the octets received so far plus this segment's payload must fit
 *       the buffer: "DDP message too long for available buffer".
 *
 * 5. Tagged segments (RFC 5041 sections 4.2 and 7.1; access rights use
 *    the RDMAP code of RFC 5040's Terminate Header, DDP has none):
 *
 *    a. a zero-length segment places nothing and is accepted without
 *       looking at its STag (RFC 6581 uses zero-length RDMA Writes as
 *       ready-to-receive markers);
 *    b. the STag must be valid: "invalid STag";
 *    c. and usable by this stream: "STag not associated with DDP stream";
 *    d. and grant remote write: "access rights violation" (RDMAP layer,
 *       remote protection error);
 *    e. no octet may lie past 2^64 - 1: "TO wrap" (checked before the
 *       bounds, which a wrapping segment always violates too);
 *    f. [TO, TO + length) must lie within the region: "base or bounds
 *       violation".
 *
 * rdmap_read_req_check() applies the same STag rules to the Data Source
 * of an incoming RDMA Read Request (RFC 5040, RDMA Read), with RDMAP
 * remote protection codes and remote read access.
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "ddp/ddp.h"
#include "rdmap/terminate.h"

#define OP_TAGGED	0xfe	/* opcode of the tagged buffer model */
#define OP_RESERVED	0xff	/* not an opcode */

/* The queue of each untagged opcode, or OP_TAGGED, or OP_RESERVED */
static const u8 rdmap_op_queue[16] = {
	[RDMAP_WRITE] = OP_TAGGED,
	[RDMAP_READ_REQ] = RDMAP_QN_READ_REQ,
	[RDMAP_READ_RESP] = OP_TAGGED,
	[RDMAP_SEND ... RDMAP_SEND_SE_INVAL] = RDMAP_QN_SEND,
	[RDMAP_TERMINATE] = RDMAP_QN_TERMINATE,
	[RDMAP_TERMINATE + 1 ... 15] = OP_RESERVED,
};

/* Outcome of checking a tagged access against the STag lookup */
enum ddp_region_verdict {
	REGION_OK,
	REGION_INVALID,
	REGION_NOT_ASSOC,
	REGION_ACCESS,
	REGION_WRAP,
	REGION_BOUNDS,
};

static __be16 ddp_ctrl_encode(const struct ddp_hdr_info *h)
{
	return be16_encode_bits(!!h->tagged, DDP_CTRL_T) |
	       be16_encode_bits(!!h->last, DDP_CTRL_L) |
	       be16_encode_bits(h->dv, DDP_CTRL_DV) |
	       be16_encode_bits(h->rv, RDMAP_CTRL_RV) |
	       be16_encode_bits(h->opcode, RDMAP_CTRL_OPCODE);
}

/* Reserved bits are ignored on receive (RFC 5041 4.1, RFC 5040 4.1). */
static void ddp_ctrl_decode(__be16 ctrl, struct ddp_hdr_info *h)
{
	h->tagged = be16_get_bits(ctrl, DDP_CTRL_T);
	h->last = be16_get_bits(ctrl, DDP_CTRL_L);
	h->dv = be16_get_bits(ctrl, DDP_CTRL_DV);
	h->rv = be16_get_bits(ctrl, RDMAP_CTRL_RV);
	h->opcode = be16_get_bits(ctrl, RDMAP_CTRL_OPCODE);
}

/**
 * ddp_hdr_build() - write a DDP header
 * @buf: where the header goes (the octet after the MPA ULPDU_Length)
 * @size: room at @buf
 * @h: the header; @h->tagged selects the tagged or the untagged form,
 *	whose fields are used, the others ignored
 *
 * Reserved bits are written as zero. No field is checked: a test or a
 * peer emulation may need a bad header.
 *
 * Context: any context.
 * Return: the header length (DDP_TAGGED_HDR_SIZE or DDP_UNTAGGED_HDR_SIZE),
 * or -ENOSPC when @size is too small.
 */
int ddp_hdr_build(void *buf, size_t size, const struct ddp_hdr_info *h)
{
	struct ddp_untagged_hdr *u = buf;
	struct ddp_tagged_hdr *t = buf;

	if (size < ddp_hdr_size(h->tagged))
		return -ENOSPC;
	if (h->tagged) {
		t->ctrl = ddp_ctrl_encode(h);
		t->stag = cpu_to_be32(h->stag);
		t->to = cpu_to_be64(h->to);
		return sizeof(*t);
	}
	u->ctrl = ddp_ctrl_encode(h);
	u->rsvdulp = cpu_to_be32(h->stag);
	u->qn = cpu_to_be32(h->qn);
	u->msn = cpu_to_be32(h->msn);
	u->mo = cpu_to_be32(h->mo);
	return sizeof(*u);
}
EXPORT_SYMBOL_IF_KUNIT(ddp_hdr_build);

/**
 * ddp_hdr_parse() - read a DDP header
 * @buf: the received octets, from the DDP Control Field on
 * @len: how many octets @buf holds
 * @h: the header in host order; fields of the other model are zeroed
 *
 * Only the length is checked here; ddp_rx_check() judges the contents.
 *
 * Context: any context.
 * Return: the header length, or -EBADMSG when @len is shorter than the
 * header its T bit announces (@h is then unspecified).
 */
int ddp_hdr_parse(const void *buf, size_t len, struct ddp_hdr_info *h)
{
	const struct ddp_untagged_hdr *u = buf;
	const struct ddp_tagged_hdr *t = buf;

	if (len < DDP_CTRL_SIZE)
		return -EBADMSG;
	memset(h, 0, sizeof(*h));
	ddp_ctrl_decode(t->ctrl, h);
	if (len < ddp_hdr_size(h->tagged))
		return -EBADMSG;
	if (h->tagged) {
		h->stag = be32_to_cpu(t->stag);
		h->to = be64_to_cpu(t->to);
		return sizeof(*t);
	}
	h->stag = be32_to_cpu(u->rsvdulp);
	h->qn = be32_to_cpu(u->qn);
	h->msn = be32_to_cpu(u->msn);
	h->mo = be32_to_cpu(u->mo);
	return sizeof(*u);
}
EXPORT_SYMBOL_IF_KUNIT(ddp_hdr_parse);

/**
 * rdmap_read_req_build() - write an RDMA Read Request header
 * @w: where it goes, right behind the untagged DDP header
 * @r: its fields
 *
 * Context: any context.
 * Return: nothing.
 */
void rdmap_read_req_build(struct rdmap_read_req *w,
			  const struct rdmap_read_req_info *r)
{
	w->sink_stag = cpu_to_be32(r->sink_stag);
	w->sink_to = cpu_to_be64(r->sink_to);
	w->size = cpu_to_be32(r->size);
	w->src_stag = cpu_to_be32(r->src_stag);
	w->src_to = cpu_to_be64(r->src_to);
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_read_req_build);

/**
 * rdmap_read_req_parse() - read an RDMA Read Request header
 * @buf: the received octets behind the untagged DDP header
 * @len: how many octets @buf holds
 * @r: the header in host order
 *
 * Context: any context.
 * Return: RDMAP_READ_REQ_SIZE, or -EBADMSG when @len is shorter.
 */
int rdmap_read_req_parse(const void *buf, size_t len,
			 struct rdmap_read_req_info *r)
{
	const struct rdmap_read_req *w = buf;

	if (len < sizeof(*w))
		return -EBADMSG;
	r->sink_stag = be32_to_cpu(w->sink_stag);
	r->sink_to = be64_to_cpu(w->sink_to);
	r->size = be32_to_cpu(w->size);
	r->src_stag = be32_to_cpu(w->src_stag);
	r->src_to = be64_to_cpu(w->src_to);
	return sizeof(*w);
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_read_req_parse);

static int ddp_fail(struct rdmap_term_cause *cause, u8 layer, u8 etype,
		    u8 code)
{
	cause->layer = layer;
	cause->etype = etype;
	cause->code = code;
	return -EPROTO;
}

/* Version 1, or version 0 with an RDMA Consortium peer. */
static bool ddp_version_ok(u8 version, u8 current_version, u8 rdmac)
{
	return version == current_version ||
	       (rdmac && version == DDP_VERSION_RDMAC);
}

static u8 rdmap_op_model(u8 opcode)
{
	return opcode < ARRAY_SIZE(rdmap_op_queue) ? rdmap_op_queue[opcode] :
						     OP_RESERVED;
}

/*
 * [to, to + len) against the region of a looked-up STag, len > 0. The
 * region test is written so that nothing overflows: to - base is only
 * formed once to >= base.
 */
static enum ddp_region_verdict
ddp_region_check(const struct ddp_stag_check *s, u8 need, u64 to, u64 len)
{
	if (!s || s->state == DDP_STAG_INVALID)
		return REGION_INVALID;
	if (s->state != DDP_STAG_VALID)
		return REGION_NOT_ASSOC;
	if ((s->access & need) != need)
		return REGION_ACCESS;
	if (to > U64_MAX - (len - 1))
		return REGION_WRAP;
	if (to < s->base || to - s->base > s->len ||
	    len > s->len - (to - s->base))
		return REGION_BOUNDS;
	return REGION_OK;
}

static int ddp_rx_check_tagged(const struct ddp_hdr_info *h, u32 len,
			       const struct ddp_stag_check *stag,
			       struct rdmap_term_cause *cause)
{
	static const u8 code[] = {
		[REGION_INVALID] = TERM_DDP_T_INVALID_STAG,
		[REGION_NOT_ASSOC] = TERM_DDP_T_STAG_NOT_ASSOC,
		[REGION_WRAP] = TERM_DDP_T_TO_WRAP,
		[REGION_BOUNDS] = TERM_DDP_T_BASE_BOUNDS,
	};
	enum ddp_region_verdict v;

	if (!len)
		return 0;
	v = ddp_region_check(stag, DDP_ACCESS_REMOTE_WRITE, h->to, len);
	if (v == REGION_OK)
		return 0;
	if (v == REGION_ACCESS)
		return ddp_fail(cause, TERM_LAYER_RDMAP,
				TERM_ETYPE_RDMAP_PROTECTION, TERM_RDMAP_ACCESS);
	return ddp_fail(cause, TERM_LAYER_DDP, TERM_ETYPE_DDP_TAGGED, code[v]);
}

static int ddp_rx_check_untagged(const struct ddp_hdr_info *h, u32 len,
				 const struct ddp_rx_state *rx,
				 struct rdmap_term_cause *cause)
{
	const struct ddp_rx_queue *q;
	u32 ahead;
	u8 code;

	if (h->qn >= RDMAP_QN_COUNT || h->qn != rdmap_op_model(h->opcode))
		return ddp_fail(cause, TERM_LAYER_DDP, TERM_ETYPE_DDP_UNTAGGED,
				TERM_DDP_U_INVALID_QN);
	q = &rx->queue[h->qn];
	ahead = h->msn - q->msn;	/* modulo 2^32 */
	if (ahead >= BIT(31) || (ahead && ahead < q->buffers))
		code = TERM_DDP_U_MSN_RANGE;
	else if (ahead >= q->buffers)
		code = TERM_DDP_U_MSN_NO_BUF;
	else if (h->mo != q->received)
		code = TERM_DDP_U_INVALID_MO;
	else if ((u64)q->received + len > q->buf_len)
		code = TERM_DDP_U_TOO_LONG;
	else
		return 0;
	return ddp_fail(cause, TERM_LAYER_DDP, TERM_ETYPE_DDP_UNTAGGED, code);
}

/**
 * ddp_rx_check() - validate one incoming DDP segment
 * @h: its parsed header
 * @len: its payload length (the octets behind the DDP header)
 * @rx: what the receiver knows: versions accepted, untagged queue states
 * @stag: for a tagged segment, the lookup result of @h->stag (NULL counts
 *	as an invalid STag); ignored for untagged segments
 * @cause: set to the Terminate error when the segment is refused
 *
 * Applies the rules listed at the top of this file. Neither @rx nor the
 * segment is changed: accepting the segment (advancing the MSN and the
 * octets received) is the caller's business.
 *
 * Context: any context.
 * Return: 0 when the segment may be placed, -EPROTO with @cause set
 * otherwise.
 */
int ddp_rx_check(const struct ddp_hdr_info *h, u32 len,
		 const struct ddp_rx_state *rx,
		 const struct ddp_stag_check *stag,
		 struct rdmap_term_cause *cause)
{
	u8 model = rdmap_op_model(h->opcode);
	bool tagged_op = model == OP_TAGGED;

	if (!ddp_version_ok(h->dv, DDP_VERSION, rx->rdmac))
		return ddp_fail(cause, TERM_LAYER_DDP,
				h->tagged ? TERM_ETYPE_DDP_TAGGED :
					    TERM_ETYPE_DDP_UNTAGGED,
				h->tagged ? TERM_DDP_T_VERSION :
					    TERM_DDP_U_VERSION);
	if (!ddp_version_ok(h->rv, RDMAP_VERSION, rx->rdmac))
		return ddp_fail(cause, TERM_LAYER_RDMAP,
				TERM_ETYPE_RDMAP_OPERATION, TERM_RDMAP_VERSION);
	if (model == OP_RESERVED || tagged_op != !!h->tagged)
		return ddp_fail(cause, TERM_LAYER_RDMAP,
				TERM_ETYPE_RDMAP_OPERATION, TERM_RDMAP_OPCODE);
	if (h->tagged)
		return ddp_rx_check_tagged(h, len, stag, cause);
	return ddp_rx_check_untagged(h, len, rx, cause);
}
EXPORT_SYMBOL_IF_KUNIT(ddp_rx_check);

/**
 * rdmap_read_req_check() - validate the Data Source of a Read Request
 * @r: the parsed RDMA Read Request header
 * @src: the lookup result of @r->src_stag (NULL counts as invalid)
 * @cause: set to the Terminate error when the request is refused
 *
 * RFC 5040 (RDMA Read): a zero-size read is answered with a zero-length
 * Read Response and its Data Source is not validated. Otherwise the STag
 * must be valid, of this stream, grant remote read, and [src_to, src_to +
 * size) must neither wrap past 2^64 - 1 nor leave the region; the errors
 * are RDMAP remote protection errors.
 *
 * Context: any context.
 * Return: 0 when the request may be served, -EPROTO with @cause set
 * otherwise.
 */
int rdmap_read_req_check(const struct rdmap_read_req_info *r,
			 const struct ddp_stag_check *src,
			 struct rdmap_term_cause *cause)
{
	static const u8 code[] = {
		[REGION_INVALID] = TERM_RDMAP_INVALID_STAG,
		[REGION_NOT_ASSOC] = TERM_RDMAP_STAG_NOT_ASSOC,
		[REGION_ACCESS] = TERM_RDMAP_ACCESS,
		[REGION_WRAP] = TERM_RDMAP_TO_WRAP,
		[REGION_BOUNDS] = TERM_RDMAP_BASE_BOUNDS,
	};
	enum ddp_region_verdict v;

	if (!r->size)
		return 0;
	v = ddp_region_check(src, DDP_ACCESS_REMOTE_READ, r->src_to, r->size);
	if (v == REGION_OK)
		return 0;
	return ddp_fail(cause, TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_PROTECTION,
			code[v]);
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_read_req_check);
