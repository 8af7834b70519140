"""What the tests' packet scripts (dhcp-packet.py, igmp-packet.py,
svc-backend.py) share: the Internet checksum."""

import struct


def checksum(data):
    """The 16-bit one's complement of the one's complement sum of 'data'
    (padded to an even length), as IPv4, ICMP, IGMP, UDP and TCP use."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff
