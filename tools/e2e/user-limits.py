#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Drive the verbs of a softiwarp device from user space (rdma-core's
pyverbs) up to and beyond its limits; used by e2e 16-user-limits.sh.

  user-limits.py sizes DEV      CQ and QP sizes at and past the limits
  user-limits.py counts DEV N   PDs, CQs, QPs up to max_pd/max_cq/max_qp,
                                MRs and user contexts up to N past a bound
  user-limits.py memlock DEV    as nobody, with RLIMIT_MEMLOCK lowered
  user-limits.py churn DEV      create and post without end (to be killed)
  user-limits.py share DEV N CG in rdma cgroup CG (rdma.max: one handle,
                                N objects on DEV) up to its share and
                                past it, while a process outside it
                                creates twice as many
  user-limits.py free DEV N     N CQs and a PD on DEV (run by share)

Every check prints "ok ..." or "FAIL ..."; the status is 1 when any
failed. A refused call must fail with the errno the device documents
(Documentation/device.rst, Limits).
"""

import errno
import os
import random
import resource
import subprocess
import sys

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE

failed = 0
INLINE = 80                     # the siw ABI's inline data limit
ACCESS = e.IBV_ACCESS_LOCAL_WRITE


def say(ok, what):
    """Print one result line and remember a failure."""
    global failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failed += 1


def errname(code):
    """errno as its symbolic name."""
    return errno.errorcode.get(abs(code), str(code)) if code else "0"


def attempt(fn):
    """Call fn; return (object, 0) or (None, errno)."""
    try:
        return fn(), 0
    except PyverbsRDMAError as ex:
        return None, abs(ex.error_code) or -1
    except PyverbsError:
        return None, -1


def expect(what, fn, err):
    """fn must succeed (err 0) or fail with errno err; returns its object."""
    obj, got = attempt(fn)
    say(got == err, "%s: %s (expected %s)" % (what, errname(got), errname(err)))
    return obj


def qp_attr(cq, send_wr=1, recv_wr=1, send_sge=1, recv_sge=1, inline=0):
    """The init attributes of an RC QP on cq."""
    cap = QPCap(max_send_wr=send_wr, max_recv_wr=recv_wr,
                max_send_sge=send_sge, max_recv_sge=recv_sge,
                max_inline_data=inline)
    return QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)


def sizes(dev):
    """CQ and QP sizes: at each limit it works, one past it is refused."""
    ctx = d.Context(name=dev)
    a = ctx.query_device()
    print("limits: max_cqe %d max_qp_wr %d max_sge %d inline %d" %
          (a.max_cqe, a.max_qp_wr, a.max_sge, INLINE))
    pd = PD(ctx)
    cq = expect("cq cqe=max_cqe", lambda: CQ(ctx, a.max_cqe, None, None, 0), 0)
    if cq:
        cq.close()
    expect("cq cqe=max_cqe+1",
           lambda: CQ(ctx, a.max_cqe + 1, None, None, 0), errno.EINVAL)
    expect("cq cqe=-1", lambda: CQ(ctx, -1, None, None, 0), errno.EINVAL)
    cq = CQ(ctx, 16, None, None, 0)
    cases = [
        ("max_send_wr", dict(send_wr=a.max_qp_wr)),
        ("max_recv_wr", dict(recv_wr=a.max_qp_wr)),
        ("max_send_sge", dict(send_sge=a.max_sge)),
        ("max_recv_sge", dict(recv_sge=a.max_sge)),
        ("max_inline_data", dict(inline=INLINE)),
    ]
    for name, kw in cases:
        qp = expect("qp %s=%d" % (name, list(kw.values())[0]),
                    lambda: QP(pd, qp_attr(cq, **kw)), 0)
        if qp:
            qp.close()
        kw = {k: v + 1 for k, v in kw.items()}
        expect("qp %s=%d" % (name, list(kw.values())[0]),
               lambda: QP(pd, qp_attr(cq, **kw)), errno.EINVAL)
    qp = expect("qp all at their limits",
                lambda: QP(pd, qp_attr(cq, a.max_qp_wr, a.max_qp_wr,
                                       a.max_sge, a.max_sge, INLINE)), 0)
    if qp:
        qp.close()
    ctx.close()


def fill(what, limit, make, err):
    """Create objects with make() up to limit, then one more (must fail
    with err); free one and create one again; return the list."""
    objs = []
    got = 0
    while len(objs) < limit:
        obj, got = attempt(make)
        if got:
            break
        objs.append(obj)
    say(len(objs) == limit, "%s: %d of %d created (%s)" %
        (what, len(objs), limit, errname(got)))
    expect("%s: number %d" % (what, limit + 1), make, err)
    if objs:
        objs.pop().close()
        obj = expect("%s: again after freeing one" % what, make, 0)
        if obj:
            objs.append(obj)
    return objs


def counts(dev, bound):
    """max_pd, max_cq and max_qp objects on one device, then one more;
    MRs and user contexts up to bound past their limit when it is larger."""
    ctx = d.Context(name=dev)
    a = ctx.query_device()
    print("limits: max_pd %d max_cq %d max_qp %d max_mr %d" %
          (a.max_pd, a.max_cq, a.max_qp, a.max_mr))
    pds = fill("pd", a.max_pd, lambda: PD(ctx), errno.ENOMEM)
    for pd in pds[1:]:
        pd.close()
    pd = pds[0]
    cqs = fill("cq", a.max_cq, lambda: CQ(ctx, 1, None, None, 0),
               errno.ENOMEM)
    for cq in cqs[1:]:
        cq.close()
    cq = cqs[0]
    qps = fill("qp", a.max_qp, lambda: QP(pd, qp_attr(cq)), errno.ENOMEM)
    for qp in qps:
        qp.close()
    # one page, registered again and again: every MR pins it anew
    n = min(a.max_mr, bound)
    buf = MR(pd, 4096, ACCESS)
    mrs = []
    got = 0
    while len(mrs) < n:
        obj, got = attempt(lambda: MR(pd, 4096, ACCESS, address=buf.buf))
        if got:
            break
        mrs.append(obj)
    say(len(mrs) == n, "mr: %d of %d created (%s; max_mr %d%s)" %
        (len(mrs), n, errname(got), a.max_mr,
         ", not tested to the end" if n < a.max_mr else ""))
    for mr in mrs:
        mr.close()
    buf.close()
    cq.close()
    pd.close()
    ctx.close()
    # user contexts: SWI_MAX_CONTEXT (1024), not reported by query_device
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(hard, 4096),
                                                max(hard, 4096)))
    ctxs = fill("context", 1024, lambda: d.Context(name=dev), errno.ENOMEM)
    for c in ctxs:
        c.close()


def memlock(dev):
    """Register memory as nobody with RLIMIT_MEMLOCK at 64 KiB: up to the
    limit it works, past it ENOMEM, and what is freed counts no more."""
    limit = 64 * 1024
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (limit, limit))
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    say(os.getuid() == 65534 and os.geteuid() == 65534,
        "running as uid %d, RLIMIT_MEMLOCK %d" %
        (os.geteuid(), resource.getrlimit(resource.RLIMIT_MEMLOCK)[0]))
    ctx = d.Context(name=dev)
    pd = PD(ctx)
    expect("mr 1 MiB > RLIMIT_MEMLOCK", lambda: MR(pd, 1 << 20, ACCESS),
           errno.ENOMEM)
    mr1 = expect("mr 32 KiB", lambda: MR(pd, 32 * 1024, ACCESS), 0)
    mr2 = expect("mr 16 KiB more", lambda: MR(pd, 16 * 1024, ACCESS), 0)
    expect("mr 32 KiB more (past the limit)",
           lambda: MR(pd, 32 * 1024, ACCESS), errno.ENOMEM)
    for mr in (mr1, mr2):
        if mr:
            mr.close()
    mr3 = expect("mr 48 KiB after freeing both",
                 lambda: MR(pd, 48 * 1024, ACCESS), 0)
    if mr3:
        mr3.close()
    pd.close()
    ctx.close()


def churn(dev):
    """Create QPs, CQs and MRs of random sizes and post receives on them,
    without end, keeping up to 64 QPs and 256 MRs: the test kills it."""
    rnd = random.Random(os.getpid())
    ctx = d.Context(name=dev)
    pd = PD(ctx)
    cqs, qps, mrs = [], [], []
    n = posted = 0
    while True:
        cq = CQ(ctx, rnd.choice([1, 64, 1024, 16384]), None, None, 0)
        cqs.append(cq)
        qp = QP(pd, qp_attr(cq, rnd.randint(1, 512), rnd.randint(1, 512),
                            rnd.randint(1, 6), rnd.randint(1, 6),
                            rnd.choice([0, 80])))
        qps.append(qp)
        mr = MR(pd, rnd.choice([4096, 65536, 1 << 20]), ACCESS)
        mrs.append(mr)
        try:
            attr = QPAttr(qp_state=e.IBV_QPS_INIT)
            qp.to_init(attr)
            for _ in range(rnd.randint(1, 16)):
                qp.post_recv(RecvWR(num_sge=1,
                                    sg=[SGE(mr.buf, 64, mr.lkey)]))
                posted += 1
        except PyverbsError:
            pass
        if len(qps) > 64:
            qps.pop(0).close()
            cqs.pop(0).close()
        if len(mrs) > 256:
            mrs.pop(0).close()
        n += 1
        if n % 50 == 0:
            print("churn: %d rounds, %d QPs, %d MRs, %d receives posted" %
                  (n, len(qps), len(mrs), posted), flush=True)


def cg_current(cg, dev):
    """DEV's line of the cgroup's rdma.current, without the name."""
    with open(os.path.join(cg, "rdma.current")) as f:
        for line in f:
            if line.split()[0] == dev:
                return " ".join(sorted(line.split()[1:]))
    return "(no line for %s)" % dev


def share(dev, n, cg):
    """RFC 5040 section 8.1.2, requirement 6 (no Local Peer takes more than
    its fair share), as an administrator bounds it: in rdma cgroup cg,
    whose rdma.max allows one user context and n objects on dev, the
    process gets exactly those (a PD and n - 1 CQs; the next object and a
    second context refused with EAGAIN), while a process outside the group
    creates 2n objects on the same device. Its release uncharges all."""
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    ctx = d.Context(name=dev)
    expect("second context in the group", lambda: d.Context(name=dev),
           errno.EAGAIN)
    pd = PD(ctx)
    cqs = fill("cq in the group", n - 1, lambda: CQ(ctx, 1, None, None, 0),
               errno.EAGAIN)
    want = "hca_handle=1 hca_object=%d" % n
    got = cg_current(cg, dev)
    say(got == want, "rdma.current at the share: %s (expected %s)" %
        (got, want))
    root = os.path.dirname(cg.rstrip("/"))

    def leave():
        with open(os.path.join(root, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    rc = subprocess.run([sys.executable, sys.argv[0], "free", dev,
                         str(2 * n)], preexec_fn=leave, check=False)
    say(rc.returncode == 0, "a process outside the group: %d objects "
        "while the group holds its share (status %d)" % (2 * n,
                                                         rc.returncode))
    for cq in cqs:
        cq.close()
    pd.close()
    ctx.close()
    want = "hca_handle=0 hca_object=0"
    got = cg_current(cg, dev)
    say(got == want, "rdma.current once released: %s (expected %s)" %
        (got, want))


def free(dev, n):
    """A PD and n - 1 CQs on dev, each of which must work."""
    ctx = d.Context(name=dev)
    pd = expect("outside the group: pd", lambda: PD(ctx), 0)
    objs = []
    for _ in range(n - 1):
        obj, got = attempt(lambda: CQ(ctx, 1, None, None, 0))
        if got:
            break
        objs.append(obj)
    say(len(objs) == n - 1, "outside the group: %d of %d CQs" %
        (len(objs), n - 1))
    for obj in objs:
        obj.close()
    if pd:
        pd.close()
    ctx.close()


def main():
    """Dispatch the subcommand."""
    cmd, dev = sys.argv[1], sys.argv[2]
    if cmd == "sizes":
        sizes(dev)
    elif cmd == "counts":
        counts(dev, int(sys.argv[3]))
    elif cmd == "memlock":
        memlock(dev)
    elif cmd == "churn":
        churn(dev)
    elif cmd == "share":
        share(dev, int(sys.argv[3]), sys.argv[4])
    elif cmd == "free":
        free(dev, int(sys.argv[3]))
    else:
        sys.exit("unknown command %s" % cmd)
    print("%s: %d failed" % (cmd, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
