#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the test kernel that the VM harness boots, from Debian's
# linux-source-6.12 package and the fragments in tools/kconfig/.
#
# The build lives outside the repository, in
#   ${SOFTIWARP_CACHE:-~/.cache/softiwarp}/<flavour>-<key>/
# where <key> hashes the source package version, the fragments and
# $recipe (bump it when a change below alters what gets built). An existing complete build with the same key is reused untouched.
# Only one kernel build runs at a time (flock).
#
# Usage: tools/build-kernel.sh [--print-dir]
#   KFLAVOUR=test   (default) the fast test kernel
#   KFLAVOUR=debug  adds KASAN, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, KMEMLEAK
# --print-dir only prints the cache directory for the current key.
#
# Output layout of the cache directory:
#   linux-source-6.12/   configured, built source tree (KDIR for the module)
#   bzImage              the kernel
#   mods/lib/modules/V/  installed in-tree modules (siw, rxe)
#   release              the kernel release string (uname -r in the guest)
#   complete             stamp written last
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${KFLAVOUR:-test}
cache=${SOFTIWARP_CACHE:-$HOME/.cache/softiwarp}
tarball=/usr/src/linux-source-6.12.tar.xz
recipe=1

fragments=("$top/tools/kconfig/softiwarp-test.config")
case "$flavour" in
test) ;;
debug) fragments+=("$top/tools/kconfig/debug.config") ;;
*) echo "build-kernel: unknown KFLAVOUR=$flavour (test|debug)" >&2; exit 2 ;;
esac

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
if [ -z "$srcver" ] || [ ! -f "$tarball" ]; then
	echo "build-kernel: linux-source-6.12 is not installed (tools/install-deps.sh)" >&2
	exit 1
fi
key=$( { echo "$srcver"; echo "$recipe"; cat "${fragments[@]}"; } | sha256sum | cut -c1-16)
dir="$cache/$flavour-$key"

if [ "${1:-}" = "--print-dir" ]; then
	echo "$dir"
	exit 0
fi

if [ -f "$dir/complete" ]; then
	echo "build-kernel: reusing cached kernel $dir"
	exit 0
fi
mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9
if [ -f "$dir/complete" ]; then
	echo "build-kernel: reusing cached kernel $dir"
	exit 0
fi

echo "build-kernel: building $flavour kernel (source $srcver) in $dir"
start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
tar -xJf "$tarball" -C "$dir"
src="$dir/linux-source-6.12"
cd "$src"
make -s tinyconfig
scripts/kconfig/merge_config.sh -m -O . .config "${fragments[@]}" >/dev/null
make -s olddefconfig

# Every requested option must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF -- "$line" .config || { echo "  wanted $line, got: $(grep -E "^(# )?${line%%=*}[= ]" .config || echo absent)"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" .config || { echo "  wanted $opt off, got: $(grep "^$opt=" .config)"; bad=1; } ;;
	esac
done < <(cat "${fragments[@]}")
if [ "$bad" -ne 0 ]; then
	echo "build-kernel: options above were dropped by olddefconfig (missing dependency?)" >&2
	exit 1
fi

make -s -j"$(nproc)" bzImage modules
make -s modules_install INSTALL_MOD_PATH="$dir/mods" >/dev/null
cp arch/x86/boot/bzImage "$dir/bzImage"
make -s kernelrelease > "$dir/release"
date +%s > "$dir/complete"
echo "build-kernel: done in $(( $(date +%s) - start ))s: $dir"
