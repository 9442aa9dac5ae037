// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mpa_frame
 *
 * The transmit framing of mpa/mpa_frame.c against the hand-written bytes
 * of RFC 5044 Figures 4, 5 and 6, a table of Marker placements (exact
 * pieces and framing octets), the MULPDU formulas of section 4.5 and the
 * longer ULPDU an FPDU with fewer Markers holds in a segment, the CRC
 * whatever the payload's shape, and the argument checks. The figures and
 * the placement table are in kunit/mpa_vectors.c: softiwarp_mpa_deframe
 * reads them back.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "kunit/mpa_vectors.h"

static void expect_piece(struct kunit *test, const struct mpa_fpdu *f,
			 unsigned int i, enum mpa_piece_type type,
			 unsigned int off, unsigned int len)
{
	KUNIT_ASSERT_LT(test, i, (unsigned int)f->nr_pieces);
	KUNIT_EXPECT_EQ_MSG(test, f->piece[i].type, type, "piece %u", i);
	KUNIT_EXPECT_EQ_MSG(test, f->piece[i].off, off, "piece %u", i);
	KUNIT_EXPECT_EQ_MSG(test, f->piece[i].len, len, "piece %u", i);
}

static void mpa_frame_figure5_byte_for_byte(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 ulpdu[MPA_FIG_ULPDU_LEN], wire[sizeof(swi_mpa_fig5_wire)];
	struct mpa_tx tx;

	swi_mpa_fig5_ulpdu(ulpdu);
	swi_mpa_test_tx_init(test, &tx, 0, true, true);
	KUNIT_ASSERT_EQ(test, swi_mpa_test_frame(test, &tx, f, ulpdu,
						 sizeof(ulpdu), wire),
			sizeof(swi_mpa_fig5_wire));
	KUNIT_EXPECT_MEMEQ(test, wire, swi_mpa_fig5_wire, sizeof(swi_mpa_fig5_wire));
	KUNIT_EXPECT_EQ(test, f->nr_pieces, 3);
	expect_piece(test, f, 0, MPA_PIECE_FRAMING, 0, 6);
	expect_piece(test, f, 1, MPA_PIECE_PAYLOAD, 0, MPA_FIG_ULPDU_LEN);
	expect_piece(test, f, 2, MPA_PIECE_FRAMING, 6, 4);
	KUNIT_EXPECT_EQ(test, tx.pos, sizeof(swi_mpa_fig5_wire));
}

static void mpa_frame_figure6_after_492_octet_fpdu(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	u8 ulpdu[MPA_FIG6_FIRST_LEN];
	struct mpa_tx tx;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	swi_mpa_test_tx_init(test, &tx, 0, true, true);
	swi_mpa_fig6_first_ulpdu(ulpdu);
	KUNIT_EXPECT_EQ(test, swi_mpa_test_frame(test, &tx, f, ulpdu,
						 MPA_FIG6_FIRST_LEN, buf), 492);
	KUNIT_ASSERT_EQ(test, tx.pos, MPA_FIG6_POS);

	swi_mpa_fig6_ulpdu(ulpdu);
	KUNIT_ASSERT_EQ(test, swi_mpa_test_frame(test, &tx, f, ulpdu,
						 MPA_FIG_ULPDU_LEN, buf),
			sizeof(swi_mpa_fig6_wire));
	KUNIT_EXPECT_MEMEQ(test, buf, swi_mpa_fig6_wire, sizeof(swi_mpa_fig6_wire));
	KUNIT_EXPECT_EQ(test, f->nr_pieces, 5);
	expect_piece(test, f, 0, MPA_PIECE_FRAMING, 0, 2);
	expect_piece(test, f, 1, MPA_PIECE_PAYLOAD, 0, 18);
	expect_piece(test, f, 2, MPA_PIECE_FRAMING, 2, 4);
	expect_piece(test, f, 3, MPA_PIECE_PAYLOAD, 18, 24);
	expect_piece(test, f, 4, MPA_PIECE_FRAMING, 6, 4);
}

KUNIT_ARRAY_PARAM_DESC(layout, swi_mpa_layout_cases, desc);

