// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suites softiwarp_mpa_frame, _deframe, _socket and _bench
 *
 * softiwarp_mpa_frame: the transmit framing against the hand-written bytes
 * of RFC 5044 Figures 4, 5 and 6, a table of Marker placements (exact
 * pieces and framing octets), the MULPDU formulas of section 4.5 and the
 * argument checks.
 *
 * softiwarp_mpa_deframe: the receive parser on the same figures split at
 * every octet, a seeded random round trip of more than 10,000 FPDUs in
 * random pieces (down to single octets, linear skbs and page frags), every
 * single-bit flip of an FPDU, wrong FPDUPTRs, refused lengths, and the
 * sticky error of section 8.
 *
 * softiwarp_mpa_socket: 1 MiB of ULPDUs over a real loopback TCP
 * connection, sent with kernel_sendmsg() and read with tcp_read_sock().
 *
 * softiwarp_mpa_bench: throughput figures (printed, never asserted).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/string_choices.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "kunit/helpers.h"
#include "mpa/mpa_frame.h"

/* RFC 5044 Figure 5: the first FPDU of the stream, after the first Marker. */
static const u8 fig5_wire[] = {
	0x00, 0x00, 0x00, 0x00,	/* Marker: reserved, FPDUPTR 0 */
	0x00, 0x2a,		/* ULPDU_Length 42 */
	0x41, 0x43,		/* DDP control: Send, Last */
	0x00, 0x00, 0x00, 0x00,	/* reserved (no STag) */
	0x00, 0x00, 0x00, 0x00,	/* queue 0 */
	0x00, 0x00, 0x00, 0x01,	/* MSN 1 */
	0x00, 0x00, 0x00, 0x00,	/* MO 0 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* Send data */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x52, 0x23, 0x99, 0x83,	/* CRC */
};

/* RFC 5044 Figure 6: the second FPDU, at stream offset 0x1ec. */
static const u8 fig6_wire[] = {
	0x00, 0x2a,		/* ULPDU_Length 42 */
	0x41, 0x43,		/* DDP control: Send, Last */
	0x00, 0x00, 0x00, 0x00,	/* reserved (no STag) */
	0x00, 0x00, 0x00, 0x00,	/* queue 0 */
	0x00, 0x00, 0x00, 0x02,	/* MSN 2 */
	0x00, 0x00,		/* MO 0, octets 0x1fc and 0x1fd */
	0x00, 0x00,		/* MO 0, octets 0x1fe and 0x1ff */
	0x00, 0x00, 0x00, 0x14,	/* Marker at 0x200: FPDUPTR 0x14 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* Send data */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x84, 0x92, 0x58, 0x98,	/* CRC */
};

#define FIG6_POS	0x1ec
#define FIG_ULPDU_LEN	42
#define FIG6_FIRST_LEN	482	/* ULPDU of the 492-octet first FPDU */

static void fig5_ulpdu(u8 *ulpdu)
{
	memcpy(ulpdu, fig5_wire + 6, FIG_ULPDU_LEN);
}

static void fig6_ulpdu(u8 *ulpdu)
{
	memcpy(ulpdu, fig6_wire + 2, 18);
	memcpy(ulpdu + 18, fig6_wire + 24, 24);
}

/* The first FPDU Figure 6 assumes: a Send to queue 0, Last, MSN 1. */
static void fig6_first_ulpdu(u8 *ulpdu)
{
	memset(ulpdu, 0, FIG6_FIRST_LEN);
	memcpy(ulpdu, fig5_wire + 6, 18);
}

static struct mpa_fpdu *test_fpdu(struct kunit *test)
{
	struct mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	return f;
}

static void test_vfree(void *p)
{
	vfree(p);
}

/* vmalloc() memory the test frees on exit, or earlier with test_vdone(). */
static void *test_vmalloc(struct kunit *test, unsigned long size)
{
	void *p = vmalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_vfree, p),
			0);
	return p;
}

static void test_vdone(struct kunit *test, void *p)
{
	kunit_release_action(test, test_vfree, p);
}

static void test_tx_init(struct kunit *test, struct mpa_tx *tx, u32 pos,
			 bool markers, bool crc)
{
	struct mpa_fo_cfg cfg = { .pos = pos, .markers = markers, .crc = crc };

	KUNIT_ASSERT_EQ(test, mpa_tx_init(tx, &cfg), 0);
}

/* The wire octets of a laid out FPDU, payload taken from @ulpdu. */
static unsigned int test_linearise(const struct mpa_fpdu *f, const u8 *ulpdu,
				   u8 *out)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nr_pieces; i++) {
		const struct mpa_piece *p = &f->piece[i];
		const u8 *src = p->type == MPA_PIECE_FRAMING ? f->bytes : ulpdu;

		memcpy(out + n, src + p->off, p->len);
		n += p->len;
	}
	return n;
}

/* Frame one ULPDU given as one kvec, append it to @out, commit it. */
static unsigned int test_frame(struct kunit *test, struct mpa_tx *tx,
			       struct mpa_fpdu *f, const u8 *ulpdu,
			       unsigned int len, u8 *out)
{
	struct kvec kv = { .iov_base = (void *)ulpdu, .iov_len = len };
	struct iov_iter it;
	unsigned int n;

	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(tx, f, len), 0);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_set_crc(f, &it), 0);
	n = test_linearise(f, ulpdu, out);
	KUNIT_ASSERT_EQ(test, n, f->len);
	KUNIT_ASSERT_EQ(test, mpa_tx_commit(tx, f), 0);
	return n;
}

static void expect_piece(struct kunit *test, const struct mpa_fpdu *f,
			 unsigned int i, enum mpa_piece_type type,
			 unsigned int off, unsigned int len)
{
	KUNIT_ASSERT_LT(test, i, (unsigned int)f->nr_pieces);
	KUNIT_EXPECT_EQ_MSG(test, f->piece[i].type, type, "piece %u", i);
	KUNIT_EXPECT_EQ_MSG(test, f->piece[i].off, off, "piece %u", i);
	KUNIT_EXPECT_EQ_MSG(test, f->piece[i].len, len, "piece %u", i);
}

/*
 * The receiving layer of the tests: it collects the ULPDUs, checks that
 * ranges come in order, and counts every callback after an error.
 */
struct test_sink {
	u8 *buf;		/* good ULPDUs, concatenated */
	unsigned int cap;
	unsigned int used;	/* octets of good ULPDUs in buf */
	unsigned int cur;	/* octets of the ULPDU in progress */
	unsigned int want;	/* its length, from begin */
	unsigned int *lens;	/* lengths of good ULPDUs */
	unsigned int max_lens;
	unsigned int nr;	/* good ULPDUs */
	unsigned int begins, datas, ends;
	unsigned int late;	/* callbacks after an error */
	unsigned int stop_at;	/* return -ECANCELED from this data call */
	bool misordered;
	enum mpa_error err;
};

static int sink_begin(void *ctx, unsigned int ulpdu_len)
{
	struct test_sink *s = ctx;

	s->late += s->err != MPA_ERR_NONE;
	s->begins++;
	s->cur = 0;
	s->want = ulpdu_len;
	return 0;
}

static int sink_data(void *ctx, struct sk_buff *skb, unsigned int off,
		     unsigned int len, unsigned int ulpdu_off)
{
	struct test_sink *s = ctx;

	s->late += s->err != MPA_ERR_NONE;
	s->datas++;
	if (ulpdu_off != s->cur || len > s->want - s->cur ||
	    len > s->cap - s->used - s->cur ||
	    skb_copy_bits(skb, off, s->buf + s->used + s->cur, len))
		s->misordered = true;
	else
		s->cur += len;
	return s->datas == s->stop_at ? -ECANCELED : 0;
}

static int sink_end(void *ctx, unsigned int ulpdu_len, enum mpa_error err)
{
	struct test_sink *s = ctx;

	s->late += s->err != MPA_ERR_NONE;
	s->ends++;
	if (err) {
		s->err = err;
		return 0;
	}
	if (ulpdu_len != s->cur || ulpdu_len != s->want)
		s->misordered = true;
	if (s->nr < s->max_lens)
		s->lens[s->nr] = ulpdu_len;
	s->nr++;
	s->used += s->cur;
	s->cur = 0;
	return 0;
}

/* Forget what was received, keep the buffers. */
static void sink_reset(struct test_sink *s)
{
	s->used = 0;
	s->cur = 0;
	s->want = 0;
	s->nr = 0;
	s->begins = 0;
	s->datas = 0;
	s->ends = 0;
	s->late = 0;
	s->misordered = false;
	s->err = MPA_ERR_NONE;
}

static const struct mpa_rx_ops sink_ops = {
	.begin = sink_begin,
	.data = sink_data,
	.end = sink_end,
};

