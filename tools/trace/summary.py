#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the ftrace buffers of `make trace`.

For each trace-NAME.txt: how long woken threads waited for a CPU (from
sched_waking to the sched_switch onto them), per kind of thread, and how
long queued work items waited for a worker (from workqueue_queue_work to
workqueue_execute_start), per work function; with perftest's figure from
lat-NAME.txt. A trace with the user probes of the event runs also gets
the one-way path of a message cut into segments (see SEGMENTS), medians
over the messages. Usage: summary.py RESULTS-DIR
"""
import glob
import os
import re
import statistics
import sys

LINE = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+'
                  r'(?P<ts>\d+\.\d+):\s+(?P<event>\w+):\s+(?P<rest>.*)$')
KV = re.compile(r'(\w+)=(\S+)')


def kind(comm):
    """A thread's kind: its name without instance numbers."""
    comm = re.sub(r'/\S*', '', comm)
    return re.sub(r'\d+$', '', comm) or comm


def stats(values):
    """count, median, p90 and max of microsecond values, as text."""
    if not values:
        return '     0'
    v = sorted(values)
    p90 = v[min(len(v) - 1, int(len(v) * 0.9))]
    return '%6d %9.0f %9.0f %9.0f' % (len(v), statistics.median(v), p90,
                                      v[-1])


def parse(path):
    """Wakeup and work-queueing delays (us) of one trace."""
    waking, wake_delay = {}, {}
    queued, work_delay = {}, {}
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        ts, ev, rest = float(m['ts']), m['event'], m['rest']
        kv = dict(KV.findall(rest))
        if ev == 'sched_waking':
            waking.setdefault(kv.get('pid'), (ts, kv.get('comm', '?')))
        elif ev == 'sched_switch':
            w = waking.pop(kv.get('next_pid'), None)
            if w:
                wake_delay.setdefault(kind(w[1]), []).append(
                    (ts - w[0]) * 1e6)
        elif ev == 'workqueue_queue_work':
            queued[kv.get('struct')] = (ts, kv.get('function', '?'))
        elif ev == 'workqueue_execute_start':
            ws = re.search(r'work struct (\S+):', rest)
            q = queued.pop(ws.group(1), None) if ws else None
            if q:
                work_delay.setdefault(q[1], []).append((ts - q[0]) * 1e6)
    return wake_delay, work_delay


SEGMENTS = (
    ('A', 'event returned -> doorbell write()'),
    ('B', 'doorbell -> segment on the veth'),
    ('C', 'veth -> receive on the peer CPU'),
    ('D', 'receive -> wake-up of the peer'),
    ('E', 'wake-up -> peer on its CPU'),
    ('F', 'on its CPU -> event returned'),
)


def events(path):
    """(ts us, pid, event, rest) of every event line of a trace."""
    out = []
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if m:
            out.append((float(m['ts']) * 1e6, m['pid'], m['event'],
                        m['rest']))
    return out


def next_event(evs, k, test):
    """Index of the first event from @k on that passes @test, or None."""
    while k < len(evs):
        if test(evs[k]):
            return k
        k += 1
    return None


def one_way(evs, i):
    """The segment times of the message whose doorbell is evs[i], or None.

    A: the poster's last ibv_get_cq_event() return before its write();
    B: its first data segment (longer than a bare ACK) queued on a veth;
    C: the same skb received; D: the other perftest thread woken;
    E: switched to; F: its ibv_get_cq_event() returns.
    """
    t, pid = evs[i][0], evs[i][1]
    a = next((e for e in reversed(evs[:i])
              if e[2] == 'getev_out' and e[1] == pid), None)
    k = next_event(evs, i, lambda e: e[2] == 'net_dev_queue' and
                   int(dict(KV.findall(e[3])).get('len', 0)) > 66)
    if a is None or k is None:
        return None
    skb = dict(KV.findall(evs[k][3])).get('skbaddr')
    marks = [a[0], t, evs[k][0]]
    k = next_event(evs, k, lambda e: e[2] == 'netif_receive_skb' and
                   dict(KV.findall(e[3])).get('skbaddr') == skb)
    if k is None:
        return None
    marks.append(evs[k][0])
    k = next_event(evs, k, lambda e: e[2] == 'sched_waking' and
                   dict(KV.findall(e[3])).get('comm') == 'ib_send_lat' and
                   dict(KV.findall(e[3])).get('pid') != pid)
    if k is None:
        return None
    peer = dict(KV.findall(evs[k][3]))['pid']
    marks.append(evs[k][0])
    for test in (lambda e: e[2] == 'sched_switch' and
                 dict(KV.findall(e[3])).get('next_pid') == peer,
                 lambda e: e[2] == 'getev_out' and e[1] == peer):
        k = next_event(evs, k, test)
        if k is None:
            return None
        marks.append(evs[k][0])
    return [b - a for a, b in zip(marks, marks[1:])]


def segments(path):
    """Per segment, the list of its times (us) over the messages."""
    evs = events(path)
    seg = {}
    for i, e in enumerate(evs):
        if e[2] != 'wr_in':
            continue
        times = one_way(evs, i)
        if times:
            for (key, _), v in zip(SEGMENTS, times):
                seg.setdefault(key, []).append(v)
    return seg


def print_segments(path):
    """The segment table of one trace, if it has the user probes."""
    seg = segments(path)
    if not seg:
        return
    print('  %-34s %6s %9s %9s %9s' % ('one way, segment', 'count',
                                       'median', 'p90', 'max'))
    total = 0
    for key, what in SEGMENTS:
        v = seg.get(key, [])
        total += statistics.median(v) if v else 0
        print('  %-34s %s' % (('%s %s' % (key, what))[:34], stats(v)))
    print('  %-34s %6s %9.0f' % ('sum of the medians', '', total))


def figure(path):
    """perftest's result line: t_typical [usec] or BW average [MB/s]."""
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 5 and f[0] == '64' and f[1].isdigit():
                return 'ib_send_lat t_typical %s us' % f[4]
            if len(f) >= 4 and f[0] == '65536' and f[1].isdigit():
                return 'ib_write_bw BW average %s MB/s' % f[3]
    except OSError:
        pass
    return 'no perftest figure'


def main():
    res = sys.argv[1]
    for path in sorted(glob.glob(os.path.join(res, 'trace-*.txt'))):
        name = os.path.basename(path)[6:-4]
        wake, work = parse(path)
        print('== %s: %s' %
              (name, figure(os.path.join(res, 'lat-%s.txt' % name))))
        print('  %-34s %6s %9s %9s %9s' % ('woken thread: wait for a CPU',
                                           'count', 'median', 'p90', 'max'))
        for k in sorted(wake, key=lambda k: -len(wake[k]))[:8]:
            print('  %-34s %s' % (k[:34], stats(wake[k])))
        print('  %-34s %6s %9s %9s %9s' % ('work item: wait for a worker',
                                           'count', 'median', 'p90', 'max'))
        for k in sorted(work, key=lambda k: -len(work[k]))[:8]:
            print('  %-34s %s' % (k[:34], stats(work[k])))
        print_segments(path)
    return 0


if __name__ == '__main__':
    sys.exit(main())
