#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults under traffic, data verified. Two softiwarp devices in two
# namespaces over a veth pair (the setup of 03-netns-rping.sh), and netem
# on both ends of the pair: 1 % and 5 % loss, reordering, delay with
# jitter, duplication. Under each, rping -V (every octet of every
# iteration compared) and ib_read_bw (many outstanding RDMA Reads, so the
# IRD and ORD bookkeeping runs while TCP retransmits) must complete without
# an error line: TCP hides the faults, and nothing above it may notice
# more than a delay. Then the link goes down for three seconds in the
# middle of an rping: both ends must come back (the port events change no
# QP; TCP retransmits), or, if not, end with an error, never hang; a
# fresh rping afterwards must pass. Last, the kernel log must be clean
# (no WARN, no splat; a Terminate would mean a fault reached RDMAP).
#
# timeout: 600
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=12-faults
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174
PERF_PORT=18515
COUNT=40                    # rping iterations per fault
RPING_SERVER_SECS=200 RPING_CLIENT_SECS=180 # rping_pair's timeouts
RPING_LOG_TAG=rping         # rping_pair's logs: $T-TAG-rping-*.log
. "$(dirname "$0")/netns-lib.sh"

# netem SPEC...: the same netem qdisc on both ends ("none": remove it)
netem() {
	local ns dev
	for ns in "$NS0:veth0" "$NS1:veth1"; do
		dev=${ns#*:}
		ns=${ns%%:*}
		in_ns "$ns" tc qdisc del dev "$dev" root 2>/dev/null || true
		[ "$1" = none ] || in_ns "$ns" tc qdisc add dev "$dev" root netem "$@"
	done
}

# read_run TAG: ib_read_bw, 64 KiB, 100 iterations, must end with its row
read_run() {
	local tag=$1
	local slog="$RESULTS/$T-$tag-read-server.log"
	local clog="$RESULTS/$T-$tag-read-client.log"
	local spid crc=0 src=0

	timeout 200 ip netns exec "$NS0" ib_read_bw -R -F -d "$DEV0" \
		-p "$PERF_PORT" -s 65536 -n 100 > "$slog" 2>&1 &
	spid=$!
	bg_pids=("$spid")
	wait_listen "$NS0" "$PERF_PORT"
	timeout 180 ip netns exec "$NS1" ib_read_bw -R -F -d "$DEV1" \
		-p "$PERF_PORT" -s 65536 -n 100 "$IP0" > "$clog" 2>&1 || crc=$?
	wait "$spid" || src=$?
	bg_pids=()
	echo "ib_read_bw $tag: client $crc server $src"
	[ "$crc" -eq 0 ] || fail "$tag: ib_read_bw client exited $crc (see $clog)"
	[ "$src" -eq 0 ] || fail "$tag: ib_read_bw server exited $src (see $slog)"
	grep -qE '^ *65536 +100 +' "$clog" || fail "$tag: no result row (see $clog)"
	tool_log_clean "$clog" "$slog" || fail "$tag: ib_read_bw printed an error"
}

netns_setup
start=$SECONDS

faults=(
	"loss1:loss 1%"
	"loss5:loss 5%"
	"reorder:delay 5ms reorder 25% 50%"
	"jitter:delay 10ms 5ms"
	"duplicate:duplicate 3%"
)
for f in "${faults[@]}"; do
	tag=${f%%:*}
	# shellcheck disable=SC2086 # the netem options are words
	netem ${f#*:}
	rping_pair "$tag" "$IP0" "$RPING_PORT" 16384 "$COUNT"
	read_run "$tag"
	netem none
done
echo "netem faults took $((SECONDS - start)) s"

# --- link down and up in the middle of an rping ----------------------------
slog="$RESULTS/$T-flap-rping-server.log"
clog="$RESULTS/$T-flap-rping-client.log"
timeout 200 ip netns exec "$NS0" rping -s -a "$IP0" -V -C 400 -S 4096 \
	> "$slog" 2>&1 &
spid=$!
bg_pids=("$spid")
wait_listen "$NS0" "$RPING_PORT"
timeout 180 ip netns exec "$NS1" rping -c -a "$IP0" -V -v -C 400 -S 4096 \
	> "$clog" 2>&1 &
cpid=$!
bg_pids=("$spid" "$cpid")
for _ in $(seq 100); do
	[ "$(grep -c '^ping data' "$clog" || true)" -ge 20 ] && break
	sleep 0.1
done
before=$(grep -c '^ping data' "$clog" || true)
[ "$before" -ge 1 ] || fail "flap: rping made no progress before the flap"
in_ns "$NS1" ip link set veth1 down
sleep 3
in_ns "$NS1" ip link set veth1 up
crc=0 src=0
wait "$cpid" || crc=$?
wait "$spid" || src=$?
bg_pids=()
n=$(grep -c '^ping data' "$clog" || true)
echo "flap: client $crc server $src, iterations $before before, $n in all"
# 124: timeout(1) killed it, i.e. a hang
[ "$crc" -ne 124 ] || fail "flap: rping client hung (see $clog)"
[ "$src" -ne 124 ] || fail "flap: rping server hung (see $slog)"
if [ "$crc" -eq 0 ]; then
	[ "$n" -eq 400 ] || fail "flap: client succeeded after $n of 400"
	grep -qi mismatch "$clog" "$slog" && fail "flap: data mismatch"
fi
for _ in $(seq 50); do
	port_active "$DEV0" && port_active "$DEV1" && break
	sleep 0.2
done
port_active "$DEV1" || fail "$DEV1 port not ACTIVE after the link came back"
rping_pair after-flap "$IP0" "$RPING_PORT" 4096 "$COUNT"

netns_teardown
grep -q 'Terminate' "$RESULTS/$T.dmesg" &&
	fail "a fault reached RDMAP: Terminate in the kernel log (see $T.dmesg)"
echo "PASS $T"
