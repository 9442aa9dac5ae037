#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softiwarp devices in containers, with the RDMA subsystem in exclusive
# network namespace mode ("rdma system set netns exclusive", the mode that
# gives each namespace its own devices). Four containers in two pairs,
# each pair joined by a veth pair, each container with its own softiwarp
# device, and both pairs on the SAME addresses (10.77.0.1 and .2) and
# ports:
#
#   pair A   ctA0, ctA1: network namespaces of "ip netns"
#   pair B   ctB0, ctB1: containers made by an unprivileged user (uid
#            65534): "unshare --user --map-root-user --net --mount" with
#            its own sysfs, so that libibverbs there sees its namespace's
#            devices; the tools run as the container's root, which is
#            uid 65534 to the host (on a kernel without user namespaces,
#            the test kernel, these are made with ip netns too)
#
# Each device is created by "rdma link add" run in its container's
# namespace and must land there (Documentation/admin-guide.rst,
# "Containers"). Proves:
#
#   placement    each device is listed in its own namespace only (rdma
#                dev, ibv_devices, /sys/class/infiniband), none in the
#                host's, and each namespace's counters show its device only
#   traffic      pair A with CRC off, pair B with Markers both ways (the
#                per-device knobs, written in the container's sysfs):
#                rping -V (every buffer compared) in both pairs at once,
#                same address and port; no listener of a container is
#                seen in the host's namespace; then ib_send_bw in pair A
#                and ucmatose in pair B at once, both servers on the
#                wildcard address and one port (rdma_cm passes a wildcard
#                listen to every device: each must listen in its own
#                namespace only)
#   move         "rdma dev set swA0 netns host" while an rping uses it:
#                both rping processes end (the device is disassociated,
#                nothing hangs), the device is listed in the host's
#                namespace only; a wildcard listen made meanwhile in the
#                namespace the device left (its netdev's) opens no socket
#                there and a client is refused; moved back, rping works
#                again
#   netdev move  the veth end under swA1 moved to another namespace: the
#                device goes away, no socket of it is left behind
#   ns deletion  "ip netns del" of a namespace holding a device (and the
#                containers of pair B ending): the devices go away, seen
#                from the host in debugfs (not namespaced) and rdma dev
#   silent       a client connected to a listening rping says nothing; the
#                server's veth is deleted (the device goes), or the server
#                is killed and its namespace deleted: the connection in MPA
#                startup ends with its listen, and its late octets, FIN and
#                MPA timeout touch nothing freed (KASAN, debug kernel)
#
# and ends with the module removed, shared mode restored and a clean
# kernel log (KASAN and lockdep on the debug kernel).
#
# timeout: 480
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=20-containers
NS0=ctA0 NS1=ctA1           # pair A, in the helpers of netns-lib.sh
IP0=10.77.0.1 IP1=10.77.0.2
PORT=7174
COUNT=$(e2e_scale_count 200)      # rping iterations
SENDS=$(e2e_scale_count 500)      # ib_send_bw's messages (64 KiB)
MSGS=$(e2e_scale_count 100)       # ucmatose's, per connection
. "$(dirname "$0")/netns-lib.sh"

declare -A ct_pid=()        # pair B: the container's init, by name
bg_pids=()                  # what runs in the background (in_ct_bg)
userns_sysctl=/proc/sys/kernel/unprivileged_userns_clone
userns_was=

# netns_mode MODE: set the RDMA subsystem's namespace mode. The core
# refuses a change while any namespace besides init_net exists, and a
# deleted namespace is dismantled asynchronously: retry for 20 s.
netns_mode() {
	for _ in $(seq 100); do
		timeout 10 rdma system set netns "$1" 2>/dev/null && break
		sleep 0.2
	done
	timeout 10 rdma system show | grep -q "netns $1" ||
		fail "rdma system: netns mode $1 not set ($(rdma system show))"
}

