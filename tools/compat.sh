#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build softiwarp.ko with W=1 against Debian's stock kernel
# headers for 6.1 (bookworm) and 6.12 (+deb12), installing the header
# packages when missing, and let DKMS add, build, install and remove it for
# both (dkms.conf), in a DKMS tree of its own under build/: the host's
# /usr/src, /var/lib/dkms and /lib/modules stay as they were. Any compiler
# warning fails the build; any warning or error from dkms fails its check.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

version=$(cat "$top/VERSION")

# dkms_run LOG ARGS...: run dkms on the isolated trees, output to LOG.
dkms_run() {
	local log=$1
	shift
	echo "+ dkms $*" >> "$log"
	dkms "$@" "${dkms_opts[@]}" >> "$log" 2>&1
}

# dkms_check KVER: dkms add, build, install, status and remove against the
# header package's /lib/modules/KVER/build; 0 when every step succeeded
# without a warning, the module carries VERSION and is alone (no KUnit
# module), and remove left nothing behind.
dkms_check() {
	local kver=$1 tree=$top/build/dkms-$1 log ko
	local mod=softiwarp/$version

	rm -rf "$tree"
	mkdir -p "$tree/dkms" "$tree/src" "$tree/modules/$kver"
	log=$tree/dkms.log
	: > "$log"
	dkms_opts=(--dkmstree "$tree/dkms" --sourcetree "$tree/src"
		   --installtree "$tree/modules" --no-depmod)
	# dkms signs with a key it creates unless there is one: keep it here
	export mok_signing_key=$tree/mok.key mok_certificate=$tree/mok.pub
	copy_module_sources "$tree/upstream" || return 1
	dkms_run "$log" add "$tree/upstream" &&
	dkms_run "$log" build "$mod" -k "$kver" &&
	dkms_run "$log" install "$mod" -k "$kver" &&
	dkms_run "$log" status "$mod" -k "$kver" || return 1
	cat "$tree/dkms/softiwarp/$version/$kver/"*/log/make.log >> "$log"
	grep -q "^$mod, $kver, [^:]*: installed" "$log" || return 1
	ko=$(find "$tree/modules/$kver" -name '*.ko*')
	case $ko in
	*/updates/dkms/softiwarp.ko|*/updates/dkms/softiwarp.ko.?z) ;;
	*)	echo "compat: installed: ${ko:-nothing}" >> "$log"; return 1 ;;
	esac
	[ "$(modinfo -F version "$ko")" = "$version" ] || return 1
	dkms_run "$log" remove "$mod" --all || return 1
	# remove keeps the sources (src/), as it keeps /usr/src/softiwarp-*
	[ -z "$(find "$tree/modules" "$tree/dkms" -name '*softiwarp*')" ] ||
		return 1
	! dkms_warnings "$log" | grep -q .
}


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
	kver=${pkg#linux-headers-}
	if dkms_check "$kver"; then
		tally pass "compat:dkms-$kver"
	else
		dkms_warnings "$top/build/dkms-$kver/dkms.log" | head -n 40
		echo "compat: see build/dkms-$kver/dkms.log"
		tally fail "compat:dkms-$kver"
		fail=1
	fi
done
exit $fail
