// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_ddp
 *
 * DDP headers and the RDMA Read Request header built and parsed against
 * octets written by hand from RFC 5041, RFC 5040 and the untagged Send of
 * RFC 5044 Figure 5; truncated headers refused; and the receive-side
 * validation table: every bad field gives its exact Terminate layer,
 * error type and code (written as the numbers of the RFC tables, not with
 * the driver's constants), good segments pass, with the boundaries: a
 * tagged segment ending at the end of its region or one octet past it,
 * at 2^64 or one octet past it, MO and MSN one off. The table runs
 * through swi_rdmap_rx_check(), which combines RDMAP's checks with DDP's;
 * DDP's checks alone (swi_ddp_rx_check_version(), swi_ddp_rx_check_buffer(),
 * swi_ddp_region_check()) give the DDP error of each DDP rule and leave
 * RDMAP's rules alone.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "ddp/ddp.h"
#include "kunit/helpers.h"
#include "rdmap/codec.h"
#include "rdmap/terminate.h"

struct hdr_vector {
	const char *desc;
	struct ddp_hdr_info h;
	u8 wire[DDP_UNTAGGED_HDR_SIZE];
	unsigned int len;
};

static const struct hdr_vector hdr_vectors[] = {
	{
		.desc = "RFC 5044 Figure 5: untagged Send, last, MSN 1",
		.h = { .last = 1, .dv = 1, .rv = 1, .opcode = RDMAP_SEND,
		       .msn = 1 },
		.wire = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
			  0, 0, 0, 1, 0, 0, 0, 0 },
		.len = 18,
	},
	{
		.desc = "tagged RDMA Write, not last",
		.h = { .tagged = 1, .dv = 1, .rv = 1, .opcode = RDMAP_WRITE,
		       .stag = 0x12345678, .to = 0x0001020304050607ULL },
		.wire = { 0x81, 0x40, 0x12, 0x34, 0x56, 0x78,
			  0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07 },
		.len = 14,
	},
	{
		.desc = "tagged Read Response, last, TO 2^64 - 1",
		.h = { .tagged = 1, .last = 1, .dv = 1, .rv = 1,
		       .opcode = RDMAP_READ_RESP, .stag = 0xdeadbeef,
		       .to = U64_MAX },
		.wire = { 0xc1, 0x42, 0xde, 0xad, 0xbe, 0xef,
			  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.len = 14,
	},
	{
		.desc = "Read Request on QN 1, MSN 7",
		.h = { .last = 1, .dv = 1, .rv = 1, .opcode = RDMAP_READ_REQ,
		       .qn = 1, .msn = 7 },
		.wire = { 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1,
			  0, 0, 0, 7, 0, 0, 0, 0 },
		.len = 18,
	},
	{
		.desc = "Send with SE and Invalidate, middle segment",
		.h = { .dv = 1, .rv = 1, .opcode = RDMAP_SEND_SE_INVAL,
		       .stag = 0xa1b2c3d4, .msn = 0x80000000, .mo = 0x10000 },
		.wire = { 0x01, 0x46, 0xa1, 0xb2, 0xc3, 0xd4, 0, 0, 0, 0,
			  0x80, 0, 0, 0, 0, 0x01, 0, 0 },
		.len = 18,
	},
	{
		.desc = "Terminate on QN 2, MSN 1",
		.h = { .last = 1, .dv = 1, .rv = 1, .opcode = RDMAP_TERMINATE,
		       .qn = 2, .msn = 1 },
		.wire = { 0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2,
			  0, 0, 0, 1, 0, 0, 0, 0 },
		.len = 18,
	},
	{
		.desc = "RDMAC peer: Send with DDP and RDMAP version 0",
		.h = { .last = 1, .opcode = RDMAP_SEND, .msn = 1 },
		.wire = { 0x40, 0x03, 0, 0, 0, 0, 0, 0, 0, 0,
			  0, 0, 0, 1, 0, 0, 0, 0 },
		.len = 18,
	},
};

KUNIT_ARRAY_PARAM_DESC(hdr_vectors, hdr_vectors, desc);

static void ddp_hdr_build_gives_vector_octets(struct kunit *test)
{
	const struct hdr_vector *v = test->param_value;
	u8 buf[DDP_UNTAGGED_HDR_SIZE + 1];

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, swi_ddp_hdr_build(buf, sizeof(buf), &v->h), v->len);
	KUNIT_EXPECT_MEMEQ(test, buf, v->wire, v->len);
	KUNIT_EXPECT_EQ(test, buf[v->len], 0xa5);
}

static void ddp_hdr_parse_gives_vector_fields(struct kunit *test)
{
	const struct hdr_vector *v = test->param_value;
	struct ddp_hdr_info h;

	memset(&h, 0xa5, sizeof(h));
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(v->wire, v->len, &h), v->len);
	KUNIT_EXPECT_EQ(test, h.tagged, v->h.tagged);
	KUNIT_EXPECT_EQ(test, h.last, v->h.last);
	KUNIT_EXPECT_EQ(test, h.dv, v->h.dv);
	KUNIT_EXPECT_EQ(test, h.rv, v->h.rv);
	KUNIT_EXPECT_EQ(test, h.opcode, v->h.opcode);
	KUNIT_EXPECT_EQ(test, h.stag, v->h.stag);
	KUNIT_EXPECT_EQ(test, h.to, v->h.to);
	KUNIT_EXPECT_EQ(test, h.qn, v->h.qn);
	KUNIT_EXPECT_EQ(test, h.msn, v->h.msn);
	KUNIT_EXPECT_EQ(test, h.mo, v->h.mo);
}

