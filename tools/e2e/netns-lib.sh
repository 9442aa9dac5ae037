# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the tests that run between two network namespaces, sourced
# after lib.sh once the test has set T (its name), NS0, NS1 (server and
# client namespaces), DEV0, DEV1 (their softiwarp devices) and IP0, IP1:
# fail, the setup (netns_setup: the namespaces joined by a veth pair, a
# device on each end) and teardown (netns_teardown: devices, module and
# namespaces removed, the kernel log checked), listeners, MPA knobs, rping
# between the namespaces (rping_pair, rping_server, rping_client,
# one_rping) and captures. Installs an EXIT trap that cleans up after a
# failed run: it kills the pids in bg_pids, so a test that starts a
# process in the background adds its pid there.

bg_pids=()

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Everything left behind by a failed run would break the next tests in the
# same guest: kill what we started, remove the devices, the namespaces
# (and with them the veth pair) and the module. On success the test has
# already done all this itself, and these steps find nothing to do.
cleanup() {
	local rc=$?
	set +e
	for p in "${bg_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${bg_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rdma link delete "$DEV0" 2>/dev/null
	rdma link delete "$DEV1" 2>/dev/null
	ip netns del "$NS0" 2>/dev/null
	ip netns del "$NS1" 2>/dev/null
	modprobe -r softiwarp 2>/dev/null
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

in_ns() {
	local ns=$1
	shift
	timeout 30 ip netns exec "$ns" "$@"
}

port_active() {
	local out
	out=$(timeout 10 rdma link show "$1/1") || return 1
	[[ $out == *"state ACTIVE"* ]]
}

# knob DEV NAME VALUE: set a per-device MPA knob (-1: module default).
knob() {
	local f=/sys/class/infiniband/$1/$2
	[ -e "$f" ] || fail "no sysfs knob $f"
	echo "$3" > "$f"
	echo "knob: $1 $2 <- $3, reads $(cat "$f")"
}

knobs_default() {
	local d k
	for d in "$DEV0" "$DEV1"; do
		for k in mpa_crc mpa_markers; do
			knob "$d" "$k" -1
		done
	done
}

# listener_poll NS PORT WANT: poll (100 times, 0.2 s apart) until a TCP
# listener on PORT in NS is there (WANT yes) or gone (WANT no); warn if it
# never is, and go on anyway: the client will tell. The iWARP connection
# manager listens through a kernel TCP socket, so ss sees it.
listener_poll() {
	local i out
	for i in $(seq 100); do
		out=$(timeout 10 ip netns exec "$1" ss -Hltn "sport = :$2")
		[ "$3" = yes ] && [ -n "$out" ] && return 0
		[ "$3" = no ] && [ -z "$out" ] && return 0
		sleep 0.2
	done
	echo "WARN: TCP listener on port $2 in $1: wanted $3 after $i polls" >&2
}

# wait_listen NS PORT: until a TCP listener on PORT shows up in NS.
wait_listen() {
	listener_poll "$1" "$2" yes
}

# wait_unlisten NS PORT: until the listener of an earlier server on PORT is
# gone. rdma_cm takes an exited server's listen down asynchronously, and
# wait_listen would take the dying listener for the next server's.
wait_unlisten() {
	listener_poll "$1" "$2" no
}

# netns_setup: NS0 and NS1 joined by veth0/veth1 with IP0/IP1, a softiwarp
# device on each end, both ports ACTIVE. Leftovers of an earlier,
# interrupted run are removed first. A test that defines netns_tune gets it
# called with the addresses set and the links still down.
netns_setup() {
	ip netns del "$NS0" 2>/dev/null || true
	ip netns del "$NS1" 2>/dev/null || true
	modprobe -r softiwarp 2>/dev/null || true
	dmesg -C
	ip netns add "$NS0"
	ip netns add "$NS1"
	ip link add veth0 netns "$NS0" type veth peer name veth1 netns "$NS1"
	in_ns "$NS0" ip link set lo up
	in_ns "$NS1" ip link set lo up
	in_ns "$NS0" ip addr add "$IP0/24" dev veth0
	in_ns "$NS1" ip addr add "$IP1/24" dev veth1
	if declare -F netns_tune > /dev/null; then
		netns_tune
	fi
	in_ns "$NS0" ip link set veth0 up
	in_ns "$NS1" ip link set veth1 up
	for _ in $(seq 10); do
		in_ns "$NS1" busybox ping -c 1 -W 1 "$IP0" && break
		sleep 0.5
	done
	in_ns "$NS1" busybox ping -c 1 -W 5 "$IP0"
	netns_devices_add
}

# netns_devices_add: a softiwarp device on each veth end (DEV0 in NS0,
# DEV1 in NS1), both ports ACTIVE. "rdma link add" looks the netdev up in
# the caller's namespace.
netns_devices_add() {
	in_ns "$NS0" rdma link add "$DEV0" type softiwarp netdev veth0
	in_ns "$NS1" rdma link add "$DEV1" type softiwarp netdev veth1
	for _ in $(seq 50); do
		port_active "$DEV0" && port_active "$DEV1" && break
		sleep 0.2
	done
	port_active "$DEV0" || fail "$DEV0 port not ACTIVE"
	port_active "$DEV1" || fail "$DEV1 port not ACTIVE"
}

# netns_teardown: the end of every two-namespace test: both devices
# deleted (and gone), the module removed (connections close
# asynchronously: the last references get a moment), the namespaces
# deleted, and the kernel log, kept as $RESULTS/$T.dmesg, clean.
netns_teardown() {
	in_ns "$NS0" rdma link delete "$DEV0"
	in_ns "$NS1" rdma link delete "$DEV1"
	if timeout 10 rdma link show "$DEV0" >/dev/null 2>&1 ||
	   timeout 10 rdma link show "$DEV1" >/dev/null 2>&1; then
		fail "device still present after rdma link delete"
	fi
	for _ in $(seq 20); do
		rmmod softiwarp 2>/dev/null && break
		sleep 0.5
	done
	grep -q '^softiwarp ' /proc/modules && fail "rmmod softiwarp failed"
	ip netns del "$NS0"
	ip netns del "$NS1"
	dmesg > "$RESULTS/$T.dmesg"
	dmesg_clean "$RESULTS/$T.dmesg" ||
		fail "kernel log shows a warning (see $T.dmesg)"
}

# --- rping between the namespaces ---------------------------------------------

# A test may set these before it calls the rping helpers below:
#   RPING_SERVER_SECS, RPING_CLIENT_SECS  the timeout of the server and of
#                      the client (scaled on a slower kernel: lib.sh)
#   RPING_LOG_TAG      a word put between TAG and -server.log/-client.log
#                      in the log names ($T-TAG-WORD-server.log)
RPING_SERVER_SECS=${RPING_SERVER_SECS:-120}
RPING_CLIENT_SECS=${RPING_CLIENT_SECS:-90}
RPING_LOG_TAG=${RPING_LOG_TAG:-}

# rping_server TAG ADDR PORT SIZE COUNT: an rping server in NS0 on ADDR and
# PORT, data verified (-V), COUNT iterations of SIZE octets (the client's
# SIZE must be the same: the server's buffers are sized by its own -S),
# its output in $T-TAG-server.log. Returns once a TCP listener is on PORT
# (wait_listen), with its pid in $spid and in bg_pids; fails if it died.
rping_server() {
	local slog="$RESULTS/$T-$1${RPING_LOG_TAG:+-$RPING_LOG_TAG}-server.log"

	timeout "$RPING_SERVER_SECS" ip netns exec "$NS0" \
		rping -s -a "$2" -p "$3" -V -C "$5" -S "$4" > "$slog" 2>&1 &
	spid=$!
	bg_pids+=("$spid")
	wait_listen "$NS0" "$3"
	kill -0 "$spid" 2>/dev/null || fail "$1: rping server died (see $slog)"
}

# rping_client TAG ADDR PORT SIZE COUNT SPID: the rping client in NS1 to
# ADDR and PORT, with the server's -V, -C and -S and with -v, which prints
# one "ping data: rdma-ping-N: ..." line per iteration (the start of each
# line kept in $T-TAG-client.log: a buffer is up to 65535 octets); then
# waits for the server SPID (rping_server's $spid, taken out of bg_pids).
# Prints "rping TAG: ..." with both exit statuses and the iterations; fails
# unless the client exited 0, the server's status is a success
# (rping_server_ok), the client verified COUNT iterations, neither log
# reports a data mismatch and neither shows an error line
# (rping_logs_clean).
rping_client() {
	local tag=$1 addr=$2 port=$3 size=$4 count=$5 spid=$6
	local base="$RESULTS/$T-$1${RPING_LOG_TAG:+-$RPING_LOG_TAG}"
	local slog="$base-server.log" clog="$base-client.log"
	local crc=0 src=0 n p
	local -a left=()

	timeout "$RPING_CLIENT_SECS" ip netns exec "$NS1" \
		rping -c -a "$addr" -p "$port" -V -v -C "$count" -S "$size" 2>&1 |
		cut -c1-100 > "$clog" || crc=$?
	wait "$spid" || src=$?
	for p in "${bg_pids[@]}"; do
		[ "$p" = "$spid" ] || left+=("$p")
	done
	bg_pids=("${left[@]}")
	n=$(grep -c '^ping data: rdma-ping-' "$clog" || true)
	echo "rping $tag: to $addr port $port size $size:" \
		"client $crc server $src iterations $n"
	[ "$crc" -eq 0 ] || fail "$tag: rping client exited $crc (see $clog)"
	rping_server_ok "$src" "$slog" ||
		fail "$tag: rping server exited $src (see $slog)"
	[ "$n" -eq "$count" ] || fail "$tag: $n of $count iterations (see $clog)"
	if grep -qi 'mismatch' "$clog" "$slog"; then
		fail "$tag: data mismatch"
	fi
	rping_logs_clean "$clog" "$slog" || fail "$tag: rping printed an error"
}

# rping_pair TAG ADDR PORT SIZE COUNT [CLIENT_ADDR]: one verified rping
# run: waits until no listener of an earlier server is left on PORT
# (wait_unlisten), then rping_server on ADDR and rping_client to
# CLIENT_ADDR (default ADDR; a link-local server address names the
# server's interface, the client's its own, e.g. fe80::1%veth0 and
# fe80::1%veth1). Two servers at once, or work between the start of the
# server and the client: call rping_server and rping_client.
rping_pair() {
	local spid

	wait_unlisten "$NS0" "$3"
	rping_server "$1" "$2" "$3" "$4" "$5"
	rping_client "$1" "${6:-$2}" "$3" "$4" "$5" "$spid"
}

# one_rping TAG: a fresh, short rping between the namespaces (20 verified
# iterations of 4 KiB; logs $T-TAG-server.log and -client.log): proves the
# devices still work after whatever the test did to them.
one_rping() {
	local spid crc=0 src=0
	wait_unlisten "$NS0" 7174
	timeout 60 ip netns exec "$NS0" rping -s -a "$IP0" -V -C 20 -S 4096 \
		> "$RESULTS/$T-$1-server.log" 2>&1 &
	spid=$!
	bg_pids=("$spid")
	wait_listen "$NS0" 7174
	timeout 50 ip netns exec "$NS1" rping -c -a "$IP0" -V -C 20 -S 4096 \
		> "$RESULTS/$T-$1-client.log" 2>&1 || crc=$?
	wait "$spid" || src=$?
	bg_pids=()
	[ "$crc" -eq 0 ] || fail "$1: rping client exited $crc"
	rping_server_ok "$src" "$RESULTS/$T-$1-server.log" ||
		fail "$1: rping server exited $src"
	rping_logs_clean "$RESULTS/$T-$1-client.log" \
		"$RESULTS/$T-$1-server.log" || fail "$1: rping printed an error"
	echo "$1: rping passes"
}

# --- captures (05-netns-capture, 18-markers-alignment) -----------------------

# offloads_off NS DEV: no TSO/GSO when sending, no GRO when receiving, so
# that the capture shows the segments as TCP built them. ethtool is not
# among the packages of tools/install-deps.sh; without it, cap GSO at one
# segment per packet (gso_max_segs, read when a connection is set up);
# veth has GRO off unless asked for (drivers/net/veth.c).
offloads_off() {
	if command -v ethtool >/dev/null; then
		in_ns "$1" ethtool -K "$2" tso off gso off gro off
		in_ns "$1" ethtool -k "$2" > "$RESULTS/$T-$2-offloads.txt"
	else
		in_ns "$1" ip link set dev "$2" gso_max_segs 1
		in_ns "$1" ip -d link show dev "$2" > "$RESULTS/$T-$2-offloads.txt"
	fi
}

# capture_tune: netns_tune of a capture test: both veth ends without
# offloads and both namespaces without TCP autocorking, so that each
# sendmsg() of FPDUs leaves in segments of its own
capture_tune() {
	offloads_off "$NS0" veth0
	offloads_off "$NS1" veth1
	in_ns "$NS0" sysctl -w net.ipv4.tcp_autocorking=0
	in_ns "$NS1" sysctl -w net.ipv4.tcp_autocorking=0
}

# capture_start PCAP SECS: tcpdump of NS1's veth1 (TCP) into PCAP for at
# most SECS (scaled), listening when this returns; its pid in $tpid and
# bg_pids. -Z root: tcpdump would otherwise drop to user "tcpdump" before
# opening the output file, which it may not create in the results share.
# The command itself, not lib.sh's scaling function: capture_stop's kill
# must reach it, not a subshell around it.
capture_start() {
	local t
	for t in tcpdump tshark; do
		command -v "$t" >/dev/null || fail "$t is not installed on the host"
	done
	rm -f "$1"
	command timeout "$(e2e_scale_time "$2")" ip netns exec "$NS1" \
		tcpdump -Z root -U -n -s 0 -i veth1 -w "$1" tcp \
		> "$RESULTS/$T-tcpdump.log" 2>&1 &
	tpid=$!
	bg_pids=("$tpid")
	for _ in $(seq 100); do
		grep -q 'listening on' "$RESULTS/$T-tcpdump.log" && return 0
		kill -0 "$tpid" 2>/dev/null ||
			fail "tcpdump died (see $T-tcpdump.log)"
		sleep 0.2
	done
	fail "tcpdump did not start"
}

# capture_stop PCAP: the FIN exchanges in, tcpdump stopped (it flushes and
# exits 0 on TERM) and its capture not empty
capture_stop() {
	local trc=0
	sleep 1
	kill "$tpid" 2>/dev/null || true
	wait "$tpid" || trc=$?
	bg_pids=()
	[ "$trc" -eq 0 ] || fail "tcpdump exited $trc (see $T-tcpdump.log)"
	[ -s "$1" ] || fail "empty capture"
}
