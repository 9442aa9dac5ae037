// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA receive deframing (RFC 5044 sections 4, 6 and 8)
 *
 * An incremental parser over the in-order TCP byte stream, fed the pieces
 * tcp_read_sock() hands its actor (skb, offset, length), split anywhere.
 * Its state is the stream position and the field being read: ULPDU_Length,
 * ULPDU, or pad and CRC. Whether an octet belongs to a Marker follows from
 * the stream position alone (the four octets from every multiple of 512),
 * so Markers are stripped whatever field they interrupt.
 *
 * Header, Marker and trailer octets are copied into the state (at most
 * seven at a time); the ULPDU is never copied by the parser: what of it a
 * buffer holds goes up as one span of that skb, whole Markers included
 * (each checked before the span goes up), and the layer above copies the
 * ULPDU octets out with swi_mpa_rx_copy_ulpdu(), which skips the Markers. The
 * CRC is computed over the span straight from the skb.
 *
 * The CRC is only known once the FPDU is complete. Fed directly
 * (swi_mpa_rx_feed() alone), the parser hands the layer above the ULPDU as
 * it arrives and the end callback gives the verdict. Section 6 asks more:
 * "An MPA receiver MUST first verify the FPDU before passing the ULPDU to
 * DDP". In verify-first mode (swi_mpa_rx_init_verified(), driven by
 * swi_mpa_rx_tcp_read()) a second parser, the checker, runs ahead over the
 * socket's receive queue: it reads the octets where TCP keeps them,
 * without consuming them, checks the CRC and the Markers of each FPDU
 * and delivers nothing. Only the FPDUs it found good are then read out
 * of the socket by the delivering parser, which hands them up. An FPDU
 * stays in the socket until all of it has arrived (the caller makes the
 * receive buffer hold the largest FPDU); its octets are read twice, once
 * to check and once to copy, the second time from the cache. A bad FPDU
 * reaches the layer above only as the end callback's error, once every
 * good FPDU before it was delivered; from then on the parser delivers
 * nothing (section 8).
 * A wrong FPDUPTR is reported at the end of its FPDU too, and only when the
 * CRC is good (section 8, code 3): a corrupted Marker is a CRC error.
 */
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "mpa/mpa_frame.h"

/**
 * swi_mpa_rx_init() - set up the receive side for Full Operation
 * @rx: state to set up
 * @cfg: stream position and settings of this direction
 * @max_ulpdu: largest ULPDU_Length accepted (at most 65535 is meaningful)
 * @ops: the layer above; @ops->data and @ops->end are required
 * @ctx: argument for @ops
 *
 * Context: any context; @rx is not yet in use.
 * Return: 0, or -EINVAL for missing callbacks or a position inside a
 * Marker.
 */
int swi_mpa_rx_init(struct mpa_rx *rx, const struct mpa_fo_cfg *cfg,
		    unsigned int max_ulpdu, const struct mpa_rx_ops *ops,
		    void *ctx)
{
	if (!ops || !ops->data || !ops->end)
		return -EINVAL;
	if (cfg->markers && mpa_pos_in_marker(cfg->pos))
		return -EINVAL;
	memset(rx, 0, sizeof(*rx));
	rx->ops = ops;
	rx->ctx = ctx;
	rx->pos = cfg->pos;
	rx->max_ulpdu = min(max_ulpdu, U16_MAX);
	rx->markers = cfg->markers;
	rx->crc_on = cfg->crc;
	rx->state = MPA_RX_HDR;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_init);

/* The checker hands nothing up: it only learns where good FPDUs end */
static int mpa_scan_begin(void *ctx, unsigned int ulpdu_len)
{
	return 0;
}

static int mpa_scan_data(void *ctx, struct sk_buff *skb, unsigned int off,
			 unsigned int len, unsigned int ulpdu_off)
{
	return 0;
}

static int mpa_scan_end(void *ctx, unsigned int ulpdu_len, enum mpa_error err)
{
	struct mpa_rx *rx = ctx;

	if (err == MPA_ERR_NONE)
		rx->verified = rx->scan->pos;
	return 0;
}

