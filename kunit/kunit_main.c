// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: softiwarp KUnit test module
 *
 * softiwarp_kunit.ko gathers every KUnit suite of the project (one file per
 * area in kunit/, suites named softiwarp_<area>). It reaches the internals
 * of softiwarp.ko through the symbols that module exports only when KUnit
 * is enabled (EXPORT_SYMBOL_IF_KUNIT).
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for softiwarp");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
