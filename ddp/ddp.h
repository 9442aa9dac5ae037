/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: DDP layer interface
 *
 * Pure codecs and checks, no socket and no lock: building and parsing
 * DDP headers (with the RDMAP control bits they carry) and the RDMA Read
 * Request header, and the receive-side validation of one incoming DDP
 * segment against what the receiver knows (struct ddp_rx_state, and the
 * caller's STag lookup result in struct ddp_stag_check). A failed check
 * gives the exact Terminate layer, error type and error code to report
 * (struct rdmap_term_cause, rdmap/terminate.h).
 */
#ifndef SOFTIWARP_DDP_H
#define SOFTIWARP_DDP_H

#include <linux/bits.h>
#include <linux/types.h>

#include "compat.h"
#include "ddp/ddp_proto.h"
#include "rdmap/rdmap_proto.h"

struct rdmap_term_cause;

/**
 * struct ddp_hdr_info - a DDP header in host order
 * @tagged: 1 for the tagged buffer model (T), 0 for untagged
 * @last: 1 when this is the last segment of its message (L)
 * @dv: DDP version
 * @rv: RDMAP version
 * @opcode: RDMAP opcode, enum rdmap_opcode
 * @stag: tagged: the STag; untagged: the RsvdULP word (Invalidate STag)
 * @to: tagged only: the Tagged Offset
 * @qn: untagged only: the Queue Number
 * @msn: untagged only: the Message Sequence Number
 * @mo: untagged only: the Message Offset
 */
struct ddp_hdr_info {
	u8 tagged;
	u8 last;
	u8 dv;
	u8 rv;
	u8 opcode;
	u32 stag;
	u64 to;
	u32 qn;
	u32 msn;
	u32 mo;
};

/**
 * ddp_hdr_size() - length of a DDP header
 * @tagged: nonzero for the tagged buffer model
 *
 * Context: any context.
 * Return: DDP_TAGGED_HDR_SIZE or DDP_UNTAGGED_HDR_SIZE.
 */
static inline unsigned int ddp_hdr_size(unsigned int tagged)
{
	return tagged ? DDP_TAGGED_HDR_SIZE : DDP_UNTAGGED_HDR_SIZE;
}

int ddp_hdr_build(void *buf, size_t size, const struct ddp_hdr_info *h);
int ddp_hdr_parse(const void *buf, size_t len, struct ddp_hdr_info *h);

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

void rdmap_read_req_build(struct rdmap_read_req *w,
			  const struct rdmap_read_req_info *r);
int rdmap_read_req_parse(const void *buf, size_t len,
			 struct rdmap_read_req_info *r);

/**
 * enum ddp_stag_state - what the STag lookup found
 * @DDP_STAG_VALID: a valid STag of this stream
 * @DDP_STAG_INVALID: no such STag: never registered, invalidated,
 *	deregistered, or its key octet does not match
 * @DDP_STAG_NOT_ASSOC: a valid STag that this stream may not use (another
 *	protection domain, or a memory window bound to another QP)
 */
enum ddp_stag_state {
	DDP_STAG_VALID,
	DDP_STAG_INVALID,
	DDP_STAG_NOT_ASSOC,
};

#define DDP_ACCESS_REMOTE_READ	BIT(0)
#define DDP_ACCESS_REMOTE_WRITE	BIT(1)

/**
 * struct ddp_stag_check - the caller's STag lookup result
 * @state: enum ddp_stag_state
 * @access: DDP_ACCESS_* rights the STag grants the peer. Placing tagged
 *	data (RDMA Write, and the Read Response into the Data Sink STag of
 *	one of our Read Requests) needs DDP_ACCESS_REMOTE_WRITE, reading for
 *	a Read Request needs DDP_ACCESS_REMOTE_READ.
 * @base: first valid Tagged Offset of the region
 * @len: length of the region in octets; [@base, @base + @len) is the
 *	region, which must not extend past 2^64
 */
struct ddp_stag_check {
	u8 state;
	u8 access;
	u64 base;
	u64 len;
};

/**
 * struct ddp_rx_queue - the receiver's view of one untagged queue
 * @msn: MSN of the message in progress, or of the next message when
 *	none is in progress (DDP_MSN_FIRST for a new stream)
 * @buffers: buffers available for messages @msn, @msn + 1, ... (the one
 *	being filled included): posted receives for queue 0, free inbound
 *	Read Request slots (IRD) for queue 1, 1 for queue 2
 * @received: octets of message @msn already received, 0 before its first
 *	segment
 * @buf_len: size of the buffer that takes message @msn
 */
struct ddp_rx_queue {
	u32 msn;
	u32 buffers;
	u32 received;
	u32 buf_len;
};

/**
 * struct ddp_rx_state - what the receiver knows when a segment arrives
 * @rdmac: nonzero when the connection runs with an RDMA Consortium peer
 *	(MPA Rev 0): DDP and RDMAP version 0 are then accepted as well as 1
 * @queue: the untagged queues, indexed by QN
 */
struct ddp_rx_state {
	u8 rdmac;
	struct ddp_rx_queue queue[RDMAP_QN_COUNT];
};

int ddp_rx_check(const struct ddp_hdr_info *h, u32 len,
		 const struct ddp_rx_state *rx,
		 const struct ddp_stag_check *stag,
		 struct rdmap_term_cause *cause);
int rdmap_read_req_check(const struct rdmap_read_req_info *r,
			 const struct ddp_stag_check *src,
			 struct rdmap_term_cause *cause);

#endif /* SOFTIWARP_DDP_H */
