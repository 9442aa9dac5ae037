#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make upstream: the patch series of tools/upstream/mkseries.py, made for
# and applied to two kernel trees, checked patch by patch the way a
# maintainer would take it:
#
#   6.12  the project's built test kernel tree (Debian's linux-source-6.12
#         with tools/kconfig/), under an overlay mount (so root)
#   7.3   Debian's linux-source-7.3 (trixie-backports), built against the
#         7.3 headers in make compat's trixie chroot (gcc 14)
#
# Checks, each tallied as upstream:TREE:CHECK:
#
#   checkpatch-N   scripts/checkpatch.pl --strict of that tree on patch N
#                  (the trace headers' two layout checks aside:
#                  tools/checkpatch-trace.ignore says why; and from patch
#                  2 on, FILE_PATH_CHANGES, which asks each patch that
#                  adds files for the MAINTAINERS entry patch 1 made)
#   build-N        the driver's folder as patch N leaves it compiled with
#                  W=1 (and sparse, C=1, on 6.12): no warning. Before the
#                  last patch the module is not whole (no MODULE_LICENSE
#                  until dev/; engine/, dev/ and cm/ call each other), so
#                  up to there its objects are built, not the module.
#                  On 7.3 the KUnit module is left out: Debian's 7.3 has
#                  no CONFIG_KUNIT.
#   module         6.12: the tree's own build with CONFIG_RDMA_SOFTIWARP=m
#                  and its KUnit module through Kconfig: both .ko made,
#                  modpost clean
#   builtin        6.12: the same =y: vmlinux links with softiwarp in
#
#   kunit.py       tools/testing/kunit/kunit.py run --arch=x86_64
#                  --kunitconfig=drivers/infiniband/sw/softiwarp, the
#                  kernel's own runner: it builds a kernel with the suites
#                  built in and runs them at boot under QEMU; every case
#                  passes. 7.3: on its tree; 6.12: on Debian's
#                  linux-source-6.12 unpacked as it comes with the series
#                  applied (the test kernel's tree is built in place,
#                  which kunit.py's O= build refuses). UPSTREAM_KUNIT=0
#                  leaves both out.
#
# The out-of-tree build of the same sources is make lint's and make compat's.
# The trees live in build/upstream/ (6.12's overlay, 1.5 GiB for 7.3;
# removed at the end unless UPSTREAM_KEEP=1); linux-source-7.3's package is kept in
# ~/.cache/softiwarp/linux-source/.
#
# Usage: tools/upstream/check-series.sh [6.12] [7.3]   (default both)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/lib.sh"

out=$top/build/upstream
drv=drivers/infiniband/sw/softiwarp
cache=${SOFTIWARP_CACHE:-$HOME/.cache/softiwarp}
ignore=$(grep -oE '^[A-Z_]+' "$top/tools/checkpatch-trace.ignore" | paste -sd,)
mkdir -p "$out"

# apply_and_check NAME TREE MAKE...: tools/upstream/mkseries.py for TREE,
# applied patch by patch, each checked (checkpatch, then MAKE... with the
# driver's folder as M= and the patch's modpost leniency)
apply_and_check() {
	local name=$1 tree=$2 series=$out/$1/series log=$out/$1/log n=0 total
	local p res rc skip objs
	shift 2
	: > "$log"
	if ! python3 "$top/tools/upstream/mkseries.py" --tree "$tree" \
			--out "$series"; then
		tally fail "upstream:$name:mkseries"
		return 1
	fi
	total=$(wc -l < "$series/series")
	while read -r p; do
		n=$((n + 1))
		if ! patch -d "$tree" -p1 -s < "$series/$p" >> "$log" 2>&1; then
			tally fail "upstream:$name:apply-$n ($p)"
			return 1
		fi
		# patch 1 adds the MAINTAINERS entry that covers the files of
		# all; checkpatch, which sees one patch, asks again for each
		skip=$ignore
		[ "$n" -gt 1 ] && skip+=,FILE_PATH_CHANGES
		res=$(cd "$tree" && scripts/checkpatch.pl --strict \
			--show-types --ignore "$skip" "$series/$p" 2>&1)
		rc=$?
		echo "$res" >> "$log"
		if [ $rc -ne 0 ] ||
		   ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$res"; then
			grep -E -A3 '^(ERROR|WARNING|CHECK)' <<<"$res" | head -n 40
			tally fail "upstream:$name:checkpatch-$n"
		else
			tally pass "upstream:$name:checkpatch-$n"
		fi
		# before the last patch, the objects only (see above)
		objs=()
		# (the KUnit suites' only where MAKE... builds their module)
		[ "$n" -lt "$total" ] &&
			mapfile -t objs < <(grep -oE '[a-z]+/[a-z0-9_]+\.o' \
				"$tree/$drv/Makefile" | if [[ "$*" == *KUNIT_TEST=m* ]]; then
				cat; else grep -v '^kunit/'; fi)
		res=$("$@" M="$tree/$drv" "${objs[@]}" 2>&1)
		rc=$?
		echo "$res" >> "$log"
		if [ $rc -ne 0 ] || grep -qE 'warning:|error:' <<<"$res"; then
			grep -E 'warning:|error:' <<<"$res" | head -n 30
			tally fail "upstream:$name:build-$n"
		else
			tally pass "upstream:$name:build-$n"
		fi
	done < "$series/series"
}

