#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: the wire parsers of mpa/, ddp/, rdmap/ and cm/rpcrdma_cm.c,
# built unchanged in user space against tools/fuzz/shim, under clang's
# libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer, one
# target per entry point (tools/fuzz/targets/*.c, each says what it feeds
# and which properties it checks). Per target it prints the executions,
# the corpus, the line and region coverage of the sources it fuzzes
# (llvm-cov over the corpus) and the crashes, and it fails on a crash
# or a target that did not run.
#
#   FUZZ_SECS=N      seconds per target (default 300; make check: 20)
#   FUZZ_JOBS=N      targets run at once (default 2, the machine's cores)
#   FUZZ_TARGETS="T..."  those only (default: every target)
#
# Corpora: tools/fuzz/corpus/TARGET (in the repository, minimised) and
# the seeds tools/fuzz/seeds.py writes from the hostile peer's codec are
# read; what a run finds goes to ~/.cache/softiwarp/fuzz/TARGET, kept
# between runs, with the CPU seconds spent on the target in all
# (cpu-seconds). A crash's input is kept in build/fuzz/crashes/TARGET;
# replay it with build/fuzz/bin/TARGET FILE.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

secs=${FUZZ_SECS:-300}
jobs=${FUZZ_JOBS:-2}
fz=$top/tools/fuzz
out=$top/build/fuzz
keep=${SOFTIWARP_CACHE:-$HOME/.cache/softiwarp}/fuzz
"$top/tools/install-deps.sh" || { tally fail fuzz:install-deps; exit 1; }

# TARGET: the sources it fuzzes, whose coverage is reported (every target
# links shim.c, mpa/mpa_frame.c and the DDP and RDMAP codecs, RFC 7306's
# too, which the targets call to build what they compare with;
# rdmap/codec.c's receive checks are the ddp target's, so terminate
# reports rdmap/terminate.c)
declare -A srcs=(
	[deframe]="mpa/mpa_deframe.c mpa/mpa_frame.c"
	[startup]="mpa/mpa_startup.c"
	[ddp]="ddp/ddp.c rdmap/codec.c rdmap/ext.c"
	[terminate]="rdmap/terminate.c"
	[rpcrdma]="cm/rpcrdma_cm.c"
)
declare -A maxlen=([deframe]=4096 [startup]=1200 [ddp]=256 [terminate]=128
		   [rpcrdma]=1024)
targets=${FUZZ_TARGETS:-deframe startup ddp terminate rpcrdma}
for t in $targets; do
	[ -n "${srcs[$t]:-}" ] || { tally fail "fuzz:no-such-target-$t"; exit 1; }
done

rm -rf "$out"
mkdir -p "$out/bin" "$out/cov" "$out/seeds" "$out/log"
python3 "$fz/seeds.py" "$out/seeds" || { tally fail fuzz:seeds; exit 1; }
cflags=(-g -O1 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare
	-I "$fz/shim/include" -I "$top")

# build TARGET: the fuzzing binary, and one with coverage for the report
build() {
	local t=$1 files
	files=("$fz/targets/$t.c" "$fz/shim/shim.c" "$fz/shim/entry.c")
	for f in ${srcs[$t]} mpa/mpa_frame.c ddp/ddp.c rdmap/codec.c \
		 rdmap/ext.c rdmap/terminate.c; do
		[[ " ${files[*]} " == *" $top/$f "* ]] || files+=("$top/$f")
	done
	clang "${cflags[@]}" -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined "${files[@]}" -o "$out/bin/$t" &&
	clang "${cflags[@]}" -fsanitize=fuzzer -fprofile-instr-generate \
		-fcoverage-mapping "${files[@]}" -o "$out/cov/$t"
}

# run TARGET: FUZZ_SECS of libFuzzer, then the coverage of its corpus
run() {
	local t=$1 work=$keep/$t log=$out/log/$t.log crashes=$out/crashes/$t
	local repo=$fz/corpus/$t cpu
	mkdir -p "$work" "$crashes"
	[ -d "$repo" ] || repo=
	# the CPU the fuzzer used (user and system, from the shell's times),
	# not the time it took: other work may share the cores
	(cd "$crashes" && "$out/bin/$t" -max_total_time="$secs" \
		-max_len="${maxlen[$t]}" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		"$work" ${repo:+"$repo"} "$out/seeds/$t"; echo "rc=$?"; times) \
		> "$log" 2>&1
	cpu=$(awk '/^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ { last = $0 }
		END { split(last, f, /[ms ]+/)
		      printf "%d", f[1] * 60 + f[2] + f[3] * 60 + f[4] + 0.5 }' \
		"$log")
	echo $(( $(cat "$work/cpu-seconds" 2>/dev/null || echo 0) + cpu )) \
		> "$work/cpu-seconds"
	LLVM_PROFILE_FILE="$out/cov/$t.profraw" "$out/cov/$t" -runs=0 \
		"$work" ${repo:+"$repo"} "$out/seeds/$t" > "$out/log/$t-cov.log" 2>&1
	llvm-profdata merge -sparse "$out/cov/$t.profraw" -o "$out/cov/$t.profdata" &&
	llvm-cov report "$out/cov/$t" -instr-profile="$out/cov/$t.profdata" \
		$(for f in ${srcs[$t]}; do echo "$top/$f"; done) \
		> "$out/log/$t-cov.txt" 2>&1
}

for t in $targets; do
	build "$t" || { tally fail "fuzz:build-$t"; exit 1; }
done
n=0
for t in $targets; do
	run "$t" &
	n=$((n + 1))
	[ $((n % jobs)) -ne 0 ] || wait
done
wait

printf '%-10s %6s %12s %8s %8s %8s %8s %s\n' target secs execs corpus \
	lines regions crashes "cpu in all"
bad=0
for t in $targets; do
	log=$out/log/$t.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	crashes=$(find "$out/crashes/$t" -type f | wc -l)
	corpus=$(find "$keep/$t" -type f ! -name cpu-seconds | wc -l)
	# the TOTAL line: regions, missed, cover, functions ..., lines, missed, cover
	read -r regions lines < <(awk '$1 == "TOTAL" { print $4, $10 }' \
		"$out/log/$t-cov.txt")
	printf '%-10s %6s %12s %8s %8s %8s %8s %ss\n' "$t" "$secs" \
		"${execs:-none}" "$corpus" "${lines:-?}" "${regions:-?}" \
		"$crashes" "$(cat "$keep/$t/cpu-seconds")"
	if [ "$crashes" -gt 0 ] || [ -z "$execs" ] || [ "${execs:-0}" -eq 0 ]; then
		tally fail "fuzz:$t"
		bad=1
		grep -m 3 'property broken\|ERROR: \|SUMMARY' "$log"
		ls "$out/crashes/$t"
	else
		tally pass "fuzz:$t"
	fi
done
exit $bad
