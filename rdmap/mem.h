/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: STag and memory object table
 *
 * Every memory region the peer or the local work requests may address is
 * a struct rdmap_mem, found by its STag in the device's struct
 * rdmap_mem_table. An STag is 32 bits: the upper 24 are the index the
 * table allocates (cyclically, never 0), the low 8 are the key, which the
 * consumer chooses (the siw ABI's stag_key at registration, the new key of
 * a fast-register work request).
 *
 * The data path looks up STags from any context (softirq included) and
 * gets a counted reference; the verbs layer registers, fast-registers,
 * invalidates and deregisters, and deregistration waits until the last
 * reference is gone. The backing memory is described, not owned: a page
 * array filled by the caller (user MRs, fast-register MRs) or, for the DMA
 * MR, the kernel's direct map itself. See Documentation/memory.rst.
 */
#ifndef SOFTIWARP_MEM_H
#define SOFTIWARP_MEM_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "ddp/ddp.h"

struct page;
struct rdmap_term_cause;

#define RDMAP_STAG_KEY_BITS	8
#define RDMAP_STAG_KEY_MASK	0xffU
#define RDMAP_STAG_INDEX_MAX	0xffffffU	/* 24-bit index, 0 reserved */

/**
 * rdmap_stag_index() - the table index part of an STag
 * @stag: the STag
 *
 * Context: any context.
 * Return: the upper 24 bits of @stag.
 */
static inline u32 rdmap_stag_index(u32 stag)
{
	return stag >> RDMAP_STAG_KEY_BITS;
}

/**
 * rdmap_stag_key() - the consumer key part of an STag
 * @stag: the STag
 *
 * Context: any context.
 * Return: the low octet of @stag.
 */
static inline u8 rdmap_stag_key(u32 stag)
{
	return stag & RDMAP_STAG_KEY_MASK;
}

/**
 * rdmap_stag_make() - build an STag
 * @index: table index, at most RDMAP_STAG_INDEX_MAX
 * @key: consumer key
 *
 * Context: any context.
 * Return: the STag.
 */
static inline u32 rdmap_stag_make(u32 index, u8 key)
{
	return index << RDMAP_STAG_KEY_BITS | key;
}

/**
 * enum rdmap_mem_type - kinds of memory object
 * @RDMAP_MEM_MR: a registered MR (user or kernel): valid from registration
 *	until invalidated or deregistered, never valid again
 * @RDMAP_MEM_FRMR: a fast-register MR: invalid from allocation, made valid
 *	by swi_rdmap_mem_fast_reg(), invalid again by local or remote invalidation
 * @RDMAP_MEM_DMA: the DMA MR: all of kernel memory, iova = kernel virtual
 *	address, always valid, cannot be invalidated
 */
enum rdmap_mem_type {
	RDMAP_MEM_MR,
	RDMAP_MEM_FRMR,
	RDMAP_MEM_DMA,
};

/**
 * struct rdmap_mem_pages - where the octets of a region live
 * @pages: page array, owned by the caller. Entry i holds the first page
 *	of the i-th chunk of (1 << @page_shift) octets, physically contiguous
 *	(a compound or higher-order page when @page_shift > PAGE_SHIFT).
 * @npages: entries in @pages
 * @page_shift: log2 of the chunk size, at least PAGE_SHIFT and below 32
 * @offset: position of the region's first octet (its iova) in chunk 0
 *
 * A user MR takes the pages of its ib_umem and the umem's offset; a
 * fast-register MR the pages behind the addresses ib_map_mr_sg() hands to
 * set_page (kernel virtual addresses on a software device: virt_to_page())
 * and the offset of the MR's iova in the first of them. The iova itself is
 * only a label: octet X of the region is octet @offset + (X - iova) of the
 * chunk sequence.
 */
struct rdmap_mem_pages {
	struct page **pages;
	unsigned int npages;
	unsigned int page_shift;
	unsigned int offset;
};

