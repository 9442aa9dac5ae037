#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo`: what a newcomer wants to see, narrated.
say() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() { echo "\$ $*"; "$@"; }

main() {
	say "A fresh test guest: kernel $(uname -r), host root over 9p"
	run modinfo -F parm softiwarp
	say "Two network namespaces joined by a veth pair (two hosts, in one VM)"
	run ip netns add left
	run ip netns add right
	run ip link add vl type veth peer name vr
	run ip link set vl netns left
	run ip link set vr netns right
	run ip -n left addr add 10.99.0.1/24 dev vl
	run ip -n right addr add 10.99.0.2/24 dev vr
	run ip -n left link set vl up
	run ip -n right link set vr up
	say "'rdma link add' loads softiwarp by itself (module alias)"
	run ip netns exec left rdma link add swl type softiwarp netdev vl
	run ip netns exec right rdma link add swr type softiwarp netdev vr
	run rdma link show
	say "rdma-core's unmodified libsiw opens the device"
	run ibv_devinfo -d swl
	say "rping: server on the left, client on the right, data verified"
	ip netns exec left timeout 60 rping -s -a 10.99.0.1 -C 5 -V -v &
	sleep 1
	run ip netns exec right timeout 60 rping -c -a 10.99.0.1 -C 5 -V -v
	wait
	say "ib_send_bw -R (perftest over rdma_cm), 64 KiB messages"
	ip netns exec left timeout 120 ib_send_bw -R -F -d swl -s 65536 \
		-n 200 > /dev/null &
	sleep 2
	run ip netns exec right timeout 120 ib_send_bw -R -F -d swr \
		-s 65536 -n 200 10.99.0.1
	wait
	say "Removing the devices and unloading"
	run rdma link delete swl
	run rdma link delete swr
	run rmmod softiwarp
	echo '$ dmesg | grep softiwarp'
	dmesg --notime | grep softiwarp
}

main 2>&1 | tee "$RESULTS/demo.out"
exit "${PIPESTATUS[0]}"
