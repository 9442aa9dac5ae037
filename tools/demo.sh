#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a VM on Debian's own kernel image and show softiwarp at
# work. DEMO_KERNEL names the kernel (tools/debian-kernel.sh): by default
# host:linux-headers-6.12-amd64, the 6.12 image of the host's own
# release, for which the module builds with the host's headers (what
# tools/install-deps.sh --demo installs: a fresh machine needs no kernel
# build and no chroot); "test" for the project's test kernel.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${DEMO_KERNEL:-host:linux-headers-6.12-amd64}
if [ "$kernel" = test ]; then
	prepare_test_kernel || exit 1
	build_test_modules || exit 1
else
	prepare_debian_kernel "$kernel" || exit 1
fi
res="$top/build/demo"
rm -rf "$res"
mkdir -p "$res"
echo "Booting the VM (QEMU, software emulation)..."
"$top/tools/vm-run" -o "$res" -t 600 "$top/tools/guest/demo.sh"
rc=$?
cat "$res/demo.out" 2>/dev/null
echo
echo "demo: guest exited with status $rc (console log: $res/console.log)"
exit $rc
