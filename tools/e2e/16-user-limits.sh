#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device's limits as a user program meets them: rdma-core's pyverbs
# (tools/e2e/user-limits.py) drives the verbs of swi0 directly.
#
#   sizes    CQ with max_cqe entries (works) and max_cqe + 1 (EINVAL); QPs
#            with max_qp_wr send and receive WRs, max_sge send and receive
#            SGEs, 80 octets of inline data (each works), and one past each
#            (EINVAL)
#   counts   max_pd PDs, max_cq CQs, max_qp QPs (all work), one more of
#            each (ENOMEM), one again after freeing one; MRs up to a bound
#            (max_mr is 262144: 8192 are registered, one page each); 1024
#            user contexts (the device's limit), the 1025th refused
#   memlock  as nobody with RLIMIT_MEMLOCK at 64 KiB: a 1 MiB MR is refused
#            (ENOMEM), 32 + 16 KiB work, 32 KiB more is refused, 48 KiB
#            works once the others are freed
#   kill     a process creating QPs, CQs, MRs and posting receives is killed
#            with SIGKILL at a random moment, ten times
#
# After each: the program's errors are the expected ones, `rdma resource
# show` shows nothing left on either device (no QP, CQ, MR, PD, context),
# and a fresh rping between the two namespaces passes. The kernel log
# must be clean at the end.
#
# timeout: 600
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=16-user-limits
NS0=swns0 NS1=swns1
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
PY=/usr/bin/python3
UL=$(dirname "$0")/user-limits.py
. "$(dirname "$0")/netns-lib.sh"

# left: objects of any kind still held on our two devices
left() {
	timeout 10 rdma resource show |
		awk '$2 ~ /^swi[01]:$/ { for (i = 3; i < NF; i += 2) s += $(i + 1) }
		     END { print s + 0 }'
}

# nothing_left TAG: within 10 s, no object is left on either device
nothing_left() {
	local n
	for _ in $(seq 20); do
		n=$(left)
		[ "$n" -eq 0 ] && break
		sleep 0.5
	done
	rdma resource show
	[ "$n" -eq 0 ] || fail "$1: $n objects left"
	echo "$1: nothing left"
}


# step NAME ARGS...: one run of user-limits.py, which must pass
step() {
	local t0=$SECONDS rc=0
	timeout 300 "$PY" "$UL" "$@" > "$RESULTS/$T-$1.log" 2>&1 || rc=$?
	cat "$RESULTS/$T-$1.log"
	echo "$1: status $rc after $((SECONDS - t0)) s"
	[ "$rc" -eq 0 ] || fail "$1: user-limits.py failed"
	grep -q '^ok ' "$RESULTS/$T-$1.log" || fail "$1: nothing checked"
	nothing_left "$1"
	one_rping "after-$1"
}

netns_setup
ls -l /dev/infiniband/

step sizes "$DEV0"
step counts "$DEV0" 8192
step memlock "$DEV0"

# --- kill: SIGKILL in the middle of creating and posting ----------------------
for i in $(seq 10); do
	"$PY" "$UL" churn "$DEV0" > "$RESULTS/$T-churn-$i.log" 2>&1 &
	pid=$!
	bg_pids=("$pid")
	# at least one round done, then somewhere in the next 0-2 s
	for _ in $(seq 100); do
		grep -q '^churn:' "$RESULTS/$T-churn-$i.log" && break
		kill -0 "$pid" || break
		sleep 0.1
	done
	sleep "$((RANDOM % 3)).$((RANDOM % 10))"
	kill -0 "$pid" || fail "kill $i: churn ended by itself (see $T-churn-$i.log)"
	echo "kill $i: $(left) objects held, $(tail -n 1 "$RESULTS/$T-churn-$i.log")"
	kill -KILL "$pid"
	wait "$pid" || true
	bg_pids=()
	nothing_left "kill $i"
done
one_rping after-kill

netns_teardown
echo "PASS $T"
