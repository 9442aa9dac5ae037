# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for the end-to-end tests (sourced in the guest).

# Every traced command carries the seconds since the test began, so that a
# log shows where a test spends its time.
PS4='+${SECONDS}s '

# rping_server_ok RC LOG: the rping server's exit status RC is a success.
# rping's own teardown races with its CM thread: when the main thread
# destroys the event channel first, the thread's rdma_get_cm_event() fails
# with EBADF and it calls exit(-1) - after the client finished and the
# disconnect was seen. That one case is not a failure of the device.
rping_server_ok() {
	[ "$1" -eq 0 ] && return 0
	[ "$1" -eq 255 ] && grep -q 'DISCONNECT EVENT' "$2" &&
		grep -q 'rdma_get_cm_event: Bad file descriptor' "$2"
}

# dmesg_clean LOGFILE [KMEMLEAK...]: no warning, bug, oops or leak report
# in the log. When kmemleak's periodic scan reported suspects ("kmemleak:
# N new suspected memory leaks"), what it holds now (their allocation
# backtraces: the kernel log names no object) is kept beside the log as
# LOGFILE.kmemleak and judged with the KMEMLEAK files saved earlier
# (kmemleak_watch) as the last check of tools/guest/e2e.sh judges:
# tools/e2e/kmemleak-ours.awk counts the reports traced to softiwarp, the
# RDMA core or an unloaded module, and those fail; the kernel's own (a
# running process's memory map, seen unreferenced while it changes) are
# kept but do not. Any other kmemleak line fails.
dmesg_clean() {
	local log=$1 n
	shift
	if grep -q 'kmemleak: .* suspected' "$log" &&
	   [ -r /sys/kernel/debug/kmemleak ]; then
		cat /sys/kernel/debug/kmemleak > "$log.kmemleak" 2>&1
		n=$(awk -f "$(dirname "${BASH_SOURCE[0]}")/kmemleak-ours.awk" \
			"$log.kmemleak" "$@")
		if [ "$n" -gt 0 ]; then
			echo "kmemleak: $n reports traced to modules ($log.kmemleak $*)"
			return 1
		fi
	fi
	! grep -v 'kmemleak: [0-9]* new suspected memory leaks' "$log" |
		grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|kmemleak|Call Trace'
}

# kmemleak_watch PREFIX: in the background while a long case runs, keep
# what kmemleak holds each time its periodic scan reports new suspects, as
# PREFIX.kmemleak-SECONDS (the objects may be freed before the case ends,
# and the kernel log names none of them); its pid in $kmemleak_pid. A no-op
# (pid empty) without kmemleak. Stop it with kmemleak_unwatch; a test
# with netns-lib.sh's cleanup also adds it to bg_pids.
kmemleak_pid=
kmemleak_watch() {
	kmemleak_pid=
	[ -r /sys/kernel/debug/kmemleak ] || return 0
	(
		seen=0
		while sleep 10; do
			n=$(dmesg | grep -c 'kmemleak: .* suspected' || true)
			if [ "$n" -gt "$seen" ]; then
				cat /sys/kernel/debug/kmemleak \
					> "$1.kmemleak-$SECONDS" 2>&1
				seen=$n
			fi
		done
	) &
	kmemleak_pid=$!
	bg_pids+=("$kmemleak_pid")
}

# kmemleak_unwatch: stop kmemleak_watch's loop
kmemleak_unwatch() {
	[ -z "${kmemleak_pid:-}" ] && return 0
	kill "$kmemleak_pid" 2>/dev/null || true
	wait "$kmemleak_pid" 2>/dev/null || true
	kmemleak_pid=
}

# tool_log_clean LOG...: no error line from an rdma-core or perftest tool.
# The tools do not always turn an error into their exit status (perftest
# reports a failed rdma_disconnect() and exits 0), so the logs are read
# too: "Failed to ...", "ERRNO: ...", "... error ...", "... failed ...",
# "Couldn't ...", "Unable to ...". Prints the offending lines.
TOOL_ERROR_RE="Failed to|ERRNO|[Ee]rror|[Ff]ailed|Couldn't|Unable to"
tool_log_clean() {
	! grep -HnE "$TOOL_ERROR_RE" "$@"
}

# rping_logs_clean LOG...: tool_log_clean for rping logs, leaving out the
# one line of rping's own teardown race (see rping_server_ok).
rping_logs_clean() {
	local f rc=0
	for f in "$@"; do
		# the file name stays out of the matched text (it may say "failed")
		! grep -v 'rdma_get_cm_event: Bad file descriptor' "$f" |
			grep -HnE --label="$f" "$TOOL_ERROR_RE" || rc=1
	done
	return $rc
}

# E2E_SLOW: how many times slower than the test kernel this guest runs the
# tests (1; make e2e passes 4 for the debug kernel: KASAN, lockdep and
# kmemleak under TCG). Tests scale their iteration counts down and their
# timeouts up with it, so the same scripts run on both kernels.
E2E_SLOW=${E2E_SLOW:-1}

