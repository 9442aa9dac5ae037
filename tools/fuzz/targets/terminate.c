// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a received Terminate (rdmap/terminate.c, RFC 5040 section
 * 4.8) and a received RDMA Read Request (rdmap/codec.c, section 4.4).
 *
 * Input: octet 0 selects (bit 0: the rest is a Read Request, else a
 * Terminate); the rest is the message's payload behind its DDP header.
 *
 * Properties: the parsers take no octet past the input; a parsed Read
 * Request built again and parsed is the same; a parsed Terminate's cause
 * has a name (known or "unknown"), and the Terminate our builder writes
 * for that cause, about the DDP header and Read Request it carried, parses
 * back to the same cause and, where the builder copies them, the same
 * headers.
 */
#include "ddp/ddp.h"
#include "rdmap/codec.h"
#include "rdmap/rdmap_proto.h"
#include "rdmap/terminate.h"

static void fail(const char *why)
{
	fprintf(stderr, "terminate: property broken: %s\n", why);
	abort();
}

static void read_request(const u8 *d, size_t n)
{
	struct rdmap_read_req_info r, s;
	struct rdmap_read_req w;
	int len;

	memset(&r, 0, sizeof(r));	/* the padding is compared too */
	memset(&s, 0, sizeof(s));
	len = swi_rdmap_read_req_parse(d, n, &r);

	if (len < 0)
		return;
	if ((size_t)len > n)
		fail("a Read Request longer than the input");
	swi_rdmap_read_req_build(&w, &r);
	if (swi_rdmap_read_req_parse(&w, sizeof(w), &s) != len ||
	    memcmp(&r, &s, sizeof(r)))
		fail("build then parse changed the Read Request");
}

static void terminate(const u8 *d, size_t n)
{
	static u8 seg[DDP_UNTAGGED_HDR_SIZE + RDMAP_READ_REQ_SIZE];
	struct rdmap_term_info ti, tj;
	struct rdmap_term_offender off = { 0 };
	struct rdmap_term_hdr t;
	unsigned int len;
	int got = swi_rdmap_term_parse(d, n, &ti);

	if (got < 0)
		return;
	if ((size_t)got > n)
		fail("a Terminate longer than the input");
	if (!swi_rdmap_term_name(ti.cause.layer, ti.cause.etype, ti.cause.code))
		fail("a cause without a name");
	/* the offending segment it describes, as our builder would copy it */
	if (ti.has & RDMAP_TERM_HAS_DDP) {
		int hl = swi_ddp_hdr_build(seg, sizeof(seg), &ti.ddp);

		if (hl < 0)
			fail("a parsed DDP header cannot be built");
		off.hdr = seg;
		off.len = hl;
		off.seg_len = ti.seg_len;
		if (ti.has & RDMAP_TERM_HAS_RREQ) {
			swi_rdmap_read_req_build((void *)(seg + hl), &ti.rreq);
			off.len += RDMAP_READ_REQ_SIZE;
		}
	}
	len = swi_rdmap_term_build(&t, &ti.cause, off.len ? &off : NULL);
	if (len < RDMAP_TERM_CTRL_SIZE || len > sizeof(t))
		fail("a Terminate of impossible length built");
	if (swi_rdmap_term_parse(&t, len, &tj) != (int)len)
		fail("our Terminate does not parse to its length");
	if (memcmp(&tj.cause, &ti.cause, sizeof(ti.cause)))
		fail("our Terminate carries another cause");
	if ((tj.has & RDMAP_TERM_HAS_DDP) &&
	    (memcmp(&tj.ddp, &ti.ddp, sizeof(ti.ddp)) ||
	     tj.seg_len != ti.seg_len))
		fail("our Terminate copied another DDP header");
	if ((tj.has & RDMAP_TERM_HAS_RREQ) &&
	    memcmp(&tj.rreq, &ti.rreq, sizeof(ti.rreq)))
		fail("our Terminate copied another Read Request");
}

int fuzz_one(const u8 *d, size_t n)
{
	if (n < 1)
		return 0;
	if (d[0] & 1)
		read_request(d + 1, n - 1);
	else
		terminate(d + 1, n - 1);
	return 0;
}
