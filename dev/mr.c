// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: memory region verbs
 *
 * Every MR is a struct rdmap_mem in the device's STag table (rdmap/mem.c)
 * plus what backs it: the pinned pages of a user MR (ib_umem), the page
 * array of a fast-register MR that ib_map_mr_sg() fills, or nothing for
 * the DMA MR, which stands for all kernel memory (a software device's
 * "DMA addresses" are kernel virtual addresses, ib_uses_virt_dma()).
 * The lkey and the rkey are the same STag.
 *
 * STags are hard to predict (RFC 5040 section 8.1.1, requirement 8): the
 * index is the first free one from a random point of the 2^24 - 1 range
 * on, and the key is random unless the consumer chose one (a nonzero
 * stag_key of the siw ABI; libsiw always asks for 0). A kernel ULP
 * changes the key of its fast-register MRs itself (ib_inc_rkey()),
 * starting from the random one.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "dev/softiwarp.h"

static struct swi_mr *swi_mr_alloc(struct swi_device *dev)
{
	struct swi_mr *mr;

	if (atomic_inc_return(&dev->num_mr) > SWI_MAX_MR) {
		atomic_dec(&dev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&dev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	return mr;
}

static void swi_mr_free(struct swi_device *dev, struct swi_mr *mr)
{
	kvfree(mr->pages);
	kvfree(mr->spare);
	kfree(mr);
	atomic_dec(&dev->num_mr);
}

/*
 * Register @attr for @mr at a random index, with a random key unless
 * @attr has one, and fill in the keys the IB core reports
 */
static int swi_mr_register(struct swi_device *dev, struct swi_mr *mr,
			   const struct rdmap_mem_attr *attr)
{
	struct rdmap_mem_attr a = *attr;
	struct rdmap_mem *mem;

	a.hint = get_random_u32();
	if (!a.key)
		a.key = get_random_u8();
	mem = swi_rdmap_mem_register(&dev->mem, &a, GFP_KERNEL);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	mr->mem = mem;
	mr->base.lkey = swi_rdmap_mem_stag(mem);
	mr->base.rkey = mr->base.lkey;
	mr->base.iova = attr->iova;
	mr->base.length = attr->len;
	return 0;
}

/**
 * swi_get_dma_mr() - the DMA MR of a kernel PD
 * @pd: the protection domain
 * @access: IB_ACCESS_* rights
 *
 * Context: process context.
 * Return: the MR (addresses are kernel virtual addresses), or an error
 * pointer.
 */
struct ib_mr *swi_get_dma_mr(struct ib_pd *pd, int access)
{
	struct swi_device *dev = to_swi_dev(pd->device);
	struct rdmap_mem_attr attr = {
		.type = RDMAP_MEM_DMA,
		.pd = pd,
		.access = access,
	};
	struct swi_mr *mr = swi_mr_alloc(dev);
	int err;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = swi_mr_register(dev, mr, &attr);
	if (err) {
		swi_mr_free(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->base;
}

/* The page array of a pinned user region, one entry per PAGE_SIZE page */
static int swi_umem_pages(struct swi_mr *mr, struct ib_umem *umem)
{
	struct sg_page_iter iter;
	size_t n = ib_umem_num_pages(umem), i = 0;

	if (n > UINT_MAX)
		return -EINVAL;
	mr->pages = kvcalloc(n, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (i == n)
			return -EINVAL;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	mr->npages = i;
	mr->max_pages = n;
	return i == n ? 0 : -EINVAL;
}

/**
 * swi_reg_user_mr() - register user memory (libsiw's ibv_reg_mr)
 * @pd: the protection domain
 * @start: user address of the region
 * @len: its length
 * @iova: the address the region is known by (the STag's base)
 * @access: IB_ACCESS_* rights
 * @udata: struct siw_ureq_reg_mr in (the key), struct siw_uresp_reg_mr out
 *
 * Context: process context; pins the pages.
 * Return: the MR or an error pointer.
 */
struct ib_mr *swi_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct swi_device *dev = to_swi_dev(pd->device);
	struct siw_ureq_reg_mr ureq = {};
	struct siw_uresp_reg_mr uresp = {};
	struct rdmap_mem_attr attr = {
		.type = RDMAP_MEM_MR, .pd = pd, .access = access,
		.iova = iova, .len = len,
	};
	struct ib_umem *umem;
	struct swi_mr *mr;
	int err;

	if (!len || len > SZ_1G * 64ULL)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen >= sizeof(ureq) &&
	    ib_copy_from_udata(&ureq, udata, sizeof(ureq)))
		return ERR_PTR(-EFAULT);
	attr.key = ureq.stag_key;
	mr = swi_mr_alloc(dev);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	umem = swi_umem_get(pd->device, start, len, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto out_free;
	}
	mr->umem = umem;
	err = swi_umem_pages(mr, umem);
	if (err)
		goto out_umem;
	attr.pages = (struct rdmap_mem_pages) {
		.pages = mr->pages, .npages = mr->npages,
		.page_shift = PAGE_SHIFT, .offset = ib_umem_offset(umem),
	};
	err = swi_mr_register(dev, mr, &attr);
	if (err)
		goto out_umem;
	uresp.stag = mr->base.lkey;
	if (udata && udata->outlen >= sizeof(uresp)) {
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto out_dereg;
	}
	return &mr->base;

out_dereg:
	swi_rdmap_mem_dereg(&dev->mem, mr->mem);
out_umem:
	ib_umem_release(umem);
out_free:
	swi_mr_free(dev, mr);
	return ERR_PTR(err);
}

#ifdef SWI_HAVE_REG_USER_MR_DMAH
/**
 * swi_reg_user_mr_dmah() - reg_user_mr where the core passes a DMA handle
 * @pd: the protection domain
 * @start: user address of the region
 * @len: its length
 * @iova: the address the region is known by (the STag's base)
 * @access: IB_ACCESS_* rights
 * @dmah: a DMA handle (TLP processing hints); softiwarp does no DMA and
 *	offers no alloc_dmah, so the core has none to give: one is refused
 * @udata: as for swi_reg_user_mr()
 *
 * Context: process context; pins the pages.
 * Return: the MR or an error pointer (-EOPNOTSUPP for a DMA handle).
 */
struct ib_mr *swi_reg_user_mr_dmah(struct ib_pd *pd, u64 start, u64 len,
				   u64 iova, int access, struct ib_dmah *dmah,
				   struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return swi_reg_user_mr(pd, start, len, iova, access, udata);
}
#endif

/**
 * swi_alloc_mr() - a fast-register MR (ib_alloc_mr)
 * @pd: the protection domain
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_sg: most pages ib_map_mr_sg() may map
 *
 * Context: process context.
 * Return: the MR, invalid until a REG_MR work request, or an error pointer.
 */
struct ib_mr *swi_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg)
{
	struct swi_device *dev = to_swi_dev(pd->device);
	struct rdmap_mem_attr attr = { .type = RDMAP_MEM_FRMR, .pd = pd };
	struct swi_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_sg || max_sg > SWI_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = swi_mr_alloc(dev);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kvcalloc(max_sg, sizeof(*mr->pages), GFP_KERNEL);
	mr->spare = kvcalloc(max_sg, sizeof(*mr->spare), GFP_KERNEL);
	mr->max_pages = max_sg;
	err = mr->pages && mr->spare ? swi_mr_register(dev, mr, &attr) :
				       -ENOMEM;
	if (err) {
		swi_mr_free(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->base;
}

/*
 * One page of the MR's page size, at a kernel virtual address: its first
 * struct page. A page larger than PAGE_SIZE must lie in the linear map,
 * where it is physically contiguous.
 */
static int swi_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct swi_mr *mr = to_swi_mr(ibmr);
	void *va = (void *)(uintptr_t)addr;

	if (mr->nspare == mr->max_pages)
		return -ENOMEM;
	if (ibmr->page_size > PAGE_SIZE &&
	    (!virt_addr_valid(va) || !virt_addr_valid(va + ibmr->page_size - 1)))
		return -EINVAL;
	mr->spare[mr->nspare++] = virt_to_page(va);
	return 0;
}

/**
 * swi_map_mr_sg() - give a fast-register MR its pages (ib_map_mr_sg)
 * @ibmr: the MR, not valid
 * @sg: the DMA-mapped scatterlist (kernel virtual addresses)
 * @nents: its entries
 * @sg_offset: offset into the first entry
 *
 * The MR's page size is a power of two from PAGE_SIZE to 2 GiB
 * (page_size_cap); a page larger than PAGE_SIZE is physically contiguous
 * memory of the linear map. The page list holds the first struct page of
 * each. They go into the MR's spare array, which then
 * becomes its mapping; the array it had becomes the spare. A placement
 * in flight when the MR was invalidated may still be walking that one:
 * it stops at its next page (swi_rdmap_mem_set_pages()), so it never lands in
 * the pages mapped now, which are the ULP's again (RFC 5042 section
 * 6.2.2). The caller serialises its calls on one MR, as the verbs
 * require of ib_map_mr_sg().
 *
 * Context: process or softirq context of the ULP; does not sleep.
 * Return: the number of entries mapped, or a negative errno (-EINVAL for
 * another page size, -EBUSY while the MR is valid).
 */
int swi_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		  unsigned int *sg_offset)
{
	struct swi_mr *mr = to_swi_mr(ibmr);
	struct rdmap_mem_pages pages;
	int n, err;

	if (!is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & SWI_PAGE_SIZE_CAP)) {
		ibdev_warn_ratelimited(ibmr->device,
				       "map_mr_sg: page size %u not supported\n",
				       ibmr->page_size);
		return -EINVAL;
	}
	/* a valid MR keeps its pages: swi_rdmap_mem_set_pages() refuses too */
	if (swi_rdmap_mem_is_valid(mr->mem))
		return -EBUSY;
	mr->nspare = 0;
	n = ib_sg_to_pages(ibmr, sg, nents, sg_offset, swi_set_page);
	if (n <= 0)
		return n;
	pages = (struct rdmap_mem_pages) {
		.pages = mr->spare, .npages = mr->nspare,
		.page_shift = ilog2(ibmr->page_size),
		.offset = ibmr->iova & (ibmr->page_size - 1),
	};
	err = swi_rdmap_mem_set_pages(mr->mem, &pages);
	if (err)
		return err;
	swap(mr->pages, mr->spare);
	swap(mr->npages, mr->nspare);
	return n;
}

/**
 * swi_dereg_mr() - deregister an MR
 * @ibmr: the MR
 * @udata: user data (unused)
 *
 * Waits until the data path holds no reference any more, then unpins.
 *
 * Context: process context, sleeps.
 * Return: 0.
 */
int swi_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct swi_device *dev = to_swi_dev(ibmr->device);
	struct swi_mr *mr = to_swi_mr(ibmr);

	swi_rdmap_mem_dereg(&dev->mem, mr->mem);
	if (mr->umem)
		ib_umem_release(mr->umem);
	swi_mr_free(dev, mr);
	return 0;
}

/**
 * swi_mr_mem() - the memory object behind a fast-register work request
 * @ibmr: the MR a kernel consumer's IB_WR_REG_MR names, one of this
 *	device's (swi_alloc_mr()); dev/qp.c copied the pointer into the SQE
 *
 * Context: any context.
 * Return: the MR's memory object, which lives as long as the MR.
 */
struct rdmap_mem *swi_mr_mem(struct ib_mr *ibmr)
{
	return to_swi_mr(ibmr)->mem;
}