# After a failed run: everything this test started or made is removed, so
# that the next tests find shared mode and no namespace of ours.
ct_cleanup() {
	local rc=$?
	set +e
	for p in "${ct_pid[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${bg_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for n in "$NS0" "$NS1" ctB0 ctB1 ctX host; do
		# "host" is the host's own namespace (this script's too)
		[ "$n" = host ] ||
			ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL
		ip netns del "$n" 2>/dev/null
	done
	for _ in $(seq 20); do
		modprobe -r softiwarp 2>/dev/null && break
		sleep 0.5
	done
	[ -z "$userns_was" ] || echo "$userns_was" > "$userns_sysctl"
	for _ in $(seq 100); do
		timeout 10 rdma system set netns shared 2>/dev/null && break
		sleep 0.2
	done
	exit "$rc"
}
trap ct_cleanup EXIT

# ct_argv NAME SECS: set CT_ARGV to what runs a command in container NAME
# as its root, under coreutils' timeout with SECS (scaled by E2E_SLOW) by
# its path: nsenter and "ip netns exec" exec the command, so that killing
# the timeout process ends the command (timeout passes the signal on)
ct_argv() {
	local to
	to=$(type -P timeout)
	if [ -n "${ct_pid[$1]:-}" ]; then
		CT_ARGV=("$to" "$(e2e_scale_time "$2")" nsenter -t "${ct_pid[$1]}"
			 -U -m -n --)
	else
		CT_ARGV=("$to" "$(e2e_scale_time "$2")" ip netns exec "$1")
	fi
}

# in_ct NAME CMD...: run CMD in container NAME, as its root, with a
# timeout (CT_SECS, 60 by default)
in_ct() {
	local name=$1
	shift
	ct_argv "$name" "${CT_SECS:-60}"
	"${CT_ARGV[@]}" "$@"
}

# in_ct_bg LOG NAME CMD...: in_ct in the background, its output in LOG.
# $! is the timeout process itself (no subshell between), so that "kill
# $!" ends CMD; it is added to bg_pids for ct_cleanup.
in_ct_bg() {
	local log=$1 name=$2
	shift 2
	ct_argv "$name" "${CT_SECS:-60}"
	"${CT_ARGV[@]}" "$@" > "$log" 2>&1 &
	bg_pids+=("$!")
}

# in_ct_net NAME CMD...: CMD in the network namespace of NAME only, with
# the host's credentials (what "rdma link add" and "ip" need)
in_ct_net() {
	local name=$1
	shift
	if [ -n "${ct_pid[$name]:-}" ]; then
		timeout 30 nsenter -t "${ct_pid[$name]}" -n -- "$@"
	else
		timeout 30 ip netns exec "$name" "$@"
	fi
}

# ct_start NAME: an unprivileged container (uid 65534): its own user,
# network and mount namespaces, sysfs mounted afresh, so that its
# /sys/class/infiniband shows its namespace's devices
ct_start() {
	local ready="$RESULTS/$T-$1.ready"
	if [ ! -e /proc/self/ns/user ]; then
		echo "$1: this kernel has no user namespaces: an ip netns"
		ip netns add "$1"
		in_ns "$1" ip link set lo up
		return 0
	fi
	rm -f "$ready"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare --user --map-root-user --net --mount --fork --kill-child \
		-- sh -c "mount -t sysfs -o nosuid,nodev,noexec sysfs /sys &&
			ip link set lo up && echo ok >&3 && exec sleep 1000" \
		3> "$ready" &
	ct_pid[$1]=$!
	for _ in $(seq "$(e2e_scale_time 50)"); do
		grep -q ok "$ready" 2>/dev/null && return 0
		kill -0 "${ct_pid[$1]}" 2>/dev/null || fail "container $1 died"
		sleep 0.2
	done
	fail "container $1 did not start"
}

# ct_stop NAME: end container NAME. unshare ignores SIGTERM while it
# waits for its child; SIGKILL ends it, and --kill-child its child.
ct_stop() {
	kill -KILL "${ct_pid[$1]}"
	wait "${ct_pid[$1]}" || true
	unset "ct_pid[$1]"
}

