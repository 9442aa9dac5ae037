#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile local user: tools/hostile-user (built on the host into
# build/tools by tools/e2e.sh) attacks softiwarp through libibverbs,
# librdmacm and the siw ABI's shared rings, as user nobody, between two
# namespaces joined by a veth (swi0 in swns0 serves, swi1 in swns1
# attacks). Each case and what must happen:
#
#   dereg-reuse-read       an RDMA Read outstanding (its Read Response held
#                          back by netem on the server's veth), its sink MR
#                          deregistered (promptly) and its STag index taken
#                          by a read-only file's MR (debugfs
#                          softiwarp/stag_index_max makes indexes come back
#                          after 64): the Read fails, the file stays zero
#   dereg-reuse-send       the same for the second SGE of a receive, before
#                          the peer sends 8 KiB into it
#   modify-accept-race     ibv_modify_qp raising ORD/IRD to the device
#                          maximum in a loop while rdma_accept negotiates
#                          1/1, then 64 RDMA Reads each way, 20 rounds: no
#                          hang, every round connects and completes
#   sq-refill-error        a QP moved to ERROR while a thread posts sends
#                          and rings the doorbell as fast as it can and
#                          another refills the SQ ring by hand, for 5 s:
#                          refused or flushed, every post and the destroy
#                          prompt, no soft lockup or RCU stall
#   sqe-rewrite            a signalled SEND written into the SQ ring by
#                          hand with flag bits outside SIW_WQE_* (0xff80,
#                          the kernel's internal bit 15 among them) and
#                          the doorbell rung: it completes or fails, never
#                          vanishes; then posted SQEs rewritten in the
#                          ring (opcode, num_sge 255, unknown flags,
#                          lengths, keys) for 3 s: valid completions only,
#                          destroy prompt
#   foreign-qpn            process B names process A's QP number in
#                          rdma_connect and rdma_accept on cm_ids without a
#                          QP: refused, the peer of B's listener does not
#                          connect, A's QP still connects and works
#   kernel-qpn             a kernel consumer's QPs, NVMe-oF's (nvmet-rdma and
#                          nvme-rdma over a device of their own, swk, in the
#                          initial namespace): while the host connects, does
#                          4 MiB of I/O and disconnects, twice, a user spins
#                          rdma_connect and rdma_accept on cm_ids without a
#                          QP naming each of the 256 QP numbers after its
#                          own (the ones the kernel's QPs get): every
#                          attempt refused, nothing connects, NVMe-oF works
#   odd-sge                malformed SGE lists, lengths, addresses, keys and
#                          inline sizes: each refused or failed
#   mr-not-mine            MRs over unmapped memory, past a mapping's end,
#                          writable over a read-only mapping: each refused
#                          (RFC 5040 8.1.2 req. 4); the process's own page
#                          registered
#   cq-not-mine            another process creates CQs; CREATE_QP written
#                          by hand to uverbs naming each of their handles
#                          as send or receive CQ: each refused (RFC 5040
#                          8.1.1 req. 9), the same command naming its own
#                          CQ creates a QP, the other's CQs destroyable
#   verbs-random           4 processes for HOSTILE_RANDOM_SECS (30) each
#                          create, modify, post to, poll and destroy
#                          contexts, PDs, MRs, CQs, SRQs and QPs in a
#                          random order from a seed (HOSTILE_SEED, else
#                          the clock; printed), arguments inside and
#                          outside the limits, with traffic to the sink
#                          on an rdma_cm connection whose QP is modified
#                          at random too: every call within 5 s, every
#                          process ends clean (then, as for every case,
#                          a clean kernel log and nothing left); for an
#                          hour: HOSTILE_CASES=verbs-random
#                          HOSTILE_RANDOM_SECS=3600 E2E_TEST_TIMEOUT=1200
#                          E2E_TIMEOUT=6000 KFLAVOUR=debug
#                          E2E_TESTS=19-hostile-user tools/e2e.sh
#   destroy-under-traffic  a process killed with SIGKILL under SEND, Write
#                          and Read traffic, then MR, QP, CQ and PD
#                          destroyed under it (CQ and PD refused while in
#                          use): every call prompt, the device still usable
#
# Each case passes when both sides exit 0 with their "pass" line, print no
# other error line, nothing is left in `rdma resource show` afterwards and
# the kernel log is clean (checked after every case, so that a report is
# laid at the right door). All cases run; the test fails at the end
# naming those that failed. A case that cannot run (no debugfs knob, the
# tool not built) fails, never skips. HOSTILE_CASES="CASE..." (for a
# run by hand: HOSTILE_CASES=kernel-qpn E2E_TESTS=19-hostile-user
# E2E_PAIRS=none tools/e2e.sh, which passes it to the guest) runs only
# those, and says so.
#
# timeout: 420
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=19-hostile-user
NS0=swns0 NS1=swns1         # server side, attacker side
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
PORT=7290                   # the server of each case
PORT2=7291                  # foreign-qpn: process B's listener
DEVK=swk IPK=10.78.0.1      # kernel-qpn: NVMe-oF's device and address
PORTK=7292                  # kernel-qpn: the attacker's listener
NQN=nqn.2026-11.org.softiwarp:hostile
HU=$(dirname "$0")/../../build/tools/hostile-user
KNOB=/sys/kernel/debug/softiwarp/stag_index_max
STAG_MAX=64                 # STag indexes 1..64 while the reuse cases run
VR_SECS=${HOSTILE_RANDOM_SECS:-30}  # verbs-random's run
export E2E_SLOW
. "$(dirname "$0")/netns-lib.sh"

