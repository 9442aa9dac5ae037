#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the upstream patch series of softiwarp for one kernel tree.

The series adds drivers/infiniband/sw/softiwarp/ (the sources in their
layer folders, Kconfig, Makefile, .kunitconfig), a MAINTAINERS entry and
Documentation/infiniband/softiwarp.rst to the tree, one patch per layer:

  1 MAINTAINERS and mpa/     5 dev/ (the ib_device)
  2 ddp/                     6 cm/ (the connection manager)
  3 rdmap/                   7 kunit/ (the KUnit suites)
  4 engine/                  8 Kconfig, Makefiles, .kunitconfig, docs

The Makefile grows with each patch (its objects are compiled from the patch
that adds them, tools/upstream/check-series.sh checks that); the Kconfig
entry that lets a configuration enable the driver comes last, when the
module is complete (dev/ and cm/ call each other, as do engine/ and dev/).

The sources are the repository's own, made fit for the tree:

* the out-of-tree compatibility layer (compat.h, dev/verbs_compat.h and the
  SWI_HAVE_* keys Kbuild probes) is resolved for the tree given: each macro
  is replaced by what it stands for there, each #ifdef SWI_HAVE_* block kept
  or dropped, and "compat.h" gives way to the kernel headers it provided;
* includes from the module's top folder ("mpa/mpa.h", through -I$(src) out
  of tree) become relative ("../mpa/mpa.h");
* SWI_VERSION (Kbuild reads it from VERSION) is defined in dev/softiwarp.h;
* on a tree with the typed allocators (kmalloc_obj()), the allocations of one
  object use them, as that tree's checkpatch asks.

Usage: mkseries.py --tree KSRC --out DIR
  KSRC  a kernel source tree (Debian's linux-source-6.12, a 7.x tree)
  DIR   where the series goes (emptied first): 0000-cover-letter.patch,
        0001-....patch and series (their names in order)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEST = 'drivers/infiniband/sw/softiwarp'
AUTHOR = 'softiwarp developers <dev@softiwarp>'

# (folder, subject, body) per patch, in order; the last is the build's
LAYERS = [
    ('mpa', 'MPA framing, CRC32c, Markers and the MPA Request/Reply',
     'RFC 5044 Marker PDU Aligned framing: FPDUs are built and parsed\n'
     '(CRC32c through the crypto API, Markers on send and receive, MULPDU\n'
     'from the TCP EMSS), and the MPA Request and Reply of revisions 0, 1\n'
     'and 2 (RFC 6581) are encoded and checked. Pure protocol logic: it\n'
     'includes nothing of <rdma/...>. A MAINTAINERS entry for the driver\n'
     'comes with it.'),
    ('ddp', 'DDP header checks',
     'RFC 5041 Direct Data Placement: the tagged and untagged headers and\n'
     'the checks of every field a peer sends (STag, TO, MSN, MO, queue\n'
     'number, version) that decide the Terminate of RFC 5040 section 7.'),
    ('rdmap', 'RDMAP codec, Terminate, QP states, memory and RFC 7306',
     'RFC 5040 RDMA Protocol: Read Request and Terminate codecs, the\n'
     'Terminate classification, the QP state machine, STag and memory\n'
     'region checks, and the RFC 7306 extensions (atomics, immediate\n'
     'data, invalidate). No state of a connection or a device.'),
    ('engine', 'the data path engine',
     'The transmit and receive engines that move the RDMAP messages of a\n'
     'QP over its kernel TCP socket: work queue processing, placement into\n'
     'memory regions, completions and the stream of FPDUs.'),
    ('dev', 'the ib_device, its verbs and the siw user ABI',
     'One ib_device per netdev ("rdma link add NAME type softiwarp netdev\n'
     'DEV"), the verbs for PDs, CQs, SRQs, MRs and QPs, and the siw user\n'
     'ABI, so that rdma-core\'s libsiw drives the device unchanged. With it\n'
     'comes cm/cm.h, the connection manager\'s calls that the device wires\n'
     'to iw_cm.'),
    ('cm', 'the connection manager',
     'Connection setup behind iw_cm over kernel sockets, IPv4 and IPv6,\n'
     'with the MPA exchange, the listener, RFC 8797 private data and the\n'
     'runtime MPA policy per device. With it the module is complete.'),
    ('kunit', 'KUnit suites',
     'The KUnit suites of every layer: RFC byte vectors, table-driven\n'
     'edge cases, randomized round trips with fixed seeds, and loopback\n'
     'tests of kernel QPs and of the connection manager.'),
]
COVER = """\
softiwarp turns any Ethernet device into an iWARP RDMA device by running
the whole iWARP stack in software over kernel TCP sockets: RDMAP (RFC
5040), DDP (RFC 5041), MPA (RFC 5044) with Markers and CRC32c, MPA
revision 2 (RFC 6581) and the extensions of RFC 7306 (atomics, immediate
data, invalidate). It registers one ib_device per netdev ("rdma link add
NAME type softiwarp netdev DEV") with the siw user ABI, so that
rdma-core's libsiw drives it unchanged, and the kernel's RDMA consumers
(nvme-rdma, nvmet-rdma, xprtrdma, svcrdma, rtrs) run over it.

The driver is layered, one folder per layer, each including only what is
below it: mpa/, ddp/ and rdmap/ are protocol logic with no state of a
connection or device (mpa/ and ddp/ include nothing of <rdma/...>);
engine/ moves a QP's messages over its socket; dev/ is the ib_device and
its verbs; cm/ the connection manager behind iw_cm. Every non-static
symbol carries the swi_ prefix. One patch per layer, bottom up; the last
adds the driver to the build (Kconfig, Makefile hook), a .kunitconfig and
Documentation/infiniband/softiwarp.rst. Before it, each patch's objects
compile with W=1 and sparse; the module is whole with patch 6.

Tested with the KUnit suites of patch 7 (tools/testing/kunit/kunit.py
run --kunitconfig=drivers/infiniband/sw/softiwarp), and out of tree with
rdma-core's tools, perftest, NVMe-oF and NFS over RDMA, interoperability
with siw, a hostile MPA peer, a hostile verbs user on a KASAN, lockdep and
kmemleak kernel, and libFuzzer on the wire parsers.
"""

# Headers that come with an earlier layer's patch: dev/ includes cm/'s
# door (device.c, qp.c and main.c wire the iw_cm callbacks), so that its
# objects compile before cm/ lands
EARLY = {'cm/cm.h': 'dev'}

BUILD_SUBJECT = 'add softiwarp to the build, its Kconfig and documentation'
BUILD_BODY = (
    'Kconfig entries RDMA_SOFTIWARP and RDMA_SOFTIWARP_KUNIT_TEST, the\n'
    'hook in drivers/infiniband, a .kunitconfig for tools/testing/kunit/\n'
    'kunit.py, and Documentation/infiniband/softiwarp.rst.')


def sh(cmd, **kw):
    """Run CMD; its stdout."""
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw).stdout


