// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mem
 *
 * The STag table: indexes distinct, cyclic and never 0, and within the
 * limit of swi_rdmap_mem_set_index_max() (one registration more refused with
 * -ENOSPC, a freed index handed out again, the full range back); lookups
 * with the right key, a wrong key, an unknown index; protection domains;
 * the access rights matrix for remote and local use; local bounds at the
 * exact end and one octet past; local and remote invalidation with the
 * RFC 5040 refusals; fast-register (key change, refused on a valid MR or
 * with bad arguments; new pages refused on a valid one, which keeps its
 * own); page walks over a region starting mid-page, with chunks larger
 * than a page and through the DMA MR; a lookup reference keeping an
 * object alive while its deregistration waits; holds, which it does not
 * wait for: the object lives until the last one (read after a grace
 * period, freed by the last), and swi_rdmap_mem_use() checks the held object
 * again (-EACCES when invalid, for another key or PD, missing rights, out
 * of bounds or wrapping; -ENOENT once deregistered), also once a new MR
 * with the same key and PD took its index and so its STag, which a
 * lookup by number finds instead; the data path calls with bottom halves
 * and with interrupts disabled; and the lookup result fed to
 * swi_rdmap_rx_check() and swi_rdmap_read_req_check(), giving the Terminate codes
 * of the RFC tables (written as numbers).
 *
 * Every case gets a fresh table (suite init) and real pages: three
 * order-0 pages and two order-1 pages. Holds and the index limit are
 * undone by KUnit actions, also when a case fails.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "ddp/ddp.h"
#include "kunit/helpers.h"
#include "rdmap/codec.h"
#include "rdmap/mem.h"
#include "rdmap/terminate.h"

#define LW	IB_ACCESS_LOCAL_WRITE
#define RW	IB_ACCESS_REMOTE_WRITE
#define RR	IB_ACCESS_REMOTE_READ
#define RA	IB_ACCESS_REMOTE_ATOMIC

/* The MR of most cases: three pages, starting 0x100 into the first one */
#define MR_OFF		0x100U
#define MR_IOVA		(0x7f0000000000ULL + MR_OFF)
#define MR_LEN		(3 * PAGE_SIZE - MR_OFF - 0x80)
#define MR_KEY		0xa5
#define FR_IOVA		0x40000000ULL

static char pd_a_obj, pd_b_obj;
#define PD_A	((const void *)&pd_a_obj)
#define PD_B	((const void *)&pd_b_obj)
/* Two streams' identities (&rdmap_mem.used_by) */
#define STREAM_A	1
#define STREAM_B	2

struct mem_test {
	struct rdmap_mem_table t;
	struct page *small[3];	/* order 0 */
	struct page *big[2];	/* order 1 */
};

static int mem_test_init(struct kunit *test)
{
	struct mem_test *mt = kunit_kzalloc(test, sizeof(*mt), GFP_KERNEL);
	int i;

	if (!mt)
		return -ENOMEM;
	swi_rdmap_mem_table_init(&mt->t);
	test->priv = mt;
	for (i = 0; i < ARRAY_SIZE(mt->small); i++) {
		mt->small[i] = alloc_page(GFP_KERNEL);
		if (!mt->small[i])
			return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(mt->big); i++) {
		mt->big[i] = alloc_pages(GFP_KERNEL, 1);
		if (!mt->big[i])
			return -ENOMEM;
	}
	return 0;
}

static void mem_test_exit(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem;
	unsigned long index;
	int i;

	xa_for_each(&mt->t.xa, index, mem)
		swi_rdmap_mem_dereg(&mt->t, mem);
	swi_rdmap_mem_table_destroy(&mt->t);
	for (i = 0; i < ARRAY_SIZE(mt->small); i++)
		if (mt->small[i])
			__free_page(mt->small[i]);
	for (i = 0; i < ARRAY_SIZE(mt->big); i++)
		if (mt->big[i])
			__free_pages(mt->big[i], 1);
}

static struct rdmap_mem *reg_mr_at(struct kunit *test, int access, u32 hint)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem_attr a = {
		.type = RDMAP_MEM_MR, .pd = PD_A, .key = MR_KEY,
		.access = access, .iova = MR_IOVA, .len = MR_LEN,
		.pages = { .pages = mt->small, .npages = 3,
			   .page_shift = PAGE_SHIFT, .offset = MR_OFF },
		.hint = hint,
	};
	struct rdmap_mem *mem = swi_rdmap_mem_register(&mt->t, &a, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	return mem;
}

/* The same at hint 0: the lowest free index */
static struct rdmap_mem *reg_mr(struct kunit *test, int access)
{
	return reg_mr_at(test, access, 0);
}

/* A fast-register MR with key 0x11, given the three small pages */
static struct rdmap_mem *reg_frmr(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem_attr a = {
		.type = RDMAP_MEM_FRMR, .pd = PD_A, .key = 0x11,
	};
	struct rdmap_mem_pages p = {
		.pages = mt->small, .npages = 3, .page_shift = PAGE_SHIFT,
	};
	struct rdmap_mem *mem = swi_rdmap_mem_register(&mt->t, &a, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_set_pages(mem, &p), 0);
	return mem;
}

static struct rdmap_mem *reg_dma(struct kunit *test, int access)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem_attr a = {
		.type = RDMAP_MEM_DMA, .pd = PD_A, .access = access,
	};
	struct rdmap_mem *mem = swi_rdmap_mem_register(&mt->t, &a, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	return mem;
}

/* Lookup and remote check of @stag, as the receive path of @stream does */
static struct ddp_stag_check check_stag_on(struct kunit *test, u32 stag,
					   const void *pd, u64 stream)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = swi_rdmap_mem_lookup(&mt->t, stag);
	struct ddp_stag_check chk;

	swi_rdmap_mem_remote_check(mem, stag, pd, stream, &chk);
	swi_rdmap_mem_put(mem);
	return chk;
}

/* The same on stream A */
static struct ddp_stag_check check_stag(struct kunit *test, u32 stag,
					const void *pd)
{
	return check_stag_on(test, stag, pd, STREAM_A);
}

static enum ib_wc_status check_lkey(struct kunit *test, u32 lkey,
				    const void *pd, int access, u64 addr,
				    u64 len)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = swi_rdmap_mem_lookup(&mt->t, lkey);
	enum ib_wc_status st;

	st = swi_rdmap_mem_local_check(mem, lkey, pd, access, addr, len);
	swi_rdmap_mem_put(mem);
	return st;
}

/*
 * Holds and the STag index limit, undone by KUnit however the case ends:
 * keep_hold() adds a hold of swi_rdmap_mem_hold() that drop_hold() (or the
 * end of the test) drops; limit_indexes() limits the STag indexes until
 * the test ends.
 */
static void unhold_action(void *mem)
{
	swi_rdmap_mem_unhold(mem);
}

static void keep_hold(struct kunit *test, struct rdmap_mem *mem)
{
	swi_rdmap_mem_hold(mem);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unhold_action,
							mem), 0);
}

static void drop_hold(struct kunit *test, struct rdmap_mem *mem)
{
	kunit_release_action(test, unhold_action, mem);
}

static void index_max_restore(void *unused)
{
	swi_rdmap_mem_set_index_max(0);
}

static void limit_indexes(struct kunit *test, u32 max)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							index_max_restore,
							NULL), 0);
	swi_rdmap_mem_set_index_max(max);
}

/* Walk callback recording the pieces */

struct piece {
	struct page *page;
	unsigned int off;
	unsigned int len;
};

struct collector {
	struct piece p[8];
	unsigned int n;
	unsigned int calls;
	unsigned int fail_at;	/* nonzero: refuse this call (1-based) */
};

static int collect_piece(void *ctx, struct page *page, unsigned int off,
			 unsigned int len)
{
	struct collector *c = ctx;

	if (++c->calls == c->fail_at)
		return -EIO;
	if (c->n == ARRAY_SIZE(c->p))
		return -E2BIG;
	c->p[c->n++] = (struct piece){ page, off, len };
	return 0;
}

/* Allocation */

#define NR_ALLOC	64

static void mem_register_gives_distinct_nonzero_indexes(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	u32 idx[NR_ALLOC];
	int i, j;

	for (i = 0; i < NR_ALLOC; i++) {
		struct rdmap_mem *mem = reg_mr(test, LW);
		u32 stag = swi_rdmap_mem_stag(mem);
		struct rdmap_mem *found = swi_rdmap_mem_lookup(&mt->t, stag);

		KUNIT_EXPECT_PTR_EQ(test, found, mem);
		swi_rdmap_mem_put(found);
		KUNIT_EXPECT_EQ(test, rdmap_stag_key(stag), MR_KEY);
		idx[i] = rdmap_stag_index(stag);
		KUNIT_EXPECT_NE(test, idx[i], 0);
		KUNIT_EXPECT_LE(test, idx[i], RDMAP_STAG_INDEX_MAX);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE_MSG(test, idx[i], idx[j],
					    "objects %d and %d", j, i);
	}
}

