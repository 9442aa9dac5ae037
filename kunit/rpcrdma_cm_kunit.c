// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_rpcrdma_cm
 *
 * The RFC 8797 private data codec against octets written by hand from
 * section 4 (Format Identifier f6 ab 0e 18 in network order, Version, the
 * R flag in the low bit of the flags octet, sizes as size / 1024 - 1): the
 * encoder must produce them, the decoder must read them, and the search of
 * section 5.2 must find them at any offset, including right behind the
 * 4 octets of MPA revision 2 enhanced data, and report "not present" when
 * they are absent or cut short, or carry an unknown version.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "cm/rpcrdma_cm.h"
#include "mpa/mpa_startup.h"

struct cm_vector {
	const char *desc;
	u8 wire[RPCRDMA_CM_SIZE];
	struct rpcrdma_cm_params p;
};

static const struct cm_vector cm_vectors[] = {
	{ "R send 4096 receive 262144",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0xff },
	  { true, 4096, 262144 } },
	{ "no R send 1024 receive 8192",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x00, 0x07 },
	  { false, 1024, 8192 } },
	{ "R send 262144 receive 1024",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0xff, 0x00 },
	  { true, 262144, 1024 } },
	{ "defaults of section 5.1",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x00, 0x00 },
	  { false, 1024, 1024 } },
};

KUNIT_ARRAY_PARAM_DESC(cm_vector, cm_vectors, desc);

static void expect_params_eq(struct kunit *test,
			     const struct rpcrdma_cm_params *got,
			     const struct rpcrdma_cm_params *want)
{
	KUNIT_EXPECT_EQ(test, got->remote_inv, want->remote_inv);
	KUNIT_EXPECT_EQ(test, got->send_size, want->send_size);
	KUNIT_EXPECT_EQ(test, got->recv_size, want->recv_size);
}

static void rpcrdma_cm_encode_matches_hand_vector(struct kunit *test)
{
	const struct cm_vector *v = test->param_value;
	u8 buf[RPCRDMA_CM_SIZE + 2];

	memset(buf, 0xa5, sizeof(buf));
	swi_rpcrdma_cm_encode(&v->p, buf + 1);	/* unaligned on purpose */
	KUNIT_EXPECT_MEMEQ(test, buf + 1, v->wire, RPCRDMA_CM_SIZE);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
	KUNIT_EXPECT_EQ(test, buf[RPCRDMA_CM_SIZE + 1], 0xa5);
}

static void rpcrdma_cm_decode_matches_hand_vector(struct kunit *test)
{
	const struct cm_vector *v = test->param_value;
	struct rpcrdma_cm_params p;

	KUNIT_ASSERT_EQ(test, swi_rpcrdma_cm_decode(v->wire, sizeof(v->wire), &p),
			0);
	expect_params_eq(test, &p, &v->p);
}

/* Every prefix shorter than 8 octets is "not present". */
static void rpcrdma_cm_truncated_is_not_present(struct kunit *test)
{
	const struct cm_vector *v = test->param_value;
	struct rpcrdma_cm_params p;
	unsigned int n;

	for (n = 0; n < RPCRDMA_CM_SIZE; n++) {
		KUNIT_EXPECT_EQ_MSG(test, swi_rpcrdma_cm_decode(v->wire, n, &p),
				    -ENOENT, "length %u", n);
		KUNIT_EXPECT_EQ_MSG(test, swi_rpcrdma_cm_find(v->wire, n, &p, NULL),
				    -ENOENT, "length %u", n);
	}
}

/* The message is found wherever it starts in a 24-octet buffer. */
static void rpcrdma_cm_found_at_every_offset(struct kunit *test)
{
	const struct cm_vector *v = test->param_value;
	struct rpcrdma_cm_params p;
	unsigned int off;
	size_t at;
	u8 buf[24];

	for (off = 0; off + RPCRDMA_CM_SIZE <= sizeof(buf); off++) {
		memset(buf, 0x55, sizeof(buf));
		memcpy(buf + off, v->wire, RPCRDMA_CM_SIZE);
		at = SIZE_MAX;
		KUNIT_EXPECT_EQ_MSG(test,
				    swi_rpcrdma_cm_find(buf, sizeof(buf), &p, &at),
				    0, "offset %u", off);
		KUNIT_EXPECT_EQ_MSG(test, at, off, "offset %u", off);
		expect_params_eq(test, &p, &v->p);
	}
}

