#!/usr/bin/env python3
"""Prints, in hex, a DHCP client's packet from MAC, for ovs-appctl
netdev-dummy/receive:

  dhcp-packet.py MAC                      a DHCPDISCOVER (broadcast, from
                                          0.0.0.0)
  dhcp-packet.py MAC request IP SERVER    a DHCPREQUEST for IP from the
                                          server SERVER (broadcast, from
                                          0.0.0.0, as in the SELECTING
                                          state)
  dhcp-packet.py MAC solicit              a DHCPv6 SOLICIT (from the MAC's
                                          link-local address to
                                          ff02::1:2), with a client ID and
                                          an IA_NA"""

import ipaddress
import struct
import sys

from packet_util import checksum


def dhcp4(mac, options):
    # BOOTREQUEST, Ethernet, 6-byte addresses, broadcast flag; no
    # addresses yet; the client's MAC; no server name or file.
    bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0,
                        0x12345678, 0, 0x8000, bytes(4), bytes(4),
                        bytes(4), bytes(4), mac + bytes(10), bytes(64),
                        bytes(128))
    payload = bootp + bytes.fromhex("63825363") + options + bytes((255,))
    udp = struct.pack("!HHHH", 68, 67, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                     0, bytes(4), b"\xff" * 4)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return b"\xff" * 6 + mac + b"\x08\x00" + ip + udp


def discover(mac):
    # Message type 1 (DISCOVER).
    return dhcp4(mac, bytes((53, 1, 1)))


def request(mac, ip, server):
    # Message type 3 (REQUEST), requested address (50), server ID (54).
    return dhcp4(mac, bytes((53, 1, 3, 50, 4))
                 + ipaddress.IPv4Address(ip).packed
                 + bytes((54, 4)) + ipaddress.IPv4Address(server).packed)


def solicit(mac):
    # The link-local address of the MAC (modified EUI-64).
    eui = bytes((mac[0] ^ 2,)) + mac[1:3] + b"\xff\xfe" + mac[3:]
    src = b"\xfe\x80" + bytes(6) + eui
    dst = ipaddress.IPv6Address("ff02::1:2").packed
    # SOLICIT, transaction ID; client ID (1) as a DUID-LL; IA_NA (3) with
    # IAID 1; elapsed time (8).
    msg = (bytes((1,)) + b"\x00\x12\x34"
           + struct.pack("!HHHH", 1, 10, 3, 1) + mac
           + struct.pack("!HHIII", 3, 12, 1, 0, 0)
           + struct.pack("!HHH", 8, 2, 0))
    length = 8 + len(msg)
    pseudo = src + dst + struct.pack("!IxxxB", length, 17)
    udp = struct.pack("!HHHH", 546, 547, length, 0) + msg
    udp = udp[:6] + struct.pack("!H", checksum(pseudo + udp)) + udp[8:]
    ip6 = struct.pack("!IHBB", 6 << 28, length, 17, 255) + src + dst
    return (b"\x33\x33\x00\x01\x00\x02" + mac + b"\x86\xdd" + ip6 + udp)


def main():
    mac = bytes(int(x, 16) for x in sys.argv[1].split(":"))
    kind = sys.argv[2] if len(sys.argv) > 2 else "discover"
    if kind == "discover":
        packet = discover(mac)
    elif kind == "request":
        packet = request(mac, sys.argv[3], sys.argv[4])
    elif kind == "solicit":
        packet = solicit(mac)
    else:
        sys.exit("dhcp-packet.py: unknown packet %s" % kind)
    print(packet.hex())


if __name__ == "__main__":
    main()
