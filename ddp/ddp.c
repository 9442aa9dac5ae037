// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: DDP headers and receive-side validation
 *
 * Builds and parses the DDP tagged and untagged headers (RFC 5041 section
 * 4), splitting the ULP's octet of the control field into RDMAP's version
 * and opcode (ddp/ddp_proto.h) without judging them.
 *
 * The DDP checks of one incoming segment, given the receiver's state.
 * The ULP runs them in its own order, between checks of its own (RDMAP:
 * swi_rdmap_rx_check(), rdmap/codec.c); each reports a DDP error type and
 * code (RFC 5041 section 7.2), the first failure wins:
 *
 * swi_ddp_rx_check_version(): DV must be 1; on a connection with an RDMA
 * Consortium peer (RFC 5044 appendix C) 0 or 1 in the first segment, and
 * in every later one the DV of the first (RFC 5041 section 4.1: "the same
 * for all the DDP Segments ... received on a DDP Stream";
 * swi_ddp_rx_fix_version() records it). The error type follows the T bit:
 * tagged or untagged buffer error.
 *
 * swi_ddp_rx_check_buffer(), untagged segments (RFC 5041 sections 4.3, 7.1):
 *
 *    a. the QN must be one this DDP receives on (below DDP_QN_COUNT):
 *       "invalid QN". Whether it is the queue of the ULP's message is the
 *       ULP's check;
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
 * swi_ddp_rx_check_buffer(), tagged segments (RFC 5041 sections 4.2 and 7.1):
 *
 *    a. a zero-length segment places nothing and is accepted without
 *       looking at its STag (RFC 6581 uses zero-length RDMA Writes as
 *       ready-to-receive markers);
 *    b. the STag must be valid: "invalid STag";
 *    c. and usable by this stream: "STag not associated with DDP stream";
 *    d. and grant remote write. DDP has no error code for access rights:
 *       this one is -EACCES, for the ULP to report (RDMAP: "access rights
 *       violation", remote protection error);
 *    e. no octet may lie past 2^64 - 1: "TO wrap" (checked before the
 *       bounds, which a wrapping segment always violates too);
 *    f. [TO, TO + length) must lie within the region: "base or bounds
 *       violation".
 *
 * swi_ddp_region_check() gives rules b to f as a verdict for any tagged
 * access, for the ULP's own accesses (RDMAP: the Data Source of an RDMA
 * Read Request, whose errors are RDMAP's).
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "ddp/ddp.h"

static __be16 ddp_ctrl_encode(const struct ddp_hdr_info *h)
{
	return be16_encode_bits(!!h->tagged, DDP_CTRL_T) |
	       be16_encode_bits(!!h->last, DDP_CTRL_L) |
	       be16_encode_bits(h->dv, DDP_CTRL_DV) |
	       be16_encode_bits(h->rv, DDP_CTRL_ULP_RV) |
	       be16_encode_bits(h->opcode, DDP_CTRL_ULP_OPCODE);
}

/* Reserved bits are ignored on receive (RFC 5041 4.1, RFC 5040 4.1). */
static void ddp_ctrl_decode(__be16 ctrl, struct ddp_hdr_info *h)
{
	h->tagged = be16_get_bits(ctrl, DDP_CTRL_T);
	h->last = be16_get_bits(ctrl, DDP_CTRL_L);
	h->dv = be16_get_bits(ctrl, DDP_CTRL_DV);
	h->rv = be16_get_bits(ctrl, DDP_CTRL_ULP_RV);
	h->opcode = be16_get_bits(ctrl, DDP_CTRL_ULP_OPCODE);
}

/**
 * swi_ddp_hdr_build() - write a DDP header
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
int swi_ddp_hdr_build(void *buf, size_t size, const struct ddp_hdr_info *h)
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
EXPORT_SYMBOL_IF_KUNIT(swi_ddp_hdr_build);

/**
 * swi_ddp_hdr_parse() - read a DDP header
 * @buf: the received octets, from the DDP Control Field on
 * @len: how many octets @buf holds
 * @h: the header in host order; fields of the other model are zeroed
 *
 * Only the length is checked here; the receive checks judge the contents.
 *
 * Context: any context.
 * Return: the header length, or -EBADMSG when @len is shorter than the
 * header its T bit announces (@h is then unspecified).
 */
int swi_ddp_hdr_parse(const void *buf, size_t len, struct ddp_hdr_info *h)
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
EXPORT_SYMBOL_IF_KUNIT(swi_ddp_hdr_parse);

static int ddp_fail(struct ddp_error *err, u8 etype, u8 code)
{
	err->etype = etype;
	err->code = code;
	return -EPROTO;
}

/**
 * swi_ddp_region_check() - check a tagged access against its STag lookup
 * @s: the lookup result of the access's STag; NULL counts as invalid
 * @need: the DDP_ACCESS_* rights the access needs
 * @to: Tagged Offset of its first octet
 * @len: its length in octets, at least 1
 *
 * Rules b to f at the top of this file, in that order. The region test is
 * written so that nothing overflows: @to - base is only formed once @to is
 * at least the base.
 *
 * Context: any context.
 * Return: DDP_REGION_OK, or the first rule the access breaks.
 */
enum ddp_region_verdict swi_ddp_region_check(const struct ddp_stag_check *s,
					     u8 need, u64 to, u64 len)
{
	if (!s || s->state == DDP_STAG_INVALID)
		return DDP_REGION_INVALID;
	if (s->state != DDP_STAG_VALID)
		return DDP_REGION_NOT_ASSOC;
	if ((s->access & need) != need)
		return DDP_REGION_ACCESS;
	if (to > U64_MAX - (len - 1))
		return DDP_REGION_WRAP;
	if (to < s->base || to - s->base > s->len ||
	    len > s->len - (to - s->base))
		return DDP_REGION_BOUNDS;
	return DDP_REGION_OK;
}
EXPORT_SYMBOL_IF_KUNIT(swi_ddp_region_check);

/* DV 1; with an RDMAC peer 0 too, until the first segment chose one */
static bool ddp_rx_dv_ok(const struct ddp_hdr_info *h,
			 const struct ddp_rx_state *rx)
{
	if (!rx->rdmac)
		return h->dv == DDP_VERSION;
	if (rx->ver_fixed)
		return h->dv == rx->dv;
	return h->dv == DDP_VERSION || h->dv == DDP_VERSION_RDMAC;
}

/**
 * swi_ddp_rx_check_version() - check the DDP version of an incoming segment
 * @h: its parsed header
 * @rx: what the receiver knows: @rx->rdmac and the version the stream's
 *	first segment fixed (@rx->ver_fixed, @rx->dv)
 * @err: set to the DDP error when the version is refused
 *
 * Context: any context.
 * Return: 0 when DV is acceptable, -EPROTO with @err set (invalid DDP
 * version, tagged or untagged buffer error as the T bit says) otherwise.
 */
int swi_ddp_rx_check_version(const struct ddp_hdr_info *h,
			     const struct ddp_rx_state *rx, struct ddp_error *err)
{
	if (ddp_rx_dv_ok(h, rx))
		return 0;
	if (h->tagged)
		return ddp_fail(err, TERM_ETYPE_DDP_TAGGED, TERM_DDP_T_VERSION);
	return ddp_fail(err, TERM_ETYPE_DDP_UNTAGGED, TERM_DDP_U_VERSION);
}
EXPORT_SYMBOL_IF_KUNIT(swi_ddp_rx_check_version);

/**
 * swi_ddp_rx_fix_version() - make a segment's versions the stream's
 * @rx: what the receiver knows
 * @h: the header of a segment the receiver accepted
 *
 * On an RDMAC stream the first segment accepted fixes the DDP version,
 * and the ULP's version field, that every later segment must carry; the
 * later calls change nothing. An IETF stream has both fixed at 1 from
 * the start, and is left alone.
 *
 * Context: any context; the receiver's, which owns @rx.
 * Return: nothing.
 */
void swi_ddp_rx_fix_version(struct ddp_rx_state *rx, const struct ddp_hdr_info *h)
{
	if (!rx->rdmac || rx->ver_fixed)
		return;
	rx->dv = h->dv;
	rx->rv = h->rv;
	rx->ver_fixed = 1;
}
EXPORT_SYMBOL_IF_KUNIT(swi_ddp_rx_fix_version);

static int ddp_rx_check_tagged(const struct ddp_hdr_info *h, u32 len,
			       const struct ddp_stag_check *stag,
			       struct ddp_error *err)
{
	static const u8 code[] = {
		[DDP_REGION_INVALID] = TERM_DDP_T_INVALID_STAG,
		[DDP_REGION_NOT_ASSOC] = TERM_DDP_T_STAG_NOT_ASSOC,
		[DDP_REGION_WRAP] = TERM_DDP_T_TO_WRAP,
		[DDP_REGION_BOUNDS] = TERM_DDP_T_BASE_BOUNDS,
	};
	enum ddp_region_verdict v;

	if (!len)
		return 0;
	v = swi_ddp_region_check(stag, DDP_ACCESS_REMOTE_WRITE, h->to, len);
	if (v == DDP_REGION_OK)
		return 0;
	if (v == DDP_REGION_ACCESS)
		return -EACCES;
	return ddp_fail(err, TERM_ETYPE_DDP_TAGGED, code[v]);
}

static int ddp_rx_check_untagged(const struct ddp_hdr_info *h, u32 len,
				 const struct ddp_rx_state *rx,
				 struct ddp_error *err)
{
	const struct ddp_rx_queue *q;
	u32 ahead;
	u8 code;

	if (h->qn >= DDP_QN_COUNT)
		return ddp_fail(err, TERM_ETYPE_DDP_UNTAGGED,
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
	return ddp_fail(err, TERM_ETYPE_DDP_UNTAGGED, code);
}

/**
 * swi_ddp_rx_check_buffer() - check an incoming segment against its buffer
 * @h: its parsed header
 * @len: its payload length (the octets behind the DDP header)
 * @rx: what the receiver knows: the untagged queue states
 * @stag: for a tagged segment, the lookup result of @h->stag (NULL counts
 *	as an invalid STag); ignored for untagged segments
 * @err: set to the DDP error when the segment is refused
 *
 * The untagged or the tagged rules at the top of this file, as the T bit
 * says. Neither @rx nor the segment is changed: accepting the segment
 * (advancing the MSN and the octets received) is the caller's business.
 *
 * Context: any context.
 * Return: 0 when the segment may be placed; -EPROTO with @err set for a
 * DDP error; -EACCES (@err untouched) when the STag of a tagged segment
 * does not grant remote write, an error DDP has no code for.
 */
int swi_ddp_rx_check_buffer(const struct ddp_hdr_info *h, u32 len,
			    const struct ddp_rx_state *rx,
			    const struct ddp_stag_check *stag,
			    struct ddp_error *err)
{
	if (h->tagged)
		return ddp_rx_check_tagged(h, len, stag, err);
	return ddp_rx_check_untagged(h, len, rx, err);
}
EXPORT_SYMBOL_IF_KUNIT(swi_ddp_rx_check_buffer);
