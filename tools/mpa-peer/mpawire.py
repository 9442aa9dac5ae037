# SPDX-License-Identifier: GPL-2.0
"""Wire formats of iWARP for the test peer: MPA (RFC 5044, revision 0 of
its draft, RFC 6581), DDP (RFC 5041), RDMAP (RFC 5040). Pure functions and
small stream classes, no sockets; python3 standard library only."""

import struct

# ---------------------------------------------------------------- CRC32c
# Castagnoli, reflected polynomial 0x82F63B78, seed ~0, final complement
# (the iSCSI digest of RFC 3720 section 12.1 and appendix B.4).
CRC32C_POLY = 0x82F63B78


def _crc_table():
    tab = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ CRC32C_POLY if c & 1 else c >> 1
        tab.append(c)
    return tab


CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC32c of data; crc continues an earlier result."""
    c = crc ^ 0xFFFFFFFF
    tab = CRC_TABLE
    for b in data:
        c = tab[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc_wire(value):
    """The CRC field as it goes on the wire: least significant octet first
    (RFC 5044 Figure 5 ends in 52 23 99 83)."""
    return struct.pack('<I', value)


# ---------------------------------------------------------------- MPA
KEY_REQ = b'MPA ID Req Frame'
KEY_REP = b'MPA ID Rep Frame'
F_M, F_C, F_R, F_H = 0x80, 0x40, 0x20, 0x10    # first octet of the flags word
MARKER_INTERVAL = 512

P2P_P = 0x8000          # IRD word
P2P_SEND_RTR = 0x4000   # IRD word
P2P_WRITE_RTR = 0x8000  # ORD word
P2P_READ_RTR = 0x4000   # ORD word


def mpa_frame(key, m=False, c=True, r=False, h=False, rev=1, pdata=b'',
              pd_len=None, res=0):
    """An MPA Request or Reply; pd_len overrides PD_Length (a lie)."""
    flags = (F_M if m else 0) | (F_C if c else 0) | (F_R if r else 0) | \
        (F_H if h else 0) | (res & 0x0F)
    n = len(pdata) if pd_len is None else pd_len
    return key + struct.pack('>BBH', flags, rev, n) + pdata


def enhanced(ird=1, ord_=1, p2p=False, send_rtr=False, write_rtr=False,
             read_rtr=False):
    """RFC 6581 enhanced connection data: IRD word, ORD word."""
    w1 = (ird & 0x3FFF) | (P2P_P if p2p else 0) | \
        (P2P_SEND_RTR if send_rtr else 0)
    w2 = (ord_ & 0x3FFF) | (P2P_WRITE_RTR if write_rtr else 0) | \
        (P2P_READ_RTR if read_rtr else 0)
    return struct.pack('>HH', w1, w2)


class Frame:
    """A parsed MPA Request/Reply."""

    def __init__(self, raw):
        self.raw = raw
        self.key = raw[:16]
        flags, self.rev, self.pd_len = struct.unpack('>BBH', raw[16:20])
        self.m = bool(flags & F_M)
        self.c = bool(flags & F_C)
        self.r = bool(flags & F_R)
        self.h = bool(flags & F_H)
        self.pdata = raw[20:]
        self.ird = self.ord = None
        self.p2p = self.send_rtr = self.write_rtr = self.read_rtr = False
        if self.rev == 2 and self.h and len(self.pdata) >= 4:
            w1, w2 = struct.unpack('>HH', self.pdata[:4])
            self.ird, self.ord = w1 & 0x3FFF, w2 & 0x3FFF
            self.p2p = bool(w1 & P2P_P)
            self.send_rtr = bool(w1 & P2P_SEND_RTR)
            self.write_rtr = bool(w2 & P2P_WRITE_RTR)
            self.read_rtr = bool(w2 & P2P_READ_RTR)

    def __str__(self):
        s = 'key=%r rev=%d M=%d C=%d R=%d H=%d pd=%d' % (
            self.key, self.rev, self.m, self.c, self.r, self.h, self.pd_len)
        if self.ird is not None:
            s += ' ird=%d ord=%d p2p=%d rtr=%s%s%s' % (
                self.ird, self.ord, self.p2p, 'S' if self.send_rtr else '',
                'W' if self.write_rtr else '', 'R' if self.read_rtr else '')
        return s


def pad_len(n):
    return (4 - (n + 2) % 4) % 4


def fpdu_body(ulpdu, length=None, pad=None):
    """ULPDU_Length, ULPDU and PAD (what the CRC covers without Markers);
    pad replaces the PAD octets (zeros) with its own, as many."""
    n = len(ulpdu) if length is None else length
    k = pad_len(len(ulpdu))
    return struct.pack('>H', n) + ulpdu + \
        (bytes(k) if pad is None else (pad * k)[:k])


class MpaTx:
    """The sending side of one direction of Full Operation: FPDU framing,
    CRC and Markers (RFC 5044 sections 4 and 5). pos counts the octets of
    the stream from the first octet of Full Operation, Markers included."""

    def __init__(self, crc=True, markers=False):
        self.crc = crc
        self.markers = markers
        self.pos = 0
        # CRC off: fill the CRC field with octets that are no CRC (RFC
        # 5044 section 7.1: the receiver must take any value as valid)
        self.garbage = False

    def _marker_due(self):
        return self.markers and self.pos % MARKER_INTERVAL == 0

    def fpdu(self, ulpdu, length=None, bad_crc=False, marker_ptr=None,
             flip_ulpdu=None, flip_marker=None, pad=None):
        """The octets of one FPDU as they go on the wire, pos advanced.
        length overrides ULPDU_Length, bad_crc flips the CRC, marker_ptr
        replaces the FPDUPTR of every Marker inside the FPDU. After the
        CRC was computed over the FPDU as it should be: flip_ulpdu=(k,
        mask) XORs mask into octet k of the ULPDU, flip_marker=mask into
        the last octet (FPDUPTR) of the first Marker inside the FPDU
        (FpduError when it has none): corruption on the way, the CRC
        field untouched. pad: octets for the PAD, not zero (the CRC
        covers them)."""
        body = fpdu_body(ulpdu, length, pad)
        out = bytearray()
        flips = []              # (wire index, mask)
        marker_at = None        # last octet of the first Marker inside
        if self._marker_due():
            # between FPDUs: 0, and covered by this FPDU's CRC
            out += struct.pack('>HH', 0, 0 if marker_ptr is None else
                               marker_ptr)
            self.pos += 4
        start = self.pos
        for i, b in enumerate(body):
            if self._marker_due():
                ptr = self.pos - start if marker_ptr is None else marker_ptr
                out += struct.pack('>HH', 0, ptr & 0xFFFF)
                self.pos += 4
                if marker_at is None:
                    marker_at = len(out) - 1
            if flip_ulpdu is not None and i == 2 + flip_ulpdu[0]:
                flips.append((len(out), flip_ulpdu[1]))
            out.append(b)
            self.pos += 1
        if self._marker_due():          # right before the CRC: covered
            ptr = self.pos - start if marker_ptr is None else marker_ptr
            out += struct.pack('>HH', 0, ptr & 0xFFFF)
            self.pos += 4
        value = crc32c(out) if self.crc else 0
        if self.garbage and not self.crc:
            value = 0xC0FFEE00 | (self.pos & 0xFF)
        if bad_crc:
            value ^= 0x5A5A5A5A if self.crc else 0xFFFFFFFF
        if flip_marker is not None:
            if marker_at is None:
                raise FpduError('no Marker inside the FPDU to flip')
            flips.append((marker_at, flip_marker))
        for at, mask in flips:
            out[at] ^= mask
        for b in crc_wire(value):
            if self._marker_due():
                out += struct.pack('>HH', 0, (self.pos - start) & 0xFFFF)
                self.pos += 4
            out.append(b)
            self.pos += 1
        return bytes(out)

    def raw(self, data):
        """Octets sent outside any FPDU (garbage): pos still advances,
        Markers are not inserted."""
        self.pos += len(data)
        return data


class FpduError(Exception):
    pass


class MpaRx:
    """The receiving side: feed() octets, get FPDUs (ulpdu, crc_ok,
    markers_ok). Markers are removed and checked."""

    def __init__(self, crc=True, markers=False):
        self.crc = crc
        self.markers = markers
        self.pos = 0
        self.buf = bytearray()     # octets without Markers of the FPDU
        self.region = bytearray()  # octets the CRC covers, Markers included
        self.start = None          # pos of the FPDU's ULPDU_Length
        self.marker_ok = True
        self.pending = bytearray()
        self.crc_bytes = bytearray()
        self.marker_lead = False

    def feed(self, data):
        out = []
        self.pending += data
        while self.pending:
            if self.markers and self.pos % MARKER_INTERVAL == 0:
                if len(self.pending) < 4:
                    break
                mk = bytes(self.pending[:4])
                del self.pending[:4]
                ptr = struct.unpack('>HH', mk)[1]
                if self.start is None:
                    want = 0
                    self.region += mk       # covered by the next FPDU
                else:
                    want = self.pos - self.start
                    if not self.crc_bytes:
                        self.region += mk
                if ptr != want:
                    self.marker_ok = False
                self.pos += 4
                continue
            b = self.pending[0]
            del self.pending[0]
            if self.start is None:
                self.start = self.pos
            self.pos += 1
            if len(self.buf) < self._total():
                self.buf.append(b)
                self.region.append(b)
            else:
                self.crc_bytes.append(b)
                if len(self.crc_bytes) == 4:
                    out.append(self._finish())
        return out

    def _total(self):
        if len(self.buf) < 2:
            return 2
        n = struct.unpack('>H', self.buf[:2])[0]
        return 2 + n + pad_len(n)

    def _finish(self):
        n = struct.unpack('>H', self.buf[:2])[0]
        ulpdu = bytes(self.buf[2:2 + n])
        got = struct.unpack('<I', bytes(self.crc_bytes))[0]
        crc_ok = (not self.crc) or got == crc32c(self.region)
        res = (ulpdu, crc_ok, self.marker_ok)
        self.buf = bytearray()
        self.region = bytearray()
        self.crc_bytes = bytearray()
        self.start = None
        self.marker_ok = True
        return res


# ---------------------------------------------------------------- DDP
DDP_T = 0x8000
DDP_L = 0x4000
OP_WRITE, OP_READ_REQ, OP_READ_RESP, OP_SEND, OP_SEND_INV, OP_SEND_SE, \
    OP_SEND_SE_INV, OP_TERMINATE = range(8)
OP_NAMES = ['RDMA Write', 'RDMA Read Request', 'RDMA Read Response', 'Send',
            'Send with Invalidate', 'Send with SE',
            'Send with SE and Invalidate', 'Terminate']
QN_SEND, QN_READ, QN_TERM = 0, 1, 2


def ctrl(tagged, last, opcode, dv=1, rv=1, rsvd=0):
    return (DDP_T if tagged else 0) | (DDP_L if last else 0) | \
        ((rsvd & 0xF) << 10) | ((dv & 3) << 8) | ((rv & 3) << 6) | \
        (opcode & 0xF)


def tagged_hdr(opcode, stag, to, last=True, dv=1, rv=1, tflag=True):
    return struct.pack('>HIQ', ctrl(tflag, last, opcode, dv, rv), stag, to)


def untagged_hdr(opcode, qn, msn, mo=0, last=True, dv=1, rv=1, inv=0,
                 tflag=False):
    return struct.pack('>HIIII', ctrl(tflag, last, opcode, dv, rv), inv, qn,
                       msn, mo)


def read_req(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack('>IQIIQ', sink_stag, sink_to, size, src_stag, src_to)


class Seg:
    """A parsed DDP segment."""

    def __init__(self, ulpdu):
        if len(ulpdu) < 2:
            raise FpduError('ULPDU of %d octets' % len(ulpdu))
        c = struct.unpack('>H', ulpdu[:2])[0]
        self.tagged = bool(c & DDP_T)
        self.last = bool(c & DDP_L)
        self.dv = (c >> 8) & 3
        self.rv = (c >> 6) & 3
        self.opcode = c & 0xF
        if self.tagged:
            self.stag, self.to = struct.unpack('>IQ', ulpdu[2:14])
            self.hdr = ulpdu[:14]
            self.payload = ulpdu[14:]
        else:
            self.inv, self.qn, self.msn, self.mo = \
                struct.unpack('>IIII', ulpdu[2:18])
            self.hdr = ulpdu[:18]
            self.payload = ulpdu[18:]

    def __str__(self):
        if self.tagged:
            return 'T op=%d L=%d stag=%#x to=%#x len=%d' % (
                self.opcode, self.last, self.stag, self.to, len(self.payload))
        return 'U op=%d L=%d qn=%d msn=%d mo=%d len=%d' % (
            self.opcode, self.last, self.qn, self.msn, self.mo,
            len(self.payload))


# ---------------------------------------------------------------- Terminate
LAYER_NAMES = {0: 'RDMAP', 1: 'DDP', 2: 'LLP'}
ETYPE_NAMES = {
    0: {0: 'local catastrophic', 1: 'remote protection',
        2: 'remote operation'},
    1: {0: 'catastrophic', 1: 'tagged buffer', 2: 'untagged buffer',
        3: 'reserved for RDMAP'},
    2: {0: 'MPA'},
}
CODE_NAMES = {
    (0, 1): {0: 'invalid STag', 1: 'base or bounds violation',
             2: 'access rights violation',
             3: 'STag not associated with RDMAP stream',
             4: 'TO wrap', 9: 'STag cannot be invalidated',
             0xff: 'unspecified'},
    (0, 2): {5: 'invalid RDMAP version', 6: 'unexpected opcode',
             7: 'catastrophic error in stream',
             8: 'catastrophic error global',
             9: 'STag cannot be invalidated', 0xff: 'unspecified'},
    (0, 0): {0: 'unspecified', 0xff: 'unspecified'},
    (1, 0): {0: 'unspecified'},
    (1, 1): {0: 'invalid STag', 1: 'base or bounds violation',
             2: 'STag not associated with DDP stream', 3: 'TO wrap',
             4: 'invalid DDP version'},
    (1, 2): {1: 'invalid QN', 2: 'invalid MSN - no buffer available',
             3: 'invalid MSN - MSN range is not valid', 4: 'invalid MO',
             5: 'DDP message too long for available buffer',
             6: 'invalid DDP version'},
    (2, 0): {1: 'TCP connection closed, terminated or lost',
             2: 'received MPA CRC does not match',
             3: 'received MPA Marker and ULPDU Length do not agree',
             4: 'invalid MPA Request/Reply frame', 5: 'local catastrophic',
             6: 'insufficient IRD resources', 7: 'no matching RTR model'},
}
TERM_M, TERM_D, TERM_R = 0x8000, 0x4000, 0x2000


def term_name(layer, etype, code):
    return '%s / %s / %s' % (
        LAYER_NAMES.get(layer, 'layer %d' % layer),
        ETYPE_NAMES.get(layer, {}).get(etype, 'etype %d' % etype),
        CODE_NAMES.get((layer, etype), {}).get(code, 'code %#x' % code))


def terminate_payload(layer, etype, code, seg_hdr=None, seg_len=0,
                      rreq=None, flags=None):
    """A Terminate header (RFC 5040): control word, then the DDP segment
    length and copied headers when given."""
    f = 0
    tail = b''
    if seg_hdr is not None:
        f |= TERM_M | TERM_D
        tail += struct.pack('>H', seg_len) + seg_hdr
        if rreq is not None:
            f |= TERM_R
            tail += rreq
    if flags is not None:
        f = flags
    word = (layer & 0xF) << 28 | (etype & 0xF) << 24 | (code & 0xFF) << 16 | f
    return struct.pack('>I', word) + tail


class Term:
    """A parsed Terminate (payload behind its untagged DDP header)."""

    def __init__(self, seg):
        p = seg.payload
        self.seg = seg
        self.problems = []
        if len(p) < 4:
            raise FpduError('Terminate of %d octets' % len(p))
        w = struct.unpack('>I', p[:4])[0]
        self.layer = w >> 28
        self.etype = (w >> 24) & 0xF
        self.code = (w >> 16) & 0xFF
        self.m = bool(w & TERM_M)
        self.d = bool(w & TERM_D)
        self.r = bool(w & TERM_R)
        self.rsvd = w & 0x1FFF
        self.seg_len = self.ddp = self.rreq = None
        off = 4
        if self.m or self.d:
            if len(p) < off + 2:
                self.problems.append('M/D set but no segment length')
                return
            self.seg_len = struct.unpack('>H', p[off:off + 2])[0]
            off += 2
        if self.d:
            if len(p) < off + 2:
                self.problems.append('D set but no DDP header')
                return
            n = 14 if p[off] & 0x80 else 18
            self.ddp = p[off:off + n]
            if len(self.ddp) < n:
                self.problems.append('DDP header cut short')
            off += n
        if self.r:
            self.rreq = p[off:off + 28]
            if len(self.rreq) < 28:
                self.problems.append('Read Request header cut short')
        if self.rsvd:
            self.problems.append('reserved bits %#x set' % self.rsvd)
        if seg.tagged or seg.opcode != OP_TERMINATE or seg.qn != QN_TERM \
                or not seg.last or seg.mo != 0:
            self.problems.append('bad Terminate DDP header: %s' % seg)

    def short(self):
        return 'terminate %d/%d/%#04x' % (self.layer, self.etype, self.code)

    def __str__(self):
        return '%s (%s) M=%d D=%d R=%d' % (
            self.short(), term_name(self.layer, self.etype, self.code),
            self.m, self.d, self.r)
