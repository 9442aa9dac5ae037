#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of `make bench-scale`, and a gnuplot script for its plot.

Usage: scale-summary.py scale.csv OUTDIR

scale.csv lines (tools/guest/bench-scale.sh): metric,driver,value,unit,log
with driver sw (softiwarp), siw or tcp; value a number, yes, FAILED or NA
(none); log the file, under OUTDIR, that says how the figure was taken or
why there is none ("not run": the guest never got there). The guest
writes every planned line NA first: the last line of a metric and driver
counts, the first gives the order of the rows.

Prints one table: a row per measurement, columns softiwarp, siw, TCP,
softiwarp/siw and softiwarp/TCP. TCP's figure of a perftest bandwidth
with q QPs is iperf3's with as many streams ("iperf3 P=q", not a row of
its own); so is that of a fairness row ("TEST q=N fairness": the
smallest over the largest of the octets each connection moved in the
middle half of the run, 1 when even; "iperf3 P=N fairness"). Latency
rows are followed by their ratio under load to alone.
A missing figure prints as "n/a (see log N)", a hold that did not work as
"FAILED (see log N)"; the logs are listed under the table. Ratios are
softiwarp's figure over the other's: higher is better for MiB/s and
min/max, lower for the times and the memory. Writes OUTDIR/scale.dat and
OUTDIR/scale.gp (aggregate bandwidth against the number of QPs; `gnuplot
scale.gp` makes OUTDIR/scale.png) when there is a bandwidth to plot.

