/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: RPC-over-RDMA version 1 CM private data (RFC 8797)
 *
 * Eight octets an RPC-over-RDMA version 1 client and server may put in the
 * private data of the connection setup (for iWARP: the MPA Request and
 * Reply, after any RFC 6581 enhanced data) to announce their inline
 * thresholds and whether they can take remote invalidation::
 *
 *   Format Identifier 0xf6ab0e18 (32) | Version (8) |
 *   Reserved (7) R (1) | Send Size (8) | Receive Size (8)
 *
 * The receiver searches the private data for the Format Identifier at any
 * offset (section 5.2) and, when no valid message is found, behaves as if
 * the peer announced the defaults (section 5.1).
 */
#ifndef SOFTIWARP_RPCRDMA_CM_H
#define SOFTIWARP_RPCRDMA_CM_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#include "compat.h"

#define RPCRDMA_CM_FORMAT_ID	0xf6ab0e18
#define RPCRDMA_CM_VERSION	1
#define RPCRDMA_CM_SIZE		8
#define RPCRDMA_CM_FLAG_R	BIT(0)	/* bit 15 of the second word */
/* Inline threshold sizes the Size fields can express */
#define RPCRDMA_CM_SIZE_UNIT	1024
#define RPCRDMA_CM_SIZE_MIN	1024
#define RPCRDMA_CM_SIZE_MAX	262144

/**
 * struct rpcrdma_cm_wire - RFC 8797 private data as it is on the wire
 * @format_id: RPCRDMA_CM_FORMAT_ID
 * @version: RPCRDMA_CM_VERSION
 * @flags: reserved bits (zero on send, ignored on receive) and R
 * @send_size: encoded largest Send this peer transmits
 * @recv_size: encoded largest Send this peer can receive
 */
struct rpcrdma_cm_wire {
	__be32 format_id;
	u8 version;
	u8 flags;
	u8 send_size;
	u8 recv_size;
};

static_assert(sizeof(struct rpcrdma_cm_wire) == RPCRDMA_CM_SIZE);

/**
 * struct rpcrdma_cm_params - RFC 8797 private data, decoded
 * @remote_inv: R, the sender supports remote invalidation
 * @send_size: largest RDMA Send the sender transmits, in octets
 * @recv_size: largest RDMA Send the sender can receive, in octets
 */
struct rpcrdma_cm_params {
	bool remote_inv;
	u32 send_size;
	u32 recv_size;
};

u8 swi_rpcrdma_cm_size_encode(u32 size);
u32 swi_rpcrdma_cm_size_decode(u8 val);
void swi_rpcrdma_cm_defaults(struct rpcrdma_cm_params *p);
void swi_rpcrdma_cm_encode(const struct rpcrdma_cm_params *p, void *buf);
int swi_rpcrdma_cm_decode(const void *buf, size_t len,
			  struct rpcrdma_cm_params *p);
int swi_rpcrdma_cm_find(const void *pdata, size_t len,
			struct rpcrdma_cm_params *p, size_t *offset);

#endif /* SOFTIWARP_RPCRDMA_CM_H */
