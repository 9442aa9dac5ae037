#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench-scale`: softiwarp (CRC on, the default) and
# the in-tree siw at scale, in one boot, on the two veth pairs of
# drivers.sh (one driver's devices at a time), TCP over the softiwarp
# veth. In this order, each measurement for softiwarp then siw:
#
#   max_qp      the device's, from ibv_devinfo -v
#   bandwidth   ib_write_bw, ib_send_bw, ib_read_bw (-R, 64 KiB, -D
#               SCALE_SECS) with -q N for N in SCALE_QPS: the aggregate
#               perftest prints; iperf3 -P N as TCP's. Two hosts
#               (placement.sh): server and its veth's receive processing
#               on CPU 1, client on CPU 0.
#   fairness    of each of those runs with N > 1: how the octets spread
#               over its N connections (perftest and iperf3 report no
#               per-connection figure, but each QP of softiwarp and siw
#               is a TCP connection of the kernel). The tcp_info (what
#               `ss -ti` shows; SAMPLER_PY) of the client's established
#               connections to the server's port (perftest's rdma_cm
#               port, iperf3's 5201) every SCALE_SECS/8 s through the
#               run; between the samples at about 1/4 and 3/4 of the
#               data's flow, the growth per connection of the data's
#               direction (bytes_acked: the client sends; bytes_received
#               for ib_read_bw, whose responder, the server, sends); the
#               smallest over the largest (1: even; the issue asks 0.8).
#               FAIR_PY says how the run is found in the samples and
#               which connections count. Jain's index and each
#               connection's figure in logs/NAME.fair.log.
#   latency     ib_send_lat (-R, 64 B, 1000 iterations, t_typical), busy
#               polling and -e, alone and while a 16-QP ib_write_bw (64
#               KiB) runs on the same pair (another port); a loaded
#               run without a figure keeps its packets (server's veth,
#               tcpdump) in logs/NAME.pcap, the devices' counters in
#               logs/NAME.stat
#   setup       cmtime -c SCALE_CM_SMALL (64: what siw can hold in one
#               process), then -c SCALE_CONNS: the client's create qp,
#               connect and disconnect per connection, and the slowest
#               connect
#   memory      kernel memory (/proc/meminfo: SReclaimable + SUnreclaim,
#               VmallocUsed; reclaimable caches dropped before each
#               reading) while connections are held, minus before, per
#               connection (both ends: one QP, socket and cm_id each, all
#               in this kernel): SCALE_HOLD connections held idle by
#               tools/bench/qp-hold in SCALE_HOLD_PROCS pairs of processes,
#               and busy, as many ib_write_bw pairs (-q SCALE_HOLD /
#               SCALE_HOLD_PROCS, 64 B) running; then SCALE_BIG connections
#               held in one process and in 4: whether that worked, and the
#               memory. (libsiw refuses a queue whose mmap key is 0x90000,
#               the 145th page mapped in one user context: see
#               dev/softiwarp.h; hence several processes for the idle
#               figure, and siw may fail the bigger holds.)
#   teardown    the QPs left on each pair at the end
#
# Every planned figure is first written as NA ("not run"); a figure that
# could not be taken stays NA with the log that says why, a hold that
# failed is FAILED: tools/bench/scale-summary.py prints them as n/a or
# FAILED with that log and fails. Writes $RESULTS/scale.csv (lines
# metric,driver,value,unit,log; driver sw, siw or tcp; the last line of a
# metric and driver counts), $RESULTS/scale.log (what failed, and why) and
# the tools' output in $RESULTS/logs/. Exits 1 when the kernel log has a
# splat, else 0.
set -u
QPS=${SCALE_QPS:-1 4 16 64}
SECS=${SCALE_SECS:-12}
CONNS=${SCALE_CONNS:-1000}
HOLD=${SCALE_HOLD:-256}
HOLD_PROCS=${SCALE_HOLD_PROCS:-4}
BIG=${SCALE_BIG:-1024}
BIG_PROCS=4
LOAD_QPS=16
LOAD_SECS=40
LAT_ITERS=1000
BUSY_SECS=30
PT_PORT=18515		# perftest (the busy pairs: up to +HOLD_PROCS - 1)
IPERF_PORT=5201		# iperf3's default
LAT_PORT=18600		# ib_send_lat beside the load
HOLD_PORT=7480		# qp-hold (+ the process's index)
CM_PORT=7471		# cmtime's, fixed
# cmtime's connections in the round that siw can take too: libsiw fails
# a process's 70th QP or so (the mmap key limit below), cmtime holds them
# all in one
CM_SMALL=${SCALE_CM_SMALL:-64}
out=$RESULTS/scale.csv
log=$RESULTS/scale.log
L=$RESULTS/logs
QPH=$(dirname "$0")/../../build/tools/qp-hold
# what counts as an error line in a tool's output (tools/e2e/lib.sh's,
# with cmtime's "failure ..." and qp-hold's own)
ERR_RE="Failed to|ERRNO|[Ee]rror|[Ff]ail|Couldn't|Unable to|Unhandled|out of memory|^qp-hold: "
# the interval of the fairness samples: an eighth of a bandwidth run
SAMPLE=$(awk -v s="$SECS" 'BEGIN { print s / 8 }')
: > "$log"
rm -rf "$L"
mkdir -p "$L"

