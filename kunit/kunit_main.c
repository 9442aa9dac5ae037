// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: softiwarp KUnit test module
 *
 * softiwarp_kunit.ko gathers every KUnit suite of the project, suites named
 * softiwarp_<area>: one test file in kunit/ per source file tested (or per
 * integration of several, such as the MPA socket and bench suites), each
 * registering its own suites with kunit_test_suites(); Kbuild's link order
 * is the order they run in. Documentation/testing.rst lists the files.
 * What several suites share is in kunit/helpers.c and, for the MPA suites,
 * kunit/mpa_vectors.c. It reaches the internals of softiwarp.ko through the
 * symbols that module exports only when KUnit is enabled
 * (EXPORT_SYMBOL_IF_KUNIT).
 */
#include <linux/module.h>

#include "compat.h"

MODULE_DESCRIPTION("KUnit tests for softiwarp");
MODULE_LICENSE("GPL");
SWI_IMPORT_KUNIT_NS();
