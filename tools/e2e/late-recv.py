#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A receive posted to a user QP already in ERROR completes with a flush
error (rdma-core's pyverbs and librdmacm; used by e2e 03-netns-rping.sh).

  late-recv.py server ADDR PORT   accept one connection, then disconnect
  late-recv.py client ADDR PORT   connect with one receive posted; once
                                  the server's disconnect has flushed it,
                                  post another and expect its flush too

libsiw posts receives without a system call, so the driver only learns
of a receive posted after the QP's transition to ERROR by looking at the
ring again. rping's client waits for such a flush completion at its
disconnect (it joins its CQ thread on it). Prints "ok ..." or "FAIL ...";
the status is 1 on a failure.
"""

import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import CMID, AddrInfo
from pyverbs.cq import CQ
from pyverbs.qp import QPCap, QPInitAttr

CAP = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)


def server(addr, port):
    """Accept one connection, hold it a second, disconnect."""
    sai = AddrInfo(src=addr, src_service=port, port_space=ce.RDMA_PS_TCP,
                   flags=ce.RAI_PASSIVE)
    listener = CMID(creator=sai)
    listener.listen()
    conn = listener.get_request()
    conn.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, cap=CAP))
    conn.accept()
    time.sleep(1)
    conn.disconnect()
    print("ok   server: accepted and disconnected", flush=True)
    return 0


def wait_wc(cq, secs):
    """The next work completion within @secs seconds, or None."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
        time.sleep(0.005)
    return None


def client(addr, port):
    """Connect; the QP and its MR go before the CQ they use."""
    cai = AddrInfo(dst=addr, dst_service=port, port_space=ce.RDMA_PS_TCP)
    cmid = CMID(creator=cai)
    cq = CQ(cmid.context, 16)
    try:
        cmid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                  cap=CAP))
        return client_run(cmid, cq)
    finally:
        cmid.close()
        cq.close()


def flushed(cq, secs, what):
    """Whether the next completion, within @secs, is a flush; say so."""
    t0 = time.monotonic()
    wc = wait_wc(cq, secs)
    if wc is None or wc.status != e.IBV_WC_WR_FLUSH_ERR:
        print("FAIL %s: %s" % (what, "no completion in %d s" % secs
                               if wc is None else "status %d" % wc.status),
              flush=True)
        return False
    print("ok   %s: flushed after %.0f ms" %
          (what, (time.monotonic() - t0) * 1000), flush=True)
    return True


def client_run(cmid, cq):
    """See the first receive flushed, post one more: flushed?"""
    mr = cmid.reg_msgs(64)
    cmid.post_recv(mr, 64)
    cmid.connect()
    if not flushed(cq, 30, "the receive posted before the disconnect"):
        return 1
    cmid.post_recv(mr, 64)
    return 0 if flushed(cq, 5, "the receive posted in ERROR") else 1


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("server", "client"):
        print(__doc__, file=sys.stderr)
        return 2
    run = server if sys.argv[1] == "server" else client
    return run(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    sys.exit(main())
