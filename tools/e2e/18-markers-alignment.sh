#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With Markers, every TCP segment of bulk data starts with an FPDU or its
# header (RFC 5044 section 5.1, Header Alignment): the transmitter sizes
# each FPDU by the Markers that fall in its segment (mpa_tx_ulpdu_room()),
# not by the worst case of MULPDU, which leaves 4 octets of about one
# segment in six to the next FPDU and every later segment of the run
# starting inside an FPDU. Two rping connections (60000 and 41234 octets,
# RDMA Read and Write both ways, so that the Markers fall at many
# positions of the FPDUs) between two softiwarp devices with Markers and
# CRC, captured with TSO, GSO and GRO off and without TCP autocorking so
# that the capture shows the segments TCP built. tools/e2e/fpdu-align.py
# rebuilds each direction, walks its FPDUs and fails on a segment that
# starts inside one; the run must have carried at least 100 full-sized
# segments.
#
# tshark (05-netns-capture.sh) is not the decoder here: its MPA
# dissector assumes one FPDU per segment and counts a Marker that falls
# right after a segment's last octet as one of its own (Wireshark 4.0,
# number_of_markers()), so it stops decoding at the first FPDU that
# fills its segment up to such a Marker.
#
# Needs tcpdump and tshark on the host (the guest's root).
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=18-markers-alignment
NS0=swns0 NS1=swns1         # server side, client side (capture on veth1)
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174
PCAP=$RESULTS/$T.pcap
FIELDS=$RESULTS/$T-fields.tsv
. "$(dirname "$0")/netns-lib.sh"

netns_tune() { capture_tune; }
netns_setup
knob "$DEV0" mpa_markers 1
knob "$DEV1" mpa_markers 1
knob "$DEV0" mpa_crc 1
knob "$DEV1" mpa_crc 1

capture_start "$PCAP" 200

# bulk SIZE: one verified rping connection of 4 iterations of SIZE octets
bulk() {
	local spid crc=0 src=0 n
	wait_unlisten "$NS0" "$RPING_PORT"
	timeout 90 ip netns exec "$NS0" rping -s -a "$IP0" -V -C 4 -S "$1" \
		> "$RESULTS/$T-$1-server.log" 2>&1 &
	spid=$!
	bg_pids=("$tpid" "$spid")
	wait_listen "$NS0" "$RPING_PORT"
	timeout 60 ip netns exec "$NS1" rping -c -a "$IP0" -V -v -C 4 -S "$1" \
		> "$RESULTS/$T-$1-client.log" 2>&1 || crc=$?
	wait "$spid" || src=$?
	bg_pids=("$tpid")
	[ "$crc" -eq 0 ] || fail "rping client exited $crc (size $1)"
	rping_server_ok "$src" "$RESULTS/$T-$1-server.log" ||
		fail "rping server exited $src (size $1)"
	rping_logs_clean "$RESULTS/$T-$1-client.log" \
		"$RESULTS/$T-$1-server.log" || fail "rping printed an error"
	n=$(grep -c '^ping data: rdma-ping-' "$RESULTS/$T-$1-client.log" || true)
	[ "$n" -eq 4 ] || fail "rping client completed $n of 4 iterations"
}
bulk 60000
bulk 41234
capture_stop "$PCAP"

timeout 120 tshark -r "$PCAP" -n -T fields -e tcp.stream -e tcp.srcport \
	-e tcp.seq -e tcp.len -e tcp.payload tcp \
	> "$FIELDS" 2> "$RESULTS/$T-tshark.err"
python3 "$(dirname "$0")/fpdu-align.py" "$FIELDS" 100 ||
	fail "segments not aligned with FPDUs (see $T.log)"

netns_teardown
echo "PASS $T"
