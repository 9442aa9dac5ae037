#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: e2e 15-soak for SOAK_MINUTES (default 10) in one VM boot: 64
# long-lived rping connections and 2 rstream slots (132 QPs) over three
# veth pairs with
# CRC on, Markers and CRC off, every byte verified; one line a minute
# (octets and FPDUs per direction, iterations, errors, live QPs, memory),
# then the totals. Fails on any error, a stalled slot, anything left
# behind, a kernel splat or a kmemleak report. The VM gets the run time
# plus 15 minutes for setup, the last runs and the teardown. Results and
# logs in build/soak/ (the table in build/soak/15-soak/table.txt).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

minutes=${SOAK_MINUTES:-10}
case $minutes in
''|*[!0-9]*|0) echo "soak: SOAK_MINUTES must be a whole number > 0" >&2; exit 2 ;;
esac
"$top/tools/install-deps.sh" || exit 1
prepare_test_kernel || exit 1
build_test_modules || exit 1
res="$top/build/soak"
rm -rf "$res"
mkdir -p "$res"
echo "soak: $minutes minute(s) of load; the VM needs about $((minutes + 3)) minutes"
t0=$SECONDS
"$top/tools/vm-run" -o "$res" -t $((minutes * 60 + 900)) \
	"$top/tools/guest/soak.sh" "$minutes"
rc=$?
grep -E '^(soak|flush|mpa|slot[^:]*):|^minute|^[0-9]+ |^end |^total |^FAIL|^PASS' \
	"$res/15-soak.log"
echo "soak: VM ran $((SECONDS - t0)) s, guest status $rc (log: $res/15-soak.log)"
if [ "$rc" -eq 0 ] && grep -q '^PASS 15-soak' "$res/15-soak.log"; then
	tally pass soak
	exit 0
fi
tally fail soak
exit 1
