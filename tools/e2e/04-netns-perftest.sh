#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest between two softiwarp devices in two network namespaces joined
# by a veth pair (the setup of 03-netns-rping.sh): ib_send_bw, ib_write_bw
# and ib_read_bw over every message size from 2 octets to 8 MiB (-a), and
# ib_send_lat. Proves that the data path keeps up with what rdma-core's
# standard benchmarks do - deep send queues, many outstanding RDMA READs,
# messages far larger than one FPDU - and that each tool completes and
# prints its result table. ib_send_bw runs three times: CRC on (the
# default), CRC off on both devices, Markers requested by both devices.
# ib_send_bw and ib_read_bw also run with 16 QPs in one process (below).
# ib_read_bw also runs in duration mode with CRC off: its warm-up drains
# 128 outstanding Reads and refills them at once, so the responder's IRD
# is full while Responses go out at full speed; an IRD entry released
# only after sendmsg() returned made every such run end in a Terminate.
#
# Not a performance test: under QEMU TCG absolute figures mean nothing
# (TESTBED.md); the iteration count is kept small. Six runs of 23 sizes up
# to 8 MiB take 4-5 minutes under TCG (50 s per run measured), more on a
# loaded host: the test asks for a longer limit than the default 300 s.
#
# timeout: 600
#
# perftest options, per TESTBED.md: iWARP needs -R (rdma_cm); -F silences
# the CPU-frequency warning in a VM; -e is not used (ib_write_bw lacks it).
# -d names the device explicitly, since both devices are visible in both
# namespaces and perftest would otherwise take the first one listed. The
# server must listen before the client starts: we wait for its TCP
# listener (the iWARP CM listens through a kernel TCP socket).
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=04-netns-perftest
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
PERF_PORT=18515             # perftest's default port
ITERS=20                    # per message size (perftest's minimum is 5)
LAT_ITERS=100
. "$(dirname "$0")/netns-lib.sh"

# perf_run TAG TOOL LASTSIZE ARGS...: TOOL's server in NS0 on DEV0, client
# in NS1 on DEV1, same ARGS both sides. Both must exit 0 and the client's
# output must hold the result table, down to the row for LASTSIZE octets.
perf_run() {
	local tag=$1 tool=$2 last=$3
	shift 3
	local slog="$RESULTS/$T-$tag-server.log" clog="$RESULTS/$T-$tag-client.log"
	local spid crc=0 src=0 rows

	wait_unlisten "$NS0" "$PERF_PORT"
	timeout 150 ip netns exec "$NS0" \
		"$tool" -R -F -d "$DEV0" -p "$PERF_PORT" "$@" > "$slog" 2>&1 &
	spid=$!
	bg_pids=("$spid")
	wait_listen "$NS0" "$PERF_PORT"
	kill -0 "$spid" 2>/dev/null || fail "$tag: $tool server died (see $slog)"

	timeout 120 ip netns exec "$NS1" \
		"$tool" -R -F -d "$DEV1" -p "$PERF_PORT" "$@" "$IP0" > "$clog" 2>&1 ||
		crc=$?
	# The server finishes right after the client; do not wait for long.
	for _ in $(seq 100); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	bg_pids=()
	rows=$(grep -cE '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$clog" || true)
	echo "$tool $tag: client $crc server $src table rows $rows"
	[ "$crc" -eq 0 ] || fail "$tag: $tool client exited $crc (see $clog)"
	[ "$src" -eq 0 ] || fail "$tag: $tool server exited $src (see $slog)"
	grep -q '#bytes' "$clog" || fail "$tag: no result table (see $clog)"
	tool_log_clean "$clog" "$slog" || fail "$tag: $tool printed an error"
	# perftest's cycle clock fails in guests whose TSC could not be
	# calibrated (TCG): its figures are then "inf", the run still counts.
	grep -qE "^ *$last +[0-9]+ +([0-9.]+|inf) +([0-9.]+|inf)" "$clog" ||
		fail "$tag: no result row for $last octets (see $clog)"
}

# bw_all TAG TOOL: all sizes, 2 to 2^23 octets: 23 rows.
bw_all() {
	perf_run "$1" "$2" 8388608 -a -n "$ITERS" --report_gbits
	local rows
	rows=$(grep -cE '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$RESULTS/$T-$1-client.log" || true)
	[ "$rows" -eq 23 ] || fail "$1: $rows result rows, expected 23"
}

# --- setup -------------------------------------------------------------
netns_setup

# --- CRC on (default), no Markers ---------------------------------------
start=$SECONDS
bw_all send ib_send_bw
bw_all write ib_write_bw
bw_all read ib_read_bw
perf_run lat ib_send_lat 2 -n "$LAT_ITERS"

# --- ib_send_bw with CRC off, then with Markers on both -----------------
knob "$DEV0" mpa_crc 0
knob "$DEV1" mpa_crc 0
bw_all send-crc-off ib_send_bw
perf_run read-dur-crc-off ib_read_bw 65536 -s 65536 -D 2
knobs_default

knob "$DEV0" mpa_markers 1
knob "$DEV1" mpa_markers 1
bw_all send-markers ib_send_bw
knobs_default

# --- 16 QPs in one process ----------------------------------------------
# perftest pairs its client's and its server's QPs by the order of their
# connections, and for iWARP ib_send_bw credits each client QP (an RDMA
# Write from the server QP it is paired with) once the server has taken
# a third of its receive depth: 1000 Sends per QP need credits. With
# connections paired out of order the credits went to the wrong QPs and
# most of them stopped for good (the client timed out).
perf_run send-q16 ib_send_bw 4096 -q 16 -s 4096 -n 1000
perf_run read-q16 ib_read_bw 4096 -q 16 -s 4096 -n 1000
echo "perftest runs took $((SECONDS - start)) s"

# --- teardown -------------------------------------------------------------
netns_teardown
echo "PASS $T"
