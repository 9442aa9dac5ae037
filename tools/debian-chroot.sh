#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian chroots for building against the kernels of newer Debian releases
# as DKMS would there, with their compiler: the header packages of trixie
# and trixie-backports were built with gcc 14 and sid's with gcc 16, and
# their kbuild programs need those releases' C library. The host's apt
# sources are never changed: the archive is read with an apt state of the
# project's own under build/apt/, and mmdebstrap makes the chroot.
#
# Usage:
#   tools/debian-chroot.sh headers SUITE
#       the current header package of SUITE (trixie, trixie-backports, sid),
#       e.g. linux-headers-7.3.4+deb13-amd64, from the archive's index
#   tools/debian-chroot.sh make RELEASE PKG...
#       print the path of a chroot of RELEASE (trixie: with
#       trixie-backports; sid) with the header packages PKG..., dkms, make,
#       kmod and rsync; made the first time (a few minutes) and cached in
#       ~/.cache/softiwarp/chroot/RELEASE-HASH, HASH naming PKG...; older
#       chroots of RELEASE are removed
#   tools/debian-chroot.sh run ROOT CMD...
#       run CMD in the chroot ROOT with /proc mounted and the repository at
#       its own path (a bind mount), both undone after
#
# The archive's Release files can be older than their Valid-Until on a
# machine whose clock is ahead of the mirror (seen here): apt is told not to
# check it. Signatures are checked as usual.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/softiwarp/chroot

# headers SUITE: the header package linux-headers-amd64 of SUITE names
headers() {
	debian_current "$1" headers
}

# make_chroot RELEASE PKG...: the chroot's path; made when missing
make_chroot() {
	local rel=$1 hash root srcs=()
	shift
	hash=$(printf '%s\n' "$@" | sort | sha256sum | cut -c1-12)
	root=$cache/$rel-$hash
	if [ -f "$root/.complete" ]; then
		echo "$root"
		return 0
	fi
	mkdir -p "$cache"
	# --one-file-system: never into a mount an interrupted run left behind
	# (the repository is bound into the chroot while a build runs)
	rm -rf --one-file-system "$root"
	srcs=("deb $debian_mirror $rel main")
	[ "$rel" = trixie ] && srcs+=("deb $debian_mirror trixie-backports main")
	echo "debian-chroot: making the $rel chroot for $* (a few minutes)" >&2
	mmdebstrap --variant=apt --quiet \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--include="$(IFS=,; echo "$*"),dkms,make,kmod,rsync" \
		"$rel" "$root" "${srcs[@]}" >&2 ||
		{ rm -rf --one-file-system "$root"; return 1; }
	touch "$root/.complete"
	# the chroots of earlier header packages
	find "$cache" -maxdepth 1 -name "$rel-*" ! -path "$root" \
		-exec rm -rf --one-file-system {} + 2>/dev/null
	echo "$root"
}

# unmount PATH: unmount, waiting up to 5 s for what the run left behind
# (a process of dkms may hold the mount a moment longer), then lazily
unmount() {
	local _
	for _ in $(seq 10); do
		umount "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	umount -l "$1"
}

# run_in ROOT CMD...: CMD in ROOT, /proc and the repository mounted
run_in() {
	local root=$1 rc=0
	shift
	mkdir -p "$root$top"
	mount -t proc proc "$root/proc"
	# shellcheck disable=SC2064 # the paths, as they are now
	trap "unmount '$root/proc'" EXIT
	mount --bind "$top" "$root$top"
	# shellcheck disable=SC2064
	trap "unmount '$root$top'; unmount '$root/proc'" EXIT
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 "$@" || rc=$?
	return $rc
}

case ${1:-} in
headers)	[ $# -eq 2 ] && headers "$2" ;;
make)		[ $# -ge 3 ] && shift && make_chroot "$@" ;;
run)		[ $# -ge 3 ] && shift && run_in "$@" ;;
*)		sed -n '11,23p' "$0" >&2; exit 2 ;;
esac
