/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: RDMAP wire format (RFC 5040)
 *
 * Only what travels on the wire: the RDMAP Control Field (the RsvdULP
 * octet of the DDP Control Field), the message opcodes and the queues
 * they use, the RDMA Read Request header, and the Terminate header with
 * its layer, error type and error code values (those of the DDP layer are
 * DDP's, in ddp/ddp_proto.h). All fields are big endian.
 *
 * The Terminate header is the Terminate Control word, then, when the
 * M or D flag is set, the 16-bit DDP Segment Length, then, when D is set,
 * a copy of the DDP header of the offending segment (14 or 18 octets, as
 * its T bit says), then, when R is set, a copy of the RDMA Read Request
 * header of the offending message. The DDP header follows the segment
 * length directly: the same octets as the ULPDU_Length and DDP header of
 * the offending FPDU, which is also how the in-tree siw driver and the
 * tshark dissector lay it out.
 */
#ifndef SOFTIWARP_RDMAP_PROTO_H
#define SOFTIWARP_RDMAP_PROTO_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#include "ddp/ddp_proto.h"

/*
 * RDMAP Control Field (RFC 5040 section 4.1): the low octet of the DDP
 * Control Field, masks given on the whole 16-bit word. DDP's header codec
 * splits that octet with its own copy of the layout (DDP_CTRL_ULP_* in
 * ddp/ddp_proto.h, into struct ddp_hdr_info's rv and opcode); the two
 * must agree.
 */
#define RDMAP_CTRL_RV		GENMASK(7, 6)	/* RDMAP version */
#define RDMAP_CTRL_RSVD		GENMASK(5, 4)	/* zero on send, ignored */
#define RDMAP_CTRL_OPCODE	GENMASK(3, 0)

static_assert(RDMAP_CTRL_RV == DDP_CTRL_ULP_RV);
static_assert(RDMAP_CTRL_RSVD == DDP_CTRL_ULP_RSVD);
static_assert(RDMAP_CTRL_OPCODE == DDP_CTRL_ULP_OPCODE);

#define RDMAP_VERSION		1	/* RFC 5040 */
#define RDMAP_VERSION_RDMAC	0	/* RDMA Consortium peers (MPA Rev 0) */

/**
 * enum rdmap_opcode - RDMA message opcodes (RFC 5040 section 4.2)
 * @RDMAP_WRITE: RDMA Write, tagged
 * @RDMAP_READ_REQ: RDMA Read Request, untagged, queue 1
 * @RDMAP_READ_RESP: RDMA Read Response, tagged
 * @RDMAP_SEND: Send, untagged, queue 0
 * @RDMAP_SEND_INVAL: Send with Invalidate, untagged, queue 0
 * @RDMAP_SEND_SE: Send with Solicited Event, untagged, queue 0
 * @RDMAP_SEND_SE_INVAL: Send with Solicited Event and Invalidate,
 *	untagged, queue 0
 * @RDMAP_TERMINATE: Terminate, untagged, queue 2
 * @RDMAP_IMM: Immediate Data (RFC 7306 section 4.1), untagged, queue 0
 * @RDMAP_IMM_SE: Immediate Data with Solicited Event, untagged, queue 0
 * @RDMAP_ATOMIC_REQ: Atomic Request (RFC 7306 section 5.2), untagged,
 *	queue 1 with the RDMA Read Requests
 * @RDMAP_ATOMIC_RESP: Atomic Response, untagged, queue 3
 *
 * 0xc to 0xe are unassigned, 0xf is experimental (RFC 6580). RFC 7306's
 * four are defined here for its codec (rdmap/ext.h); until the engine
 * carries them, swi_rdmap_rx_check() refuses them as RFC 5040 says.
 */
enum rdmap_opcode {
	RDMAP_WRITE = 0x0,
	RDMAP_READ_REQ = 0x1,
	RDMAP_READ_RESP = 0x2,
	RDMAP_SEND = 0x3,
	RDMAP_SEND_INVAL = 0x4,
	RDMAP_SEND_SE = 0x5,
	RDMAP_SEND_SE_INVAL = 0x6,
	RDMAP_TERMINATE = 0x7,
	RDMAP_IMM = 0x8,
	RDMAP_IMM_SE = 0x9,
	RDMAP_ATOMIC_REQ = 0xa,
	RDMAP_ATOMIC_RESP = 0xb,
};

/**
 * enum rdmap_qn - the untagged queues RDMAP uses (RFC 5040 section 4.2)
 * @RDMAP_QN_SEND: the Send variants
 * @RDMAP_QN_READ_REQ: RDMA Read Requests
 * @RDMAP_QN_TERMINATE: Terminate
 * @RDMAP_QN_ATOMIC_RESP: Atomic Responses (RFC 7306 section 4.1, Figure
 *	2), which track the requester's outstanding Atomic Requests; Atomic
 *	Requests share queue 1 with the Read Requests (section 5.2.1)
 * @RDMAP_QN_COUNT: number of queues; higher QNs are invalid
 */
enum rdmap_qn {
	RDMAP_QN_SEND = 0,
	RDMAP_QN_READ_REQ = 1,
	RDMAP_QN_TERMINATE = 2,
	RDMAP_QN_ATOMIC_RESP = 3,
	RDMAP_QN_COUNT = 4,
};

#define RDMAP_READ_REQ_SIZE	28

/**
 * struct rdmap_read_req - RDMA Read Request header (RFC 5040)
 * @sink_stag: Data Sink STag, where the Read Response is placed
 * @sink_to: Data Sink Tagged Offset
 * @size: RDMA Read Message Size in octets
 * @src_stag: Data Source STag, what the responder reads
 * @src_to: Data Source Tagged Offset
 *
 * The payload of the single segment of an RDMA Read Request, behind its
 * untagged DDP header.
 */
struct rdmap_read_req {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 size;
	__be32 src_stag;
	__be64 src_to;
} __packed;

static_assert(sizeof(struct rdmap_read_req) == RDMAP_READ_REQ_SIZE);

#define RDMAP_IMM_SIZE		8
#define RDMAP_ATOMIC_REQ_SIZE	52
#define RDMAP_ATOMIC_RESP_SIZE	12

/**
 * struct rdmap_imm - Immediate Data header (RFC 7306 section 6.2)
 * @data: the 8 octets of Immediate Data, the whole payload of an
 *	Immediate Data or Immediate Data with SE message
 */
struct rdmap_imm {
	u8 data[RDMAP_IMM_SIZE];
} __packed;

static_assert(sizeof(struct rdmap_imm) == RDMAP_IMM_SIZE);

/* The first word of the Atomic Request: 28 reserved bits, then AOpCode */
#define RDMAP_ATOMIC_AOPCODE	GENMASK(3, 0)

/**
 * enum rdmap_atomic_op - Atomic Operation Codes (RFC 7306 section 5.2.1,
 *	Figure 5; section 10.1)
 * @RDMAP_ATOMIC_FETCH_ADD: FetchAdd, masked by the Add Mask (section 5.1.1)
 * @RDMAP_ATOMIC_CMP_SWAP: CmpSwap, masked by the Swap and Compare Masks
 *	(section 5.1.2)
 *
 * 0x1 is reserved, 0x3 to 0xf are unassigned.
 */
enum rdmap_atomic_op {
	RDMAP_ATOMIC_FETCH_ADD = 0x0,
	RDMAP_ATOMIC_CMP_SWAP = 0x2,
};

/**
 * struct rdmap_atomic_req - Atomic Operation Request header (RFC 7306
 *	section 5.2.1, Figure 4)
 * @aopcode: 28 reserved bits (zero on send, ignored on receive), then the
 *	Atomic Operation Code (RDMAP_ATOMIC_AOPCODE)
 * @req_id: Request Identifier, chosen by the requester and reflected in
 *	the response
 * @stag: Remote STag of the target Tagged Buffer
 * @to: Remote Tagged Offset, of a 64-bit aligned ULP Buffer address
 * @data: Add or Swap Data
 * @data_mask: Add or Swap Mask
 * @compare: Compare Data (CmpSwap; zero otherwise)
 * @compare_mask: Compare Mask (CmpSwap; all ones otherwise)
 *
 * The payload of the single segment of an Atomic Request, behind its
 * untagged DDP header.
 */
struct rdmap_atomic_req {
	__be32 aopcode;
	__be32 req_id;
	__be32 stag;
	__be64 to;
	__be64 data;
	__be64 data_mask;
	__be64 compare;
	__be64 compare_mask;
} __packed;

static_assert(sizeof(struct rdmap_atomic_req) == RDMAP_ATOMIC_REQ_SIZE);

/**
 * struct rdmap_atomic_resp - Atomic Operation Response header (RFC 7306
 *	section 5.2.2, Figure 6)
 * @req_id: Original Request Identifier
 * @orig: Original Remote Data Value, the target's value before the
 *	operation
 *
 * 12 octets, as Figure 6 and Appendix A.2 draw it; section 4's text says
 * "32 bytes", which neither figure nor the field list supports
 * (Documentation/rfc7306.rst).
 */
struct rdmap_atomic_resp {
	__be32 req_id;
	__be64 orig;
} __packed;

static_assert(sizeof(struct rdmap_atomic_resp) == RDMAP_ATOMIC_RESP_SIZE);

/* Terminate Control word (RFC 5040, Terminate Header): Layer on top */
#define RDMAP_TERM_LAYER	GENMASK(31, 28)
#define RDMAP_TERM_ETYPE	GENMASK(27, 24)
#define RDMAP_TERM_CODE		GENMASK(23, 16)
#define RDMAP_TERM_M		BIT(15)	/* DDP Segment Length valid */
#define RDMAP_TERM_D		BIT(14)	/* DDP header included */
#define RDMAP_TERM_R		BIT(13)	/* RDMA Read Request header included */
#define RDMAP_TERM_RSVD		GENMASK(12, 0)

#define RDMAP_TERM_CTRL_SIZE	4
#define RDMAP_TERM_SEGLEN_SIZE	2
#define RDMAP_TERM_MAX_SIZE	(RDMAP_TERM_CTRL_SIZE + \
				 RDMAP_TERM_SEGLEN_SIZE + \
				 DDP_UNTAGGED_HDR_SIZE + RDMAP_READ_REQ_SIZE)

