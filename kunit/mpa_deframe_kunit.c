// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mpa_deframe
 *
 * The receive parser of mpa/mpa_deframe.c on RFC 5044 Figures 5 and 6,
 * whole and split at every octet, on every Marker placement of the table
 * in kunit/mpa_vectors.c fed one octet at a time, a seeded random round
 * trip of more than 10,000 FPDUs in random pieces (down to single octets,
 * linear skbs, page frags and frag_lists), every single-bit flip of an
 * FPDU, wrong FPDUPTRs, refused lengths, a ULP that stops the parser, and
 * the sticky error of section 8; swi_mpa_rx_copy() over every place an skb
 * holds octets in (linear, page frags, a compound page, a frag_list).
 * The sink reads each span with swi_mpa_rx_copy_ulpdu(), so every case with
 * Markers also checks that they are skipped wherever a span starts, is
 * cut or ends.
 *
 * Verify-first mode (swi_mpa_rx_init_verified()), each piece given to the
 * checker (swi_mpa_rx_scan()), then what was not consumed yet fed again
 * (swi_mpa_rx_feed()), then swi_mpa_rx_verdict(): good FPDUs cut at every kind of
 * place (1-octet pieces, inside a header or a CRC, around an FPDU's end,
 * across the 2^32 stream position), with and without Markers, go up only
 * once the checker was given their last octet, then whole, delivery and
 * rx->verified at the end of the last one checked after every piece; a
 * payload or CRC octet flipped, a wrong FPDUPTR under a good CRC (leading
 * or inner Marker) and a ULPDU_Length above the limit, after two good
 * FPDUs and before more: the good ones go up whole, nothing of the bad
 * one, its error in one end call after them (also when it was checked
 * before any delivery), nothing afterwards; 200 seeded random streams in
 * random pieces; and without CRCs and Markers no checker, delivery as
 * read.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/sched.h>

#include "kunit/mpa_vectors.h"

/* Like swi_mpa_test_skb(), the octets from @split on in a frag_list skb. */
static struct sk_buff *test_skb_chain(struct kunit *test, const u8 *data,
				      unsigned int len, unsigned int lead,
				      unsigned int split)
{
	struct sk_buff *skb = swi_mpa_test_skb(test, data, split, lead, split / 2);
	struct sk_buff *next;

	next = swi_mpa_test_skb(test, data + split, len - split, 0, 0);
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
	struct sk_buff *skb = swi_mpa_test_skb(test, data, len, 3, len / 2);
	int ret = swi_mpa_rx_feed(rx, skb, 3, len);

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

static void mpa_deframe_figure5(struct kunit *test)
{
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 64, 4);
	struct mpa_rx *rx = swi_mpa_test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
	u8 ulpdu[MPA_FIG_ULPDU_LEN];

	swi_mpa_fig5_ulpdu(ulpdu);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, swi_mpa_fig5_wire,
					sizeof(swi_mpa_fig5_wire)),
			sizeof(swi_mpa_fig5_wire));
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_ASSERT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_EQ(test, s->lens[0], MPA_FIG_ULPDU_LEN);
	KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdu, MPA_FIG_ULPDU_LEN);
	KUNIT_EXPECT_FALSE(test, s->misordered);
}

static void mpa_deframe_figure6(struct kunit *test)
{
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 64, 4);
	struct mpa_rx *rx = swi_mpa_test_rx(test, s, MPA_FIG6_POS, true, true,
					    MPA_MULPDU_MAX);
	u8 ulpdu[MPA_FIG_ULPDU_LEN];

	swi_mpa_fig6_ulpdu(ulpdu);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, swi_mpa_fig6_wire,
					sizeof(swi_mpa_fig6_wire)),
			sizeof(swi_mpa_fig6_wire));
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_ASSERT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdu, MPA_FIG_ULPDU_LEN);
	/* One span: the Marker inside it is skipped when it is read */
	KUNIT_EXPECT_EQ(test, s->datas, 1);
	KUNIT_EXPECT_FALSE(test, s->misordered);
}

/* The first 492 octets of the stream, then Figure 6 as written in the RFC. */
static unsigned int fig6_stream(struct kunit *test, u8 *out, u8 *ulpdus)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_tx tx;
	unsigned int n;

	swi_mpa_test_tx_init(test, &tx, 0, true, true);
	swi_mpa_fig6_first_ulpdu(ulpdus);
	n = swi_mpa_test_frame(test, &tx, f, ulpdus, MPA_FIG6_FIRST_LEN, out);
	KUNIT_ASSERT_EQ(test, n, MPA_FIG6_POS);
	memcpy(out + n, swi_mpa_fig6_wire, sizeof(swi_mpa_fig6_wire));
	swi_mpa_fig6_ulpdu(ulpdus + MPA_FIG6_FIRST_LEN);
	return n + sizeof(swi_mpa_fig6_wire);
}

/* Two FPDUs from the start of Full Operation, cut in two at every octet. */
static void mpa_deframe_figure6_stream_split_anywhere(struct kunit *test)
{
	u8 *stream = kunit_kzalloc(test, 1024, GFP_KERNEL);
	u8 *ulpdus = kunit_kzalloc(test, 1024, GFP_KERNEL);
	const unsigned int total = MPA_FIG6_FIRST_LEN + MPA_FIG_ULPDU_LEN;
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 1024, 4);
	unsigned int len, cut;
	struct mpa_rx *rx;
	int got;

	KUNIT_ASSERT_NOT_NULL(test, stream);
	KUNIT_ASSERT_NOT_NULL(test, ulpdus);
	len = fig6_stream(test, stream, ulpdus);
	for (cut = 0; cut <= len; cut++) {
		swi_mpa_test_sink_reset(s);
		rx = swi_mpa_test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
		if (cut == len) {
			got = test_feed_bytewise(test, rx, stream, len);
		} else {
			got = test_feed(test, rx, stream, cut);
			got += test_feed(test, rx, stream + cut, len - cut);
		}
		KUNIT_EXPECT_EQ_MSG(test, got, len, "cut at %u", cut);
		KUNIT_EXPECT_EQ_MSG(test, s->nr, 2, "cut at %u", cut);
		KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
		KUNIT_EXPECT_FALSE(test, s->misordered);
		KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdus, total);
		kunit_kfree(test, rx);
		if (s->nr != 2)
			break;
	}
}

KUNIT_ARRAY_PARAM_DESC(layout, swi_mpa_layout_cases, desc);

