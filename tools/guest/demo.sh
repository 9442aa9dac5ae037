#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo`: what a newcomer wants to see, narrated.
say() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() { echo "\$ $*"; "$@"; }

main() {
	say "A fresh test guest: kernel $(uname -r), host root over 9p"
	run modinfo softiwarp
	say "A veth pair to run over (a real machine would use eth0)"
	run ip link add swa type veth peer name swb
	run ip link set swa up
	run ip link set swb up
	say "'rdma link add' loads softiwarp by itself (module alias)"
	run rdma link add sw0 type softiwarp netdev swa
	run grep softiwarp /proc/modules
	run rdma link show
	say "rdma-core's unmodified libsiw opens the device"
	run ibv_devices
	run ibv_devinfo -d sw0
	say "Removing the device and unloading"
	run rdma link delete sw0
	run rmmod softiwarp
	echo '$ dmesg | grep softiwarp'
	dmesg --notime | grep softiwarp
}

main 2>&1 | tee "$RESULTS/demo.out"
exit "${PIPESTATUS[0]}"
