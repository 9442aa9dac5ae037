#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two softiwarp devices talk to each other over a real TCP connection:
# two network namespaces joined by a veth pair, one softiwarp device on
# each end, rping between them. Proves that the connection manager sets up
# and tears down connections between namespaces, that SEND, RDMA READ and
# RDMA WRITE carry the right data (rping -V compares every buffer) at
# 64 B, 1000 B and the largest rping buffer (65535 B), and that the MPA
# negotiation knobs in sysfs work end to end:
#
#   crc-off                 mpa_crc=0 on both devices: no CRC on the wire
#   markers-client          mpa_markers=1 on the client's device only
#   markers-server          mpa_markers=1 on the server's device only
#   markers-both            mpa_markers=1 on both devices
#   markers-both-crc-off    Markers on both, CRC off on both
#
# Markers are per direction (RFC 5044 section 7.1.1, the M flag): a
# device that asks for them receives them, and a device whose peer asks
# sends them, so the one-sided cases exercise Marker insertion on one side
# and removal on the other. Then tools/e2e/late-recv.py (pyverbs): a
# receive posted to a user QP that is already in ERROR (the peer
# disconnected and the transition's flush is seen) must complete with a
# flush error too, as rping's client waits for at its disconnect. Ends
# with "rdma link delete", rmmod and a clean kernel log.
#
# Runs in the test guest (tools/guest/e2e.sh), as root; logs in $RESULTS.
# rdma-core shares RDMA devices across namespaces by default ("rdma system"
# netns shared), so both devices are visible in both namespaces; each is
# bound to the netdev of its own namespace.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=03-netns-rping
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1         # softiwarp device in NS0, in NS1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174             # rping's default port
COUNT=$(e2e_scale_count 100) # rping iterations per run
. "$(dirname "$0")/netns-lib.sh"

# --- setup -------------------------------------------------------------
netns_setup
timeout 10 rdma link show > "$RESULTS/$T-links.txt"
grep -H . /sys/module/softiwarp/parameters/* > "$RESULTS/$T-params.txt" 2>&1 || true

# --- defaults (CRC requested, no Markers), three sizes ------------------
for size in 64 1000 65535; do
	rping_pair "size$size" "$IP0" "$RPING_PORT" "$size" "$COUNT"
done

# --- MPA variants at 1000 octets ----------------------------------------
knob "$DEV0" mpa_crc 0
knob "$DEV1" mpa_crc 0
rping_pair crc-off "$IP0" "$RPING_PORT" 1000 "$COUNT"
knobs_default

knob "$DEV1" mpa_markers 1
rping_pair markers-client "$IP0" "$RPING_PORT" 1000 "$COUNT"
knobs_default

knob "$DEV0" mpa_markers 1
rping_pair markers-server "$IP0" "$RPING_PORT" 1000 "$COUNT"
knobs_default

knob "$DEV0" mpa_markers 1
knob "$DEV1" mpa_markers 1
rping_pair markers-both "$IP0" "$RPING_PORT" 1000 "$COUNT"

knob "$DEV0" mpa_crc 0
knob "$DEV1" mpa_crc 0
rping_pair markers-both-crc-off "$IP0" "$RPING_PORT" 1000 "$COUNT"
knobs_default

# --- a receive posted in ERROR is flushed -------------------------------
LR=$(dirname "$0")/late-recv.py
wait_unlisten "$NS0" 7175
timeout 60 ip netns exec "$NS0" "$LR" server "$IP0" 7175 \
	> "$RESULTS/$T-late-recv-server.log" 2>&1 &
spid=$!
bg_pids=("$spid")
wait_listen "$NS0" 7175
lrc=0
timeout 60 ip netns exec "$NS1" "$LR" client "$IP0" 7175 \
	> "$RESULTS/$T-late-recv-client.log" 2>&1 || lrc=$?
src=0
wait "$spid" || src=$?
bg_pids=()
cat "$RESULTS/$T-late-recv-server.log" "$RESULTS/$T-late-recv-client.log"
[ "$src" -eq 0 ] || fail "late-recv server exited $src"
[ "$lrc" -eq 0 ] || fail "late-recv client exited $lrc"
grep -q '^ok   the receive posted in ERROR: flushed' \
	"$RESULTS/$T-late-recv-client.log" || fail "late-recv: no flush"
tool_log_clean "$RESULTS/$T-late-recv-server.log" \
	"$RESULTS/$T-late-recv-client.log" || fail "late-recv printed an error"

# --- teardown: every step must succeed ----------------------------------
netns_teardown
echo "PASS $T"
