#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make kunit`: load softiwarp and its KUnit module the way a
# user would (modprobe), keep the kernel log of the run for the host to
# parse, unload both, and save the log of the unload as well.
dmesg -C
modprobe softiwarp || exit 10
modprobe softiwarp_kunit || exit 11
dmesg > "$RESULTS/kunit.dmesg"
dmesg -C
rmmod softiwarp_kunit || exit 12
rmmod softiwarp || exit 13
dmesg > "$RESULTS/unload.dmesg"
exit 0
