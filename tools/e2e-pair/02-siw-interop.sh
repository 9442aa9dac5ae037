#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the in-tree siw: guest A runs siw, guest B runs
# softiwarp, joined by a QEMU socket network (tools/vm-pair). rping and
# ib_send_bw / ib_write_bw / ib_read_bw -R in both directions must pass;
# softiwarp asking for Markers must be refused by siw cleanly - the client
# exits non-zero, quickly, both kernels stay clean and softiwarp unloads -
# and a normal connection must work again afterwards. The guest script,
# siw-interop.guest, describes the steps and what siw does about CRC and
# Markers.
#
# Then, on the host, tshark decodes guest B's captures:
#   rping-sw2siw    softiwarp's Request asks for CRC, siw's Reply echoes
#                   it; FPDUs follow, every CRC good
#   rping-siw2sw    siw's Request does not ask for CRC, softiwarp's Reply
#                   does (RFC 5044: CRC if either side asks); every CRC good
#   markers-sw2siw  softiwarp's Request asks for Markers; siw's Reply has
#                   the Reject flag; no FPDU
#   markers-siw2sw  softiwarp's Reply asks for Markers; no FPDU from siw
# (tshark's MPA dissector is heuristic, "iwarp_mpa_tcp"; field names and
# the "(Good CRC32)" text are those of Wireshark 4.0, see
# tools/e2e/05-netns-capture.sh.)
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
g=$top/tools/e2e-pair/siw-interop.guest
out=$top/build/e2e-pair/02
TSHARK_OPTS=(-n -o tcp.try_heuristic_first:TRUE --enable-heuristic iwarp_mpa_tcp)

rc=0
"$top/tools/vm-pair" -t 600 -o "$out" "$g" siw -- "$g" softiwarp || rc=$?
for r in a b; do
	echo "--- guest $r"
	cat "$out/$r/02-summary.txt" 2>/dev/null || tail -n 20 "$out/$r/console.log"
done
[ "$rc" -eq 0 ] || { echo "FAIL: vm-pair exited $rc"; exit 1; }

command -v tshark >/dev/null || { echo "FAIL: tshark not installed"; exit 1; }
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# mpa PCAP: print "REQ REP FPDUS GOOD BAD" where REQ and REP are the M,C,R
# flags of the (single) MPA Request and Reply ("-" when absent or not
# single), FPDUS the number of FPDUs, GOOD/BAD the CRC verdicts.
mpa() {
	local pcap=$1 fields text
	fields=$(timeout 120 tshark -r "$pcap" "${TSHARK_OPTS[@]}" -T fields \
		-E separator=/t -E occurrence=a -E aggregator=, \
		-e iwarp_mpa.req -e iwarp_mpa.rep -e iwarp_mpa.marker_flag \
		-e iwarp_mpa.crc_flag -e iwarp_mpa.rej_flag 2>/dev/null)
	text=$(timeout 120 tshark -r "$pcap" "${TSHARK_OPTS[@]}" -O iwarp_mpa 2>/dev/null)
	printf '%s\n' "$text" > "${pcap%.pcap}-tshark.txt"
	awk -F'\t' '
		$1 == "1" { nreq++; req = $3 "," $4 "," $5 }
		$2 == "1" { nrep++; rep = $3 "," $4 "," $5 }
		END {
			if (nreq != 1) req = "-"
			if (nrep != 1) rep = "-"
			printf "%s %s ", req, rep
		}' <<< "$fields"
	printf '%s %s %s\n' \
		"$(grep -c 'ULPDU length:' <<< "$text" || true)" \
		"$(grep -c '(Good CRC32)' <<< "$text" || true)" \
		"$(grep -c 'Bad CRC32' <<< "$text" || true)"
}

# expect STEP REQ REP: the Request's and Reply's M,C,R flags; for a
# connection that was accepted, FPDUs all with a good CRC; for a refused
# one, no FPDU.
expect() {
	local step=$1 want_req=$2 want_rep=$3 pcap=$out/b/02-$1.pcap
	local req rep fpdus good bad
	[ -s "$pcap" ] || { fail "$step: no capture $pcap"; return; }
	read -r req rep fpdus good bad <<< "$(mpa "$pcap")"
	echo "$step: Request M,C,R $req, Reply M,C,R $rep, FPDUs $fpdus, good CRCs $good, bad $bad"
	[ "$req" = "$want_req" ] || fail "$step: Request flags $req, expected $want_req"
	[ "$rep" = "$want_rep" ] || fail "$step: Reply flags $rep, expected $want_rep"
	case $step in
	markers-*)
		[ "$fpdus" -eq 0 ] || fail "$step: $fpdus FPDUs on a refused connection"
		;;
	*)
		[ "$fpdus" -gt 0 ] || fail "$step: no FPDU decoded"
		[ "$bad" -eq 0 ] || fail "$step: $bad bad CRCs"
		[ "$good" -eq "$fpdus" ] || fail "$step: $good good CRCs for $fpdus FPDUs"
		;;
	esac
}

#      step           Request M,C,R  Reply M,C,R
expect rping-sw2siw   0,1,0          0,1,0
expect rping-siw2sw   0,0,0          0,1,0
expect markers-sw2siw 1,1,0          0,1,1
expect markers-siw2sw 0,0,0          1,1,0

if [ "$fails" -ne 0 ]; then
	echo "FAIL: $fails capture check(s) failed (captures in $out/b)"
	exit 1
fi
echo "PASS 02-siw-interop"