/* Every proper prefix of a header is refused. */
static void ddp_hdr_parse_refuses_truncated_header(struct kunit *test)
{
	const struct hdr_vector *v = test->param_value;
	struct ddp_hdr_info h;
	unsigned int n;

	for (n = 0; n < v->len; n++)
		KUNIT_EXPECT_EQ_MSG(test, swi_ddp_hdr_parse(v->wire, n, &h),
				    -EBADMSG, "prefix of %u octets", n);
}

static void ddp_hdr_build_refuses_short_buffer(struct kunit *test)
{
	const struct hdr_vector *v = test->param_value;
	u8 buf[DDP_UNTAGGED_HDR_SIZE];

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_EXPECT_EQ(test, swi_ddp_hdr_build(buf, v->len - 1, &v->h), -ENOSPC);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
}

/* RFC 5041 4.1 and RFC 5040 4.1: reserved bits are not checked. */
static void ddp_hdr_parse_ignores_reserved_bits(struct kunit *test)
{
	static const u8 wire[DDP_UNTAGGED_HDR_SIZE] = {
		0x7d, 0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	struct ddp_hdr_info h;

	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(wire, sizeof(wire), &h), 18);
	KUNIT_EXPECT_EQ(test, h.tagged, 0);
	KUNIT_EXPECT_EQ(test, h.last, 1);
	KUNIT_EXPECT_EQ(test, h.dv, 1);
	KUNIT_EXPECT_EQ(test, h.rv, 1);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_SEND);
	KUNIT_EXPECT_EQ(test, h.msn, 1);
}

static const struct rdmap_read_req_info rreq_info = {
	.sink_stag = 0x11223344,
	.sink_to = 0x0102030405060708ULL,
	.size = 0x00100000,
	.src_stag = 0x55667788,
	.src_to = 0xf0e0d0c0b0a09080ULL,
};

static const u8 rreq_wire[RDMAP_READ_REQ_SIZE] = {
	0x11, 0x22, 0x33, 0x44,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x10, 0x00, 0x00,
	0x55, 0x66, 0x77, 0x88,
	0xf0, 0xe0, 0xd0, 0xc0, 0xb0, 0xa0, 0x90, 0x80,
};

static void rdmap_read_req_build_gives_vector_octets(struct kunit *test)
{
	struct rdmap_read_req w;

	swi_rdmap_read_req_build(&w, &rreq_info);
	KUNIT_EXPECT_MEMEQ(test, &w, rreq_wire, sizeof(rreq_wire));
}

static void rdmap_read_req_parse_gives_vector_fields(struct kunit *test)
{
	struct rdmap_read_req_info r;

	KUNIT_ASSERT_EQ(test, swi_rdmap_read_req_parse(rreq_wire, 28, &r), 28);
	KUNIT_EXPECT_EQ(test, r.sink_stag, rreq_info.sink_stag);
	KUNIT_EXPECT_EQ(test, r.sink_to, rreq_info.sink_to);
	KUNIT_EXPECT_EQ(test, r.size, rreq_info.size);
	KUNIT_EXPECT_EQ(test, r.src_stag, rreq_info.src_stag);
	KUNIT_EXPECT_EQ(test, r.src_to, rreq_info.src_to);
	KUNIT_EXPECT_EQ(test, swi_rdmap_read_req_parse(rreq_wire, 27, &r),
			-EBADMSG);
}

/* The validation table */

#define RGN_BASE	0x10000ULL
#define RGN_LEN		0x1000ULL
#define RGN_END		(RGN_BASE + RGN_LEN)
#define TOP_BASE	(U64_MAX - 0xfffULL)	/* last 4 KiB below 2^64 */

#define UNTAGGED(op, qn_, msn_, mo_) \
	{ .last = 1, .dv = 1, .rv = 1, .opcode = (op), .qn = (qn_), \
	  .msn = (msn_), .mo = (mo_) }
#define TAGGED(op, to_) \
	{ .tagged = 1, .last = 1, .dv = 1, .rv = 1, .opcode = (op), \
	  .stag = 0x4711, .to = (to_) }
#define QUEUE(msn_, bufs, rcvd, blen) \
	{ .msn = (msn_), .buffers = (bufs), .received = (rcvd), \
	  .buf_len = (blen) }
#define REGION(base_, len_, acc) \
	{ .state = DDP_STAG_VALID, .access = (acc), .base = (base_), \
	  .len = (len_) }
#define WR	DDP_ACCESS_REMOTE_WRITE
#define RD	DDP_ACCESS_REMOTE_READ
#define REFUSE(l, e, c)	.ret = -EPROTO, .cause = { (l), (e), (c) }