# pair_up A B VA VB DA DB: veth VA in A and VB in B with IP0 and IP1, a
# softiwarp device on each (DA, DB) made in its namespace, ports ACTIVE
pair_up() {
	ip link add "$3" type veth peer name "$4"
	ip link set "$3" netns "$(ns_ref "$1")"
	ip link set "$4" netns "$(ns_ref "$2")"
	in_ct_net "$1" ip addr add "$IP0/24" dev "$3"
	in_ct_net "$2" ip addr add "$IP1/24" dev "$4"
	in_ct_net "$1" ip link set "$3" up
	in_ct_net "$2" ip link set "$4" up
	in_ct_net "$1" rdma link add "$5" type softiwarp netdev "$3"
	in_ct_net "$2" rdma link add "$6" type softiwarp netdev "$4"
	for _ in $(seq "$(e2e_scale_time 50)"); do
		in_ct_net "$1" rdma link show "$5/1" | grep -q ACTIVE &&
			in_ct_net "$2" rdma link show "$6/1" | grep -q ACTIVE &&
			break
		sleep 0.2
	done
	in_ct_net "$2" busybox ping -c 1 -W 5 "$IP0"
}

# ct_knob NAME DEV KNOB VALUE: set a per-device knob of DEV, whose sysfs
# directory only a sysfs of NAME's namespace shows (the host's root writes
# it: the files are the initial namespace root's)
ct_knob() {
	local f=/sys/class/infiniband/$2/$3
	if [ -n "${ct_pid[$1]:-}" ]; then
		timeout 30 nsenter -t "${ct_pid[$1]}" -n -m -- \
			sh -c "echo $4 > $f && cat $f"
	else
		in_ns "$1" sh -c "echo $4 > $f && cat $f"
	fi | grep -qx -- "$4" || fail "$1: $f does not read $4"
}

# ns_ref NAME: what "ip link set ... netns" takes for container NAME
ns_ref() {
	echo "${ct_pid[$1]:-$1}"
}

# only_here NAME DEV: DEV is the one RDMA device seen in NAME, by the
# kernel (rdma dev), by libibverbs (ibv_devices) and in its sysfs
only_here() {
	local devs
	devs=$(in_ct "$1" rdma dev show | awk '{print $2}' | tr -d :)
	[ "$devs" = "$2" ] || fail "$1: rdma dev lists '$devs', not $2"
	devs=$(in_ct "$1" ibv_devices | awk 'NR > 2 {print $1}')
	[ "$devs" = "$2" ] || fail "$1: ibv_devices lists '$devs', not $2"
	devs=$(in_ct "$1" ls /sys/class/infiniband)
	[ "$devs" = "$2" ] || fail "$1: sysfs lists '$devs', not $2"
	in_ct "$1" rdma statistic show > "$RESULTS/$T-$1-stats.txt"
	if grep -v "^link $2/" "$RESULTS/$T-$1-stats.txt" | grep -q '^link'; then
		fail "$1: counters of another device (see $T-$1-stats.txt)"
	fi
	grep -q "^link $2/" "$RESULTS/$T-$1-stats.txt" ||
		fail "$1: no counters of $2"
}

# wait_port NAME PORT yes|no: a TCP listener on PORT in NAME (or none)
wait_port() {
	local out
	for _ in $(seq 100); do
		out=$(in_ct_net "$1" ss -Hltn "sport = :$2")
		[ "$3" = yes ] && [ -n "$out" ] && return 0
		[ "$3" = no ] && [ -z "$out" ] && return 0
		sleep 0.2
	done
	fail "$1: TCP listener on port $2: wanted $3"
}

# rping_check TAG CLIENT_RC SERVER_RC: both logs of run TAG show COUNT
# verified iterations and no error line
rping_check() {
	local clog="$RESULTS/$T-$1-client.log" slog="$RESULTS/$T-$1-server.log"
	local n
	n=$(grep -c '^ping data: rdma-ping-' "$clog" || true)
	echo "rping $1: client $2 server $3 iterations $n"
	[ "$2" -eq 0 ] || fail "$1: rping client exited $2 (see $clog)"
	rping_server_ok "$3" "$slog" || fail "$1: rping server exited $3"
	[ "$n" -eq "$COUNT" ] || fail "$1: $n of $COUNT iterations"
	! grep -qi mismatch "$clog" "$slog" || fail "$1: data mismatch"
	rping_logs_clean "$clog" "$slog" || fail "$1: rping printed an error"
}