def probe(tree):
    """What the tree declares: the SWI_HAVE_* keys Kbuild would set, and
    its version as a tuple."""
    def has(header, pattern):
        try:
            with open(os.path.join(tree, 'include', header)) as f:
                return re.search(pattern, f.read(), re.M) is not None
        except OSError:
            return False
    verbs = ''
    try:
        with open(os.path.join(tree, 'include/rdma/ib_verbs.h')) as f:
            verbs = f.read()
    except OSError:
        sys.exit('mkseries: %s is not a kernel tree' % tree)
    m = re.search(r'\(\*reg_user_mr\)\(([^;]*);', verbs, re.S)
    keys = {
        'CRC32C_LIB': has('linux/crc32.h', r'u32 crc32c\(u32 crc'),
        'SOCKADDR_UNSIZED': has('linux/socket.h', r'^struct sockaddr_unsized'),
        'UMEM_GET_VA': has('rdma/ib_umem.h', r'ib_umem_get_va\('),
        'WQ_PERCPU': has('linux/workqueue.h', r'^\s*WQ_PERCPU\s*='),
        'REG_USER_MR_DMAH': bool(m and 'ib_dmah' in m.group(1)),
        'NTH_PAGE': has('linux/mm.h', r'define nth_page\(|\bnth_page\('),
        'ALLOC_OBJ': has('linux/slab.h', r'define kmalloc_obj\('),
    }
    with open(os.path.join(tree, 'Makefile')) as f:
        mk = f.read()
    ver = tuple(int(re.search(r'^%s = (\d+)' % k, mk, re.M).group(1))
                for k in ('VERSION', 'PATCHLEVEL'))
    return keys, ver


