# SPDX-License-Identifier: GPL-2.0
"""One TCP connection played by the test peer: the MPA startup, FPDUs
both ways, FIN/RST, and the observation of what the other side does."""

import errno
import select
import socket
import struct
import time

import mpawire as w


class Conn:
    def __init__(self, sock, log):
        self.sock = sock
        self.log = log
        self.tx = w.MpaTx()
        self.rx = w.MpaRx()
        self.inbox = []          # FPDUs received, not yet consumed
        self.segs = []           # every DDP segment received (parsed)
        self.eof = False
        self.reset = False
        self.frame = None        # the other side's Request/Reply
        self.msn = {0: 1, 1: 1, 2: 1}
        self.ddp_ver = 1
        self.ulpdu_sent = {}     # header octets -> ULPDU length
        self.rbuf = b''          # octets read past a Request/Reply

    # ------------------------------------------------------------ raw I/O
    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError as e:
            self.log('send: %s' % e)
            if e.errno in (errno.ECONNRESET, errno.EPIPE):
                self.reset = True

    def fin(self):
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def rst(self):
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack('ii', 1, 0))
        self.sock.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def recv(self, timeout):
        """Octets within timeout; b'' on EOF or reset (flags set); None on
        timeout."""
        if self.eof or self.reset:
            return b''
        r, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        if not r:
            return None
        try:
            d = self.sock.recv(65536)
        except OSError as e:
            self.log('recv: %s' % e)
            self.reset = True
            return b''
        if not d:
            self.eof = True
        return d

    def recv_exact(self, n, timeout):
        """n octets (fewer on EOF or timeout); octets beyond them are
        kept for the FPDU parser."""
        buf, self.rbuf = self.rbuf, b''
        end = time.monotonic() + timeout
        while len(buf) < n:
            d = self.recv(end - time.monotonic())
            if not d:
                return buf
            buf += d
        self.rbuf = buf[n:]
        return buf[:n]

    # ------------------------------------------------------------ startup
    def read_frame(self, timeout):
        """The other side's Request/Reply: a Frame, or 'close', 'timeout',
        'garbage'."""
        hdr = self.recv_exact(20, timeout)
        if len(hdr) < 20:
            return 'close' if (self.eof or self.reset) else 'timeout'
        if hdr[:16] not in (w.KEY_REQ, w.KEY_REP):
            return 'garbage'
        n = struct.unpack('>H', hdr[18:20])[0]
        pd = self.recv_exact(n, timeout)
        self.frame = w.Frame(hdr + pd)
        self.log('frame: %s' % self.frame)
        return self.frame

    def full_operation(self, crc, markers_tx, markers_rx, ddp_ver=1):
        self.tx = w.MpaTx(crc, markers_tx)
        self.rx = w.MpaRx(crc, markers_rx)
        self.ddp_ver = ddp_ver

    # ------------------------------------------------------------ FPDUs
    def fpdu(self, ulpdu, **kw):
        data = self.tx.fpdu(ulpdu, **kw)
        self.send(data)
        return data

    def send_msg(self, opcode, payload=b'', qn=None, msn=None, mo=0,
                 last=True, dv=None, rv=None, inv=0, **kw):
        """An untagged segment; MSN of the queue advanced after L."""
        if qn is None:
            qn = {w.OP_READ_REQ: 1, w.OP_TERMINATE: 2}.get(opcode, 0)
        q = qn if qn in self.msn else 0
        if msn is None:
            msn = self.msn[q]
        v = self.ddp_ver
        hdr = w.untagged_hdr(opcode, qn, msn, mo, last,
                             v if dv is None else dv,
                             v if rv is None else rv, inv)
        if last and q == qn:
            self.msn[q] += 1
        self.ulpdu_sent[hdr] = len(hdr) + len(payload)
        return self.fpdu(hdr + payload, **kw)

    def send_tagged(self, opcode, stag, to, payload=b'', last=True,
                    dv=None, rv=None, **kw):
        v = self.ddp_ver
        hdr = w.tagged_hdr(opcode, stag, to, last, v if dv is None else dv,
                           v if rv is None else rv)
        self.ulpdu_sent[hdr] = len(hdr) + len(payload)
        return self.fpdu(hdr + payload, **kw)

    def pump(self, timeout):
        """Receive for up to timeout; parse FPDUs into inbox. Returns False
        once the stream ended."""
        if self.rbuf:
            d, self.rbuf = self.rbuf, b''
        else:
            d = self.recv(timeout)
        if d is None:
            return True
        if not d:
            return False
        for ulpdu, crc_ok, mk_ok in self.rx.feed(d):
            try:
                seg = w.Seg(ulpdu)
            except w.FpduError as e:
                self.log('bad FPDU: %s' % e)
                continue
            seg.crc_ok, seg.markers_ok = crc_ok, mk_ok
            self.log('rx %s%s%s' % (seg, '' if crc_ok else ' BAD-CRC',
                                    '' if mk_ok else ' BAD-MARKER'))
            self.segs.append(seg)
            self.inbox.append(seg)
        return True

    def expect(self, pred, timeout):
        """The first received segment for which pred holds (earlier ones
        are dropped), or None."""
        end = time.monotonic() + timeout
        while True:
            while self.inbox:
                s = self.inbox.pop(0)
                if s.opcode == w.OP_TERMINATE and not s.tagged:
                    self.inbox.insert(0, s)
                    return None
                if pred(s):
                    return s
            left = end - time.monotonic()
            if left <= 0 or not self.pump(left):
                return None

    def observe(self, timeout):
        """Read until the stream ends or timeout; return (outcome, term):
        outcome 'close' (FIN or RST), 'open' (still open at timeout)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return 'open'
            if not self.pump(left):
                return 'close'

    def terminate(self):
        for s in self.segs:
            if not s.tagged and s.opcode == w.OP_TERMINATE:
                return w.Term(s)
        return None
