// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: STag table, memory object lifetime and access checks
 *
 * Locking and lifetime:
 *
 * - The table's xarray serialises insertions and removals with its own
 *   spinlock; both happen in process context only (registration,
 *   deregistration), so that lock is never taken in softirq context.
 *   Lookups take no lock: xa_load() under rcu_read_lock(), then
 *   kref_get_unless_zero(), so they may run in any context.
 * - A registered object holds one reference for the table. Every
 *   successful lookup adds one, dropped by swi_rdmap_mem_put() from any
 *   context. swi_rdmap_mem_dereg() marks the object invalid, removes it from
 *   the table (no new lookup finds it), drops the table's reference and
 *   sleeps until the last reference is gone; the memory is then freed
 *   after an RCU grace period, because a lookup that loaded the pointer
 *   just before the removal may still call kref_get_unless_zero() on it.
 *   After swi_rdmap_mem_dereg() returns no data path user can reach the
 *   backing pages: the caller may unpin and free them.
 * - The per-object spinlock protects what fast-register, set_pages and
 *   invalidation change: the valid flag, the key, the access rights, the
 *   iova, the length and the page description. It is taken with
 *   interrupts saved, so every function here except registration and
 *   deregistration may be called in any context. Checks and walks read a
 *   consistent snapshot under it; a walk then works on its snapshot, so
 *   an invalidation racing with a placement in progress lets that
 *   placement finish into the (still pinned) pages, as on hardware.
 * - The type, the PD, the index and the remote invalidation policy never
 *   change after registration.
 */
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "rdmap/mem.h"
#include "rdmap/terminate.h"

/*
 * The largest STag index handed out: RDMAP_STAG_INDEX_MAX, unless a test
 * makes indexes come back sooner (debugfs softiwarp/stag_index_max)
 */
static u32 rdmap_mem_index_max = RDMAP_STAG_INDEX_MAX;

/**
 * swi_rdmap_mem_set_index_max() - limit the STag indexes handed out
 * @max: largest index for registrations from now on; 0 or anything above
 *	RDMAP_STAG_INDEX_MAX restores the full range
 *
 * For tests only: with a small range an index comes back after a few
 * registrations, as it would after 2^24 in production.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_mem_set_index_max(u32 max)
{
	if (!max || max > RDMAP_STAG_INDEX_MAX)
		max = RDMAP_STAG_INDEX_MAX;
	WRITE_ONCE(rdmap_mem_index_max, max);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_set_index_max);

/**
 * swi_rdmap_mem_index_max() - the largest STag index handed out
 *
 * Context: any context.
 * Return: the limit swi_rdmap_mem_set_index_max() set, RDMAP_STAG_INDEX_MAX
 * by default.
 */
u32 swi_rdmap_mem_index_max(void)
{
	return READ_ONCE(rdmap_mem_index_max);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_index_max);

/* What the checks and walks read of an object, consistently */
struct rdmap_mem_view {
	bool valid;
	u8 key;
	int access;
	u64 iova;
	u64 len;
	struct rdmap_mem_pages pages;
	u32 pages_gen;
};

/*
 * The object as it is now, without @mem->lock: every message checks an
 * STag on both ends and the placement of every run of payload walks a
 * region (with Markers one per 512 octets); an interrupt-saving lock for
 * each was a tenth of a Read requester's CPU and one of the small
 * message's costs. Writers change these fields under @mem->lock, with
 * interrupts off, inside a @mem->seq write section, so no reader on
 * their CPU can spin on them.
 */
static void rdmap_mem_snapshot(struct rdmap_mem *mem, struct rdmap_mem_view *v)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&mem->seq);
		v->valid = mem->valid;
		v->key = mem->key;
		v->access = mem->access;
		v->iova = mem->iova;
		v->len = mem->len;
		v->pages = mem->pages;
		v->pages_gen = mem->pages_gen;
	} while (read_seqcount_retry(&mem->seq, seq));
}

/* [base, base + len) does not extend past 2^64 */
static bool rdmap_mem_range_fits(u64 base, u64 len)
{
	return !len || len - 1 <= U64_MAX - base;
}

/* [addr, addr + len) lies within [base, base + size); empty always does */
static bool rdmap_mem_in_bounds(u64 base, u64 size, u64 addr, u64 len)
{
	if (!len)
		return true;
	return rdmap_mem_range_fits(addr, len) && addr >= base &&
	       addr - base <= size && len <= size - (addr - base);
}

