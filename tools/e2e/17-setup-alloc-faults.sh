#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory pressure during connection setup: every allocation softiwarp
# makes to set up a connection fails in turn, and each failure must end in
# a clean error for the consumer, never a hang, a crash or a leak.
#
# debugfs softiwarp/fail_setup_alloc (dev/fault.c) fails the N-th setup
# allocation from the moment it is armed: the endpoint, the MPA frame
# buffers, the private data copy, the socket, the listener, the stream and
# its queues. Both devices live in this guest, so one rping connection
# counts the allocations of both sides, initiator and responder.
#
#   connect   a persistent rping server (rping -s -P) in NS0; for N = 1,
#             2, ... one rping client (-V, 3 iterations) with the N-th
#             allocation failing, until N goes beyond what one connection
#             allocates. Each attempt must end with a client error (the
#             failure hit) or with all iterations verified; a fresh client
#             must then pass, proving the server and both devices
#             survived. (rping never exits after a failed rdma_connect():
#             that is accepted when it printed the error and none of its
#             threads waits in the kernel but for its next event.)
#   listen    rping -s with the first, then the second allocation of
#             rdma_listen() failing: the server must report the error and
#             exit; a listen afterwards works.
#
# Then the device counters of failed connections are checked, the devices
# and the module removed (a leaked reference fails rmmod), and the kernel
# log must be clean. On the debug kernel, make e2e's guest runs kmemleak
# after all tests (tools/guest/e2e.sh).
# timeout: 600
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=17-setup-alloc-faults
NS0=swns0 NS1=swns1
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
PORT=7174
FAULT=/sys/kernel/debug/softiwarp/fail_setup_alloc
MAXN=60                     # more than one connection ever allocates
. "$(dirname "$0")/netns-lib.sh"

# injected: how many failures were injected so far (second field)
injected() {
	cut -d' ' -f2 "$FAULT"
}