/*
 * The index is the first free one from the hint (modulo the largest
 * index) on, wrapping around past the top to 1, never 0
 */
static void mem_register_wraps_cyclically_skipping_0(struct kunit *test)
{
	struct rdmap_mem *first, *last, *wrapped, *mid;

	first = reg_mr(test, LW);
	KUNIT_EXPECT_EQ(test, rdmap_stag_index(swi_rdmap_mem_stag(first)), 1);
	mid = reg_mr_at(test, LW, 0x123456);
	KUNIT_EXPECT_EQ(test, rdmap_stag_index(swi_rdmap_mem_stag(mid)),
			0x123457);
	mid = reg_mr_at(test, LW, 0x123456 + RDMAP_STAG_INDEX_MAX);
	KUNIT_EXPECT_EQ(test, rdmap_stag_index(swi_rdmap_mem_stag(mid)),
			0x123458);
	last = reg_mr_at(test, LW, RDMAP_STAG_INDEX_MAX - 1);
	KUNIT_EXPECT_EQ(test, rdmap_stag_index(swi_rdmap_mem_stag(last)),
			RDMAP_STAG_INDEX_MAX);
	/* past the top: not 0, not the busy 1 */
	wrapped = reg_mr_at(test, LW, RDMAP_STAG_INDEX_MAX - 1);
	KUNIT_EXPECT_EQ(test, rdmap_stag_index(swi_rdmap_mem_stag(wrapped)), 2);
}

#define NR_LIMITED	4

/*
 * With the indexes limited to 1..NR_LIMITED, one registration more is
 * refused; a deregistered index comes back; the full range returns.
 */
static void mem_index_max_limits_registrations(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem_attr a = {
		.type = RDMAP_MEM_MR, .pd = PD_A, .key = MR_KEY, .access = LW,
		.iova = MR_IOVA, .len = MR_LEN,
		.pages = { .pages = mt->small, .npages = 3,
			   .page_shift = PAGE_SHIFT, .offset = MR_OFF },
	};
	struct rdmap_mem *mem[NR_LIMITED], *more;
	unsigned long index, seen = 0;
	unsigned int n = 0;
	u32 idx;
	int i;

	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_index_max(), RDMAP_STAG_INDEX_MAX);
	limit_indexes(test, NR_LIMITED);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_index_max(), NR_LIMITED);
	for (i = 0; i < NR_LIMITED; i++) {
		mem[i] = reg_mr(test, LW);
		idx = rdmap_stag_index(swi_rdmap_mem_stag(mem[i]));
		KUNIT_EXPECT_GE_MSG(test, idx, 1, "object %d", i);
		KUNIT_EXPECT_LE_MSG(test, idx, NR_LIMITED, "object %d", i);
		if (idx >= 1 && idx <= NR_LIMITED)
			seen |= BIT(idx);
	}
	KUNIT_EXPECT_EQ(test, hweight_long(seen), NR_LIMITED);
	more = swi_rdmap_mem_register(&mt->t, &a, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(more), -ENOSPC);
	xa_for_each(&mt->t.xa, index, more)
		n++;
	KUNIT_EXPECT_EQ(test, n, NR_LIMITED);

	/* a deregistered index is handed out again */
	idx = rdmap_stag_index(swi_rdmap_mem_stag(mem[1]));
	swi_rdmap_mem_dereg(&mt->t, mem[1]);
	more = reg_mr(test, LW);
	KUNIT_EXPECT_EQ(test, rdmap_stag_index(swi_rdmap_mem_stag(more)), idx);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(swi_rdmap_mem_register(&mt->t, &a,
								     GFP_KERNEL)),
			-ENOSPC);

	/* 0, or anything above the largest index, is the full range */
	swi_rdmap_mem_set_index_max(0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_index_max(), RDMAP_STAG_INDEX_MAX);
	more = reg_mr(test, LW);
	KUNIT_EXPECT_GT(test, rdmap_stag_index(swi_rdmap_mem_stag(more)),
			NR_LIMITED);
	swi_rdmap_mem_set_index_max(NR_LIMITED);
	swi_rdmap_mem_set_index_max(RDMAP_STAG_INDEX_MAX + 1);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_index_max(), RDMAP_STAG_INDEX_MAX);
}

static struct page *dummy_pages[3];

#define GOOD_PAGES(off) \
	{ .pages = dummy_pages, .npages = 3, .page_shift = PAGE_SHIFT, \
	  .offset = (off) }

struct attr_case {
	const char *desc;
	struct rdmap_mem_attr a;
	int ret;
};

static const struct attr_case attr_cases[] = {
	{ "MR exactly filling its pages",
	  { RDMAP_MEM_MR, PD_A, 1, LW | RW, 0x1000, 3 * PAGE_SIZE,
	    GOOD_PAGES(0) }, 0 },
	{ "MR of zero length", { RDMAP_MEM_MR, PD_A, 1, LW, 0x1000, 0,
	  GOOD_PAGES(0) }, 0 },
	{ "MR ending exactly at 2^64",
	  { RDMAP_MEM_MR, PD_A, 1, LW, U64_MAX - 0xfff, 0x1000,
	    GOOD_PAGES(0) }, 0 },
	{ "FRMR without pages", { RDMAP_MEM_FRMR, PD_A, 1 }, 0 },
	{ "DMA MR", { RDMAP_MEM_DMA, PD_A, 1, LW }, 0 },
	{ "MR one octet larger than its pages",
	  { RDMAP_MEM_MR, PD_A, 1, LW, 0x1000, 3 * PAGE_SIZE + 1,
	    GOOD_PAGES(0) }, -EINVAL },
	{ "MR whose offset pushes it past its pages",
	  { RDMAP_MEM_MR, PD_A, 1, LW, 0x1000, 3 * PAGE_SIZE - 0xff,
	    GOOD_PAGES(0x100) }, -EINVAL },
	{ "MR one octet past 2^64",
	  { RDMAP_MEM_MR, PD_A, 1, LW, U64_MAX - 0xffe, 0x1000,
	    GOOD_PAGES(0) }, -EINVAL },
	{ "MR with remote write but no local write",
	  { RDMAP_MEM_MR, PD_A, 1, RW, 0x1000, 16, GOOD_PAGES(0) },
	  -EINVAL },
	{ "MR with remote atomic but no local write",
	  { RDMAP_MEM_MR, PD_A, 1, RA | RR, 0x1000, 16, GOOD_PAGES(0) },
	  -EINVAL },
	{ "MR without a page array",
	  { RDMAP_MEM_MR, PD_A, 1, LW, 0x1000, 16,
	    { .npages = 3, .page_shift = PAGE_SHIFT } }, -EINVAL },
	{ "MR with chunks smaller than a page",
	  { RDMAP_MEM_MR, PD_A, 1, LW, 0x1000, 16,
	    { .pages = dummy_pages, .npages = 3,
	      .page_shift = PAGE_SHIFT - 1 } }, -EINVAL },
	{ "MR whose offset lies outside its first chunk",
	  { RDMAP_MEM_MR, PD_A, 1, LW, 0x1000, 16, GOOD_PAGES(PAGE_SIZE) },
	  -EINVAL },
	{ "unknown type", { 7, PD_A, 1, LW }, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(attr_cases, attr_cases, desc);

static void mem_register_checks_attributes(struct kunit *test)
{
	const struct attr_case *c = test->param_value;
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = swi_rdmap_mem_register(&mt->t, &c->a, GFP_KERNEL);

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mem), c->ret);
	if (c->ret)
		KUNIT_EXPECT_TRUE(test, xa_empty(&mt->t.xa));
}

/* Lookup and checks */

struct key_case {
	const char *desc;
	u8 key_xor;
	u32 index;	/* 0: the MR's own index, else this one */
	u8 state;
};

static const struct key_case key_cases[] = {
	{ "right key", 0, 0, DDP_STAG_VALID },
	{ "key with its lowest bit flipped", 0x01, 0, DDP_STAG_INVALID },
	{ "key with its highest bit flipped", 0x80, 0, DDP_STAG_INVALID },
	{ "unregistered index", 0, 0x1234, DDP_STAG_INVALID },
	{ "index 0", 0, RDMAP_STAG_INDEX_MAX + 1, DDP_STAG_INVALID },
};

KUNIT_ARRAY_PARAM_DESC(key_cases, key_cases, desc);

