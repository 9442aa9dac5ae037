/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the rings of SQ, RQ, SRQ and CQ
 *
 * Every queue of the siw user ABI is a ring of fixed-size entries (struct
 * siw_sqe, siw_rqe, siw_cqe) indexed by free-running u32 counters, a power
 * of two entries long, in memory that libsiw may map (vmalloc_user()) or in
 * kernel memory for kernel objects. struct swi_ring is that ring for all
 * four; the object around it keeps the lock that serialises its own side.
 *
 * Who owns a slot is said by one bit, SIW_WQE_VALID in the entry's flags,
 * never by the indexes, because the other side may be user space:
 *
 * - The producer may write a slot only while VALID is clear
 *   (swi_slot_busy() false); it writes the whole entry, then sets VALID
 *   with swi_slot_fill(), a store-release: whoever sees VALID sees the
 *   entry.
 * - The consumer reads a slot only after swi_slot_busy() saw VALID, a
 *   load-acquire that pairs with the producer's store-release; after its
 *   last read of the entry it clears VALID with swi_slot_free(), a
 *   store-release, so the producer that sees the slot free (acquire again)
 *   cannot overwrite what is still being read.
 *
 * These (and swi_slot_flags(), the same acquire load returning all the
 * flags) are the only accesses to the flags word of a ring entry.
 */
#ifndef SOFTIWARP_RING_H
#define SOFTIWARP_RING_H

#include <asm/barrier.h>
#include <linux/types.h>
#include <rdma/siw-abi.h>

struct ib_udata;
struct rdma_user_mmap_entry;

/**
 * struct swi_ring - one ring of SQ, RQ, SRQ or CQ entries
 * @queue: @num entries of @esize octets, then @extra octets (the CQ's
 *	notify word); NULL for a ring of no entries
 * @num: number of entries, a power of two, or 0
 * @esize: size of one entry
 * @extra: octets after the entries
 * @put: producer index, free running (when the kernel produces)
 * @get: consumer index, free running (when the kernel consumes)
 * @user: @queue is vmalloc_user() memory for user space to map
 * @mmap: the mapping's entry once published to user space
 *
 * The indexes are protected by the lock of the object that owns the ring.
 */
struct swi_ring {
	void *queue;
	u32 num;
	u32 esize;
	u32 extra;
	u32 put;
	u32 get;
	bool user;
	struct rdma_user_mmap_entry *mmap;
};

/**
 * swi_ring_slot() - the entry an index falls on
 * @r: the ring, with at least one entry
 * @i: a free-running index
 *
 * Context: any context.
 * Return: the entry's address.
 */
static inline void *swi_ring_slot(const struct swi_ring *r, u32 i)
{
	return r->queue + (size_t)(i & (r->num - 1)) * r->esize;
}

/*
 * The slot protocol of the DOC block above. swi_slot_flags() is the
 * consumer's acquire load when it needs more flags than VALID.
 */
/* acquire: the entry is read only after VALID was seen */
#define swi_slot_flags(slot)	smp_load_acquire(&(slot)->flags)
#define swi_slot_busy(slot)	(swi_slot_flags(slot) & SIW_WQE_VALID)
/* release: whatever was written or read of the entry comes first */
#define swi_slot_set(slot, v) smp_store_release(&(slot)->flags, (typeof((slot)->flags))(v))
/* the whole entry is written before VALID shows (producer) */
#define swi_slot_fill(slot, fl)	swi_slot_set(slot, (fl) | SIW_WQE_VALID)
/* the consumer's last read is done before the slot is free */
#define swi_slot_free(slot)	swi_slot_set(slot, 0)

int swi_ring_alloc(struct swi_ring *r, u32 num, size_t esize, size_t extra,
		   bool user);
void swi_ring_free(struct swi_ring *r);
size_t swi_ring_bytes(const struct swi_ring *r);
int swi_ring_publish(struct swi_ring *r, struct ib_udata *udata, u64 *key);

#endif /* SOFTIWARP_RING_H */