/* The page description can hold @len octets from its offset on */
static bool rdmap_mem_pages_ok(const struct rdmap_mem_pages *p, u64 len)
{
	u64 room;

	if (!p->pages || p->page_shift < PAGE_SHIFT || p->page_shift >= 32 ||
	    p->offset >= BIT_ULL(p->page_shift))
		return false;
	room = (u64)p->npages << p->page_shift;
	return room >= p->offset && len <= room - p->offset;
}

/* IB rule: remote write or atomic access needs local write access */
static bool rdmap_mem_rights_ok(int access)
{
	return !(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	       (access & IB_ACCESS_LOCAL_WRITE);
}

static bool rdmap_mem_attr_ok(const struct rdmap_mem_attr *a)
{
	if (!rdmap_mem_rights_ok(a->access))
		return false;
	switch (a->type) {
	case RDMAP_MEM_MR:
		return rdmap_mem_range_fits(a->iova, a->len) &&
		       rdmap_mem_pages_ok(&a->pages, a->len);
	case RDMAP_MEM_FRMR:
	case RDMAP_MEM_DMA:
		return true;
	}
	return false;
}

static void rdmap_mem_init(struct rdmap_mem *mem, const struct rdmap_mem_attr *a)
{
	kref_init(&mem->ref);
	init_completion(&mem->released);
	refcount_set(&mem->holds, 1);
	spin_lock_init(&mem->lock);
	seqcount_spinlock_init(&mem->seq, &mem->lock);
	mem->type = a->type;
	mem->pd = a->pd;
	mem->key = a->key;
	mem->access = a->access;
	mem->remote_inval = a->type != RDMAP_MEM_DMA;
	if (a->type == RDMAP_MEM_MR) {
		mem->valid = true;
		mem->iova = a->iova;
		mem->len = a->len;
		mem->pages = a->pages;
	} else if (a->type == RDMAP_MEM_DMA) {
		mem->valid = true;
		mem->len = U64_MAX;
	}
}

static void rdmap_mem_release(struct kref *ref)
{
	complete(&container_of(ref, struct rdmap_mem, ref)->released);
}

/*
 * Reserve an index first and store the object there afterwards, so that
 * no lookup sees the object before its index is known. The index is the
 * first free one at or after @hint (modulo the largest index), wrapping
 * around to 1.
 */
static int rdmap_mem_publish(struct rdmap_mem_table *t, struct rdmap_mem *mem,
			     u32 hint, gfp_t gfp)
{
	void *old;
	int err;

	xa_lock(&t->xa);
	t->next = hint % swi_rdmap_mem_index_max() + 1;
	err = __xa_alloc_cyclic(&t->xa, &mem->index, NULL,
				XA_LIMIT(1, swi_rdmap_mem_index_max()), &t->next,
				gfp);
	xa_unlock(&t->xa);
	if (err < 0)
		return err == -EBUSY ? -ENOSPC : err;
	old = xa_store(&t->xa, mem->index, mem, gfp);
	if (xa_is_err(old)) {
		xa_erase(&t->xa, mem->index);
		return xa_err(old);
	}
	return 0;
}

/**
 * swi_rdmap_mem_table_init() - set up an empty STag table
 * @t: the table
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_mem_table_init(struct rdmap_mem_table *t)
{
	xa_init_flags(&t->xa, XA_FLAGS_ALLOC1);
	t->next = 1;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_table_init);

/**
 * swi_rdmap_mem_table_destroy() - tear down an STag table
 * @t: the table, whose objects must all be deregistered
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_rdmap_mem_table_destroy(struct rdmap_mem_table *t)
{
	WARN_ON(!xa_empty(&t->xa));
	xa_destroy(&t->xa);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_table_destroy);

/**
 * swi_rdmap_mem_register() - create a memory object and give it an STag
 * @t: the device's table
 * @attr: what to create; the page array it points to stays the caller's
 * @gfp: allocation flags
 *
 * An MR is valid at once with @attr's region, access and pages; a
 * fast-register MR is invalid until swi_rdmap_mem_fast_reg(); the DMA MR is
 * valid and covers [0, 2^64 - 1). The index is the first free one from
 * @attr's hint on (never 0); swi_rdmap_mem_stag() gives the STag.
 *
 * Context: process context; may sleep when @gfp allows.
 * Return: the object, holding the table's reference, or ERR_PTR(-EINVAL)
 * for bad attributes (remote write without local write, a region past
 * 2^64 or larger than its pages), -ENOMEM, or -ENOSPC when all 2^24 - 1
 * indexes are in use.
 */
struct rdmap_mem *swi_rdmap_mem_register(struct rdmap_mem_table *t,
					 const struct rdmap_mem_attr *attr,
					 gfp_t gfp)
{
	struct rdmap_mem *mem;
	int err;

	if (!rdmap_mem_attr_ok(attr))
		return ERR_PTR(-EINVAL);
	mem = kzalloc(sizeof(*mem), gfp);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	rdmap_mem_init(mem, attr);
	err = rdmap_mem_publish(t, mem, attr->hint, gfp);
	if (err) {
		kfree(mem);
		return ERR_PTR(err);
	}
	return mem;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_register);

/**
 * swi_rdmap_mem_dereg() - remove a memory object and free it
 * @t: the table it was registered in
 * @mem: the object; the caller's (the table's) reference is consumed
 *
 * Makes the STag invalid and unknown to new lookups, then waits for every
 * reference taken by swi_rdmap_mem_lookup() to be dropped. When it returns
 * nothing uses the backing memory any more.
 *
 * Context: process context, sleeps. Must not be called while holding a
 * reference of @mem (it would wait for itself).
 * Return: nothing.
 */
void swi_rdmap_mem_dereg(struct rdmap_mem_table *t, struct rdmap_mem *mem)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&mem->lock, flags);
	write_seqcount_begin(&mem->seq);
	mem->valid = false;
	write_seqcount_end(&mem->seq);
	spin_unlock_irqrestore(&mem->lock, flags);
	xa_erase(&t->xa, mem->index);
	kref_put(&mem->ref, rdmap_mem_release);
	wait_for_completion(&mem->released);
	swi_rdmap_mem_unhold(mem);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_dereg);

