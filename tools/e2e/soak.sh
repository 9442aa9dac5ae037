#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: many connections, mixed sizes and MPA settings, every byte
# verified, for a number of minutes (argument 1, or SOAK_MINUTES; default
# 1: the version in make e2e/check; `make soak` runs it for 10).
#
# Two namespaces joined by three veth pairs, a softiwarp device on each end:
#   pair A  swi0/swi1   CRC on, no Markers (the defaults)
#   pair B  swi2/swi3   CRC on, Markers in both directions
#   pair C  swi4/swi5   CRC off, Markers towards NS1 only
# 64 rping slots (8 per size, servers on both sides, sizes from 23 octets
# to the largest rping buffer, 65535) each run an rping server and client
# pair, -V -C N, again and again until the time is up: every iteration is
# a SEND each way, an RDMA READ and an RDMA WRITE of the buffer, and the
# client compares every byte it gets back. (rping's persistent server,
# -s -P, is not used: its single connection-manager thread races with the
# completion threads under this load, and it then breaks off connections
# in the middle of a run.) Two more slots on pair A run rstream (rsockets)
# with 1 MiB transfers and -T v (every byte checked against its sequence).
# That is 132 QPs when all are connected, and connection setup and
# teardown all along.
#
# Every minute one line: octets and FPDUs per direction (the devices'
# counters), rping iterations and rstream octets verified in runs that
# ended in that minute, runs, and the errors: failed runs (tool errors,
# clients that died), Terminates sent or received, CRC errors, CQ
# overflows, connection failures (MPA rejects, timeouts, failed
# connections), the fewest and most QPs seen live, the memory in use.
# Fails on any error, on any run that did not complete, when fewer than 64
# QPs were live at some point of the steady state, on flushed work
# requests beyond the one receive every rping QP has posted when it closes
# (pairs B and C, which carry rping only), on any QP, CQ, MR or PD left
# when all is over, on a kernel splat, and on a kmemleak report (debug
# kernel).
#
# timeout: 600
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
# SERVERS: pair, server namespace, size, iterations per run; 8 slots each
SERVERS=(
	"A 0 64 200"
	"A 0 65535 40"
	"A 1 4096 120"
	"B 0 1000 150"
	"B 1 16384 80"
	"B 0 65535 40"
	"C 1 23 200"
	"C 0 30000 60"
)

server_addr() { # PAIR SIDE
	if [ "$2" -eq 0 ]; then echo "${PAIR_IP0[$1]}"; else echo "${PAIR_IP1[$1]}"; fi
}

# --- clients --------------------------------------------------------------------
# past_deadline: the main loop has written the deadline, and it has passed
past_deadline() {
	[ -s "$W/deadline" ] && [ "$(date +%s)" -ge "$(cat "$W/deadline")" ]
}

# rping_slot ID SERVER-NS CLIENT-NS ADDR PORT SIZE COUNT: an rping server
# and client pair (-V, COUNT iterations) again and again until the
# deadline; one line per run in $W/ID.runs: "END-TIME STATUS ITERATIONS
# OCTETS-VERIFIED". rping exits 0 when the peer disconnects in the middle
# of a run, so the client's -v lines are counted: a run is complete when
# the client exits 0 after COUNT verified iterations (status 99
# otherwise) and the server ends well (97 otherwise). A failed run ends
# the slot.
rping_slot() {
	local id=$1 sns=$2 cns=$3 addr=$4 port=$5 size=$6 count=$7 rc n src spid
	while ! past_deadline; do
		timeout 240 ip netns exec "$sns" rping -s -V -a "$addr" -p "$port" \
			-S "$size" -C "$count" > "$W/$id-server.run" 2>&1 &
		spid=$!
		wait_listen "$sns" "$port" 2>> "$W/$id.log"
		read -r n rc <<< "$( { timeout 240 ip netns exec "$cns" rping -c -V -v \
			-a "$addr" -p "$port" -S "$size" -C "$count" 2>> "$W/$id.log"
			echo "status $?"; } | cut -c1-32 |
			awk '/^ping data: rdma-ping-/ { n++ } /^status / { rc = $2 }
			     END { print n + 0, rc }')"
		src=0
		wait "$spid" || src=$?
		cat "$W/$id-server.run" >> "$W/$id-server.log"
		[ "$rc" -ne 0 ] || [ "$n" -eq "$count" ] || rc=99
		[ "$rc" -ne 0 ] || rping_server_ok "$src" "$W/$id-server.run" || rc=97
		echo "$(date +%s) $rc $n $((n * size * 2))" >> "$W/$id.runs"
		[ "$rc" -eq 0 ] || return 1
	done
}