# e2e_scale_count N: N divided by E2E_SLOW, at least 1
e2e_scale_count() {
	local n=$(($1 / E2E_SLOW))
	echo $((n > 0 ? n : 1))
}

# e2e_scale_time SECS: SECS multiplied by E2E_SLOW
e2e_scale_time() {
	echo $(($1 * E2E_SLOW))
}

# timeout SECS CMD...: on a slower kernel (E2E_SLOW above 1) coreutils'
# timeout with SECS scaled by E2E_SLOW (options before SECS pass through
# unchanged), so that the tests' limits hold on the debug kernel too. Only
# there: as a function, a backgrounded "timeout ... &" is a subshell, and
# killing it no longer reaches the command (05-netns-capture stops its
# tcpdump that way), so the test kernel keeps the plain command.
if [ "$E2E_SLOW" -gt 1 ]; then
	timeout() {
		local opts=()
		while [ $# -gt 0 ] && [[ $1 == -* ]]; do
			opts+=("$1")
			[[ $1 == -k || $1 == -s ]] && { shift; opts+=("$1"); }
			shift
		done
		if [[ ${1:-} =~ ^[0-9]+$ ]]; then
			set -- "$(e2e_scale_time "$1")" "${@:2}"
		fi
		command timeout "${opts[@]}" "$@"
	}
fi

# --- NVMe-oF over RDMA: the kernel's consumers as a target and a host ----------
# Debian's kernels have nvmet, nvmet-rdma and nvme-rdma as modules, the test
# kernels built in. The target is a RAM disk (brd, loaded when missing).
NVMET=/sys/kernel/config/nvmet

# nvmet_rdma_target IP PORTID NQN: subsystem NQN (any host) on /dev/ram0,
# offered on IP:4420 through nvmet's port PORTID
nvmet_rdma_target() {
	local ip=$1 p=$NVMET/ports/$2 s=$NVMET/subsystems/$3
	[ -b /dev/ram0 ] || modprobe brd rd_nr=1 rd_size=65536
	[ -e /dev/nvme-fabrics ] || modprobe nvme-rdma
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config
	[ -d "$NVMET" ] || modprobe -a nvmet nvmet-rdma
	mkdir "$s"
	echo 1 > "$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo /dev/ram0 > "$s/namespaces/1/device_path"
	echo 1 > "$s/namespaces/1/enable"
	mkdir "$p"
	echo rdma > "$p/addr_trtype"
	echo ipv4 > "$p/addr_adrfam"
	echo "$ip" > "$p/addr_traddr"
	echo 4420 > "$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$3"
}

# nvmet_rdma_target_remove PORTID NQN: what nvmet_rdma_target made, gone
# (whatever of it is there; never fails)
nvmet_rdma_target_remove() {
	local p=$NVMET/ports/$1 s=$NVMET/subsystems/$2
	rm -f "$p/subsystems/$2"
	rmdir "$p" 2>/dev/null || true
	echo 0 > "$s/namespaces/1/enable" 2>/dev/null || true
	rmdir "$s/namespaces/1" "$s" 2>/dev/null || true
}

# nvme_rdma_ctl NQN: the name of the host's controller of NQN, if any
nvme_rdma_ctl() {
	local d
	for d in /sys/class/nvme-fabrics/ctl/nvme*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$1" ] && echo "${d##*/}"
	done
	return 0
}

# nvme_rdma_rw IP NQN QUEUES MIB: nvme-rdma connects to NQN on IP:4420
# with QUEUES I/O queues, MIB MiB of random data are written and read back
# equal, the controller is deleted; on failure says which step and
# returns 1
nvme_rdma_rw() {
	local ctl="" src=$RESULTS/nvme-rdma.src out=$RESULTS/nvme-rdma.out
	echo "transport=rdma,traddr=$1,trsvcid=4420,nqn=$2,nr_io_queues=$3" \
		> /dev/nvme-fabrics || { echo "nvme-rdma: connect failed"; return 1; }
	for _ in $(seq 100); do
		ctl=$(nvme_rdma_ctl "$2")
		[ -n "$ctl" ] && [ -b "/dev/${ctl}n1" ] && break
		sleep 0.2
	done
	[ -n "$ctl" ] && [ -b "/dev/${ctl}n1" ] ||
		{ echo "nvme-rdma: no namespace"; return 1; }
	head -c $(($4 << 20)) /dev/urandom > "$src"
	dd if="$src" of="/dev/${ctl}n1" bs=64k oflag=direct status=none &&
	dd if="/dev/${ctl}n1" of="$out" bs=64k count=$(($4 * 16)) \
		iflag=direct status=none &&
	cmp "$src" "$out" || { echo "nvme-rdma: I/O on $ctl"; return 1; }
	echo 1 > "/sys/class/nvme-fabrics/ctl/$ctl/delete_controller"
	rm -f "$src" "$out"
	echo "nvme-rdma: $ctl connected, $4 MiB written and read back"
}