static struct test_sink *test_sink(struct kunit *test, unsigned int cap,
				   unsigned int max_lens)
{
	struct test_sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->buf = kunit_kzalloc(test, cap, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->buf);
	s->lens = kunit_kcalloc(test, max_lens, sizeof(*s->lens), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->lens);
	s->cap = cap;
	s->max_lens = max_lens;
	return s;
}

static struct mpa_rx *test_rx(struct kunit *test, struct test_sink *s,
			      u32 pos, bool markers, bool crc,
			      unsigned int max_ulpdu)
{
	struct mpa_fo_cfg cfg = { .pos = pos, .markers = markers, .crc = crc };
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_EQ(test, mpa_rx_init(rx, &cfg, max_ulpdu, &sink_ops, s),
			0);
	return rx;
}

/* Room left in page frags after the page offsets test_skb() uses. */
#define TEST_FRAG_ROOM	(PAGE_SIZE - 128)

/*
 * An skb of @lead junk octets and then @len octets of @data; those from
 * @head on sit in page frags at odd page offsets.
 */
static struct sk_buff *test_skb(struct kunit *test, const u8 *data,
				unsigned int len, unsigned int lead,
				unsigned int head)
{
	unsigned int i, n, po, lin;
	struct sk_buff *skb;
	struct page *page;

	head = min(head, len);
	if (len - head > MAX_SKB_FRAGS * TEST_FRAG_ROOM)
		head = len - MAX_SKB_FRAGS * TEST_FRAG_ROOM;
	lin = lead + head;
	skb = alloc_skb(lin, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memset(skb_put(skb, lead), 0xa5, lead);
	skb_put_data(skb, data, head);
	for (i = 0; head < len; i++, head += n) {
		po = (i * 40 + 8) % 128;
		n = min_t(unsigned int, len - head, TEST_FRAG_ROOM);
		page = alloc_page(GFP_KERNEL);
		if (!page)
			kfree_skb(skb);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page) + po, data + head, n);
		skb_add_rx_frag(skb, i, page, po, n, PAGE_SIZE);
	}
	return skb;
}

/* Like test_skb(), the octets from @split on in a frag_list skb. */
static struct sk_buff *test_skb_chain(struct kunit *test, const u8 *data,
				      unsigned int len, unsigned int lead,
				      unsigned int split)
{
	struct sk_buff *skb = test_skb(test, data, split, lead, split / 2);
	struct sk_buff *next;

	next = test_skb(test, data + split, len - split, 0, 0);
	skb_shinfo(skb)->frag_list = next;
	skb->len += next->len;
	skb->data_len += next->len;
	skb->truesize += next->truesize;
	return skb;
}

/* Feed @len octets as one skb, half linear and half in a page frag. */
static int test_feed(struct kunit *test, struct mpa_rx *rx, const u8 *data,
		     unsigned int len)
{
	struct sk_buff *skb = test_skb(test, data, len, 3, len / 2);
	int ret = mpa_rx_feed(rx, skb, 3, len);

	kfree_skb(skb);
	return ret;
}

static int test_feed_bytewise(struct kunit *test, struct mpa_rx *rx,
			      const u8 *data, unsigned int len)
{
	unsigned int i;
	int ret;

	for (i = 0; i < len; i++) {
		ret = test_feed(test, rx, data + i, 1);
		if (ret != 1)
			return i;
	}
	return len;
}

/* ---- softiwarp_mpa_frame ------------------------------------------- */

static void mpa_frame_figure5_byte_for_byte(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	u8 ulpdu[FIG_ULPDU_LEN], wire[sizeof(fig5_wire)];
	struct mpa_tx tx;

	fig5_ulpdu(ulpdu);
	test_tx_init(test, &tx, 0, true, true);
	KUNIT_ASSERT_EQ(test, test_frame(test, &tx, f, ulpdu, sizeof(ulpdu),
					 wire), sizeof(fig5_wire));
	KUNIT_EXPECT_MEMEQ(test, wire, fig5_wire, sizeof(fig5_wire));
	KUNIT_EXPECT_EQ(test, f->nr_pieces, 3);
	expect_piece(test, f, 0, MPA_PIECE_FRAMING, 0, 6);
	expect_piece(test, f, 1, MPA_PIECE_PAYLOAD, 0, FIG_ULPDU_LEN);
	expect_piece(test, f, 2, MPA_PIECE_FRAMING, 6, 4);
	KUNIT_EXPECT_EQ(test, tx.pos, sizeof(fig5_wire));
}

static void mpa_frame_figure6_after_492_octet_fpdu(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	u8 *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	u8 ulpdu[FIG6_FIRST_LEN];
	struct mpa_tx tx;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	test_tx_init(test, &tx, 0, true, true);
	fig6_first_ulpdu(ulpdu);
	KUNIT_EXPECT_EQ(test, test_frame(test, &tx, f, ulpdu, FIG6_FIRST_LEN,
					 buf), 492);
	KUNIT_ASSERT_EQ(test, tx.pos, FIG6_POS);

	fig6_ulpdu(ulpdu);
	KUNIT_ASSERT_EQ(test, test_frame(test, &tx, f, ulpdu, FIG_ULPDU_LEN,
					 buf), sizeof(fig6_wire));
	KUNIT_EXPECT_MEMEQ(test, buf, fig6_wire, sizeof(fig6_wire));
	KUNIT_EXPECT_EQ(test, f->nr_pieces, 5);
	expect_piece(test, f, 0, MPA_PIECE_FRAMING, 0, 2);
	expect_piece(test, f, 1, MPA_PIECE_PAYLOAD, 0, 18);
	expect_piece(test, f, 2, MPA_PIECE_FRAMING, 2, 4);
	expect_piece(test, f, 3, MPA_PIECE_PAYLOAD, 18, 24);
	expect_piece(test, f, 4, MPA_PIECE_FRAMING, 6, 4);
}

#define TF(o, l)	{ .off = (o), .len = (l), .type = MPA_PIECE_FRAMING }
#define TP(o, l)	{ .off = (o), .len = (l), .type = MPA_PIECE_PAYLOAD }

/* One Marker placement; framing octets with CRCs off (CRC field zero). */
struct layout_case {
	const char *desc;
	u32 pos;
	u16 ulpdu_len;
	bool markers;
	u32 fpdu_len;
	u8 nr_pieces;
	struct mpa_piece pieces[5];
	u8 nr_bytes;
	u8 bytes[16];
};

