// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_rdmap_ext
 *
 * RFC 7306's headers against octets written by hand from its figures: an
 * Atomic Request segment as Appendix A.1 draws it (untagged DDP header on
 * queue 1, opcode 1010b, then Figure 4), an Atomic Response on queue 3
 * (Figure 6, 12 octets), Immediate Data on queue 0 (Figure 7) with the
 * verbs' 32-bit immediate in its first 4 octets. Parsing gives back every
 * field, refuses truncations (and for Immediate Data any length but 8),
 * drops the reserved bits. The atomic arithmetic against a line-by-line
 * transcription of section 5.1.1's pseudocode over a fixed-seed random
 * sweep, and against a table; CmpSwap against section 5.1.2's pseudocode.
 * The responder's checks: each refusal with its Terminate cause.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "ddp/ddp.h"
#include "kunit/helpers.h"
#include "rdmap/ext.h"
#include "rdmap/terminate.h"

/* Appendix A.1: DDP header (Send-less untagged, QN 1, MSN 7), Figure 4 */
static const u8 atomic_req_seg[] = {
	0x41, 0x4a, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xf2,				/* reserved, CmpSwap */
	0x0a, 0x0b, 0x0c, 0x0d,				/* Request Identifier */
	0x11, 0x22, 0x33, 0x44,				/* Remote STag */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08,	/* Tagged Offset */
	0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,	/* Swap Data */
	0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38,	/* Swap Mask */
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,	/* Compare Data */
	0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,	/* Compare Mask */
};

static const struct rdmap_atomic_req_info atomic_req_fields = {
	.aop = RDMAP_ATOMIC_CMP_SWAP,
	.req_id = 0x0a0b0c0d,
	.stag = 0x11223344,
	.to = 0x0001020304050608ULL,
	.data = 0x2122232425262728ULL,
	.data_mask = 0x3132333435363738ULL,
	.compare = 0x4142434445464748ULL,
	.compare_mask = 0x5152535455565758ULL,
};

/* Appendix A.2: QN 3, MSN 7, then Figure 6 */
static const u8 atomic_resp_seg[] = {
	0x41, 0x4b, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0, 0,
	0xde, 0xad, 0xbe, 0xef,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
};

/* Appendix A.3: Immediate Data with SE on QN 0, MSN 7, then Figure 7 */
static const u8 imm_seg[] = {
	0x41, 0x49, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0,
	0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0,
};

static void ext_untagged_hdr(struct kunit *test, u8 *buf, u8 opcode, u32 qn)
{
	const struct ddp_hdr_info h = {
		.last = 1, .dv = 1, .rv = RDMAP_VERSION, .opcode = opcode,
		.qn = qn, .msn = 7,
	};

	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(buf, DDP_UNTAGGED_HDR_SIZE, &h),
			DDP_UNTAGGED_HDR_SIZE);
}

static void atomic_req_build_gives_figure_4(struct kunit *test)
{
	u8 seg[sizeof(atomic_req_seg)];

	ext_untagged_hdr(test, seg, RDMAP_ATOMIC_REQ, RDMAP_QN_READ_REQ);
	swi_rdmap_atomic_req_build((void *)(seg + DDP_UNTAGGED_HDR_SIZE),
				   &atomic_req_fields);
	/* the reserved bits go out as zero */
	KUNIT_EXPECT_EQ(test, seg[DDP_UNTAGGED_HDR_SIZE], 0);
	KUNIT_EXPECT_EQ(test, seg[DDP_UNTAGGED_HDR_SIZE + 3], 0x02);
	seg[DDP_UNTAGGED_HDR_SIZE] = 0xff;
	seg[DDP_UNTAGGED_HDR_SIZE + 1] = 0xff;
	seg[DDP_UNTAGGED_HDR_SIZE + 2] = 0xff;
	seg[DDP_UNTAGGED_HDR_SIZE + 3] |= 0xf0;
	KUNIT_EXPECT_MEMEQ(test, seg, atomic_req_seg, sizeof(seg));
}

