#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make kunit`: load softiwarp and its KUnit module the way a
# user would (modprobe), keep the kernel log of the run for the host to
# parse, unload both, and save the log of the unload as well. On a kernel
# with kmemleak (KFLAVOUR=debug) the leak report after unloading is saved
# too.
leaks=/sys/kernel/debug/kmemleak
# KUNIT_FILTER (tools/kunit.sh): a "suite.case" glob, to run fewer cases
if [ -n "${KUNIT_FILTER:-}" ]; then
	printf %s "$KUNIT_FILTER" > /sys/module/kunit/parameters/filter_glob || exit 14
fi
[ -e $leaks ] && echo clear > $leaks
dmesg -C
modprobe softiwarp || exit 10
modprobe softiwarp_kunit || exit 11
dmesg > "$RESULTS/kunit.dmesg"
dmesg -C
rmmod softiwarp_kunit || exit 12
rmmod softiwarp || exit 13
if [ -e $leaks ]; then
	echo scan > $leaks
	sleep 1
	echo scan > $leaks
	cat $leaks > "$RESULTS/kmemleak"
fi
dmesg > "$RESULTS/unload.dmesg"
exit 0
