#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fairness.py FIELD N SAMPLES [JSON]: the spread over N data connections of
FIELD's growth (bytes_acked, bytes_received) in the middle half of the
run, from the sampler's SAMPLES. The run: from the start of the first
interval between two samples in which a connection moved 64 KiB or
more (one message; setting up, perftest's exchanges and tearing down
move less) to the end of the last; its middle half: the samples inside
it nearest to 1/4 and 3/4 of it. Data connections: those not in the
first sample; with iperf3's JSON, its streams (not its control
connection); else (perftest: one connection more than QPs, its rdma_cm
exchange of parameters, idle while the run goes on) all but the one
that moved least in all (a QP moves 64 KiB messages). Ends with
"fairness min/max M jain J", else "no figure: WHY".

Run by tools/guest/bench-scale.sh in the guest."""
import json, re, sys

field, n = sys.argv[1], int(sys.argv[2])
ports = None
if len(sys.argv) > 4:
    d = json.load(open(sys.argv[4]))
    ports = {c["local_port"] for c in d["start"]["connected"]}


def fail(why):
    print("no figure: " + why)
    sys.exit(1)


samples, t, cur, key = [], None, {}, None
for line in open(sys.argv[3]):
    if line.startswith("# time "):
        t, cur, key = float(line.split()[2]), {}, None
    elif line.startswith("# end"):
        samples.append((t, cur))
    elif line.strip() and not line[0].isspace():
        w = line.split()
        key = (w[-2], w[-1])
        cur[key] = 0
    elif key is not None:
        m = re.search(r"\b" + field + r":(\d+)", line)
        if m:
            cur[key] = int(m.group(1))
if len(samples) < 4:
    fail("%d samples" % len(samples))
stale = set(samples[0][1])
ts = [x - samples[0][0] for x, _ in samples]
busy, most = [], 0
for i in range(1, len(samples)):
    p, c = samples[i - 1][1], samples[i][1]
    g = [c[k] - p[k] for k in c if k in p and k not in stale]
    if g and max(g) >= 65536:
        busy.append(i)
        most = max(most, sum(g) / max(ts[i] - ts[i - 1], 1e-6))
if not busy:
    fail("no connection moved 64 KiB between two samples")
ia, ie = busy[0] - 1, busy[-1]
a, e = ts[ia], ts[ie]
i1 = min(range(ia + 1, ie), key=lambda i: abs(ts[i] - a - (e - a) / 4),
         default=None)
i2 = min(range(ia + 1, ie), key=lambda i: abs(ts[i] - a - 3 * (e - a) / 4),
         default=None)
print("%d samples; the run from %.2f to %.2f s (%.2f MiB/s at most)"
      % (len(samples), a, e, most / 2**20))
if i1 is None or i2 <= i1:
    fail("no two samples inside the run")
(t1, s1), (t2, s2) = samples[i1], samples[i2]
dt = t2 - t1
print("window: samples %d and %d, %.2f to %.2f s" % (i1, i2, ts[i1], ts[i2]))
conns = [k for k in s2 if k in s1 and k not in stale]
if ports is not None:
    conns = [k for k in conns if int(k[0].rsplit(":", 1)[1]) in ports]
if ports is None and len(conns) == n + 1:
    k = min(conns, key=lambda k: (s2[k], k))
    conns.remove(k)
    print("left out, perftest own (its rdma_cm exchange): %s -> %s "
          "(%d octets in the window, %d in all)"
          % (k[0], k[1], s2[k] - s1[k], s2[k]))
got = sorted((s2[k] - s1[k], k) for k in conns)
for v, k in got:
    print("%s -> %s: %d octets, %.2f MiB/s (%d in all)"
          % (k[0], k[1], v, v / dt / 2**20, s2[k]))
if len(got) != n:
    fail("%d connections, not %d" % (len(got), n))
x = [v for v, _ in got]
if x[-1] <= 0:
    fail("no octets moved in the window")
print("%d connections, %.2f s: %.2f MiB/s in all, %.2f to %.2f each"
      % (n, dt, sum(x) / dt / 2**20, x[0] / dt / 2**20, x[-1] / dt / 2**20))
print("fairness min/max %.3f jain %.3f"
      % (x[0] / x[-1], sum(x) ** 2 / (n * sum(v * v for v in x))))