static void atomic_req_parse_gives_fields(struct kunit *test)
{
	const u8 *p = atomic_req_seg + DDP_UNTAGGED_HDR_SIZE;
	struct rdmap_atomic_req_info r;
	size_t n = RDMAP_ATOMIC_REQ_SIZE;

	memset(&r, 0xa5, sizeof(r));
	KUNIT_ASSERT_EQ(test, swi_rdmap_atomic_req_parse(p, n, &r), (int)n);
	KUNIT_EXPECT_EQ(test, r.aop, atomic_req_fields.aop);
	KUNIT_EXPECT_EQ(test, r.req_id, atomic_req_fields.req_id);
	KUNIT_EXPECT_EQ(test, r.stag, atomic_req_fields.stag);
	KUNIT_EXPECT_EQ(test, r.to, atomic_req_fields.to);
	KUNIT_EXPECT_EQ(test, r.data, atomic_req_fields.data);
	KUNIT_EXPECT_EQ(test, r.data_mask, atomic_req_fields.data_mask);
	KUNIT_EXPECT_EQ(test, r.compare, atomic_req_fields.compare);
	KUNIT_EXPECT_EQ(test, r.compare_mask, atomic_req_fields.compare_mask);
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_req_parse(p, n - 1, &r), -EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_req_parse(p, 0, &r), -EBADMSG);
}

static void atomic_resp_round_trip_gives_figure_6(struct kunit *test)
{
	const struct rdmap_atomic_resp_info want = {
		.req_id = 0xdeadbeef, .orig = 0x0102030405060708ULL,
	};
	struct rdmap_atomic_resp_info got;
	u8 seg[sizeof(atomic_resp_seg)];
	const u8 *p = seg + DDP_UNTAGGED_HDR_SIZE;

	ext_untagged_hdr(test, seg, RDMAP_ATOMIC_RESP, RDMAP_QN_ATOMIC_RESP);
	swi_rdmap_atomic_resp_build((void *)(seg + DDP_UNTAGGED_HDR_SIZE), &want);
	KUNIT_EXPECT_MEMEQ(test, seg, atomic_resp_seg, sizeof(seg));
	KUNIT_ASSERT_EQ(test, swi_rdmap_atomic_resp_parse(p, 12, &got), 12);
	KUNIT_EXPECT_EQ(test, got.req_id, want.req_id);
	KUNIT_EXPECT_EQ(test, got.orig, want.orig);
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_resp_parse(p, 11, &got), -EBADMSG);
}

static void imm_round_trip_gives_figure_7(struct kunit *test)
{
	u8 seg[sizeof(imm_seg)], in[RDMAP_IMM_SIZE + 1];
	__be32 imm = 0;

	ext_untagged_hdr(test, seg, RDMAP_IMM_SE, RDMAP_QN_SEND);
	swi_rdmap_imm_build((void *)(seg + DDP_UNTAGGED_HDR_SIZE),
			    cpu_to_be32(0x11223344));
	KUNIT_EXPECT_MEMEQ(test, seg, imm_seg, sizeof(seg));

	/* the last 4 octets are ignored on receive */
	memcpy(in, imm_seg + DDP_UNTAGGED_HDR_SIZE, RDMAP_IMM_SIZE);
	memset(in + 4, 0x5a, sizeof(in) - 4);
	KUNIT_ASSERT_EQ(test, swi_rdmap_imm_parse(in, RDMAP_IMM_SIZE, &imm),
			RDMAP_IMM_SIZE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(imm), 0x11223344);
	/* section 6.3: exactly 8 octets */
	KUNIT_EXPECT_EQ(test, swi_rdmap_imm_parse(in, 7, &imm), -EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_rdmap_imm_parse(in, 9, &imm), -EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_rdmap_imm_parse(in, 0, &imm), -EBADMSG);
}

