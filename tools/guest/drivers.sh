# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the guest scripts that compare softiwarp with siw in one boot
# (bench.sh, trace.sh): two veth pairs, each between two network
# namespaces; softiwarp runs on vsl/vsr (namespaces swL/swR, 10.98.0.1/2,
# devices swl/swr), siw on vil/vir (siL/siR, 10.97.0.1/2, siwl/siwr).

pair() {	# NAME NSL NSR IPL IPR
	ip netns add "$2"
	ip netns add "$3"
	ip link add "$1l" type veth peer name "$1r"
	ip link set "$1l" netns "$2"
	ip link set "$1r" netns "$3"
	ip -n "$2" addr add "$4/24" dev "$1l"
	ip -n "$3" addr add "$5/24" dev "$1r"
	ip -n "$2" link set "$1l" up
	ip -n "$3" link set "$1r" up
	ip -n "$2" link set lo up
	ip -n "$3" link set lo up
}

# Only one driver's devices exist at a time: a wildcard rdma_cm listen asks
# every iWARP device to listen, and siw binds its addresses in the caller's
# namespace, which fails for a siw device of another namespace. Switching
# is a matter of milliseconds and keeps the runs in one boot.
drivers=none
# swmod: which softiwarp module is loaded: fastest (ours, the defaults),
# crc32c (ours, crc32c_driver=crc32c) or base (BENCH_BASE_KO: the module of
# another commit, for a before/after comparison in one boot)
swmod=none
use() {	# sw | sw-pref | sw-base | siw | none
	local want
	[ "$drivers" = "$1" ] && return
	rdma link delete swl 2>/dev/null; rdma link delete swr 2>/dev/null
	rdma link delete siwl 2>/dev/null; rdma link delete siwr 2>/dev/null
	case $1 in
	sw | sw-pref | sw-base)
		# sw-pref: the module reloaded with crc32c_driver=crc32c
		want=fastest
		[ "$1" = sw-pref ] && want=crc32c
		[ "$1" = sw-base ] && want=base
		if [ "$swmod" != "$want" ]; then
			rmmod softiwarp 2>/dev/null
			if [ "$want" = base ]; then
				insmod "$BENCH_BASE_KO"
			else
				modprobe softiwarp crc32c_driver="$want"
			fi
			swmod=$want
		fi
		ip netns exec swL rdma link add swl type softiwarp netdev vsl
		ip netns exec swR rdma link add swr type softiwarp netdev vsr
		;;
	siw)
		ip netns exec siL rdma link add siwl type siw netdev vil
		ip netns exec siR rdma link add siwr type siw netdev vir
		;;
	esac
	drivers=$1
}

pairs_up() {	# both veth pairs and their namespaces
	pair vs swL swR 10.98.0.1 10.98.0.2
	pair vi siL siR 10.97.0.1 10.97.0.2
}