# tree_build TREE LOG MODE: TREE's .config with the driver and its tests
# MODE (m or y), then make TARGETS...
tree_build() {
	local tree=$1 log=$2 mode=$3 opt
	shift 3
	(cd "$tree" && scripts/config --set-val RDMA_SOFTIWARP "$mode" \
		--set-val RDMA_SOFTIWARP_KUNIT_TEST "$mode" &&
		make -s olddefconfig) >> "$log" 2>&1 || return 1
	for opt in RDMA_SOFTIWARP RDMA_SOFTIWARP_KUNIT_TEST; do
		grep -qx "CONFIG_$opt=$mode" "$tree/.config" && continue
		echo "upstream: olddefconfig left $(grep "${opt}[= ]" "$tree/.config")"
		return 1
	done
	make -s -C "$tree" -j"$(nproc)" "$@" >> "$log" 2>&1 &&
		! grep -E "^$drv.*(warning|error):|modpost: .*softiwarp" "$log"
}

# unmount_612: the 6.12 overlay unmounted (when mounted; lazily, should an
# interrupted run's make still be in it)
unmount_612() {
	while mountpoint -q "$out/6.12/linux"; do
		umount -l "$out/6.12/linux" || return 1
	done
}
trap unmount_612 EXIT

# check_612: the series on a copy of the test kernel's built tree
check_612() {
	local tree=$out/6.12/linux log=$out/6.12/log-tree
	prepare_test_kernel || { tally fail upstream:6.12:build-kernel; return; }
	if ! unmount_612 || ! rm -rf "$out/6.12"; then
		tally fail upstream:6.12:clean
		return
	fi
	mkdir -p "$tree" "$out/6.12/upper" "$out/6.12/work"
	# an overlay: the cached tree stays as it is, what the patches and
	# the builds write goes to upper/ (a copy would take minutes)
	mount -t overlay overlay -o "lowerdir=$KSRC,upperdir=$out/6.12/upper,workdir=$out/6.12/work" "$tree" ||
		{ tally fail upstream:6.12:overlay; return; }
	apply_and_check 6.12 "$tree" make -s -C "$tree" -j"$(nproc)" W=1 C=1 \
		CONFIG_RDMA_SOFTIWARP=m CONFIG_RDMA_SOFTIWARP_KUNIT_TEST=m ||
		return
	make -s -C "$tree" M="$tree/$drv" clean
	: > "$log"
	echo "upstream: 6.12 with CONFIG_RDMA_SOFTIWARP=m"
	if tree_build "$tree" "$log" m modules &&
	   [ -f "$tree/$drv/softiwarp.ko" ] &&
	   [ -f "$tree/$drv/softiwarp_kunit.ko" ]; then
		tally pass upstream:6.12:module
	else
		tail -n 20 "$log"
		tally fail upstream:6.12:module
	fi
	echo "upstream: 6.12 with CONFIG_RDMA_SOFTIWARP=y"
	if tree_build "$tree" "$log" y bzImage &&
	   grep -q ' swi_mpa_crc_driver$' "$tree/System.map"; then
		tally pass upstream:6.12:builtin
	else
		tail -n 20 "$log"
		tally fail upstream:6.12:builtin
	fi
	[ "${UPSTREAM_KUNIT:-1}" = 0 ] || kunit_612
}

# kunit_612: kunit.py on Debian's linux-source-6.12 as it comes (the test
# kernel's tree is built in place, which kunit.py's O= build refuses)
# with the whole series applied
kunit_612() {
	local tree=$out/6.12/clean/linux-source-6.12 p
	rm -rf "$out/6.12/clean"
	mkdir -p "$out/6.12/clean"
	echo "upstream: unpacking /usr/src/linux-source-6.12.tar.xz"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$out/6.12/clean" ||
		{ tally fail upstream:6.12:unpack; return; }
	while read -r p; do
		patch -d "$tree" -p1 -s < "$out/6.12/series/$p" ||
			{ tally fail "upstream:6.12:clean-apply ($p)"; return; }
	done < "$out/6.12/series/series"
	kunit_run 6.12 "$tree"
}

