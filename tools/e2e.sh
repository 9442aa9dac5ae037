#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make e2e: run the end-to-end tests of tools/e2e/ in the VM (all of them,
# or those given as arguments, e.g. tools/e2e.sh tools/e2e/01-module-load.sh),
# then, when no argument is given, the two-guest tests of tools/e2e-pair/.
# Fails when any test fails, when none ran, or when the guest died.
#
# KFLAVOUR=debug (make check's e2e-debug stage): one-guest tests on the
# KASAN/lockdep/kmemleak kernel, with E2E_SLOW=4 (tools/e2e/lib.sh: counts
# scaled down, timeouts up) and kmemleak checked after the last test;
# results in build/e2e-debug, tallied as e2e-debug:NAME. Without arguments
# the tests named in E2E_DEBUG_TESTS: by default those whose paths a
# memory or locking bug would hide in (E2E_DEBUG_DEFAULT: the data path
# with Markers and CRC variants, faults under traffic, removal under load,
# the hostile peer, allocation faults, the hostile user, containers,
# RFC 7306 against a kernel QP;
# about 19 minutes with the boot), "all" for every one-guest test (about
# 50 minutes); then the two-guest tests E2E_DEBUG_PAIRS names (none by
# default; make check-full: 05-rnbd), each guest with 2 GiB.
#
# On the test kernel E2E_TESTS names the one-guest tests to run (default
# "all"; "none": no guest of its own) and E2E_PAIRS the two-guest ones
# (default "all"; "none"); make check runs parts of each
# (tools/check.sh), make check-full all.
#
# E2E_KERNEL=SUITE: on Debian's own kernel of SUITE (trixie: 6.12,
# trixie-backports: 7.3, sid: 7.2; host:linux-headers-6.12-amd64 the
# host's 6.12; tools/debian-kernel.sh) instead of the test kernel, the
# module built against its header package as DKMS would there (in the
# chroot of tools/debian-chroot.sh, or on the host); VM_KDIR and
# VM_MODDIR point tools/vm-run at them; one-guest tests, by
# default those of E2E_DEBIAN_TESTS, else E2E_DEBIAN_DEFAULT (the module,
# rdma-core's tools, rping, perftest, the hostile peer and user,
# containers; "all": every one), then the two-guest tests of E2E_DEBIAN_PAIRS (NVMe-oF
# without its siw phases, NFS/RDMA); results in build/e2e-RELEASE, tallied
# as e2e-RELEASE:NAME (RELEASE: the kernel's, e.g. 6.12.117+deb12-amd64).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

E2E_DEBUG_DEFAULT="01-module-load 03-netns-rping 12-faults
	13-remove-under-load 14-mpa-peer 17-setup-alloc-faults 19-hostile-user
	20-containers 22-rfc7306-kernel-peer"
name=e2e
vmopts=()
E2E_DEBIAN_DEFAULT="01-module-load 02-rdma-link 03-netns-rping
	04-netns-perftest 14-mpa-peer 19-hostile-user 20-containers
	21-rdma-cgroup 22-rfc7306-kernel-peer"
E2E_DEBIAN_PAIRS="03-nvmeof 04-nfs-rdma"
if [ "${KFLAVOUR:-test}" = debug ]; then
	name=e2e-debug
	# as for kunit-debug: no ACPI PCI routing under TCG with KASAN; the
	# shadow memory and the quarantine want more than the default 1 GiB
	VM_CMDLINE="${VM_CMDLINE:+$VM_CMDLINE }pci=noacpi"
	export VM_CMDLINE
	vmopts=(-m 2048 -e "E2E_SLOW=${E2E_SLOW:-4}")
	# the default list took 1110 s, the whole suite 2988 s (2026-11-27);
	# a hung test must not eat make check's time
	if [ "${E2E_DEBUG_TESTS:-}" = all ]; then
		: "${E2E_TIMEOUT:=4200}"
	else
		: "${E2E_TIMEOUT:=2400}"
	fi
fi

# a run by hand of some cases of 19-hostile-user (its header)
[ -z "${HOSTILE_CASES:-}" ] || vmopts+=(-e "HOSTILE_CASES=$HOSTILE_CASES")
# verbs-random's seconds and seed (19-hostile-user's header), and a longer
# limit per test for such a run (tools/guest/e2e.sh)
for v in HOSTILE_RANDOM_SECS HOSTILE_SEED E2E_TEST_TIMEOUT; do
	[ -z "${!v:-}" ] || vmopts+=(-e "$v=${!v}")
done

if [ -n "${E2E_KERNEL:-}" ]; then
	export E2E_KERNEL
	prepare_debian_kernel "$E2E_KERNEL" ||
		{ tally fail "e2e-$E2E_KERNEL:prepare"; exit 1; }
	name=e2e-$(cat "$VM_KDIR/release")