/* Every layout of the placement table, CRC on, fed one octet at a time. */
static void mpa_deframe_reads_marker_layouts(struct kunit *test)
{
	const struct mpa_layout_case *c = test->param_value;
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 2048, 4);
	u8 *wire = kunit_kzalloc(test, 2048, GFP_KERNEL);
	u8 *ulpdu = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct mpa_rx *rx;
	struct mpa_tx tx;
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, wire);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	prandom_bytes_state(&(struct rnd_state){ 1, 9, 9, 7 }, ulpdu,
			    c->ulpdu_len);
	swi_mpa_test_tx_init(test, &tx, c->pos, c->markers, true);
	n = swi_mpa_test_frame(test, &tx, f, ulpdu, c->ulpdu_len, wire);
	n += swi_mpa_test_frame(test, &tx, f, ulpdu, c->ulpdu_len, wire + n);
	rx = swi_mpa_test_rx(test, s, c->pos, c->markers, true, MPA_MULPDU_MAX);
	KUNIT_EXPECT_EQ(test, test_feed_bytewise(test, rx, wire, n), n);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
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
			skb = swi_mpa_test_skb(test, data + done, n, lead, head);
		else
			skb = test_skb_chain(test, data + done, n, lead, head);
		c->skbs++;
		r1 = swi_mpa_rx_feed(rx, skb, lead, a);
		r2 = r1 == a ? swi_mpa_rx_feed(rx, skb, lead + a, n - a) : 0;
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

/*
 * A KASAN kernel checks every access: there the round trip runs an eighth
 * of each batch (still every configuration and every cutter), else it
 * takes minutes under TCG.
 */
#define RT_SCALE (IS_ENABLED(CONFIG_KASAN) ? 8 : 1)

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
	unsigned int mulpdu = swi_mpa_mulpdu(emss, r->markers), i;
	struct kunit *test = r->test;
	u32 pos = prandom_u32_state(r->rnd);

	r->total = 0;
	for (i = 0; i < r->count; i++) {
		r->lens[i] = 1 + prandom_u32_state(r->rnd) % mulpdu;
		r->total += r->lens[i];
	}
	r->src = swi_mpa_test_vmalloc(test, r->total);
	/* FPDU overhead: 9 octets, a leading Marker, a Marker per 508 */
	r->wire = swi_mpa_test_vmalloc(test, r->total + 16 * r->count +
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

	swi_mpa_test_tx_init(test, tx, r->pos, r->markers, r->crc);
	r->wire_len = 0;
	for (i = 0; i < r->count; off += len, i++) {
		len = r->lens[i];
		a = prandom_u32_state(r->rnd) % (len + 1);
		kv[0] = (struct kvec){ .iov_base = r->src + off, .iov_len = a };
		kv[1] = (struct kvec){ .iov_base = r->src, .iov_len = 0 };
		kv[2] = (struct kvec){ .iov_base = r->src + off + a,
				       .iov_len = len - a };
		iov_iter_kvec(&it, ITER_SOURCE, kv, 3, len);
		KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(tx, f, len), 0);
		KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
		r->wire_len += swi_mpa_test_linearise(f, r->src + off,
						      r->wire + r->wire_len);
		KUNIT_ASSERT_EQ(test, swi_mpa_tx_commit(tx, f), 0);
	}
	KUNIT_ASSERT_EQ(test, r->wire_len, tx->pos - r->pos);
}

static void rt_check(struct rt_run *r, struct mpa_tx *tx)
{
	struct kunit *test = r->test;
	struct swi_mpa_test_sink *s;
	struct mpa_rx *rx;
	unsigned int i;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->buf = swi_mpa_test_vmalloc(test, r->total);
	s->cap = r->total;
	s->lens = kunit_kcalloc(test, r->count, sizeof(*s->lens), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->lens);
	s->max_lens = r->count;
	rx = swi_mpa_test_rx(test, s, r->pos, r->markers, r->crc, MPA_MULPDU_MAX);

	KUNIT_EXPECT_EQ(test, test_feed_random(test, rx, r->wire, r->wire_len,
					       &r->cut), r->wire_len);
	r->octets += r->wire_len;
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
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
	swi_mpa_test_vdone(test, s->buf);
	kunit_kfree(test, s->lens);
	kunit_kfree(test, s);
	kunit_kfree(test, rx);
}

static void mpa_deframe_random_round_trip(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
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
			r.count = rt_batches[b].count / RT_SCALE;
			r.cut.tiny = rt_batches[b].tiny;
			rt_generate(&r, rt_batches[b].emss);
			rt_frame(&r, f, &tx);
			rt_check(&r, &tx);
			swi_mpa_test_vdone(test, r.src);
			swi_mpa_test_vdone(test, r.wire);
			fpdus += r.count;
			if (test->status == KUNIT_FAILURE) {
				kunit_info(test, "failed: markers %d crc %d batch %u pos %u\n",
					   r.markers, r.crc, b, r.pos);
				return;
			}
		}
	}
	KUNIT_EXPECT_GE(test, fpdus, 10000 / RT_SCALE);
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
	{ "Figure 5 (leading Marker)", swi_mpa_fig5_wire, sizeof(swi_mpa_fig5_wire),
	  0 },
	{ "Figure 6 (Marker in the payload)", swi_mpa_fig6_wire,
	  sizeof(swi_mpa_fig6_wire), MPA_FIG6_POS },
};

KUNIT_ARRAY_PARAM_DESC(flip, flip_cases, desc);

/* Good FPDUs to follow the flipped one: enough for any ULPDU_Length flip. */
static unsigned int flip_tail(struct kunit *test, u32 pos, u8 *out)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 *ulpdu = kunit_kzalloc(test, 4000, GFP_KERNEL);
	unsigned int i, n = 0;
	struct mpa_tx tx;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	prandom_bytes_state(&(struct rnd_state){ 3, 1, 4, 1 }, ulpdu, 4000);
	swi_mpa_test_tx_init(test, &tx, pos, true, true);
	for (i = 0; i < 10; i++)
		n += swi_mpa_test_frame(test, &tx, f, ulpdu, 4000, out + n);
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
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 48 * 1024, 16);
	unsigned int bit, len, used;
	struct mpa_rx *rx;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, stream);
	memcpy(stream, c->wire, c->len);
	len = c->len + flip_tail(test, c->pos + c->len, stream + c->len);
	rx = swi_mpa_test_rx(test, s, c->pos, true, true, MPA_MULPDU_MAX);
	KUNIT_ASSERT_EQ(test, test_feed(test, rx, stream, len), len);
	KUNIT_ASSERT_EQ(test, s->nr, 11);	/* the unflipped stream is good */

	for (bit = 0; bit < c->len * 8; bit++) {
		swi_mpa_test_sink_reset(s);
		stream[bit / 8] ^= BIT(bit % 8);
		kunit_kfree(test, rx);
		rx = swi_mpa_test_rx(test, s, c->pos, true, true, MPA_MULPDU_MAX);
		ret = test_feed(test, rx, stream, len);
		used = ret;
		stream[bit / 8] ^= BIT(bit % 8);
		KUNIT_EXPECT_EQ_MSG(test, swi_mpa_rx_error(rx), MPA_ERR_CRC,
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
	u32 pos = c->fig6 ? MPA_FIG6_POS : 0;
	struct mpa_marker m = { cpu_to_be16(c->reserved),
				cpu_to_be16(c->fpduptr) };
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 64, 4);
	u8 ulpdu[MPA_FIG_ULPDU_LEN], wire[64];
	struct kvec kv = { .iov_base = ulpdu, .iov_len = MPA_FIG_ULPDU_LEN };
	struct iov_iter it;
	struct mpa_rx *rx;
	struct mpa_tx tx;

	if (c->fig6)
		swi_mpa_fig6_ulpdu(ulpdu);
	else
		swi_mpa_fig5_ulpdu(ulpdu);
	swi_mpa_test_tx_init(test, &tx, pos, true, true);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, MPA_FIG_ULPDU_LEN), 0);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, MPA_FIG_ULPDU_LEN);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	memcpy(f->bytes + (c->fig6 ? 2 : 0), &m, sizeof(m));
	if (c->fix_crc)
		KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_test_linearise(f, ulpdu, wire), 48 + 4);

	rx = swi_mpa_test_rx(test, s, pos, true, c->crc_on, MPA_MULPDU_MAX);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, 52), 52);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), c->err);
	KUNIT_EXPECT_EQ(test, s->err, c->err);
	KUNIT_EXPECT_EQ(test, s->nr, c->err ? 0 : 1);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_stopped(rx), c->err != MPA_ERR_NONE);
}

