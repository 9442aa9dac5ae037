# SPDX-License-Identifier: GPL-2.0
"""mpa-peer's RFC 7306 cases, initiator role, against a kernel consumer.

softiwarp accepts the RFC 7306 messages on kernel QPs only (user QPs
cannot express them: Documentation/rfc7306.rst), so these cases connect
to nvmet-rdma, whose QPs are the kernel's: the MPA Request carries the
NVMe/RDMA CM private data nvmet-rdma checks before it accepts (record
format 0, the admin queue, HRQSIZE 32, HSQSIZE 31). Each sends one
malformed Immediate Data or Atomic message as the first FPDU and expects
the Terminate RFC 7306 section 8 and RFC 5040/5041 name, with the
message's DDP header copied (section 8.1 rule 2), then the close. They
run with --kernel only; --all leaves them out otherwise.
"""

import struct

import mpawire as w
from cases import CASES, hostile, send_bad, tagged_bad

CAT = 'rfc7306-kernel'
OP_IMM, OP_IMM_SE, OP_ATOMIC_REQ, OP_ATOMIC_RESP = 8, 9, 10, 11
QN_SEND, QN_READ_REQ, QN_ATOMIC_RESP = 0, 1, 3

# NVMe over Fabrics RDMA transport: struct nvme_rdma_cm_req, little
# endian (recfmt, qid, hrqsize, hsqsize, 24 reserved octets)
NVME_CM_REQ = struct.pack('<HHHH', 0, 0, 32, 31) + bytes(24)

IMM = bytes.fromhex('8badf00d00000000')


def atomic_req(aop=0, req_id=1, stag=0, to=0x1000, data=1, data_mask=0,
               compare=0, compare_mask=(1 << 64) - 1):
    """RFC 7306 Figure 4: 28 reserved bits and the AOpCode, Request
    Identifier, Remote STag, Remote Tagged Offset, Add or Swap Data and
    Mask, Compare Data and Mask: 52 octets."""
    return struct.pack('>IIIQQQQQ', aop & 0xF, req_id, stag, to, data,
                       data_mask, compare, compare_mask)


def atomic_resp(req_id=1, orig=0):
    """RFC 7306 Figure 6: Original Request Identifier and Remote Data
    Value: 12 octets."""
    return struct.pack('>IQ', req_id, orig)


def kcase(name, expect, build):
    hostile(name, expect, build, CAT, pdata=NVME_CM_REQ)
    CASES[-1].kernel = True


# Immediate Data (section 6.3: exactly 8 octets, untagged, queue 0; 8.2)
kcase('k-imm-9-octets', 'terminate 1/2/0x05',
      send_bad(opcode=OP_IMM, payload=IMM + b'\x00'))
kcase('k-imm-tagged', 'terminate 0/2/0x06',
      tagged_bad(opcode=OP_IMM, payload=IMM))
kcase('k-imm-queue-1', 'terminate 1/2/0x01',
      send_bad(opcode=OP_IMM, qn=QN_READ_REQ, payload=IMM))
kcase('k-imm-se-without-l', 'terminate 0/2/0xff',
      send_bad(opcode=OP_IMM_SE, last=False, payload=IMM))
kcase('k-imm-rdmap-version-0', 'terminate 0/2/0x05',
      send_bad(opcode=OP_IMM, rv=0, payload=IMM))
# Atomic Request (5.2.1 rules 1, 2, 5; 5.2.2 rule 4). nvmet-rdma serves
# no RDMA Read and accepts with an IRD of 0 (responder_resources 0), and
# Atomic Requests share the IRD with the Read Requests: a well-formed one
# finds no untagged buffer on queue 1, the DDP error that comes before
# RDMAP's checks of the request (those are KUnit's, qpt_atomic_malformed,
# against a QP with an IRD)
kcase('k-atomic-ird-0', 'terminate 1/2/0x02',
      send_bad(opcode=OP_ATOMIC_REQ, qn=QN_READ_REQ, payload=atomic_req()))
kcase('k-atomic-queue-0', 'terminate 1/2/0x01',
      send_bad(opcode=OP_ATOMIC_REQ, qn=QN_SEND, payload=atomic_req()))
kcase('k-atomic-tagged', 'terminate 0/2/0x06',
      tagged_bad(opcode=OP_ATOMIC_REQ, payload=atomic_req()))
# Atomic Response (5.2.2 rules 2, 3, 5: a queue 3 buffer per outstanding
# Atomic Request; nvmet-rdma never sent one)
kcase('k-atomic-response-unasked', 'terminate 1/2/0x02',
      send_bad(opcode=OP_ATOMIC_RESP, qn=QN_ATOMIC_RESP,
               payload=atomic_resp()))
kcase('k-atomic-response-queue-1', 'terminate 1/2/0x01',
      send_bad(opcode=OP_ATOMIC_RESP, qn=QN_READ_REQ,
               payload=atomic_resp()))

assert w.OP_NAMES    # the wire module is the one cases.py uses
