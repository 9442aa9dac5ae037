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

#endif /* SOFTIWARP_COMPAT_H */
