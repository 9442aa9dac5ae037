#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make trace: one VM boot; ib_send_lat -R (busy polling and with -e) and
# ib_write_bw -R between two namespaces, for softiwarp and for siw, each
# under ftrace (scheduler, softirq and workqueue events). Prints, per run, how long
# woken threads and queued work items waited, and keeps the raw traces
# in build/trace/ (Documentation/performance.rst reads them).
#
# make trace-cm (tools/trace.sh cm): one VM boot; cmtime with 1 (twice),
# 64, 200 and 1000 connections (TRACE_CM_CONNS), softiwarp and siw, under
# ftrace
# (TCP state changes, rdma_cm's events, softiwarp's MPA events, work
# items: tools/guest/trace-cm.sh). Prints where a connection's setup and
# teardown spent their time (tools/trace/cm-summary.py); the raw traces
# stay in build/trace-cm/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-lat}
case $mode in
lat)	res="$top/build/trace" guest=trace.sh summary=summary.py ;;
cm)	res="$top/build/trace-cm" guest=trace-cm.sh summary=cm-summary.py ;;
*)	echo "usage: tools/trace.sh [lat|cm]" >&2; exit 2 ;;
esac
"$top/tools/install-deps.sh" || exit 1
prepare_test_kernel || exit 1
build_test_modules || exit 1
rm -rf "$res"
mkdir -p "$res"
echo "trace: booting the test VM"
"$top/tools/vm-run" -o "$res" -t 2400 -m 2048 \
	-e "TRACE_CM_CONNS=${TRACE_CM_CONNS:-1 1 64 200 1000}" \
	-e "TRACE_CM_PERF=${TRACE_CM_PERF:-0}" \
	"$top/tools/guest/$guest"
rc=$?
python3 "$top/tools/trace/$summary" "$res" || rc=1
[ "$rc" -eq 0 ] || echo "trace: guest exited with status $rc" >&2
exit "$rc"
