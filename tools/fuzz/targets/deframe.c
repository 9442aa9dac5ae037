// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the MPA deframer (mpa/mpa_deframe.c), RFC 5044 sections 4,
 * 6 and 8, in both modes.
 *
 * Input: a header, then the stream.
 *   octet 0   bit 0 Markers, bit 1 CRC, bit 2 page frags in the skbs,
 *             bit 3 frame mode (below), bits 4-7 with octet 1: the start
 *             position (12 bits; moved to a Marker's start when inside one)
 *   octet 2-3 the largest ULPDU accepted, 1 to 65535 (0: 65535)
 *   octet 4   n, cuts; then n octet pairs, each a piece's length
 *             (0: one octet); what is left after the last cut is a piece
 *   the rest  raw mode: the stream itself. Frame mode: ULPDUs as
 *             (length, 2 octets, taken modulo the largest accepted;
 *             its payload, as many octets as are left if fewer), framed
 *             by our encoder (swi_mpa_fpdu_layout(),
 *             swi_mpa_fpdu_set_crc()); then a last 3 octets, when present,
 *             flip octet (16 bits) mod the stream length with mask
 *             (8 bits), one corruption.
 *
 * The stream goes through three parsers, which must agree, or the target
 * aborts:
 *   A  swi_mpa_rx_feed() in one piece, delivering as it parses;
 *   B  swi_mpa_rx_feed() piece by piece, in skbs with page frags or without;
 *   C  verify-first (swi_mpa_rx_init_verified()) through swi_mpa_rx_tcp_read()
 *      over a socket whose receive queue gets the pieces one at a time,
 *      read after each.
 * Properties: A and B give the same ULPDUs (length, octets, verdict) and
 * stop at the same position; C gives A's good ULPDUs in order, up to the
 * first bad one, of which it delivers nothing but the verdict (A's)
 * (without CRC and Markers it has nothing to check and is B); no
 * ULPDU's data lies outside its length, comes out of order or with a
 * gap, or cannot be copied from its skb; a ULPDU's length never exceeds
 * the largest accepted. In frame mode without a corruption every ULPDU
 * comes back whole and good (the encoder and the parser agree).
 */
#include "mpa/mpa_frame.h"

#define MAX_PIECES	64
#define MAX_STREAM	(128 * 1024)
/*
 * The most FPDUs a stream holds: the smallest is 8 octets (its length,
 * no ULPDU, 2 octets of pad, the CRC field). A corrupted length in a
 * stream without CRC re-frames what follows, into more FPDUs than were
 * framed (a 512 found so, in frame mode with Markers).
 */
#define MAX_ULPDUS	(MAX_STREAM / 8)

struct ulpdu {
	u32 len;	/* from begin, or from end when alone */
	u32 got;	/* data octets */
	u32 hash;
	bool begun, ended;
	enum mpa_error err;
};

struct sink {
	struct mpa_rx *rx;
	unsigned int max_ulpdu;
	unsigned int nr;
	struct ulpdu u[MAX_ULPDUS + 1];
	u8 buf[65536];
};

static void fail(const char *why)
{
	fprintf(stderr, "deframe: property broken: %s\n", why);
	abort();
}

static struct ulpdu *cur(struct sink *s)
{
	if (s->nr > MAX_ULPDUS)
		fail("too many ULPDUs for the stream");
	return &s->u[s->nr];
}

static int sink_begin(void *ctx, unsigned int ulpdu_len)
{
	struct sink *s = ctx;
	struct ulpdu *u = cur(s);

	if (u->begun)
		fail("begin twice");
	if (ulpdu_len > s->max_ulpdu)
		fail("a ULPDU longer than accepted");
	memset(u, 0, sizeof(*u));
	u->begun = true;
	u->len = ulpdu_len;
	u->hash = 2166136261u;
	return 0;
}

static int sink_data(void *ctx, struct sk_buff *skb, unsigned int off,
		     unsigned int len, unsigned int ulpdu_off)
{
	struct sink *s = ctx;
	struct ulpdu *u = cur(s);
	unsigned int o = off;

	if (!u->begun)
		fail("data before begin");
	if (ulpdu_off != u->got || len > u->len - u->got)
		fail("data out of order or past the ULPDU");
	if (off > skb->len)
		fail("data offset outside the skb");
	if (swi_mpa_rx_copy_ulpdu(s->rx, skb, &o, s->buf, len))
		fail("data not in its skb");
	if (o > skb->len)
		fail("data span past the skb");
	for (unsigned int i = 0; i < len; i++)
		u->hash = (u->hash ^ s->buf[i]) * 16777619u;
	u->got += len;
	return 0;
}

static int sink_end(void *ctx, unsigned int ulpdu_len, enum mpa_error err)
{
	struct sink *s = ctx;
	struct ulpdu *u = cur(s);

	if (!u->begun) {
		if (err == MPA_ERR_NONE)
			fail("a good end without begin");
		memset(u, 0, sizeof(*u));
		u->len = ulpdu_len;
	} else if (ulpdu_len != u->len) {
		fail("end with another length than begin");
	} else if (err == MPA_ERR_NONE && u->got != u->len) {
		fail("a good end before all data");
	}
	u->ended = true;
	u->err = err;
	s->nr++;
	return 0;
}

static const struct mpa_rx_ops sink_ops = {
	.begin = sink_begin,
	.data = sink_data,
	.end = sink_end,
};

struct input {
	struct mpa_fo_cfg cfg;
	bool frags, frame;
	unsigned int max_ulpdu;
	unsigned int nr_cuts;
	unsigned int cut[MAX_PIECES];
	u8 *stream;
	size_t len;
	unsigned int expect_good;	/* frame mode, uncorrupted: ULPDUs */
};

static u8 stream_buf[MAX_STREAM];
static u8 page_buf[MAX_STREAM + 64];

/* Frame mode: ULPDUs from the input, framed by our encoder */
static void frame(struct input *in, const u8 *d, size_t n)
{
	static struct mpa_fpdu f;
	struct mpa_tx tx;
	size_t w = 0;
	bool corrupt = false;
	u16 flip = 0;
	u8 mask = 0;

	if (n >= 3) {
		flip = d[n - 3] << 8 | d[n - 2];
		mask = d[n - 1];
		corrupt = mask != 0;
		n -= 3;
	}
	if (swi_mpa_tx_init(&tx, &in->cfg))
		fail("swi_mpa_tx_init refused a position the parser took");
	while (n >= 2 && in->expect_good < MAX_ULPDUS) {
		unsigned int ulen = (d[0] << 8 | d[1]) %
				    min_t(unsigned int, MPA_MULPDU_MAX,
					  in->max_ulpdu) + 1;
		struct iov_iter it;
		struct kvec kv;

		d += 2;
		n -= 2;
		ulen = min_t(size_t, ulen, n ? n : 1);
		if (!n)
			break;
		kv.iov_base = (void *)d;
		kv.iov_len = ulen;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, ulen);
		if (swi_mpa_fpdu_layout(&tx, &f, ulen) || swi_mpa_fpdu_set_crc(&f, &it))
			fail("the encoder refused a ULPDU");
		if (w + f.len > MAX_STREAM)
			break;
		for (unsigned int i = 0; i < f.nr_pieces; i++) {
			const struct mpa_piece *p = &f.piece[i];

			memcpy(stream_buf + w, p->type == MPA_PIECE_FRAMING ?
			       f.bytes + p->off : d + p->off, p->len);
			w += p->len;
		}
		if (swi_mpa_tx_commit(&tx, &f))
			fail("swi_mpa_tx_commit");
		in->expect_good++;
		d += ulen;
		n -= ulen;
	}
	if (corrupt && w) {
		stream_buf[flip % w] ^= mask;
		in->expect_good = 0;
	}
	in->stream = stream_buf;
	in->len = w;
}

static int parse(struct input *in, const u8 *d, size_t n)
{
	u32 pos;

	if (n < 5)
		return -1;
	in->cfg.markers = d[0] & 1;
	in->cfg.crc = d[0] & 2;
	in->frags = d[0] & 4;
	in->frame = d[0] & 8;
	pos = (d[0] >> 4) << 8 | d[1];
	if (in->cfg.markers && mpa_pos_in_marker(pos))
		pos -= pos % MPA_MARKER_INTERVAL;
	in->cfg.pos = pos;
	in->max_ulpdu = d[2] << 8 | d[3];
	if (!in->max_ulpdu)
		in->max_ulpdu = U16_MAX;
	in->nr_cuts = min_t(unsigned int, d[4], MAX_PIECES - 1);
	d += 5;
	n -= 5;
	if (n < 2 * in->nr_cuts)
		return -1;
	for (unsigned int i = 0; i < in->nr_cuts; i++)
		in->cut[i] = (d[2 * i] << 8 | d[2 * i + 1]) ?: 1;
	d += 2 * in->nr_cuts;
	n -= 2 * in->nr_cuts;
	in->expect_good = 0;
	if (in->frame) {
		frame(in, d, n);
	} else {
		in->len = min_t(size_t, n, MAX_STREAM);
		memcpy(stream_buf, d, in->len);
		in->stream = stream_buf;
	}
	return 0;
}

/* The pieces: the cuts, then the rest */
static unsigned int pieces(const struct input *in, size_t *at, size_t *len)
{
	size_t o = 0;
	unsigned int k = 0;

	for (unsigned int i = 0; i < in->nr_cuts && o < in->len; i++) {
		at[k] = o;
		len[k] = min_t(size_t, in->cut[i], in->len - o);
		o += len[k++];
	}
	if (o < in->len) {
		at[k] = o;
		len[k++] = in->len - o;
	}
	return k;
}

/*
 * An skb over stream octets [at, at + len): linear, or (frags) a linear
 * part of a third and the rest in up to three page frags, which live in
 * a copy elsewhere, so that a read past them finds other octets.
 */
static void skb_make(struct sk_buff *skb, struct page *pg,
		     const struct input *in, size_t at, size_t len)
{
	memset(skb, 0, sizeof(*skb));
	skb->data = in->stream + at;
	skb->len = len;
	if (!in->frags || len < 4)
		return;
	unsigned int head = len / 3, rest = len - head, nf = 3;
	size_t o = at + head;

	memcpy(page_buf + 32 + o, in->stream + o, rest);
	pg->addr = page_buf + 32;
	skb->data_len = rest;
	for (unsigned int i = 0; i < nf; i++) {
		unsigned int sz = i < nf - 1 ? rest / nf : rest - (nf - 1) * (rest / nf);

		skb->shinfo.frags[i].page = pg;
		skb->shinfo.frags[i].off = o;
		skb->shinfo.frags[i].size = sz;
		o += sz;
	}
	skb->shinfo.nr_frags = nf;
}

static struct sink sa, sb, sc;
static struct sk_buff skbs[MAX_PIECES];
static struct page pgs[MAX_PIECES];

static void run_direct(const struct input *in, struct sink *s,
		       struct mpa_rx *rx, bool whole)
{
	size_t at[MAX_PIECES], len[MAX_PIECES];
	unsigned int k = 1;

	if (whole) {
		at[0] = 0;
		len[0] = in->len;
	} else {
		k = pieces(in, at, len);
	}
	for (unsigned int i = 0; i < k; i++) {
		struct sk_buff *skb = &skbs[i];
		int done;

		skb_make(skb, &pgs[i], in, at[i], len[i]);
		if (whole) {
			skb->data_len = 0;
			skb->shinfo.nr_frags = 0;
		}
		done = swi_mpa_rx_feed(rx, skb, 0, skb->len);
		if (done < 0 || (size_t)done > len[i])
			fail("swi_mpa_rx_feed consumed what it was not given");
		if ((size_t)done < len[i] && !swi_mpa_rx_stopped(rx))
			fail("swi_mpa_rx_feed left octets without stopping");
		if (swi_mpa_rx_stopped(rx))
			break;
	}
}

static void run_verified(const struct input *in, struct sink *s,
			 struct mpa_rx *rx)
{
	size_t at[MAX_PIECES], len[MAX_PIECES];
	unsigned int k = pieces(in, at, len);
	struct sock sk;
	struct sk_buff_head *q = &sk.sk_receive_queue;
	u32 isn = 1000;

	memset(&sk, 0, sizeof(sk));
	q->next = (struct sk_buff *)q;
	q->prev = (struct sk_buff *)q;
	sk.tcp.copied_seq = isn;
	for (unsigned int i = 0; i < k; i++) {
		struct sk_buff *skb = &skbs[i];

		skb_make(skb, &pgs[i], in, at[i], len[i]);
		TCP_SKB_CB(skb)->seq = isn + at[i];
		TCP_SKB_CB(skb)->end_seq = isn + at[i] + len[i];
		skb->prev = q->prev;
		skb->next = (struct sk_buff *)q;
		q->prev->next = skb;
		q->prev = skb;
		q->qlen++;
		if (swi_mpa_rx_tcp_read(rx, &sk) < 0)
			fail("swi_mpa_rx_tcp_read failed");
		if (swi_mpa_rx_stopped(rx))
			break;
	}
}

static bool same(const struct ulpdu *a, const struct ulpdu *b)
{
	return a->len == b->len && a->got == b->got && a->hash == b->hash &&
	       a->begun == b->begun && a->ended == b->ended &&
	       a->err == b->err;
}

static void compare(const struct input *in, struct mpa_rx *ra,
		    struct mpa_rx *rb)
{
	unsigned int good = 0;

	/* A and B: the same ULPDUs, the same place, the same error */
	if (sa.nr != sb.nr || ra->pos != rb->pos ||
	    swi_mpa_rx_error(ra) != swi_mpa_rx_error(rb))
		fail("one piece and many pieces disagree");
	for (unsigned int i = 0; i <= sa.nr && i <= MAX_ULPDUS; i++)
		if (!same(&sa.u[i], &sb.u[i]))
			fail("one piece and many pieces gave another ULPDU");
	/*
	 * C with neither CRC nor Markers has nothing to verify and delivers
	 * as it reads (swi_mpa_rx_init_verified(); conformance row 5044-6-c):
	 * as B
	 */
	if (!in->cfg.crc && !in->cfg.markers) {
		if (sc.nr != sb.nr)
			fail("verify-first without checks differs from B");
		for (unsigned int i = 0; i <= sb.nr && i <= MAX_ULPDUS; i++)
			if (!same(&sb.u[i], &sc.u[i]))
				fail("verify-first without checks gave another ULPDU");
		return;
	}
	/* C: A's good ULPDUs, then A's verdict without its data */
	while (good < sa.nr && sa.u[good].err == MPA_ERR_NONE)
		good++;
	if (sc.nr < good || sc.nr > good + 1)
		fail("verify-first delivered another number of ULPDUs");
	for (unsigned int i = 0; i < good; i++)
		if (!same(&sa.u[i], &sc.u[i]))
			fail("verify-first gave another ULPDU");
	if (sc.nr == good + 1) {
		if (good == sa.nr || sc.u[good].err != sa.u[good].err ||
		    sc.u[good].got)
			fail("verify-first's verdict differs, or came with data");
	} else if (good < sa.nr) {
		fail("verify-first missed a bad FPDU");
	}
	if (sc.u[sc.nr].begun && sc.nr <= MAX_ULPDUS)
		fail("verify-first began a ULPDU it did not end");
	if (in->frame && in->expect_good &&
	    (good != in->expect_good || sa.nr != good))
		fail("our encoder's FPDUs did not all come back good");
}

int fuzz_one(const u8 *data, size_t size)
{
	static struct mpa_rx ra, rb, rc, rcs;
	struct input in;

	memset(&in, 0, sizeof(in));
	if (parse(&in, data, size))
		return 0;
	/* the ULPDU records only: buf is scratch */
	sa.nr = 0;
	sb.nr = 0;
	sc.nr = 0;
	memset(sa.u, 0, sizeof(sa.u));
	memset(sb.u, 0, sizeof(sb.u));
	memset(sc.u, 0, sizeof(sc.u));
	sa.max_ulpdu = in.max_ulpdu;
	sb.max_ulpdu = in.max_ulpdu;
	sc.max_ulpdu = in.max_ulpdu;
	sa.rx = &ra;
	sb.rx = &rb;
	sc.rx = &rc;
	if (swi_mpa_rx_init(&ra, &in.cfg, in.max_ulpdu, &sink_ops, &sa) ||
	    swi_mpa_rx_init(&rb, &in.cfg, in.max_ulpdu, &sink_ops, &sb) ||
	    swi_mpa_rx_init_verified(&rc, &rcs, &in.cfg, in.max_ulpdu, &sink_ops,
				     &sc))
		fail("init refused a valid configuration");
	run_direct(&in, &sa, &ra, true);
	run_direct(&in, &sb, &rb, false);
	run_verified(&in, &sc, &rc);
	compare(&in, &ra, &rb);
	return 0;
}
