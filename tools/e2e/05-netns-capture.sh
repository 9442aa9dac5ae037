#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What softiwarp puts on the wire, checked by an independent decoder:
# capture one rping connection between two softiwarp devices (the two-
# namespace setup of 03-netns-rping.sh) with Markers requested by both
# devices and CRC on, and decode it with tshark's iWARP dissectors. The
# test fails unless
#
#   - there is exactly one MPA Request and one MPA Reply, both with the
#     Marker and CRC flags set and the Reply not rejecting;
#   - every TCP segment after the Reply on that connection that carries
#     data decodes as MPA FPDUs, and tshark finds the CRC of every FPDU
#     good ("CRC check: 0x... (Good CRC32)") and none bad;
#   - tshark finds Markers in both directions, and each Marker's FPDUPTR
#     (which tshark shows but does not check) points back to the start of
#     its FPDU (RFC 5044 section 4.3; Documentation/mpa.rst);
#   - tshark reports no malformed iWARP (MPA, DDP/RDMAP) packet.
#
# How tshark (Debian 12: Wireshark 4.0) decodes MPA, found on the host and
# with synthetic captures (see TESTBED.md too):
#   - MPA is a heuristic TCP dissector ("iwarp_mpa_tcp"), not a port one:
#     "-d tcp.port==7174,iwarp_mpa" is refused ("isn't valid for layer
#     type tcp.port"). It keys on the MPA Request and Reply, so the capture
#     must start before the connection. We enable it explicitly and let
#     heuristics run first, lest a dissector registered on the client's
#     ephemeral port take the segments.
#   - Fields: iwarp_mpa.req, iwarp_mpa.rep, iwarp_mpa.fpdu,
#     iwarp_mpa.markers (FT_NONE, "1" when present), iwarp_mpa.marker_flag,
#     iwarp_mpa.crc_flag, iwarp_mpa.rej_flag, iwarp_mpa.marker_fpduptr.
#     With CRC negotiated the FPDU's CRC is shown as iwarp_mpa.crc_check,
#     whose text says "(Good CRC32)" or "(Bad CRC32, should be 0x...)";
#     there is no CRC status field or expert item to filter on, so the
#     test counts those texts in "tshark -O iwarp_mpa" output.
#   - With Markers, tshark assumes one FPDU per TCP segment, a Marker at
#     the start of the first FPDU of each direction, and Markers in both
#     directions when either side asked for them, where RFC 5044 (7.1.1)
#     has them only towards the side that asked: so both ask here. An
#     FPDU it cannot place is not decoded at all, silently: hence the
#     count of data segments against decoded FPDUs. TSO, GSO and GRO are
#     off on both veth ends and TCP autocorking is off in both namespaces
#     so that every FPDU leaves in a segment of its own.
#
# Needs tcpdump and tshark on the host (the guest's root); ethtool if
# there, else "ip link set ... gso_max_segs 1" (see offloads_off).
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=05-netns-capture
NS0=swns0 NS1=swns1         # server side, client side (capture on veth1)
DEV0=swi0 DEV1=swi1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174
PCAP=$RESULTS/$T.pcap
FIELDS=$RESULTS/$T-fields.tsv
TEXT=$RESULTS/$T-tshark.txt
TSHARK_OPTS=(-n -o tcp.try_heuristic_first:TRUE --enable-heuristic iwarp_mpa_tcp)
. "$(dirname "$0")/netns-lib.sh"

# --- setup, one FPDU per segment ----------------------------------------
# One FPDU per TCP segment, as tshark's dissector needs.
netns_tune() { capture_tune; }
netns_setup
knob "$DEV0" mpa_markers 1
knob "$DEV1" mpa_markers 1
knob "$DEV0" mpa_crc 1
knob "$DEV1" mpa_crc 1

# --- capture one rping connection -----------------------------------------
capture_start "$PCAP" 150

timeout 90 ip netns exec "$NS0" \
	rping -s -a "$IP0" -V -C 10 -S 1000 > "$RESULTS/$T-server.log" 2>&1 &
spid=$!
bg_pids=("$tpid" "$spid")
wait_listen "$NS0" "$RPING_PORT"
crc=0 src=0
timeout 60 ip netns exec "$NS1" \
	rping -c -a "$IP0" -V -v -C 10 -S 1000 > "$RESULTS/$T-client.log" 2>&1 || crc=$?
wait "$spid" || src=$?
bg_pids=("$tpid")
capture_stop "$PCAP"
[ "$crc" -eq 0 ] || fail "rping client exited $crc (see $T-client.log)"
[ "$src" -eq 0 ] || fail "rping server exited $src (see $T-server.log)"
rping_logs_clean "$RESULTS/$T-client.log" "$RESULTS/$T-server.log" ||
	fail "rping printed an error"
n=$(grep -c '^ping data: rdma-ping-' "$RESULTS/$T-client.log" || true)
[ "$n" -eq 10 ] || fail "rping client completed $n of 10 iterations"

