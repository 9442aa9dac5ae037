/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: RDMAP extensions (RFC 7306): codec, atomic arithmetic, checks
 *
 * Pure code, no socket and no lock, as rdmap/codec.h: the Immediate Data,
 * Atomic Request and Atomic Response headers in host order and their
 * codecs, the value an Atomic Operation leaves in its target, and the
 * responder's checks of an incoming Atomic Request, reported as the
 * Terminate error to send (struct rdmap_term_cause, rdmap/terminate.h).
 * The wire layouts are in rdmap/rdmap_proto.h.
 */
#ifndef SOFTIWARP_RDMAP_EXT_H
#define SOFTIWARP_RDMAP_EXT_H

#include <linux/types.h>

#include "compat.h"
#include "ddp/ddp.h"
#include "rdmap/rdmap_proto.h"

struct rdmap_term_cause;

/**
 * struct rdmap_atomic_req_info - an Atomic Request header in host order
 * @aop: Atomic Operation Code (enum rdmap_atomic_op, or any other value
 *	the peer sent)
 * @req_id: Request Identifier
 * @stag: Remote STag
 * @to: Remote Tagged Offset
 * @data: Add or Swap Data
 * @data_mask: Add or Swap Mask
 * @compare: Compare Data
 * @compare_mask: Compare Mask
 */
struct rdmap_atomic_req_info {
	u8 aop;
	u32 req_id;
	u32 stag;
	u64 to;
	u64 data;
	u64 data_mask;
	u64 compare;
	u64 compare_mask;
};

/**
 * struct rdmap_atomic_resp_info - an Atomic Response header in host order
 * @req_id: Original Request Identifier
 * @orig: Original Remote Data Value
 */
struct rdmap_atomic_resp_info {
	u32 req_id;
	u64 orig;
};

void swi_rdmap_imm_build(struct rdmap_imm *w, __be32 imm);
int swi_rdmap_imm_parse(const void *buf, size_t len, __be32 *imm);
void swi_rdmap_atomic_req_build(struct rdmap_atomic_req *w,
				const struct rdmap_atomic_req_info *r);
int swi_rdmap_atomic_req_parse(const void *buf, size_t len,
			       struct rdmap_atomic_req_info *r);
void swi_rdmap_atomic_resp_build(struct rdmap_atomic_resp *w,
				 const struct rdmap_atomic_resp_info *r);
int swi_rdmap_atomic_resp_parse(const void *buf, size_t len,
				struct rdmap_atomic_resp_info *r);

u64 swi_rdmap_atomic_result(const struct rdmap_atomic_req_info *r, u64 orig);
int swi_rdmap_atomic_req_check(const struct rdmap_atomic_req_info *r,
			       const struct ddp_stag_check *dst,
			       struct rdmap_term_cause *cause);

#endif /* SOFTIWARP_RDMAP_EXT_H */
