// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a received DDP segment's header and its checks, DDP's
 * (ddp/ddp.c, RFC 5041 section 7) and RDMAP's (rdmap/codec.c, RFC 5040
 * sections 5 to 7), as the receiver runs them on every segment, and the
 * headers of RFC 7306's messages behind it (rdmap/ext.c).
 *
 * Input: octets 0-29 the receiver's state (RDMAC or not, version fixed,
 * RFC 7306 accepted or not, DV/RV, each queue's MSN, buffers, octets
 * received, buffer length) and what the STag lookup found (state,
 * access, base, length); octets 30-31 the segment's length (a
 * ULPDU_Length); the rest the segment.
 *
 * Properties: swi_ddp_hdr_parse() takes no octet past the input; a parsed
 * header built again by swi_ddp_hdr_build() and parsed is the same header;
 * every check that refuses sets a Terminate cause RFC 5040 or 5041 names
 * (swi_rdmap_term_name() knows it); swi_ddp_region_check() lets through only a
 * range inside the region, without wrap, with the access asked for; an
 * opcode of 0x8 to 0xF passes only as one of RFC 7306's messages (0x8
 * to 0xB), untagged, on its queue (0 Immediate Data, 1 Atomic Request,
 * 3 Atomic Response), on a stream that accepts RFC 7306; the Immediate
 * Data, Atomic Request and Atomic
 * Response parsers take exactly what their builders write back, and an
 * Atomic Request passes its checks only for an aligned target inside
 * the region with remote atomic access.
 */
#include "ddp/ddp.h"
#include "rdmap/codec.h"
#include "rdmap/ext.h"
#include "rdmap/rdmap_proto.h"
#include "rdmap/terminate.h"

static void fail(const char *why)
{
	fprintf(stderr, "ddp: property broken: %s\n", why);
	abort();
}