/**
 * swi_rdmap_mem_stag() - the current STag of a memory object
 * @mem: the object, referenced by the caller
 *
 * Context: any context.
 * Return: the index and the current key; the key changes with
 * swi_rdmap_mem_fast_reg().
 */
u32 swi_rdmap_mem_stag(struct rdmap_mem *mem)
{
	return rdmap_stag_make(mem->index, READ_ONCE(mem->key));
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_stag);

/**
 * swi_rdmap_mem_lookup() - find the memory object of an STag's index
 * @t: the table
 * @stag: the STag; only its index is used here, the checks compare the key
 *
 * Context: any context (RCU, no lock, does not sleep).
 * Return: the object with a reference the caller drops with
 * swi_rdmap_mem_put(), or ERR_PTR(-ENOENT) when the index is not registered
 * (or its object is being deregistered).
 */
struct rdmap_mem *swi_rdmap_mem_lookup(struct rdmap_mem_table *t, u32 stag)
{
	struct rdmap_mem *mem;

	rcu_read_lock();
	mem = xa_load(&t->xa, rdmap_stag_index(stag));
	if (mem && !kref_get_unless_zero(&mem->ref))
		mem = NULL;
	rcu_read_unlock();
	return mem ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_lookup);

/**
 * swi_rdmap_mem_put() - drop a reference taken by swi_rdmap_mem_lookup()
 * @mem: the object; NULL and error pointers are ignored
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_mem_put(struct rdmap_mem *mem)
{
	if (!IS_ERR_OR_NULL(mem))
		kref_put(&mem->ref, rdmap_mem_release);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_put);

/**
 * swi_rdmap_mem_hold() - keep a memory object for an operation in flight
 * @mem: the object, referenced by the caller (a lookup or a hold)
 *
 * The hold keeps the object, not its pages: swi_rdmap_mem_dereg() does not
 * wait for it. Whoever holds the object checks it again with
 * swi_rdmap_mem_use() before each use, which fails once it is deregistered
 * or invalidated, even when another object took its index meanwhile.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_mem_hold(struct rdmap_mem *mem)
{
	refcount_inc(&mem->holds);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_hold);

/**
 * swi_rdmap_mem_unhold() - drop a hold of swi_rdmap_mem_hold()
 * @mem: the object; NULL and error pointers are ignored
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_rdmap_mem_unhold(struct rdmap_mem *mem)
{
	if (!IS_ERR_OR_NULL(mem) && refcount_dec_and_test(&mem->holds))
		kfree_rcu(mem, rcu);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_unhold);

/* Whether @stag names @mem, seen as @r, for a user in @pd */
static enum ddp_stag_state rdmap_mem_state(const struct rdmap_mem *mem,
					   const struct rdmap_mem_view *r, u32 stag,
					   const void *pd)
{
	if (!r->valid || r->key != rdmap_stag_key(stag) ||
	    mem->index != rdmap_stag_index(stag))
		return DDP_STAG_INVALID;
	if (mem->pd != pd)
		return DDP_STAG_NOT_ASSOC;
	return DDP_STAG_VALID;
}

