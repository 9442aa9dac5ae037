#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A fair share per user, as the administrator sets it with the rdma
# cgroup controller (RFC 5040 section 8.1.2, requirement 6;
# Documentation/security.rst): the RDMA core charges every user object of
# softiwarp to the process's cgroup as it does for any device. A cgroup
# whose rdma.max allows one user context and 8 objects on swi0: a process
# in it (tools/e2e/user-limits.py share) gets one context (a second one
# is refused with EAGAIN) and 8 objects, a PD and 7 CQs (the next refused
# with EAGAIN, one again after freeing one), rdma.current shows the
# share, and meanwhile a process outside the group creates 16 objects on
# the same device; once released, rdma.current is back to 0. Then a
# fresh rping passes and the kernel log is clean.
#
# Needs a kernel with the rdma cgroup controller (CONFIG_CGROUP_RDMA, as
# Debian's kernels have); on one without (the test kernel has no cgroups)
# the test says so and exits 77, which tools/guest/e2e.sh counts as
# skipped, never as passed.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=21-rdma-cgroup
NS0=swns0 NS1=swns1
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
PY=/usr/bin/python3
UL=$(dirname "$0")/user-limits.py
CGROOT=/sys/fs/cgroup
CG=$CGROOT/swi-share
SHARE=8                     # hca_object of the group on swi0

if ! awk '$1 == "rdma" && $4 == 1 { f = 1 } END { exit !f }' \
	/proc/cgroups 2>/dev/null; then
	echo "SKIP $T: this kernel has no rdma cgroup controller"
	exit 77
fi
. "$(dirname "$0")/netns-lib.sh"

mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
grep -qw rdma "$CGROOT/cgroup.controllers" ||
	fail "rdma is not among the cgroup2 controllers (v1 holds it?)"
echo +rdma > "$CGROOT/cgroup.subtree_control"
rmdir "$CG" 2>/dev/null || true
mkdir "$CG"
netns_setup
echo "$DEV0 hca_handle=1 hca_object=$SHARE" > "$CG/rdma.max"
cat "$CG/rdma.max"

rc=0
timeout 120 "$PY" "$UL" share "$DEV0" "$SHARE" "$CG" \
	> "$RESULTS/$T-share.log" 2>&1 || rc=$?
cat "$RESULTS/$T-share.log"
[ "$rc" -eq 0 ] || fail "user-limits.py share failed ($rc)"
grep -q '^ok   rdma.current at the share' "$RESULTS/$T-share.log" ||
	fail "the share was not checked"
rmdir "$CG"
one_rping after-share

netns_teardown
echo "PASS $T"
