// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA CRC32c
 *
 * RFC 5044 section 4.4 CRC32c over FPDUs, computed with the kernel crypto
 * API's "crc32c" shash: by default the faster, timed at load, of the
 * implementation the crypto API prefers (its highest priority, e.g.
 * crc32c-intel with SSE4.2) and the table-driven crc32c-generic, or the
 * one the module's crc32c_driver parameter names. Priority is a guess made
 * for real hardware: under an emulator (QEMU TCG) or on a CPU where the
 * instruction is slow the generic code is the faster, by 2.3 times in our
 * test VM. One transform is shared by the whole module; every running
 * computation keeps its own descriptor (struct mpa_crc), so no lock is
 * needed. The result is the four octets the crypto API produces, which are
 * already in wire order (least significant octet first).
 *
 * When the implementation chosen is the library's code behind a crypto API
 * descriptor (crc32c-generic, the table-driven __crc32c_le(); on kernels
 * whose crypto API has only crc32c-lib, the library's crc32c()),
 * the module calls the library itself and keeps the CRC register in
 * struct mpa_crc:
 * the same computation without two indirect calls per update. With Markers
 * an FPDU's CRC is fed a 4-octet Marker and a run of payload every 512
 * octets, and those calls were a tenth of the Marker's cost; the update is
 * inline (mpa/mpa.h), so each of them is one call into the library.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "mpa/mpa.h"

static struct crypto_shash *mpa_crc_tfm;
/* the library's code called directly (mpa_crc_update(), inline) */
bool swi_mpa_crc_direct __read_mostly;
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_direct);

/* Keep @tfm; call the table-driven code directly when it is behind it */
static void mpa_crc_use(struct crypto_shash *tfm)
{
	mpa_crc_tfm = tfm;
	swi_mpa_crc_direct = !strcmp(crypto_shash_driver_name(tfm),
				     SWI_CRC32C_LIB_DRIVER);
}

static struct shash_desc *mpa_crc_desc(struct mpa_crc *crc)
{
	return (struct shash_desc *)crc->desc;
}

/* Allocate the CRC32c implementation @driver names, checked usable */
static struct crypto_shash *mpa_crc_alloc(const char *driver)
{
	struct crypto_shash *tfm = crypto_alloc_shash(driver, 0, 0);
	int err = 0;

	if (IS_ERR(tfm))
		return tfm;
	if (strcmp(crypto_shash_alg_name(tfm), "crc32c"))
		err = -EINVAL;
	else if (crypto_shash_descsize(tfm) > MPA_CRC_CTX_MAX ||
		 crypto_shash_digestsize(tfm) != MPA_CRC_SIZE)
		err = -EOPNOTSUPP;
	if (err) {
		crypto_free_shash(tfm);
		return ERR_PTR(err);
	}
	return tfm;
}

/**
 * swi_mpa_crc_pick() - the fastest of timed candidates
 * @ns: time each candidate took for the same work; U64_MAX for one that
 *	is not available
 * @n: number of candidates, at least one
 *
 * Context: any context.
 * Return: the index of the smallest time; the first of equal ones, so that
 * a tie keeps the implementation listed first.
 */
unsigned int swi_mpa_crc_pick(const u64 *ns, unsigned int n)
{
	unsigned int i, best = 0;

	for (i = 1; i < n; i++)
		if (ns[i] < ns[best])
			best = i;
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_pick);

#define MPA_CRC_PROBE_LEN	4096	/* octets a run digests */
#define MPA_CRC_PROBE_RUNS	8	/* runs per round */
#define MPA_CRC_PROBE_ROUNDS	3	/* the best round counts */

/* Nanoseconds @tfm takes for one round over @buf: the best of a few */
static u64 mpa_crc_probe(struct crypto_shash *tfm, const u8 *buf)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	unsigned int round, run;
	u64 best = U64_MAX, t0;
	u8 out[MPA_CRC_SIZE];

	desc->tfm = tfm;
	for (round = 0; round < MPA_CRC_PROBE_ROUNDS; round++) {
		t0 = ktime_get_ns();
		for (run = 0; run < MPA_CRC_PROBE_RUNS; run++)
			crypto_shash_digest(desc, buf, MPA_CRC_PROBE_LEN, out);
		best = min(best, ktime_get_ns() - t0);
		cond_resched();
	}
	shash_desc_zero(desc);
	return best;
}

static u64 mpa_crc_mbps(u64 ns)
{
	return div64_u64((u64)MPA_CRC_PROBE_LEN * MPA_CRC_PROBE_RUNS * 1000,
			 max_t(u64, ns, 1));
}

/* Time the preferred and the generic implementation; keep the faster */
static int mpa_crc_init_fastest(void)
{
	static const char * const names[] = { "crc32c", "crc32c-generic" };
	struct crypto_shash *tfm[ARRAY_SIZE(names)];
	u64 ns[ARRAY_SIZE(names)];
	unsigned int i, best;
	u8 *buf;

	buf = kmalloc(MPA_CRC_PROBE_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < MPA_CRC_PROBE_LEN; i++)
		buf[i] = i * 37 + 11;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		tfm[i] = mpa_crc_alloc(names[i]);
		ns[i] = U64_MAX;
		/* the preferred one may be the generic one itself */
		if (!IS_ERR(tfm[i]) && i && !IS_ERR(tfm[0]) &&
		    !strcmp(crypto_shash_driver_name(tfm[0]),
			    crypto_shash_driver_name(tfm[i])))
			continue;
		if (!IS_ERR(tfm[i]))
			ns[i] = mpa_crc_probe(tfm[i], buf);
	}
	kfree(buf);
	best = swi_mpa_crc_pick(ns, ARRAY_SIZE(names));
	if (ns[best] == U64_MAX)
		return IS_ERR(tfm[0]) ? PTR_ERR(tfm[0]) : -ENOENT;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (ns[i] != U64_MAX)
			pr_info("CRC32c by %s: %llu MB/s\n",
				crypto_shash_driver_name(tfm[i]),
				mpa_crc_mbps(ns[i]));
		if (i != best && !IS_ERR(tfm[i]))
			crypto_free_shash(tfm[i]);
	}
	mpa_crc_use(tfm[best]);
	return 0;
}

