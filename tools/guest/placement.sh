# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the guest scripts that run perftest, iperf3 and qperf between
# the namespaces of drivers.sh (bench.sh, bench-scale.sh): which CPU each
# end runs on. As set up, a veth hands a packet to the receiving namespace
# in the sender's softirq, on the sender's CPU.

# placement one|2h: one CPU as the veth gives it, or "two hosts": the
# server (10.9x.0.1) and its veth's receive processing (RPS) on CPU 1, the
# client and its veth's on CPU 0. Sets placed, and srv_cpu and cli_cpu:
# the command prefix (taskset) of each end's programs.
# shellcheck disable=SC2034 # srv_cpu, cli_cpu: the sourcing script's
placed=none srv_cpu=() cli_cpu=()
placement() {
	local nd ns dev mask
	[ "$placed" = "$1" ] && return
	for nd in swL:vsl swR:vsr siL:vil siR:vir; do
		ns=${nd%:*} dev=${nd#*:} mask=0
		if [ "$1" = 2h ]; then
			case $dev in
			*l)	mask=2 ;;	# the server's end: CPU 1
			*)	mask=1 ;;	# the client's end: CPU 0
			esac
		fi
		ip netns exec "$ns" sh -c \
			"echo $mask > /sys/class/net/$dev/queues/rx-0/rps_cpus"
	done
	placed=$1 srv_cpu=() cli_cpu=()
	[ "$1" = 2h ] && srv_cpu=(taskset -c 1) cli_cpu=(taskset -c 0)
}