static const struct mpa_rx_ops mpa_scan_ops = {
	.begin = mpa_scan_begin,
	.data = mpa_scan_data,
	.end = mpa_scan_end,
};

/**
 * swi_mpa_rx_init_verified() - set up the receive side to verify, then deliver
 * @rx: state to set up: delivers what @scan verified
 * @scan: the checker's state, owned by @rx from now on
 * @cfg: stream position and settings of this direction
 * @max_ulpdu: largest ULPDU_Length accepted (at most 65535 is meaningful)
 * @ops: the layer above; @ops->data and @ops->end are required
 * @ctx: argument for @ops
 *
 * With neither CRC nor Markers there is nothing to verify: @rx then
 * delivers as it reads (@scan unused). Otherwise nothing of an FPDU
 * reaches @ops before its CRC and Markers were checked; @rx must be read
 * with swi_mpa_rx_tcp_read() (or swi_mpa_rx_scan(), swi_mpa_rx_feed() and
 * swi_mpa_rx_verdict() in that order).
 *
 * Context: any context; @rx and @scan are not yet in use.
 * Return: 0, or -EINVAL as swi_mpa_rx_init().
 */
int swi_mpa_rx_init_verified(struct mpa_rx *rx, struct mpa_rx *scan,
			     const struct mpa_fo_cfg *cfg, unsigned int max_ulpdu,
			     const struct mpa_rx_ops *ops, void *ctx)
{
	int err = swi_mpa_rx_init(rx, cfg, max_ulpdu, ops, ctx);

	if (err || (!cfg->crc && !cfg->markers))
		return err;
	err = swi_mpa_rx_init(scan, cfg, max_ulpdu, &mpa_scan_ops, rx);
	if (err)
		return err;
	rx->scan = scan;
	rx->verified = rx->pos;
	rx->crc_on = false;	/* the checker's job */
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_init_verified);

/* What a callback returned: anything but 0 stops the parser for good. */
static void mpa_rx_ulp(struct mpa_rx *rx, int ret)
{
	if (ret) {
		rx->ulp_err = ret;
		rx->state = MPA_RX_STOPPED;
	}
}

/* The first octet of an FPDU (leading Marker or header) is next. */
static void mpa_rx_fpdu_begin(struct mpa_rx *rx)
{
	if (rx->crc_running)
		return;
	rx->fpdu_start = rx->pos;
	rx->fpdu_markers = 0;
	if (rx->crc_on)
		swi_mpa_crc_begin(&rx->crc);
	rx->crc_running = true;
}

/*
 * CRC over a range of @skb: linear part and page frags directly, which is
 * cheaper per range than skb_seq_read(); a frag_list goes the slow way.
 */
static void mpa_rx_crc_range(struct mpa_rx *rx, struct sk_buff *skb,
			     unsigned int off, unsigned int len)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int head = skb_headlen(skb), i, n, at;

	if (off < head) {
		n = min(len, head - off);
		mpa_crc_update(&rx->crc, skb->data + off, n);
		off += n;
		len -= n;
	}
	at = off - head;
	for (i = 0; len && i < sh->nr_frags; i++) {
		const skb_frag_t *frag = &sh->frags[i];

		if (at >= skb_frag_size(frag)) {
			at -= skb_frag_size(frag);
			continue;
		}
		n = min(len, skb_frag_size(frag) - at);
		swi_mpa_crc_update_page(&rx->crc, skb_frag_page(frag),
					skb_frag_off(frag) + at, n);
		off += n;
		len -= n;
		at = 0;
	}
	if (len)
		swi_mpa_crc_update_skb(&rx->crc, skb, off, len);
}

/* Add the octets gathered so far to the CRC. */
static void mpa_rx_crc_flush(struct mpa_rx *rx)
{
	if (rx->crc_len)
		mpa_rx_crc_range(rx, rx->crc_skb, rx->crc_off, rx->crc_len);
	rx->crc_len = 0;
	rx->crc_skb = NULL;
}

