# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the tools/*.sh scripts; source it, don't run it.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# tally pass|fail NAME: record one result for `make check`'s summary
# (when run under tools/check.sh) and print it.
tally() {
	[ -n "${SWP_TALLY:-}" ] && echo "$1 $2" >> "$SWP_TALLY"
	if [ "$1" = pass ]; then
		echo "ok:   $2"
	else
		echo "FAIL: $2"
	fi
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