static void mpa_frame_places_markers(struct kunit *test)
{
	const struct mpa_layout_case *c = test->param_value;
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_tx tx;
	unsigned int i;

	swi_mpa_test_tx_init(test, &tx, c->pos, c->markers, false);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, c->ulpdu_len), 0);
	KUNIT_EXPECT_EQ(test, f->len, c->fpdu_len);
	KUNIT_ASSERT_EQ(test, f->nr_pieces, c->nr_pieces);
	for (i = 0; i < c->nr_pieces; i++)
		expect_piece(test, f, i, c->pieces[i].type, c->pieces[i].off,
			     c->pieces[i].len);
	KUNIT_ASSERT_EQ(test, f->nr_bytes, c->nr_bytes);
	KUNIT_EXPECT_MEMEQ(test, f->bytes, c->bytes, c->nr_bytes);
	KUNIT_ASSERT_EQ(test, swi_mpa_tx_commit(&tx, f), 0);
	KUNIT_EXPECT_EQ(test, tx.pos, c->pos + c->fpdu_len);
}

/* After an FPDU that ends on a Marker position, the next one leads with it. */
static void mpa_frame_marker_after_crc_leads_next_fpdu(struct kunit *test)
{
	static const u8 lead[] = { 0, 0, 0, 0, 0x00, 0x08 };
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_tx tx;

	swi_mpa_test_tx_init(test, &tx, 488, true, false);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, 16), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_tx_commit(&tx, f), 0);
	KUNIT_ASSERT_EQ(test, tx.pos, 512);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, 8), 0);
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

	KUNIT_EXPECT_EQ(test, swi_mpa_mulpdu(c->emss, c->markers), c->mulpdu);
}

struct room_case {
	const char *desc;
	u32 pos;
	unsigned int emss;
	bool markers;
	unsigned int room;
};

static const struct room_case room_cases[] = {
	{ "EMSS 1448 at a Marker: 3 Markers, the worst case", 0, 1448, true,
	  1430 },
	{ "EMSS 1448 from 424: 3 Markers", 424, 1448, true, 1430 },
	{ "EMSS 1448 from 88: 2 Markers, 4 octets more", 88, 1448, true,
	  1434 },
	{ "EMSS 1448 from 84: 2 Markers", 84, 1448, true, 1434 },
	{ "EMSS 1448 from 92: a Marker in the last 4 octets", 92, 1448, true,
	  1430 },
	{ "EMSS 1448 without Markers", 88, 1448, false, 1442 },
	{ "EMSS 1460 from 76: 2 Markers", 76, 1460, true, 1446 },
	{ "EMSS 1460 from 80: 3 Markers", 80, 1460, true, 1442 },
	{ "EMSS 1461 (mod 4 = 1) from 76: 2 Markers", 76, 1461, true, 1446 },
	{ "EMSS 1448 across the wrap, 3 Markers", 0xffffff58, 1448, true,
	  1430 },
	{ "EMSS 1448 across the wrap, 2 Markers", 0xfffffe58, 1448, true,
	  1434 },
	{ "EMSS 512 from 4: one Marker", 4, 512, true, 502 },
	{ "EMSS 100: raised to 128", 88, 100, true, 128 },
	{ "EMSS 65000 from 88: 127 Markers, the worst case", 88, 65000, true,
	  64486 },
	{ "EMSS 65300 from 88: 127 Markers, capped at 64768", 88, 65300, true,
	  64768 },
	{ "EMSS 1448 from 4: Markers at 508 and 1020", 4, 1448, true, 1434 },
};

KUNIT_ARRAY_PARAM_DESC(room, room_cases, desc);

static void mpa_frame_ulpdu_room_counts_the_markers_in_reach(struct kunit *test)
{
	const struct room_case c = *(const struct room_case *)test->param_value;
	struct mpa_tx tx;

	u32 seg_end = c.pos;	/* no previous segment */

	swi_mpa_test_tx_init(test, &tx, c.pos, c.markers, true);
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_ulpdu_room(&tx, c.emss, &seg_end), c.room);
	KUNIT_EXPECT_EQ(test, seg_end, c.pos + c.emss - c.emss % 4);
}

/*
 * An FPDU that starts with a Marker the previous segment still holds is
 * sized for the segment that starts at its header; any other previous
 * segment end leaves the Marker in the FPDU's own segment.
 */