def macros(keys, ver):
    """The compatibility macros as the tree needs them: name -> (params or
    None, replacement); a replacement None leaves the name as it is."""
    def cast(t):
        return (['sa'], '(struct %s *)sa' % t)
    ns = ('"EXPORTED_FOR_KUNIT_TESTING"' if ver >= (6, 13)
          else 'EXPORTED_FOR_KUNIT_TESTING')
    m = {
        'swi_crc32c_lib': (['c', 'p', 'n'],
                           ('crc32c(c, p, n)' if keys['CRC32C_LIB']
                            else '__crc32c_le(c, p, n)')),
        'SWI_CRC32C_LIB_DRIVER': (None, '"crc32c-lib"' if keys['CRC32C_LIB']
                                  else '"crc32c-generic"'),
        'swi_sockaddr_arg': cast('sockaddr_unsized' if keys['SOCKADDR_UNSIZED']
                                 else 'sockaddr'),
        'SWI_IMPORT_KUNIT_NS': ([], 'MODULE_IMPORT_NS(%s)' % ns),
        'SWI_REG_USER_MR': (None, 'swi_reg_user_mr_dmah'
                            if keys['REG_USER_MR_DMAH'] else 'swi_reg_user_mr'),
        'swi_umem_get': (['d', 'a', 'l', 'x'],
                         ('ib_umem_get_va(d, a, l, x)' if keys['UMEM_GET_VA']
                          else 'ib_umem_get(d, a, l, x)')),
    }
    if keys['WQ_PERCPU']:
        m['SWI_WQ_PERCPU'] = (None, 'WQ_PERCPU')
    else:
        m['SWI_WQ_PERCPU'] = (None, '0')
    if ver >= (6, 11):
        m['SWI_CREATE_CQ_ARG'] = (None, 'struct uverbs_attr_bundle')
        m['swi_cq_udata'] = (['a'], 'a ? &a->driver_udata : NULL')
    else:
        m['SWI_CREATE_CQ_ARG'] = (None, 'struct ib_udata')
        m['swi_cq_udata'] = (['a'], 'a')
    if not keys['NTH_PAGE']:
        m['nth_page'] = (['p', 'n'], 'pfn_to_page(page_to_pfn(p) + (n))')
    return m


def split_args(text, i):
    """The arguments of the call whose '(' is at TEXT[i]; (args, end)."""
    depth, args, cur = 0, [], ''
    for j in range(i, len(text)):
        ch = text[j]
        if ch == '(':
            depth += 1
            if depth == 1:
                continue
        elif ch == ')':
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return [a for a in args if a != ''], j + 1
        elif ch == ',' and depth == 1:
            args.append(cur.strip())
            cur = ''
            continue
        cur += ch
    raise ValueError('unbalanced call')


def simple(arg):
    """ARG needs no parentheses inside a cast or after a unary operator."""
    return re.fullmatch(r'&?[A-Za-z_]\w*((->|\.)\w+)*', arg) is not None


def expand(text, table):
    """TEXT with every use of TABLE's macros replaced."""
    # a flag that is 0 on the tree goes with its "|"
    if table.get('SWI_WQ_PERCPU', (None, ''))[1] == '0':
        text = re.sub(r'\s*\|\s*SWI_WQ_PERCPU\b', '', text)
    for name, (params, repl) in table.items():
        if params is None:
            text = re.sub(r'\b%s\b' % name, repl, text)
            continue
        out, pos = '', 0
        for m in re.finditer(r'\b%s\s*\(' % name, text):
            if m.start() < pos:
                continue
            args, end = split_args(text, m.end() - 1)
            if len(args) != len(params):
                raise ValueError('%s: %d arguments' % (name, len(args)))
            body = repl
            for p, a in zip(params, args):
                # an argument right after a cast keeps its own parentheses
                if not simple(a) and re.search(r'\)%s\b' % p, repl):
                    a = '(%s)' % a
                body = re.sub(r'\b%s\b' % p, lambda _m, a=a: a, body)
            out += text[pos:m.start()] + body
            pos = end
        text = out + text[pos:]
    return text


def alloc_obj(text):
    """On a tree with the typed allocators (kmalloc_obj() and its kin,
    which its checkpatch asks for): "k[vmz]alloc(sizeof(*p), gfp)" as
    "k[vmz]alloc_obj(*p, gfp)"."""
    return re.sub(r'\b(kv|k)([mz])alloc\(\s*sizeof\s*\(([^()]*)\)\s*,',
                  lambda m: '%s%salloc_obj(%s,' % (m.group(1), m.group(2),
                                                  m.group(3).strip()), text)