# rping_both SIZE: verified rping in pair A and pair B at once, the same
# server address and port in both
rping_both() {
	local p s0 s1 c0 c1 r0=0 r1=0 q0=0 q1=0
	for p in A B; do
		wait_port "ct${p}0" "$PORT" no
		in_ct_bg "$RESULTS/$T-$p$1-server.log" "ct${p}0" \
			rping -s -a "$IP0" -p "$PORT" -V -C "$COUNT" -S "$1"
		[ "$p" = A ] && s0=$! || s1=$!
	done
	wait_port ctA0 "$PORT" yes
	wait_port ctB0 "$PORT" yes
	# the host's namespace has no listener of theirs
	[ -z "$(ss -Hltn "sport = :$PORT")" ] || fail "a listener leaks"
	for p in A B; do
		in_ct "ct${p}1" rping -c -a "$IP0" -p "$PORT" -V -v -C "$COUNT" \
			-S "$1" 2>&1 | cut -c1-100 > "$RESULTS/$T-$p$1-client.log" &
		[ "$p" = A ] && c0=$! || c1=$!
	done
	wait "$c0" || r0=$?
	wait "$c1" || r1=$?
	wait "$s0" || q0=$?
	wait "$s1" || q1=$?
	bg_pids=()
	rping_check "A$1" "$r0" "$q0"
	rping_check "B$1" "$r1" "$q1"
}

# away_listen: swA0 is in the host's namespace, its netdev still in ctA0.
# A wildcard listen made in ctA0 (which needs a device there: swX0, on a
# veth pair of its own) reaches swA0 all the same (rdma_cm hands it to
# every device, whatever namespace the device is in: seen in rdma res);
# swA0 must open no socket for it in ctA0, where no process may use the
# device (cm.rst, "Endpoints"), swX0 one on its address, and a client in
# ctA1 is refused
away_listen() {
	local p=7311 rc=0 spid cm="$RESULTS/$T-away-cm_id.txt"
	local ss="$RESULTS/$T-away-ss.txt"
	ip link add vethX0 type veth peer name vethX1
	ip link set vethX0 netns "$NS0"
	ip link set vethX1 netns "$NS0"
	in_ns "$NS0" ip addr add 10.78.0.1/24 dev vethX0
	in_ns "$NS0" ip link set vethX0 up
	in_ns "$NS0" ip link set vethX1 up
	in_ns "$NS0" rdma link add swX0 type softiwarp netdev vethX0
	for _ in $(seq "$(e2e_scale_time 50)"); do
		in_ns "$NS0" rdma link show swX0/1 | grep -q ACTIVE && break
		sleep 0.2
	done
	wait_port ctA0 "$p" no
	in_ct_bg "$RESULTS/$T-away-server.log" ctA0 ucmatose -p "$p" -c 1 -C 10
	spid=$!
	wait_port ctA0 "$p" yes
	rdma res show cm_id > "$cm"
	grep swA0 "$cm" | grep LISTEN | grep -q ":$p\b" ||
		fail "away: the listen did not reach swA0 (see $T-away-cm_id.txt)"
	for _ in $(seq 10); do
		in_ct_net ctA0 ss -Hltn "sport = :$p" > "$ss"
		grep -q "$IP0:$p" "$ss" &&
			fail "away: a socket in $NS0 listens for swA0, not its device"
		grep -q "10.78.0.1:$p" "$ss" || fail "away: swX0 does not listen"
		sleep 0.1
	done
	CT_SECS=30 in_ct ctA1 ucmatose -s "$IP0" -p "$p" -c 1 -C 10 \
		> "$RESULTS/$T-away-client.log" 2>&1 || rc=$?
	echo "away: the ucmatose client exited $rc (refused)"
	[ "$rc" -ne 124 ] || fail "away: the ucmatose client hung"
	# ucmatose prints "test complete" either way: the event tells
	if [ "$rc" -eq 0 ] || ! grep -qE 'EVENT_(REJECTED|UNREACHABLE)' \
			"$RESULTS/$T-away-client.log"; then
		fail "away: a client reached a listen through swA0 (see $T-away-client.log)"
	fi
	kill "$spid" 2>/dev/null || true
	wait "$spid" || true
	bg_pids=()
	in_ns "$NS0" rdma link del swX0
	in_ns "$NS0" ip link del vethX0
}

