# lib/: code shared by northd and the utilities.
noinst_LIBRARIES += lib/libovnls.a
lib_libovnls_a_SOURCES = \
	lib/actions.c \
	lib/actions.h \
	lib/expr.c \
	lib/expr.h \
	lib/lex.c \
	lib/lex.h \
	lib/lsp-addresses.c \
	lib/lsp-addresses.h \
	lib/lsp-types.c \
	lib/lsp-types.h \
	lib/symtab.c \
	lib/symtab.h \
	lib/tnlid.c \
	lib/tnlid.h
nodist_lib_libovnls_a_SOURCES = \
	lib/ovn-nb-idl.c \
	lib/ovn-nb-idl.h \
	lib/ovn-sb-idl.c \
	lib/ovn-sb-idl.h
BUILT_SOURCES += lib/ovn-nb-idl.h lib/ovn-sb-idl.h
CLEANFILES += \
	lib/ovn-nb-idl.c lib/ovn-nb-idl.h lib/ovn-nb-idl.ovsidl \
	lib/ovn-sb-idl.c lib/ovn-sb-idl.h lib/ovn-sb-idl.ovsidl
EXTRA_DIST += lib/ovn-nb-idl.ann lib/ovn-sb-idl.ann

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