/*
 * The DDP checks alone (swi_ddp_rx_check_version(), then swi_ddp_rx_check_buffer()):
 * each DDP rule gives its DDP error type and code; RDMAP's version,
 * opcode and queue of the opcode are not theirs to judge, and a missing
 * access right is -EACCES, for which DDP has no code.
 */
#define DDP_REFUSE(e, c)	.ret = -EPROTO, .err = { (e), (c) }

struct ddp_only_case {
	const char *desc;
	struct ddp_hdr_info h;
	u32 len;
	u8 rdmac;
	struct ddp_rx_queue q;		/* state of queue h.qn, when < 4 */
	struct ddp_stag_check stag;
	u8 no_stag;			/* pass no lookup result */
	int ret;
	struct ddp_error err;
};

static const struct ddp_only_case ddp_only_cases[] = {
	{ "DDP: DDP version 0 outside RDMAC mode",
	  { .last = 1, .rv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 0,
	  QUEUE(1, 1, 0, 64), {}, 0, DDP_REFUSE(2, 0x06) },
	{ "DDP: DDP version 0 in RDMAC mode",
	  { .last = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64) },
	{ "DDP: tagged DDP version 2",
	  { .tagged = 1, .dv = 2, .rv = 1, .opcode = RDMAP_WRITE,
	    .to = RGN_BASE }, 8, 0, {}, REGION(RGN_BASE, RGN_LEN, WR), 0,
	  DDP_REFUSE(1, 0x04) },
	{ "DDP: RDMAP version 2 and reserved opcode 0xf are not DDP's",
	  { .last = 1, .dv = 1, .rv = 2, .opcode = 0xf, .msn = 1 }, 8, 0,
	  QUEUE(1, 1, 0, 64) },
	{ "DDP: a Send on QN 2 is not DDP's to refuse",
	  UNTAGGED(RDMAP_SEND, 2, 1, 0), 8, 0, QUEUE(1, 1, 0, 64) },
	{ "DDP: a tagged Send is not DDP's to refuse",
	  TAGGED(RDMAP_SEND, RGN_BASE), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR) },
	{ "DDP: QN 4, past DDP_QN_COUNT", UNTAGGED(RDMAP_SEND, 4, 1, 0), 8,
	  0, {}, {}, 0, DDP_REFUSE(2, 0x01) },
	{ "DDP: MSN ahead without a buffer", UNTAGGED(RDMAP_SEND, 0, 2, 0),
	  8, 0, QUEUE(1, 1, 0, 64), {}, 0, DDP_REFUSE(2, 0x02) },
	{ "DDP: MSN behind", UNTAGGED(RDMAP_SEND, 0, 4, 0), 8, 0,
	  QUEUE(5, 8, 0, 64), {}, 0, DDP_REFUSE(2, 0x03) },
	{ "DDP: MO one past the octets received",
	  UNTAGGED(RDMAP_SEND, 0, 1, 1001), 8, 0, QUEUE(1, 1, 1000, 4096), {},
	  0, DDP_REFUSE(2, 0x04) },
	{ "DDP: one octet too long for the buffer",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0), 65, 0, QUEUE(1, 1, 0, 64), {}, 0,
	  DDP_REFUSE(2, 0x05) },
	{ "DDP: tagged, invalid STag", TAGGED(RDMAP_WRITE, RGN_BASE), 8, 0,
	  {}, { .state = DDP_STAG_INVALID }, 0, DDP_REFUSE(1, 0x00) },
	{ "DDP: tagged, no lookup result", TAGGED(RDMAP_WRITE, RGN_BASE), 8,
	  0, {}, {}, 1, DDP_REFUSE(1, 0x00) },
	{ "DDP: tagged, STag of another stream",
	  TAGGED(RDMAP_WRITE, RGN_BASE), 8, 0, {},
	  { .state = DDP_STAG_NOT_ASSOC, .access = WR, .base = RGN_BASE,
	    .len = RGN_LEN }, 0, DDP_REFUSE(1, 0x02) },
	{ "DDP: tagged, no remote write: no DDP code",
	  TAGGED(RDMAP_WRITE, RGN_BASE), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, RD), 0, .ret = -EACCES },
	{ "DDP: tagged, TO wrap", TAGGED(RDMAP_WRITE, U64_MAX), 2, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), 0, DDP_REFUSE(1, 0x03) },
	{ "DDP: tagged, one octet past the region",
	  TAGGED(RDMAP_WRITE, RGN_END - 7), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), 0, DDP_REFUSE(1, 0x01) },
	{ "DDP: tagged, zero length with an invalid STag",
	  TAGGED(RDMAP_WRITE, 0), 0, 0, {}, { .state = DDP_STAG_INVALID } },
};

KUNIT_ARRAY_PARAM_DESC(ddp_only_cases, ddp_only_cases, desc);