struct size_case {
	const char *desc;
	u32 size;
	u8 enc;
};

static const struct size_case size_cases[] = {
	{ "1024 is 0", 1024, 0 },
	{ "2048 is 1", 2048, 1 },
	{ "4096 is 3", 4096, 3 },
	{ "131072 is 127", 131072, 127 },
	{ "262144 is 255", 262144, 255 },
	{ "2047 rounds down to 0", 2047, 0 },
	{ "4097 rounds down to 3", 4097, 3 },
	{ "1023 clamps to 0", 1023, 0 },
	{ "0 clamps to 0", 0, 0 },
	{ "263168 clamps to 255", 263168, 255 },
	{ "U32_MAX clamps to 255", U32_MAX, 255 },
};

KUNIT_ARRAY_PARAM_DESC(size, size_cases, desc);

static void rpcrdma_cm_size_encoding(struct kunit *test)
{
	const struct size_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_size_encode(c->size), c->enc);
}

static void rpcrdma_cm_size_decoding(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_size_decode(0), 1024U);
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_size_decode(1), 2048U);
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_size_decode(3), 4096U);
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_size_decode(127), 131072U);
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_size_decode(255), 262144U);
}

struct find_case {
	const char *desc;
	u8 buf[24];
	unsigned int len;
	int ret;
	size_t off;
	struct rpcrdma_cm_params p;
};

#define DEFAULTS { false, 1024, 1024 }

static const struct find_case find_cases[] = {
	{ "at offset 0",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0xff }, 8,
	  0, 0, { true, 4096, 262144 } },
	{ "unaligned at offset 3",
	  { 0x11, 0x22, 0x33,
	    0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x00, 0x07, 0x44 }, 12,
	  0, 3, { false, 1024, 8192 } },
	{ "right after MPA v2 enhanced data",
	  { 0x80, 0x10, 0xc0, 0x08,
	    0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0xff }, 12,
	  0, 4, { true, 4096, 262144 } },
	{ "followed by other private data",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x01, 0x01,
	    'm', 'o', 'r', 'e' }, 12,
	  0, 0, { false, 2048, 2048 } },
	{ "reserved flag bits ignored",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0xfe, 0x01, 0x01 }, 8,
	  0, 0, { false, 2048, 2048 } },
	{ "reserved flag bits ignored with R",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x01, 0xff, 0x01, 0x01 }, 8,
	  0, 0, { true, 2048, 2048 } },
	{ "identifier restarting inside a partial one",
	  { 0xf6, 0xab, 0x0e,
	    0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x00, 0x00 }, 11,
	  0, 3, DEFAULTS },
	{ "unknown version skipped for a later one",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x00, 0x00, 0x00,
	    0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x03 }, 16,
	  0, 8, { true, 4096, 4096 } },
	{ "absent", "no RPC-over-RDMA data", 21, -ENOENT, 0, DEFAULTS },
	{ "empty", { 0 }, 0, -ENOENT, 0, DEFAULTS },
	{ "identifier only", { 0xf6, 0xab, 0x0e, 0x18 }, 4,
	  -ENOENT, 0, DEFAULTS },
	{ "half an identifier", { 0xf6, 0xab }, 2, -ENOENT, 0, DEFAULTS },
	{ "truncated at the end",
	  { 0x00, 0x00, 0x00,
	    0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03 }, 10,
	  -ENOENT, 0, DEFAULTS },
	{ "little endian identifier",
	  { 0x18, 0x0e, 0xab, 0xf6, 0x01, 0x01, 0x03, 0x03 }, 8,
	  -ENOENT, 0, DEFAULTS },
	{ "version 2",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x02, 0x01, 0x03, 0x03 }, 8,
	  -EPROTONOSUPPORT, 0, DEFAULTS },
	{ "version 0",
	  { 0xf6, 0xab, 0x0e, 0x18, 0x00, 0x01, 0x03, 0x03 }, 8,
	  -EPROTONOSUPPORT, 0, DEFAULTS },
	{ "version 255 after MPA v2 data",
	  { 0x00, 0x04, 0x00, 0x04,
	    0xf6, 0xab, 0x0e, 0x18, 0xff, 0x00, 0x00, 0x00 }, 12,
	  -EPROTONOSUPPORT, 0, DEFAULTS },
};

