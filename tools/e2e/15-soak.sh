#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: many long-lived connections, mixed opcodes, sizes and MPA
# settings, every byte verified, for a number of minutes (argument 1, or
# SOAK_MINUTES; default 1: the version in make e2e/check; `make soak` runs
# it for 10) after a ramp-up.
#
# Two namespaces joined by three veth pairs, a softiwarp device on each end:
#   pair A  swi0/swi1   CRC on, no Markers (the defaults)
#   pair B  swi2/swi3   CRC on, Markers in both directions
#   pair C  swi4/swi5   CRC off, Markers towards NS1 only
# SOAK_BATCHES batches (default 4; make soak: all 8) of 8 rping slots, one
# size and server side per batch (sizes from 23 octets to the largest
# rping buffer, 65535; the first four batches cover every pair and both
# server sides). A slot is one non-persistent rping server and one client,
# rping -c -V -v -C 1000000000, connected once for the whole soak: every
# iteration is a SEND each way, an RDMA READ and an RDMA WRITE of the
# buffer, and the client compares every byte it gets back. While a batch
# starts, the batches before it are stopped (SIGSTOP); all continue
# together once every client has verified its first iteration.
# (Restarting short runs spends the two TCG vCPUs on process start-up,
# and rping's persistent server races with its own connection-manager
# thread.) Two more slots on pair A loop rstream (rsockets) runs with 1 MiB
# transfers and -T v (every byte checked against its sequence). That is 68
# QPs with 4 batches, 132 with 8. The load runs at nice 15, the monitor
# at -10.
#
# Every minute one line: octets and FPDUs per direction (the devices'
# counters), rping iterations verified in the minute, rstream octets and
# runs ended in it, failures (failed rstream runs, rping clients that
# exited), slots that verified no iteration in the minute, Terminates
# sent or received, CRC errors, CQ overflows, connection failures (MPA
# rejects, timeouts, failed connections), the fewest and most QPs seen
# live, the most memory in use and the least available.
# At the end the rping servers are killed (SIGTERM); each client sees the
# disconnect and exits 0, printing only the disconnect (STOP_RE; or -1
# on rping's own race there). Fails
# on a slot that stalled for a minute, a client or server that ended
# early, any other tool output, a mismatch, a failed rstream run, an
# error counter that moved, fewer than 64 QPs live at any sample of the
# measured minutes (at least one sample a minute), any QP, CQ, MR or PD left when all is over, a kernel
# splat, and a kmemleak report (debug kernel).
#
# timeout: 480
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

T=15-soak
NS0=swns0 NS1=swns1
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
MINUTES=${1:-${SOAK_MINUTES:-1}}
CLIENTS_PER_SERVER=8
W=$RESULTS/$T
. "$(dirname "$0")/netns-lib.sh"

# pair N: device names and addresses of the extra veth pairs (B=2, C=4)
declare -A PAIR_IP0=([A]=10.77.0.1 [B]=10.78.0.1 [C]=10.79.0.1)
declare -A PAIR_IP1=([A]=10.77.0.2 [B]=10.78.0.2 [C]=10.79.0.2)
declare -A PAIR_DEV0=([A]=swi0 [B]=swi2 [C]=swi4)
declare -A PAIR_DEV1=([A]=swi1 [B]=swi3 [C]=swi5)
DEVS_NS0="swi0 swi2 swi4"
DEVS_NS1="swi1 swi3 swi5"
ALL_DEVS="$DEVS_NS0 $DEVS_NS1"
RPING_ONLY_DEVS="swi2 swi3 swi4 swi5"

kmemleak=/sys/kernel/debug/kmemleak
[ -e $kmemleak ] && echo clear > $kmemleak

rm -rf "$W"
mkdir -p "$W"
netns_setup

