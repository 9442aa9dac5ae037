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

# dmesg_clean LOGFILE: no warning, bug, oops or leak report in the log.
# When kmemleak's own scan reported suspects, what it holds now (their
# allocation backtraces) is kept beside the log as LOGFILE.kmemleak: the
# kernel log names no object, and the last check may find them gone.
dmesg_clean() {
	if grep -q 'kmemleak: .* suspected' "$1" &&
	   [ -r /sys/kernel/debug/kmemleak ]; then
		cat /sys/kernel/debug/kmemleak > "$1.kmemleak" 2>&1
	fi
	! grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|kmemleak|Call Trace' "$1"
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
