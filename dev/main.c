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

#include "cm/cm.h"
#include "dev/softiwarp.h"
#include "mpa/mpa.h"

static char *crc32c_driver = "fastest";
module_param(crc32c_driver, charp, 0444);
MODULE_PARM_DESC(crc32c_driver,
		 "CRC32c implementation: \"fastest\" (default: the faster, timed at load, of the crypto API's preferred one and crc32c-generic), \"crc32c\" (the preferred one), or a crypto driver name (e.g. crc32c-generic)");

static int __init softiwarp_init(void)
{
	int err;

	err = swi_mpa_crc_init(crc32c_driver);
	if (err) {
		pr_err("cannot set up the crc32c transform %s: %d\n",
		       crc32c_driver, err);
		return err;
	}
	err = swi_eng_init();
	if (err)
		goto out_crc;
	err = swi_qp_init();
	if (err)
		goto out_engine;
	err = swi_cm_init();
	if (err)
		goto out_qp;
	err = swi_device_init();
	if (err) {
		pr_err("cannot register the rdma link type: %d\n", err);
		goto out_cm;
	}
	pr_info("loaded; CRC32c by %s\n", swi_mpa_crc_driver());
	return 0;

out_cm:
	swi_cm_exit();
out_qp:
	swi_qp_exit();
out_engine:
	swi_eng_exit();
out_crc:
	swi_mpa_crc_exit();
	return err;
}

static void __exit softiwarp_exit(void)
{
	swi_device_exit();
	swi_cm_exit();
	swi_qp_exit();
	swi_eng_exit();
	swi_mpa_crc_exit();
	pr_info("unloaded\n");
}

module_init(softiwarp_init);
module_exit(softiwarp_exit);

MODULE_DESCRIPTION("Software iWARP (MPA/DDP/RDMAP over kernel TCP)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SWI_VERSION);
MODULE_SOFTDEP("pre: crc32c");