# the extra pairs B and C
add_pair() {
	local p=$1 n=$2
	ip link add "veth$n" netns "$NS0" type veth peer name "veth$((n + 1))" \
		netns "$NS1"
	in_ns "$NS0" ip addr add "${PAIR_IP0[$p]}/24" dev "veth$n"
	in_ns "$NS1" ip addr add "${PAIR_IP1[$p]}/24" dev "veth$((n + 1))"
	in_ns "$NS0" ip link set "veth$n" up
	in_ns "$NS1" ip link set "veth$((n + 1))" up
	in_ns "$NS0" rdma link add "${PAIR_DEV0[$p]}" type softiwarp netdev "veth$n"
	in_ns "$NS1" rdma link add "${PAIR_DEV1[$p]}" type softiwarp \
		netdev "veth$((n + 1))"
	for _ in $(seq 50); do
		port_active "${PAIR_DEV0[$p]}" && port_active "${PAIR_DEV1[$p]}" &&
			break
		sleep 0.2
	done
	port_active "${PAIR_DEV0[$p]}" || fail "${PAIR_DEV0[$p]} not ACTIVE"
	port_active "${PAIR_DEV1[$p]}" || fail "${PAIR_DEV1[$p]} not ACTIVE"
	for _ in $(seq 10); do
		in_ns "$NS1" busybox ping -c 1 -W 1 "${PAIR_IP0[$p]}" >/dev/null &&
			break
	done
}
add_pair B 2
add_pair C 4
# Under TCG, with some 130 busy processes on two vCPUs, a persistent rping
# server can take more than the default 10 s to accept: the initiator's
# MPA timeout would end such a connection (and rping's persistent server
# mishandles that). The soak is about the data path: give the setup 60 s.
echo 60000 > /sys/module/softiwarp/parameters/mpa_timeout_ms
knob swi2 mpa_markers 1
knob swi3 mpa_markers 1
knob swi4 mpa_crc 0
knob swi5 mpa_crc 0
knob swi5 mpa_markers 1

# --- load -------------------------------------------------------------------
# SERVERS: pair, server namespace, size; 8 long-lived connections each
# (the first four cover every pair, both server sides and the smallest
# and largest size: make e2e runs those, see BATCHES)
SERVERS=(
	"A 0 65535"
	"B 1 16384"
	"C 1 23"
	"A 1 4096"
	"A 0 64"
	"B 0 1000"
	"B 0 65535"
	"C 0 30000"
)
BATCHES=${SOAK_BATCHES:-4}	# make soak: 8
# The rping and rstream processes run at nice 15: with some 130 of them
# busy on two vCPUs, a monitor at nice 0 took over a minute for one
# round of its commands.
LOAD_NICE=15

server_addr() { # PAIR SIDE
	if [ "$2" -eq 0 ]; then echo "${PAIR_IP0[$1]}"; else echo "${PAIR_IP1[$1]}"; fi
}

# past_deadline: the main loop has written the deadline, and it has passed
past_deadline() {
	[ -s "$W/deadline" ] && [ "$(date +%s)" -ge "$(cat "$W/deadline")" ]
}

# rping_client ID NS ADDR PORT SIZE: one rping client for the whole soak
# (-C 1000000000: it never reaches the count), every iteration verified
# (-V) and logged (-v, line-buffered, the first 32 characters kept) in
# $W/ID.out; its stderr in $W/ID.log, its exit status in $W/ID.status.
rping_client() {
	local id=$1 ns=$2 addr=$3 port=$4 size=$5
	{ ip netns exec "$ns" nice -n "$LOAD_NICE" stdbuf -oL rping -c -V -v -a "$addr" -p "$port" \
		-S "$size" -C 1000000000 2>> "$W/$id.log" &&
		echo 0 > "$W/$id.status" || echo $? > "$W/$id.status"
	} | stdbuf -oL cut -c1-32 > "$W/$id.out"
}
# pings ID: the iterations slot ID has verified so far
pings() {
	local n
	n=$(grep -c '^ping data: rdma-ping-' "$W/$1.out" 2>/dev/null) || true
	echo "${n:-0}"
}

# rstream_slot ID ADDR PORT SIZE COUNT: one rstream server and client per
# run, server in NS0, client in NS1, blocking calls, data verified: COUNT
# transfers of SIZE octets each way, again and again until the deadline.
# One line per run in $W/ID.runs: "END-TIME STATUS OCTETS-VERIFIED".
rstream_slot() {
	local id=$1 addr=$2 port=$3 size=$4 count=$5 rc src spid done_runs=0
	while ! past_deadline; do
		rc=0 src=0
		timeout 240 ip netns exec "$NS0" nice -n "$LOAD_NICE" rstream -b "$addr" -p "$port" \
			-S "$size" -C "$count" -T b -T v >> "$W/$id-server.log" 2>&1 &
		spid=$!
		wait_listen "$NS0" "$port" 2>> "$W/$id.log"
		timeout 240 ip netns exec "$NS1" nice -n "$LOAD_NICE" rstream -s "$addr" -p "$port" \
			-S "$size" -C "$count" -T b -T v >> "$W/$id.log" 2>&1 || rc=$?
		wait "$spid" || src=$?
		[ "$rc" -ne 0 ] || rc=$src
		# every complete run adds its result row: "custom 1m 16 1 ..."
		done_runs=$((done_runs + 1))
		[ "$rc" -ne 0 ] ||
			[ "$(grep -c '^custom ' "$W/$id.log")" -eq "$done_runs" ] || rc=98
		echo "$(date +%s) $rc $((count * size * 2))" >> "$W/$id.runs"
		[ "$rc" -eq 0 ] || return 1
	done
}

