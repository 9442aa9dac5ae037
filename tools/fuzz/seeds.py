#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seed inputs of the fuzz targets (tools/fuzz/targets/*.c), written from
what the hostile peer sends (tools/mpa-peer/mpawire.py: Requests and
Replies of every revision, FPDUs with CRC and Markers, DDP and RDMAP
headers, Terminates) in each target's input layout (the comment at the
top of its file).

Usage: seeds.py DIR    writes DIR/TARGET/NAME for every target
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'mpa-peer'))
import mpawire as w  # noqa: E402

RPCRDMA = struct.pack('>IBBBB', 0xf6ab0e18, 1, 1, 3, 3)


def segs():
    """DDP segments as the peer sends them: (name, header + payload)."""
    pay = bytes(range(64))
    return [
        ('send', w.untagged_hdr(3, 0, 1) + pay),
        ('send-mid', w.untagged_hdr(3, 0, 1, mo=512, last=False) + pay),
        ('write', w.tagged_hdr(0, 0x1234, 0x1000) + pay),
        ('rresp', w.tagged_hdr(2, 0x4321, 0x2000) + pay),
        ('rreq', w.untagged_hdr(1, 1, 1) +
         w.read_req(0x100, 0x1000, 4096, 0x200, 0x2000)),
        ('term', w.untagged_hdr(7, 2, 1) +
         w.terminate_payload(1, 1, 0, w.untagged_hdr(3, 0, 7), 82)),
        ('rdmac-send', w.untagged_hdr(3, 0, 1, dv=0, rv=0) + pay),
    ]


def deframe(out):
    """raw streams from our peer's MpaTx and frame-mode ULPDU lists."""
    for markers in (False, True):
        for crc in (False, True):
            tx = w.MpaTx(crc=crc, markers=markers)
            stream = b''.join(tx.fpdu(s) for _, s in segs())
            flags = markers | crc << 1
            cuts = [7, 500, 513, 3]
            head = bytes([flags, 0, 0xff, 0xff, len(cuts)]) + \
                b''.join(struct.pack('>H', c) for c in cuts)
            out('raw-m%d-c%d' % (markers, crc), head + stream)
            out('raw-m%d-c%d-frags' % (markers, crc),
                bytes([flags | 4]) + head[1:] + stream)
            tx = w.MpaTx(crc=crc, markers=markers)
            out('badcrc-m%d-c%d' % (markers, crc),
                head + tx.fpdu(segs()[0][1]) +
                tx.fpdu(segs()[2][1], bad_crc=True))
            body = b''.join(struct.pack('>H', len(s)) + s for _, s in segs())
            out('frame-m%d-c%d' % (markers, crc),
                bytes([flags | 8]) + head[1:] + body)
            out('frame-m%d-c%d-flip' % (markers, crc),
                bytes([flags | 8 | 4]) + head[1:] + body + b'\x00\x30\x01')
            big = struct.pack('>H', 3000) + bytes(3000)
            out('frame-m%d-c%d-big' % (markers, crc),
                bytes([flags | 8 | 0x10]) + head[1:] + big)


def startup(out):
    """Requests and Replies of every revision, kind and role."""
    pols = bytes([2, 3, 7, 0, 8, 0, 8, 0, 0, 0])
    frames = [
        ('req-r1', w.KEY_REQ, w.mpa_frame(w.KEY_REQ, rev=1)),
        ('req-r1-m', w.KEY_REQ, w.mpa_frame(w.KEY_REQ, m=True, rev=1,
                                            pdata=b'hello')),
        ('req-r0', w.KEY_REQ, w.mpa_frame(w.KEY_REQ, m=True, rev=0,
                                          pdata=bytes(600))),
        ('req-r2', w.KEY_REQ, w.mpa_frame(
            w.KEY_REQ, rev=2, h=True,
            pdata=w.enhanced(8, 8, p2p=True, write_rtr=True) + RPCRDMA)),
        ('rep-r2', w.KEY_REP, w.mpa_frame(
            w.KEY_REP, rev=2, h=True,
            pdata=w.enhanced(4, 4, p2p=True, read_rtr=True))),
        ('rep-r1-rej', w.KEY_REP, w.mpa_frame(w.KEY_REP, r=True, rev=1,
                                              pdata=b'no')),
        ('rep-r2-max', w.KEY_REP, w.mpa_frame(
            w.KEY_REP, rev=2, h=True, pdata=w.enhanced(0x3FFF, 0x3FFF))),
    ]
    for name, key, f in frames:
        kind = 1 if key == w.KEY_REP else 0
        for role in (0, 2):
            out('%s-%d' % (name, role), bytes([kind | role]) + pols + f)


def ddp(out):
    """segments behind a receiver state that expects them; RFC 7306's
    messages (Figures 4, 6, 7) behind one that accepts them (octet 0 bit 2)
    and one that does not."""
    state = bytes([0, 5, 0, 0, 0, 1, 0, 1, 4, 4, 4, 0, 0, 0, 0x40, 0x40,
                   0x40, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 64])
    for name, s in segs():
        out(name, state + s)
    # AOpCode, Request Identifier, STag, TO, data, mask, compare, its mask
    areq = struct.pack('>IIIQQQQQ', 0, 0x77, 0x1234, 0x1000, 5, 0, 7,
                       2**64 - 1)
    ext = [
        ('imm', w.untagged_hdr(8, 0, 1) + bytes([0x8b, 0xad, 0xf0, 0x0d]) +
         bytes(4)),
        ('imm-se', w.untagged_hdr(9, 0, 1) + bytes(range(8))),
        ('atomic-req', w.untagged_hdr(10, 1, 1) + areq),
        ('atomic-cmpswap', w.untagged_hdr(10, 1, 1) + b'\x00\x00\x00\x02' +
         areq[4:]),
        ('atomic-resp', w.untagged_hdr(11, 3, 1) +
         struct.pack('>IQ', 0x77, 0x1122334455667788)),
    ]
    for name, s in ext:
        out(name, bytes([4]) + state[1:] + s)
        out(name + '-off', state + s)


def terminate(out):
    """Terminate payloads and Read Requests behind their DDP header."""
    for layer, etype, code in ((0, 1, 0), (0, 1, 2), (1, 2, 4), (2, 0, 6),
                               (0, 0, 0)):
        out('term-%d-%d-%d' % (layer, etype, code), b'\x00' +
            w.terminate_payload(layer, etype, code, w.untagged_hdr(3, 0, 7),
                                82))
    out('term-rreq', b'\x00' + w.terminate_payload(
        0, 1, 0, w.untagged_hdr(1, 1, 1) +
        w.read_req(1, 2, 3, 4, 5), 46))
    out('rreq', b'\x01' + w.read_req(0x100, 0x1000, 4096, 0x200, 0x2000))


def rpcrdma(out):
    """RFC 8797 private data, alone and behind enhanced data."""
    out('alone', RPCRDMA)
    out('behind-ird-ord', w.enhanced(8, 8) + RPCRDMA)
    out('wrong-version', RPCRDMA[:4] + b'\x02' + RPCRDMA[5:])


def main():
    top = sys.argv[1]
    for name, fn in (('deframe', deframe), ('startup', startup),
                     ('ddp', ddp), ('terminate', terminate),
                     ('rpcrdma', rpcrdma)):
        d = os.path.join(top, name)
        os.makedirs(d, exist_ok=True)

        def out(seed, data, d=d):
            with open(os.path.join(d, 'seed-' + seed), 'wb') as f:
                f.write(data)
        fn(out)


if __name__ == '__main__':
    main()