# --- decode ------------------------------------------------------------------
# One line per frame, every occurrence of a field, comma-separated:
# 1 frame  2 stream  3 srcport  4 tcp.len  5 tcp.seq  6 req  7 rep
# 8 fpdu (one "1" per FPDU)  9 markers  10 marker_flag  11 crc_flag
# 12 rej_flag  13 FPDUPTRs in stream order
timeout 120 tshark -r "$PCAP" "${TSHARK_OPTS[@]}" -T fields \
	-E separator=/t -E occurrence=a -E aggregator=, \
	-e frame.number -e tcp.stream -e tcp.srcport -e tcp.len -e tcp.seq \
	-e iwarp_mpa.req -e iwarp_mpa.rep -e iwarp_mpa.fpdu -e iwarp_mpa.markers \
	-e iwarp_mpa.marker_flag -e iwarp_mpa.crc_flag -e iwarp_mpa.rej_flag \
	-e iwarp_mpa.marker_fpduptr \
	> "$FIELDS" 2> "$RESULTS/$T-tshark.err"
timeout 120 tshark -r "$PCAP" "${TSHARK_OPTS[@]}" -O iwarp_mpa \
	> "$TEXT" 2>> "$RESULTS/$T-tshark.err"

# Startup: exactly one Request and one Reply, Markers and CRC asked by both.
summary=$(awk -F'\t' '
	$6 == "1" { nreq++; stream = $2; req = $10 "," $11 }
	$7 == "1" { nrep++; rep = $10 "," $11 "," $12 }
	END { printf "%d %d %s %s %s\n", nreq, nrep, stream, req, rep }' "$FIELDS")
echo "startup: $summary"
read -r nreq nrep stream req rep <<< "$summary"
[ "$nreq" -eq 1 ] || fail "$nreq MPA Requests in the capture, expected 1"
[ "$nrep" -eq 1 ] || fail "$nrep MPA Replies in the capture, expected 1"
[ "$req" = "1,1" ] || fail "MPA Request flags M,C = $req, expected 1,1"
[ "$rep" = "1,1,0" ] || fail "MPA Reply flags M,C,R = $rep, expected 1,1,0"

# Full Operation: every data segment of that connection after the Reply is
# decoded as FPDUs; Markers in both directions, each FPDUPTR checked.
#
# Marker positions: each direction counts from its first FPDU, which
# starts with a Marker (Documentation/mpa.rst: position 0). With one FPDU
# per segment, a Marker at segment offset o > 0 points back o - h octets,
# h = 4 when the segment starts with a Marker (the FPDU's header follows
# it) and 0 otherwise; a Marker at offset 0 has FPDUPTR 0.
fo=$(awk -F'\t' -v s="$stream" '
	$2 != s || $6 == "1" { next }
	$7 == "1" { started = 1; next }
	!started || $4 == 0 { next }
	{
		data++
		if ($8 != "")
			fpdus++
		if (!($3 in s0))
			s0[$3] = $5
		if ($9 == "")
			next
		mk[$3]++
		n = split($13, ptr, ",")
		o = (512 - ($5 - s0[$3]) % 512) % 512
		h = (o == 0) ? 4 : 0
		for (i = 1; i <= n; i++) {
			want = (o == 0) ? 0 : o - h
			if (ptr[i] != want) {
				badptr++
				print "frame " $1 ": Marker at offset " o \
					" has FPDUPTR " ptr[i] ", expected " want > "/dev/stderr"
			}
			markers++
			o += 512
		}
		if (o < $4 || n == 0)
			badptr++
	}
	END {
		dirs = 0
		for (p in mk)
			dirs++
		printf "%d %d %d %d %d\n", data, fpdus, markers, dirs, badptr
	}' "$FIELDS")
echo "full operation (data segments, FPDU segments, Markers, directions" \
	"with Markers, bad FPDUPTRs): $fo"
read -r data fpdus markers dirs badptr <<< "$fo"
[ "$data" -gt 0 ] || fail "no data after the MPA Reply"
[ "$fpdus" -eq "$data" ] || fail "$((data - fpdus)) of $data data segments" \
	"not decoded as FPDUs (see $T-fields.tsv)"
[ "$markers" -gt 0 ] || fail "no Markers found"
[ "$dirs" -eq 2 ] || fail "Markers in $dirs direction(s), expected 2"
[ "$badptr" -eq 0 ] || fail "$badptr Marker FPDUPTR errors (see $T.log)"

# CRCs: one "CRC check" per FPDU, all good.
ulpdus=$(grep -c 'ULPDU length:' "$TEXT" || true)
good=$(grep -c 'CRC check: 0x[0-9a-f]* (Good CRC32)' "$TEXT" || true)
bad=$(grep -c 'Bad CRC32' "$TEXT" || true)
malformed=$(grep -c 'Malformed Packet: IWARP' "$TEXT" || true)
echo "FPDUs $ulpdus, good CRCs $good, bad CRCs $bad, malformed iWARP $malformed"
[ "$bad" -eq 0 ] || fail "$bad FPDUs with a bad CRC (see $T-tshark.txt)"
[ "$ulpdus" -ge "$fpdus" ] || fail "fewer FPDUs ($ulpdus) than FPDU segments ($fpdus)"
[ "$good" -eq "$ulpdus" ] || fail "$good good CRCs for $ulpdus FPDUs (see $T-tshark.txt)"
[ "$malformed" -eq 0 ] || fail "$malformed malformed iWARP packets (see $T-tshark.txt)"

# --- teardown ------------------------------------------------------------------
netns_teardown
echo "PASS $T"
