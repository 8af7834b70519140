#!/usr/bin/env python3
"""Prints, in hex, a packet for ovs-appctl netdev-dummy/receive:

  bfd-packet.py SRC-MAC DST-MAC SRC-IP DST-IP STATE MY-DISC YOUR-DISC

a BFD control packet (RFC 5880, single hop: UDP to port 3784) in state
STATE (admin_down, down, init or up) with the discriminators given, both
intervals 100 ms and a detection multiplier of 3, as a remote BFD speaker
sends it."""

import socket
import struct
import sys

from packet_util import checksum

STATES = {"admin_down": 0, "down": 1, "init": 2, "up": 3}


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def main():
    smac, dmac, sip, dip, state, my_disc, your_disc = sys.argv[1:8]
    bfd = struct.pack("!BBBBIIIII", 1 << 5, STATES[state] << 6, 3, 24,
                      int(my_disc), int(your_disc), 100000, 100000, 0)
    udp = struct.pack("!HHHH", 49999, 3784, 8 + len(bfd), 0) + bfd
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 255, 17,
                     0, socket.inet_aton(sip), socket.inet_aton(dip))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    print((mac(dmac) + mac(smac) + b"\x08\x00" + ip + udp).hex())


if __name__ == "__main__":
    main()