static void mpa_frame_ulpdu_room_leading_marker_rides(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_tx tx;
	u32 seg_end;

	swi_mpa_test_tx_init(test, &tx, 1024, true, true);
	seg_end = 1028;		/* the previous FPDU ended at the Marker */
	/* Markers at 1024 (before the segment) and 1536, 2048 in it */
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_ulpdu_room(&tx, 1448, &seg_end), 1434);
	KUNIT_EXPECT_EQ(test, seg_end, 1028 + 1448);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, 1434), 0);
	KUNIT_EXPECT_EQ(test, f->hdr_pos, 1028);
	KUNIT_EXPECT_EQ(test, f->start + f->len, 1028 + 1448);

	seg_end = 1024;		/* no previous segment */
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_ulpdu_room(&tx, 1448, &seg_end), 1430);
	KUNIT_EXPECT_EQ(test, seg_end, 1024 + 1448);
	seg_end = 1028;		/* without Markers there is nothing to ride */
	tx.markers = false;
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_ulpdu_room(&tx, 1448, &seg_end), 1442);
	KUNIT_EXPECT_EQ(test, seg_end, 1024 + 1448);
}

/*
 * Runs of full FPDUs from random positions, with random segment sizes,
 * cut by TCP into segments of EMSS - EMSS % 4 octets one after the other:
 * each segment starts with an FPDU or its header (Header Alignment), the
 * room's FPDU ends in its segment, and one octet more would not; no FPDU
 * ends more than a Marker short of its segment.
 */
static void mpa_frame_ulpdu_room_keeps_segments_aligned(struct kunit *test)
{
	struct rnd_state rnd = { 11, 12, 13, 14 };
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	unsigned int i, k, emss, span, room, rides = 0;
	u32 seg, seg_end;
	struct mpa_tx tx;

	for (i = 0; i < 200; i++) {
		emss = 200 + prandom_u32_state(&rnd) % 9000;
		span = emss - emss % 4;
		do {
			seg = prandom_u32_state(&rnd) & ~3U;
		} while (mpa_pos_in_marker(seg));
		swi_mpa_test_tx_init(test, &tx, seg, true, true);
		seg_end = seg;
		for (k = 0; k < 40; k++, seg += span) {
			room = swi_mpa_tx_ulpdu_room(&tx, emss, &seg_end);
			KUNIT_ASSERT_GE(test, room, swi_mpa_mulpdu(emss, true));
			KUNIT_ASSERT_EQ(test, seg_end, seg + span);
			KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, room + 1), 0);
			KUNIT_ASSERT_GT(test, f->start + f->len - seg, span);
			KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, room), 0);
			KUNIT_ASSERT_TRUE_MSG(test, f->start == seg ||
					      f->hdr_pos == seg, "i %u k %u", i, k);
			KUNIT_ASSERT_LE(test, f->start + f->len - seg, span);
			KUNIT_ASSERT_GE(test, f->start + f->len - seg, span - 4);
			rides += f->hdr_pos == seg && f->start != seg;
			KUNIT_ASSERT_EQ(test, swi_mpa_tx_commit(&tx, f), 0);
		}
	}
	/* the case does come up: a Marker in the last 4 octets */
	KUNIT_EXPECT_GT(test, rides, 0);
}

static void mpa_frame_layout_rejects_bad_lengths(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_tx tx;
	unsigned int i, sum = 0;

	swi_mpa_test_tx_init(test, &tx, 0, true, true);
	KUNIT_EXPECT_EQ(test, swi_mpa_fpdu_layout(&tx, f, 0), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, swi_mpa_fpdu_layout(&tx, f, MPA_MULPDU_MAX + 1),
			-EMSGSIZE);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, MPA_MULPDU_MAX), 0);
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
		KUNIT_EXPECT_EQ_MSG(test, swi_mpa_tx_init(&tx, &cfg),
				    mpa_pos_in_marker(cfg.pos) ? -EINVAL : 0,
				    "pos %u", cfg.pos);
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_init(&tx, &cfg), 0);
	cfg.pos = 1025;
	cfg.markers = false;
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_init(&tx, &cfg), 0);
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
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
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
	swi_mpa_test_tx_init(test, &tx, pos, true, true);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, len), 0);
	KUNIT_ASSERT_GT(test, f->nr_pieces, 3);

	kv[0] = (struct kvec){ .iov_base = buf + 3000, .iov_len = 1000 };
	kv[1] = (struct kvec){ .iov_base = buf, .iov_len = 0 };
	kv[2] = (struct kvec){ .iov_base = buf + 4000, .iov_len = 2000 };
	iov_iter_kvec(&it, ITER_SOURCE, kv, 3, 3000);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_test_linearise(f, buf + 3000, wire), f->len);
	swi_mpa_crc_begin(&crc);
	mpa_crc_update(&crc, wire, f->len - MPA_CRC_SIZE);
	ref = swi_mpa_crc_final(&crc);
	KUNIT_EXPECT_MEMEQ(test, wire + f->len - MPA_CRC_SIZE, &ref,
			   MPA_CRC_SIZE);

	/* bvecs, one over two pages, entered 3000 octets in */
	bvec_set_page(&bv[0], pages, 3100, 0);
	bvec_set_page(&bv[1], pages, 2 * PAGE_SIZE - 3100, 3100);
	iov_iter_bvec(&it, ITER_SOURCE, bv, 2, 2 * PAGE_SIZE);
	iov_iter_advance(&it, 3000);
	for (i = 0; i < MPA_CRC_SIZE; i++)
		f->bytes[f->crc_pos[i]] = 0;
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_test_linearise(f, buf + 3000, wire), f->len);
	memcpy(&got, wire + f->len - MPA_CRC_SIZE, MPA_CRC_SIZE);
	__free_pages(pages, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(got), le32_to_cpu(ref));
}

