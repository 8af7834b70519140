#!/bin/sh
# Installs missing packages, then configures (once) and builds the project
# in a build directory of its own beside the sources (an autotools VPATH
# build): _build/plain by default, _build/sanitizers with
# --enable-sanitizers.  The demo (sandbox.sh) and the test suite (check.sh)
# thus keep their builds side by side, and running one after the other
# recompiles neither.  Extra arguments go to configure on a build
# directory's first run.  The Open vSwitch libraries (_ovs/, or
# --with-ovs-source) are built once and shared by both.
#
# Used by sandbox.sh and check.sh; prints nothing on stdout but the
# progress lines below.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
./utilities/install-deps.sh

builddir=$top/_build/plain
for arg in "$@"; do
    test "$arg" = --enable-sanitizers && builddir=$top/_build/sanitizers
done

# A build made in the source tree itself ("./configure && make" there)
# would stand in for the build directories' own files (make finds its
# objects through VPATH), and configure refuses to build elsewhere while
# it is there: clean it away once.
if test -f config.status; then
    echo "build: cleaning the build made in the source tree (make distclean);" \
         "builds now live in _build/"
    make -s distclean >/dev/null 2>&1 || rm -f config.status
fi

if test ! -f configure || test configure.ac -nt configure \
        || test m4/lsn.m4 -nt configure; then
    ./boot.sh >/dev/null 2>&1
fi
mkdir -p "$builddir"
cd "$builddir"
if test ! -f config.status; then
    echo "build: configuring ${builddir#$top/} (the first run also" \
         "configures Open vSwitch)"
    "$top/configure" -q "$@"
fi
echo "build: compiling in ${builddir#$top/} (the first run also builds the" \
     "Open vSwitch libraries)"
make -s -j"$(nproc)" >/dev/null
