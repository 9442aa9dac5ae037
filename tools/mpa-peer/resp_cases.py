# SPDX-License-Identifier: GPL-2.0
"""Responder-role cases: a softiwarp consumer (rping -c) connects to the
peer, which answers with hostile Replies or, after a good Reply, hostile
FPDUs. Each case checks the wire and the consumer's result."""

import os
import select
import struct
import subprocess
import time

import mpawire as w
from cases import CASES, Case, RDATA, watch, T_TERM, Fail, conn_lines, \
    wait_terminate

SINK_STAG, SINK_TO = 0x00cd5600, 0x30000
REJ = 'cma event RDMA_CM_EVENT_REJECTED, error -104'
REFUSED = 'cma event RDMA_CM_EVENT_REJECTED, error -111'
UNREACH = 'cma event RDMA_CM_EVENT_UNREACHABLE, error -110'
# rping -c exits 0 when its connection ends mid-iteration, but says so
FAILS = 'wait for RDMA_WRITE_ADV state'
CRC_OFF = {'mpa_crc': 0}


def radd(name, cat, expect, fn, client, needs=None):
    CASES.append(Case(name, 'responder', cat, expect, fn, needs, client))


def read_request(ctx, c):
    f = c.read_frame(ctx.wait)
    if isinstance(f, str):
        raise Fail('Request: %s' % f)
    if f.key != w.KEY_REQ:
        raise Fail('not a Request: %s' % f)
    return f


def good_reply(ctx, c, f, **kw):
    """Accept: echo P with the Write RTR, IRD/ORD 1, C as asked; rtr=(S,
    W, R) names those RTR types instead (with P echoed)."""
    m = kw.pop('m', False)
    rtr = kw.pop('rtr', None)
    if f.rev == 2 and f.h:
        if rtr is None:
            rtr = (False, f.p2p and f.write_rtr,
                   f.p2p and not f.write_rtr and f.read_rtr)
        pd = w.enhanced(1, 1, f.p2p, *rtr)
        c.send(w.mpa_frame(w.KEY_REP, m, f.c, False, True, 2, pd))
    else:
        c.send(w.mpa_frame(w.KEY_REP, m, f.c, False, False, f.rev))
    c.full_operation(True if f.c else kw.get('crc', True), f.m, m)


def rping_server(ctx, c, data_check=True):
    """rping's server side: Read the client's buffer, Write it back."""
    adv = c.expect(lambda s: not s.tagged and s.opcode == w.OP_SEND, ctx.wait)
    if adv is None:
        raise Fail('no advertisement Send from the client')
    buf, rkey, size = struct.unpack('>QII', adv.payload[:16])
    c.send_msg(w.OP_READ_REQ, w.read_req(SINK_STAG, SINK_TO, size, rkey, buf))
    data = bytearray()
    while True:
        s = c.expect(lambda s: s.tagged, ctx.wait)
        if s is None or s.opcode != w.OP_READ_RESP or s.stag != SINK_STAG:
            raise Fail('Read Response missing: %s' % s)
        data[s.to - SINK_TO:s.to - SINK_TO + len(s.payload)] = s.payload
        if s.last:
            break
    c.send_msg(w.OP_SEND, bytes(16))
    adv = c.expect(lambda s: not s.tagged and s.opcode == w.OP_SEND, ctx.wait)
    if adv is None:
        raise Fail('no sink advertisement')
    buf2, rkey2, size2 = struct.unpack('>QII', adv.payload[:16])
    n = bytes(data).index(b'\x00') + 1 if b'\x00' in data else len(data)
    c.send_tagged(w.OP_WRITE, rkey2, buf2, bytes(data[:n]))
    c.send_msg(w.OP_SEND, bytes(16))
    bad = [s for s in c.segs if not s.crc_ok or not s.markers_ok]
    if bad:
        raise Fail('FPDU with bad CRC or Marker from the client: %s' % bad[0])
    return data


def accept_fn(**kw):
    def fn(ctx, c):
        f = read_request(ctx, c)
        if not f.c:
            # RFC 5044 section 4.4: the default configuration uses CRCs
            return 'Request without C: mpa_crc must default to 1'
        good_reply(ctx, c, f, **kw)
        rping_server(ctx, c)
        # RFC 6581 sections 5 and 9.2: with P echoed (the Write RTR), the
        # module's first FPDU is the zero-length RDMA Write, before any
        # Send; every FPDU after the Reply parsed (RFC 5040 section 6.1)
        s0 = c.segs[0] if c.segs else None
        if f.rev == 2 and f.h and f.p2p and not (
                s0 is not None and s0.tagged and s0.opcode == w.OP_WRITE
                and not s0.payload and s0.last):
            return 'first FPDU is no zero-length Write RTR: %s' % s0
        # rping -C 1 is done: the module closes first, no Terminate
        out = c.observe(T_TERM)
        t = c.terminate()
        if t is not None:
            return 'Terminate %s' % t
        return 'accept' if out == 'close' else 'no FIN from the client'
    return fn


