#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: lint + compat + deb + kunit + e2e, then KUnit and the
# end-to-end tests a memory or locking bug would hide in again on the
# debug kernel (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak: any report
# fails them; E2E_DEBUG_TESTS, read by tools/e2e.sh, can name others, or
# "all"). Every stage runs even when an earlier one failed; each check counts
# once in the summary, every KUnit case counts on its own. Ends with the
# line "N passed, N failed".
#
# When the debug kernel is not cached, it is built in the background at
# nice 19 (its autogroup too) once lint has built the test kernel (tools/build-kernel.sh lets
# one build run at a time): it takes the CPU the other stages leave idle,
# mostly while the VMs of the end-to-end tests wait, and kunit-debug waits
# for it to finish. Its output goes to build/kernel-debug.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

SWP_TALLY=$(mktemp)
export SWP_TALLY
bg_build=
trap 'rm -f "$SWP_TALLY"; [ -z "$bg_build" ] || kill -- "-$bg_build" 2>/dev/null' EXIT
start=$(date +%s)
# only this run's failures are printed at the end (tools/e2e.sh writes them)
rm -f "$top"/build/e2e/failures.txt "$top"/build/e2e-debug/failures.txt

# debug_build_bg: start the debug kernel build in the background unless
# it is cached
debug_build_bg() {
	local dir
	dir=$(KFLAVOUR=debug "$top/tools/build-kernel.sh" --print-dir) || return 0
	[ -f "$dir/complete" ] && return 0
	mkdir -p "$top/build"
	echo "=== debug kernel: building in the background (build/kernel-debug.log)"
	# its own process group, so that an interrupted check stops all of it
	KFLAVOUR=debug setsid nice -n 19 "$top/tools/build-kernel.sh" \
		> "$top/build/kernel-debug.log" 2>&1 &
	bg_build=$!
	# A new session is a new scheduler autogroup, which competes with
	# ours as an equal whatever its tasks' nice: the group's own nice
	# makes it yield (measured: e2e tests ran 2-3 times slower without).
	# Only once the build left our autogroup: the write renices the
	# group the task is in.
	local ag _
	for _ in $(seq 50); do
		ag=$(cat "/proc/$bg_build/autogroup" 2>/dev/null) || break
		if [ "$ag" != "$(cat /proc/self/autogroup)" ]; then
			echo 19 > "/proc/$bg_build/autogroup"
			break
		fi
		sleep 0.1
	done 2>/dev/null
}

"$top/tools/install-deps.sh" || tally fail check:install-deps
for stage in lint compat deb kunit e2e kunit-debug e2e-debug; do
	echo "=== make $stage"
	t0=$(date +%s)
	case $stage in
	kunit-debug)	KFLAVOUR=debug "$top/tools/kunit.sh" ;;
	e2e-debug)	KFLAVOUR=debug "$top/tools/e2e.sh" ;;
	*)		"$top/tools/$stage.sh" ;;
	esac || tally fail "check:$stage"
	echo "=== make $stage: $(( $(date +%s) - t0 ))s"
	[ "$stage" != lint ] || debug_build_bg
	if [ "$stage" = e2e ] && [ -n "$bg_build" ]; then
		wait "$bg_build" || echo "=== debug kernel: background build failed"
		bg_build=
	fi
done

pass=$(grep -c '^pass ' "$SWP_TALLY")
fail=$(grep -c '^fail ' "$SWP_TALLY")
skip=$(grep -c '^skip ' "$SWP_TALLY")
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	grep '^fail ' "$SWP_TALLY" | sed 's/^fail /  /'
	# what the failed end-to-end tests said (tools/e2e.sh)
	for f in "$top"/build/e2e/failures.txt "$top"/build/e2e-debug/failures.txt; do
		[ -s "$f" ] && head -n 80 "$f"
	done
fi
echo "make check took $(( $(date +%s) - start ))s"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
