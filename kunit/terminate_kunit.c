// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_terminate
 *
 * The Terminate header against octets written by hand from RFC 5040: the
 * Layer in the high nibble of the first octet (DDP, untagged buffer
 * error, invalid QN is 0x12 0x01), M and D with the DDP segment length and
 * the offending DDP header for DDP errors and RDMAP remote errors, R with
 * the Read Request header for a remote protection error on one only, the
 * control word alone for LLP errors and local errors (RFC 5040 Figure 10).
 * Parsing gives back every field, refuses every truncation and the
 * malformed flag combinations. The log names of the error triples.
 */
#include <kunit/test.h>

#include "ddp/ddp.h"
#include "kunit/helpers.h"
#include "rdmap/codec.h"
#include "rdmap/terminate.h"

/* Offending segments, from their DDP Control Field on */
static const u8 seg_send[] = {		/* RFC 5044 Figure 5 */
	0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
};

static const u8 seg_send_dv2[] = {
	0x42, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
};

static const u8 seg_write[] = {
	0xc1, 0x40, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x01, 0, 0,
};

static const u8 seg_tagged_send[] = {
	0xc1, 0x43, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x01, 0, 0,
};

static const u8 seg_rreq[] = {
	/* untagged DDP header: Read Request, QN 1, MSN 2, MO 0 */
	0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0,
	/* RDMA Read Request header */
	0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4, 5, 6, 7, 8,
	0x00, 0x10, 0x00, 0x00, 0x55, 0x66, 0x77, 0x88,
	0xf0, 0xe0, 0xd0, 0xc0, 0xb0, 0xa0, 0x90, 0x80,
};

/*
 * The expected Terminate is @head (its first min(@len, 6) octets: control
 * word, DDP segment length) followed by the first @len - 6 octets of @seg.
 */
struct term_vector {
	const char *desc;
	struct rdmap_term_cause cause;
	const u8 *seg;			/* NULL: no offending segment */
	unsigned int seg_avail;
	u16 seg_len;
	u8 head[6];
	unsigned int len;
};

static const struct term_vector term_vectors[] = {
	{
		.desc = "DDP untagged invalid QN: 0x12 0x01, M, D, Send header",
		.cause = { 1, 2, 0x01 },
		.seg = seg_send, .seg_avail = 18, .seg_len = 0x2a,
		.head = { 0x12, 0x01, 0xc0, 0x00, 0x00, 0x2a },
		.len = 24,
	},
	{
		.desc = "DDP untagged bad version: the header as received",
		.cause = { 1, 2, 0x06 },
		.seg = seg_send_dv2, .seg_avail = 18, .seg_len = 0x2a,
		.head = { 0x12, 0x06, 0xc0, 0x00, 0x00, 0x2a },
		.len = 24,
	},
	{
		.desc = "RDMAP access rights on a Write: tagged header, no R",
		.cause = { 0, 1, 0x02 },
		.seg = seg_write, .seg_avail = 14, .seg_len = 0x10e,
		.head = { 0x01, 0x02, 0xc0, 0x00, 0x01, 0x0e },
		.len = 20,
	},
	{
		.desc = "DDP tagged TO wrap on a Write",
		.cause = { 1, 1, 0x03 },
		.seg = seg_write, .seg_avail = 14, .seg_len = 0x10e,
		.head = { 0x11, 0x03, 0xc0, 0x00, 0x01, 0x0e },
		.len = 20,
	},
	{
		.desc = "RDMAP unexpected opcode on a tagged Send",
		.cause = { 0, 2, 0x06 },
		.seg = seg_tagged_send, .seg_avail = 14, .seg_len = 0x10e,
		.head = { 0x02, 0x06, 0xc0, 0x00, 0x01, 0x0e },
		.len = 20,
	},
	{
		.desc = "RDMAP invalid STag on a Read Request: M, D and R",
		.cause = { 0, 1, 0x00 },
		.seg = seg_rreq, .seg_avail = 46, .seg_len = 0x2e,
		.head = { 0x01, 0x00, 0xe0, 0x00, 0x00, 0x2e },
		.len = 52,
	},
	{
		/* RFC 5040 Figure 10: a DDP error carries no RDMA header */
		.desc = "DDP MSN out of range on a Read Request: M and D, no R",
		.cause = { 1, 2, 0x03 },
		.seg = seg_rreq, .seg_avail = 46, .seg_len = 0x2e,
		.head = { 0x12, 0x03, 0xc0, 0x00, 0x00, 0x2e },
		.len = 24,
	},
	{
		/* nor does an RDMAP remote operation error */
		.desc = "RDMAP bad version on a Read Request: M and D, no R",
		.cause = { 0, 2, 0x05 },
		.seg = seg_rreq, .seg_avail = 46, .seg_len = 0x2e,
		.head = { 0x02, 0x05, 0xc0, 0x00, 0x00, 0x2e },
		.len = 24,
	},
	{
		/* a local catastrophic error carries no header at all */
		.desc = "RDMAP local catastrophic on a Send: control word only",
		.cause = { 0, 0, 0x00 },
		.seg = seg_send, .seg_avail = 18, .seg_len = 0x2a,
		.head = { 0x00, 0x00, 0x00, 0x00 },
		.len = 4,
	},
	{
		.desc = "Read Request without its RDMAP header: M and D only",
		.cause = { 1, 2, 0x02 },
		.seg = seg_rreq, .seg_avail = 18, .seg_len = 0x2e,
		.head = { 0x12, 0x02, 0xc0, 0x00, 0x00, 0x2e },
		.len = 24,
	},
	{
		.desc = "offender shorter than its DDP header: control word only",
		.cause = { 1, 2, 0x01 },
		.seg = seg_send, .seg_avail = 17, .seg_len = 0x2a,
		.head = { 0x12, 0x01, 0x00, 0x00 },
		.len = 4,
	},
	{
		.desc = "LLP CRC error: control word only, offender ignored",
		.cause = { 2, 0, 0x02 },
		.seg = seg_send, .seg_avail = 18, .seg_len = 0x2a,
		.head = { 0x20, 0x02, 0x00, 0x00 },
		.len = 4,
	},
	{
		.desc = "RDMAP local catastrophic error without a segment",
		.cause = { 0, 0, 0x00 },
		.head = { 0x00, 0x00, 0x00, 0x00 },
		.len = 4,
	},
	{
		.desc = "RDMAP catastrophic in stream without a segment",
		.cause = { 0, 2, 0x07 },
		.head = { 0x02, 0x07, 0x00, 0x00 },
		.len = 4,
	},
};

