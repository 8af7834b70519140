# northd/: the daemon.
bin_PROGRAMS += northd/ovn-northd
northd_ovn_northd_SOURCES = \
	northd/datapaths.c \
	northd/datapaths.h \
	northd/northd.c \
	northd/northd.h \
	northd/ovn-northd.c
northd_ovn_northd_LDADD = $(LSN_LDADD)
