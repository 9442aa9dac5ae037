#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Medians and ratios of `make bench`, and a gnuplot script for the plot.

Usage: summary.py bench.csv OUTDIR
bench.csv lines: rep,config,test,size,value,unit (value may be NA); a
test is a perftest name, with /D for duration mode and /e for completion
events, and /2h when each end had a CPU of its own (the two-host
placement of tools/guest/bench.sh; TCP's figures are iperf3/2h,
tcp_lat/2h and tcp_spin/2h there); the two placements get a table each.
Ratios are taken between medians of the same boot: softiwarp with
CRC against siw, softiwarp without CRC against siw (like for like: siw
does not ask for CRC by default, mpa_crc_required=N), softiwarp with CRC
against TCP over the same kind of veth (iperf3 for a bandwidth; for a
latency, 64 B one way, tcp-pingpong's spinning sockets against busy
polling and qperf's blocking tcp_lat against -e), CRC off against TCP,
Markers against CRC alone, and CRC by the crypto API's preferred
crc32c (sw-pref, crc32c_driver=crc32c: 64 KiB and latency only) against
siw and iperf3 (sw-crc uses the implementation timed fastest at load),
and, when make bench ran with BENCH_BASE, CRC on against the module of
that commit (crc/base; sw-base: 64 KiB and latency only). For a latency, the ratio
is ours/theirs (lower is better); for a bandwidth it is ours/theirs
(higher is better). Tests named .../kcpu/2h (unit ms/GB) are the kernel's
CPU time per GB of a two-host duration run, compared with iperf3's; their
ratios are ours/theirs too, lower is better, and they are not plotted.
"""
import collections
import csv
import statistics
import sys

CONFIGS = ["sw-crc", "sw-nocrc", "sw-markers", "sw-pref", "siw"]
RATIOS = [("crc/siw", "sw-crc", "siw"), ("nocrc/siw", "sw-nocrc", "siw"),
          ("crc/tcp", "sw-crc", "tcp"), ("nocrc/tcp", "sw-nocrc", "tcp"),
          ("mk/crc", "sw-markers", "sw-crc"), ("pref/siw", "sw-pref", "siw"),
          ("pref/tcp", "sw-pref", "tcp")]
PLOTTED = 3     # the first three ratios are plotted
# configurations run for some tests only: "-" elsewhere, not "NA"
PARTIAL = ("sw-pref", "sw-base")


def medians(path):
    """(config, test, size) -> median, and (test, size) -> unit."""
    vals = collections.defaultdict(list)
    units = {}
    for rep, cfg, test, size, value, unit in csv.reader(open(path)):
        units[(test, size)] = unit
        if value not in ("NA", "inf", "nan", "-nan") and float(value) > 0:
            vals[(cfg, test, size)].append(float(value))
    reps = max((len(v) for v in vals.values()), default=0)
    return {k: statistics.median(v) for k, v in vals.items()}, units, reps


def tcp_kind(test):
    """TCP's figure a test compares with: iperf3, tcp_spin or tcp_lat."""
    if "/kcpu" in test:
        return "iperf3/kcpu"
    if not test.startswith("ib_send_lat"):
        return "iperf3"
    return "tcp_lat" if "/e" in test else "tcp_spin"


def two_hosts(test):
    """Whether a test ran in the two-host placement."""
    return test.endswith("/2h")


def ratio(med, tcp, name, a, b, test, size):
    """One ratio as text, or '-' where it means nothing."""
    x = med.get((a, test, size))
    y = tcp[tcp_kind(test), two_hosts(test)] if b == "tcp" else \
        med.get((b, test, size))
    if (a in PARTIAL and x is None) or (b in PARTIAL and y is None):
        return "-"
    return "%.2f" % (x / y) if x and y else "NA"


def table(med, units, tcp, tests):
    """Print the table; return the rows of ratios for the plot."""
    head = "%-21s %7s %-5s" % ("test", "size", "unit")
    head += "".join("%11s" % c for c in CONFIGS)
    head += "".join("%10s" % r[0] for r in RATIOS)
    print(head)
    plot = []
    for t, s in tests:
        line = "%-21s %7s %-5s" % (t, s, units[(t, s)])
        for c in CONFIGS:
            v = med.get((c, t, s))
            line += "%11s" % ("%.2f" % v if v is not None else
                              "-" if c in PARTIAL else "NA")
        rs = [ratio(med, tcp, *r, t, s) for r in RATIOS]
        line += "".join("%10s" % r for r in rs)
        print(line)
        if not t.startswith("ib_send_lat") and "/kcpu" not in t:
            name = t.replace("ib_", "").replace("_bw", "").replace("/2h", "")
            plot.append(("%s %s%s" % (name, size_name(s),
                                      " 2h" if two_hosts(t) else ""),
                         rs[:PLOTTED]))
    return plot


def size_name(s):
    """4096 -> 4K, 65536 -> 64K, 1048576 -> 1M."""
    n = int(s)
    return "%dM" % (n >> 20) if n >= 1 << 20 else "%dK" % (n >> 10)


def write_plot(out, plot):
    """bench.dat and bench.gp: the plotted ratios per bandwidth test, those
    with a figure (BENCH_CONFIGS may leave siw out)."""
    cols = [i for i in range(PLOTTED) if any(rs[i] != "NA" for _, rs in plot)]
    with open(out + "/bench.dat", "w") as f:
        f.write("test %s\n" % " ".join(RATIOS[i][0] for i in cols))
        for name, rs in plot:
            f.write('"%s" %s\n' % (name, " ".join(
                rs[i] if rs[i] != "NA" else "NaN" for i in cols)))
    with open(out + "/bench.gp", "w") as f:
        f.write('set terminal png size 1200,500\n')
        f.write('set output "%s/bench.png"\n' % out)
        f.write('set title "softiwarp against siw (CRC on and off; siw runs'
                ' without) and against TCP, same VM boot (ratios of medians)"\n')
        f.write('set ylabel "ratio"\nset logscale y\nset style data histograms\n')
        f.write('set style fill solid\nset key top left\nset xtics rotate\n')
        f.write('plot for [i=2:%d] "%s/bench.dat" using i:xtic(1) '
                'title columnheader(i)\n' % (len(cols) + 1, out))


def main():
    med, units, reps = medians(sys.argv[1])
    if any(c == "sw-base" for (c, t, s) in med):
        CONFIGS.insert(1, "sw-base")
        RATIOS.append(("crc/base", "sw-crc", "sw-base"))
    # TCP's figures, by (kind, two hosts)
    tcp = {(name, two): med.get(("tcp", name + ("/2h" if two else ""), size))
           for name, size in (("iperf3", "0"), ("tcp_lat", "64"),
                              ("tcp_spin", "64"), ("iperf3/kcpu", "0"))
           for two in (False, True)}
    tests = sorted({(t, s) for (c, t, s) in med if c != "tcp"},
                   key=lambda k: (k[0].split("/")[0], int(k[1]), k[0]))
    plot = []
    for two, title in ((False, "one CPU: each veth's receiver runs in its "
                               "sender's softirq"),
                       (True, "two hosts (/2h): each end, its process and "
                              "its receive softirq on a CPU of its own")):
        some = [k for k in tests if two_hosts(k[0]) == two]
        if not some:
            continue
        print("%s%s" % ("\n" if two else "", title))
        plot += table(med, units, tcp, some)
        tag = " (two hosts)" if two else ""
        for name, what, unit in (
                ("iperf3", "iperf3 (TCP over the same veth)", "MB/s"),
                ("tcp_spin", "tcp-pingpong (TCP, spinning, 64 B one way; "
                 "against busy polling)", "usec"),
                ("tcp_lat", "qperf tcp_lat (TCP, blocking, 64 B one way; "
                 "against -e)", "usec"),
                ("iperf3/kcpu", "iperf3's kernel CPU per GB", "ms/GB")):
            if name == "iperf3/kcpu" and not two:
                continue
            v = tcp[name, two]
            print("%s%s: %s %s" % (what, tag, "%.2f" % v if v else "NA",
                                   unit))
    print("medians of up to %d repetitions (perftest runs whose clock failed "
          "are left out); latency and CPU (ms/GB) ratios: lower is better, "
          "bandwidth ratios: "
          "higher is better" % reps)
    if any(r != "NA" for _, rs in plot for r in rs[:PLOTTED]):
        write_plot(sys.argv[2], plot)
    else:
        print("nothing to plot: no ratio to siw or TCP was measured "
              "(BENCH_CONFIGS)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
