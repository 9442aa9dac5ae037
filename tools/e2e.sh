#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make e2e: run the end-to-end tests of tools/e2e/ in the VM (all of them,
# or those given as arguments, e.g. tools/e2e.sh tools/e2e/01-module-load.sh),
# then, when no argument is given, the two-guest tests of tools/e2e-pair/.
# Fails when any test fails, when none ran, or when the guest died.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

prepare_test_kernel || { tally fail e2e:build-kernel; exit 1; }
build_test_modules || { tally fail e2e:build-modules; exit 1; }

res="$top/build/e2e"
rm -rf "$res"
mkdir -p "$res"
args=()
for t in "$@"; do args+=("$(realpath "$t")"); done
"$top/tools/vm-run" -o "$res" -t "${E2E_TIMEOUT:-1800}" "$top/tools/guest/e2e.sh" "${args[@]}"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "e2e: guest failed with status $rc (console: $res/console.log)" >&2
	tally fail e2e:guest
	exit 1
fi
# Tests that need two guests run from the host: tools/e2e-pair/NN-*.sh.
if [ $# -eq 0 ]; then
	for t in "$top"/tools/e2e-pair/[0-9][0-9]-*.sh; do
		name=$(basename "$t" .sh)
		if "$t" > "$res/pair-$name.log" 2>&1; then
			echo "pass e2e:$name" >> "$res/e2e.tally"
		else
			echo "fail e2e:$name" >> "$res/e2e.tally"
			tail -n 20 "$res/pair-$name.log"
		fi
	done
fi
pass=0 fail=0
while read -r word name; do
	tally "$word" "$name"
	if [ "$word" = pass ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done < "$res/e2e.tally"
echo "e2e: $pass passed, $fail failed (logs: $res)"
if [ $((pass + fail)) -eq 0 ]; then
	tally fail e2e:no-test-ran
	exit 1
fi
[ "$fail" -eq 0 ]