/**
 * struct rdmap_mem - one memory object (MR, fast-register MR, DMA MR)
 * @ref: use references: one for the table while registered, one per
 *	lookup or swi_rdmap_mem_use(); they keep the backing pages
 * @released: completed when @ref drops to zero; swi_rdmap_mem_dereg() waits
 * @holds: references to the object itself, not to its pages: one for the
 *	table until swi_rdmap_mem_dereg() is done with it, one per
 *	swi_rdmap_mem_hold(). An operation in flight holds the object it was
 *	checked against, so that it never lands in another object that
 *	took the same index; the object is freed with the last hold
 * @rcu: delays the free past lockless lookups that may still see the object
 * @lock: protects @valid, @key, @access, @iova, @len and @pages
 * @seq: bumped under @lock around every change of @valid, @key, @access,
 *	@iova, @len and @pages, so that the data path's checks and walks
 *	read them consistently without @lock
 * @pages_gen: bumped with every swi_rdmap_mem_set_pages() (in the @seq write
 *	section); a walk reads an entry of its page array, then checks that
 *	the generation is still that of its snapshot, so that it never
 *	follows an entry the caller rewrote after handing out another array
 * @type: enum rdmap_mem_type, fixed
 * @remote_inval: the peer may invalidate it (Send with Invalidate), fixed
 * @valid: the STag may be used
 * @key: the low octet of the STag
 * @index: table index, the upper 24 bits of the STag, fixed
 * @pd: protection domain (opaque: only compared), fixed
 * @access: IB_ACCESS_* rights
 * @iova: first address of the region
 * @len: length of the region in octets
 * @pages: backing memory; unused by the DMA MR
 * @used_by: the stream (its identity, never 0) whose peer first used the
 *	STag since it became valid; %RDMAP_MEM_SHARED once a second
 *	stream's peer used it; 0 while none did. A shared STag cannot be
 *	invalidated remotely (RFC 5040 section 8.1.1, requirement 7)
 *
 * Allocated and freed by this file only. Fields marked fixed do not change
 * after swi_rdmap_mem_register() and may be read with a reference only.
 */
struct rdmap_mem {
	struct kref ref;
	struct completion released;
	refcount_t holds;
	struct rcu_head rcu;
	spinlock_t lock;	/* see the kernel-doc above */
	seqcount_spinlock_t seq;
	u32 pages_gen;
	u8 type;
	bool remote_inval;
	bool valid;
	u8 key;
	u32 index;
	const void *pd;
	int access;
	u64 iova;
	u64 len;
	struct rdmap_mem_pages pages;
	atomic64_t used_by;
};

/* &rdmap_mem.used_by of an STag the peers of two streams used */
#define RDMAP_MEM_SHARED	U64_MAX

/**
 * struct rdmap_mem_attr - what swi_rdmap_mem_register() creates
 * @type: enum rdmap_mem_type
 * @pd: protection domain
 * @key: initial key (the siw ABI's stag_key)
 * @access: IB_ACCESS_* rights; for an FRMR, replaced at fast-register
 * @iova: region start (MR only; an FRMR gets it at fast-register, the DMA
 *	MR starts at 0)
 * @len: region length (MR only, as @iova)
 * @pages: backing memory (MR only; an FRMR gets it from
 *	swi_rdmap_mem_set_pages())
 * @hint: where the search for a free index begins (taken modulo the
 *	largest index): the caller draws it at random, so that STags are
 *	hard to predict and spread over the whole range (RFC 5040 section
 *	8.1.1, requirement 8)
 */
struct rdmap_mem_attr {
	u8 type;
	const void *pd;
	u8 key;
	int access;
	u64 iova;
	u64 len;
	struct rdmap_mem_pages pages;
	u32 hint;
};

/**
 * struct rdmap_mem_table - the memory objects of one device
 * @xa: index -> struct rdmap_mem; the xarray's own lock serialises
 *	changes, lookups run under RCU only
 * @next: where the index allocation begins, the object's hint (under the
 *	xa lock)
 */
struct rdmap_mem_table {
	struct xarray xa;
	u32 next;
};

