// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: RDMAP codec and receive checks
 *
 * Builds and parses the RDMA Read Request header (RFC 5040, RDMA Read
 * Request Header).
 *
 * swi_rdmap_rx_check() decides whether one incoming DDP segment may be
 * accepted, given the receiver's state, and if not, which Terminate error
 * it is. RDMAP's checks and DDP's (ddp/ddp.c, which has the details of
 * the DDP rules) run in this order, the first failure wins:
 *
 * 1. DDP version (RFC 5041 sections 4.1 and 7.2), swi_ddp_rx_check_version():
 *    a DDP tagged or untagged buffer error.
 * 2. RDMAP version (RFC 5040 section 4.1): RV must be 1; on a connection
 *    with an RDMA Consortium peer 0 or 1 in the first segment and the RV
 *    of the first in every later one, as for DV (swi_ddp_rx_fix_version()
 *    records both); a remote operation error.
 * 3. Opcode (RFC 5040 section 4.2): defined, and of the buffer model the
 *    T bit says (Write and Read Response tagged, the others untagged);
 *    otherwise "unexpected opcode", a remote operation error. RFC 7306's
 *    messages (0x8 to 0xB) are defined on a stream whose
 *    &ddp_rx_state.ulp_ext is set, nowhere else.
 * 4. Untagged segments: the QN must be the queue of the opcode (0 Send
 *    and Immediate Data, 1 Read Request and Atomic Request, 2 Terminate,
 *    3 Atomic Response), else DDP's
 *    "invalid QN"; then DDP's
 *    MSN, MO and length rules, swi_ddp_rx_check_buffer().
 * 5. Tagged segments: DDP's STag, wrap and bounds rules,
 *    swi_ddp_rx_check_buffer(); between them, an STag without remote write is
 *    RDMAP's "access rights violation" (remote protection error, RFC 5040
 *    Terminate Header: DDP has no code for access rights).
 *
 * swi_rdmap_read_req_check() applies the STag rules of swi_ddp_region_check() to
 * the Data Source of an incoming RDMA Read Request (RFC 5040, RDMA Read),
 * with RDMAP remote protection codes and remote read access.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "rdmap/codec.h"
#include "rdmap/terminate.h"

/* DDP must receive on every queue RDMAP uses */
static_assert(RDMAP_QN_COUNT <= DDP_QN_COUNT);

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

/**
 * swi_rdmap_read_req_build() - write an RDMA Read Request header
 * @w: where it goes, right behind the untagged DDP header
 * @r: its fields
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_read_req_build(struct rdmap_read_req *w,
			      const struct rdmap_read_req_info *r)
{
	w->sink_stag = cpu_to_be32(r->sink_stag);
	w->sink_to = cpu_to_be64(r->sink_to);
	w->size = cpu_to_be32(r->size);
	w->src_stag = cpu_to_be32(r->src_stag);
	w->src_to = cpu_to_be64(r->src_to);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_read_req_build);

/**
 * swi_rdmap_read_req_parse() - read an RDMA Read Request header
 * @buf: the received octets behind the untagged DDP header
 * @len: how many octets @buf holds
 * @r: the header in host order
 *
 * Context: any context.
 * Return: RDMAP_READ_REQ_SIZE, or -EBADMSG when @len is shorter.
 */
int swi_rdmap_read_req_parse(const void *buf, size_t len,
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
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_read_req_parse);

static int rdmap_fail(struct rdmap_term_cause *cause, u8 layer, u8 etype,
		      u8 code)
{
	cause->layer = layer;
	cause->etype = etype;
	cause->code = code;
	return -EPROTO;
}

static int rdmap_fail_ddp(struct rdmap_term_cause *cause,
			  const struct ddp_error *err)
{
	return rdmap_fail(cause, TERM_LAYER_DDP, err->etype, err->code);
}

/*
 * RFC 7306's messages are opcodes only on a stream that accepts the
 * extensions: Immediate Data untagged on queue 0 (section 6.3), the Atomic
 * Request on queue 1 (5.2.1 rule 3), the Atomic Response on queue 3
 * (5.2.2 rule 3). Elsewhere they are reserved (RFC 5040 section 4.2), and
 * RFC 7306 section 1.1 asks no other answer of a peer without them.
 */
static u8 rdmap_op_model(u8 opcode, bool ext)
{
	if (ext && (opcode == RDMAP_IMM || opcode == RDMAP_IMM_SE))
		return RDMAP_QN_SEND;
	if (ext && opcode == RDMAP_ATOMIC_REQ)
		return RDMAP_QN_READ_REQ;
	if (ext && opcode == RDMAP_ATOMIC_RESP)
		return RDMAP_QN_ATOMIC_RESP;
	return opcode < ARRAY_SIZE(rdmap_op_queue) ? rdmap_op_queue[opcode] :
						     OP_RESERVED;
}

