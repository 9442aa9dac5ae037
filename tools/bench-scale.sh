#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-scale: softiwarp (CRC on, the default) against the in-tree
# siw and TCP at scale, in one VM boot (tools/guest/bench-scale.sh says
# how each figure is taken):
#
#   - aggregate bandwidth of ib_write_bw, ib_send_bw and ib_read_bw (-R,
#     64 KiB, duration mode) with 1, 4, 16 and 64 QPs, iperf3 -P with as
#     many streams as TCP's
#   - fairness across the QPs (TCP: streams) of each of those runs: the
#     octets each connection moved in the middle half of the run (its TCP
#     socket's tcp_info, sampled as `ss -ti` shows it), the smallest over
#     the largest
#   - ib_send_lat (64 B; busy polling and -e) alone and while a 16-QP
#     ib_write_bw runs
#   - connection setup and teardown: rdmacm-utils' cmtime, 64
#     connections (siw's limit in one process) and 1000
#   - kernel memory (slab, vmalloc) per connection held idle
#     (tools/bench/qp-hold.c, 256 connections) and busy (ib_write_bw with
#     as many QPs, 64 B), and whether 1024 connections can be held in one
#     process and in four
#   - each device's max_qp, and the QPs left when all is over
#
# Prints one table (tools/bench/scale-summary.py: softiwarp, siw, TCP,
# softiwarp/siw, softiwarp/TCP) and plots the aggregate bandwidth against
# the number of QPs (build/bench-scale/scale.png); raw logs, scale.csv and
# scale.log (what failed, and why) stay in build/bench-scale/. Figures,
# not assertions: under QEMU without KVM only ratios from the same boot
# mean anything, and each figure is a single run. A figure that could not
# be taken prints as "n/a (see log N)", a hold that did not work as
# FAILED; either makes the exit status 1, after the table, when it is
# softiwarp's: siw's and TCP's are results (siw's own limits fail its
# bigger holds and connection counts), counted under the table.
#
# Takes about 17 minutes of TCG-emulated VM time (1045 s in a run with
# the defaults, 2026-11-28), plus building the test kernel and modules
# when they are not cached; the VM is given an hour at most.
#
# Knobs (environment):
#   SCALE_QPS="1 4 16 64"  the QP (and iperf3 stream) counts
#   SCALE_SECS=12          seconds of each bandwidth run (-D, iperf3 -t);
#                          fairness needs a window (half of it) longer
#                          than perftest takes to serve each QP once
#   SCALE_CM_SMALL=64      cmtime's connections in the round siw takes too
#   SCALE_CONNS=1000       cmtime's connections in the big round
#   SCALE_HOLD=256         connections held for the memory figures, in
#   SCALE_HOLD_PROCS=4     this many pairs of processes (it divides
#                          SCALE_HOLD; see the guest script for why not 1)
#   SCALE_BIG=1024         connections held in one process and in four
#                          (a multiple of 4)
#   SCALE_MEM=2048         the VM's memory, MB
set -uo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

qps=${SCALE_QPS:-1 4 16 64}
secs=${SCALE_SECS:-12}
conns=${SCALE_CONNS:-1000}
cm_small=${SCALE_CM_SMALL:-64}
hold=${SCALE_HOLD:-256}
hold_procs=${SCALE_HOLD_PROCS:-4}
big=${SCALE_BIG:-1024}
mem=${SCALE_MEM:-2048}

for v in $qps "$secs" "$conns" "$cm_small" "$hold" "$hold_procs" "$big" "$mem"; do
	case $v in
	''|*[!0-9]*|0*)
		echo "bench-scale: '$v' is no whole number > 0 (SCALE_*)" >&2
		exit 2 ;;
	esac
done
if [ -z "$qps" ] || [ $((hold % hold_procs)) -ne 0 ] ||
   [ $((big % 4)) -ne 0 ]; then
	echo "bench-scale: SCALE_QPS must name a count, SCALE_HOLD_PROCS" \
		"divide SCALE_HOLD, SCALE_BIG be a multiple of 4" >&2
	exit 2
fi

# perftest, rdmacm-utils (cmtime), iperf3, gnuplot, and the verbs and
# rdma_cm headers qp-hold is built with
"$top/tools/install-deps.sh" || exit 1
prepare_test_kernel || exit 1
build_test_modules || exit 1
res="$top/build/bench-scale"
rm -rf "$res"
mkdir -p "$res" "$top/build/tools"
# idle connected QPs, run in the guest
gcc -O2 -Wall -o "$top/build/tools/qp-hold" "$top/tools/bench/qp-hold.c" \
	-lrdmacm -libverbs || exit 1
echo "bench-scale: booting the test VM; this takes about 17 minutes"
t0=$SECONDS
"$top/tools/vm-run" -o "$res" -t 3600 -m "$mem" \
	-e "SCALE_QPS=$qps" -e "SCALE_SECS=$secs" -e "SCALE_CONNS=$conns" \
	-e "SCALE_CM_SMALL=$cm_small" \
	-e "SCALE_HOLD=$hold" -e "SCALE_HOLD_PROCS=$hold_procs" \
	-e "SCALE_BIG=$big" \
	"$top/tools/guest/bench-scale.sh"
rc=$?
echo "bench-scale: the VM ran $((SECONDS - t0)) s"
if [ ! -s "$res/scale.csv" ]; then
	echo "bench-scale: no figures (guest status $rc, console: $res/console.log)" >&2
	exit 1
fi
python3 "$top/tools/bench/scale-summary.py" "$res/scale.csv" "$res"
src=$?
if [ -f "$res/scale.gp" ]; then
	if command -v gnuplot > /dev/null && gnuplot "$res/scale.gp"; then
		echo "bench-scale: plot in $res/scale.png"
	else
		echo "bench-scale: no plot (gnuplot)" >&2
		src=1
	fi
fi
if [ "$rc" -ne 0 ]; then
	echo "bench-scale: guest exited with status $rc (see $res/scale.log," \
		"$res/console.log)" >&2
	exit "$rc"
fi
exit "$src"