/**
 * struct rdmap_term_hdr - the largest Terminate header
 * @ctrl: Terminate Control: layer, error type, error code, M, D, R
 * @ddp_seg_len: length of the offending DDP segment (header and payload,
 *	the MPA ULPDU_Length); present when M or D is set, valid when M is
 * @ddp: DDP header of the offending segment, present when D is set:
 *	14 octets when its T bit is set, 18 otherwise
 * @ddp.tagged: the tagged form
 * @ddp.untagged: the untagged form
 * @rreq: RDMA Read Request header of the offending message, present
 *	when R is set (behind an untagged DDP header only)
 *
 * The layout with all three flags set. A Terminate with fewer flags is a
 * prefix of it, except that a tagged DDP header is 4 octets shorter.
 */
struct rdmap_term_hdr {
	__be32 ctrl;
	__be16 ddp_seg_len;
	union {
		struct ddp_tagged_hdr tagged;
		struct ddp_untagged_hdr untagged;
	} ddp;
	struct rdmap_read_req rreq;
} __packed;

static_assert(sizeof(struct rdmap_term_hdr) == RDMAP_TERM_MAX_SIZE);

/**
 * enum rdmap_term_layer - the layer that detected the error
 * @TERM_LAYER_RDMAP: RDMAP (RFC 5040)
 * @TERM_LAYER_DDP: DDP (RFC 5041)
 * @TERM_LAYER_LLP: the lower layer protocol, MPA (RFC 5044, RFC 6581)
 */
