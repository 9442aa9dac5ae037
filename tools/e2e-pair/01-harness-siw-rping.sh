#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness check for interoperability tests: two guests joined by a QEMU
# socket network, the in-tree siw on both, rping -V between them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
g=$top/tools/e2e-pair/siw-rping.guest
"$top/tools/vm-pair" -t 180 -o "$top/build/e2e-pair/01" "$g" server -- "$g" client
grep -q 'ping data: rdma-ping-4' "$top/build/e2e-pair/01/b/console.log"