/*
 * A wrong FPDUPTR in a Marker between two payload runs, which the data
 * step reads inside a span: in the skb's linear part (stream position 512)
 * and in a page frag (1024). Unchanged, the FPDU passes.
 */
static void mpa_deframe_checks_inner_fpduptr(struct kunit *test)
{
	static const u32 at[] = { 0, 512, 1024 };
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 *ulpdu = kunit_kzalloc(test, 1024, GFP_KERNEL);
	u8 *wire = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct swi_mpa_test_sink *s;
	struct mpa_marker m;
	struct mpa_rx *rx;
	struct mpa_tx tx;
	unsigned int i, n;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		swi_mpa_test_tx_init(test, &tx, 0, true, false);
		n = swi_mpa_test_frame(test, &tx, f, ulpdu, 1024, wire);
		KUNIT_ASSERT_EQ(test, n, 1044);
		/* the header is at 4, behind the leading Marker */
		memcpy(&m, wire + at[i], sizeof(m));
		KUNIT_ASSERT_EQ(test, be16_to_cpu(m.fpduptr),
				at[i] ? at[i] - 4 : 0);
		m.fpduptr = cpu_to_be16(at[i]);
		memcpy(wire + at[i], &m, sizeof(m));
		s = swi_mpa_test_sink(test, 2048, 4);
		rx = swi_mpa_test_rx(test, s, 0, true, false, MPA_MULPDU_MAX);
		KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), n);
		KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx),
				at[i] ? MPA_ERR_MARKER : MPA_ERR_NONE);
		KUNIT_EXPECT_EQ(test, s->nr, at[i] ? 0 : 1);
	}
}

/* ULPDU_Length above the limit: refused before any payload goes up. */
static void mpa_deframe_refuses_length_above_limit(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 4096, 4);
	u8 *ulpdu = kunit_kzalloc(test, 1100, GFP_KERNEL);
	u8 *wire = kunit_kzalloc(test, 4096, GFP_KERNEL);
	unsigned int n1, n;
	struct mpa_rx *rx;
	struct mpa_tx tx;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	swi_mpa_test_tx_init(test, &tx, 0, true, true);
	n1 = swi_mpa_test_frame(test, &tx, f, ulpdu, 1024, wire);
	n = n1 + swi_mpa_test_frame(test, &tx, f, ulpdu, 1025, wire + n1);
	KUNIT_ASSERT_EQ(test, n1, 1044);	/* 3 Markers, not at 1044 */
	rx = swi_mpa_test_rx(test, s, 0, true, true, 1024);
	/* the 1024-octet ULPDU passes, the header of the next one does not */
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), n1 + MPA_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_EQ(test, s->begins, 1);
	KUNIT_EXPECT_EQ(test, s->ends, 2);
	KUNIT_EXPECT_EQ(test, s->err, MPA_ERR_MARKER);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_MARKER);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), 0);
	KUNIT_EXPECT_EQ(test, s->late, 0);
}

static void mpa_deframe_refuses_length_65535(struct kunit *test)
{
	static const u8 wire[] = { 0xff, 0xff, 0x41, 0x43, 0, 0, 0, 0 };
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 64, 4);
	struct mpa_rx *rx = swi_mpa_test_rx(test, s, 4, false, false,
					    MPA_MULPDU_MAX);

	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, sizeof(wire)), 2);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_MARKER);
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
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 64, 4);
	struct mpa_rx *rx = swi_mpa_test_rx(test, s, 4, true, true, MPA_MULPDU_MAX);

	KUNIT_EXPECT_EQ(test, test_feed_bytewise(test, rx, wire, sizeof(wire)),
			sizeof(wire));
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_EQ(test, s->begins, 1);
	KUNIT_EXPECT_EQ(test, s->datas, 0);
}

/* A callback's non-zero return stops the parser right there, for good. */
static void mpa_deframe_callback_stops_parser(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 4096, 4);
	u8 ulpdu[100] = { 1, 2, 3 };
	u8 wire[512];
	struct mpa_rx *rx;
	struct mpa_tx tx;
	unsigned int n;

	swi_mpa_test_tx_init(test, &tx, 4, false, true);
	n = swi_mpa_test_frame(test, &tx, f, ulpdu, 100, wire);
	n += swi_mpa_test_frame(test, &tx, f, ulpdu, 100, wire + n);
	s->stop_at = 1;
	rx = swi_mpa_test_rx(test, s, 4, false, true, MPA_MULPDU_MAX);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, n), 2 + 100);
	KUNIT_EXPECT_TRUE(test, swi_mpa_rx_stopped(rx));
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_EQ(test, rx->ulp_err, -ECANCELED);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire + 102, n - 102), 0);
	KUNIT_EXPECT_EQ(test, s->datas, 1);
	KUNIT_EXPECT_EQ(test, s->ends, 0);
}

/* After a CRC error, later skbs with good FPDUs are not even consumed. */
static void mpa_deframe_error_is_sticky(struct kunit *test)
{
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 4096, 4);
	struct mpa_rx *rx = swi_mpa_test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
	u8 bad[sizeof(swi_mpa_fig5_wire)];

	memcpy(bad, swi_mpa_fig5_wire, sizeof(bad));
	bad[20] ^= 0x80;
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, bad, sizeof(bad)),
			sizeof(bad));
	KUNIT_EXPECT_EQ(test, s->err, MPA_ERR_CRC);
	KUNIT_EXPECT_EQ(test, s->datas, 1);	/* placed before the CRC */
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, swi_mpa_fig6_wire,
					sizeof(swi_mpa_fig6_wire)), 0);
	KUNIT_EXPECT_EQ(test, s->nr, 0);
	KUNIT_EXPECT_EQ(test, s->late, 0);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_CRC);
}

static void mpa_deframe_rejects_range_outside_skb(struct kunit *test)
{
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 64, 4);
	struct mpa_rx *rx = swi_mpa_test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);
	struct sk_buff *skb = swi_mpa_test_skb(test, swi_mpa_fig5_wire, 10, 0, 10);

	KUNIT_EXPECT_EQ(test, swi_mpa_rx_feed(rx, skb, 0, 11), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_feed(rx, skb, 11, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_feed(rx, skb, 4, UINT_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_feed(rx, skb, 10, 0), 0);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, rx->pos, 0);
}

