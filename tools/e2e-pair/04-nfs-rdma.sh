#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFSv4 over RDMA with the kernel's own consumers (svcrdma in nfsd, xprtrdma
# in the NFS client), softiwarp in both guests; see nfs.guest. Beyond both
# guests' own checks, this script compares what the server stored with
# what the client read back (checksums), and the RFC 8797 RPC-over-RDMA
# private data in the debugfs connections files: both sides must show
# both messages (xprtrdma's in the MPA Request, svcrdma's in the Reply),
# the client's "ours" being the server's "peer" and the other way round.
# The last round runs with netem on both guests' eth0 (see nfs.guest).
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
g=$top/tools/e2e-pair/nfs.guest
out=$top/build/e2e-pair/04
# NFS_ROUNDS: the rounds to run (make check runs fewer on one kernel)
ROUNDS=${NFS_ROUNDS:-4.0 4.2 4.2+netem}

rc=0
"$top/tools/vm-pair" -t 900 -o "$out" "$g" server "$ROUNDS" -- \
	"$g" client "$ROUNDS" || rc=$?
for r in a b; do
	echo "--- guest $r"
	cat "$out/$r/04-summary.txt" 2>/dev/null || tail -n 30 "$out/$r/console.log"
done
[ "$rc" -eq 0 ] || { echo "FAIL: vm-pair exited $rc"; exit 1; }

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# field FILE NAME: the value of NAME=... on the file's one connection line
field() {
	grep -o " $2=[^ ]*" "$1" | head -n 1 | cut -d= -f2-
}
for v in $ROUNDS; do
	sc=$out/a/04-conn-$v-server.txt cc=$out/b/04-conn-$v-client.txt
	cmp -s "$out/a/04-sums-$v-server.txt" "$out/b/04-sums-$v-client.txt" ||
		fail "vers=$v: the server's files differ from what the client read"
	[ "$(wc -l < "$out/b/04-sums-$v-client.txt")" -ge 67 ] ||
		fail "vers=$v: fewer files than written"
	for f in "$sc" "$cc"; do
		[ "$(grep -c '^qp ' "$f")" -eq 1 ] || fail "vers=$v: not one connection in $f"
	done
	grep -q ' initiator ' "$cc" || fail "vers=$v: the client is not the initiator"
	grep -q ' responder ' "$sc" || fail "vers=$v: the server is not the responder"
	xprt=$(field "$cc" rpcrdma_ours) svc=$(field "$sc" rpcrdma_ours)
	echo "vers=$v: xprtrdma sent $xprt, svcrdma sent $svc"
	[[ $xprt == v1,send=*,recv=* ]] || fail "vers=$v: no RFC 8797 data from xprtrdma ($xprt)"
	[[ $svc == v1,send=*,recv=* ]] || fail "vers=$v: no RFC 8797 data from svcrdma ($svc)"
	[ "$(field "$sc" rpcrdma_peer)" = "$xprt" ] ||
		fail "vers=$v: the server saw $(field "$sc" rpcrdma_peer), the client sent $xprt"
	[ "$(field "$cc" rpcrdma_peer)" = "$svc" ] ||
		fail "vers=$v: the client saw $(field "$cc" rpcrdma_peer), the server sent $svc"
done
[ "$fails" -eq 0 ]
