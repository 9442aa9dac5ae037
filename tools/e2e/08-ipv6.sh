#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 and the listeners of the connection manager, with rdma-core's and
# own tools between two softiwarp devices in two namespaces
# (the setup of 03-netns-rping.sh, plus IPv6 addresses):
#
#   global          rping -V, server on a global IPv6 address
#   linklocal       rping -V, server on its link-local address with the
#                   scope (fe80::...%veth0), client to fe80::...%veth1
#   any6            rping -V, server on the IPv6 wildcard
#   ucmatose        librdmacm's ucmatose, 4 connections, 64 KiB sends
#   rstream         rsockets over RDMA, 64 KiB transfers (Debian's
#                   perftest resolves rdma_cm addresses as IPv4 only)
#   both-any        an IPv4 and an IPv6 wildcard listener on one port at
#                   once (what nfsd does), a client to each
#   failed-listen   a listen that fails (the address is taken by a plain
#                   TCP socket) leaves a listener already running and one
#                   started afterwards working; the port works once freed
#   disconnect      every run above ends with rdma_disconnect() on both
#                   sides after the peer's close: no tool may print an
#                   error
#
# Ends with "rdma link delete", rmmod and a clean kernel log.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=08-ipv6
NS0=swns0 NS1=swns1
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
IP6_0=fd77::1 IP6_1=fd77::2
COUNT=50                    # rping iterations per run
SIZE=1000                   # rping buffer
. "$(dirname "$0")/netns-lib.sh"

# No duplicate address detection: the addresses are usable at once.
netns_tune() {
	in_ns "$NS0" sysctl -qw net.ipv6.conf.veth0.accept_dad=0
	in_ns "$NS1" sysctl -qw net.ipv6.conf.veth1.accept_dad=0
	in_ns "$NS0" ip -6 addr add "$IP6_0/64" dev veth0 nodad
	in_ns "$NS1" ip -6 addr add "$IP6_1/64" dev veth1 nodad
}

netns_setup
LL0=$(in_ns "$NS0" ip -6 -o addr show dev veth0 scope link |
	awk '{ sub("/.*", "", $4); print $4 }')
[ -n "$LL0" ] || fail "no link-local address on veth0"
in_ns "$NS1" busybox ping -c 1 -W 5 "$IP6_0"

# --- rping over IPv6 ------------------------------------------------------
rping_pair global "$IP6_0" 7301 "$SIZE" "$COUNT"
rping_pair linklocal "$LL0%veth0" 7302 "$SIZE" "$COUNT" "$LL0%veth1"
rping_pair any6 "::" 7303 "$SIZE" "$COUNT" "$IP6_0"

# --- bulk transfers over IPv6 -------------------------------------------
# Debian 12's perftest (4.5+0.17) resolves rdma_cm addresses as IPv4 only
# ("Address family for hostname not supported"), so rdma-core's own
# librdmacm tools move the data here: ucmatose (4 connections, 64 KiB
# sends both ways) and rstream (rsockets over RDMA, 64 KiB transfers).
# cm_pair TAG TOOL SERVER-ARGS -- CLIENT-ARGS
cm_pair() {
	local tag=$1 tool=$2 sargs=() cargs=() crc=0 src=0
	local slog="$RESULTS/$T-$1-server.log" clog="$RESULTS/$T-$1-client.log"
	shift 2
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	timeout 120 ip netns exec "$NS0" "$tool" "${sargs[@]}" > "$slog" 2>&1 &
	spid=$!
	bg_pids=("$spid")
	wait_listen "$NS0" 7310
	timeout 90 ip netns exec "$NS1" "$tool" "${cargs[@]}" > "$clog" 2>&1 ||
		crc=$?
	wait "$spid" || src=$?
	bg_pids=()
	echo "$tag over IPv6: client $crc server $src"
	[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] || fail "$tag over IPv6 failed"
	tool_log_clean "$clog" "$slog" || fail "$tag printed an error"
}
cm_pair ucmatose ucmatose -b "$IP6_0" -p 7310 -c 4 -C 50 -S 65536 -- \
	-s "$IP6_0" -p 7310 -c 4 -C 50 -S 65536
grep -q '^test complete' "$RESULTS/$T-ucmatose-client.log" ||
	fail "ucmatose: the client did not complete"
cm_pair rstream rstream -b "$IP6_0" -p 7310 -S 65536 -C 200 -- \
	-s "$IP6_0" -p 7310 -S 65536 -C 200
grep -qE '^custom +64k +200 ' "$RESULTS/$T-rstream-client.log" ||
	fail "rstream: no result row"

# --- the IPv4 and the IPv6 wildcard on one port ---------------------------
# rdma_cm lets an IPv6 wildcard share a port with the IPv4 one only when
# it is IPv6-only (bindv6only, or RDMA_OPTION_ID_AFONLY as svcrdma sets).
in_ns "$NS0" sysctl -qw net.ipv6.bindv6only=1
rping_server both-any-4 0.0.0.0 7320 "$SIZE" "$COUNT"
spid4=$spid
rping_server both-any-6 :: 7320 "$SIZE" "$COUNT"
spid6=$spid
rping_client both-any-6 "$IP6_0" 7320 "$SIZE" "$COUNT" "$spid6"
rping_client both-any-4 "$IP0" 7320 "$SIZE" "$COUNT" "$spid4"
in_ns "$NS0" sysctl -qw net.ipv6.bindv6only=0

# --- a failing listen disturbs no other -----------------------------------
rping_server failed-listen-before "$IP0" 7330 "$SIZE" "$COUNT"
spid_before=$spid
# A plain TCP socket holds [IP6_0]:7331; the RDMA listen there must fail.
ip netns exec "$NS0" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen()
time.sleep(60)' "$IP6_0" 7331 &
blocker=$!
bg_pids+=("$blocker")
wait_listen "$NS0" 7331
flog="$RESULTS/$T-failed-listen-refused.log"
if timeout 20 ip netns exec "$NS0" rping -s -a "$IP6_0" -p 7331 -C 1 \
	> "$flog" 2>&1; then
	fail "listen on a taken address succeeded (see $flog)"
fi
grep -q 'rdma_listen' "$flog" || fail "the listen did not fail in rdma_listen"
rping_server failed-listen-after "$IP6_0" 7332 "$SIZE" "$COUNT"
rping_client failed-listen-after "$IP6_0" 7332 "$SIZE" "$COUNT" "$spid"
rping_client failed-listen-before "$IP0" 7330 "$SIZE" "$COUNT" \
	"$spid_before"
kill "$blocker"
wait "$blocker" || true
bg_pids=()
rping_pair failed-listen-freed "$IP6_0" 7331 "$SIZE" "$COUNT"

# --- teardown -------------------------------------------------------------
netns_teardown
echo "PASS $T"
