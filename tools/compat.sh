#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build softiwarp.ko with W=1 against the kernels Debian ships
# and let DKMS add, build, install and remove it for each
# (tools/dkms-check.sh, in DKMS trees of their own under build/). Any
# compiler warning fails the build; any warning or error from dkms fails
# its check.
#
#   6.1          bookworm              on the host (gcc 12)
#   6.12 +deb12  bookworm              on the host
#   6.12 +deb13  trixie                in a trixie chroot (gcc 14)
#   7.3          trixie-backports      in the same chroot
#   7.2          sid                   in a sid chroot (gcc 16)
#
# The host's header packages are installed by tools/install-deps.sh
# --compat; the chroots are made (and cached) by tools/debian-chroot.sh from
# Debian's archive, with the current header package of each series, as
# DKMS would build on those releases. Documentation/install.rst has the
# table of what differs between these kernels.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

chroot_tool=$top/tools/debian-chroot.sh

dkms_which=${COMPAT_DKMS:-all}
case $dkms_which in
all|newest) ;;
*) echo "compat: COMPAT_DKMS must be all or newest" >&2; exit 2 ;;
esac

# build_for NAME KDIR KVER NEWEST [ROOT]: the W=1 build and the DKMS check
# for one kernel, on the host or in the chroot ROOT; tallied as
# compat:compat-KVER and compat:dkms-KVER. NEWEST: 1 for the newest kernel
# of its place (COMPAT_DKMS=newest checks DKMS for those only).
build_for() {
	local name=$1 kdir=$2 kver=$3 newest=$4 root=${5:-} log rc run=()
	[ -n "$root" ] && run=("$chroot_tool" run "$root")
	if [ ! -d "$root$kdir" ]; then
		tally fail "compat:$name (no $kdir)"
		return 1
	fi
	log=$("${run[@]}" "$top/tools/kmod-build.sh" "$name" "$kdir" W=1 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || grep -q 'warning:' <<<"$log" ||
	   [ ! -f "$top/build/$name/softiwarp.ko" ]; then
		grep -E 'warning:|error:' <<<"$log" | head -n 40
		tally fail "compat:$name"
		rc=1
	else
		tally pass "compat:$name"
	fi
	if [ "$dkms_which" = newest ] && [ "$newest" != 1 ]; then
		echo "compat: DKMS check for $kver skipped (COMPAT_DKMS=newest)"
	elif "${run[@]}" "$top/tools/dkms-check.sh" "$kver"; then
		tally pass "compat:dkms-$kver"
	else
		dkms_warnings "$top/build/dkms-$kver/dkms.log" | head -n 40
		echo "compat: see build/dkms-$kver/dkms.log"
		tally fail "compat:dkms-$kver"
		rc=1
	fi
	return $rc
}

"$top/tools/install-deps.sh" --compat || { tally fail compat:install; exit 1; }
fail=0
newest=0
for meta in linux-headers-amd64 linux-headers-6.12-amd64; do
	# The meta package names the current header package of its series.
	pkg=$(dpkg-query -W -f='${Depends}' "$meta" | sed 's/ .*//')
	kver=${pkg#linux-headers-}
	[ "$meta" = linux-headers-6.12-amd64 ] && newest=1
	build_for "compat-$kver" "/usr/src/$pkg" "$kver" $newest || fail=1
done
# Newer releases, in their chroots: RELEASE:SUITE...
for rel_suites in trixie:trixie,trixie-backports sid:sid; do
	rel=${rel_suites%%:*}
	pkgs=() found=1
	for suite in $(tr , ' ' <<<"${rel_suites#*:}"); do
		if pkg=$("$chroot_tool" headers "$suite"); then
			pkgs+=("$pkg")
		else
			found=0
		fi
	done
	if [ $found -eq 0 ] ||
	   ! root=$("$chroot_tool" make "$rel" "${pkgs[@]}"); then
		tally fail "compat:chroot-$rel"
		fail=1
		continue
	fi
	for pkg in "${pkgs[@]}"; do
		kver=${pkg#linux-headers-}
		newest=0
		[ "$pkg" = "${pkgs[-1]}" ] && newest=1
		build_for "compat-$kver" "/usr/src/$pkg" "$kver" $newest \
			"$root" || fail=1
	done
done
exit $fail