static u8 rdmap_mem_ddp_access(int access)
{
	return (access & IB_ACCESS_REMOTE_READ ? DDP_ACCESS_REMOTE_READ : 0) |
	       (access & IB_ACCESS_REMOTE_WRITE ? DDP_ACCESS_REMOTE_WRITE : 0) |
	       (access & IB_ACCESS_REMOTE_ATOMIC ? DDP_ACCESS_REMOTE_ATOMIC : 0);
}

/*
 * The peer of @stream uses @mem: note the first stream, and a second one.
 * One read on the data path once the first is noted.
 */
static void rdmap_mem_note_stream(struct rdmap_mem *mem, u64 stream)
{
	u64 cur = atomic64_read(&mem->used_by);

	if (cur == stream || cur == RDMAP_MEM_SHARED)
		return;
	if (!cur)
		cur = atomic64_cmpxchg(&mem->used_by, 0, stream);
	if (cur && cur != stream)
		atomic64_set(&mem->used_by, RDMAP_MEM_SHARED);
}

/**
 * swi_rdmap_mem_remote_check() - STag lookup result for swi_rdmap_rx_check()
 * @mem: the object swi_rdmap_mem_lookup() returned for @stag, or its error
 *	pointer, or NULL
 * @stag: the STag the peer sent
 * @pd: the protection domain of the receiving stream (its QP)
 * @stream: the receiving stream's identity (never 0), noted in @mem when
 *	the STag is valid for it (&rdmap_mem.used_by)
 * @chk: the result, for swi_rdmap_rx_check() or swi_rdmap_read_req_check()
 *
 * DDP_STAG_INVALID when there is no object, its key differs from @stag's,
 * or it is invalid; DDP_STAG_NOT_ASSOC when it belongs to another PD;
 * otherwise DDP_STAG_VALID with the remote rights and the region. Access
 * rights, bounds and wrap are then for the DDP checks to judge.
 *
 * Context: any context.
 * Return: nothing; @chk is always filled in.
 */
void swi_rdmap_mem_remote_check(struct rdmap_mem *mem, u32 stag, const void *pd,
				u64 stream, struct ddp_stag_check *chk)
{
	struct rdmap_mem_view r;

	memset(chk, 0, sizeof(*chk));
	chk->state = DDP_STAG_INVALID;
	if (IS_ERR_OR_NULL(mem))
		return;
	rdmap_mem_snapshot(mem, &r);
	chk->state = rdmap_mem_state(mem, &r, stag, pd);
	if (chk->state == DDP_STAG_VALID)
		rdmap_mem_note_stream(mem, stream);
	if (chk->state != DDP_STAG_INVALID) {
		chk->access = rdmap_mem_ddp_access(r.access);
		chk->base = r.iova;
		chk->len = r.len;
	}
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_remote_check);

/**
 * swi_rdmap_mem_local_check() - check a local SGE against its lkey's object
 * @mem: the object swi_rdmap_mem_lookup() returned for @lkey, or its error
 *	pointer, or NULL
 * @lkey: the SGE's lkey
 * @pd: the protection domain of the QP posting the work request
 * @access: IB_ACCESS_* rights needed: IB_ACCESS_LOCAL_WRITE for a receive
 *	or RDMA Read sink SGE, 0 for a gather SGE
 * @addr: the SGE's address
 * @len: the SGE's length; a zero-length SGE is never out of bounds
 *
 * Context: any context.
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_PROT_ERR when the lkey is unknown,
 * has another key, is invalid, belongs to another PD, lacks @access, or
 * [@addr, @addr + @len) leaves the region or wraps past 2^64.
 */
enum ib_wc_status swi_rdmap_mem_local_check(struct rdmap_mem *mem, u32 lkey,
					    const void *pd, int access, u64 addr,
					    u64 len)
{
	struct rdmap_mem_view r;
	bool ok;

	if (IS_ERR_OR_NULL(mem))
		return IB_WC_LOC_PROT_ERR;
	rdmap_mem_snapshot(mem, &r);
	ok = rdmap_mem_state(mem, &r, lkey, pd) == DDP_STAG_VALID &&
	     (r.access & access) == access &&
	     rdmap_mem_in_bounds(r.iova, r.len, addr, len);
	return ok ? IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_local_check);

