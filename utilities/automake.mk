# utilities/: operator tools and scripts.
EXTRA_DIST += \
	utilities/install-deps.sh \
	utilities/sandbox.sh \
	utilities/check.sh

bin_PROGRAMS += utilities/ovn-nbctl
utilities_ovn_nbctl_SOURCES = \
	utilities/ovn-nbctl.c \
	utilities/nbctl.h \
	utilities/nbctl-ls.c \
	utilities/nbctl-acl.c \
	utilities/nbctl-lb.c \
	utilities/nbctl-lr.c \
	utilities/nbctl-nat.c
utilities_ovn_nbctl_LDADD = $(LSN_LDADD)
EXTRA_DIST += docs/ovn-nbctl.md bench/nbctl-bench.sh

bin_PROGRAMS += utilities/ovn-trace
utilities_ovn_trace_SOURCES = \
	utilities/ovn-trace.c \
	utilities/trace.h \
	utilities/trace-db.c
utilities_ovn_trace_LDADD = $(LSN_LDADD)
EXTRA_DIST += docs/trace.md
