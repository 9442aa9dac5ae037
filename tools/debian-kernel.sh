#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's own prebuilt kernels in the test VM: the current kernel image
# package of a suite, as Debian's archive serves it, unpacked into a kernel
# directory that tools/vm-run boots (-K DIR): bzImage, the modules in
# mods/lib/modules/VERSION (without the subtrees no guest here loads:
# graphics, sound, media, wireless, USB and the like), and an initramfs
# of our own, initrd: busybox and the modules that take the guest to its
# root file system and network (virtio-pci, 9p over virtio, virtio-net,
# as far as Debian builds them as modules), which hands over to the init=
# program of the command line as the test kernel's built-in drivers would.
#
# Usage:
#   tools/debian-kernel.sh SUITE
#       print the kernel directory of SUITE's linux-image-amd64 (bookworm:
#       6.1, trixie: 6.12, trixie-backports: 7.3, sid: 7.2), made the first
#       time (a minute or two) and cached in
#       ~/.cache/softiwarp/debian-kernel/VERSION
#       SUITE "host[:META]": the image of the host's own headers, the
#       version the installed META names (default linux-headers-amd64:
#       bookworm's 6.1 here; host:linux-headers-6.12-amd64 its 6.12)
#   tools/debian-kernel.sh version SUITE
#       print that kernel's release (uname -r), e.g. 6.12.117+deb13-amd64
#
# The package comes through an apt state of the project's own
# (build/apt/SUITE, tools/lib.sh), "host"'s through the host's apt (a
# download only): the host's apt sources are never changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/softiwarp/debian-kernel
# what the test kernel has built in: the PCI transport, 9p, the network
boot_mods="virtio_pci 9pnet_virtio 9p virtio_net"
# module subtrees no guest of ours loads
prune="drivers/gpu drivers/media sound drivers/net/wireless net/wireless
	net/mac80211 drivers/bluetooth net/bluetooth drivers/staging
	drivers/usb drivers/iio drivers/hid drivers/input
	drivers/net/ethernet drivers/net/can drivers/isdn drivers/comedi"

# image SUITE: the versioned image package linux-image-amd64 names
image() {
	debian_current "$1" image
}

# unz FILE: a module's contents, uncompressed
unz() {
	case $1 in
	*.xz)	xz -dc "$1" ;;
	*.zst)	zstd -qdc "$1" ;;
	*.gz)	gzip -dc "$1" ;;
	*)	cat "$1" ;;
	esac
}

# initrd DIR VER: DIR/initrd, with the modules of $boot_mods in load order
initrd() {
	local dir=$1 ver=$2 ird m n=0
	ird=$(mktemp -d)
	mkdir -p "$ird/bin" "$ird/dev" "$ird/proc" "$ird/newroot" "$ird/lib"
	cp /bin/busybox "$ird/bin/busybox"
	: > "$ird/modules"
	# --show-depends takes one module (more words are its parameters)
	for m in $(for m in $boot_mods; do
			modprobe -d "$dir/mods" -S "$ver" --show-depends "$m"
		   done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		n=$((n + 1))
		unz "$m" > "$ird/lib/$n.ko"
		echo "$n.ko $(basename "$m")" >> "$ird/modules"
	done
	cat > "$ird/init" <<'EOF'
#!/bin/busybox sh
# initramfs of tools/debian-kernel.sh: load the root's drivers, mount the
# 9p root as the command line says, start its init=
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t devtmpfs devtmpfs /dev
exec < /dev/console > /dev/console 2>&1
mount -t proc proc /proc
while read -r ko name; do
	insmod "/lib/$ko" || echo "initrd: $name did not load"
done < /modules
arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }
mount -t 9p -o "ro,$(arg rootflags)" "$(arg root)" /newroot ||
	{ echo "initrd: no root"; poweroff -f; }
init=$(arg init)
umount /proc
umount /dev
exec switch_root /newroot "$init"
EOF
	chmod +x "$ird/init"
	(cd "$ird" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) \
		> "$dir/initrd"
	rm -rf "$ird"
}

