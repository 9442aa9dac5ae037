#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With Markers, every TCP segment of bulk data starts with an FPDU or its
# header (RFC 5044 section 5.1, Header Alignment): the transmitter sizes
# each FPDU by the Markers that fall in its segment (swi_mpa_tx_ulpdu_room()),
# not by the worst case of MULPDU, which leaves 4 octets of about one
# segment in six to the next FPDU and every later segment of the run
# starting inside an FPDU. Two rping connections (60000 and 41234 octets,
# RDMA Read and Write both ways, so that the Markers fall at many
# positions of the FPDUs) between two softiwarp devices with Markers and
# CRC, and a third (60000 octets) without Markers, captured with TSO, GSO
# and GRO off and without TCP autocorking so that the capture shows the
# segments TCP built. tools/e2e/fpdu-align.py rebuilds each direction,
# walks its FPDUs and fails on a segment that starts or ends inside one,
# on a segment over the EMSS (the MSS of the peer's SYN less the timestamp
# option), on largest segments that are not of the EMSS rounded down to 4
# octets (MULPDU from the EMSS, sections 4.5 and 5.1), and on an FPDU that
# is not the last of its DDP message in a segment shorter than that (as
# large as possible, section 4.5); the run must have carried at least 100
# such FPDUs.
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
RPING_SERVER_SECS=90 RPING_CLIENT_SECS=60 # rping_pair's timeouts
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

# one verified rping connection of 4 iterations of each size (the tag
# names the logs: $T-SIZE-server.log, $T-SIZE-client.log)
rping_pair 60000 "$IP0" "$RPING_PORT" 60000 4
rping_pair 41234 "$IP0" "$RPING_PORT" 41234 4
knob "$DEV0" mpa_markers 0
knob "$DEV1" mpa_markers 0
rping_pair 60000-nomarkers "$IP0" "$RPING_PORT" 60000 4
capture_stop "$PCAP"

timeout 120 tshark -r "$PCAP" -n -T fields -e tcp.stream -e tcp.srcport \
	-e tcp.seq -e tcp.len -e tcp.payload -e tcp.options.mss_val \
	-e tcp.options.timestamp.tsval tcp \
	> "$FIELDS" 2> "$RESULTS/$T-tshark.err"
python3 "$(dirname "$0")/fpdu-align.py" "$FIELDS" 100 ||
	fail "FPDUs not sized or aligned to the segments (see $T.log)"

netns_teardown
echo "PASS $T"