def resolve_ifdefs(text, keys):
    """Keep or drop the #ifdef/#ifndef SWI_HAVE_KEY blocks (with #else) as
    the tree's keys say; other conditionals are left alone."""
    out, stack = [], []   # stack: None (foreign) or [keep-now, is-ours]
    for line in text.splitlines(keepends=True):
        m = re.match(r'#\s*(ifdef|ifndef)\s+SWI_HAVE_(\w+)', line)
        if m:
            val = keys.get(m.group(2), False)
            stack.append(val if m.group(1) == 'ifdef' else not val)
            continue
        if re.match(r'#\s*if', line):
            stack.append(None)
        elif re.match(r'#\s*else', line) and stack and stack[-1] is not None:
            stack[-1] = not stack[-1]
            continue
        elif re.match(r'#\s*endif', line) and stack:
            if stack.pop() is not None:
                continue
        if all(s is not False for s in stack):
            out.append(line)
    return ''.join(out)


COMPAT_INCLUDES = [
    # header, what a file uses of it (compat.h included it for them)
    ('kunit/visibility.h', r'VISIBLE_IF_KUNIT|EXPORT_SYMBOL_IF_KUNIT'),
    ('kunit/static_stub.h', r'KUNIT_STATIC_STUB_REDIRECT'),
    ('linux/crc32.h', r'\bcrc32c\(|__crc32c_le'),
    ('linux/mm.h', r'\bpfn_to_page|nth_page|\bpage_address|\bkmap'),
    ('linux/uio.h', r'\biov_iter|ITER_SOURCE|ITER_DEST|struct kvec'),
]


def fix_includes(text, path, users):
    """Relative project includes; "compat.h" replaced by the kernel headers
    it provided to PATH and USERS (the texts that include PATH), which join
    the file's first run of <...> includes; "dev/verbs_compat.h" by the
    verbs header it provided."""
    here = os.path.dirname(path)
    need = []

    def rel(m):
        inc = m.group(2)
        if inc == 'compat.h':
            need.extend(h for h, pat in COMPAT_INCLUDES
                        if any(re.search(pat, t) for t in [text] + users))
            return ''
        if inc == 'dev/verbs_compat.h':
            need.append('rdma/uverbs_ioctl.h')
            return ''
        if '/' not in inc or not os.path.exists(os.path.join(TOP, inc)):
            return m.group(0)
        r = os.path.relpath(inc, here or '.')
        return '%s"%s"\n' % (m.group(1), r)
    text = re.sub(r'^(#include )"([^"]+)"\n', rel, text, flags=re.M)
    if need:
        add = ''.join('#include <%s>\n' % h for h in need)
        m = re.search(r'^#include <', text, re.M)
        if m is None:
            m = re.search(r'^#include "', text, re.M)
            add += '\n'
        text = text[:m.start()] + add + text[m.start():]
    return text


def sort_includes(text):
    """Each run of <...> includes in order, duplicates dropped (compat.h's
    replacement joins the file's own)."""
    lines, out, run = text.splitlines(keepends=True), [], []
    for line in lines + ['']:
        if line.startswith('#include <'):
            run.append(line)
            continue
        if run:
            out.extend(sorted(set(run)))
            run = []
        out.append(line)
    return ''.join(out)


def module_files():
    """The sources of both modules by layer, from Kbuild's object lists,
    and every header of the layer folders (compat headers left out)."""
    with open(os.path.join(TOP, 'Kbuild')) as f:
        objs = re.findall(r'^\s*(\w+/\w+)\.o', f.read(), re.M)
    files = {}
    for layer, _, _ in LAYERS:
        d = os.path.join(TOP, layer)
        srcs = [o + '.c' for o in objs if o.startswith(layer + '/')]
        hdrs = sorted(layer + '/' + n for n in os.listdir(d)
                      if n.endswith('.h') and n != 'verbs_compat.h')
        files[layer] = (hdrs + srcs, [o + '.o' for o in objs
                                      if o.startswith(layer + '/')])
    for h, layer in EARLY.items():
        files[h.split('/')[0]][0].remove(h)
        files[layer][0].insert(0, h)
    return files