/*
 * Octets [@off, @off + @len) of @skb are covered by the CRC. Everything an
 * FPDU's CRC covers (a leading Marker, the header, the ULPDU with the
 * Markers inside it, the pad) lies back to back in the stream, so the
 * ranges of one buffer are gathered and digested in one go: with Markers
 * one call per buffer instead of three per 512 octets.
 */
static void mpa_rx_crc_add(struct mpa_rx *rx, struct sk_buff *skb,
			   unsigned int off, unsigned int len)
{
	if (!rx->crc_on || !len)
		return;
	if (rx->crc_len &&
	    (rx->crc_skb != skb || rx->crc_off + rx->crc_len != off))
		mpa_rx_crc_flush(rx);
	if (!rx->crc_len) {
		rx->crc_skb = skb;
		rx->crc_off = off;
	}
	rx->crc_len += len;
}

/*
 * The octets of @skb from @off on that lie back to back in memory: in its
 * linear part, or in the page frag the cursor finds, from the one read
 * last on (a frag's pages lie back to back in the direct map). Return the
 * first and set *@avail; NULL past the page frags (a frag_list), and for
 * every frag with highmem: skb_copy_bits() maps those.
 */
static const u8 *mpa_rx_peek(struct mpa_rx *rx, const struct sk_buff *skb,
			     unsigned int off, unsigned int *avail)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int head = skb_headlen(skb);

	if (off < head) {
		*avail = head - off;
		return skb->data + off;
	}
	if (IS_ENABLED(CONFIG_HIGHMEM))
		return NULL;
	if (rx->cur_skb != skb || off < rx->cur_start) {
		rx->cur_skb = skb;
		rx->cur_frag = 0;
		rx->cur_start = head;
	}
	while (rx->cur_frag < sh->nr_frags) {
		const skb_frag_t *f = &sh->frags[rx->cur_frag];
		unsigned int at = off - rx->cur_start;

		if (at < skb_frag_size(f)) {
			*avail = skb_frag_size(f) - at;
			return (const u8 *)skb_frag_address(f) + at;
		}
		rx->cur_start += skb_frag_size(f);
		rx->cur_frag++;
	}
	return NULL;
}

/**
 * swi_mpa_rx_copy() - copy octets of the buffer being parsed
 * @rx: receive state
 * @skb: the buffer swi_mpa_rx_feed() is parsing
 * @off: offset of the first octet in @skb
 * @dst: where they go
 * @len: how many
 *
 * skb_copy_bits() without its walk over the frags from the start of the
 * buffer for every call: the parser (a Marker every 512 octets) and the
 * layer above read one buffer front to back, so a cursor kept in @rx goes
 * on from the frag read last. The cursor is reset by each swi_mpa_rx_feed()
 * call.
 *
 * Context: the socket's reader, inside swi_mpa_rx_feed() for @skb (its
 * callbacks). Does not sleep.
 * Return: 0, or -EFAULT when the range lies outside @skb.
 */
