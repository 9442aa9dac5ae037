#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MPA startup variants between two softiwarp devices (two namespaces over
# veth), each an rping -V -C 10 that must complete:
#
#   rev1-client    the client initiates with revision 1 (RFC 5044 only)
#   rev1-server    the server answers a revision 2 Request as revision 1,
#                  and the initiator carries on as revision 1
#   p2p            RFC 6581 peer-to-peer mode asked on both: the initiator
#                  sends a zero-length RDMA Write as Ready-To-Receive
#   p2p-default    the defaults: the initiator asks for peer-to-peer mode
#                  (mpa_p2p=1), the responder takes it
#   no-p2p         the initiator does not ask (mpa_p2p=0): the responder
#                  holds its FPDUs until the first one arrives
#
# The negotiated revision and peer-to-peer mode are read back from debugfs
# while the connection is up.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

cleanup() {
	ip netns pids swvA 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns pids swvB 2>/dev/null | xargs -r kill 2>/dev/null || true
	rdma link delete swvA0 2>/dev/null || true
	rdma link delete swvB0 2>/dev/null || true
	ip netns del swvA 2>/dev/null || true
	ip netns del swvB 2>/dev/null || true
}
trap cleanup EXIT
dmesg -C
ip netns add swvA
ip netns add swvB
ip link add vvA type veth peer name vvB
ip link set vvA netns swvA
ip link set vvB netns swvB
ip -n swvA addr add 10.55.0.1/24 dev vvA
ip -n swvB addr add 10.55.0.2/24 dev vvB
ip -n swvA link set vvA up
ip -n swvB link set vvB up
ip netns exec swvA rdma link add swvA0 type softiwarp netdev vvA
ip netns exec swvB rdma link add swvB0 type softiwarp netdev vvB
S=/sys/class/infiniband/swvA0 C=/sys/class/infiniband/swvB0

variant() {	# NAME EXPECTED_REV EXPECTED_P2P
	local name=$1 rev=$2 p2p=$3 conn=$RESULTS/07-$1-conn.txt
	ip netns exec swvA timeout "$(e2e_scale_time 60)" \
		rping -s -a 10.55.0.1 -V -C 10 -S 1000 \
		> "$RESULTS/07-$name-server.log" 2>&1 &
	local srv=$!
	sleep 1
	ip netns exec swvB timeout "$(e2e_scale_time 60)" \
		rping -c -a 10.55.0.1 -V -C 10 -S 1000 \
		-v > "$RESULTS/07-$name-client.log" 2>&1
	local rc=0
	wait $srv || rc=$?
	rping_server_ok $rc "$RESULTS/07-$name-server.log"
	[ "$(grep -c 'ping data' "$RESULTS/07-$name-client.log")" = 10 ]
	rping_logs_clean "$RESULTS/07-$name-client.log" \
		"$RESULTS/07-$name-server.log"
	# A long run to read the negotiated revision back while connected
	# (shorter and with more time on the debug kernel: lib.sh E2E_SLOW)
	local long
	long=$(e2e_scale_count 3000)
	ip netns exec swvA timeout "$(e2e_scale_time 60)" \
		rping -s -a 10.55.0.1 -C "$long" -S 64 \
		> "$RESULTS/07-$name-long-server.log" 2>&1 &
	srv=$!
	sleep 1
	ip netns exec swvB timeout "$(e2e_scale_time 60)" \
		rping -c -a 10.55.0.1 -C "$long" -S 64 \
		> "$RESULTS/07-$name-long.log" 2>&1 &
	local cli=$!
	: > "$conn"
	for _ in $(seq 100); do
		cat /sys/kernel/debug/softiwarp/swv?0/connections > "$conn"
		grep -q initiator "$conn" && break
		sleep 0.1
	done
	wait $cli
	rc=0
	wait $srv || rc=$?
	rping_server_ok $rc "$RESULTS/07-$name-long-server.log"
	grep -q "initiator rev $rev .* p2p $p2p " "$conn"
	grep -q "responder rev $rev .* p2p $p2p " "$conn"
	rping_logs_clean "$RESULTS/07-$name-long.log" \
		"$RESULTS/07-$name-long-server.log"
	echo -1 > $S/mpa_rev; echo -1 > $C/mpa_rev
	echo -1 > $S/mpa_p2p; echo -1 > $C/mpa_p2p
}

echo 1 > $C/mpa_rev
variant rev1-client 1 0
echo 1 > $S/mpa_rev
variant rev1-server 1 0
echo 1 > $S/mpa_p2p; echo 1 > $C/mpa_p2p
variant p2p 2 1
variant p2p-default 2 1
echo 0 > $C/mpa_p2p
variant no-p2p 2 0
trap - EXIT
cleanup
rmmod softiwarp
dmesg > "$RESULTS/07-mpa-variants.dmesg"
dmesg_clean "$RESULTS/07-mpa-variants.dmesg"
