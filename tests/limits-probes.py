#!/usr/bin/env python3
"""Probes of the limits of the logical-flow language, for tests/limits.at.

Usage: limits-probes.py matches|actions|acls|sets|acl-sets

  matches   match probes, one a line: "VERDICT<TAB>MATCH"
  actions   action probes, one a line: "VERDICT<TAB>ACTIONS"
  acls      ACL match probes (sizes an NB transaction takes), with the
            verdict ovn-controller gives the flows an ACL compiles to on a
            switch with stateful ACLs, where its match is enclosed in one
            more pair of parentheses ("reg0[7] == 1 && (MATCH)")
  sets      the address sets and port groups the match probes name, as
            "address-set NAME ADDR..." or "port-group NAME PORT..." lines
  acl-sets  the same for the ACL probes

VERDICT is what stock ovn-trace 23.03 said when these probes were written
(OK or ERR); the test checks that it still says so, and that our library
and northd say the same.  Each limit is probed at and around its boundary,
the boundaries found by bisection against stock ovn-trace:

  - parentheses: 100 nested pairs accepted, 101 refused, whether written
    "((", "!(" or "x && (";
  - decimal constants: below 2**64; hex constants: up to 128 significant
    bits, any number of leading zeros;
  - a constant fits a field if its width does: decimal and hex constants
    are as wide as their value, IPv4, IPv6 and Ethernet addresses as their
    kind (32, 128, 48 bits), and any masked constant as its mask (so
    "::/0" fits every field and "::1:0/::1:0" is 17 bits);
  - prefix lengths "/N" are read modulo 2**32 ("10.0.0.0/4294967304" is
    10.0.0.0/8);
  - a nominal predicate compared with a zero value is a negative test,
    whatever the mask ("ip4 == 0/0" is refused);
  - nested action lists ("clone { ... }", "ct_commit { ... }"): 31 levels
    accepted, 32 refused; "next" up to table 28;
  - no limit on the length of a match, a name or a string, on the
    number of members of "{...}", of an address set or a port group, or on
    the number of actions (probed up to 100,000)."""

import sys


def nest(n, inner, opening="(", closing=")"):
    return opening * n + inner + closing * n