# wchans PID: the kernel functions the threads of PID wait in
wchans() {
	local t w=""
	for t in /proc/"$1"/task/*; do
		w+="$(cat "$t/wchan" 2>/dev/null) "
	done
	echo "$w"
}

# running PID: PID exists and has not exited (a zombie has)
running() {
	[ -e "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat"
}

# kernel_waits "WCHANS": true when a thread waited anywhere but in the
# syscalls an idle rping sits in (futexes, poll, the event reads of
# rdma_cm and of its completion channel): a hang in the kernel, not in
# rping
kernel_waits() {
	local w
	for w in $1; do
		case $w in
		futex_* | do_sys_poll | ep_poll | ucma_get_event | \
		ib_uverbs_event_read* | \
		do_select | hrtimer_nanosleep | 0) ;;
		*) return 0 ;;
		esac
	done
	return 1
}

# client TAG: one rping client, 3 verified iterations; sets crc (124: it
# did not end and was killed), n (iterations) and stuck (the kernel
# functions its threads waited in, when it did not end). A client that has
# printed an error and whose threads have all sat in idle waits for 2 s
# (times E2E_SLOW) is taken for the rping that never exits after a failed
# rdma_connect(); any other client gets 20 s.
client() {
	local log="$RESULTS/$T-$1.log" pid i idle=0

	crc=0 stuck=""
	ip netns exec "$NS1" rping -c -a "$IP0" -p "$PORT" -V -v -C 3 \
		-S 1000 > "$log" 2>&1 &
	pid=$!
	for i in $(seq "$(e2e_scale_time 40)"); do
		running "$pid" || break
		sleep 0.5
		if ! tool_log_clean "$log" > /dev/null &&
			! kernel_waits "$(wchans "$pid")"; then
			idle=$((idle + 1))
			[ "$idle" -lt "$(e2e_scale_time 4)" ] || break
		else
			idle=0
		fi
	done
	if running "$pid"; then
		stuck=$(wchans "$pid")
		if kill -9 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
			crc=124
		else	# it ended on its own between the look and the kill
			stuck=""
			wait "$pid" || crc=$?
		fi
	else
		wait "$pid" || crc=$?
	fi
	n=$(grep -c '^ping data: rdma-ping-' "$log" || true)
}

netns_setup
[ -w "$FAULT" ] || fail "no $FAULT"
echo 0 > "$FAULT"

# --- connect: fail allocation 1, 2, ... of one connection ---------------
slog="$RESULTS/$T-server.log"
ip netns exec "$NS0" rping -s -P -a "$IP0" -p "$PORT" -V -S 1000 \
	> "$slog" 2>&1 &
spid=$!
bg_pids=("$spid")
wait_listen "$NS0" "$PORT"
client first
[ "$crc" -eq 0 ] && [ "$n" -eq 3 ] || fail "no clean connection to start with"

hit=0
for N in $(seq "$MAXN"); do
	before=$(injected)
	echo "$N" > "$FAULT"
	client "fail$N"
	left=$(cut -d' ' -f1 "$FAULT")
	echo 0 > "$FAULT"
	if [ "$crc" -eq 124 ]; then
		# rping's own teardown after a failed rdma_connect() never
		# ends (its CM thread waits on): acceptable once it printed
		# the error, as long as no thread is stuck in the kernel
		echo "allocation $N: rping did not exit; threads waited in: $stuck"
		! kernel_waits "$stuck" ||
			fail "allocation $N: rping stuck in the kernel: $stuck"
		tool_log_clean "$RESULTS/$T-fail$N.log" &&
			fail "allocation $N: rping hung without reporting an error"
	fi
	if [ "$(injected)" -eq "$before" ]; then
		# one connection makes fewer than N setup allocations
		[ "$left" -gt 0 ] || fail "allocation $N: countdown reached 0, no failure counted"
		[ "$crc" -eq 0 ] && [ "$n" -eq 3 ] ||
			fail "allocation $N: nothing injected, yet the client failed ($crc, $n)"
		break
	fi
	hit=$((hit + 1))
	echo "allocation $N failed: client exit $crc, $n iterations"
	if [ "$crc" -eq 0 ]; then
		# a failure on a path with a fallback must not cost data
		[ "$n" -eq 3 ] || fail "allocation $N: client exit 0 after $n iterations"
	fi
	kill -0 "$spid" 2>/dev/null || fail "allocation $N: the rping server died"
	client "after$N"
	[ "$crc" -eq 0 ] && [ "$n" -eq 3 ] ||
		fail "after allocation $N: a fresh client failed ($crc, $n iterations)"
done
[ "$hit" -ge 5 ] || fail "only $hit setup allocations were hit"
[ "$N" -lt "$MAXN" ] || fail "still failing connections at allocation $MAXN"
echo "connect: $hit setup allocations failed in turn, each cleanly"
kill "$spid"
wait "$spid" || true
bg_pids=()

# --- listen: rdma_listen() with its first or second allocation failing ---
for N in 1 2; do
	before=$(injected)
	echo "$N" > "$FAULT"
	lrc=0
	timeout 30 ip netns exec "$NS0" \
		rping -s -a "$IP0" -p "$((PORT + N))" -C 1 \
		> "$RESULTS/$T-listen$N.log" 2>&1 || lrc=$?
	echo 0 > "$FAULT"
	[ "$(injected)" -gt "$before" ] || fail "listen: allocation $N not hit"
	[ "$lrc" -ne 0 ] && [ "$lrc" -ne 124 ] ||
		fail "listen: allocation $N failed, yet rping -s exited $lrc"
	grep -q 'rdma_listen' "$RESULTS/$T-listen$N.log" ||
		fail "listen: rping -s did not report the failed rdma_listen"
done
# and a listen now works
ip netns exec "$NS0" rping -s -a "$IP0" -p "$PORT" -V -C 3 -S 1000 \
	> "$slog" 2>&1 &
spid=$!
bg_pids=("$spid")
wait_listen "$NS0" "$PORT"
client last
src=0
wait "$spid" || src=$?
bg_pids=()
[ "$crc" -eq 0 ] && [ "$n" -eq 3 ] || fail "the last client failed ($crc, $n)"
rping_server_ok "$src" "$slog" || fail "the last server exited $src"

echo "injected in all: $(injected)"
timeout 10 rdma statistic show link "$DEV0/1" > "$RESULTS/$T-stats0.txt" || true
timeout 10 rdma statistic show link "$DEV1/1" > "$RESULTS/$T-stats1.txt" || true
netns_teardown
echo "PASS: $T"
