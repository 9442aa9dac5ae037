#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layering rules of Documentation/architecture.rst, checked on the
# #include lines of the module's sources, and each layer's prefix, checked
# on its functions (part of `make lint`). From the bottom up:
#
#   compat.h  nothing of the project, nothing of <rdma/...>
#   mpa/      mpa/ and compat.h only; nothing of <rdma/...>
#   ddp/      ddp/ and compat.h only; nothing of <rdma/...>
#   rdmap/    rdmap/, ddp/, mpa/, compat.h: the protocol, no state of a
#             connection or a device
#   engine/   engine/, mpa/, ddp/, compat.h, and of rdmap/ its door
#             rdmap/rdmap.h and its trace header rdmap/rdmap_trace.h;
#             nothing of dev/ or cm/ (what it needs of the QP comes down
#             in struct eng_qp_link, the calls up are declared in its own
#             door); its private engine/stream.h only in engine/*.c;
#   dev/      anything below, through the doors: engine/engine.h,
#             rdmap/rdmap.h, rdmap/rdmap_trace.h; cm/cm.h only from the
#             files that wire the iw_cm callbacks (the one allowed cycle):
#             device.c (the device's iw_cm ops), qp.c (QP state changes
#             reported to the connection), main.c (module init and exit);
#   cm/       cm/, mpa/, compat.h and the device's door dev/softiwarp.h;
#             of a QP (struct swi_qp) it uses the calls of that door
#             (swi_qp_state(), swi_qp_lock_state()...) and the embedded
#             ib_qp, no other field (a line "qp->FIELD" is refused)
#   kunit/    anything: the suites test the parts from inside
#
# One namespace (a symbol built in is global to the kernel): every
# non-static function carries swi_ and its layer's prefix under it:
# swi_mpa_, swi_ddp_, swi_rdmap_, swi_eng_; dev/ and cm/ plain swi_
# (cm/rpcrdma_cm.c swi_rpcrdma_cm_). tools/lint.sh checks the module's
# symbol table too, variables included.
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