# live_qps: QPs of all our devices now
live_qps() {
	timeout 10 rdma resource show |
		awk '$2 ~ /^swi[0-5]:$/ { for (i = 3; i < NF; i++) if ($i == "qp") s += $(i + 1) }
		     END { print s + 0 }'
}

# Ramp-up, once: the rping slots start in batches of eight (one SERVERS
# row: eight non-persistent servers, then their eight clients); the next
# batch starts when every client of this one has verified its first
# iteration. Meanwhile the running batches are stopped (SIGSTOP, their
# connections stay up, idle): under TCG, starting processes next to 100
# busy ones took minutes a batch. All continue together (SIGCONT), and
# the measured minutes start then. The ramp-up is capped (240 s, times
# E2E_SLOW).
rping_ids=()
declare -A SPID CPID SIZE
t_ramp=$(date +%s)
ramp_end=$(( t_ramp + $(e2e_scale_time 240) ))
port=7600
for s in "${SERVERS[@]:0:$BATCHES}"; do
	read -r pair side size <<< "$s"
	addr=$(server_addr "$pair" "$side")
	batch=()
	for i in $(seq "$CLIENTS_PER_SERVER"); do
		port=$((port + 1))
		id=rping-$size-$port
		batch+=("$id")
		rping_ids+=("$id")
		SIZE[$id]=$size
		ip netns exec "swns$side" nice -n "$LOAD_NICE" rping -s -V -a "$addr" -p "$port" \
			-S "$size" > "$W/$id-server.log" 2>&1 &
		SPID[$id]=$!
		bg_pids+=("$!")
	done
	p=$((port - CLIENTS_PER_SERVER))
	for id in "${batch[@]}"; do
		p=$((p + 1))
		wait_listen "swns$side" "$p" 2>> "$W/$id.log"
		rping_client "$id" "swns$((1 - side))" "$addr" "$p" "$size" &
		CPID[$id]=$!
		bg_pids+=("$!")
	done
	for id in "${batch[@]}"; do
		while [ "$(pings "$id")" -eq 0 ] && [ ! -e "$W/$id.status" ] &&
			[ "$(date +%s)" -lt "$ramp_end" ]; do
			sleep 1
		done
	done
	pkill -STOP -x rping || true
	echo "soak: ramp: $((${#rping_ids[@]} / CLIENTS_PER_SERVER)) batches after $(( $(date +%s) - t_ramp )) s, $(live_qps) QPs live"
done
pkill -CONT -x rping || true
rstream_pids=()
for i in 1 2; do
	rstream_slot "rstream-$i" "$IP0" $((7510 + i)) 1048576 16 &
	rstream_pids+=("$!")
	bg_pids+=("$!")
done