Exit status 1 when a figure of softiwarp's is missing, a hold of its
FAILED or its QPs were left at the end, else 0: siw's and TCP's missing
figures (siw's own limits fail its bigger holds and connection counts)
are results, printed as such and counted under the table, not failures
of the run.
"""
import collections
import csv
import math
import re
import sys

DRIVERS = ("sw", "siw", "tcp")
BW_TESTS = ("ib_write_bw", "ib_send_bw", "ib_read_bw")
NO_RATIO = ("max_qp (device)", "QPs left at the end")
HEAD = ("softiwarp", "siw", "TCP", "sw/siw", "sw/TCP")


def number(v):
    """v as a float, or None when it is no (finite) number."""
    try:
        f = float(v)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def read(path):
    """(metric, driver) -> (value, unit, log), and the metrics in order."""
    got = {}
    order = []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) != 5:
                print("scale-summary: bad line %r" % (row,), file=sys.stderr)
                continue
            metric, drv, value, unit, log = row
            if metric not in order:
                order.append(metric)
            got[(metric, drv)] = (value, unit, log)
    return got, order


class Cells:
    """Text of the cells; numbers the logs of the missing ones."""

    def __init__(self):
        self.logs = []
        self.bad = 0
        self.others = 0

    def see(self, what, log, ours):
        """'WHAT (see log N)', a failure when @ours (softiwarp's)."""
        if ours:
            self.bad += 1
        else:
            self.others += 1
        if log == "not run":
            return "%s (not run)" % what
        if log not in self.logs:
            self.logs.append(log)
        return "%s (see log %d)" % (what, self.logs.index(log) + 1)

    def value(self, entry, ours):
        """The cell of one (value, unit, log), or '-' for no entry."""
        if entry is None:
            return "-"
        value, unit, log = entry
        if value in ("NA", ""):
            return self.see("n/a", log, ours)
        if value == "FAILED":
            return self.see("FAILED", log, ours)
        f = number(value)
        if f is None:
            return value
        return "%d" % f if unit == "QPs" else "%.2f" % f


def ratio(a, b):
    """a/b of two entries as text, '-' when either is no number."""
    x = number(a[0]) if a else None
    y = number(b[0]) if b else None
    return "%.2f" % (x / y) if x is not None and y else "-"


def tcp_for(metric):
    """The iperf3 metric a perftest bandwidth or fairness row compares
    with."""
    m = re.fullmatch(r"ib_\w+_bw q=(\d+)( fairness)?", metric)
    return "iperf3 P=%s%s" % (m.group(1), m.group(2) or "") if m else None


def rows(got, order):
    """(label, unit, sw, siw, tcp) entries, derived rows included."""
    out = []
    for metric in order:
        if metric.startswith("iperf3 P="):
            continue        # TCP's column of the bandwidth rows
        e = {d: got.get((metric, d)) for d in DRIVERS}
        if e["tcp"] is None and tcp_for(metric):
            e["tcp"] = got.get((tcp_for(metric), "tcp"))
        unit = next((x[1] for x in e.values() if x), "")
        out.append((metric, unit, e["sw"], e["siw"], e["tcp"]))
        if metric.startswith("ib_send_lat") and metric.endswith("under load"):
            alone = metric.replace("under load", "alone")
            d = {}
            for drv in ("sw", "siw"):
                a, b = got.get((metric, drv)), got.get((alone, drv))
                r = ratio(a, b)
                d[drv] = (r, "x", "") if r != "-" else None
            out.append((metric.replace("under load", "load/alone"), "x",
                        d["sw"], d["siw"], None))
    return out


def table(got, order):
    """Print the table; return the number of failures."""
    cells = Cells()
    lines = []
    for label, unit, sw, siw, tcp in rows(got, order):
        # a derived ratio missing its inputs is not a failure of its own
        vals = [cells.value(x, drv == "sw")
                if x is None or x[2] != "" else x[0]
                for x, drv in zip((sw, siw, tcp), DRIVERS)]
        if label in NO_RATIO:
            rs = ["-", "-"]
        else:
            rs = [ratio(sw, siw), ratio(sw, tcp)]
        lines.append([label, unit] + vals + rs)
    w = [max(len(x[i]) for x in lines + [["measurement", "unit"] +
                                         list(HEAD)])
         for i in range(7)]
    fmt = "%-*s %-*s" + " %*s" * 5
    print(fmt % tuple(v for p in zip(w, ["measurement", "unit"] +
                                     list(HEAD)) for v in p))
    for x in lines:
        print(fmt % tuple(v for p in zip(w, x) for v in p))
    left = [number(got.get(("QPs left at the end", d), ("",))[0])
            for d in ("sw", "siw")]
    cells.bad += 1 if left[0] else 0
    cells.others += 1 if left[1] else 0
    print("\nratios: softiwarp's figure over siw's or TCP's; higher is "
          "better for MiB/s and min/max, lower for usec, us/conn, ms and "
          "KiB/conn; x rows: under load over alone, per driver")
    print("TCP: iperf3 over the softiwarp veth with as many streams as "
          "QPs; MiB/s as perftest's (2^20 octets)")
    print("fairness (min/max): the octets each connection (QP, TCP "
          "stream) moved between about 1/4 and 3/4 of the run (its TCP "
          "socket's tcp_info, as ss -ti shows it); the smallest over the "
          "largest, 1 when even (the issue asks 0.8); Jain's index and "
          "each connection in logs/*.fair.log")
    print("memory: growth of the kernel's slab and vmalloc per connection "
          "(both ends in this kernel), single runs; one boot, one run per "
          "figure: compare ratios, not absolute figures")
    for i, log in enumerate(cells.logs):
        print("log %d: %s" % (i + 1, log))
    if cells.others:
        print("siw and TCP: %d figure(s) missing or failed (results, not "
              "failures of this run)" % cells.others)
    return cells.bad


def write_plot(out, got, order):
    """scale.dat and scale.gp: MiB/s against QPs per driver and test."""
    qs = sorted({int(m.split("=")[1]) for m in order
                 if re.fullmatch(r"ib_\w+_bw q=\d+", m)})
    cols = [(d, t) for d in ("sw", "siw") for t in BW_TESTS]
    if not qs:
        return False

    def fig(key):
        e = got.get(key)
        f = number(e[0]) if e else None
        return "%.2f" % f if f is not None else "NaN"
    with open(out + "/scale.dat", "w") as f:
        f.write("qps %s tcp\n" % " ".join(
            "%s-%s" % (d, t.replace("ib_", "").replace("_bw", ""))
            for d, t in cols))
        for q in qs:
            f.write("%d %s %s\n" % (q, " ".join(
                fig(("%s q=%d" % (t, q), d)) for d, t in cols),
                fig(("iperf3 P=%d" % q, "tcp"))))
    names = ["softiwarp write", "softiwarp send", "softiwarp read",
             "siw write", "siw send", "siw read", "TCP (iperf3 -P)"]
    with open(out + "/scale.gp", "w") as f:
        f.write('set terminal png size 1000,600\n')
        f.write('set output "%s/scale.png"\n' % out)
        f.write('set title "aggregate bandwidth against QPs (TCP: '
                'streams), 64 KiB, one VM boot under TCG"\n')
        f.write('set xlabel "QPs"\nset ylabel "MiB/s"\n')
        f.write('set logscale x 2\nset logscale y\nset key outside right\n')
        f.write('set style data linespoints\n')
        # softiwarp solid, siw dashed, TCP thick
        style = ["dt 1"] * 3 + ["dt 2"] * 3 + ["lw 2"]
        f.write('plot %s\n' % ", ".join(
            '"%s/scale.dat" using 1:%d title "%s" %s' % (out, i + 2, n, st)
            for i, (n, st) in enumerate(zip(names, style))))
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    got, order = read(sys.argv[1])
    bad = table(got, order)
    if not write_plot(sys.argv[2], got, order):
        print("nothing to plot: no bandwidth row")
    if bad:
        print("bench-scale: %d figure(s) of softiwarp missing or failed"
              % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