# source_73: Debian's linux-source-7.3 tarball (downloaded once); its path
source_73() {
	local o d ver
	o=$(debian_apt_state trixie-backports) || return 1
	# shellcheck disable=SC2086
	ver=$(apt-cache $o show linux-source-7.3 | sed -n 's/^Version: //p' |
		head -n 1)
	[ -n "$ver" ] || { echo "upstream: no linux-source-7.3" >&2; return 1; }
	d=$cache/linux-source/$ver
	if [ ! -f "$d/linux-source-7.3.tar.xz" ]; then
		rm -rf "$d" && mkdir -p "$d/deb" || return 1
		# shellcheck disable=SC2086
		(cd "$d" && apt-get $o -qq download "linux-source-7.3=$ver" &&
			dpkg-deb -x linux-source-7.3_*.deb deb &&
			mv deb/usr/src/linux-source-7.3.tar.xz . &&
			rm -rf deb ./*.deb) >&2 || return 1
	fi
	echo "$d/linux-source-7.3.tar.xz"
}

# check_73: the series on linux-source-7.3, built against the 7.3 headers
# in make compat's trixie chroot
check_73() {
	local tar pkgs root kdir
	"$top/tools/install-deps.sh" --compat || { tally fail upstream:7.3:install; return; }
	tar=$(source_73) || { tally fail upstream:7.3:source; return; }
	pkgs=("$("$top/tools/debian-chroot.sh" headers trixie)"
	      "$("$top/tools/debian-chroot.sh" headers trixie-backports)")
	root=$("$top/tools/debian-chroot.sh" make trixie "${pkgs[@]}") ||
		{ tally fail upstream:7.3:chroot; return; }
	kdir=/usr/src/${pkgs[1]}
	rm -rf "$out/7.3"
	mkdir -p "$out/7.3"
	echo "upstream: unpacking $tar"
	tar -xJf "$tar" -C "$out/7.3" || { tally fail upstream:7.3:unpack; return; }
	mv "$out/7.3/linux-source-7.3" "$out/7.3/linux"
	apply_and_check 7.3 "$out/7.3/linux" "$top/tools/debian-chroot.sh" \
		run "$root" make -s -C "$kdir" -j"$(nproc)" W=1 \
		CONFIG_RDMA_SOFTIWARP=m || return
	# what the M= builds left in the folder would be found through
	# kunit.py's VPATH in place of its own objects
	find "$out/7.3/linux/$drv" \( -name '*.o' -o -name '*.ko' \
		-o -name '.*.cmd' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name modules.order -o -name Module.symvers \) -delete
	[ "${UPSTREAM_KUNIT:-1}" = 0 ] || kunit_run 7.3 "$out/7.3/linux"
}

# kunit_run NAME TREE: the kernel's own runner on the series' .kunitconfig
# (a kernel of its own in build/upstream/NAME/kunit: kunit.py builds with
# O=, which needs a tree never built in place), every suite, under QEMU
kunit_run() {
	local name=$1 tree=$2 res rc
	echo "upstream: kunit.py run on $name (a kernel build, then QEMU)"
	res=$(cd "$tree" && python3 tools/testing/kunit/kunit.py run \
		--arch=x86_64 --kunitconfig="$drv" \
		--build_dir="$out/$name/kunit" --jobs="$(nproc)" \
		--timeout=1800 --qemu_args='-smp 2' 2>&1)
	rc=$?
	echo "$res" > "$out/$name/kunit.log"
	tail -n 12 <<<"$res"
	if [ $rc -eq 0 ] && grep -qE \
		'Testing complete\. Ran [1-9][0-9]* tests: passed: [1-9][0-9]*(, skipped: [0-9]+)?$' \
		<<<"$res"; then
		tally pass "upstream:$name:kunit.py"
	else
		tally fail "upstream:$name:kunit.py"
	fi
}

for t in "${@:-6.12 7.3}"; do
	for v in $t; do
		case $v in
		6.12) check_612 ;;
		7.3) check_73 ;;
		*) echo "usage: $0 [6.12] [7.3]" >&2; exit 2 ;;
		esac
	done
done
if [ "${UPSTREAM_KEEP:-0}" != 1 ]; then
	unmount_612
	rm -rf "$out/6.12" "$out/7.3/linux"
fi
