# SPDX-License-Identifier: GPL-2.0
"""The case table of mpa-peer. Each case: name, role, category, the
expected reaction, and a function that plays the script and returns the
reaction it saw. Reactions:

  accept                   the exchange completed (data checked)
  terminate L/E/C          a Terminate with that layer/etype/code, well
                           formed (its headers checked), then the close
  reject                   an MPA Reply with the Reject bit
  close                    FIN or RST without a Terminate
  timeout-close            closed after mpa_timeout_ms, not before
  reset                    we sent RST; the next connection is served
  abort-unheard            (the module as MPA responder, before any valid
                           FPDU of ours) RST, without a single FPDU or a
                           FIN from the module before it
  client:TEXT              (responder role) the consumer failed with TEXT
"""

import copy
import errno
import os
import shlex
import socket
import struct
import subprocess
import time

import mpawire as w
from peer import Conn

T_TERM = 4.0      # how long to wait for a Terminate and the close

# our buffers in the rping protocol (we play the memory; any values do)
SRC_STAG, SRC_TO = 0x00ab1200, 0x10000
SINK_STAG, SINK_TO = 0x00ab3400, 0x20000
RDATA = b'rdma-ping-0: mpa-peer was here 0123456789abcdefghij\x00'


class Case:
    def __init__(self, name, role, cat, expect, fn, needs=None,
                 client=None, known=None):
        self.known = known      # what the module does where it disagrees
        self.name, self.role, self.cat = name, role, cat
        self.expect, self.fn, self.needs = expect, fn, needs or {}
        self.client = client     # responder role: expected consumer result
        self.requires = None     # 'closer': needs --closer-cmd
        self.default = True      # False: a known module defect, not in --all
        self.kernel = False      # needs a kernel QP (ext_cases.py): --kernel


CASES = []


def case(name, role, cat, expect, needs=None, client=None):
    def reg(fn):
        CASES.append(Case(name, role, cat, expect, fn, needs, client))
        return fn
    return reg


def add(name, role, cat, expect, fn, needs=None, client=None):
    CASES.append(Case(name, role, cat, expect, fn, needs, client))


