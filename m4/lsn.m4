# Project macros: where Open vSwitch comes from, and compiler flags.

dnl LSN_OVS_TREE
dnl
dnl Finds the Open vSwitch source and build trees.  By default the OVS
dnl source shipped by Debian's openvswitch-source package is extracted once
dnl into _ovs/ (git-ignored) and configured there; the Makefile builds only
dnl the libraries we link.
AC_DEFUN([LSN_OVS_TREE], [
  AC_ARG_WITH([ovs-source],
    [AS_HELP_STRING([--with-ovs-source=DIR],
                    [Open vSwitch source tree (default: _ovs/openvswitch,
                     extracted from /usr/src/openvswitch)])],
    [OVSDIR=$withval], [OVSDIR=])
  AC_ARG_WITH([ovs-build],
    [AS_HELP_STRING([--with-ovs-build=DIR],
                    [Open vSwitch build tree (default: the source tree)])],
    [OVSBUILDDIR=$withval], [OVSBUILDDIR=])
  AC_ARG_VAR([OVS_TARBALL], [OVS source tarball to extract
              (default: /usr/src/openvswitch/openvswitch.tar.gz)])
  : ${OVS_TARBALL=/usr/src/openvswitch/openvswitch.tar.gz}

  lsn_abs_srcdir=`cd "$srcdir" && pwd`
  if test -z "$OVSDIR"; then
    OVSDIR=$lsn_abs_srcdir/_ovs/openvswitch
    if test ! -f "$OVSDIR/lib/ovsdb-idl.h"; then
      AC_MSG_NOTICE([extracting $OVS_TARBALL into _ovs/])
      test -f "$OVS_TARBALL" ||
        AC_MSG_ERROR([$OVS_TARBALL not found: install openvswitch-source or use --with-ovs-source])
      mkdir -p "$lsn_abs_srcdir/_ovs" &&
        tar xzf "$OVS_TARBALL" -C "$lsn_abs_srcdir/_ovs" ||
        AC_MSG_ERROR([could not extract $OVS_TARBALL])
    fi
  fi
  OVSDIR=`cd "$OVSDIR" && pwd` ||
    AC_MSG_ERROR([Open vSwitch source directory not found])
  test -f "$OVSDIR/lib/ovsdb-idl.h" ||
    AC_MSG_ERROR([$OVSDIR does not look like an Open vSwitch source tree])
  test -z "$OVSBUILDDIR" && OVSBUILDDIR=$OVSDIR
  mkdir -p "$OVSBUILDDIR" && OVSBUILDDIR=`cd "$OVSBUILDDIR" && pwd`

  if test ! -f "$OVSBUILDDIR/config.h" || test ! -f "$OVSBUILDDIR/Makefile"; then
    AC_MSG_NOTICE([configuring Open vSwitch in $OVSBUILDDIR])
    (cd "$OVSBUILDDIR" &&
     "$OVSDIR/configure" --enable-silent-rules > config-lsn.log 2>&1) ||
      AC_MSG_ERROR([configuring Open vSwitch failed, see $OVSBUILDDIR/config-lsn.log])
  fi
  AC_MSG_CHECKING([Open vSwitch version])
  OVSVERSION=`sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$OVSBUILDDIR/config.h"`
  AC_MSG_RESULT([$OVSVERSION])

  dnl The libraries OVS itself links against, from the same configure run.
  OVS_LIBS=`sed -n 's/^Libs.private: *//p' "$OVSBUILDDIR/lib/libopenvswitch.pc"`
  AC_SUBST([OVSDIR])
  AC_SUBST([OVSBUILDDIR])
  AC_SUBST([OVSVERSION])
  AC_SUBST([OVS_LIBS])
])

dnl LSN_ENABLE_WERROR: warnings are errors in our own sources (default on).
AC_DEFUN([LSN_ENABLE_WERROR], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--disable-werror], [do not treat warnings as errors])],
    [], [enable_werror=yes])
  LSN_WARN_CFLAGS="-Wall -Wextra -Wno-sign-compare -Wno-unused-parameter \
-Wpointer-arith -Wformat -Wformat-security -Wstrict-prototypes \
-Wold-style-definition -Wmissing-prototypes -Wmissing-field-initializers \
-Wshadow -Wno-missing-field-initializers -fno-strict-aliasing"
  if test "$enable_werror" = yes; then
    LSN_WARN_CFLAGS="$LSN_WARN_CFLAGS -Werror"
  fi
  AC_SUBST([LSN_WARN_CFLAGS])
])

dnl LSN_ENABLE_SANITIZERS: --enable-sanitizers builds with ASan and UBSan.
AC_DEFUN([LSN_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers],
                    [build with -fsanitize=address,undefined])],
    [], [enable_sanitizers=no])
  SANITIZER_CFLAGS=
  SANITIZER_LDFLAGS=
  if test "$enable_sanitizers" = yes; then
    SANITIZER_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    SANITIZER_LDFLAGS="-fsanitize=address,undefined"
  fi
  AC_SUBST([SANITIZER_CFLAGS])
  AC_SUBST([SANITIZER_LDFLAGS])
  AC_SUBST([enable_sanitizers])
  AM_CONDITIONAL([SANITIZERS], [test "$enable_sanitizers" = yes])
])

dnl LSN_CHECK_LIBFUZZER: builds tests/fuzz-expr if $CC can link a libFuzzer
dnl target (clang with -fsanitize=fuzzer); otherwise the fuzzer is skipped.
AC_DEFUN([LSN_CHECK_LIBFUZZER], [
  AC_CACHE_CHECK([whether $CC can build libFuzzer targets],
    [lsn_cv_libfuzzer], [
    lsn_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -fsanitize=fuzzer"
    AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{ (void) d; (void) n; return 0; }
]])], [lsn_cv_libfuzzer=yes], [lsn_cv_libfuzzer=no])
    CFLAGS=$lsn_save_CFLAGS])
  AM_CONDITIONAL([HAVE_LIBFUZZER], [test "$lsn_cv_libfuzzer" = yes])
])

dnl LSN_WITH_MIMALLOC: links northd with mimalloc when it is there (Debian:
dnl libmimalloc-dev), which then serves every malloc() of the daemon.
dnl northd makes millions of small allocations on a cold start, and
dnl mimalloc serves them in about a fifth less CPU than glibc's malloc (see
dnl docs/performance.md).  Never with the sanitizers, which bring their
dnl own allocator.
AC_DEFUN([LSN_WITH_MIMALLOC], [
  AC_ARG_WITH([mimalloc],
    [AS_HELP_STRING([--with-mimalloc],
                    [link northd with mimalloc (default: if it is
                     installed, and not with --enable-sanitizers)])],
    [], [with_mimalloc=check])
  MIMALLOC_LIBS=
  if test "$with_mimalloc" != no && test "$enable_sanitizers" != yes; then
    AC_CHECK_LIB([mimalloc], [mi_malloc], [MIMALLOC_LIBS=-lmimalloc],
      [if test "$with_mimalloc" = yes; then
         AC_MSG_ERROR([--with-mimalloc: libmimalloc not found])
       fi])
  elif test "$with_mimalloc" = yes; then
    AC_MSG_ERROR([--with-mimalloc cannot go with --enable-sanitizers])
  fi
  AC_SUBST([MIMALLOC_LIBS])
])
