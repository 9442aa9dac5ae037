/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: kernel version compatibility of the verbs API
 *
 * The differences between the supported kernels (compat.h) that only the
 * verbs code of rdmap/ sees, since they need <rdma/...> headers.
 */
#ifndef SOFTIWARP_VERBS_COMPAT_H
#define SOFTIWARP_VERBS_COMPAT_H

#include <linux/version.h>
#include <rdma/ib_verbs.h>

/*
 * create_cq: since 6.11 the core passes the whole attribute bundle; the
 * driver's udata is inside it. swi_cq_udata() gives the udata either way.
 */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#include <rdma/uverbs_ioctl.h>

#define SWI_CREATE_CQ_ARG	struct uverbs_attr_bundle

static inline struct ib_udata *swi_cq_udata(SWI_CREATE_CQ_ARG *arg)
{
	return arg ? &arg->driver_udata : NULL;
}
#else
#define SWI_CREATE_CQ_ARG	struct ib_udata

static inline struct ib_udata *swi_cq_udata(SWI_CREATE_CQ_ARG *arg)
{
	return arg;
}
#endif

/*
 * reg_user_mr: a DMA handle (struct ib_dmah, for TLP processing hints)
 * came between the access flags and the udata. softiwarp does no DMA and
 * takes none: where the kernel passes one, the operation is
 * swi_reg_user_mr_dmah() (dev/mr.c), which refuses a handle.
 */
#ifdef SWI_HAVE_REG_USER_MR_DMAH
#define SWI_REG_USER_MR		swi_reg_user_mr_dmah
#else
#define SWI_REG_USER_MR		swi_reg_user_mr
#endif

/*
 * ib_umem_get() became ib_umem_get_va() when umems could also come from
 * uverbs attributes; for a user virtual address it is the same call.
 */
#ifdef SWI_HAVE_UMEM_GET_VA
#define swi_umem_get(dev, addr, len, access) \
	ib_umem_get_va(dev, addr, len, access)
#else
#define swi_umem_get(dev, addr, len, access) \
	ib_umem_get(dev, addr, len, access)
#endif

#endif /* SOFTIWARP_VERBS_COMPAT_H */
