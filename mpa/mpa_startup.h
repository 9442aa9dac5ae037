/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: MPA Request/Reply codec and startup negotiation
 *
 * The Startup Phase of RFC 5044 section 7.1: building and parsing the MPA
 * Request and Reply frames of revisions 0 (RDMA Consortium peers, RFC 5044
 * Appendix C), 1 (RFC 5044) and 2 (RFC 6581 enhanced connection setup), and
 * the pure function that turns the local policy and the peer's frame into
 * the parameters of Full Operation, or into the MPA error to report.
 *
 * Parsing works on a byte buffer the caller accumulates from the socket:
 * swi_mpa_startup_need() says how many more octets the frame needs (0 when the
 * buffer holds exactly one complete frame, > 0 when more are needed, < 0
 * when the bytes can never become a valid frame), swi_mpa_startup_parse() then
 * decodes it. Every parse error maps to MPA_ERR_REQ_REP.
 */
#ifndef SOFTIWARP_MPA_STARTUP_H
#define SOFTIWARP_MPA_STARTUP_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/types.h>

#include "mpa/mpa.h"

#define MPA_REV_0		0	/* draft-ietf-rddp-mpa-01, "RDMAC" */
#define MPA_REV_1		1	/* RFC 5044 */
#define MPA_REV_2		2	/* RFC 6581 */

#define MPA_RR_HDR_SIZE		sizeof(struct mpa_rr_hdr)
#define MPA_V2_DATA_SIZE	sizeof(struct mpa_v2_data)
/* Revision 0 private data may be as long as PD_Length can say. */
#define MPA_REV0_MAX_PRIVDATA	U16_MAX
#define MPA_STARTUP_MAX_FRAME	(MPA_RR_HDR_SIZE + MPA_REV0_MAX_PRIVDATA)

/* RFC 6581 Ready-To-Receive message types, as a bit mask */
#define MPA_RTR_SEND		BIT(0)	/* zero length Send */
#define MPA_RTR_WRITE		BIT(1)	/* zero length RDMA Write */
#define MPA_RTR_READ		BIT(2)	/* zero length RDMA Read */
#define MPA_RTR_ALL		(MPA_RTR_SEND | MPA_RTR_WRITE | MPA_RTR_READ)

/**
 * enum mpa_startup_kind - which of the two startup frames
 * @MPA_STARTUP_REQUEST: MPA Request Frame, key "MPA ID Req Frame"
 * @MPA_STARTUP_REPLY: MPA Reply Frame, key "MPA ID Rep Frame"
 */
enum mpa_startup_kind {
	MPA_STARTUP_REQUEST,
	MPA_STARTUP_REPLY,
};

/**
 * enum mpa_startup_role - which end of the Startup Phase we are
 * @MPA_STARTUP_INITIATOR: sends the Request, processes the peer's Reply
 * @MPA_STARTUP_RESPONDER: processes the peer's Request, sends the Reply
 */
enum mpa_startup_role {
	MPA_STARTUP_INITIATOR,
	MPA_STARTUP_RESPONDER,
};

/**
 * struct mpa_startup_frame - a Request or Reply frame, decoded
 * @kind: Request or Reply (selects the key)
 * @rev: MPA revision, 0 to 255 on receive, 0 to 2 when building
 * @markers: M, the sender wants Markers in the FPDUs it receives
 * @crc: C, the sender wants CRCs
 * @rejected: R, a Reply that rejects the connection; always false in a
 *	parsed Request (R is not checked there)
 * @enhanced: Rev 2 with H set: the first 4 octets of the private data are
 *	the RFC 6581 enhanced connection data below
 * @p2p: enhanced data: peer-to-peer mode
 * @rtr: enhanced data: MPA_RTR_* types (offered in a Request, selected in a
 *	Reply)
 * @ird: enhanced data: 14-bit IRD
 * @ord: enhanced data: 14-bit ORD
 * @pdata: the consumer's private data (after the enhanced data); a parsed
 *	frame points into the caller's buffer
 * @pdata_len: length of @pdata
 *
 * When @enhanced is false, @p2p, @rtr, @ird and @ord are zero after parsing
 * and ignored when building. Reserved bits are sent as zero and ignored on
 * receive (RFC 5044 section 7.1.1), so they have no field here.
 */
struct mpa_startup_frame {
	enum mpa_startup_kind kind;
	u8 rev;
	bool markers;
	bool crc;
	bool rejected;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	const u8 *pdata;
	u16 pdata_len;
};

