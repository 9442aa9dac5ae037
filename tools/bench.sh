#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: in one VM boot, interleaved repetitions (BENCH_REPS, default
# 3) of ib_write_bw, ib_send_bw, ib_read_bw (-R; 4 KiB, 64 KiB and 1 MiB
# in iteration mode, 64 KiB also in duration mode) and ib_send_lat (64 B,
# busy polling and -e) for softiwarp with CRC on, CRC off and Markers on,
# for siw <-> siw, iperf3 over the same kind of veth as the ceiling and
# qperf's tcp_lat (64 B, blocking) and tools/bench/tcp-pingpong (64 B,
# spinning) as TCP's latencies; the 64 KiB
# bandwidths and the latencies again with each end, its process and its
# veth's receive processing on a CPU of its own (/2h, as two hosts;
# tools/guest/bench.sh says why), there also in duration mode with the
# kernel's CPU time per GB (/kcpu/2h), beside iperf3's.
# Prints the medians with the ratios softiwarp/siw (CRC on, and off as
# siw runs), softiwarp/TCP and Markers/CRC, and plots the first three
# (build/bench/bench.png). Figures,
# not assertions: under QEMU without KVM only ratios from the same boot
# mean anything.
#
# BENCH_BASE=REF (a commit, tag or branch) adds the module as it was at REF,
# built from `git archive REF` in build/bench-base/, as configuration
# sw-base (CRC on; 64 KiB and latency) beside sw-crc in the same boot, and
# the ratio crc/base: the before and after of a change to the data path.
# BENCH_CONFIGS="sw-crc sw-base" (any of sw-crc sw-base sw-nocrc
# sw-markers sw-pref siw) measures only those configurations, and TCP: a
# shorter run, so more repetitions fit; BENCH_SIZES="65536" likewise
# limits the sizes of the iteration-mode bandwidths (default "4096 65536
# 1048576").
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$top/tools/install-deps.sh" || exit 1
"$top/tools/install-deps.sh" --bench || exit 1
prepare_test_kernel || exit 1
build_test_modules || exit 1
res="$top/build/bench"
rm -rf "$res"
mkdir -p "$res" "$top/build/tools"
# TCP's round trip with spinning sockets, run in the guest
gcc -O2 -Wall -o "$top/build/tools/tcp-pingpong" \
	"$top/tools/bench/tcp-pingpong.c" || exit 1
base_env=()
if [ -n "${BENCH_BASE:-}" ]; then
	base=$top/build/bench-base
	rm -rf "$base"
	mkdir -p "$base/src"
	echo "bench: building the module of $BENCH_BASE in $base"
	# the layer folders the base has (rdmap/ was split in three later)
	git -C "$top" archive "$BENCH_BASE" Kbuild VERSION compat.h \
		$(git -C "$top" ls-tree --name-only -d "$BENCH_BASE" |
		  grep -xE 'mpa|ddp|rdmap|engine|dev|cm') |
		tar -x -C "$base/src" || exit 1
	make -s -C "$KSRC" M="$base/src" SWI_KUNIT=n modules ||
		{ echo "bench: the module of $BENCH_BASE does not build" >&2; exit 1; }
	base_env=(-e "BENCH_BASE_KO=$base/src/softiwarp.ko")
fi
echo "bench: booting the test VM; this takes several minutes"
"$top/tools/vm-run" -o "$res" -t 3600 "${base_env[@]}" \
	${BENCH_REPS:+-e "BENCH_REPS=$BENCH_REPS"} \
	${BENCH_CONFIGS:+-e "BENCH_CONFIGS=$BENCH_CONFIGS"} \
	${BENCH_SIZES:+-e "BENCH_SIZES=$BENCH_SIZES"} \
	"$top/tools/guest/bench.sh"
rc=$?
if [ ! -s "$res/bench.csv" ]; then
	echo "bench: no figures (guest status $rc, console: $res/console.log)" >&2
	exit 1
fi
python3 "$top/tools/bench/summary.py" "$res/bench.csv" "$res" || exit 1
[ ! -f "$res/bench.gp" ] || gnuplot "$res/bench.gp" &&
	echo "bench: plot in $res/bench.png"
[ "$rc" -eq 0 ] || echo "bench: guest exited with status $rc" >&2
exit "$rc"
