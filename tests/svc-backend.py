#!/usr/bin/env python3
"""Plays a load balancer backend for ovn-controller's TCP health checks on
a dummy VIF: reads the packets the VIF transmitted (its tx_pcap, i.e.
what the VM behind it received) and answers every TCP SYN that comes from
the service monitor MAC with a SYN-ACK, injected with
"ovs-appctl netdev-dummy/receive", for as long as the file ALIVE exists.

Usage: svc-backend.py APPCTL PCAP CTL IFACE SVC-MAC ALIVE ANSWERED

APPCTL is the ovs-appctl to run, CTL ovs-vswitchd's unixctl socket,
IFACE the dummy interface; the number of probes answered so far is
written to ANSWERED.  Runs until
killed."""

import os
import struct
import subprocess
import sys
import time

from packet_util import checksum


def records(path, offset):
    """The packets of pcap file 'path' from byte 'offset' (0: the start),
    and the offset after the last complete one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return [], offset
    if len(data) < 24:
        return [], offset
    endian = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    pos = max(offset, 24)
    packets = []
    while pos + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[pos:pos + 16])
        if pos + 16 + incl > len(data):
            break
        packets.append(data[pos + 16:pos + 16 + incl])
        pos += 16 + incl
    return packets, pos


def syn_ack(pkt, svc_mac):
    """The SYN-ACK answering 'pkt' if it is a TCP SYN (IPv4) from
    'svc_mac', else None."""
    if len(pkt) < 54 or pkt[6:12] != svc_mac or pkt[12:14] != b"\x08\x00":
        return None
    ihl = (pkt[14] & 0x0f) * 4
    if pkt[23] != 6:
        return None
    tcp = pkt[14 + ihl:]
    sport, dport, seq = struct.unpack("!HHI", tcp[:8])
    if tcp[13] != 0x02:             # SYN only.
        return None
    src, dst = pkt[26:30], pkt[30:34]
    th = struct.pack("!HHIIBBHHH", dport, sport, 0x1000, (seq + 1) % 2**32,
                     5 << 4, 0x12, 65535, 0, 0)
    # The reply goes from 'dst' (the backend) to 'src' (the monitor).
    pseudo = dst + src + struct.pack("!BBH", 0, 6, len(th))
    th = th[:16] + struct.pack("!H", checksum(pseudo + th)) + th[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(th), 0, 0, 64, 6,
                     0, dst, src)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    # To the monitor's MAC, from the backend's.
    return pkt[6:12] + pkt[0:6] + b"\x08\x00" + ip + th


def main():
    appctl, pcap, ctl, iface, mac, alive, answered = sys.argv[1:8]
    svc_mac = bytes(int(x, 16) for x in mac.split(":"))
    offset = 0
    n = 0
    while True:
        packets, offset = records(pcap, offset)
        for pkt in packets:
            reply = syn_ack(pkt, svc_mac)
            if reply is None or not os.path.exists(alive):
                continue
            subprocess.run([appctl, "-t", ctl, "netdev-dummy/receive",
                            iface, reply.hex()], check=False,
                           stdout=subprocess.DEVNULL)
            n += 1
            with open(answered + ".tmp", "w") as f:
                f.write("%d\n" % n)
            os.replace(answered + ".tmp", answered)
        time.sleep(0.1)


if __name__ == "__main__":
    main()
