#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device counters (Documentation/counters.rst) as "rdma statistic show
# link DEV/1" prints them, around rping runs between two softiwarp devices
# in two network namespaces (the setup of 03-netns-rping.sh):
#
#   default        FPDUs and octets sent and received and connections
#                  established move on both devices; what one device sent
#                  the other received, FPDU for FPDU and octet for octet;
#                  CRC errors, Terminates, MPA rejects and timeouts, failed
#                  connections and CQ overflows stay 0
#   markers-both   mpa_markers=1 on both devices: Markers sent and checked
#                  move on both, and one device's Markers sent are the
#                  other's Markers checked
#
# Every counter of the list below must be present on both devices; the
# output must be "link DEV/1" followed by name-value pairs, else the test
# fails. rdma statistic runs in the namespace that owns the device.
#
# Runs in the test guest (tools/guest/e2e.sh), as root; logs in $RESULTS.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=09-counters
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1         # softiwarp device in NS0, in NS1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174             # rping's default port
COUNT=20                    # rping iterations per run
SIZE=4096                   # rping buffer: one FPDU and more
run=""                      # the counted run (counted_run)
COUNTERS=(tx_fpdus rx_fpdus tx_octets rx_octets rx_crc_errors
	tx_markers rx_markers
	tx_terminate_rdmap tx_terminate_ddp tx_terminate_llp
	rx_terminate_rdmap rx_terminate_ddp rx_terminate_llp
	tx_mpa_rejects rx_mpa_rejects mpa_timeouts
	conn_established conn_failed wr_flushed cq_overflows)
# must not move in a run without errors
ERRORS=(rx_crc_errors tx_terminate_rdmap tx_terminate_ddp tx_terminate_llp
	rx_terminate_rdmap rx_terminate_ddp rx_terminate_llp
	tx_mpa_rejects rx_mpa_rejects mpa_timeouts conn_failed cq_overflows)
. "$(dirname "$0")/netns-lib.sh"

# parse_stats DEV < OUTPUT: "name value" lines out of what rdma statistic
# printed ("link DEV/1 name value name value ...", over one or several
# lines). Fails when "link DEV/1" is missing, a value is not a number or a
# name has no value.
parse_stats() {
	tr -s '[:space:]' '\n' | awk -v want="$1/1" '
		!found { if (prev == "link" && $0 == want) found = 1
			 prev = $0; next }
		name == "" { name = $0; next }
		$0 !~ /^[0-9]+$/ { bad = 1; exit }
		{ print name, $0; name = "" }
		END { exit (!found || bad || name != "") }'
}

# snapshot NS DEV TAG: the counters of DEV into $RESULTS/$T-DEV-TAG.txt,
# checked for every name of COUNTERS
snapshot() {
	local ns=$1 dev=$2 f="$RESULTS/$T-$2-$3.txt" c raw
	raw=$(in_ns "$ns" rdma statistic show link "$dev/1") ||
		fail "rdma statistic show link $dev/1 failed in $ns"
	echo "$raw" > "$f.raw"
	parse_stats "$dev" < "$f.raw" > "$f" ||
		fail "$dev: cannot parse rdma statistic output (see $f.raw)"
	for c in "${COUNTERS[@]}"; do
		grep -q "^$c [0-9]*\$" "$f" || fail "$dev: counter $c missing ($f.raw)"
	done
}

# val DEV TAG NAME: a counter out of a snapshot
val() {
	awk -v n="$3" '$1 == n { print $2 }' "$RESULTS/$T-$1-$2.txt"
}

# delta DEV NAME: how far NAME moved on DEV in run $run (its snapshots
# "$run-before" and "$run-after")
delta() {
	local b a
	b=$(val "$1" "$run-before" "$2")
	a=$(val "$1" "$run-after" "$2")
	[ -n "$b" ] && [ -n "$a" ] || fail "$1: counter $2 not read"
	echo $((a - b))
}

# moved NAME...: every NAME grew on both devices
moved() {
	local c d n
	for c in "$@"; do
		for d in "$DEV0" "$DEV1"; do
			n=$(delta "$d" "$c")
			echo "counter $d $c +$n"
			[ "$n" -gt 0 ] || fail "$d: $c did not move"
		done
	done
}

# stayed NAME...: no NAME moved on either device
stayed() {
	local c d n
	for c in "$@"; do
		for d in "$DEV0" "$DEV1"; do
			n=$(delta "$d" "$c")
			[ "$n" -eq 0 ] || fail "$d: $c moved by $n"
		done
	done
}

# mirrored TX RX: what one device counted as TX the other counted as RX
mirrored() {
	local tx=$1 rx=$2 a b
	a=$(delta "$DEV0" "$tx")
	b=$(delta "$DEV1" "$rx")
	[ "$a" -eq "$b" ] || fail "$DEV0 $tx +$a but $DEV1 $rx +$b"
	a=$(delta "$DEV1" "$tx")
	b=$(delta "$DEV0" "$rx")
	[ "$a" -eq "$b" ] || fail "$DEV1 $tx +$a but $DEV0 $rx +$b"
}

# counted_run TAG: snapshots around an rping run (server in NS0, client in
# NS1, $COUNT iterations of $SIZE with -V), then the common checks
counted_run() {
	run=$1
	snapshot "$NS0" "$DEV0" "$run-before"
	snapshot "$NS1" "$DEV1" "$run-before"
	rping_pair "$run" "$IP0" "$RPING_PORT" "$SIZE" "$COUNT"
	snapshot "$NS0" "$DEV0" "$run-after"
	snapshot "$NS1" "$DEV1" "$run-after"
	moved tx_fpdus rx_fpdus tx_octets rx_octets conn_established
	stayed "${ERRORS[@]}"
	mirrored tx_fpdus rx_fpdus
	mirrored tx_octets rx_octets
	mirrored tx_markers rx_markers
}

# --- setup -------------------------------------------------------------
netns_setup

# --- the parser itself: a good line, and ones it must refuse -----------
[ "$(echo "link swi9/1 a 1 b 22" | parse_stats swi9 | tr '\n' ,)" = "a 1,b 22," ] ||
	fail "parse_stats: good line misread"
! echo "link swi9/1 a 1 b" | parse_stats swi9 > /dev/null ||
	fail "parse_stats: a name without value accepted"
! echo "link swi8/1 a 1" | parse_stats swi9 > /dev/null ||
	fail "parse_stats: another device accepted"
! echo "link swi9/1 a x" | parse_stats swi9 > /dev/null ||
	fail "parse_stats: a non-number accepted"

# --- defaults: CRC on, no Markers ---------------------------------------
counted_run default
stayed tx_markers rx_markers

# --- Markers requested by both devices ----------------------------------
knob "$DEV0" mpa_markers 1
knob "$DEV1" mpa_markers 1
counted_run markers-both
moved tx_markers rx_markers
knobs_default

# --- teardown: every step must succeed ----------------------------------
netns_teardown
echo "PASS $T"
