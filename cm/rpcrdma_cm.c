// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: RFC 8797 private data codec
 *
 * Encoding, decoding and finding the RPC-over-RDMA version 1 CM private
 * data. The Size fields count kilo-octets beyond the first: the encoded
 * value is size / 1024 - 1, so one octet covers 1024 to 262144 octets
 * (section 4.2). A receiver looks for the Format Identifier at every
 * offset of the private data, aligned or not (section 5.2), so the message
 * is found behind the 4 octets of MPA revision 2 enhanced data or behind
 * anything else another layer put first.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "cm/rpcrdma_cm.h"

/**
 * swi_rpcrdma_cm_size_encode() - encode an inline threshold for a Size field
 * @size: the threshold in octets
 *
 * Sizes are rounded down to a multiple of 1024 and clamped to the range
 * the field can express: below 1024 (smaller than RPC-over-RDMA version
 * 1 allows) encodes as 1024, above 262144 as 262144.
 *
 * Context: any context.
 * Return: the encoded octet, size / 1024 - 1.
 */
u8 swi_rpcrdma_cm_size_encode(u32 size)
{
	size = clamp_t(u32, size, RPCRDMA_CM_SIZE_MIN, RPCRDMA_CM_SIZE_MAX);
	return size / RPCRDMA_CM_SIZE_UNIT - 1;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rpcrdma_cm_size_encode);

/**
 * swi_rpcrdma_cm_size_decode() - decode a Size field
 * @val: the encoded octet
 *
 * Context: any context.
 * Return: the inline threshold in octets, (@val + 1) * 1024.
 */
u32 swi_rpcrdma_cm_size_decode(u8 val)
{
	return ((u32)val + 1) * RPCRDMA_CM_SIZE_UNIT;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rpcrdma_cm_size_decode);

/**
 * swi_rpcrdma_cm_defaults() - the settings of a peer that sent no message
 * @p: filled with R clear and both sizes 1024 (section 5.1)
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rpcrdma_cm_defaults(struct rpcrdma_cm_params *p)
{
	p->remote_inv = false;
	p->send_size = swi_rpcrdma_cm_size_decode(0);
	p->recv_size = swi_rpcrdma_cm_size_decode(0);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rpcrdma_cm_defaults);

/**
 * swi_rpcrdma_cm_encode() - write the 8 octets of a version 1 message
 * @p: what to announce (sizes are encoded by swi_rpcrdma_cm_size_encode())
 * @buf: room for RPCRDMA_CM_SIZE octets, any alignment
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rpcrdma_cm_encode(const struct rpcrdma_cm_params *p, void *buf)
{
	struct rpcrdma_cm_wire w = {
		.format_id = cpu_to_be32(RPCRDMA_CM_FORMAT_ID),
		.version = RPCRDMA_CM_VERSION,
		.flags = p->remote_inv ? RPCRDMA_CM_FLAG_R : 0,
		.send_size = swi_rpcrdma_cm_size_encode(p->send_size),
		.recv_size = swi_rpcrdma_cm_size_encode(p->recv_size),
	};

	memcpy(buf, &w, sizeof(w));
}
EXPORT_SYMBOL_IF_KUNIT(swi_rpcrdma_cm_encode);

/**
 * swi_rpcrdma_cm_decode() - decode a message that starts at @buf
 * @buf: the octets, any alignment
 * @len: octets available at @buf
 * @p: the decoded settings, on success only
 *
 * Reserved flag bits are ignored. Octets after the eighth are left alone:
 * they belong to whatever follows.
 *
 * Context: any context.
 * Return: 0 on success; -ENOENT when @buf does not start with the Format
 * Identifier or the message would overrun @len; -EPROTONOSUPPORT when the
 * Version is not 1.
 */
int swi_rpcrdma_cm_decode(const void *buf, size_t len,
			  struct rpcrdma_cm_params *p)
{
	struct rpcrdma_cm_wire w;

	if (len < sizeof(w))
		return -ENOENT;
	memcpy(&w, buf, sizeof(w));
	if (w.format_id != cpu_to_be32(RPCRDMA_CM_FORMAT_ID))
		return -ENOENT;
	if (w.version != RPCRDMA_CM_VERSION)
		return -EPROTONOSUPPORT;
	p->remote_inv = w.flags & RPCRDMA_CM_FLAG_R;
	p->send_size = swi_rpcrdma_cm_size_decode(w.send_size);
	p->recv_size = swi_rpcrdma_cm_size_decode(w.recv_size);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rpcrdma_cm_decode);

/**
 * swi_rpcrdma_cm_find() - look for a message anywhere in received private data
 * @pdata: the private data the consumer received
 * @len: its length
 * @p: the first valid message found, or the defaults of section 5.1
 * @offset: where the message starts, on success only; may be NULL
 *
 * Every offset is tried, aligned or not. A Format Identifier that is
 * followed by an unknown Version or that is cut short by the end of
 * @pdata does not stop the search: a later one may still be valid.
 *
 * Context: any context.
 * Return: 0 when a version 1 message was found; -EPROTONOSUPPORT when
 * only messages of other versions were; -ENOENT when there is none (the
 * Format Identifier is absent or truncated). The caller treats both
 * errors as "no RPC-over-RDMA private data" (section 5.2).
 */
int swi_rpcrdma_cm_find(const void *pdata, size_t len,
			struct rpcrdma_cm_params *p, size_t *offset)
{
	const __be32 id = cpu_to_be32(RPCRDMA_CM_FORMAT_ID);
	const u8 *d = pdata;
	int ret = -ENOENT;
	size_t off;
	int err;

	for (off = 0; off + sizeof(id) <= len; off++) {
		if (memcmp(d + off, &id, sizeof(id)))
			continue;
		err = swi_rpcrdma_cm_decode(d + off, len - off, p);
		if (!err) {
			if (offset)
				*offset = off;
			return 0;
		}
		if (err == -EPROTONOSUPPORT)
			ret = err;
	}
	swi_rpcrdma_cm_defaults(p);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rpcrdma_cm_find);