enum rdmap_term_layer {
	TERM_LAYER_RDMAP = 0,
	TERM_LAYER_DDP = 1,
	TERM_LAYER_LLP = 2,
};

/**
 * enum rdmap_term_etype - error types, per layer (RFC 5040 Terminate)
 * @TERM_ETYPE_RDMAP_CATASTROPHIC: RDMAP local catastrophic error
 * @TERM_ETYPE_RDMAP_PROTECTION: RDMAP remote protection error
 * @TERM_ETYPE_RDMAP_OPERATION: RDMAP remote operation error
 * @TERM_ETYPE_LLP: the only LLP error type; the codes are enum mpa_error
 *
 * The DDP layer's types are enum ddp_term_etype (ddp/ddp_proto.h).
 */
enum rdmap_term_etype {
	TERM_ETYPE_RDMAP_CATASTROPHIC = 0,
	TERM_ETYPE_RDMAP_PROTECTION = 1,
	TERM_ETYPE_RDMAP_OPERATION = 2,
	TERM_ETYPE_LLP = 0,
};

/**
 * enum rdmap_term_code - error codes, per layer and type
 * @TERM_RDMAP_CATASTROPHIC: local catastrophic (RDMAP, type 0)
 * @TERM_RDMAP_INVALID_STAG: invalid STag
 * @TERM_RDMAP_BASE_BOUNDS: base or bounds violation
 * @TERM_RDMAP_ACCESS: access rights violation
 * @TERM_RDMAP_STAG_NOT_ASSOC: STag not associated with the RDMAP stream
 * @TERM_RDMAP_TO_WRAP: Tagged Offset wrap
 * @TERM_RDMAP_VERSION: invalid RDMAP version
 * @TERM_RDMAP_OPCODE: unexpected opcode
 * @TERM_RDMAP_CATASTROPHIC_STREAM: catastrophic error localised to the
 *	stream
 * @TERM_RDMAP_CATASTROPHIC_GLOBAL: catastrophic error, global
 * @TERM_RDMAP_CANNOT_INVALIDATE: STag cannot be invalidated
 * @TERM_RDMAP_UNSPECIFIED: unspecified error
 *
 * The DDP layer's codes are enum ddp_term_code (ddp/ddp_proto.h).
 */
enum rdmap_term_code {
	TERM_RDMAP_CATASTROPHIC = 0x00,
	TERM_RDMAP_INVALID_STAG = 0x00,
	TERM_RDMAP_BASE_BOUNDS = 0x01,
	TERM_RDMAP_ACCESS = 0x02,
	TERM_RDMAP_STAG_NOT_ASSOC = 0x03,
	TERM_RDMAP_TO_WRAP = 0x04,
	TERM_RDMAP_VERSION = 0x05,
	TERM_RDMAP_OPCODE = 0x06,
	TERM_RDMAP_CATASTROPHIC_STREAM = 0x07,
	TERM_RDMAP_CATASTROPHIC_GLOBAL = 0x08,
	TERM_RDMAP_CANNOT_INVALIDATE = 0x09,
	TERM_RDMAP_UNSPECIFIED = 0xff,
};

#endif /* SOFTIWARP_RDMAP_PROTO_H */
