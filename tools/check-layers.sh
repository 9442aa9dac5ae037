#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layering rules of Documentation/architecture.rst, checked on the
# #include lines of the module's sources (part of `make lint`):
#
#   compat.h  nothing of the project, nothing of <rdma/...>
#   mpa/      mpa/ and compat.h only; nothing of <rdma/...>
#   ddp/      ddp/ and compat.h only; nothing of <rdma/...>
#   rdmap/    anything but cm/; cm/cm.h only from the files that wire the
#             iw_cm callbacks (the one allowed cycle): device.c (the
#             device's iw_cm ops), qp.c (QP state changes reported to the
#             connection), main.c (module init and exit); the engine's
#             private engine/stream.h only from the engine (stream.c, tx.c,
#             rx.c); the others use engine/engine.h
#   cm/       cm/, mpa/, compat.h and the device API dev/softiwarp.h
#
# Exceptions still to be undone would be listed below with their reason
# (there are none at present); the check fails on any other offending
# line and prints it.
#
# Usage: tools/check-layers.sh [DIR]   (default: the repository)
#        tools/check-layers.sh --self-test
set -uo pipefail

# "file include" pairs allowed against the rules (work to be done).
exceptions=(
)

# allowed FILE INC: 0 when FILE may include INC, which is a project
# header by its path (mpa/mpa.h) or a system header in brackets (<...>)
allowed() {
	local f=$1 inc=$2 e
	for e in "${exceptions[@]}"; do
		[ "$e" = "$f $inc" ] && return 0
	done
	case "$f" in
	compat.h)
		[[ $inc == '<'* && $inc != '<rdma/'* ]] ;;
	mpa/* | ddp/*)
		[[ $inc == "${f%%/*}/"* || $inc == compat.h ||
		   ( $inc == '<'* && $inc != '<rdma/'* ) ]] ;;
	engine/stream.c | engine/tx.c | engine/rx.c)
		[[ $inc != cm/* ]] ;;
	dev/device.c | dev/qp.c | dev/main.c)
		[[ $inc != cm/* || $inc == cm/cm.h ]] &&
			[[ $inc != engine/stream.h ]] ;;
	rdmap/*)
		[[ $inc != cm/* && $inc != engine/stream.h ]] ;;
	cm/*)
		[[ $inc == '<'* || $inc == cm/* || $inc == mpa/* ||
		   $inc == compat.h || $inc == dev/softiwarp.h ]] ;;
	*)
		return 0 ;;
	esac
}

# check DIR: print every offending include line; 1 when there is one
check() {
	local dir=$1 f n line inc bad=0
	local re='^#[[:space:]]*include[[:space:]]+("([^"]+)"|(<[^>]+>))'

	cd "$dir" || return 2
	while IFS= read -r f; do
		n=0
		while IFS= read -r line; do
			n=$((n + 1))
			[[ $line =~ $re ]] || continue
			inc=${BASH_REMATCH[2]:-${BASH_REMATCH[3]}}
			allowed "$f" "$inc" && continue
			echo "$f:$n: $line  (layering: Documentation/architecture.rst)"
			bad=1
		done < "$f"
	done < <(find compat.h mpa ddp rdmap cm -name '*.[ch]' 2>/dev/null | sort)
	return $bad
}

self_test() {
	local t rc=0
	t=$(mktemp -d)
	mkdir -p "$t/mpa" "$t/ddp" "$t/rdmap" "$t/cm"
	printf '#include <linux/types.h>\n' > "$t/compat.h"
	printf '#include "mpa/mpa.h"\n#include "compat.h"\n' > "$t/mpa/ok.c"
	printf '#include "cm/cm.h"\n' > "$t/dev/device.c"
	check "$t" > /dev/null || { echo "self-test: a clean tree failed"; rc=1; }
	printf '#include <rdma/ib_verbs.h>\n' > "$t/mpa/bad.h"
	printf '#include "rdmap/qp_state.h"\n' > "$t/ddp/bad.c"
	printf '#include "rdmap/rdmap_proto.h"\n' > "$t/ddp/ddp.h"
	printf '#include "cm/cm.h"\n#include "engine/stream.h"\n' > "$t/dev/cq.c"
	printf '#include "engine/stream.h"\n' > "$t/engine/tx.c"
	[ "$(check "$t" | wc -l)" -eq 5 ] ||
		{ echo "self-test: five bad lines not all found"; rc=1; }
	rm -rf "$t"
	[ $rc -eq 0 ] && echo "check-layers: self-test passed"
	return $rc
}

if [ "${1:-}" = --self-test ]; then
	self_test
	exit
fi
check "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
