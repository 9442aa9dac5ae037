#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics over RDMA with the kernel's own consumers, in two
# guests on a QEMU socket network: nvmet-rdma target in guest A, nvme-rdma
# host in guest B; softiwarp on both over IPv4 and over IPv6, then the
# in-tree siw as the target and as the host against softiwarp; then
# softiwarp on both under netem (delay, reordering, loss, duplication),
# and with the target's link down for 12 s under the host's write (both
# ends give the connection up; nvme-rdma must reconnect by itself and
# lose nothing). What each
# phase does is described in nvmeof.guest; this script starts the pair and
# shows both summaries.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
g=$top/tools/e2e-pair/nvmeof.guest
out=$top/build/e2e-pair/03

# NVME_PHASES: the phases to run, default all (make check runs fewer on
# one kernel)
phases=${NVME_PHASES:-all}
rc=0
"$top/tools/vm-pair" -t 900 -o "$out" "$g" target "$phases" -- \
	"$g" host "$phases" || rc=$?
for r in a b; do
	echo "--- guest $r"
	cat "$out/$r/03-summary.txt" 2>/dev/null || tail -n 30 "$out/$r/console.log"
done
[ "$rc" -eq 0 ] || { echo "FAIL: vm-pair exited $rc"; exit 1; }
# A phase that never ran leaves no line: insist on every one of them.
# On Debian's kernels (E2E_KERNEL, tools/e2e.sh), which have no siw, the
# siw phases say they were skipped.
for phase in sw-sw-ipv4 sw-sw-ipv6 siw-sw sw-siw sw-sw-exclusive sw-sw-netem \
	sw-sw-link-down; do
	[ "$phases" = all ] || [[ " $phases " == *" $phase "* ]] || continue
	grep -q "^ok   $phase: .* read back equal" "$out/b/03-summary.txt" &&
		continue
	[ -n "${E2E_KERNEL:-}" ] && [[ $phase == *siw* ]] &&
		grep -q "^skip $phase: this kernel has no siw" \
			"$out/b/03-summary.txt" && continue
	echo "FAIL: phase $phase did not verify its data"
	exit 1
done
