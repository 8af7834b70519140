#!/bin/sh
# Installs missing packages, then configures (once) and builds the project
# in the source tree.  Extra arguments go to configure on its first run,
# e.g. --enable-sanitizers.  Used by sandbox.sh and check.sh.
set -e
cd "$(dirname "$0")/.."
./utilities/install-deps.sh

want_san=no
for arg in "$@"; do
    test "$arg" = --enable-sanitizers && want_san=yes
done
if test -f config.status; then
    have_san=no
    grep -q -- "--enable-sanitizers" config.status && have_san=yes
    if test "$have_san" != "$want_san"; then
        echo "build: reconfiguring (sanitizers: $have_san -> $want_san)"
        make -s clean >/dev/null 2>&1 || true
        rm -f config.status
    fi
fi
if test ! -f configure || test configure.ac -nt configure \
        || test m4/lsn.m4 -nt configure; then
    ./boot.sh >/dev/null 2>&1
fi
if test ! -f config.status; then
    echo "build: configuring (the first run also configures Open vSwitch)"
    ./configure -q "$@"
fi
echo "build: compiling (the first run also builds the Open vSwitch libraries)"
make -s -j"$(nproc)" >/dev/null
