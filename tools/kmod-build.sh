#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build softiwarp.ko (and softiwarp_kunit.ko when the target has KUnit)
# out of the source tree, in build/<name>/, so that builds for different
# kernels never share object files.
#
# Usage: tools/kmod-build.sh NAME KDIR [extra make arguments...]
# Prints the compiler output; exits non-zero when the build fails.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
name=$1 kdir=$2
shift 2
out="$top/build/$name"
mkdir -p "$out"
# Sources only; keep object files from earlier builds for incremental make.
# The excludes come before --include='*/': rsync takes the first rule that
# matches, and build/ must never be copied into itself, nor the generated
# *.mod.c of an in-tree build (`make` in the repository): copied over the
# fresh one, it would rebuild the module with a stale export table.
# No -t: a copied file gets a new mtime, so make rebuilds whatever changed,
# even when the source went back to an older timestamp.
rsync -rlp --checksum --delete --prune-empty-dirs \
	--filter='P *.o' --filter='P *.ko' --filter='P .*.cmd' \
	--filter='P *.mod' --filter='P *.mod.c' --filter='P modules.order' \
	--filter='P Module.symvers' --filter='P *.a' \
	--exclude='/build/' --exclude='/tools/' --exclude='/Documentation/' \
	--exclude='/.git/' --exclude='*.mod.c' \
	--include='*/' --include='Kbuild' --include='/VERSION' --include='*.c' \
	--include='*.h' \
	--exclude='*' "$top/" "$out/"
# as many jobs as CPUs, as DKMS runs its builds
make -j"$(nproc)" -C "$kdir" M="$out" "$@" modules
