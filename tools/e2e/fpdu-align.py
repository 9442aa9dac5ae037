#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Header Alignment of a captured MPA connection with Markers.

Usage: fpdu-align.py FIELDS MIN_FULL
FIELDS: tshark -T fields output, one frame per line, tab-separated:
tcp.stream, tcp.srcport, tcp.seq (relative), tcp.len, tcp.payload (hex).

Finds the connections that start with an MPA Request, rebuilds each
direction's byte stream, walks its FPDUs from the end of the Request or
Reply (Markers every 512 octets from there, RFC 5044 section 4.3; a
Marker right before an FPDU's header belongs to that FPDU) and checks
that every data segment of Full Operation starts with an FPDU or with an
FPDU's header (Header Alignment, section 5.1: what a sender sizing FPDUs
to the EMSS gets when each FPDU fills its segment). Fails when a segment
starts inside an FPDU, when a direction's stream does not end at an FPDU
boundary, when a direction lacks the M flag, or when fewer than MIN_FULL
segments of the largest size were seen in all (the test must have moved
bulk data). Prints one summary line per direction.
"""
import collections
import sys

REQ = bytes.fromhex("4d504120494420526571204672616d65")   # "MPA ID Req Frame"
REP = bytes.fromhex("4d504120494420526570204672616d65")   # "MPA ID Rep Frame"
MARKER_INTERVAL = 512


def read(path):
    """(stream, sport) -> list of (seq, payload) of data segments."""
    dirs = collections.defaultdict(list)
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 5 or not f[3] or int(f[3]) == 0:
            continue
        dirs[(f[0], f[1])].append((int(f[2]), bytes.fromhex(f[4])))
    return dirs


def stream_of(segs):
    """The direction's octets from relative sequence 1, retransmits merged."""
    buf = bytearray()
    for seq, data in sorted(segs):
        off = seq - 1
        if off > len(buf):
            raise SystemExit("gap in the capture at sequence %d" % seq)
        buf[off:off + len(data)] = data
    return bytes(buf)


def walk(buf, fo):
    """FPDU starts and header positions (stream offsets) from offset fo."""
    starts, hdrs = set(), set()
    pos = fo
    while pos < len(buf):
        starts.add(pos)
        cur = pos
        if (cur - fo) % MARKER_INTERVAL == 0:
            cur += 4
        hdrs.add(cur)
        if cur + 2 > len(buf):
            return starts, hdrs, False
        ulpdu = int.from_bytes(buf[cur:cur + 2], "big")
        need = 2 + ulpdu + (-(2 + ulpdu) % 4) + 4
        while need:
            if cur != pos and (cur - fo) % MARKER_INTERVAL == 0:
                cur += 4
            step = min(need, MARKER_INTERVAL - (cur - fo) % MARKER_INTERVAL)
            cur += step
            need -= step
        pos = cur
    return starts, hdrs, pos == len(buf)


def main():
    dirs = read(sys.argv[1])
    min_full = int(sys.argv[2])
    conns = sorted({k[0] for k, segs in dirs.items()
                    if any(s == 1 and d.startswith(REQ) for s, d in segs)})
    if not conns:
        raise SystemExit("no connection starts with an MPA Request")
    ok, full_all = True, 0
    for key in sorted(k for k in dirs if k[0] in conns):
        buf = stream_of(dirs[key])
        if not (buf.startswith(REQ) or buf.startswith(REP)):
            raise SystemExit("port %s: no MPA Request or Reply" % key[1])
        if not buf[16] & 0x80:
            raise SystemExit("port %s: M flag not set" % key[1])
        fo = 20 + int.from_bytes(buf[18:20], "big")
        starts, hdrs, whole = walk(buf, fo)
        segs = sorted({(s - 1, len(d)) for s, d in dirs[key] if s - 1 >= fo})
        biggest = max((n for _, n in segs), default=0)
        full = sum(n == biggest for _, n in segs)
        bad = [off for off, _ in segs if off not in starts and off not in hdrs]
        on_hdr = sum(off in hdrs and off not in starts for off, _ in segs)
        print("stream %s port %s: %d FPDUs, %d data segments (%d of %d "
              "octets), %d begin at a header after a Marker, %d inside an "
              "FPDU%s" % (key[0], key[1], len(starts), len(segs), full,
                          biggest, on_hdr, len(bad),
                          "" if whole else ", stream ends inside an FPDU"))
        for off in bad[:5]:
            print("  segment at offset %d begins inside an FPDU" % (off - fo))
        ok = ok and whole and not bad
        full_all += full
    if full_all < min_full:
        print("only %d full-sized segments, expected at least %d"
              % (full_all, min_full))
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