/**
 * struct mpa_startup_policy - what the local end wants
 * @rev: MPA_REV_1 or MPA_REV_2: the revision an initiator sends, the
 *	highest one a responder answers with
 * @crc: the C bit we send
 * @markers_rx: the M bit we send: Markers wanted in what we receive
 * @permissive: talk to revision 0 peers (RFC 5044 Appendix C)
 * @p2p: initiator: ask for peer-to-peer mode; a responder echoes the
 *	peer's P whatever this says (RFC 6581)
 * @rtr: MPA_RTR_* types an initiator can send, or a responder accepts
 * @ord_strict: fail with MPA_ERR_INSUFFICIENT_IRD when the peer's IRD is
 *	below our ORD instead of lowering our ORD to it
 * @ird: our IRD (inbound RDMA Read depth), at most MPA_V2_IRD_ORD_MASK
 * @ord: our ORD (outbound RDMA Read depth), at most MPA_V2_IRD_ORD_MASK
 */
struct mpa_startup_policy {
	u8 rev;
	bool crc;
	bool markers_rx;
	bool permissive;
	bool p2p;
	u8 rtr;
	bool ord_strict;
	u16 ird;
	u16 ord;
};

/**
 * struct mpa_startup_result - outcome of the negotiation
 * @error: MPA_ERR_NONE, or the MPA error to report
 * @rejected: the peer's Reply had R set
 * @rev: MPA revision of the connection (that of a responder's Reply)
 * @ddp_rdmap_ver: DDP and RDMAP version on the wire: 1, or 0 with a
 *	revision 0 (RDMAC) peer
 * @crc_tx: generate CRCs on transmit
 * @crc_rx: check CRCs on receive
 * @markers_tx: insert Markers in what we send
 * @markers_rx: expect Markers in what we receive
 * @enhanced: RFC 6581 data was exchanged (a responder sends it back)
 * @p2p: peer-to-peer mode was asked for and is echoed
 * @rtr: MPA_RTR_* types in p2p mode: an initiator's, the one type it
 *	sends first; a responder's, those its Reply names (each offered
 *	type it supports, any of which it accepts as the first FPDU)
 * @ird: the IRD we use
 * @ord: the ORD we use
 * @rep_ird: the IRD a responder announces in its Reply: @ird, or
 *	MPA_V2_IRD_ORD_ULP echoed for an initiator ORD of that value
 * @rep_ord: the same for the ORD and the initiator IRD (RFC 6581 section
 *	9.1)
 */
struct mpa_startup_result {
	enum mpa_error error;
	bool rejected;
	u8 rev;
	u8 ddp_rdmap_ver;
	bool crc_tx;
	bool crc_rx;
	bool markers_tx;
	bool markers_rx;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	u16 rep_ird;
	u16 rep_ord;
};

/**
 * mpa_startup_pdata_room() - private data a consumer may give one of our
 *	frames
 * @enhanced: the frame carries RFC 6581's enhanced data, the first 4
 *	octets of its private data
 *
 * RFC 5044 section 7.1.1 allows 512 octets of private data; RFC 6581
 * section 5 counts the enhanced data among them.
 *
 * Context: any context.
 * Return: MPA_MAX_PRIVDATA, less the enhanced data.
 */
static inline u16 mpa_startup_pdata_room(bool enhanced)
{
	return MPA_MAX_PRIVDATA - (enhanced ? sizeof(struct mpa_v2_data) : 0);
}

int swi_mpa_startup_need(const void *buf, size_t len, enum mpa_startup_kind kind);
int swi_mpa_startup_parse(const void *buf, size_t len, enum mpa_startup_kind kind,
			  struct mpa_startup_frame *f);
size_t swi_mpa_startup_frame_len(const struct mpa_startup_frame *f);
int swi_mpa_startup_build(const struct mpa_startup_frame *f, void *buf,
			  size_t size);
int swi_mpa_startup_negotiate(const struct mpa_startup_policy *pol,
			      enum mpa_startup_role role,
			      const struct mpa_startup_frame *peer,
			      struct mpa_startup_result *res);
void swi_mpa_startup_request(const struct mpa_startup_policy *pol,
			     const void *pdata, u16 pdata_len,
			     struct mpa_startup_frame *req);
void swi_mpa_startup_reply(const struct mpa_startup_policy *pol,
			   const struct mpa_startup_result *res,
			   const void *pdata, u16 pdata_len,
			   struct mpa_startup_frame *rep);

#endif /* SOFTIWARP_MPA_STARTUP_H */