static const struct layout_case layout_cases[] = {
	{
		.desc = "Marker before the header (between FPDUs)",
		.pos = 3 * 512, .ulpdu_len = 16, .markers = true,
		.fpdu_len = 28, .nr_pieces = 3,
		.pieces = { TF(0, 6), TP(0, 16), TF(6, 6) },
		.nr_bytes = 12,
		.bytes = { 0, 0, 0, 0, 0x00, 0x10, 0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Marker in the payload (RFC 5044 Figure 4)",
		.pos = 500, .ulpdu_len = 16, .markers = true,
		.fpdu_len = 28, .nr_pieces = 5,
		.pieces = { TF(0, 2), TP(0, 10), TF(2, 4), TP(10, 6),
			    TF(6, 6) },
		.nr_bytes = 12,
		.bytes = { 0x00, 0x10, 0, 0, 0x00, 0x0c, 0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Marker between pad and CRC",
		.pos = 496, .ulpdu_len = 13, .markers = true,
		.fpdu_len = 24, .nr_pieces = 3,
		.pieces = { TF(0, 2), TP(0, 13), TF(2, 9) },
		.nr_bytes = 11,
		.bytes = { 0x00, 0x0d, 0, 0, 0, 0x00, 0x10, 0, 0, 0, 0 },
	}, {
		.desc = "Marker between payload and CRC, no pad",
		.pos = 496, .ulpdu_len = 14, .markers = true,
		.fpdu_len = 24, .nr_pieces = 3,
		.pieces = { TF(0, 2), TP(0, 14), TF(2, 8) },
		.nr_bytes = 10,
		.bytes = { 0x00, 0x0e, 0, 0, 0x00, 0x10, 0, 0, 0, 0 },
	}, {
		.desc = "Marker right after the CRC is left to the next FPDU",
		.pos = 488, .ulpdu_len = 16, .markers = true,
		.fpdu_len = 24, .nr_pieces = 3,
		.pieces = { TF(0, 2), TP(0, 16), TF(2, 6) },
		.nr_bytes = 8,
		.bytes = { 0x00, 0x10, 0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Marker inside the header (stream not 4-aligned)",
		.pos = 511, .ulpdu_len = 4, .markers = true,
		.fpdu_len = 16, .nr_pieces = 3,
		.pieces = { TF(0, 6), TP(0, 4), TF(6, 6) },
		.nr_bytes = 12,
		.bytes = { 0x00, 0, 0, 0x00, 0x00, 0x04, 0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Marker inside the pad (stream not 4-aligned)",
		.pos = 506, .ulpdu_len = 3, .markers = true,
		.fpdu_len = 16, .nr_pieces = 3,
		.pieces = { TF(0, 2), TP(0, 3), TF(2, 11) },
		.nr_bytes = 13,
		.bytes = { 0x00, 0x03, 0, 0, 0, 0x00, 0x04, 0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Marker inside the CRC (stream not 4-aligned)",
		.pos = 502, .ulpdu_len = 4, .markers = true,
		.fpdu_len = 16, .nr_pieces = 3,
		.pieces = { TF(0, 2), TP(0, 4), TF(2, 10) },
		.nr_bytes = 12,
		.bytes = { 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0x00, 0x08, 0, 0 },
	}, {
		.desc = "Two Markers, the first before the header",
		.pos = 0, .ulpdu_len = 1000, .markers = true,
		.fpdu_len = 1016, .nr_pieces = 5,
		.pieces = { TF(0, 6), TP(0, 506), TF(6, 4), TP(506, 494),
			    TF(10, 6) },
		.nr_bytes = 16,
		.bytes = { 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0x01, 0xfc,
			   0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Marker where the 32-bit stream position wraps",
		.pos = 0xfffffff0, .ulpdu_len = 16, .markers = true,
		.fpdu_len = 28, .nr_pieces = 5,
		.pieces = { TF(0, 2), TP(0, 14), TF(2, 4), TP(14, 2),
			    TF(6, 6) },
		.nr_bytes = 12,
		.bytes = { 0x00, 0x10, 0, 0, 0x00, 0x10, 0, 0, 0, 0, 0, 0 },
	}, {
		.desc = "Markers off at a Marker position",
		.pos = 512, .ulpdu_len = 5, .markers = false,
		.fpdu_len = 12, .nr_pieces = 3,
		.pieces = { TF(0, 2), TP(0, 5), TF(2, 5) },
		.nr_bytes = 7,
		.bytes = { 0x00, 0x05, 0, 0, 0, 0, 0 },
	},
};

KUNIT_ARRAY_PARAM_DESC(layout, layout_cases, desc);

static void mpa_frame_places_markers(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	struct mpa_fpdu *f = test_fpdu(test);
	struct mpa_tx tx;
	unsigned int i;

	test_tx_init(test, &tx, c->pos, c->markers, false);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, c->ulpdu_len), 0);
	KUNIT_EXPECT_EQ(test, f->len, c->fpdu_len);
	KUNIT_ASSERT_EQ(test, f->nr_pieces, c->nr_pieces);
	for (i = 0; i < c->nr_pieces; i++)
		expect_piece(test, f, i, c->pieces[i].type, c->pieces[i].off,
			     c->pieces[i].len);
	KUNIT_ASSERT_EQ(test, f->nr_bytes, c->nr_bytes);
	KUNIT_EXPECT_MEMEQ(test, f->bytes, c->bytes, c->nr_bytes);
	KUNIT_ASSERT_EQ(test, mpa_tx_commit(&tx, f), 0);
	KUNIT_EXPECT_EQ(test, tx.pos, c->pos + c->fpdu_len);
}

/* After an FPDU that ends on a Marker position, the next one leads with it. */
static void mpa_frame_marker_after_crc_leads_next_fpdu(struct kunit *test)
{
	static const u8 lead[] = { 0, 0, 0, 0, 0x00, 0x08 };
	struct mpa_fpdu *f = test_fpdu(test);
	struct mpa_tx tx;

	test_tx_init(test, &tx, 488, true, false);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, 16), 0);
	KUNIT_ASSERT_EQ(test, mpa_tx_commit(&tx, f), 0);
	KUNIT_ASSERT_EQ(test, tx.pos, 512);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, 8), 0);
	KUNIT_EXPECT_EQ(test, f->start, 512);
	KUNIT_EXPECT_EQ(test, f->hdr_pos, 516);
	expect_piece(test, f, 0, MPA_PIECE_FRAMING, 0, sizeof(lead));
	KUNIT_EXPECT_MEMEQ(test, f->bytes, lead, sizeof(lead));
}

struct mulpdu_case {
	const char *desc;
	unsigned int emss;
	bool markers;
	unsigned int mulpdu;
};

static const struct mulpdu_case mulpdu_cases[] = {
	{ "EMSS 1460 with Markers", 1460, true, 1442 },
	{ "EMSS 1460 without Markers", 1460, false, 1454 },
	{ "EMSS 1461 without Markers (EMSS mod 4 = 1)", 1461, false, 1454 },
	{ "EMSS 1463 with Markers (EMSS mod 4 = 3)", 1463, true, 1442 },
	{ "EMSS 536 with Markers", 536, true, 522 },
	{ "EMSS 512 with Markers (one interval)", 512, true, 502 },
	{ "EMSS 513 with Markers (two intervals)", 513, true, 498 },
	{ "EMSS 9000 with Markers", 9000, true, 8922 },
	{ "EMSS 8960 without Markers", 8960, false, 8954 },
	{ "EMSS 144 with Markers", 144, true, 134 },
	{ "EMSS 137 with Markers: raised to 128", 137, true, 128 },
	{ "EMSS 100 with Markers: raised to 128", 100, true, 128 },
	{ "EMSS 0 without Markers: raised to 128", 0, false, 128 },
	{ "EMSS 65000 without Markers: capped at 64768", 65000, false, 64768 },
	{ "EMSS 65495 with Markers: capped at 64768", 65495, true, 64768 },
	{ "EMSS UINT_MAX with Markers: capped", UINT_MAX, true, 64768 },
	{ "EMSS UINT_MAX without Markers: capped", UINT_MAX, false, 64768 },
};

KUNIT_ARRAY_PARAM_DESC(mulpdu, mulpdu_cases, desc);

static void mpa_frame_mulpdu_follows_section_4_5(struct kunit *test)
{
	const struct mulpdu_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpa_mulpdu(c->emss, c->markers), c->mulpdu);
}

static void mpa_frame_layout_rejects_bad_lengths(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	struct mpa_tx tx;
	unsigned int i, sum = 0;

	test_tx_init(test, &tx, 0, true, true);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_layout(&tx, f, 0), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_layout(&tx, f, MPA_MULPDU_MAX + 1),
			-EMSGSIZE);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, MPA_MULPDU_MAX), 0);
	for (i = 0; i < f->nr_pieces; i++)
		sum += f->piece[i].len;
	KUNIT_EXPECT_EQ(test, sum, f->len);
	/* 64776 FPDU octets from position 0: a Marker every 508 of them. */
	KUNIT_EXPECT_EQ(test, f->len, 64776 + 128 * MPA_MARKER_SIZE);
	KUNIT_EXPECT_EQ(test, f->nr_pieces, 1 + 2 * 127 + 2);
	KUNIT_EXPECT_EQ(test, f->nr_bytes, 2 + 128 * 4 + 2 + 4);
}

static void mpa_frame_init_rejects_position_inside_marker(struct kunit *test)
{
	struct mpa_fo_cfg cfg = { .markers = true };
	struct mpa_tx tx;

	for (cfg.pos = 1024; cfg.pos < 1032; cfg.pos++)
		KUNIT_EXPECT_EQ_MSG(test, mpa_tx_init(&tx, &cfg),
				    mpa_pos_in_marker(cfg.pos) ? -EINVAL : 0,
				    "pos %u", cfg.pos);
	KUNIT_EXPECT_EQ(test, mpa_tx_init(&tx, &cfg), 0);
	cfg.pos = 1025;
	cfg.markers = false;
	KUNIT_EXPECT_EQ(test, mpa_tx_init(&tx, &cfg), 0);
	KUNIT_EXPECT_TRUE(test, mpa_pos_in_marker(1027));
	KUNIT_EXPECT_FALSE(test, mpa_pos_in_marker(1028));
}

/*
 * The CRC is the same whatever the payload's shape (one kvec, several
 * with an empty one, bvecs across a page boundary from an offset), and it
 * equals a CRC computed independently over the wire octets before the CRC
 * field, with a Marker inside the payload.
 */
