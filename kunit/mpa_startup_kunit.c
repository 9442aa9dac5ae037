// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mpa_startup
 *
 * The MPA Request/Reply codec and the startup negotiation. Byte vectors
 * are written by hand from RFC 5044 Figure 8 (keys, M C R H Rev PD_Length)
 * and the RFC 6581 enhanced data layout, never produced by the encoder
 * under test: they are parsed, and the canonical ones must also come out
 * of the encoder octet for octet. Then round trips over every revision
 * and flag combination, truncation at every length, PD_Length limits and
 * disagreements, wrong keys and garbage, and the negotiation table:
 * CRC and Markers per direction, revisions 0 to 2 in both roles, RFC 6581
 * IRD/ORD and peer-to-peer RTR selection, rejection.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "mpa/mpa_startup.h"

/*
 * Keys: "MPA ID Req Frame" is 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65
 * and "MPA ID Rep Frame" differs in its tenth octet, 0x70 (RFC 5044 7.1.1).
 */

/* Request, Rev 1, M and C, 3 octets "abc" */
static const u8 req_v1_mc[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0xc0, 0x01, 0x00, 0x03, 'a', 'b', 'c',
};

/* Request, Rev 2, C and H; P, IRD 16 | Write and Read RTR, ORD 8; "hi" */
static const u8 req_v2_p2p[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x50, 0x02, 0x00, 0x06,
	0x80, 0x10, 0xc0, 0x08, 'h', 'i',
};

/* Request, Rev 2, H; P, Send RTR, IRD 16383 | ORD 16383 */
static const u8 req_v2_max[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x10, 0x02, 0x00, 0x04, 0xff, 0xff, 0x3f, 0xff,
};

/* Reply, Rev 2, H; P, IRD 8 | Write RTR, ORD 4 */
static const u8 rep_v2_echo[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x10, 0x02, 0x00, 0x04, 0x80, 0x08, 0x80, 0x04,
};

/* Reply, Rev 2 without H, C; 1 octet "x" */
static const u8 rep_v2_plain[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x40, 0x02, 0x00, 0x01, 'x',
};

/* Reply, Rev 1, R (rejected); "no" */
static const u8 rep_v1_reject[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x20, 0x01, 0x00, 0x02, 'n', 'o',
};

/* Request of an RDMAC peer (Appendix C.2.4): Rev 0, M and C */
static const u8 req_v0_rdmac[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0xc0, 0x00, 0x00, 0x00,
};

/* The answer of a permissive responder to it: Rev 0, M and C */
static const u8 rep_v0_rdmac[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0xc0, 0x00, 0x00, 0x00,
};

/* Request with R and all four reserved bits set: none is checked */
static const u8 req_v1_res[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x2f, 0x01, 0x00, 0x00,
};

/* Rev 1 with the H bit: H is reserved in Rev 1, the 4 octets are data */
static const u8 req_v1_h[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x10, 0x01, 0x00, 0x04, 0x80, 0x10, 0x00, 0x08,
};

/* Reply, Rev 0 with H and 600 octets: Rev 0 allows up to 65535 */
static const u8 rep_v0_long_hdr[] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x10, 0x00, 0x02, 0x58,
};

struct wire_vector {
	const char *desc;
	const u8 *wire;
	unsigned int len;
	struct mpa_startup_frame f;	/* pdata: the expected consumer data */
};

#define WIRE(a) .wire = a, .len = sizeof(a)

/* Frames we send exactly like this: parse and build must both agree. */
static const struct wire_vector canonical_vectors[] = {
	{ "Request Rev 1 M C with private data", WIRE(req_v1_mc),
	  { .kind = MPA_STARTUP_REQUEST, .rev = 1, .markers = true,
	    .crc = true, .pdata = "abc", .pdata_len = 3 } },
	{ "Request Rev 2 P2P IRD 16 ORD 8 Write Read", WIRE(req_v2_p2p),
	  { .kind = MPA_STARTUP_REQUEST, .rev = 2, .crc = true,
	    .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 16, .ord = 8,
	    .pdata = "hi", .pdata_len = 2 } },
	{ "Request Rev 2 P2P Send IRD ORD 16383", WIRE(req_v2_max),
	  { .kind = MPA_STARTUP_REQUEST, .rev = 2, .enhanced = true,
	    .p2p = true, .rtr = MPA_RTR_SEND, .ird = 16383,
	    .ord = 16383 } },
	{ "Reply Rev 2 P2P echo Write IRD 8 ORD 4", WIRE(rep_v2_echo),
	  { .kind = MPA_STARTUP_REPLY, .rev = 2, .enhanced = true,
	    .p2p = true, .rtr = MPA_RTR_WRITE, .ird = 8, .ord = 4 } },
	{ "Reply Rev 2 without H", WIRE(rep_v2_plain),
	  { .kind = MPA_STARTUP_REPLY, .rev = 2, .crc = true,
	    .pdata = "x", .pdata_len = 1 } },
	{ "Reply Rev 1 rejected with reason", WIRE(rep_v1_reject),
	  { .kind = MPA_STARTUP_REPLY, .rev = 1, .rejected = true,
	    .pdata = "no", .pdata_len = 2 } },
	{ "Request Rev 0 RDMAC M C", WIRE(req_v0_rdmac),
	  { .kind = MPA_STARTUP_REQUEST, .rev = 0, .markers = true,
	    .crc = true } },
	{ "Reply Rev 0 M C", WIRE(rep_v0_rdmac),
	  { .kind = MPA_STARTUP_REPLY, .rev = 0, .markers = true,
	    .crc = true } },
};

KUNIT_ARRAY_PARAM_DESC(canonical, canonical_vectors, desc);

