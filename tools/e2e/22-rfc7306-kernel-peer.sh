#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RFC 7306 on the wire against a kernel QP: softiwarp takes Immediate Data
# and the Atomic messages on kernel QPs only, so tools/mpa-peer's
# rfc7306-kernel cases (tools/mpa-peer/ext_cases.py) connect to
# nvmet-rdma, whose QPs are the kernel's, with the NVMe/RDMA CM private
# data it checks, and send one malformed Immediate Data or Atomic message
# each: the Terminate RFC 7306 section 8 and RFC 5040/5041 name, the
# message's DDP header copied (section 8.1 rule 2), then the close.
#
#   the target  nvmet-rdma on a RAM disk, on softiwarp device swk over
#               veth swk0 in the initial namespace (nvmet-rdma takes
#               cm_ids there only), 10.78.0.1:4420;
#   the peer    mpa-peer in NS1 on the plain other end, swk1, 10.78.0.2.
#
# Fails if a case fails or is skipped, if fewer than the table's cases
# ran, if the target no longer serves a kernel host (nvme-rdma connects
# from the initial namespace, 1 MiB written and read back equal), or on a
# kernel splat. Debian's images have nvmet-rdma and nvme-rdma as modules,
# the test kernels built in.
#
# timeout: 300
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=$(basename "$0" .sh)
NS0=swns0 NS1=swns1         # NS0 unused: the target is in the initial one
DEV0=swk DEV1=swi1          # DEV1 unused: the peer is plain TCP
IPK=10.78.0.1 IPP=10.78.0.2
NQN=nqn.2026-12.org.softiwarp:rfc7306
PEER=$(cd "$(dirname "$0")/../mpa-peer" && pwd)/mpa-peer
. "$(dirname "$0")/netns-lib.sh"

kt_cleanup() {
	local ctl

	set +e
	for ctl in $(nvme_rdma_ctl "$NQN"); do
		echo 1 > "/sys/class/nvme-fabrics/ctl/$ctl/delete_controller"
	done
	nvmet_rdma_target_remove 7 "$NQN"
	ip link del swk0 2>/dev/null
}
trap 'rc=$?; kt_cleanup; (exit $rc); cleanup' EXIT

"$(dirname "$PEER")/selftest"
ip netns del "$NS1" 2>/dev/null || true
modprobe -r softiwarp 2>/dev/null || true
dmesg -C
ip netns add "$NS1"
ip link add swk0 type veth peer name swk1 netns "$NS1"
in_ns "$NS1" ip link set lo up
in_ns "$NS1" ip addr add "$IPP/24" dev swk1
in_ns "$NS1" ip link set swk1 up
ip addr add "$IPK/24" dev swk0
ip link set swk0 up
rdma link add "$DEV0" type softiwarp netdev swk0
for _ in $(seq 50); do
	port_active "$DEV0" && break
	sleep 0.2
done
port_active "$DEV0" || fail "$DEV0 port not ACTIVE"
nvmet_rdma_target "$IPK" 7 "$NQN"
for _ in $(seq 50); do
	ss -ltn | grep -q "$IPK:4420" && break
	sleep 0.2
done

plog="$RESULTS/$T-peer.log"
prc=0
n=$("$PEER" --list | grep -c '(kernel QP: --kernel)')
timeout 200 ip netns exec "$NS1" "$PEER" --role initiator --kernel --all \
	--target "$IPK:4420" --wait "$(e2e_scale_time 5)" > "$plog" 2>&1 ||
	prc=$?
grep -h '^fail \|^skip \|^summary:' "$plog" || true
[ "$prc" -eq 0 ] || fail "a case failed (see $plog)"
np=$(grep -c '^pass ' "$plog" || true)
[ "$np" -eq "$n" ] || fail "$np of the $n kernel cases passed (see $plog)"

# the target still serves a kernel host
nvme_rdma_rw "$IPK" "$NQN" 1 1 || fail "nvme-rdma host after the cases"
nvmet_rdma_target_remove 7 "$NQN"
rdma link delete "$DEV0"
ip link del swk0
for _ in $(seq 20); do
	rmmod softiwarp 2>/dev/null && break
	sleep 0.5
done
ip netns del "$NS1"
dmesg > "$RESULTS/$T.dmesg"
dmesg_clean "$RESULTS/$T.dmesg" ||
	fail "kernel log shows a warning (see $T.dmesg)"
echo "PASS $T ($np cases)"
