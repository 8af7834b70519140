# northd/: the daemon.
bin_PROGRAMS += northd/ovn-northd
northd_ovn_northd_SOURCES = \
	northd/acl-check.c \
	northd/acl-check.h \
	northd/acl-lint.c \
	northd/acl-lint.h \
	northd/acls.c \
	northd/acls.h \
	northd/bfd.c \
	northd/bfd.h \
	northd/compile.c \
	northd/compile.h \
	northd/copp.c \
	northd/copp-classify.c \
	northd/copp.h \
	northd/datapaths.c \
	northd/datapaths.h \
	northd/dhcp.c \
	northd/dhcp.h \
	northd/dns.c \
	northd/dns.h \
	northd/dp-groups.c \
	northd/dp-groups.h \
	northd/dpset.c \
	northd/dpset.h \
	northd/fdb.c \
	northd/fdb.h \
	northd/features.c \
	northd/features.h \
	northd/global-opts.c \
	northd/global-opts.h \
	northd/ha-groups.c \
	northd/ha-groups.h \
	northd/groups-private.h \
	northd/groups-sync.c \
	northd/groups.c \
	northd/groups.h \
	northd/ipam.c \
	northd/ipam.h \
	northd/l2.c \
	northd/l2.h \
	northd/lb-opts.c \
	northd/lb-opts.h \
	northd/lb.c \
	northd/lb-inc.c \
	northd/lb-sets.c \
	northd/lb.h \
	northd/lb-health.c \
	northd/lb-health.h \
	northd/lflow.c \
	northd/lflow.h \
	northd/mac-binding.c \
	northd/mac-binding.h \
	northd/mcast.c \
	northd/mcast.h \
	northd/meters.c \
	northd/nb-report.c \
	northd/nb-report.h \
	northd/meters.h \
	northd/northd.c \
	northd/northd.h \
	northd/ovn-northd.c \
	northd/pipeline.h \
	northd/qos.c \
	northd/qos.h \
	northd/rbac.c \
	northd/rbac.h \
	northd/router.c \
	northd/router-lb.c \
	northd/router-lb.h \
	northd/router-check.c \
	northd/router-gw.c \
	northd/router-gw.h \
	northd/router-mcast.c \
	northd/router-mtu.c \
	northd/router-mtu.h \
	northd/router-nat.c \
	northd/router-nat.h \
	northd/router-ra.c \
	northd/router-ra.h \
	northd/router-routes.c \
	northd/router.h
nodist_northd_ovn_northd_SOURCES = northd/sb-schema.c
northd_ovn_northd_LDADD = $(MIMALLOC_LIBS) $(LSN_LDADD)

# The SB schema northd was built with, for the SB that --compile writes
# (northd/compile.c): a NUL-terminated array of its bytes.
northd/sb-schema.c: $(srcdir)/ovn-sb.ovsschema
	$(AM_V_GEN)$(PYTHON) -c 'import sys; d = open(sys.argv[1], "rb").read(); \
	    print("/* Generated from ovn-sb.ovsschema: do not edit. */"); \
	    print("extern const char compile_sb_schema[];"); \
	    print("const char compile_sb_schema[] = {"); \
	    print("\n".join(",".join(str(b) for b in d[i:i + 24]) + "," \
	                    for i in range(0, len(d), 24))); \
	    print("0};")' $(srcdir)/ovn-sb.ovsschema > $@.tmp && mv $@.tmp $@
CLEANFILES += northd/sb-schema.c
