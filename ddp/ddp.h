/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: DDP layer interface
 *
 * Pure codecs and checks, no socket and no lock: building and parsing
 * DDP headers (with the ULP's control octet split the way RDMAP lays it
 * out, see ddp/ddp_proto.h), and the receive-side DDP checks of one
 * incoming segment against what the receiver knows (struct ddp_rx_state,
 * and the caller's STag lookup result in struct ddp_stag_check). A failed
 * check gives the DDP error type and code of RFC 5041 section 7.2 (struct
 * ddp_error); reporting it is the ULP's business (RDMAP: a Terminate of
 * the DDP layer, rdmap/codec.h). DDP knows nothing of the ULP's opcodes,
 * versions or queue assignment: those checks are the ULP's.
 */
#ifndef SOFTIWARP_DDP_H
#define SOFTIWARP_DDP_H

#include <linux/bits.h>
#include <linux/types.h>

#include "compat.h"
#include "ddp/ddp_proto.h"

/**
 * struct ddp_hdr_info - a DDP header in host order
 * @tagged: 1 for the tagged buffer model (T), 0 for untagged
 * @last: 1 when this is the last segment of its message (L)
 * @dv: DDP version
 * @rv: the ULP octet's DDP_CTRL_ULP_RV bits: the RDMAP version
 * @opcode: the ULP octet's DDP_CTRL_ULP_OPCODE bits: the RDMAP opcode,
 *	enum rdmap_opcode (rdmap/rdmap_proto.h)
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

int swi_ddp_hdr_build(void *buf, size_t size, const struct ddp_hdr_info *h);
int swi_ddp_hdr_parse(const void *buf, size_t len, struct ddp_hdr_info *h);

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
#define DDP_ACCESS_REMOTE_ATOMIC	BIT(2)

/**
 * struct ddp_stag_check - the caller's STag lookup result
 * @state: enum ddp_stag_state
 * @access: DDP_ACCESS_* rights the STag grants the peer. Placing tagged
 *	data (RDMA Write, and the Read Response into the Data Sink STag of
 *	one of our Read Requests) needs DDP_ACCESS_REMOTE_WRITE, reading for
 *	a Read Request needs DDP_ACCESS_REMOTE_READ, the target of an Atomic
 *	Request (RFC 7306) DDP_ACCESS_REMOTE_ATOMIC.
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
 *	being filled included), as the ULP counts them; for RDMAP the posted
 *	receives on queue 0, the free inbound Read Request slots (IRD) on
 *	queue 1, 1 on queue 2
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

/*
 * The untagged queues this DDP receives on: QN 0 to DDP_QN_COUNT - 1, a
 * higher QN is invalid. RFC 5041 leaves their number to the ULP; RDMAP's
 * four queues must fit (RFC 5040's three and RFC 7306's queue 3, checked
 * in rdmap/codec.c).
 */
#define DDP_QN_COUNT	4

/**
 * struct ddp_rx_state - what the receiver knows when a segment arrives
 * @rdmac: nonzero when the connection runs with an RDMA Consortium peer
 *	(MPA Rev 0): its first segment may carry DDP version 0 or 1 (and
 *	RDMAP version 0 or 1); the versions it carries are then the
 *	stream's (@ver_fixed). With any other peer both are 1
 * @ver_fixed: nonzero once a segment was accepted on an RDMAC stream:
 *	every later segment must carry @dv and @rv (RFC 5041 section 4.1:
 *	DV is the same in every segment of a stream); set by
 *	swi_ddp_rx_fix_version()
 * @dv: the DDP version of the stream's first segment, when @ver_fixed
 * @rv: the ULP's version field (DDP_CTRL_ULP_RV) of that segment, when
 *	@ver_fixed, for the ULP's own check (RDMAP: its version)
 * @ulp_ext: for the ULP's own check, ignored by DDP: nonzero when the
 *	ULP accepts its extensions (RDMAP: RFC 7306's messages)
 * @queue: the untagged queues, indexed by QN
 */
struct ddp_rx_state {
	u8 rdmac;
	u8 ver_fixed;
	u8 dv;
	u8 rv;
	u8 ulp_ext;
	struct ddp_rx_queue queue[DDP_QN_COUNT];
};

/**
 * struct ddp_error - why DDP refuses a segment (RFC 5041 section 7.2)
 * @etype: enum ddp_term_etype
 * @code: enum ddp_term_code of that type
 */
struct ddp_error {
	u8 etype;
	u8 code;
};

/**
 * enum ddp_region_verdict - a tagged access against its STag lookup
 * @DDP_REGION_OK: the access may proceed
 * @DDP_REGION_INVALID: no lookup result, or the STag is invalid
 * @DDP_REGION_NOT_ASSOC: the STag is not associated with this stream
 * @DDP_REGION_ACCESS: the STag does not grant the access rights needed
 * @DDP_REGION_WRAP: the access runs past 2^64 - 1
 * @DDP_REGION_BOUNDS: the access does not lie within the region
 */
enum ddp_region_verdict {
	DDP_REGION_OK,
	DDP_REGION_INVALID,
	DDP_REGION_NOT_ASSOC,
	DDP_REGION_ACCESS,
	DDP_REGION_WRAP,
	DDP_REGION_BOUNDS,
};

enum ddp_region_verdict swi_ddp_region_check(const struct ddp_stag_check *s,
					     u8 need, u64 to, u64 len);
int swi_ddp_rx_check_version(const struct ddp_hdr_info *h,
			     const struct ddp_rx_state *rx, struct ddp_error *err);
void swi_ddp_rx_fix_version(struct ddp_rx_state *rx,
			    const struct ddp_hdr_info *h);
int swi_ddp_rx_check_buffer(const struct ddp_hdr_info *h, u32 len,
			    const struct ddp_rx_state *rx,
			    const struct ddp_stag_check *stag,
			    struct ddp_error *err);

#endif /* SOFTIWARP_DDP_H */