# --- every minute -------------------------------------------------------------
# snap FILE: every counter of every device, "DEV NAME VALUE" per line
snap() {
	local d
	for d in $ALL_DEVS; do
		timeout 10 rdma statistic show link "$d/1" |
			awk -v d="$d" '{ for (i = 3; i < NF; i += 2) print d, $i, $(i + 1) }'
	done > "$1"
}
# delta A B "DEVS" NAME...: the sum over DEVS and NAMEs of B minus A
# (printed with %.0f: mawk's %d stops at 2^31 - 1, 2147 MB of octets)
delta() {
	local a=$1 b=$2 devs=$3
	shift 3
	awk -v devs="$devs" -v names="$*" '
		BEGIN { split(devs, d); for (i in d) D[d[i]] = 1
			split(names, n); for (i in n) N[n[i]] = 1 }
		($1 in D) && ($2 in N) { if (FILENAME == ARGV[1]) s -= $3; else s += $3 }
		END { printf "%.0f\n", s }' "$a" "$b"
}
# rstream_runs FROM TO: "octets runs failed" of rstream runs ended in [FROM, TO)
rstream_runs() {
	cat "$W"/rstream-*.runs 2>/dev/null | awk -v from="$1" -v to="$2" '
		$1 >= from && $1 < to { r++; if ($2 != 0) bad++; rs += $3 }
		END { printf "%.0f %d %d\n", rs, r, bad }'
}
# count_pings: PINGS[id] = the iterations of every rping slot now; sets
# it_now (all of them), stalled (slots without a new iteration since the
# last call) and died (clients that have exited)
declare -A PINGS
count_pings() {
	local id n
	it_now=0 stalled=0 died=0
	for id in "${rping_ids[@]}"; do
		n=$(pings "$id")
		[ "$n" -gt "${PINGS[$id]:-0}" ] || { stalled=$((stalled + 1)); echo "stalled: $id at $n iterations" >> "$W/stalls"; }
		[ -e "$W/$id.status" ] && died=$((died + 1))
		PINGS[$id]=$n
		it_now=$((it_now + n))
	done
}
TERMS="tx_terminate_rdmap tx_terminate_ddp tx_terminate_llp rx_terminate_rdmap rx_terminate_ddp rx_terminate_llp"
CONNERR="tx_mpa_rejects rx_mpa_rejects mpa_timeouts conn_failed"
# line LABEL A B FROM TO PINGS STALLED DIED QPMIN QPMAX MEM AVAIL: one row
line() {
	local rs r bad
	read -r rs r bad <<< "$(rstream_runs "$4" "$5")"
	printf '%-6s %7s %8s %7s %8s %8s %6s %4d %4s %5s %4d %4d %5d %7d %6s %6s %5s %5s\n' "$1" \
		"$(( $(delta "$2" "$3" "$DEVS_NS0" tx_octets) / 1000000 ))" \
		"$(delta "$2" "$3" "$DEVS_NS0" tx_fpdus)" \
		"$(( $(delta "$2" "$3" "$DEVS_NS1" tx_octets) / 1000000 ))" \
		"$(delta "$2" "$3" "$DEVS_NS1" tx_fpdus)" \
		"$6" "$((rs / 1000000))" "$r" "$((bad + ${8/-/0}))" "$7" \
		"$(delta "$2" "$3" "$ALL_DEVS" $TERMS)" \
		"$(delta "$2" "$3" "$ALL_DEVS" rx_crc_errors)" \
		"$(delta "$2" "$3" "$ALL_DEVS" cq_overflows)" \
		"$(delta "$2" "$3" "$ALL_DEVS" $CONNERR)" \
		"$9" "${10}" "${11}" "${12}" | tee -a "$W/table.txt"
}

# check_mpa DEV CRC MARKERS: every connection of DEV negotiated CRC
# "tx/rx" and Markers "tx/rx" as configured
check_mpa() {
	local f=/sys/kernel/debug/softiwarp/$1/connections n bad
	n=$(grep -c '^qp ' "$f" || true)
	bad=$(grep '^qp ' "$f" | grep -vc "crc tx/rx $2 markers tx/rx $3" || true)
	echo "mpa: $1: $n connections, $bad not crc $2 markers $3"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ] ||
		fail "$1: connections without crc $2 markers $3 (see $f)"
}

# the monitor must keep its minutes under the load (the load runs at
# LOAD_NICE: it still takes every cycle the monitor leaves)
renice -n -10 $$ > /dev/null
t_start=$(date +%s)
deadline=$(( t_start + MINUTES * 60 ))
echo "$deadline" > "$W/deadline"
count_pings
it_last=$it_now
echo "soak: $MINUTES minute(s) after a $((t_start - t_ramp)) s ramp-up, ${#rping_ids[@]} rping and ${#rstream_pids[@]} rstream slots, $(live_qps) QPs live, $it_now iterations so far"
printf '%-6s %7s %8s %7s %8s %8s %6s %4s %4s %5s %4s %4s %5s %7s %6s %6s %5s %5s\n' \
	minute "MB 0>1" "FPDU 0>1" "MB 1>0" "FPDU 1>0" pings "rs MB" runs \
	fail stall term crc cqovf connerr qp-min qp-max useMB avlMB | tee "$W/table.txt"
