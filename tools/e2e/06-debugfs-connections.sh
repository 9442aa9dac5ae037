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

T=06-debugfs-connections
NS0=swdA NS1=swdB           # server side, client side
DEV0=swdA0 DEV1=swdB0       # softiwarp device in NS0, in NS1
IP0=10.66.0.1 IP1=10.66.0.2
. "$(dirname "$0")/netns-lib.sh"

netns_setup
echo 1 > "/sys/class/infiniband/$DEV0/mpa_markers"
ip netns exec "$NS0" timeout 120 rping -s -a "$IP0" -C 400 -S 100 \
	> "$RESULTS/06-server.log" 2>&1 &
server=$!
bg_pids=("$server")
sleep 1
ip netns exec "$NS1" timeout 120 rping -c -a "$IP0" -C 400 -S 100 \
	> "$RESULTS/06-client.log" 2>&1 &
client=$!
bg_pids+=("$client")
d=/sys/kernel/debug/softiwarp
seen=0
for _ in $(seq 100); do
	cat "$d/$DEV0/connections" "$d/$DEV1/connections" > "$RESULTS/06-conn.txt"
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
# The server's exit is not checked; what is left of it is stopped.
kill "$server" 2>/dev/null || true
wait "$server" || true
bg_pids=()
netns_teardown
echo "PASS $T"
