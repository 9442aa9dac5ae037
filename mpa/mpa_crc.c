// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA CRC32c
 *
 * RFC 5044 section 4.4 CRC32c over FPDUs, computed with the kernel crypto
 * API's "crc32c" shash: by default the best implementation the CPU offers,
 * or the one the module's crc32c_driver parameter names. One
 * transform is shared by the whole module; every running computation keeps
 * its own descriptor (struct mpa_crc), so no lock is needed. The result is
 * the four octets the crypto API produces, which are already in wire order
 * (least significant octet first).
 */
#include <linux/highmem.h>

#include "mpa/mpa.h"

static struct crypto_shash *mpa_crc_tfm;

static struct shash_desc *mpa_crc_desc(struct mpa_crc *crc)
{
	return (struct shash_desc *)crc->desc;
}

/**
 * mpa_crc_init() - allocate the shared "crc32c" transform
 * @driver: "crc32c" for the crypto API's preferred implementation, or the
 *	driver name of one ("crc32c-generic", "crc32c-intel", ...)
 *
 * Context: process context, module load.
 * Return: 0, -EINVAL when @driver names no CRC32c implementation, or
 * another negative errno when no usable transform exists.
 */
int mpa_crc_init(const char *driver)
{
	struct crypto_shash *tfm = crypto_alloc_shash(driver, 0, 0);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	if (strcmp(crypto_shash_alg_name(tfm), "crc32c")) {
		crypto_free_shash(tfm);
		return -EINVAL;
	}
	if (crypto_shash_descsize(tfm) > MPA_CRC_CTX_MAX ||
	    crypto_shash_digestsize(tfm) != MPA_CRC_SIZE) {
		crypto_free_shash(tfm);
		return -EOPNOTSUPP;
	}
	mpa_crc_tfm = tfm;
	return 0;
}

/**
 * mpa_crc_driver() - which implementation computes the CRCs
 *
 * Context: any context, between mpa_crc_init() and mpa_crc_exit().
 * Return: the crypto driver's name, e.g. "crc32c-intel".
 */
const char *mpa_crc_driver(void)
{
	return crypto_shash_driver_name(mpa_crc_tfm);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc_driver);

/**
 * mpa_crc_exit() - free the shared transform
 *
 * Context: process context, module unload, after every user is gone.
 * Return: nothing.
 */
void mpa_crc_exit(void)
{
	crypto_free_shash(mpa_crc_tfm);
	mpa_crc_tfm = NULL;
}

/**
 * mpa_crc_begin() - start a new CRC32c computation
 * @crc: the computation to (re)start
 *
 * Context: any context.
 * Return: nothing.
 */
void mpa_crc_begin(struct mpa_crc *crc)
{
	struct shash_desc *desc = mpa_crc_desc(crc);

	desc->tfm = mpa_crc_tfm;
	crypto_shash_init(desc);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc_begin);

/**
 * mpa_crc_update() - add linear bytes to a CRC32c computation
 * @crc: running computation
 * @data: the bytes
 * @len: how many
 *
 * Context: any context.
 * Return: nothing.
 */
void mpa_crc_update(struct mpa_crc *crc, const void *data, unsigned int len)
{
	crypto_shash_update(mpa_crc_desc(crc), data, len);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc_update);

/**
 * mpa_crc_update_page() - add bytes of a (possibly highmem) page range
 * @crc: running computation
 * @page: first page; the range may continue into the following pages
 * @off: offset of the first byte from the start of @page
 * @len: how many bytes
 *
 * Context: any context; maps one page at a time with kmap_local_page().
 * Return: nothing.
 */
void mpa_crc_update_page(struct mpa_crc *crc, struct page *page,
			 unsigned int off, unsigned int len)
{
	/* nth_page(): struct pages need not be contiguous in the memmap */
	page = nth_page(page, off / PAGE_SIZE);
	off %= PAGE_SIZE;
	while (len) {
		unsigned int n = min_t(unsigned int, len, PAGE_SIZE - off);
		void *va = kmap_local_page(page);

		mpa_crc_update(crc, va + off, n);
		kunmap_local(va);
		len -= n;
		off = 0;
		page = nth_page(page, 1);
	}
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc_update_page);

/**
 * mpa_crc_update_skb() - add a byte range of an skb, linear part and frags
 * @crc: running computation
 * @skb: the buffer; not modified
 * @off: offset of the first byte in @skb
 * @len: how many bytes; @off + @len must not exceed @skb->len
 *
 * Context: any context (skb_seq_read() maps frags atomically). The
 * caller guarantees the range lies inside @skb.
 * Return: nothing.
 */
void mpa_crc_update_skb(struct mpa_crc *crc, struct sk_buff *skb,
			unsigned int off, unsigned int len)
{
	struct skb_seq_state st;
	unsigned int consumed = 0, n;
	const u8 *data;

	if (!len)
		return;
	skb_prepare_seq_read(skb, off, off + len, &st);
	while (consumed < len) {
		/* A block may run past the upper offset: clamp it. */
		n = skb_seq_read(consumed, &data, &st);
		if (WARN_ON_ONCE(!n))
			return;
		n = min(n, len - consumed);
		mpa_crc_update(crc, data, n);
		consumed += n;
	}
	skb_abort_seq_read(&st);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc_update_skb);

/**
 * mpa_crc_final() - finish a CRC32c computation
 * @crc: running computation; must be restarted before reuse
 *
 * Context: any context.
 * Return: the CRC field as it goes on the wire.
 */
__le32 mpa_crc_final(struct mpa_crc *crc)
{
	__le32 wire;

	crypto_shash_final(mpa_crc_desc(crc), (u8 *)&wire);
	return wire;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc_final);
