# tests/: the autotest suite.
TESTSUITE_AT = \
	tests/testsuite.at \
	tests/ovn-macros.at \
	tests/schema.at \
	tests/northd.at \
	tests/controller.at \
	tests/sb-upkeep.at \
	tests/e2e.at \
	tests/lang.at \
	tests/limits.at \
	tests/nbctl.at \
	tests/nbctl-lr.at \
	tests/nbctl-nat.at \
	tests/acl.at \
	tests/acl-diff.at \
	tests/lb.at \
	tests/lb-opts.at \
	tests/lb-health.at \
	tests/dns.at \
	tests/copp.at \
	tests/mcast.at \
	tests/acl-validation.at \
	tests/bench.at \
	tests/incremental.at \
	tests/rdb.at \
	tests/compat.at \
	tests/pools.at \
	tests/ha.at \
	tests/ipam.at \
	tests/nb-map.at \
	tests/qos.at \
	tests/neutron.at \
	tests/routers.at \
	tests/router-gw.at \
	tests/bfd.at \
	tests/router-nat.at \
	tests/router-lb.at \
	tests/dhcp.at \
	tests/ports.at \
	tests/trace.at \
	tests/compile.at \
	tests/acl-lint.at

# Drives the replica (lib/rdb.h) against a real ovsdb-server.  Its SB
# class is lib/sb.rdb with Address_Set and Port_Group followed in full
# (northd keeps them for their initial contents only, as Logical_Flow),
# since the replica's string sets, mutations and resyncs are tested on
# them.
noinst_PROGRAMS += tests/test-rdb
tests_test_rdb_SOURCES = tests/test-rdb.c
nodist_tests_test_rdb_SOURCES = tests/sbt-rdb.c tests/sbt-rdb.h
tests_test_rdb_LDADD = $(LSN_LDADD)
BUILT_SOURCES += tests/sbt-rdb.h
CLEANFILES += tests/sb-full.rdb tests/sbt-rdb.c tests/sbt-rdb.h
tests/sb-full.rdb: $(srcdir)/lib/sb.rdb
	$(AM_V_GEN)sed -e '/^table \(Address_Set\|Port_Group\) /s/ select=[a-z,]*//' \
	    $(srcdir)/lib/sb.rdb > $@.tmp && mv $@.tmp $@
tests/sbt-rdb.h: $(srcdir)/lib/rdb-gen.py $(srcdir)/ovn-sb.ovsschema \
		tests/sb-full.rdb
	$(AM_V_GEN)$(RDB_GEN) header $(srcdir)/ovn-sb.ovsschema \
	    tests/sb-full.rdb sbt > $@.tmp && mv $@.tmp $@
tests/sbt-rdb.c: $(srcdir)/lib/rdb-gen.py $(srcdir)/ovn-sb.ovsschema \
		tests/sb-full.rdb
	$(AM_V_GEN)$(RDB_GEN) source $(srcdir)/ovn-sb.ovsschema \
	    tests/sb-full.rdb sbt tests/sbt-rdb.h > $@.tmp && mv $@.tmp $@

# C unit tests for the logical-flow language library.
noinst_PROGRAMS += tests/test-ovn-lang
tests_test_ovn_lang_SOURCES = tests/test-ovn-lang.c
tests_test_ovn_lang_LDADD = $(LSN_LDADD)

# Unit tests of northd's shared pools (datapath sets, strings).
noinst_PROGRAMS += tests/test-northd-pools
tests_test_northd_pools_SOURCES = tests/test-northd-pools.c \
	northd/dpset.c northd/dpset.h northd/copp-classify.c northd/copp.h
tests_test_northd_pools_LDADD = $(LSN_LDADD)

TESTSUITE = $(srcdir)/tests/testsuite
AUTOTEST = $(AUTOM4TE) -l autotest
AUTOM4TE = autom4te
EXTRA_DIST += $(TESTSUITE_AT) $(TESTSUITE) tests/atlocal.in \
	tests/package.m4 tests/lang-matches.txt tests/lang-actions.txt \
	tests/lang-oracle.py tests/dhcp-actions.txt tests/dhcp-packet.py tests/igmp-packet.py tests/bfd-packet.py tests/svc-backend.py tests/packet_util.py tests/big-packet.py tests/limits-probes.py tests/nbctl-canon-dump.py \
	tests/acl-validation.py tests/sb-canon.py tests/nb-random.py \
	tests/neutron-scenario.py \
	tests/rdb-canon.py tests/rdb-data.py tests/rdb-proxy.py \
	tests/sb-txn-log.py
DISTCLEANFILES = tests/atconfig tests/atlocal

$(srcdir)/tests/package.m4: $(top_srcdir)/configure.ac
	$(AM_V_GEN):;{ \
	  echo '# Signature of the current package.' && \
	  echo 'm4_define([AT_PACKAGE_NAME],      [$(PACKAGE_NAME)])' && \
	  echo 'm4_define([AT_PACKAGE_TARNAME],   [$(PACKAGE_TARNAME)])' && \
	  echo 'm4_define([AT_PACKAGE_VERSION],   [$(PACKAGE_VERSION)])' && \
	  echo 'm4_define([AT_PACKAGE_STRING],    [$(PACKAGE_STRING)])' && \
	  echo 'm4_define([AT_PACKAGE_BUGREPORT], [$(PACKAGE_BUGREPORT)])'; \
	} >'$@'

$(TESTSUITE): $(TESTSUITE_AT) $(srcdir)/tests/package.m4
	$(AM_V_GEN)$(AUTOTEST) -I '$(srcdir)' -I '$(srcdir)/tests' \
	    -o $@.tmp $@.at && mv $@.tmp $@

# Tests run our binaries from this build tree by explicit path; stock OVN
# binaries are called by absolute path from the tests themselves.
check-local: tests/atconfig tests/atlocal $(TESTSUITE) $(bin_PROGRAMS) \
	$(noinst_PROGRAMS)
	$(SHELL) '$(TESTSUITE)' -C tests \
	    AUTOTEST_PATH='$(abs_builddir)/northd:$(abs_builddir)/utilities:$(abs_builddir)/tests' \
	    $(TESTSUITEFLAGS)

clean-local:
	test ! -f '$(TESTSUITE)' || $(SHELL) '$(TESTSUITE)' -C tests --clean

# libFuzzer target for the language library (see docs/fuzzing.md).  Built
# only with a compiler that supports -fsanitize=fuzzer (clang); the library
# sources are compiled into it so that they are instrumented too.
if HAVE_LIBFUZZER
noinst_PROGRAMS += tests/fuzz-expr
tests_fuzz_expr_SOURCES = tests/fuzz-expr.c \
	lib/lex.c lib/symtab.c lib/expr.c lib/actions.c
tests_fuzz_expr_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined
tests_fuzz_expr_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer,address,undefined
tests_fuzz_expr_LDADD = $(OVS_LIBOVSDB) $(OVS_LIBOPENVSWITCH) $(OVS_LIBS)
endif
EXTRA_DIST += tests/fuzz-expr.c