static void mem_lookup_checks_key(struct kunit *test)
{
	const struct key_case *c = test->param_value;
	struct rdmap_mem *mem = reg_mr(test, LW | RW | RR);
	u32 stag = swi_rdmap_mem_stag(mem) ^ c->key_xor;
	struct ddp_stag_check chk;

	if (c->index)	/* 2^24 wraps to index 0 */
		stag = rdmap_stag_make(c->index & RDMAP_STAG_INDEX_MAX,
				       MR_KEY);
	chk = check_stag(test, stag, PD_A);
	KUNIT_EXPECT_EQ(test, chk.state, c->state);
	KUNIT_EXPECT_EQ(test, check_lkey(test, stag, PD_A, 0, MR_IOVA, 1),
			c->state == DDP_STAG_VALID ? IB_WC_SUCCESS :
						     IB_WC_LOC_PROT_ERR);
	if (c->state != DDP_STAG_VALID)
		return;
	KUNIT_EXPECT_EQ(test, chk.base, MR_IOVA);
	KUNIT_EXPECT_EQ(test, chk.len, MR_LEN);
}

static void mem_lookup_of_unknown_index_fails(struct kunit *test)
{
	struct mem_test *mt = test->priv;

	KUNIT_EXPECT_EQ(test, PTR_ERR(swi_rdmap_mem_lookup(&mt->t, 0x4200)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, PTR_ERR(swi_rdmap_mem_lookup(&mt->t, 0x00a5)),
			-ENOENT);
}

static void mem_check_other_pd_not_associated(struct kunit *test)
{
	struct rdmap_mem *mem = reg_mr(test, LW | RW | RR);
	u32 stag = swi_rdmap_mem_stag(mem);
	struct ddp_stag_check chk = check_stag(test, stag, PD_B);

	KUNIT_EXPECT_EQ(test, chk.state, DDP_STAG_NOT_ASSOC);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, check_lkey(test, stag, PD_B, 0, MR_IOVA, 1),
			IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, check_lkey(test, stag, PD_A, 0, MR_IOVA, 1),
			IB_WC_SUCCESS);
}

struct access_case {
	const char *desc;
	int access;
	u8 ddp;		/* DDP_ACCESS_* granted to the peer */
	bool local_write;
};

static const struct access_case access_cases[] = {
	{ "no rights (local read only)", 0, 0, false },
	{ "local write", LW, 0, true },
	{ "remote read", RR, DDP_ACCESS_REMOTE_READ, false },
	{ "remote read and local write", RR | LW, DDP_ACCESS_REMOTE_READ,
	  true },
	{ "remote write and local write", RW | LW, DDP_ACCESS_REMOTE_WRITE,
	  true },
	{ "remote read, remote write and local write", RR | RW | LW,
	  DDP_ACCESS_REMOTE_READ | DDP_ACCESS_REMOTE_WRITE, true },
	{ "remote atomic and local write", RA | LW, DDP_ACCESS_REMOTE_ATOMIC,
	  true },
};

KUNIT_ARRAY_PARAM_DESC(access_cases, access_cases, desc);

static void mem_check_grants_registered_access(struct kunit *test)
{
	const struct access_case *c = test->param_value;
	struct rdmap_mem *mem = reg_mr(test, c->access);
	u32 stag = swi_rdmap_mem_stag(mem);
	struct ddp_stag_check chk = check_stag(test, stag, PD_A);

	KUNIT_ASSERT_EQ(test, chk.state, DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, chk.access, c->ddp);
	KUNIT_EXPECT_EQ(test, check_lkey(test, stag, PD_A, 0, MR_IOVA, 8),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, check_lkey(test, stag, PD_A, LW, MR_IOVA, 8),
			c->local_write ? IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR);
}

struct bounds_case {
	const char *desc;
	u64 start;	/* from MR_IOVA, modulo 2^64 */
	u64 len;
	enum ib_wc_status st;
};

static const struct bounds_case bounds_cases[] = {
	{ "whole region", 0, MR_LEN, IB_WC_SUCCESS },
	{ "last octet", MR_LEN - 1, 1, IB_WC_SUCCESS },
	{ "one octet past the end", MR_LEN - 1, 2, IB_WC_LOC_PROT_ERR },
	{ "starting at the end", MR_LEN, 1, IB_WC_LOC_PROT_ERR },
	{ "one octet before the start", -1ULL, 2, IB_WC_LOC_PROT_ERR },
	{ "zero length outside the region", 0x100000, 0, IB_WC_SUCCESS },
	{ "wrapping past 2^64", U64_MAX - MR_IOVA, 2, IB_WC_LOC_PROT_ERR },
};

KUNIT_ARRAY_PARAM_DESC(bounds_cases, bounds_cases, desc);

static void mem_local_check_bounds(struct kunit *test)
{
	const struct bounds_case *c = test->param_value;
	struct rdmap_mem *mem = reg_mr(test, LW);

	KUNIT_EXPECT_EQ(test, check_lkey(test, swi_rdmap_mem_stag(mem), PD_A, LW,
					 MR_IOVA + c->start, c->len), c->st);
}

/* Invalidation */

static void mem_invalidate_then_lookup_invalid(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = reg_mr(test, LW | RW);
	u32 stag = swi_rdmap_mem_stag(mem);

	KUNIT_ASSERT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag, PD_A),
			0);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_INVALID);
	KUNIT_EXPECT_EQ(test, check_lkey(test, stag, PD_A, 0, MR_IOVA, 1),
			IB_WC_LOC_PROT_ERR);
	/* invalidating an invalid STag is no error */
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag, PD_A),
			0);
	/* an MR is not fast-registered back to life */
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW, MR_IOVA,
						     16), -EINVAL);
}

static void mem_invalidate_local_refusals(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mr = reg_mr(test, LW);
	struct rdmap_mem *dma = reg_dma(test, LW);
	u32 stag = swi_rdmap_mem_stag(mr);

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag ^ 1,
							     PD_A), -ENOENT);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag, PD_B),
			-EACCES);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t,
							     swi_rdmap_mem_stag(dma),
							     PD_A), -EPERM);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, 0x777700,
							     PD_A), -ENOENT);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, check_stag(test, swi_rdmap_mem_stag(dma),
					 PD_A).state, DDP_STAG_VALID);
}

enum { SEND_INV_OK, SEND_INV_PROT, SEND_INV_OP, SEND_INV_STALE };

struct rinv_case {
	const char *desc;
	u8 type;
	bool other_pd;
	u8 key_xor;
	bool unknown;
	u8 verdict;	/* SEND_INV_* */
	bool invalid;	/* invalidated before */
};

static const struct rinv_case rinv_cases[] = {
	{ "valid FRMR of the stream's PD", RDMAP_MEM_FRMR, false, 0, false,
	  SEND_INV_OK },
	{ "MR of the stream's PD", RDMAP_MEM_MR, false, 0, false,
	  SEND_INV_OK },
	{ "DMA MR: type not invalidatable", RDMAP_MEM_DMA, false, 0, false,
	  SEND_INV_PROT },
	{ "FRMR of another PD", RDMAP_MEM_FRMR, true, 0, false,
	  SEND_INV_PROT },
	{ "MR of another PD", RDMAP_MEM_MR, true, 0, false, SEND_INV_PROT },
	{ "FRMR with another key", RDMAP_MEM_FRMR, false, 0x40, false,
	  SEND_INV_OP },
	{ "unregistered index", RDMAP_MEM_MR, false, 0, true, SEND_INV_OP },
	{ "FRMR already invalid: Invalid STag", RDMAP_MEM_FRMR, false, 0,
	  false, SEND_INV_STALE, true },
	{ "MR already invalid: Invalid STag", RDMAP_MEM_MR, false, 0, false,
	  SEND_INV_STALE, true },
};

KUNIT_ARRAY_PARAM_DESC(rinv_cases, rinv_cases, desc);

static struct rdmap_mem *reg_valid(struct kunit *test, u8 type)
{
	struct rdmap_mem *mem;

	if (type == RDMAP_MEM_MR)
		return reg_mr(test, LW | RW);
	if (type == RDMAP_MEM_DMA)
		return reg_dma(test, LW | RW);
	mem = reg_frmr(test);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A,
						     swi_rdmap_mem_stag(mem), LW | RW,
						     FR_IOVA, PAGE_SIZE), 0);
	return mem;
}