static void ddp_rx_checks_give_ddp_error(struct kunit *test)
{
	const struct ddp_only_case *c = test->param_value;
	struct ddp_error err = { 0xaa, 0xaa };
	struct ddp_rx_state rx = { .rdmac = c->rdmac };
	int ret, i;

	for (i = 0; i < DDP_QN_COUNT; i++)
		rx.queue[i] = (struct ddp_rx_queue)QUEUE(1, 1, 0, 4096);
	if (c->h.qn < DDP_QN_COUNT)
		rx.queue[c->h.qn] = c->q;
	ret = swi_ddp_rx_check_version(&c->h, &rx, &err);
	if (!ret)
		ret = swi_ddp_rx_check_buffer(&c->h, c->len, &rx,
					      c->no_stag ? NULL : &c->stag, &err);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (c->ret != -EPROTO) {
		/* untouched unless a DDP error is reported */
		KUNIT_EXPECT_EQ(test, err.etype, 0xaa);
		KUNIT_EXPECT_EQ(test, err.code, 0xaa);
		return;
	}
	KUNIT_EXPECT_EQ(test, err.etype, c->err.etype);
	KUNIT_EXPECT_EQ(test, err.code, c->err.code);
}

struct region_case {
	const char *desc;
	struct ddp_stag_check stag;
	u8 no_stag;
	u8 need;
	u64 to;
	u64 len;
	enum ddp_region_verdict v;
};

static const struct region_case region_cases[] = {
	{ "whole region, read and write", REGION(RGN_BASE, RGN_LEN, WR | RD),
	  0, WR | RD, RGN_BASE, RGN_LEN, DDP_REGION_OK },
	{ "no lookup result", {}, 1, RD, RGN_BASE, 1, DDP_REGION_INVALID },
	{ "invalid STag", { .state = DDP_STAG_INVALID }, 0, RD, RGN_BASE, 1,
	  DDP_REGION_INVALID },
	{ "STag of another stream",
	  { .state = DDP_STAG_NOT_ASSOC, .access = RD, .base = RGN_BASE,
	    .len = RGN_LEN }, 0, RD, RGN_BASE, 1, DDP_REGION_NOT_ASSOC },
	{ "write needed, read granted", REGION(RGN_BASE, RGN_LEN, RD), 0, WR,
	  RGN_BASE, 1, DDP_REGION_ACCESS },
	{ "wrap before bounds", REGION(RGN_BASE, RGN_LEN, RD), 0, RD,
	  U64_MAX, 2, DDP_REGION_WRAP },
	{ "ending at 2^64", REGION(TOP_BASE, 0x1000, RD), 0, RD,
	  U64_MAX, 1, DDP_REGION_OK },
	{ "one octet before the region", REGION(RGN_BASE, RGN_LEN, RD), 0, RD,
	  RGN_BASE - 1, 1, DDP_REGION_BOUNDS },
	{ "one octet past the region", REGION(RGN_BASE, RGN_LEN, RD), 0, RD,
	  RGN_BASE, RGN_LEN + 1, DDP_REGION_BOUNDS },
};

KUNIT_ARRAY_PARAM_DESC(region_cases, region_cases, desc);

static void ddp_region_check_gives_expected_verdict(struct kunit *test)
{
	const struct region_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, swi_ddp_region_check(c->no_stag ? NULL : &c->stag,
						   c->need, c->to, c->len), c->v);
}

struct rx_case {
	const char *desc;
	struct ddp_hdr_info h;
	u32 len;
	u8 rdmac;
	struct ddp_rx_queue q;		/* state of queue h.qn, when < 4 */
	struct ddp_stag_check stag;
	u8 no_stag;			/* pass no lookup result */
	int ret;
	struct rdmap_term_cause cause;
	u8 fixed;			/* the stream's versions are fixed: */
	u8 fixed_dv;			/* its DDP version */
	u8 fixed_rv;			/* and its RDMAP version */
};

/* An RDMAC stream whose first segment carried DDP version d, RDMAP r */
#define FIXED(d, r)	.fixed = 1, .fixed_dv = (d), .fixed_rv = (r)

