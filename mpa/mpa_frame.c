// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA transmit framing (RFC 5044 sections 4.1 to 4.5)
 *
 * An FPDU is laid out in wire order as pieces: runs of framing octets
 * (ULPDU_Length, Markers, pad, CRC), kept in the struct mpa_fpdu, and runs
 * of payload, kept as offsets into the ULPDU. Adjacent framing octets form
 * one piece, so a Marker right before the header, or between pad and CRC,
 * costs no extra piece. The payload is never touched except to compute the
 * CRC, so a sender can pass the pieces to the socket as they are.
 *
 * Markers start at every stream position that is a multiple of 512. One
 * that falls right before the ULPDU_Length field lies between FPDUs: its
 * FPDUPTR is 0 and it belongs to (and is covered by the CRC of) the FPDU
 * that follows. Every other Marker points back to the ULPDU_Length field
 * of its FPDU. In a conforming stream every position is a multiple of 4
 * (all FPDUs and Markers are); the layout does not rely on it, but clears
 * the two low FPDUPTR bits as section 4.2 requires.
 *
 * The CRC covers every octet of the FPDU before its CRC field, Markers
 * included. A Marker inside the CRC field (possible only in a stream that
 * is not 4-aligned) is not covered.
 */
#include <linux/bvec.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "mpa/mpa_frame.h"

/**
 * swi_mpa_mulpdu() - largest ULPDU that fits one TCP segment
 * @emss: TCP's effective maximum segment size
 * @markers: Markers are sent in this direction
 *
 * RFC 5044 section 4.5: EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)
 * with Markers, EMSS - (6 + EMSS mod 4) without, never below 128 nor
 * above 64768.
 *
 * Context: any context.
 * Return: MULPDU in octets.
 */