def match_probes(big):
    p = []

    def add(verdict, text):
        p.append((verdict, text))

    # Parenthesis depth.
    for n in (63, 64, 65, 99, 100):
        add("OK", nest(n, "reg0 == 1"))
    for n in (101, 102, 1000):
        add("ERR", nest(n, "reg0 == 1"))
    add("OK", nest(100, "reg0 == 1", "!(", ")"))
    add("ERR", nest(101, "reg0 == 1", "!(", ")"))
    add("OK", nest(100, "reg0 == 1", "ip4 && (", ")"))
    add("ERR", nest(101, "reg0 == 1", "ip4 && (", ")"))
    add("OK", nest(99, "ip4") + " || " + nest(100, "ip6"))
    add("ERR", "!!reg0[0]")

    # Integer constants.
    add("OK", "xxreg0 == %d" % (2**64 - 1))
    add("ERR", "xxreg0 == %d" % 2**64)
    add("OK", "xxreg0 == 0x" + "f" * 32)
    add("ERR", "xxreg0 == 0x1" + "0" * 32)
    add("OK", "xxreg0 == 0x" + "0" * 1000 + "1")
    add("OK", "reg0 == 0x" + "0" * 40 + "ffffffff")
    add("ERR", "reg0 == 0x" + "0" * 40 + "1ffffffff")
    add("ERR", "reg0 == 00")
    for field, width in (("ct.est", 1), ("ip.ecn", 2), ("vlan.pcp", 3),
                         ("ip.dscp", 6), ("ct_state", 32), ("ip.proto", 8),
                         ("vlan.vid", 12), ("tcp.dst", 16),
                         ("eth.type", 16), ("reg0", 32), ("eth.src", 48),
                         ("xreg0", 64), ("ct_label", 128)):
        top = 2**width - 1
        if width < 64:
            add("OK", "%s == %d" % (field, top))
            add("ERR", "%s == %d" % (field, top + 1))
        add("OK", "%s == 0x%x" % (field, top))
        if width < 128:
            add("ERR", "%s == 0x%x" % (field, top + 1))
            add("OK", "%s == 0x%x/0x%x" % (field, top + 1, top))
        add("OK", "%s == 0x0/0x%x" % (field, top))
        add("OK", "%s == 0/0" % field)
    for r, verdict in (("reg0[31]", "OK"), ("reg0[32]", "ERR"),
                       ("reg0[0..31]", "OK"), ("reg0[0..32]", "ERR"),
                       ("xxreg0[127]", "OK"), ("xxreg0[128]", "ERR"),
                       ("reg0[2147483647]", "ERR"),
                       ("reg0[2147483648]", "ERR")):
        add(verdict, r + " == 1")

    # Masks and prefix lengths.
    for n, verdict in ((0, "OK"), (32, "OK"), (33, "ERR"),
                       (2**31, "ERR"), (2**32 - 1, "ERR"),
                       (2**32, "OK"), (2**32 + 8, "OK"), (2**32 + 32, "OK"),
                       (2**32 + 33, "ERR"), (2**63, "OK"),
                       (2**64 - 1, "ERR")):
        add(verdict, "ip4.src == 10.0.0.0/%d" % n)
    for n, verdict in ((128, "OK"), (129, "ERR"), (2**32 + 128, "OK"),
                       (2**32 + 129, "ERR")):
        add(verdict, "ip6.src == fe80::/%d" % n)
    add("ERR", "ip4.src == 10.0.0.0/0x20")
    add("ERR", "eth.src == 00:00:00:00:00:00/48")
    # A masked constant is as wide as its mask.
    for c, verdict in (("::/0", "OK"), ("::ffff/::ffff", "OK"),
                       ("::1:0/::1:0", "ERR"), ("::/112", "ERR"),
                       ("0.0.0.0/0", "OK"), ("0.0.0.0/16", "ERR"),
                       ("0.0.255.255/0.0.255.255", "OK"),
                       ("0.0.1.0/0.1.255.255", "ERR"),
                       ("00:00:00:00:00:00/00:00:00:00:ff:ff", "OK"),
                       ("00:00:00:00:00:00/00:00:00:01:ff:ff", "ERR"),
                       ("0x10000/0xffff", "OK"), ("0x0/0x1ffff", "ERR"),
                       ("65536/0", "OK"), ("0/65536", "ERR"),
                       ("::1", "ERR"), ("0.0.0.1", "ERR")):
        add(verdict, "tcp.dst == %s" % c)
        add(verdict, "tcp.dst == {1, %s}" % c)
    add("OK", "ip4.src == ::/0")
    add("OK", "ct.est == 0.0.0.1/0.0.0.1")
    add("ERR", "ct.est == 0.0.0.1")
    # Nominal predicates: the value tells a negative test, not the mask.
    for c, eq, ne in (("0/0", "ERR", "OK"), ("0x0/0x0", "ERR", "OK"),
                      ("::/0", "ERR", "OK"), ("1/1", "OK", "ERR"),
                      ("0x2/0x2", "ERR", "ERR")):
        add(eq, "ip4 == %s" % c)
        add(ne, "ip4 != %s" % c)
    add("OK", "eth.bcast == 0/0")
    add("OK", "ip.is_frag == ::/0")

    # IP and Ethernet address forms.
    for c, verdict in (("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
                        "OK"),
                       ("0000:0000:0000:0000:0000:0000:0000:0000", "OK"),
                       ("0000:0000:0000:0000:0000:0000:0000:00000", "ERR"),
                       ("1:2:3:4:5:6:7:8:9", "ERR"), ("::01.2.3.4", "ERR"),
                       (":::", "ERR")):
        add(verdict, "ip6.src == " + c)
    for c, verdict in (("01.2.3.4", "ERR"), ("1.2.3.4.5", "ERR"),
                       ("255.255.255.255", "OK")):
        add(verdict, "ip4.src == " + c)
    for c, verdict in (("0:0:0:0:0:0", "ERR"),
                       ("00:00:00:00:00:00:00", "ERR")):
        add(verdict, "eth.src == " + c)

    # Sizes: names, strings, sets, whole matches.
    add("OK", "ip4.src == $" + "n" * 5000)
    add("ERR", "ip4.src == $" + "m" * 5000)
    add("OK", "outport == @" + "g" * 5000)
    add("ERR", "a" * 10000 + " == 1")
    add("OK", 'outport == "' + "x" * big + '"')
    add("OK", "ip4.src == {%s}" % ", ".join(
        "10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255)
        for i in range(big)))
    add("OK", 'outport == {%s}' % ", ".join('"p%d"' % i
                                            for i in range(big)))
    add("OK", "tcp.dst == {%s}" % " ".join(str(i) for i in range(65536)))
    add("OK", "(%s)" % " || ".join("reg0 == %d" % i for i in range(20000)))
    add("OK", " && ".join("reg%d == %d" % (i % 10, i) for i in range(5000)))
    add("OK", "ip4 " + " " * big + "&& tcp")
    add("OK", "ip4 /*" + "x" * big + "*/ && tcp")
    add("ERR", "tcp.dst == {}")

    # Address sets: size, and members as wide as their masks.
    add("OK", "ip4.src == $big")
    add("OK", "ip4.src == $zero6")
    add("OK", "tcp.dst == $zero6")
    add("OK", "ip4.src == $mixed0")
    add("ERR", "tcp.dst == $mixed0")
    add("OK", "tcp.dst == $zeromac")
    add("ERR", "ip4.src == $one6")
    add("ERR", "ip4.src == $mac")
    add("OK", "ip4.src == $pfx")
    return p


