#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Medians and ratios of `make bench`, and a gnuplot script for the plot.

Usage: summary.py bench.csv OUTDIR
bench.csv lines: rep,config,test,size,value,unit (value may be NA).
"""
import collections
import csv
import statistics
import sys

CONFIGS = ["sw-crc", "sw-nocrc", "sw-markers", "siw"]


def main():
    rows = list(csv.reader(open(sys.argv[1])))
    out = sys.argv[2]
    vals = collections.defaultdict(list)
    units = {}
    for rep, cfg, test, size, value, unit in rows:
        units[(test, size)] = unit
        # perftest prints 0.00 or inf when its cycle clock fails (TCG)
        if value not in ("NA", "inf", "nan", "-nan") and float(value) > 0:
            vals[(cfg, test, size)].append(float(value))
    med = {k: statistics.median(v) for k, v in vals.items()}
    tcp = med.get(("tcp", "iperf3", "0"))
    tests = sorted({(t, s) for (_, t, s) in med if t != "iperf3"},
                   key=lambda k: (k[0], int(k[1])))
    head = "%-12s %6s %-5s" % ("test", "size", "unit")
    head += "".join("%11s" % c for c in CONFIGS)
    head += "%10s%10s" % ("crc/siw", "crc/tcp")
    print(head)
    for t, s in tests:
        line = "%-12s %6s %-5s" % (t, s, units[(t, s)])
        for c in CONFIGS:
            v = med.get((c, t, s))
            line += "%11s" % ("%.2f" % v if v is not None else "NA")
        ours, siw = med.get(("sw-crc", t, s)), med.get(("siw", t, s))
        ratio = "NA"
        if ours and siw:
            # latency: lower is better, show siw/ours so > 1 means faster
            ratio = "%.2f" % ((siw / ours) if t.endswith("_lat")
                              else (ours / siw))
        line += "%10s" % ratio
        line += "%10s" % ("%.2f" % (ours / tcp) if ours and tcp
                          and not t.endswith("_lat") else "-")
        print(line)
    print("iperf3 (TCP over the same veth): %s MB/s"
          % ("%.2f" % tcp if tcp else "NA"))
    print("medians of up to %d repetitions (perftest runs whose clock "
          "failed are left out); ratios > 1 favour softiwarp"
          % max(len(v) for v in vals.values()))
    with open(out + "/bench.dat", "w") as f:
        for t, s in tests:
            if t.endswith("_lat"):
                continue
            f.write('"%s %s"' % (t.replace("ib_", "").replace("_bw", ""),
                                 "4K" if s == "4096" else "64K"))
            for c in CONFIGS:
                f.write(" %s" % med.get((c, t, s), 0))
            f.write("\n")
    with open(out + "/bench.gp", "w") as f:
        f.write('set terminal png size 1000,500\n')
        f.write('set output "%s/bench.png"\n' % out)
        f.write('set title "softiwarp vs siw, same VM boot (medians)"\n')
        f.write('set ylabel "MB/s"\nset style data histograms\n')
        f.write('set style fill solid\nset key top left\n')
        f.write('plot for [i=2:%d] "%s/bench.dat" using i:xtic(1) '
                'title columnheader(i)\n' % (len(CONFIGS) + 1, out))
    # gnuplot's columnheader needs a header line
    with open(out + "/bench.dat") as f:
        body = f.read()
    with open(out + "/bench.dat", "w") as f:
        f.write("test " + " ".join(CONFIGS) + "\n" + body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
