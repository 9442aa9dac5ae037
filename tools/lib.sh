# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the tools/*.sh scripts; source it, don't run it.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# tally pass|fail|skip NAME: record one result for `make check`'s summary
# (when run under tools/check.sh) and print it.
tally() {
	[ -n "${SWP_TALLY:-}" ] && echo "$1 $2" >> "$SWP_TALLY"
	case $1 in
	pass)	echo "ok:   $2" ;;
	skip)	echo "skip: $2" ;;
	*)	echo "FAIL: $2" ;;
	esac
}

# Install what is missing, build (or reuse) the test kernel, and build our
# modules against it with W=1. Sets KCACHE and KSRC.
prepare_test_kernel() {
	"$top/tools/install-deps.sh"
	"$top/tools/build-kernel.sh"
	KCACHE=$("$top/tools/build-kernel.sh" --print-dir)
	KSRC=$KCACHE/linux-source-6.12
}

build_test_modules() {
	"$top/tools/kmod-build.sh" "${KFLAVOUR:-test}" "$KSRC" W=1 -s
}

# copy_module_sources DEST: what DKMS and the Debian package ship, and all
# that `make -C KDIR M=DEST SWI_KUNIT=n modules` needs: Kbuild, VERSION,
# dkms.conf, compat.h and the layers' *.c and *.h (no kunit/, tools/,
# Documentation/, build/).
copy_module_sources() {
	mkdir -p "$1" &&
	rsync -rlp --delete --prune-empty-dirs \
		--exclude='*.mod.c' \
		--include='/Kbuild' --include='/VERSION' --include='/dkms.conf' \
		--include='/compat.h' \
		--include='/mpa/' --include='/ddp/' --include='/rdmap/' \
		--include='/engine/' --include='/dev/' \
		--include='/cm/' --include='/*/*.c' --include='/*/*.h' \
		--exclude='*' "$top/" "$1/"
}

# dkms_warnings FILE: the warning and error lines of a dkms run's output
# (make compat, make deb), but for the one dkms itself causes with Debian's
# 6.12 headers: it asks readelf for the compiler in the .comment section of
# their vmlinux, which has none. (Carriage returns: apt-get's output.)
dkms_warnings() {
	tr -d '\r' < "$1" | grep -Ei 'warning|error' |
		grep -vFx "readelf: Warning: Section '.comment' was not dumped because it does not exist"
}

debian_mirror=http://deb.debian.org/debian

# debian_apt_state SUITE: an apt state for SUITE alone under build/apt/SUITE,
# updated at most once an hour; prints the apt options that use it.
# The host's apt sources are never changed (tools/debian-chroot.sh,
# tools/debian-kernel.sh). The archive's Release files can look expired on a
# machine whose clock is ahead of the mirror: Valid-Until is not checked;
# signatures are.
debian_apt_state() {
	local d=$top/build/apt/$1 o
	mkdir -p "$d/lists/partial" "$d/archives/partial"
	echo "deb $debian_mirror $1 main" > "$d/sources.list"
	o="-o Dir::State=$d -o Dir::State::Lists=$d/lists"
	o+=" -o Dir::State::status=/dev/null -o Dir::Cache=$d"
	o+=" -o Dir::Cache::archives=$d/archives"
	o+=" -o Dir::Etc::SourceList=$d/sources.list"
	o+=" -o Dir::Etc::SourceParts=/nonexistent -o Acquire::Languages=none"
	o+=" -o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root"
	if [ -z "$(find "$d/stamp" -mmin -60 2>/dev/null)" ]; then
		# shellcheck disable=SC2086
		apt-get $o -qq update >&2 && touch "$d/stamp"
	fi
	echo "$o"
}

# debian_current SUITE KIND: the versioned package of SUITE's current
# kernel that linux-KIND-amd64 depends on (KIND: headers, image), e.g.
# linux-headers-7.3.4+deb13-amd64
debian_current() {
	local o pkg
	o=$(debian_apt_state "$1")
	# shellcheck disable=SC2086
	pkg=$(apt-cache $o show "linux-$2-amd64" | grep '^Depends:' |
		grep -o "linux-$2-[0-9][^ ,]*" | head -n 1)
	[ -n "$pkg" ] || { echo "no linux-$2-amd64 in $1" >&2; return 1; }
	echo "$pkg"
}

# prepare_debian_kernel SUITE: Debian's kernel of SUITE (tools/debian-
# kernel.sh) for the VM, and our module built for it with W=1 as DKMS
# would there: with the host's headers and compiler (SUITE host[:META]),
# else in a chroot of its release (tools/debian-chroot.sh). Exports
# VM_KDIR and VM_MODDIR, which point tools/vm-run (and tools/vm-pair) at
# them.
prepare_debian_kernel() {
	local kdir ver rel pkgs=() root
	if [[ $1 == host* ]]; then
		"$top/tools/install-deps.sh" --demo || return 1
	else
		"$top/tools/install-deps.sh" --compat || return 1
	fi
	kdir=$("$top/tools/debian-kernel.sh" "$1") || return 1
	ver=$(cat "$kdir/release")
	export VM_KDIR=$kdir VM_MODDIR=$top/build/deb-$ver
	case $1 in
	host*)	# the host's own headers and compiler
		"$top/tools/kmod-build.sh" "deb-$ver" \
			"/usr/src/linux-headers-$ver" W=1 -s
		return ;;
	trixie | trixie-backports)
		rel=trixie
		# the chroot of make compat: both suites' headers
		pkgs=("$("$top/tools/debian-chroot.sh" headers trixie)"
		      "$("$top/tools/debian-chroot.sh" headers trixie-backports)")
		;;
	*)	rel=$1
		pkgs=("$("$top/tools/debian-chroot.sh" headers "$1")") ;;
	esac
	if [[ " ${pkgs[*]} " != *" linux-headers-$ver "* ]]; then
		echo "debian-kernel: no headers of $ver in ${pkgs[*]}" >&2
		return 1
	fi
	root=$("$top/tools/debian-chroot.sh" make "$rel" "${pkgs[@]}") ||
		return 1
	"$top/tools/debian-chroot.sh" run "$root" "$top/tools/kmod-build.sh" \
		"deb-$ver" "/usr/src/linux-headers-$ver" W=1 -s
}
