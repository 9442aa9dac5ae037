#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MPA startup variants between two softiwarp devices (two namespaces over
# veth), each an rping -V -C 10 that must complete:
#
#   rev1-client    the client initiates with revision 1 (RFC 5044 only)
#   rev1-server    a server set to initiate with revision 1 still answers
#                  the revision 2 Request in kind (RFC 6581 section 10)
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

T=07-mpa-variants
NS0=swvA NS1=swvB           # server side, client side
DEV0=swvA0 DEV1=swvB0       # softiwarp device in NS0, in NS1
IP0=10.55.0.1 IP1=10.55.0.2
. "$(dirname "$0")/netns-lib.sh"

netns_setup
S=/sys/class/infiniband/$DEV0 C=/sys/class/infiniband/$DEV1

variant() {	# NAME EXPECTED_REV EXPECTED_P2P
	local name=$1 rev=$2 p2p=$3 conn=$RESULTS/07-$1-conn.txt
	ip netns exec "$NS0" timeout "$(e2e_scale_time 60)" \
		rping -s -a "$IP0" -V -C 10 -S 1000 \
		> "$RESULTS/07-$name-server.log" 2>&1 &
	local srv=$!
	bg_pids=("$srv")
	sleep 1
	ip netns exec "$NS1" timeout "$(e2e_scale_time 60)" \
		rping -c -a "$IP0" -V -C 10 -S 1000 \
		-v > "$RESULTS/07-$name-client.log" 2>&1
	local rc=0
	wait $srv || rc=$?
	bg_pids=()
	rping_server_ok $rc "$RESULTS/07-$name-server.log"
	[ "$(grep -c 'ping data' "$RESULTS/07-$name-client.log")" = 10 ]
	rping_logs_clean "$RESULTS/07-$name-client.log" \
		"$RESULTS/07-$name-server.log"
	# A long run to read the negotiated revision back while connected
	# (shorter and with more time on the debug kernel: lib.sh E2E_SLOW)
	local long
	long=$(e2e_scale_count 3000)
	ip netns exec "$NS0" timeout "$(e2e_scale_time 60)" \
		rping -s -a "$IP0" -C "$long" -S 64 \
		> "$RESULTS/07-$name-long-server.log" 2>&1 &
	srv=$!
	bg_pids=("$srv")
	sleep 1
	ip netns exec "$NS1" timeout "$(e2e_scale_time 60)" \
		rping -c -a "$IP0" -C "$long" -S 64 \
		> "$RESULTS/07-$name-long.log" 2>&1 &
	local cli=$!
	bg_pids+=("$cli")
	: > "$conn"
	for _ in $(seq 100); do
		cat "/sys/kernel/debug/softiwarp/$DEV0/connections" \
			"/sys/kernel/debug/softiwarp/$DEV1/connections" > "$conn"
		grep -q initiator "$conn" && break
		sleep 0.1
	done
	wait $cli
	rc=0
	wait $srv || rc=$?
	bg_pids=()
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
# mpa_rev is what a side initiates with: a server set to 1 still answers
# the client's revision 2 Request in kind (RFC 6581 section 10)
echo 1 > $S/mpa_rev
variant rev1-server 2 1
echo 1 > $S/mpa_p2p; echo 1 > $C/mpa_p2p
variant p2p 2 1
variant p2p-default 2 1
echo 0 > $C/mpa_p2p
variant no-p2p 2 0
netns_teardown
echo "PASS $T"