KUNIT_ARRAY_PARAM_DESC(find, find_cases, desc);

static void rpcrdma_cm_find_table(struct kunit *test)
{
	const struct find_case *c = test->param_value;
	struct rpcrdma_cm_params p = { true, 7, 7 };
	size_t at = SIZE_MAX;

	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_find(c->buf, c->len, &p, &at), c->ret);
	expect_params_eq(test, &p, &c->p);
	KUNIT_EXPECT_EQ(test, at, c->ret ? SIZE_MAX : c->off);
}

static void rpcrdma_cm_decode_refuses_other_versions(struct kunit *test)
{
	static const u8 v2[] = {
		0xf6, 0xab, 0x0e, 0x18, 0x02, 0x01, 0x03, 0x03,
	};
	static const u8 v0[] = {
		0xf6, 0xab, 0x0e, 0x18, 0x00, 0x01, 0x03, 0x03,
	};
	struct rpcrdma_cm_params p;

	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_decode(v2, sizeof(v2), &p),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_decode(v0, sizeof(v0), &p),
			-EPROTONOSUPPORT);
}

static void rpcrdma_cm_defaults_are_section_5_1(struct kunit *test)
{
	struct rpcrdma_cm_params p = { true, 0, 0 };

	swi_rpcrdma_cm_defaults(&p);
	KUNIT_EXPECT_FALSE(test, p.remote_inv);
	KUNIT_EXPECT_EQ(test, p.send_size, 1024U);
	KUNIT_EXPECT_EQ(test, p.recv_size, 1024U);
}

/*
 * A hand-written MPA Request, Rev 2 with H: IRD 16, ORD 8, then the
 * RPC-over-RDMA message. The consumer gets it at offset 0; searching the
 * whole private data finds it behind the enhanced data.
 */
static void rpcrdma_cm_found_in_mpa_v2_request(struct kunit *test)
{
	static const u8 frame[] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
		0x10, 0x02, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x08,
		0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x0f, 0x1f,
	};
	struct mpa_startup_frame f;
	struct rpcrdma_cm_params p;
	size_t at = SIZE_MAX;

	KUNIT_ASSERT_EQ(test, swi_mpa_startup_parse(frame, sizeof(frame),
						    MPA_STARTUP_REQUEST, &f), 0);
	KUNIT_ASSERT_TRUE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_find(f.pdata, f.pdata_len, &p, &at),
			0);
	KUNIT_EXPECT_EQ(test, at, 0);
	KUNIT_EXPECT_TRUE(test, p.remote_inv);
	KUNIT_EXPECT_EQ(test, p.send_size, 16384U);
	KUNIT_EXPECT_EQ(test, p.recv_size, 32768U);

	at = SIZE_MAX;
	KUNIT_EXPECT_EQ(test, swi_rpcrdma_cm_find(frame + MPA_RR_HDR_SIZE,
						  sizeof(frame) - MPA_RR_HDR_SIZE,
						  &p, &at), 0);
	KUNIT_EXPECT_EQ(test, at, MPA_V2_DATA_SIZE);
}

static struct kunit_case rpcrdma_cm_cases[] = {
	KUNIT_CASE_PARAM(rpcrdma_cm_encode_matches_hand_vector,
			 cm_vector_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_cm_decode_matches_hand_vector,
			 cm_vector_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_cm_truncated_is_not_present,
			 cm_vector_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_cm_found_at_every_offset,
			 cm_vector_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_cm_size_encoding, size_gen_params),
	KUNIT_CASE(rpcrdma_cm_size_decoding),
	KUNIT_CASE_PARAM(rpcrdma_cm_find_table, find_gen_params),
	KUNIT_CASE(rpcrdma_cm_decode_refuses_other_versions),
	KUNIT_CASE(rpcrdma_cm_defaults_are_section_5_1),
	KUNIT_CASE(rpcrdma_cm_found_in_mpa_v2_request),
	{}
};

static struct kunit_suite rpcrdma_cm_suite = {
	.name = "softiwarp_rpcrdma_cm",
	.test_cases = rpcrdma_cm_cases,
};

kunit_test_suites(&rpcrdma_cm_suite);
