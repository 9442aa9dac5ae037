#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make e2e`: run every tools/e2e/NN-*.sh (or those named on
# the command line) with a timeout each, and write one "pass NAME" or
# "fail NAME" line per test to $RESULTS/e2e.tally. Each test runs with a
# timeout: E2E_TEST_TIMEOUT (300 s), or its own "# timeout: SECS" line.
dir=$(dirname "$0")/../e2e
: > "$RESULTS/e2e.tally"
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=("$dir"/[0-9][0-9]-*.sh)
fi
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	echo "=== e2e: $name"
	# a test may ask for more than the default with a "# timeout: SECS" line
	limit=$(sed -n 's/^# timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	limit=${limit:-${E2E_TEST_TIMEOUT:-300}}
	if timeout -k 5 "$limit" "$t" > "$RESULTS/$name.log" 2>&1; then
		echo "pass e2e:$name" >> "$RESULTS/e2e.tally"
	else
		echo "fail e2e:$name" >> "$RESULTS/e2e.tally"
		tail -n 20 "$RESULTS/$name.log"
	fi
done
exit 0