radd('r-accept-rev2-p2p', 'r-startup-accept', 'accept', accept_fn(), 'ok')
# RFC 6581 section 9.2: a Reply naming several RTR types (all three
# here); the module offered the Write only and must send it, first
radd('r-accept-rev2-p2p-all-rtr-named', 'r-startup-accept', 'accept',
     accept_fn(rtr=(True, True, True)), 'ok')
radd('r-accept-markers-to-us', 'r-startup-accept', 'accept',
     accept_fn(m=True), 'ok')


def rev1_reply(ctx, c):
    read_request(ctx, c)
    c.send(w.mpa_frame(w.KEY_REP, False, True, False, False, 1))
    c.full_operation(True, False, False)
    rping_server(ctx, c)
    out = c.observe(T_TERM)
    return 'accept' if out == 'close' and c.terminate() is None else out


radd('r-accept-rev1-reply-to-rev2', 'r-startup-accept', 'accept',
     rev1_reply, 'ok')


def noP_reply(ctx, c):
    """A Reply without P to a Request with P: client-server mode."""
    read_request(ctx, c)
    c.send(w.mpa_frame(w.KEY_REP, False, True, False, True, 2,
                       w.enhanced(1, 1)))
    c.full_operation(True, False, False)
    rping_server(ctx, c)
    out = c.observe(T_TERM)
    return 'accept' if out == 'close' and c.terminate() is None else out


radd('r-accept-no-p2p-in-reply', 'r-startup-accept', 'accept', noP_reply,
     'ok')


def bad_reply(frame_fn, expect='close', wait=None):
    def fn(ctx, c):
        f = read_request(ctx, c)
        data = frame_fn(f) if callable(frame_fn) else frame_fn
        if data:
            c.send(data)
        t0 = time.monotonic()
        out = c.observe(wait or (ctx.mpa_timeout + 3))
        el = time.monotonic() - t0
        if out != 'close':
            return out
        if c.terminate() is not None:
            return 'Terminate: %s' % c.terminate()
        if expect == 'timeout-close':
            return expect if el >= ctx.mpa_timeout * 0.8 else \
                'closed after %.1f s' % el
        return 'close' if el < ctx.mpa_timeout * 0.8 else \
            'closed only after %.1f s' % el
    return fn


FAULT = '/sys/kernel/debug/softiwarp/fail_setup_alloc'


def fail_next_setup_alloc(n):
    """Arm dev/fault.c's countdown: the n-th setup allocation of the
    module from now on fails (0 disarms). Under `ip netns exec` /sys is a
    new sysfs mount without debugfs: mount it there, in the peer's own
    mount namespace, first."""
    if not os.path.exists(FAULT) and os.path.isdir('/sys/kernel/debug'):
        subprocess.run(['mount', '-t', 'debugfs', 'none',
                        '/sys/kernel/debug'], check=False,
                       stderr=subprocess.DEVNULL)
    try:
        with open(FAULT, 'w') as fh:
            fh.write('%d\n' % n)
    except OSError as e:
        raise Fail('cannot arm %s: %s' % (FAULT, e))


def term_reply(pdata, code, fault=False):
    """An accepting revision 2 Reply the module cannot go on with: RFC
    6581 sections 8 and 9.1-9.2 want one Terminate, layer 2 (LLP), type 0
    (MPA), the code given, with no DDP or RDMAP header copied, as the first
    FPDU in the framing the Reply agreed; then the connection ends. With
    fault, the Reply is good but the module's next setup allocation, its
    stream's (the Request is out, its Reply buffer allocated by then),
    fails: a local error, section 9.3's code 0x05."""
    def fn(ctx, c):
        f = read_request(ctx, c)
        if fault:
            time.sleep(0.3)
            fail_next_setup_alloc(1)
        try:
            c.send(w.mpa_frame(w.KEY_REP, False, f.c, False, True, 2,
                               pdata))
            return check_term(ctx, c, f, code)
        finally:
            if fault:
                fail_next_setup_alloc(0)
    return fn


