#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: lint + compat + deb + kunit + e2e, then KUnit and a part of
# the end-to-end suite again on the debug kernel (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak: any report fails them; E2E_DEBUG_TESTS in
# tools/e2e.sh lists the tests). Every stage runs even when an earlier one
# failed; each check counts
# once in the summary, every KUnit case counts on its own. Ends with the
# line "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

SWP_TALLY=$(mktemp)
export SWP_TALLY
trap 'rm -f "$SWP_TALLY"' EXIT
start=$(date +%s)

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
done

pass=$(grep -c '^pass ' "$SWP_TALLY")
fail=$(grep -c '^fail ' "$SWP_TALLY")
skip=$(grep -c '^skip ' "$SWP_TALLY")
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	grep '^fail ' "$SWP_TALLY" | sed 's/^fail /  /'
fi
echo "make check took $(( $(date +%s) - start ))s"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
