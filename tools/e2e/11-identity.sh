#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the device says about itself, read the way users read it:
#
#   ibv_devinfo -v   vendor_id 0x737769 (ours, not siw's 0x626d74), fw_ver
#                    = the module version (modinfo -F version softiwarp,
#                    /sys/module/softiwarp/version), and every limit of
#                    debugfs softiwarp/DEV/limits (written from the
#                    constants the verbs enforce, not from query_device)
#                    with the same value; the path goes through
#                    query_device, uverbs and the unmodified libsiw
#   rdma dev show    fw 0.5.0 (get_dev_fw_str), sysfs fw_ver the same
#   rdma res show    during an rping between two namespaces (the server's
#                    device asks for Markers): the QPs of both devices carry
#                    the driver attributes of the negotiated MPA connection
#                    (role, mpa_rev 2, CRC both ways, Markers only towards
#                    the server, peer-to-peer with the initiator's RTR),
#                    the CQs and MRs theirs (owner user, kind mr)
#
# Ends with "rdma link delete", rmmod and a clean kernel log.
# timeout: 420
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=11-identity
NS0=swins0 NS1=swins1       # server side, client side
DEV0=swid0 DEV1=swid1
IP0=10.78.0.1 IP1=10.78.0.2
RPING_PORT=7174
. "$(dirname "$0")/netns-lib.sh"

netns_setup

# --- identity -----------------------------------------------------------
ver=$(modinfo -F version softiwarp)
[ -n "$ver" ] || fail "modinfo shows no version"
[ "$ver" = "$(cat /sys/module/softiwarp/version)" ] ||
	fail "loaded module is not the one modinfo reads"
info="$RESULTS/$T-devinfo.txt"
timeout 30 ibv_devinfo -v -d "$DEV0" > "$info" 2>&1 ||
	fail "ibv_devinfo failed (see $info)"
tool_log_clean "$info" || fail "ibv_devinfo printed an error"
grep -qE "^[[:space:]]*vendor_id:[[:space:]]+0x737769$" "$info" ||
	fail "vendor_id is not 0x737769"
grep -qE "^[[:space:]]*fw_ver:[[:space:]]+$ver$" "$info" ||
	fail "fw_ver is not $ver"
[ "$(cat "/sys/class/infiniband/$DEV0/fw_ver")" = "$ver" ] ||
	fail "sysfs fw_ver is not $ver"
timeout 10 rdma dev show "$DEV0" > "$RESULTS/$T-dev.txt"
grep -q " fw $ver " "$RESULTS/$T-dev.txt" || fail "rdma dev show: no fw $ver"

# --- limits: ibv_devinfo against what the verbs enforce ------------------
limits=/sys/kernel/debug/softiwarp/$DEV0/limits
cp "$limits" "$RESULTS/$T-limits.txt"
n=0
while read -r name val; do
	grep -qE "^[[:space:]]*$name:[[:space:]]+$val$" "$info" ||
		fail "ibv_devinfo: $name is not $val"
	n=$((n + 1))
done < "$limits"
echo "limits compared: $n"
[ "$n" -ge 17 ] || fail "only $n limits in $limits"

# --- rdma resource show during an rping --------------------------------
knob "$DEV0" mpa_markers 1
slog="$RESULTS/$T-server.log" clog="$RESULTS/$T-client.log"
timeout 200 ip netns exec "$NS0" rping -s -a "$IP0" -C 100000 -S 64 \
	> "$slog" 2>&1 &
bg_pids=($!)
wait_listen "$NS0" "$RPING_PORT"
timeout 200 ip netns exec "$NS1" rping -c -a "$IP0" -C 100000 -S 64 \
	> "$clog" 2>&1 &
bg_pids+=($!)

# res_json OBJ: rdma -j -dd resource show OBJ, into $RESULTS/$T-OBJ.json
res_json() {
	timeout 10 rdma -j -dd resource show "$1" > "$RESULTS/$T-$1.json"
}