# rstream_slot ID ADDR PORT SIZE COUNT: one rstream server and client per
# run, server in NS0, client in NS1, blocking calls, data verified: COUNT
# transfers of SIZE octets each way.
rstream_slot() {
	local id=$1 addr=$2 port=$3 size=$4 count=$5 rc src spid done_runs=0
	while ! past_deadline; do
		rc=0 src=0
		timeout 240 ip netns exec "$NS0" rstream -b "$addr" -p "$port" \
			-S "$size" -C "$count" -T b -T v >> "$W/$id-server.log" 2>&1 &
		spid=$!
		wait_listen "$NS0" "$port" 2>> "$W/$id.log"
		timeout 240 ip netns exec "$NS1" rstream -s "$addr" -p "$port" \
			-S "$size" -C "$count" -T b -T v >> "$W/$id.log" 2>&1 || rc=$?
		wait "$spid" || src=$?
		[ "$rc" -ne 0 ] || rc=$src
		# every complete run adds its result row: "custom 1m 16 1 ..."
		done_runs=$((done_runs + 1))
		[ "$rc" -ne 0 ] ||
			[ "$(grep -c '^custom ' "$W/$id.log")" -eq "$done_runs" ] || rc=98
		echo "$(date +%s) $rc 0 $((count * size * 2))" >> "$W/$id.runs"
		[ "$rc" -eq 0 ] || return 1
	done
}

# The slots start 0.1 s apart; the minutes
# measured begin once all have started, so each is at full load, and the
# deadline the slots read from $W/deadline is set then.
slot_pids=()
slots=()
port=7600
for s in "${SERVERS[@]}"; do
	read -r pair side size count <<< "$s"
	for i in $(seq "$CLIENTS_PER_SERVER"); do
		port=$((port + 1))
		id=rping-$size-$port
		slots+=("$id")
		rping_slot "$id" "swns$side" "swns$((1 - side))" \
			"$(server_addr "$pair" "$side")" "$port" "$size" "$count" &
		slot_pids+=("$!")
		bg_pids+=("$!")
		sleep 0.1
	done
