/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: DDP wire format (RFC 5041)
 *
 * Only what travels on the wire: the DDP Control Field and the two DDP
 * headers. A DDP segment is the ULPDU of one MPA FPDU: it starts right
 * after the 16-bit ULPDU_Length with the control field, then the rest of
 * the tagged (14 octets in all) or untagged (18 octets) header, then the
 * payload. All fields are big endian.
 *
 * The low octet of the control field is reserved for the ULP (RsvdULP).
 * This DDP carries one ULP, RDMAP, and its header codec splits that octet
 * the way RDMAP lays it out (RFC 5040 section 4.1: RV, reserved, opcode),
 * so that one parse gives the whole header: DDP_CTRL_ULP_* below name
 * RDMAP's fields, whose meaning belongs to rdmap/rdmap_proto.h (which
 * asserts that both agree). DDP itself never looks at them.
 *
 * Also here: the DDP error types and codes of RFC 5041 section 7.2, as a
 * Terminate message of the ULP reports them.
 *
 * The headers are packed: behind the 2-octet ULPDU_Length and the 2-octet
 * control field, the 64-bit Tagged Offset is only 4-octet aligned.
 */
#ifndef SOFTIWARP_DDP_PROTO_H
#define SOFTIWARP_DDP_PROTO_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* DDP Control Field (RFC 5041 section 4.1), a 16-bit word */
#define DDP_CTRL_T		BIT(15)		/* tagged buffer model */
#define DDP_CTRL_L		BIT(14)		/* last segment of the message */
#define DDP_CTRL_RSVD		GENMASK(13, 10)	/* zero on send, ignored */
#define DDP_CTRL_DV		GENMASK(9, 8)	/* DDP version */
#define DDP_CTRL_RSVDULP	GENMASK(7, 0)	/* the ULP's octet */

/* The ULP's octet as RDMAP uses it (RFC 5040 4.1), on the 16-bit word */
#define DDP_CTRL_ULP_RV		GENMASK(7, 6)	/* RDMAP version */
#define DDP_CTRL_ULP_RSVD	GENMASK(5, 4)	/* zero on send, ignored */
#define DDP_CTRL_ULP_OPCODE	GENMASK(3, 0)	/* RDMAP opcode */

#define DDP_VERSION		1	/* RFC 5041 */
#define DDP_VERSION_RDMAC	0	/* RDMA Consortium peers (MPA Rev 0) */

#define DDP_CTRL_SIZE		2
#define DDP_TAGGED_HDR_SIZE	14
#define DDP_UNTAGGED_HDR_SIZE	18

/* The first message of every untagged queue has MSN 1 (section 4.3) */
#define DDP_MSN_FIRST		1

/**
 * struct ddp_tagged_hdr - DDP Tagged Buffer Model header (RFC 5041 4.2)
 * @ctrl: DDP Control Field, T set
 * @stag: Steering Tag of the Data Sink's tagged buffer
 * @to: Tagged Offset of the first payload octet within that buffer
 */
struct ddp_tagged_hdr {
	__be16 ctrl;
	__be32 stag;
	__be64 to;
} __packed;

static_assert(sizeof(struct ddp_tagged_hdr) == DDP_TAGGED_HDR_SIZE);

/**
 * struct ddp_untagged_hdr - DDP Untagged Buffer Model header (RFC 5041 4.3)
 * @ctrl: DDP Control Field, T clear
 * @rsvdulp: 32 more bits for the ULP; RDMAP carries the Invalidate STag
 *	of Send with Invalidate there, zero otherwise
 * @qn: Queue Number
 * @msn: Message Sequence Number within the queue, from DDP_MSN_FIRST on,
 *	wrapping from 2^32 - 1 to 0
 * @mo: Message Offset: octets of the message sent in earlier segments
 */
struct ddp_untagged_hdr {
	__be16 ctrl;
	__be32 rsvdulp;
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;

static_assert(sizeof(struct ddp_untagged_hdr) == DDP_UNTAGGED_HDR_SIZE);

/**
 * enum ddp_term_etype - DDP error types (RFC 5041 section 7.2)
 * @TERM_ETYPE_DDP_CATASTROPHIC: local catastrophic error
 * @TERM_ETYPE_DDP_TAGGED: tagged buffer error
 * @TERM_ETYPE_DDP_UNTAGGED: untagged buffer error
 *
 * The Error Type of a Terminate whose Layer is DDP; the TERM_ prefix is
 * the one of the RDMAP and LLP values in rdmap/rdmap_proto.h.
 */
enum ddp_term_etype {
	TERM_ETYPE_DDP_CATASTROPHIC = 0,
	TERM_ETYPE_DDP_TAGGED = 1,
	TERM_ETYPE_DDP_UNTAGGED = 2,
};

/**
 * enum ddp_term_code - DDP error codes, per type (RFC 5041 section 7.2)
 * @TERM_DDP_CATASTROPHIC: local catastrophic (type 0)
 * @TERM_DDP_T_INVALID_STAG: tagged: invalid STag
 * @TERM_DDP_T_BASE_BOUNDS: tagged: base or bounds violation
 * @TERM_DDP_T_STAG_NOT_ASSOC: tagged: STag not associated with the stream
 * @TERM_DDP_T_TO_WRAP: tagged: Tagged Offset wrap
 * @TERM_DDP_T_VERSION: tagged: invalid DDP version
 * @TERM_DDP_U_INVALID_QN: untagged: invalid QN
 * @TERM_DDP_U_MSN_NO_BUF: untagged: invalid MSN, no buffer available
 * @TERM_DDP_U_MSN_RANGE: untagged: invalid MSN, MSN range not valid
 * @TERM_DDP_U_INVALID_MO: untagged: invalid MO
 * @TERM_DDP_U_TOO_LONG: untagged: DDP message too long for the buffer
 * @TERM_DDP_U_VERSION: untagged: invalid DDP version
 */
enum ddp_term_code {
	TERM_DDP_CATASTROPHIC = 0x00,
	TERM_DDP_T_INVALID_STAG = 0x00,
	TERM_DDP_T_BASE_BOUNDS = 0x01,
	TERM_DDP_T_STAG_NOT_ASSOC = 0x02,
	TERM_DDP_T_TO_WRAP = 0x03,
	TERM_DDP_T_VERSION = 0x04,
	TERM_DDP_U_INVALID_QN = 0x01,
	TERM_DDP_U_MSN_NO_BUF = 0x02,
	TERM_DDP_U_MSN_RANGE = 0x03,
	TERM_DDP_U_INVALID_MO = 0x04,
	TERM_DDP_U_TOO_LONG = 0x05,
	TERM_DDP_U_VERSION = 0x06,
};

#endif /* SOFTIWARP_DDP_PROTO_H */
