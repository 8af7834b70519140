#!/usr/bin/env python3
"""Prints, in hex, a DHCPDISCOVER from MAC (broadcast, from 0.0.0.0), for
ovs-appctl netdev-dummy/receive.

Usage: dhcp-packet.py MAC"""

import struct
import sys


def checksum(data):
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def discover(mac):
    # BOOTREQUEST, Ethernet, 6-byte addresses, broadcast flag; no
    # addresses yet; the client's MAC; no server name or file.
    bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0,
                        0x12345678, 0, 0x8000, bytes(4), bytes(4),
                        bytes(4), bytes(4), mac + bytes(10), bytes(64),
                        bytes(128))
    # Magic cookie, message type 1 (DISCOVER), end.
    options = bytes.fromhex("63825363") + bytes((53, 1, 1, 255))
    payload = bootp + options
    udp = struct.pack("!HHHH", 68, 67, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                     0, bytes(4), b"\xff" * 4)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return b"\xff" * 6 + mac + b"\x08\x00" + ip + udp


def main():
    mac = bytes(int(x, 16) for x in sys.argv[1].split(":"))
    print(discover(mac).hex())


if __name__ == "__main__":
    main()
