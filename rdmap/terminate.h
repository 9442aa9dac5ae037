/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: Terminate message codec
 *
 * Building the Terminate header (the payload of the Terminate message,
 * behind its untagged DDP header on queue 2) for an error, with the
 * offending segment's headers copied in as RFC 5040 asks, parsing one
 * received from the peer without trusting any length in it, and a short
 * name for every (layer, error type, error code) triple for logs.
 */
#ifndef SOFTIWARP_TERMINATE_H
#define SOFTIWARP_TERMINATE_H

#include <linux/types.h>

#include "compat.h"
#include "ddp/ddp.h"
#include "rdmap/codec.h"
#include "rdmap/rdmap_proto.h"

/**
 * struct rdmap_term_cause - an error as a Terminate reports it
 * @layer: enum rdmap_term_layer
 * @etype: enum rdmap_term_etype of that layer
 * @code: enum rdmap_term_code of that type, or enum mpa_error for the LLP
 */
struct rdmap_term_cause {
	u8 layer;
	u8 etype;
	u8 code;
};

/**
 * struct rdmap_term_offender - the received segment a Terminate reports
 * @hdr: the segment's octets from its DDP Control Field on: the DDP
 *	header, then the payload (for a Read Request, its RDMAP header)
 * @len: how many octets of @hdr are available
 * @seg_len: the DDP segment length (the MPA ULPDU_Length: DDP header and
 *	payload)
 */
struct rdmap_term_offender {
	const void *hdr;
	size_t len;
	u16 seg_len;
};

/* Parsed Terminate: which optional parts were present */
#define RDMAP_TERM_HAS_SEGLEN	BIT(0)	/* ddp_seg_len field present */
#define RDMAP_TERM_HAS_DDP	BIT(1)	/* ddp holds the DDP header */
#define RDMAP_TERM_HAS_RREQ	BIT(2)	/* rreq holds the Read Request */

/**
 * struct rdmap_term_info - a parsed Terminate header
 * @cause: layer, error type and error code
 * @flags: M, D and R as received (RDMAP_TERM_M, _D, _R)
 * @has: RDMAP_TERM_HAS_* parts present and parsed
 * @seg_len: DDP segment length, meaningful when M is set
 * @ddp: the offending DDP header, when RDMAP_TERM_HAS_DDP
 * @rreq: the offending Read Request header, when RDMAP_TERM_HAS_RREQ
 */
struct rdmap_term_info {
	struct rdmap_term_cause cause;
	u16 flags;
	u8 has;
	u16 seg_len;
	struct ddp_hdr_info ddp;
	struct rdmap_read_req_info rreq;
};

unsigned int swi_rdmap_term_build(struct rdmap_term_hdr *t,
				  const struct rdmap_term_cause *cause,
				  const struct rdmap_term_offender *seg);
int swi_rdmap_term_parse(const void *buf, size_t len,
			 struct rdmap_term_info *ti);
const char *swi_rdmap_term_name(u8 layer, u8 etype, u8 code);

#endif /* SOFTIWARP_TERMINATE_H */
