#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check tshark's decode of the Atomic messages of 23-rfc7306-capture.

Usage: rfc7306-fields.py FIELDS.tsv PORT

FIELDS.tsv: one line per Atomic Request (RDMAP opcode 0xa) or Response
(0xb), as 23-rfc7306-capture.sh has tshark write them: frame, tcp.srcport,
iwarp_rdma.opcode, then the iwarp_rdma.atomic fields opcode,
request_identifier, remote_stag, remote_tagged_offset, add_data,
add_mask, swap_data, swap_mask, compare_data, compare_mask,
original_request_identifier, original_remote_data_value. Wireshark 4.0
prints some in decimal and some in hex; 64-bit values are compared as
integers here (awk's doubles would round them).

PORT is the responder's (the KUnit case's listener). The requests must
be those of kunit/cm_kunit.c's cmt_atomics[], in order, from the
initiator, with the MR's STag (key 0x7e) and a Tagged Offset 64 octets
into a page, and distinct Request Identifiers; the responses from PORT,
each naming its request's identifier and carrying the word's original
value. Prints what it found; exit status 1 on any difference.
"""
import sys

ONES = (1 << 64) - 1
# AOpCode, (Add or Swap Data, its Mask), (Compare Data, its Mask); the
# original value the response carries (cmt_atomics[] in cm_kunit.c)
WANT = [
    (0, (0x0101010101010101, 0), (0, ONES), 0x1122334455667788),
    (2, (0xcafef00dcafef00d, ONES), (0x1223344556677889, ONES),
     0x1223344556677889),
    (2, (0x600dbeef00000000, 0xffffffff00000000), (0xcafef00d, 0xffffffff),
     0xcafef00dcafef00d),
]
KEY = 0x7e
OFF = 64


def num(v):
    """A field's value as an int (decimal or 0x hex), None when empty."""
    v = v.strip()
    if not v:
        return None
    return int(v, 16) if v.lower().startswith("0x") else int(v)


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    port = int(sys.argv[2])
    reqs, resps, bad = [], [], []
    with open(sys.argv[1]) as f:
        for line in f:
            x = line.rstrip("\n").split("\t")
            if len(x) != 15:
                bad.append("a line of %d fields: %r" % (len(x), line))
                continue
            frame, src, op = x[0], int(x[1]), num(x[2])
            v = [num(y) for y in x[3:]]
            if op == 0xa:
                reqs.append((frame, src, v))
            elif op == 0xb:
                resps.append((frame, src, v))
    print("Atomic Requests %d, Responses %d" % (len(reqs), len(resps)))
    if len(reqs) != len(WANT) or len(resps) != len(WANT):
        bad.append("want %d of each" % len(WANT))
    ids = []
    for (frame, src, v), w in zip(reqs, WANT):
        aop, rid, stag, to, add, addm, swp, swpm, cmp, cmpm = v[:10]
        data = (add, addm) if w[0] == 0 else (swp, swpm)
        print("frame %s: AOpCode %s id %s STag %#x TO %#x data %s compare %s"
              % (frame, aop, rid, stag or 0, to or 0,
                 tuple("%#x" % (d or 0) for d in data),
                 tuple("%#x" % (d or 0) for d in (cmp, cmpm))))
        if src == port:
            bad.append("frame %s: a request from the responder" % frame)
        if (aop, data, (cmp, cmpm)) != w[:3]:
            bad.append("frame %s: not the operation posted" % frame)
        if stag is None or stag & 0xff != KEY or to is None or \
           to % 4096 != OFF:
            bad.append("frame %s: not the MR's word" % frame)
        ids.append(rid)
    if len(set(ids)) != len(ids):
        bad.append("Request Identifiers repeat: %s" % ids)
    for i, ((frame, src, v), w) in enumerate(zip(resps, WANT)):
        oid, orig = v[10], v[11]
        print("frame %s: original id %s value %#x" % (frame, oid, orig or 0))
        if src != port:
            bad.append("frame %s: a response from the initiator" % frame)
        if i >= len(ids) or oid != ids[i]:
            bad.append("frame %s: answers another request" % frame)
        if orig != w[3]:
            bad.append("frame %s: original value %#x, want %#x"
                       % (frame, orig or 0, w[3]))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