static void mpa_frame_crc_same_for_kvec_bvec_and_wire(struct kunit *test)
{
	const unsigned int len = 3000, pos = 100;
	struct mpa_fpdu *f = test_fpdu(test);
	u8 *wire = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct page *pages = alloc_pages(GFP_KERNEL, 1);
	struct bio_vec bv[2];
	struct kvec kv[3];
	struct mpa_crc crc;
	struct iov_iter it;
	struct mpa_tx tx;
	__le32 ref, got;
	unsigned int i;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, wire);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	buf = page_address(pages);
	prandom_bytes_state(&(struct rnd_state){ 5, 6, 7, 8 }, buf, 2 * PAGE_SIZE);
	test_tx_init(test, &tx, pos, true, true);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, len), 0);
	KUNIT_ASSERT_GT(test, f->nr_pieces, 3);

	kv[0] = (struct kvec){ .iov_base = buf + 3000, .iov_len = 1000 };
	kv[1] = (struct kvec){ .iov_base = buf, .iov_len = 0 };
	kv[2] = (struct kvec){ .iov_base = buf + 4000, .iov_len = 2000 };
	iov_iter_kvec(&it, ITER_SOURCE, kv, 3, 3000);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_set_crc(f, &it), 0);
	KUNIT_ASSERT_EQ(test, test_linearise(f, buf + 3000, wire), f->len);
	mpa_crc_begin(&crc);
	mpa_crc_update(&crc, wire, f->len - MPA_CRC_SIZE);
	ref = mpa_crc_final(&crc);
	KUNIT_EXPECT_MEMEQ(test, wire + f->len - MPA_CRC_SIZE, &ref,
			   MPA_CRC_SIZE);

	/* bvecs, one over two pages, entered 3000 octets in */
	bvec_set_page(&bv[0], pages, 3100, 0);
	bvec_set_page(&bv[1], pages, 2 * PAGE_SIZE - 3100, 3100);
	iov_iter_bvec(&it, ITER_SOURCE, bv, 2, 2 * PAGE_SIZE);
	iov_iter_advance(&it, 3000);
	for (i = 0; i < MPA_CRC_SIZE; i++)
		f->bytes[f->crc_pos[i]] = 0;
	KUNIT_ASSERT_EQ(test, mpa_fpdu_set_crc(f, &it), 0);
	KUNIT_ASSERT_EQ(test, test_linearise(f, buf + 3000, wire), f->len);
	memcpy(&got, wire + f->len - MPA_CRC_SIZE, MPA_CRC_SIZE);
	__free_pages(pages, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(got), le32_to_cpu(ref));
}

static void mpa_frame_crc_off_sends_zero_crc(struct kunit *test)
{
	static const u8 zeros[MPA_CRC_SIZE];
	struct mpa_fpdu *f = test_fpdu(test);
	u8 ulpdu[FIG_ULPDU_LEN], wire[sizeof(fig5_wire)];
	struct mpa_tx tx;

	fig5_ulpdu(ulpdu);
	test_tx_init(test, &tx, 0, true, false);
	KUNIT_ASSERT_EQ(test, test_frame(test, &tx, f, ulpdu, sizeof(ulpdu),
					 wire), sizeof(fig5_wire));
	KUNIT_EXPECT_MEMEQ(test, wire, fig5_wire, sizeof(fig5_wire) - 4);
	KUNIT_EXPECT_MEMEQ(test, wire + sizeof(fig5_wire) - 4, zeros, 4);
}

static void mpa_frame_crc_rejects_short_or_user_payload(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	u8 ulpdu[64] = {};
	struct kvec kv = { .iov_base = ulpdu, .iov_len = 63 };
	struct iov_iter it;
	struct mpa_tx tx;

	test_tx_init(test, &tx, 0, false, true);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, 64), 0);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 63);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_set_crc(f, &it), -EINVAL);
	iov_iter_ubuf(&it, ITER_SOURCE, (void __user *)0x1000, 64);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_set_crc(f, &it), -EINVAL);
}

static void mpa_frame_commit_advances_once(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	struct mpa_tx tx;

	test_tx_init(test, &tx, 8, true, true);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, 1000), 0);
	KUNIT_EXPECT_EQ(test, mpa_tx_commit(&tx, f), 0);
	KUNIT_EXPECT_EQ(test, tx.pos, 8 + f->len);
	KUNIT_EXPECT_EQ(test, mpa_tx_commit(&tx, f), -EINVAL);
	KUNIT_EXPECT_EQ(test, tx.pos, 8 + f->len);
}

static struct kunit_case mpa_frame_cases[] = {
	KUNIT_CASE(mpa_frame_figure5_byte_for_byte),
	KUNIT_CASE(mpa_frame_figure6_after_492_octet_fpdu),
	KUNIT_CASE_PARAM(mpa_frame_places_markers, layout_gen_params),
	KUNIT_CASE(mpa_frame_marker_after_crc_leads_next_fpdu),
	KUNIT_CASE_PARAM(mpa_frame_mulpdu_follows_section_4_5,
			 mulpdu_gen_params),
	KUNIT_CASE(mpa_frame_layout_rejects_bad_lengths),
	KUNIT_CASE(mpa_frame_init_rejects_position_inside_marker),
	KUNIT_CASE(mpa_frame_crc_same_for_kvec_bvec_and_wire),
	KUNIT_CASE(mpa_frame_crc_off_sends_zero_crc),
	KUNIT_CASE(mpa_frame_crc_rejects_short_or_user_payload),
	KUNIT_CASE(mpa_frame_commit_advances_once),
	{}
};

static struct kunit_suite mpa_frame_suite = {
	.name = "softiwarp_mpa_frame",
	.test_cases = mpa_frame_cases,
};

/* ---- softiwarp_mpa_deframe ----------------------------------------- */

static void mpa_deframe_figure5(struct kunit *test)
{
	struct test_sink *s = test_sink(test, 64, 4);
	struct mpa_rx *rx = test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
	u8 ulpdu[FIG_ULPDU_LEN];

	fig5_ulpdu(ulpdu);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, fig5_wire, sizeof(fig5_wire)),
			sizeof(fig5_wire));
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_ASSERT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_EQ(test, s->lens[0], FIG_ULPDU_LEN);
	KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdu, FIG_ULPDU_LEN);
	KUNIT_EXPECT_FALSE(test, s->misordered);
}

static void mpa_deframe_figure6(struct kunit *test)
{
	struct test_sink *s = test_sink(test, 64, 4);
	struct mpa_rx *rx = test_rx(test, s, FIG6_POS, true, true,
				    MPA_MULPDU_MAX);
	u8 ulpdu[FIG_ULPDU_LEN];

	fig6_ulpdu(ulpdu);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, fig6_wire, sizeof(fig6_wire)),
			sizeof(fig6_wire));
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_ASSERT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdu, FIG_ULPDU_LEN);
	KUNIT_EXPECT_EQ(test, s->datas, 2);	/* the Marker splits it */
	KUNIT_EXPECT_FALSE(test, s->misordered);
}

/* The first 492 octets of the stream, then Figure 6 as written in the RFC. */
static unsigned int fig6_stream(struct kunit *test, u8 *out, u8 *ulpdus)
{
	struct mpa_fpdu *f = test_fpdu(test);
	struct mpa_tx tx;
	unsigned int n;

	test_tx_init(test, &tx, 0, true, true);
	fig6_first_ulpdu(ulpdus);
	n = test_frame(test, &tx, f, ulpdus, FIG6_FIRST_LEN, out);
	KUNIT_ASSERT_EQ(test, n, FIG6_POS);
	memcpy(out + n, fig6_wire, sizeof(fig6_wire));
	fig6_ulpdu(ulpdus + FIG6_FIRST_LEN);
	return n + sizeof(fig6_wire);
}

/* Two FPDUs from the start of Full Operation, cut in two at every octet. */
static void mpa_deframe_figure6_stream_split_anywhere(struct kunit *test)
{
	u8 *stream = kunit_kzalloc(test, 1024, GFP_KERNEL);
	u8 *ulpdus = kunit_kzalloc(test, 1024, GFP_KERNEL);
	const unsigned int total = FIG6_FIRST_LEN + FIG_ULPDU_LEN;
	struct test_sink *s = test_sink(test, 1024, 4);
	unsigned int len, cut;
	struct mpa_rx *rx;
	int got;

	KUNIT_ASSERT_NOT_NULL(test, stream);
	KUNIT_ASSERT_NOT_NULL(test, ulpdus);
	len = fig6_stream(test, stream, ulpdus);
	for (cut = 0; cut <= len; cut++) {
		sink_reset(s);
		rx = test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
		if (cut == len) {
			got = test_feed_bytewise(test, rx, stream, len);
		} else {
			got = test_feed(test, rx, stream, cut);
			got += test_feed(test, rx, stream + cut, len - cut);
		}
		KUNIT_EXPECT_EQ_MSG(test, got, len, "cut at %u", cut);
		KUNIT_EXPECT_EQ_MSG(test, s->nr, 2, "cut at %u", cut);
		KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
		KUNIT_EXPECT_FALSE(test, s->misordered);
		KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdus, total);
		kunit_kfree(test, rx);
		if (s->nr != 2)
			break;
	}
}