# --- setup: exclusive mode, the containers, their devices -------------------
ip netns del "$NS0" 2>/dev/null || true
ip netns del "$NS1" 2>/dev/null || true
modprobe -r softiwarp 2>/dev/null || true
dmesg -C
netns_mode exclusive
if [ -e "$userns_sysctl" ]; then
	userns_was=$(cat "$userns_sysctl")
	echo 1 > "$userns_sysctl"
fi
modprobe softiwarp
ip netns add "$NS0"
ip netns add "$NS1"
in_ns "$NS0" ip link set lo up
in_ns "$NS1" ip link set lo up
ct_start ctB0
ct_start ctB1
pair_up ctA0 ctA1 vethA0 vethA1 swA0 swA1
pair_up ctB0 ctB1 vethB0 vethB1 swB0 swB1
# the data path's variants, on the debug kernel too: pair A without CRC,
# pair B with Markers both ways
for c in ctA0:swA0:mpa_crc:0 ctA1:swA1:mpa_crc:0 \
	ctB0:swB0:mpa_markers:1 ctB1:swB1:mpa_markers:1; do
	IFS=: read -r ct d k v <<< "$c"
	ct_knob "$ct" "$d" "$k" "$v"
done

# --- placement --------------------------------------------------------------
for c in ctA0:swA0 ctA1:swA1 ctB0:swB0 ctB1:swB1; do
	only_here "${c%:*}" "${c#*:}"
done
[ -z "$(rdma dev show)" ] || fail "the host's namespace lists a device"
[ -z "$(ls /sys/class/infiniband)" ] || fail "the host's sysfs lists a device"

# --- traffic in both pairs at once, same addresses and ports ----------------
for size in 64 65535; do
	rping_both "$size"
done
# both servers listen on the wildcard address, on one port: rdma_cm hands
# each wildcard listen to every device, in every namespace
wait_port ctA0 7310 no
wait_port ctB0 7310 no
in_ct_bg "$RESULTS/$T-send-server.log" ctA0 \
	ib_send_bw -R -F -d swA0 -p 7310 -s 65536 -n "$SENDS"
spid=$!
wait_port ctA0 7310 yes
in_ct_bg "$RESULTS/$T-ucmatose-server.log" ctB0 \
	ucmatose -p 7310 -c 4 -C "$MSGS" -S 65536
upid=$!
wait_port ctB0 7310 yes
for c in ctA0 ctA1 ctB0 ctB1; do
	in_ct_net "$c" ss -Hltn "sport = :7310" > "$RESULTS/$T-$c-7310.txt"
done
for c in ctA0 ctB0; do
	[ "$(wc -l < "$RESULTS/$T-$c-7310.txt")" -eq 1 ] ||
		fail "$c: not one listener on 7310 (see $T-$c-7310.txt)"
done
for c in ctA1 ctB1; do
	[ ! -s "$RESULTS/$T-$c-7310.txt" ] ||
		fail "a wildcard listen reached $c"
done
crc=0 urc=0 src=0 usrc=0
in_ct_bg "$RESULTS/$T-send-client.log" ctA1 \
	ib_send_bw -R -F -d swA1 -p 7310 -s 65536 -n "$SENDS" "$IP0"
cpid=$!
in_ct ctB1 ucmatose -s "$IP0" -p 7310 -c 4 -C "$MSGS" -S 65536 \
	> "$RESULTS/$T-ucmatose-client.log" 2>&1 || urc=$?