/* One page frag of @n octets of @data at @po in @order pages. */
static void test_add_frag(struct kunit *test, struct sk_buff *skb,
			  const u8 *data, unsigned int po, unsigned int n,
			  unsigned int order)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_COMP, order);
	unsigned int i = skb_shinfo(skb)->nr_frags;

	if (!page)
		kfree_skb(skb);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memcpy(page_address(page) + po, data, n);
	skb_add_rx_frag(skb, i, page, po, n, PAGE_SIZE << order);
}

/*
 * @data in every place an skb can hold it: 100 octets linear, page frags
 * of 700, 1 and 300, a frag of a compound page that crosses two page
 * boundaries, and 1000 octets in a frag_list skb. Its length in *@len.
 */
static struct sk_buff *test_copy_skb(struct kunit *test, const u8 *data,
				     unsigned int *len)
{
	static const unsigned int small[] = { 700, 1, 300 };
	unsigned int at = 100, i, big = 2 * PAGE_SIZE + 100;
	struct sk_buff *skb = alloc_skb(at, GFP_KERNEL), *next;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, data, at);
	for (i = 0; i < ARRAY_SIZE(small); at += small[i++])
		test_add_frag(test, skb, data + at, 50, small[i], 0);
	test_add_frag(test, skb, data + at, PAGE_SIZE - 1000, big, 2);
	at += big;
	next = alloc_skb(1000, GFP_KERNEL);
	if (!next)
		kfree_skb(skb);
	KUNIT_ASSERT_NOT_NULL(test, next);
	skb_put_data(next, data + at, 1000);
	skb_shinfo(skb)->frag_list = next;
	skb->len += next->len;
	skb->data_len += next->len;
	skb->truesize += next->truesize;
	*len = at + 1000;
	return skb;
}

/*
 * swi_mpa_rx_copy() against the source octets: every range crossing a place
 * boundary (linear/frag, frag/frag, page/page in a compound frag,
 * frag/frag_list), then seeded random ranges, mostly moving forward as
 * the parser does and sometimes back (the cursor starts over), and the
 * ranges outside the skb.
 */
static void mpa_deframe_copy_matches_source(struct kunit *test)
{
	struct rnd_state rnd = { 5, 0, 4, 4 };
	unsigned int len, i, off, n, bounds[8], nb = 0;
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	u8 *data = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	u8 *dst = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	prandom_bytes_state(&rnd, data, 4 * PAGE_SIZE);
	skb = test_copy_skb(test, data, &len);
	bounds[nb++] = 100;
	bounds[nb++] = 800;
	bounds[nb++] = 801;
	bounds[nb++] = 1101;
	bounds[nb++] = 1101 + 1000;		/* first page boundary */
	bounds[nb++] = 1101 + 1000 + PAGE_SIZE;	/* second one */
	bounds[nb++] = len - 1000;
	for (i = 0; i < nb; i++) {
		for (off = bounds[i] - 5; off <= bounds[i]; off++) {
			for (n = 1; n <= 9 && off + n <= len; n++) {
				memset(dst, 0, n);
				KUNIT_ASSERT_EQ(test, swi_mpa_rx_copy(rx, skb, off,
								      dst, n), 0);
				KUNIT_ASSERT_MEMEQ(test, dst, data + off, n);
			}
		}
	}
	for (i = 0, off = 0; i < 20000; i++) {
		if (prandom_u32_state(&rnd) % 8 == 0 || off >= len)
			off = prandom_u32_state(&rnd) % len;
		n = 1 + prandom_u32_state(&rnd) % min(len - off, 1200U);
		KUNIT_ASSERT_EQ(test, swi_mpa_rx_copy(rx, skb, off, dst, n), 0);
		KUNIT_ASSERT_MEMEQ(test, dst, data + off, n);
		off += n + prandom_u32_state(&rnd) % 5;
	}
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_copy(rx, skb, 0, dst, len), 0);
	KUNIT_EXPECT_MEMEQ(test, dst, data, len);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_copy(rx, skb, len, dst, 0), 0);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_copy(rx, skb, len - 3, dst, 4), -EFAULT);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_copy(rx, skb, len + 1, dst, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_copy(rx, skb, 5, dst, UINT_MAX), -EFAULT);
	kfree_skb(skb);
}

static void mpa_deframe_init_checks_arguments(struct kunit *test)
{
	const struct mpa_rx_ops no_end = { .data = swi_mpa_test_sink_ops.data };
	struct mpa_fo_cfg cfg = { .pos = 513, .markers = true };
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_init(rx, &cfg, 100, &swi_mpa_test_sink_ops,
					      NULL), -EINVAL);
	cfg.pos = 516;
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_init(rx, &cfg, 100, &no_end, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_init(rx, &cfg, 100, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_init(rx, &cfg, 1 << 20,
					      &swi_mpa_test_sink_ops, NULL), 0);
	KUNIT_EXPECT_EQ(test, rx->max_ulpdu, U16_MAX);
}

/*
 * Verify-first mode (swi_mpa_rx_init_verified()): the checker is handed each
 * piece of the stream (swi_mpa_rx_scan()), then the delivering parser is fed
 * everything it did not consume yet (swi_mpa_rx_feed()), then asked for its
 * verdict (swi_mpa_rx_verdict()).
 */

#define VF_MAX_FPDUS	8
#define VF_CAP		(32 * 1024)	/* wire and ULPDU octets of a stream */
#define VF_LEAD		5		/* junk octets before the stream */
#define VF_MAX_ULPDU	1024		/* the limit of VF_BAD_LENGTH */

/* How vf_add() spoils an FPDU */
enum vf_bad {
	VF_GOOD,
	VF_BAD_PAYLOAD,		/* a ULPDU octet flipped */
	VF_BAD_CRC,		/* a CRC octet flipped */
	VF_BAD_LEAD_FPDUPTR,	/* its leading Marker's FPDUPTR 4 too far */
	VF_BAD_INNER_FPDUPTR,	/* a Marker inside it likewise */
	VF_BAD_LENGTH,		/* ULPDU_Length VF_MAX_ULPDU + 1 */
};

/*
 * FPDUs framed for the verify-first cases: the wire octets, the ULPDUs
 * back to back, and where each FPDU ends (from the stream's first octet).
 */
struct vf_stream {
	struct rnd_state *rnd;
	u32 pos;
	u8 *wire;
	unsigned int len;
	u8 *ulpdus;
	unsigned int total;
	unsigned int nr;
	unsigned int lens[VF_MAX_FPDUS];
	unsigned int end[VF_MAX_FPDUS];
};

static struct vf_stream *vf_stream(struct kunit *test, struct rnd_state *rnd)
{
	struct vf_stream *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	st->wire = kunit_kzalloc(test, VF_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st->wire);
	st->ulpdus = kunit_kzalloc(test, VF_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st->ulpdus);
	st->rnd = rnd;
	return st;
}