/* Frames a peer may send that we would encode differently. */
static const struct wire_vector lenient_vectors[] = {
	{ "Request R and reserved bits ignored", WIRE(req_v1_res),
	  { .kind = MPA_STARTUP_REQUEST, .rev = 1 } },
	{ "Rev 1 with H has no enhanced data", WIRE(req_v1_h),
	  { .kind = MPA_STARTUP_REQUEST, .rev = 1,
	    .pdata = "\x80\x10\x00\x08", .pdata_len = 4 } },
};

KUNIT_ARRAY_PARAM_DESC(lenient, lenient_vectors, desc);

static enum mpa_startup_kind other_kind(enum mpa_startup_kind kind)
{
	return kind == MPA_STARTUP_REQUEST ? MPA_STARTUP_REPLY :
					     MPA_STARTUP_REQUEST;
}

static void expect_frame_eq(struct kunit *test,
			    const struct mpa_startup_frame *got,
			    const struct mpa_startup_frame *want)
{
	KUNIT_EXPECT_EQ(test, got->kind, want->kind);
	KUNIT_EXPECT_EQ(test, got->rev, want->rev);
	KUNIT_EXPECT_EQ(test, got->markers, want->markers);
	KUNIT_EXPECT_EQ(test, got->crc, want->crc);
	KUNIT_EXPECT_EQ(test, got->rejected, want->rejected);
	KUNIT_EXPECT_EQ(test, got->enhanced, want->enhanced);
	KUNIT_EXPECT_EQ(test, got->p2p, want->p2p);
	KUNIT_EXPECT_EQ(test, got->rtr, want->rtr);
	KUNIT_EXPECT_EQ(test, got->ird, want->ird);
	KUNIT_EXPECT_EQ(test, got->ord, want->ord);
	KUNIT_ASSERT_EQ(test, got->pdata_len, want->pdata_len);
	if (want->pdata_len)
		KUNIT_EXPECT_MEMEQ(test, got->pdata, want->pdata,
				   want->pdata_len);
}

static void mpa_startup_parses_vector(struct kunit *test,
				      const struct wire_vector *v)
{
	struct mpa_startup_frame f;

	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(v->wire, v->len, v->f.kind), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_parse(v->wire, v->len, v->f.kind, &f),
			0);
	expect_frame_eq(test, &f, &v->f);
	if (f.pdata_len)
		KUNIT_EXPECT_PTR_EQ(test, f.pdata,
				    v->wire + v->len - v->f.pdata_len);
}

static void mpa_startup_parse_matches_hand_vector(struct kunit *test)
{
	mpa_startup_parses_vector(test, test->param_value);
}

static void mpa_startup_parse_ignores_reserved_bits(struct kunit *test)
{
	mpa_startup_parses_vector(test, test->param_value);
}

static void mpa_startup_build_matches_hand_vector(struct kunit *test)
{
	const struct wire_vector *v = test->param_value;
	u8 buf[64];

	KUNIT_ASSERT_LE(test, v->len, sizeof(buf));
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_frame_len(&v->f), v->len);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_build(&v->f, buf, sizeof(buf)),
			(int)v->len);
	KUNIT_EXPECT_MEMEQ(test, buf, v->wire, v->len);
	KUNIT_EXPECT_EQ(test, buf[v->len], 0xa5);	/* no overrun */
}

/* Every truncation asks for more octets, and never past the frame end. */
static void mpa_startup_truncated_needs_more(struct kunit *test)
{
	const struct wire_vector *v = test->param_value;
	struct mpa_startup_frame f;
	unsigned int n;
	int need;

	for (n = 0; n < v->len; n++) {
		need = swi_mpa_startup_need(v->wire, n, v->f.kind);
		KUNIT_EXPECT_GT_MSG(test, need, 0, "at length %u", n);
		KUNIT_EXPECT_LE_MSG(test, n + need, v->len, "at length %u", n);
		if (n >= MPA_RR_HDR_SIZE)
			KUNIT_EXPECT_EQ_MSG(test, n + need, v->len,
					    "at length %u", n);
		KUNIT_EXPECT_EQ_MSG(test,
				    swi_mpa_startup_parse(v->wire, n, v->f.kind,
							  &f),
				    -EPROTO, "at length %u", n);
	}
}

/* A reader that reads what swi_mpa_startup_need() asks for ends on the frame. */
static void mpa_startup_need_guides_reader_to_frame_end(struct kunit *test)
{
	const struct wire_vector *v = test->param_value;
	unsigned int n = 0, reads = 0;
	int need;

	while ((need = swi_mpa_startup_need(v->wire, n, v->f.kind)) > 0 &&
	       reads < 4) {
		n += need;
		reads++;
	}
	KUNIT_EXPECT_EQ(test, need, 0);
	KUNIT_EXPECT_EQ(test, n, v->len);
	KUNIT_EXPECT_EQ(test, reads, v->len > MPA_RR_HDR_SIZE ? 2U : 1U);
}

/* One octet behind the frame: PD_Length disagrees with the data. */
static void mpa_startup_trailing_octet_is_malformed(struct kunit *test)
{
	const struct wire_vector *v = test->param_value;
	struct mpa_startup_frame f;
	u8 buf[64];

	KUNIT_ASSERT_LT(test, v->len, sizeof(buf));
	memcpy(buf, v->wire, v->len);
	buf[v->len] = 0;
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(buf, v->len + 1, v->f.kind),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_parse(buf, v->len + 1, v->f.kind,
						    &f), -EPROTO);
}

/* The other key is refused, as soon as the first differing octet is in. */
static void mpa_startup_other_key_is_refused(struct kunit *test)
{
	const struct wire_vector *v = test->param_value;
	enum mpa_startup_kind wrong = other_kind(v->f.kind);
	struct mpa_startup_frame f;

	/* "MPA ID Re" is common to both keys; 'q' and 'p' differ */
	KUNIT_EXPECT_GT(test, swi_mpa_startup_need(v->wire, 9, wrong), 0);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(v->wire, 10, wrong), -EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(v->wire, v->len, wrong),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_parse(v->wire, v->len, wrong, &f),
			-EBADMSG);
}

