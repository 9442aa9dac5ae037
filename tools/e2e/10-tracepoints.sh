#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The trace events of Documentation/tracing.rst, end to end: with
# events/softiwarp enabled in tracefs, one rping between two softiwarp
# devices in two namespaces (set up as in 03-netns-rping) must leave in
# the trace
#
#   - an MPA Request sent and received, and a Reply sent and received,
#     each pair with the same parameters and mirrored addresses;
#   - a cm_outcome "established" for the initiator and for the responder;
#   - on both QPs the move to RTS (LLP_UP) and the way out of it, ending
#     in ERROR or IDLE.
#
# Then three plain TCP clients (python3) send the listener a bad MPA
# Request each: a wrong key, a PD_Length above 512 and revision 3. Each
# must leave an mpa_input_rejected event with its reason and a
# cm_outcome "failed"; a last rping must still connect through the same
# listener. Tracing is switched off again at the end (also on failure).
#
# Runs in the test guest (tools/guest/e2e.sh), as root; logs and the
# traces in $RESULTS.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=10-tracepoints
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1         # softiwarp device in NS0, in NS1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174             # rping's default port
TR=/sys/kernel/tracing
EVENTS="mpa_request_sent mpa_request_recv mpa_reply_sent mpa_reply_recv
	mpa_input_rejected cm_outcome qp_state term_sent term_recv rx_refused"
. "$(dirname "$0")/netns-lib.sh"

trace_off() {
	[ -e $TR/events/softiwarp/enable ] &&
		echo 0 > $TR/events/softiwarp/enable
	[ -e $TR/trace ] && echo > $TR/trace
	return 0
}
trap 'rc=$?; trace_off; (exit $rc); cleanup' EXIT

# trace_save NAME: the trace so far into $RESULTS/$T-NAME.trace, then empty
trace_save() {
	cat $TR/trace > "$RESULTS/$T-$1.trace"
	echo > $TR/trace
	echo "trace $1: $(grep -vc '^#' "$RESULTS/$T-$1.trace") events"
}

# one EVENT FILE: the one line of EVENT in FILE, without the ftrace prefix
one() {
	local n
	n=$(grep -c " $1: " "$2" || true)
	[ "$n" -eq 1 ] || fail "$n $1 events in $2, expected 1"
	grep " $1: " "$2" | sed "s/.* $1: //"
}

# params LINE: the frame's parameters, without the addresses
params() {
	sed 's/^.* -> [^ ]* //' <<<"$1"
}

# addrs LINE: "LOCAL REMOTE" of an event line
addrs() {
	sed 's/^\([^ ]*\) -> \([^ ]*\) .*/\1 \2/' <<<"$1"
}

# mirrored A B: A's local address is B's remote one and the other way
mirrored() {
	local a b
	read -r -a a <<<"$(addrs "$1")"
	read -r -a b <<<"$(addrs "$2")"
	[ "${a[0]}" = "${b[1]}" ] && [ "${a[1]}" = "${b[0]}" ]
}

# rping_once TAG [HOOK]: one rping, 5 iterations, data verified, both
# exit 0; HOOK runs when the server listens, before the client starts
rping_once() {
	local tag=$1 hook=${2:-true} spid crc=0 src=0
	local slog="$RESULTS/$T-$tag-server.log" clog="$RESULTS/$T-$tag-client.log"

	timeout 60 ip netns exec "$NS0" rping -s -a "$IP0" -V -C 5 \
		> "$slog" 2>&1 &
	spid=$!
	bg_pids=("$spid")
	wait_listen "$NS0" "$RPING_PORT"
	kill -0 "$spid" 2>/dev/null || fail "$tag: rping server died (see $slog)"
	"$hook"
	timeout 60 ip netns exec "$NS1" rping -c -a "$IP0" -V -C 5 \
		> "$clog" 2>&1 || crc=$?
	wait "$spid" || src=$?
	bg_pids=()
	[ "$crc" -eq 0 ] || fail "$tag: rping client exited $crc (see $clog)"
	rping_server_ok "$src" "$slog" ||
		fail "$tag: rping server exited $src (see $slog)"
	rping_logs_clean "$clog" "$slog" || fail "$tag: rping printed an error"
}

# closed FILE: both QPs went to RTS and out of it, to ERROR or IDLE
closed() {
	[ "$(grep -c ' qp_state: .* -> RTS event=LLP_UP' "$1")" -eq 2 ] &&
	[ "$(grep -cE ' qp_state: .* RTS -> (CLOSING|TERMINATE|ERROR) ' "$1")" -eq 2 ] &&
	[ "$(grep -cE ' qp_state: .* -> (ERROR|IDLE) ' "$1")" -ge 2 ]
}

# bad_request NAME HEX: a plain TCP client sends the listener the octets
# HEX as its MPA Request and waits for the connection to be closed
bad_request() {
	in_ns "$NS1" python3 - "$IP0" "$RPING_PORT" "$2" <<'EOF' ||
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
s.sendall(bytes.fromhex(sys.argv[3]))
while s.recv(64):
    pass
print("closed by the listener")
EOF
		fail "$1: the listener did not close the connection"
}