static void vf_stream_reset(struct vf_stream *st, u32 pos)
{
	st->pos = pos;
	st->len = 0;
	st->total = 0;
	st->nr = 0;
}

/* Offset in @f's wire octets of octet @off of its ULPDU or framing */
static unsigned int vf_wire_off(const struct mpa_fpdu *f, u16 type,
				unsigned int off)
{
	unsigned int i, w = 0;

	for (i = 0; i < f->nr_pieces; w += f->piece[i++].len) {
		const struct mpa_piece *p = &f->piece[i];

		if (p->type == type && off >= p->off && off - p->off < p->len)
			return w + off - p->off;
	}
	return f->len;
}

/*
 * Offset in @f->bytes of the FPDUPTR of the first Marker at FPDU octet
 * @from or later; f->nr_bytes when there is none.
 */
static unsigned int vf_fpduptr(const struct mpa_fpdu *f, unsigned int from)
{
	unsigned int i, k, w = 0;

	for (i = 0; i < f->nr_pieces; w += f->piece[i++].len) {
		const struct mpa_piece *p = &f->piece[i];

		if (p->type != MPA_PIECE_FRAMING)
			continue;
		for (k = 0; k < p->len; k++)
			if (w + k >= from &&
			    !((f->start + w + k) % MPA_MARKER_INTERVAL))
				return p->off + k + 2;
	}
	return f->nr_bytes;
}

/* Frame a ULPDU of @len random octets at the end of @st, spoilt by @bad */
static void vf_add(struct kunit *test, struct vf_stream *st,
		   struct mpa_tx *tx, struct mpa_fpdu *f, unsigned int len,
		   enum vf_bad bad)
{
	u8 *ulpdu = st->ulpdus + st->total, *wire = st->wire + st->len;
	struct kvec kv = { .iov_base = ulpdu, .iov_len = len };
	struct iov_iter it;
	unsigned int at;

	KUNIT_ASSERT_LT(test, st->nr, VF_MAX_FPDUS);
	KUNIT_ASSERT_LE(test, st->total + len, VF_CAP);
	prandom_bytes_state(st->rnd, ulpdu, len);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(tx, f, len), 0);
	KUNIT_ASSERT_LE(test, st->len + f->len, VF_CAP);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	if (bad == VF_BAD_LEAD_FPDUPTR || bad == VF_BAD_INNER_FPDUPTR) {
		/* from octet 1 on: past a leading Marker */
		at = vf_fpduptr(f, bad == VF_BAD_INNER_FPDUPTR ? 1 : 0);
		KUNIT_ASSERT_LT(test, at, f->nr_bytes);
		if (bad == VF_BAD_LEAD_FPDUPTR)
			KUNIT_ASSERT_EQ(test, at, 2);
		f->bytes[at + 1] ^= 0x04;
		KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	}
	KUNIT_ASSERT_EQ(test, swi_mpa_test_linearise(f, ulpdu, wire), f->len);
	if (bad == VF_BAD_PAYLOAD || bad == VF_BAD_CRC) {
		at = bad == VF_BAD_CRC ?
		     vf_wire_off(f, MPA_PIECE_FRAMING, f->crc_pos[2]) :
		     vf_wire_off(f, MPA_PIECE_PAYLOAD, len / 2);
		KUNIT_ASSERT_LT(test, at, f->len);
		wire[at] ^= 0x10;
	}
	KUNIT_ASSERT_EQ(test, swi_mpa_tx_commit(tx, f), 0);
	st->lens[st->nr] = len;
	st->total += len;
	st->len += f->len;
	st->end[st->nr++] = st->len;
}

/*
 * The layer above: a struct swi_mpa_test_sink behind a watch that counts
 * every begin, data or good end call for an FPDU whose last octet the
 * checker was not given yet, and when the first error came.
 */
struct vf_watch {
	struct swi_mpa_test_sink *s;
	const struct vf_stream *st;
	unsigned int scanned;	/* stream octets given to swi_mpa_rx_scan() */
	unsigned int early;	/* calls before their FPDU was scanned */
	unsigned int errs;	/* end calls with an error */
	unsigned int good_before; /* good ULPDUs that ended before the first */
};

/* The FPDU going up is the one after the good ULPDUs ended so far */
static void vf_watch_fpdu(struct vf_watch *w)
{
	unsigned int k = w->s->nr;

	if (k >= w->st->nr || w->st->end[k] > w->scanned)
		w->early++;
}

static int vf_begin(void *ctx, unsigned int ulpdu_len)
{
	struct vf_watch *w = ctx;

	vf_watch_fpdu(w);
	return swi_mpa_test_sink_ops.begin(w->s, ulpdu_len);
}

static int vf_data(void *ctx, struct sk_buff *skb, unsigned int off,
		   unsigned int len, unsigned int ulpdu_off)
{
	struct vf_watch *w = ctx;

	vf_watch_fpdu(w);
	return swi_mpa_test_sink_ops.data(w->s, skb, off, len, ulpdu_off);
}

static int vf_end(void *ctx, unsigned int ulpdu_len, enum mpa_error err)
{
	struct vf_watch *w = ctx;

	if (!err)
		vf_watch_fpdu(w);
	else if (!w->errs++)
		w->good_before = w->s->nr;
	return swi_mpa_test_sink_ops.end(w->s, ulpdu_len, err);
}

static const struct mpa_rx_ops vf_ops = {
	.begin = vf_begin,
	.data = vf_data,
	.end = vf_end,
};

/* One pass of a stream through a verify-first parser */
struct vf_run {
	struct kunit *test;
	const struct vf_stream *st;
	struct mpa_rx *rx;
	struct mpa_rx *scan;
	struct vf_watch *w;
	struct sk_buff *whole;	/* the stream after VF_LEAD octets, or NULL */
	unsigned int fed;	/* stream octets swi_mpa_rx_feed() consumed */
	unsigned int bad;	/* index of the bad FPDU, st->nr when none */
	unsigned int short_scans; /* swi_mpa_rx_scan() calls that checked less */
	unsigned int stale;	/* steps that left @fed or rx->verified
				 * elsewhere than at the last good FPDU
				 * wholly scanned
				 */
};

