#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RFC 7306's Atomic messages as softiwarp sends them, read by an
# independent decoder: no ULP of the kernel posts an atomic on iWARP, so
# the consumer is the KUnit case softiwarp_cm.cm_atomics_over_mpa
# (kunit/cm_kunit.c): two kernel QPs of a device on lo, connected through
# the connection manager with MPA revision 2 and CRCs, the initiator
# posting a FetchAdd, a CmpSwap and a masked CmpSwap on a word of the
# responder's MR. The case runs (softiwarp_kunit loaded with KUnit's
# filter_glob set to it) under tcpdump on lo, and tshark's iWARP
# dissectors (bookworm's Wireshark 4.0 knows RFC 7306's Atomic Request
# and Response; it has no Immediate Data) decode the capture. Fails
# unless
#
#   - first, on a device of its own (veth swc0): atomic_cap, as
#     ibv_devinfo shows it, is ATOMIC_HCA with the module parameter
#     rfc7306=1 and ATOMIC_NONE with 0, sysfs rfc7306 shows the same and,
#     written, switches it (Documentation/rfc7306.rst), and refuses 2;
#   - the case passes and the kernel log is clean;
#   - tshark finds exactly three Atomic Requests (RDMAP opcode 0xa), all
#     from the initiator's port, with AOpCode FetchAdd (0), CmpSwap (2),
#     CmpSwap (2), the operands and masks the case posted (the unmasked
#     FetchAdd's Add Mask 0, the unmasked CmpSwap's masks all ones), the
#     MR's STag (key 0x7e) and a Tagged Offset 64 octets into its page,
#     and three distinct Request Identifiers (RFC 7306 section 5.2.1);
#   - exactly three Atomic Responses (0xb) from the responder's port,
#     each naming a Request's identifier in order and carrying the word's
#     original value (section 5.2.2): 0x1122334455667788,
#     0x1223344556677889, 0xcafef00dcafef00d (tools/e2e/rfc7306-fields.py
#     compares them: tshark prints the 64-bit fields in decimal);
#   - every FPDU's CRC is good and no iWARP packet is malformed.
#
# Runs where softiwarp_kunit is built (the test and debug kernels); on a
# kernel without KUnit (Debian's images) it is skipped (exit 77). Needs
# tcpdump, tshark and python3 on the host (the guest's root).
#
# timeout: 240
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=$(basename "$0" .sh)
NS0=swns0 NS1=swns1         # unused: the devices are in the initial one
DEV0=swcap0 DEV1=swkcm0     # the switch's device, the case's (on lo)
PORT=27151                  # CMT_AT_PORT in kunit/cm_kunit.c
CASE=softiwarp_cm.cm_atomics_over_mpa
FILTER=/sys/module/kunit/parameters/filter_glob
PCAP=$RESULTS/$T.pcap
FIELDS=$RESULTS/$T-fields.tsv
TEXT=$RESULTS/$T-tshark.txt
TSHARK_OPTS=(-n -o tcp.try_heuristic_first:TRUE --enable-heuristic iwarp_mpa_tcp)
. "$(dirname "$0")/netns-lib.sh"

cap_cleanup() {
	set +e
	rmmod softiwarp_kunit 2>/dev/null
	ip link del swc0 2>/dev/null
	[ -w "$FILTER" ] && printf '*' > "$FILTER"
}
trap 'rc=$?; cap_cleanup; (exit $rc); cleanup' EXIT

for t in tcpdump tshark; do
	command -v "$t" >/dev/null || fail "$t is not installed on the host"
done
if [ ! -d /sys/module/kunit ]; then
	echo "SKIP: this kernel has no KUnit (Debian's images), so no softiwarp_kunit"
	exit 77
fi
modinfo softiwarp_kunit > /dev/null ||
	fail "softiwarp_kunit is not built for this kernel"
[ -w "$FILTER" ] || fail "no KUnit filter_glob parameter ($FILTER)"
modprobe -r softiwarp_kunit softiwarp 2>/dev/null || true
dmesg -C

# --- the switch, as a user sees it ------------------------------------------
# atomic_cap as ibv_devinfo (uverbs' query) shows it: the module parameter
# rfc7306 when the device is added, then /sys/class/infiniband/DEV/rfc7306
atomic_cap() {
	ibv_devinfo -d "$DEV0" -v | awk '$1 == "atomic_cap:" { print $2 }'
}
ip link add swc0 type veth peer name swc1
ip link set swc0 up
ip link set swc1 up
for param in 1 0; do
	modprobe softiwarp rfc7306="$param"
	rdma link add "$DEV0" type softiwarp netdev swc0
	sw=/sys/class/infiniband/$DEV0/rfc7306
	[ "$(cat "$sw")" = "$param" ] || fail "rfc7306=$param: sysfs shows $(cat "$sw")"
	cap=(ATOMIC_NONE ATOMIC_HCA)
	[ "$(atomic_cap)" = "${cap[$param]}" ] ||
		fail "rfc7306=$param: atomic_cap $(atomic_cap)"
	other=$((1 - param))
	echo "$other" > "$sw"
	[ "$(cat "$sw")" = "$other" ] || fail "sysfs rfc7306 not switched"
	[ "$(atomic_cap)" = "${cap[$other]}" ] ||
		fail "sysfs rfc7306=$other: atomic_cap $(atomic_cap)"
	! echo 2 > "$sw" 2>/dev/null || fail "sysfs rfc7306 took 2"
	rdma link delete "$DEV0"
	modprobe -r softiwarp
