#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where connection setup and teardown spend their time (make trace-cm).

Reads DIR/trace-cm-DRV-N.txt (ftrace text, tools/guest/trace-cm.sh) and
DIR/cmtime-DRV-N.txt. A connection is known by its client's TCP port: the
port rdma_cm bound, which softiwarp and siw both bind their socket to, so
TCP's state changes, rdma_cm's events and softiwarp's MPA events of one
connection share it. Per run, each phase's median, 90th percentile and
maximum over the connections (ms), the run's own span, and the work items
that ran (how long they waited in their queue, how long they ran).

Usage: cm-summary.py DIR
"""
import collections
import glob
import os
import re
import sys

LINE = re.compile(r'^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+(\(.*?\)\s+)?\[(?P<cpu>\d+)\]'
                  r'\s+(\S+\s+)?(?P<ts>\d+\.\d+):\s+(?P<ev>\w+):\s+(?P<rest>.*)$')
PORT = 7471
ADDR = r'\[?[0-9a-fA-F.:]+?\]?:(\d+)'


def port_pair(text):
    """The two ports of "A:P -> B:Q" or of "src=A:P dst=B:Q"."""
    m = re.search(r'src=' + ADDR + r' dst=' + ADDR, text)
    if not m:
        m = re.search(ADDR + r' -> ' + ADDR, text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2))


def client_port(pair):
    """The port of a pair that is not the server's (None if neither)."""
    if pair is None:
        return None
    a, b = pair
    if a == PORT and b != PORT:
        return b
    if b == PORT and a != PORT:
        return a
    return None


def parse(path):
    """Per connection, the first time of each mark; the work items."""
    conn = collections.defaultdict(dict)
    work = collections.defaultdict(list)     # function -> [(wait, run)]
    queued = {}                              # work struct -> (t, function)
    started = {}
    events = collections.Counter()
    calls = collections.defaultdict(list)    # function -> [duration]
    entered = {}                             # (pid, function) -> t
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            t = float(m.group('ts')) * 1000.0
            ev, rest = m.group('ev'), m.group('rest')
            events[ev] += 1
            mark = None
            key = None
            if ev == 'inet_sock_set_state':
                sp = re.search(r'sport=(\d+) dport=(\d+)', rest)
                st = re.search(r'oldstate=(\w+) newstate=(\w+)', rest)
                if not sp or not st:
                    continue
                sport, dport = int(sp.group(1)), int(sp.group(2))
                side = 's' if sport == PORT else 'c'
                key = dport if side == 's' else sport
                old, new = st.group(1), st.group(2)
                if side == 'c' and new == 'TCP_SYN_SENT':
                    mark = 'c_syn'
                elif new == 'TCP_ESTABLISHED':
                    mark = side + '_tcp'
                elif new in ('TCP_FIN_WAIT1', 'TCP_CLOSE_WAIT'):
                    mark = side + '_fin'
                elif new == 'TCP_CLOSE':
                    mark = side + '_close'
            elif ev in ('cm_event_handler', 'cm_disconnect'):
                pair = port_pair(rest)
                key = client_port(pair)
                if key is None:
                    continue
                side = 's' if pair[0] == PORT else 'c'
                if ev == 'cm_disconnect':
                    mark = side + '_disc'
                else:
                    name = re.search(r'tos=\d+ (\w+)', rest)
                    name = name.group(1) if name else '?'
                    mark = {'CONNECT_REQUEST': 's_cr',
                            'ESTABLISHED': side + '_est',
                            'DISCONNECTED': side + '_discev',
                            'REJECTED': side + '_rej',
                            'UNREACHABLE': side + '_unreach',
                            'CONNECT_ERROR': side + '_err'}.get(name)
            elif ev.startswith('mpa_') or ev == 'cm_outcome':
                pair = port_pair(rest)
                key = client_port(pair)
                mark = {'mpa_request_sent': 'req_sent',
                        'mpa_request_recv': 'req_recv',
                        'mpa_reply_sent': 'rep_sent',
                        'mpa_reply_recv': 'rep_recv'}.get(ev)
            elif ev.endswith('_in') or ev.endswith('_out'):
                fn, end = ev.rsplit('_', 1)
                k = (m.group('pid'), fn)
                if end == 'in':
                    entered[k] = t
                elif k in entered:
                    calls[fn].append(t - entered.pop(k))
            elif ev == 'workqueue_queue_work':
                w = re.search(r'work struct=(\S+) function=(\S+)', rest)
                if w:
                    queued[w.group(1)] = (t, w.group(2))
            elif ev == 'workqueue_execute_start':
                w = re.search(r'work struct (\S+?):? function (\S+)', rest)
                if w:
                    q = queued.pop(w.group(1), None)
                    started[w.group(1)] = (t, w.group(2),
                                           t - q[0] if q else None)
            elif ev == 'workqueue_execute_end':
                w = re.search(r'work struct (\S+?):? function (\S+)', rest)
                if w and w.group(1) in started:
                    t0, fn, wait = started.pop(w.group(1))
                    work[fn].append((wait, t - t0))
            if mark and key is not None and mark not in conn[key]:
                conn[key][mark] = t
    return conn, work, events, calls