/* RFC 7306 section 5.1.1's pseudocode, line by line */
static u64 rfc_fetch_add(u64 orig, u64 add, u64 mask)
{
	u64 bit_location = 1, carry = 0, val1, val2, sum, remote = 0;
	unsigned int bit;

	for (bit = 0; bit <= 63; bit++) {
		if (bit != 0)
			bit_location = bit_location << 1;
		val1 = (orig & bit_location) >> bit;
		val2 = (add & bit_location) >> bit;
		sum = carry + val1 + val2;
		carry = (sum & 2) >> 1;
		sum = sum & 1;
		if (sum)
			remote |= bit_location;
		carry = carry && !(mask & bit_location);
	}
	return remote;
}

/* RFC 7306 section 5.1.2's pseudocode */
static u64 rfc_cmp_swap(u64 orig, u64 swap, u64 swap_mask, u64 cmp,
			u64 cmp_mask)
{
	if (!((cmp ^ orig) & cmp_mask))
		return (orig & ~swap_mask) | (swap & swap_mask);
	return orig;
}

struct fetch_add_case {
	const char *desc;
	u64 orig, add, mask, want;
};

static const struct fetch_add_case fetch_add_cases[] = {
	{ "unmasked add", 41, 1, 0, 42 },
	{ "unmasked add wraps at 2^64", U64_MAX, 2, 0, 1 },
	{ "add 0 leaves the value (section 1.1's probe)", 0x1234, 0, 0,
	  0x1234 },
	{ "two 32-bit fields: low field's carry is discarded",
	  0x00000005ffffffffULL, 1, 0x8000000080000000ULL,
	  0x0000000500000000ULL },
	{ "two 32-bit fields: both added",
	  0x0000000100000002ULL, 0x0000000300000004ULL,
	  0x8000000080000000ULL, 0x0000000400000006ULL },
	{ "eight octet fields, each wraps alone",
	  0xff01ff01ff01ff01ULL, 0x0101010101010101ULL,
	  0x8080808080808080ULL, 0x0002000200020002ULL },
	{ "a field of one bit toggles", 1, 1, 1, 0 },
	{ "every bit its own field: XOR", 0xf0f0f0f0f0f0f0f0ULL,
	  0xff00ff00ff00ff00ULL, U64_MAX, 0x0ff00ff00ff00ff0ULL },
};

static void fetch_add_case_desc(const struct fetch_add_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fetch_add, fetch_add_cases, fetch_add_case_desc);

static void atomic_fetch_add_gives_table_value(struct kunit *test)
{
	const struct fetch_add_case *c = test->param_value;
	struct rdmap_atomic_req_info r = {
		.aop = RDMAP_ATOMIC_FETCH_ADD, .data = c->add,
		.data_mask = c->mask,
	};

	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_result(&r, c->orig), c->want);
	KUNIT_EXPECT_EQ(test, rfc_fetch_add(c->orig, c->add, c->mask),
			c->want);
}

/* Masks of few bits, many bits, and none, so that fields vary in width */
static u64 ext_rand_mask(struct rnd_state *rnd)
{
	u64 m = prandom_u32_state(rnd) | (u64)prandom_u32_state(rnd) << 32;

	switch (prandom_u32_state(rnd) % 4) {
	case 0:
		return 0;
	case 1:
		return m & (prandom_u32_state(rnd) |
			    (u64)prandom_u32_state(rnd) << 32);
	case 2:
		return m | (prandom_u32_state(rnd) |
			    (u64)prandom_u32_state(rnd) << 32);
	default:
		return m;
	}
}

static u64 ext_rand64(struct rnd_state *rnd)
{
	return prandom_u32_state(rnd) | (u64)prandom_u32_state(rnd) << 32;
}