[ -x "$HU" ] || fail "$HU is not built (tools/e2e.sh builds it on the host)"
HU=$(realpath "$HU")

failed=()

# wanted CASE: CASE is to run (all unless HOSTILE_CASES names others)
wanted() {
	[ -z "${HOSTILE_CASES:-}" ] && return 0
	[[ " $HOSTILE_CASES " == *" $1 "* ]] && return 0
	echo "case $1: not selected (HOSTILE_CASES=$HOSTILE_CASES)"
	return 1
}

# left: objects of any kind still held on our two devices
left() {
	timeout 10 rdma resource show |
		awk '$2 ~ /^swi[01]:$/ { for (i = 3; i < NF; i += 2) s += $(i + 1) }
		     END { print s + 0 }'
}

# AS_NOBODY CMD...: CMD as user nobody (no groups), with the
# RLIMIT_MEMLOCK a distribution gives a user (8 MiB); after ip netns exec
# NS. ip netns exec, prlimit and setpriv exec, so a signal to the pid
# reaches CMD.
AS_NOBODY=(prlimit --memlock=$((8 << 20)) setpriv --reuid=65534
	--regid=65534 --clear-groups --)

# log_ok CASE LOG: exactly the verdict "pass", no "fail" or "BAD" line,
# and no error line from anything else (libibverbs, librdmacm, libsiw).
# Lines starting "+ " are the shell's trace of lib.sh's timeout function
# (E2E_SLOW above 1), which writes into the log it redirects.
# One awk for the three: under KASAN and TCG every process the guest
# starts costs about a second.
log_ok() {
	awk -v c="$1" -v re="$TOOL_ERROR_RE" '
		index($0, "hostile-user: " c ": pass: ") == 1 { pass = 1 }
		index($0, "hostile-user: " c ": fail:") == 1 ||
		index($0, "hostile-user: " c ": check: BAD:") == 1 {
			print FILENAME ":" FNR ": " $0; bad = 1 }
		!/^hostile-user: / && !/^\+/ && $0 ~ re {
			print FILENAME ":" FNR ": " $0; bad = 1 }
		END {
			if (!pass)
				print c ": no pass line in " FILENAME
			exit !(pass && !bad)
		}' "$2"
}

# case_end CASE RC: nothing left on the devices, a clean kernel log so
# far; record the case as failed when RC or either is not 0
case_end() {
	local c=$1 rc=$2 n
	for _ in $(seq 20); do
		n=$(left)
		[ "$n" -eq 0 ] && break
		sleep 0.5
	done
	if [ "$n" -ne 0 ]; then
		rdma resource show
		echo "$c: $n objects left on the devices"
		rc=1
	fi
	dmesg > "$RESULTS/$T-$c.dmesg"
	# dmesg_clean (with what kmemleak_watch kept), and the stall and
	# lockup reports it does not name
	if ! dmesg_clean "$RESULTS/$T-$c.dmesg" \
		$(compgen -G "$RESULTS/$T-$c.kmemleak-*") ||
	   grep -E 'soft lockup|rcu.*stall|blocked for more than' \
		"$RESULTS/$T-$c.dmesg"; then
		echo "$c: kernel report (see $T-$c.dmesg)"
		rc=1
		# later cases must not inherit the report
		dmesg -C
	fi
	if [ "$rc" -eq 0 ]; then
		echo "case $c: pass"
	else
		echo "case $c: FAILED"
		failed+=("$c")
	fi
}

