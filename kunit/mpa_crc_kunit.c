// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mpa_crc
 *
 * The CRC32c engine against the iSCSI vectors of RFC 3720 appendix B.4 and
 * against the CRC of RFC 5044 Figure 5, fed linearly, octet by octet,
 * from pages and from skbs in pieces, which must all give the same four
 * wire octets; the vectors through both paths, the crypto API's and the
 * direct call of the table-driven code.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "mpa/mpa.h"

struct crc_vector {
	const char *name;
	u8 data[48];
	unsigned int len;
	u8 crc[MPA_CRC_SIZE];	/* wire order */
};

static void crc_vector_fill(struct crc_vector *v, int kind)
{
	static const u8 iscsi_read[48] = {
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
		0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 fig5[48] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01,	/* MSN 1, then MO 0 and 24 zeros */
	};
	unsigned int i;

	memset(v->data, 0, sizeof(v->data));
	v->len = 32;
	switch (kind) {
	case 0:
		v->name = "32 zeros";
		memcpy(v->crc, "\xaa\x36\x91\x8a", 4);
		break;
	case 1:
		v->name = "32 ones";
		memset(v->data, 0xff, 32);
		memcpy(v->crc, "\x43\xab\xa8\x62", 4);
		break;
	case 2:
		v->name = "32 incrementing";
		for (i = 0; i < 32; i++)
			v->data[i] = i;
		memcpy(v->crc, "\x4e\x79\xdd\x46", 4);
		break;
	case 3:
		v->name = "32 decrementing";
		for (i = 0; i < 32; i++)
			v->data[i] = 31 - i;
		memcpy(v->crc, "\x5c\xdb\x3f\x11", 4);
		break;
	case 4:
		v->name = "iSCSI read PDU";
		memcpy(v->data, iscsi_read, 48);
		v->len = 48;
		memcpy(v->crc, "\x56\x3a\x96\xd9", 4);
		break;
	default:
		v->name = "RFC 5044 Figure 5";
		memcpy(v->data, fig5, 48);
		v->len = 48;
		memcpy(v->crc, "\x52\x23\x99\x83", 4);
		break;
	}
}

static const int crc_kinds[] = { 0, 1, 2, 3, 4, 5 };

static void crc_kind_desc(const int *kind, char *desc)
{
	struct crc_vector v;

	crc_vector_fill(&v, *kind);
	strscpy(desc, v.name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(crc_vectors, crc_kinds, crc_kind_desc);

/*
 * Both paths, the crypto API's and (with crc32c-generic, the implementation
 * picked under TCG) the direct call of __crc32c_le(), on @v: whole and
 * octet by octet.
 */
static void crc_check_vector(struct kunit *test, const struct crc_vector *v)
{
	bool was = swi_mpa_crc_set_direct(false);
	struct mpa_crc crc;
	unsigned int i;
	__le32 got;
	int path;

	for (path = 0; path < 2; path++) {
		swi_mpa_crc_set_direct(path);
		swi_mpa_crc_begin(&crc);
		mpa_crc_update(&crc, v->data, v->len);
		got = swi_mpa_crc_final(&crc);
		KUNIT_EXPECT_MEMEQ_MSG(test, &got, v->crc, MPA_CRC_SIZE,
				       "path %d", path);
		swi_mpa_crc_begin(&crc);
		for (i = 0; i < v->len; i++)
			mpa_crc_update(&crc, &v->data[i], 1);
		got = swi_mpa_crc_final(&crc);
		KUNIT_EXPECT_MEMEQ_MSG(test, &got, v->crc, MPA_CRC_SIZE,
				       "path %d, octet by octet", path);
	}
	swi_mpa_crc_set_direct(was);
}

static void mpa_crc_matches_vector_both_paths(struct kunit *test)
{
	struct crc_vector v;

	crc_vector_fill(&v, *(const int *)test->param_value);
	crc_check_vector(test, &v);
}

/* A page range that crosses a page boundary gives the linear result. */
static void mpa_crc_page_range_equals_linear(struct kunit *test)
{
	const unsigned int len = 3000, off = PAGE_SIZE - 1000;
	struct page *pages;
	struct mpa_crc a, b;
	__le32 lin, pg;
	u8 *buf;

	pages = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	buf = page_address(pages);
	prandom_bytes_state(&(struct rnd_state){ 1, 2, 3, 4 }, buf + off, len);

	swi_mpa_crc_begin(&a);
	mpa_crc_update(&a, buf + off, len);
	lin = swi_mpa_crc_final(&a);
	swi_mpa_crc_begin(&b);
	swi_mpa_crc_update_page(&b, pages, off, len);
	pg = swi_mpa_crc_final(&b);
	__free_pages(pages, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(pg), le32_to_cpu(lin));
}

/* An skb with a linear head and a page frag gives the linear result. */
static void mpa_crc_skb_with_frag_equals_linear(struct kunit *test)
{
	struct crc_vector v;
	struct sk_buff *skb;
	struct mpa_crc crc;
	struct page *page;
	__le32 got;

	crc_vector_fill(&v, 5);
	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	skb_put_data(skb, v.data, 20);
	memcpy(page_address(page) + 100, v.data + 20, v.len - 20);
	skb_add_rx_frag(skb, 0, page, 100, v.len - 20, PAGE_SIZE);

	swi_mpa_crc_begin(&crc);
	swi_mpa_crc_update_skb(&crc, skb, 0, 7);
	swi_mpa_crc_update_skb(&crc, skb, 7, v.len - 7);
	got = swi_mpa_crc_final(&crc);
	kfree_skb(skb);
	KUNIT_EXPECT_MEMEQ(test, &got, v.crc, MPA_CRC_SIZE);
}

/* crc32c_driver=fastest keeps the smallest time; a tie keeps the first */
static void mpa_crc_pick_fastest(struct kunit *test)
{
	static const struct {
		u64 ns[3];
		unsigned int n, want;
	} cases[] = {
		{ { 5 }, 1, 0 },
		{ { 900, 400 }, 2, 1 },		/* TCG: generic faster */
		{ { 300, 700 }, 2, 0 },		/* SSE4.2: preferred faster */
		{ { 500, 500 }, 2, 0 },		/* tie: the preferred one */
		{ { U64_MAX, 800 }, 2, 1 },	/* preferred not available */
		{ { 800, U64_MAX }, 2, 0 },	/* a duplicate, not timed */
		{ { U64_MAX, U64_MAX }, 2, 0 },	/* none: caller sees U64_MAX */
		{ { 9, 7, 8 }, 3, 1 },
		{ { 9, 8, 7 }, 3, 2 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, swi_mpa_crc_pick(cases[i].ns, cases[i].n),
				    cases[i].want, "case %u", i);
}

static struct kunit_case mpa_crc_cases[] = {
	KUNIT_CASE_PARAM(mpa_crc_matches_vector_both_paths, crc_vectors_gen_params),
	KUNIT_CASE(mpa_crc_page_range_equals_linear),
	KUNIT_CASE(mpa_crc_skb_with_frag_equals_linear),
	KUNIT_CASE(mpa_crc_pick_fastest),
	{}
};

static struct kunit_suite mpa_crc_suite = {
	.name = "softiwarp_mpa_crc",
	.test_cases = mpa_crc_cases,
};

kunit_test_suites(&mpa_crc_suite);
