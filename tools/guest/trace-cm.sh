#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make trace-cm`: where a connection's setup and teardown
# spend their time. Per count N of TRACE_CM_CONNS (default "1 1 64 200
# 1000": a count given twice runs twice, so the first connection of a new
# device and the next are both seen), softiwarp then siw in one boot,
# rdmacm-utils' cmtime -c N between the two namespaces of drivers.sh with
# these events recorded from the client's first connect to its exit:
#
#   sock/inet_sock_set_state   every TCP state change on cmtime's port
#                              (both drivers: the TCP handshake, FIN)
#   rdma_cma/cm_event_handler  every event rdma_cm gives cmtime (both:
#                              CONNECT_REQUEST, ESTABLISHED, ...)
#   rdma_cma/cm_disconnect     rdma_disconnect() called
#   softiwarp/mpa_* cm_outcome the MPA frames sent and parsed (ours)
#   softiwarp/qp_state term_*  our QPs' state changes, Terminates
#   workqueue/*                queued, started and ended work items
#   uprobes                    entry and return of cmtime's library
#                              calls that reach the driver (FUNCS): how
#                              long each took
#
# With TRACE_CM_PERF=1 the client runs under perf record -a -g instead
# (no trace; $RESULTS/perf-DRV-N.txt, the kernel's and the processes'
# hottest symbols): where the CPUs' time went.
#
# Writes $RESULTS/trace-cm-DRV-N.txt (the ftrace buffer) and
# $RESULTS/cmtime-DRV-N.txt (cmtime's client output) for DRV in sw, siw;
# tools/trace/cm-summary.py reads them. A cmtime that fails (siw's own
# limits at 200 and more) is a result, kept in its log.
set -u
# shellcheck source=tools/guest/drivers.sh
. "$(dirname "$0")/drivers.sh"

T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T || exit 1
PORT=7471
events="sock/inet_sock_set_state rdma_cma/cm_event_handler
	rdma_cma/cm_disconnect softiwarp/mpa_request_sent
	softiwarp/mpa_request_recv softiwarp/mpa_reply_sent
	softiwarp/mpa_reply_recv softiwarp/cm_outcome softiwarp/qp_state
	softiwarp/term_sent softiwarp/term_recv
	workqueue/workqueue_queue_work workqueue/workqueue_execute_start
	workqueue/workqueue_execute_end"

# the library calls of cmtime that reach the driver, the same for siw
# and softiwarp: user probes on their entry and return (the test kernel
# has no kprobes), at the addresses nm -D gives
FUNCS="libibverbs.so.1:ibv_create_qp libibverbs.so.1:ibv_modify_qp
	libibverbs.so.1:ibv_destroy_qp librdmacm.so.1:rdma_connect
	librdmacm.so.1:rdma_accept librdmacm.so.1:rdma_disconnect"

probes_add() {	# uprobe events for FUNCS
	local f lib fn path a
	echo > $T/uprobe_events
	for f in $FUNCS; do
		lib=${f%%:*} fn=${f#*:}
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
		a=$(nm -D "$path" 2>/dev/null | awk -v f="$fn" \
			'$3 == f || index($3, f "@@") == 1 { print $1; exit }')
		if [ -z "$a" ]; then
			echo "trace-cm: no symbol $fn in $lib" >&2
			continue
		fi
		echo "p:uprobes/${fn}_in $path:0x$a" >> $T/uprobe_events &&
			echo "r:uprobes/${fn}_out $path:0x$a" >> $T/uprobe_events
	done
}

echo "trace-cm: guest has $(nproc) CPUs online, kernel $(uname -r)"
pairs_up
ulimit -n 65536
probes_add

trace_cm() {	# DRIVER N
	local name=$1-$2 nsl nsr ip e spid rc=0 t0 t1 r=2
	# a count given twice: its second run is NAME-r2
	while [ -e "$RESULTS/trace-cm-$name.txt" ]; do
		name=$1-$2-r$r r=$((r + 1))
	done
	case $1 in
	siw)	nsl=siL nsr=siR ip=10.97.0.1 ;;
	*)	nsl=swL nsr=swR ip=10.98.0.1 ;;
	esac
	use "$1"
	echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
	echo > $T/trace
	echo 32768 > $T/buffer_size_kb
	[ -e $T/events/uprobes/enable ] && echo 1 > $T/events/uprobes/enable
	for e in $events; do
		[ -e "$T/events/$e/enable" ] || continue	# siw: no softiwarp/
		echo 1 > "$T/events/$e/enable" || return 1
	done
	echo "sport == $PORT || dport == $PORT" \
		> $T/events/sock/inet_sock_set_state/filter
	ip netns exec $nsl timeout 300 cmtime -b $ip -c "$2" \
		> "$RESULTS/cmtime-server-$name.txt" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		ip netns exec $nsl ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	local perf=()
	# TRACE_CM_PERF=1: a profile of the whole guest instead of the trace
	[ "${TRACE_CM_PERF:-0}" = 1 ] &&
		perf=(perf record -q -a -g -o "$RESULTS/perf-$name.data" --)
	[ ${#perf[@]} -eq 0 ] && echo 1 > $T/tracing_on
	t0=$(date +%s%N)
	"${perf[@]}" ip netns exec $nsr timeout 300 cmtime -s $ip -c "$2" \
		> "$RESULTS/cmtime-$name.txt" 2>&1 || rc=$?
	t1=$(date +%s%N)
	echo 0 > $T/tracing_on
	[ ${#perf[@]} -gt 0 ] &&
		perf report -q -i "$RESULTS/perf-$name.data" --stdio \
			--no-children --sort symbol --percent-limit 0.3 -g none \
			> "$RESULTS/perf-$name.txt" 2>&1
	# cmtime's server waits for more: stopping it is ours
	sleep 1
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	cat $T/trace > "$RESULTS/trace-cm-$name.txt"
	echo "trace-cm: $name: client status $rc, $(( (t1 - t0) / 1000000 )) ms, $(wc -l < "$RESULTS/trace-cm-$name.txt") lines, $(grep -c 'LOST' "$RESULTS/trace-cm-$name.txt") lost-event marks"
	sleep 2	# the QPs of this run gone before the next
}

for n in ${TRACE_CM_CONNS:-1 1 64 200 1000}; do
	for drv in sw siw; do
		trace_cm $drv "$n"
	done
done
echo 0 > $T/events/enable
echo > $T/uprobe_events
use none
if dmesg | grep -E 'BUG|WARNING|Oops|KASAN|lockdep' ; then
	echo "trace-cm: the kernel log has a splat" >&2
	exit 1
fi
exit 0