/**
 * swi_rdmap_mem_use() - check a held object again, and reference its pages
 * @mem: the object, held by the caller (swi_rdmap_mem_hold())
 * @stag: the STag the operation was checked with
 * @pd: the protection domain of the operation's QP
 * @access: IB_ACCESS_* rights the use needs
 * @addr: first address used
 * @len: octets used
 *
 * The checks of swi_rdmap_mem_local_check(), on the object the operation was
 * bound to when it was posted, never on what its STag's index names now.
 *
 * Context: any context.
 * Return: @mem with a use reference (put with swi_rdmap_mem_put()), or
 * ERR_PTR(-ENOENT) when it is deregistered (or being deregistered), or
 * ERR_PTR(-EACCES) when it is invalid, has another key or PD, lacks
 * @access or does not hold [@addr, @addr + @len).
 */
struct rdmap_mem *swi_rdmap_mem_use(struct rdmap_mem *mem, u32 stag,
				    const void *pd, int access, u64 addr, u64 len)
{
	if (!kref_get_unless_zero(&mem->ref))
		return ERR_PTR(-ENOENT);
	if (swi_rdmap_mem_local_check(mem, stag, pd, access, addr, len) ==
	    IB_WC_SUCCESS)
		return mem;
	swi_rdmap_mem_put(mem);
	return ERR_PTR(-EACCES);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_use);

/**
 * swi_rdmap_mem_set_pages() - give a fast-register MR its pages
 * @mem: a fast-register MR, referenced by the caller
 * @pages: the description (ib_map_mr_sg() time); the array stays the
 *	caller's and must outlive the object's use
 *
 * The region becomes empty until the next swi_rdmap_mem_fast_reg(), so that a
 * walk through an old reference never reaches past the new pages. Give
 * the object another array than the one it had, never the same one
 * rewritten: once this returns, the caller may rewrite the previous
 * array, and a walk checked before (a placement in flight when the MR was
 * invalidated) stops at the first entry it would read from it
 * (rdmap_mem_page_of()), so that it never lands in pages mapped since.
 *
 * Context: any context.
 * Return: 0, -EINVAL when @mem is no fast-register MR or @pages is
 * malformed, -EBUSY while @mem is valid.
 */