static struct vf_run *vf_start(struct kunit *test, const struct vf_stream *st,
			       bool markers, bool crc, unsigned int max_ulpdu)
{
	struct mpa_fo_cfg cfg = { .pos = st->pos, .markers = markers,
				  .crc = crc };
	struct vf_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rx = kunit_kzalloc(test, sizeof(*r->rx), GFP_KERNEL);
	r->scan = kunit_kzalloc(test, sizeof(*r->scan), GFP_KERNEL);
	r->w = kunit_kzalloc(test, sizeof(*r->w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->rx);
	KUNIT_ASSERT_NOT_NULL(test, r->scan);
	KUNIT_ASSERT_NOT_NULL(test, r->w);
	r->w->s = swi_mpa_test_sink(test, st->total + 1, VF_MAX_FPDUS);
	r->w->st = st;
	r->test = test;
	r->st = st;
	r->bad = st->nr;
	KUNIT_ASSERT_EQ(test, swi_mpa_rx_init_verified(r->rx, r->scan, &cfg,
						       max_ulpdu, &vf_ops, r->w),
			0);
	KUNIT_ASSERT_PTR_EQ(test, r->rx->scan, r->scan);
	r->w->s->rx = r->rx;
	return r;
}

static void vf_free(struct vf_run *r)
{
	struct kunit *test = r->test;

	kunit_kfree(test, r->w->s->lens);
	kunit_kfree(test, r->w->s->buf);
	kunit_kfree(test, r->w->s);
	kunit_kfree(test, r->w);
	kunit_kfree(test, r->scan);
	kunit_kfree(test, r->rx);
	kunit_kfree(test, r);
}

/*
 * Stream octets [@at, @at + @n) to the checker or to the delivering
 * parser: from the whole stream's skb, or from an skb of their own (some
 * linear, some in page frags) freed right after.
 */
static int vf_call(struct vf_run *r, bool scan, unsigned int at,
		   unsigned int n)
{
	struct sk_buff *skb = r->whole;
	unsigned int off = VF_LEAD + at;
	int ret;

	if (!skb) {
		skb = swi_mpa_test_skb(r->test, r->st->wire + at, n, VF_LEAD,
				       n / 2);
		off = VF_LEAD;
	}
	ret = scan ? swi_mpa_rx_scan(r->rx, skb, off, n) :
		     swi_mpa_rx_feed(r->rx, skb, off, n);
	if (!r->whole)
		kfree_skb(skb);
	return ret;
}

/* Where delivery must be: the end of the last good FPDU wholly scanned */
static unsigned int vf_verified_end(const struct vf_run *r)
{
	unsigned int k, end = 0;

	for (k = 0; k < r->bad && r->st->end[k] <= r->w->scanned; k++)
		end = r->st->end[k];
	return end;
}

/* Feed the delivering parser up to @n octets it has not consumed yet */
static void vf_feed(struct vf_run *r, unsigned int n)
{
	int ret;

	if (!n)
		return;
	ret = vf_call(r, false, r->fed, n);
	if (ret > 0)
		r->fed += ret;
	KUNIT_EXPECT_GE(r->test, ret, 0);
}

/* The checker gets the next @n octets; then delivery and the verdict */
static void vf_step(struct vf_run *r, unsigned int n)
{
	struct vf_watch *w = r->w;

	if (vf_call(r, true, w->scanned, n) != (int)n)
		r->short_scans++;
	w->scanned += n;
	vf_feed(r, w->scanned - r->fed);
	swi_mpa_rx_verdict(r->rx);
	if (r->fed != vf_verified_end(r) ||
	    r->rx->verified - r->st->pos != vf_verified_end(r))
		r->stale++;
}

/* Every ULPDU of a good stream went up, whole, in order, and in time */
static void vf_expect_all(struct vf_run *r, const char *what)
{
	const struct vf_stream *st = r->st;
	struct swi_mpa_test_sink *s = r->w->s;
	struct kunit *test = r->test;
	unsigned int i;

	KUNIT_EXPECT_EQ_MSG(test, r->w->early, 0, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, r->stale, 0, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, r->short_scans, 0, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, r->fed, st->len, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, swi_mpa_rx_error(r->rx), MPA_ERR_NONE, "%s",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, s->err, MPA_ERR_NONE, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, r->w->errs, 0, "%s", what);
	KUNIT_EXPECT_FALSE_MSG(test, s->misordered, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, s->begins, st->nr, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, s->ends, st->nr, "%s", what);
	KUNIT_ASSERT_EQ_MSG(test, s->nr, st->nr, "%s", what);
	for (i = 0; i < st->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->lens[i], st->lens[i],
				    "%s, ULPDU %u", what, i);
	KUNIT_EXPECT_EQ_MSG(test, s->used, st->total, "%s", what);
	KUNIT_EXPECT_MEMEQ_MSG(test, s->buf, st->ulpdus, st->total, "%s",
			       what);
}

struct vf_split_case {
	const char *desc;
	bool markers;
	bool crc;
	u32 pos;
	bool from_end;		/* @first counts from the first FPDU's end */
	int first;		/* octets of the first piece; 0: none */
	unsigned int step;	/* octets of every later one; 0: the rest */
};

static const struct vf_split_case vf_split_cases[] = {
	{ "1-octet pieces, no Markers", false, true, 4, false, 1, 1 },
	{ "1-octet pieces, Markers in payloads",
	  true, true, 480, false, 1, 1 },
	{ "1-octet pieces, Markers, CRCs off", true, false, 480, false, 1,
	  1 },
	{ "7-octet pieces, Markers", true, true, 480, false, 7, 7 },
	{ "512-octet pieces from a Marker, Markers", true, true, 0, false,
	  512, 512 },
	{ "cut inside the first header", true, true, 480, false, 1, 0 },
	{ "cut inside the first CRC, no Markers", false, true, 4, true, -2,
	  0 },
	{ "cut one octet before the first FPDU's end", true, true, 480, true,
	  -1, 0 },
	{ "cut at the first FPDU's end", true, true, 480, true, 0, 0 },
	{ "cut one octet after the first FPDU's end", true, true, 480, true,
	  1, 0 },
	{ "the whole stream at once, Markers", true, true, 480, false, 0,
	  0 },
	{ "5-octet pieces across the 2^32 stream position", true, true,
	  0xfffffe10, false, 5, 5 },
};

KUNIT_ARRAY_PARAM_DESC(vf_split, vf_split_cases, desc);

/*
 * Good FPDUs in pieces: nothing of an FPDU goes up before the checker was
 * given its last octet; then all of it does, and it ends without error.
 */
static void mpa_deframe_verified_delivers_only_checked(struct kunit *test)
{
	static const unsigned int lens[] = { 100, 1000, 13, 1, 600 };
	const struct vf_split_case *c = test->param_value;
	struct rnd_state rnd = { 8, 0, 4, 1 };
	struct vf_stream *st = vf_stream(test, &rnd);
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	unsigned int i, n, left;
	struct vf_run *r;
	struct mpa_tx tx;

	vf_stream_reset(st, c->pos);
	swi_mpa_test_tx_init(test, &tx, c->pos, c->markers, c->crc);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		vf_add(test, st, &tx, f, lens[i], VF_GOOD);
	r = vf_start(test, st, c->markers, c->crc, MPA_MULPDU_MAX);
	n = c->from_end ? st->end[0] + c->first : c->first;
	while ((left = st->len - r->w->scanned)) {
		vf_step(r, min(n ?: left, left));
		n = c->step;
	}
	vf_expect_all(r, c->desc);
	KUNIT_EXPECT_EQ(test, r->rx->pos, tx.pos);
}

struct vf_bad_case {
	const char *desc;
	u8 bad;			/* enum vf_bad */
	bool markers;
	bool crc;
	unsigned int step;	/* piece octets; 0: the whole stream */
	bool scan_first;	/* checked whole before any delivery */
	enum mpa_error err;
};

/*
 * Two good FPDUs, the bad one, two more good ones, in pieces. The good
 * ones go up whole, nothing of the bad one does: the end callback reports
 * it, once, after the good ones; then nothing goes up any more.
 */
static void vf_expect_bad_stops(struct kunit *test,
				const struct vf_bad_case *c)
{
	struct rnd_state rnd = { 6, 5, 8, 1 };
	struct vf_stream *st = vf_stream(test, &rnd);
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	unsigned int i, len = 700, good, left;
	bool found = c->bad != VF_BAD_LEAD_FPDUPTR;
	struct swi_mpa_test_sink *s;
	struct vf_run *r;
	struct mpa_tx tx;

	vf_stream_reset(st, c->markers ? 0 : 4);
	swi_mpa_test_tx_init(test, &tx, st->pos, c->markers, c->crc);
	vf_add(test, st, &tx, f, 100, VF_GOOD);
	/* the bad FPDU starts at a Marker when its leading one is spoilt */
	for (i = 1; !found && i <= VF_MAX_ULPDU; i++) {
		KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, i), 0);
		len = i;
		found = !((tx.pos + f->len) % MPA_MARKER_INTERVAL);
	}
	KUNIT_ASSERT_TRUE(test, found);
	vf_add(test, st, &tx, f, len, VF_GOOD);
	vf_add(test, st, &tx, f, c->bad == VF_BAD_LENGTH ?
	       VF_MAX_ULPDU + 1 : 1000, c->bad);
	vf_add(test, st, &tx, f, 200, VF_GOOD);
	vf_add(test, st, &tx, f, 300, VF_GOOD);

	r = vf_start(test, st, c->markers, c->crc, VF_MAX_ULPDU);
	r->bad = 2;
	s = r->w->s;
	if (c->scan_first) {
		/* all checked; delivery an octet at a time */
		r->whole = swi_mpa_test_skb(test, st->wire, st->len, VF_LEAD, 64);
		r->w->scanned = st->len;
		KUNIT_EXPECT_LT(test, swi_mpa_rx_scan(r->rx, r->whole, VF_LEAD,
						      st->len), st->len);
		swi_mpa_rx_verdict(r->rx);
		KUNIT_EXPECT_EQ(test, s->ends, 0);
		do {
			good = r->fed;
			vf_feed(r, 1);
			swi_mpa_rx_verdict(r->rx);
		} while (r->fed != good);
	} else {
		while ((left = st->len - r->w->scanned))
			vf_step(r, min(c->step ?: left, left));
		KUNIT_EXPECT_GT(test, r->short_scans, 0);
		KUNIT_EXPECT_EQ(test, r->stale, 0);
	}

	good = st->lens[0] + st->lens[1];
	KUNIT_EXPECT_EQ(test, r->w->early, 0);
	KUNIT_EXPECT_EQ(test, r->fed, st->end[1]);
	KUNIT_EXPECT_EQ(test, s->nr, 2);
	KUNIT_EXPECT_EQ(test, s->begins, 2);
	KUNIT_EXPECT_EQ(test, s->used, good);
	KUNIT_EXPECT_EQ(test, s->cur, 0);
	KUNIT_EXPECT_MEMEQ(test, s->buf, st->ulpdus, good);
	KUNIT_EXPECT_FALSE(test, s->misordered);
	KUNIT_EXPECT_EQ(test, r->w->errs, 1);
	KUNIT_EXPECT_EQ(test, r->w->good_before, 2);
	KUNIT_EXPECT_EQ(test, s->ends, 3);
	KUNIT_EXPECT_EQ(test, s->err, c->err);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(r->rx), c->err);
	KUNIT_EXPECT_TRUE(test, swi_mpa_rx_stopped(r->rx));

	/* nothing afterwards, though good FPDUs follow */
	vf_feed(r, st->len - r->fed);
	swi_mpa_rx_verdict(r->rx);
	KUNIT_EXPECT_EQ(test, r->fed, st->end[1]);
	KUNIT_EXPECT_EQ(test, r->w->errs, 1);
	KUNIT_EXPECT_EQ(test, s->late, 0);
	KUNIT_EXPECT_EQ(test, s->nr, 2);
	if (r->whole)
		kfree_skb(r->whole);
}

