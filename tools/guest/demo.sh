#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo`: what a newcomer wants to see, narrated.
say() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() { echo "\$ $*"; "$@"; }

main() {
	say "A fresh test guest: kernel $(uname -r), host root over 9p"
	run modinfo softiwarp
	say "Loading the module the way a user does"
	run modprobe softiwarp
	run grep softiwarp /proc/modules
	echo '$ dmesg | grep softiwarp'
	dmesg --notime | grep softiwarp
	say "RDMA devices (softiwarp registers one per netdev with 'rdma link add')"
	run rdma link show
	say "Unloading"
	run rmmod softiwarp
	echo '$ dmesg | grep softiwarp'
	dmesg --notime | grep softiwarp
}

main 2>&1 | tee "$RESULTS/demo.out"
exit "${PIPESTATUS[0]}"
