// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: Terminate header build and parse
 *
 * RFC 5040, Terminate Header and Terminate Message. The Terminate Control
 * word carries the Layer in its high nibble, then the Error Type, then the
 * 8-bit Error Code, then the M, D and R header control flags.
 *
 * What a built Terminate carries, after RFC 5040 Figure 10 (which the
 * header control bits of section 4.8 refer to):
 *
 * - For a DDP error, or an RDMAP remote protection or remote operation
 *   error, about a received segment: M and D, the DDP segment length of
 *   that segment and a copy of its DDP header (14 octets when tagged, 18
 *   when untagged). M and D are always set together, the way every known
 *   peer (siw, and tshark's dissector) reads them.
 * - Only for an RDMAP remote protection error about an RDMA Read Request
 *   also R and a copy of its 28-octet RDMA Read Request header: Figure 10
 *   gives the RDMA header to that error type alone. (Section 7.1 rule 3
 *   includes it for any error on a Read Request after DDP delivered it;
 *   where the two differ, a remote operation error, the Figure decides,
 *   being what the bits are defined by.)
 * - For an LLP error, an RDMAP local catastrophic error (Figure 10: no
 *   header, whatever the message), an error not tied to a received
 *   segment, or when the offending DDP header was not received in full:
 *   the control word alone. An LLP error (a CRC error, a Marker mismatch)
 *   means the octets of the segment cannot be trusted.
 *
 * A received Terminate is read by its flags only: the DDP Segment Length
 * field is present when M or D is set, a DDP header (of the length its own
 * T bit says) when D is set, a Read Request header when R is set. R
 * without an untagged DDP header before it is malformed. Every part must
 * lie within the received octets; octets after the last part are ignored.
 * Reserved bits are ignored.
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "mpa/mpa.h"
#include "rdmap/terminate.h"

#define RDMAP_TERM_HDRCT	(RDMAP_TERM_M | RDMAP_TERM_D | RDMAP_TERM_R)

/*
 * Copy the headers of the offending segment behind the control word.
 * Return: the M, D, R flags set, and in *len the octets added.
 */
static u32 rdmap_term_copy_hdrs(struct rdmap_term_hdr *t,
				const struct rdmap_term_offender *seg,
				bool with_rreq, unsigned int *len)
{
	const u8 *p = seg->hdr;
	struct ddp_hdr_info h;
	int hlen;

	hlen = swi_ddp_hdr_parse(p, seg->len, &h);
	if (hlen < 0)
		return 0;
	t->ddp_seg_len = cpu_to_be16(seg->seg_len);
	memcpy(&t->ddp, p, hlen);
	*len += RDMAP_TERM_SEGLEN_SIZE + hlen;
	if (!with_rreq || h.tagged || h.opcode != RDMAP_READ_REQ ||
	    seg->len < hlen + RDMAP_READ_REQ_SIZE)
		return RDMAP_TERM_M | RDMAP_TERM_D;
	memcpy(&t->rreq, p + hlen, RDMAP_READ_REQ_SIZE);
	*len += RDMAP_READ_REQ_SIZE;
	return RDMAP_TERM_M | RDMAP_TERM_D | RDMAP_TERM_R;
}

/**
 * swi_rdmap_term_build() - build the Terminate header for an error
 * @t: where it goes, behind the Terminate's untagged DDP header; all of
 *	it is written (zero past the returned length)
 * @cause: the error
 * @seg: the received segment the error is about, or NULL
 *
 * Copies the DDP segment length, the DDP header and for a remote
 * protection error on a Read Request its RDMAP header from @seg, as
 * described at the top of this file.
 *
 * Context: any context.
 * Return: the length of the Terminate header, from RDMAP_TERM_CTRL_SIZE
 * to RDMAP_TERM_MAX_SIZE.
 */
unsigned int swi_rdmap_term_build(struct rdmap_term_hdr *t,
				  const struct rdmap_term_cause *cause,
				  const struct rdmap_term_offender *seg)
{
	unsigned int len = RDMAP_TERM_CTRL_SIZE;
	u32 hdrct = 0;

	memset(t, 0, sizeof(*t));
	if (seg && (cause->layer == TERM_LAYER_DDP ||
		    (cause->layer == TERM_LAYER_RDMAP &&
		     cause->etype != TERM_ETYPE_RDMAP_CATASTROPHIC)))
		hdrct = rdmap_term_copy_hdrs(t, seg, cause->layer ==
					     TERM_LAYER_RDMAP && cause->etype ==
					     TERM_ETYPE_RDMAP_PROTECTION, &len);
	t->ctrl = be32_encode_bits(cause->layer, RDMAP_TERM_LAYER) |
		  be32_encode_bits(cause->etype, RDMAP_TERM_ETYPE) |
		  be32_encode_bits(cause->code, RDMAP_TERM_CODE) |
		  cpu_to_be32(hdrct);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_term_build);

/* The optional parts behind the control word; see the top of the file. */
static int rdmap_term_parse_parts(const struct rdmap_term_hdr *t,
				  size_t len, struct rdmap_term_info *ti)
{
	size_t off = RDMAP_TERM_CTRL_SIZE;
	const u8 *p = (const u8 *)t;
	int n;

	if (ti->flags & (RDMAP_TERM_M | RDMAP_TERM_D)) {
		if (len < off + RDMAP_TERM_SEGLEN_SIZE)
			return -EBADMSG;
		ti->seg_len = be16_to_cpu(t->ddp_seg_len);
		ti->has |= RDMAP_TERM_HAS_SEGLEN;
		off += RDMAP_TERM_SEGLEN_SIZE;
	}
	if (ti->flags & RDMAP_TERM_D) {
		n = swi_ddp_hdr_parse(p + off, len - off, &ti->ddp);
		if (n < 0)
			return n;
		ti->has |= RDMAP_TERM_HAS_DDP;
		off += n;
	}
	if (ti->flags & RDMAP_TERM_R) {
		if (!(ti->has & RDMAP_TERM_HAS_DDP) || ti->ddp.tagged)
			return -EBADMSG;
		n = swi_rdmap_read_req_parse(p + off, len - off, &ti->rreq);
		if (n < 0)
			return n;
		ti->has |= RDMAP_TERM_HAS_RREQ;
		off += n;
	}
	return off;
}

/**
 * swi_rdmap_term_parse() - parse a received Terminate header
 * @buf: the Terminate message's payload, behind its DDP header
 * @len: how many octets @buf holds
 * @ti: the parsed header
 *
 * Trusts no length: every part the flags announce must lie within @len.
 *
 * Context: any context.
 * Return: the octets parsed, or -EBADMSG when the header is truncated or
 * malformed (@ti is then unspecified).
 */
int swi_rdmap_term_parse(const void *buf, size_t len, struct rdmap_term_info *ti)
{
	const struct rdmap_term_hdr *t = buf;

	if (len < RDMAP_TERM_CTRL_SIZE)
		return -EBADMSG;
	memset(ti, 0, sizeof(*ti));
	ti->cause.layer = be32_get_bits(t->ctrl, RDMAP_TERM_LAYER);
	ti->cause.etype = be32_get_bits(t->ctrl, RDMAP_TERM_ETYPE);
	ti->cause.code = be32_get_bits(t->ctrl, RDMAP_TERM_CODE);
	ti->flags = be32_to_cpu(t->ctrl) & RDMAP_TERM_HDRCT;
	return rdmap_term_parse_parts(t, len, ti);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_term_parse);

struct swi_rdmap_term_name {
	u8 layer;
	u8 etype;
	u8 code;
	const char *name;
};

#define TN(l, e, c, n) { TERM_LAYER_##l, TERM_ETYPE_##e, c, n }

/* RFC 5040 Terminate Header, RFC 5041 7.2, RFC 5044 section 8, RFC 6581 */
static const struct swi_rdmap_term_name rdmap_term_names[] = {
	TN(RDMAP, RDMAP_CATASTROPHIC, TERM_RDMAP_CATASTROPHIC,
	   "RDMAP local catastrophic error"),
	TN(RDMAP, RDMAP_CATASTROPHIC, TERM_RDMAP_UNSPECIFIED,
	   "RDMAP local catastrophic error, unspecified"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_INVALID_STAG,
	   "RDMAP invalid STag"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_BASE_BOUNDS,
	   "RDMAP base or bounds violation"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_ACCESS,
	   "RDMAP access rights violation"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_STAG_NOT_ASSOC,
	   "RDMAP STag not associated with stream"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_TO_WRAP, "RDMAP TO wrap"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_CANNOT_INVALIDATE,
	   "RDMAP STag cannot be invalidated"),
	TN(RDMAP, RDMAP_PROTECTION, TERM_RDMAP_UNSPECIFIED,
	   "RDMAP unspecified protection error"),
	TN(RDMAP, RDMAP_OPERATION, TERM_RDMAP_VERSION,
	   "RDMAP invalid RDMAP version"),
	TN(RDMAP, RDMAP_OPERATION, TERM_RDMAP_OPCODE,
	   "RDMAP unexpected opcode"),
	TN(RDMAP, RDMAP_OPERATION, TERM_RDMAP_CATASTROPHIC_STREAM,
	   "RDMAP catastrophic error in stream"),
	TN(RDMAP, RDMAP_OPERATION, TERM_RDMAP_CATASTROPHIC_GLOBAL,
	   "RDMAP catastrophic error, global"),
	TN(RDMAP, RDMAP_OPERATION, TERM_RDMAP_CANNOT_INVALIDATE,
	   "RDMAP STag cannot be invalidated"),
	TN(RDMAP, RDMAP_OPERATION, TERM_RDMAP_UNSPECIFIED,
	   "RDMAP unspecified operation error"),
	TN(DDP, DDP_CATASTROPHIC, TERM_DDP_CATASTROPHIC,
	   "DDP local catastrophic error"),
	TN(DDP, DDP_TAGGED, TERM_DDP_T_INVALID_STAG, "DDP invalid STag"),
	TN(DDP, DDP_TAGGED, TERM_DDP_T_BASE_BOUNDS,
	   "DDP base or bounds violation"),
	TN(DDP, DDP_TAGGED, TERM_DDP_T_STAG_NOT_ASSOC,
	   "DDP STag not associated with stream"),
	TN(DDP, DDP_TAGGED, TERM_DDP_T_TO_WRAP, "DDP TO wrap"),
	TN(DDP, DDP_TAGGED, TERM_DDP_T_VERSION,
	   "DDP invalid DDP version (tagged)"),
	TN(DDP, DDP_UNTAGGED, TERM_DDP_U_INVALID_QN, "DDP invalid QN"),
	TN(DDP, DDP_UNTAGGED, TERM_DDP_U_MSN_NO_BUF,
	   "DDP invalid MSN, no buffer available"),
	TN(DDP, DDP_UNTAGGED, TERM_DDP_U_MSN_RANGE,
	   "DDP invalid MSN, out of range"),
	TN(DDP, DDP_UNTAGGED, TERM_DDP_U_INVALID_MO, "DDP invalid MO"),
	TN(DDP, DDP_UNTAGGED, TERM_DDP_U_TOO_LONG,
	   "DDP message too long for buffer"),
	TN(DDP, DDP_UNTAGGED, TERM_DDP_U_VERSION,
	   "DDP invalid DDP version (untagged)"),
	TN(LLP, LLP, MPA_ERR_TCP_LOST, "LLP TCP connection lost"),
	TN(LLP, LLP, MPA_ERR_CRC, "LLP MPA CRC error"),
	TN(LLP, LLP, MPA_ERR_MARKER, "LLP MPA Marker and ULPDU_Length mismatch"),
	TN(LLP, LLP, MPA_ERR_REQ_REP, "LLP invalid MPA Request or Reply"),
	TN(LLP, LLP, MPA_ERR_LOCAL_CATASTROPHIC,
	   "LLP local catastrophic error"),
	TN(LLP, LLP, MPA_ERR_INSUFFICIENT_IRD, "LLP insufficient IRD"),
	TN(LLP, LLP, MPA_ERR_NO_MATCHING_RTR, "LLP no matching RTR"),
};

/**
 * swi_rdmap_term_name() - a short name of a Terminate error, for logs
 * @layer: the Terminate's layer
 * @etype: its error type
 * @code: its error code
 *
 * Context: any context.
 * Return: a static string: the error's name, or "<layer> unknown error"
 * for a triple that no RFC defines.
 */
const char *swi_rdmap_term_name(u8 layer, u8 etype, u8 code)
{
	static const char * const unknown[] = {
		[TERM_LAYER_RDMAP] = "RDMAP unknown error",
		[TERM_LAYER_DDP] = "DDP unknown error",
		[TERM_LAYER_LLP] = "LLP unknown error",
	};
	const struct swi_rdmap_term_name *n;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rdmap_term_names); i++) {
		n = &rdmap_term_names[i];
		if (n->layer == layer && n->etype == etype && n->code == code)
			return n->name;
	}
	return layer < ARRAY_SIZE(unknown) ? unknown[layer] :
					     "unknown layer error";
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_term_name);
