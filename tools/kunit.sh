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

# KFLAVOUR=debug (make check's kunit-debug stage): the same suites on the
# KASAN/lockdep/kmemleak kernel, results in build/kunit-debug, tallied as
# kunit-debug:...
name=kunit
if [ "${KFLAVOUR:-test}" = debug ]; then
	name=kunit-debug
	# Under TCG with KASAN, ACPI's _PRT method runs into the AML loop
	# timeout, the virtio devices get no interrupt routing and the 9p root
	# never mounts; PCI routing without ACPI works (SMP still from ACPI).
	VM_CMDLINE="${VM_CMDLINE:+$VM_CMDLINE }pci=noacpi"
	export VM_CMDLINE
fi

prepare_test_kernel || { tally fail $name:build-kernel; exit 1; }
build_test_modules || { tally fail $name:build-modules; exit 1; }

res="$top/build/$name"
rm -rf "$res"
mkdir -p "$res"
# KUNIT_FILTER="suite.case" (globs) runs only the matching cases, e.g.
# KUNIT_FILTER='softiwarp_qp_loopback.qpt_rresp*' tools/kunit.sh
"$top/tools/vm-run" -o "$res" -t "${KUNIT_TIMEOUT:-900}" \
	${KUNIT_FILTER:+-e "KUNIT_FILTER=$KUNIT_FILTER"} "$top/tools/guest/kunit.sh"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "$name: guest failed with status $rc (console: $res/console.log)" >&2
	tally fail $name:guest
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
	echo "$name: kernel log shows a warning or bug:" >&2
	grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|leak|possible circular|lockdep' \
		"$res/kunit.dmesg" "$res/unload.dmesg" | head >&2
	tally fail $name:kernel-log-clean
	fail=1
fi
if [ -s "$res/kmemleak" ]; then
	echo "$name: kmemleak reports leaks:" >&2
	head -n 40 "$res/kmemleak" >&2
	tally fail $name:kmemleak-clean
	fail=1
fi
[ "$prc" -eq 0 ] && [ "$src" -eq 0 ] && [ "$fail" -eq 0 ]