static const struct rx_case rx_cases[] = {
	/* accepted */
	{ "Send, a whole message in one segment",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0), 100, 0, QUEUE(1, 1, 0, 4096) },
	{ "Send, second segment at MO 1000",
	  UNTAGGED(RDMAP_SEND, 0, 5, 1000), 100, 0, QUEUE(5, 1, 1000, 4096) },
	{ "Send filling its buffer exactly",
	  UNTAGGED(RDMAP_SEND, 0, 5, 1000), 3096, 0, QUEUE(5, 1, 1000, 4096) },
	{ "Send with Invalidate on QN 0",
	  UNTAGGED(RDMAP_SEND_INVAL, 0, 1, 0), 8, 0, QUEUE(1, 1, 0, 64) },
	{ "Send with Solicited Event on QN 0",
	  UNTAGGED(RDMAP_SEND_SE, 0, 1, 0), 8, 0, QUEUE(1, 1, 0, 64) },
	{ "Send with SE and Invalidate on QN 0",
	  UNTAGGED(RDMAP_SEND_SE_INVAL, 0, 1, 0), 8, 0, QUEUE(1, 1, 0, 64) },
	{ "zero-length Send",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0), 0, 0, QUEUE(1, 1, 0, 0) },
	{ "Read Request on QN 1",
	  UNTAGGED(RDMAP_READ_REQ, 1, 3, 0), 28, 0, QUEUE(3, 4, 0, 28) },
	{ "Terminate on QN 2",
	  UNTAGGED(RDMAP_TERMINATE, 2, 1, 0), 24, 0, QUEUE(1, 1, 0, 52) },
	{ "Send with MSN 2^32 - 1",
	  UNTAGGED(RDMAP_SEND, 0, U32_MAX, 0), 8, 0,
	  QUEUE(U32_MAX, 1, 0, 64) },
	{ "Send with MSN 0 after the wrap",
	  UNTAGGED(RDMAP_SEND, 0, 0, 0), 8, 0, QUEUE(0, 1, 0, 64) },
	{ "RDMAC mode: DDP and RDMAP version 0",
	  { .last = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64) },
	{ "RDMAC mode: version 1 accepted in the first segment",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0), 8, 1, QUEUE(1, 1, 0, 64) },
	{ "RDMAC mode: version 0 kept by the stream",
	  { .last = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64), FIXED(0, 0) },
	{ "RDMAC mode: version 1 kept by the stream",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0), 8, 1, QUEUE(1, 1, 0, 64),
	  FIXED(1, 1) },
	{ "Write inside its region",
	  TAGGED(RDMAP_WRITE, RGN_BASE + 0x100), 256, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR) },
	{ "Write ending exactly at the end of its region",
	  TAGGED(RDMAP_WRITE, RGN_END - 256), 256, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR) },
	{ "Write covering its whole region",
	  TAGGED(RDMAP_WRITE, RGN_BASE), RGN_LEN, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR) },
	{ "Read Response inside its region",
	  TAGGED(RDMAP_READ_RESP, RGN_BASE), 512, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR | RD) },
	{ "zero-length Write with an invalid STag",
	  TAGGED(RDMAP_WRITE, 0), 0, 0, {}, { .state = DDP_STAG_INVALID } },
	{ "Write ending exactly at 2^64",
	  TAGGED(RDMAP_WRITE, U64_MAX - 15), 16, 0, {},
	  REGION(TOP_BASE, 0x1000, WR) },
	/* DDP and RDMAP versions */
	{ "untagged DDP version 0 outside RDMAC mode",
	  { .last = 1, .rv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x06) },
	{ "untagged DDP version 3 in RDMAC mode",
	  { .last = 1, .dv = 3, .rv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8,
	  1, QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x06) },
	{ "tagged DDP version 2",
	  { .tagged = 1, .dv = 2, .rv = 1, .opcode = RDMAP_WRITE,
	    .to = RGN_BASE }, 8, 0, {}, REGION(RGN_BASE, RGN_LEN, WR),
	  REFUSE(1, 1, 0x04) },
	{ "tagged DDP version 0 outside RDMAC mode",
	  { .tagged = 1, .rv = 1, .opcode = RDMAP_WRITE, .to = RGN_BASE }, 8,
	  0, {}, REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x04) },
	{ "RDMAP version 0 outside RDMAC mode",
	  { .last = 1, .dv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x05) },
	{ "RDMAP version 2",
	  { .last = 1, .dv = 1, .rv = 2, .opcode = RDMAP_SEND, .msn = 1 }, 8,
	  1, QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x05) },
	{ "RDMAC mode: untagged DDP version 1 on a stream of version 0",
	  { .last = 1, .dv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x06), FIXED(0, 0) },
	{ "RDMAC mode: tagged DDP version 1 on a stream of version 0",
	  { .tagged = 1, .dv = 1, .opcode = RDMAP_WRITE, .to = RGN_BASE }, 8,
	  1, {}, REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x04),
	  FIXED(0, 0) },
	{ "RDMAC mode: untagged DDP version 0 on a stream of version 1",
	  { .last = 1, .rv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x06), FIXED(1, 1) },
	{ "RDMAC mode: tagged DDP version 0 on a stream of version 1",
	  { .tagged = 1, .rv = 1, .opcode = RDMAP_WRITE, .to = RGN_BASE }, 8,
	  1, {}, REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x04),
	  FIXED(1, 1) },
	{ "RDMAC mode: RDMAP version 1 on a stream of version 0",
	  { .last = 1, .rv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x05), FIXED(0, 0) },
	{ "RDMAC mode: RDMAP version 0 on a stream of version 1",
	  { .last = 1, .dv = 1, .opcode = RDMAP_SEND, .msn = 1 }, 8, 1,
	  QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x05), FIXED(1, 1) },
	{ "bad DDP and RDMAP versions: the DDP one is reported",
	  { .last = 1, .dv = 2, .rv = 2, .opcode = RDMAP_SEND, .msn = 1 }, 8,
	  0, QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x06) },
	/* opcodes and queues */
	{ "tagged Send", TAGGED(RDMAP_SEND, RGN_BASE), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(0, 2, 0x06) },
	{ "tagged Terminate", TAGGED(RDMAP_TERMINATE, RGN_BASE), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(0, 2, 0x06) },
	{ "tagged reserved opcode 0xf", TAGGED(0xf, RGN_BASE), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(0, 2, 0x06) },
	{ "untagged RDMA Write", UNTAGGED(RDMAP_WRITE, 0, 1, 0), 8, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x06) },
	{ "untagged Read Response", UNTAGGED(RDMAP_READ_RESP, 0, 1, 0), 8, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x06) },
	{ "untagged reserved opcode 0x8", UNTAGGED(0x8, 0, 1, 0), 8, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(0, 2, 0x06) },
	{ "Send on QN 3", UNTAGGED(RDMAP_SEND, 3, 1, 0), 8, 0, {},
	  REFUSE(1, 2, 0x01) },
	{ "Send on QN 2^32 - 1", UNTAGGED(RDMAP_SEND, U32_MAX, 1, 0), 8, 0,
	  {}, REFUSE(1, 2, 0x01) },
	{ "Send on QN 1", UNTAGGED(RDMAP_SEND, 1, 1, 0), 8, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x01) },
	{ "Read Request on QN 0", UNTAGGED(RDMAP_READ_REQ, 0, 1, 0), 28, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x01) },
	{ "Terminate on QN 0", UNTAGGED(RDMAP_TERMINATE, 0, 1, 0), 4, 0,
	  QUEUE(1, 1, 0, 64), REFUSE(1, 2, 0x01) },
	/* MSN */
	{ "MSN one past the expected, one buffer",
	  UNTAGGED(RDMAP_SEND, 0, 2, 0), 8, 0, QUEUE(1, 1, 0, 64),
	  REFUSE(1, 2, 0x02) },
	{ "MSN one past the expected, two buffers (a skipped message)",
	  UNTAGGED(RDMAP_SEND, 0, 2, 0), 8, 0, QUEUE(1, 2, 0, 64),
	  REFUSE(1, 2, 0x03) },
	{ "expected MSN but no buffer posted",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0), 8, 0, QUEUE(1, 0, 0, 0),
	  REFUSE(1, 2, 0x02) },
	{ "MSN one behind the expected",
	  UNTAGGED(RDMAP_SEND, 0, 4, 0), 8, 0, QUEUE(5, 8, 0, 64),
	  REFUSE(1, 2, 0x03) },
	{ "MSN 2^31 - 1 ahead: in range, no buffer",
	  UNTAGGED(RDMAP_SEND, 0, 0x80000000, 0), 8, 0, QUEUE(1, 8, 0, 64),
	  REFUSE(1, 2, 0x02) },
	{ "MSN 2^31 ahead: out of range",
	  UNTAGGED(RDMAP_SEND, 0, 0x80000001, 0), 8, 0, QUEUE(1, 8, 0, 64),
	  REFUSE(1, 2, 0x03) },
	{ "Read Request beyond the free IRD slots",
	  UNTAGGED(RDMAP_READ_REQ, 1, 9, 0), 28, 0, QUEUE(9, 0, 0, 28),
	  REFUSE(1, 2, 0x02) },
	/* MO and length */
	{ "MO one short of the octets received",
	  UNTAGGED(RDMAP_SEND, 0, 1, 999), 8, 0, QUEUE(1, 1, 1000, 4096),
	  REFUSE(1, 2, 0x04) },
	{ "MO one past the octets received",
	  UNTAGGED(RDMAP_SEND, 0, 1, 1001), 8, 0, QUEUE(1, 1, 1000, 4096),
	  REFUSE(1, 2, 0x04) },
	{ "first segment with MO 1",
	  UNTAGGED(RDMAP_SEND, 0, 1, 1), 8, 0, QUEUE(1, 1, 0, 4096),
	  REFUSE(1, 2, 0x04) },
	{ "Send one octet too long for its buffer",
	  UNTAGGED(RDMAP_SEND, 0, 5, 1000), 3097, 0, QUEUE(5, 1, 1000, 4096),
	  REFUSE(1, 2, 0x05) },
	{ "Read Request of 29 octets",
	  UNTAGGED(RDMAP_READ_REQ, 1, 1, 0), 29, 0, QUEUE(1, 1, 0, 28),
	  REFUSE(1, 2, 0x05) },
	{ "octets received plus length past 2^32",
	  UNTAGGED(RDMAP_SEND, 0, 1, 0xffffff00), 0x200, 0,
	  QUEUE(1, 1, 0xffffff00, U32_MAX), REFUSE(1, 2, 0x05) },
	/* tagged buffers */
	{ "Write with an invalid STag", TAGGED(RDMAP_WRITE, RGN_BASE), 8, 0,
	  {}, { .state = DDP_STAG_INVALID }, REFUSE(1, 1, 0x00) },
	{ "Write without a lookup result", TAGGED(RDMAP_WRITE, RGN_BASE), 8,
	  0, {}, {}, 1, REFUSE(1, 1, 0x00) },
	{ "Write with an STag of another stream",
	  TAGGED(RDMAP_WRITE, RGN_BASE), 8, 0, {},
	  { .state = DDP_STAG_NOT_ASSOC, .access = WR, .base = RGN_BASE,
	    .len = RGN_LEN }, REFUSE(1, 1, 0x02) },
	{ "Write to an STag without remote write",
	  TAGGED(RDMAP_WRITE, RGN_BASE), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, RD), REFUSE(0, 1, 0x02) },
	{ "Write one octet past the end of its region",
	  TAGGED(RDMAP_WRITE, RGN_END - 255), 256, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x01) },
	{ "Write starting at the end of its region",
	  TAGGED(RDMAP_WRITE, RGN_END), 1, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x01) },
	{ "Write starting one octet before its region",
	  TAGGED(RDMAP_WRITE, RGN_BASE - 1), 8, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x01) },
	{ "Write far beyond a region at TO 0",
	  TAGGED(RDMAP_WRITE, 0x8000000000000000ULL), 8, 0, {},
	  REGION(0, RGN_LEN, WR), REFUSE(1, 1, 0x01) },
	{ "Write one octet past 2^64: TO wrap",
	  TAGGED(RDMAP_WRITE, U64_MAX - 14), 16, 0, {},
	  REGION(TOP_BASE, 0x1000, WR), REFUSE(1, 1, 0x03) },
	{ "Write of 2 octets at TO 2^64 - 1: TO wrap",
	  TAGGED(RDMAP_WRITE, U64_MAX), 2, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x03) },
	{ "Read Response one octet past its region",
	  TAGGED(RDMAP_READ_RESP, RGN_BASE), RGN_LEN + 1, 0, {},
	  REGION(RGN_BASE, RGN_LEN, WR), REFUSE(1, 1, 0x01) },
};