static void mem_invalidate_remote_follows_rfc5040(struct kunit *test)
{
	const struct rinv_case *c = test->param_value;
	struct mem_test *mt = test->priv;
	struct rdmap_term_cause cause = { 0xaa, 0xaa, 0xaa };
	struct rdmap_mem *mem = reg_valid(test, c->type);
	u32 stag = swi_rdmap_mem_stag(mem);
	u32 sent = c->unknown ? 0x333300 : stag ^ c->key_xor;
	int ret;

	if (c->invalid)
		KUNIT_ASSERT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag,
								     PD_A), 0);
	ret = swi_rdmap_mem_invalidate_remote(&mt->t, sent,
					      c->other_pd ? PD_B : PD_A, STREAM_A,
					      &cause);
	if (c->verdict == SEND_INV_OK) {
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, cause.layer, 0xaa);
		KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
				DDP_STAG_INVALID);
		return;
	}
	KUNIT_EXPECT_EQ(test, ret, -EPROTO);
	if (c->verdict == SEND_INV_STALE) {
		/* RFC 5040 section 7.2: the Invalidate STag MUST be valid */
		SWI_EXPECT_TERM_CAUSE(test, cause, 0, 1, 0x00);
		return;
	}
	SWI_EXPECT_TERM_CAUSE(test, cause, 0,
			      c->verdict == SEND_INV_PROT ? 1 : 2, 0x09);
	/* a refused invalidation leaves the STag alone */
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_VALID);
}

/* Fast-register */

static void mem_fast_reg_changes_key(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_term_cause cause;
	struct rdmap_mem *mem = reg_frmr(test);
	u32 old = swi_rdmap_mem_stag(mem);
	u32 stag = rdmap_stag_make(rdmap_stag_index(old), 0x22);
	struct ddp_stag_check chk;

	KUNIT_ASSERT_EQ(test, rdmap_stag_key(old), 0x11);
	/* a fast-register MR starts invalid */
	KUNIT_EXPECT_EQ(test, check_stag(test, old, PD_A).state,
			DDP_STAG_INVALID);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW | RW,
						     FR_IOVA, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_stag(mem), stag);
	KUNIT_EXPECT_EQ(test, check_stag(test, old, PD_A).state,
			DDP_STAG_INVALID);
	chk = check_stag(test, stag, PD_A);
	KUNIT_EXPECT_EQ(test, chk.state, DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, chk.access, DDP_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, chk.base, FR_IOVA);
	KUNIT_EXPECT_EQ(test, chk.len, 2 * PAGE_SIZE);

	/* invalidated by the peer, then registered again with a third key */
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_invalidate_remote(&mt->t, stag, PD_A,
							      STREAM_A, &cause), 0);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_INVALID);
	stag = rdmap_stag_make(rdmap_stag_index(old), 0x33);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW | RR,
						     FR_IOVA + 8, 8), 0);
	chk = check_stag(test, stag, PD_A);
	KUNIT_EXPECT_EQ(test, chk.state, DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, chk.access, DDP_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, chk.base, FR_IOVA + 8);
}

/*
 * RFC 5040 section 8.1.1, requirement 7: a Remote Peer cannot invalidate
 * an STag shared on several streams. A fast-register MR that the peer of
 * stream A used may be invalidated by A's peer, not by B's; once B's peer
 * used it too, by neither (0/1/0x09, the STag stays valid). Each
 * registration starts afresh: one no peer used, any may invalidate.
 */
static void mem_invalidate_remote_refused_when_shared(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_term_cause cause;
	struct rdmap_mem *mem = reg_frmr(test);
	u32 idx = rdmap_stag_index(swi_rdmap_mem_stag(mem));
	u32 stag = rdmap_stag_make(idx, 0x22);

	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW | RW,
						     FR_IOVA, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, check_stag_on(test, stag, PD_A, STREAM_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_remote(&mt->t, stag, PD_A,
							      STREAM_B, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 0, 1, 0x09);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_remote(&mt->t, stag, PD_A,
							      STREAM_A, &cause), 0);

	stag = rdmap_stag_make(idx, 0x33);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW | RW,
						     FR_IOVA, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, check_stag_on(test, stag, PD_A, STREAM_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, check_stag_on(test, stag, PD_A, STREAM_B).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_remote(&mt->t, stag, PD_A,
							      STREAM_A, &cause),
			-EPROTO);
	SWI_EXPECT_TERM_CAUSE(test, cause, 0, 1, 0x09);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_remote(&mt->t, stag, PD_A,
							      STREAM_B, &cause),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag, PD_A),
			0);

	stag = rdmap_stag_make(idx, 0x44);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW | RW,
						     FR_IOVA, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_remote(&mt->t, stag, PD_A,
							      STREAM_B, &cause), 0);
}

struct fr_case {
	const char *desc;
	u8 type;
	bool valid_first;
	bool other_pd;
	u32 index_delta;
	int access;
	u64 iova;
	u64 len;
	int ret;
};

static const struct fr_case fr_cases[] = {
	{ "invalid FRMR, region filling its pages", RDMAP_MEM_FRMR, false,
	  false, 0, LW | RW, FR_IOVA, 3 * PAGE_SIZE, 0 },
	{ "FRMR that is valid already", RDMAP_MEM_FRMR, true, false, 0,
	  LW | RW, FR_IOVA, PAGE_SIZE, -EBUSY },
	{ "registered MR", RDMAP_MEM_MR, false, false, 0, LW | RW, FR_IOVA,
	  PAGE_SIZE, -EINVAL },
	{ "DMA MR", RDMAP_MEM_DMA, false, false, 0, LW, FR_IOVA, PAGE_SIZE,
	  -EINVAL },
	{ "FRMR of another PD", RDMAP_MEM_FRMR, false, true, 0, LW,
	  FR_IOVA, PAGE_SIZE, -EACCES },
	{ "new STag with another index", RDMAP_MEM_FRMR, false, false, 1, LW,
	  FR_IOVA, PAGE_SIZE, -EINVAL },
	{ "region one octet larger than the pages", RDMAP_MEM_FRMR, false,
	  false, 0, LW, FR_IOVA, 3 * PAGE_SIZE + 1, -EINVAL },
	{ "region one octet past 2^64", RDMAP_MEM_FRMR, false, false, 0, LW,
	  U64_MAX - 0xffe, 0x1000, -EINVAL },
	{ "remote write without local write", RDMAP_MEM_FRMR, false, false,
	  0, RW, FR_IOVA, PAGE_SIZE, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(fr_cases, fr_cases, desc);

static void mem_fast_reg_checks_request(struct kunit *test)
{
	const struct fr_case *c = test->param_value;
	struct rdmap_mem *mem;
	u32 stag, next;

	if (c->type == RDMAP_MEM_FRMR && !c->valid_first)
		mem = reg_frmr(test);
	else
		mem = reg_valid(test, c->type);
	stag = swi_rdmap_mem_stag(mem);
	next = rdmap_stag_make(rdmap_stag_index(stag) + c->index_delta, 0x5a);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_fast_reg(mem, c->other_pd ? PD_B : PD_A,
						     next, c->access, c->iova,
						     c->len), c->ret);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_stag(mem), c->ret ? stag : next);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			c->ret && (c->valid_first || c->type != RDMAP_MEM_FRMR) ?
			DDP_STAG_VALID : DDP_STAG_INVALID);
}

static void mem_set_pages_only_while_invalid(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = reg_valid(test, RDMAP_MEM_FRMR);
	struct rdmap_mem_pages one = {
		.pages = mt->small, .npages = 1, .page_shift = PAGE_SHIFT,
	};
	u32 stag = swi_rdmap_mem_stag(mem);
	struct collector col = {};

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_set_pages(mem, &one), -EBUSY);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag, PD_A),
			0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_set_pages(mem, &one), 0);
	/* an old reference now walks an empty region */
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, FR_IOVA, 1, collect_piece,
						 &col), -ERANGE);
	KUNIT_EXPECT_EQ(test, col.calls, 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW, FR_IOVA,
						     PAGE_SIZE + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW, FR_IOVA,
						     PAGE_SIZE), 0);
}

/* A valid FRMR keeps its pages and region when it is given others */
static void mem_set_pages_on_valid_frmr_keeps_pages(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = reg_frmr(test);
	struct rdmap_mem_pages big = {
		.pages = mt->big, .npages = 2, .page_shift = PAGE_SHIFT + 1,
	};
	u32 stag = swi_rdmap_mem_stag(mem);
	struct collector col = {};
	struct ddp_stag_check chk;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW | RW,
						     FR_IOVA, 3 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_set_pages(mem, &big), -EBUSY);
	chk = check_stag(test, stag, PD_A);
	KUNIT_EXPECT_EQ(test, chk.state, DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, chk.base, FR_IOVA);
	KUNIT_EXPECT_EQ(test, chk.len, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, FR_IOVA, 3 * PAGE_SIZE,
						 collect_piece, &col), 0);
	KUNIT_ASSERT_EQ(test, col.n, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_PTR_EQ_MSG(test, col.p[i].page, mt->small[i],
					"piece %u", i);
		KUNIT_EXPECT_EQ_MSG(test, col.p[i].off, 0, "piece %u", i);
		KUNIT_EXPECT_EQ_MSG(test, col.p[i].len, PAGE_SIZE, "piece %u",
				    i);
	}

	/* invalid, it takes them: the next registration walks those */
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag, PD_A),
			0);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_set_pages(mem, &big), 0);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(mem, PD_A, stag, LW, FR_IOVA,
						     4 * PAGE_SIZE), 0);
	col = (struct collector){};
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, FR_IOVA, 1, collect_piece,
						 &col), 0);
	KUNIT_ASSERT_EQ(test, col.n, 1);
	KUNIT_EXPECT_PTR_EQ(test, col.p[0].page, mt->big[0]);
}

