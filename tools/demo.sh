#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build what is needed (cached), boot the test VM and show
# softiwarp at work.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

prepare_test_kernel || exit 1
build_test_modules || exit 1
res="$top/build/demo"
rm -rf "$res"
mkdir -p "$res"
echo "Booting the test VM (QEMU, software emulation)..."
"$top/tools/vm-run" -o "$res" -t 600 "$top/tools/guest/demo.sh"
rc=$?
cat "$res/demo.out" 2>/dev/null
echo
echo "demo: guest exited with status $rc (console log: $res/console.log)"
exit $rc