snap "$W/snap-0"
qp_low=1000000 qp_high=0 stalls=0
for m in $(seq "$MINUTES"); do
	qmin=1000000 qmax=0 mem=0 avail=1000000
	# at least one sample a minute, however slow the guest
	while :; do
		q=$(live_qps)
		[ "$q" -lt "$qmin" ] && qmin=$q
		[ "$q" -gt "$qmax" ] && qmax=$q
		read -r u a <<< "$(free -m | awk '/^Mem:/ { print $3, $7 }')"
		[ "$u" -gt "$mem" ] && mem=$u
		[ "$a" -lt "$avail" ] && avail=$a
		left=$(( t_start + m * 60 - $(date +%s) ))
		[ "$left" -gt 0 ] || break
		sleep $(( left < 5 ? left : 5 ))
	done
	snap "$W/snap-$m"
	count_pings
	stalls=$((stalls + stalled))
	line "$m" "$W/snap-$((m - 1))" "$W/snap-$m" \
		$(( t_start + (m - 1) * 60 )) $(( t_start + m * 60 )) \
		$((it_now - it_last)) "$stalled" "$died" "$qmin" "$qmax" "$mem" "$avail"
	it_last=$it_now
	[ "$qmin" -lt "$qp_low" ] && qp_low=$qmin
	[ "$qmax" -gt "$qp_high" ] && qp_high=$qmax
	if [ "$m" -eq 1 ]; then
		check_mpa swi0 1/1 0/0
		check_mpa swi1 1/1 0/0
		check_mpa swi2 1/1 1/1
		check_mpa swi3 1/1 1/1
		check_mpa swi4 0/0 1/0
		check_mpa swi5 0/0 0/1
	fi
done

# --- the end ------------------------------------------------------------------
# Every rping server must still run, every client too (no status yet):
# then the servers are killed (SIGTERM), and each client, seeing the
# disconnect, ends its loop and exits 0. Its stderr then holds what the
# disconnect makes rping print and nothing else (see STOP_RE).
dead_servers=0
for id in "${rping_ids[@]}"; do
	kill -0 "${SPID[$id]}" 2>/dev/null || {
		echo "slot $id: server died before the end"
		dead_servers=$((dead_servers + 1))
	}
done
count_pings
snap "$W/snap-stop"
t_stop=$(date +%s)
early=$died
for id in "${rping_ids[@]}"; do
	kill -TERM "${SPID[$id]}" 2>/dev/null || true
done
bad_clients=0
DISC='client DISCONNECT EVENT...'
for id in "${rping_ids[@]}"; do
	rc=0
	wait "${SPID[$id]}" || rc=$?
	[ "$rc" -eq 143 ] || echo "slot $id: server exit status $rc, not 143 (SIGTERM)"
done
for id in "${rping_ids[@]}"; do
	wait "${CPID[$id]}" || true
	rc=$(cat "$W/$id.status" 2>/dev/null || echo none)
	# rping's race at the disconnect (see STOP_RE): exit 255 (-1)
	if [ "$rc" = 255 ] && [ "$(head -n 1 "$W/$id.log")" = "$DISC" ] &&
		grep -qx 'rping client failed: -1' "$W/$id.log"; then
		echo "slot $id: rping's disconnect race: $(sed -n 2p "$W/$id.log")"
		rc=0
	fi
	if [ "$rc" != 0 ]; then
		echo "slot $id: client exit status $rc"
		bad_clients=$((bad_clients + 1))
	fi
done
rs_died=0
for p in "${rstream_pids[@]}"; do
	wait "$p" || rs_died=$((rs_died + 1))
done
bg_pids=()
t_end=$(date +%s)
snap "$W/snap-end"
it_final=0
for id in "${rping_ids[@]}"; do
	it_final=$((it_final + $(pings "$id")))
done
line end "$W/snap-$MINUTES" "$W/snap-end" "$deadline" $((t_end + 1)) \
	$((it_final - it_last)) - - - - \
	"$(free -m | awk '/^Mem:/ { print $3 }')" -
line total "$W/snap-0" "$W/snap-end" 0 $((t_end + 1)) "$it_final" "$stalls" \
	"$early" "$qp_low" "$qp_high" - -
echo "soak: ramp-up $((t_start - t_ramp)) s, $((t_stop - t_start)) s measured, $((t_end - t_stop)) s to stop"

# rping: every slot verified iterations in every minute; clients and
# servers ran to the end; the clients exited 0 on the disconnect.
read -r rs r bad <<< "$(rstream_runs 0 $((t_end + 1)))"
octets=0
for id in "${rping_ids[@]}"; do
	octets=$((octets + $(pings "$id") * ${SIZE[$id]} * 2))