else
	prepare_test_kernel || { tally fail $name:build-kernel; exit 1; }
	build_test_modules || { tally fail $name:build-modules; exit 1; }
fi
# tools built on the host for the guest (19-hostile-user)
make -s -C "$top/tools/hostile-user" O="$top/build/tools" ||
	{ tally fail $name:build-hostile-user; exit 1; }

res="$top/build/$name"
rm -rf "$res"
mkdir -p "$res"
args=()
for t in "$@"; do args+=("$(realpath "$t")"); done
sel= pairs=
if [ $# -eq 0 ] && [ $name = e2e-debug ]; then
	sel=${E2E_DEBUG_TESTS:-$E2E_DEBUG_DEFAULT}
	pairs=${E2E_DEBUG_PAIRS:-}
	export VM_PAIR_MEM=2048
elif [ $# -eq 0 ] && [ -n "${E2E_KERNEL:-}" ]; then
	sel=${E2E_DEBIAN_TESTS:-$E2E_DEBIAN_DEFAULT}
	pairs=${E2E_PAIRS:-$E2E_DEBIAN_PAIRS}
elif [ $# -eq 0 ]; then
	sel=${E2E_TESTS:-all}
	pairs=${E2E_PAIRS:-all}
fi
if [ -n "$sel" ] && [ "$sel" != all ] && [ "$sel" != none ]; then
	for t in $sel; do
		args+=("$top/tools/e2e/$t.sh")
		[ -f "${args[-1]}" ] || { tally fail "$name:no-such-test-$t"; exit 1; }
	done
fi
: > "$res/e2e.tally"
# "none": the two-guest tests alone
if [ "$sel" != none ]; then
	"$top/tools/vm-run" -o "$res" -t "${E2E_TIMEOUT:-2400}" "${vmopts[@]}" \
		"$top/tools/guest/e2e.sh" "${args[@]}"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$name: guest failed with status $rc (console: $res/console.log)" >&2
		tally fail $name:guest
		exit 1
	fi
fi
# Tests that need two guests run from the host: tools/e2e-pair/NN-*.sh,
# those E2E_PAIRS names ("all", "none"; on a Debian kernel by default
# E2E_DEBIAN_PAIRS: siw's are not for it).
pair_tests=()
case $pairs in
''|none) ;;
all)	pair_tests=("$top"/tools/e2e-pair/[0-9][0-9]-*.sh) ;;
*)	for t in $pairs; do
		pair_tests+=("$top/tools/e2e-pair/$t.sh")
		[ -f "${pair_tests[-1]}" ] ||
			{ tally fail "$name:no-such-test-$t"; exit 1; }
	done ;;
esac
if [ ${#pair_tests[@]} -gt 0 ]; then
	for t in "${pair_tests[@]}"; do
		pname=$(basename "$t" .sh)
		if "$t" > "$res/pair-$pname.log" 2>&1; then
			echo "pass e2e:$pname" >> "$res/e2e.tally"
		else
			echo "fail e2e:$pname" >> "$res/e2e.tally"
			# a CI run keeps only the output: what failed in
			# either guest, wherever it is in the log, then the end
			grep -nE '^(FAIL|fail|not ok)|[1-9][0-9]* failure|timed out|vm-pair:|^--- guest' \
				"$res/pair-$pname.log" | head -n 40
			tail -n 20 "$res/pair-$pname.log"
		fi
	done
fi
pass=0 fail=0 skip=0
while read -r word test; do
	tally "$word" "$name:${test#e2e:}"
	case $word in
	pass)	pass=$((pass + 1)) ;;
	skip)	skip=$((skip + 1)) ;;
	*)	fail=$((fail + 1)) ;;
	esac
done < "$res/e2e.tally"
# What a failed one-guest test said, kept in $res/failures.txt and
# printed: a CI run keeps only the output, not $res. Its last lines, then
# the "fail" and error lines of the logs of its tools. make check prints
# the file again at the end.
while read -r word test; do
	t=${test#e2e:}
	[ "$word" = fail ] && [ -f "$res/$t.log" ] || continue
	echo "--- $name:$t: the last lines of $t.log"
	tail -n 25 "$res/$t.log"
	grep -H -m 10 '^fail \|^FAIL\|^Error\|error:' "$res/$t"-*.log 2>/dev/null |
		sed "s|^$res/||" | head -n 40
done < "$res/e2e.tally" > "$res/failures.txt"
cat "$res/failures.txt"
skipped=
[ "$skip" -eq 0 ] || skipped=", $skip skipped"
echo "$name: $pass passed, $fail failed$skipped (logs: $res)"
if [ $((pass + fail)) -eq 0 ]; then
	tally fail $name:no-test-ran
	exit 1
fi
[ "$fail" -eq 0 ]
