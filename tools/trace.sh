#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make trace: one VM boot; ib_send_lat -R (busy polling and with -e) and
# ib_write_bw -R between two namespaces, for softiwarp and for siw, each
# under ftrace (scheduler, softirq and workqueue events). Prints, per run, how long
# woken threads and queued work items waited, and keeps the raw traces
# in build/trace/ (Documentation/performance.rst reads them).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$top/tools/install-deps.sh" || exit 1
prepare_test_kernel || exit 1
build_test_modules || exit 1
res="$top/build/trace"
rm -rf "$res"
mkdir -p "$res"
echo "trace: booting the test VM"
"$top/tools/vm-run" -o "$res" -t 1200 "$top/tools/guest/trace.sh"
rc=$?
python3 "$top/tools/trace/summary.py" "$res" || rc=1
[ "$rc" -eq 0 ] || echo "trace: guest exited with status $rc" >&2
exit "$rc"