int swi_rdmap_mem_set_pages(struct rdmap_mem *mem,
			    const struct rdmap_mem_pages *pages)
{
	unsigned long flags;
	int err = 0;

	if (mem->type != RDMAP_MEM_FRMR || !rdmap_mem_pages_ok(pages, 0))
		return -EINVAL;
	spin_lock_irqsave(&mem->lock, flags);
	if (mem->valid) {
		err = -EBUSY;
	} else {
		write_seqcount_begin(&mem->seq);
		mem->pages = *pages;
		mem->len = 0;	/* empty until the next fast-register */
		WRITE_ONCE(mem->pages_gen, mem->pages_gen + 1);
		/* before the caller rewrites the old array: rdmap_mem_page_of() */
		smp_wmb();
		write_seqcount_end(&mem->seq);
	}
	spin_unlock_irqrestore(&mem->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_set_pages);

static int rdmap_mem_fast_reg_locked(struct rdmap_mem *mem, u32 stag, int access,
				     u64 iova, u64 len)
{
	lockdep_assert_held(&mem->lock);
	if (mem->valid)
		return -EBUSY;
	if (!rdmap_mem_pages_ok(&mem->pages, len))
		return -EINVAL;
	write_seqcount_begin(&mem->seq);
	WRITE_ONCE(mem->key, rdmap_stag_key(stag));
	mem->access = access;
	mem->iova = iova;
	mem->len = len;
	mem->valid = true;
	atomic64_set(&mem->used_by, 0);	/* a new registration */
	write_seqcount_end(&mem->seq);
	return 0;
}

/**
 * swi_rdmap_mem_fast_reg() - make a fast-register MR valid (IB_WR_REG_MR)
 * @mem: a fast-register MR, referenced by the caller
 * @pd: the protection domain of the posting QP
 * @stag: the new STag: @mem's index with the new key
 * @access: IB_ACCESS_* rights
 * @iova: first address of the region
 * @len: length of the region, within the pages set by
 *	swi_rdmap_mem_set_pages()
 *
 * Context: any context.
 * Return: 0; -EINVAL when @mem is no fast-register MR, @stag has another
 * index, @access is inconsistent, the region wraps past 2^64 or does not
 * fit the pages; -EACCES when @mem belongs to another PD; -EBUSY when
 * @mem is valid already.
 */
int swi_rdmap_mem_fast_reg(struct rdmap_mem *mem, const void *pd, u32 stag,
			   int access, u64 iova, u64 len)
{
	unsigned long flags;
	int err;

	if (mem->type != RDMAP_MEM_FRMR ||
	    rdmap_stag_index(stag) != mem->index || !rdmap_mem_rights_ok(access) ||
	    !rdmap_mem_range_fits(iova, len))
		return -EINVAL;
	if (mem->pd != pd)
		return -EACCES;
	spin_lock_irqsave(&mem->lock, flags);
	err = rdmap_mem_fast_reg_locked(mem, stag, access, iova, len);
	spin_unlock_irqrestore(&mem->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_fast_reg);

/*
 * Invalidating an STag that is invalid already is no error (RDMA verbs),
 * as long as the STag names the object and the caller may invalidate it.
 * @stream: the stream whose peer invalidates, 0 for a local invalidation;
 * the peers of other streams must not have used the STag.
 */
static int rdmap_mem_invalidate_locked(struct rdmap_mem *mem, u32 stag,
				       const void *pd, u64 stream)
{
	bool remote = stream != 0;
	u64 used;

	lockdep_assert_held(&mem->lock);
	if (mem->key != rdmap_stag_key(stag))
		return -ENOENT;
	if (mem->pd != pd)
		return -EACCES;
	if (remote ? !mem->remote_inval : mem->type == RDMAP_MEM_DMA)
		return -EPERM;
	/* RFC 5040 section 8.1.1 req. 7: not an STag shared on streams */
	used = atomic64_read(&mem->used_by);
	if (remote && used && used != stream)
		return -EPERM;
	/* RFC 5040 section 7.2: a Send with Invalidate names a valid STag */
	if (remote && !mem->valid)
		return -ESTALE;
	write_seqcount_begin(&mem->seq);
	mem->valid = false;
	write_seqcount_end(&mem->seq);
	return 0;
}

static int rdmap_mem_invalidate(struct rdmap_mem_table *t, u32 stag,
				const void *pd, u64 stream)
{
	struct rdmap_mem *mem;
	unsigned long flags;
	int err;

	mem = swi_rdmap_mem_lookup(t, stag);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	spin_lock_irqsave(&mem->lock, flags);
	err = rdmap_mem_invalidate_locked(mem, stag, pd, stream);
	spin_unlock_irqrestore(&mem->lock, flags);
	swi_rdmap_mem_put(mem);
	return err;
}

/**
 * swi_rdmap_mem_invalidate_local() - invalidate an STag (IB_WR_LOCAL_INV)
 * @t: the table
 * @stag: the STag, key included
 * @pd: the protection domain of the posting QP
 *
 * Context: any context.
 * Return: 0 (also when the STag was invalid already), -ENOENT when no
 * object has this STag, -EACCES when it belongs to another PD, -EPERM for
 * the DMA MR.
 */
int swi_rdmap_mem_invalidate_local(struct rdmap_mem_table *t, u32 stag,
				   const void *pd)
{
	return rdmap_mem_invalidate(t, stag, pd, 0);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_invalidate_local);

/**
 * swi_rdmap_mem_invalidate_held() - invalidate the object an operation holds
 * @mem: the object, held by the caller (swi_rdmap_mem_hold())
 * @stag: the STag, key included, the operation names
 * @pd: the protection domain of the operation's QP
 *
 * As swi_rdmap_mem_invalidate_local(), on this object rather than on what the
 * STag's index names now (a Read with Invalidate's Data Sink).
 *
 * Context: any context.
 * Return: 0, -ENOENT when @stag's key is not @mem's, -EACCES for another
 * PD, -EPERM for the DMA MR.
 */
int swi_rdmap_mem_invalidate_held(struct rdmap_mem *mem, u32 stag, const void *pd)
{
	unsigned long flags;
	int err;

	if (rdmap_stag_index(stag) != mem->index)
		return -ENOENT;
	spin_lock_irqsave(&mem->lock, flags);
	err = rdmap_mem_invalidate_locked(mem, stag, pd, 0);
	spin_unlock_irqrestore(&mem->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_invalidate_held);

/**
 * swi_rdmap_mem_invalidate_remote() - invalidate for a Send with Invalidate
 * @t: the table
 * @stag: the Invalidate STag the peer sent
 * @pd: the protection domain of the receiving stream
 * @stream: the receiving stream's identity (never 0)
 * @cause: set to the Terminate error when the invalidation is refused
 *
 * RFC 5040: the STag must be associated with the stream's PD and allow
 * remote invalidation, and no other stream's peer may have used it since
 * it became valid (section 8.1.1, requirement 7: an STag shared on
 * streams), otherwise "STag cannot be invalidated" as a remote
 * protection error. An STag that names no object is refused with the same
 * code as a remote operation error (as the in-tree siw driver does). One
 * that is already invalid gets "Invalid STag", a remote protection error:
 * section 7.2 wants the Invalidate STag valid.
 *
 * Context: any context.
 * Return: 0, or -EPROTO with @cause set.
 */
int swi_rdmap_mem_invalidate_remote(struct rdmap_mem_table *t, u32 stag,
				    const void *pd, u64 stream,
				    struct rdmap_term_cause *cause)
{
	int err = rdmap_mem_invalidate(t, stag, pd, stream);

	if (!err)
		return 0;
	cause->layer = TERM_LAYER_RDMAP;
	cause->etype = err == -ENOENT ? TERM_ETYPE_RDMAP_OPERATION :
					TERM_ETYPE_RDMAP_PROTECTION;
	cause->code = err == -ESTALE ? TERM_RDMAP_INVALID_STAG :
				       TERM_RDMAP_CANNOT_INVALIDATE;
	return -EPROTO;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_invalidate_remote);

/**
 * swi_rdmap_mem_is_valid() - whether a memory object's STag may be used now
 * @mem: the object, referenced or held by the caller
 *
 * Context: any context; a snapshot.
 * Return: its valid flag.
 */
bool swi_rdmap_mem_is_valid(struct rdmap_mem *mem)
{
	struct rdmap_mem_view v;

	rdmap_mem_snapshot(mem, &v);
	return v.valid;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_is_valid);

/**
 * swi_rdmap_mem_get_info() - what a memory object is now
 * @mem: the object, referenced by the caller
 * @info: filled in, consistently (under @mem->lock)
 *
 * Context: any context; takes @mem->lock.
 * Return: nothing.
 */
void swi_rdmap_mem_get_info(struct rdmap_mem *mem, struct rdmap_mem_info *info)
{
	unsigned long flags;

	spin_lock_irqsave(&mem->lock, flags);
	*info = (struct rdmap_mem_info) {
		.stag = rdmap_stag_make(mem->index, mem->key),
		.type = mem->type,
		.valid = mem->valid,
		.remote_inval = mem->remote_inval,
		.access = mem->access,
		.iova = mem->iova,
		.len = mem->len,
		.npages = mem->type == RDMAP_MEM_DMA ? 0 : mem->pages.npages,
	};
	spin_unlock_irqrestore(&mem->lock, flags);
}

/*
 * Entry @i of the page array @v saw, or NULL once the object has been
 * given other pages since: the caller of swi_rdmap_mem_set_pages() may then
 * be rewriting the array @v saw. Pairs with the smp_wmb() there: an
 * entry written after the generation changed is read with the new
 * generation.
 */
static struct page *rdmap_mem_page_of(struct rdmap_mem *mem,
				      const struct rdmap_mem_view *v, u64 i)
{
	struct page *page = READ_ONCE(v->pages.pages[i]);

	smp_rmb();	/* the entry, then the generation: set_pages' smp_wmb() */
	return READ_ONCE(mem->pages_gen) == v->pages_gen ? page : NULL;
}

/*
 * Octets from position @pos of the chunk sequence @v saw, a page at a
 * time; -ENOENT when the object got other pages meanwhile (nothing more
 * is visited: the object was invalidated and mapped again, and what it
 * maps now is the ULP's to use, RFC 5042 section 6.2.2)
 */
static int rdmap_mem_walk_pages(struct rdmap_mem *mem,
				const struct rdmap_mem_view *v, u64 pos, u64 len,
				rdmap_mem_piece_fn fn, void *ctx)
{
	const struct rdmap_mem_pages *p = &v->pages;
	u64 chunk_mask = BIT_ULL(p->page_shift) - 1;

	while (len) {
		u64 within = pos & chunk_mask;
		struct page *first = rdmap_mem_page_of(mem, v, pos >> p->page_shift);
		struct page *page;
		unsigned int off = within & (PAGE_SIZE - 1);
		unsigned int n = min_t(u64, len, PAGE_SIZE - off);
		int rc;

		if (!first)
			return -ENOENT;
		page = nth_page(first, within >> PAGE_SHIFT);
		rc = fn(ctx, page, off, n);

		if (rc)
			return rc;
		pos += n;
		len -= n;
	}
	return 0;
}

/* Kernel virtual addresses of the direct map, a page at a time */
static int rdmap_mem_walk_kva(u64 addr, u64 len, rdmap_mem_piece_fn fn, void *ctx)
{
	while (len) {
		const void *va = (const void *)(uintptr_t)addr;
		unsigned int off = offset_in_page(va);
		unsigned int n = min_t(u64, len, PAGE_SIZE - off);
		int rc = fn(ctx, virt_to_page(va), off, n);

		if (rc)
			return rc;
		addr += n;
		len -= n;
	}
	return 0;
}

/* Visit [@addr, @addr + @len) of @mem as @v shows it, in bounds */
static int rdmap_mem_walk_view(struct rdmap_mem *mem,
			       const struct rdmap_mem_view *v, u64 addr, u64 len,
			       rdmap_mem_piece_fn fn, void *ctx)
{
	if (mem->type == RDMAP_MEM_DMA)
		return rdmap_mem_walk_kva(addr, len, fn, ctx);
	return rdmap_mem_walk_pages(mem, v, v->pages.offset + (addr - v->iova),
				    len, fn, ctx);
}

/**
 * swi_rdmap_mem_walk() - visit [@iova, @iova + @len) of a region page by page
 * @mem: the object, referenced by the caller and already checked
 * @iova: first address
 * @len: octets
 * @fn: called for each piece in address order; a piece never crosses a
 *	page boundary
 * @ctx: passed to @fn
 *
 * The region and pages are those of the moment of the call. Nothing is
 * mapped: @fn uses kmap_local_page() or the like itself.
 *
 * Context: any context; @fn's constraints apply.
 * Return: 0 when every piece was visited (at once for @len 0), -ERANGE
 * when the range leaves the region or wraps (nothing visited), or the
 * first nonzero value @fn returned.
 */
int swi_rdmap_mem_walk(struct rdmap_mem *mem, u64 iova, u64 len,
		       rdmap_mem_piece_fn fn, void *ctx)
{
	struct rdmap_mem_view v;

	rdmap_mem_snapshot(mem, &v);
	if (!rdmap_mem_in_bounds(v.iova, v.len, iova, len))
		return -ERANGE;
	return rdmap_mem_walk_view(mem, &v, iova, len, fn, ctx);
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_walk);

/**
 * swi_rdmap_mem_use_walk() - check a held object again and visit a range of it
 * @mem: the object, held by the caller (swi_rdmap_mem_hold())
 * @stag: the STag the operation was checked with
 * @pd: the protection domain of the operation's QP
 * @access: IB_ACCESS_* rights the use needs
 * @addr: first address
 * @len: octets
 * @fn: called for each piece, as by swi_rdmap_mem_walk()
 * @ctx: passed to @fn
 *
 * swi_rdmap_mem_use(), swi_rdmap_mem_walk() and swi_rdmap_mem_put() in one, on one
 * view of the object: the pages visited are those the check saw (a
 * placement's cost on the receive path, once per run of payload).
 *
 * Context: any context; @fn's constraints apply.
 * Return: 0 when every piece was visited; -ENOENT or -EACCES as
 * swi_rdmap_mem_use() (nothing visited); or the first nonzero value @fn
 * returned.
 */
int swi_rdmap_mem_use_walk(struct rdmap_mem *mem, u32 stag, const void *pd,
			   int access, u64 addr, u64 len, rdmap_mem_piece_fn fn,
			   void *ctx)
{
	struct rdmap_mem_view v;
	int err = -EACCES;

	if (!kref_get_unless_zero(&mem->ref))
		return -ENOENT;
	rdmap_mem_snapshot(mem, &v);
	if (rdmap_mem_state(mem, &v, stag, pd) == DDP_STAG_VALID &&
	    (v.access & access) == access &&
	    rdmap_mem_in_bounds(v.iova, v.len, addr, len))
		err = rdmap_mem_walk_view(mem, &v, addr, len, fn, ctx);
	swi_rdmap_mem_put(mem);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(swi_rdmap_mem_use_walk);