static const struct vf_bad_case vf_crc_cases[] = {
	{ "payload octet flipped, whole stream, no Markers", VF_BAD_PAYLOAD,
	  false, true, 0, false, MPA_ERR_CRC },
	{ "payload octet flipped, 1-octet pieces, Markers", VF_BAD_PAYLOAD,
	  true, true, 1, false, MPA_ERR_CRC },
	{ "payload octet flipped, 100-octet pieces, Markers",
	  VF_BAD_PAYLOAD, true, true, 100, false, MPA_ERR_CRC },
	{ "payload octet flipped, checked first, delivered octet by octet",
	  VF_BAD_PAYLOAD, true, true, 0, true, MPA_ERR_CRC },
	{ "CRC octet flipped, whole stream, no Markers", VF_BAD_CRC, false,
	  true, 0, false, MPA_ERR_CRC },
	{ "CRC octet flipped, 1-octet pieces, Markers", VF_BAD_CRC, true,
	  true, 1, false, MPA_ERR_CRC },
	{ "CRC octet flipped, checked first, delivered octet by octet",
	  VF_BAD_CRC, false, true, 0, true, MPA_ERR_CRC },
};

KUNIT_ARRAY_PARAM_DESC(vf_crc, vf_crc_cases, desc);

static void mpa_deframe_verified_bad_crc(struct kunit *test)
{
	vf_expect_bad_stops(test, test->param_value);
}

static const struct vf_bad_case vf_marker_cases[] = {
	{ "leading Marker's FPDUPTR wrong, CRC good, whole stream",
	  VF_BAD_LEAD_FPDUPTR, true, true, 0, false, MPA_ERR_MARKER },
	{ "leading Marker's FPDUPTR wrong, CRC good, 1-octet pieces",
	  VF_BAD_LEAD_FPDUPTR, true, true, 1, false, MPA_ERR_MARKER },
	{ "inner Marker's FPDUPTR wrong, CRC good, whole stream",
	  VF_BAD_INNER_FPDUPTR, true, true, 0, false, MPA_ERR_MARKER },
	{ "inner Marker's FPDUPTR wrong, CRC good, 3-octet pieces",
	  VF_BAD_INNER_FPDUPTR, true, true, 3, false, MPA_ERR_MARKER },
	{ "inner Marker's FPDUPTR wrong, checked first",
	  VF_BAD_INNER_FPDUPTR, true, true, 0, true, MPA_ERR_MARKER },
	{ "inner Marker's FPDUPTR wrong, CRCs off, 1-octet pieces",
	  VF_BAD_INNER_FPDUPTR, true, false, 1, false, MPA_ERR_MARKER },
	{ "ULPDU_Length above the limit, 1-octet pieces", VF_BAD_LENGTH,
	  true, true, 1, false, MPA_ERR_MARKER },
	{ "ULPDU_Length above the limit, checked first", VF_BAD_LENGTH,
	  false, true, 0, true, MPA_ERR_MARKER },
	{ "ULPDU_Length above the limit, whole stream, no Markers",
	  VF_BAD_LENGTH, false, true, 0, false, MPA_ERR_MARKER },
};

