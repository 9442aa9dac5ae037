/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: MPA wire format (RFC 5044, RFC 6581)
 *
 * Only what travels on the wire: sizes, the Marker, the Request/Reply
 * frame header and the RFC 6581 enhanced connection data. All fields are
 * big endian, except the FPDU CRC, which is the CRC32c value stored least
 * significant octet first (RFC 5044 section 4.4, Figure 5).
 */
#ifndef SOFTIWARP_MPA_PROTO_H
#define SOFTIWARP_MPA_PROTO_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* FPDU: ULPDU_Length | ULPDU | PAD | CRC */
#define MPA_HDR_SIZE		2
#define MPA_CRC_SIZE		4
#define MPA_MARKER_SIZE		4
#define MPA_MARKER_INTERVAL	512
#define MPA_MAX_PAD		3

/* RFC 5044 section 4.5 bounds on MULPDU */
#define MPA_MULPDU_MIN		128
#define MPA_MULPDU_MAX		64768

/**
 * struct mpa_marker - an MPA Marker (RFC 5044 section 4.2)
 * @reserved: zero on transmit, ignored on receive (but CRC covered)
 * @fpduptr: octets from the ULPDU_Length field of the containing FPDU to
 *	the first octet of this Marker; 0 when the Marker sits between FPDUs.
 *	The two low bits are zero on transmit and ignored on receive.
 */
struct mpa_marker {
	__be16 reserved;
	__be16 fpduptr;
};

static_assert(sizeof(struct mpa_marker) == MPA_MARKER_SIZE);

#define MPA_FPDUPTR_MASK	GENMASK(15, 2)

/* Request/Reply frame (RFC 5044 section 7.1.1) */
#define MPA_KEY_SIZE		16
#define MPA_KEY_REQ		"MPA ID Req Frame"
#define MPA_KEY_REP		"MPA ID Rep Frame"
#define MPA_MAX_PRIVDATA	512

#define MPA_FLAG_M		BIT(15)	/* receiver wants Markers */
#define MPA_FLAG_C		BIT(14)	/* sender wants CRCs */
#define MPA_FLAG_R		BIT(13)	/* Reply: rejected */
#define MPA_FLAG_H		BIT(12)	/* RFC 6581 enhanced data follows */
#define MPA_FLAG_RES		GENMASK(11, 8)
#define MPA_REV_MASK		GENMASK(7, 0)

/**
 * struct mpa_rr_hdr - MPA Request or Reply frame header
 * @key: MPA_KEY_REQ or MPA_KEY_REP, not NUL terminated
 * @bits: M, C, R, H flags, reserved bits and the revision
 * @pd_len: length of the private data that follows
 */
struct mpa_rr_hdr {
	u8 key[MPA_KEY_SIZE];
	__be16 bits;
	__be16 pd_len;
};

static_assert(sizeof(struct mpa_rr_hdr) == 20);

/* RFC 6581 enhanced connection data: first 4 octets of the private data */
#define MPA_V2_PEER2PEER	BIT(15)	/* IRD word */
#define MPA_V2_RTR_SEND		BIT(14)	/* IRD word: zero length Send */
#define MPA_V2_RTR_WRITE	BIT(15)	/* ORD word: zero length RDMA Write */
#define MPA_V2_RTR_READ		BIT(14)	/* ORD word: zero length RDMA Read */
#define MPA_V2_IRD_ORD_MASK	GENMASK(13, 0)
/* all ones: the ULP negotiates this one itself (RFC 6581 section 9.1) */
#define MPA_V2_IRD_ORD_ULP	MPA_V2_IRD_ORD_MASK

/**
 * struct mpa_v2_data - RFC 6581 enhanced connection data
 * @ird: peer-to-peer flag, Send-as-RTR flag and the 14-bit IRD
 * @ord: Write-as-RTR flag, Read-as-RTR flag and the 14-bit ORD
 */
struct mpa_v2_data {
	__be16 ird;
	__be16 ord;
};

static_assert(sizeof(struct mpa_v2_data) == 4);

#endif /* SOFTIWARP_MPA_PROTO_H */