# ------------------------------------------------------------ helpers
def connect(ctx):
    s = socket.create_connection(ctx.target, timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return Conn(s, ctx.log)


def request(ctx, c, rev=1, m=False, crc=True, h=None, pdata=b'', ird=1,
            ord_=1, p2p=False, write_rtr=False, read_rtr=False,
            send_rtr=False, **kw):
    """Send a Request; read the Reply; enter Full Operation. Returns the
    Frame or a reaction string."""
    if h is None:
        h = rev == 2
    pd = (w.enhanced(ird, ord_, p2p, send_rtr, write_rtr, read_rtr)
          if h else b'') + pdata
    c.send(w.mpa_frame(w.KEY_REQ, m, crc, False, h, rev, pd, **kw))
    f = c.read_frame(ctx.wait)
    if isinstance(f, str):
        return f
    if f.key != w.KEY_REP:
        return 'garbage'
    if f.r:
        return 'reject'
    if rev == 0:
        c.full_operation(True, True, True, 0)
    else:
        c.full_operation(crc or f.c, f.m, m)
    return f


def up(ctx, rev=1, **kw):
    c = connect(ctx)
    f = request(ctx, c, rev, **kw)
    if isinstance(f, str):
        raise Fail('handshake: %s' % f)
    return c


class Fail(Exception):
    pass


def closed_after(c, limit):
    t0 = time.monotonic()
    out = c.observe(limit)
    return out, time.monotonic() - t0


def wait_terminate(c, timeout=T_TERM):
    """Read until the module's Terminate has come or the stream ends:
    the Terminate's info, or None when none came within @timeout."""
    t0 = time.monotonic()
    while c.terminate() is None and time.monotonic() - t0 < timeout:
        if not c.pump(0.2):
            break
    return c.terminate()


def watch(c, offender=None, rreq=None, timeout=T_TERM):
    """The reaction to a hostile FPDU: the Terminate (checked) or close."""
    out = c.observe(timeout)
    t = c.terminate()
    if t is None:
        return out
    probs = list(t.problems)
    # RFC 5040 Figure 10: DDP errors and RDMAP remote errors carry the DDP
    # header; the RDMA header (R) only a remote protection error on a Read
    # Request; a local catastrophic error no header at all
    want_r = rreq is not None and (t.layer, t.etype) == (0, 1)
    if offender is not None and (t.layer == 1 or
                                 (t.layer == 0 and t.etype != 0)):
        if not (t.m and t.d):
            probs.append('M/D not set')
        elif t.ddp != offender:
            probs.append('copied DDP header %s, sent %s' %
                         (t.ddp.hex(), offender.hex()))
        elif t.seg_len != c.ulpdu_sent.get(offender):
            probs.append('segment length %s, sent %s' %
                         (t.seg_len, c.ulpdu_sent.get(offender)))
        if want_r and (not t.r or t.rreq != rreq):
            probs.append('Read Request header not copied')
        if not want_r and t.r:
            probs.append('R set, but Figure 10 has no RDMA header for %d/%d'
                         ' or the segment is no Read Request' %
                         (t.layer, t.etype))
    if (t.layer, t.etype) == (0, 0) and (t.m or t.d or t.r):
        probs.append('M/D/R set for a local catastrophic error')
    if t.layer == 2 and (t.m or t.d or t.r):
        # an MPA error (CRC, Marker) is about no DDP segment: nothing of
        # the bad FPDU reached DDP (verify first, RFC 5044 section 6), and
        # there is no DDP header to copy (DHV 0)
        probs.append('M/D/R set for an LLP error: %d/%d/%d' % (t.m, t.d,
                                                                t.r))
    ctxs = c.log
    ctxs('got %s' % t)
    s = t.short()
    if out != 'close':
        probs.append('stream still open after the Terminate')
    if probs:
        s += ' (' + '; '.join(probs) + ')'
    return s


def unheard(c, timeout=T_TERM):
    """RFC 5044 section 7.1.2 rule 4: the module, the MPA responder, has
    received no valid FPDU of ours and may send none, its Terminate
    neither: it resets the stream instead. 'abort-unheard' when the
    stream ended by an RST with no FPDU and no FIN from the module."""
    out = ended(c, timeout)
    t = c.terminate()
    if t is not None:
        return 'Terminate before any valid FPDU of ours: %s' % t.short()
    if c.segs:
        return 'FPDU before any valid FPDU of ours: %s' % c.segs[0]
    return 'abort-unheard' if out == 'abort' else out


def rping_client(ctx, c, data=RDATA, check=True, adv=None):
    """One iteration of rping's protocol as its client: advertise our
    source, answer the server's RDMA Read, advertise our sink, take its
    RDMA Write; the written data must equal ours. adv(c, payload), when
    given, sends the source advertisement instead of one Send."""
    src = struct.pack('>QII', SRC_TO, SRC_STAG, len(data))
    if adv is None:
        c.send_msg(w.OP_SEND, src)
    else:
        adv(c, src)
    rr = c.expect(lambda s: not s.tagged and s.opcode == w.OP_READ_REQ,
                  ctx.wait)
    if rr is None:
        raise Fail('no RDMA Read Request from the server')
    sink, sto, size, src, srcto = struct.unpack('>IQIIQ', rr.payload[:28])
    if src != SRC_STAG or srcto != SRC_TO or size != len(data):
        raise Fail('Read Request for %#x/%#x/%d' % (src, srcto, size))
    c.server_stag, c.server_to = sink, sto
    c.send_tagged(w.OP_READ_RESP, sink, sto, data)
    if c.expect(lambda s: not s.tagged and s.opcode == w.OP_SEND,
                ctx.wait) is None:
        raise Fail('no go-ahead Send after the Read')
    c.send_msg(w.OP_SEND, struct.pack('>QII', SINK_TO, SINK_STAG, 64))
    got = bytearray()
    while True:
        s = c.expect(lambda s: s.tagged or s.opcode == w.OP_SEND, ctx.wait)
        if s is None:
            raise Fail('RDMA Write or Send missing')
        if s.tagged:
            if s.opcode != w.OP_WRITE or s.stag != SINK_STAG:
                raise Fail('unexpected %s' % s)
            got[s.to - SINK_TO:s.to - SINK_TO + len(s.payload)] = s.payload
            continue
        break
    if check and bytes(got) != data:
        raise Fail('data written back %r, sent %r' % (bytes(got), data))
    bad = [s for s in c.segs if not s.crc_ok or not s.markers_ok]
    if bad:
        raise Fail('received FPDU with bad CRC or Marker: %s' % bad[0])
    return 'accept'


def finish(c):
    """Our orderly close after a good exchange: the server closes too."""
    c.fin()
    out = c.observe(T_TERM)
    t = c.terminate()
    c.close()
    if t is not None:
        return 'terminate after close: %s' % t
    return out


def next_served(ctx):
    """After an RST: a fresh connection gets its Reply."""
    time.sleep(0.2)
    c = connect(ctx)
    f = request(ctx, c)
    c.close()
    return 'reset' if isinstance(f, w.Frame) else 'next connection: %s' % f


# ============================================================ initiator
# ---- startup: good Requests, carried through one rping iteration
def accept_case(name, rev=1, rtr=None, want=None, **kw):
    """want: fields the Reply must have, e.g. {'ird': 0x3FFF}."""
    def fn(ctx):
        c = connect(ctx)
        f = request(ctx, c, rev, **kw)
        if isinstance(f, str):
            return f
        for k, v in (want or {}).items():
            if getattr(f, k, None) != v:
                c.close()
                return 'reply %s %s, not %s' % (k, getattr(f, k, None), v)
        if rtr == 'write':
            if not (f.p2p and f.write_rtr):
                return 'reply without Write RTR: %s' % f
            c.send_tagged(w.OP_WRITE, 0, 0)
        elif rtr == 'read':
            if not (f.p2p and f.read_rtr):
                return 'reply without Read RTR: %s' % f
            c.send_msg(w.OP_READ_REQ, w.read_req(0, 0, 0, 0, 0))
            if c.expect(lambda s: s.tagged and s.opcode == w.OP_READ_RESP,
                        ctx.wait) is None:
                return 'no zero-length Read Response to the Read RTR'
        r = rping_client(ctx, c)
        fin = finish(c)
        return r if fin == 'close' else 'accept, then %s' % fin
    add(name, 'initiator', 'startup-accept', 'accept', fn)


accept_case('accept-rev1')
accept_case('accept-rev1-crc-off-asked', crc=False)
accept_case('accept-rev1-markers-asked', m=True)
accept_case('accept-rev1-markers-no-crc', m=True, crc=False)
accept_case('accept-rev1-reserved-bits', res=0x0F)
accept_case('accept-rev1-pdata-512', pdata=bytes(range(256)) * 2)
accept_case('accept-rev2-client-server', rev=2)
accept_case('accept-rev2-no-h', rev=2, h=False)
# RFC 6581 section 9.2: the Reply names each offered RTR type the module
# takes (a Write, and a Read while its IRD is not 0), no other; any type
# it names may come first. Before the fix it named one, the Write when
# offered (accept-rev2-p2p-all got: reply read_rtr False, not True).
W_ONLY = {'write_rtr': True, 'read_rtr': False, 'send_rtr': False}
R_ONLY = {'write_rtr': False, 'read_rtr': True, 'send_rtr': False}
W_AND_R = {'write_rtr': True, 'read_rtr': True, 'send_rtr': False}
accept_case('accept-rev2-p2p-write', rev=2, p2p=True, write_rtr=True,
            rtr='write', want=W_ONLY)
accept_case('accept-rev2-p2p-read', rev=2, p2p=True, read_rtr=True,
            rtr='read', want=R_ONLY)
accept_case('accept-rev2-p2p-all', rev=2, p2p=True, write_rtr=True,
            read_rtr=True, send_rtr=True, rtr='write', want=W_AND_R)
accept_case('accept-rev2-p2p-all-read-first', rev=2, p2p=True,
            write_rtr=True, read_rtr=True, send_rtr=True, rtr='read',
            want=W_AND_R)
# ORD 0: the initiator has no ORD credit for a zero-length Read (and
# rping, taking the initiator's ORD for its IRD, none to answer it): the
# Write alone
accept_case('accept-rev2-p2p-write-read-ord-0', rev=2, p2p=True,
            write_rtr=True, read_rtr=True, ord_=0, rtr='write', want=W_ONLY)
# RFC 6581 section 9.1: all ones leaves that value to the ULP; the
# responder keeps its own and echoes 0x3FFF in the matching field
accept_case('accept-rev2-ird-max', rev=2, ird=0x3FFF, want={'ord': 0x3FFF})
accept_case('accept-rev2-ord-max', rev=2, ord_=0x3FFF, want={'ird': 0x3FFF})
accept_case('accept-rev2-ord-2-ird-follows', rev=2, ord_=2, want={'ird': 2})
accept_case('accept-rev2-ord-0', rev=2, ord_=0)


@case('accept-rev1-trickled', 'initiator', 'startup-accept', 'accept')
def _trickle(ctx):
    c = connect(ctx)
    for b in w.mpa_frame(w.KEY_REQ, rev=1, pdata=b'slow'):
        c.send(bytes([b]))
        time.sleep(0.01)
    f = c.read_frame(ctx.wait)
    if isinstance(f, str):
        return f
    c.full_operation(True, False, False)
    r = rping_client(ctx, c)
    finish(c)
    return r


@case('accept-rev1-two-iterations', 'initiator', 'startup-accept', 'accept')
def _two(ctx):
    c = up(ctx)
    rping_client(ctx, c)
    r = rping_client(ctx, c, b'second iteration\x00')
    finish(c)
    return r


# ---- startup: refused Requests
def reject_case(name, expect='reject', **kw):
    def fn(ctx):
        c = connect(ctx)
        f = request(ctx, c, 2, **kw)
        if isinstance(f, str):
            if f == 'reject':
                out = c.observe(T_TERM)
                c.close()
                return 'reject' if out == 'close' else 'reject, stays open'
            return f
        c.close()
        return 'accepted: %s' % f
    add(name, 'initiator', 'startup-reject', expect, fn)


# the CONNECT_REQUEST passes the initiator's ORD to the ULP (RFC 6581
# section 9.1), and rping, accepting with librdmacm's defaults, takes it
# for its IRD up to the device's: ORD 2 is met, ORD 200 is beyond it
reject_case('reject-rev2-ord-above-ird', ord_=200)


def rtr_named_case(name, **kw):
    """RFC 6581 section 9.2: no offered RTR type is supported: the
    responder still names one it supports (the Write) in an accepting
    Reply; an initiator that cannot send it answers with Terminate
    2/0/0x07, and the connection ends."""
    def fn(ctx):
        c = connect(ctx)
        f = request(ctx, c, 2, p2p=True, **kw)
        if isinstance(f, str):
            return f
        if not (f.p2p and f.write_rtr) or f.send_rtr or f.read_rtr:
            c.close()
            return 'reply without P and the Write RTR alone: %s' % f
        c.send_msg(w.OP_TERMINATE, w.terminate_payload(2, 0, 7))
        out = c.observe(T_TERM)
        c.close()
        return 'accept' if out == 'close' else \
            'Terminate sent, stream still %s' % out
    add(name, 'initiator', 'startup-accept', 'accept', fn)


rtr_named_case('rtr-named-p2p-no-rtr')
rtr_named_case('rtr-named-p2p-send-rtr-only', send_rtr=True)


def close_case(name, frame, cat='startup-close', expect='close'):
    def fn(ctx):
        c = connect(ctx)
        c.send(frame)
        t0 = time.monotonic()
        f = c.read_frame(ctx.mpa_timeout + 3)
        el = time.monotonic() - t0
        c.close()
        if isinstance(f, w.Frame):
            return 'reply: %s' % f
        if f != 'close':
            return f
        if expect == 'timeout-close':
            lo = ctx.mpa_timeout * 0.8
            return 'timeout-close' if el >= lo else \
                'closed after %.1f s, before mpa_timeout_ms' % el
        return 'close' if el < ctx.mpa_timeout * 0.8 else \
            'closed only after %.1f s' % el
    add(name, 'initiator', cat, expect, fn)


req = w.mpa_frame
close_case('close-key-first-octet', b'X' + req(w.KEY_REQ)[1:])
close_case('close-key-middle-octet', req(b'MPA ID Xeq Frame'))
close_case('close-key-last-octet', req(b'MPA ID Req FramX'))
close_case('close-key-reply-initiator-initiator', req(w.KEY_REP))
close_case('close-key-lowercase', req(b'mpa id req frame'))
for rv in (3, 4, 0x7F, 0x80, 0xFF):
    close_case('close-rev-%d' % rv, req(w.KEY_REQ, rev=rv))
close_case('close-rev0-not-permissive', req(w.KEY_REQ, m=True, rev=0))
close_case('close-pd-513', req(w.KEY_REQ, rev=1, pdata=bytes(513)))
close_case('close-pd-65535-header', req(w.KEY_REQ, rev=1, pd_len=65535))
close_case('close-rev2-h-pd-0', req(w.KEY_REQ, h=True, rev=2))
close_case('close-rev2-h-pd-2', req(w.KEY_REQ, h=True, rev=2,
                                    pdata=b'\x00\x01'))
close_case('close-rev2-h-pd-3', req(w.KEY_REQ, h=True, rev=2,
                                    pdata=b'\x00\x01\x02'))
close_case('close-garbage-http', b'GET / HTTP/1.0\r\n\r\n' + bytes(2))
close_case('close-fpdu-instead-of-request',
           w.MpaTx().fpdu(w.untagged_hdr(w.OP_SEND, 0, 1) + bytes(16)))
# the MPA startup timeout (mpa_timeout_ms): incomplete Requests
close_case('timeout-no-request', b'', 'startup-timeout', 'timeout-close')
close_case('timeout-half-key', w.KEY_REQ[:8], 'startup-timeout',
           'timeout-close')
close_case('timeout-key-only', w.KEY_REQ, 'startup-timeout', 'timeout-close')
close_case('timeout-header-19', req(w.KEY_REQ)[:19], 'startup-timeout',
           'timeout-close')
close_case('timeout-pd-shorter-than-announced',
           req(w.KEY_REQ, pdata=bytes(50), pd_len=100), 'startup-timeout',
           'timeout-close')
close_case('timeout-pd-missing', req(w.KEY_REQ, pd_len=4), 'startup-timeout',
           'timeout-close')


# FIN / RST during the startup
def startup_end_case(name, data, how):
    def fn(ctx):
        c = connect(ctx)
        if data:
            c.send(data)
            time.sleep(0.1)
        if how == 'rst':
            c.rst()
            return next_served(ctx)
        c.fin()
        t0 = time.monotonic()
        out = c.observe(ctx.mpa_timeout + 2)
        el = time.monotonic() - t0
        c.close()
        if out != 'close':
            return out
        return 'close' if el < ctx.mpa_timeout * 0.8 else \
            'closed only after %.1f s (mpa_timeout_ms)' % el
    add(name, 'initiator', 'teardown-startup',
        'reset' if how == 'rst' else 'close', fn)


for how in ('fin', 'rst'):
    startup_end_case('%s-before-request' % how, b'', how)
    startup_end_case('%s-mid-key' % how, w.KEY_REQ[:5], how)
    startup_end_case('%s-mid-header' % how, req(w.KEY_REQ)[:18], how)
    startup_end_case('%s-mid-pdata' % how,
                     req(w.KEY_REQ, pdata=bytes(40))[:40], how)


# ---- Full Operation: hostile FPDUs after a good rev 1 startup
def hostile(name, expect, build, cat, setup=None, rev=1, rreq=False,
            known=None, **reqkw):
    """build(c) sends the hostile FPDU(s), returns the offending DDP
    header (for the Terminate check) or None. expect 'abort-unheard':
    the first FPDU is the hostile one (see unheard())."""
    def fn(ctx):
        c = up(ctx, rev, **reqkw)
        if setup:
            setup(ctx, c)
        off = build(c)
        if expect == 'abort-unheard':
            r = unheard(c)
        else:
            rr = getattr(c, 'last_rreq', None) if off is not None else None
            r = watch(c, off, rr)
        c.close()
        return r
    add(name, 'initiator', cat, expect, fn)
    CASES[-1].known = known


def send_bad(**kw):
    """A Send of 16 octets (rping's advertisement) with fields replaced."""
    def b(c):
        payload = kw.pop('payload', struct.pack('>QII', SRC_TO, SRC_STAG,
                                                len(RDATA)))
        opcode = kw.pop('opcode', w.OP_SEND)
        hdr = w.untagged_hdr(opcode, kw.pop('qn', 0), kw.pop('msn', 1),
                             kw.pop('mo', 0), kw.pop('last', True),
                             kw.pop('dv', 1), kw.pop('rv', 1),
                             tflag=kw.pop('tflag', False))
        c.ulpdu_sent[hdr] = len(hdr) + len(payload)
        if opcode == w.OP_READ_REQ and not hdr[0] & 0x80:
            c.last_rreq = payload[:28]
        c.fpdu(hdr + payload, **kw)
        return hdr[:14] if hdr[0] & 0x80 else hdr
    return b


def tagged_bad(opcode=w.OP_WRITE, stag=0x12345600, to=0, payload=b'x' * 8,
               dv=1, rv=1, tflag=True, last=True, use_server=None, **kw):
    """A tagged segment; use_server=(dto) takes the server's rdma_buf
    STag learnt from its Read Request and TO = its base + dto."""
    def b(c):
        st, t = stag, to
        if use_server is not None:
            st = c.server_stag if use_server[0] is None else \
                use_server[0](c.server_stag)
            t = (c.server_to + use_server[1]) & (2 ** 64 - 1)
        ctl = w.ctrl(tflag, last, opcode, dv, rv)
        hdr = struct.pack('>HIQ', ctl, st, t)
        c.ulpdu_sent[hdr] = len(hdr) + len(payload)
        c.fpdu(hdr + payload, **kw)
        return hdr
    return b


def learn_stag(ctx, c):
    """Half an rping iteration: the server's Read Request tells its
    rdma_buf STag and address; answer it so the QP is idle again."""
    c.send_msg(w.OP_SEND, struct.pack('>QII', SRC_TO, SRC_STAG, len(RDATA)))
    rr = c.expect(lambda s: not s.tagged and s.opcode == w.OP_READ_REQ,
                  ctx.wait)
    if rr is None:
        raise Fail('no Read Request')
    c.server_stag, c.server_to = struct.unpack('>IQ', rr.payload[:12])
    c.server_size = 64
    c.send_tagged(w.OP_READ_RESP, c.server_stag, c.server_to, RDATA)
    if c.expect(lambda s: not s.tagged and s.opcode == w.OP_SEND,
                ctx.wait) is None:
        raise Fail('no go-ahead')


def read_outstanding(ctx, c, size=len(RDATA)):
    """The server's RDMA Read (of size octets, as we advertise) is
    outstanding (not answered)."""
    c.send_msg(w.OP_SEND, struct.pack('>QII', SRC_TO, SRC_STAG, size))
    rr = c.expect(lambda s: not s.tagged and s.opcode == w.OP_READ_REQ,
                  ctx.wait)
    if rr is None:
        raise Fail('no Read Request')
    c.server_stag, c.server_to = struct.unpack('>IQ', rr.payload[:12])


T_OP = 'terminate 0/2/0x06'
for op in range(8, 16):
    hostile('op-untagged-%d' % op, T_OP, send_bad(opcode=op), 'rdmap-opcode')
    hostile('op-tagged-%d' % op, T_OP, tagged_bad(opcode=op), 'rdmap-opcode')
for op in (1, 3, 4, 5, 6, 7):
    hostile('op-%d-with-t-bit' % op, T_OP, tagged_bad(opcode=op),
            'rdmap-opcode')
for op in (0, 2):
    hostile('op-%d-without-t-bit' % op, T_OP, send_bad(opcode=op),
            'rdmap-opcode')
for v in (0, 2, 3):
    hostile('ddp-version-%d-untagged' % v, 'terminate 1/2/0x06',
            send_bad(dv=v), 'ddp-version')
    hostile('ddp-version-%d-tagged' % v, 'terminate 1/1/0x04',
            tagged_bad(dv=v), 'ddp-version')
    hostile('rdmap-version-%d-send' % v, 'terminate 0/2/0x05',
            send_bad(rv=v), 'rdmap-version')
    hostile('rdmap-version-%d-write' % v, 'terminate 0/2/0x05',
            tagged_bad(rv=v), 'rdmap-version')
# RFC 5041 section 5.2: a zero-length tagged segment's STag and TO are
# not checked, but its control field is
hostile('ddp-version-2-tagged-zero-length', 'terminate 1/1/0x04',
        tagged_bad(dv=2, payload=b''), 'ddp-version')
hostile('rdmap-version-2-write-zero-length', 'terminate 0/2/0x05',
        tagged_bad(rv=2, payload=b''), 'rdmap-version')
hostile('op-tagged-send-zero-length', T_OP,
        tagged_bad(opcode=w.OP_SEND, payload=b''), 'rdmap-opcode')
T_QN = 'terminate 1/2/0x01'
for qn in (1, 2, 3, 0xFFFFFFFF):
    hostile('qn-%#x-send' % qn, T_QN, send_bad(qn=qn), 'ddp-qn')
hostile('qn-0-read-request', T_QN,
        send_bad(opcode=1, qn=0, payload=w.read_req(1, 0, 8, 1, 0)), 'ddp-qn')
hostile('qn-2-read-request', T_QN,
        send_bad(opcode=1, qn=2, payload=w.read_req(1, 0, 8, 1, 0)), 'ddp-qn')
hostile('qn-0-terminate', T_QN,
        send_bad(opcode=7, qn=0, payload=w.terminate_payload(0, 2, 0xff)),
        'ddp-qn')
hostile('qn-1-terminate', T_QN,
        send_bad(opcode=7, qn=1, payload=w.terminate_payload(0, 2, 0xff)),
        'ddp-qn')
for msn, code in ((0, 3), (2, 2), (3, 2), (0x7FFFFFFF, 2), (0x80000000, 2),
                  (0x80000001, 3), (0xFFFFFFFF, 3)):
    hostile('msn-%#x-send' % msn, 'terminate 1/2/0x%02x' % code,
            send_bad(msn=msn), 'ddp-msn')
for msn, code in ((0, 3), (2, 3)):
    hostile('msn-%#x-read-request' % msn, 'terminate 1/2/0x%02x' % code,
            send_bad(opcode=1, qn=1, msn=msn,
                     payload=w.read_req(1, 0, 8, 1, 0)), 'ddp-msn')
# RFC 5041: a buffer is posted for MSN 1, so the error is the MO (not
# "no buffer", which softiwarp answered until it took the receive for a
# first segment whatever its MO)
for mo in (1, 4, 16, 0xFFFFFFFF):
    hostile('mo-%#x-first-segment' % mo, 'terminate 1/2/0x04',
            send_bad(mo=mo), 'ddp-mo')


def two_segs(mo2, len1=8, len2=8):
    def b(c):
        h1 = w.untagged_hdr(w.OP_SEND, 0, 1, 0, False)
        c.fpdu(h1 + bytes(len1))
        h2 = w.untagged_hdr(w.OP_SEND, 0, 1, mo2, True)
        c.ulpdu_sent[h2] = len(h2) + len2
        c.fpdu(h2 + bytes(len2))
        return h2
    return b


hostile('mo-second-segment-repeats-0', 'terminate 1/2/0x04', two_segs(0),
        'ddp-mo')
hostile('mo-second-segment-gap', 'terminate 1/2/0x04', two_segs(12),
        'ddp-mo')
hostile('mo-second-segment-behind', 'terminate 1/2/0x04', two_segs(4),
        'ddp-mo')
hostile('too-long-17', 'terminate 1/2/0x05', send_bad(payload=bytes(17)),
        'ddp-length')
hostile('too-long-4096', 'terminate 1/2/0x05', send_bad(payload=bytes(4096)),
        'ddp-length')
hostile('too-long-second-segment', 'terminate 1/2/0x05', two_segs(10, 10, 10),
        'ddp-length')
hostile('too-long-send-se', 'terminate 1/2/0x05',
        send_bad(opcode=5, payload=bytes(20)), 'ddp-length')


# ---- RsvdULP (RFC 5041 section 4.3): the 40 bits of the untagged header
# that belong to the ULP; RDMAP carries its control octet (RV, two
# reserved bits, opcode) and the Invalidate STag in them (RFC 5040
# section 4.1). Every segment of a message MUST carry the same value, but
# the Data Sink is NOT REQUIRED to verify that and MAY give the ULP the
# value of any one segment. softiwarp does not compare them: each segment
# is checked on its own (swi_rdmap_rx_check()), and the message completes
# with the opcode and Invalidate STag of its last segment, the one with L
# (eng_rx_send_done() reads rx->h, the header parsed last). rping's source
# advertisement as a Send in two segments of 8 octets (MO 0, then MO 8
# with L) whose RsvdULP differ: Delivered, the server's RDMA Read of our
# buffer follows and the iteration completes; or, when the last segment
# is a Send with Invalidate of an invalid STag, that segment's Terminate.
def rsvdulp_two(first, last):
    """Send the payload in two segments; first and last are (opcode,
    Invalidate STag field, RDMAP reserved bits) of each. Returns the last
    segment's header."""
    def send(c, payload):
        msn = c.msn[0]
        c.msn[0] += 1
        hdr = None
        for (op, inv, rsvd), mo, last_seg, part in (
                (first, 0, False, payload[:8]), (last, 8, True, payload[8:])):
            hdr = bytearray(w.untagged_hdr(op, 0, msn, mo, last_seg,
                                           inv=inv))
            hdr[1] |= (rsvd & 3) << 4       # RDMAP Rsv, bits 26-27
            hdr = bytes(hdr)
            c.ulpdu_sent[hdr] = len(hdr) + len(part)
            c.fpdu(hdr + part)
        return hdr
    return send


def rsvdulp_accept(name, first, last):
    def fn(ctx):
        c = up(ctx)
        r = rping_client(ctx, c, adv=rsvdulp_two(first, last))
        fin = finish(c)
        return r if fin == 'close' else 'accept, then %s' % fin
    add(name, 'initiator', 'ddp-rsvdulp', 'accept', fn)


BAD_INV = 0x12345600    # no STag of the server's (write-invalid-stag-*)
# the Invalidate STag field of a plain Send differs (RFC 5040: ignored)
rsvdulp_accept('rsvdulp-differs-invalidate-stag',
               (w.OP_SEND, 0xdeadbeef, 0), (w.OP_SEND, 0, 0))
# the RDMAP reserved bits of the control octet differ
rsvdulp_accept('rsvdulp-differs-rdmap-reserved-bits',
               (w.OP_SEND, 0, 3), (w.OP_SEND, 0, 0))
# the opcode differs: Send with Solicited Event, then Send
rsvdulp_accept('rsvdulp-differs-opcode-send-se-then-send',
               (w.OP_SEND_SE, 0, 0), (w.OP_SEND, 0, 0))
# Send with Invalidate of an invalid STag, then a Send: the last
# segment's opcode is the message's, nothing is invalidated
rsvdulp_accept('rsvdulp-differs-send-invalidate-then-send',
               (w.OP_SEND_INV, BAD_INV, 0), (w.OP_SEND, 0, 0))


@case('rsvdulp-differs-send-then-send-invalidate', 'initiator',
      'ddp-rsvdulp', 'terminate 0/2/0x09')
def _rsvdulp_inv_last(ctx):
    """A Send, then the last segment a Send with Invalidate of an invalid
    STag: the message is the last segment's, its invalidation fails when
    it completes, and the Terminate copies the last segment's header (as
    send-invalidate-bad-stag, in one segment)."""
    c = up(ctx)
    src = struct.pack('>QII', SRC_TO, SRC_STAG, len(RDATA))
    off = rsvdulp_two((w.OP_SEND, 0, 0), (w.OP_SEND_INV, BAD_INV, 0))(c, src)
    r = watch(c, off)
    c.close()
    return r
for stag in (0x12345600, 0xFFFFFFFF, 0x00000001):
    hostile('write-invalid-stag-%#x' % stag, 'terminate 1/1/0x00',
            tagged_bad(stag=stag), 'ddp-tagged')
hostile('write-stag-0-with-data', 'terminate 1/1/0x00', tagged_bad(stag=0),
        'ddp-tagged')
hostile('write-server-stag-wrong-key', 'terminate 1/1/0x00',
        tagged_bad(use_server=(lambda s: s ^ 0x5A, 0)), 'ddp-tagged',
        setup=learn_stag)
hostile('write-past-end', 'terminate 1/1/0x01',
        tagged_bad(use_server=(None, 64)), 'ddp-tagged', setup=learn_stag)
hostile('write-crosses-end', 'terminate 1/1/0x01',
        tagged_bad(use_server=(None, 60)), 'ddp-tagged', setup=learn_stag)
hostile('write-before-base', 'terminate 1/1/0x01',
        tagged_bad(use_server=(None, -8)), 'ddp-tagged', setup=learn_stag)


@case('server-stag-hard-to-guess', 'initiator', 'ddp-tagged', 'accept')
def _stag_guess(ctx):
    """RFC 5040 section 8.1.1, requirement 8: STags hard to predict. The
    rping server's sink STag, as its Read Request names it, is not one a
    peer counting from 1 with key 0 (what libsiw asks for) would try
    first: before, indexes ran 1, 2, 3... and every key was 0. With a
    random index and key this fails once in 2^16."""
    c = up(ctx)
    r = rping_client(ctx, c)
    finish(c)
    st = c.server_stag
    if st & 0xff == 0 and st >> 8 < 0x10000:
        return 'guessable STag %#010x' % st
    return r


def write_wrap(c):
    hdr = w.tagged_hdr(w.OP_WRITE, c.server_stag, 2 ** 64 - 4)
    c.ulpdu_sent[hdr] = len(hdr) + 8
    c.fpdu(hdr + bytes(8))
    return hdr


hostile('write-to-wrap', 'terminate 1/1/0x03', write_wrap, 'ddp-tagged',
        setup=learn_stag)
hostile('read-response-nothing-outstanding', 'terminate 1/1/0x00',
        tagged_bad(opcode=2, stag=0x12345600), 'rdmap-read')
hostile('read-response-wrong-stag', 'terminate 1/1/0x00',
        tagged_bad(opcode=2, use_server=(lambda s: s ^ 0x100, 0)),
        'rdmap-read', setup=read_outstanding)
hostile('read-response-too-long', 'terminate 1/1/0x01',
        tagged_bad(opcode=2, use_server=(None, 0), payload=bytes(200)),
        'rdmap-read', setup=read_outstanding)
hostile('read-response-past-sink', 'terminate 1/1/0x01',
        tagged_bad(opcode=2, use_server=(None, 64)),
        'rdmap-read', setup=read_outstanding)


def rresp_two(dto2, len1=8, len2=8):
    """A Read Response in two segments: len1 octets at the sink's start
    (no L), then len2 octets at dto2 with L; the second is the offender."""
    def b(c):
        tagged_bad(opcode=2, use_server=(None, 0), payload=RDATA[:len1],
                   last=False)(c)
        return tagged_bad(opcode=2, use_server=(None, dto2),
                          payload=RDATA[dto2:dto2 + len2])(c)
    return b


# A Read completes only when its Response filled the sink, in order
hostile('read-response-short', 'terminate 1/1/0x01',
        tagged_bad(opcode=2, use_server=(None, 0), payload=RDATA[:-1]),
        'rdmap-read', setup=read_outstanding)
hostile('read-response-gap', 'terminate 1/1/0x01',
        rresp_two(16, 8, len(RDATA) - 16), 'rdmap-read',
        setup=read_outstanding)
hostile('read-response-overlap', 'terminate 1/1/0x01',
        rresp_two(0, 8, len(RDATA)), 'rdmap-read', setup=read_outstanding)
hostile('read-response-ends-early', 'terminate 1/1/0x01',
        rresp_two(8, 8, 8), 'rdmap-read', setup=read_outstanding)


# ---- zero-length Read Responses: the module is the requester (the rping
# server's RDMA Read of our advertised buffer, size octets, outstanding);
# we answer with one tagged Read Response segment with L. A Response must
# match its sink exactly, zero length included: its STag is the sink STag
# of the Request, its TO the sink's TO, its octets the Read's size. A
# Read that completes is seen on the wire: rping's go-ahead Send follows
# it; a refused one never completes (flushed), the Terminate carries the
# Response's DDP header (M, D), and the stream closes.
def rresp_case(name, expect, stag=None, dto=0, payload=b'',
               size=len(RDATA)):
    """stag(sink STag) gives the Response's STag (None: the sink's); dto
    None sends TO 0, else the sink's TO + dto."""
    def fn(ctx):
        c = up(ctx)
        read_outstanding(ctx, c, size)
        st = c.server_stag if stag is None else stag(c.server_stag)
        to = 0 if dto is None else (c.server_to + dto) & (2 ** 64 - 1)
        hdr = w.tagged_hdr(w.OP_READ_RESP, st, to)
        c.ulpdu_sent[hdr] = len(hdr) + len(payload)
        c.fpdu(hdr + payload)
        r = watch(c, hdr)
        c.close()
        done = [s for s in c.segs if not s.tagged and s.opcode == w.OP_SEND]
        if done:
            r += ' (the Read completed: go-ahead %s)' % done[0]
        return r
    add(name, 'initiator', 'rdmap-read', expect, fn)


OTHER_STAG = lambda st: st ^ 0x100        # noqa: E731 another index
# Before the fixes (the code of 827685f) the receiver let a zero-length
# Read Response with any STag through (DDP passes zero-length tagged
# segments without looking at their STag) and compared it with an empty
# sink, base 0: at TO 0 it was "in order" and complete, and the Read
# completed with success, its sink never written (got: open, the Read
# completed).
rresp_case('read-response-zero-length-wrong-stag', 'terminate 1/1/0x00',
           stag=OTHER_STAG, dto=None)
# The same Read of 0 octets (we advertise size 0): the sink STag is still
# the Request's, and another one is an invalid STag. Before the fix: the
# Read completed with success.
rresp_case('read-response-zero-length-wrong-stag-zero-read',
           'terminate 1/1/0x00', stag=OTHER_STAG, dto=None, size=0)
# Another STag at the sink's TO: before the fix the empty sink of base 0
# made it a base or bounds violation (1/1/0x01); the STag is what is
# wrong, an invalid STag (1/1/0x00).
rresp_case('read-response-zero-length-wrong-stag-sink-to',
           'terminate 1/1/0x00', stag=OTHER_STAG)
# The sink's STag, zero length, TO 8 past the sink's: base or bounds.
# Not a regression test of the fix: the code before it answered the same
# (the sink's region was checked whenever the STag matched); it keeps
# the zero-length path of the new check honest.
rresp_case('read-response-zero-length-to-not-sink', 'terminate 1/1/0x01',
           dto=8)
# The sink's STag and TO, 8 octets into a Read of 0: base or bounds. As
# the one above, the code before the fix answered the same.
rresp_case('read-response-payload-into-zero-read', 'terminate 1/1/0x01',
           payload=RDATA[:8], size=0)


def read_req_bad(src_stag=None, dto=0, size=8, to=None):
    def b(c):
        st = c.server_stag if src_stag is None else src_stag
        t = to if to is not None else c.server_to + dto
        c.last_rreq = w.read_req(SINK_STAG, SINK_TO, size, st,
                                 t & (2 ** 64 - 1))
        hdr = w.untagged_hdr(w.OP_READ_REQ, 1, 1)
        c.ulpdu_sent[hdr] = len(hdr) + 28
        c.fpdu(hdr + c.last_rreq)
        return hdr
    return b


for name, kw, code in (
        ('invalid-stag', dict(src_stag=0x12345600), 'terminate 0/1/0x00'),
        ('stag-wrong-key', dict(src_stag=0x12345601), 'terminate 0/1/0x00'),
        ('past-end', dict(dto=64), 'terminate 0/1/0x01'),
        ('crosses-end', dict(dto=60), 'terminate 0/1/0x01'),
        ('before-base', dict(dto=-4), 'terminate 0/1/0x01'),
        ('too-big', dict(size=65), 'terminate 0/1/0x01'),
        ('to-wrap', dict(to=2 ** 64 - 4), 'terminate 0/1/0x04')):
    hostile('read-request-' + name, code, read_req_bad(**kw), 'rdmap-read',
            setup=learn_stag, rreq=True)


def valid_read_answered(**kw):
    """After half an rping iteration, a valid Read Request of 16 octets
    of the server's buffer, sent with kw (FPDU options); its Response
    must carry them."""
    def fn(ctx):
        c = up(ctx)
        learn_stag(ctx, c)
        c.send_msg(w.OP_READ_REQ, w.read_req(SINK_STAG, SINK_TO, 16,
                                             c.server_stag, c.server_to),
                   **kw)
        s = c.expect(lambda s: s.tagged and s.opcode == w.OP_READ_RESP,
                     ctx.wait)
        if s is None or s.stag != SINK_STAG or s.payload != RDATA[:16]:
            return 'Read Response %s' % s
        return finish(c).replace('close', 'accept')
    return fn


add('read-request-valid-answered', 'initiator', 'rdmap-read', 'accept',
    valid_read_answered())
# RFC 5044 section 4.1: the receiver ignores the PAD but for the CRC. A
# Read Request's ULPDU (46 octets) has 2 of PAD: here 0xa5, the CRC over
# them; it is answered as any.
add('read-request-pad-not-zero-answered', 'initiator', 'rdmap-read',
    'accept', valid_read_answered(pad=b'\xa5'))


@case('crc-bad-read-request-not-answered', 'initiator', 'mpa',
      'terminate 2/0/0x02')
def _rr_crc(ctx):
    """RFC 5040 section 5.5 rules 12 and 17: a Read Request is processed
    only once DDP Delivered it, so one whose FPDU fails its CRC gets the
    CRC error's Terminate and no Read Response at all."""
    c = up(ctx)
    learn_stag(ctx, c)
    c.send_msg(w.OP_READ_REQ, w.read_req(SINK_STAG, SINK_TO, 16,
                                         c.server_stag, c.server_to),
               bad_crc=True)
    r = watch(c)
    if any(s.tagged and s.opcode == w.OP_READ_RESP and s.stag == SINK_STAG
           and s.to == SINK_TO for s in c.segs):
        return 'answered a Read Request whose CRC was bad (%s)' % r
    c.close()
    return r


@case('read-request-size-0-answered', 'initiator', 'rdmap-read', 'accept')
def _rr_zero(ctx):
    c = up(ctx)
    c.send_msg(w.OP_READ_REQ, w.read_req(SINK_STAG, SINK_TO, 0, 0xdead00,
                                         0))
    s = c.expect(lambda s: s.tagged and s.opcode == w.OP_READ_RESP,
                 ctx.wait)
    if s is None or s.payload or not s.last:
        return 'Read Response %s' % s
    return finish(c).replace('close', 'accept')


def two_reads(c):
    """Two Read Requests in one TCP send while the server's IRD is 1 (rping
    asks for 1): the second finds no free IRD entry."""
    r1 = w.read_req(SINK_STAG, SINK_TO, 16, c.server_stag, c.server_to)
    h1 = w.untagged_hdr(w.OP_READ_REQ, 1, 1)
    c.last_rreq = w.read_req(SINK_STAG, SINK_TO + 16, 16, c.server_stag,
                             c.server_to)
    hdr = w.untagged_hdr(w.OP_READ_REQ, 1, 2)
    c.ulpdu_sent[hdr] = len(hdr) + 28
    c.send(c.tx.fpdu(h1 + r1) + c.tx.fpdu(hdr + c.last_rreq))
    return hdr


hostile('read-request-beyond-ird', 'terminate 1/2/0x02', two_reads,
        'rdmap-read', setup=learn_stag, rreq=True, rev=2, ird=1, ord_=1)


def short_ulpdu(data, length=None):
    def b(c):
        c.fpdu(data, length=length)
        return None
    return b


hostile('ulpdu-length-0', 'terminate 0/2/0xff', short_ulpdu(b''),
        'malformed')
hostile('ulpdu-length-1', 'terminate 0/2/0xff', short_ulpdu(b'\x41'),
        'malformed')
hostile('ulpdu-untagged-17-octets', 'terminate 0/2/0xff',
        short_ulpdu(w.untagged_hdr(w.OP_SEND, 0, 1)[:17]), 'malformed')
hostile('ulpdu-tagged-13-octets', 'terminate 0/2/0xff',
        short_ulpdu(w.tagged_hdr(w.OP_WRITE, 0, 0)[:13]), 'malformed')
hostile('ulpdu-read-request-short', 'terminate 0/2/0xff',
        short_ulpdu(w.untagged_hdr(w.OP_READ_REQ, 1, 1) + bytes(20)),
        'malformed')
# RFC 5044 section 7.1.2 rule 4: a bad CRC in our first FPDU, which the
# module as responder never validated: no Terminate (it would be the
# module's first FPDU) but the reset. Before the fix the Terminate
# 2/0/0x02 came (got: Terminate before any valid FPDU of ours).
hostile('crc-bad-send', 'abort-unheard', send_bad(bad_crc=True), 'mpa')
hostile('crc-bad-zero-length-write', 'abort-unheard',
        tagged_bad(stag=0, payload=b'', bad_crc=True), 'mpa')


def crc_second(c):
    c.fpdu(w.untagged_hdr(w.OP_SEND, 0, 1, 0, False) + bytes(8))
    c.fpdu(w.untagged_hdr(w.OP_SEND, 0, 1, 8, True) + bytes(8), bad_crc=True)


def crc_after_rtr(c):
    """A zero-length Write (STag 0, what an RTR is), then the bad CRC"""
    c.fpdu(w.tagged_hdr(w.OP_WRITE, 0, 0))
    return send_bad(bad_crc=True)(c)


# after our first valid FPDU the module may send: its Terminate comes
hostile('crc-bad-second-segment', 'terminate 2/0/0x02', crc_second, 'mpa')
hostile('crc-bad-send-after-zero-length-write', 'terminate 2/0/0x02',
        crc_after_rtr, 'mpa')
hostile('crc-bad-after-good-exchange', 'terminate 2/0/0x02',
        send_bad(msn=2, bad_crc=True), 'mpa', setup=learn_stag)


# ---- verify, then place (RFC 5044 section 6: "An MPA receiver MUST first
# verify the FPDU before passing the ULPDU to DDP"). An RDMA Write into
# the server's rdma_buf (remote-writable, holding RDATA after learn_stag),
# its CRC computed over what it should carry and then one octet corrupted
# on the way: a payload octet, or with Markers (mpa_markers 1 on the
# device: the module's Reply asks us for them) the FPDUPTR of the Marker
# inside it. In the same TCP segment as our sink advertisement, and
# without its last 4 octets (the CRC): the advertisement is good and
# rping Writes its rdma_buf back to us at once, while the bad FPDU waits
# for its CRC. What comes back must be RDATA: nothing of the unverified
# FPDU was placed. Then the CRC: Terminate 2/0/0x02 without M, D, R
# (watch()), and the close.
# Before the fixes (the code of 827685f) the parser handed DDP each octet
# as it arrived and gave the CRC's verdict at the FPDU's end: the
# corrupted payload was in rdma_buf before the CRC was checked, and the
# Write back carried it (got: rdma_buf changed before the CRC was
# checked). The Terminate was the same then (2/0/0x02, no headers). And
# the receiver kept its use reference on the Write's MR after the CRC
# error: rping's connection thread hung in ibv_dereg_mr (D state, in
# swi_rdmap_mem_dereg()), so 14-mpa-peer's cleanup (rdma link delete) hung
# too; a segment's target is now only held.
ALT = bytes(b ^ 0x20 if 0x61 <= b <= 0x7a else b for b in RDATA)


def marker_room(c, adv, nwrite):
    """Zero-length Writes (STag 0: no STag is looked at for them) until a
    Marker will fall inside the payload of an FPDU of nwrite ULPDU octets
    (a 14-octet tagged header first) that follows the FPDU of adv."""
    zw = w.tagged_hdr(w.OP_WRITE, 0, 0)
    while True:
        t = copy.copy(c.tx)
        t.fpdu(adv)
        h = t.pos + (4 if t.pos % 512 == 0 else 0)    # leading Marker
        nxt = h + 512 - h % 512
        if h + 2 + 14 + 4 <= nxt <= h + 2 + nwrite - 8:
            return
        c.fpdu(zw)


def flipped_write(marker):
    def fn(ctx):
        c = up(ctx)
        if marker and not c.tx.markers:
            return 'the module asks for no Markers (mpa_markers 1)'
        learn_stag(ctx, c)
        adv = w.untagged_hdr(w.OP_SEND, 0, c.msn[0]) + \
            struct.pack('>QII', SINK_TO, SINK_STAG, 64)
        whdr = w.tagged_hdr(w.OP_WRITE, c.server_stag, c.server_to)
        if marker:
            marker_room(c, adv, len(whdr) + len(ALT))
        c.msn[0] += 1
        first = c.tx.fpdu(adv)
        bad = c.tx.fpdu(whdr + ALT, flip_marker=0x10) if marker else \
            c.tx.fpdu(whdr + RDATA, flip_ulpdu=(len(whdr) + 5, 0x01))
        c.send(first + bad[:-4])
        back = c.expect(lambda s: s.tagged, ctx.wait)
        if back is None or back.opcode != w.OP_WRITE or \
                back.stag != SINK_STAG:
            c.close()
            return 'no RDMA Write back from the server: %s' % back
        c.send(bad[-4:])
        r = watch(c)
        c.close()
        if back.payload != RDATA:
            return 'rdma_buf changed before the CRC was checked: %r' % (
                back.payload)
        return r
    return fn


add('crc-flipped-payload-octet-write', 'initiator', 'mpa',
    'terminate 2/0/0x02', flipped_write(False))
add('crc-flipped-marker-octet-write', 'initiator', 'mpa',
    'terminate 2/0/0x02', flipped_write(True), needs={'mpa_markers': 1})
hostile('send-invalidate-bad-stag', 'terminate 0/2/0x09',
        send_bad(opcode=4), 'rdmap-invalidate')
hostile('send-se-invalidate-bad-stag', 'terminate 0/2/0x09',
        send_bad(opcode=6), 'rdmap-invalidate')


def peer_term(payload, qn=2):
    def b(c):
        c.send_msg(w.OP_TERMINATE, payload, qn=qn)
        return None
    return b


for name, p in (
        ('remote-op', w.terminate_payload(0, 2, 6)),
        ('with-headers', w.terminate_payload(
            1, 2, 1, w.untagged_hdr(3, 7, 1), 34)),
        ('llp-crc', w.terminate_payload(2, 0, 2)),
        ('control-word-only-garbage-flags', w.terminate_payload(
            0, 2, 0xff, flags=0x2000)),
        ('empty', b'')):
    hostile('peer-terminate-' + name, 'close', peer_term(p), 'terminate-rx')


def zero_send(c):
    c.send_msg(w.OP_SEND, b'')
    return None


# rping takes a zero-length Send as bogus and disconnects: the module
# closes first, without a Terminate
hostile('module-closes-first-zero-send', 'close', zero_send, 'teardown-rts')


# ---- teardown in Full Operation: FIN or RST at each point of a message
# MSG is the first segment of a Send (no L). Our FIN anywhere in it, or
# right behind it, cuts the message short: its last segment can never
# come. That is an LLP error (RFC 5044 section 8 code 1), which RDMAP
# reports with a Terminate on the half of the stream still open (RFC 5040
# section 6.2.1, RFC 5041 section 6.2.2), then its FIN; a FIN between
# messages ('idle') is the orderly close.
MSG = w.MpaTx().fpdu(w.untagged_hdr(w.OP_SEND, 0, 1, 0, False) + bytes(8))
POINTS = (('idle', 0), ('mid-ulpdu-length', 1), ('mid-ddp-header', 8),
          ('mid-payload', 24), ('before-crc', len(MSG) - 4),
          ('mid-crc', len(MSG) - 2), ('between-segments', len(MSG)))
T_CUT = 'terminate 2/0/0x01'


def teardown_case(name, how, point, setup=None, extra=None, expect=None):
    def fn(ctx):
        c = up(ctx)
        if setup:
            setup(ctx, c)
        if extra:
            extra(c)
        else:
            c.send(MSG[:point])
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
            return next_served(ctx)
        c.fin()
        r = unheard(c) if expect == 'abort-unheard' else watch(c)
        c.close()
        return r
    add(name, 'initiator', 'teardown-rts', expect or
        ('reset' if how == 'rst' else 'close'), fn)


# MSG is our first FPDU. Our FIN inside it leaves the module, the MPA
# responder, without a valid FPDU of ours: it may send none (RFC 5044
# section 7.1.2 rule 4), and resets instead of sending Terminate
# 2/0/0x01 (abort-unheard; before the fix: that Terminate). Between the
# segments, the first was valid: the Terminate.
for how in ('fin', 'rst'):
    for pname, n in POINTS:
        cut = T_CUT if n == len(MSG) else 'abort-unheard'
        teardown_case('%s-%s' % (how, pname), how, n,
                      expect=cut if how == 'fin' and n else None)
    teardown_case('%s-read-outstanding' % how, how, 0,
                  setup=read_outstanding)
    # the peer's Terminate never arrived whole: the module's is no reply,
    # and with no valid FPDU of ours before it, no Terminate at all
    teardown_case('%s-mid-terminate' % how, how, 0, extra=lambda c: c.send(
        c.tx.fpdu(w.untagged_hdr(7, 2, 1) +
                  w.terminate_payload(0, 2, 6))[:20]),
        expect='abort-unheard' if how == 'fin' else None)
    teardown_case('%s-after-good-iteration' % how, how, 0,
                  setup=lambda ctx, c: rping_client(ctx, c))


def after_term(how):
    def fn(ctx):
        c = up(ctx)
        send_bad(opcode=9)(c)
        if wait_terminate(c) is None:
            return 'no Terminate'
        if how == 'rst':
            c.rst()
            return next_served(ctx)
        c.fin()
        out = c.observe(T_TERM)
        c.close()
        return out
    add('%s-after-module-terminate' % how, 'initiator', 'teardown-rts',
        'reset' if how == 'rst' else 'close', fn)


after_term('fin')
after_term('rst')


# ---- a message cut short by our FIN (issue 44 item 7): the module must
# neither wait for the rest nor close in order. The Terminate (LLP layer,
# code 1 "TCP connection closed, terminated or lost", no DDP header: RFC
# 5040 section 4.8 Figure 10), then the module's FIN, within T_TERM; the
# rping server then serves the next connection.
def cut_case(name, build, setup=None, pause=0.05):
    def fn(ctx):
        c = up(ctx)
        if setup:
            setup(ctx, c)
        build(c)
        if pause:
            time.sleep(pause)
        c.fin()
        t0 = time.monotonic()
        r = watch(c)
        el = time.monotonic() - t0
        c.close()
        ctx.log('closed %.1f s after our FIN' % el)
        if r != T_CUT:
            return r
        n = next_served(ctx)
        return r if n == 'reset' else n
    add(name, 'initiator', 'teardown-cut', T_CUT, fn)


def send_without_l(n=8, more=False):
    def b(c):
        c.send_msg(w.OP_SEND, bytes(n), last=False)
        if more:    # a second segment, still without L
            c.send_msg(w.OP_SEND, bytes(4), mo=n, last=False)
    return b


def write_without_l(c):
    c.send_tagged(w.OP_WRITE, c.server_stag, c.server_to, RDATA[:8],
                  last=False)


cut_case('fin-after-send-without-l', send_without_l())
cut_case('fin-with-send-without-l', send_without_l(), pause=0)
cut_case('fin-after-two-send-segments-without-l', send_without_l(more=True))
cut_case('fin-after-zero-length-send-without-l', send_without_l(0))
cut_case('fin-after-write-without-l', write_without_l, setup=learn_stag)


@case('module-closes-first-peer-sends-no-fin', 'initiator', 'teardown-rts',
      'fin-then-reset')
def _closing_timer(ctx):
    """The module closes first (rping drops a zero-length Send and
    disconnects: the QP goes to CLOSING, FIN sent, CLOSING timer armed);
    we never send our FIN. The stream must still end: rping destroys its
    QP at once, which resets it (well before close_timeout_ms; the timer's
    own expiry is covered by KUnit, softiwarp_cm)."""
    c = up(ctx)
    c.send_msg(w.OP_SEND, b'')
    t0 = time.monotonic()
    wait = max(T_TERM, ctx.wait)
    while not c.eof and not c.reset and time.monotonic() - t0 < wait:
        c.pump(0.2)
    if c.terminate() is not None:
        return 'Terminate before the FIN: %s' % c.terminate()
    if c.reset and not c.eof:
        # rping destroyed its QP before the module's FIN left: the
        # stream ended by a reset alone, which is all this case needs
        ctx.log('reset before any FIN')
        c.close()
        return 'fin-then-reset'
    if not c.eof:
        return 'no FIN from the module'
    t_fin = time.monotonic()
    limit = ctx.close_timeout + 5
    state = None
    while time.monotonic() - t_fin < limit:
        info = c.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
        state = info[0]
        if state == 7:    # TCP_CLOSE: the peer's RST arrived
            break
        if state == 8 and time.monotonic() - t_fin > ctx.close_timeout + 1:
            # CLOSE_WAIT and nothing: poke so an RST comes back if gone
            try:
                c.sock.send(b'\x00')
            except OSError:
                break
        time.sleep(0.1)
    el = time.monotonic() - t_fin
    c.close()
    if state != 7:
        return 'stream still there %.1f s after the FIN' % el
    ctx.log('reset %.1f s after the FIN' % el)
    return 'fin-then-reset'


def ended(c, timeout):
    """How the stream ends within timeout: 'abort' (RST, no FIN before
    it), 'fin' (EOF), 'open'."""
    c.observe(timeout)
    if c.reset and not c.eof:
        return 'abort'
    return 'fin' if c.eof else 'open'


DEBUGFS = '/sys/kernel/debug'


def conn_lines(ctx):
    """The debugfs connections lines of --knob-dev (None without it).
    Under ip netns exec /sys is a fresh sysfs without debugfs: mount it
    there (that mount namespace is ours alone)."""
    if not ctx.knob_dev:
        return None
    path = '%s/softiwarp/%s/connections' % (DEBUGFS, ctx.knob_dev)
    if not os.path.exists(path) and not os.listdir(DEBUGFS):
        subprocess.call(['mount', '-t', 'debugfs', 'debugfs', DEBUGFS])
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError as e:
        raise Fail('debugfs: %s' % e)


# ---- the server's RDMA Read outstanding (RFC 5040 section 6.2: a close
# with an RDMA Read outstanding is an error; the stream is aborted)
def read_pending_end(how, send):
    def fn(ctx):
        c = up(ctx)
        read_outstanding(ctx, c)
        send(c)
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
            return next_served(ctx)
        c.fin()
        r = ended(c, T_TERM)
        c.close()
        if c.terminate() is not None:
            return 'Terminate %s' % c.terminate()
        return r
    return fn


def rresp_first_seg(c):
    """The first 8 octets of the Read Response, without L."""
    c.send_tagged(w.OP_READ_RESP, c.server_stag, c.server_to, RDATA[:8],
                  last=False)


def rresp_cut(c):
    """The Read Response FPDU cut in the middle of its payload."""
    hdr = w.tagged_hdr(w.OP_READ_RESP, c.server_stag, c.server_to)
    c.send(c.tx.fpdu(hdr + RDATA)[:2 + 14 + 10])


for how in ('fin', 'rst'):
    exp = 'reset' if how == 'rst' else 'abort'
    add('%s-read-response-partial' % how, 'initiator', 'teardown-read', exp,
        read_pending_end(how, rresp_first_seg))
    # Found a defect (fixed): the receiver kept its reference on the
    # Read's sink MR (eng_rx.mem, taken for the FPDU that was cut) until
    # the QP was destroyed; rping deregisters its MRs first and hung for
    # ever in swi_rdmap_mem_dereg()
    add('%s-mid-read-response' % how, 'initiator', 'teardown-read', exp,
        read_pending_end(how, rresp_cut))
add('fin-read-outstanding-abort', 'initiator', 'teardown-read', 'abort',
    read_pending_end('fin', lambda c: None))


@case('read-never-answered', 'initiator', 'teardown-read',
      'open, then abort')
def _read_never(ctx):
    """The server's Read is never answered: iWARP has no Read timeout, the
    stream stays up (no Terminate, no close) past close_timeout_ms while
    we keep it open; our FIN then aborts it at once, and the rping
    server's connection thread ends (the next connection is served)."""
    c = up(ctx)
    read_outstanding(ctx, c)
    first = ended(c, ctx.close_timeout + 0.5)
    if first != 'open' or c.terminate() is not None:
        return 'while the Read waits: %s, Terminate %s' % (first,
                                                         c.terminate())
    c.fin()
    r = ended(c, T_TERM)
    c.close()
    if r != 'abort':
        return 'open, then %s' % r
    return 'open, then abort' if next_served(ctx) == 'reset' else \
        'open, then abort, then no service'


def tcp_state(c):
    return c.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def closer_exit(ctx, proc):
    """None once the --closer-cmd consumer got its DISCONNECTED and
    exited 0, else what went wrong"""
    try:
        proc.wait(timeout=ctx.wait)
    except subprocess.TimeoutExpired:
        return 'consumer still waiting for DISCONNECTED'
    if proc.returncode != 0:
        return 'consumer exit %d' % proc.returncode
    return None


def with_closer(ctx, run):
    """Start the --closer-cmd consumer on the target's port + 100, return
    run(ctx, proc), then end the consumer and log how it exited."""
    cmd = ctx.closer_cmd.replace('{port}', str(ctx.target[1] + 100))
    proc = subprocess.Popen(shlex.split(cmd), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        return run(ctx, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
        out, _ = proc.communicate()
        ctx.log('closer exit %s: %s' % (proc.returncode,
                                        ' | '.join(out.splitlines()[-6:])))


@case('closing-timer-expiry', 'initiator', 'teardown-rts',
      'closing-timeout-reset')
def _closing_expiry(ctx):
    """The consumer (--closer-cmd, ucmatose -C 0) accepts, disconnects at
    once and keeps its QP until DISCONNECTED: the QP goes to CLOSING, the
    FIN comes, the CLOSING timer runs. We never read and never close:
    after close_timeout_ms (not before 0.8 times it) the QP must go to
    ERROR, the socket be aborted (our socket sees the RST: TCP_CLOSE),
    the debugfs connections line of the QP be gone (it is there while
    CLOSING), and the consumer get its DISCONNECTED and exit 0."""
    return with_closer(ctx, _closing_expiry_run)


def _closing_expiry_run(ctx, proc):
    before = set(conn_lines(ctx) or [])
    r = closer_up(ctx, proc)       # never read again: the state only
    if isinstance(r, str):
        return r
    c, t_fin = r
    time.sleep(0.2)
    lines = conn_lines(ctx)
    qp = None
    if lines is not None:
        mine = [ln for ln in lines if ' responder ' in ln and
                ln not in before]
        ctx.log('debugfs while CLOSING: %s' % mine)
        if len(mine) != 1:
            return 'debugfs while CLOSING: %s' % (mine or 'no line')
        qp = mine[0].split()[1]
    limit = ctx.close_timeout + max(3.0, ctx.wait)
    while tcp_state(c) == 8 and time.monotonic() - t_fin < limit:
        time.sleep(0.02)
    el, st = time.monotonic() - t_fin, tcp_state(c)
    ctx.log('TCP state %d %.2f s after the FIN' % (st, el))
    if st != 7:                                            # CLOSE
        return 'TCP state %d %.1f s after the FIN' % (st, el)
    if el < ctx.close_timeout * 0.8:
        return 'reset %.2f s after the FIN, before close_timeout_ms' % el
    # CLOSE_WAIT to CLOSE without our close is the RST; SO_ERROR says so
    # (an RST in CLOSE_WAIT sets EPIPE, tcp_reset())
    err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if err != errno.EPIPE:
        return 'socket error %d after the FIN, want EPIPE (RST)' % err
    c.close()
    bad = closer_exit(ctx, proc)
    if bad:
        return bad
    if qp is not None:
        left = [ln for ln in conn_lines(ctx) or []
                if ln.split()[1:2] == [qp]]
        if left:
            return 'debugfs after the expiry: %s' % left
    return 'closing-timeout-reset'


CASES[-1].requires = 'closer'


def closer_up(ctx, proc):
    """A connection to the --closer-cmd consumer (listening on the
    target's port + 100): the Request, the Reply, then its disconnect
    brings the module's FIN. Returns (Conn, monotonic time the FIN was
    seen) or a string saying what went wrong."""
    host, port = ctx.target[0], ctx.target[1] + 100
    end = time.monotonic() + ctx.wait
    while True:
        try:
            s = socket.create_connection((host, port), timeout=5)
            break
        except ConnectionRefusedError:
            if time.monotonic() > end or proc.poll() is not None:
                return 'closer not listening on %d' % port
            time.sleep(0.1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c = Conn(s, ctx.log)
    f = request(ctx, c)
    if isinstance(f, str):
        c.close()
        return 'handshake: %s' % f
    end = time.monotonic() + ctx.wait
    while tcp_state(c) == 1 and time.monotonic() < end:    # ESTABLISHED
        time.sleep(0.02)
    t_fin, st = time.monotonic(), tcp_state(c)
    if st != 8:                                            # CLOSE_WAIT
        c.close()
        return 'TCP state %d, want CLOSE_WAIT (the FIN)' % st
    return c, t_fin


@case('closing-receives-after-module-fin', 'initiator', 'teardown-rts',
      'fin-then-abort')
def _closing_receives(ctx):
    """RFC 5041 section 6.2.1: after the ULP's graceful half-close, DDP
    SHOULD keep data reception enabled on the other half. The consumer
    (--closer-cmd, ucmatose -C 0) disconnects at once: the QP goes to
    CLOSING and the module's FIN comes (SHUT_WR only). We go on sending.
    The receiver runs in CLOSING as in RTS (eng_rx_begin()): a zero-length
    RDMA Write (STag 0, valid in any state) is taken and nothing happens,
    the stream stays; then a Send with the reserved opcode 9 is read and
    refused, and an error in CLOSING, where no Terminate can follow the
    FIN, moves the QP to ERROR and aborts the stream (rdmap/qp_state.c,
    CLOSING, RDMAP_QPE_LOCAL_ERROR): the RST (our TCP_CLOSE with EPIPE, as
    in closing-timer-expiry) comes well before the CLOSING timer's, not
    later than 0.8 times close_timeout_ms after the FIN. A receiver
    stopped by our FIN would leave both FPDUs unread until the timer.
    The consumer then gets DISCONNECTED and exits 0."""
    return with_closer(ctx, _closing_receives_run)


def _closing_receives_run(ctx, proc):
    r = closer_up(ctx, proc)
    if isinstance(r, str):
        return r
    c, t_fin = r
    c.send_tagged(w.OP_WRITE, 0, 0)
    time.sleep(min(0.5, ctx.close_timeout * 0.2))
    st = tcp_state(c)
    if st != 8:
        c.close()
        return 'TCP state %d after a valid FPDU in CLOSING, want ' \
            'CLOSE_WAIT' % st
    send_bad(opcode=9)(c)
    t_bad = time.monotonic()
    limit = ctx.close_timeout + max(3.0, ctx.wait)
    while tcp_state(c) == 8 and time.monotonic() - t_fin < limit:
        time.sleep(0.02)
    now, st = time.monotonic(), tcp_state(c)
    el = now - t_fin
    ctx.log('TCP state %d %.2f s after the FIN, %.2f s after opcode 9' %
            (st, el, now - t_bad))
    if st != 7:                                            # CLOSE
        c.close()
        return 'TCP state %d %.1f s after the FIN' % (st, el)
    err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    c.close()
    if err != errno.EPIPE:
        return 'socket error %d, want EPIPE (RST)' % err
    if el >= ctx.close_timeout * 0.8:
        return 'reset %.2f s after the FIN: the CLOSING timer\'s, the ' \
            'FPDU unread' % el
    bad = closer_exit(ctx, proc)
    if bad:
        return bad
    return 'fin-then-abort'


CASES[-1].requires = 'closer'


@case('fin-right-after-reply-x100', 'initiator', 'teardown-startup',
      'close')
def _fin_after_reply(ctx):
    """100 times a good Request, the Reply, and at once our FIN. The rping server waits for its first
    Send, so the module must close on the FIN (CLOSING, then IDLE) and
    drop the connection. Found a defect (fixed): a FIN that arrived
    between the Reply and swi_eng_stream_start() installing the socket
    callbacks was never seen (the socket already in CLOSE_WAIT, no state
    change followed), and the QP stayed in RTS until the consumer
    destroyed it. Seen twice in the ~180 such closes of one full run in
    the TCG VM; swi_eng_stream_start() now looks at the state itself."""
    if conn_lines(ctx) is None:
        return 'needs --knob-dev (debugfs)'
    before = set(conn_lines(ctx))
    for _ in range(100):
        c = connect(ctx)
        f = request(ctx, c)
        c.close()
        if isinstance(f, str):
            return 'handshake: %s' % f
    time.sleep(ctx.close_timeout + 1)
    left = [ln.split()[1] for ln in conn_lines(ctx)
            if ' responder ' in ln and ln not in before]
    if left:
        return 'QP still connected after our FIN: qp %s' % ' '.join(left)
    return 'close'


# ---- revision 0 (RFC 5044 Appendix C), mpa_permissive=1 on the device
PERM = {'mpa_permissive': 1}


@case('rev0-permissive-rping', 'initiator', 'rev0', 'accept', needs=PERM)
def _rev0(ctx):
    c = connect(ctx)
    f = request(ctx, c, 0, m=True, crc=True)
    if isinstance(f, str):
        return f
    if f.rev != 0 or not f.m or not f.c:
        return 'Reply %s, want rev 0 with M and C' % f
    r = rping_client(ctx, c)
    if any(s.dv != 0 or s.rv != 0 for s in c.segs):
        return 'DDP/RDMAP version 1 on a revision 0 stream'
    fin = finish(c)
    return r if fin == 'close' else fin


@case('rev0-permissive-m0-c0', 'initiator', 'rev0', 'accept', needs=PERM)
def _rev0b(ctx):
    """An RDMAC peer that asks for neither: Markers and CRC anyway."""
    c = connect(ctx)
    f = request(ctx, c, 0, m=False, crc=False)
    if isinstance(f, str):
        return f
    if f.rev != 0 or not f.m or not f.c:
        return 'Reply %s, want rev 0 with M and C' % f
    c.full_operation(True, True, True, 0)
    r = rping_client(ctx, c, b'rdmac peer, three iterations, ' * 2 + b'\x00')
    r = rping_client(ctx, c)
    r = rping_client(ctx, c, b'x' * 63 + b'\x00')
    finish(c)
    return r


def rev0_hostile(name, expect, build):
    def fn(ctx):
        c = connect(ctx)
        f = request(ctx, c, 0, m=True)
        if isinstance(f, str):
            return f
        off = build(c)
        r = unheard(c) if expect == 'abort-unheard' else watch(c, off)
        c.close()
        return r
    add(name, 'initiator', 'rev0', expect, fn, needs=PERM)


def marker_bad(c):
    """The first Marker of the stream (before the first FPDU) must be 0."""
    c.fpdu(w.tagged_hdr(w.OP_WRITE, 0, 0, dv=0, rv=0), marker_ptr=5)
    return None


def marker_inside(c):
    """Zero-length Writes until one straddles a 512-octet boundary: the
    Marker inside it gets a wrong FPDUPTR."""
    zw = w.tagged_hdr(w.OP_WRITE, 0, 0, dv=0, rv=0)
    while True:
        nxt = 512 - c.tx.pos % 512
        if 0 < nxt < 20:
            c.fpdu(zw, marker_ptr=nxt + 4)
            return None
        c.fpdu(zw)


# the first FPDU of the stream is the bad one: the module, responder,
# validated none of ours and resets, without its Terminate (RFC 5044
# section 7.1.2 rule 4); before the fix: Terminate 2/0/0x03
rev0_hostile('rev0-marker-first-fpduptr-wrong', 'abort-unheard', marker_bad)
rev0_hostile('rev0-marker-inside-fpdu-wrong', 'terminate 2/0/0x03',
             marker_inside)


def marker_low_bits(c):
    """FPDUPTR with its two low bits set: they are reserved and ignored
    on receive (RFC 5044 section 4.2); the stream goes on."""
    zw = w.tagged_hdr(w.OP_WRITE, 0, 0, dv=0, rv=0)
    while True:
        nxt = 512 - c.tx.pos % 512
        if 0 < nxt < 20 and nxt % 4 == 0:
            c.fpdu(zw, marker_ptr=nxt | 3)
            return None
        c.fpdu(zw)


@case('rev0-marker-fpduptr-low-bits-ignored', 'initiator', 'rev0', 'accept',
      needs=PERM)
def _rev0_low(ctx):
    c = connect(ctx)
    f = request(ctx, c, 0, m=True)
    if isinstance(f, str):
        return f
    marker_low_bits(c)
    r = rping_client(ctx, c)
    finish(c)
    return r


# as rev0-marker-first-fpduptr-wrong: our first FPDU (before the fix:
# Terminate 2/0/0x02)
rev0_hostile('rev0-crc-bad', 'abort-unheard',
             lambda c: send_bad(dv=0, rv=0, bad_crc=True)(c) and None)
rev0_hostile('rev0-ddp-version-2', 'terminate 1/2/0x06',
             send_bad(dv=2, rv=0))
rev0_hostile('rev0-rdmap-version-2', 'terminate 0/2/0x05',
             send_bad(dv=0, rv=2))
rev0_hostile('rev0-opcode-9', 'terminate 0/2/0x06',
             send_bad(opcode=9, dv=0, rv=0))


def mixed_versions(dv, rv, tagged=False):
    """RFC 5041 section 4.1: DV is the same in every segment of a stream
    (and RFC 5040's RV with it). The first segment, a zero-length Write of
    version 0 (accepted), fixes the stream's versions; a later segment
    with version 1 in one of them is refused as an IETF stream refuses a
    bad version. Before the fix the receiver took 0 or 1 segment by
    segment, and this segment passed (got: open)."""
    def b(c):
        c.fpdu(w.tagged_hdr(w.OP_WRITE, 0, 0, dv=0, rv=0))
        bad = tagged_bad(dv=dv, rv=rv) if tagged else send_bad(dv=dv, rv=rv)
        return bad(c)
    return b


rev0_hostile('rev0-ddp-version-1-after-0', 'terminate 1/2/0x06',
             mixed_versions(1, 0))
rev0_hostile('rev0-ddp-version-1-after-0-tagged', 'terminate 1/1/0x04',
             mixed_versions(1, 0, tagged=True))
rev0_hostile('rev0-rdmap-version-1-after-0', 'terminate 0/2/0x05',
             mixed_versions(0, 1))


@case('rev0-markers-missing', 'initiator', 'rev0', 'abort-unheard',
      needs=PERM)
def _rev0_nomark(ctx):
    """An FPDU sent without the Marker the stream must start with: the
    receiver reads the ULPDU_Length where the Marker belongs, and the CRC
    fails. It is our first FPDU: the module resets, without its Terminate
    (RFC 5044 section 7.1.2 rule 4; before the fix: 2/0/0x02)."""
    c = connect(ctx)
    f = request(ctx, c, 0, m=True)
    if isinstance(f, str):
        return f
    c.tx.markers = False
    c.tx.pos = 4
    send_bad(dv=0, rv=0)(c)
    r = unheard(c)
    c.close()
    return r