# shellcheck source=tools/guest/drivers.sh
. "$(dirname "$0")/drivers.sh"
# placement one|2h: one CPU as the veth gives it, or two hosts
# shellcheck source=tools/guest/placement.sh
. "$(dirname "$0")/placement.sh"

note() {	# TEXT: what failed, in scale.log and on the console
	echo "bench-scale: $*" | tee -a "$log" >&2
}

rec() {		# METRIC DRIVER VALUE UNIT LOG: one line of scale.csv
	echo "$1,$2,${3:-NA},$4,$5" >> "$out"
}

# ends DRIVER: its pair's namespaces, devices, server address and veths;
# its devices in place (softiwarp: CRC on, no Markers) and ACTIVE
ends() {
	local d
	case $1 in
	siw)	nsl=siL nsr=siR dl=siwl dr=siwr ip=10.97.0.1 vl=vil ;;
	*)	nsl=swL nsr=swR dl=swl dr=swr ip=10.98.0.1 vl=vsl ;;
	esac
	use "$1"
	if [ "$1" = sw ]; then
		for d in swl swr; do
			echo 1 > /sys/class/infiniband/$d/mpa_crc
			echo 0 > /sys/class/infiniband/$d/mpa_markers
		done
	fi
	for _ in $(seq 50); do
		rdma link show "$dl/1" | grep -q 'state ACTIVE' &&
			rdma link show "$dr/1" | grep -q 'state ACTIVE' && return 0
		sleep 0.1
	done
	note "$dl, $dr: ports not ACTIVE"
}

# listening NS PORT yes|no: wait (up to 20 s) until a TCP listener on PORT
# in NS is there (yes) or gone (no). The iWARP CM listens through a kernel
# TCP socket, and takes an ended server's listener down asynchronously.
listening() {
	local out
	for _ in $(seq 100); do
		out=$(ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)
		[ "$3" = yes ] && [ -n "$out" ] && return 0
		[ "$3" = no ] && [ -z "$out" ] && return 0
		sleep 0.2
	done
	note "TCP listener on port $2 in $1: wanted $3 after 20 s"
	return 1
}

clean() {	# LOG...: no error line in the logs (those found are noted)
	local bad
	bad=$(grep -HnE "$ERR_RE" "$@")
	[ -z "$bad" ] && return 0
	note "error lines:"
	echo "$bad" | tee -a "$log" >&2
	return 1
}

# pt_start NAME PORT TOOL ARGS...: TOOL's server (left namespace and
# device) and then, in the background, its client, both with -R -F -p
# PORT and ARGS; output in $L/NAME.server.log and $L/NAME.client.log;
# sets spid and cpid
pt_start() {
	local name=$1 port=$2 t=$3
	shift 3
	listening "$nsl" "$port" no
	timeout 600 ip netns exec "$nsl" "${srv_cpu[@]}" stdbuf -oL \
		"$t" -d "$dl" -R -F -p "$port" "$@" \
		> "$L/$name.server.log" 2>&1 &
	spid=$!
	listening "$nsl" "$port" yes
	timeout 600 ip netns exec "$nsr" "${cli_cpu[@]}" stdbuf -oL \
		"$t" -d "$dr" -R -F -p "$port" "$@" "$ip" \
		> "$L/$name.client.log" 2>&1 &
	cpid=$!
}

