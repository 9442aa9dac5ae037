/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: RDMAP codec and receive checks
 *
 * Pure code, no socket and no lock: the RDMA Read Request header in host
 * order and its codec, and the receive-side checks of an incoming segment
 * and of an RDMA Read Request. swi_rdmap_rx_check() runs RDMAP's own checks
 * (version, opcode, queue of the opcode) and DDP's (ddp/ddp.h) in one
 * order and reports a failure as the Terminate error to send (struct
 * rdmap_term_cause, rdmap/terminate.h): DDP's errors with the DDP layer,
 * its own with the RDMAP layer.
 */
#ifndef SOFTIWARP_RDMAP_CODEC_H
#define SOFTIWARP_RDMAP_CODEC_H

#include <linux/types.h>

#include "compat.h"
#include "ddp/ddp.h"
#include "rdmap/rdmap_proto.h"

struct rdmap_term_cause;

/**
 * struct rdmap_read_req_info - an RDMA Read Request header in host order
 * @sink_stag: Data Sink STag
 * @sink_to: Data Sink Tagged Offset
 * @size: RDMA Read Message Size
 * @src_stag: Data Source STag
 * @src_to: Data Source Tagged Offset
 */
struct rdmap_read_req_info {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

void swi_rdmap_read_req_build(struct rdmap_read_req *w,
			      const struct rdmap_read_req_info *r);
int swi_rdmap_read_req_parse(const void *buf, size_t len,
			     struct rdmap_read_req_info *r);

int swi_rdmap_rx_check(const struct ddp_hdr_info *h, u32 len,
		       const struct ddp_rx_state *rx,
		       const struct ddp_stag_check *stag,
		       struct rdmap_term_cause *cause);
int swi_rdmap_read_req_check(const struct rdmap_read_req_info *r,
			     const struct ddp_stag_check *src,
			     struct rdmap_term_cause *cause);
int swi_rdmap_region_fail(enum ddp_region_verdict v, struct rdmap_term_cause *cause);

#endif /* SOFTIWARP_RDMAP_CODEC_H */