/**
 * swi_mpa_crc_init() - allocate the shared "crc32c" transform
 * @driver: "fastest" for the faster, timed now, of the crypto API's
 *	preferred implementation and crc32c-generic; "crc32c" for the
 *	preferred one; or the driver name of one ("crc32c-generic",
 *	"crc32c-intel", ...)
 *
 * Context: process context, module load.
 * Return: 0, -EINVAL when @driver names no CRC32c implementation, or
 * another negative errno when no usable transform exists.
 */
int swi_mpa_crc_init(const char *driver)
{
	struct crypto_shash *tfm;

	if (!strcmp(driver, "fastest"))
		return mpa_crc_init_fastest();
	tfm = mpa_crc_alloc(driver);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	mpa_crc_use(tfm);
	return 0;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * swi_mpa_crc_set_direct() - take the crypto API path even for the library's code
 * @direct: false for the crypto API path; true for the direct call, which
 *	is taken only when the library's code (crc32c-generic, or crc32c-lib
 *	where that is the one driver) is the implementation (KUnit only)
 *
 * Context: any context, while no CRC computation is running.
 * Return: whether the direct call was taken before.
 */
bool swi_mpa_crc_set_direct(bool direct)
{
	bool was = swi_mpa_crc_direct;

	swi_mpa_crc_direct = direct &&
			 !strcmp(swi_mpa_crc_driver(), SWI_CRC32C_LIB_DRIVER);
	return was;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_set_direct);
#endif

/**
 * swi_mpa_crc_driver() - which implementation computes the CRCs
 *
 * Context: any context, between swi_mpa_crc_init() and swi_mpa_crc_exit().
 * Return: the crypto driver's name, e.g. "crc32c-intel".
 */
const char *swi_mpa_crc_driver(void)
{
	return crypto_shash_driver_name(mpa_crc_tfm);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_driver);

/**
 * swi_mpa_crc_exit() - free the shared transform
 *
 * Context: process context, module unload, after every user is gone.
 * Return: nothing.
 */
void swi_mpa_crc_exit(void)
{
	crypto_free_shash(mpa_crc_tfm);
	mpa_crc_tfm = NULL;
}

/**
 * swi_mpa_crc_begin() - start a new CRC32c computation
 * @crc: the computation to (re)start
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_mpa_crc_begin(struct mpa_crc *crc)
{
	struct shash_desc *desc = mpa_crc_desc(crc);

	if (swi_mpa_crc_direct) {
		crc->state = ~0U;
		return;
	}
	desc->tfm = mpa_crc_tfm;
	crypto_shash_init(desc);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_begin);

/**
 * swi_mpa_crc_update_shash() - add linear bytes through the crypto API
 * @crc: running computation
 * @data: the bytes
 * @len: how many
 *
 * mpa_crc_update()'s path when another implementation than
 * crc32c-generic computes.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_mpa_crc_update_shash(struct mpa_crc *crc, const void *data,
			      unsigned int len)
{
	crypto_shash_update(mpa_crc_desc(crc), data, len);
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_update_shash);

/**
 * swi_mpa_crc_update_page() - add bytes of a (possibly highmem) page range
 * @crc: running computation
 * @page: first page; the range may continue into the following pages
 * @off: offset of the first byte from the start of @page
 * @len: how many bytes
 *
 * Context: any context; maps one page at a time with kmap_local_page().
 * Return: nothing.
 */
void swi_mpa_crc_update_page(struct mpa_crc *crc, struct page *page,
			     unsigned int off, unsigned int len)
{
	/* by the page frame number: the memmap need not be contiguous */
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
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_update_page);

/**
 * swi_mpa_crc_update_skb() - add a byte range of an skb, linear part and frags
 * @crc: running computation
 * @skb: the buffer; not modified
 * @off: offset of the first byte in @skb
 * @len: how many bytes; @off + @len must not exceed @skb->len
 *
 * Context: any context (skb_seq_read() maps frags atomically). The
 * caller guarantees the range lies inside @skb.
 * Return: nothing.
 */
void swi_mpa_crc_update_skb(struct mpa_crc *crc, struct sk_buff *skb,
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
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_update_skb);

/**
 * swi_mpa_crc_final() - finish a CRC32c computation
 * @crc: running computation; must be restarted before reuse
 *
 * Context: any context.
 * Return: the CRC field as it goes on the wire.
 */
__le32 swi_mpa_crc_final(struct mpa_crc *crc)
{
	__le32 wire;

	if (swi_mpa_crc_direct)
		return cpu_to_le32(~crc->state);
	crypto_shash_final(mpa_crc_desc(crc), (u8 *)&wire);
	return wire;
}
EXPORT_SYMBOL_IF_KUNIT(swi_mpa_crc_final);