/* Every layout of the placement table, CRC on, fed one octet at a time. */
static void mpa_deframe_reads_marker_layouts(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	struct mpa_fpdu *f = test_fpdu(test);
	struct test_sink *s = test_sink(test, 2048, 4);
	u8 *wire = kunit_kzalloc(test, 2048, GFP_KERNEL);
	u8 *ulpdu = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct mpa_rx *rx;
	struct mpa_tx tx;
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, wire);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	prandom_bytes_state(&(struct rnd_state){ 1, 9, 9, 7 }, ulpdu,
			    c->ulpdu_len);
	test_tx_init(test, &tx, c->pos, c->markers, true);
	n = test_frame(test, &tx, f, ulpdu, c->ulpdu_len, wire);
	n += test_frame(test, &tx, f, ulpdu, c->ulpdu_len, wire + n);
	rx = test_rx(test, s, c->pos, c->markers, true, MPA_MULPDU_MAX);
	KUNIT_EXPECT_EQ(test, test_feed_bytewise(test, rx, wire, n), n);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_ASSERT_EQ(test, s->nr, 2);
	KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdu, c->ulpdu_len);
	KUNIT_EXPECT_MEMEQ(test, s->buf + c->ulpdu_len, ulpdu, c->ulpdu_len);
	KUNIT_EXPECT_EQ(test, rx->pos, tx.pos);
}

/* How test_feed_random() cuts a stream, and how many skbs it made. */
struct test_cutter {
	struct rnd_state *rnd;
	bool tiny;		/* pieces of 1 to 64 octets only */
	unsigned int skbs;
};

/* A random cut of the stream: often tiny, sometimes up to 48 KiB. */
static unsigned int test_cut(struct test_cutter *c, unsigned int left)
{
	static const unsigned int max[] = { 1, 1, 4, 16, 64, 600, 4096,
					    48 * 1024 };
	unsigned int k = prandom_u32_state(c->rnd) % (c->tiny ? 5 : 8);

	return min(left, 1 + prandom_u32_state(c->rnd) % max[k]);
}

/*
 * Feed @len octets as random skbs (junk before the data, part linear, part
 * in page frags, some with a frag_list), each fed as one or two ranges.
 * Return octets consumed.
 */
static unsigned int test_feed_random(struct kunit *test, struct mpa_rx *rx,
				     const u8 *data, unsigned int len,
				     struct test_cutter *c)
{
	struct rnd_state *rnd = c->rnd;
	unsigned int done = 0, n, lead, head, a;
	struct sk_buff *skb;
	int r1, r2;

	while (done < len) {
		n = test_cut(c, len - done);
		lead = prandom_u32_state(rnd) % 4 ? 0 :
			prandom_u32_state(rnd) % 64;
		head = prandom_u32_state(rnd) % (n + 1);
		a = prandom_u32_state(rnd) % (n + 1);
		if (prandom_u32_state(rnd) % 8)
			skb = test_skb(test, data + done, n, lead, head);
		else
			skb = test_skb_chain(test, data + done, n, lead, head);
		c->skbs++;
		r1 = mpa_rx_feed(rx, skb, lead, a);
		r2 = r1 == a ? mpa_rx_feed(rx, skb, lead + a, n - a) : 0;
		kfree_skb(skb);
		if (r1 < 0 || r2 < 0)
			return done;
		done += r1 + r2;
		if (r1 + r2 != n)
			return done;
		cond_resched();
	}
	return done;
}

struct rt_batch {
	unsigned int emss;
	unsigned int count;
	bool tiny;
};

/*
 * Per setting of Markers and CRC: 2,590 FPDUs, about 3.3 MB of payload;
 * two batches are fed in pieces of at most 64 octets.
 */
static const struct rt_batch rt_batches[] = {
	{ 1460, 600, false }, { 536, 600, true }, { 1460, 600, false },
	{ 9000, 150, false }, { 1460, 600, true }, { UINT_MAX, 40, false },
};

struct rt_run {
	struct kunit *test;
	struct rnd_state *rnd;
	bool markers;
	bool crc;
	unsigned int count;
	unsigned int *lens;
	unsigned int total;
	u8 *src;
	u8 *wire;
	unsigned int wire_len;
	u32 pos;
	u64 octets;		/* stream octets fed, all batches */
	struct test_cutter cut;	/* counts the skbs of all batches */
};

/* Random sizes 1..MULPDU, random payload, random start position. */
static void rt_generate(struct rt_run *r, unsigned int emss)
{
	unsigned int mulpdu = mpa_mulpdu(emss, r->markers), i;
	struct kunit *test = r->test;
	u32 pos = prandom_u32_state(r->rnd);

	r->total = 0;
	for (i = 0; i < r->count; i++) {
		r->lens[i] = 1 + prandom_u32_state(r->rnd) % mulpdu;
		r->total += r->lens[i];
	}
	r->src = test_vmalloc(test, r->total);
	/* FPDU overhead: 9 octets, a leading Marker, a Marker per 508 */
	r->wire = test_vmalloc(test, r->total + 16 * r->count +
			       r->total / 100 + 64);
	prandom_bytes_state(r->rnd, r->src, r->total);
	if (prandom_u32_state(r->rnd) % 4)
		pos &= ~3U;	/* mostly conforming, 4-aligned streams */
	if (r->markers && mpa_pos_in_marker(pos))
		pos -= pos % MPA_MARKER_INTERVAL;
	r->pos = pos;
}

/* Frame every ULPDU, the payload as one kvec or split in three. */
static void rt_frame(struct rt_run *r, struct mpa_fpdu *f, struct mpa_tx *tx)
{
	struct kunit *test = r->test;
	unsigned int i, off = 0, len, a;
	struct iov_iter it;
	struct kvec kv[3];

	test_tx_init(test, tx, r->pos, r->markers, r->crc);
	r->wire_len = 0;
	for (i = 0; i < r->count; off += len, i++) {
		len = r->lens[i];
		a = prandom_u32_state(r->rnd) % (len + 1);
		kv[0] = (struct kvec){ .iov_base = r->src + off, .iov_len = a };
		kv[1] = (struct kvec){ .iov_base = r->src, .iov_len = 0 };
		kv[2] = (struct kvec){ .iov_base = r->src + off + a,
				       .iov_len = len - a };
		iov_iter_kvec(&it, ITER_SOURCE, kv, 3, len);
		KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(tx, f, len), 0);
		KUNIT_ASSERT_EQ(test, mpa_fpdu_set_crc(f, &it), 0);
		r->wire_len += test_linearise(f, r->src + off,
					      r->wire + r->wire_len);
		KUNIT_ASSERT_EQ(test, mpa_tx_commit(tx, f), 0);
	}
	KUNIT_ASSERT_EQ(test, r->wire_len, tx->pos - r->pos);
}

static void rt_check(struct rt_run *r, struct mpa_tx *tx)
{
	struct kunit *test = r->test;
	struct test_sink *s;
	struct mpa_rx *rx;
	unsigned int i;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->buf = test_vmalloc(test, r->total);
	s->cap = r->total;
	s->lens = kunit_kcalloc(test, r->count, sizeof(*s->lens), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->lens);
	s->max_lens = r->count;
	rx = test_rx(test, s, r->pos, r->markers, r->crc, MPA_MULPDU_MAX);

	KUNIT_EXPECT_EQ(test, test_feed_random(test, rx, r->wire, r->wire_len,
					       &r->cut), r->wire_len);
	r->octets += r->wire_len;
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_FALSE(test, s->misordered);
	KUNIT_EXPECT_EQ(test, s->nr, r->count);
	for (i = 0; i < r->count && i < s->nr; i++)
		if (s->lens[i] != r->lens[i])
			break;
	KUNIT_EXPECT_EQ(test, i, r->count);
	KUNIT_EXPECT_EQ(test, s->used, r->total);
	KUNIT_EXPECT_EQ(test, memcmp(s->buf, r->src, r->total), 0);
	KUNIT_EXPECT_EQ(test, rx->pos, tx->pos);
	KUNIT_EXPECT_EQ(test, rx->state, MPA_RX_HDR);
	test_vdone(test, s->buf);
	kunit_kfree(test, s->lens);
	kunit_kfree(test, s);
	kunit_kfree(test, rx);
}

static void mpa_deframe_random_round_trip(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	struct rnd_state rnd;
	struct rt_run r = { .test = test, .rnd = &rnd, .cut.rnd = &rnd };
	unsigned int cfg, b, fpdus = 0;
	struct mpa_tx tx;

	prandom_seed_state(&rnd, 0x5044f1d0ULL);
	r.lens = kunit_kcalloc(test, 600, sizeof(*r.lens), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r.lens);
	for (cfg = 0; cfg < 4; cfg++) {
		r.markers = cfg & 1;
		r.crc = cfg & 2;
		for (b = 0; b < ARRAY_SIZE(rt_batches); b++) {
			r.count = rt_batches[b].count;
			r.cut.tiny = rt_batches[b].tiny;
			rt_generate(&r, rt_batches[b].emss);
			rt_frame(&r, f, &tx);
			rt_check(&r, &tx);
			test_vdone(test, r.src);
			test_vdone(test, r.wire);
			fpdus += r.count;
			if (test->status == KUNIT_FAILURE) {
				kunit_info(test, "failed: markers %d crc %d batch %u pos %u\n",
					   r.markers, r.crc, b, r.pos);
				return;
			}
		}
	}
	KUNIT_EXPECT_GE(test, fpdus, 10000);
	kunit_info(test, "%u FPDUs, %llu stream octets in %u skbs\n", fpdus,
		   r.octets, r.cut.skbs);
}