/*
 * A placement checked before an invalidation is still walking when the
 * ULP maps the MR again (security.rst): at the first piece, the MR is
 * invalidated and given another array, and the ULP rewrites the array
 * it had (as swi_map_mr_sg() fills its spare). The walk must stop there,
 * never visit a page of the new mapping: before the page generation it
 * read the rewritten entries and placed into the ULP's new pages.
 */
struct remap_walk {
	struct collector col;
	struct rdmap_mem_table *t;
	struct rdmap_mem *mem;
	struct page **old;		/* the array the walk started on */
	struct rdmap_mem_pages next;	/* what the ULP maps meanwhile */
};

static int remap_piece(void *ctx, struct page *page, unsigned int off,
		       unsigned int len)
{
	struct remap_walk *w = ctx;
	unsigned int i;

	if (w->col.n == 0) {
		if (swi_rdmap_mem_invalidate_local(w->t, swi_rdmap_mem_stag(w->mem),
						   PD_A) ||
		    swi_rdmap_mem_set_pages(w->mem, &w->next))
			return -EPROTO;
		for (i = 0; i < 3; i++)
			w->old[i] = w->next.pages[0];
	}
	return collect_piece(&w->col, page, off, len);
}

static void mem_walk_stops_at_new_pages(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem_attr a = { .type = RDMAP_MEM_FRMR, .pd = PD_A };
	struct remap_walk w = { .t = &mt->t };
	struct rdmap_mem_pages p = { .npages = 3, .page_shift = PAGE_SHIFT };
	u32 stag;

	w.old = kunit_kmalloc_array(test, 3, sizeof(*w.old), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w.old);
	memcpy(w.old, mt->small, 3 * sizeof(*w.old));
	p.pages = w.old;
	w.next = (struct rdmap_mem_pages){
		.pages = mt->big, .npages = 2, .page_shift = PAGE_SHIFT,
	};
	w.mem = swi_rdmap_mem_register(&mt->t, &a, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w.mem);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_set_pages(w.mem, &p), 0);
	stag = swi_rdmap_mem_stag(w.mem);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(w.mem, PD_A, stag, LW | RW,
						     FR_IOVA, 3 * PAGE_SIZE), 0);

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_use_walk(w.mem, stag, PD_A, RW,
						     FR_IOVA, 3 * PAGE_SIZE,
						     remap_piece, &w), -ENOENT);
	KUNIT_ASSERT_EQ(test, w.col.n, 1);
	KUNIT_EXPECT_PTR_EQ(test, w.col.p[0].page, mt->small[0]);

	/* the new mapping is walked once it is registered */
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_fast_reg(w.mem, PD_A, stag, LW,
						     FR_IOVA, PAGE_SIZE), 0);
	w.col = (struct collector){};
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(w.mem, FR_IOVA, PAGE_SIZE,
						 collect_piece, &w.col), 0);
	KUNIT_ASSERT_EQ(test, w.col.n, 1);
	KUNIT_EXPECT_PTR_EQ(test, w.col.p[0].page, mt->big[0]);
}

/* Page walks */

struct walk_piece {
	u8 page;	/* index into mem_test.small */
	u16 off;
	u16 len;
};

struct walk_case {
	const char *desc;
	u64 start;	/* from MR_IOVA, modulo 2^64 */
	u64 len;
	int ret;
	unsigned int n;
	struct walk_piece p[3];
};

static const struct walk_case walk_cases[] = {
	{ "whole region: mid-page start, two page crossings", 0, MR_LEN, 0,
	  3, { { 0, MR_OFF, PAGE_SIZE - MR_OFF }, { 1, 0, PAGE_SIZE },
	       { 2, 0, PAGE_SIZE - 0x80 } } },
	{ "8 octets across the first page boundary",
	  PAGE_SIZE - MR_OFF - 4, 8, 0, 2,
	  { { 0, PAGE_SIZE - 4, 4 }, { 1, 0, 4 } } },
	{ "first octet", 0, 1, 0, 1, { { 0, MR_OFF, 1 } } },
	{ "16 octets ending exactly at the region's end", MR_LEN - 16, 16, 0,
	  1, { { 2, PAGE_SIZE - 0x80 - 16, 16 } } },
	{ "17 octets: one past the region's end", MR_LEN - 16, 17, -ERANGE },
	{ "starting at the region's end", MR_LEN, 1, -ERANGE },
	{ "starting one octet before the region", -1ULL, 2, -ERANGE },
	{ "empty range at the region's end", MR_LEN, 0, 0 },
	{ "wrapping past 2^64", U64_MAX - MR_IOVA - 3, 8, -ERANGE },
};

KUNIT_ARRAY_PARAM_DESC(walk_cases, walk_cases, desc);

static void mem_walk_gives_page_pieces(struct kunit *test)
{
	const struct walk_case *c = test->param_value;
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = reg_mr(test, LW);
	struct collector col = {};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, MR_IOVA + c->start, c->len,
						 collect_piece, &col), c->ret);
	KUNIT_ASSERT_EQ(test, col.n, c->n);
	for (i = 0; i < c->n; i++) {
		KUNIT_EXPECT_PTR_EQ_MSG(test, col.p[i].page,
					mt->small[c->p[i].page], "piece %u", i);
		KUNIT_EXPECT_EQ_MSG(test, col.p[i].off, c->p[i].off,
				    "piece %u", i);
		KUNIT_EXPECT_EQ_MSG(test, col.p[i].len, c->p[i].len,
				    "piece %u", i);
	}
}

/* Chunks of two pages (a umem with 8 KiB pages): pieces are still pages */
static void mem_walk_splits_large_chunks(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem_attr a = {
		.type = RDMAP_MEM_MR, .pd = PD_A, .access = LW, .iova = 0x1040,
		.len = 3 * PAGE_SIZE - 0x40,
		.pages = { .pages = mt->big, .npages = 2,
			   .page_shift = PAGE_SHIFT + 1,
			   .offset = PAGE_SIZE + 0x40 },
	};
	struct rdmap_mem *mem = swi_rdmap_mem_register(&mt->t, &a, GFP_KERNEL);
	struct collector col = {};

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, a.iova, a.len, collect_piece,
						 &col), 0);
	KUNIT_ASSERT_EQ(test, col.n, 3);
	KUNIT_EXPECT_PTR_EQ(test, col.p[0].page, nth_page(mt->big[0], 1));
	KUNIT_EXPECT_EQ(test, col.p[0].off, 0x40);
	KUNIT_EXPECT_EQ(test, col.p[0].len, PAGE_SIZE - 0x40);
	KUNIT_EXPECT_PTR_EQ(test, col.p[1].page, mt->big[1]);
	KUNIT_EXPECT_EQ(test, col.p[1].off, 0);
	KUNIT_EXPECT_EQ(test, col.p[1].len, PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, col.p[2].page, nth_page(mt->big[1], 1));
	KUNIT_EXPECT_EQ(test, col.p[2].len, PAGE_SIZE);
}

static void mem_walk_dma_mr_uses_direct_map(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = reg_dma(test, LW);
	u64 va = (uintptr_t)page_address(mt->big[0]) + PAGE_SIZE - 8;
	struct collector col = {};
	struct ddp_stag_check chk;

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, va, 24, collect_piece, &col),
			0);
	KUNIT_ASSERT_EQ(test, col.n, 2);
	KUNIT_EXPECT_PTR_EQ(test, col.p[0].page, mt->big[0]);
	KUNIT_EXPECT_EQ(test, col.p[0].off, PAGE_SIZE - 8);
	KUNIT_EXPECT_EQ(test, col.p[0].len, 8);
	KUNIT_EXPECT_PTR_EQ(test, col.p[1].page, nth_page(mt->big[0], 1));
	KUNIT_EXPECT_EQ(test, col.p[1].off, 0);
	KUNIT_EXPECT_EQ(test, col.p[1].len, 16);
	KUNIT_EXPECT_EQ(test, check_lkey(test, swi_rdmap_mem_stag(mem), PD_A, LW,
					 va, 24), IB_WC_SUCCESS);
	chk = check_stag(test, swi_rdmap_mem_stag(mem), PD_A);
	KUNIT_EXPECT_EQ(test, chk.base, 0);
	KUNIT_EXPECT_EQ(test, chk.len, U64_MAX);
}

