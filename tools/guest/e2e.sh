#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make e2e`: run every tools/e2e/NN-*.sh (or those named on
# the command line) with a timeout each, and write one "pass NAME",
# "fail NAME" or "skip NAME" line per test to $RESULTS/e2e.tally (skip:
# the test exited 77, it needs what this kernel does not have). Each test runs with a
# timeout: its own "# timeout: SECS" line, else 300 s; E2E_TEST_TIMEOUT
# when larger (a long run by hand); times E2E_SLOW (tools/e2e/lib.sh) on a slower kernel. On a kernel with
# kmemleak, a last check "kmemleak" fails when it reports anything after
# the tests.
dir=$(dirname "$0")/../e2e
leaks=/sys/kernel/debug/kmemleak
: > "$RESULTS/e2e.tally"
[ -e $leaks ] && echo clear > $leaks
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=("$dir"/[0-9][0-9]-*.sh)
fi
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	echo "=== e2e: $name"
	t0=$(date +%s)
	# a test may ask for more than the default with a "# timeout: SECS" line
	limit=$(sed -n 's/^# timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	limit=${limit:-300}
	# E2E_TEST_TIMEOUT raises it for a longer run (never lowers it)
	[ "${E2E_TEST_TIMEOUT:-0}" -gt "$limit" ] && limit=$E2E_TEST_TIMEOUT
	limit=$(( limit * ${E2E_SLOW:-1} ))
	rc=0
	timeout -k 5 "$limit" "$t" > "$RESULTS/$name.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "pass e2e:$name" >> "$RESULTS/e2e.tally"
	elif [ "$rc" -eq 77 ]; then
		echo "skip e2e:$name" >> "$RESULTS/e2e.tally"
		tail -n 1 "$RESULTS/$name.log"
	else
		echo "fail e2e:$name" >> "$RESULTS/e2e.tally"
		tail -n 20 "$RESULTS/$name.log"
	fi
	echo "=== e2e: $name: $(( $(date +%s) - t0 ))s"
done
# On the debug kernel: what kmemleak finds once every test has removed
# the module and its devices (two scans: a new object is only reported
# when it was already unreferenced at the previous one). A report counts
# against us when its allocation backtrace runs through softiwarp, the
# RDMA core or code of a module no longer loaded
# (tools/e2e/kmemleak-ours.awk); the kernel's own, from a netns or the 9p
# root, are kept in the file but do not fail the run.
if [ -e $leaks ]; then
	echo scan > $leaks
	sleep 6
	echo scan > $leaks
	cat $leaks > "$RESULTS/kmemleak"
	ours=$(awk -f "$dir/kmemleak-ours.awk" "$RESULTS/kmemleak")
	echo "kmemleak: $(grep -c '^unreferenced object' "$RESULTS/kmemleak") reports, $ours traced to modules"
	if [ "$ours" -gt 0 ]; then
		echo "fail e2e:kmemleak" >> "$RESULTS/e2e.tally"
		head -n 60 "$RESULTS/kmemleak"
	else
		echo "pass e2e:kmemleak" >> "$RESULTS/e2e.tally"
	fi
fi
exit 0
