// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mpa_bench
 *
 * A microbenchmark of mpa/mpa_frame.c and mpa/mpa_deframe.c: throughput of
 * framing and of deframing with placement, for each setting of Markers and
 * CRCs, on 64768-octet ULPDUs and on the MULPDU of a 1448-octet EMSS (what
 * a stream over Ethernet carries), beside memcpy(), deframing both as
 * data arrives and verify-first (the checker over each skb, then the
 * delivery of what it verified: the receiver's way, RFC 5044 section 6);
 * and CRC32c alone with each implementation the kernel has
 * (crc32c-generic, crc32c-intel, crc32c-lib), which must agree. The
 * figures are printed, never asserted; the cases are marked slow.
 */
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/string_choices.h>

#include "kunit/mpa_vectors.h"

#define BENCH_ULPDUS	64	/* of MPA_MULPDU_MAX octets: 4 MB a run */
#define BENCH_BYTES	((u64)BENCH_ULPDUS * MPA_MULPDU_MAX)
#define BENCH_SKB	60000	/* stream octets per skb, like loopback GRO */
#define BENCH_EMSS	1448	/* Ethernet's, with TCP timestamps */

static u64 bench_mbps(u64 bytes, u64 ns)
{
	return div64_u64(bytes * 1000, max_t(u64, ns, 1));
}

/* Frame @n ULPDUs of @len octets (layout, CRC, commit; no copy): ns */
static u64 bench_frame(struct kunit *test, struct mpa_fpdu *f, bool markers,
		       bool crc, unsigned int len, unsigned int n,
		       const u8 *src, u8 *wire, unsigned int *wlen)
{
	struct mpa_tx tx;
	struct iov_iter it;
	struct kvec kv;
	unsigned int i;
	u64 t0, ns = 0;

	swi_mpa_test_tx_init(test, &tx, 0, markers, crc);
	*wlen = 0;
	for (i = 0; i < n; i++) {
		kv = (struct kvec){ (void *)(src + i * len), len };
		t0 = ktime_get_ns();
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
		if (swi_mpa_fpdu_layout(&tx, f, len) || swi_mpa_fpdu_set_crc(f, &it) ||
		    swi_mpa_tx_commit(&tx, f))
			KUNIT_FAIL(test, "framing failed");
		ns += ktime_get_ns() - t0;
		*wlen += swi_mpa_test_linearise(f, kv.iov_base, wire + *wlen);
	}
	return ns;
}

#define BENCH_MAX_SKBS	128	/* of BENCH_SKB octets: more than the stream */

/*
 * Deliver what is verified: feed the skbs from @*j, @*coff on until the
 * parser stops at its verified position (or all of them up to @last)
 */
static void bench_deliver(struct mpa_rx *rx, struct sk_buff **skbs,
			  unsigned int last, unsigned int *j,
			  unsigned int *coff)
{
	int n;

	while (*j <= last) {
		n = swi_mpa_rx_feed(rx, skbs[*j], *coff, skbs[*j]->len - *coff);
		if (n < 0)
			return;
		*coff += n;
		if (*coff < skbs[*j]->len)
			return;
		(*j)++;
		*coff = 0;
	}
}

/*
 * Deframe the stream of @n ULPDUs from skbs of page frags, placing them;
 * @verified: as the receiver does (verify-first mode), the checker runs
 * over each skb first and only verified FPDUs are delivered, the rest
 * when the next skb completes them
 */
static u64 bench_deframe(struct kunit *test, bool markers, bool crc,
			 bool verified, unsigned int n, const u8 *wire,
			 unsigned int wlen, u8 *dst)
{
	const struct mpa_fo_cfg cfg = { .markers = markers, .crc = crc };
	struct swi_mpa_test_sink *s = swi_mpa_test_sink(test, 1, n);
	struct sk_buff **skbs;
	unsigned int off, nr = 0, i, j = 0, coff = 0;
	struct mpa_rx *rx, *scan;
	u64 t0, ns;

	skbs = kunit_kcalloc(test, BENCH_MAX_SKBS, sizeof(*skbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skbs);
	for (off = 0; off < wlen; off += skbs[nr++]->len) {
		KUNIT_ASSERT_LT(test, nr, BENCH_MAX_SKBS);
		skbs[nr] = swi_mpa_test_skb(test, wire + off,
					    min(wlen - off, BENCH_SKB), 0, 0);
	}
	s->buf = dst;
	s->cap = BENCH_BYTES;
	rx = swi_mpa_test_rx(test, s, 0, markers, crc, MPA_MULPDU_MAX);
	if (verified) {
		scan = kunit_kzalloc(test, sizeof(*scan), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, scan);
		KUNIT_ASSERT_EQ(test, swi_mpa_rx_init_verified(rx, scan, &cfg,
							       MPA_MULPDU_MAX,
							       rx->ops, s), 0);
	}
	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++) {
		if (!verified) {
			if (swi_mpa_rx_feed(rx, skbs[i], 0, skbs[i]->len) !=
			    skbs[i]->len)
				break;
			continue;
		}
		swi_mpa_rx_scan(rx, skbs[i], 0, skbs[i]->len);
		bench_deliver(rx, skbs, i, &j, &coff);
	}
	ns = ktime_get_ns() - t0;
	for (i = 0; i < nr; i++)
		kfree_skb(skbs[i]);
	KUNIT_EXPECT_EQ(test, s->nr, n);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	return ns;
}

/* One setting: frame, deframe, compare, print */
static void bench_one(struct kunit *test, struct mpa_fpdu *f, bool markers,
		      bool crc, bool mss, const u8 *src, u8 *dst, u8 *wire)
{
	unsigned int len = mss ? swi_mpa_mulpdu(BENCH_EMSS, markers) :
				 MPA_MULPDU_MAX;
	unsigned int n = div_u64(BENCH_BYTES, len), wlen;
	u64 bytes = (u64)n * len, tf, td, tv;

	tf = bench_frame(test, f, markers, crc, len, n, src, wire, &wlen);
	memset(dst, 0, bytes);
	td = bench_deframe(test, markers, crc, false, n, wire, wlen, dst);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, bytes), 0);
	memset(dst, 0, bytes);
	tv = bench_deframe(test, markers, crc, true, n, wire, wlen, dst);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, bytes), 0);
	kunit_info(test, "ulpdu %u markers %s crc %s: frame %llu MB/s, deframe+place %llu MB/s, verified first %llu MB/s\n",
		   len, str_on_off(markers), str_on_off(crc),
		   bench_mbps(bytes, tf), bench_mbps(bytes, td),
		   bench_mbps(bytes, tv));
}