done
echo "soak: $it_final rping iterations ($((octets / 1000000)) MB) and $((rs / 1000000)) MB in $r rstream runs verified"
echo "soak: $stalls stalled slot-minutes, $early clients and $dead_servers servers died before the end, $bad_clients clients failed, $bad failed rstream runs, $rs_died rstream slots failed"
[ "$it_final" -gt 0 ] && [ "$rs" -gt 0 ] || fail "no traffic"
[ "$stalls" -eq 0 ] || fail "slots without an iteration in a minute (see $W/stalls)"
[ "$early" -eq 0 ] && [ "$dead_servers" -eq 0 ] && [ "$bad_clients" -eq 0 ] &&
	[ "$bad" -eq 0 ] && [ "$rs_died" -eq 0 ] || fail "runs failed"
# What killing its server makes an rping client print (rping.c): the
# DISCONNECTED event first, then the state its loop finds (10,
# DISCONNECTED) instead of the one it waited for, and it exits 0. When the
# event comes between two iterations, the loop overwrites DISCONNECTED
# with the state of its next step (RDMA_READ_ADV, 6) before it waits, so
# it finds that one and fails with -1: rping's own race, seen once in 32
# slots. Its teardown has another (lib.sh, rping_server_ok): when the main
# thread destroys the event channel first, the CM thread's
# rdma_get_cm_event() fails with EBADF and prints it, after the event
# (seen once, in the 32 slots of a CI run). Anything else is an error,
# and so is any line before the event and any line of a server.
STOP_RE='^(client DISCONNECT EVENT\.\.\.|wait for RDMA_(READ|WRITE)_(ADV|COMPLETE) state [0-9]+|rping client failed: -1|rdma_get_cm_event: Bad file descriptor)$'
for id in "${rping_ids[@]}"; do
	if [ -s "$W/$id.log" ] && [ "$(head -n 1 "$W/$id.log")" != "$DISC" ]; then
		echo "slot $id: client printed before the disconnect:"
		cat "$W/$id.log"
		fail "rping client printed an error"
	fi
	if [ -n "$(grep -vE "$STOP_RE" "$W/$id.log")" ]; then
		echo "slot $id: client printed:"
		grep -vE "$STOP_RE" "$W/$id.log"
		fail "rping client printed an error"
	fi
	if [ -s "$W/$id-server.log" ]; then
		echo "slot $id: server printed:"
		cat "$W/$id-server.log"
		fail "rping server printed an error"
	fi
done
tool_log_clean "$W"/rstream-*.log || fail "rstream printed an error"
if grep -il mismatch "$W"/*.log; then
	fail "data mismatch"
fi

# the error counters stayed at zero
errs=$(delta "$W/snap-0" "$W/snap-end" "$ALL_DEVS" $TERMS rx_crc_errors cq_overflows $CONNERR)
[ "$errs" -eq 0 ] || fail "error counters moved by $errs"
# pairs B and C carry rping only
for d in $RPING_ONLY_DEVS; do
	fl=$(delta /dev/null "$W/snap-end" "$d" wr_flushed)
	co=$(delta /dev/null "$W/snap-end" "$d" conn_established)
	echo "flush: $d: $fl work requests flushed, $co connections"
done
[ "$qp_low" -ge 64 ] || fail "only $qp_low QPs live at some point"

# nothing left: no QP, CQ, MR, PD, cm_id or user context
for _ in $(seq 40); do
	left=$(timeout 10 rdma resource show |
		awk '$2 ~ /^swi[0-5]:$/ { for (i = 3; i < NF; i += 2) s += $(i + 1) }
		     END { print s + 0 }')
	[ "$left" -eq 0 ] && break
	sleep 0.5
done
rdma resource show | tee "$W/resources-after"
[ "$left" -eq 0 ] || fail "$left objects left after the soak"

for p in B C; do
	in_ns "$NS0" rdma link delete "${PAIR_DEV0[$p]}"
	in_ns "$NS1" rdma link delete "${PAIR_DEV1[$p]}"
done
netns_teardown
if [ -e $kmemleak ]; then
	echo scan > $kmemleak
	sleep 1
	echo scan > $kmemleak
	cat $kmemleak > "$W/kmemleak"
	[ -s "$W/kmemleak" ] && fail "kmemleak reports leaks (see $W/kmemleak)"
fi
echo "PASS $T"
