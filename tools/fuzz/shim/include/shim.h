/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel interfaces the protocol layers (mpa/, ddp/, rdmap/'s
 * codecs, cm/rpcrdma_cm.c) use, for building them unchanged in user space
 * with a fuzzing engine (tools/fuzz/README). Every <linux/...>, <net/...>,
 * <asm/...>, <crypto/...> and <kunit/...> header they include is a file
 * of this directory that includes this one.
 *
 * What is not the kernel's:
 *  - a struct sk_buff with a linear part and page frags only (no
 *    frag_list), and a socket that is a receive queue and copied_seq, read
 *    by tcp_read_sock() as the kernel's reads it (shim.c);
 *  - WARN_ON() and WARN_ON_ONCE() abort: a warning the wire can trigger
 *    is a bug the fuzzer reports;
 *  - CRC32c from a table (shim.c), the functions of mpa/mpa_crc.c, which
 *    is not built (it is the crypto API's glue, not a parser);
 *  - pr_*() print nothing (their arguments are still type-checked).
 */
#ifndef SOFTIWARP_FUZZ_SHIM_H
#define SOFTIWARP_FUZZ_SHIM_H

#include <endian.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <linux/types.h>	/* the C library's: __u8 ... __be64 */

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int gfp_t;

#define __aligned(x)		__attribute__((aligned(x)))
#define __packed		__attribute__((packed))
#undef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#define __must_check		__attribute__((warn_unused_result))
#define __maybe_unused		__attribute__((unused))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __force
#define __bitwise
#define __user
#define __iomem
#define __rcu
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define fallthrough		__attribute__((fallthrough))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define IS_ENABLED(x)		0
#define EXPORT_SYMBOL_IF_KUNIT(s)
/* compat.h includes <kunit/static_stub.h>; no fuzzed file redirects */
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) ((void)0)
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 12, 0)

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ALIGN(x, a)		(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define U8_MAX			((u8)~0U)
#define U16_MAX			((u16)~0U)
#define U32_MAX			((u32)~0U)
#define U64_MAX			((u64)~0ULL)
#define S32_MAX			((s32)(U32_MAX >> 1))
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	(((~0ULL) << (l)) & (~0ULL >> (63 - (h))))
#define __bf_shf(m)		(__builtin_ffsll(m) - 1)
#define FIELD_GET(m, v)		((__typeof__(m))(((v) & (m)) >> __bf_shf(m)))
#define FIELD_PREP(m, v)	(((__typeof__(m))(v) << __bf_shf(m)) & (m))
#define FIELD_FIT(m, v)		(!((((u64)(v)) << __bf_shf(m)) & ~(u64)(m)))
#define FIELD_MAX(m)		((__typeof__(m))((m) >> __bf_shf(m)))

#define SHIM_BITS(to, from, type)					\
static inline type to##_get_bits(__typeof__(from(0)) v, type field)	\
{									\
	return (from(v) & field) >> __bf_shf(field);			\
}									\
static inline __typeof__(from(0)) to##_encode_bits(type v, type field)	\
{									\
	return (__typeof__(from(0)))shim_to_##to(((type)v << __bf_shf(field)) & field); \
}
#define shim_id(x)		(x)
#define shim_to_u8(x)		(x)
#define shim_to_u16(x)		(x)
#define shim_to_u32(x)		(x)
#define shim_to_be16(x)		htobe16(x)
#define shim_to_be32(x)		htobe32(x)
#define shim_to_be64(x)		htobe64(x)
#define shim_to_le16(x)		htole16(x)
#define shim_to_le32(x)		htole32(x)
#define shim_from_u8(x)		((u8)(x))
#define shim_from_u16(x)	((u16)(x))
#define shim_from_u32(x)	((u32)(x))
#define shim_from_be16(x)	be16toh((__be16)(x))
#define shim_from_be32(x)	be32toh((__be32)(x))
#define shim_from_be64(x)	be64toh((__be64)(x))
#define shim_from_le16(x)	le16toh((__le16)(x))
#define shim_from_le32(x)	le32toh((__le32)(x))
SHIM_BITS(u8, shim_from_u8, u8)
SHIM_BITS(u16, shim_from_u16, u16)
SHIM_BITS(u32, shim_from_u32, u32)
SHIM_BITS(be16, shim_from_be16, u16)
SHIM_BITS(be32, shim_from_be32, u32)
SHIM_BITS(be64, shim_from_be64, u64)
SHIM_BITS(le16, shim_from_le16, u16)
SHIM_BITS(le32, shim_from_le32, u32)

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define swap(a, b) \
	do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

#undef static_assert
#define __static_assert(e, msg, ...)	_Static_assert(e, msg)
#define static_assert(e, ...)	__static_assert(e, ##__VA_ARGS__, #e)
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)

/* a warning the wire can reach is a bug: stop there */
void shim_warn(const char *what, const char *file, int line);
#define WARN_ON(c) ({ int __c = !!(c); if (__c) shim_warn(#c, __FILE__, __LINE__); __c; })
#define WARN_ON_ONCE(c)		WARN_ON(c)
#define WARN(c, ...)		WARN_ON(c)
#define WARN_ONCE(c, ...)	WARN_ON(c)

#define shim_pr(fmt, ...) do { if (0) printf(fmt, ##__VA_ARGS__); } while (0)
#define pr_info(fmt, ...)		shim_pr(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)		shim_pr(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)		shim_pr(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)		shim_pr(fmt, ##__VA_ARGS__)
#define pr_info_ratelimited(fmt, ...)	shim_pr(fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...)	shim_pr(fmt, ##__VA_ARGS__)