/* RV 1; with an RDMAC peer 0 too, until the first segment chose one */
static bool rdmap_rx_rv_ok(const struct ddp_hdr_info *h,
			   const struct ddp_rx_state *rx)
{
	if (!rx->rdmac)
		return h->rv == RDMAP_VERSION;
	if (rx->ver_fixed)
		return h->rv == rx->rv;
	return h->rv == RDMAP_VERSION || h->rv == RDMAP_VERSION_RDMAC;
}

/* Checks 2 to 4a at the top of this file */
static int rdmap_rx_check_op(const struct ddp_hdr_info *h,
			     const struct ddp_rx_state *rx,
			     struct rdmap_term_cause *cause)
{
	u8 model = rdmap_op_model(h->opcode, rx->ulp_ext);
	bool tagged_op = model == OP_TAGGED;

	if (!rdmap_rx_rv_ok(h, rx))
		return rdmap_fail(cause, TERM_LAYER_RDMAP,
				  TERM_ETYPE_RDMAP_OPERATION,
				  TERM_RDMAP_VERSION);
	if (model == OP_RESERVED || tagged_op != !!h->tagged)
		return rdmap_fail(cause, TERM_LAYER_RDMAP,
				  TERM_ETYPE_RDMAP_OPERATION, TERM_RDMAP_OPCODE);
	if (!h->tagged && h->qn != model)
		return rdmap_fail(cause, TERM_LAYER_DDP,
				  TERM_ETYPE_DDP_UNTAGGED,
				  TERM_DDP_U_INVALID_QN);
	return 0;
}

/**
 * swi_rdmap_rx_check() - validate one incoming DDP segment
 * @h: its parsed header
 * @len: its payload length (the octets behind the DDP header)
 * @rx: what the receiver knows: versions accepted (those the stream's
 *	first segment fixed, on an RDMAC stream), untagged queue states
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
int swi_rdmap_rx_check(const struct ddp_hdr_info *h, u32 len,
		       const struct ddp_rx_state *rx,
		       const struct ddp_stag_check *stag,
		       struct rdmap_term_cause *cause)
{
	struct ddp_error err;
	int ret;

	if (swi_ddp_rx_check_version(h, rx, &err))
		return rdmap_fail_ddp(cause, &err);
	ret = rdmap_rx_check_op(h, rx, cause);
	if (ret)
		return ret;
	ret = swi_ddp_rx_check_buffer(h, len, rx, stag, &err);
	if (ret == -EACCES)
		return rdmap_fail(cause, TERM_LAYER_RDMAP,
				  TERM_ETYPE_RDMAP_PROTECTION,
				  TERM_RDMAP_ACCESS);
	if (ret)
		return rdmap_fail_ddp(cause, &err);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_rx_check);

/**
 * swi_rdmap_read_req_check() - validate the Data Source of a Read Request
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
int swi_rdmap_read_req_check(const struct rdmap_read_req_info *r,
			     const struct ddp_stag_check *src,
			     struct rdmap_term_cause *cause)
{
	if (!r->size)
		return 0;
	return swi_rdmap_region_fail(swi_ddp_region_check(src, DDP_ACCESS_REMOTE_READ,
							  r->src_to, r->size), cause);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_read_req_check);

/**
 * swi_rdmap_region_fail() - the Terminate of a tagged access RDMAP refuses
 * @v: the verdict of swi_ddp_region_check() on the access
 * @cause: set to the RDMAP Remote Protection Error of @v (RFC 5040
 *	section 4.8) when @v is not DDP_REGION_OK
 *
 * For the accesses RDMAP checks itself: the Data Source of a Read Request,
 * the target of an Atomic Request (RFC 7306 section 5).
 *
 * Context: any context.
 * Return: 0 for DDP_REGION_OK, else -EPROTO with @cause set.
 */
int swi_rdmap_region_fail(enum ddp_region_verdict v, struct rdmap_term_cause *cause)
{
	static const u8 code[] = {
		[DDP_REGION_INVALID] = TERM_RDMAP_INVALID_STAG,
		[DDP_REGION_NOT_ASSOC] = TERM_RDMAP_STAG_NOT_ASSOC,
		[DDP_REGION_ACCESS] = TERM_RDMAP_ACCESS,
		[DDP_REGION_WRAP] = TERM_RDMAP_TO_WRAP,
		[DDP_REGION_BOUNDS] = TERM_RDMAP_BASE_BOUNDS,
	};

	if (v == DDP_REGION_OK)
		return 0;
	return rdmap_fail(cause, TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_PROTECTION,
			  code[v]);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_region_fail);
