#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make trace`: per driver, softiwarp then siw, in one boot,
# ib_send_lat -R (64 octets, 200 iterations) busy polling ("poll") and
# with -e ("event": sleep on completion events), and ib_write_bw -R (64
# KiB, 200 iterations, "write"), each with the scheduler's, the softirqs'
# and the workqueues' trace events recorded while the client runs; the
# event runs also with the veths' transmit and receive events and user
# probes on perftest's doorbell (libc's write()) and on libibverbs'
# ibv_get_cq_event() (entry and return), so that one message can be
# followed from one process to the other (tools/trace/summary.py). Writes
# $RESULTS/trace-NAME.txt (the ftrace buffer) and $RESULTS/lat-NAME.txt
# (perftest's output) for NAME in sw-poll, sw-event, sw-write, siw-poll,
# siw-event, siw-write.
set -u
# shellcheck source=tools/guest/drivers.sh
. "$(dirname "$0")/drivers.sh"

T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T || exit 1
events="sched/sched_waking sched/sched_wakeup sched/sched_switch
	irq/softirq_entry irq/softirq_exit
	workqueue/workqueue_queue_work workqueue/workqueue_execute_start
	workqueue/workqueue_execute_end"
probes="net/net_dev_queue net/netif_receive_skb uprobes/getev_in
	uprobes/getev_out uprobes/wr_in"

# the user probes: offsets of the two functions in their libraries
uprobes_add() {
	local verbs libc a w
	verbs=$(ldconfig -p | awk '$1 == "libibverbs.so.1" { print $NF; exit }')
	libc=$(ldconfig -p | awk '$1 == "libc.so.6" { print $NF; exit }')
	a=$(nm -D "$verbs" 2>/dev/null | awk '$3 == "ibv_get_cq_event@@IBVERBS_1.1" { print $1 }')
	w=$(nm -D "$libc" 2>/dev/null | awk '$3 ~ /^write@@/ { print $1 }')
	if [ -z "$a" ] || [ -z "$w" ]; then
		echo "trace: no symbols for the user probes (nm, $verbs, $libc)" >&2
		return 1
	fi
	{
		echo "p:getev_in $verbs:0x$a"
		echo "r:getev_out $verbs:0x$a"
		echo "p:wr_in $libc:0x$w"
	} > $T/uprobe_events || return 1
	echo 'comm == "ib_send_lat"' > $T/events/uprobes/wr_in/filter
}

echo "trace: guest has $(nproc) CPUs online, kernel $(uname -r)"
pairs_up

trace_one() {	# DRIVER MODE
	local name=$1-$2 nsl nsr dl dr ip args e
	case $1 in
	siw)	nsl=siL nsr=siR dl=siwl dr=siwr ip=10.97.0.1 ;;
	*)	nsl=swL nsr=swR dl=swl dr=swr ip=10.98.0.1 ;;
	esac
	use "$1"
	local t=ib_send_lat
	args=(-R -F -s 64 -n 200)
	case $2 in
	event)	args+=(-e) ;;
	write)	t=ib_write_bw args=(-R -F -s 65536 -n 200) ;;
	esac
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 16384 > $T/buffer_size_kb
	for e in $events; do
		echo 1 > "$T/events/$e/enable" || return 1
	done
	for e in $probes; do
		[ -e "$T/events/$e/enable" ] || continue
		if [ "$2" = event ]; then echo 1; else echo 0; fi \
			> "$T/events/$e/enable" || return 1
	done
	ip netns exec $nsl timeout 120 $t -d $dl "${args[@]}" \
		> "$RESULTS/server-$name.txt" 2>&1 &
	sleep 1.5
	echo 1 > $T/tracing_on
	ip netns exec $nsr timeout 120 $t -d $dr "${args[@]}" "$ip" \
		> "$RESULTS/lat-$name.txt" 2>&1
	echo 0 > $T/tracing_on
	wait
	cat $T/trace > "$RESULTS/trace-$name.txt"
	echo "trace: $name: $(wc -l < "$RESULTS/trace-$name.txt") lines"
}

rc=0
uprobes_add || rc=1
for drv in sw siw; do
	for mode in poll event write; do
		trace_one $drv $mode || rc=1
	done
done
use none
exit $rc
