#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build the Debian package softiwarp-dkms (Architecture: all) in
# build/deb/, from a copy of the module's sources and debian/ (so that no
# build artifact lands in the source tree), check it with lintian, and then
# install it: its postinst has DKMS build and install softiwarp.ko for every
# kernel here with headers (bookworm's 6.1 and 6.12, installed when missing),
# `dkms status` must say so, and purging it must leave no trace. Tallied as
# deb:build, deb:lintian, deb:install and deb:purge.
#
# Usage: tools/deb.sh [--no-install]   (--no-install: build and lintian only)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

pkg=softiwarp-dkms
version=$(cat "$top/VERSION")
out=$top/build/deb
src=$out/softiwarp-$version
deb=$out/${pkg}_${version}_all.deb
changes=$out/softiwarp_${version}_amd64.changes
# apt-get rather than dpkg -i/-P: it waits for another apt or dpkg to end
apt_lock=(-o DPkg::Lock::Timeout=600)

"$top/tools/install-deps.sh" --compat --deb || { tally fail deb:install-deps; exit 1; }

# The changelog's one entry names VERSION; its date is the last commit's,
# so the same tree builds the same package.
write_changelog() {
	local date

	date=$(git -C "$top" log -1 --format=%aD 2>/dev/null) || date=$(date -R)
	cat > "$src/debian/changelog" <<-EOF
	softiwarp ($version) unstable; urgency=medium

	  * softiwarp $version; the changes are in the project's git history.

	 -- softiwarp developers <softiwarp-dev@example.org>  $date
	EOF
}

build() {
	rm -rf "$out"
	mkdir -p "$out"
	copy_module_sources "$src" &&
	cp -r "$top/debian" "$src/" &&
	write_changelog || return 1
	(cd "$src" && dpkg-buildpackage -us -uc --build=full) \
		> "$out/build.log" 2>&1
}

# lintian over the .changes: the source package, the .deb and the
# .buildinfo. Errors and warnings fail; info and pedantic tags are shown.
run_lintian() {
	lintian --info --display-info --pedantic --fail-on error,warning \
		"$changes" > "$out/lintian.log" 2>&1
	local rc=$?

	cat "$out/lintian.log"
	return $rc
}

# kernels here with headers (what DKMS can build for)
header_kernels() {
	local k

	for k in /lib/modules/*/; do
		k=$(basename "$k")
		[ -e "/lib/modules/$k/build/include" ] && echo "$k"
	done
}

# The test is for a machine without the package: refuse to touch one that
# has it, or has softiwarp in DKMS by hand (`dkms add .`).
check_clean_host() {
	if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q installed; then
		echo "deb: $pkg is installed here; not touching it"
		return 1
	fi
	if [ -e /var/lib/dkms/softiwarp ] || compgen -G '/usr/src/softiwarp-*' >/dev/null; then
		echo "deb: softiwarp is in DKMS here (/var/lib/dkms/softiwarp or /usr/src/softiwarp-*); not touching it"
		return 1
	fi
}

# install_check: apt-get install ./the.deb, with DKMS building for every kernel in
# /lib/modules (autoinstall_all_kernels: the postinst alone builds for the
# running kernel and the newest in /boot, and here the running kernel has
# no headers); each kernel with headers must have softiwarp.ko installed,
# of this version, built without a warning.
install_check() {
	local log=$out/install.log k ko fail=0

	autoinstall_all_kernels=1 DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${apt_lock[@]}" \
		"$deb" > "$log" 2>&1 || { tail -n 40 "$log"; return 1; }
	dkms status softiwarp 2>&1 | tee -a "$log"
	for k in "${kernels[@]}"; do
		cat /var/lib/dkms/softiwarp/"$version/$k"/*/log/make.log >> "$log" 2>/dev/null
		ko=$(find "/lib/modules/$k/updates/dkms" -name 'softiwarp.ko*' 2>/dev/null)
		if ! grep -q "^softiwarp/$version, $k, [^:]*: installed" "$log" ||
		   [ -z "$ko" ] || [ "$(modinfo -F version "$ko")" != "$version" ]; then
			echo "deb: softiwarp.ko $version not installed for $k"
			fail=1
		fi
	done
	if dkms_warnings "$log" | grep .; then
		fail=1
	fi
	[ $fail = 0 ] || echo "deb: see build/deb/install.log"
	return $fail
}

# purge_check: apt-get purge must remove the module from every kernel, DKMS's
# tree and /usr/src.
purge_check() {
	local log=$out/purge.log left

	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${apt_lock[@]}" \
		"$pkg" > "$log" 2>&1 || { tail -n 40 "$log"; return 1; }
	left=$(find /lib/modules /var/lib/dkms /usr/src -maxdepth 4 \
		-name '*softiwarp*' 2>/dev/null)
	if [ -n "$left" ]; then
		echo "deb: left after purge: $left"
		return 1
	fi
	! dkms_warnings "$log" | grep .
}

# What dkms and depmod leave that the package does not own: the signing
# key dkms made for itself and the modules.* index of a kernel that had
# none. Remove them when the test created them, so that the host is as
# it was.
snapshot_host() {
	local k

	had_key=0
	[ -e /var/lib/dkms/mok.key ] && had_key=1
	no_index=()
	for k in "${kernels[@]}"; do
		[ -e "/lib/modules/$k/modules.dep" ] || no_index+=("$k")
	done
}

restore_host() {
	local k

	[ $had_key = 1 ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	for k in "${no_index[@]}"; do
		rm -f "/lib/modules/$k"/modules.*
	done
}

fail=0
if build; then
	tally pass deb:build
else
	tail -n 40 "$out/build.log"
	tally fail deb:build
	exit 1
fi
if run_lintian; then
	tally pass deb:lintian
else
	tally fail deb:lintian
	fail=1
fi
[ "${1:-}" = --no-install ] && exit $fail

mapfile -t kernels < <(header_kernels)
if [ ${#kernels[@]} -eq 0 ]; then
	echo "deb: no kernel with headers in /lib/modules"
	tally fail deb:install
	exit 1
fi
check_clean_host || { tally fail deb:install; exit 1; }
snapshot_host
if install_check; then
	tally pass "deb:install (${kernels[*]})"
else
	tally fail deb:install
	fail=1
fi
if purge_check; then
	tally pass deb:purge
else
	tally fail deb:purge
	fail=1
fi
restore_host
exit $fail