# res_check OBJ DEV KEY=VALUE...: some OBJ of DEV has every driver
# attribute KEY=VALUE (the JSON output prefixes their names with drv_)
res_check() {
	python3 - "$RESULTS/$T-$1.json" "$2" "${@:3}" <<'EOF'
import json, sys
path, dev, want = sys.argv[1], sys.argv[2], sys.argv[3:]
objs = [o for o in json.load(open(path)) if o.get("ifname") == dev]
ok = any(all(str(o.get("drv_" + k)) == v
             for k, v in (w.split("=", 1) for w in want)) for o in objs)
print(f"{dev}: {len(objs)} objects, {' '.join(want)}: {ok}")
sys.exit(0 if ok else 1)
EOF
}

seen=0
for _ in $(seq 60); do
	res_json qp
	if res_check qp "$DEV0" iwarp_state=RTS role=responder &&
	   res_check qp "$DEV1" iwarp_state=RTS role=initiator; then
		seen=1
		break
	fi
	sleep 0.2
done
[ "$seen" = 1 ] || fail "no connected QP in rdma resource show"

# res_max OBJ DEV KEY: the largest driver attribute KEY of DEV's OBJs
res_max() {
	python3 - "$RESULTS/$T-$1.json" "$2" "$3" <<'EOF'
import json, sys
path, dev, key = sys.argv[1:]
print(max([int(o["drv_" + key]) for o in json.load(open(path))
           if o.get("ifname") == dev and "drv_" + key in o] or [-1]))
EOF
}

# The transmitter's progress shows: the rping client's SQ work requests
# taken and its completions produced grow while it runs; its
# transmitter's state is one of the four documented.
taken0=$(res_max qp "$DEV1" sq_taken)
res_json cq
made0=$(res_max cq "$DEV1" produced)
sleep 1
res_json qp
taken1=$(res_max qp "$DEV1" sq_taken)
res_json cq
made1=$(res_max cq "$DEV1" produced)
echo "sq_taken $taken0 -> $taken1, cq produced $made0 -> $made1"
[ "$taken0" -ge 0 ] && [ "$taken1" -gt "$taken0" ] ||
	fail "sq_taken did not grow during the rping ($taken0 -> $taken1)"
[ "$made0" -ge 0 ] && [ "$made1" -gt "$made0" ] ||
	fail "no CQ's produced grew during the rping ($made0 -> $made1)"
job=$(res_max qp "$DEV1" tx_job)
[ "$job" -ge 0 ] && [ "$job" -le 3 ] || fail "tx_job $job out of 0..3"
res_json mr
tool_log_clean "$clog" || fail "rping client printed an error"
for p in "${bg_pids[@]}"; do
	kill "$p" 2>/dev/null || true
done
for p in "${bg_pids[@]}"; do
	wait "$p" 2>/dev/null || true
done
bg_pids=()
knobs_default
cat "$RESULTS/$T-qp.json"

# The server asked for Markers: it receives them, the client sends them.
# Peer-to-peer mode is the default; the initiator sends the RTR.
res_check qp "$DEV0" role=responder mpa_rev=2 crc_tx=1 crc_rx=1 \
	markers_tx=0 markers_rx=1 p2p=1 rtr=0 ||
	fail "server QP: wrong MPA attributes"
res_check qp "$DEV1" role=initiator mpa_rev=2 crc_tx=1 crc_rx=1 \
	markers_tx=1 markers_rx=0 p2p=1 rtr=1 ||
	fail "client QP: wrong MPA attributes"
python3 - "$RESULTS/$T-qp.json" <<'EOF' || fail "bad mulpdu or IRD/ORD"
import json, sys
qps = [o for o in json.load(open(sys.argv[1])) if o.get("drv_role")]
print([(o["ifname"], o["drv_mulpdu"], o["drv_ird"], o["drv_ord"]) for o in qps])
sys.exit(0 if len(qps) == 2 and
         all(128 <= o["drv_mulpdu"] <= 64768 and o["drv_ird"] >= 1 and
             o["drv_ord"] >= 1 for o in qps) else 1)
EOF
res_check cq "$DEV0" owner=user || fail "no user CQ listed"
res_check mr "$DEV0" kind=mr valid=1 || fail "no user MR listed"

# --- teardown -----------------------------------------------------------
netns_teardown
echo "PASS $T"
