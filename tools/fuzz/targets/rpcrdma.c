// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: RPC-over-RDMA CM private data (cm/rpcrdma_cm.c, RFC 8797
 * section 5.1), found in and decoded from what a peer put in its MPA
 * Request or Reply.
 *
 * Input: the private data.
 *
 * Properties: swi_rpcrdma_cm_find() reports an offset inside the input with
 * the whole message behind it; what it decodes lies in the RFC's range
 * (1 KiB to 256 KiB in 1 KiB steps); encoded again and decoded it is the
 * same; every size octet decodes to a size that encodes to it.
 */
#include "cm/rpcrdma_cm.h"

static void fail(const char *why)
{
	fprintf(stderr, "rpcrdma: property broken: %s\n", why);
	abort();
}

static void in_range(u32 size)
{
	if (size < RPCRDMA_CM_SIZE_MIN || size > RPCRDMA_CM_SIZE_MAX ||
	    size % RPCRDMA_CM_SIZE_UNIT)
		fail("a size outside RFC 8797's range");
}

int fuzz_one(const u8 *d, size_t n)
{
	struct rpcrdma_cm_params p, q;
	u8 buf[RPCRDMA_CM_SIZE];
	size_t off = 0;

	for (unsigned int v = 0; v < 256 && n; v++)
		if (swi_rpcrdma_cm_size_encode(swi_rpcrdma_cm_size_decode(v)) != v)
			fail("a size octet does not round-trip");
	memset(&p, 0, sizeof(p));
	if (!swi_rpcrdma_cm_decode(d, n, &p)) {
		in_range(p.send_size);
		in_range(p.recv_size);
	}
	memset(&p, 0, sizeof(p));
	if (swi_rpcrdma_cm_find(d, n, &p, &off))
		return 0;
	if (off > n || n - off < RPCRDMA_CM_SIZE)
		fail("found a message past the private data");
	in_range(p.send_size);
	in_range(p.recv_size);
	swi_rpcrdma_cm_encode(&p, buf);
	memset(&q, 0, sizeof(q));
	if (swi_rpcrdma_cm_decode(buf, sizeof(buf), &q) ||
	    memcmp(&p, &q, sizeof(p)))
		fail("encode then decode changed the parameters");
	return 0;
}