/* A key damaged at any octet is refused once that octet has arrived. */
static void mpa_startup_damaged_key_is_refused(struct kunit *test)
{
	const struct wire_vector *v = test->param_value;
	struct mpa_startup_frame f;
	unsigned int i;
	u8 buf[64];

	KUNIT_ASSERT_LE(test, v->len, sizeof(buf));
	for (i = 0; i < MPA_KEY_SIZE; i++) {
		memcpy(buf, v->wire, v->len);
		buf[i] ^= 0x20;
		KUNIT_EXPECT_GT_MSG(test, swi_mpa_startup_need(buf, i, v->f.kind),
				    0, "octet %u", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    swi_mpa_startup_need(buf, i + 1, v->f.kind),
				    -EBADMSG, "octet %u", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    swi_mpa_startup_parse(buf, v->len, v->f.kind,
							  &f),
				    -EBADMSG, "octet %u", i);
	}
}

static void mpa_startup_long_rev0_private_data_accepted(struct kunit *test)
{
	struct mpa_startup_frame f;
	u8 *buf;

	buf = kunit_kzalloc(test, sizeof(rep_v0_long_hdr) + 600, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, rep_v0_long_hdr, sizeof(rep_v0_long_hdr));
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(buf, MPA_RR_HDR_SIZE,
						   MPA_STARTUP_REPLY), 600);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_parse(buf, MPA_RR_HDR_SIZE + 600,
						    MPA_STARTUP_REPLY, &f), 0);
	KUNIT_EXPECT_EQ(test, f.rev, 0);
	KUNIT_EXPECT_FALSE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.pdata_len, 600);
}

struct pd_len_case {
	const char *desc;
	u8 bits_hi;	/* M C R H Res */
	u8 rev;
	u16 pd_len;
	int need;	/* swi_mpa_startup_need() on the 20 header octets */
};

static const struct pd_len_case pd_len_cases[] = {
	{ "Rev 1 PD_Length 512 accepted", 0x00, 1, 512, 512 },
	{ "Rev 1 PD_Length 513 too long", 0x00, 1, 513, -EMSGSIZE },
	{ "Rev 1 PD_Length 65535 too long", 0x00, 1, 65535, -EMSGSIZE },
	{ "Rev 2 H PD_Length 512 accepted", 0x10, 2, 512, 512 },
	{ "Rev 2 H PD_Length 513 too long", 0x10, 2, 513, -EMSGSIZE },
	{ "Rev 2 PD_Length 513 too long", 0x00, 2, 513, -EMSGSIZE },
	{ "Rev 2 H PD_Length 3 short of enhanced data", 0x10, 2, 3, -EPROTO },
	{ "Rev 2 H PD_Length 0 short of enhanced data", 0x10, 2, 0, -EPROTO },
	{ "Rev 2 H PD_Length 4 accepted", 0x10, 2, 4, 4 },
	{ "Rev 2 PD_Length 0 complete", 0x00, 2, 0, 0 },
	{ "Rev 1 H PD_Length 0 complete", 0x10, 1, 0, 0 },
	{ "Rev 0 PD_Length 513 accepted", 0x00, 0, 513, 513 },
	{ "Rev 0 PD_Length 65535 accepted", 0xc0, 0, 65535, 65535 },
	{ "Rev 3 PD_Length 513 too long", 0x00, 3, 513, -EMSGSIZE },
};

KUNIT_ARRAY_PARAM_DESC(pd_len, pd_len_cases, desc);

static void mpa_startup_pd_length_limits(struct kunit *test)
{
	const struct pd_len_case *c = test->param_value;
	u8 hdr[MPA_RR_HDR_SIZE] = "MPA ID Req Frame";

	hdr[16] = c->bits_hi;
	hdr[17] = c->rev;
	hdr[18] = c->pd_len >> 8;
	hdr[19] = c->pd_len & 0xff;
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(hdr, sizeof(hdr),
						   MPA_STARTUP_REQUEST), c->need);
}

struct garbage_case {
	const char *desc;
	u8 bytes[24];
	bool random;
};

static const struct garbage_case garbage_cases[] = {
	{ "all zeros", { 0 } },
	{ "all ones", { [0 ... 23] = 0xff } },
	{ "HTTP request", "GET / HTTP/1.1\r\nHost: x" },
	{ "TLS ClientHello", { 0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00 } },
	{ "lower case key", "mpa id req frame\x80\x01\x00\x00" },
	{ "random octets", { 0 }, true },
};

KUNIT_ARRAY_PARAM_DESC(garbage, garbage_cases, desc);

static void mpa_startup_garbage_is_refused(struct kunit *test)
{
	const struct garbage_case *c = test->param_value;
	struct mpa_startup_frame f;
	u8 buf[24];

	memcpy(buf, c->bytes, sizeof(buf));
	if (c->random)
		prandom_bytes_state(&(struct rnd_state){ 5, 6, 7, 8 }, buf,
				    sizeof(buf));
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(buf, sizeof(buf),
						   MPA_STARTUP_REQUEST), -EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(buf, sizeof(buf),
						   MPA_STARTUP_REPLY), -EBADMSG);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_parse(buf, sizeof(buf),
						    MPA_STARTUP_REQUEST, &f),
			-EBADMSG);
}

struct round_trip_case {
	const char *desc;
	struct mpa_startup_frame f;	/* M, C and R are varied */
};