struct flip_case {
	const char *desc;
	const u8 *wire;
	unsigned int len;
	u32 pos;
};

static const struct flip_case flip_cases[] = {
	{ "Figure 5 (leading Marker)", fig5_wire, sizeof(fig5_wire), 0 },
	{ "Figure 6 (Marker in the payload)", fig6_wire, sizeof(fig6_wire),
	  FIG6_POS },
};

KUNIT_ARRAY_PARAM_DESC(flip, flip_cases, desc);

/* Good FPDUs to follow the flipped one: enough for any ULPDU_Length flip. */
static unsigned int flip_tail(struct kunit *test, u32 pos, u8 *out)
{
	struct mpa_fpdu *f = test_fpdu(test);
	u8 *ulpdu = kunit_kzalloc(test, 4000, GFP_KERNEL);
	unsigned int i, n = 0;
	struct mpa_tx tx;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	prandom_bytes_state(&(struct rnd_state){ 3, 1, 4, 1 }, ulpdu, 4000);
	test_tx_init(test, &tx, pos, true, true);
	for (i = 0; i < 10; i++)
		n += test_frame(test, &tx, f, ulpdu, 4000, out + n);
	return n;
}

/*
 * Every single-bit flip of the FPDU gives MPA_ERR_CRC, no good ULPDU, and
 * nothing at all afterwards, even though good FPDUs follow.
 */
static void mpa_deframe_every_bit_flip_is_crc_error(struct kunit *test)
{
	const struct flip_case *c = test->param_value;
	u8 *stream = kunit_kzalloc(test, 48 * 1024, GFP_KERNEL);
	struct test_sink *s = test_sink(test, 48 * 1024, 16);
	unsigned int bit, len, used;
	struct mpa_rx *rx;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, stream);
	memcpy(stream, c->wire, c->len);
	len = c->len + flip_tail(test, c->pos + c->len, stream + c->len);
	rx = test_rx(test, s, c->pos, true, true, MPA_MULPDU_MAX);
	KUNIT_ASSERT_EQ(test, test_feed(test, rx, stream, len), len);
	KUNIT_ASSERT_EQ(test, s->nr, 11);	/* the unflipped stream is good */

	for (bit = 0; bit < c->len * 8; bit++) {
		sink_reset(s);
		stream[bit / 8] ^= BIT(bit % 8);
		kunit_kfree(test, rx);
		rx = test_rx(test, s, c->pos, true, true, MPA_MULPDU_MAX);
		ret = test_feed(test, rx, stream, len);
		used = ret;
		stream[bit / 8] ^= BIT(bit % 8);
		KUNIT_EXPECT_EQ_MSG(test, mpa_rx_error(rx), MPA_ERR_CRC,
				    "bit %u", bit);
		KUNIT_EXPECT_EQ_MSG(test, s->err, MPA_ERR_CRC, "bit %u", bit);
		KUNIT_EXPECT_EQ_MSG(test, s->nr, 0, "bit %u", bit);
		KUNIT_EXPECT_EQ_MSG(test, s->late, 0, "bit %u", bit);
		KUNIT_EXPECT_LT_MSG(test, used, len, "bit %u", bit);
		KUNIT_EXPECT_EQ(test, test_feed(test, rx, stream + used,
						len - used), 0);
		KUNIT_EXPECT_EQ_MSG(test, s->late, 0, "bit %u", bit);
		if (test->status == KUNIT_FAILURE)
			break;
	}
}

struct marker_case {
	const char *desc;
	bool fig6;		/* else Figure 5 */
	u16 reserved;
	u16 fpduptr;
	bool crc_on;
	bool fix_crc;		/* recompute the CRC over the changed Marker */
	enum mpa_error err;
};

static const struct marker_case marker_cases[] = {
	{ "FPDUPTR 0x18 instead of 0x14, CRC good", true, 0, 0x18, true,
	  true, MPA_ERR_MARKER },
	{ "FPDUPTR 0 inside an FPDU, CRC good", true, 0, 0, true, true,
	  MPA_ERR_MARKER },
	{ "FPDUPTR 0x18 instead of 0x14, CRCs off", true, 0, 0x18, false,
	  false, MPA_ERR_MARKER },
	{ "FPDUPTR 0x18, CRC not recomputed: the CRC error wins", true, 0,
	  0x18, true, false, MPA_ERR_CRC },
	{ "FPDUPTR 0x17: the two low bits are ignored", true, 0, 0x17, true,
	  true, MPA_ERR_NONE },
	{ "leading Marker with FPDUPTR 4, CRC good", false, 0, 4, true, true,
	  MPA_ERR_MARKER },
	{ "leading Marker with FPDUPTR 3: low bits ignored", false, 0, 3,
	  true, true, MPA_ERR_NONE },
	{ "leading Marker with FPDUPTR 0x200, CRCs off", false, 0, 0x200,
	  false, false, MPA_ERR_MARKER },
	{ "reserved field set: ignored but CRC covered", false, 0xffff, 0,
	  true, true, MPA_ERR_NONE },
	{ "reserved field set, CRC not recomputed", false, 0xffff, 0, true,
	  false, MPA_ERR_CRC },
};

KUNIT_ARRAY_PARAM_DESC(marker, marker_cases, desc);

static void mpa_deframe_checks_fpduptr(struct kunit *test)
{
	const struct marker_case *c = test->param_value;
	u32 pos = c->fig6 ? FIG6_POS : 0;
	struct mpa_marker m = { cpu_to_be16(c->reserved),
				cpu_to_be16(c->fpduptr) };
	struct mpa_fpdu *f = test_fpdu(test);
	struct test_sink *s = test_sink(test, 64, 4);
	u8 ulpdu[FIG_ULPDU_LEN], wire[64];
	struct kvec kv = { .iov_base = ulpdu, .iov_len = FIG_ULPDU_LEN };
	struct iov_iter it;
	struct mpa_rx *rx;
	struct mpa_tx tx;

	if (c->fig6)
		fig6_ulpdu(ulpdu);
	else
		fig5_ulpdu(ulpdu);
	test_tx_init(test, &tx, pos, true, true);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_layout(&tx, f, FIG_ULPDU_LEN), 0);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, FIG_ULPDU_LEN);
	KUNIT_ASSERT_EQ(test, mpa_fpdu_set_crc(f, &it), 0);
	memcpy(f->bytes + (c->fig6 ? 2 : 0), &m, sizeof(m));
	if (c->fix_crc)
		KUNIT_ASSERT_EQ(test, mpa_fpdu_set_crc(f, &it), 0);
	KUNIT_ASSERT_EQ(test, test_linearise(f, ulpdu, wire), 48 + 4);

	rx = test_rx(test, s, pos, true, c->crc_on, MPA_MULPDU_MAX);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, 52), 52);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), c->err);
	KUNIT_EXPECT_EQ(test, s->err, c->err);
	KUNIT_EXPECT_EQ(test, s->nr, c->err ? 0 : 1);
	KUNIT_EXPECT_EQ(test, mpa_rx_stopped(rx), c->err != MPA_ERR_NONE);
}

/* ULPDU_Length above the limit: refused before any payload goes up. */
static void mpa_deframe_refuses_length_above_limit(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	struct test_sink *s = test_sink(test, 4096, 4);
	u8 *ulpdu = kunit_kzalloc(test, 1100, GFP_KERNEL);
	u8 *wire = kunit_kzalloc(test, 4096, GFP_KERNEL);
	unsigned int n1, n;
	struct mpa_rx *rx;
	struct mpa_tx tx;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	test_tx_init(test, &tx, 0, true, true);
	n1 = test_frame(test, &tx, f, ulpdu, 1024, wire);
	n = n1 + test_frame(test, &tx, f, ulpdu, 1025, wire + n1);
	KUNIT_ASSERT_EQ(test, n1, 1044);	/* 3 Markers, not at 1044 */
	rx = test_rx(test, s, 0, true, true, 1024);
	/* the 1024-octet ULPDU passes, the header of the next one does not */
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), n1 + MPA_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_EQ(test, s->begins, 1);
	KUNIT_EXPECT_EQ(test, s->ends, 2);
	KUNIT_EXPECT_EQ(test, s->err, MPA_ERR_MARKER);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_MARKER);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), 0);
	KUNIT_EXPECT_EQ(test, s->late, 0);
}

