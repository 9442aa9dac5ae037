#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, only when missing, the Debian packages that the softiwarp build,
# lint, test kernel and VM harness need. Safe to run repeatedly; it does
# nothing (and needs no root) when everything is already installed.
#
# Usage: tools/install-deps.sh [--compat] [--deb] [--bench] [--demo]
#   (none)     what `make check` needs (make fuzz too): all below but the
#              header packages
#              (make compat and make deb install those themselves) and
#              qperf (make bench installs it)
#   --compat   only the Debian kernel header packages for 6.1 and 6.12,
#              dkms and mmdebstrap (make compat; the newer kernels' headers
#              come into chroots, tools/debian-chroot.sh)
#   --deb      only what builds, checks and installs the Debian package
#              (make deb; it installs the header packages with --compat)
#   --bench    only what make bench adds (qperf: TCP latency)
#   --demo     only what make demo needs: the module's build for the
#              host's own 6.12 kernel headers, the VM harness, rdma-core's
#              tools
set -euo pipefail

compat_pkgs=(linux-headers-amd64 linux-headers-6.12-amd64 dkms mmdebstrap)
deb_pkgs=(dkms dh-dkms debhelper dpkg-dev fakeroot lintian)
bench_pkgs=(qperf)
demo_pkgs=(linux-headers-6.12-amd64 build-essential cpio kmod xz-utils zstd
	rsync qemu-system-x86 busybox-static rdma-core ibverbs-utils
	rdmacm-utils perftest iproute2)

pkgs=(
	# test kernel: source and build dependencies
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	cpio kmod xz-utils zstd rsync python3
	# lint
	sparse
	# VM harness
	qemu-system-x86 busybox-static
	# RDMA user space and network tools used inside the guest
	rdma-core ibverbs-utils rdmacm-utils perftest python3-pyverbs iproute2 tcpdump
	tshark iperf3 gnuplot-nox ethtool
	# tools/hostile-user, built on the host: the verbs and rdma_cm headers
	# (rdma/siw-abi.h is linux-libc-dev's, a dependency of build-essential)
	libibverbs-dev librdmacm-dev linux-libc-dev
	# kernel ULP tests: the NFS server and its helpers (rpcbind, exportfs)
	nfs-kernel-server
	# make fuzz: clang's libFuzzer and sanitizers, llvm-cov
	clang libclang-rt-dev llvm
	# make deb
	"${deb_pkgs[@]}"
)
if [ $# -gt 0 ]; then
	pkgs=()
	for opt in "$@"; do
		case $opt in
		--compat)	pkgs+=("${compat_pkgs[@]}") ;;
		--deb)		pkgs+=("${deb_pkgs[@]}") ;;
		--bench)	pkgs+=("${bench_pkgs[@]}") ;;
		--demo)		pkgs+=("${demo_pkgs[@]}") ;;
		*)		echo "usage: $0 [--compat] [--deb] [--bench] [--demo]" >&2
				exit 2 ;;
		esac
	done
fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root: sudo $0 $*" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer once, non-interactively
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections
# Try with the package lists at hand; refresh them once if that fails.
if ! apt-get install -y -q --no-install-recommends "${missing[@]}"; then
	apt-get update -qq
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