#define cpu_to_be16(x)		htobe16(x)
#define cpu_to_be32(x)		htobe32(x)
#define cpu_to_be64(x)		htobe64(x)
#define be16_to_cpu(x)		be16toh(x)
#define be32_to_cpu(x)		be32toh(x)
#define be64_to_cpu(x)		be64toh(x)
#define cpu_to_le16(x)		htole16(x)
#define cpu_to_le32(x)		htole32(x)
#define cpu_to_le64(x)		htole64(x)
#define le16_to_cpu(x)		le16toh(x)
#define le32_to_cpu(x)		le32toh(x)
#define le64_to_cpu(x)		le64toh(x)
#define be16_to_cpup(p)		be16toh(*(const u16 *)(p))
#define be32_to_cpup(p)		be32toh(*(const u32 *)(p))

static inline u16 get_unaligned_be16(const void *p)
{
	u16 v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static inline u32 get_unaligned_be32(const void *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline u64 get_unaligned_be64(const void *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	v = htobe16(v);
	memcpy(p, &v, 2);
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

/* --- memory: a page is where its octets are ------------------------------- */
#define PAGE_SIZE		4096UL
#define PAGE_SHIFT		12
struct page {
	u8 *addr;
};
#define page_address(p)		((void *)(p)->addr)
#define kmap_local_page(p)	page_address(p)
#define kunmap_local(v)		do { (void)(v); } while (0)
#define nth_page(p, n)		((p) + (n))

/* --- iov_iter: kvec and bvec, read only ------------------------------------ */
struct kvec {
	void *iov_base;
	size_t iov_len;
};

struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};

enum { ITER_KVEC_SHIM = 1, ITER_BVEC_SHIM = 2 };
#define ITER_SOURCE		1
#define ITER_DEST		0
struct iov_iter {
	u8 type;
	size_t iov_offset;
	size_t count;
	union {
		const struct kvec *kvec;
		const struct bio_vec *bvec;
	};
	unsigned long nr_segs;
};
#define iov_iter_is_kvec(i)	((i)->type == ITER_KVEC_SHIM)
#define iov_iter_is_bvec(i)	((i)->type == ITER_BVEC_SHIM)
#define iov_iter_count(i)	((i)->count)

static inline void iov_iter_kvec(struct iov_iter *i, unsigned int dir,
				 const struct kvec *kv, unsigned long nr,
				 size_t count)
{
	(void)dir;
	memset(i, 0, sizeof(*i));
	i->type = ITER_KVEC_SHIM;
	i->kvec = kv;
	i->nr_segs = nr;
	i->count = count;
}

/* --- sk_buff: a linear part and page frags --------------------------------- */
#define MAX_SKB_FRAGS		17
typedef struct {
	struct page *page;
	unsigned int off;
	unsigned int size;
} skb_frag_t;

struct skb_shared_info {
	u8 nr_frags;
	struct sk_buff *frag_list;
	skb_frag_t frags[MAX_SKB_FRAGS];
};

struct sk_buff {
	struct sk_buff *next, *prev;
	unsigned char *data;
	unsigned int len, data_len;
	char cb[48] __aligned(8);
	struct skb_shared_info shinfo;
};

struct sk_buff_head {
	struct sk_buff *next, *prev;
	u32 qlen;
};

#define skb_shinfo(skb)		(&(skb)->shinfo)
#define skb_headlen(skb)	((skb)->len - (skb)->data_len)
#define skb_frag_size(f)	((f)->size)
#define skb_frag_off(f)		((f)->off)
#define skb_frag_page(f)	((f)->page)
#define skb_frag_address(f)	((void *)((f)->page->addr + (f)->off))
#define skb_queue_walk(q, skb) \
	for ((skb) = (q)->next; (skb) != (struct sk_buff *)(q); (skb) = (skb)->next)
int skb_copy_bits(const struct sk_buff *skb, int off, void *to, int len);
void kfree_skb(struct sk_buff *skb);

/* --- a TCP socket: a receive queue and the sequence read up to ------------- */
struct tcp_skb_cb {
	u32 seq;
	u32 end_seq;
	u8 tcp_flags;
};
#define TCP_SKB_CB(skb)		((struct tcp_skb_cb *)&(skb)->cb[0])
#define TCPHDR_FIN		0x01
#define TCPHDR_SYN		0x02

struct tcp_sock {
	u32 copied_seq;
};

struct sock {
	struct sk_buff_head sk_receive_queue;
	struct tcp_sock tcp;
};
#define tcp_sk(sk)		(&(sk)->tcp)

typedef struct {
	size_t written;
	size_t count;
	union {
		char *buf;
		void *data;
	} arg;
	int error;
} read_descriptor_t;
typedef int (*sk_read_actor_t)(read_descriptor_t *, struct sk_buff *,
			       unsigned int, size_t);
int tcp_read_sock(struct sock *sk, read_descriptor_t *desc,
		  sk_read_actor_t recv_actor);

/* --- CRC32c ----------------------------------------------------------------- */
u32 __crc32c_le(u32 crc, const void *p, size_t len);

struct shash_desc {
	void *tfm;
};

/* a target's entry point, called by libFuzzer's (shim/entry.c) */
int fuzz_one(const u8 *data, size_t size);

#endif /* SOFTIWARP_FUZZ_SHIM_H */