static void mpa_deframe_refuses_length_65535(struct kunit *test)
{
	static const u8 wire[] = { 0xff, 0xff, 0x41, 0x43, 0, 0, 0, 0 };
	struct test_sink *s = test_sink(test, 64, 4);
	struct mpa_rx *rx = test_rx(test, s, 4, false, false, MPA_MULPDU_MAX);

	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, sizeof(wire)), 2);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_MARKER);
	KUNIT_EXPECT_EQ(test, s->datas, 0);
}

/* A zero-length ULPDU is MPA-valid; whether it makes sense is the ULP's. */
static void mpa_deframe_passes_zero_length_ulpdu(struct kunit *test)
{
	static const u8 wire[] = {
		0x00, 0x00,		/* ULPDU_Length 0 */
		0x00, 0x00,		/* pad */
		0xc7, 0x4b, 0x67, 0x48,	/* CRC32c of four zero octets */
	};
	struct test_sink *s = test_sink(test, 64, 4);
	struct mpa_rx *rx = test_rx(test, s, 4, true, true, MPA_MULPDU_MAX);

	KUNIT_EXPECT_EQ(test, test_feed_bytewise(test, rx, wire, sizeof(wire)),
			sizeof(wire));
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_EQ(test, s->begins, 1);
	KUNIT_EXPECT_EQ(test, s->datas, 0);
}

/* A callback's non-zero return stops the parser right there, for good. */
static void mpa_deframe_callback_stops_parser(struct kunit *test)
{
	struct mpa_fpdu *f = test_fpdu(test);
	struct test_sink *s = test_sink(test, 4096, 4);
	u8 ulpdu[100] = { 1, 2, 3 };
	u8 wire[512];
	struct mpa_rx *rx;
	struct mpa_tx tx;
	unsigned int n;

	test_tx_init(test, &tx, 4, false, true);
	n = test_frame(test, &tx, f, ulpdu, 100, wire);
	n += test_frame(test, &tx, f, ulpdu, 100, wire + n);
	s->stop_at = 1;
	rx = test_rx(test, s, 4, false, true, MPA_MULPDU_MAX);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), 2 + 100);
	KUNIT_EXPECT_TRUE(test, mpa_rx_stopped(rx));
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_EQ(test, rx->ulp_err, -ECANCELED);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire + 102, n - 102), 0);
	KUNIT_EXPECT_EQ(test, s->datas, 1);
	KUNIT_EXPECT_EQ(test, s->ends, 0);
}

/* After a CRC error, later skbs with good FPDUs are not even consumed. */
static void mpa_deframe_error_is_sticky(struct kunit *test)
{
	struct test_sink *s = test_sink(test, 4096, 4);
	struct mpa_rx *rx = test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
	u8 bad[sizeof(fig5_wire)];

	memcpy(bad, fig5_wire, sizeof(bad));
	bad[20] ^= 0x80;
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, bad, sizeof(bad)),
			sizeof(bad));
	KUNIT_EXPECT_EQ(test, s->err, MPA_ERR_CRC);
	KUNIT_EXPECT_EQ(test, s->datas, 1);	/* placed before the CRC */
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, fig6_wire,
					sizeof(fig6_wire)), 0);
	KUNIT_EXPECT_EQ(test, s->nr, 0);
	KUNIT_EXPECT_EQ(test, s->late, 0);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_CRC);
}