done
for i in 1 2; do
	id=rstream-$i
	slots+=("$id")
	rstream_slot "$id" "$IP0" $((7510 + i)) 1048576 16 &
	slot_pids+=("$!")
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
delta() {
	local a=$1 b=$2 devs=$3
	shift 3
	awk -v devs="$devs" -v names="$*" '
		BEGIN { split(devs, d); for (i in d) D[d[i]] = 1
			split(names, n); for (i in n) N[n[i]] = 1 }
		($1 in D) && ($2 in N) { if (FILENAME == ARGV[1]) s -= $3; else s += $3 }
		END { printf "%d\n", s }' "$a" "$b"
}
# live_qps: QPs of all our devices now
live_qps() {
	timeout 10 rdma resource show |
		awk '$2 ~ /^swi[0-5]:$/ { for (i = 3; i < NF; i++) if ($i == "qp") s += $(i + 1) }
		     END { print s + 0 }'
}
# runs FROM TO: "iterations rstream-octets runs failed" of runs ended in [FROM, TO)
runs() {
	local f
	for f in "$W"/*.runs; do
		[ -e "$f" ] || continue
		awk -v k="${f##*/}" '{ print k, $0 }' "$f"
	done | awk -v from="$1" -v to="$2" '
		$2 >= from && $2 < to {
			r++; if ($3 != 0) bad++
			if ($1 ~ /^rping/) it += $4; else rs += $5 }
		END { printf "%d %d %d %d\n", it, rs, r, bad }'
}
TERMS="tx_terminate_rdmap tx_terminate_ddp tx_terminate_llp rx_terminate_rdmap rx_terminate_ddp rx_terminate_llp"
CONNERR="tx_mpa_rejects rx_mpa_rejects mpa_timeouts conn_failed"
# line LABEL A B FROM TO QPMIN QPMAX MEM: one row of the table
line() {
	local it rs r bad
	read -r it rs r bad <<< "$(runs "$4" "$5")"
	printf '%-6s %9s %9s %9s %9s %8d %8s %5d %5d %5d %4d %5d %6d %6s %6s %5s\n' "$1" \
		"$(( $(delta "$2" "$3" "$DEVS_NS0" tx_octets) / 1000000 ))" \
		"$(delta "$2" "$3" "$DEVS_NS0" tx_fpdus)" \
		"$(( $(delta "$2" "$3" "$DEVS_NS1" tx_octets) / 1000000 ))" \
		"$(delta "$2" "$3" "$DEVS_NS1" tx_fpdus)" \
		"$it" "$((rs / 1000000))" "$r" "$bad" \
		"$(delta "$2" "$3" "$ALL_DEVS" $TERMS)" \
		"$(delta "$2" "$3" "$ALL_DEVS" rx_crc_errors)" \
		"$(delta "$2" "$3" "$ALL_DEVS" cq_overflows)" \
		"$(delta "$2" "$3" "$ALL_DEVS" $CONNERR)" \
		"$6" "$7" "$8" | tee -a "$W/table.txt"
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

# the monitor must keep its minutes under the load
renice -n -10 $$ > /dev/null
for _ in $(seq 90); do
	[ "$(live_qps)" -ge 120 ] && break
	sleep 1
done
t_start=$(date +%s)
deadline=$(( t_start + MINUTES * 60 ))
echo "$deadline" > "$W/deadline"
echo "soak: $MINUTES minute(s), ${#slots[@]} client slots, $(live_qps) QPs live"
printf '%-6s %9s %9s %9s %9s %8s %8s %5s %5s %5s %4s %5s %6s %6s %6s %5s\n' \
	minute "MB 0>1" "FPDU 0>1" "MB 1>0" "FPDU 1>0" pings "rs MB" runs \
	fail term crc cqovf connerr qp-min qp-max memMB | tee "$W/table.txt"
snap "$W/snap-0"
qp_low=1000000 qp_high=0
for m in $(seq "$MINUTES"); do
	qmin=1000000 qmax=0 mem=0
	while [ "$(date +%s)" -lt $(( t_start + m * 60 )) ]; do
		q=$(live_qps)
		[ "$q" -lt "$qmin" ] && qmin=$q
		[ "$q" -gt "$qmax" ] && qmax=$q
		u=$(free -m | awk '/^Mem:/ { print $3 }')
		[ "$u" -gt "$mem" ] && mem=$u
		left=$(( t_start + m * 60 - $(date +%s) ))
		[ "$left" -gt 0 ] && sleep $(( left < 5 ? left : 5 ))
	done
	snap "$W/snap-$m"
	line "$m" "$W/snap-$((m - 1))" "$W/snap-$m" \
		$(( t_start + (m - 1) * 60 )) $(( t_start + m * 60 )) "$qmin" "$qmax" "$mem"
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
# the slots finish their last run
died=0
for p in "${slot_pids[@]}"; do
	wait "$p" || died=$((died + 1))
done
bg_pids=()
t_end=$(date +%s)
snap "$W/snap-end"
line end "$W/snap-$MINUTES" "$W/snap-end" "$deadline" $((t_end + 1)) - - \
	"$(free -m | awk '/^Mem:/ { print $3 }')"
line total "$W/snap-0" "$W/snap-end" 0 $((t_end + 1)) "$qp_low" "$qp_high" -
echo "soak: $((t_end - t_start)) s from the first measured minute to the last run"

# every slot ran, and every run of every slot completed
incomplete=0
for id in "${slots[@]}"; do
	if ! [ -s "$W/$id.runs" ] || awk '$2 != 0 { bad = 1 } END { exit !bad }' "$W/$id.runs"; then
		echo "slot $id did not complete: $(tail -n 1 "$W/$id.runs" 2>/dev/null)"
		incomplete=$((incomplete + 1))
	fi
done
read -r it rs r bad <<< "$(runs 0 $((t_end + 1)))"
echo "soak: $r runs, $bad failed, $incomplete of ${#slots[@]} slots incomplete, $died died"
echo "soak: $it rping iterations and $((rs / 1000000)) MB of rstream transfers verified"
[ "$r" -gt 0 ] && [ "$it" -gt 0 ] && [ "$rs" -gt 0 ] || fail "no traffic"
[ "$bad" -eq 0 ] && [ "$incomplete" -eq 0 ] && [ "$died" -eq 0 ] ||
	fail "runs failed"
rping_logs_clean "$W"/rping-*.log || fail "rping printed an error"
tool_log_clean "$W"/rstream-*.log || fail "rstream printed an error"
if grep -il mismatch "$W"/*.log; then
	fail "data mismatch"
fi

# the error counters stayed at zero
errs=$(delta "$W/snap-0" "$W/snap-end" "$ALL_DEVS" $TERMS rx_crc_errors cq_overflows $CONNERR)
[ "$errs" -eq 0 ] || fail "error counters moved by $errs"
# pairs B and C carry rping only: each closed QP flushes the one receive it
# has posted, nothing more (a flushed send would be work lost)
for d in $RPING_ONLY_DEVS; do
	fl=$(delta /dev/null "$W/snap-end" "$d" wr_flushed)
	co=$(delta /dev/null "$W/snap-end" "$d" conn_established)
	echo "flush: $d: $fl work requests flushed, $co connections"
	[ "$fl" -eq "$co" ] || fail "$d: $fl flushed work requests for $co connections"
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
