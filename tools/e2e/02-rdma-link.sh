#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device as a user meets it: "rdma link add" loads the module by
# itself (module alias rdma-link-softiwarp), rdma-core's libsiw opens it
# (ibv_devices, ibv_devinfo: transport iWARP, the port follows the netdev),
# a second device on the same netdev is refused, "rdma link delete" and the
# netdev going away remove it, and rmmod with a live device cleans up.
set -eux
. "$(dirname "$0")/lib.sh"

dmesg -C
ip link add swa type veth peer name swb
ip link set swa up
ip link set swb up
grep -q '^softiwarp ' /proc/modules && exit 1

rdma link add sw0 type softiwarp netdev swa
grep -q '^softiwarp ' /proc/modules
rdma link show sw0/1 | grep -q 'state ACTIVE'
ibv_devices | grep -q sw0
ibv_devinfo -d sw0 > "$RESULTS/02-devinfo.txt"
grep -q 'transport:.*iWARP' "$RESULTS/02-devinfo.txt"
grep -q 'state:.*PORT_ACTIVE' "$RESULTS/02-devinfo.txt"
ibv_devinfo -v -d sw0 | grep -q 'max_qp:.*4096'

# One device per netdev.
rdma link add sw1 type softiwarp netdev swa && exit 1
rdma link show sw1 2>/dev/null && exit 1

# The port follows the netdev.
ip link set swa down
ibv_devinfo -d sw0 | grep -q 'state:.*PORT_DOWN'
ip link set swa up

# Delete and add again, then remove the netdev under the device.
rdma link delete sw0
ibv_devices | grep -q sw0 && exit 1
rdma link add sw0 type softiwarp netdev swa
ip link del swa
for _ in $(seq 50); do
	rdma link show sw0 >/dev/null 2>&1 || break
	sleep 0.1
done
rdma link show sw0 >/dev/null 2>&1 && exit 1

# Unload with a live device.
ip link add swc type veth peer name swd
rdma link add sw2 type softiwarp netdev swc
rmmod softiwarp
ibv_devices | grep -q sw2 && exit 1
ip link del swc

dmesg > "$RESULTS/02-rdma-link.dmesg"
dmesg_clean "$RESULTS/02-rdma-link.dmesg"