static void mpa_deframe_rejects_range_outside_skb(struct kunit *test)
{
	struct test_sink *s = test_sink(test, 64, 4);
	struct mpa_rx *rx = test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
	struct sk_buff *skb = test_skb(test, fig5_wire, 10, 0, 10);

	KUNIT_EXPECT_EQ(test, mpa_rx_feed(rx, skb, 0, 11), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpa_rx_feed(rx, skb, 11, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpa_rx_feed(rx, skb, 4, UINT_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpa_rx_feed(rx, skb, 10, 0), 0);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, rx->pos, 0);
}

static void mpa_deframe_init_checks_arguments(struct kunit *test)
{
	static const struct mpa_rx_ops no_end = { .data = sink_data };
	struct mpa_fo_cfg cfg = { .pos = 513, .markers = true };
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_EXPECT_EQ(test, mpa_rx_init(rx, &cfg, 100, &sink_ops, NULL),
			-EINVAL);
	cfg.pos = 516;
	KUNIT_EXPECT_EQ(test, mpa_rx_init(rx, &cfg, 100, &no_end, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpa_rx_init(rx, &cfg, 100, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpa_rx_init(rx, &cfg, 1 << 20, &sink_ops, NULL),
			0);
	KUNIT_EXPECT_EQ(test, rx->max_ulpdu, U16_MAX);
}

static struct kunit_case mpa_deframe_cases[] = {
	KUNIT_CASE(mpa_deframe_figure5),
	KUNIT_CASE(mpa_deframe_figure6),
	KUNIT_CASE(mpa_deframe_figure6_stream_split_anywhere),
	KUNIT_CASE_PARAM(mpa_deframe_reads_marker_layouts, layout_gen_params),
	KUNIT_CASE(mpa_deframe_random_round_trip),
	KUNIT_CASE_PARAM(mpa_deframe_every_bit_flip_is_crc_error,
			 flip_gen_params),
	KUNIT_CASE_PARAM(mpa_deframe_checks_fpduptr, marker_gen_params),
	KUNIT_CASE(mpa_deframe_refuses_length_above_limit),
	KUNIT_CASE(mpa_deframe_refuses_length_65535),
	KUNIT_CASE(mpa_deframe_passes_zero_length_ulpdu),
	KUNIT_CASE(mpa_deframe_callback_stops_parser),
	KUNIT_CASE(mpa_deframe_error_is_sticky),
	KUNIT_CASE(mpa_deframe_rejects_range_outside_skb),
	KUNIT_CASE(mpa_deframe_init_checks_arguments),
	{}
};

static struct kunit_suite mpa_deframe_suite = {
	.name = "softiwarp_mpa_deframe",
	.test_cases = mpa_deframe_cases,
};

/* ---- softiwarp_mpa_socket ------------------------------------------ */

/* The sender: one FPDU in flight as kvecs over framing and payload. */
struct sock_tx {
	struct mpa_tx tx;
	struct mpa_fpdu *f;
	struct kvec *iov;	/* MPA_FPDU_MAX_PIECES */
	struct kvec *cur;	/* first unsent piece */
	unsigned int nr;	/* unsent pieces */
	unsigned int left;	/* unsent octets of the FPDU */
	unsigned int idx;	/* ULPDU being sent */
	unsigned int off;	/* its offset in src */
};

static int sock_tx_frame(struct sock_tx *t, const u8 *src, unsigned int len)
{
	struct kvec kv = { .iov_base = (void *)(src + t->off), .iov_len = len };
	struct iov_iter it;
	unsigned int i;
	int err;

	err = mpa_fpdu_layout(&t->tx, t->f, len);
	if (err)
		return err;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	err = mpa_fpdu_set_crc(t->f, &it);
	for (i = 0; i < t->f->nr_pieces; i++) {
		const struct mpa_piece *p = &t->f->piece[i];

		t->iov[i].iov_base = p->type == MPA_PIECE_FRAMING ?
			t->f->bytes + p->off : (u8 *)kv.iov_base + p->off;
		t->iov[i].iov_len = p->len;
	}
	t->cur = t->iov;
	t->nr = t->f->nr_pieces;
	t->left = t->f->len;
	return err;
}

/* Send what the socket takes without blocking; return octets sent. */
static int sock_tx_push(struct sock_tx *t, struct socket *sock, const u8 *src,
			const unsigned int *lens, unsigned int count)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int sent = 0, ret;

	while (t->idx < count) {
		if (!t->left) {
			ret = sock_tx_frame(t, src, lens[t->idx]);
			if (ret)
				return ret;
		}
		ret = kernel_sendmsg(sock, &msg, t->cur, t->nr, t->left);
		if (ret == -EAGAIN)
			break;
		if (ret <= 0)
			return ret ?: -EIO;
		sent += ret;
		t->left -= ret;
		while (ret) {
			unsigned int k = min_t(unsigned int, ret, t->cur->iov_len);

			t->cur->iov_base += k;
			t->cur->iov_len -= k;
			ret -= k;
			if (!t->cur->iov_len) {
				t->cur++;
				t->nr--;
			}
		}
		if (t->left)
			continue;
		ret = mpa_tx_commit(&t->tx, t->f);
		if (ret)
			return ret;
		t->off += lens[t->idx++];
	}
	return sent;
}

static int sock_rx_pull(struct mpa_rx *rx, struct socket *sock)
{
	read_descriptor_t desc = { .arg.data = rx, .count = 1 };
	int ret;

	lock_sock(sock->sk);
	ret = tcp_read_sock(sock->sk, &desc, mpa_rx_tcp_actor);
	release_sock(sock->sk);
	return ret;
}

#define SOCK_MAX_ULPDUS	8192

/* Random ULPDU sizes up to @mulpdu, @total octets in all: return count. */
static unsigned int sock_plan(struct kunit *test, struct rnd_state *rnd,
			      unsigned int *lens, unsigned int total,
			      unsigned int mulpdu)
{
	unsigned int count = 0, sum = 0;

	while (sum < total) {
		KUNIT_ASSERT_LT(test, count, SOCK_MAX_ULPDUS);
		lens[count] = min(total - sum,
				  1 + prandom_u32_state(rnd) % mulpdu);
		sum += lens[count++];
	}
	return count;
}

/*
 * The test thread alternates non-blocking sends and reads until every
 * ULPDU arrived, an error occurred, or 60 s passed.
 */
static void sock_transfer(struct kunit *test, struct sock_tx *t,
			  struct mpa_rx *rx, const struct test_sink *s,
			  const u8 *src, const unsigned int *lens,
			  unsigned int count)
{
	unsigned long deadline = jiffies + 60 * HZ;
	struct socket *cli, *srv;
	int sent = 0, got = 0;

	swi_kunit_sock_pair(test, &cli, &srv);
	while (s->nr < count && !mpa_rx_stopped(rx) &&
	       time_before(jiffies, deadline)) {
		sent = sock_tx_push(t, cli, src, lens, count);
		got = sock_rx_pull(rx, srv);
		if (sent < 0 || got < 0)
			break;
		if (!sent && !got)
			usleep_range(200, 500);
		cond_resched();
	}
	KUNIT_EXPECT_GE(test, sent, 0);
	KUNIT_EXPECT_GE(test, got, 0);
}

/*
 * 1 MiB of ULPDUs of random sizes up to the MULPDU of a 1500-octet MTU
 * peer, framed with Markers and CRCs, sent over loopback TCP with
 * kernel_sendmsg() and deframed with tcp_read_sock().
 */
static void mpa_socket_loopback_1mib(struct kunit *test)
{
	const unsigned int total = SZ_1M;
	struct rnd_state rnd = { 11, 22, 33, 44 };
	unsigned int *lens, count;
	struct test_sink *s;
	struct sock_tx *t;
	struct mpa_rx *rx;
	u8 *src;

	lens = kunit_kcalloc(test, SOCK_MAX_ULPDUS, sizeof(*lens), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lens);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->f = test_fpdu(test);
	t->iov = kunit_kcalloc(test, MPA_FPDU_MAX_PIECES, sizeof(*t->iov),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->iov);
	count = sock_plan(test, &rnd, lens, total, mpa_mulpdu(1460, true));
	src = test_vmalloc(test, total);
	prandom_bytes_state(&rnd, src, total);
	s = test_sink(test, 1, count);
	s->buf = test_vmalloc(test, total);
	s->cap = total;
	test_tx_init(test, &t->tx, 0, true, true);
	rx = test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);

	sock_transfer(test, t, rx, s, src, lens, count);
	KUNIT_EXPECT_EQ(test, t->idx, count);
	KUNIT_EXPECT_EQ(test, s->nr, count);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_FALSE(test, s->misordered);
	KUNIT_EXPECT_EQ(test, s->used, total);
	KUNIT_EXPECT_EQ(test, memcmp(s->buf, src, total), 0);
	KUNIT_EXPECT_EQ(test, rx->pos, t->tx.pos);
	KUNIT_EXPECT_EQ(test, memcmp(s->lens, lens, count * sizeof(*lens)), 0);
	kunit_info(test, "%u ULPDUs, %u stream octets\n", count, t->tx.pos);
}

static struct kunit_case mpa_socket_cases[] = {
	KUNIT_CASE(mpa_socket_loopback_1mib),
	{}
};

static struct kunit_suite mpa_socket_suite = {
	.name = "softiwarp_mpa_socket",
	.test_cases = mpa_socket_cases,
};

/* ---- softiwarp_mpa_bench ------------------------------------------- */

#define BENCH_ULPDUS	64	/* of MPA_MULPDU_MAX octets: 4 MB a run */
#define BENCH_SKB	60000	/* stream octets per skb, like loopback GRO */

static u64 bench_mbps(u64 bytes, u64 ns)
{
	return div64_u64(bytes * 1000, max_t(u64, ns, 1));
}

/* Frame all ULPDUs (layout, CRC, commit; no copy): return nanoseconds. */
static u64 bench_frame(struct kunit *test, struct mpa_fpdu *f, bool markers,
		       bool crc, const u8 *src, u8 *wire, unsigned int *wlen)
{
	const unsigned int len = MPA_MULPDU_MAX;
	struct mpa_tx tx;
	struct iov_iter it;
	struct kvec kv;
	unsigned int i;
	u64 t0, ns = 0;

	test_tx_init(test, &tx, 0, markers, crc);
	*wlen = 0;
	for (i = 0; i < BENCH_ULPDUS; i++) {
		kv = (struct kvec){ (void *)(src + i * len), len };
		t0 = ktime_get_ns();
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
		if (mpa_fpdu_layout(&tx, f, len) || mpa_fpdu_set_crc(f, &it) ||
		    mpa_tx_commit(&tx, f))
			KUNIT_FAIL(test, "framing failed");
		ns += ktime_get_ns() - t0;
		*wlen += test_linearise(f, kv.iov_base, wire + *wlen);
	}
	return ns;
}

/* Deframe the stream from skbs of page frags, placing the ULPDUs. */
static u64 bench_deframe(struct kunit *test, bool markers, bool crc,
			 const u8 *wire, unsigned int wlen, u8 *dst)
{
	struct test_sink *s = test_sink(test, 1, BENCH_ULPDUS);
	struct sk_buff_head q;
	struct sk_buff *skb;
	struct mpa_rx *rx;
	unsigned int off;
	u64 t0, ns;

	__skb_queue_head_init(&q);
	for (off = 0; off < wlen; off += skb->len) {
		skb = test_skb(test, wire + off, min(wlen - off, BENCH_SKB), 0,
			       0);
		__skb_queue_tail(&q, skb);
	}
	s->buf = dst;
	s->cap = BENCH_ULPDUS * MPA_MULPDU_MAX;
	rx = test_rx(test, s, 0, markers, crc, MPA_MULPDU_MAX);
	t0 = ktime_get_ns();
	skb_queue_walk(&q, skb)
		if (mpa_rx_feed(rx, skb, 0, skb->len) != skb->len)
			break;
	ns = ktime_get_ns() - t0;
	__skb_queue_purge(&q);
	KUNIT_EXPECT_EQ(test, s->nr, BENCH_ULPDUS);
	KUNIT_EXPECT_EQ(test, mpa_rx_error(rx), MPA_ERR_NONE);
	return ns;
}

/*
 * Throughput of framing (with CRC: layout and CRC32c; the payload is not
 * copied) and of deframing (with CRC: parse, CRC32c, and the placement
 * copy the test's ULP does) on 64768-octet ULPDUs, beside memcpy().
 */
static void mpa_bench_throughput(struct kunit *test)
{
	const u64 bytes = (u64)BENCH_ULPDUS * MPA_MULPDU_MAX;
	struct mpa_fpdu *f = test_fpdu(test);
	unsigned int cfg, wlen;
	u8 *src, *dst, *wire;
	u64 t0, tf, td;

	src = test_vmalloc(test, bytes);
	dst = test_vmalloc(test, bytes);
	wire = test_vmalloc(test, bytes + bytes / 64);
	prandom_bytes_state(&(struct rnd_state){ 7, 7, 7, 7 }, src, bytes);
	t0 = ktime_get_ns();
	memcpy(dst, src, bytes);
	t0 = ktime_get_ns() - t0;
	kunit_info(test, "memcpy of %llu octets: %llu MB/s\n", bytes,
		   bench_mbps(bytes, t0));
	for (cfg = 0; cfg < 4; cfg++) {
		bool markers = cfg & 1, crc = cfg & 2;

		tf = bench_frame(test, f, markers, crc, src, wire, &wlen);
		memset(dst, 0, bytes);
		td = bench_deframe(test, markers, crc, wire, wlen, dst);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, bytes), 0);
		kunit_info(test, "markers %s crc %s: frame %llu MB/s, deframe+place %llu MB/s\n",
			   str_on_off(markers), str_on_off(crc),
			   bench_mbps(bytes, tf), bench_mbps(bytes, td));
		cond_resched();
	}
}

static struct kunit_case mpa_bench_cases[] = {
	KUNIT_CASE_SLOW(mpa_bench_throughput),
	{}
};

static struct kunit_suite mpa_bench_suite = {
	.name = "softiwarp_mpa_bench",
	.test_cases = mpa_bench_cases,
};

kunit_test_suites(&mpa_frame_suite, &mpa_deframe_suite, &mpa_socket_suite,
		  &mpa_bench_suite);
