#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Removing the device while it carries traffic. Two softiwarp devices in
# two namespaces over a veth pair (the setup of 03-netns-rping.sh); 8
# rping connections (8 server and 8 client processes, each on its own
# port, every iteration verified) move data when
#   round 1: `rdma link delete` removes the server's device, then
#   round 2: `rmmod softiwarp` removes the module with both devices;
#   round 3: every rping process is killed mid-traffic,
#            then the devices and the module must go at once.
# The removals must finish within 60 s. They do because softiwarp offers
# disassociate_ucontext: the core destroys what the processes hold and
# the processes learn of it (RDMA_CM_EVENT_DEVICE_REMOVAL, EIO). The
# in-tree siw does not, and there `rdma link delete` waits until the
# processes exit by themselves. What is left after 20 s is killed and
# counted; a process that SIGKILL cannot end would be stuck in the
# kernel. After each round the module comes back and carries a fresh
# rping, and the kernel log must be clean at the end (no WARN, no splat,
# no leak report on a debug kernel).
#
# timeout: 400
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=13-remove-under-load
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
# 8 (2 on the debug kernel): 16 took twice as long under TCG, the 32
# processes starting while the first pairs already saturate both vCPUs
CONNS=$(e2e_scale_count 8)
BASE_PORT=7300
. "$(dirname "$0")/netns-lib.sh"

# start_load ROUND: CONNS rping pairs, long enough to outlast the round
start_load() {
	local i port
	bg_pids=()
	for i in $(seq "$CONNS"); do
		port=$((BASE_PORT + i))
		timeout 150 ip netns exec "$NS0" rping -s -a "$IP0" -p "$port" \
			-V -C 100000 -S 4096 > "$RESULTS/$T-$1-s$i.log" 2>&1 &
		bg_pids+=("$!")
	done
	for i in $(seq "$CONNS"); do
		wait_listen "$NS0" $((BASE_PORT + i))
	done
	for i in $(seq "$CONNS"); do
		port=$((BASE_PORT + i))
		timeout 140 ip netns exec "$NS1" rping -c -a "$IP0" -p "$port" \
			-V -v -C 100000 -S 4096 2>&1 |
			cut -c1-40 > "$RESULTS/$T-$1-c$i.log" &
		bg_pids+=("$!")
	done
	# every client has moved data
	for _ in $(seq 300); do
		local moving=0
		for i in $(seq "$CONNS"); do
			grep -q '^ping data' "$RESULTS/$T-$1-c$i.log" &&
				moving=$((moving + 1))
		done
		[ "$moving" -eq "$CONNS" ] && break
		sleep 0.2
	done
	echo "$1: $moving of $CONNS connections moving data"
	[ "$moving" -eq "$CONNS" ] || fail "$1: only $moving connections up"
	sleep 2
}

# reap ROUND: give the processes 20 s to end by themselves, then SIGKILL
# what is left; all must be gone within 10 s more (a process that a KILL
# cannot end is stuck in the kernel, i.e. in us)
reap() {
	local t0=$SECONDS left
	while pgrep -x rping > /dev/null && [ $((SECONDS - t0)) -lt 20 ]; do
		sleep 0.5
	done
	left=$(pgrep -cx rping || true)
	pkill -KILL -x rping || true
	for _ in $(seq 20); do
		pgrep -x rping > /dev/null || break
		sleep 0.5
	done
	echo "$1: $left rping processes left after 20 s, killed"
	pgrep -x rping && fail "$1: rping processes survive SIGKILL"
	for p in "${bg_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	bg_pids=()
	if grep -il mismatch "$RESULTS/$T-$1-"*.log; then
		fail "$1: data mismatch"
	fi
}


netns_setup

# --- round 1: rdma link delete under load ----------------------------------
start_load link-delete
t0=$SECONDS
in_ns "$NS0" timeout 60 rdma link delete "$DEV0" ||
	fail "rdma link delete did not finish"
echo "link-delete: rdma link delete took $((SECONDS - t0)) s"
reap link-delete
in_ns "$NS0" rdma link add "$DEV0" type softiwarp netdev veth0
for _ in $(seq 50); do
	port_active "$DEV0" && break
	sleep 0.2
done
one_rping after-link-delete

# --- round 2: rmmod under load ----------------------------------------------
# softiwarp offers disassociate_ucontext, so open user contexts do not pin
# the module: rmmod removes both devices under the processes' feet
start_load rmmod
t0=$SECONDS
timeout 60 rmmod softiwarp || fail "rmmod: failed under load"
echo "rmmod: took $((SECONDS - t0)) s"
reap rmmod
netns_devices_add
one_rping after-rmmod

# --- round 3: the processes killed in the middle of their traffic ----------
# Whatever they held is freed when their files close: no QP stays behind,
# the module goes at once.
start_load kill
pkill -KILL -x rping || fail "kill: no rping to kill"
reap kill
in_ns "$NS0" rdma link delete "$DEV0"
in_ns "$NS1" rdma link delete "$DEV1"
t0=$SECONDS
timeout 30 rmmod softiwarp || fail "kill: rmmod failed after the processes died"
echo "kill: rmmod took $((SECONDS - t0)) s"
modprobe softiwarp
netns_devices_add
one_rping after-kill

netns_teardown
echo "PASS $T"
