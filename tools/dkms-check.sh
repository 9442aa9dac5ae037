#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/dkms-check.sh KVER: let DKMS add, build, install, status and remove
# softiwarp against the kernel headers of KVER (/lib/modules/KVER/build), in
# a DKMS tree of its own under build/dkms-KVER/: the system's /usr/src,
# /var/lib/dkms and /lib/modules stay as they were. Exits 0 when every step
# succeeded without a warning, the module carries VERSION and is alone (no
# KUnit module), and remove left nothing behind; the log is
# build/dkms-KVER/dkms.log. make compat runs it on the host and in the
# chroots of tools/debian-chroot.sh.
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
	# dkms 3.1 and later look for the headers in the install tree
	ln -s "/lib/modules/$kver/build" "$tree/modules/$kver/build"
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

[ $# -eq 1 ] || { echo "usage: $0 KVER" >&2; exit 2; }
dkms_check "$1"
