#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench`: one VM boot, interleaved repetitions.
# Two veth pairs, each between two network namespaces: one pair carries
# softiwarp (swl/swr), the other the in-tree siw (siwl/siwr), so both
# drivers are measured in the same boot. Configurations: sw-crc (the
# defaults: CRC on, by the CRC32c implementation the module timed fastest
# at load, crc32c-generic under TCG), sw-nocrc, sw-markers (CRC and
# Markers), sw-pref (CRC on, the module loaded with crc32c_driver=crc32c:
# the crypto API's preferred implementation, crc32c-intel, whose SSE4.2
# instruction TCG emulates slowly; 64 KiB and latency only) and siw. Each repetition runs every
# (configuration, test) once, in the same order, so that slow phases of
# the emulated machine spread over all of them. iperf3, qperf's tcp_lat
# (blocking) and tcp-pingpong (spinning; tools/bench/tcp-pingpong.c, built
# by ../bench.sh) over the softiwarp veth give TCP's bandwidth and
# latencies. With BENCH_BASE_KO (make bench BENCH_BASE=REF: the module of
# another commit, built by ../bench.sh) one more configuration, sw-base:
# that module with CRC on, 64 KiB and latency only, beside sw-crc in the
# same boot. BENCH_CONFIGS (e.g. "sw-crc sw-base") runs only the
# configurations it names, and TCP; BENCH_SIZES (default "4096 65536
# 1048576") the sizes of the iteration-mode bandwidths.
#
# Each figure is taken in two placements. As set up, a veth hands a
# packet to the receiving namespace in the sender's softirq, on the
# sender's CPU: an RDMA receiver, which does its work in that softirq,
# then shares one CPU with the sender, while a TCP receiver copies in
# recvmsg() on its own CPU. "Two hosts" (tests named .../2h: 64 KiB
# bandwidth and the latencies) gives each end a CPU, as two machines
# would: the server (10.9x.0.1) and its veth's receive processing (RPS)
# on CPU 1, the client and its veth's on CPU 0; iperf3 and qperf are
# placed the same way.
#
# Two-host duration runs (and iperf3 there) also give the kernel's CPU
# time per GB: system, irq and softirq time of both CPUs from /proc/stat
# over the client's run, per GB both ends put on their veth (tx_bytes of
# each end: data, headers, Markers, acknowledgements). User time is left
# out: perftest busy-polls its CQ in user space whatever the driver does,
# so it would only measure the run's length. Such a figure is recorded as
# TEST/kcpu/2h (iperf3/kcpu/2h), unit ms/GB, lower is better.
#
# Writes $RESULTS/bench.csv: rep,config,test,size,value,unit
set -u
REPS=${BENCH_REPS:-3}
out=$RESULTS/bench.csv
log=$RESULTS/bench.log
: > "$out"
: > "$log"

# shellcheck source=tools/guest/drivers.sh
. "$(dirname "$0")/drivers.sh"
# placement one|2h (above): one CPU, or two hosts
# shellcheck source=tools/guest/placement.sh
. "$(dirname "$0")/placement.sh"

echo "bench: guest has $(nproc) CPUs online, kernel $(uname -r)" >&2
pairs_up

knobs() {	# CRC MARKERS
	for d in swl swr; do
		echo "$1" > /sys/class/infiniband/$d/mpa_crc
		echo "$2" > /sys/class/infiniband/$d/mpa_markers
	done
}

# ksample NSL DEVL NSR DEVR: kernel ticks (USER_HZ) of CPUs 0 and 1 and
# the octets both veth ends sent, as "TICKS OCTETS"
ksample() {
	local t b1 b2
	t=$(awk '$1 == "cpu0" || $1 == "cpu1" { n += $4 + $7 + $8 }
		END { print n }' /proc/stat)
	b1=$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_bytes")
	b2=$(ip netns exec "$3" cat "/sys/class/net/$4/statistics/tx_bytes")
	echo "$t $((b1 + b2))"
}

# kcpu_of BEFORE AFTER: ms of kernel CPU per GB between two ksamples
kcpu_of() {
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		gb = (y[2] - x[2]) / 1e9
		if (gb > 0.01)
			printf "%.1f\n", (y[1] - x[1]) * 1000 / hz / gb
	}'
}

