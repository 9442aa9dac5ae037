/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: MPA layer interface
 *
 * What the other layers and the tests use of mpa/: the error codes of
 * RFC 5044 section 8 (extended by RFC 6581), and the CRC32c engine built on
 * the kernel crypto API's "crc32c" transform. Framing, deframing and the
 * Request/Reply codec have headers of their own beside this one.
 */
#ifndef SOFTIWARP_MPA_H
#define SOFTIWARP_MPA_H

#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/skbuff.h>
#include <linux/types.h>

#include "compat.h"
#include "mpa/mpa_proto.h"

/**
 * enum mpa_error - errors MPA reports to the layer above
 * @MPA_ERR_NONE: no error
 * @MPA_ERR_TCP_LOST: TCP connection closed, terminated or lost
 * @MPA_ERR_CRC: received MPA CRC does not match the calculated value
 * @MPA_ERR_MARKER: FPDU Marker and ULPDU_Length fields do not match
 * @MPA_ERR_REQ_REP: invalid MPA Request or Reply frame received
 * @MPA_ERR_LOCAL_CATASTROPHIC: local catastrophic error (RFC 6581)
 * @MPA_ERR_INSUFFICIENT_IRD: insufficient IRD resources (RFC 6581)
 * @MPA_ERR_NO_MATCHING_RTR: no matching RTR model (RFC 6581)
 *
 * The values are the LLP error codes of a Terminate message.
 */
enum mpa_error {
	MPA_ERR_NONE = 0,
	MPA_ERR_TCP_LOST = 1,
	MPA_ERR_CRC = 2,
	MPA_ERR_MARKER = 3,
	MPA_ERR_REQ_REP = 4,
	MPA_ERR_LOCAL_CATASTROPHIC = 5,
	MPA_ERR_INSUFFICIENT_IRD = 6,
	MPA_ERR_NO_MATCHING_RTR = 7,
};

/* Largest descriptor context of any "crc32c" implementation we accept. */
#define MPA_CRC_CTX_MAX		16

/**
 * struct mpa_crc - a running CRC32c computation
 * @desc: storage for a struct shash_desc and its context, laid out as
 *	SHASH_DESC_ON_STACK() does, so that it can live inside a connection
 *	and span several calls.
 * @state: the running CRC register when the table-driven code is called
 *	directly (see mpa/mpa_crc.c); @desc is unused then
 *
 * Not shared: its owner serialises access (one per half connection).
 */
struct mpa_crc {
	u8 desc[sizeof(struct shash_desc) + MPA_CRC_CTX_MAX]
		__aligned(__alignof__(struct shash_desc));
	u32 state;
};

int swi_mpa_crc_init(const char *driver);
unsigned int swi_mpa_crc_pick(const u64 *ns, unsigned int n);
void swi_mpa_crc_exit(void);
const char *swi_mpa_crc_driver(void);
bool swi_mpa_crc_set_direct(bool direct);
void swi_mpa_crc_begin(struct mpa_crc *crc);
void swi_mpa_crc_update_shash(struct mpa_crc *crc, const void *data,
			      unsigned int len);
void swi_mpa_crc_update_page(struct mpa_crc *crc, struct page *page,
			     unsigned int off, unsigned int len);
void swi_mpa_crc_update_skb(struct mpa_crc *crc, struct sk_buff *skb,
			    unsigned int off, unsigned int len);
__le32 swi_mpa_crc_final(struct mpa_crc *crc);

extern bool swi_mpa_crc_direct;

/**
 * mpa_crc_update() - add linear bytes to a CRC32c computation
 * @crc: running computation
 * @data: the bytes
 * @len: how many
 *
 * Inline, so that a Marker's four octets and the runs between Markers
 * cost one call each (into the library) when crc32c-generic computes.
 *
 * Context: any context.
 * Return: nothing.
 */
static inline void mpa_crc_update(struct mpa_crc *crc, const void *data,
				  unsigned int len)
{
	if (swi_mpa_crc_direct)
		crc->state = swi_crc32c_lib(crc->state, data, len);
	else
		swi_mpa_crc_update_shash(crc, data, len);
}

#endif /* SOFTIWARP_MPA_H */
