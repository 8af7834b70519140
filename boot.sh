#! /bin/sh
# Regenerates configure and the Makefile templates from configure.ac and
# Makefile.am.  Run once after a fresh checkout.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
