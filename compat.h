/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: kernel version compatibility
 *
 * softiwarp builds against Debian's 6.1 (bookworm) and 6.12 (+deb12) kernel
 * headers and against the project's own 6.12 test kernel. Every difference
 * between those kernels that the sources need to know about lives here, so
 * the rest of the code is written against one API.
 */
#ifndef SOFTIWARP_COMPAT_H
#define SOFTIWARP_COMPAT_H

#include <linux/version.h>
#include <kunit/visibility.h>
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
 * iov_iter directions got their own names in 6.2; the values are the old
 * READ (destination) and WRITE (source).
 */
#include <linux/uio.h>
#ifndef ITER_SOURCE
#define ITER_SOURCE	WRITE
#define ITER_DEST	READ
#endif

#endif /* SOFTIWARP_COMPAT_H */
