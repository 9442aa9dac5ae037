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