static void mem_walk_stops_at_callback_error(struct kunit *test)
{
	struct rdmap_mem *mem = reg_mr(test, LW);
	struct collector col = { .fail_at = 2 };

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(mem, MR_IOVA, MR_LEN,
						 collect_piece, &col), -EIO);
	KUNIT_EXPECT_EQ(test, col.calls, 2);
	KUNIT_EXPECT_EQ(test, col.n, 1);
}

/* Lifetime */

struct dereg_work {
	struct work_struct work;
	struct rdmap_mem_table *t;
	struct rdmap_mem *mem;
	struct completion done;
};

static void dereg_fn(struct work_struct *work)
{
	struct dereg_work *dw = container_of(work, struct dereg_work, work);

	swi_rdmap_mem_dereg(dw->t, dw->mem);
	complete(&dw->done);
}

/* Poll until new lookups of @stag fail (up to 2 s) */
static bool stag_unlisted(struct rdmap_mem_table *t, u32 stag)
{
	struct rdmap_mem *mem;
	int i;

	for (i = 0; i < 100; i++) {
		mem = swi_rdmap_mem_lookup(t, stag);
		if (IS_ERR(mem))
			return true;
		swi_rdmap_mem_put(mem);
		msleep(20);
	}
	return false;
}

static void mem_lookup_reference_delays_dereg(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct rdmap_mem *mem = reg_mr(test, LW | RW);
	u32 stag = swi_rdmap_mem_stag(mem);
	struct rdmap_mem *ref = swi_rdmap_mem_lookup(&mt->t, stag);
	struct dereg_work *dw = kunit_kzalloc(test, sizeof(*dw), GFP_KERNEL);
	struct collector col = {};
	struct ddp_stag_check chk;

	KUNIT_ASSERT_PTR_EQ(test, ref, mem);
	if (!dw)
		swi_rdmap_mem_put(ref);
	KUNIT_ASSERT_NOT_NULL(test, dw);
	dw->t = &mt->t;
	dw->mem = mem;
	init_completion(&dw->done);
	INIT_WORK(&dw->work, dereg_fn);
	queue_work(system_unbound_wq, &dw->work);

	KUNIT_EXPECT_TRUE(test, stag_unlisted(&mt->t, stag));
	/* Done already would mean freed under our reference: stop here */
	KUNIT_ASSERT_EQ(test, wait_for_completion_timeout(&dw->done,
							  HZ / 5), 0);
	/* what the reference still sees: invalid, but its pages intact */
	swi_rdmap_mem_remote_check(ref, stag, PD_A, STREAM_A, &chk);
	KUNIT_EXPECT_EQ(test, chk.state, DDP_STAG_INVALID);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_walk(ref, MR_IOVA, 1, collect_piece,
						 &col), 0);
	KUNIT_EXPECT_PTR_EQ(test, col.p[0].page, mt->small[0]);
	swi_rdmap_mem_put(ref);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&dw->done, 10 * HZ),
			0);
	flush_work(&dw->work);
}

/* swi_rdmap_mem_dereg() of @mem queued to a worker, for dereg_returns() */
static struct dereg_work *dereg_queue(struct kunit *test,
				      struct dereg_work *dw,
				      struct rdmap_mem *mem)
{
	struct mem_test *mt = test->priv;

	dw->t = &mt->t;
	dw->mem = mem;
	init_completion(&dw->done);
	INIT_WORK(&dw->work, dereg_fn);
	queue_work(system_unbound_wq, &dw->work);
	return dw;
}

/*
 * Whether the swi_rdmap_mem_dereg() of @dw returned within 10 s. When it did
 * not, the caller drops what it waits for, then flushes the work.
 */
static bool dereg_returns(struct kunit *test, struct dereg_work *dw)
{
	bool done = wait_for_completion_timeout(&dw->done, 10 * HZ);

	KUNIT_EXPECT_TRUE_MSG(test, done, "swi_rdmap_mem_dereg() still waits");
	if (done)
		flush_work(&dw->work);
	return done;
}

/*
 * An operation in flight holds the MR A it was checked against, as
 * posting does: lookup, hold, put. A is deregistered, which does not wait
 * for the hold, and B, with the same key in the same PD, takes A's index:
 * the same STag. The operation's next use of A is refused, although a
 * lookup of the STag, by its number, finds B, valid.
 */
static void mem_held_mr_refused_after_index_reuse(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct dereg_work *dw = kunit_kzalloc(test, sizeof(*dw), GFP_KERNEL);
	struct rdmap_mem *a = reg_mr(test, LW), *ref, *b, *used;
	u32 stag = swi_rdmap_mem_stag(a);

	KUNIT_ASSERT_NOT_NULL(test, dw);
	ref = swi_rdmap_mem_lookup(&mt->t, stag);
	KUNIT_ASSERT_PTR_EQ(test, ref, a);
	swi_rdmap_mem_hold(ref);
	swi_rdmap_mem_put(ref);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unhold_action,
							a), 0);

	if (!dereg_returns(test, dereg_queue(test, dw, a))) {
		drop_hold(test, a);
		flush_work(&dw->work);
		return;
	}
	limit_indexes(test, rdmap_stag_index(stag));
	b = reg_mr(test, LW);
	KUNIT_ASSERT_EQ(test, swi_rdmap_mem_stag(b), stag);
	KUNIT_EXPECT_FALSE(test, swi_rdmap_mem_is_valid(a));
	KUNIT_EXPECT_TRUE(test, swi_rdmap_mem_is_valid(b));

	used = swi_rdmap_mem_use(a, stag, PD_A, LW, MR_IOVA, 8);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(used), -ENOENT);
	KUNIT_EXPECT_PTR_NE(test, used, b);
	KUNIT_EXPECT_PTR_NE(test, used, a);
	if (!IS_ERR(used))
		swi_rdmap_mem_put(used);

	/* what a lookup by number would have used instead */
	ref = swi_rdmap_mem_lookup(&mt->t, stag);
	KUNIT_EXPECT_PTR_EQ(test, ref, b);
	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_local_check(ref, stag, PD_A, LW,
							MR_IOVA, 8),
			IB_WC_SUCCESS);
	swi_rdmap_mem_put(ref);

	/* invalidating through the hold touches A only, never B */
	swi_rdmap_mem_invalidate_held(a, stag, PD_A);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_VALID);
	KUNIT_EXPECT_FALSE(test, swi_rdmap_mem_is_valid(a));
	/* the last hold frees A (kmemleak and KASAN on the debug kernel) */
	drop_hold(test, a);
}

enum { USE_AS_IS, USE_INVALIDATED, USE_DEREGISTERED };

struct use_case {
	const char *desc;
	int access;	/* the MR's rights */
	u8 setup;	/* USE_* */
	u8 key_xor;
	bool other_pd;
	int want;	/* the rights the use needs */
	u64 start;	/* from MR_IOVA, modulo 2^64 */
	u64 len;
	int ret;
};

static const struct use_case use_cases[] = {
	{ "valid, the whole region", LW, USE_AS_IS, 0, false, LW, 0, MR_LEN,
	  0 },
	{ "valid, the last octet", LW | RR, USE_AS_IS, 0, false, RR,
	  MR_LEN - 1, 1, 0 },
	{ "invalidated locally", LW, USE_INVALIDATED, 0, false, LW, 0, 8,
	  -EACCES },
	{ "key with its lowest bit flipped", LW, USE_AS_IS, 0x01, false, LW,
	  0, 8, -EACCES },
	{ "key with its highest bit flipped", LW, USE_AS_IS, 0x80, false, LW,
	  0, 8, -EACCES },
	{ "another PD", LW, USE_AS_IS, 0, true, LW, 0, 8, -EACCES },
	{ "local write needed, not granted", 0, USE_AS_IS, 0, false, LW, 0,
	  8, -EACCES },
	{ "remote read needed, local write granted", LW, USE_AS_IS, 0, false,
	  RR, 0, 8, -EACCES },
	{ "one octet past the end", LW, USE_AS_IS, 0, false, LW, MR_LEN - 1,
	  2, -EACCES },
	{ "one octet before the start", LW, USE_AS_IS, 0, false, LW, -1ULL,
	  2, -EACCES },
	{ "wrapping past 2^64", LW, USE_AS_IS, 0, false, LW,
	  U64_MAX - MR_IOVA, 2, -EACCES },
	{ "deregistered, still held", LW, USE_DEREGISTERED, 0, false, LW, 0,
	  8, -ENOENT },
	{ "deregistered, and another key", LW, USE_DEREGISTERED, 0x01, false,
	  LW, 0, 8, -ENOENT },
};

