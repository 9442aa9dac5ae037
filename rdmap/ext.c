// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: RDMAP extensions (RFC 7306): codec, atomic arithmetic, checks
 *
 * Immediate Data (RFC 7306 section 6.2): 8 octets behind the untagged DDP
 * header, and exactly 8 (section 6.3). The kernel's verbs carry a 32-bit
 * immediate (ib_send_wr.ex.imm_data, ib_wc.ex.imm_data, both big endian):
 * it travels in the first 4 octets, the last 4 are zero on send and
 * ignored on receive (Documentation/rfc7306.rst says why).
 *
 * Atomic Request and Response (section 5.2): the headers of Figures 4 and
 * 6, all fields big endian; the reserved 28 bits of the Request's first
 * word are zero on send and ignored on receive.
 *
 * swi_rdmap_atomic_result() is the value the operation leaves in the target,
 * computed in host order (the target memory's: section 5.1.1):
 *
 * - FetchAdd (section 5.1.1): Original + Add Data, where each bit set in
 *   the Add Mask ends a field: the carry out of that bit is discarded. A
 *   zero mask is one 64-bit addition.
 * - CmpSwap (section 5.1.2): when (Compare Data ^ Original) & Compare
 *   Mask is zero, (Original & ~Swap Mask) | (Swap Data & Swap Mask);
 *   otherwise Original, unchanged.
 *
 * swi_rdmap_atomic_req_check() is the responder's judgement of a request, the
 * first failure wins:
 *
 * 1. An Atomic Operation Code it does not implement (section 5.2.1 rule
 *    4: "an error MUST be surfaced"): RDMAP Remote Operation Error,
 *    Unexpected OpCode, the error section 1.1 says a peer reports for an
 *    operation it does not support.
 * 2. The target STag and the 8 octets at the Tagged Offset, as for the
 *    Data Source of a Read Request (section 5: "the same remote addressing
 *    mechanism as RDMA Reads and Writes"), with remote atomic access: RDMAP
 *    Remote Protection Errors (RFC 5040 section 4.8).
 * 3. A Tagged Offset that is not 64-bit aligned (section 8.2): RDMAP
 *    Remote Operation Error, Catastrophic error localized to the RDMAP
 *    Stream. Whether the memory behind an aligned offset is aligned too is
 *    the caller's check, with the same error.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "rdmap/codec.h"
#include "rdmap/ext.h"
#include "rdmap/terminate.h"

/**
 * swi_rdmap_imm_build() - write an Immediate Data header
 * @w: where it goes, right behind the untagged DDP header
 * @imm: the verbs' 32-bit immediate, as ib_send_wr carries it
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_imm_build(struct rdmap_imm *w, __be32 imm)
{
	memset(w, 0, sizeof(*w));
	memcpy(w->data, &imm, sizeof(imm));
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_imm_build);

/**
 * swi_rdmap_imm_parse() - read an Immediate Data header
 * @buf: the received octets behind the untagged DDP header
 * @len: how many octets the message carries there
 * @imm: the 32-bit immediate for ib_wc, from the first 4 octets
 *
 * Context: any context.
 * Return: RDMAP_IMM_SIZE, or -EBADMSG when @len is not exactly that (RFC
 * 7306 section 6.3).
 */
int swi_rdmap_imm_parse(const void *buf, size_t len, __be32 *imm)
{
	if (len != RDMAP_IMM_SIZE)
		return -EBADMSG;
	memcpy(imm, buf, sizeof(*imm));
	return RDMAP_IMM_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_imm_parse);

/**
 * swi_rdmap_atomic_req_build() - write an Atomic Request header
 * @w: where it goes, right behind the untagged DDP header
 * @r: its fields; @r->aop is written as its low 4 bits
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_atomic_req_build(struct rdmap_atomic_req *w,
				const struct rdmap_atomic_req_info *r)
{
	w->aopcode = cpu_to_be32(r->aop & RDMAP_ATOMIC_AOPCODE);
	w->req_id = cpu_to_be32(r->req_id);
	w->stag = cpu_to_be32(r->stag);
	w->to = cpu_to_be64(r->to);
	w->data = cpu_to_be64(r->data);
	w->data_mask = cpu_to_be64(r->data_mask);
	w->compare = cpu_to_be64(r->compare);
	w->compare_mask = cpu_to_be64(r->compare_mask);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_atomic_req_build);

/**
 * swi_rdmap_atomic_req_parse() - read an Atomic Request header
 * @buf: the received octets behind the untagged DDP header
 * @len: how many octets @buf holds
 * @r: the header in host order; the reserved bits are dropped
 *
 * Context: any context.
 * Return: RDMAP_ATOMIC_REQ_SIZE, or -EBADMSG when @len is shorter.
 */
int swi_rdmap_atomic_req_parse(const void *buf, size_t len,
			       struct rdmap_atomic_req_info *r)
{
	const struct rdmap_atomic_req *w = buf;

	if (len < sizeof(*w))
		return -EBADMSG;
	r->aop = be32_to_cpu(w->aopcode) & RDMAP_ATOMIC_AOPCODE;
	r->req_id = be32_to_cpu(w->req_id);
	r->stag = be32_to_cpu(w->stag);
	r->to = be64_to_cpu(w->to);
	r->data = be64_to_cpu(w->data);
	r->data_mask = be64_to_cpu(w->data_mask);
	r->compare = be64_to_cpu(w->compare);
	r->compare_mask = be64_to_cpu(w->compare_mask);
	return sizeof(*w);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_atomic_req_parse);

/**
 * swi_rdmap_atomic_resp_build() - write an Atomic Response header
 * @w: where it goes, right behind the untagged DDP header
 * @r: its fields
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_atomic_resp_build(struct rdmap_atomic_resp *w,
				 const struct rdmap_atomic_resp_info *r)
{
	w->req_id = cpu_to_be32(r->req_id);
	w->orig = cpu_to_be64(r->orig);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_atomic_resp_build);

/**
 * swi_rdmap_atomic_resp_parse() - read an Atomic Response header
 * @buf: the received octets behind the untagged DDP header
 * @len: how many octets @buf holds
 * @r: the header in host order
 *
 * Context: any context.
 * Return: RDMAP_ATOMIC_RESP_SIZE, or -EBADMSG when @len is shorter.
 */
int swi_rdmap_atomic_resp_parse(const void *buf, size_t len,
				struct rdmap_atomic_resp_info *r)
{
	const struct rdmap_atomic_resp *w = buf;

	if (len < sizeof(*w))
		return -EBADMSG;
	r->req_id = be32_to_cpu(w->req_id);
	r->orig = be64_to_cpu(w->orig);
	return sizeof(*w);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_atomic_resp_parse);

/*
 * Masked FetchAdd: with the field-ending bits cleared in both operands,
 * no carry leaves a field; those bits are then the sum of their two
 * operand bits and the carry that reached them.
 */
static u64 rdmap_fetch_add(u64 orig, u64 add, u64 mask)
{
	return ((orig & ~mask) + (add & ~mask)) ^ ((orig ^ add) & mask);
}

/**
 * swi_rdmap_atomic_result() - the value an Atomic Operation leaves in its target
 * @r: the request, its code one swi_rdmap_atomic_req_check() accepted
 * @orig: the target's value before the operation, in host order
 *
 * Context: any context.
 * Return: the value to store (@orig itself when nothing changes: a
 * CmpSwap whose comparison fails, or an operation code not implemented).
 */
u64 swi_rdmap_atomic_result(const struct rdmap_atomic_req_info *r, u64 orig)
{
	switch (r->aop) {
	case RDMAP_ATOMIC_FETCH_ADD:
		return rdmap_fetch_add(orig, r->data, r->data_mask);
	case RDMAP_ATOMIC_CMP_SWAP:
		if ((r->compare ^ orig) & r->compare_mask)
			return orig;
		return (orig & ~r->data_mask) | (r->data & r->data_mask);
	default:
		return orig;
	}
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_atomic_result);

static int rdmap_ext_fail(struct rdmap_term_cause *cause, u8 etype, u8 code)
{
	cause->layer = TERM_LAYER_RDMAP;
	cause->etype = etype;
	cause->code = code;
	return -EPROTO;
}

/**
 * swi_rdmap_atomic_req_check() - the responder's checks of an Atomic Request
 * @r: the parsed request
 * @dst: the lookup result of @r->stag (NULL counts as invalid)
 * @cause: set to the Terminate error when the request is refused
 *
 * Applies the rules listed at the top of this file.
 *
 * Context: any context.
 * Return: 0 when the operation may be performed, -EPROTO with @cause set
 * otherwise.
 */
int swi_rdmap_atomic_req_check(const struct rdmap_atomic_req_info *r,
			       const struct ddp_stag_check *dst,
			       struct rdmap_term_cause *cause)
{
	int err;

	if (r->aop != RDMAP_ATOMIC_FETCH_ADD && r->aop != RDMAP_ATOMIC_CMP_SWAP)
		return rdmap_ext_fail(cause, TERM_ETYPE_RDMAP_OPERATION,
				      TERM_RDMAP_OPCODE);
	err = swi_rdmap_region_fail(swi_ddp_region_check(dst, DDP_ACCESS_REMOTE_ATOMIC,
							 r->to, sizeof(u64)), cause);
	if (err)
		return err;
	if (r->to & (sizeof(u64) - 1))
		return rdmap_ext_fail(cause, TERM_ETYPE_RDMAP_OPERATION,
				      TERM_RDMAP_CATASTROPHIC_STREAM);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_atomic_req_check);