static void mpa_frame_crc_off_sends_zero_crc(struct kunit *test)
{
	static const u8 zeros[MPA_CRC_SIZE];
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 ulpdu[MPA_FIG_ULPDU_LEN], wire[sizeof(swi_mpa_fig5_wire)];
	struct mpa_tx tx;

	swi_mpa_fig5_ulpdu(ulpdu);
	swi_mpa_test_tx_init(test, &tx, 0, true, false);
	KUNIT_ASSERT_EQ(test, swi_mpa_test_frame(test, &tx, f, ulpdu,
						 sizeof(ulpdu), wire),
			sizeof(swi_mpa_fig5_wire));
	KUNIT_EXPECT_MEMEQ(test, wire, swi_mpa_fig5_wire,
			   sizeof(swi_mpa_fig5_wire) - 4);
	KUNIT_EXPECT_MEMEQ(test, wire + sizeof(swi_mpa_fig5_wire) - 4, zeros, 4);
}

static void mpa_frame_crc_rejects_short_or_user_payload(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 ulpdu[64] = {};
	struct kvec kv = { .iov_base = ulpdu, .iov_len = 63 };
	struct iov_iter it;
	struct mpa_tx tx;

	swi_mpa_test_tx_init(test, &tx, 0, false, true);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, 64), 0);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 63);
	KUNIT_EXPECT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), -EINVAL);
	iov_iter_ubuf(&it, ITER_SOURCE, (void __user *)0x1000, 64);
	KUNIT_EXPECT_EQ(test, swi_mpa_fpdu_set_crc(f, &it), -EINVAL);
}

static void mpa_frame_commit_advances_once(struct kunit *test)
{
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	struct mpa_tx tx;

	swi_mpa_test_tx_init(test, &tx, 8, true, true);
	KUNIT_ASSERT_EQ(test, swi_mpa_fpdu_layout(&tx, f, 1000), 0);
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_commit(&tx, f), 0);
	KUNIT_EXPECT_EQ(test, tx.pos, 8 + f->len);
	KUNIT_EXPECT_EQ(test, swi_mpa_tx_commit(&tx, f), -EINVAL);
	KUNIT_EXPECT_EQ(test, tx.pos, 8 + f->len);
}

static struct kunit_case mpa_frame_cases[] = {
	KUNIT_CASE(mpa_frame_figure5_byte_for_byte),
	KUNIT_CASE(mpa_frame_figure6_after_492_octet_fpdu),
	KUNIT_CASE_PARAM(mpa_frame_places_markers, layout_gen_params),
	KUNIT_CASE(mpa_frame_marker_after_crc_leads_next_fpdu),
	KUNIT_CASE_PARAM(mpa_frame_mulpdu_follows_section_4_5,
			 mulpdu_gen_params),
	KUNIT_CASE_PARAM(mpa_frame_ulpdu_room_counts_the_markers_in_reach,
			 room_gen_params),
	KUNIT_CASE(mpa_frame_ulpdu_room_leading_marker_rides),
	KUNIT_CASE(mpa_frame_ulpdu_room_keeps_segments_aligned),
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

kunit_test_suites(&mpa_frame_suite);
