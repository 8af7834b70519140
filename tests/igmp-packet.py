#!/usr/bin/env python3
"""Prints, in hex, a packet for ovs-appctl netdev-dummy/receive:

  igmp-packet.py join MAC IP GROUP     IGMPv2 membership report for GROUP
  igmp-packet.py leave MAC IP GROUP    IGMPv2 leave group
  igmp-packet.py udp MAC IP GROUP      a UDP datagram to GROUP (port 5000)

from MAC and IP (an IPv4 multicast GROUP)."""

import socket
import struct
import sys

from packet_util import checksum


def group_mac(group):
    g = socket.inet_aton(group)
    return bytes((0x01, 0x00, 0x5e, g[1] & 0x7f, g[2], g[3]))


def ipv4(src, dst, proto, payload, ttl, options=b""):
    ihl = 5 + len(options) // 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(payload),
                     0, 0, ttl, proto, 0, socket.inet_aton(src),
                     socket.inet_aton(dst)) + options
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return ip + payload


def main():
    kind, mac, ip, group = sys.argv[1:5]
    src = bytes(int(x, 16) for x in mac.split(":"))
    if kind in ("join", "leave"):
        igmp_type = 0x16 if kind == "join" else 0x17
        dst = group if kind == "join" else "224.0.0.2"
        igmp = struct.pack("!BBH4s", igmp_type, 0, 0, socket.inet_aton(group))
        igmp = igmp[:2] + struct.pack("!H", checksum(igmp)) + igmp[4:]
        # Router alert option.
        l3 = ipv4(ip, dst, 2, igmp, 1, bytes.fromhex("94040000"))
    else:
        dst = group
        data = b"multicast payload"
        l3 = ipv4(ip, dst, 17,
                  struct.pack("!HHHH", 5000, 5000, 8 + len(data), 0) + data,
                  64)
    print((group_mac(dst) + src + b"\x08\x00" + l3).hex())


if __name__ == "__main__":
    main()