# server_start CASE [SECS]: the case's server in NS0 on PORT, as nobody, with
# its time limit -t SECS (240); its pid
# in $spid. The command itself, not lib.sh's timeout function, so that a
# TERM reaches it.
server_start() {
	local lim=${2:-240}
	wait_unlisten "$NS0" "$PORT"
	command timeout "$(e2e_scale_time $((lim + 60)))" ip netns exec "$NS0" \
		"${AS_NOBODY[@]}" "$HU" "$1" -s -a "$IP0" -p "$PORT" -t "$lim" \
		> "$RESULTS/$T-$1-server.log" 2>&1 &
	spid=$!
	bg_pids=("$spid")
	wait_listen "$NS0" "$PORT"
}

# server_stop CASE [GRACE]: give the server GRACE seconds (scaled) to end
# by itself, then TERM (the sink runs until then); its exit status in $src
server_stop() {
	local i
	for ((i = 0; i < $(e2e_scale_time "${2:-0}") * 10; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM "$spid" 2>/dev/null || true
	src=0
	wait "$spid" || src=$?
	bg_pids=()
}

# run_case CASE [CLIENT OPTIONS...]: server and client of CASE, judged
run_case() {
	local c=$1 crc=0 rc=0 t0=$SECONDS lim=240
	shift
	wanted "$c" || return 0
	local clog="$RESULTS/$T-$c-client.log" slog="$RESULTS/$T-$c-server.log"
	[ "$c" != verbs-random ] || lim=$((240 + 2 * VR_SECS))
	server_start "$c" "$lim"
	[ "$c" != verbs-random ] || kmemleak_watch "$RESULTS/$T-$c"
	timeout "$lim" ip netns exec "$NS1" "${AS_NOBODY[@]}" \
		"$HU" "$c" -c -a "$IP0" -p "$PORT" "$@" \
		> "$clog" 2>&1 || crc=$?
	kmemleak_unwatch
	# the sink runs until TERM; modify-accept-race's server ends by itself
	if [ "$c" = modify-accept-race ]; then
		server_stop "$c" 40
	else
		server_stop "$c" 0
	fi
	cat "$clog" "$slog"
	echo "$c: client $crc server $src after $((SECONDS - t0)) s"
	[ "$crc" -eq 0 ] || rc=1
	[ "$src" -eq 0 ] || rc=1
	log_ok "$c" "$clog" || rc=1
	log_ok "$c" "$slog" || rc=1
	case_end "$c" "$rc"
}

# not_run CASE WHY: a case that could not run fails, loudly
not_run() {
	echo "case $1: NOT RUN: $2"
	failed+=("$1(not run)")
}

# --- setup ------------------------------------------------------------------
netns_setup
ls -l /dev/infiniband/
# the kernel gives uverbs and rdma_cm mode 0666, as a distribution's user
# meets them; nobody must be able to open them, or nothing below tests
# what a user can do
for f in /dev/infiniband/rdma_cm /dev/infiniband/uverbs*; do
	"${AS_NOBODY[@]}" test -r "$f" -a -w "$f" ||
		fail "$f is not readable and writable for nobody"
done
"$HU" --help > "$RESULTS/$T-help.txt"
grep -q '^  dereg-reuse-read' "$RESULTS/$T-help.txt" || fail "hostile-user --help"

# --- the STag index reuse cases ------------------------------------------------
if ! wanted dereg-reuse-read && ! wanted dereg-reuse-send; then
	:
elif [ -w "$KNOB" ]; then
	echo "$STAG_MAX" > "$KNOB"
	echo "stag_index_max: $(cat "$KNOB")"
	# the Read Response (everything from the server) held back in flight
	in_ns "$NS0" tc qdisc add dev veth0 root netem \
		delay "$((E2E_SLOW > 1 ? 2500 : 1000))ms"
	run_case dereg-reuse-read -m "$STAG_MAX"
	in_ns "$NS0" tc qdisc del dev veth0 root
	run_case dereg-reuse-send -m "$STAG_MAX"
	echo 0 > "$KNOB"
else
	not_run dereg-reuse-read "no debugfs $KNOB"
	not_run dereg-reuse-send "no debugfs $KNOB"
fi

run_case modify-accept-race
run_case sq-refill-error
run_case sqe-rewrite
run_case odd-sge
run_case mr-not-mine
run_case cq-not-mine
run_case verbs-random -t "$VR_SECS" -j 4 ${HOSTILE_SEED:+-S "$HOSTILE_SEED"}
run_case destroy-under-traffic

# --- foreign-qpn: three processes ---------------------------------------------
# A (QP) and B (none) in NS1, the sink in NS0, and the peer of B's listener
foreign_qpn() {
	local c=foreign-qpn f rc crc prc cpid
	local clog="$RESULTS/$T-$c-client.log" plog="$RESULTS/$T-$c-peer.log"
	local slog="$RESULTS/$T-$c-server.log"
	server_start "$c"
	wait_unlisten "$NS1" "$PORT2"
	command timeout "$(e2e_scale_time 200)" ip netns exec "$NS1" "${AS_NOBODY[@]}" \
		"$HU" "$c" -c -a "$IP0" -p "$PORT" -L "$IP1:$PORT2" > "$clog" 2>&1 &
	cpid=$!
	bg_pids=("$spid" "$cpid")
	wait_listen "$NS1" "$PORT2"
	prc=0
	timeout 120 ip netns exec "$NS0" "${AS_NOBODY[@]}" \
		"$HU" "$c" -c -P -a "$IP1" -p "$PORT2" \
		> "$plog" 2>&1 || prc=$?
	crc=0
	wait "$cpid" || crc=$?
	bg_pids=("$spid")
	server_stop "$c" 0
	cat "$clog" "$plog" "$slog"
	echo "$c: client $crc peer $prc server $src"
	rc=0
	[ "$crc" -eq 0 ] && [ "$prc" -eq 0 ] && [ "$src" -eq 0 ] || rc=1
	for f in "$clog" "$plog" "$slog"; do
		log_ok "$c" "$f" || rc=1
	done
	case_end "$c" "$rc"
}
if wanted foreign-qpn; then
	foreign_qpn
fi

# --- kernel-qpn: NVMe-oF's kernel QPs against a user ---------------------------
# nvmet-rdma and nvme-rdma take cm_ids in the initial namespace only: a
# device of their own there (swk on a veth), target and host on one
# address. The attacker, as nobody in the same namespace, names the QP
# numbers the kernel's QPs get while the host connects.
kernel_qpn() {
	local c=kernel-qpn rc=0 crc=0 cpid
	local clog="$RESULTS/$T-$c-client.log"
	ip link add swk0 type veth peer name swk1
	ip link set swk1 up
	ip addr add "$IPK/24" dev swk0
	ip link set swk0 up
	rdma link add "$DEVK" type softiwarp netdev swk0
	nvmet_rdma_target "$IPK" 1 "$NQN"
	command timeout "$(e2e_scale_time 120)" "${AS_NOBODY[@]}" \
		"$HU" "$c" -c -a "$IPK" -p "$PORTK" -t 100 > "$clog" 2>&1 &
	cpid=$!
	bg_pids=("$cpid")
	for _ in $(seq 300); do
		grep -q "note: own QP" "$clog" && break
		sleep 0.1
	done
	grep -q "note: own QP" "$clog" || rc=1
	for _ in 1 2; do
		nvme_rdma_rw "$IPK" "$NQN" 2 4 || rc=1
	done
	kill -TERM "$cpid"
	wait "$cpid" || crc=$?
	bg_pids=()
	cat "$clog"
	echo "$c: attacker $crc"
	[ "$crc" -eq 0 ] || rc=1
	log_ok "$c" "$clog" || rc=1
	nvmet_rdma_target_remove 1 "$NQN"
	rdma link delete "$DEVK"
	ip link del swk0
	case_end "$c" "$rc"
}
if wanted kernel-qpn; then
	kernel_qpn
fi

# --- the devices still work; teardown -------------------------------------------
one_rping after
[ -w "$KNOB" ] && echo 0 > "$KNOB"
netns_teardown
if [ ${#failed[@]} -gt 0 ]; then
	fail "cases failed: ${failed[*]}"
fi
echo "PASS $T"
