#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rnbd over RTRS over softiwarp, in two guests on a QEMU socket network:
# rnbd-server exporting a RAM disk in guest A, rnbd-client mapping it in
# guest B, data written and read back byte-compared at several block
# sizes and in parallel, unmap, server teardown, clean kernel logs (what
# each side does is described in rnbd.guest). RTRS carries its requests
# and responses as RDMA Writes with Immediate Data: RFC 7306 section 6 on
# the wire, with the kernel's own consumer on both ends.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
g=$top/tools/e2e-pair/rnbd.guest
out=$top/build/e2e-pair/05

rc=0
"$top/tools/vm-pair" -t 600 -o "$out" "$g" server -- "$g" client || rc=$?
for r in a b; do
	echo "--- guest $r"
	cat "$out/$r/05-summary.txt" 2>/dev/null || tail -n 30 "$out/$r/console.log"
done
[ "$rc" -eq 0 ] || { echo "FAIL: vm-pair exited $rc"; exit 1; }
# Debian's kernels (E2E_KERNEL, tools/e2e.sh) have no rnbd: they say so
if [ -n "${E2E_KERNEL:-}" ] &&
   grep -q '^skip rnbd: this kernel has no rnbd' "$out/b/05-summary.txt"; then
	exit 0
fi
grep -q '^ok   rnbd: 9 MiB read back equal to what was written' \
	"$out/b/05-summary.txt" || { echo "FAIL: rnbd did not verify its data"; exit 1; }