static void atomic_result_matches_rfc_pseudocode(struct kunit *test)
{
	struct rdmap_atomic_req_info r = {};
	struct rnd_state rnd;
	unsigned int i;
	u64 orig, want;

	prandom_seed_state(&rnd, 7306);
	for (i = 0; i < 20000; i++) {
		orig = ext_rand64(&rnd);
		r.data = ext_rand64(&rnd);
		r.data_mask = ext_rand_mask(&rnd);
		r.compare = i % 3 ? ext_rand64(&rnd) : orig ^
			    (ext_rand64(&rnd) & ~r.compare_mask);
		r.compare_mask = ext_rand_mask(&rnd);
		r.aop = i & 1 ? RDMAP_ATOMIC_CMP_SWAP : RDMAP_ATOMIC_FETCH_ADD;
		want = r.aop == RDMAP_ATOMIC_FETCH_ADD ?
		       rfc_fetch_add(orig, r.data, r.data_mask) :
		       rfc_cmp_swap(orig, r.data, r.data_mask, r.compare,
				    r.compare_mask);
		KUNIT_ASSERT_EQ_MSG(test, swi_rdmap_atomic_result(&r, orig), want,
				    "case %u: aop %u orig %llx data %llx/%llx cmp %llx/%llx",
				    i, r.aop, orig, r.data, r.data_mask,
				    r.compare, r.compare_mask);
	}
}

static void atomic_cmp_swap_table(struct kunit *test)
{
	struct rdmap_atomic_req_info r = {
		.aop = RDMAP_ATOMIC_CMP_SWAP, .data = 0xaaaa,
		.data_mask = U64_MAX, .compare = 0x1111,
		.compare_mask = U64_MAX,
	};

	/* unmasked: equal swaps, different leaves it */
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_result(&r, 0x1111), 0xaaaaULL);
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_result(&r, 0x1112), 0x1112ULL);
	/* the Compare Mask hides the differing bit */
	r.compare_mask = ~0x3ULL;
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_result(&r, 0x1112), 0xaaaaULL);
	/* the Swap Mask keeps the target's other bits */
	r.data_mask = 0xff00;
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_result(&r, 0x1112), 0xaa12ULL);
	/* a code it does not implement changes nothing */
	r.aop = 0x1;
	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_result(&r, 0x1112), 0x1112ULL);
}

struct req_check_case {
	const char *desc;
	u8 aop;
	u64 to;
	struct ddp_stag_check stag;
	bool no_stag;
	int ret;
	struct rdmap_term_cause cause;
};

#define ATOMIC_RW	(DDP_ACCESS_REMOTE_ATOMIC | DDP_ACCESS_REMOTE_READ | \
			 DDP_ACCESS_REMOTE_WRITE)
#define STAG_OK(acc)	{ .state = DDP_STAG_VALID, .access = (acc), \
			  .base = 0x1000, .len = 0x100 }
#define PROT(c)		{ TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_PROTECTION, (c) }
#define OPER(c)		{ TERM_LAYER_RDMAP, TERM_ETYPE_RDMAP_OPERATION, (c) }

