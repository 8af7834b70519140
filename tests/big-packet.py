#! /usr/bin/env python3
"""big-packet.py: prints, in hex, an Ethernet frame carrying an IPv4 UDP
datagram with Don't Fragment set, of a given IP length, for the MTU tests
(netdev-dummy/receive takes a frame in hex).

usage: big-packet.py ETH-SRC ETH-DST IP-SRC IP-DST IP-LENGTH
"""

import socket
import struct
import sys

from packet_util import checksum


def main():
    if len(sys.argv) != 6:
        sys.stderr.write(__doc__)
        sys.exit(2)
    eth_src, eth_dst, ip_src, ip_dst = sys.argv[1:5]
    ip_len = int(sys.argv[5])
    udp_len = ip_len - 20
    payload = bytes(udp_len - 8)
    udp = struct.pack("!HHHH", 40000, 9, udp_len, 0) + payload
    src = socket.inet_aton(ip_src)
    dst = socket.inet_aton(ip_dst)
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 1, 0x4000, 64,
                         17, 0, src, dst)
    header = header[:10] + struct.pack("!H", checksum(header)) + header[12:]
    eth = (bytes.fromhex(eth_dst.replace(":", ""))
           + bytes.fromhex(eth_src.replace(":", "")) + b"\x08\x00")
    print((eth + header + udp).hex())


if __name__ == "__main__":
    main()
