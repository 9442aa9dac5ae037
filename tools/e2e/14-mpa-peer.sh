#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softiwarp against a hostile peer: tools/mpa-peer plays every case of its
# table in both roles (Documentation/mpa-peer.rst).
#
#   initiator   the peer, in NS1 on the plain veth, connects to a
#               persistent rping server (rping -s -P) on softiwarp in NS0:
#               good and bad MPA Requests, revision 0 with and without
#               mpa_permissive, hostile FPDUs in Full Operation (each
#               with the exact Terminate layer/etype/code, its copied
#               headers checked), FIN and RST at every point of a message
#               and in every QP state, the MPA startup timeouts and the
#               CLOSING timer (its expiry with ucmatose -C 0, which
#               disconnects at once and keeps its QP; with it too, FPDUs
#               after the module's FIN are still received);
#   responder   the peer listens in NS1; for each case an rping client on
#               softiwarp in NS0 connects to it and gets a hostile Reply or,
#               after a good one, hostile FPDUs, also with CRC off
#               (mpa_crc 0 on DEV0); the client's error output and exit
#               status are checked too.
#   Among them the checks of verify-then-place (an RDMA Write whose
#   payload octet or Marker was corrupted behind its CRC must leave the
#   server's buffer as it was: crc-flipped-*) and of exact Read Response
#   sinks (zero-length Read Responses: read-response-zero-length-*).
#
# Fails if a case fails, if fewer than 272 cases ran, if the rping server
# died or no longer serves a normal client afterwards, or on a kernel
# splat. mpa_timeout_ms and close_timeout_ms are set low so that the
# timeout cases take about two seconds each.
#
# timeout: 420
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=14-mpa-peer
NS0=swns0 NS1=swns1
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174
PEER_PORT=7300
TMO=1500                        # mpa_timeout_ms and close_timeout_ms
PEER=$(cd "$(dirname "$0")/../mpa-peer" && pwd)/mpa-peer
. "$(dirname "$0")/netns-lib.sh"

"$(dirname "$PEER")/selftest"

netns_setup
P=/sys/module/softiwarp/parameters
old_mpa=$(cat $P/mpa_timeout_ms) old_close=$(cat $P/close_timeout_ms)
echo $TMO > $P/mpa_timeout_ms
echo $TMO > $P/close_timeout_ms
start=$SECONDS

slog="$RESULTS/$T-rping-server.log"
timeout 400 ip netns exec "$NS0" rping -s -P -a "$IP0" > "$slog" 2>&1 &
spid=$!
bg_pids=("$spid")
wait_listen "$NS0" "$RPING_PORT"

ilog="$RESULTS/$T-initiator.log"
irc=0
timeout 300 ip netns exec "$NS1" "$PEER" --role initiator \
	--target "$IP0:$RPING_PORT" --all --knob-dev "$DEV0" \
	--wait "$(e2e_scale_time 5)" --mpa-timeout-ms $TMO --close-timeout-ms $TMO \
	--closer-cmd "ip netns exec $NS0 ucmatose -b $IP0 -p {port} -C 0" \
	> "$ilog" 2>&1 || irc=$?
echo "initiator role took $((SECONDS - start)) s"

rlog="$RESULTS/$T-responder.log"
rrc=0
timeout 300 ip netns exec "$NS1" "$PEER" --role responder \
	--listen $PEER_PORT --all --wait "$(e2e_scale_time 5)" \
	--knob-dev "$DEV0" --mpa-timeout-ms $TMO \
	--close-timeout-ms $TMO \
	--client-cmd "ip netns exec $NS0 rping -c -a $IP1 -p {port} -C 1 -V" \
	> "$rlog" 2>&1 || rrc=$?
echo "both roles took $((SECONDS - start)) s"

grep -h '^fail ' "$ilog" "$rlog" || true
grep -h '^summary:\|^categories:' "$ilog" "$rlog"

# the rping server survived all of it and serves a normal client
kill -0 "$spid" || fail "rping server died (see $slog)"
clog="$RESULTS/$T-rping-client.log"
timeout 60 ip netns exec "$NS1" rping -c -a "$IP0" -C 3 -V -v > "$clog" 2>&1 ||
	fail "a normal rping client failed after the hostile cases (see $clog)"
[ "$(grep -c '^ping data' "$clog")" -eq 3 ] || fail "rping client: no data"
kill "$spid"
wait "$spid" 2>/dev/null || true
bg_pids=()

echo "$old_mpa" > $P/mpa_timeout_ms
echo "$old_close" > $P/close_timeout_ms
[ "$irc" -eq 0 ] || fail "initiator role: a case failed (see $ilog)"
[ "$rrc" -eq 0 ] || fail "responder role: a case failed (see $rlog)"
ni=$(grep -c '^pass ' "$ilog" || true)
nr=$(grep -c '^pass ' "$rlog" || true)
echo "cases passed: initiator $ni, responder $nr"
[ $((ni + nr)) -ge 272 ] || fail "only $((ni + nr)) cases ran"
grep -q '^skip ' "$ilog" "$rlog" && fail "a case was skipped"
netns_teardown
echo "PASS $T"