KUNIT_ARRAY_PARAM_DESC(use_cases, use_cases, desc);

/*
 * swi_rdmap_mem_use_walk() decides as swi_rdmap_mem_use() does; it visits the
 * whole range when it allows the use, nothing otherwise
 */
static void mem_use_walk_agrees(struct kunit *test, const struct use_case *c,
				struct rdmap_mem *mem, u32 stag)
{
	struct collector col = {};
	u64 seen = 0;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, swi_rdmap_mem_use_walk(mem, stag ^ c->key_xor,
						     c->other_pd ? PD_B : PD_A,
						     c->want, MR_IOVA + c->start,
						     c->len, collect_piece, &col),
			c->ret);
	for (i = 0; i < col.n; i++)
		seen += col.p[i].len;
	KUNIT_EXPECT_EQ(test, seen, c->ret ? 0 : c->len);
}

static void mem_use_checks_held_object(struct kunit *test)
{
	const struct use_case *c = test->param_value;
	struct mem_test *mt = test->priv;
	struct dereg_work *dw = kunit_kzalloc(test, sizeof(*dw), GFP_KERNEL);
	struct rdmap_mem *mem = reg_mr(test, c->access), *used;
	u32 stag = swi_rdmap_mem_stag(mem);

	KUNIT_ASSERT_NOT_NULL(test, dw);
	keep_hold(test, mem);
	if (c->setup == USE_INVALIDATED)
		KUNIT_ASSERT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag,
								     PD_A), 0);
	if (c->setup == USE_DEREGISTERED &&
	    !dereg_returns(test, dereg_queue(test, dw, mem))) {
		drop_hold(test, mem);
		flush_work(&dw->work);
		return;
	}
	used = swi_rdmap_mem_use(mem, stag ^ c->key_xor, c->other_pd ? PD_B : PD_A,
				 c->want, MR_IOVA + c->start, c->len);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(used), c->ret);
	if (!IS_ERR(used)) {
		KUNIT_EXPECT_PTR_EQ(test, used, mem);
		swi_rdmap_mem_put(used);
	}
	mem_use_walk_agrees(test, c, mem, stag);
}

/*
 * Holds do not delay a deregistration, use references do; the object
 * outlives its deregistration until the last hold is dropped. An early
 * free would show on the debug kernel as a KASAN report when the object
 * is read after a grace period, a missing free as a kmemleak report.
 */
static void mem_holds_outlive_dereg(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	struct dereg_work *dw = kunit_kzalloc(test, sizeof(*dw), GFP_KERNEL);
	struct rdmap_mem *mem = reg_mr(test, LW | RW), *used;
	u32 stag = swi_rdmap_mem_stag(mem);

	KUNIT_ASSERT_NOT_NULL(test, dw);
	keep_hold(test, mem);
	keep_hold(test, mem);
	used = swi_rdmap_mem_use(mem, stag, PD_A, LW, MR_IOVA, 8);
	KUNIT_ASSERT_PTR_EQ(test, used, mem);

	/* the use reference keeps the pages: the deregistration waits */
	dereg_queue(test, dw, mem);
	KUNIT_EXPECT_TRUE(test, stag_unlisted(&mt->t, stag));
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&dw->done, HZ / 5),
			0);
	KUNIT_EXPECT_FALSE(test, swi_rdmap_mem_is_valid(mem));
	swi_rdmap_mem_put(used);
	/* two holds left, no use reference: it returns */
	if (!dereg_returns(test, dw)) {
		drop_hold(test, mem);
		drop_hold(test, mem);
		flush_work(&dw->work);
		return;
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(swi_rdmap_mem_use(mem, stag, PD_A,
								0, MR_IOVA, 8)),
			-ENOENT);

	drop_hold(test, mem);
	/* one hold left: still there after any free would have happened */
	synchronize_rcu();
	kvfree_rcu_barrier();
	KUNIT_EXPECT_FALSE(test, swi_rdmap_mem_is_valid(mem));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(swi_rdmap_mem_use(mem, stag, PD_A,
								0, MR_IOVA, 8)),
			-ENOENT);
	drop_hold(test, mem);
	kvfree_rcu_barrier();
}

/*
 * The receive path runs in softirq context, post_send may run with
 * interrupts off: lookup, checks, walk, invalidation and put must not
 * sleep there (the debug kernel's atomic-sleep and lockdep checks watch).
 * Results are only recorded there and judged afterwards, since a failing
 * expectation allocates.
 */
struct atomic_results {
	u8 state;
	enum ib_wc_status local;
	int walk;
	int inval;
};

static void data_path_calls(struct rdmap_mem_table *t, u32 stag,
			    struct atomic_results *r)
{
	struct rdmap_mem *mem = swi_rdmap_mem_lookup(t, stag);
	struct rdmap_term_cause cause;
	struct collector col = {};
	struct ddp_stag_check chk;

	swi_rdmap_mem_remote_check(mem, stag, PD_A, STREAM_A, &chk);
	r->state = chk.state;
	r->local = swi_rdmap_mem_local_check(mem, stag, PD_A, LW, MR_IOVA, 8);
	r->walk = swi_rdmap_mem_walk(mem, MR_IOVA, 8, collect_piece, &col);
	r->inval = swi_rdmap_mem_invalidate_remote(t, stag, PD_A, STREAM_A,
						   &cause);
	swi_rdmap_mem_put(mem);
}

static void expect_data_path_ok(struct kunit *test, u32 stag,
				const struct atomic_results *r)
{
	KUNIT_EXPECT_EQ(test, r->state, DDP_STAG_VALID);
	KUNIT_EXPECT_EQ(test, r->local, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, r->walk, 0);
	KUNIT_EXPECT_EQ(test, r->inval, 0);
	KUNIT_EXPECT_EQ(test, check_stag(test, stag, PD_A).state,
			DDP_STAG_INVALID);
}

static void mem_data_path_runs_in_atomic_context(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	u32 bh = swi_rdmap_mem_stag(reg_mr(test, LW | RW));
	u32 irq = swi_rdmap_mem_stag(reg_mr(test, LW | RW));
	struct atomic_results rb, ri;
	unsigned long flags;

	local_bh_disable();
	data_path_calls(&mt->t, bh, &rb);
	local_bh_enable();
	local_irq_save(flags);
	data_path_calls(&mt->t, irq, &ri);
	local_irq_restore(flags);
	expect_data_path_ok(test, bh, &rb);
	expect_data_path_ok(test, irq, &ri);
}

/* End to end: lookup result into the DDP and RDMAP checks */

enum { E2E_OK, E2E_WRONG_KEY, E2E_UNKNOWN, E2E_INVALIDATED, E2E_OTHER_PD };

#define REFUSE(l, e, c)	.ret = -EPROTO, .cause = { (l), (e), (c) }

struct e2e_case {
	const char *desc;
	int access;
	u8 setup;	/* E2E_* */
	u8 op;		/* RDMAP_WRITE or RDMAP_READ_REQ */
	u64 start;	/* from MR_IOVA, modulo 2^64 */
	u32 len;
	int ret;
	struct rdmap_term_cause cause;
};

