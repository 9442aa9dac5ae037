/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: MPA Full Operation framing and deframing
 *
 * Transmit: swi_mpa_fpdu_layout() lays an FPDU out around a ULPDU of a given
 * length at the half connection's stream position, as an ordered list of
 * pieces: framing octets (ULPDU_Length, Markers, pad and CRC, held in the
 * struct mpa_fpdu) and payload ranges (offset and length in the ULPDU).
 * swi_mpa_fpdu_set_crc() fills the CRC in from the payload, given as an
 * ITER_KVEC or ITER_BVEC iov_iter; the sender then hands the pieces to
 * the socket without linearising the payload, and swi_mpa_tx_commit() moves
 * the stream position past the FPDU.
 *
 * Receive: struct mpa_rx parses the TCP byte stream in whatever pieces
 * tcp_read_sock() offers (swi_mpa_rx_feed(), or swi_mpa_rx_tcp_actor() as the
 * actor itself), strips and checks the Markers, checks the CRC and hands
 * each ULPDU up as skb ranges through struct mpa_rx_ops.
 *
 * Stream positions count octets since the start of Full Operation, where
 * the first Marker sits (position 0), modulo 2^32; a Marker starts at
 * every position that is a multiple of 512.
 */
#ifndef SOFTIWARP_MPA_FRAME_H
#define SOFTIWARP_MPA_FRAME_H

#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/uio.h>

#include "mpa/mpa.h"

struct sock;

/* Largest FPDU without its Markers: header, largest ULPDU, pad, CRC. */
#define MPA_FPDU_MAX_BARE \
	(MPA_HDR_SIZE + MPA_MULPDU_MAX + MPA_MAX_PAD + MPA_CRC_SIZE)
/*
 * Markers one FPDU can carry: one before every 508 of its octets at most,
 * the first possibly before the header.
 */
#define MPA_FPDU_MAX_MARKERS \
	DIV_ROUND_UP(MPA_FPDU_MAX_BARE, MPA_MARKER_INTERVAL - MPA_MARKER_SIZE)
/* Each Marker adds a framing piece and splits another one in two. */
#define MPA_FPDU_MAX_PIECES	(3 + 2 * MPA_FPDU_MAX_MARKERS)
#define MPA_FPDU_MAX_FRAMING \
	(MPA_HDR_SIZE + MPA_MAX_PAD + MPA_CRC_SIZE + \
	 MPA_FPDU_MAX_MARKERS * MPA_MARKER_SIZE)

/**
 * mpa_pad_len() - pad octets after a ULPDU
 * @ulpdu_len: ULPDU length
 *
 * Context: any context.
 * Return: 0 to 3, so that header, ULPDU and pad are a multiple of four.
 */
static inline unsigned int mpa_pad_len(unsigned int ulpdu_len)
{
	return (4 - (MPA_HDR_SIZE + ulpdu_len) % 4) % 4;
}

/**
 * mpa_pos_in_marker() - whether a stream position is inside a Marker
 * @pos: stream position
 *
 * Context: any context.
 * Return: true for the 2nd to 4th octet of a Marker, where neither
 * direction can start or resume framing.
 */
static inline bool mpa_pos_in_marker(u32 pos)
{
	u32 k = pos % MPA_MARKER_INTERVAL;

	return k && k < MPA_MARKER_SIZE;
}

/**
 * struct mpa_fo_cfg - Full Operation settings of one half connection
 * @pos: stream position of the next octet: 0 when Full Operation starts
 * @markers: Markers are sent (transmit) or expected (receive)
 * @crc: CRCs are computed (transmit) or checked (receive); without them
 *	the CRC field is sent as zeros and ignored on receive
 */
struct mpa_fo_cfg {
	u32 pos;
	bool markers;
	bool crc;
};

/**
 * struct mpa_tx - transmit framing state of a half connection
 * @pos: stream position of the next octet to send
 * @markers: Markers are inserted
 * @crc: CRCs are computed
 *
 * The connection's send path owns it and serialises every call on it
 * (one sender at a time).
 */
struct mpa_tx {
	u32 pos;
	bool markers;
	bool crc;
};

/**
 * enum mpa_piece_type - what a piece of an FPDU refers to
 * @MPA_PIECE_FRAMING: octets of &mpa_fpdu.bytes
 * @MPA_PIECE_PAYLOAD: octets of the ULPDU
 */
enum mpa_piece_type {
	MPA_PIECE_FRAMING,
	MPA_PIECE_PAYLOAD,
};

/**
 * struct mpa_piece - a contiguous run of FPDU octets on the wire
 * @off: offset in &mpa_fpdu.bytes or in the ULPDU, after @type
 * @len: octets, at least one
 * @type: an enum mpa_piece_type
 */
struct mpa_piece {
	u32 off;
	u16 len;
	u16 type;
};