def check_term(ctx, c, f, code):
    """The module's Terminate 2/0/code, alone, then the end"""
    c.full_operation(f.c, f.m, False)
    out = c.observe(ctx.mpa_timeout + 3)
    if out != 'close':
        return out
    t = c.terminate()
    if t is None:
        return 'close without a Terminate'
    if (t.layer, t.etype, t.code) != (2, 0, code):
        return 'Terminate %d/%d/0x%02x, not 2/0/0x%02x' % (
            t.layer, t.etype, t.code, code)
    if t.m or t.d or t.r or c.segs[0] is not t.seg:
        return 'Terminate not alone or with headers: %s' % t
    if t.problems:
        return 'Terminate: %s' % ', '.join(t.problems)
    return 'terminate'


# the module's IRD (1) is below the responder ORD: Insufficient IRD
radd('r-reply-ord-above-our-ird', 'r-startup-terminate', 'terminate',
     term_reply(w.enhanced(1, 8, True, write_rtr=True), 0x06), REJ)
# P2P echoed with the Send RTR only; the module sends only a Write RTR
radd('r-reply-p2p-read-not-offered', 'r-startup-terminate', 'terminate',
     term_reply(w.enhanced(1, 1, True, send_rtr=True), 0x07), REJ)
# a good Reply, but no memory for the stream (RFC 6581 section 9.3)
radd('r-reply-local-error', 'r-startup-terminate', 'terminate',
     term_reply(w.enhanced(1, 1, True, write_rtr=True), 0x05, fault=True),
     REJ)

rep = w.mpa_frame
for name, frame, client in (
        ('bad-key', rep(b'MPA ID Rep FramX', rev=2), REJ),
        ('request-key', rep(w.KEY_REQ, rev=2, h=True,
                            pdata=w.enhanced()), REJ),
        ('rev-3', rep(w.KEY_REP, rev=3), REJ),
        ('rev-0-not-permissive', rep(w.KEY_REP, m=True, rev=0), REJ),
        ('pd-513', rep(w.KEY_REP, rev=1, pdata=bytes(513)), REJ),
        ('h-pd-2', rep(w.KEY_REP, rev=2, h=True, pdata=b'\x00\x01'), REJ),
        ('garbage', b'HTTP/1.0 400 Bad Request\r\n\r\n', REJ)):
    radd('r-reply-' + name, 'r-startup-close', 'close', bad_reply(frame),
         client)
radd('r-reply-reject', 'r-startup-reject', 'close',
     bad_reply(rep(w.KEY_REP, r=True, rev=2, h=True,
                   pdata=w.enhanced() + b'go away')), REFUSED)
radd('r-timeout-no-reply', 'r-startup-timeout', 'timeout-close',
     bad_reply(b'', 'timeout-close'), UNREACH)
radd('r-timeout-half-reply', 'r-startup-timeout', 'timeout-close',
     bad_reply(rep(w.KEY_REP, rev=2)[:12], 'timeout-close'), UNREACH)
radd('r-timeout-pd-short', 'r-startup-timeout', 'timeout-close',
     bad_reply(rep(w.KEY_REP, rev=1, pdata=bytes(10), pd_len=40),
               'timeout-close'), UNREACH)


def end_mid_reply(how, n):
    def fn(ctx, c):
        read_request(ctx, c)
        c.send(rep(w.KEY_REP, rev=2, h=True, pdata=w.enhanced())[:n])
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
            return 'reset'
        c.fin()
        out = c.observe(ctx.mpa_timeout + 3)
        return out
    return fn


for how in ('fin', 'rst'):
    for pname, n in (('before-reply', 0), ('mid-key', 7),
                     ('mid-pdata', 22)):
        radd('r-%s-%s' % (how, pname), 'r-teardown-startup',
             'reset' if how == 'rst' else 'close',
             end_mid_reply(how, n), REJ)


# ---- RFC 6581 section 10: an unenhanced responder closes the TCP
# connection on an enhanced Request, and the initiator MAY then try again
# with an unenhanced one. softiwarp does not retry (its choice): one TCP
# connection per connect, whose outcome swi_cm_connect_work() reports
# with IW_CM_EVENT_CONNECT_REPLY, and rping -c gets REJECTED. We take the
# enhanced Request (revision 2 with S: mpa_rev 2, the default), close by
# FIN or RST as such a responder does, and watch our listening socket:
# no second connection may come while the client gives up.
def no_retry(how):
    def fn(ctx, c):
        f = read_request(ctx, c)
        if f.rev != 2 or not f.h:
            return 'Request not enhanced: %s' % f
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
            out = 'reset'
        else:
            c.fin()
            out = c.observe(ctx.mpa_timeout + 3)
        t0 = time.monotonic()
        r, _, _ = select.select([ctx.lsock], [], [], max(ctx.wait, 3.0))
        if r:
            s, _ = ctx.lsock.accept()
            s.close()
            return 'another connection %.1f s after the close' % (
                time.monotonic() - t0)
        return out
    return fn


