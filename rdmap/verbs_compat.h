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

#endif /* SOFTIWARP_VERBS_COMPAT_H */