/**
 * struct mpa_fpdu - one FPDU laid out for transmission
 * @start: stream position of its first octet (a leading Marker or the
 *	ULPDU_Length field)
 * @len: octets on the wire, Markers included
 * @hdr_pos: stream position of the ULPDU_Length field
 * @ulpdu_len: payload octets
 * @nr_pieces: used entries of @piece
 * @nr_bytes: used octets of @bytes
 * @nr_markers: Markers in it (a leading one included), for the sender's
 *	statistics
 * @crc_pos: index in @bytes of each CRC octet, in wire order
 * @crc: the CRC is to be computed
 * @piece: the FPDU in wire order
 * @bytes: every framing octet, in wire order
 *
 * About 2.6 KiB: allocate it, do not put it on the stack. Owned by the
 * sender that lays it out, until the socket has taken its octets.
 */
struct mpa_fpdu {
	u32 start;
	u32 len;
	u32 hdr_pos;
	u16 ulpdu_len;
	u16 nr_pieces;
	u16 nr_bytes;
	u16 nr_markers;
	u16 crc_pos[MPA_CRC_SIZE];
	bool crc;
	struct mpa_piece piece[MPA_FPDU_MAX_PIECES];
	u8 bytes[MPA_FPDU_MAX_FRAMING];
};

unsigned int swi_mpa_mulpdu(unsigned int emss, bool markers);
unsigned int swi_mpa_tx_ulpdu_room(const struct mpa_tx *tx, unsigned int emss,
				   u32 *seg_end);
int swi_mpa_tx_init(struct mpa_tx *tx, const struct mpa_fo_cfg *cfg);
int swi_mpa_fpdu_layout(const struct mpa_tx *tx, struct mpa_fpdu *f,
			unsigned int ulpdu_len);
int swi_mpa_fpdu_set_crc(struct mpa_fpdu *f, const struct iov_iter *payload);
int swi_mpa_tx_commit(struct mpa_tx *tx, const struct mpa_fpdu *f);

/**
 * struct mpa_rx_ops - what the receive parser hands to the layer above
 * @begin: optional; a ULPDU of @ulpdu_len octets starts (its length was
 *	accepted)
 * @data: the ULPDU octets at @ulpdu_off, @len of them, are in @skb from
 *	@off on, with the Markers between them (a span); they are read with
 *	swi_mpa_rx_copy_ulpdu(). The spans of one ULPDU come in order and
 *	without gaps. The skb is only valid during the call.
 * @end: the ULPDU is complete; @err is MPA_ERR_NONE when the FPDU is good,
 *	else the error that ends the half connection. Called alone (without
 *	@begin and @data) when the ULPDU_Length itself is refused.
 *
 * Every callback returns 0 to go on, or anything else to stop the parser
 * for good (see swi_mpa_rx_feed()). @ctx is the pointer given to swi_mpa_rx_init().
 */
struct mpa_rx_ops {
	int (*begin)(void *ctx, unsigned int ulpdu_len);
	int (*data)(void *ctx, struct sk_buff *skb, unsigned int off,
		    unsigned int len, unsigned int ulpdu_off);
	int (*end)(void *ctx, unsigned int ulpdu_len, enum mpa_error err);
};

/**
 * enum mpa_rx_state - what the next FPDU octet is
 * @MPA_RX_HDR: ULPDU_Length field
 * @MPA_RX_DATA: ULPDU
 * @MPA_RX_TRAILER: pad or CRC
 * @MPA_RX_STOPPED: nothing: an error occurred or the layer above stopped
 */
enum mpa_rx_state {
	MPA_RX_HDR,
	MPA_RX_DATA,
	MPA_RX_TRAILER,
	MPA_RX_STOPPED,
};