radd('r-no-retry-after-fin', 'r-teardown-startup', 'close', no_retry('fin'),
     REJ)
radd('r-no-retry-after-rst', 'r-teardown-startup', 'reset', no_retry('rst'),
     REJ)


# after a good Reply: hostile FPDUs to the client
def r_up(ctx, c, crc_off=False):
    """A good Reply, then the client's advertisement Send (c.adv). With
    crc_off (mpa_crc=0 on the client's device) the Request must not ask
    for CRC, the Reply does not either: CRC off both ways."""
    f = read_request(ctx, c)
    if crc_off and f.c:
        raise Fail('Request asks for CRC with mpa_crc 0: %s' % f)
    good_reply(ctx, c, f, crc=not crc_off)
    adv = c.expect(lambda s: not s.tagged and s.opcode == w.OP_SEND,
                   ctx.wait)
    if adv is None:
        raise Fail('no advertisement Send')
    c.adv = struct.unpack('>QII', adv.payload[:16])
    return f


def r_hostile(name, expect, build, cat='r-hostile', known=None,
              crc_off=False, garbage=False, after=None):
    """after(ctx, c, offender) replaces watch() when given."""
    def fn(ctx, c):
        r_up(ctx, c, crc_off)
        c.tx.garbage = garbage
        off = build(c)
        if after:
            return after(ctx, c, off)
        return watch(c, off)
    radd(name, cat, expect, fn, FAILS, CRC_OFF if crc_off else None)
    CASES[-1].known = known


def u(opcode=w.OP_SEND, qn=0, msn=1, mo=0, dv=1, rv=1, payload=bytes(16),
      tflag=False, **kw):
    def b(c):
        hdr = w.untagged_hdr(opcode, qn, msn, mo, True, dv, rv,
                             tflag=tflag)
        if tflag:
            hdr = hdr[:14]
        c.ulpdu_sent[hdr] = len(hdr) + len(payload)
        c.fpdu(hdr + payload, **kw)
        return hdr
    return b


def t(opcode=w.OP_WRITE, stag=0x12345600, to=0, payload=bytes(8), dv=1,
      rv=1, use_adv=None):
    def b(c):
        st, tt = stag, to
        if use_adv is not None:
            st, tt = c.adv[1], c.adv[0] + use_adv
        hdr = w.tagged_hdr(opcode, st, tt, True, dv, rv)
        c.ulpdu_sent[hdr] = len(hdr) + len(payload)
        c.fpdu(hdr + payload)
        return hdr
    return b


for op in (8, 11, 15):
    r_hostile('r-op-untagged-%d' % op, 'terminate 0/2/0x06', u(opcode=op))
r_hostile('r-op-3-tagged', 'terminate 0/2/0x06', t(opcode=3))
r_hostile('r-ddp-version-0', 'terminate 1/2/0x06', u(dv=0))
r_hostile('r-ddp-version-2-tagged', 'terminate 1/1/0x04', t(dv=2))
r_hostile('r-rdmap-version-2', 'terminate 0/2/0x05', u(rv=2))
r_hostile('r-qn-3', 'terminate 1/2/0x01', u(qn=3))
r_hostile('r-msn-0', 'terminate 1/2/0x03', u(msn=0))
r_hostile('r-msn-2', 'terminate 1/2/0x02', u(msn=2))
r_hostile('r-mo-4', 'terminate 1/2/0x04', u(mo=4))  # cases.py, mo-*
r_hostile('r-too-long', 'terminate 1/2/0x05', u(payload=bytes(17)))
r_hostile('r-write-invalid-stag', 'terminate 1/1/0x00', t())
r_hostile('r-write-past-end', 'terminate 1/1/0x01', t(use_adv=64))
r_hostile('r-read-response-unsolicited', 'terminate 1/1/0x00',
          t(opcode=2))
r_hostile('r-crc-bad', 'terminate 2/0/0x02', u(bad_crc=True))
r_hostile('r-ulpdu-length-1', 'terminate 0/2/0xff',
          lambda c: c.fpdu(b'\x41') and None)