# below INC: 0 when INC is a system header without <rdma/...>, compat.h,
# or of mpa/ or ddp/ (what every layer from rdmap/ up may include)
below() {
	[[ ( $1 == '<'* && $1 != '<rdma/'* ) || $1 == compat.h ||
	   $1 == mpa/* || $1 == ddp/* ]]
}

# door INC: 0 when INC is a system header (any) or the door of rdmap/
door() {
	[[ $1 == '<'* || $1 == rdmap/rdmap.h || $1 == rdmap/rdmap_trace.h ]]
}

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
	rdmap/*)
		below "$inc" || [[ $inc == '<'* || $inc == rdmap/* ]] ;;
	engine/*.c)
		below "$inc" || door "$inc" || [[ $inc == engine/* ]] ;;
	engine/*)
		below "$inc" || door "$inc" ||
			[[ $inc == engine/* && $inc != engine/stream.h ]] ;;
	dev/device.c | dev/qp.c | dev/main.c)
		below "$inc" || door "$inc" || [[ $inc == engine/engine.h ||
			$inc == dev/* || $inc == cm/cm.h ]] ;;
	dev/*)
		below "$inc" || door "$inc" ||
			[[ $inc == engine/engine.h || $inc == dev/* ]] ;;
	cm/*)
		[[ $inc == '<'* || $inc == cm/* || $inc == mpa/* ||
		   $inc == compat.h || $inc == dev/softiwarp.h ]] ;;
	*)
		return 0 ;;
	esac
}

# The prefix of the functions a layer's files define for other files
prefix_of() {
	case "$1" in
	mpa/*) echo swi_mpa_ ;;
	ddp/*) echo swi_ddp_ ;;
	rdmap/*) echo swi_rdmap_ ;;
	engine/*) echo swi_eng_ ;;
	*) echo swi_ ;;
	esac
}

# prefixes: in the current directory, print every non-static function of
# the layers whose name lacks its layer's prefix (a definition's first
# line, in the kernel's style: the type at column 0, the name and its
# parenthesis)
prefixes() {
	local f p n line name bad=0
	local re='^[a-z][^=;(]*[^a-z0-9_]([a-z_][a-z0-9_]*)\('

	while IFS= read -r f; do
		p=$(prefix_of "$f")
		n=0
		while IFS= read -r line; do
			n=$((n + 1))
			[[ $line == static* || $line == *';' ]] && continue
			[[ $line =~ $re ]] || continue
			name=${BASH_REMATCH[1]}
			[[ $name == "$p"* ]] && continue
			echo "$f:$n: $name: not $p* (the layer's prefix)"
			bad=1
		done < "$f"
	done < <(find mpa ddp rdmap engine dev cm -name '*.c' 2>/dev/null |
		 sort)
	return $bad
}

# qp_fields: in the current directory, print every line of cm/ that uses
# a field of struct swi_qp other than its ib_qp (base)
qp_fields() {
	local f n line bad=0
	local re='qp->([a-z_]+)'

	while IFS= read -r f; do
		n=0
		while IFS= read -r line; do
			n=$((n + 1))
			[[ $line =~ ^[[:space:]]*(/?\*|//) ]] && continue
			line=${line%%/\**}	# a comment behind the code
			[[ $line =~ $re ]] || continue
			[ "${BASH_REMATCH[1]}" = base ] && continue
			echo "$f:$n: $line  (a QP's field: use dev/softiwarp.h's calls)"
			bad=1
		done < "$f"
	done < <(find cm -name '*.c' 2>/dev/null | sort)
	return $bad
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
	done < <(find compat.h mpa ddp rdmap engine dev cm -name '*.[ch]' 2>/dev/null | sort)
	return $bad
}

self_test() {
	local t rc=0
	t=$(mktemp -d)
	mkdir -p "$t/mpa" "$t/ddp" "$t/rdmap" "$t/engine" "$t/dev" "$t/cm"
	printf '#include <linux/types.h>\n' > "$t/compat.h"
	printf '#include "mpa/mpa.h"\n#include "compat.h"\n' > "$t/mpa/ok.c"
	printf '#include "cm/cm.h"\n#include "rdmap/rdmap.h"\n' \
		> "$t/dev/device.c"
	printf '#include "engine/stream.h"\n#include "rdmap/rdmap_trace.h"\n' \
		> "$t/engine/rx.c"
	printf 'int swi_eng_ok(int a)\n{\n}\nstatic int other(void)\n' \
		>> "$t/engine/rx.c"
	printf '#include "dev/softiwarp.h"\n' > "$t/cm/cm.c"
	(check "$t" && cd "$t" && prefixes) > /dev/null ||
		{ echo "self-test: a clean tree failed"; rc=1; }
	printf '#include <rdma/ib_verbs.h>\n' > "$t/mpa/bad.h"
	printf '#include "rdmap/qp_state.h"\n' > "$t/ddp/bad.c"
	printf '#include "rdmap/rdmap_proto.h"\n' > "$t/ddp/ddp.h"
	printf '#include "cm/cm.h"\n#include "engine/stream.h"\n' > "$t/dev/cq.c"
	printf '#include "rdmap/mem.h"\n' > "$t/dev/mr.c"
	printf '#include "dev/softiwarp.h"\n' > "$t/engine/tx.c"
	printf '#include "engine/stream.h"\n' > "$t/engine/engine.h"
	printf '#include "engine/engine.h"\n' > "$t/cm/policy.c"
	printf '#include "engine/tx.c"\n' > "$t/rdmap/codec.c"
	[ "$(check "$t" | wc -l)" -eq 10 ] ||
		{ echo "self-test: ten bad lines not all found"; rc=1; }
	printf 'void swi_tx_kick(int a)\n{\n}\n' > "$t/engine/tx.c"
	printf 'int rdmap_x(void) { return 0; }\n' > "$t/dev/qp.c"
	printf 'bool mpa_crc_ok(int a)\n{\n}\n' > "$t/mpa/ok.c"
	[ "$(cd "$t" && prefixes | wc -l)" -eq 3 ] ||
		{ echo "self-test: three functions off their prefix not found"; rc=1; }
	printf '\treturn qp->base.qp_num;\n\t/* qp->state */\n' > "$t/cm/cm.c"
	(cd "$t" && qp_fields) > /dev/null ||
		{ echo "self-test: a QP's base taken for a field"; rc=1; }
	printf '\tmutex_lock(&cep->qp->state_lock);\n' >> "$t/cm/cm.c"
	[ "$(cd "$t" && qp_fields | wc -l)" -eq 1 ] ||
		{ echo "self-test: a QP's field used in cm/ not found"; rc=1; }
	rm -rf "$t"
	[ $rc -eq 0 ] && echo "check-layers: self-test passed"
	return $rc
}

if [ "${1:-}" = --self-test ]; then
	self_test
	exit
fi
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)}
rc=0
check "$dir" || rc=1
(cd "$dir" && prefixes) || rc=1
(cd "$dir" && qp_fields) || rc=1
exit $rc