/**
 * struct mpa_rx - receive deframing state of a half connection
 * @ops: the layer above
 * @ctx: its argument
 * @pos: stream position of the next octet
 * @hdr_pos: stream position of the current FPDU's ULPDU_Length field
 * @max_ulpdu: largest ULPDU_Length accepted
 * @got: octets of the current field (header, ULPDU, trailer) received
 * @ulpdu_len: ULPDU length of the current FPDU
 * @pad: its pad octets
 * @state: an enum mpa_rx_state
 * @markers: Markers are expected
 * @crc_on: CRCs are checked
 * @crc_running: @crc covers the current FPDU
 * @marker_lead: the Marker being read lies between FPDUs
 * @marker_bad: a Marker of the current FPDU has a wrong FPDUPTR
 * @fpdu_start: stream position of the current FPDU's first octet (its
 *	leading Marker or ULPDU_Length field)
 * @fpdu_markers: Markers of the current FPDU received and checked
 * @err: the sticky error, MPA_ERR_NONE while there is none
 * @ulp_err: what the callback that stopped the parser returned
 * @hdr: ULPDU_Length field being read
 * @marker: Marker being read
 * @trailer: pad and CRC being read
 * @crc: CRC of the current FPDU
 * @crc_skb: buffer of the octets covered by the CRC and not yet added
 * @crc_off: offset of the first of them in @crc_skb
 * @crc_len: how many; they are added at once when the range ends
 * @cur_skb: the buffer @cur_frag and @cur_start are about (one being fed)
 * @cur_frag: index of a page frag of @cur_skb, the one swi_mpa_rx_copy() read
 *	last; the parser only moves forward, so the next copy starts there
 * @cur_start: offset in @cur_skb of the first octet of frag @cur_frag
 * @span_off: offset in its skb of the span the @data callback has
 * @span_pos: stream position of that offset
 * @scan: verify-first mode (swi_mpa_rx_init_verified()): the checker that
 *	runs ahead over the socket's receive queue, checking CRCs and
 *	Markers of whole FPDUs without delivering anything; NULL otherwise
 * @verified: with @scan, the stream position up to which FPDUs were found
 *	good: this state delivers no octet at or beyond it
 *
 * One per connection, used by whoever reads its socket: the socket lock
 * (lock_sock(), or the softirq owning the socket in ->sk_data_ready)
 * serialises every call on it.
 */
struct mpa_rx {
	const struct mpa_rx_ops *ops;
	void *ctx;
	u32 pos;
	u32 hdr_pos;
	u32 max_ulpdu;
	u32 got;
	u16 ulpdu_len;
	u8 pad;
	u8 state;
	bool markers;
	bool crc_on;
	bool crc_running;
	bool marker_lead;
	bool marker_bad;
	u32 fpdu_start;
	u16 fpdu_markers;
	enum mpa_error err;
	int ulp_err;
	__be16 hdr;
	struct mpa_marker marker;
	u8 trailer[MPA_MAX_PAD + MPA_CRC_SIZE];
	struct mpa_crc crc;
	struct sk_buff *crc_skb;
	unsigned int crc_off;
	unsigned int crc_len;
	const struct sk_buff *cur_skb;
	unsigned int cur_frag;
	unsigned int cur_start;
	unsigned int span_off;
	u32 span_pos;
	struct mpa_rx *scan;
	u32 verified;
};

int swi_mpa_rx_init(struct mpa_rx *rx, const struct mpa_fo_cfg *cfg,
		    unsigned int max_ulpdu, const struct mpa_rx_ops *ops,
		    void *ctx);
int swi_mpa_rx_init_verified(struct mpa_rx *rx, struct mpa_rx *scan,
			     const struct mpa_fo_cfg *cfg, unsigned int max_ulpdu,
			     const struct mpa_rx_ops *ops, void *ctx);
int swi_mpa_rx_feed(struct mpa_rx *rx, struct sk_buff *skb, unsigned int off,
		    unsigned int len);
int swi_mpa_rx_scan(struct mpa_rx *rx, struct sk_buff *skb, unsigned int off,
		    unsigned int len);
void swi_mpa_rx_verdict(struct mpa_rx *rx);
int swi_mpa_rx_tcp_read(struct mpa_rx *rx, struct sock *sk);
int swi_mpa_rx_tcp_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len);
int swi_mpa_rx_copy(struct mpa_rx *rx, const struct sk_buff *skb,
		    unsigned int off, void *dst, unsigned int len);
int swi_mpa_rx_copy_ulpdu(struct mpa_rx *rx, const struct sk_buff *skb,
			  unsigned int *off, void *dst, unsigned int len);
enum mpa_error swi_mpa_rx_error(const struct mpa_rx *rx);
bool swi_mpa_rx_stopped(const struct mpa_rx *rx);

/**
 * mpa_rx_fpdu_octets() - octets on the wire of the FPDU that ends
 * @rx: receive state
 *
 * For the layer's statistics, in the @end callback of &struct mpa_rx_ops.
 *
 * Context: the socket's reader, in the @end callback.
 * Return: the FPDU's octets from its first (a leading Marker or the
 * ULPDU_Length field) to its last CRC octet, Markers included.
 */
static inline u32 mpa_rx_fpdu_octets(const struct mpa_rx *rx)
{
	return rx->pos - rx->fpdu_start;
}

/**
 * mpa_rx_fpdu_markers() - Markers checked in the FPDU that ends
 * @rx: receive state
 *
 * Context: the socket's reader, in the @end callback.
 * Return: the Markers received whole within the FPDU (a leading one
 * included) and checked against its ULPDU_Length field.
 */
static inline u16 mpa_rx_fpdu_markers(const struct mpa_rx *rx)
{
	return rx->fpdu_markers;
}

#endif /* SOFTIWARP_MPA_FRAME_H */