def sets(big):
    return [
        "address-set big " + " ".join(
            "10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255)
            for i in range(big)),
        "address-set " + "n" * 5000 + " 10.0.0.1",
        "port-group " + "g" * 5000 + " p1",
        "address-set zero6 ::/0",
        "address-set mixed0 10.0.0.1 ::/0",
        "address-set zeromac 00:00:00:00:00:00/00:00:00:00:00:00",
        "address-set one6 ::1",
        "address-set mac 00:00:00:00:00:01",
        "address-set pfx 10.0.0.0/4294967304",
    ]


def action_probes():
    p = []

    def add(verdict, text):
        p.append((verdict, text))

    for n in (1, 8, 9, 30, 31):
        add("OK", nest(n, "output; ", "clone { ", "}; "))
    for n in (32, 33, 100):
        add("ERR", nest(n, "output; ", "clone { ", "}; "))
    for kw in ("reject", "tcp_reset", "icmp4", "icmp4_error", "icmp6",
               "icmp6_error", "arp", "nd_na", "nd_na_router", "nd_ns"):
        add("OK", nest(31, "output; ", kw + " { ", "}; "))
        add("ERR", nest(32, "output; ", kw + " { ", "}; "))
    add("OK", "ct_commit { " + nest(30, "output; ", "clone { ", "}; ")
        + "};")
    add("ERR", "ct_commit { " + nest(31, "output; ", "clone { ", "}; ")
        + "};")
    add("OK", nest(30, "ct_commit { }; ", "clone { ", "}; "))
    add("ERR", nest(31, "ct_commit { }; ", "clone { ", "}; "))
    add("OK", nest(31, "ct_commit; ", "clone { ", "}; "))
    add("OK", nest(31, "", "clone { ", "}; "))
    add("ERR", nest(32, "", "clone { ", "}; "))
    for t, verdict in ((0, "OK"), (28, "OK"), (29, "ERR"),
                       (2**31 - 1, "ERR"), (2**31, "ERR")):
        add(verdict, "next(%d);" % t)
        add(verdict, "next(pipeline=egress, table=%d);" % t)
    for port, verdict in ((0, "OK"), (65535, "OK"), (65536, "ERR")):
        add(verdict, "ct_lb(backends=10.0.0.1:%d);" % port)
    add("OK", "ct_lb(backends=%s);" % ",".join(
        "10.%d.%d.%d:80" % (i >> 16, (i >> 8) & 255, i & 255)
        for i in range(10000)))
    add("OK", "next; " * 100000)
    add("OK", 'outport = "' + "x" * 100000 + '"; output;')
    add("OK", "reg0 = 4294967295; next;")
    add("ERR", "reg0 = 4294967296; next;")
    add("OK", "xxreg0 = 0x" + "f" * 32 + "; next;")
    add("ERR", "xxreg0 = 0x1" + "0" * 32 + "; next;")
    for c, verdict in (("::/0", "OK"), ("::ffff/::ffff", "OK"),
                       ("::1:0/::1:0", "ERR"), ("0.0.0.0/0", "OK"),
                       ("0.0.255.255/0.0.255.255", "OK"),
                       ("1.2.3.4/16", "ERR"),
                       ("00:00:00:00:00:00/00:00:00:00:ff:ff", "OK"),
                       ("0x0/0x1ffff", "ERR"), ("65536/0", "OK"),
                       ("::1", "ERR"), ("0.0.0.1", "ERR")):
        add(verdict, "tcp.dst = %s; next;" % c)
    add("OK", "ct_commit { ct_mark = ::/0; }; next;")
    add("ERR", "ct_commit { ct_mark = ::1; }; next;")
    return p


