// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: ring memory
 *
 * Allocation, publication to user space and release of the rings of
 * dev/ring.h. A ring published for mapping belongs to the mapping
 * machinery from then on (swi_mmap_publish()): it is withdrawn, not freed,
 * and freed after the last mapping is gone.
 */
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dev/ring.h"
#include "dev/softiwarp.h"

/**
 * swi_ring_bytes() - the size of a ring's memory
 * @r: the ring
 *
 * Context: any context.
 * Return: octets of entries plus the extra octets after them.
 */
size_t swi_ring_bytes(const struct swi_ring *r)
{
	return size_add(array_size(r->num, r->esize), r->extra);
}
EXPORT_SYMBOL_IF_KUNIT(swi_ring_bytes);

/**
 * swi_ring_alloc() - set up an empty ring
 * @r: the ring; every field is (re)initialised
 * @num: number of entries: a power of two, or 0 for no ring at all (the
 *	RQ of a QP that uses an SRQ)
 * @esize: size of one entry
 * @extra: octets to add after the entries
 * @user: allocate for user space mapping (vmalloc_user()), else for the
 *	kernel
 *
 * The memory starts zeroed: every slot free.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL if @num is not 0 or a power of two, or -ENOMEM.
 */
int swi_ring_alloc(struct swi_ring *r, u32 num, size_t esize, size_t extra,
		   bool user)
{
	size_t len;

	if (num && !is_power_of_2(num))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->num = num;
	r->esize = esize;
	r->extra = extra;
	r->user = user;
	if (!num)
		return 0;
	len = swi_ring_bytes(r);
	r->queue = user ? vmalloc_user(len) : kvzalloc(len, GFP_KERNEL);
	return r->queue ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(swi_ring_alloc);

/**
 * swi_ring_free() - release a ring of swi_ring_alloc()
 * @r: the ring; nobody in the kernel may use it any more
 *
 * A published ring is withdrawn (freed once unmapped), any other freed.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_ring_free(struct swi_ring *r)
{
	if (r->mmap)
		swi_mmap_unpublish(r->mmap);
	else if (r->user)
		vfree(r->queue);
	else
		kvfree(r->queue);
	r->mmap = NULL;
	r->queue = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(swi_ring_free);

/**
 * swi_ring_publish() - let user space map a ring
 * @r: a ring allocated for user space
 * @udata: the user call creating the ring's object
 * @key: set to the mmap offset libsiw passes to mmap()
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a kernel ring, or what swi_mmap_publish() returns.
 */
int swi_ring_publish(struct swi_ring *r, struct ib_udata *udata, u64 *key)
{
	if (!r->user || !r->queue)
		return -EINVAL;
	return swi_mmap_publish(udata, r->queue, swi_ring_bytes(r), &r->mmap,
				key);
}
