#!/bin/sh
# Installs what a fresh Debian 12 machine lacks to build and test this
# project: toolchain, OVS source and tools, and stock OVN 23.03 (the
# interop oracle and benchmark anchor).  Idempotent; quiet when all is there.
set -e

PKGS="gcc make autoconf automake libtool pkg-config python3 \
libssl-dev libunbound-dev libcap-ng-dev \
openvswitch-source openvswitch-common openvswitch-switch \
ovn-common ovn-central ovn-host python3-ovsdbapp python3-oslotest python3-testscenarios \
tcpdump valgrind libmimalloc-dev"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
            | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "install-deps: need root to install:$missing" >&2
    exit 1
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Services from these packages must not start on install: tests run their
# own ovsdb-servers and daemons in per-test folders.
if test ! -e /usr/sbin/policy-rc.d; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -qq --no-install-recommends $missing >/dev/null