static const struct round_trip_case round_trip_cases[] = {
	{ "Request Rev 0", { .kind = MPA_STARTUP_REQUEST, .rev = 0 } },
	{ "Request Rev 0 600 octets",
	  { .kind = MPA_STARTUP_REQUEST, .rev = 0, .pdata_len = 600 } },
	{ "Reply Rev 0 7 octets",
	  { .kind = MPA_STARTUP_REPLY, .rev = 0, .pdata_len = 7 } },
	{ "Request Rev 1", { .kind = MPA_STARTUP_REQUEST, .rev = 1 } },
	{ "Request Rev 1 512 octets",
	  { .kind = MPA_STARTUP_REQUEST, .rev = 1, .pdata_len = 512 } },
	{ "Reply Rev 1 100 octets",
	  { .kind = MPA_STARTUP_REPLY, .rev = 1, .pdata_len = 100 } },
	{ "Request Rev 2 without H",
	  { .kind = MPA_STARTUP_REQUEST, .rev = 2, .pdata_len = 9 } },
	{ "Reply Rev 2 without H 512 octets",
	  { .kind = MPA_STARTUP_REPLY, .rev = 2, .pdata_len = 512 } },
	{ "Request Rev 2 H client-server",
	  { .kind = MPA_STARTUP_REQUEST, .rev = 2, .enhanced = true,
	    .ird = 1, .ord = 2 } },
	{ "Request Rev 2 H P2P all RTR 508 octets",
	  { .kind = MPA_STARTUP_REQUEST, .rev = 2, .enhanced = true,
	    .p2p = true, .rtr = MPA_RTR_ALL, .ird = 127, .ord = 128,
	    .pdata_len = 508 } },
	{ "Request Rev 2 H P2P Send",
	  { .kind = MPA_STARTUP_REQUEST, .rev = 2, .enhanced = true,
	    .p2p = true, .rtr = MPA_RTR_SEND, .ird = 16383 } },
	{ "Reply Rev 2 H P2P Read",
	  { .kind = MPA_STARTUP_REPLY, .rev = 2, .enhanced = true,
	    .p2p = true, .rtr = MPA_RTR_READ, .ord = 16383,
	    .pdata_len = 33 } },
	{ "Reply Rev 2 H P2P Write",
	  { .kind = MPA_STARTUP_REPLY, .rev = 2, .enhanced = true,
	    .p2p = true, .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 } },
};

KUNIT_ARRAY_PARAM_DESC(round_trip, round_trip_cases, desc);

static void mpa_startup_round_trip_one(struct kunit *test,
				       const struct mpa_startup_frame *in,
				       u8 *buf, size_t size)
{
	size_t len = swi_mpa_startup_frame_len(in);
	struct mpa_startup_frame out;

	KUNIT_ASSERT_EQ(test, swi_mpa_startup_build(in, buf, size), (int)len);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_need(buf, len, in->kind), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_parse(buf, len, in->kind, &out), 0);
	expect_frame_eq(test, &out, in);
	KUNIT_EXPECT_PTR_EQ(test, out.pdata, buf + len - in->pdata_len);
}

/* Build then parse gives the frame back, for M, C and R in every state. */
static void mpa_startup_round_trip_all_flags(struct kunit *test)
{
	const struct round_trip_case *c = test->param_value;
	size_t size = MPA_RR_HDR_SIZE + 1024;
	struct mpa_startup_frame in = c->f;
	unsigned int flags;
	u8 *buf, *pdata;

	buf = kunit_kzalloc(test, size, GFP_KERNEL);
	pdata = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, pdata);
	prandom_bytes_state(&(struct rnd_state){ 1, 2, 3, 4 }, pdata, 1024);
	in.pdata = in.pdata_len ? pdata : NULL;
	for (flags = 0; flags < 8; flags++) {
		in.markers = flags & 1;
		in.crc = flags & 2;
		in.rejected = flags & 4;
		if (in.rejected && in.kind == MPA_STARTUP_REQUEST)
			continue;
		kunit_info(test, "M %d C %d R %d", in.markers, in.crc,
			   in.rejected);
		mpa_startup_round_trip_one(test, &in, buf, size);
	}
}

struct build_error_case {
	const char *desc;
	struct mpa_startup_frame f;
	size_t size;
	int err;
};

static const u8 zeros[1024];

static const struct build_error_case build_error_cases[] = {
	{ "Request with R", { .kind = MPA_STARTUP_REQUEST, .rev = 1,
			      .rejected = true }, 64, -EINVAL },
	{ "Rev 3", { .kind = MPA_STARTUP_REQUEST, .rev = 3 }, 64, -EINVAL },
	{ "enhanced data in Rev 1", { .kind = MPA_STARTUP_REPLY, .rev = 1,
				      .enhanced = true }, 64, -EINVAL },
	{ "IRD over 14 bits", { .kind = MPA_STARTUP_REPLY, .rev = 2,
				.enhanced = true, .ird = 0x4000 }, 64,
	  -EINVAL },
	{ "ORD over 14 bits", { .kind = MPA_STARTUP_REPLY, .rev = 2,
				.enhanced = true, .ord = 0xffff }, 64,
	  -EINVAL },
	{ "unknown RTR bit", { .kind = MPA_STARTUP_REQUEST, .rev = 2,
			       .enhanced = true, .p2p = true,
			       .rtr = 0x08 }, 64, -EINVAL },
	{ "length without data", { .kind = MPA_STARTUP_REQUEST, .rev = 1,
				   .pdata_len = 1 }, 64, -EINVAL },
	{ "Rev 1 513 octets", { .kind = MPA_STARTUP_REQUEST, .rev = 1,
				.pdata = zeros, .pdata_len = 513 }, 1024,
	  -EMSGSIZE },
	{ "Rev 2 H 509 octets", { .kind = MPA_STARTUP_REQUEST, .rev = 2,
				  .enhanced = true, .pdata = zeros,
				  .pdata_len = 509 }, 1024, -EMSGSIZE },
	{ "buffer one octet short", { .kind = MPA_STARTUP_REPLY, .rev = 2,
				      .enhanced = true, .pdata = zeros,
				      .pdata_len = 3 }, 26, -ENOSPC },
};

KUNIT_ARRAY_PARAM_DESC(build_error, build_error_cases, desc);

static void mpa_startup_build_refuses_bad_frame(struct kunit *test)
{
	const struct build_error_case *c = test->param_value;
	u8 *buf;

	buf = kunit_kzalloc(test, c->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_build(&c->f, buf, c->size), c->err);
}