# perftest TEST SIZE CONFIG REP [MODE] [PLACEMENT]: one figure. MODE is
# "it" (iterations, the default), "D" (duration: -D 3) or "e" (sleep on
# completion events: -e); the test is recorded as TEST, TEST/D or TEST/e,
# with /2h appended for the two-host placement.
# perftest converts its cycle counts with a CPU frequency it samples at
# start; under TCG on a busy host that sampling fails now and then
# (r^2 < 0.9, figures 0.00): such a run is repeated, up to three times,
# and left out only when all fail.
perftest() {
	local try name=$1 unit=MB/s
	[ "${5:-it}" = it ] || name=$1/$5
	[ "${6:-one}" = 2h ] && name=$name/2h
	placement "${6:-one}"
	[ "$1" = ib_send_lat ] && unit=usec
	for try in 1 2 3; do
		perftest_once "$1" "$2" "$3" "${5:-it}"
		[ "$val" != NA ] && break
		echo "bench: $name $2 $3: no figure (perftest clock), attempt $try" >&2
	done
	echo "$4,$3,$name,$2,$val,$unit" >> "$out"
	[ -n "$kcpu" ] &&
		echo "$4,$3,${name%/2h}/kcpu/2h,$2,$kcpu,ms/GB" >> "$out"
	return 0
}

# perftest_once TEST SIZE CONFIG MODE: one server/client run; sets $val,
# and $kcpu (else empty) for a duration run with two hosts
perftest_once() {
	local t=$1 size=$2 cfg=$3 mode=$4 nsl nsr dl dr ip n args vl vr k0
	case $cfg in
	siw)	nsl=siL nsr=siR dl=siwl dr=siwr ip=10.97.0.1 vl=vil vr=vir ;;
	*)	nsl=swL nsr=swR dl=swl dr=swr ip=10.98.0.1 vl=vsl vr=vsr ;;
	esac
	kcpu=
	k0=
	[ "$mode" = D ] && [ "$placed" = 2h ] &&
		k0=$(ksample $nsl $vl $nsr $vr)
	case $cfg in
	siw)		use siw ;;
	sw-pref)	use sw-pref ;;
	sw-base)	use sw-base ;;
	*)		use sw ;;
	esac
	case $cfg in
	sw-crc | sw-pref | sw-base)	knobs 1 0 ;;
	sw-nocrc)	knobs 0 0 ;;
	sw-markers)	knobs 1 1 ;;
	esac
	n=$(( size > 65536 ? 30 : size > 8192 ? 300 : 2000 ))
	[ "$t" = ib_send_lat ] && n=1000
	args=(-R -F -s "$size" -n "$n")
	case $mode in
	D)	args=(-R -F -s "$size" -D 3) ;;
	e)	args+=(-e) ;;
	esac
	ip netns exec $nsl timeout 120 "${srv_cpu[@]}" "$t" -d $dl "${args[@]}" \
		>> "$log" 2>&1 &
	sleep 1.5
	val=$(ip netns exec $nsr timeout 120 "${cli_cpu[@]}" "$t" -d $dr \
		"${args[@]}" "$ip" \
		2>> "$log" | tee -a "$log" | awk -v s="$size" -v t="$t" '
		# bandwidth: BW average [MB/s]; latency: t_typical [usec]
		$1 == s && NF >= 5 { print (t ~ /_lat$/) ? $5 : $4 }' |
		tail -n 1)
	[ -n "$k0" ] && kcpu=$(kcpu_of "$k0" "$(ksample $nsl $vl $nsr $vr)")
	# perftest prints 0.00 or inf when its cycle clock fails (TCG)
	case $val in
	''|0.00|inf|-nan|nan) val=NA kcpu= ;;
	esac
	wait
	val=${val:-NA}
}