/*
 * Throughput of framing (with CRC: layout and CRC32c; the payload is not
 * copied) and of deframing (with CRC: parse, CRC32c, and the placement
 * copy the test's ULP does), on the largest ULPDUs and on MSS-sized ones,
 * beside memcpy().
 */
static void mpa_bench_throughput(struct kunit *test)
{
	const u64 bytes = BENCH_BYTES;
	struct mpa_fpdu *f = swi_mpa_test_fpdu(test);
	u8 *src, *dst, *wire;
	unsigned int cfg;
	u64 t0;

	src = swi_mpa_test_vmalloc(test, bytes);
	dst = swi_mpa_test_vmalloc(test, bytes);
	/* MSS-sized FPDUs with Markers add about 1.7 % to the stream */
	wire = swi_mpa_test_vmalloc(test, bytes + bytes / 32);
	prandom_bytes_state(&(struct rnd_state){ 7, 7, 7, 7 }, src, bytes);
	t0 = ktime_get_ns();
	memcpy(dst, src, bytes);
	t0 = ktime_get_ns() - t0;
	kunit_info(test, "memcpy of %llu octets: %llu MB/s\n", bytes,
		   bench_mbps(bytes, t0));
	for (cfg = 0; cfg < 8; cfg++) {
		bench_one(test, f, cfg & 1, cfg & 2, cfg & 4, src, dst, wire);
		cond_resched();
	}
}

/* Digest @bytes of @src in MULPDU pieces with @tfm: nanoseconds, CRCs */
static u64 bench_crc_driver(struct kunit *test, struct crypto_shash *tfm,
			    const u8 *src, u64 bytes, __le32 *crcs)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	u64 t0 = ktime_get_ns();
	unsigned int i;

	desc->tfm = tfm;
	for (i = 0; i < BENCH_ULPDUS; i++) {
		const u8 *p = src + (u64)i * MPA_MULPDU_MAX;
		int err = crypto_shash_digest(desc, p, MPA_MULPDU_MAX,
					      (u8 *)&crcs[i]);

		KUNIT_ASSERT_EQ(test, err, 0);
	}
	return ktime_get_ns() - t0;
}

/*
 * CRC32c throughput of each implementation the kernel has (generic C and
 * SSE4.2 up to 6.x, the library's crc32c-lib from 7.0), on the same data;
 * all must give the same CRCs. Says which one MPA uses.
 */
static void mpa_bench_crc32c_drivers(struct kunit *test)
{
	static const char * const names[] = { "crc32c-generic",
					       "crc32c-intel", "crc32c-lib" };
	const u64 bytes = BENCH_BYTES;
	__le32 *crcs[ARRAY_SIZE(names)];
	struct crypto_shash *tfm;
	unsigned int i, have = 0, first = 0;
	u8 *src;

	src = swi_mpa_test_vmalloc(test, bytes);
	prandom_bytes_state(&(struct rnd_state){ 9, 9, 9, 9 }, src, bytes);
	kunit_info(test, "MPA computes CRC32c with %s\n", swi_mpa_crc_driver());
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		crcs[i] = kunit_kcalloc(test, BENCH_ULPDUS, sizeof(__le32),
					GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, crcs[i]);
		tfm = crypto_alloc_shash(names[i], 0, 0);
		if (IS_ERR(tfm)) {
			kunit_info(test, "%s: not available\n", names[i]);
			continue;
		}
		kunit_info(test, "%s: %llu MB/s\n", names[i],
			   bench_mbps(bytes, bench_crc_driver(test, tfm, src,
							      bytes, crcs[i])));
		crypto_free_shash(tfm);
		if (!have++)
			first = i;
		else
			KUNIT_EXPECT_MEMEQ(test, crcs[first], crcs[i],
					   BENCH_ULPDUS * sizeof(__le32));
	}
	KUNIT_EXPECT_GE(test, have, 1U);
}

static struct kunit_case mpa_bench_cases[] = {
	KUNIT_CASE_SLOW(mpa_bench_throughput),
	KUNIT_CASE_SLOW(mpa_bench_crc32c_drivers),
	{}
};

static struct kunit_suite mpa_bench_suite = {
	.name = "softiwarp_mpa_bench",
	.test_cases = mpa_bench_cases,
};

kunit_test_suites(&mpa_bench_suite);