static u32 be32(const u8 *p)
{
	return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/* The queue of an RFC 7306 opcode (section 4.1, Figure 2) */
static u32 ext_queue(u8 opcode)
{
	if (opcode == RDMAP_ATOMIC_REQ)
		return RDMAP_QN_READ_REQ;
	if (opcode == RDMAP_ATOMIC_RESP)
		return RDMAP_QN_ATOMIC_RESP;
	return RDMAP_QN_SEND;
}

static bool named(const struct rdmap_term_cause *c)
{
	const char *n = swi_rdmap_term_name(c->layer, c->etype, c->code);

	return n && !strstr(n, "unknown");
}

static void check_region(const struct ddp_stag_check *s, u8 need, u64 to,
			 u64 len)
{
	enum ddp_region_verdict v = swi_ddp_region_check(s, need, to, len);

	if (v != DDP_REGION_OK)
		return;
	if (s->state != DDP_STAG_VALID || (s->access & need) != need)
		fail("region check passed an invalid STag or missing access");
	if (len && (to < s->base || to + len < to ||
		    to + len - s->base > s->len))
		fail("region check passed a range outside the region");
}

/* RFC 7306's headers behind an untagged DDP header: @p, @len octets */
static void check_ext(u8 opcode, const u8 *p, size_t len,
		      const struct ddp_stag_check *stag)
{
	struct rdmap_atomic_resp_info ar, ar2;
	struct rdmap_atomic_req_info r, r2;
	struct rdmap_term_cause cause;
	u8 buf[RDMAP_ATOMIC_REQ_SIZE];
	__be32 imm, imm2;

	if (opcode == RDMAP_IMM || opcode == RDMAP_IMM_SE) {
		bool taken = swi_rdmap_imm_parse(p, len, &imm) >= 0;
		bool eight = len == RDMAP_IMM_SIZE;

		if (taken != eight)
			fail("Immediate Data of other than 8 octets taken");
		if (len != 8)
			return;
		swi_rdmap_imm_build((void *)buf, imm);
		if (swi_rdmap_imm_parse(buf, 8, &imm2) != 8 || imm != imm2)
			fail("Immediate Data built then parsed changed");
	} else if (opcode == RDMAP_ATOMIC_REQ) {
		memset(&r, 0, sizeof(r));
		if (swi_rdmap_atomic_req_parse(p, len, &r) < 0)
			return;
		swi_rdmap_atomic_req_build((void *)buf, &r);
		memset(&r2, 0, sizeof(r2));
		if (swi_rdmap_atomic_req_parse(buf, sizeof(buf), &r2) !=
		    RDMAP_ATOMIC_REQ_SIZE || memcmp(&r, &r2, sizeof(r)))
			fail("an Atomic Request built then parsed changed");
		memset(&cause, 0, sizeof(cause));
		if (swi_rdmap_atomic_req_check(&r, stag, &cause)) {
			if (!named(&cause))
				fail("an Atomic Request refused, cause unnamed");
			return;
		}
		if (r.to % 8)
			fail("an Atomic Request passed with a misaligned target");
		check_region(stag, DDP_ACCESS_REMOTE_ATOMIC, r.to, 8);
	} else if (opcode == RDMAP_ATOMIC_RESP) {
		memset(&ar, 0, sizeof(ar));
		if (swi_rdmap_atomic_resp_parse(p, len, &ar) < 0)
			return;
		swi_rdmap_atomic_resp_build((void *)buf, &ar);
		memset(&ar2, 0, sizeof(ar2));
		if (swi_rdmap_atomic_resp_parse(buf, RDMAP_ATOMIC_RESP_SIZE,
						&ar2) != RDMAP_ATOMIC_RESP_SIZE ||
		    memcmp(&ar, &ar2, sizeof(ar)))
			fail("an Atomic Response built then parsed changed");
	}
}

int fuzz_one(const u8 *d, size_t n)
{
	struct ddp_rx_state rx;
	struct ddp_stag_check stag;
	struct ddp_hdr_info h, g;
	struct ddp_error err;
	struct rdmap_term_cause cause;
	u8 buf[DDP_UNTAGGED_HDR_SIZE];
	u32 seg_len;
	int hl;

	if (n < 32)
		return 0;
	memset(&rx, 0, sizeof(rx));
	rx.rdmac = d[0] & 1;
	rx.ver_fixed = d[0] & 2;
	rx.ulp_ext = !!(d[0] & 4);
	rx.dv = d[1] & 3;
	rx.rv = d[1] >> 2 & 3;
	for (int q = 0; q < DDP_QN_COUNT; q++) {
		rx.queue[q].msn = be32(d + 2 + 2 * q);
		rx.queue[q].buffers = d[8 + q] % 8;
		rx.queue[q].received = d[11 + q];
		rx.queue[q].buf_len = d[14 + q] << 8;
	}
	memset(&stag, 0, sizeof(stag));
	stag.state = d[17] % 3;
	stag.access = d[18] & 3;
	stag.base = (u64)be32(d + 19) << 8;
	stag.len = be32(d + 23) >> (d[27] & 31);
	seg_len = (d[30] << 8 | d[31]);
	d += 32;
	n -= 32;

	memset(&h, 0, sizeof(h));
	hl = swi_ddp_hdr_parse(d, n, &h);
	if (hl < 0)
		return 0;
	if ((size_t)hl > n || (unsigned int)hl != ddp_hdr_size(h.tagged))
		fail("a header length past the input or of the wrong form");
	if (swi_ddp_hdr_build(buf, sizeof(buf), &h) != hl)
		fail("a parsed header cannot be built");
	memset(&g, 0, sizeof(g));
	if (swi_ddp_hdr_parse(buf, hl, &g) != hl || memcmp(&g, &h, sizeof(h)))
		fail("build then parse changed the header");

	/* the receiver's checks, DDP's then RDMAP's */
	memset(&err, 0, sizeof(err));
	if (swi_ddp_rx_check_version(&h, &rx, &err) && !err.etype && !err.code)
		fail("a refused version without an error");
	memset(&err, 0, sizeof(err));
	/* -EACCES: no remote write, which DDP has no code for (RDMAP does) */
	if (swi_ddp_rx_check_buffer(&h, seg_len, &rx, &stag, &err) == -EPROTO &&
	    !err.etype && !err.code)
		fail("a refused buffer without an error");
	memset(&cause, 0, sizeof(cause));
	if (swi_rdmap_rx_check(&h, seg_len, &rx, &stag, &cause)) {
		if (!named(&cause))
			fail("an RDMAP check refused with a cause no RFC names");
	} else if (h.opcode >= RDMAP_IMM &&
		   (h.tagged || !rx.ulp_ext || h.opcode > RDMAP_ATOMIC_RESP ||
		    h.qn != ext_queue(h.opcode))) {
		fail("an RFC 7306 opcode passed where it is not accepted");
	}
	if (!h.tagged)
		check_ext(h.opcode, d + hl, n - hl, &stag);
	if (h.tagged)
		check_region(&stag, d[0] & 3, h.to, seg_len);
	swi_ddp_rx_fix_version(&rx, &h);
	if (!h.tagged && h.opcode == RDMAP_READ_REQ && (size_t)hl < n) {
		struct rdmap_read_req_info r;

		memset(&r, 0, sizeof(r));
		if (swi_rdmap_read_req_parse(d + hl, n - hl, &r) >= 0) {
			memset(&cause, 0, sizeof(cause));
			if (swi_rdmap_read_req_check(&r, &stag, &cause) &&
			    !named(&cause))
				fail("a Read Request refused with an unnamed cause");
			check_region(&stag, DDP_ACCESS_REMOTE_READ, r.src_to,
				     r.size);
		}
	}
	return 0;
}
