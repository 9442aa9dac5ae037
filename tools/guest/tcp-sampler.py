#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcp-sampler.py PORT EVERY FILE: every EVERY seconds, the time and the
established TCP connections (IPv4) of this namespace to PORT with the
bytes_acked and bytes_received of their tcp_info, into FILE, in the
format of `ss -tinH` (what fairness.py reads): "# time T", a line "RECV-Q
SEND-Q LOCAL PEER" and a line of tcp_info fields per connection, "#
end". It asks the kernel as ss does (sock_diag netlink, INET_DIAG_INFO),
from one process: ss started every time (from the 9p root, results
on 9p) was seen to take up to 2.6 s under load, leaving gaps of seconds.

Run by tools/guest/bench-scale.sh in the guest."""
import ipaddress, socket, struct, sys, time

port, every, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
# inet_diag_req_v2: AF_INET, TCP, INET_DIAG_INFO, TCP_ESTABLISHED, any id
REQ = struct.pack("=BBBBI", socket.AF_INET, socket.IPPROTO_TCP,
                  1 << (2 - 1), 0, 1 << 1) + bytes(48)
# nlmsghdr: SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP
MSG = struct.pack("=IHHII", 16 + len(REQ), 20, 0x301, 1, 0) + REQ


def sample(nl):
    nl.send(MSG)
    got = []
    while True:
        buf = nl.recv(1 << 16)
        off = 0
        while off + 16 <= len(buf):
            ln, typ = struct.unpack_from("=IH", buf, off)
            if typ in (2, 3) or ln < 16:        # NLMSG_ERROR, NLMSG_DONE
                return got
            # inet_diag_msg after the header: family, state, timer,
            # retrans, id (sport, dport, src[4], dst[4], if, cookie[2]),
            # expires, rqueue, wqueue, uid, inode: 72 octets; attributes
            sport, dport = struct.unpack_from("!HH", buf, off + 20)
            if dport == port:
                src = ipaddress.IPv4Address(buf[off + 24:off + 28])
                dst = ipaddress.IPv4Address(buf[off + 40:off + 44])
                acked = received = 0
                a = off + 16 + 72
                while a + 4 <= off + ln:
                    al, at = struct.unpack_from("=HH", buf, a)
                    if al < 4:
                        break
                    # INET_DIAG_INFO: struct tcp_info, tcpi_bytes_acked
                    # and tcpi_bytes_received at 120 and 128
                    if at == 2 and al >= 4 + 136:
                        acked, received = struct.unpack_from(
                            "=QQ", buf, a + 4 + 120)
                    a += (al + 3) & ~3
                got.append("0 0 %s:%d %s:%d\n\t bytes_acked:%d "
                           "bytes_received:%d\n"
                           % (src, sport, dst, dport, acked, received))
            off += (ln + 3) & ~3


nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4)  # SOCK_DIAG
with open(out, "w") as f:
    while True:
        t = time.time()
        f.write("# time %.6f\n%s# end\n" % (t, "".join(sample(nl))))
        f.flush()
        time.sleep(max(0.0, t + every - time.time()))