KUNIT_ARRAY_PARAM_DESC(rx_cases, rx_cases, desc);

static const struct ddp_rx_queue rx_queue_default = QUEUE(1, 1, 0, 4096);

static void rdmap_rx_check_gives_expected_verdict(struct kunit *test)
{
	const struct rx_case *c = test->param_value;
	struct rdmap_term_cause cause = { 0xaa, 0xaa, 0xaa };
	struct ddp_rx_state rx = {
		.rdmac = c->rdmac, .ver_fixed = c->fixed, .dv = c->fixed_dv,
		.rv = c->fixed_rv,
	};
	int i;

	for (i = 0; i < RDMAP_QN_COUNT; i++)
		rx.queue[i] = rx_queue_default;
	if (c->h.qn < RDMAP_QN_COUNT)
		rx.queue[c->h.qn] = c->q;
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&c->h, c->len, &rx,
						 c->no_stag ? NULL : &c->stag,
						 &cause), c->ret);
	if (!c->ret) {
		/* untouched on success */
		KUNIT_EXPECT_EQ(test, cause.layer, 0xaa);
		return;
	}
	SWI_EXPECT_TERM_CAUSE_EQ(test, cause, c->cause);
}

/*
 * RFC 5041 section 4.1: DV is the same in every segment of a stream. On
 * an RDMAC stream the first segment accepted fixes it, and RDMAP's
 * version with it (swi_ddp_rx_fix_version()): a later segment of the other
 * version gets the error of a bad version on an IETF stream, 1/2/0x06
 * untagged, 1/1/0x04 tagged, 0/2/0x05 for RDMAP's. An IETF stream keeps
 * accepting version 1 only.
 */
