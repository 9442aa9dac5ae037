#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: checkpatch --strict, kernel-doc -Wall, the layering rules
# (tools/check-layers.sh), the names the documents use
# (tools/check-doc-names.sh), the conformance table
# (tools/check-conformance.py), sparse (C=2) over the module's sources and
# the one namespace of the modules' global symbols, using
# the scripts of the test kernel's source tree.
# Zero findings allowed; tools/checkpatch.ignore lists the checks that make
# no sense out of tree, each with its reason; tools/checkpatch-trace.ignore
# the two more that the trace event headers (*_trace.h) need.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

prepare_test_kernel || { tally fail lint:build-kernel; exit 1; }
cd "$top" || exit 1
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' |
		     grep -v '^build/' | sort)
if [ ${#files[@]} -eq 0 ]; then
	tally fail lint:no-sources
	exit 1
fi
# ignore_list FILE: the checkpatch types FILE lists, comma separated
ignore_list() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | tr -d ' \t' | paste -sd, -
}
ignore=$(ignore_list tools/checkpatch.ignore)
# The trace event headers have the kernel's TRACE_EVENT() layout, which
# checkpatch flags: tools/checkpatch-trace.ignore, for them only.
trace_ignore=$ignore,$(ignore_list tools/checkpatch-trace.ignore)
# tools/fuzz/shim/include/ restates kernel headers for user space in the
# kernel's own shapes (typedefs, macros that reuse their arguments,
# volatile), and tools/fuzz/shim/entry.c carries the name libFuzzer calls:
# checkpatch does not read them.
mapfile -t plain < <(printf '%s\n' "${files[@]}" | grep -v '_trace\.h$' |
		     grep -v '^tools/fuzz/shim/include/\|^tools/fuzz/shim/entry\.c$')
mapfile -t traceh < <(printf '%s\n' "${files[@]}" | grep '_trace\.h$')
fail=0

out=$({ "$KSRC/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore "$ignore" -f "${plain[@]}"
	[ ${#traceh[@]} -eq 0 ] ||
	"$KSRC/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore "$trace_ignore" -f "${traceh[@]}"; } 2>&1 |
	grep -E 'ERROR|WARNING|CHECK')
if [ -n "$out" ]; then
	echo "$out"
	tally fail lint:checkpatch
	fail=1
else
	tally pass lint:checkpatch
fi

out=$(perl "$KSRC/scripts/kernel-doc" -none -Wall "${files[@]}" 2>&1)
if [ -n "$out" ]; then
	echo "$out"
	tally fail lint:kernel-doc
	fail=1
else
	tally pass lint:kernel-doc
fi

# The include rules of Documentation/architecture.rst (and that the
# checker itself finds a planted violation).
if out=$("$top/tools/check-layers.sh" --self-test 2>&1) &&
   out=$("$top/tools/check-layers.sh" 2>&1); then
	tally pass lint:layers
else
	echo "$out"
	tally fail lint:layers
	fail=1
fi

# Every function, file and lock the documents name exists (and that the
# checker itself finds planted stale names).
if out=$("$top/tools/check-doc-names.sh" --self-test 2>&1) &&
   out=$("$top/tools/check-doc-names.sh" 2>&1); then
	tally pass lint:doc-names
else
	echo "$out"
	tally fail lint:doc-names
	fail=1
fi

# Every row of Documentation/conformance.rst has a status with its reason
# and a test that exists, or is listed as a known gap (and the checker
# finds planted faults).
if out=$("$top/tools/check-conformance.py" --self-test 2>&1) &&
   out=$("$top/tools/check-conformance.py" 2>&1); then
	tally pass lint:conformance
else
	echo "$out"
	tally fail lint:conformance
	fail=1
fi

# sparse checks every file (C=2) in a build directory of its own.
out=$("$top/tools/kmod-build.sh" sparse "$KSRC" C=2 -s 2>&1 |
      grep -E 'warning:|error:')
if [ -n "$out" ] || [ ! -f "$top/build/sparse/softiwarp.ko" ]; then
	echo "$out"
	tally fail lint:sparse
	fail=1
else
	tally pass lint:sparse
fi

# One namespace (Documentation/architecture.rst): built in, every global
# symbol of the modules is the kernel's, so each is swi_*, the kernel's
# own __* (tracepoints, module tables) or the module's entry points.
# off_namespace reads `nm` lines and prints the global definitions off it.
off_namespace() {
	awk '$2 ~ /^[TDBRG]$/ && $3 !~ /^(swi_|__|init_module$|cleanup_module$)/ {
		print $3 }'
}
planted=$(printf '%s\n' '0 T swi_ok' '0 t static_ok' '0 D __tracepoint_x' \
	  '0 T init_module' '0 T mpa_bad' '0 B eng_bad' | off_namespace)
mods=("$top"/build/sparse/*.ko)
out=$(for m in "${mods[@]}"; do nm "$m" | off_namespace; done)
if [ "$planted" != "$(printf 'mpa_bad\neng_bad')" ] ||
   [ ! -f "$top/build/sparse/softiwarp.ko" ]; then
	echo "lint:namespace: the check missed planted names (or no module)"
	tally fail lint:namespace
	fail=1
elif [ -n "$out" ]; then
	echo "global symbols outside swi_*:"
	echo "$out"
	tally fail lint:namespace
	fail=1
else
	tally pass lint:namespace
fi
exit $fail
