// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA test vectors and helpers shared by the MPA KUnit suites
 *
 * The octets of RFC 5044 Figures 5 and 6, written by hand from the RFC;
 * the Marker placement table that softiwarp_mpa_frame checks on transmit
 * and softiwarp_mpa_deframe reads back; and the helpers the MPA suites
 * share: framing a ULPDU into wire octets, building skbs of linear and
 * page frag parts, and the receiving layer (struct swi_mpa_test_sink) the
 * parser passes its ULPDUs to.
 */
#include <linux/vmalloc.h>

#include "kunit/mpa_vectors.h"

/* RFC 5044 Figure 5: the first FPDU of the stream, after the first Marker. */
const u8 swi_mpa_fig5_wire[] = {
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
const u8 swi_mpa_fig6_wire[] = {
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

/**
 * swi_mpa_fig5_ulpdu() - the ULPDU of RFC 5044 Figure 5
 * @ulpdu: MPA_FIG_ULPDU_LEN octets to fill
 *
 * Context: any.
 * Return: nothing.
 */
void swi_mpa_fig5_ulpdu(u8 *ulpdu)
{
	memcpy(ulpdu, swi_mpa_fig5_wire + 6, MPA_FIG_ULPDU_LEN);
}

/**
 * swi_mpa_fig6_ulpdu() - the ULPDU of RFC 5044 Figure 6, without its Marker
 * @ulpdu: MPA_FIG_ULPDU_LEN octets to fill
 *
 * Context: any.
 * Return: nothing.
 */
void swi_mpa_fig6_ulpdu(u8 *ulpdu)
{
	memcpy(ulpdu, swi_mpa_fig6_wire + 2, 18);
	memcpy(ulpdu + 18, swi_mpa_fig6_wire + 24, 24);
}

/**
 * swi_mpa_fig6_first_ulpdu() - the ULPDU of the FPDU Figure 6 comes after
 * @ulpdu: MPA_FIG6_FIRST_LEN octets to fill
 *
 * The first FPDU Figure 6 assumes: a Send to queue 0, Last, MSN 1, whose
 * 492 octets end at MPA_FIG6_POS.
 *
 * Context: any.
 * Return: nothing.
 */
void swi_mpa_fig6_first_ulpdu(u8 *ulpdu)
{
	memset(ulpdu, 0, MPA_FIG6_FIRST_LEN);
	memcpy(ulpdu, swi_mpa_fig5_wire + 6, 18);
}

#define TF(o, l)	{ .off = (o), .len = (l), .type = MPA_PIECE_FRAMING }
#define TP(o, l)	{ .off = (o), .len = (l), .type = MPA_PIECE_PAYLOAD }

/* The header's size of the array makes a case more or less a build error. */
const struct mpa_layout_case swi_mpa_layout_cases[] = {
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

/**
 * swi_mpa_test_fpdu() - a zeroed struct mpa_fpdu, freed when the test ends
 * @test: the test case
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion when out of memory.
 * Return: the FPDU.
 */
struct mpa_fpdu *swi_mpa_test_fpdu(struct kunit *test)
{
	struct mpa_fpdu *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	return f;
}

static void mpa_test_vfree(void *p)
{
	vfree(p);
}

/**
 * swi_mpa_test_vmalloc() - vmalloc() memory the test frees
 * @test: the test case
 * @size: octets
 *
 * The memory is freed when the test ends, or earlier with
 * swi_mpa_test_vdone().
 *
 * Context: process context (a KUnit case), sleeps. Fails the test with
 * an assertion when out of memory.
 * Return: the memory.
 */
void *swi_mpa_test_vmalloc(struct kunit *test, unsigned long size)
{
	void *p = vmalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mpa_test_vfree,
							p), 0);
	return p;
}

/**
 * swi_mpa_test_vdone() - free memory of swi_mpa_test_vmalloc() now
 * @test: the test case
 * @p: what swi_mpa_test_vmalloc() gave
 *
 * Context: process context (a KUnit case).
 * Return: nothing.
 */
void swi_mpa_test_vdone(struct kunit *test, void *p)
{
	kunit_release_action(test, mpa_test_vfree, p);
}

/**
 * swi_mpa_test_tx_init() - swi_mpa_tx_init() that must succeed
 * @test: the test case
 * @tx: the transmit state
 * @pos: stream position of the next FPDU
 * @markers: Markers on
 * @crc: CRCs on
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion when swi_mpa_tx_init() refuses.
 * Return: nothing.
 */
void swi_mpa_test_tx_init(struct kunit *test, struct mpa_tx *tx, u32 pos,
			  bool markers, bool crc)
{
	struct mpa_fo_cfg cfg = { .pos = pos, .markers = markers, .crc = crc };

	KUNIT_ASSERT_EQ(test, swi_mpa_tx_init(tx, &cfg), 0);
}

/**
 * swi_mpa_test_linearise() - the wire octets of a laid out FPDU
 * @f: the FPDU
 * @ulpdu: its payload
 * @out: room for f->len octets
 *
 * Context: any.
 * Return: octets written to @out.
 */
unsigned int swi_mpa_test_linearise(const struct mpa_fpdu *f, const u8 *ulpdu,
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

/**
 * swi_mpa_test_frame() - frame one ULPDU, append its FPDU to @out, commit it
 * @test: the test case
 * @tx: the transmit state
 * @f: the FPDU to lay out
 * @ulpdu: the payload, passed as one kvec
 * @len: its length
 * @out: room for the FPDU
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion when a step fails.
 * Return: octets of the FPDU written to @out.
 */
unsigned int swi_mpa_test_frame(struct kunit *test, struct mpa_tx *tx,
				struct mpa_fpdu *f, const u8 *ulpdu,
				unsigned int len, u8 *out)
{
	struct kvec kv = { .iov_base = (void *)ulpdu, .iov_len = len };
	struct iov_iter it;
	unsigned int n;

	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(tx, f, len), 0);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	n = swi_mpa_test_linearise(f, ulpdu, out);
	KUNIT_ASSERT_EQ(test, n, f->len);
	KUNIT_ASSERT_EQ(test, swi_mpa_tx_commit(tx, f), 0);
	return n;
}

static int sink_begin(void *ctx, unsigned int ulpdu_len)
{
	struct swi_mpa_test_sink *s = ctx;

	s->late += s->err != MPA_ERR_NONE;
	s->begins++;
	s->cur = 0;
	s->want = ulpdu_len;
	return 0;
}

static int sink_data(void *ctx, struct sk_buff *skb, unsigned int off,
		     unsigned int len, unsigned int ulpdu_off)
{
	struct swi_mpa_test_sink *s = ctx;

	s->late += s->err != MPA_ERR_NONE;
	s->datas++;
	if (ulpdu_off != s->cur || len > s->want - s->cur ||
	    len > s->cap - s->used - s->cur ||
	    !s->rx || swi_mpa_rx_copy_ulpdu(s->rx, skb, &off,
					    s->buf + s->used + s->cur, len))
		s->misordered = true;
	else
		s->cur += len;
	return s->datas == s->stop_at ? -ECANCELED : 0;
}

static int sink_end(void *ctx, unsigned int ulpdu_len, enum mpa_error err)
{
	struct swi_mpa_test_sink *s = ctx;

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

/* The callbacks of a struct swi_mpa_test_sink, the context of the parser */
const struct mpa_rx_ops swi_mpa_test_sink_ops = {
	.begin = sink_begin,
	.data = sink_data,
	.end = sink_end,
};

/**
 * swi_mpa_test_sink() - a receiving layer, freed when the test ends
 * @test: the test case
 * @cap: octets of good ULPDUs it keeps
 * @max_lens: how many ULPDU lengths it keeps
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion when out of memory.
 * Return: the sink.
 */
struct swi_mpa_test_sink *swi_mpa_test_sink(struct kunit *test, unsigned int cap,
					    unsigned int max_lens)
{
	struct swi_mpa_test_sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->buf = kunit_kzalloc(test, cap, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->buf);
	s->lens = kunit_kcalloc(test, max_lens, sizeof(*s->lens), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->lens);
	s->cap = cap;
	s->max_lens = max_lens;
	return s;
}

/**
 * swi_mpa_test_sink_reset() - forget what was received, keep the buffers
 * @s: the sink
 *
 * Context: any.
 * Return: nothing.
 */
void swi_mpa_test_sink_reset(struct swi_mpa_test_sink *s)
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

/**
 * swi_mpa_test_rx() - a receive parser passing its ULPDUs to @s
 * @test: the test case; it frees the parser when it ends
 * @s: the sink
 * @pos: stream position of the first octet to come
 * @markers: Markers on
 * @crc: CRCs on
 * @max_ulpdu: the largest ULPDU_Length accepted
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion when out of memory or when swi_mpa_rx_init() refuses.
 * Return: the parser.
 */
struct mpa_rx *swi_mpa_test_rx(struct kunit *test, struct swi_mpa_test_sink *s,
			       u32 pos, bool markers, bool crc,
			       unsigned int max_ulpdu)
{
	struct mpa_fo_cfg cfg = { .pos = pos, .markers = markers, .crc = crc };
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_EQ(test, swi_mpa_rx_init(rx, &cfg, max_ulpdu,
					      &swi_mpa_test_sink_ops, s), 0);
	s->rx = rx;
	return rx;
}

/* Room left in page frags after the page offsets swi_mpa_test_skb() uses. */
#define TEST_FRAG_ROOM	(PAGE_SIZE - 128)

/**
 * swi_mpa_test_skb() - an skb of junk octets and then @data
 * @test: the test case
 * @data: the octets after the junk
 * @len: how many
 * @lead: junk octets first, in the linear part
 * @head: octets of @data in the linear part after the junk; the others
 *	sit in page frags at odd page offsets (more in the linear part when
 *	the frags cannot hold them)
 *
 * Context: process context (a KUnit case), sleeps. Fails the test with
 * an assertion when out of memory.
 * Return: the skb; the caller frees it with kfree_skb().
 */
struct sk_buff *swi_mpa_test_skb(struct kunit *test, const u8 *data,
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