KUNIT_ARRAY_PARAM_DESC(vf_marker, vf_marker_cases, desc);

static void mpa_deframe_verified_bad_marker(struct kunit *test)
{
	vf_expect_bad_stops(test, test->param_value);
}

#define VF_RUNS	200

/* A random piece: often tiny, sometimes several FPDUs unless @tiny */
static unsigned int vf_cut(struct rnd_state *rnd, unsigned int left,
			   bool tiny)
{
	static const unsigned int max[] = { 1, 4, 64, 600, 8000 };
	unsigned int k = prandom_u32_state(rnd) % (tiny ? 3 : 5);

	return min(left, 1 + prandom_u32_state(rnd) % max[k]);
}

/*
 * Seeded random streams, CRCs on, Markers in every other run: random
 * ULPDU lengths, start positions, skb layouts and pieces (in every fourth
 * run none over 64 octets). Every ULPDU goes up whole and in order, and
 * none before the checker was given the last octet of its FPDU.
 */
static void mpa_deframe_verified_random_round_trip(struct kunit *test)
{
	static const unsigned int max_len[] = { 16, 512, 1460, 4000 };
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct rnd_state rnd;
	struct vf_stream *st = vf_stream(test, &rnd);
	unsigned int run, i, nr, fpdus = 0, steps = 0;
	char what[48];
	bool markers;
	struct vf_run *r;
	struct mpa_tx tx;
	u32 pos;

	prandom_seed_state(&rnd, 0x5044f1f5ULL);
	for (run = 0; run < VF_RUNS; run++) {
		markers = run & 1;
		pos = prandom_u32_state(&rnd);
		if (prandom_u32_state(&rnd) % 4)
			pos &= ~3U;
		if (markers && mpa_pos_in_marker(pos))
			pos -= pos % MPA_MARKER_INTERVAL;
		vf_stream_reset(st, pos);
		swi_mpa_test_tx_init(test, &tx, pos, markers, true);
		nr = 1 + prandom_u32_state(&rnd) % 6;
		for (i = 0; i < nr; i++)
			vf_add(test, st, &tx, f, 1 + prandom_u32_state(&rnd) %
			       max_len[prandom_u32_state(&rnd) % 4], VF_GOOD);
		r = vf_start(test, st, markers, true, MPA_MULPDU_MAX);
		r->whole = swi_mpa_test_skb(test, st->wire, st->len, VF_LEAD,
					    prandom_u32_state(&rnd) % st->len);
		while (r->w->scanned < st->len) {
			vf_step(r, vf_cut(&rnd, st->len - r->w->scanned,
					  run % 4 == 3));
			steps++;
		}
		kfree_skb(r->whole);
		snprintf(what, sizeof(what), "run %u, Markers %d, pos %u", run,
			 markers, pos);
		vf_expect_all(r, what);
		fpdus += nr;
		vf_free(r);
		if (test->status == KUNIT_FAILURE)
			return;
		cond_resched();
	}
	kunit_info(test, "%u FPDUs in %u pieces\n", fpdus, steps);
}

/*
 * Neither CRCs nor Markers: nothing to check, no checker; the parser
 * delivers as it reads. With CRCs on, the same octets wait for it.
 */
static void mpa_deframe_verified_off_delivers_as_read(struct kunit *test)
{
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 256, 4);
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);
	struct mpa_rx *scan = kunit_kzalloc(test, sizeof(*scan), GFP_KERNEL);
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_fo_cfg cfg = { .pos = 4 };
	u8 ulpdu[100], wire[128];
	struct sk_buff *skb;
	struct mpa_tx tx;
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_NOT_NULL(test, scan);
	prandom_bytes_state(&(struct rnd_state){ 2, 7, 1, 8 }, ulpdu,
			    sizeof(ulpdu));
	swi_mpa_test_tx_init(test, &tx, 4, false, false);
	n = swi_mpa_test_frame(test, &tx, f, ulpdu, sizeof(ulpdu), wire);
	KUNIT_ASSERT_EQ(test, swi_mpa_rx_init_verified(rx, scan, &cfg,
						       MPA_MULPDU_MAX,
						       &swi_mpa_test_sink_ops, s), 0);
	s->rx = rx;
	KUNIT_EXPECT_NULL(test, rx->scan);
	skb = swi_mpa_test_skb(test, wire, n, 0, n);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_scan(rx, skb, 0, n), n);
	kfree_skb(skb);
	/* the header and half the ULPDU go up at once */
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, 52), 52);
	KUNIT_EXPECT_EQ(test, s->begins, 1);
	KUNIT_EXPECT_EQ(test, s->cur, 50);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire + 52, n - 52), n - 52);
	swi_mpa_rx_verdict(rx);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_EQ(test, s->ends, 1);
	KUNIT_ASSERT_EQ(test, s->nr, 1);
	KUNIT_EXPECT_MEMEQ(test, s->buf, ulpdu, sizeof(ulpdu));

	/* CRCs on: a checker, and unchecked octets stay where they are */
	swi_mpa_test_sink_reset(s);
	cfg.crc = true;
	KUNIT_ASSERT_EQ(test, swi_mpa_rx_init_verified(rx, scan, &cfg,
						       MPA_MULPDU_MAX,
						       &swi_mpa_test_sink_ops, s), 0);
	KUNIT_EXPECT_PTR_EQ(test, rx->scan, scan);
	KUNIT_EXPECT_EQ(test, test_feed(test, rx, wire, 52), 0);
	KUNIT_EXPECT_EQ(test, s->begins, 0);
	KUNIT_EXPECT_EQ(test, s->datas, 0);
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
	KUNIT_CASE(mpa_deframe_checks_inner_fpduptr),
	KUNIT_CASE(mpa_deframe_refuses_length_above_limit),
	KUNIT_CASE(mpa_deframe_refuses_length_65535),
	KUNIT_CASE(mpa_deframe_passes_zero_length_ulpdu),
	KUNIT_CASE(mpa_deframe_callback_stops_parser),
	KUNIT_CASE(mpa_deframe_error_is_sticky),
	KUNIT_CASE(mpa_deframe_rejects_range_outside_skb),
	KUNIT_CASE(mpa_deframe_init_checks_arguments),
	KUNIT_CASE(mpa_deframe_copy_matches_source),
	KUNIT_CASE_PARAM(mpa_deframe_verified_delivers_only_checked,
			 vf_split_gen_params),
	KUNIT_CASE_PARAM(mpa_deframe_verified_bad_crc, vf_crc_gen_params),
	KUNIT_CASE_PARAM(mpa_deframe_verified_bad_marker,
			 vf_marker_gen_params),
	KUNIT_CASE(mpa_deframe_verified_random_round_trip),
	KUNIT_CASE(mpa_deframe_verified_off_delivers_as_read),
	{}
};

static struct kunit_suite mpa_deframe_suite = {
	.name = "softiwarp_mpa_deframe",
	.test_cases = mpa_deframe_cases,
};

kunit_test_suites(&mpa_deframe_suite);
