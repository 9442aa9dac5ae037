// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the MPA Request/Reply codec and negotiation
 * (mpa/mpa_startup.c), RFC 5044 section 7.1 and RFC 6581 (revisions 0, 1
 * and 2, private data).
 *
 * Input: octet 0 picks the kind (bit 0: Reply) and the role (bit 1:
 * initiator); octets 1-10 a local policy (revision, CRC, Markers,
 * permissive, peer-to-peer, RTR, strict ORD, IRD, ORD); the rest is the
 * frame as it came off the wire.
 *
 * Properties: swi_mpa_startup_need() never asks for more than the largest
 * frame nor for less than it was given when it says the frame is whole;
 * a frame swi_mpa_startup_parse() takes has its private data inside the
 * input, and, unless it is one we never send (a revision above 2, a
 * rejecting Request, enhanced data before revision 2), built again by
 * swi_mpa_startup_build() it is parsed back to the same fields; negotiation
 * against it never reports an IRD above both ours and the peer's ORD,
 * nor Markers towards us that we did not ask for (but with revision 0,
 * which has them both ways).
 */
#include "mpa/mpa_startup.h"

static void fail(const char *why)
{
	fprintf(stderr, "startup: property broken: %s\n", why);
	abort();
}

static bool same(const struct mpa_startup_frame *a,
		 const struct mpa_startup_frame *b)
{
	return a->kind == b->kind && a->rev == b->rev &&
	       a->markers == b->markers && a->crc == b->crc &&
	       a->rejected == b->rejected && a->enhanced == b->enhanced &&
	       a->p2p == b->p2p && a->rtr == b->rtr && a->ird == b->ird &&
	       a->ord == b->ord && a->pdata_len == b->pdata_len &&
	       (!a->pdata_len || !memcmp(a->pdata, b->pdata, a->pdata_len));
}

int fuzz_one(const u8 *d, size_t n)
{
	static u8 buf[MPA_STARTUP_MAX_FRAME + 64];
	struct mpa_startup_frame f, g;
	struct mpa_startup_policy pol;
	struct mpa_startup_result res;
	enum mpa_startup_kind kind;
	enum mpa_startup_role role;
	int need, len;

	if (n < 11)
		return 0;
	kind = d[0] & 1 ? MPA_STARTUP_REPLY : MPA_STARTUP_REQUEST;
	role = d[0] & 2 ? MPA_STARTUP_INITIATOR : MPA_STARTUP_RESPONDER;
	memset(&pol, 0, sizeof(pol));
	pol.rev = d[1] % 3;
	pol.crc = d[2] & 1;
	pol.markers_rx = d[2] & 2;
	pol.permissive = d[2] & 4;
	pol.p2p = d[2] & 8;
	pol.ord_strict = d[2] & 16;
	pol.rtr = d[3] & MPA_RTR_ALL;
	pol.ird = d[4] << 8 | d[5];
	pol.ord = d[6] << 8 | d[7];
	d += 11;
	n -= 11;

	need = swi_mpa_startup_need(d, n, kind);
	if (need > 0 && (size_t)need > MPA_STARTUP_MAX_FRAME)
		fail("need beyond the largest frame");
	memset(&f, 0, sizeof(f));
	if (swi_mpa_startup_parse(d, n, kind, &f))
		return 0;
	if (f.pdata_len && (f.pdata < d || f.pdata + f.pdata_len > d + n))
		fail("private data outside the input");
	if (f.kind != kind)
		fail("parsed another kind");
	if (swi_mpa_startup_frame_len(&f) > n)
		fail("a frame longer than the input");

	/* built again, parsed back unchanged */
	len = swi_mpa_startup_build(&f, buf, sizeof(buf));
	if (len == -EINVAL &&
	    (f.rev > MPA_REV_2 || (f.enhanced && f.rev != MPA_REV_2) ||
	     (kind == MPA_STARTUP_REQUEST && f.rejected)))
		return 0;	/* parsed to be answered, never sent by us */
	if (len < 0 || (size_t)len != swi_mpa_startup_frame_len(&f))
		fail("a parsed frame cannot be built again");
	memset(&g, 0, sizeof(g));
	if (swi_mpa_startup_parse(buf, len, kind, &g) || !same(&f, &g))
		fail("build then parse changed the frame");

	/* negotiation stays within what we offer */
	memset(&res, 0, sizeof(res));
	if (!swi_mpa_startup_negotiate(&pol, role, &f, &res) && !res.rejected &&
	    res.error == MPA_ERR_NONE) {
		if (res.rev > 2 || res.rtr & ~MPA_RTR_ALL)
			fail("negotiated an unknown revision or RTR");
		if (res.ird > pol.ird && res.ird > f.ord)
			fail("an IRD above ours and above the peer's ORD");
		/* revision 0 has both always (RFC 5044 Appendix C) */
		if (res.rev != MPA_REV_0 && res.markers_rx && !pol.markers_rx)
			fail("Markers towards us that nobody asked for");
	}
	return 0;
}
