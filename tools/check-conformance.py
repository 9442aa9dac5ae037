#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/conformance.rst (part of `make lint`).

Every row of the table's list-tables (``* - ID`` then five more fields:
Section, Requirement, Status, Code, Test) must

* have a status of KEPT, DEVIATES or N.A.; DEVIATES and N.A. with the
  reason after it (DEVIATES: what the code does instead; N.A.: why);
* name only tests that exist: ``suite.case`` is a KUnit case of the suite
  whose .name is suite (kunit/*.c), a quoted parameter description after
  it must be a string of that file; ``name-with-dashes`` is a
  tools/mpa-peer case (as `mpa-peer --list` prints them); a path
  (tools/e2e/NN-name.sh) must be a file;
* name a test, or say "none" and be listed under "Rows without a test"
  (the known gaps, which the document counts), or be N.A.;
* have an ID no other row has;

and the Summary table's counts, and those README gives, must be those of
the rows.

It also fails when the table has no row at all, when a row is listed
under "Rows without a test" but has a test or does not exist, and prints
the counts per RFC and status.

Usage: tools/check-conformance.py [--self-test] [FILE]
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW = re.compile(r'^   \* - (\S+)\s*$')
FIELD = re.compile(r'^     - ?(.*)$')
CONT = re.compile(r'^       (.*)$')
ID = re.compile(r'^(\d{4})-[0-9A-Za-z.]+-[a-z]{1,2}$')
TOKEN = re.compile(r'``([^`]+)``')
KCASE = re.compile(r'^softiwarp_\w+\.\w+$')
PEER = re.compile(r'^[a-z0-9]+(-[a-z0-9]+)+$')
STATUSES = ('KEPT', 'DEVIATES', 'N.A.')


def squash(s):
    return ' '.join(s.split())


def kunit_cases(top):
    """{suite: set of cases} from kunit/, and the squashed text of kunit/."""
    suites, texts = {}, []
    kdir = os.path.join(top, 'kunit')
    for fn in sorted(os.listdir(kdir)):
        if not fn.endswith('.c'):
            continue
        with open(os.path.join(kdir, fn), encoding='utf-8') as f:
            text = f.read()
        arrays = {}
        for m in re.finditer(r'struct\s+kunit_case\s+(\w+)\s*\[\]\s*=\s*'
                             r'\{(.*?)\n\};', text, re.S):
            arrays[m.group(1)] = set(re.findall(
                r'KUNIT_CASE(?:_PARAM|_SLOW|_PARAM_ATTR|_ATTR)?\(\s*(\w+)',
                m.group(2)))
        for m in re.finditer(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};',
                             text, re.S):
            name = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
            cases = re.search(r'\.test_cases\s*=\s*(\w+)', m.group(1))
            if name and cases:
                suites[name.group(1)] = arrays.get(cases.group(1), set())
        texts.append(squash(text))
    return suites, ' '.join(texts)


def peer_cases(top):
    out = subprocess.run([sys.executable,
                          os.path.join(top, 'tools/mpa-peer/mpa-peer'),
                          '--list'], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[2] for line in out.splitlines()
            if len(line.split()) >= 3}


def parse(path):
    """Rows as dicts (id, line, fields) and the IDs listed as untested."""
    rows, cur, untested, in_gaps = [], None, {}, False
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        if line.startswith('Rows without a test'):
            in_gaps = True
        if in_gaps:
            if line.startswith('- '):
                for rid in re.findall(r'\d{4}-[0-9A-Za-z.]+-[a-z]{1,2}\b',
                                      line[2:].split(':')[0]):
                    untested[rid] = n
            continue
        m = ROW.match(line)
        if m:
            cur = {'id': m.group(1), 'line': n, 'fields': [m.group(1)]}
            rows.append(cur)
            continue
        if cur is None:
            continue
        m = FIELD.match(line)
        if m:
            cur['fields'].append(m.group(1))
            continue
        m = CONT.match(line)
        if m and len(cur['fields']) > 1:
            cur['fields'][-1] += ' ' + m.group(1)
            continue
        if line.strip() == '' or not line.startswith(' '):
            cur = None
    return rows, untested


def check_test(field, suites, ktext, peers, top):
    """Problems with the Test field; and whether it names a test."""
    probs, named = [], False
    toks = TOKEN.findall(field)
    for tok in toks:
        if KCASE.match(tok):
            suite, case = tok.split('.')
            if suite not in suites:
                probs.append('no KUnit suite %s' % suite)
                continue
            cases = suites[suite]
            if case not in cases:
                probs.append('no KUnit case %s in %s' % (case, suite))
                continue
            named = True
            after = field.split('``%s``' % tok, 1)[1]
            after = after.split('``', 1)[0]
            for desc in re.findall(r'"([^"]+)"', after):
                if squash(desc) not in ktext:
                    probs.append('no parameter "%s" in kunit/' %
                                 squash(desc))
        elif '/' in tok and tok.startswith('tools/'):
            if not os.path.exists(os.path.join(top, tok)):
                probs.append('no file %s' % tok)
            else:
                named = True
        elif PEER.match(tok):
            if tok not in peers:
                probs.append('no mpa-peer case %s' % tok)
            else:
                named = True
    return probs, named


def check(path, top):
    rows, untested = parse(path)
    (suites, ktext), peers = kunit_cases(top), peer_cases(top)
    probs, seen, counts = [], {}, {}
    if not rows:
        probs.append('%s: no rows' % path)
    for r in rows:
        where = '%s:%d: %s' % (path, r['line'], r['id'])
        f = r['fields']
        m = ID.match(r['id'])
        if not re.match(r'^\d{4}-', r['id']):
            continue
        if not m:
            probs.append('%s: malformed ID' % where)
            continue
        if r['id'] in seen:
            probs.append('%s: ID also on line %d' % (where, seen[r['id']]))
        seen[r['id']] = r['line']
        if len(f) != 6:
            probs.append('%s: %d fields, not 6' % (where, len(f)))
            continue
        status = f[3].strip()
        kind = next((s for s in STATUSES if status.startswith(s)), None)
        if kind is None:
            probs.append('%s: status "%s"' % (where, status[:30]))
            continue
        key = (m.group(1), kind)
        counts[key] = counts.get(key, 0) + 1
        if kind != 'KEPT' and len(status) < len(kind) + 10:
            probs.append('%s: %s without its reason' % (where, kind))
        tprobs, named = check_test(f[5], suites, ktext, peers, top)
        probs += ['%s: %s' % (where, p) for p in tprobs]
        if kind == 'N.A.':
            continue
        if not named and r['id'] not in untested:
            probs.append('%s: no test, and not under "Rows without a test"'
                         % where)
        if named and r['id'] in untested:
            probs.append('%s: has a test but is listed without one' % where)
    probs += check_summary(path, counts)
    if path == os.path.join(top, 'Documentation/conformance.rst'):
        probs += check_readme(os.path.join(top, 'README'), counts,
                              len(untested))
    for rid, n in untested.items():
        if rid not in seen:
            probs.append('%s:%d: %s listed without a test but no such row'
                         % (path, n, rid))
    return probs, counts, untested


def check_summary(path, counts):
    """The Summary table's rows (RFC, KEPT, DEVIATES, N.A., Rows) agree."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    probs = []
    for m in re.finditer(r'^   \* - (\d{4}) \([^)]*\)\n((?:     - \d+\n){4})',
                         text, re.M):
        rfc = m.group(1)
        nums = [int(x) for x in re.findall(r'\d+', m.group(2))]
        want = [counts.get((rfc, s), 0) for s in STATUSES]
        want.append(sum(want))
        if nums != want:
            probs.append('%s: Summary says %s for RFC %s, the rows %s' %
                         (path, nums, rfc, want))
    return probs


def check_readme(path, counts, gaps):
    """README's sentence on the table gives the table's counts."""
    with open(path, encoding='utf-8') as f:
        text = squash(f.read())
    m = re.search(r'(\d+) rows over .*? of which (\d+) KEPT, (\d+) DEVIATES'
                  r' .*? and (\d+) N\.A\..*? no test checks yet: (\d+)',
                  text)
    if not m:
        return ['%s: no sentence with the conformance counts' % path]
    tot = [sum(v for k, v in counts.items() if k[1] == s) for s in STATUSES]
    want = [sum(tot)] + tot + [gaps]
    got = [int(x) for x in m.groups()]
    if got != want:
        return ['%s: says rows/KEPT/DEVIATES/N.A./untested %s, the table %s'
                % (path, got, want)]
    return []


def self_test(top):
    bad = '''Table
.. list-table::

   * - ID
     - Section
     - Requirement
     - Status
     - Code
     - Test
   * - 5044-3-a
     - 3
     - A thing (MUST).
     - KEPT
     - here
     - ``softiwarp_mpa_frame.no_such_case``
   * - 5044-3-b
     - 3
     - Another (MUST).
     - DEVIATES
     - here
     - ``no-such-peer-case``
   * - 5044-3-c
     - 3
     - A third (MUST).
     - KEPT
     - here
     - none
   * - 5044-3-c
     - 3
     - A fourth (MUST).
     - N.A.
     - here
     - none
'''
    want = ['no KUnit case no_such_case', 'DEVIATES without its reason',
            'no mpa-peer case no-such-peer-case',
            'no test, and not under', 'ID also on line',
            'N.A. without its reason']
    with tempfile.NamedTemporaryFile('w', suffix='.rst', delete=False) as t:
        t.write(bad)
    try:
        probs, _, _ = check(t.name, top)
    finally:
        os.unlink(t.name)
    text = '\n'.join(probs)
    missing = [w for w in want if w not in text]
    if missing:
        print('check-conformance: self-test did not find: %s\n%s' %
              (', '.join(missing), text))
        return 1
    print('check-conformance: self-test passed')
    return 0


def main():
    args = sys.argv[1:]
    if args and args[0] == '--self-test':
        return self_test(TOP)
    path = args[0] if args else os.path.join(TOP,
                                             'Documentation/conformance.rst')
    probs, counts, untested = check(path, TOP)
    for p in probs:
        print(p)
    for rfc in sorted({k[0] for k in counts}):
        print('RFC %s: %s' % (rfc, ', '.join(
            '%d %s' % (counts.get((rfc, s), 0), s) for s in STATUSES)))
    print('rows without a test: %d' % len(untested))
    return 1 if probs else 0


if __name__ == '__main__':
    sys.exit(main())