def transform(files, keys, ver):
    """path -> text of every file, fit for the tree."""
    table = macros(keys, ver)
    with open(os.path.join(TOP, 'VERSION')) as f:
        version = f.read().strip()
    raw = {}
    for layer in files:
        for p in files[layer][0]:
            with open(os.path.join(TOP, p)) as f:
                raw[p] = f.read()
    # what the compat headers define must all be resolved below
    compat = set()
    for h in ('compat.h', 'dev/verbs_compat.h'):
        with open(os.path.join(TOP, h)) as f:
            compat |= set(re.findall(r'^#define\s+(\w+)', f.read(), re.M))
        compat |= set(re.findall(r'^static inline [^(]*\b(\w+)\(',
                                 open(os.path.join(TOP, h)).read(), re.M))
    compat -= {'SOFTIWARP_COMPAT_H', 'SOFTIWARP_VERBS_COMPAT_H',
               'ITER_SOURCE', 'ITER_DEST', 'KUNIT_STATIC_STUB_REDIRECT',
               'nth_page'} - set(table)
    out = {}
    for p, text in raw.items():
        users = [t for q, t in raw.items()
                 if re.search(r'#include "%s"' % re.escape(p), t)]
        text = resolve_ifdefs(text, keys)
        text = expand(text, table)
        if keys['ALLOC_OBJ']:
            text = alloc_obj(text)
        text = fix_includes(text, p, [expand(u, table) for u in users])
        text = sort_includes(text)
        # what was dropped may leave two blank lines in a row
        text = re.sub(r'\n{3,}', '\n\n', text)
        if p == 'dev/softiwarp.h':
            text = text.replace(
                '#define SOFTIWARP_H\n',
                '#define SOFTIWARP_H\n\n/* the release (MAJOR.MINOR.PATCH) */'
                '\n#define SWI_VERSION\t"%s"\n' % version, 1)
        left = sorted(n for n in compat - {'SOFTIWARP_COMPAT_H',
                                            'SOFTIWARP_VERBS_COMPAT_H'}
                      if re.search(r'\b%s\b' % n, text))
        if left:
            sys.exit('mkseries: %s still uses %s' % (p, ', '.join(left)))
        out[p] = text
    return out


def makefile(files, upto):
    """The driver's Makefile with the objects of the first UPTO layers."""
    mod, kun = [], []
    for layer, _, _ in LAYERS[:upto]:
        (kun if layer == 'kunit' else mod).extend(files[layer][1])
    s = '# SPDX-License-Identifier: GPL-2.0\n\n'
    s += 'obj-$(CONFIG_RDMA_SOFTIWARP) += softiwarp.o\n\n'
    s += 'softiwarp-y := \\\n' + ' \\\n'.join('\t' + o for o in mod) + '\n'
    traces = [o for o in mod if o.endswith('_trace.o')]
    if traces:
        s += '\n# the trace headers name their folder in TRACE_INCLUDE_PATH\n'
        for o in traces:
            s += 'CFLAGS_%s := -I$(src)\n' % o
    if kun:
        s += '\nobj-$(CONFIG_RDMA_SOFTIWARP_KUNIT_TEST) += softiwarp_kunit.o\n\n'
        s += 'softiwarp_kunit-y := \\\n' + \
            ' \\\n'.join('\t' + o for o in kun) + '\n'
    return s


KCONFIG = '''\
# SPDX-License-Identifier: GPL-2.0-only
config RDMA_SOFTIWARP
	tristate "Software iWARP driver (softiwarp)"
	depends on INET && INFINIBAND
	depends on INFINIBAND_VIRT_DMA
	depends on IPV6 || IPV6=n
	select CRYPTO
	select CRYPTO_CRC32C
	help
	  softiwarp turns any Ethernet device into an iWARP RDMA device by
	  running the iWARP protocols (RFC 5040 RDMAP, RFC 5041 DDP and
	  RFC 5044 MPA, with RFC 6581 and RFC 7306) in software over kernel
	  TCP sockets. It implements the siw user ABI, so rdma-core's
	  libsiw drives it, and the kernel's RDMA consumers (NVMe-oF, NFS
	  over RDMA) run over it. A device is added with
	  "rdma link add NAME type softiwarp netdev DEV".

	  See <file:Documentation/infiniband/softiwarp.rst>.

	  To compile this driver as a module, choose M here: the module
	  will be called softiwarp.

config RDMA_SOFTIWARP_KUNIT_TEST
	tristate "KUnit tests for softiwarp" if !KUNIT_ALL_TESTS
	depends on RDMA_SOFTIWARP && KUNIT
	default KUNIT_ALL_TESTS
	help
	  The KUnit suites of softiwarp: the MPA, DDP and RDMAP codecs
	  against RFC byte vectors, the engine with kernel QPs in loopback
	  and the connection manager over kernel sockets.

	  If unsure, say N.
'''