wait "$cpid" || crc=$?
wait "$spid" || src=$?
wait "$upid" || usrc=$?
bg_pids=()
echo "ib_send_bw: client $crc server $src; ucmatose: client $urc server $usrc"
[ "$crc" -eq 0 ] || fail "ib_send_bw client in pair A exited $crc"
[ "$src" -eq 0 ] || fail "ib_send_bw server in pair A exited $src"
[ "$urc" -eq 0 ] || fail "ucmatose client in pair B exited $urc"
[ "$usrc" -eq 0 ] || fail "ucmatose server in pair B exited $usrc"
grep -qE "^ *65536 +$SENDS " "$RESULTS/$T-send-client.log" ||
	fail "ib_send_bw: no result row"
grep -q '^test complete' "$RESULTS/$T-ucmatose-client.log" ||
	fail "ucmatose: the client did not complete"
tool_log_clean "$RESULTS"/$T-send-*.log "$RESULTS"/$T-ucmatose-*.log ||
	fail "a tool printed an error"

# --- move the device out while rping uses it, and back ----------------------
ip netns attach host 1
wait_port ctA0 "$PORT" no
in_ct_bg "$RESULTS/$T-moved-server.log" ctA0 \
	rping -s -a "$IP0" -p "$PORT" -V -C 100000 -S 4096
spid=$!
wait_port ctA0 "$PORT" yes
in_ct_bg "$RESULTS/$T-moved-client.log" ctA1 \
	rping -c -a "$IP0" -p "$PORT" -V -C 100000 -S 4096
cpid=$!
sleep 2
kill -0 "$cpid" || fail "move: the rping client ended before the move"
in_ns "$NS0" rdma dev set swA0 netns host
src=0 crc=0
wait "$spid" || src=$?
wait "$cpid" || crc=$?
bg_pids=()
echo "move: rping server $src client $crc (both end with the device gone)"
[ "$src" -ne 124 ] || fail "move: the rping server hung"
[ "$crc" -ne 124 ] || fail "move: the rping client hung"
grep -q 'device removal' "$RESULTS/$T-moved-server.log" ||
	fail "move: the rping server did not see the device's removal"
[[ $(rdma dev show) == *swA0* ]] || fail "move: swA0 not in the host's namespace"
[[ $(in_ns "$NS0" rdma dev show) != *swA0* ]] || fail "move: swA0 still in $NS0"
away_listen
rdma dev set swA0 netns "$NS0"
only_here ctA0 swA0
one_rping moved-back

# --- the netdev under a device moves: the device goes away ------------------
# with a connection of the device up: the rping client in ctA1 loses its
# device; the server, whose peer is unreachable now, is stopped
ip netns add ctX
wait_port ctA0 "$PORT" no
in_ct_bg "$RESULTS/$T-netdev-server.log" ctA0 \
	rping -s -a "$IP0" -p "$PORT" -V -C 100000 -S 4096
spid=$!
wait_port ctA0 "$PORT" yes
in_ct_bg "$RESULTS/$T-netdev-client.log" ctA1 \
	rping -c -a "$IP0" -p "$PORT" -V -C 100000 -S 4096
cpid=$!
sleep 2
kill -0 "$cpid" || fail "netdev move: the rping client ended before it"
in_ns "$NS1" ip link set vethA1 netns ctX
crc=0
wait "$cpid" || crc=$?
echo "netdev move: rping client $crc (ends with its device)"
[ "$crc" -ne 124 ] || fail "netdev move: the rping client hung"
kill "$spid" 2>/dev/null || true
wait "$spid" || true
bg_pids=()
for _ in $(seq 50); do
	in_ns "$NS1" rdma dev show | grep -q swA1 || break
	sleep 0.2
done
! in_ns "$NS1" rdma dev show | grep -q swA1 || fail "swA1 outlived its netdev"
! in_ns ctX rdma dev show | grep -q swA1 || fail "swA1 followed its netdev"
[ -z "$(in_ns "$NS1" ss -Htn state established state listening)" ] ||
	fail "a socket of swA1 is left in $NS1"

# --- namespaces end: their devices go away ----------------------------------
# debugfs is not namespaced: its directory per device shows, from the host,
# the devices of every namespace
dbg=/sys/kernel/debug/softiwarp
for d in swA0 swB0 swB1; do
	[ -d "$dbg/$d" ] || fail "no $dbg/$d before the namespaces end"
