#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build softiwarp.ko with W=1 against Debian's stock kernel
# headers for 6.1 (bookworm) and 6.12 (+deb12), installing the header
# packages when missing. Any compiler warning fails the build.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$top/tools/install-deps.sh" --compat || { tally fail compat:install; exit 1; }
fail=0
for meta in linux-headers-amd64 linux-headers-6.12-amd64; do
	# The meta package names the current header package of its series.
	pkg=$(dpkg-query -W -f='${Depends}' "$meta" | sed 's/ .*//')
	kdir=/usr/src/$pkg
	name=compat-${pkg#linux-headers-}
	if [ ! -d "$kdir" ]; then
		tally fail "compat:$name (no $kdir)"
		fail=1
		continue
	fi
	log=$("$top/tools/kmod-build.sh" "$name" "$kdir" W=1 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || grep -q 'warning:' <<<"$log" ||
	   [ ! -f "$top/build/$name/softiwarp.ko" ]; then
		grep -E 'warning:|error:' <<<"$log" | head -n 40
		tally fail "compat:$name"
		fail=1
	else
		tally pass "compat:$name"
	fi
done
exit $fail