KUNITCONFIG = '''\
CONFIG_KUNIT=y
CONFIG_NET=y
CONFIG_INET=y
CONFIG_IPV6=y
CONFIG_PCI=y
CONFIG_INFINIBAND=y
CONFIG_INFINIBAND_USER_ACCESS=y
CONFIG_INFINIBAND_ADDR_TRANS=y
CONFIG_RDMA_SOFTIWARP=y
CONFIG_RDMA_SOFTIWARP_KUNIT_TEST=y
'''


def maintainers(tree):
    """MAINTAINERS with the driver's entry in its alphabetical place."""
    with open(os.path.join(tree, 'MAINTAINERS')) as f:
        lines = f.read().splitlines(keepends=True)
    title = 'SOFTIWARP (SOFTWARE IWARP) DRIVER\n'
    entry = [title, 'M:\tsoftiwarp developers <dev@softiwarp>\n',
             'L:\tlinux-rdma@vger.kernel.org\n', 'S:\tMaintained\n',
             'F:\tDocumentation/infiniband/softiwarp.rst\n',
             'F:\t%s/\n' % DEST, '\n']
    start = next(i for i, ln in enumerate(lines) if ln.startswith('3C59X'))
    for i in range(start, len(lines) - 1):
        ln = lines[i]
        if (i == 0 or lines[i - 1] == '\n') and \
                re.match(r'[A-Z0-9]', ln) and re.match(r'[A-Z]:\t',
                                                       lines[i + 1]):
            if ln.upper() > title:
                return ''.join(lines[:i] + entry + lines[i:])
    sys.exit('mkseries: no place for the MAINTAINERS entry')


def hook(tree):
    """drivers/infiniband/Kconfig and sw/Makefile with softiwarp in."""
    with open(os.path.join(tree, 'drivers/infiniband/Kconfig')) as f:
        kc = f.read()
    kc = kc.replace('source "drivers/infiniband/sw/siw/Kconfig"\n',
                    'source "drivers/infiniband/sw/siw/Kconfig"\n'
                    'source "drivers/infiniband/sw/softiwarp/Kconfig"\n', 1)
    with open(os.path.join(tree, 'drivers/infiniband/sw/Makefile')) as f:
        mk = f.read()
    mk = mk.replace('obj-$(CONFIG_RDMA_SIW)\t\t\t+= siw/\n',
                    'obj-$(CONFIG_RDMA_SIW)\t\t\t+= siw/\n'
                    'obj-$(CONFIG_RDMA_SOFTIWARP)\t\t+= softiwarp/\n', 1)
    if 'softiwarp' not in kc or 'softiwarp' not in mk:
        sys.exit('mkseries: no siw entry to put softiwarp beside')
    with open(os.path.join(tree, 'Documentation/infiniband/index.rst')) as f:
        ix = f.read()
    ix = re.sub(r'(\n   sysfs\n)', r'\n   softiwarp\1', ix, count=1)
    if 'softiwarp' not in ix:
        sys.exit('mkseries: no place in Documentation/infiniband/index.rst')
    return {'drivers/infiniband/Kconfig': kc,
            'drivers/infiniband/sw/Makefile': mk,
            'Documentation/infiniband/index.rst': ix}


TITLE = """\
==============================
softiwarp: software iWARP RDMA
==============================

softiwarp turns any Ethernet device into an iWARP RDMA device, running
RDMAP (RFC 5040), DDP (RFC 5041) and MPA (RFC 5044, RFC 6581) and the
extensions of RFC 7306 in software over kernel TCP sockets. It implements
the siw user ABI, so rdma-core's libsiw drives it. This page is for
whoever creates its devices and keeps them running.

"""

