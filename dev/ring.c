// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: ring memory
 *
 * Allocation, publication to user space and release of the rings of
 * dev/ring.h, and the device's mmap ops that map them (libsiw maps each
 * queue at the key its create verb returned). A ring published for mapping belongs to the mapping
 * machinery from then on (swi_mmap_publish()): it is withdrawn, not freed,
 * and freed after the last mapping is gone.
 */
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "dev/ring.h"
#include "dev/softiwarp.h"

/**
 * swi_mmap_publish() - let user space map a queue
 * @udata: the user call that created the queue's object
 * @vaddr: the queue, allocated with vmalloc_user()
 * @len: its length in octets
 * @entry: the entry to keep for swi_mmap_unpublish()
 * @key: the mmap offset user space (libsiw) passes to mmap()
 *
 * On success the queue memory belongs to the mapping machinery: after
 * swi_mmap_unpublish() it is freed with vfree() once no mapping of it is
 * left, which may be after the object that owned it is gone. On failure the
 * caller still owns @vaddr.
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno.
 */
static int swi_mmap_publish(struct ib_udata *udata, void *vaddr, size_t len,
			    struct rdma_user_mmap_entry **entry, u64 *key)
{
	struct swi_ucontext *uctx = rdma_udata_to_drv_context(udata,
					struct swi_ucontext, base);
	struct swi_mmap_entry *e;
	int err;

	if (!uctx)
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->vaddr = vaddr;
	e->len = len;
	err = rdma_user_mmap_entry_insert_range(&uctx->base, &e->base,
						PAGE_ALIGN(len),
						SWI_MMAP_MIN_PGOFF, U32_MAX);
	if (err) {
		kfree(e);
		return err;
	}
	*entry = &e->base;
	*key = rdma_user_mmap_get_offset(&e->base);
	return 0;
}

/**
 * swi_mmap_unpublish() - withdraw a queue from user space
 * @entry: from swi_mmap_publish(), or NULL
 *
 * No new mapping can be made; existing ones stay valid until unmapped,
 * and the queue memory is freed after the last of them (swi_mmap_free()).
 *
 * Context: process context.
 * Return: nothing.
 */
static void swi_mmap_unpublish(struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
}

/**
 * swi_mmap() - the device's mmap op: map a published queue
 * @uctx: the user context the queue was published in
 * @vma: the mapping user space asks for, at the queue's key
 *
 * Context: process context (mmap()).
 * Return: 0, or -EINVAL for an unknown key or a mapping longer than the
 * queue, or what remap_vmalloc_range() returns.
 */
int swi_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	struct swi_mmap_entry *e;
	int err;

	rentry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rentry)
		return -EINVAL;
	e = container_of(rentry, struct swi_mmap_entry, base);
	if (vma->vm_end - vma->vm_start > PAGE_ALIGN(e->len))
		err = -EINVAL;
	else
		err = remap_vmalloc_range(vma, e->vaddr, 0);
	rdma_user_mmap_entry_put(rentry);
	return err;
}

/**
 * swi_mmap_free() - the device's mmap_free op: free a withdrawn queue
 * @rentry: the entry, after its last mapping is gone
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct swi_mmap_entry *e = container_of(rentry, struct swi_mmap_entry,
						base);

	vfree(e->vaddr);
	kfree(e);
}

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
