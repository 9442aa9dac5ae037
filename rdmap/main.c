// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: module entry points
 *
 * softiwarp turns any netdev into an iWARP RDMA device by running MPA
 * (RFC 5044), DDP (RFC 5041) and RDMAP (RFC 5040) in software over kernel
 * TCP sockets. This file brings the layers up in order on load and takes
 * them down in reverse order on unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "mpa/mpa.h"

static int __init softiwarp_init(void)
{
	int err;

	err = mpa_crc_init();
	if (err) {
		pr_err("cannot set up the crc32c transform: %d\n", err);
		return err;
	}
	pr_info("loaded\n");
	return 0;
}

static void __exit softiwarp_exit(void)
{
	mpa_crc_exit();
	pr_info("unloaded\n");
}

module_init(softiwarp_init);
module_exit(softiwarp_exit);

MODULE_DESCRIPTION("Software iWARP (MPA/DDP/RDMAP over kernel TCP)");
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: crc32c");