/* Negotiation */

struct crc_marker_case {
	const char *desc;
	bool local_c, peer_c, local_m, peer_m;
	bool crc, markers_tx, markers_rx;
};

/* RFC 5044 7.1.1: C in either frame; M asks for Markers towards its sender */
static const struct crc_marker_case crc_marker_cases[] = {
	{ "C 0/0 M 0/0", 0, 0, 0, 0, 0, 0, 0 },
	{ "C 0/0 M 0/1", 0, 0, 0, 1, 0, 1, 0 },
	{ "C 0/0 M 1/0", 0, 0, 1, 0, 0, 0, 1 },
	{ "C 0/0 M 1/1", 0, 0, 1, 1, 0, 1, 1 },
	{ "C 0/1 M 0/0", 0, 1, 0, 0, 1, 0, 0 },
	{ "C 0/1 M 0/1", 0, 1, 0, 1, 1, 1, 0 },
	{ "C 0/1 M 1/0", 0, 1, 1, 0, 1, 0, 1 },
	{ "C 0/1 M 1/1", 0, 1, 1, 1, 1, 1, 1 },
	{ "C 1/0 M 0/0", 1, 0, 0, 0, 1, 0, 0 },
	{ "C 1/0 M 0/1", 1, 0, 0, 1, 1, 1, 0 },
	{ "C 1/0 M 1/0", 1, 0, 1, 0, 1, 0, 1 },
	{ "C 1/0 M 1/1", 1, 0, 1, 1, 1, 1, 1 },
	{ "C 1/1 M 0/0", 1, 1, 0, 0, 1, 0, 0 },
	{ "C 1/1 M 0/1", 1, 1, 0, 1, 1, 1, 0 },
	{ "C 1/1 M 1/0", 1, 1, 1, 0, 1, 0, 1 },
	{ "C 1/1 M 1/1", 1, 1, 1, 1, 1, 1, 1 },
};

KUNIT_ARRAY_PARAM_DESC(crc_marker, crc_marker_cases, desc);

/* Local/peer C and M, in both roles, Rev 1 and Rev 2 peers. */
static void mpa_startup_crc_and_markers_per_direction(struct kunit *test)
{
	const struct crc_marker_case *c = test->param_value;
	struct mpa_startup_policy pol = {
		.rev = 2, .crc = c->local_c, .markers_rx = c->local_m,
	};
	struct mpa_startup_frame peer = {
		.crc = c->peer_c, .markers = c->peer_m,
	};
	struct mpa_startup_result res;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		enum mpa_startup_role role = i & 1 ? MPA_STARTUP_INITIATOR :
						     MPA_STARTUP_RESPONDER;

		peer.rev = i & 2 ? 2 : 1;
		peer.kind = role == MPA_STARTUP_INITIATOR ?
			    MPA_STARTUP_REPLY : MPA_STARTUP_REQUEST;
		KUNIT_ASSERT_EQ(test,
				swi_mpa_startup_negotiate(&pol, role, &peer, &res),
				0);
		KUNIT_EXPECT_EQ(test, res.rev, peer.rev);
		KUNIT_EXPECT_EQ(test, res.crc_tx, c->crc);
		KUNIT_EXPECT_EQ(test, res.crc_rx, c->crc);
		KUNIT_EXPECT_EQ(test, res.markers_tx, c->markers_tx);
		KUNIT_EXPECT_EQ(test, res.markers_rx, c->markers_rx);
		KUNIT_EXPECT_EQ(test, res.ddp_rdmap_ver, 1);
	}
}

struct nego_case {
	const char *desc;
	enum mpa_startup_role role;
	struct mpa_startup_policy pol;
	struct mpa_startup_frame peer;
	int ret;
	struct mpa_startup_result res;
};

#define RSP MPA_STARTUP_RESPONDER
#define INI MPA_STARTUP_INITIATOR
#define RQ MPA_STARTUP_REQUEST
#define RP MPA_STARTUP_REPLY

