#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modprobe softiwarp as a user would, check it is live and what modinfo
# says, unload it, and require a clean kernel log.
set -eu
. "$(dirname "$0")/lib.sh"

dmesg -C
modinfo softiwarp | grep -q '^license: *GPL'
modprobe softiwarp
grep -q '^softiwarp ' /proc/modules
[ "$(cat /sys/module/softiwarp/initstate)" = live ]
rmmod softiwarp
grep -q '^softiwarp ' /proc/modules && exit 1
dmesg > "$RESULTS/01-module-load.dmesg"
grep -q 'softiwarp: loaded' "$RESULTS/01-module-load.dmesg"
grep -q 'softiwarp: unloaded' "$RESULTS/01-module-load.dmesg"
dmesg_clean "$RESULTS/01-module-load.dmesg"