static const struct e2e_case e2e_cases[] = {
	{ "Write inside an MR with remote write", LW | RW, E2E_OK,
	  RDMAP_WRITE, 0x10, 64 },
	{ "Write ending exactly at the MR's end", LW | RW, E2E_OK,
	  RDMAP_WRITE, MR_LEN - 64, 64 },
	{ "Write one octet past the MR's end", LW | RW, E2E_OK, RDMAP_WRITE,
	  MR_LEN - 63, 64, REFUSE(1, 1, 0x01) },
	{ "Write starting before the MR", LW | RW, E2E_OK, RDMAP_WRITE,
	  -8ULL, 64, REFUSE(1, 1, 0x01) },
	{ "Write with the wrong key", LW | RW, E2E_WRONG_KEY, RDMAP_WRITE, 0,
	  64, REFUSE(1, 1, 0x00) },
	{ "Write to an unregistered index", LW | RW, E2E_UNKNOWN,
	  RDMAP_WRITE, 0, 64, REFUSE(1, 1, 0x00) },
	{ "Write to an invalidated MR", LW | RW, E2E_INVALIDATED,
	  RDMAP_WRITE, 0, 64, REFUSE(1, 1, 0x00) },
	{ "Write to an MR of another PD", LW | RW, E2E_OTHER_PD, RDMAP_WRITE,
	  0, 64, REFUSE(1, 1, 0x02) },
	{ "Write to an MR with remote read only", RR, E2E_OK, RDMAP_WRITE, 0,
	  64, REFUSE(0, 1, 0x02) },
	{ "zero-length Write to an invalidated MR", LW | RW, E2E_INVALIDATED,
	  RDMAP_WRITE, 0, 0 },
	{ "Read Request of the whole MR", RR, E2E_OK, RDMAP_READ_REQ, 0,
	  MR_LEN },
	{ "Read Request from an MR with remote write only", LW | RW, E2E_OK,
	  RDMAP_READ_REQ, 0, 64, REFUSE(0, 1, 0x02) },
	{ "Read Request from an MR of another PD", RR, E2E_OTHER_PD,
	  RDMAP_READ_REQ, 0, 64, REFUSE(0, 1, 0x03) },
	{ "Read Request with the wrong key", RR, E2E_WRONG_KEY,
	  RDMAP_READ_REQ, 0, 64, REFUSE(0, 1, 0x00) },
	{ "Read Request one octet past the MR's end", RR, E2E_OK,
	  RDMAP_READ_REQ, 1, MR_LEN, REFUSE(0, 1, 0x01) },
};

KUNIT_ARRAY_PARAM_DESC(e2e_cases, e2e_cases, desc);

static u32 e2e_stag(struct kunit *test, const struct e2e_case *c,
		    struct rdmap_mem *mem)
{
	struct mem_test *mt = test->priv;
	u32 stag = swi_rdmap_mem_stag(mem);

	if (c->setup == E2E_WRONG_KEY)
		return stag ^ 0x0f;
	if (c->setup == E2E_UNKNOWN)
		return stag + rdmap_stag_make(100, 0);
	if (c->setup == E2E_INVALIDATED)
		KUNIT_EXPECT_EQ(test, swi_rdmap_mem_invalidate_local(&mt->t, stag,
								     PD_A), 0);
	return stag;
}

static int e2e_verdict(const struct e2e_case *c, u32 stag,
		       const struct ddp_stag_check *chk,
		       struct rdmap_term_cause *cause)
{
	struct ddp_hdr_info h = {
		.tagged = 1, .last = 1, .dv = 1, .rv = 1,
		.opcode = RDMAP_WRITE, .stag = stag, .to = MR_IOVA + c->start,
	};
	struct rdmap_read_req_info r = {
		.sink_stag = 0x100, .sink_to = 0, .size = c->len,
		.src_stag = stag, .src_to = MR_IOVA + c->start,
	};
	struct ddp_rx_state rx = {};

	if (c->op == RDMAP_READ_REQ)
		return swi_rdmap_read_req_check(&r, chk, cause);
	return swi_rdmap_rx_check(&h, c->len, &rx, chk, cause);
}

static void mem_check_feeds_ddp_validation(struct kunit *test)
{
	const struct e2e_case *c = test->param_value;
	struct mem_test *mt = test->priv;
	struct rdmap_term_cause cause = { 0xaa, 0xaa, 0xaa };
	u32 stag = e2e_stag(test, c, reg_mr(test, c->access));
	const void *pd = c->setup == E2E_OTHER_PD ? PD_B : PD_A;
	struct rdmap_mem *mem = swi_rdmap_mem_lookup(&mt->t, stag);
	struct ddp_stag_check chk;

	swi_rdmap_mem_remote_check(mem, stag, pd, STREAM_A, &chk);
	KUNIT_EXPECT_EQ(test, e2e_verdict(c, stag, &chk, &cause), c->ret);
	swi_rdmap_mem_put(mem);
	if (!c->ret) {
		KUNIT_EXPECT_EQ(test, cause.layer, 0xaa);
		return;
	}
	SWI_EXPECT_TERM_CAUSE_EQ(test, cause, c->cause);
}

#define BENCH_LOOKUPS	100000

/*
 * What a per-FPDU STag lookup costs beside the check that stays per FPDU:
 * lookup + local check + put against the check alone on a held reference,
 * among 64 registered MRs, and a memcpy of one MSS-sized payload for
 * scale. Printed, never asserted (performance.rst quotes it).
 */
static void mem_bench_lookup_per_fpdu(struct kunit *test)
{
	struct mem_test *mt = test->priv;
	const unsigned int mss = 1448;
	struct rdmap_mem *mem = NULL;
	u64 t0, t_lookup, t_check, t_copy;
	unsigned int i, bad = 0;
	u8 *a, *b;
	u32 stag;

	for (i = 0; i < 64; i++)
		mem = reg_mr(test, LW | RW);
	stag = swi_rdmap_mem_stag(mem);
	a = kunit_kzalloc(test, mss, GFP_KERNEL);
	b = kunit_kzalloc(test, mss, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_LOOKUPS; i++) {
		struct rdmap_mem *m = swi_rdmap_mem_lookup(&mt->t, stag);

		bad += swi_rdmap_mem_local_check(m, stag, PD_A, 0, MR_IOVA, mss) !=
		       IB_WC_SUCCESS;
		swi_rdmap_mem_put(m);
	}
	t_lookup = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_LOOKUPS; i++)
		bad += swi_rdmap_mem_local_check(mem, stag, PD_A, 0, MR_IOVA,
						 mss) != IB_WC_SUCCESS;
	t_check = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_LOOKUPS; i++) {
		memcpy(b, a, mss);
		a[i % mss] = i;		/* keep the copy from being elided */
	}
	t_copy = ktime_get_ns() - t0;
	KUNIT_EXPECT_EQ(test, bad, 0U);
	kunit_info(test, "per FPDU: lookup+check+put %llu ns, check alone %llu ns, memcpy of %u octets %llu ns\n",
		   div_u64(t_lookup, BENCH_LOOKUPS),
		   div_u64(t_check, BENCH_LOOKUPS), mss,
		   div_u64(t_copy, BENCH_LOOKUPS));
}

static struct kunit_case mem_cases[] = {
	KUNIT_CASE(mem_register_gives_distinct_nonzero_indexes),
	KUNIT_CASE(mem_register_wraps_cyclically_skipping_0),
	KUNIT_CASE(mem_index_max_limits_registrations),
	KUNIT_CASE_PARAM(mem_register_checks_attributes,
			 attr_cases_gen_params),
	KUNIT_CASE_PARAM(mem_lookup_checks_key, key_cases_gen_params),
	KUNIT_CASE(mem_lookup_of_unknown_index_fails),
	KUNIT_CASE(mem_check_other_pd_not_associated),
	KUNIT_CASE_PARAM(mem_check_grants_registered_access,
			 access_cases_gen_params),
	KUNIT_CASE_PARAM(mem_local_check_bounds, bounds_cases_gen_params),
	KUNIT_CASE(mem_invalidate_then_lookup_invalid),
	KUNIT_CASE(mem_invalidate_local_refusals),
	KUNIT_CASE_PARAM(mem_invalidate_remote_follows_rfc5040,
			 rinv_cases_gen_params),
	KUNIT_CASE(mem_fast_reg_changes_key),
	KUNIT_CASE(mem_invalidate_remote_refused_when_shared),
	KUNIT_CASE_PARAM(mem_fast_reg_checks_request, fr_cases_gen_params),
	KUNIT_CASE(mem_set_pages_only_while_invalid),
	KUNIT_CASE(mem_set_pages_on_valid_frmr_keeps_pages),
	KUNIT_CASE(mem_walk_stops_at_new_pages),
	KUNIT_CASE_PARAM(mem_walk_gives_page_pieces, walk_cases_gen_params),
	KUNIT_CASE(mem_walk_splits_large_chunks),
	KUNIT_CASE(mem_walk_dma_mr_uses_direct_map),
	KUNIT_CASE(mem_walk_stops_at_callback_error),
	KUNIT_CASE(mem_lookup_reference_delays_dereg),
	KUNIT_CASE(mem_held_mr_refused_after_index_reuse),
	KUNIT_CASE_PARAM(mem_use_checks_held_object, use_cases_gen_params),
	KUNIT_CASE(mem_holds_outlive_dereg),
	KUNIT_CASE(mem_data_path_runs_in_atomic_context),
	KUNIT_CASE_PARAM(mem_check_feeds_ddp_validation,
			 e2e_cases_gen_params),
	KUNIT_CASE_SLOW(mem_bench_lookup_per_fpdu),
	{}
};

static struct kunit_suite mem_suite = {
	.name = "softiwarp_mem",
	.init = mem_test_init,
	.exit = mem_test_exit,
	.test_cases = mem_cases,
};

kunit_test_suites(&mem_suite);