static const struct nego_case nego_cases[] = {
	/* RFC 6581 IRD and ORD */
	{ "responder IRD ORD fit", RSP,
	  { .rev = 2, .crc = true, .ird = 16, .ord = 8 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 8, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .crc_tx = true, .crc_rx = true,
	       .enhanced = true, .ird = 16, .ord = 8 } },
	{ "responder peer ORD over our IRD insufficient IRD", RSP,
	  { .rev = 2, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 8, .ord = 8 },
	  -EPROTO, { .error = MPA_ERR_INSUFFICIENT_IRD, .rev = 2,
		     .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
		     .ord = 4 } },
	{ "responder ORD lowered to peer IRD", RSP,
	  { .rev = 2, .ird = 16, .ord = 16 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 2, .ord = 2 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 16,
	       .ord = 2 } },
	{ "responder strict ORD over peer IRD insufficient IRD", RSP,
	  { .rev = 2, .ord_strict = true, .ird = 16, .ord = 16 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 2, .ord = 2 },
	  -EPROTO, { .error = MPA_ERR_INSUFFICIENT_IRD, .rev = 2,
		     .ddp_rdmap_ver = 1, .enhanced = true, .ird = 16,
		     .ord = 16 } },
	{ "initiator reply ORD over our IRD insufficient IRD", INI,
	  { .rev = 2, .ird = 2, .ord = 2 },
	  { .kind = RP, .rev = 2, .enhanced = true, .ird = 2, .ord = 3 },
	  -EPROTO, { .error = MPA_ERR_INSUFFICIENT_IRD, .rev = 2,
		     .ddp_rdmap_ver = 1, .enhanced = true, .ird = 2,
		     .ord = 2 } },
	{ "responder initiator ORD 0x3FFF keeps IRD replies 0x3FFF", RSP,
	  { .rev = 2, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 4, .ord = 0x3FFF },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 4, .rep_ird = 0x3FFF } },
	{ "responder initiator IRD 0x3FFF keeps ORD replies 0x3FFF", RSP,
	  { .rev = 2, .ird = 4, .ord = 8 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 0x3FFF, .ord = 2 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 8, .rep_ord = 0x3FFF } },
	{ "initiator reply IRD 0x3FFF keeps ORD", INI,
	  { .rev = 2, .ird = 4, .ord = 8 },
	  { .kind = RP, .rev = 2, .enhanced = true, .ird = 0x3FFF, .ord = 2 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 8 } },
	{ "initiator reply ORD 0x3FFF keeps IRD", INI,
	  { .rev = 2, .ird = 2, .ord = 2 },
	  { .kind = RP, .rev = 2, .enhanced = true, .ird = 4, .ord = 0x3FFF },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 2,
	       .ord = 2 } },
	{ "initiator ORD 0 from reply IRD 0", INI,
	  { .rev = 2, .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .ird = 0, .ord = 0 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 0 } },
	{ "initiator ORD lowered to reply IRD", INI,
	  { .rev = 2, .ird = 8, .ord = 8 },
	  { .kind = RP, .rev = 2, .enhanced = true, .ird = 1, .ord = 8 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 8,
	       .ord = 1 } },
	/* RFC 6581 peer-to-peer and RTR */
	{ "responder echoes P2P with every offered type it supports", RSP,
	  { .rev = 2, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 } },
	{ "responder P2P echoes Write and Read not its unsupported Send", RSP,
	  { .rev = 2, .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 4,
	    .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 4, .ord = 4 } },
	{ "responder P2P echoes Read and Send without Write", RSP,
	  { .rev = 2, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_READ | MPA_RTR_SEND, .ird = 4, .ord = 1 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_READ | MPA_RTR_SEND, .ird = 4, .ord = 4 } },
	{ "responder P2P no Read RTR with its IRD 0", RSP,
	  { .rev = 2, .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 0,
	    .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 4, .ord = 0x3FFF },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE, .ird = 0, .ord = 4,
	       .rep_ird = 0x3FFF } },
	{ "responder P2P Read only with its IRD 0 names Write", RSP,
	  { .rev = 2, .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 0,
	    .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_READ, .ird = 4, .ord = 0x3FFF },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE, .ird = 0, .ord = 4,
	       .rep_ird = 0x3FFF } },
	{ "responder P2P no Read RTR with initiator ORD 0", RSP,
	  { .rev = 2, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_READ | MPA_RTR_SEND, .ird = 4, .ord = 0 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_SEND, .ird = 4, .ord = 4 } },
	{ "responder P2P Send only vs Write Read names Write", RSP,
	  { .rev = 2, .rtr = MPA_RTR_WRITE | MPA_RTR_READ, .ird = 4,
	    .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_SEND, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 } },
	{ "responder P2P without RTR offered names Write", RSP,
	  { .rev = 2, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 } },
	{ "responder P2P supporting no RTR no matching RTR", RSP,
	  { .rev = 2, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_SEND, .ird = 4, .ord = 4 },
	  -EPROTO, { .error = MPA_ERR_NO_MATCHING_RTR, .rev = 2,
		     .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
		     .ird = 4, .ord = 4 } },
	{ "responder echoes P2P whatever its own p2p wish", RSP,
	  { .rev = 2, .p2p = false, .rtr = MPA_RTR_SEND, .ird = 4,
	    .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_SEND, .ird = 4, .ord = 4 } },
	{ "responder RTR bits without P are no P2P", RSP,
	  { .rev = 2, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .rtr = MPA_RTR_ALL,
	    .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 4 } },
	{ "initiator accepts P2P echo with Write", INI,
	  { .rev = 2, .p2p = true, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 } },
	{ "initiator picks Write from a reply naming all three", INI,
	  { .rev = 2, .p2p = true, .rtr = MPA_RTR_WRITE, .ird = 4,
	    .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 } },
	{ "initiator picks Read from Read and Send offering both", INI,
	  { .rev = 2, .p2p = true, .rtr = MPA_RTR_READ | MPA_RTR_SEND,
	    .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
	       .rtr = MPA_RTR_READ, .ird = 4, .ord = 4 } },
	{ "initiator reply RTR not offered no matching RTR", INI,
	  { .rev = 2, .p2p = true, .rtr = MPA_RTR_SEND, .ird = 4,
	    .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 },
	  -EPROTO, { .error = MPA_ERR_NO_MATCHING_RTR, .rev = 2,
		     .ddp_rdmap_ver = 1, .enhanced = true, .p2p = true,
		     .ird = 4, .ord = 4 } },
	{ "initiator reply without P is client-server", INI,
	  { .rev = 2, .p2p = true, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .ird = 4, .ord = 4 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 4 } },
	{ "initiator reply with P not asked for invalid", INI,
	  { .rev = 2, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 2, .enhanced = true, .p2p = true,
	    .rtr = MPA_RTR_WRITE, .ird = 4, .ord = 4 },
	  -EPROTO, { .error = MPA_ERR_REQ_REP, .rev = 2, .ddp_rdmap_ver = 1,
		     .enhanced = true, .ird = 4, .ord = 4 } },
	/* Revisions */
	{ "initiator Rev 2 vs Rev 1 reply carries on as Rev 1", INI,
	  { .rev = 2, .p2p = true, .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 1 },
	  0, { .rev = 1, .ddp_rdmap_ver = 1, .ird = 4, .ord = 4 } },
	{ "initiator Rev 1 vs Rev 2 reply invalid", INI,
	  { .rev = 1 },
	  { .kind = RP, .rev = 2, .enhanced = true },
	  -EPROTO, { .error = MPA_ERR_REQ_REP } },
	{ "responder Rev 2 answers Rev 1 request with Rev 1", RSP,
	  { .rev = 2, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 1 },
	  0, { .rev = 1, .ddp_rdmap_ver = 1, .ird = 4, .ord = 4 } },
	{ "responder Rev 1 answers Rev 2 request with Rev 2", RSP,
	  { .rev = 1, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2, .enhanced = true, .ird = 2, .ord = 2 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .enhanced = true, .ird = 4,
	       .ord = 2 } },
	{ "responder Rev 2 request without H no enhanced data", RSP,
	  { .rev = 2, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 2 },
	  0, { .rev = 2, .ddp_rdmap_ver = 1, .ird = 4, .ord = 4 } },
	{ "responder permissive Rev 0 request", RSP,
	  { .rev = 2, .permissive = true, .ird = 4, .ord = 4 },
	  { .kind = RQ, .rev = 0, .markers = true, .crc = true },
	  0, { .rev = 0, .ddp_rdmap_ver = 0, .crc_tx = true, .crc_rx = true,
	       .markers_tx = true, .markers_rx = true, .ird = 4,
	       .ord = 4 } },
	{ "responder permissive Rev 0 request without M C", RSP,
	  { .rev = 1, .permissive = true },
	  { .kind = RQ, .rev = 0 },
	  0, { .rev = 0, .ddp_rdmap_ver = 0, .crc_tx = true, .crc_rx = true,
	       .markers_tx = true, .markers_rx = true } },
	{ "initiator permissive Rev 0 reply", INI,
	  { .rev = 2, .permissive = true, .crc = false, .markers_rx = false,
	    .ird = 4, .ord = 4 },
	  { .kind = RP, .rev = 0, .markers = true, .crc = true },
	  0, { .rev = 0, .ddp_rdmap_ver = 0, .crc_tx = true, .crc_rx = true,
	       .markers_tx = true, .markers_rx = true, .ird = 4,
	       .ord = 4 } },
	{ "responder not permissive Rev 0 request invalid", RSP,
	  { .rev = 2 },
	  { .kind = RQ, .rev = 0, .markers = true, .crc = true },
	  -EPROTO, { .error = MPA_ERR_REQ_REP } },
	{ "initiator not permissive Rev 0 reply invalid", INI,
	  { .rev = 1 },
	  { .kind = RP, .rev = 0, .markers = true, .crc = true },
	  -EPROTO, { .error = MPA_ERR_REQ_REP } },
	{ "responder Rev 3 request invalid", RSP,
	  { .rev = 2, .permissive = true },
	  { .kind = RQ, .rev = 3 },
	  -EPROTO, { .error = MPA_ERR_REQ_REP } },
	/* Roles and rejection */
	{ "initiator given a Request invalid", INI,
	  { .rev = 1 },
	  { .kind = RQ, .rev = 1 },
	  -EPROTO, { .error = MPA_ERR_REQ_REP } },
	{ "responder given a Reply invalid", RSP,
	  { .rev = 1 },
	  { .kind = RP, .rev = 1 },
	  -EPROTO, { .error = MPA_ERR_REQ_REP } },
	{ "initiator rejected by peer", INI,
	  { .rev = 1, .crc = true },
	  { .kind = RP, .rev = 1, .rejected = true, .markers = true },
	  -ECONNREFUSED, { .rejected = true, .rev = 1, .ddp_rdmap_ver = 1,
			   .crc_tx = true, .crc_rx = true,
			   .markers_tx = true } },
	{ "initiator rejected before IRD check", INI,
	  { .rev = 2, .ird = 1, .ord = 1 },
	  { .kind = RP, .rev = 2, .rejected = true, .enhanced = true,
	    .ord = 100 },
	  -ECONNREFUSED, { .rejected = true, .rev = 2, .ddp_rdmap_ver = 1,
			   .ird = 1, .ord = 1 } },
	{ "policy Rev 0 refused", INI,
	  { .rev = 0, .permissive = true },
	  { .kind = RP, .rev = 0 },
	  -EINVAL, { } },
	{ "policy IRD over 14 bits refused", RSP,
	  { .rev = 2, .ird = 0x4000 },
	  { .kind = RQ, .rev = 2 },
	  -EINVAL, { } },
};