# server_end NAME CRC SPID SECS [stop]: NAME's client has exited CRC;
# give its server SPID SECS seconds to exit by itself, then SIGTERM it.
# perftest's and iperf3's servers exit after their client: one we had to
# stop failed (143). With "stop" the server may wait for more (cmtime's):
# our stopping it is no failure. Returns 0 when both exited 0, else notes
# their statuses and returns 1.
server_end() {
	local name=$1 crc=$2 spid=$3 src=0 ours=0 i
	for ((i = 0; i < $4 * 5; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	if kill "$spid" 2>/dev/null && [ "${5:-}" = stop ]; then
		ours=1
		echo "bench-scale: $name: server stopped after the client" >&2
	fi
	wait "$spid" || src=$?
	[ "$ours" -eq 1 ] && [ "$src" -eq 143 ] && src=0
	[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && return 0
	note "$name: client exited $crc, server $src"
	return 1
}

# pt_finish NAME SIZE COLUMN: wait for the pair pt_start began (the server
# gets 20 s after its client; a sampler running stops with the client);
# sets val to COLUMN of the client's row for SIZE (4: BW average, MiB/s;
# 5: t_typical, usec). Returns 0 with a
# figure, 2 when the run was clean but perftest's clock failed (0.00,
# inf: TCG), 1 on anything else (noted).
pt_finish() {
	local name=$1 crc=0
	val=NA
	wait "$cpid" || crc=$?
	sampler_stop
	server_end "$name" "$crc" "$spid" 20 || return 1
	clean "$L/$name.client.log" "$L/$name.server.log" || return 1
	val=$(awk -v s="$2" -v c="$3" '$1 == s && NF >= 5 { v = $c }
		END { print v }' "$L/$name.client.log")
	case $val in
	'')	note "$name: no result row for $2 octets"
		val=NA
		return 1 ;;
	0.00|inf|-nan|nan)
		note "$name: perftest's clock failed ($val)"
		val=NA
		return 2 ;;
	esac
	return 0
}

# pt_figure NAME METRIC DRIVER UNIT SIZE COLUMN TOOL ARGS...: one figure; a
# run whose clock failed gets two more tries (NAME-2, NAME-3)
pt_figure() {
	local name=$1 metric=$2 drv=$3 unit=$4 size=$5 col=$6 try n
	shift 6
	for try in 1 2 3; do
		n=$name
		[ "$try" -gt 1 ] && n=$name-$try
		pt_start "$n" "$PT_PORT" "$@" -s "$size"
		pt_finish "$n" "$size" "$col"
		[ $? -eq 2 ] || break
	done
	rec "$metric" "$drv" "$val" "$unit" "logs/$n.client.log"
}

# SAMPLER_PY: tools/guest/tcp-sampler.py (its docstring says what it does)
SAMPLER_PY=$(dirname "$0")/tcp-sampler.py

# sampler NAME NS PORT: SAMPLER_PY in NS every SAMPLE seconds, in the
# background ($smpid), into a tmpfs ($TMPDIR) until sampler_stop moves
# it to $L/NAME.ss; returns once the first sample is there. Started
# before the client of the run NAME: the connections of that sample are
# not the run's. It runs SCHED_FIFO, above perftest's busy polling on both
# CPUs and softiwarp's transmit worker (nice -20).
smpid='' smpf='' smpn=''
sampler() {
	smpn=$1 smpf=${TMPDIR:-/tmp}/bench-scale-$1.ss
	rm -f "$smpf"
	timeout 900 ip netns exec "$2" chrt -f 10 \
		python3 "$SAMPLER_PY" "$3" "$SAMPLE" "$smpf" \
		> "$L/$1.sampler.log" 2>&1 &
	smpid=$!
	for _ in $(seq 200); do
		grep -qs '^# end' "$smpf" && return 0
		kill -0 "$smpid" 2>/dev/null || break
		sleep 0.1
	done
	note "$1: the sampler did not start (logs/$1.sampler.log)"
	return 1
}

sampler_stop() {	# the sampler, if one runs; its samples to $L
	[ -n "$smpid" ] || return 0
	kill "$smpid" 2>/dev/null
	wait "$smpid" 2>/dev/null
	mv "$smpf" "$L/$smpn.ss" 2>/dev/null
	[ -s "$L/$smpn.sampler.log" ] || rm -f "$L/$smpn.sampler.log"
	smpid=''
}

# FAIR_PY: tools/guest/fairness.py (its docstring says what it does)
FAIR_PY=$(dirname "$0")/fairness.py

# fairness NAME FIELD N [JSON]: FAIR_PY over NAME's samples, its output
# in $L/NAME.fair.log; sets fval to min/max and returns 0, else notes why
# not and returns 1
fairness() {
	local f=$L/$1.fair.log
	python3 "$FAIR_PY" "$2" "$3" "$L/$1.ss" ${4:+"$4"} > "$f" 2>&1
	fval=$(awk '$1 == "fairness" && $2 == "min/max" { print $3 }' "$f")
	[ -n "$fval" ] && return 0
	note "$1: no fairness: $(tail -n 1 "$f")"
	fval=NA
	return 1
}

# bw DRIVER TEST Q: TEST's aggregate bandwidth with Q QPs (64 KiB,
# SCALE_SECS) as pt_figure takes it, and with Q > 1 the fairness across
# its connections in the same run: "TEST q=Q fairness", from the
# client's end (softiwarp's and siw's kernel sockets)
bw() {
	local drv=$1 t=$2 q=$3 name try n st field=bytes_acked
	name=$drv-$t-q$q
	[ "$t" = ib_read_bw ] && field=bytes_received	# the server sends
	ends "$drv"
	for try in 1 2 3; do
		n=$name
		[ "$try" -gt 1 ] && n=$name-$try
		[ "$q" -gt 1 ] && sampler "$n" "$nsr" "$PT_PORT"
		pt_start "$n" "$PT_PORT" "$t" -q "$q" -D "$SECS" -s 65536
		pt_finish "$n" 65536 4
		st=$?
		[ $st -eq 2 ] || break
	done
	rec "$t q=$q" "$drv" "$val" MiB/s "logs/$n.client.log"
	[ "$q" -gt 1 ] || return 0
	# perftest's clock is not needed here: a clean run will do
	if [ "$st" -ne 1 ] && fairness "$n" "$field" "$q"; then
		rec "$t q=$q fairness" "$drv" "$fval" min/max "logs/$n.fair.log"
	else
		rec "$t q=$q fairness" "$drv" NA min/max "logs/$n.client.log"
	fi
}

# all_say PATTERN SECS: wait until every log of $plogs has a line
# matching PATTERN (0), or one of $pids ended first or SECS passed (1)
pids=() plogs=()
all_say() {
	local end=$((SECONDS + $2)) f p n
	while :; do
		n=0
		for f in "${plogs[@]}"; do
			grep -q -- "$1" "$f" 2>/dev/null && n=$((n + 1))
		done
		[ "$n" -eq "${#plogs[@]}" ] && return 0
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && continue
			note "a process ended before all said '$1' ($n of ${#plogs[@]} did)"
			return 1
		done
		if [ "$SECONDS" -ge "$end" ]; then
			note "$n of ${#plogs[@]} said '$1' after $2 s"
			return 1
		fi
		sleep 1
	done
}

stop() {	# PID...: SIGTERM each, then wait for each; 1 if one failed
	local p s rc=0
	for p in "$@"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "$@"; do
		wait "$p"
		s=$?
		[ "$s" -eq 0 ] && continue
		note "process $p exited $s"
		rc=1
	done
	return $rc
}

qps_on() {	# DEV...: the QPs these devices hold now
	rdma resource show 2>/dev/null | awk -v a="$1:" -v b="${2:-}:" '
		$2 == a || $2 == b {
			for (i = 3; i < NF; i++) if ($i == "qp") s += $(i + 1)
		}
		END { print s + 0 }'
}

settle() {	# until the current pair holds no QP (60 s at most)
	for _ in $(seq 120); do
		[ "$(qps_on "$dl" "$dr")" -eq 0 ] && return 0
		sleep 0.5
	done
	note "$dl, $dr: $(qps_on "$dl" "$dr") QPs still there after 60 s"
	return 1
}

# meminfo: "SLAB VMALLOC" in kB now (SReclaimable + SUnreclaim,
# VmallocUsed), the reclaimable caches dropped first
meminfo() {
	sync
	echo 2 > /proc/sys/vm/drop_caches
	awk '$1 == "SReclaimable:" || $1 == "SUnreclaim:" { s += $2 }
		$1 == "VmallocUsed:" { v = $2 }
		END { print s, v }' /proc/meminfo
}

# per_conn BEFORE AFTER FIELD N: growth of meminfo's FIELD (1: slab, 2:
# vmalloc) per connection, KiB
per_conn() {
	awk -v a="$1" -v b="$2" -v f="$3" -v n="$4" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		printf "%.1f\n", (y[f] - x[f]) / n
	}'
}

maxqp() {	# DRIVER: the device's max_qp
	local f=$L/$1-devinfo.txt
	ends "$1"
	ip netns exec "$nsl" ibv_devinfo -v -d "$dl" > "$f" 2>&1
	rec "max_qp (device)" "$1" \
		"$(awk '$1 == "max_qp:" { print $2; exit }' "$f")" QPs \
		"logs/$1-devinfo.txt"
}

# IPERF_PY: tools/guest/iperf-mibs.py (its docstring says what it does)
IPERF_PY=$(dirname "$0")/iperf-mibs.py

# iperf P: iperf3 -P P over the softiwarp veth, MiB/s, and with P > 1
# the fairness across its streams: "iperf3 P=P fairness"
iperf() {
	local name=tcp-iperf3-P$1 crc=0 v='' fv=NA flog
	listening swL "$IPERF_PORT" no
	timeout 120 ip netns exec swL "${srv_cpu[@]}" iperf3 -s -1 \
		-p "$IPERF_PORT" > "$L/$name.server.log" 2>&1 &
	spid=$!
	listening swL "$IPERF_PORT" yes
	[ "$1" -gt 1 ] && sampler "$name" swR "$IPERF_PORT"
	timeout 120 ip netns exec swR "${cli_cpu[@]}" iperf3 -c 10.98.0.1 \
		-p "$IPERF_PORT" -t "$SECS" -P "$1" -J > "$L/$name.json" \
		2> "$L/$name.client.log" || crc=$?
	sampler_stop
	if server_end "$name" "$crc" "$spid" 10; then
		v=$(python3 "$IPERF_PY" "$L/$name.json") ||
			note "$name: no figure"
	fi
	rec "iperf3 P=$1" tcp "$v" MiB/s "logs/$name.json"
	[ "$1" -gt 1 ] || return 0
	flog=logs/$name.json
	if [ -n "$v" ] && fairness "$name" bytes_acked "$1" "$L/$name.json"
	then
		fv=$fval flog=logs/$name.fair.log
	fi
	rec "iperf3 P=$1 fairness" tcp "$fv" min/max "$flog"
}

lat_alone() {	# DRIVER poll|e
	local e=() m=''
	[ "$2" = e ] && e=(-e) m=/e
	ends "$1"
	pt_figure "$1-lat${m//\//-}-alone" "ib_send_lat$m alone" "$1" usec 64 5 \
		ib_send_lat -n "$LAT_ITERS" "${e[@]}"
}

# lat_loaded DRIVER poll|e: ib_send_lat while an ib_write_bw of LOAD_QPS
# QPs (64 KiB, LOAD_SECS) runs on the same pair; no figure unless the load
# ran clean from before the latency run to after it
lat_loaded() {
	local e=() m='' name lname lspid lcpid v=NA tdpid d
	[ "$2" = e ] && e=(-e) m=/e
	name=$1-lat${m//\//-}-loaded lname=$1-load${m//\//-}
	ends "$1"
	pt_start "$lname" "$PT_PORT" ib_write_bw -s 65536 -q "$LOAD_QPS" \
		-D "$LOAD_SECS"
	lspid=$spid lcpid=$cpid
	pids=("$lspid" "$lcpid") plogs=("$L/$lname.client.log")
	if all_say '#bytes' 120; then
		# the latency run's packets, kept when it fails
		ip netns exec "$nsl" tcpdump -i "$vl" -nn -s 128 \
			-w "$L/$name.pcap" "tcp port $LAT_PORT" \
			> /dev/null 2>&1 &
		tdpid=$!
		pt_start "$name" "$LAT_PORT" ib_send_lat -s 64 -n "$LAT_ITERS" \
			"${e[@]}"
		pt_finish "$name" 64 5 && v=$val
		kill "$tdpid" 2>/dev/null
		wait "$tdpid"
		if [ "$v" = NA ]; then
			# who refused: rx_mpa_rejects, tx_mpa_rejects
			for d in "$dl" "$dr"; do
				timeout 10 rdma statistic show link "$d/1"
			done > "$L/$name.stat" 2>&1
		else
			rm -f "$L/$name.pcap"
		fi
		if ! kill -0 "$lcpid" 2>/dev/null; then
			note "$name: the load ended before the latency run"
			v=NA
		fi
	else
		kill -TERM "${pids[@]}" 2>/dev/null
	fi
	spid=$lspid cpid=$lcpid
	pt_finish "$lname" 65536 4
	[ $? -eq 1 ] && v=NA
	rec "ib_send_lat$m under load" "$1" "$v" usec "logs/$name.client.log"
}

cm() {		# DRIVER N: cmtime with N connections
	local name=$1-cmtime-$2 crc=0 ok=1 f step unit col n=$2
	f=$L/$name.client.log
	ends "$1"
	settle
	listening "$nsl" "$CM_PORT" no
	timeout 900 ip netns exec "$nsl" cmtime -b "$ip" -c "$n" \
		> "$L/$name.server.log" 2>&1 &
	spid=$!
	listening "$nsl" "$CM_PORT" yes
	timeout 900 ip netns exec "$nsr" cmtime -s "$ip" -c "$n" \
		> "$f" 2>&1 || crc=$?
	# cmtime's server may still wait for more connections: stopping
	# it is ours, not its failure
	server_end "$name" "$crc" "$spid" 60 stop || ok=0
	clean "$f" "$L/$name.server.log" || ok=0
	# "connect      :  TOTAL_MS  MAX_MS  MIN_US  US_PER_CONN", printed
	# "%10.2f" each: a MAX_MS of 10 digits or more runs into MIN_US
	# ("30984.8010083759.00"), so MAX_MS is taken as the first number
	# with two decimals of its field, US_PER_CONN as the last field
	for step in "create qp:4:us/conn" "connect:4:us/conn" \
		    "connect:2:ms" "disconnect:4:us/conn"; do
		col=${step#*:} unit=${col#*:} col=${col%%:*} step=${step%%:*}
		val=NA
		[ "$ok" -eq 1 ] && val=$(awk -F: -v s="$step" -v c="$col" '
			{ n = $1; sub(/ +$/, "", n); k = split($2, f, " ") }
			n != s || k < 3 { next }
			c == 4 { print f[k]; next }
			match(f[2], /^[0-9]+\.[0-9][0-9]/) {
				print substr(f[2], 1, RLENGTH) }' "$f")
		[ -n "$val" ] || { note "$name: no '$step' line"; val=NA; }
		[ "$col" = 2 ] && step="$step max"
		rec "cmtime $n: $step" "$1" "$val" "$unit" "logs/$name.client.log"
	done
}

# hold ID TITLE DRIVER N PROCS: PROCS pairs of qp-hold (server left,
# client right), N/PROCS connections each, held idle; records "TITLE:
# held" (yes or FAILED) and the slab and vmalloc growth per connection
# while held; the processes' output in $L/DRIVER-ID-*.log
hold() {
	local id=$1 tag=$2 drv=$3 n=$4 procs=$5 per i ok=1 m0 m1='' f lg
	local spids=() cpids=()
	per=$((n / procs))
	lg="logs/$drv-$id-*.log"
	ends "$drv"
	settle
	m0=$(meminfo)
	pids=() plogs=()
	for ((i = 0; i < procs; i++)); do
		f=$L/$drv-$id-server$i.log
		listening "$nsl" $((HOLD_PORT + i)) no
		timeout 1800 ip netns exec "$nsl" "$QPH" -s "$ip" \
			-p $((HOLD_PORT + i)) -n "$per" > "$f" 2>&1 &
		spids+=("$!") plogs+=("$f")
	done
	for ((i = 0; i < procs; i++)); do
		listening "$nsl" $((HOLD_PORT + i)) yes || ok=0
	done
	if [ "$ok" -eq 1 ]; then
		for ((i = 0; i < procs; i++)); do
			f=$L/$drv-$id-client$i.log
			timeout 1800 ip netns exec "$nsr" "$QPH" -c "$ip" \
				-p $((HOLD_PORT + i)) -n "$per" > "$f" 2>&1 &
			cpids+=("$!") plogs+=("$f")
		done
		pids=("${spids[@]}" "${cpids[@]}")
		all_say '^held ' 900 || ok=0
	fi
	if [ "$ok" -eq 1 ]; then
		sleep 2
		m1=$(meminfo)
		if grep -q '^lost ' "${plogs[@]}"; then
			note "$drv $tag: connections lost while held"
			ok=0
		fi
	fi
	rdma resource show > "$L/$drv-$id-resources.txt" 2>&1
	# the clients first: each disconnects its connections
	stop "${cpids[@]}" || ok=0
	stop "${spids[@]}" || ok=0
	clean "${plogs[@]}" || ok=0
	if [ "$ok" -eq 1 ]; then
		rec "$tag: held" "$drv" yes - "$lg"
		rec "$tag: slab" "$drv" "$(per_conn "$m0" "$m1" 1 "$n")" \
			KiB/conn "$lg"
		rec "$tag: vmalloc" "$drv" "$(per_conn "$m0" "$m1" 2 "$n")" \
			KiB/conn "$lg"
	else
		note "$drv $tag: no figure ($lg)"
		rec "$tag: held" "$drv" FAILED - "$lg"
	fi
}

# busy ID TITLE DRIVER N PROCS: PROCS ib_write_bw pairs at once (-q
# N/PROCS, 64 B, BUSY_SECS); the slab and vmalloc growth per connection
# while all of them run
busy() {
	local id=$1 tag=$2 drv=$3 n=$4 procs=$5 per i ok=1 m0 m1='' name lg
	local sp=() cp=() names=()
	per=$((n / procs))
	lg="logs/$drv-$id-*.client.log"
	ends "$drv"
	settle
	m0=$(meminfo)
	pids=() plogs=()
	for ((i = 0; i < procs; i++)); do
		name=$drv-$id-$i
		pt_start "$name" $((PT_PORT + i)) ib_write_bw -s 64 -q "$per" \
			-D "$BUSY_SECS"
		sp+=("$spid") cp+=("$cpid") names+=("$name")
		pids+=("$spid" "$cpid") plogs+=("$L/$name.client.log")
	done
	if ! all_say '#bytes' 300; then
		ok=0
		kill -TERM "${pids[@]}" 2>/dev/null
	fi
	if [ "$ok" -eq 1 ]; then
		sleep 2
		m1=$(meminfo)
		for i in "${cp[@]}"; do
			kill -0 "$i" 2>/dev/null && continue
			note "$drv $tag: a run ended before the reading"
			ok=0
		done
	fi
	for ((i = 0; i < procs; i++)); do
		spid=${sp[i]} cpid=${cp[i]}
		pt_finish "${names[i]}" 64 4
		[ $? -eq 1 ] && ok=0
	done
	if [ "$ok" -eq 1 ]; then
		rec "$tag: slab" "$drv" "$(per_conn "$m0" "$m1" 1 "$n")" \
			KiB/conn "$lg"
		rec "$tag: vmalloc" "$drv" "$(per_conn "$m0" "$m1" 2 "$n")" \
			KiB/conn "$lg"
	else
		note "$drv $tag: no figure ($lg)"
	fi
}

left() {	# DRIVER: the QPs its pair holds at the end
	ends "$1"
	settle
	rdma resource show > "$L/$1-resources-end.txt" 2>&1
	rec "QPs left at the end" "$1" "$(qps_on "$dl" "$dr")" QPs \
		"logs/$1-resources-end.txt"
}

# the names of the tests of memory, also in plan
T_IDLE="idle $HOLD ($HOLD_PROCS procs)"
T_BUSY="busy $HOLD ($HOLD_PROCS x ib_write_bw)"
T_BIG1="$BIG in 1 process"
T_BIGN="$BIG in $BIG_PROCS processes"

plan() {	# every figure, NA until taken, in the order of the table
	local d q t m n
	: > "$out"
	for d in sw siw; do
		rec "max_qp (device)" $d NA QPs "not run"
	done
	for q in $QPS; do
		for t in ib_write_bw ib_send_bw ib_read_bw; do
			for d in sw siw; do
				rec "$t q=$q" $d NA MiB/s "not run"
			done
			[ "$q" -gt 1 ] || continue
			for d in sw siw; do
				rec "$t q=$q fairness" $d NA min/max "not run"
			done
		done
		rec "iperf3 P=$q" tcp NA MiB/s "not run"
		[ "$q" -gt 1 ] &&
			rec "iperf3 P=$q fairness" tcp NA min/max "not run"
	done
	for m in "" /e; do
		for d in sw siw; do
			rec "ib_send_lat$m alone" $d NA usec "not run"
			rec "ib_send_lat$m under load" $d NA usec "not run"
		done
	done
	for n in $CM_SMALL $CONNS; do
		for d in sw siw; do
			rec "cmtime $n: create qp" $d NA us/conn "not run"
			rec "cmtime $n: connect" $d NA us/conn "not run"
			rec "cmtime $n: connect max" $d NA ms "not run"
			rec "cmtime $n: disconnect" $d NA us/conn "not run"
		done
	done
	for t in "$T_IDLE" "$T_BUSY" "$T_BIG1" "$T_BIGN"; do
		for d in sw siw; do
			[ "$t" = "$T_BUSY" ] ||
				rec "$t: held" $d NA - "not run"
			rec "$t: slab" $d NA KiB/conn "not run"
			rec "$t: vmalloc" $d NA KiB/conn "not run"
		done
	done
	for d in sw siw; do
		rec "QPs left at the end" $d NA QPs "not run"
	done
}

echo "bench-scale: guest has $(nproc) CPUs online, $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) kB, kernel $(uname -r)" >&2
# cmtime's server and client each open two completion channels per
# connection (librdmacm's per-id CQs)
ulimit -n 65536 || note "no ulimit -n 65536: cmtime may run out of files"
plan
pairs_up
dmesg -C

for drv in sw siw; do
	maxqp $drv
done

if [ "$(nproc)" -ge 2 ]; then
	placement 2h
else
	note "one CPU: bandwidth and latency without the two-host placement"
	placement one
fi
for q in $QPS; do
	for t in ib_write_bw ib_send_bw ib_read_bw; do
		for drv in sw siw; do
			bw $drv "$t" "$q"
		done
	done
	iperf "$q"
	echo "bench-scale: bandwidth with $q QPs done" >&2
done
for mode in poll e; do
	for drv in sw siw; do
		lat_alone $drv $mode
		lat_loaded $drv $mode
	done
done
echo "bench-scale: latency done" >&2

placement one
for n in $CM_SMALL $CONNS; do
	for drv in sw siw; do
		cm $drv "$n"
	done
done
echo "bench-scale: cmtime done" >&2
for drv in sw siw; do
	hold idle "$T_IDLE" $drv "$HOLD" "$HOLD_PROCS"
	busy busy "$T_BUSY" $drv "$HOLD" "$HOLD_PROCS"
	hold big1 "$T_BIG1" $drv "$BIG" 1
	hold bign "$T_BIGN" $drv "$BIG" "$BIG_PROCS"
	echo "bench-scale: memory of $drv done" >&2
done
for drv in sw siw; do
	left $drv
done
use none

dmesg > "$L/dmesg.txt"
if grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace' "$L/dmesg.txt"; then
	note "the kernel log has a splat (logs/dmesg.txt)"
	exit 1
fi
exit 0