static void ddp_rx_first_segment_fixes_the_version(struct kunit *test)
{
	const struct ddp_hdr_info v0 = {
		.last = 1, .opcode = RDMAP_SEND, .msn = 1,
	};
	const struct ddp_hdr_info v1 = UNTAGGED(RDMAP_SEND, 0, 1, 0);
	const struct ddp_hdr_info t1 = TAGGED(RDMAP_WRITE, 0);
	struct ddp_hdr_info rv1 = v0;
	struct ddp_rx_state rx = { .rdmac = 1 };
	struct ddp_rx_state ietf = { .rdmac = 0 };
	struct rdmap_term_cause cause = {};
	struct ddp_error err;
	int i;

	rv1.rv = 1;
	for (i = 0; i < DDP_QN_COUNT; i++) {
		rx.queue[i] = (struct ddp_rx_queue)QUEUE(1, 1, 0, 64);
		ietf.queue[i] = rx.queue[i];
	}
	/* nothing received yet: either version may come first */
	KUNIT_EXPECT_EQ(test, swi_ddp_rx_check_version(&v0, &rx, &err), 0);
	KUNIT_EXPECT_EQ(test, swi_ddp_rx_check_version(&v1, &rx, &err), 0);
	swi_ddp_rx_fix_version(&rx, &v0);
	KUNIT_EXPECT_EQ(test, rx.ver_fixed, 1);
	/* a later accepted segment changes nothing */
	swi_ddp_rx_fix_version(&rx, &v1);
	KUNIT_EXPECT_EQ(test, rx.dv, DDP_VERSION_RDMAC);
	KUNIT_EXPECT_EQ(test, rx.rv, RDMAP_VERSION_RDMAC);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&v0, 8, &rx, NULL, &cause), 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&v1, 8, &rx, NULL, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 1, 2, 0x06);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&t1, 0, &rx, NULL, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 1, 1, 0x04);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&rv1, 8, &rx, NULL, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 0, 2, 0x05);
	/* the other way round: a first segment of version 1 */
	rx.ver_fixed = 0;
	swi_ddp_rx_fix_version(&rx, &v1);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&v1, 8, &rx, NULL, &cause), 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&v0, 8, &rx, NULL, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 1, 2, 0x06);
	/* an IETF stream: version 1 only, before and after */
	swi_ddp_rx_fix_version(&ietf, &v1);
	KUNIT_EXPECT_EQ(test, ietf.ver_fixed, 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&v1, 8, &ietf, NULL, &cause), 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_rx_check(&v0, 8, &ietf, NULL, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 1, 2, 0x06);
}