KUNIT_ARRAY_PARAM_DESC(nego, nego_cases, desc);

static void mpa_startup_negotiation_table(struct kunit *test)
{
	const struct nego_case *c = test->param_value;
	const struct mpa_startup_result *want = &c->res;
	struct mpa_startup_result res;

	memset(&res, 0x5a, sizeof(res));
	KUNIT_EXPECT_EQ(test, swi_mpa_startup_negotiate(&c->pol, c->role,
							&c->peer, &res), c->ret);
	KUNIT_EXPECT_EQ(test, res.error, want->error);
	KUNIT_EXPECT_EQ(test, res.rejected, want->rejected);
	KUNIT_EXPECT_EQ(test, res.rev, want->rev);
	KUNIT_EXPECT_EQ(test, res.ddp_rdmap_ver, want->ddp_rdmap_ver);
	KUNIT_EXPECT_EQ(test, res.crc_tx, want->crc_tx);
	KUNIT_EXPECT_EQ(test, res.crc_rx, want->crc_rx);
	KUNIT_EXPECT_EQ(test, res.markers_tx, want->markers_tx);
	KUNIT_EXPECT_EQ(test, res.markers_rx, want->markers_rx);
	KUNIT_EXPECT_EQ(test, res.enhanced, want->enhanced);
	KUNIT_EXPECT_EQ(test, res.p2p, want->p2p);
	KUNIT_EXPECT_EQ(test, res.rtr, want->rtr);
	KUNIT_EXPECT_EQ(test, res.ird, want->ird);
	KUNIT_EXPECT_EQ(test, res.ord, want->ord);
	/* what a Reply announces: the same, unless 0x3FFF is echoed */
	KUNIT_EXPECT_EQ(test, res.rep_ird, want->rep_ird ?: want->ird);
	KUNIT_EXPECT_EQ(test, res.rep_ord, want->rep_ord ?: want->ord);
}