# parts APTOPTS PKG VERSION: the packages of PKG's dependencies that are
# of this kernel's VERSION (linux-binary-VERSION, linux-modules-VERSION, ...)
parts() {
	# shellcheck disable=SC2086
	apt-cache $1 show "$2" | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',|' '\n\n' | awk -v v="$3" '{
			n = $1
			if (length(n) > length(v) &&
			    substr(n, length(n) - length(v) + 1) == v && n != "'"$2"'")
				print n
		}' | sort -u
}

# host_image host[:META]: the image package of the host's own kernel
# headers, those the installed META names (default linux-headers-amd64):
# built for with the host's compiler, no chroot needed
host_image() {
	local meta=${1#host} h
	meta=${meta#:}
	meta=${meta:-linux-headers-amd64}
	h=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null | sed 's/[ ,].*//')
	[ -n "$h" ] || { echo "$meta is not installed" >&2; return 1; }
	echo "linux-image-${h#linux-headers-}"
}

# prepare SUITE: the kernel directory's path; made when missing
prepare() {
	local o pkg ver dir tmp deb mods kernel p
	if [[ $1 == host* ]]; then
		pkg=$(host_image "$1")
	else
		pkg=$(image "$1")
	fi
	ver=${pkg#linux-image-}
	dir=$cache/$ver
	if [ -f "$dir/complete" ]; then
		echo "$dir"
		return 0
	fi
	echo "debian-kernel: unpacking $pkg" >&2
	# the host's kernel comes through the host's apt, the others not
	o="-o APT::Sandbox::User=root"
	[[ $1 == host* ]] || o=$(debian_apt_state "$1")
	rm -rf "$dir"
	mkdir -p "$dir/mods/lib/modules"
	tmp=$(mktemp -d)
	# From 7.x the image package is a shell around linux-binary-VERSION and
	# linux-modules-VERSION (and linux-base-VERSION): take those too.
	# shellcheck disable=SC2086
	(cd "$tmp" && apt-get $o -qq download "$pkg" $(parts "$o" "$pkg" "$ver")) \
		>&2 || { rm -rf "$tmp"; return 1; }
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/x"
	done
	# /lib/modules, or /usr/lib/modules (merged /usr)
	# /lib/modules or /usr/lib/modules (merged /usr); the kernel in /boot,
	# or from 7.x in the modules directory (a hook copies it to /boot)
	mods= kernel=
	for p in "$tmp/x/lib/modules/$ver" "$tmp/x/usr/lib/modules/$ver"; do
		[ -d "$p" ] && mods=$p
	done
	for p in "$tmp/x/boot/vmlinuz-$ver" "$mods/vmlinuz"; do
		[ -f "$p" ] && kernel=$p
	done
	if [ -z "$mods" ] || [ -z "$kernel" ]; then
		echo "debian-kernel: $pkg has no kernel or modules" >&2
		rm -rf "$tmp"
		return 1
	fi
	for p in $prune; do
		rm -rf "${mods:?}/kernel/$p"
	done
	mv "$kernel" "$dir/bzImage"
	mv "$mods" "$dir/mods/lib/modules/$ver"
	rm -rf "$tmp"
	depmod -b "$dir/mods" "$ver"
	initrd "$dir" "$ver"
	echo "$ver" > "$dir/release"
	touch "$dir/complete"
	echo "$dir"
}

case ${1:-} in
version)	[ $# -eq 2 ] || exit 2
		if [[ $2 == host* ]]; then host_image "$2"; else image "$2"; fi |
			sed 's/^linux-image-//' ;;
-h|--help|'')	sed -n '4,28p' "$0"; [ $# -eq 1 ] ;;
*)		[ $# -eq 1 ] && prepare "$1" ;;
esac