#define SRC_BASE	0x20000ULL
#define SRC_LEN		0x2000ULL

#define RREQ(stag_, to_, size_) \
	{ .sink_stag = 0x99, .sink_to = 0x1000, .size = (size_), \
	  .src_stag = (stag_), .src_to = (to_) }

struct rreq_case {
	const char *desc;
	struct rdmap_read_req_info r;
	struct ddp_stag_check src;
	u8 no_src;
	int ret;
	struct rdmap_term_cause cause;
};

static const struct rreq_case rreq_cases[] = {
	{ "read inside the source region", RREQ(0x42, SRC_BASE + 8, 64),
	  REGION(SRC_BASE, SRC_LEN, RD) },
	{ "read of the whole source region", RREQ(0x42, SRC_BASE, SRC_LEN),
	  REGION(SRC_BASE, SRC_LEN, RD) },
	{ "zero-size read with an invalid STag", RREQ(0x42, 0, 0),
	  { .state = DDP_STAG_INVALID } },
	{ "read ending exactly at 2^64", RREQ(0x42, U64_MAX - 63, 64),
	  REGION(TOP_BASE, 0x1000, RD) },
	{ "invalid source STag", RREQ(0x42, SRC_BASE, 64),
	  { .state = DDP_STAG_INVALID }, 0, REFUSE(0, 1, 0x00) },
	{ "no lookup result", RREQ(0x42, SRC_BASE, 64), {}, 1,
	  REFUSE(0, 1, 0x00) },
	{ "source STag of another stream", RREQ(0x42, SRC_BASE, 64),
	  { .state = DDP_STAG_NOT_ASSOC, .access = RD, .base = SRC_BASE,
	    .len = SRC_LEN }, 0, REFUSE(0, 1, 0x03) },
	{ "source STag without remote read", RREQ(0x42, SRC_BASE, 64),
	  REGION(SRC_BASE, SRC_LEN, WR), 0, REFUSE(0, 1, 0x02) },
	{ "read one octet past the source region",
	  RREQ(0x42, SRC_BASE + 1, SRC_LEN), REGION(SRC_BASE, SRC_LEN, RD), 0,
	  REFUSE(0, 1, 0x01) },
	{ "read starting before the source region",
	  RREQ(0x42, SRC_BASE - 1, 2), REGION(SRC_BASE, SRC_LEN, RD), 0,
	  REFUSE(0, 1, 0x01) },
	{ "read one octet past 2^64: TO wrap", RREQ(0x42, U64_MAX - 62, 64),
	  REGION(TOP_BASE, 0x1000, RD), 0, REFUSE(0, 1, 0x04) },
};

KUNIT_ARRAY_PARAM_DESC(rreq_cases, rreq_cases, desc);

static void rdmap_read_req_check_gives_expected_verdict(struct kunit *test)
{
	const struct rreq_case *c = test->param_value;
	struct rdmap_term_cause cause = { 0xaa, 0xaa, 0xaa };

	KUNIT_EXPECT_EQ(test, swi_rdmap_read_req_check(&c->r,
						       c->no_src ? NULL : &c->src,
						       &cause), c->ret);
	if (!c->ret) {
		KUNIT_EXPECT_EQ(test, cause.layer, 0xaa);
		return;
	}
	SWI_EXPECT_TERM_CAUSE_EQ(test, cause, c->cause);
}

static struct kunit_case ddp_cases[] = {
	KUNIT_CASE_PARAM(ddp_hdr_build_gives_vector_octets,
			 hdr_vectors_gen_params),
	KUNIT_CASE_PARAM(ddp_hdr_parse_gives_vector_fields,
			 hdr_vectors_gen_params),
	KUNIT_CASE_PARAM(ddp_hdr_parse_refuses_truncated_header,
			 hdr_vectors_gen_params),
	KUNIT_CASE_PARAM(ddp_hdr_build_refuses_short_buffer,
			 hdr_vectors_gen_params),
	KUNIT_CASE(ddp_hdr_parse_ignores_reserved_bits),
	KUNIT_CASE(rdmap_read_req_build_gives_vector_octets),
	KUNIT_CASE(rdmap_read_req_parse_gives_vector_fields),
	KUNIT_CASE_PARAM(ddp_rx_checks_give_ddp_error,
			 ddp_only_cases_gen_params),
	KUNIT_CASE_PARAM(ddp_region_check_gives_expected_verdict,
			 region_cases_gen_params),
	KUNIT_CASE_PARAM(rdmap_rx_check_gives_expected_verdict,
			 rx_cases_gen_params),
	KUNIT_CASE(ddp_rx_first_segment_fixes_the_version),
	KUNIT_CASE_PARAM(rdmap_read_req_check_gives_expected_verdict,
			 rreq_cases_gen_params),
	{}
};

static struct kunit_suite ddp_suite = {
	.name = "softiwarp_ddp",
	.test_cases = ddp_cases,
};

kunit_test_suites(&ddp_suite);