INTRO = """\
Building
========

``CONFIG_RDMA_SOFTIWARP`` builds the driver (``softiwarp.ko`` as a module),
``CONFIG_RDMA_SOFTIWARP_KUNIT_TEST`` its KUnit suites::

  ./tools/testing/kunit/kunit.py run --arch=x86_64 \\
        --kunitconfig=drivers/infiniband/sw/softiwarp

The module's version (``modinfo softiwarp``) is also the device's firmware
string (``fw_ver`` in ``ibv_devinfo``).

"""


def doc():
    """Documentation/infiniband/softiwarp.rst: the administrator's guide,
    its section on installing the out-of-tree module replaced by building
    in the tree, its links to the project's other pages made plain."""
    with open(os.path.join(TOP, 'Documentation/admin-guide.rst')) as f:
        text = f.read()
    text = re.sub(r'\nInstalling\n=+\n.*?\n(?=[^\n]+\n=+\n)', '\n' + INTRO,
                  text, count=1, flags=re.S)
    text = re.sub(r' ?\(:doc:`[^`]*`\)', '', text)
    text = re.sub(r'[:;,]? ?(See )?:doc:`[^`]*`', '', text)
    text = re.sub(r':doc:`[^`]*`', 'the project documentation', text)
    text = re.sub(r'^=+\nAdministering softiwarp\n=+\n\n.*?\n\n', TITLE, text,
                  count=1, flags=re.S | re.M)
    text = re.sub(r'[ \t]+\n', '\n', text)
    if not text.startswith('.. SPDX'):
        text = '.. SPDX-License-Identifier: GPL-2.0\n\n' + text
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tree', required=True)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    keys, ver = probe(tree)
    files = module_files()
    text = transform(files, keys, ver)
    work = tempfile.mkdtemp(prefix='mkseries.')
    git = ['git', '-C', work, '-c', 'user.name=softiwarp developers',
           '-c', 'user.email=dev@softiwarp']
    try:
        sh(['git', 'init', '-q', work])
        base = ['MAINTAINERS', 'drivers/infiniband/Kconfig',
                'drivers/infiniband/sw/Makefile',
                'Documentation/infiniband/index.rst']
        for p in base:
            os.makedirs(os.path.join(work, os.path.dirname(p)), exist_ok=True)
            shutil.copy(os.path.join(tree, p), os.path.join(work, p))
        sh(git + ['add', '-A'])
        sh(git + ['commit', '-q', '-m', 'base'])

        def put(p, t):
            d = os.path.join(work, os.path.dirname(p))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(work, p), 'w') as f:
                f.write(t)

        def commit(subject, body):
            sh(git + ['add', '-A'])
            msg = 'RDMA/softiwarp: %s\n\n%s\n\nSigned-off-by: %s\n' % (
                subject, body, AUTHOR)
            sh(git + ['commit', '-q', '-F', '-'], input=msg)

        for n, (layer, subject, body) in enumerate(LAYERS, 1):
            if n == 1:
                put('MAINTAINERS', maintainers(tree))
            for p in files[layer][0]:
                put('%s/%s' % (DEST, p), text[p])
            put(DEST + '/Makefile', makefile(files, n))
            commit(subject, body)
        put(DEST + '/Kconfig', KCONFIG)
        put(DEST + '/.kunitconfig', KUNITCONFIG)
        put('Documentation/infiniband/softiwarp.rst', doc())
        for p, t in hook(tree).items():
            put(p, t)
        commit(BUILD_SUBJECT, BUILD_BODY)
        out = os.path.abspath(a.out)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        cover = ('The softiwarp iWARP driver for %d.%d' % ver)
        names = sh(git + ['format-patch', '--cover-letter',
                          '--no-signature', '-o', out, 'HEAD~%d'
                          % (len(LAYERS) + 1)]).split()
        cl = os.path.join(out, os.path.basename(names[0]))
        with open(cl) as f:
            c = f.read()
        c = c.replace('*** SUBJECT HERE ***', 'RDMA/softiwarp: ' + cover)
        c = c.replace('*** BLURB HERE ***', COVER)
        with open(cl, 'w') as f:
            f.write(c)
        with open(os.path.join(out, 'series'), 'w') as f:
            f.write(''.join(os.path.basename(x) + '\n' for x in names[1:]))
        print('mkseries: %d patches for %d.%d in %s (keys: %s)' % (
            len(names) - 1, ver[0], ver[1], out,
            ' '.join(k for k, v in sorted(keys.items()) if v) or 'none'))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
