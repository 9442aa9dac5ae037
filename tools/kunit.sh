#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kunit: build the test kernel (cached) and the modules, boot the VM,
# load softiwarp_kunit there, and parse its KTAP output strictly with the
# test kernel's own kunit.py. Fails when a case fails, when the guest
# crashes or times out, when the kernel log shows a WARN/BUG/Oops (or, on
# the debug kernel, KASAN, lockdep and kmemleak reports), and when no case
# ran. Prints per-suite counts.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

prepare_test_kernel || { tally fail kunit:build-kernel; exit 1; }
build_test_modules || { tally fail kunit:build-modules; exit 1; }

res="$top/build/kunit"
rm -rf "$res"
mkdir -p "$res"
"$top/tools/vm-run" -o "$res" -t "${KUNIT_TIMEOUT:-900}" "$top/tools/guest/kunit.sh"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "kunit: guest failed with status $rc (console: $res/console.log)" >&2
	tally fail kunit:guest
	exit 1
fi

# Only the log of the module load is parsed: the boot's empty "1..0"
# header (CONFIG_KUNIT=y with no built-in suites) was cleared before.
python3 "$KSRC/tools/testing/kunit/kunit.py" parse --json="$res/kunit.json" \
	"$res/kunit.dmesg" > "$res/kunit.parse" 2>&1
prc=$?
grep -E 'Testing complete|crashed|FAILED|EXPECTATION|ASSERTION|Expected|^\[[0-9:]+\]  ' \
	"$res/kunit.parse" | tail -n 60
python3 "$top/tools/kunit-summary.py" "$res/kunit.json"
src=$?
fail=0
if grep -qE 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|leak|possible circular|lockdep' \
		"$res/kunit.dmesg" "$res/unload.dmesg"; then
	echo "kunit: kernel log shows a warning or bug:" >&2
	grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|leak|possible circular|lockdep' \
		"$res/kunit.dmesg" "$res/unload.dmesg" | head >&2
	tally fail kunit:kernel-log-clean
	fail=1
fi
if [ -s "$res/kmemleak" ]; then
	echo "kunit: kmemleak reports leaks:" >&2
	head -n 40 "$res/kmemleak" >&2
	tally fail kunit:kmemleak-clean
	fail=1
fi
[ "$prc" -eq 0 ] && [ "$src" -eq 0 ] && [ "$fail" -eq 0 ]