int swi_mpa_rx_copy(struct mpa_rx *rx, const struct sk_buff *skb,
		    unsigned int off, void *dst, unsigned int len)
{
	unsigned int done = 0, n, avail;
	const u8 *p;

	if (off > skb->len || len > skb->len - off)
		return -EFAULT;
	while (done < len) {
		p = mpa_rx_peek(rx, skb, off + done, &avail);
		if (!p)
			return skb_copy_bits(skb, off + done, (u8 *)dst + done,
					     len - done);
		n = min(avail, len - done);
		memcpy((u8 *)dst + done, p, n);
		done += n;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_copy);

/**
 * swi_mpa_rx_copy_ulpdu() - copy ULPDU octets out of a span, without Markers
 * @rx: receive state
 * @skb: the buffer of the span the @data callback was handed
 * @off: offset in @skb of the next octet to copy, inside that span; moved
 *	past the octets copied (and the Markers skipped before them)
 * @dst: where they go
 * @len: how many ULPDU octets
 *
 * The layer above reads a span with this, in order, and must not read
 * beyond the octets the callback was given: only their stream positions
 * are known. The runs between Markers that one frag holds are copied
 * straight from it.
 *
 * Context: the socket's reader, inside the @data callback of
 * &struct mpa_rx_ops. Does not sleep.
 * Return: 0, or -EFAULT when the range lies outside @skb.
 */
int swi_mpa_rx_copy_ulpdu(struct mpa_rx *rx, const struct sk_buff *skb,
			  unsigned int *off, void *dst, unsigned int len)
{
	unsigned int o = *off, done = 0, n, avail = 0, base = o;
	const u8 *p = NULL;
	u32 k;
	int err;

	if (!rx->markers) {
		err = swi_mpa_rx_copy(rx, skb, o, dst, len);
		if (!err)
			*off = o + len;
		return err;
	}
	while (done < len) {
		k = (rx->span_pos + (o - rx->span_off)) % MPA_MARKER_INTERVAL;
		if (k < MPA_MARKER_SIZE) {
			o += MPA_MARKER_SIZE - k;
			continue;
		}
		n = min(len - done, MPA_MARKER_INTERVAL - k);
		if (!p || o - base + n > avail) {
			p = mpa_rx_peek(rx, skb, o, &avail);
			base = o;
		}
		if (p && n <= avail - (o - base)) {
			memcpy((u8 *)dst + done, p + (o - base), n);
		} else {
			err = swi_mpa_rx_copy(rx, skb, o, (u8 *)dst + done, n);
			if (err)
				return err;
		}
		o += n;
		done += n;
	}
	*off = o;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_copy_ulpdu);

/*
 * Copy @len framing octets out of @skb, adding them to the CRC if @crc. A
 * whole Marker, CRC or header is one load when it lies in one place (a
 * Marker every 512 octets: no call for it).
 */
static void mpa_rx_take(struct mpa_rx *rx, struct sk_buff *skb,
			unsigned int off, void *dst, unsigned int len, bool crc)
{
	unsigned int avail;
	const u8 *p = mpa_rx_peek(rx, skb, off, &avail);

	if (p && avail >= len && len == MPA_MARKER_SIZE)
		memcpy(dst, p, MPA_MARKER_SIZE);
	else if (p && avail >= len && len == MPA_HDR_SIZE)
		memcpy(dst, p, MPA_HDR_SIZE);
	/* Cannot fail: swi_mpa_rx_feed() checked the range. */
	else if (WARN_ON_ONCE(swi_mpa_rx_copy(rx, skb, off, dst, len)))
		memset(dst, 0, len);
	if (crc)
		mpa_rx_crc_add(rx, skb, off, len);
}

static void mpa_rx_marker_done(struct mpa_rx *rx)
{
	u32 at = rx->pos - MPA_MARKER_SIZE;
	u16 want = rx->marker_lead ? 0 : (u16)(at - rx->hdr_pos);
	u16 got = be16_to_cpu(rx->marker.fpduptr);

	/* The two low bits are ignored on receive (section 4.2). */
	rx->fpdu_markers++;
	if ((want ^ got) & MPA_FPDUPTR_MASK)
		rx->marker_bad = true;
}

static unsigned int mpa_rx_marker(struct mpa_rx *rx, struct sk_buff *skb,
				  unsigned int off, unsigned int len)
{
	unsigned int k = rx->pos % MPA_MARKER_INTERVAL;
	unsigned int n = min(len, MPA_MARKER_SIZE - k);
	bool covered;

	if (!k) {
		/* Before any header octet: between FPDUs, of the next one */
		rx->marker_lead = rx->state == MPA_RX_HDR && !rx->got;
		if (rx->marker_lead)
			mpa_rx_fpdu_begin(rx);
	}
	/* Covered by the CRC unless CRC octets came before it. */
	covered = rx->state != MPA_RX_TRAILER || rx->got <= rx->pad;
	mpa_rx_take(rx, skb, off, (u8 *)&rx->marker + k, n, covered);
	rx->pos += n;
	if (k + n == MPA_MARKER_SIZE)
		mpa_rx_marker_done(rx);
	return n;
}

static void mpa_rx_hdr_done(struct mpa_rx *rx)
{
	unsigned int ulpdu_len = be16_to_cpu(rx->hdr);

	rx->ulpdu_len = ulpdu_len;
	rx->pad = mpa_pad_len(ulpdu_len);
	rx->got = 0;
	if (ulpdu_len > rx->max_ulpdu) {
		/* Cannot delimit the FPDU: its start is lost (code 3). */
		rx->err = MPA_ERR_MARKER;
		rx->state = MPA_RX_STOPPED;
		rx->ops->end(rx->ctx, ulpdu_len, rx->err);
		return;
	}
	rx->state = ulpdu_len ? MPA_RX_DATA : MPA_RX_TRAILER;
	if (rx->ops->begin)
		mpa_rx_ulp(rx, rx->ops->begin(rx->ctx, ulpdu_len));
}

static unsigned int mpa_rx_hdr(struct mpa_rx *rx, struct sk_buff *skb,
			       unsigned int off, unsigned int len)
{
	unsigned int n = min(len, MPA_HDR_SIZE - rx->got);

	if (!rx->got) {
		rx->hdr_pos = rx->pos;
		mpa_rx_fpdu_begin(rx);
	}
	mpa_rx_take(rx, skb, off, (u8 *)&rx->hdr + rx->got, n, true);
	rx->pos += n;
	rx->got += n;
	if (rx->got == MPA_HDR_SIZE)
		mpa_rx_hdr_done(rx);
	return n;
}

/* Where the octets a span's Markers are read from lie, found once a frag */
struct mpa_rx_view {
	const u8 *p;
	unsigned int off;
	unsigned int avail;
};

/*
 * A whole Marker at @off between two runs of one ULPDU: covered by the
 * CRC, pointing back to this FPDU's header. Read through @v, looked up
 * again only when the Marker lies beyond the frag it shows: no call per
 * Marker while a frag lasts.
 */
static void mpa_rx_inner_marker(struct mpa_rx *rx, struct sk_buff *skb,
				unsigned int off, struct mpa_rx_view *v)
{
	if (!v->p || off < v->off ||
	    off - v->off + MPA_MARKER_SIZE > v->avail) {
		v->p = mpa_rx_peek(rx, skb, off, &v->avail);
		v->off = off;
		if (!v->p || v->avail < MPA_MARKER_SIZE) {
			v->p = NULL;
			mpa_rx_marker(rx, skb, off, MPA_MARKER_SIZE);
			return;
		}
	}
	memcpy(&rx->marker, v->p + (off - v->off), MPA_MARKER_SIZE);
	mpa_rx_crc_add(rx, skb, off, MPA_MARKER_SIZE);
	rx->marker_lead = false;
	rx->pos += MPA_MARKER_SIZE;
	mpa_rx_marker_done(rx);
}

/*
 * ULPDU octets from @off on, and the whole Markers between them: one span
 * for the layer above, which copies the ULPDU out of it with
 * swi_mpa_rx_copy_ulpdu(). The span ends with the ULPDU, with @len, or before
 * a Marker that @len cuts (the next step reads that one).
 */
static unsigned int mpa_rx_data(struct mpa_rx *rx, struct sk_buff *skb,
				unsigned int off, unsigned int len)
{
	unsigned int want = rx->ulpdu_len - rx->got, at = rx->got;
	unsigned int used = 0, n = 0, run;
	struct mpa_rx_view v = {};
	u32 start = rx->pos;

	for (;;) {
		run = min(len - used, want - n);
		if (rx->markers)
			run = min(run, MPA_MARKER_INTERVAL -
				  rx->pos % MPA_MARKER_INTERVAL);
		mpa_rx_crc_add(rx, skb, off + used, run);
		rx->pos += run;
		used += run;
		n += run;
		/*
		 * Unless it stopped for them, a Marker is next (the run
		 * stopped at a multiple of 512), whole in @len
		 */
		if (!rx->markers || n == want || len - used < MPA_MARKER_SIZE)
			break;
		mpa_rx_inner_marker(rx, skb, off + used, &v);
		used += MPA_MARKER_SIZE;
	}
	rx->got += n;
	if (rx->got == rx->ulpdu_len) {
		rx->state = MPA_RX_TRAILER;
		rx->got = 0;
	}
	rx->span_off = off;
	rx->span_pos = start;
	mpa_rx_ulp(rx, rx->ops->data(rx->ctx, skb, off, n, at));
	return used;
}

static void mpa_rx_fpdu_done(struct mpa_rx *rx)
{
	enum mpa_error err = MPA_ERR_NONE;
	__le32 crc;
	int ret;

	if (rx->crc_on) {
		mpa_rx_crc_flush(rx);
		crc = swi_mpa_crc_final(&rx->crc);
		if (memcmp(&crc, rx->trailer + rx->pad, MPA_CRC_SIZE))
			err = MPA_ERR_CRC;
	}
	if (!err && rx->marker_bad)
		err = MPA_ERR_MARKER;
	rx->crc_running = false;
	rx->marker_bad = false;
	rx->got = 0;
	rx->state = MPA_RX_HDR;
	if (err) {
		rx->err = err;
		rx->state = MPA_RX_STOPPED;
	}
	ret = rx->ops->end(rx->ctx, rx->ulpdu_len, err);
	if (!err)
		mpa_rx_ulp(rx, ret);
}

static unsigned int mpa_rx_trailer(struct mpa_rx *rx, struct sk_buff *skb,
				   unsigned int off, unsigned int len)
{
	unsigned int need = rx->pad + MPA_CRC_SIZE - rx->got;
	unsigned int n = min(len, need);
	unsigned int pad = rx->got < rx->pad ? min(n, rx->pad - rx->got) : 0;
	u8 *dst = rx->trailer + rx->got;

	mpa_rx_take(rx, skb, off, dst, n, false);
	mpa_rx_crc_add(rx, skb, off, pad);
	rx->pos += n;
	rx->got += n;
	if (n == need)
		mpa_rx_fpdu_done(rx);
	return n;
}

/* Consume at least one octet of the @len at @off, at most up to a Marker. */
static unsigned int mpa_rx_step(struct mpa_rx *rx, struct sk_buff *skb,
				unsigned int off, unsigned int len)
{
	if (rx->markers) {
		u32 k = rx->pos % MPA_MARKER_INTERVAL;

		if (k < MPA_MARKER_SIZE)
			return mpa_rx_marker(rx, skb, off, len);
		if (rx->state != MPA_RX_DATA)	/* a ULPDU spans Markers */
			len = min(len, MPA_MARKER_INTERVAL - k);
	}
	switch (rx->state) {
	case MPA_RX_HDR:
		return mpa_rx_hdr(rx, skb, off, len);
	case MPA_RX_DATA:
		return mpa_rx_data(rx, skb, off, len);
	default:
		return mpa_rx_trailer(rx, skb, off, len);
	}
}

/*
 * The checker's way over FPDUs that lie whole and back to back in one
 * place (no Markers, CRC on): per FPDU one CRC call over its header, ULPDU
 * and pad, and a compare with its CRC field, instead of a step for each
 * of its three parts. Stops before anything else: an FPDU cut by the end
 * of @len or of the frag, a ULPDU_Length past the limit or a CRC that
 * differs, which the steps then take (and report, as for any FPDU).
 * Return: octets checked.
 */
static unsigned int mpa_scan_whole(struct mpa_rx *rx, struct sk_buff *skb,
				   unsigned int off, unsigned int len)
{
	unsigned int avail, used = 0, ulen, flen;
	const u8 *p;
	__le32 crc;

	if (rx->markers || !rx->crc_on || rx->state != MPA_RX_HDR || rx->got)
		return 0;
	p = mpa_rx_peek(rx, skb, off, &avail);
	if (!p)
		return 0;
	avail = min(avail, len);
	while (avail - used >= MPA_HDR_SIZE && rx->state == MPA_RX_HDR) {
		ulen = p[used] << 8 | p[used + 1];	/* the header, big-endian */
		flen = MPA_HDR_SIZE + ulen + mpa_pad_len(ulen);
		if (ulen > rx->max_ulpdu ||
		    avail - used < flen + MPA_CRC_SIZE)
			break;
		swi_mpa_crc_begin(&rx->crc);
		mpa_crc_update(&rx->crc, p + used, flen);
		crc = swi_mpa_crc_final(&rx->crc);
		if (memcmp(&crc, p + used + flen, MPA_CRC_SIZE))
			break;
		rx->hdr_pos = rx->pos;
		rx->fpdu_start = rx->pos;
		rx->ulpdu_len = ulen;
		rx->pos += flen + MPA_CRC_SIZE;
		used += flen + MPA_CRC_SIZE;
		mpa_rx_ulp(rx, rx->ops->end(rx->ctx, ulen, MPA_ERR_NONE));
	}
	return used;
}

/**
 * swi_mpa_rx_feed() - parse the next octets of the stream
 * @rx: receive state
 * @skb: buffer holding them; only read
 * @off: offset of the first one in @skb
 * @len: how many; @off + @len must not exceed @skb->len
 *
 * Runs the callbacks of @rx for what the octets complete. Stops early when
 * an FPDU is bad (the sticky error, see swi_mpa_rx_error()) or a callback
 * returns non-zero; from then on it consumes nothing.
 *
 * Context: the socket's reader; see &struct mpa_rx. Does not sleep.
 * Return: octets consumed, all of @len unless the parser stopped; or
 * -EINVAL when the range lies outside @skb.
 */
int swi_mpa_rx_feed(struct mpa_rx *rx, struct sk_buff *skb, unsigned int off,
		    unsigned int len)
{
	unsigned int done = 0, n;

	if (off > skb->len || len > skb->len - off)
		return -EINVAL;
	len = min_t(unsigned int, len, INT_MAX);
	if (rx->scan)	/* verified FPDUs only */
		len = min(len, rx->verified - rx->pos);
	rx->cur_skb = NULL;	/* the cursor is about this call's @skb only */
	while (done < len && rx->state != MPA_RX_STOPPED) {
		n = rx->ops == &mpa_scan_ops ?
		    mpa_scan_whole(rx, skb, off + done, len - done) : 0;
		done += n ? n : mpa_rx_step(rx, skb, off + done, len - done);
	}
	/* @skb may go once this returns */
	mpa_rx_crc_flush(rx);
	rx->cur_skb = NULL;
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_feed);

/**
 * swi_mpa_rx_scan() - check the next octets of the stream ahead of delivery
 * @rx: receive state in verify-first mode (swi_mpa_rx_init_verified())
 * @skb: buffer holding them; only read, and not consumed
 * @off: offset of the first one in @skb
 * @len: how many; the checker's next octets
 *
 * Moves the verified position of @rx past every FPDU these octets
 * complete with a good CRC and good Markers. The first bad one stops the
 * checker (its error is reported by swi_mpa_rx_verdict()).
 *
 * Context: the socket's reader; see &struct mpa_rx. Does not sleep.
 * Return: octets checked (all of @len unless the checker stopped), or
 * -EINVAL as swi_mpa_rx_feed().
 */
int swi_mpa_rx_scan(struct mpa_rx *rx, struct sk_buff *skb, unsigned int off,
		    unsigned int len)
{
	if (!rx->scan)
		return len;
	return swi_mpa_rx_feed(rx->scan, skb, off, len);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_scan);

/**
 * swi_mpa_rx_verdict() - report the bad FPDU the delivery has reached
 * @rx: receive state in verify-first mode
 *
 * Once every good FPDU before it was delivered, the checker's error
 * stops @rx with the end callback's error: the only thing the layer
 * above learns of a bad FPDU.
 *
 * Context: the socket's reader; see &struct mpa_rx.
 * Return: nothing.
 */
void swi_mpa_rx_verdict(struct mpa_rx *rx)
{
	struct mpa_rx *scan = rx->scan;

	if (!scan || scan->err == MPA_ERR_NONE || rx->pos != rx->verified ||
	    rx->state == MPA_RX_STOPPED)
		return;
	rx->err = scan->err;
	rx->state = MPA_RX_STOPPED;
	rx->ops->end(rx->ctx, scan->ulpdu_len, rx->err);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_verdict);

/*
 * Run the checker over what the socket holds beyond what it checked: the
 * receive queue from the sequence number of its position on. The
 * delivering parser's position is the socket's copied_seq.
 */
static void mpa_rx_scan_queue(struct mpa_rx *rx, struct sock *sk)
{
	u32 seq = READ_ONCE(tcp_sk(sk)->copied_seq) + (rx->scan->pos - rx->pos);
	struct sk_buff *skb;
	u32 off;
	int n;

	skb_queue_walk(&sk->sk_receive_queue, skb) {
		if (rx->scan->state == MPA_RX_STOPPED)
			break;
		off = seq - TCP_SKB_CB(skb)->seq;
		if (TCP_SKB_CB(skb)->tcp_flags & TCPHDR_SYN)
			off--;	/* as tcp_recv_skb(): the SYN takes one */
		if (off >= skb->len)
			continue;
		n = swi_mpa_rx_feed(rx->scan, skb, off, skb->len - off);
		if (n <= 0)
			break;
		seq += n;
	}
}

/**
 * swi_mpa_rx_tcp_read() - read what a connected socket holds
 * @rx: receive state
 * @sk: its TCP socket
 *
 * In verify-first mode: checks what arrived, reads out and delivers the
 * FPDUs found good (a partial FPDU waits in the socket), then reports a
 * bad one; otherwise delivers what arrived as it is read.
 *
 * Context: under the socket lock (tcp_read_sock()'s rule).
 * Return: octets read out of the socket, or a negative errno.
 */
int swi_mpa_rx_tcp_read(struct mpa_rx *rx, struct sock *sk)
{
	read_descriptor_t desc = { .count = 1, .arg.data = rx };
	int n = 0;

	if (rx->scan && rx->state != MPA_RX_STOPPED)
		mpa_rx_scan_queue(rx, sk);
	if (rx->state != MPA_RX_STOPPED &&
	    (!rx->scan || rx->verified != rx->pos))
		n = tcp_read_sock(sk, &desc, swi_mpa_rx_tcp_actor);
	swi_mpa_rx_verdict(rx);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_tcp_read);

/**
 * swi_mpa_rx_tcp_actor() - tcp_read_sock() actor that feeds an mpa_rx
 * @desc: read descriptor; @desc->arg.data is the struct mpa_rx
 * @skb: buffer from the socket's receive queue
 * @off: offset of the first unread octet in @skb
 * @len: unread octets
 *
 * Clears @desc->count once the parser stops, so tcp_read_sock() returns.
 *
 * Context: under the socket lock, as tcp_read_sock() requires.
 * Return: octets consumed (0 once the parser has stopped).
 */
int swi_mpa_rx_tcp_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	struct mpa_rx *rx = desc->arg.data;
	int ret;

	ret = swi_mpa_rx_feed(rx, skb, off, min_t(size_t, len, INT_MAX));
	if (ret < 0 || rx->state == MPA_RX_STOPPED ||
	    (rx->scan && rx->pos == rx->verified))
		desc->count = 0;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_tcp_actor);

/**
 * swi_mpa_rx_error() - the error that stopped the half connection
 * @rx: receive state
 *
 * Context: the socket's reader; see &struct mpa_rx.
 * Return: MPA_ERR_NONE, MPA_ERR_CRC or MPA_ERR_MARKER.
 */
enum mpa_error swi_mpa_rx_error(const struct mpa_rx *rx)
{
	return rx->err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_error);

/**
 * swi_mpa_rx_stopped() - whether the parser consumes nothing any more
 * @rx: receive state
 *
 * Context: the socket's reader; see &struct mpa_rx.
 * Return: true after an error or once a callback stopped it.
 */
bool swi_mpa_rx_stopped(const struct mpa_rx *rx)
{
	return rx->state == MPA_RX_STOPPED;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_rx_stopped);