static const struct req_check_case req_check_cases[] = {
	{ "FetchAdd, first word", RDMAP_ATOMIC_FETCH_ADD, 0x1000,
	  STAG_OK(DDP_ACCESS_REMOTE_ATOMIC) },
	{ "CmpSwap, last word", RDMAP_ATOMIC_CMP_SWAP, 0x10f8,
	  STAG_OK(ATOMIC_RW) },
	{ "code 0x1 (reserved)", 0x1, 0x1000, STAG_OK(ATOMIC_RW), false,
	  -EPROTO, OPER(TERM_RDMAP_OPCODE) },
	{ "code 0xf", 0xf, 0x1000, STAG_OK(ATOMIC_RW), false, -EPROTO,
	  OPER(TERM_RDMAP_OPCODE) },
	{ "no STag", RDMAP_ATOMIC_FETCH_ADD, 0x1000, {}, true, -EPROTO,
	  PROT(TERM_RDMAP_INVALID_STAG) },
	{ "invalid STag", RDMAP_ATOMIC_FETCH_ADD, 0x1000,
	  { .state = DDP_STAG_INVALID }, false, -EPROTO,
	  PROT(TERM_RDMAP_INVALID_STAG) },
	{ "STag of another stream", RDMAP_ATOMIC_CMP_SWAP, 0x1000,
	  { .state = DDP_STAG_NOT_ASSOC }, false, -EPROTO,
	  PROT(TERM_RDMAP_STAG_NOT_ASSOC) },
	{ "read and write but not atomic", RDMAP_ATOMIC_FETCH_ADD, 0x1000,
	  STAG_OK(DDP_ACCESS_REMOTE_READ | DDP_ACCESS_REMOTE_WRITE), false,
	  -EPROTO, PROT(TERM_RDMAP_ACCESS) },
	{ "word past the end", RDMAP_ATOMIC_FETCH_ADD, 0x1100,
	  STAG_OK(ATOMIC_RW), false, -EPROTO,
	  PROT(TERM_RDMAP_BASE_BOUNDS) },
	{ "word before the start", RDMAP_ATOMIC_FETCH_ADD, 0xff8,
	  STAG_OK(ATOMIC_RW), false, -EPROTO,
	  PROT(TERM_RDMAP_BASE_BOUNDS) },
	{ "word across the end, misaligned", RDMAP_ATOMIC_CMP_SWAP, 0x10fc,
	  STAG_OK(ATOMIC_RW), false, -EPROTO,
	  PROT(TERM_RDMAP_BASE_BOUNDS) },
	{ "word wraps past 2^64", RDMAP_ATOMIC_FETCH_ADD, U64_MAX - 3,
	  STAG_OK(ATOMIC_RW), false, -EPROTO, PROT(TERM_RDMAP_TO_WRAP) },
	{ "misaligned by 4 (section 8.2)", RDMAP_ATOMIC_FETCH_ADD, 0x1004,
	  STAG_OK(ATOMIC_RW), false, -EPROTO,
	  OPER(TERM_RDMAP_CATASTROPHIC_STREAM) },
	{ "misaligned by 1, CmpSwap", RDMAP_ATOMIC_CMP_SWAP, 0x1001,
	  STAG_OK(ATOMIC_RW), false, -EPROTO,
	  OPER(TERM_RDMAP_CATASTROPHIC_STREAM) },
};

static void req_check_case_desc(const struct req_check_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(req_check, req_check_cases, req_check_case_desc);

static void atomic_req_check_gives_cause(struct kunit *test)
{
	const struct req_check_case *c = test->param_value;
	struct rdmap_atomic_req_info r = { .aop = c->aop, .to = c->to };
	struct rdmap_term_cause cause = { 0x5, 0x5, 0x55 };

	KUNIT_EXPECT_EQ(test, swi_rdmap_atomic_req_check(&r, c->no_stag ? NULL :
							 &c->stag, &cause),
			c->ret);
	if (c->ret)
		SWI_EXPECT_TERM_CAUSE_EQ(test, cause, c->cause);
}

static struct kunit_case ext_cases[] = {
	KUNIT_CASE(atomic_req_build_gives_figure_4),
	KUNIT_CASE(atomic_req_parse_gives_fields),
	KUNIT_CASE(atomic_resp_round_trip_gives_figure_6),
	KUNIT_CASE(imm_round_trip_gives_figure_7),
	KUNIT_CASE_PARAM(atomic_fetch_add_gives_table_value,
			 fetch_add_gen_params),
	KUNIT_CASE(atomic_result_matches_rfc_pseudocode),
	KUNIT_CASE(atomic_cmp_swap_table),
	KUNIT_CASE_PARAM(atomic_req_check_gives_cause, req_check_gen_params),
	{}
};

static struct kunit_suite ext_suite = {
	.name = "softiwarp_rdmap_ext",
	.test_cases = ext_cases,
};

kunit_test_suites(&ext_suite);