def r_peer_term(c):
    c.send_msg(w.OP_TERMINATE, w.terminate_payload(0, 2, 6))
    return None


r_hostile('r-peer-terminate', 'close', r_peer_term, 'r-terminate-rx')


def r_fin_mid(how, n):
    def b(c):
        m = c.tx.fpdu(w.untagged_hdr(w.OP_SEND, 0, 1, 0, False) + bytes(8))
        c.send(m[:n])
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
            return None
        c.fin()
        return None
    return b


for how in ('fin', 'rst'):
    for pname, n in (('idle', 0), ('mid-ulpdu-length', 1),
                     ('mid-header', 8), ('mid-payload', 24),
                     ('mid-crc', 30), ('between-segments', 999)):
        name = 'r-%s-%s' % (how, pname)
        if how == 'fin':
            # a FIN inside the Send (no L) cuts it short: an LLP error
            # (RFC 5044 section 8 code 1), Terminate, then the close; a
            # FIN between messages is the orderly close
            r_hostile(name, 'terminate 2/0/0x01' if n else 'close',
                      r_fin_mid(how, n), 'r-teardown-rts')
        else:
            def fn(ctx, c, n=n):
                f = read_request(ctx, c)
                good_reply(ctx, c, f)
                if c.expect(lambda s: not s.tagged and
                            s.opcode == w.OP_SEND, ctx.wait) is None:
                    raise Fail('no advertisement Send')
                r_fin_mid('rst', n)(c)
                return 'reset'
            radd(name, 'r-teardown-rts', 'reset', fn, FAILS)


# ---- CRC off (mpa_crc 0 on the client's device): no CRC asked, none in
# the Reply; RFC 5044 section 7.1: the CRC field is then valid whatever it
# holds. rping's traffic works, hostile FPDUs still get their Terminate.
def crc_off_accept(garbage):
    def fn(ctx, c):
        f = read_request(ctx, c)
        if f.c:
            return 'Request asks for CRC with mpa_crc 0: %s' % f
        good_reply(ctx, c, f, crc=False)
        c.tx.garbage = garbage
        adv = c.expect(lambda s: not s.tagged and s.opcode == w.OP_SEND,
                       ctx.wait)
        if adv is None:
            raise Fail('no advertisement Send')
        c.inbox.insert(0, adv)
        lines = conn_lines(ctx)
        if lines is not None:
            mine = [ln for ln in lines if ' initiator ' in ln]
            ctx.log('debugfs: %s' % mine)
            if len(mine) != 1 or ' crc tx/rx 0/0 ' not in mine[0]:
                return 'debugfs connections: %s' % mine
        rping_server(ctx, c)
        out = c.observe(T_TERM)
        if c.terminate() is not None:
            return 'Terminate %s' % c.terminate()
        return 'accept' if out == 'close' else 'no FIN from the client'
    return fn


radd('r-crc-off-accept', 'r-crc-off', 'accept', crc_off_accept(False), 'ok',
     CRC_OFF)
radd('r-crc-off-crc-field-garbage', 'r-crc-off', 'accept',
     crc_off_accept(True), 'ok', CRC_OFF)
r_hostile('r-crc-off-op-9', 'terminate 0/2/0x06', u(opcode=9), 'r-crc-off',
          crc_off=True)
r_hostile('r-crc-off-op-9-crc-garbage', 'terminate 0/2/0x06', u(opcode=9),
          'r-crc-off', crc_off=True, garbage=True)
r_hostile('r-crc-off-msn-2', 'terminate 1/2/0x02', u(msn=2), 'r-crc-off',
          crc_off=True, garbage=True)
r_hostile('r-crc-off-write-invalid-stag', 'terminate 1/1/0x00', t(),
          'r-crc-off', crc_off=True)


# ---- FIN and RST around the module's Terminate and in a peer's Terminate
def after_module_term(how):
    """The module's Terminate has come (and, as it is the last message,
    its FIN may follow): our FIN or RST then. The Terminate is checked as
    in watch(); the client ends."""
    def fn(ctx, c, off):
        if wait_terminate(c) is None:
            return 'no Terminate'
        return fin_or_rst(c, how, off)
    return fn


def fin_or_rst(c, how, off):
    """Our RST ('reset'), or our FIN and the module's answer (watch())."""
    if how == 'rst':
        c.rst()
        return 'reset'
    c.fin()
    return watch(c, off)