def stats(values):
    """median, 90th percentile, max of a list (None when empty)"""
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    return v[len(v) // 2], v[min(len(v) - 1, (len(v) * 9) // 10)], v[-1]


def fmt(s):
    return '%8.2f %8.2f %8.2f' % s if s else '%8s %8s %8s' % ('-', '-', '-')


# phases: (label, from mark, to mark); a from of None is the step's start
SETUP = [('SYN sent, from the step start', None, 'c_syn'),
         ('TCP handshake (client)', 'c_syn', 'c_tcp'),
         ('TCP est. -> Request sent', 'c_tcp', 'req_sent'),
         ('Request sent -> parsed', 'req_sent', 'req_recv'),
         ('Request parsed -> CONNECT_REQUEST', 'req_recv', 's_cr'),
         ('server TCP est. -> CONNECT_REQUEST', 's_tcp', 's_cr'),
         ('CONNECT_REQUEST -> Reply sent', 's_cr', 'rep_sent'),
         ('Reply sent -> parsed', 'rep_sent', 'rep_recv'),
         ('Reply parsed -> client ESTABLISHED', 'rep_recv', 'c_est'),
         ('CONNECT_REQUEST -> client ESTABLISHED', 's_cr', 'c_est'),
         ('CONNECT_REQUEST -> server ESTABLISHED', 's_cr', 's_est'),
         ('SYN -> client ESTABLISHED', 'c_syn', 'c_est'),
         ('client ESTABLISHED, from the step start', None, 'c_est')]
TEARDOWN = [('client FIN, from the step start', None, 'c_fin'),
            ('client FIN -> server CLOSE_WAIT', 'c_fin', 's_fin'),
            ('client FIN -> server DISCONNECTED', 'c_fin', 's_discev'),
            ('client FIN -> client DISCONNECTED', 'c_fin', 'c_discev'),
            ('client DISCONNECTED, from the step start', None, 'c_discev'),
            ('server DISCONNECTED, from the step start', None,
             's_discev')]


def table(conn, phases, start_mark):
    starts = [c[start_mark] for c in conn.values() if start_mark in c]
    if not starts:
        return []
    t0 = min(starts)
    rows = []
    for label, a, b in phases:
        d = [c[b] - (t0 if a is None else c[a]) for c in conn.values()
             if b in c and (a is None or a in c)]
        if d:
            rows.append('  %-42s %5d %s' % (label, len(d), fmt(stats(d))))
    return rows


def one(path, cmtime):
    conn, work, events, calls = parse(path)
    conn = {k: v for k, v in conn.items() if 'c_syn' in v or 's_cr' in v}
    print('== %s: %d connections traced, %d events' %
          (os.path.basename(path), len(conn), sum(events.values())))
    if os.path.exists(cmtime):
        fails = collections.Counter()
        with open(cmtime, errors='replace') as f:
            for line in f:
                if re.match(r'\s*(step|create qp|connect|disconnect)', line):
                    print('  cmtime| ' + line.rstrip())
                elif re.search(r'fail|error', line, re.I):
                    fails[line.strip()] += 1
        for line, n in fails.most_common(3):
            print('  cmtime| %dx %s' % (n, line))
    head = '  %-42s %5s %8s %8s %8s' % ('phase (ms)', 'n', 'median', 'p90',
                                         'max')
    print(head)
    for row in table(conn, SETUP, 'c_syn'):
        print(row)
    print('  -- teardown')
    for row in table(conn, TEARDOWN, 'c_fin'):
        print(row)
    resets = [c for c in conn.values() if 'c_fin' not in c]
    if resets:
        print('  connections whose client sent no FIN: %d' % len(resets))
    print('  %-42s %5s %8s %8s %8s %8s' % ('call (ms)', 'n', 'median',
                                            'p90', 'max', 'total'))
    for fn in sorted(calls):
        s = stats(calls[fn])
        print('  %-42s %5d %s %8.2f' % (fn, len(calls[fn]), fmt(s),
                                         sum(calls[fn])))
    print('  %-42s %5s %8s %8s %8s %8s' % ('work item: wait / run (ms)', 'n',
                                            'wait med', 'wait max',
                                            'run med', 'run max'))
    busy = sorted(work.items(), key=lambda kv: -sum(r for _, r in kv[1]))
    for fn, runs in busy[:12]:
        w = stats([x for x, _ in runs])
        r = stats([x for _, x in runs])
        print('  %-42s %5d %8s %8s %8.3f %8.3f' %
              (fn[:42], len(runs), '%.3f' % w[0] if w else '-',
               '%.3f' % w[2] if w else '-', r[0], r[2]))
    return len(conn)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    runs = sorted(glob.glob(os.path.join(d, 'trace-cm-*-*.txt')),
                  key=lambda p: (int(re.search(r'-(\d+)(-r\d+)?\.txt$',
                                               p).group(1)), p))
    if not runs:
        print('cm-summary: no trace-cm-*.txt in %s' % d, file=sys.stderr)
        return 1
    seen = 0
    for p in runs:
        name = re.search(r'trace-cm-(.*)\.txt$', p).group(1)
        seen += one(p, os.path.join(d, 'cmtime-%s.txt' % name))
    return 0 if seen else 1


if __name__ == '__main__':
    sys.exit(main())
