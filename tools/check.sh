#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: lint + compat + deb + kunit + fuzz, the end-to-end tests on
# Debian's own 6.12 and 7.x kernel images and (those with siw) on the test
# kernel, then KUnit and the end-to-end tests a memory or locking bug
# would hide in again on the debug kernel (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak: any report fails them). The tiers are below
# (make check-full: CHECK_TIER=full). Every stage runs even when an earlier one failed; each check counts
# once in the summary, every KUnit case counts on its own. Ends with the
# line "N passed, N failed".
#
# When the debug kernel is not cached, it is built in the background at
# nice 19 (its autogroup too) once lint has built the test kernel (tools/build-kernel.sh lets
# one build run at a time): it takes the CPU the other stages leave idle,
# mostly while the VMs of the end-to-end tests wait, and kunit-debug waits
# for it to finish. Its output goes to build/kernel-debug.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

SWP_TALLY=$(mktemp)
export SWP_TALLY
bg_build=
trap 'rm -f "$SWP_TALLY"; [ -z "$bg_build" ] || kill -- "-$bg_build" 2>/dev/null' EXIT
start=$(date +%s)
# only this run's failures are printed at the end (tools/e2e.sh writes them)
rm -f "$top"/build/e2e*/failures.txt

# debug_build_bg: start the debug kernel build in the background unless
# it is cached
debug_build_bg() {
	local dir
	dir=$(KFLAVOUR=debug "$top/tools/build-kernel.sh" --print-dir) || return 0
	[ -f "$dir/complete" ] && return 0
	mkdir -p "$top/build"
	echo "=== debug kernel: building in the background (build/kernel-debug.log)"
	# its own process group, so that an interrupted check stops all of it
	KFLAVOUR=debug setsid nice -n 19 "$top/tools/build-kernel.sh" \
		> "$top/build/kernel-debug.log" 2>&1 &
	bg_build=$!
	# A new session is a new scheduler autogroup, which competes with
	# ours as an equal whatever its tasks' nice: the group's own nice
	# makes it yield (measured: e2e tests ran 2-3 times slower without).
	# Only once the build left our autogroup: the write renices the
	# group the task is in.
	local ag _
	for _ in $(seq 50); do
		ag=$(cat "/proc/$bg_build/autogroup" 2>/dev/null) || break
		if [ "$ag" != "$(cat /proc/self/autogroup)" ]; then
			echo 19 > "/proc/$bg_build/autogroup"
			break
		fi
		sleep 0.1
	done 2>/dev/null
}

# The tiers (Documentation/testing.rst). make check (CI): on Debian's 6.12
# (bookworm's, built for with the host's headers) and newest 7.x
# (trixie-backports) images the real consumers (rping, perftest, NVMe-oF,
# NFS/RDMA); on the test kernel the hostile peer and the interop with
# siw; on the debug kernel KUnit and the tests of $tdebug (the hostile
# user and the containers among them). make check-full
# (CHECK_TIER=full): every test on each of them.
deb612=host:linux-headers-6.12-amd64
deb7=trixie-backports
# NVMe-oF's phases and NFS/RDMA's rounds are shared out between the two
# images: each runs once in make check.
if [ "${CHECK_TIER:-}" = full ]; then
	t612=all t7=all tsiw=all psiw=all tdebug=all cdkms=all fsecs=300
	# the kernel patch series (make upstream): about 12 minutes, which
	# make check's 45 do not have room for
	upstream=upstream
	pdebug=05-rnbd
	nvme612=all nfs612="4.0 4.2 4.2+netem"
	nvme7=all nfs7="4.0 4.2 4.2+netem"
else
	t612="01-module-load 02-rdma-link 03-netns-rping 04-netns-perftest
		21-rdma-cgroup 22-rfc7306-kernel-peer"
	t7="01-module-load 03-netns-rping 21-rdma-cgroup"
	nvme612="sw-sw-ipv4 sw-sw-ipv6 sw-sw-netem" nfs612="4.2"
	nvme7="sw-sw-exclusive sw-sw-link-down" nfs7="4.2+netem"
	# the hostile peer on the test kernel (under KASAN it takes three
	# times as long: make check-full runs it there), the FPDU sizes
	# and alignment in a capture (conformance rows of RFC 5044 4.5, 5.1),
	# and RFC 7306 against a kernel QP (on 6.12's image and under KASAN
	# too)
	tsiw="14-mpa-peer 18-markers-alignment 22-rfc7306-kernel-peer
		23-rfc7306-capture"
	# siw interop; rnbd over RTRS (RFC 7306 Write with Immediate), whose
	# modules only the test kernel has
	psiw="02-siw-interop 05-rnbd"
	# 20-containers carries the data path without CRC and with Markers
	# (03-netns-rping's variants) there, under KASAN, kmemleak and
	# lockdep (on 6.12's image too in make check-full only: it took 7
	# minutes here in session 28); the hostile user runs here only
	tdebug="01-module-load 19-hostile-user 20-containers
		22-rfc7306-kernel-peer"
	# rnbd on the debug kernel takes minutes more: make check-full only
	pdebug=""
	cdkms=newest
	upstream=
	# a short run of every parser target (make fuzz: 300 s each)
	fsecs=20
fi

"$top/tools/install-deps.sh" || tally fail check:install-deps
for stage in lint compat deb kunit fuzz e2e-6.12 e2e-7.x e2e kunit-debug e2e-debug $upstream; do
	echo "=== make $stage"
	t0=$(date +%s)
	case $stage in
	e2e-6.12)	E2E_KERNEL=$deb612 E2E_DEBIAN_TESTS=$t612 \
			NVME_PHASES=$nvme612 NFS_ROUNDS=$nfs612 \
				"$top/tools/e2e.sh" ;;
	e2e-7.x)	E2E_KERNEL=$deb7 E2E_DEBIAN_TESTS=$t7 \
			NVME_PHASES=$nvme7 NFS_ROUNDS=$nfs7 "$top/tools/e2e.sh" ;;
	e2e)		E2E_TESTS=$tsiw E2E_PAIRS=$psiw "$top/tools/e2e.sh" ;;
	kunit-debug)	KFLAVOUR=debug "$top/tools/kunit.sh" ;;
	e2e-debug)	KFLAVOUR=debug E2E_DEBUG_TESTS=$tdebug \
			E2E_DEBUG_PAIRS=$pdebug "$top/tools/e2e.sh" ;;
	compat)		COMPAT_DKMS=$cdkms "$top/tools/compat.sh" ;;
	fuzz)		FUZZ_SECS=$fsecs "$top/tools/fuzz.sh" ;;
	upstream)	"$top/tools/upstream/check-series.sh" ;;
	*)		"$top/tools/$stage.sh" ;;
	esac || tally fail "check:$stage"
	echo "=== make $stage: $(( $(date +%s) - t0 ))s"
	[ "$stage" != lint ] || debug_build_bg
	if [ "$stage" = e2e ] && [ -n "$bg_build" ]; then
		wait "$bg_build" || echo "=== debug kernel: background build failed"
		bg_build=
	fi
done

pass=$(grep -c '^pass ' "$SWP_TALLY")
fail=$(grep -c '^fail ' "$SWP_TALLY")
skip=$(grep -c '^skip ' "$SWP_TALLY")
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	grep '^fail ' "$SWP_TALLY" | sed 's/^fail /  /'
	# what the failed end-to-end tests said (tools/e2e.sh)
	for f in "$top"/build/e2e*/failures.txt; do
		[ -s "$f" ] && head -n 80 "$f"
	done
fi
echo "make check took $(( $(date +%s) - start ))s"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