def hostile_then(how):
    """A hostile FPDU and at once our FIN or RST, before the module's
    Terminate can have come: with FIN the Terminate still goes out on the
    module's half of the stream, then its FIN."""
    def fn(ctx, c, off):
        return fin_or_rst(c, how, off)
    return fn


r_hostile('r-fin-after-module-terminate', 'terminate 0/2/0x06', u(opcode=9),
          'r-teardown-term', after=after_module_term('fin'))
r_hostile('r-rst-after-module-terminate', 'reset', u(opcode=9),
          'r-teardown-term', after=after_module_term('rst'))
r_hostile('r-fin-with-hostile-fpdu', 'terminate 0/2/0x06', u(opcode=9),
          'r-teardown-term', after=hostile_then('fin'))
r_hostile('r-rst-with-hostile-fpdu', 'reset', u(opcode=9),
          'r-teardown-term', after=hostile_then('rst'))


def peer_term_cut(how):
    def b(c):
        c.send(c.tx.fpdu(w.untagged_hdr(w.OP_TERMINATE, 2, 1) +
                         w.terminate_payload(0, 2, 6))[:20])
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
        else:
            c.fin()
    return b


# our Terminate cut short never arrived: the FIN inside it is an LLP
# error like any other FIN inside a message
r_hostile('r-fin-mid-peer-terminate', 'terminate 2/0/0x01',
          peer_term_cut('fin'), 'r-teardown-term')
r_hostile('r-rst-mid-peer-terminate', 'reset', peer_term_cut('rst'),
          'r-teardown-term', after=lambda ctx, c, off: 'reset')


# ---- the client owes a Read Response: our Read Request, then at once
# FIN or RST
def read_then(how):
    def b(c):
        buf, rkey, size = c.adv
        c.send_msg(w.OP_READ_REQ, w.read_req(SINK_STAG, SINK_TO, size, rkey,
                                             buf))
        if how == 'rst':
            c.rst()
        else:
            c.fin()
    return b


def read_then_watch(ctx, c, off):
    """The Read Response may come before the close or not (the module
    answers a FIN with its own close); nothing else may, but the
    zero-length RDMA Write of the Write RTR (p2p) of the startup."""
    r = watch(c, off)
    bad = [s for s in c.segs if s.tagged and not (
        s.opcode == w.OP_READ_RESP and s.stag == SINK_STAG) and not (
        s.opcode == w.OP_WRITE and s.stag == 0 and not s.payload)]
    ctx.log('Read Response before the close: %s' % any(
        s.tagged and s.opcode == w.OP_READ_RESP for s in c.segs))
    return r if not bad else 'unexpected %s' % bad[0]


r_hostile('r-fin-after-read-request', 'close', read_then('fin'),
          'r-teardown-read', after=read_then_watch)
r_hostile('r-rst-after-read-request', 'reset', read_then('rst'),
          'r-teardown-read', after=lambda ctx, c, off: 'reset')


# ---- an RDMA Write into the client's advertised buffer (its rdma_buf,
# remote-writable), cut short by our FIN or RST: in its payload (the
# receiver holds the STag's MR for the segment it is placing) or in its
# DDP header (no STag looked up yet). Nothing can complete the segment
# any more; with FIN the module sends the Terminate of a message cut
# short (2/0/0x01) and closes, and the client must exit: it
# deregisters its MRs before it destroys its QP, and a cut segment that
# kept its MR referenced made it hang for ever in ibv_dereg_mr (D state;
# run_responder() reports 'client hung').
def write_cut(how, where):
    def b(c):
        buf, rkey, size = c.adv
        hdr = w.tagged_hdr(w.OP_WRITE, rkey, buf)
        payload = RDATA[:min(32, size)]
        m = c.tx.fpdu(hdr + payload)
        # MPA's ULPDU length, then 8 of the 14 header octets, or all of
        # it and 10 payload octets
        c.send(m[:2 + 8] if where == 'header' else m[:2 + 14 + 10])
        time.sleep(0.05)
        if how == 'rst':
            c.rst()
        else:
            c.fin()
        return hdr
    return b


for how in ('fin', 'rst'):
    for where in ('payload', 'header'):
        name = 'r-%s-mid-write-%s' % (how, where)
        if how == 'fin':
            r_hostile(name, 'terminate 2/0/0x01', write_cut(how, where),
                      'r-teardown-rts')
        else:
            r_hostile(name, 'reset', write_cut(how, where), 'r-teardown-rts',
                      after=lambda ctx, c, off: 'reset')