tcp() {	# REP [2h]: iperf3 over the softiwarp veth, the ceiling
	local val name=iperf3 k0= kcpu=
	placement "${2:-one}"
	[ "${2:-one}" = 2h ] && name=iperf3/2h
	ip netns exec swL "${srv_cpu[@]}" iperf3 -s -1 >> "$log" 2>&1 &
	sleep 1
	[ "$placed" = 2h ] && k0=$(ksample swL vsl swR vsr)
	val=$(ip netns exec swR timeout 60 "${cli_cpu[@]}" iperf3 -c 10.98.0.1 \
		-t 3 -J \
		2>> "$log" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%.2f" % (d["end"]["sum_received"]["bits_per_second"] / 8e6))')
	[ -n "$k0" ] && kcpu=$(kcpu_of "$k0" "$(ksample swL vsl swR vsr)")
	wait
	echo "$1,tcp,$name,0,${val:-NA},MB/s" >> "$out"
	[ -n "$kcpu" ] && echo "$1,tcp,iperf3/kcpu/2h,0,$kcpu,ms/GB" >> "$out"
	return 0
}

tcplat() {	# REP [2h]: qperf's tcp_lat (64 B, one way) over the softiwarp veth
	local val name=tcp_lat
	placement "${2:-one}"
	[ "${2:-one}" = 2h ] && name=tcp_lat/2h
	ip netns exec swL timeout 30 "${srv_cpu[@]}" qperf >> "$log" 2>&1 &
	sleep 1
	# "    latency  =  25.3 us": the value in µs whatever unit qperf chose
	val=$(ip netns exec swR timeout 20 "${cli_cpu[@]}" qperf 10.98.0.1 \
		-m 64 -t 3 tcp_lat \
		2>> "$log" | tee -a "$log" | awk '
		$1 == "latency" {
			f = 1
			if ($4 == "ns") f = 0.001
			if ($4 == "ms") f = 1000
			if ($4 == "sec") f = 1000000
			printf "%.2f\n", $3 * f
		}')
	pkill -x qperf
	wait
	echo "$1,tcp,$name,64,${val:-NA},usec" >> "$out"
}

# tcpspin REP [2h]: TCP's latency with both ends spinning in recv()
# (64 B, one way, median of 5000), the floor of a busy-polling latency
tcpspin() {
	local val name=tcp_spin pp
	pp="$(dirname "$0")/../../build/tools/tcp-pingpong"
	placement "${2:-one}"
	[ "${2:-one}" = 2h ] && name=tcp_spin/2h
	ip netns exec swL timeout 60 "${srv_cpu[@]}" "$pp" -s >> "$log" 2>&1 &
	sleep 1
	val=$(ip netns exec swR timeout 50 "${cli_cpu[@]}" "$pp" -c 10.98.0.1 \
		-n 5000 2>> "$log" | tee -a "$log" | awk '{ print $10 }')
	wait
	echo "$1,tcp,$name,64,${val:-NA},usec" >> "$out"
}

cfgs="sw-crc sw-nocrc sw-markers sw-pref siw"
cfgs2h="sw-crc sw-nocrc sw-markers siw"
if [ -n "${BENCH_BASE_KO:-}" ]; then
	cfgs="sw-crc sw-base sw-nocrc sw-markers sw-pref siw"
	cfgs2h="sw-crc sw-base sw-nocrc sw-markers siw"
fi
# only_cfgs LIST: the configurations of LIST that BENCH_CONFIGS names
only_cfgs() {
	local c
	for c in $1; do
		case " ${BENCH_CONFIGS:-$1} " in *" $c "*) echo "$c" ;; esac
	done
}
cfgs=$(only_cfgs "$cfgs")
cfgs2h=$(only_cfgs "$cfgs2h")
if [ -z "$cfgs" ]; then
	echo "bench: BENCH_CONFIGS='${BENCH_CONFIGS:-}' names no configuration" >&2
	exit 1
fi
if [ "$(nproc)" -lt 2 ]; then
	echo "bench: one CPU: no two-host figures" >&2
	cfgs2h=
fi
for rep in $(seq "$REPS"); do
	for cfg in $cfgs; do
		sizes=${BENCH_SIZES:-4096 65536 1048576}
		# sw-pref (CRC on, by the preferred crc32c), sw-base: 64 KiB only
		case $cfg in sw-pref | sw-base) sizes=65536 ;; esac
		for t in ib_write_bw ib_send_bw ib_read_bw; do
			for size in $sizes; do
				perftest $t "$size" $cfg "$rep"
			done
			perftest $t 65536 $cfg "$rep" D
		done
		perftest ib_send_lat 64 $cfg "$rep"
		[ "$cfg" = sw-pref ] || perftest ib_send_lat 64 $cfg "$rep" e
	done
	tcp "$rep"
	tcplat "$rep"
	tcpspin "$rep"
	# two hosts: 64 KiB bandwidth and the latencies
	for cfg in $cfgs2h; do
		for t in ib_write_bw ib_send_bw ib_read_bw; do
			perftest $t 65536 $cfg "$rep" it 2h
			perftest $t 65536 $cfg "$rep" D 2h
		done
		perftest ib_send_lat 64 $cfg "$rep" it 2h
		perftest ib_send_lat 64 $cfg "$rep" e 2h
	done
	if [ -n "$cfgs2h" ]; then
		tcp "$rep" 2h
		tcplat "$rep" 2h
		tcpspin "$rep" 2h
	fi
	placement one
	echo "repetition $rep done" >&2
done
use none
rmmod softiwarp
# Every (configuration, test) needs at least one figure
python3 - "$out" <<'PY' || exit 1
import collections, csv, sys
got = collections.defaultdict(int)
for rep, cfg, test, size, value, unit in csv.reader(open(sys.argv[1])):
    got[(cfg, test, size)] += value != "NA"
missing = [k for k, n in got.items() if not n]
print("bench: no figure for", missing) if missing else None
sys.exit(1 if missing else 0)
PY