unsigned int swi_mpa_mulpdu(unsigned int emss, bool markers)
{
	u64 overhead = MPA_HDR_SIZE + MPA_CRC_SIZE + emss % 4;

	if (markers)
		overhead += (u64)MPA_MARKER_SIZE *
			(emss / MPA_MARKER_INTERVAL +
			 !!(emss % MPA_MARKER_INTERVAL));
	if (emss < overhead + MPA_MULPDU_MIN)
		return MPA_MULPDU_MIN;
	return min_t(u64, emss - overhead, MPA_MULPDU_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_mulpdu);

/**
 * swi_mpa_tx_ulpdu_room() - largest ULPDU of the next FPDU that fits a segment
 * @tx: transmit state; the next FPDU starts at its stream position
 * @emss: TCP's effective maximum segment size
 * @seg_end: in, where the segment of the previous FPDU handed to TCP in
 *	the same call ends (any other value when there is none); out, where
 *	the segment this FPDU is sized for ends
 *
 * swi_mpa_mulpdu() counts the worst case of Markers in a segment. The next
 * FPDU's Markers lie at known stream positions: when fewer of them fall in
 * its segment, its ULPDU may be longer by what they leave (RFC 5044
 * section 4.5 lets MPA adjust MULPDU for wire efficiency). Such an FPDU
 * fills a whole segment, as one without Markers does, so TCP segments go
 * on starting with FPDU headers (section 5.1, Header Alignment); with the
 * worst case, an FPDU with fewer Markers ends 4 octets short of its
 * segment, and the segments after it start inside FPDUs. The segment
 * starts at the FPDU, or, when the FPDU starts with a Marker that the
 * previous FPDU's segment still holds (a full FPDU that ended 4 octets
 * short, at a Marker), at the FPDU's header. So an FPDU never exceeds
 * @emss octets in its segment. Without Markers this is swi_mpa_mulpdu().
 *
 * Context: any context; @tx is read only.
 * Return: ULPDU octets, at least swi_mpa_mulpdu(@emss, Markers).
 */
unsigned int swi_mpa_tx_ulpdu_room(const struct mpa_tx *tx, unsigned int emss,
				   u32 *seg_end)
{
	unsigned int least = swi_mpa_mulpdu(emss, tx->markers);
	u32 span = emss - emss % 4, from = tx->pos, next, nr;

	if (tx->markers && !(from % MPA_MARKER_INTERVAL) &&
	    *seg_end == from + MPA_MARKER_SIZE)
		from += MPA_MARKER_SIZE;
	*seg_end = from + span;
	if (!tx->markers || span < MPA_MULPDU_MIN)
		return least;
	/* the Markers at stream positions in [from, from + span) */
	next = -from % MPA_MARKER_INTERVAL;
	nr = next < span ? (span - 1 - next) / MPA_MARKER_INTERVAL + 1 : 0;
	return clamp_t(u32, span - MPA_HDR_SIZE - MPA_CRC_SIZE -
		       nr * MPA_MARKER_SIZE, least, MPA_MULPDU_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_tx_ulpdu_room);

/**
 * swi_mpa_tx_init() - set up the transmit side for Full Operation
 * @tx: state to set up
 * @cfg: stream position and settings of this direction
 *
 * Context: any context; @tx is not yet in use.
 * Return: 0, or -EINVAL when @cfg->pos lies inside a Marker.
 */
int swi_mpa_tx_init(struct mpa_tx *tx, const struct mpa_fo_cfg *cfg)
{
	if (cfg->markers && mpa_pos_in_marker(cfg->pos))
		return -EINVAL;
	tx->pos = cfg->pos;
	tx->markers = cfg->markers;
	tx->crc = cfg->crc;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_tx_init);

/* Layout in progress: the FPDU and the stream position reached. */
struct mpa_lay {
	struct mpa_fpdu *f;
	u32 pos;
	bool markers;
	bool overflow;
};

/* Append a piece, or extend the last one when the run continues. */
static void mpa_lay_piece(struct mpa_lay *l, enum mpa_piece_type type,
			  u32 off, unsigned int len)
{
	struct mpa_fpdu *f = l->f;
	struct mpa_piece *p;

	if (f->nr_pieces) {
		p = &f->piece[f->nr_pieces - 1];
		if (p->type == type && p->off + p->len == off) {
			p->len += len;
			return;
		}
	}
	if (WARN_ON_ONCE(f->nr_pieces == MPA_FPDU_MAX_PIECES)) {
		l->overflow = true;
		return;
	}
	p = &f->piece[f->nr_pieces++];
	p->type = type;
	p->off = off;
	p->len = len;
}

static void mpa_lay_framing(struct mpa_lay *l, const void *src,
			    unsigned int len)
{
	struct mpa_fpdu *f = l->f;

	if (WARN_ON_ONCE(len > MPA_FPDU_MAX_FRAMING - f->nr_bytes)) {
		l->overflow = true;
		return;
	}
	memcpy(f->bytes + f->nr_bytes, src, len);
	mpa_lay_piece(l, MPA_PIECE_FRAMING, f->nr_bytes, len);
	f->nr_bytes += len;
}

/*
 * Called before the next FPDU octet: insert the Marker the stream position
 * asks for, if any. Return how many FPDU octets may follow before the next
 * Marker.
 */
static unsigned int mpa_lay_room(struct mpa_lay *l)
{
	struct mpa_marker m = {};
	u32 k = l->pos % MPA_MARKER_INTERVAL;

	if (!l->markers)
		return UINT_MAX;
	if (!k) {
		/* A Marker before the header lies between FPDUs: FPDUPTR 0. */
		if (l->pos != l->f->start)
			m.fpduptr = cpu_to_be16((l->pos - l->f->hdr_pos) &
						MPA_FPDUPTR_MASK);
		mpa_lay_framing(l, &m, sizeof(m));
		l->f->nr_markers++;
		l->pos += MPA_MARKER_SIZE;
		k = MPA_MARKER_SIZE;
	}
	return MPA_MARKER_INTERVAL - k;
}

static void mpa_lay_bytes(struct mpa_lay *l, const u8 *src, unsigned int len)
{
	while (len) {
		unsigned int n = min(len, mpa_lay_room(l));

		mpa_lay_framing(l, src, n);
		l->pos += n;
		src += n;
		len -= n;
	}
}

/* A Marker inside the payload: FPDUPTR back to the header */
static void mpa_lay_inner_marker(struct mpa_fpdu *f, struct mpa_piece *p,
				 u32 pos)
{
	struct mpa_marker m = {
		.fpduptr = cpu_to_be16((pos - f->hdr_pos) & MPA_FPDUPTR_MASK),
	};

	memcpy(f->bytes + f->nr_bytes, &m, sizeof(m));
	p->type = MPA_PIECE_FRAMING;
	p->off = f->nr_bytes;
	p->len = MPA_MARKER_SIZE;
	f->nr_bytes += MPA_MARKER_SIZE;
	f->nr_markers++;
}

/*
 * Payload octets [0, @len) with the Markers between them. Markers every
 * 512 octets are the common case of a long stream: once there is room for
 * the most pieces and Marker octets @len can need, the loop writes each
 * run and Marker without checking it or trying to merge it (a payload run
 * and the Marker after it never merge, nor two runs).
 */
static void mpa_lay_payload(struct mpa_lay *l, unsigned int len)
{
	unsigned int most = len / (MPA_MARKER_INTERVAL - MPA_MARKER_SIZE) + 1;
	struct mpa_fpdu *f = l->f;
	unsigned int off = 0, n;
	struct mpa_piece *p;
	u32 pos = l->pos;

	/* The first run may follow a Marker that ends the header's piece */
	if (!len || !l->markers || pos % MPA_MARKER_INTERVAL == 0 ||
	    f->nr_pieces + 2 * most > MPA_FPDU_MAX_PIECES ||
	    f->nr_bytes + most * MPA_MARKER_SIZE > MPA_FPDU_MAX_FRAMING) {
		while (off < len) {
			n = min(len - off, mpa_lay_room(l));
			mpa_lay_piece(l, MPA_PIECE_PAYLOAD, off, n);
			l->pos += n;
			off += n;
		}
		return;
	}
	p = &f->piece[f->nr_pieces];
	for (;;) {
		n = min(len - off, MPA_MARKER_INTERVAL - pos % MPA_MARKER_INTERVAL);
		p->type = MPA_PIECE_PAYLOAD;
		p->off = off;
		p++->len = n;
		pos += n;
		off += n;
		if (off == len || pos % MPA_MARKER_INTERVAL)
			break;
		mpa_lay_inner_marker(f, p++, pos);
		pos += MPA_MARKER_SIZE;
	}
	f->nr_pieces = p - f->piece;
	l->pos = pos;
}

/**
 * swi_mpa_fpdu_layout() - lay out an FPDU at the current stream position
 * @tx: transmit state; not changed (see swi_mpa_tx_commit())
 * @f: the FPDU to fill in
 * @ulpdu_len: payload octets, 1 to MPA_MULPDU_MAX
 *
 * Fills in the header, the Markers with their FPDUPTR, the zero pad and
 * a zero CRC field, and the list of pieces. Call swi_mpa_fpdu_set_crc() next.
 *
 * Context: any context.
 * Return: 0, -EMSGSIZE for a ULPDU length out of range, or -EINVAL when
 * the stream position lies inside a Marker.
 */
int swi_mpa_fpdu_layout(const struct mpa_tx *tx, struct mpa_fpdu *f,
			unsigned int ulpdu_len)
{
	static const u8 zeros[MPA_MAX_PAD + MPA_CRC_SIZE];
	struct mpa_lay l = { .f = f, .pos = tx->pos, .markers = tx->markers };
	__be16 hdr = cpu_to_be16(ulpdu_len);
	unsigned int i;

	if (!ulpdu_len || ulpdu_len > MPA_MULPDU_MAX)
		return -EMSGSIZE;
	if (tx->markers && mpa_pos_in_marker(tx->pos))
		return -EINVAL;
	f->start = tx->pos;
	f->hdr_pos = tx->pos;
	if (tx->markers && !(tx->pos % MPA_MARKER_INTERVAL))
		f->hdr_pos += MPA_MARKER_SIZE;
	f->ulpdu_len = ulpdu_len;
	f->crc = tx->crc;
	f->nr_pieces = 0;
	f->nr_bytes = 0;
	f->nr_markers = 0;

	mpa_lay_bytes(&l, (const u8 *)&hdr, MPA_HDR_SIZE);
	mpa_lay_payload(&l, ulpdu_len);
	mpa_lay_bytes(&l, zeros, mpa_pad_len(ulpdu_len));
	/* One CRC octet at a time: a Marker may split the field. */
	for (i = 0; i < MPA_CRC_SIZE; i++) {
		mpa_lay_bytes(&l, zeros, 1);
		f->crc_pos[i] = f->nr_bytes - 1;
	}
	f->len = l.pos - f->start;
	return l.overflow ? -EOVERFLOW : 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_fpdu_layout);

/* Where the CRC computation stands in an ITER_KVEC or ITER_BVEC payload. */
struct mpa_seg_cursor {
	const struct iov_iter *it;
	unsigned long seg;
	size_t off;
};

static void mpa_seg_crc(struct mpa_seg_cursor *c, struct mpa_crc *crc,
			size_t len)
{
	const struct iov_iter *it = c->it;

	while (len && c->seg < it->nr_segs) {
		bool kvec = iov_iter_is_kvec(it);
		size_t seg_len = kvec ? it->kvec[c->seg].iov_len :
					it->bvec[c->seg].bv_len;
		size_t n = min(len, seg_len - min(c->off, seg_len));

		if (!n) {
			c->seg++;
			c->off = 0;
			continue;
		}
		if (kvec)
			mpa_crc_update(crc, it->kvec[c->seg].iov_base + c->off, n);
		else
			swi_mpa_crc_update_page(crc, it->bvec[c->seg].bv_page,
						it->bvec[c->seg].bv_offset + c->off,
						n);
		c->off += n;
		len -= n;
	}
}

/**
 * swi_mpa_fpdu_set_crc() - compute the CRC field of a laid out FPDU
 * @f: FPDU laid out by swi_mpa_fpdu_layout()
 * @payload: the ULPDU from its first octet, an ITER_KVEC or ITER_BVEC
 *	iterator holding at least @f->ulpdu_len octets; not advanced
 *
 * Computes the CRC32c over header, Markers, payload and pad in wire order
 * and stores it in the CRC octets of @f. Does nothing when CRCs are off
 * (the field stays zero).
 *
 * Context: any context; maps payload pages with kmap_local_page().
 * Return: 0, or -EINVAL when @payload is of another type or too short.
 */
int swi_mpa_fpdu_set_crc(struct mpa_fpdu *f, const struct iov_iter *payload)
{
	struct mpa_seg_cursor cur = { .it = payload };
	unsigned int cut = f->crc_pos[0];
	struct mpa_crc crc;
	__le32 wire;
	unsigned int i;

	if (!f->crc)
		return 0;
	if ((!iov_iter_is_kvec(payload) && !iov_iter_is_bvec(payload)) ||
	    iov_iter_count(payload) < f->ulpdu_len)
		return -EINVAL;
	cur.off = payload->iov_offset;
	swi_mpa_crc_begin(&crc);
	for (i = 0; i < f->nr_pieces; i++) {
		const struct mpa_piece *p = &f->piece[i];

		if (p->type == MPA_PIECE_PAYLOAD)
			mpa_seg_crc(&cur, &crc, p->len);
		else if (p->off < cut)
			mpa_crc_update(&crc, f->bytes + p->off,
				       min_t(unsigned int, p->len, cut - p->off));
	}
	wire = swi_mpa_crc_final(&crc);
	for (i = 0; i < MPA_CRC_SIZE; i++)
		f->bytes[f->crc_pos[i]] = ((u8 *)&wire)[i];
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_fpdu_set_crc);

/**
 * swi_mpa_tx_commit() - account for an FPDU that will be sent whole
 * @tx: transmit state
 * @f: the FPDU, laid out at @tx's current position
 *
 * Call once @f is certain to go out in full and before anything laid out
 * after it (its octets are queued on the socket, or will be before any
 * other), and before laying out the next FPDU.
 *
 * Context: any context.
 * Return: 0, or -EINVAL when @f was not laid out at the current position.
 */
int swi_mpa_tx_commit(struct mpa_tx *tx, const struct mpa_fpdu *f)
{
	if (f->start != tx->pos)
		return -EINVAL;
	tx->pos += f->len;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_tx_commit);
