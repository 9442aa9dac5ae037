#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""FPDU sizes and Header Alignment of captured MPA connections.

Usage: fpdu-align.py FIELDS MIN_FULL
FIELDS: tshark -T fields output, one frame per line, tab-separated:
tcp.stream, tcp.srcport, tcp.seq (relative), tcp.len, tcp.payload (hex),
tcp.options.mss_val, tcp.options.timestamp.tsval.

Finds the connections that start with an MPA Request, rebuilds each
direction's byte stream and walks its FPDUs from the end of the Request or
Reply (with Markers, when the receiving side asked for them: every 512
octets from there, RFC 5044 section 4.3; a Marker right before an FPDU's
header belongs to that FPDU). The sender's EMSS is the MSS the receiver
announced in its SYN less the timestamp option (12 octets) when the SYN
carried one. Fails

  - when a data segment of Full Operation starts inside an FPDU (Header
    Alignment, section 5.1) or a direction's stream ends inside one;
  - when a segment exceeds the EMSS (section 5.1: an FPDU no larger than
    it), or the largest segments are not of EMSS - EMSS mod 4 octets
    (MULPDU taken from the EMSS, sections 4.5 and 5.1);
  - when the header of an FPDU that is not the last of its DDP message
    (DDP L bit clear) lies in a segment shorter than that: the sender
    made such FPDUs no smaller than the EMSS allows (section 4.5, "as
    large as possible");
  - when a segment that holds several FPDUs (section 5.1 lets a sender
    pack them) ends inside one;
  - when fewer than MIN_FULL FPDUs of a multi-FPDU message were seen in
    all (the test must have moved bulk data).

Prints one summary line per direction.
"""
import collections
import sys

REQ = bytes.fromhex("4d504120494420526571204672616d65")   # "MPA ID Req Frame"
REP = bytes.fromhex("4d504120494420526570204672616d65")   # "MPA ID Rep Frame"
MARKER_INTERVAL = 512
TS_OPTION = 12          # the timestamp option, padded, in every segment


def read(path):
    """(stream, sport) -> data segments [(seq, payload)], and the MSS
    announced in each direction's SYN, less the timestamp option."""
    dirs = collections.defaultdict(list)
    mss = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t") + [""] * 7
        if not f[0]:
            continue
        if f[5]:
            mss[(f[0], f[1])] = int(f[5]) - (TS_OPTION if f[6] else 0)
        if not f[3] or int(f[3]) == 0:
            continue
        dirs[(f[0], f[1])].append((int(f[2]), bytes.fromhex(f[4])))
    return dirs, mss


def stream_of(segs):
    """The direction's octets from relative sequence 1, retransmits merged."""
    buf = bytearray()
    for seq, data in sorted(segs):
        off = seq - 1
        if off > len(buf):
            raise SystemExit("gap in the capture at sequence %d" % seq)
        buf[off:off + len(data)] = data
    return bytes(buf)


class Walk:
    """The FPDUs of one direction: starts, header positions, whether each
    is the last of its DDP message, and whether the stream ends whole."""

    def __init__(self, buf, fo, markers):
        self.buf, self.fo, self.markers = buf, fo, markers
        self.starts, self.hdrs, self.middle = set(), set(), set()
        self.whole = self.run()

    def is_marker(self, pos):
        return self.markers and (pos - self.fo) % MARKER_INTERVAL == 0

    def octet(self, hdr, k):
        """Stream position of the FPDU's k-th octet from its header."""
        pos = hdr
        for _ in range(k):
            pos += 1
            if self.is_marker(pos):
                pos += 4
        return pos

    def run(self):
        buf, pos = self.buf, self.fo
        while pos < len(buf):
            self.starts.add(pos)
            cur = pos + 4 if self.is_marker(pos) else pos
            self.hdrs.add(cur)
            ctl = self.octet(cur, 2)
            if ctl >= len(buf):
                return False
            ulpdu = int.from_bytes(buf[cur:cur + 2], "big")
            if not buf[ctl] & 0x40:     # DDP L: the last of its message
                self.middle.add(cur)
            need = 2 + ulpdu + (-(2 + ulpdu) % 4) + 4
            while need:
                if cur != pos and self.is_marker(cur):
                    cur += 4
                step = need
                if self.markers:
                    step = min(need, MARKER_INTERVAL -
                               (cur - self.fo) % MARKER_INTERVAL)
                cur += step
                need -= step
            pos = cur
        return pos == len(buf)


def check_dir(key, buf, segs, emss, markers):
    """Check one direction; return (ok, middle FPDUs seen)."""
    fo = 20 + int.from_bytes(buf[18:20], "big")
    w = Walk(buf, fo, markers)
    segs = sorted({(s - 1, len(d)) for s, d in segs if s - 1 >= fo})
    span = emss - emss % 4
    bounds = w.starts | w.hdrs | {len(buf)}
    biggest = max((n for _, n in segs), default=0)
    bad = [off for off, _ in segs if off not in bounds]
    cut = [off for off, n in segs if off + n not in bounds]
    over = [off for off, n in segs if n > emss]
    packed = sum(len([h for h in w.hdrs if off <= h < off + n]) > 1
                 for off, n in segs)
    short, middle = [], 0
    for off, n in segs:
        mids = [h for h in w.middle if off <= h < off + n]
        middle += len(mids)
        if mids and n != span:
            short.append((off, n))
    on_hdr = sum(off in w.hdrs and off not in w.starts for off, _ in segs)
    print("stream %s port %s: Markers %s, EMSS %d, %d FPDUs (%d not the last "
          "of their message), %d data segments (largest %d octets), %d begin "
          "at a header after a Marker, %d hold several FPDUs; %d begin and "
          "%d end inside an FPDU, %d over EMSS, %d short with a message's "
          "FPDU%s"
          % (key[0], key[1], "on" if markers else "off", emss, len(w.starts),
             len(w.middle), len(segs), biggest, on_hdr, packed, len(bad),
             len(cut), len(over), len(short),
             "" if w.whole else ", stream ends inside an FPDU"))
    for off in bad[:5]:
        print("  segment at offset %d begins inside an FPDU" % (off - fo))
    for off in cut[:5]:
        print("  segment at offset %d ends inside an FPDU" % (off - fo))
    for off, n in short[:5]:
        print("  segment at offset %d: %d octets, %d expected"
              % (off - fo, n, span))
    ok = w.whole and not bad and not cut and not over and not short
    if segs and biggest != span:
        print("  largest segment %d octets, EMSS %d makes FPDUs of %d"
              % (biggest, emss, span))
        ok = False
    return ok, middle


def main():
    dirs, mss = read(sys.argv[1])
    min_full = int(sys.argv[2])
    conns = sorted({k[0] for k, segs in dirs.items()
                    if any(s == 1 and d.startswith(REQ) for s, d in segs)})
    if not conns:
        raise SystemExit("no connection starts with an MPA Request")
    ok, middle_all = True, 0
    for key in sorted(k for k in dirs if k[0] in conns):
        peer = [k for k in dirs if k[0] == key[0] and k != key]
        buf = stream_of(dirs[key])
        if not (buf.startswith(REQ) or buf.startswith(REP)) or len(peer) != 1:
            raise SystemExit("port %s: no MPA Request or Reply" % key[1])
        pbuf = stream_of(dirs[peer[0]])
        if peer[0] not in mss:
            raise SystemExit("stream %s: no MSS in the SYN of port %s"
                             % (key[0], peer[0][1]))
        # Markers towards the side that asked for them (section 7.1.1)
        good, middle = check_dir(key, buf, dirs[key], mss[peer[0]],
                                 bool(pbuf[16] & 0x80))
        ok = ok and good
        middle_all += middle
    if middle_all < min_full:
        print("only %d FPDUs of multi-FPDU messages, expected at least %d"
              % (middle_all, min_full))
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
