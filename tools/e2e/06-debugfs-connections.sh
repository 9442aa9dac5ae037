#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-connection view in debugfs: while an rping between two
# namespaces runs, /sys/kernel/debug/softiwarp/DEV/connections shows one
# line per connected QP with the negotiated MPA parameters (revision 2,
# CRC both ways, Markers as asked) and whether RFC 8797 RPC-over-RDMA
# private data was seen (rping sends none). Markers are asked for by the
# server's device only, so the two lines must differ exactly there.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

cleanup() {
	ip netns pids swdA 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns pids swdB 2>/dev/null | xargs -r kill 2>/dev/null || true
	rdma link delete swdA0 2>/dev/null || true
	rdma link delete swdB0 2>/dev/null || true
	ip netns del swdA 2>/dev/null || true
	ip netns del swdB 2>/dev/null || true
}
trap cleanup EXIT
dmesg -C
ip netns add swdA
ip netns add swdB
ip link add vdA type veth peer name vdB
ip link set vdA netns swdA
ip link set vdB netns swdB
ip -n swdA addr add 10.66.0.1/24 dev vdA
ip -n swdB addr add 10.66.0.2/24 dev vdB
ip -n swdA link set vdA up
ip -n swdB link set vdB up
ip netns exec swdA rdma link add swdA0 type softiwarp netdev vdA
ip netns exec swdB rdma link add swdB0 type softiwarp netdev vdB
echo 1 > /sys/class/infiniband/swdA0/mpa_markers
ip netns exec swdA timeout 120 rping -s -a 10.66.0.1 -C 400 -S 100 \
	> "$RESULTS/06-server.log" 2>&1 &
sleep 1
ip netns exec swdB timeout 120 rping -c -a 10.66.0.1 -C 400 -S 100 \
	> "$RESULTS/06-client.log" 2>&1 &
client=$!
d=/sys/kernel/debug/softiwarp
seen=0
for _ in $(seq 100); do
	cat $d/swdA0/connections $d/swdB0/connections > "$RESULTS/06-conn.txt"
	if grep -q responder "$RESULTS/06-conn.txt" &&
	   grep -q initiator "$RESULTS/06-conn.txt"; then
		seen=1
		break
	fi
	sleep 0.1
done
cat "$RESULTS/06-conn.txt"
[ "$seen" = 1 ]
# Server (responder) asked for Markers: it receives them, the client sends.
grep -q 'responder rev 2 crc tx/rx 1/1 markers tx/rx 0/1 .*rpcrdma_peer=none' \
	"$RESULTS/06-conn.txt"
grep -q 'initiator rev 2 crc tx/rx 1/1 markers tx/rx 1/0 .*rpcrdma_peer=none' \
	"$RESULTS/06-conn.txt"
wait $client
rping_logs_clean "$RESULTS/06-client.log"
trap - EXIT
cleanup
rmmod softiwarp
dmesg > "$RESULTS/06-debugfs-connections.dmesg"
dmesg_clean "$RESULTS/06-debugfs-connections.dmesg"