# --- setup -------------------------------------------------------------
netns_setup
[ -e $TR/trace ] || mount -t tracefs nodev $TR
echo 0 > $TR/tracing_on
echo > $TR/trace
echo 4096 > $TR/buffer_size_kb
for e in $EVENTS; do
	[ -e "$TR/events/softiwarp/$e/enable" ] || fail "no trace event softiwarp:$e"
done
# Every enum in a print format was replaced by its value at module load
# (TRACE_DEFINE_ENUM): tools that decode the raw trace (trace-cmd) need it.
cat $TR/events/softiwarp/*/format > "$RESULTS/$T-formats.txt"
if grep '^print fmt' "$RESULTS/$T-formats.txt" | grep -E '\{ [A-Za-z_]'; then
	fail "an enum name left in a print format (see $T-formats.txt)"
fi
echo 1 > $TR/events/softiwarp/enable
echo 1 > $TR/tracing_on

# --- one rping: connection setup and teardown ----------------------------
rping_once rping
# The close runs on after rping exits; wait for both QPs to be out of RTS.
for _ in $(seq 50); do
	closed $TR/trace && break
	sleep 0.2
done
trace_save rping
f="$RESULTS/$T-rping.trace"

req_s=$(one mpa_request_sent "$f")
req_r=$(one mpa_request_recv "$f")
rep_s=$(one mpa_reply_sent "$f")
rep_r=$(one mpa_reply_recv "$f")
[ "$(params "$req_s")" = "$(params "$req_r")" ] ||
	fail "Request sent and received differ: '$req_s' / '$req_r'"
[ "$(params "$rep_s")" = "$(params "$rep_r")" ] ||
	fail "Reply sent and received differ: '$rep_s' / '$rep_r'"
mirrored "$req_s" "$req_r" || fail "Request addresses not mirrored"
mirrored "$rep_s" "$rep_r" || fail "Reply addresses not mirrored"
mirrored "$req_s" "$rep_s" || fail "Request and Reply of different connections"
[[ $req_s == *" rev=2 "*"rejected=0 enhanced=1 "* ]] ||
	fail "Request is not revision 2 with RFC 6581 data: $req_s"
[[ $rep_s == *"rejected=0 "* ]] || fail "Reply rejects: $rep_s"
[[ $(addrs "$req_r") == "$IP0:$RPING_PORT $IP1:"* ]] ||
	fail "Request received on the wrong addresses: $req_r"

grep -E ' cm_outcome: .* initiator established err=0 mpa_error=none ' "$f" ||
	fail "no cm_outcome established for the initiator"
grep -E ' cm_outcome: .* responder established err=0 mpa_error=none ' "$f" ||
	fail "no cm_outcome established for the responder"
# Both ends agree on what the Reply said
rev=$(sed 's/.* rev=\([0-9]*\) .*/\1/' <<<"$rep_s")
[ "$(grep -cE " cm_outcome: .* established .* rev=$rev " "$f")" -eq 2 ] ||
	fail "cm_outcome revisions differ from the Reply's ($rev)"
closed "$f" || fail "QP state changes missing: $(grep ' qp_state: ' "$f" || true)"
if grep -E ' (term_sent|term_recv|rx_refused|mpa_input_rejected): ' "$f"; then
	fail "an error event in a clean rping"
fi

# --- bad MPA Requests from a plain TCP client ----------------------------
# Key (16 octets) | M C R H Res Rev (2) | PD_Length (2)
key=$(printf 'MPA ID Req Frame' | od -An -tx1 | tr -d ' \n')
bad() {	# NAME HEX REASON
	bad_request "$1" "$2"
	for _ in $(seq 25); do
		grep -q ' mpa_input_rejected: ' $TR/trace && break
		sleep 0.2
	done
	trace_save "$1"
	local f="$RESULTS/$T-$1.trace" line
	line=$(one mpa_input_rejected "$f")
	[[ $line == "$IP0:$RPING_PORT -> $IP1:"*" Request refused: $3 "* ]] ||
		fail "$1: expected '$3', got: $line"
	grep -E ' cm_outcome: .* responder failed err=-' "$f" ||
		fail "$1: no cm_outcome failed"
}
bad_all() {
	local garbage
	garbage=$(printf 'GARBAGE-GARBAGE!' | od -An -tx1 | tr -d ' \n')
	bad bad-key "${garbage}40020000" "bad key"
	bad pd-too-long "${key}40020300" "private data too long"
	bad bad-rev "${key}40030000" "bad revision"
	grep -E ' cm_outcome: .* mpa_error=invalid Request/Reply ' \
		"$RESULTS/$T-bad-rev.trace" ||
		fail "bad-rev: cm_outcome without the MPA error"
}
# The listener of one more rping takes the three, then serves its client.
rping_once after-bad bad_all
trace_save after-bad
grep -E ' cm_outcome: .* responder established ' \
	"$RESULTS/$T-after-bad.trace" ||
	fail "rping after the bad Requests did not connect"
trace_off

# --- teardown: every step must succeed ----------------------------------
netns_teardown
echo "PASS $T"