/**
 * struct rdmap_mem_info - a snapshot of a memory object, for display
 * @stag: the current STag (index and key)
 * @type: enum rdmap_mem_type
 * @valid: the STag may be used
 * @remote_inval: the peer may invalidate it
 * @access: IB_ACCESS_* rights
 * @iova: first address of the region
 * @len: its length in octets
 * @npages: entries of its page list (0 for the DMA MR)
 */
struct rdmap_mem_info {
	u32 stag;
	u8 type;
	bool valid;
	bool remote_inval;
	int access;
	u64 iova;
	u64 len;
	unsigned int npages;
};

/**
 * typedef rdmap_mem_piece_fn - one piece of a region walk
 * @ctx: the caller's context
 * @page: the page holding the piece
 * @offset: offset of the piece in @page
 * @len: length of the piece; @offset + @len <= PAGE_SIZE
 *
 * Context: the context swi_rdmap_mem_walk() was called in.
 * Return: 0 to continue, anything else stops the walk and is returned.
 */
typedef int (*rdmap_mem_piece_fn)(void *ctx, struct page *page,
				  unsigned int offset, unsigned int len);

void swi_rdmap_mem_table_init(struct rdmap_mem_table *t);
void swi_rdmap_mem_table_destroy(struct rdmap_mem_table *t);

struct rdmap_mem *swi_rdmap_mem_register(struct rdmap_mem_table *t,
					 const struct rdmap_mem_attr *attr,
					 gfp_t gfp);
void swi_rdmap_mem_dereg(struct rdmap_mem_table *t, struct rdmap_mem *mem);
u32 swi_rdmap_mem_stag(struct rdmap_mem *mem);
void swi_rdmap_mem_get_info(struct rdmap_mem *mem, struct rdmap_mem_info *info);
bool swi_rdmap_mem_is_valid(struct rdmap_mem *mem);

struct rdmap_mem *swi_rdmap_mem_lookup(struct rdmap_mem_table *t, u32 stag);
void swi_rdmap_mem_put(struct rdmap_mem *mem);
void swi_rdmap_mem_hold(struct rdmap_mem *mem);
void swi_rdmap_mem_unhold(struct rdmap_mem *mem);
struct rdmap_mem *swi_rdmap_mem_use(struct rdmap_mem *mem, u32 stag,
				    const void *pd, int access, u64 addr, u64 len);
void swi_rdmap_mem_set_index_max(u32 max);
u32 swi_rdmap_mem_index_max(void);

void swi_rdmap_mem_remote_check(struct rdmap_mem *mem, u32 stag, const void *pd,
				u64 stream, struct ddp_stag_check *chk);
enum ib_wc_status swi_rdmap_mem_local_check(struct rdmap_mem *mem, u32 lkey,
					    const void *pd, int access, u64 addr,
					    u64 len);

int swi_rdmap_mem_set_pages(struct rdmap_mem *mem,
			    const struct rdmap_mem_pages *pages);
int swi_rdmap_mem_fast_reg(struct rdmap_mem *mem, const void *pd, u32 stag,
			   int access, u64 iova, u64 len);
int swi_rdmap_mem_invalidate_local(struct rdmap_mem_table *t, u32 stag,
				   const void *pd);
int swi_rdmap_mem_invalidate_held(struct rdmap_mem *mem, u32 stag, const void *pd);
int swi_rdmap_mem_invalidate_remote(struct rdmap_mem_table *t, u32 stag,
				    const void *pd, u64 stream,
				    struct rdmap_term_cause *cause);

int swi_rdmap_mem_walk(struct rdmap_mem *mem, u64 iova, u64 len,
		       rdmap_mem_piece_fn fn, void *ctx);
int swi_rdmap_mem_use_walk(struct rdmap_mem *mem, u32 stag, const void *pd,
			   int access, u64 addr, u64 len, rdmap_mem_piece_fn fn,
			   void *ctx);

#endif /* SOFTIWARP_MEM_H */
