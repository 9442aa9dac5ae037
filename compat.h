/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: kernel version compatibility
 *
 * softiwarp builds against Debian's 6.1 (bookworm) and 6.12 (+deb12) kernel
 * headers and against the project's own 6.12 test kernel. Every difference
 * between those kernels that the sources need to know about lives here, so
 * the rest of the code is written against one API. This header is the
 * part every layer may use; it includes nothing of <rdma/...>, so that the
 * protocol layers (mpa/, ddp/) stay free of the verbs API. The verbs
 * differences are in rdmap/verbs_compat.h.
 */
#ifndef SOFTIWARP_COMPAT_H
#define SOFTIWARP_COMPAT_H

#include <linux/version.h>
#include <kunit/visibility.h>

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
