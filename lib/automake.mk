# lib/: code shared by northd and the utilities.
noinst_LIBRARIES += lib/libovnls.a
lib_libovnls_a_SOURCES = \
	lib/acl-lint.c \
	lib/acl-lint.h \
	lib/actions.c \
	lib/actions.h \
	lib/counting-sort.c \
	lib/counting-sort.h \
	lib/datum-json.c \
	lib/datum-json.h \
	lib/decimal.h \
	lib/dhcp-opts.c \
	lib/dhcp-opts.h \
	lib/expr.c \
	lib/expr.h \
	lib/index-chain.h \
	lib/jscan.h \
	lib/jsplit.c \
	lib/jsplit.h \
	lib/jtext.c \
	lib/jtext.h \
	lib/lex.c \
	lib/lex.h \
	lib/lsp-addresses.c \
	lib/lsp-addresses.h \
	lib/lsp-types.c \
	lib/lsp-types.h \
	lib/objpool.c \
	lib/objpool.h \
	lib/rdb.c \
	lib/rdb.h \
	lib/rdb-conn.c \
	lib/rdb-map.c \
	lib/rdb-map.h \
	lib/rdb-private.h \
	lib/rdb-txn.c \
	lib/sset-shash.h \
	lib/strpool.c \
	lib/strpool.h \
	lib/mappack.c \
	lib/mappack.h \
	lib/strpack.c \
	lib/strpack.h \
	lib/text-hash.h \
	lib/symtab.c \
	lib/symtab.h \
	lib/tnlid.c \
	lib/tnlid.h
nodist_lib_libovnls_a_SOURCES = \
	lib/nb-rdb.c \
	lib/nb-rdb.h \
	lib/sb-rdb.c \
	lib/sb-rdb.h \
	lib/ovn-nb-idl.c \
	lib/ovn-nb-idl.h \
	lib/ovn-sb-idl.c \
	lib/ovn-sb-idl.h
BUILT_SOURCES += lib/ovn-nb-idl.h lib/ovn-sb-idl.h lib/nb-rdb.h lib/sb-rdb.h
CLEANFILES += \
	lib/ovn-nb-idl.c lib/ovn-nb-idl.h lib/ovn-nb-idl.ovsidl \
	lib/ovn-sb-idl.c lib/ovn-sb-idl.h lib/ovn-sb-idl.ovsidl
EXTRA_DIST += lib/ovn-nb-idl.ann lib/ovn-sb-idl.ann \
	lib/rdb-gen.py lib/nb.rdb lib/sb.rdb
CLEANFILES += lib/nb-rdb.c lib/nb-rdb.h lib/sb-rdb.c lib/sb-rdb.h

# northd's replicas (lib/rdb.h): typed rows for the tables and columns
# lib/nb.rdb and lib/sb.rdb name, generated from the schemas.
RDB_GEN = $(PYTHON) $(srcdir)/lib/rdb-gen.py
lib/nb-rdb.h: $(srcdir)/lib/rdb-gen.py $(srcdir)/ovn-nb.ovsschema \
		$(srcdir)/lib/nb.rdb
	$(AM_V_GEN)$(RDB_GEN) header $(srcdir)/ovn-nb.ovsschema \
	    $(srcdir)/lib/nb.rdb nb > $@.tmp && mv $@.tmp $@
lib/nb-rdb.c: $(srcdir)/lib/rdb-gen.py $(srcdir)/ovn-nb.ovsschema \
		$(srcdir)/lib/nb.rdb
	$(AM_V_GEN)$(RDB_GEN) source $(srcdir)/ovn-nb.ovsschema \
	    $(srcdir)/lib/nb.rdb nb > $@.tmp && mv $@.tmp $@
lib/sb-rdb.h: $(srcdir)/lib/rdb-gen.py $(srcdir)/ovn-sb.ovsschema \
		$(srcdir)/lib/sb.rdb
	$(AM_V_GEN)$(RDB_GEN) header $(srcdir)/ovn-sb.ovsschema \
	    $(srcdir)/lib/sb.rdb sb > $@.tmp && mv $@.tmp $@
lib/sb-rdb.c: $(srcdir)/lib/rdb-gen.py $(srcdir)/ovn-sb.ovsschema \
		$(srcdir)/lib/sb.rdb
	$(AM_V_GEN)$(RDB_GEN) source $(srcdir)/ovn-sb.ovsschema \
	    $(srcdir)/lib/sb.rdb sb > $@.tmp && mv $@.tmp $@

# Libraries every program here links, in link order.
LSN_LDADD = lib/libovnls.a $(OVS_LIBOVSDB) $(OVS_LIBOPENVSWITCH) $(OVS_LIBS)

# The C IDLs are generated from our schemas, never committed.
lib/ovn-nb-idl.ovsidl: $(srcdir)/ovn-nb.ovsschema $(srcdir)/lib/ovn-nb-idl.ann
	$(AM_V_GEN)$(OVSDB_IDLC) annotate $(srcdir)/ovn-nb.ovsschema \
	    $(srcdir)/lib/ovn-nb-idl.ann > $@.tmp && mv $@.tmp $@
lib/ovn-sb-idl.ovsidl: $(srcdir)/ovn-sb.ovsschema $(srcdir)/lib/ovn-sb-idl.ann
	$(AM_V_GEN)$(OVSDB_IDLC) annotate $(srcdir)/ovn-sb.ovsschema \
	    $(srcdir)/lib/ovn-sb-idl.ann > $@.tmp && mv $@.tmp $@
lib/ovn-%-idl.c: lib/ovn-%-idl.ovsidl
	$(AM_V_GEN)$(OVSDB_IDLC) c-idl-source $< > $@.tmp && mv $@.tmp $@
lib/ovn-%-idl.h: lib/ovn-%-idl.ovsidl
	$(AM_V_GEN)$(OVSDB_IDLC) c-idl-header $< > $@.tmp && mv $@.tmp $@
