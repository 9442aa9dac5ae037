#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""iperf3's receiver total in MiB/s (perftest's MB/sec are MiB/s too)

Run by tools/guest/bench-scale.sh in the guest."""
import json, sys
d = json.load(open(sys.argv[1]))
if "error" in d:
    sys.exit("iperf3: " + d["error"])
print("%.2f" % (d["end"]["sum_received"]["bits_per_second"] / 8 / 1048576))