static void mpa_startup_negotiate_refuses_unknown_role(struct kunit *test)
{
	struct mpa_startup_policy pol = { .rev = 1 };
	struct mpa_startup_frame peer = { .kind = MPA_STARTUP_REQUEST,
					  .rev = 1 };
	struct mpa_startup_result res;
	enum mpa_startup_role bad = (enum mpa_startup_role)7;

	KUNIT_EXPECT_EQ(test, swi_mpa_startup_negotiate(&pol, bad, &peer, &res),
			-EINVAL);
}

/* Whole responder path: hand-written Request in, exact Reply out. */
static void respond_and_expect(struct kunit *test,
			       const struct mpa_startup_policy *pol,
			       const u8 *req, size_t req_len,
			       const char *pdata, const u8 *rep,
			       size_t rep_len)
{
	struct mpa_startup_frame peer, reply;
	struct mpa_startup_result res;
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, swi_mpa_startup_parse(req, req_len,
						    MPA_STARTUP_REQUEST, &peer), 0);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_negotiate(pol, MPA_STARTUP_RESPONDER,
							&peer, &res), 0);
	swi_mpa_startup_reply(pol, &res, pdata, pdata ? strlen(pdata) : 0,
			      &reply);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_build(&reply, buf, sizeof(buf)),
			(int)rep_len);
	KUNIT_EXPECT_MEMEQ(test, buf, rep, rep_len);
}

static void mpa_startup_permissive_responder_answers_rdmac(struct kunit *test)
{
	struct mpa_startup_policy pol = { .rev = 2, .permissive = true };

	respond_and_expect(test, &pol, req_v0_rdmac, sizeof(req_v0_rdmac),
			   NULL, rep_v0_rdmac, sizeof(rep_v0_rdmac));
}

static void mpa_startup_responder_answers_p2p_request(struct kunit *test)
{
	struct mpa_startup_policy pol = {
		.rev = 2, .crc = true, .rtr = MPA_RTR_ALL, .ird = 8, .ord = 4,
	};
	/* Reply, Rev 2, C H; P, IRD 8 | Write and Read RTR, ORD 4; "ok" */
	static const u8 want[] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
		0x50, 0x02, 0x00, 0x06,
		0x80, 0x08, 0xc0, 0x04, 'o', 'k',
	};

	respond_and_expect(test, &pol, req_v2_p2p, sizeof(req_v2_p2p), "ok",
			   want, sizeof(want));
}

static void mpa_startup_responder_answers_rev1_request(struct kunit *test)
{
	struct mpa_startup_policy pol = { .rev = 2, .ird = 8, .ord = 8 };
	/* Reply, Rev 1, no M (ours), no C (ours): CRC is still on */
	static const u8 want[] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
		0x00, 0x01, 0x00, 0x00,
	};

	respond_and_expect(test, &pol, req_v1_mc, sizeof(req_v1_mc), NULL,
			   want, sizeof(want));
}

static void mpa_startup_initiator_request_bytes(struct kunit *test)
{
	struct mpa_startup_policy pol = {
		.rev = 2, .markers_rx = true, .p2p = true,
		.rtr = MPA_RTR_WRITE | MPA_RTR_SEND, .ird = 4, .ord = 2,
	};
	/* Request, Rev 2, M H; P Send RTR IRD 4 | Write RTR ORD 2; "abc" */
	static const u8 want[] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
		0x90, 0x02, 0x00, 0x07,
		0xc0, 0x04, 0x80, 0x02, 'a', 'b', 'c',
	};
	struct mpa_startup_frame req;
	u8 buf[64];

	swi_mpa_startup_request(&pol, "abc", 3, &req);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_build(&req, buf, sizeof(buf)),
			(int)sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
}

static void mpa_startup_initiator_rev1_request_bytes(struct kunit *test)
{
	struct mpa_startup_policy pol = {
		.rev = 1, .crc = true, .p2p = true, .rtr = MPA_RTR_ALL,
		.ird = 4, .ord = 2,
	};
	/* Request, Rev 1, C: no enhanced data, hence no P2P */
	static const u8 want[] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
		0x40, 0x01, 0x00, 0x00,
	};
	struct mpa_startup_frame req;
	u8 buf[64];

	swi_mpa_startup_request(&pol, NULL, 0, &req);
	KUNIT_ASSERT_EQ(test, swi_mpa_startup_build(&req, buf, sizeof(buf)),
			(int)sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
}

static struct kunit_case mpa_startup_cases[] = {
	KUNIT_CASE_PARAM(mpa_startup_parse_matches_hand_vector,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_build_matches_hand_vector,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_parse_ignores_reserved_bits,
			 lenient_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_round_trip_all_flags,
			 round_trip_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_truncated_needs_more,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_need_guides_reader_to_frame_end,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_trailing_octet_is_malformed,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_other_key_is_refused,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_damaged_key_is_refused,
			 canonical_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_pd_length_limits, pd_len_gen_params),
	KUNIT_CASE(mpa_startup_long_rev0_private_data_accepted),
	KUNIT_CASE_PARAM(mpa_startup_garbage_is_refused, garbage_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_build_refuses_bad_frame,
			 build_error_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_crc_and_markers_per_direction,
			 crc_marker_gen_params),
	KUNIT_CASE_PARAM(mpa_startup_negotiation_table, nego_gen_params),
	KUNIT_CASE(mpa_startup_negotiate_refuses_unknown_role),
	KUNIT_CASE(mpa_startup_permissive_responder_answers_rdmac),
	KUNIT_CASE(mpa_startup_responder_answers_p2p_request),
	KUNIT_CASE(mpa_startup_responder_answers_rev1_request),
	KUNIT_CASE(mpa_startup_initiator_request_bytes),
	KUNIT_CASE(mpa_startup_initiator_rev1_request_bytes),
	{}
};

static struct kunit_suite mpa_startup_suite = {
	.name = "softiwarp_mpa_startup",
	.test_cases = mpa_startup_cases,
};

kunit_test_suites(&mpa_startup_suite);