KUNIT_ARRAY_PARAM_DESC(term_vectors, term_vectors, desc);

/* The octets @v describes, in @wire; Return: their number. */
static unsigned int term_vector_wire(const struct term_vector *v, u8 *wire)
{
	unsigned int head = min(v->len, 6U);

	memcpy(wire, v->head, head);
	if (v->len > head)
		memcpy(wire + head, v->seg, v->len - head);
	return v->len;
}

/* @wire: control word and segment length, then @seg's first @n octets */
static unsigned int term_wire(u8 *wire, const u8 *head, const u8 *seg,
			      unsigned int n)
{
	memcpy(wire, head, 6);
	memcpy(wire + 6, seg, n);
	return 6 + n;
}

static void rdmap_term_build_gives_vector_octets(struct kunit *test)
{
	const struct term_vector *v = test->param_value;
	struct rdmap_term_offender seg = {
		.hdr = v->seg, .len = v->seg_avail, .seg_len = v->seg_len,
	};
	static const u8 zero[RDMAP_TERM_MAX_SIZE];
	u8 wire[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_hdr t;
	unsigned int len;

	term_vector_wire(v, wire);
	memset(&t, 0xa5, sizeof(t));
	len = swi_rdmap_term_build(&t, &v->cause, v->seg ? &seg : NULL);
	KUNIT_ASSERT_EQ(test, len, v->len);
	KUNIT_EXPECT_MEMEQ(test, &t, wire, v->len);
	KUNIT_EXPECT_MEMEQ(test, (u8 *)&t + len, zero, sizeof(t) - len);
}

static void rdmap_term_parse_gives_vector_fields(struct kunit *test)
{
	const struct term_vector *v = test->param_value;
	u16 flags = (v->head[2] & 0xe0) << 8;
	u8 wire[RDMAP_TERM_MAX_SIZE], buf[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_info ti;
	int n;

	term_vector_wire(v, wire);
	KUNIT_ASSERT_EQ(test, swi_rdmap_term_parse(wire, v->len, &ti), v->len);
	SWI_EXPECT_TERM_CAUSE_EQ(test, ti.cause, v->cause);
	KUNIT_EXPECT_EQ(test, ti.flags, flags);
	if (!flags) {
		KUNIT_EXPECT_EQ(test, ti.has, 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, ti.seg_len, v->seg_len);
	KUNIT_ASSERT_TRUE(test, ti.has & RDMAP_TERM_HAS_DDP);
	n = swi_ddp_hdr_build(buf, sizeof(buf), &ti.ddp);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_MEMEQ(test, buf, v->seg, n);
	if (!(flags & RDMAP_TERM_R)) {
		KUNIT_EXPECT_FALSE(test, ti.has & RDMAP_TERM_HAS_RREQ);
		return;
	}
	KUNIT_ASSERT_TRUE(test, ti.has & RDMAP_TERM_HAS_RREQ);
	swi_rdmap_read_req_build((struct rdmap_read_req *)buf, &ti.rreq);
	KUNIT_EXPECT_MEMEQ(test, buf, v->seg + n, RDMAP_READ_REQ_SIZE);
}

/* Each proper prefix of a Terminate is refused: no length is trusted. */
static void rdmap_term_parse_refuses_truncated(struct kunit *test)
{
	const struct term_vector *v = test->param_value;
	u8 wire[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_info ti;
	unsigned int n;

	term_vector_wire(v, wire);
	for (n = 0; n < v->len; n++)
		KUNIT_EXPECT_EQ_MSG(test, swi_rdmap_term_parse(wire, n, &ti),
				    -EBADMSG, "prefix of %u octets", n);
}

static void rdmap_term_parse_refuses_r_without_d(struct kunit *test)
{
	static const u8 head[6] = { 0x01, 0x00, 0x20, 0x00 };
	u8 wire[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_info ti;

	/* control word, then the Read Request header right away */
	memcpy(wire, head, 4);
	memcpy(wire + 4, seg_rreq + 18, RDMAP_READ_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, swi_rdmap_term_parse(wire, 4 + 28, &ti), -EBADMSG);
}

static void rdmap_term_parse_refuses_r_behind_tagged_hdr(struct kunit *test)
{
	static const u8 head[6] = { 0x01, 0x00, 0xe0, 0x00, 0x00, 0x2e };
	u8 wire[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_info ti;
	unsigned int len;

	len = term_wire(wire, head, seg_write, sizeof(seg_write));
	memcpy(wire + len, seg_rreq + 18, RDMAP_READ_REQ_SIZE);
	len += RDMAP_READ_REQ_SIZE;
	KUNIT_EXPECT_EQ(test, swi_rdmap_term_parse(wire, len, &ti), -EBADMSG);
}

static void rdmap_term_parse_ignores_reserved_bits(struct kunit *test)
{
	static const u8 wire[] = { 0x12, 0x01, 0x1f, 0xff };
	struct rdmap_term_info ti;

	KUNIT_ASSERT_EQ(test, swi_rdmap_term_parse(wire, sizeof(wire), &ti), 4);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, 1, 2, 1);
	KUNIT_EXPECT_EQ(test, ti.flags, 0);
	KUNIT_EXPECT_EQ(test, ti.has, 0);
}

/* D without M: the length field is there, but not valid. */
static void rdmap_term_parse_d_without_m_skips_length(struct kunit *test)
{
	static const u8 head[6] = { 0x12, 0x01, 0x40, 0x00, 0xff, 0xff };
	u8 wire[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_info ti;
	unsigned int len;

	len = term_wire(wire, head, seg_send, sizeof(seg_send));
	KUNIT_ASSERT_EQ(test, swi_rdmap_term_parse(wire, len, &ti), 24);
	KUNIT_EXPECT_EQ(test, ti.flags, RDMAP_TERM_D);
	KUNIT_EXPECT_EQ(test, ti.has,
			RDMAP_TERM_HAS_SEGLEN | RDMAP_TERM_HAS_DDP);
	KUNIT_EXPECT_EQ(test, ti.ddp.opcode, RDMAP_SEND);
	KUNIT_EXPECT_EQ(test, ti.ddp.msn, 1);
}

static void rdmap_term_parse_m_alone_reads_length(struct kunit *test)
{
	static const u8 wire[] = { 0x12, 0x05, 0x80, 0x00, 0x01, 0x02 };
	struct rdmap_term_info ti;

	KUNIT_ASSERT_EQ(test, swi_rdmap_term_parse(wire, sizeof(wire), &ti), 6);
	KUNIT_EXPECT_EQ(test, ti.has, RDMAP_TERM_HAS_SEGLEN);
	KUNIT_EXPECT_EQ(test, ti.seg_len, 0x0102);
}

static void rdmap_term_parse_ignores_trailing_octets(struct kunit *test)
{
	static const u8 head[6] = { 0x12, 0x01, 0xc0, 0x00, 0x00, 0x2a };
	u8 wire[RDMAP_TERM_MAX_SIZE];
	struct rdmap_term_info ti;
	unsigned int len;

	len = term_wire(wire, head, seg_send, sizeof(seg_send));
	memset(wire + len, 0xee, 4);
	KUNIT_EXPECT_EQ(test, swi_rdmap_term_parse(wire, len + 4, &ti), 24);
}

struct name_case {
	const char *desc;
	u8 layer;
	u8 etype;
	u8 code;
	const char *name;
};

static const struct name_case name_cases[] = {
	{ "DDP invalid QN", 1, 2, 0x01, "DDP invalid QN" },
	{ "DDP tagged TO wrap", 1, 1, 0x03, "DDP TO wrap" },
	{ "RDMAP TO wrap", 0, 1, 0x04, "RDMAP TO wrap" },
	{ "RDMAP access rights", 0, 1, 0x02,
	  "RDMAP access rights violation" },
	{ "RDMAP unexpected opcode", 0, 2, 0x06, "RDMAP unexpected opcode" },
	{ "LLP CRC error", 2, 0, 0x02, "LLP MPA CRC error" },
	{ "LLP no matching RTR", 2, 0, 0x07, "LLP no matching RTR" },
	{ "DDP untagged code 7 is unknown", 1, 2, 0x07, "DDP unknown error" },
	{ "DDP tagged base or bounds", 1, 1, 0x01,
	  "DDP base or bounds violation" },
	{ "RDMAP error type 3 is unknown", 0, 3, 0x00, "RDMAP unknown error" },
	{ "LLP error type 1 is unknown", 2, 1, 0x02, "LLP unknown error" },
	{ "layer 3 is unknown", 3, 0, 0x00, "unknown layer error" },
	{ "layer 15 is unknown", 15, 15, 0xff, "unknown layer error" },
};

KUNIT_ARRAY_PARAM_DESC(name_cases, name_cases, desc);

static void rdmap_term_name_gives_expected_name(struct kunit *test)
{
	const struct name_case *c = test->param_value;

	KUNIT_EXPECT_STREQ(test, swi_rdmap_term_name(c->layer, c->etype, c->code),
			   c->name);
}

/* Every (layer, error type, code) of the RFC tables has a name. */
static void rdmap_term_name_knows_every_rfc_triple(struct kunit *test)
{
	static const u8 triples[][3] = {
		{ 0, 0, 0x00 },
		{ 0, 1, 0x00 }, { 0, 1, 0x01 }, { 0, 1, 0x02 }, { 0, 1, 0x03 },
		{ 0, 1, 0x04 }, { 0, 1, 0x09 }, { 0, 1, 0xff },
		{ 0, 2, 0x05 }, { 0, 2, 0x06 }, { 0, 2, 0x07 }, { 0, 2, 0x08 },
		{ 0, 2, 0x09 }, { 0, 2, 0xff },
		{ 1, 0, 0x00 },
		{ 1, 1, 0x00 }, { 1, 1, 0x01 }, { 1, 1, 0x02 }, { 1, 1, 0x03 },
		{ 1, 1, 0x04 },
		{ 1, 2, 0x01 }, { 1, 2, 0x02 }, { 1, 2, 0x03 }, { 1, 2, 0x04 },
		{ 1, 2, 0x05 }, { 1, 2, 0x06 },
		{ 2, 0, 0x01 }, { 2, 0, 0x02 }, { 2, 0, 0x03 }, { 2, 0, 0x04 },
		{ 2, 0, 0x05 }, { 2, 0, 0x06 }, { 2, 0, 0x07 },
	};
	const char *name;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(triples); i++) {
		name = swi_rdmap_term_name(triples[i][0], triples[i][1],
					   triples[i][2]);
		KUNIT_ASSERT_NOT_NULL(test, name);
		KUNIT_EXPECT_NULL_MSG(test, strstr(name, "unknown"),
				      "%u/%u/0x%02x", triples[i][0],
				      triples[i][1], triples[i][2]);
	}
}

static struct kunit_case terminate_cases[] = {
	KUNIT_CASE_PARAM(rdmap_term_build_gives_vector_octets,
			 term_vectors_gen_params),
	KUNIT_CASE_PARAM(rdmap_term_parse_gives_vector_fields,
			 term_vectors_gen_params),
	KUNIT_CASE_PARAM(rdmap_term_parse_refuses_truncated,
			 term_vectors_gen_params),
	KUNIT_CASE(rdmap_term_parse_refuses_r_without_d),
	KUNIT_CASE(rdmap_term_parse_refuses_r_behind_tagged_hdr),
	KUNIT_CASE(rdmap_term_parse_ignores_reserved_bits),
	KUNIT_CASE(rdmap_term_parse_d_without_m_skips_length),
	KUNIT_CASE(rdmap_term_parse_m_alone_reads_length),
	KUNIT_CASE(rdmap_term_parse_ignores_trailing_octets),
	KUNIT_CASE_PARAM(rdmap_term_name_gives_expected_name,
			 name_cases_gen_params),
	KUNIT_CASE(rdmap_term_name_knows_every_rfc_triple),
	{}
};

static struct kunit_suite terminate_suite = {
	.name = "softiwarp_terminate",
	.test_cases = terminate_cases,
};

kunit_test_suites(&terminate_suite);