def acl_probes():
    """(verdict of the ACL, match): the verdict is stock's on the match
    enclosed in one more pair of parentheses, as a stateful switch's flows
    hold it."""
    p = []

    def add(verdict, text):
        p.append((verdict, text))

    for n in (64, 65, 98, 99):
        add("OK", nest(n, "tcp.dst == %d" % n))
    for n in (100, 101):
        add("ERR", nest(n, "tcp.dst == %d" % n))
    add("OK", nest(99, "udp.dst == 1", "!(", ")"))
    add("ERR", nest(100, "udp.dst == 1", "!(", ")"))
    add("OK", "ip4.src == 10.0.0.0/4294967304")
    add("ERR", "ip4.src == 10.0.0.0/4294967295")
    add("OK", "ip6.src == fe80::/4294967424")
    add("OK", "tcp.dst == ::/0")
    add("OK", "tcp.dst == {80, 0.0.255.255/0.0.255.255}")
    add("ERR", "tcp.dst == ::1:0/::1:0")
    add("OK", "ip4.src == $zero6")
    add("OK", "tcp.dst == $zeromac")
    add("ERR", "tcp.dst == $mixed0")
    add("OK", "ip4.src == $pfx")
    add("ERR", "ip4 == 0/0")
    add("OK", "ip4 != 0/0 || tcp.dst == 1")
    add("OK", "ip4.src == $big")
    add("OK", "ip4.src == {%s}" % ", ".join(
        "10.1.%d.%d" % (i >> 8, i & 255) for i in range(2000)))
    add("OK", 'outport == "' + "x" * 20000 + '"')
    add("OK", "xxreg0 == 0x" + "0" * 1000 + "1")
    add("ERR", "xxreg0 == %d" % 2**64)
    return p


def acl_sets():
    return [
        "address-set big " + " ".join(
            "10.2.%d.%d" % (i >> 8, i & 255) for i in range(2000)),
        "address-set zero6 ::/0",
        "address-set mixed0 10.0.0.1 ::/0",
        "address-set zeromac 00:00:00:00:00:00/00:00:00:00:00:00",
        "address-set pfx 10.0.0.0/4294967304",
    ]


def main():
    big = 100000
    what = sys.argv[1]
    if what in ("matches", "actions", "acls"):
        probes = {"matches": lambda: match_probes(big),
                  "actions": action_probes, "acls": acl_probes}[what]()
        for verdict, text in probes:
            assert "\n" not in text and "\t" not in text
            print("%s\t%s" % (verdict, text))
    elif what == "sets":
        print("\n".join(sets(big)))
    elif what == "acl-sets":
        print("\n".join(acl_sets()))
    else:
        sys.exit("unknown command " + what)


if __name__ == "__main__":
    main()