done
[ -z "$(ip netns pids "$NS0")" ] ||
	fail "processes left in $NS0: $(ip netns pids "$NS0" | xargs)"
ip netns del "$NS0"         # swA0 (the veth pair goes with it)
if [ -n "${ct_pid[ctB0]:-}" ]; then
	ct_stop ctB0
	ct_stop ctB1
else
	ip netns del ctB0
	ip netns del ctB1
fi
gone() {
	local d
	for d in swA0 swB0 swB1; do
		[ ! -e "$dbg/$d" ] || return 1
	done
	[ -z "$(rdma dev show)" ]
}
for _ in $(seq 100); do
	gone && break
	sleep 0.2
done
gone || fail "devices left: $(cd "$dbg" && echo *); here: $(rdma dev show)"
ip netns del ctX
ip netns del "$NS1"
ip netns del host

# --- a silent client when the device goes -----------------------------------
# a client connects to a listening rping and sends nothing; the veth under
# the server's device is deleted, which removes the device (and with it
# the listen). The connection waiting for its Request must end with the
# listen: before, it kept the device's pointer, and its late octets, its
# FIN or the MPA timeout then ran through the freed device (KASAN on the
# debug kernel). Then the same with the namespace deleted under a silent
# client, the server killed first (a namespace with a process in it is not
# dismantled).
# silent_client NS ADDR PORT SECS: connect, wait, send, close. The close
# resets (SO_LINGER 0): an orderly one would leave an orphan socket
# retransmitting into the deleted veth, which holds NS's namespace (a
# process's socket does) for minutes, and the RDMA subsystem refuses its
# netns mode change while any namespace but init_net exists.
silent_client() {
	in_ns "$1" python3 -c '
import socket, struct, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
time.sleep(float(sys.argv[3]))
try:
    s.sendall(b"MPA ID Req Frame" + bytes(4))
    time.sleep(0.5)
except OSError:
    pass
s.close()' "$2" "$3" "$4"
}
P=/sys/module/softiwarp/parameters
old_mpa=$(cat $P/mpa_timeout_ms)
echo 2000 > $P/mpa_timeout_ms
for how in link netns; do
	ip netns add ctS0
	ip netns add ctS1
	pair_up ctS0 ctS1 vethS0 vethS1 swS0 swS1
	in_ct_bg "$RESULTS/$T-silent-$how-server.log" ctS0 \
		rping -s -a "$IP0" -p "$PORT" -C 1 -S 64
	spid=$!
	wait_port ctS0 "$PORT" yes
	silent_client ctS1 "$IP0" "$PORT" "$(e2e_scale_time 5)" &
	cpid=$!
	sleep 1
	if [ "$how" = link ]; then
		in_ns ctS0 ip link del vethS0
		wait "$spid" || true
	else
		kill "$spid" 2>/dev/null || true
		wait "$spid" || true
		ip netns del ctS0
	fi
	bg_pids=()
	wait "$cpid" || true
	# the MPA timeout of the old endpoint, had it survived
	sleep "$(e2e_scale_time 3)"
	ip netns del ctS1
	ip netns del ctS0 2>/dev/null || true
	for _ in $(seq 100); do
		[ ! -e "$dbg/swS0" ] && [ ! -e "$dbg/swS1" ] && break
		sleep 0.2
	done
	[ ! -e "$dbg/swS0" ] || fail "silent $how: swS0 left after its netdev"
	echo "silent $how: the device went under a silent client"
done
echo "$old_mpa" > $P/mpa_timeout_ms
for _ in $(seq 20); do
	rmmod softiwarp 2>/dev/null && break
	sleep 0.5
done
grep -q '^softiwarp ' /proc/modules && fail "rmmod softiwarp failed"
netns_mode shared
dmesg > "$RESULTS/$T.dmesg"
dmesg_clean "$RESULTS/$T.dmesg" || fail "kernel log shows a warning"
echo "PASS $T"