done
ip link del swc0
modprobe softiwarp

# --- the case, captured ----------------------------------------------------
rm -f "$PCAP"
command timeout "$(e2e_scale_time 150)" tcpdump -Z root -U -n -s 0 -i lo \
	-w "$PCAP" tcp port "$PORT" > "$RESULTS/$T-tcpdump.log" 2>&1 &
tpid=$!
bg_pids=("$tpid")
for _ in $(seq 100); do
	grep -q 'listening on' "$RESULTS/$T-tcpdump.log" && break
	kill -0 "$tpid" 2>/dev/null || fail "tcpdump died (see $T-tcpdump.log)"
	sleep 0.2
done
grep -q 'listening on' "$RESULTS/$T-tcpdump.log" || fail "tcpdump did not start"
printf %s "$CASE" > "$FILTER"
modprobe softiwarp_kunit
rmmod softiwarp_kunit
printf '*' > "$FILTER"   # every case again
capture_stop "$PCAP"
dmesg > "$RESULTS/$T.dmesg"
# KTAP lines, after the kernel log's time stamps
grep -E '\]\s+ok [0-9]+ cm_atomics_over_mpa$' "$RESULTS/$T.dmesg" ||
	fail "the KUnit case did not pass (see $T.dmesg)"
! grep -E '\]\s+not ok ' "$RESULTS/$T.dmesg" || fail "a KUnit case failed"
dmesg_clean "$RESULTS/$T.dmesg" || fail "kernel log not clean"

# --- decode ------------------------------------------------------------------
# 1 frame  2 srcport  3 RDMAP opcode  4 AOpCode  5 Request Identifier
# 6 STag  7 Tagged Offset  8 Add Data  9 Add Mask  10 Swap Data
# 11 Swap Mask  12 Compare Data  13 Compare Mask  14 Original Request
# Identifier  15 Original Remote Data Value
timeout 120 tshark -r "$PCAP" "${TSHARK_OPTS[@]}" -T fields \
	-E separator=/t -E occurrence=a -E aggregator=, \
	-Y 'iwarp_rdma.opcode == 0xa || iwarp_rdma.opcode == 0xb' \
	-e frame.number -e tcp.srcport -e iwarp_rdma.opcode \
	-e iwarp_rdma.atomic.opcode -e iwarp_rdma.atomic.request_identifier \
	-e iwarp_rdma.atomic.remote_stag \
	-e iwarp_rdma.atomic.remote_tagged_offset \
	-e iwarp_rdma.atomic.add_data -e iwarp_rdma.atomic.add_mask \
	-e iwarp_rdma.atomic.swap_data -e iwarp_rdma.atomic.swap_mask \
	-e iwarp_rdma.atomic.compare_data -e iwarp_rdma.atomic.compare_mask \
	-e iwarp_rdma.atomic.original_request_identifier \
	-e iwarp_rdma.atomic.original_remote_data_value \
	> "$FIELDS" 2> "$RESULTS/$T-tshark.err"
timeout 120 tshark -r "$PCAP" "${TSHARK_OPTS[@]}" -V \
	> "$TEXT" 2>> "$RESULTS/$T-tshark.err"
python3 "$(dirname "$0")/rfc7306-fields.py" "$FIELDS" "$PORT" ||
	fail "tshark decoded other Atomic messages than posted (see $T-fields.tsv)"

bad=$(grep -c 'Bad CRC32' "$TEXT" || true)
good=$(grep -c 'CRC check: 0x[0-9a-f]* (Good CRC32)' "$TEXT" || true)
malformed=$(grep -c 'Malformed Packet' "$TEXT" || true)
echo "good CRCs $good, bad CRCs $bad, malformed $malformed"
[ "$bad" -eq 0 ] || fail "$bad FPDUs with a bad CRC (see $T-tshark.txt)"
[ "$good" -ge 6 ] || fail "$good good CRCs, expected one per Atomic message at least"
[ "$malformed" -eq 0 ] || fail "$malformed malformed packets (see $T-tshark.txt)"

modprobe -r softiwarp
echo "PASS $T"
