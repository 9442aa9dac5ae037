/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: kernel version compatibility
 *
 * softiwarp builds against Debian's kernels from 6.1 (bookworm) to 7.3
 * (trixie-backports) and against the project's own 6.12 test kernel. Every
 * difference between those kernels that the sources need to know about
 * lives here, so the rest of the code is written against one API. A
 * difference is keyed on a macro the kernel defines where there is one, on
 * the kernel version where the release that made it is certain, and else
 * on what the headers declare (the SWI_HAVE_* keys, probed by Kbuild).
 * This header is the part every layer may use; it includes nothing of
 * <rdma/...>, so that the protocol layers (mpa/, ddp/) stay free of the
 * verbs API. The verbs differences are in dev/verbs_compat.h.
 */
#ifndef SOFTIWARP_COMPAT_H
#define SOFTIWARP_COMPAT_H

#include <linux/version.h>
#include <kunit/visibility.h>

/*
 * KUnit's static stubs (a function a test case may replace) came in 6.3;
 * before, the redirection is compiled out as it is without CONFIG_KUNIT
 * (the project's KUnit suites run on its 6.12 kernels)
 */
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
#include <kunit/static_stub.h>
#else
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) ((void)(real_fn_name))
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

/*
 * CRC32c by the library's code, called directly (mpa/mpa_crc.c does so
 * only when the crypto API's driver is SWI_CRC32C_LIB_DRIVER, that same
 * code): the table-driven __crc32c_le() behind crc32c-generic until the
 * library was reworked; since, crc32c() in <linux/crc32.h> (optimized for
 * the CPU), behind the crypto API's one "crc32c" driver, crc32c-lib.
 */
#include <linux/crc32.h>
#ifdef SWI_HAVE_CRC32C_LIB
#define swi_crc32c_lib(crc, p, len)	crc32c(crc, p, len)
#define SWI_CRC32C_LIB_DRIVER		"crc32c-lib"
#else
#define swi_crc32c_lib(crc, p, len)	__crc32c_le(crc, p, len)
#define SWI_CRC32C_LIB_DRIVER		"crc32c-generic"
#endif

/*
 * nth_page(): gone once the pages of a folio were contiguous in the memmap
 * on every configuration. Ours also step through a kernel MR's large pages,
 * which are physically contiguous ranges, not always one folio: by the page
 * frame number, right on every memory model.
 */
#include <linux/mm.h>
#ifndef nth_page
#define nth_page(page, n)	pfn_to_page(page_to_pfn(page) + (n))
#endif

/*
 * kernel_bind() and kernel_connect() take a struct sockaddr_unsized since
 * the socket address length checks were tightened; the cast is the same
 * address either way.
 */
#ifdef SWI_HAVE_SOCKADDR_UNSIZED
#define swi_sockaddr_arg(sa)	((struct sockaddr_unsized *)(sa))
#else
#define swi_sockaddr_arg(sa)	((struct sockaddr *)(sa))
#endif

/*
 * A workqueue is per-CPU or unbound, and from 7.x alloc_workqueue() warns
 * when the caller says neither (WQ_PERCPU, an enum constant, came with
 * that change): the transmitter's is per-CPU on purpose.
 */
#ifdef SWI_HAVE_WQ_PERCPU
#define SWI_WQ_PERCPU	WQ_PERCPU
#else
#define SWI_WQ_PERCPU	0
#endif

/*
 * Symbol namespaces are string literals since 6.13: the KUnit module
 * imports the one EXPORT_SYMBOL_IF_KUNIT() exports to.
 */
#if KERNEL_VERSION(6, 13, 0) <= LINUX_VERSION_CODE
#define SWI_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define SWI_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

#endif /* SOFTIWARP_COMPAT_H */
