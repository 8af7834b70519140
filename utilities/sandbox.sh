#!/bin/sh
# Builds the project (installing what a fresh Debian 12 machine lacks), then
# runs our northd against local NB and SB databases in ./sandbox with a
# small demo topology, and prints what was compiled and how to talk to it.
#
#   utilities/sandbox.sh          build, start (or restart) the sandbox
#   utilities/sandbox.sh stop     stop the sandbox daemons
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
sb=$top/sandbox
build=$top/_build/plain         # See build.sh.

stop_sandbox () {
    for d in northd sb nb; do
        if test -f "$sb/$d.pid"; then
            kill "$(cat "$sb/$d.pid")" 2>/dev/null || true
        fi
    done
    sleep 0.5
}

if test "$1" = stop; then
    stop_sandbox
    echo "sandbox stopped"
    exit 0
fi

"$top/utilities/build.sh"

stop_sandbox
rm -rf "$sb"
mkdir -p "$sb"
cd "$sb"

for db in nb sb; do
    schema=$top/ovn-$db.ovsschema
    ovsdb-tool create "$db.db" "$schema"
    /usr/sbin/ovsdb-server --detach --no-chdir --pidfile="$sb/$db.pid" \
        --log-file="$sb/$db.log" --unixctl="$sb/$db.ctl" \
        --remote=punix:"$sb/$db.sock" "$db.db" 2>/dev/null
done

"$build/northd/ovn-northd" --detach --no-chdir --pidfile="$sb/northd.pid" \
    --log-file="$sb/northd.log" --unixctl="$sb/northd.ctl" \
    --ovnnb-db="unix:$sb/nb.sock" --ovnsb-db="unix:$sb/sb.sock" 2>/dev/null

nbctl="$build/utilities/ovn-nbctl --db=unix:$sb/nb.sock"
sbctl="/usr/bin/ovn-sbctl --db=unix:$sb/sb.sock"

# Demo topology: two switches, a few ports, a port group.
$nbctl init
$nbctl ls-add web -- ls-add db
$nbctl lsp-add web web1 -- lsp-set-addresses web1 "0a:00:00:00:01:01 10.0.1.11" \
    -- lsp-add web web2 -- lsp-set-addresses web2 "0a:00:00:00:01:02 10.0.1.12" \
    -- lsp-add web web-gw -- lsp-set-addresses web-gw unknown
$nbctl lsp-add db db1 -- lsp-set-addresses db1 "0a:00:00:00:02:01 10.0.2.11" \
    -- lsp-add db db2 -- lsp-set-addresses db2 "0a:00:00:00:02:02 10.0.2.12"
$nbctl pg-add pg_web web1 web2
# Web servers take HTTP statefully, health probes statelessly, nothing
# else; a load balancer fronts them.
$nbctl --type=port-group acl-add pg_web to-lport 1002 \
    'outport == @pg_web && ip4 && tcp.dst == 80' allow-related \
    -- --type=port-group acl-add pg_web to-lport 1003 \
    'outport == @pg_web && ip4 && udp.dst == 7' allow-stateless \
    -- --type=port-group acl-add pg_web to-lport 1001 \
    'outport == @pg_web && ip4' drop
$nbctl lb-add lb_web 10.0.1.100:80 10.0.1.11:80,10.0.1.12:80 tcp \
    -- ls-lb-add web lb_web
$nbctl --timeout=30 --wait=sb sync

echo
echo "== Northbound =="
$nbctl show
echo
echo "== Southbound, as compiled by our northd =="
$sbctl --columns=tunnel_key,external_ids list Datapath_Binding
echo
$sbctl --format=table --columns=logical_port,tunnel_key,mac list Port_Binding
echo
$sbctl --format=table --columns=name,tunnel_key,datapath list Multicast_Group
echo
$nbctl acl-list pg_web
echo
echo "Logical flows per switch:"
for ls in web db; do
    printf '  %s: %s\n' $ls "$($sbctl lflow-list $ls | grep -c 'table=')"
done
echo
echo "== northd =="
/usr/bin/ovs-appctl -t "$sb/northd.ctl" status
/usr/bin/ovs-appctl -t "$sb/northd.ctl" northd/stats
cat <<EOF

The sandbox is running in $sb:
  export OVN_NB_DB=unix:$sb/nb.sock OVN_SB_DB=unix:$sb/sb.sock
  $build/utilities/ovn-nbctl show       # the Northbound (our CLI)
  ovn-sbctl lflow-list web             # what northd compiled
  $build/utilities/ovn-trace --nb-db=unix:$sb/nb.sock --ct=new web 'inport == "web1" && eth.src == 0a:00:00:00:01:01 && eth.dst == 0a:00:00:00:01:02 && ip4.src == 10.0.1.11 && ip4.dst == 10.0.1.12 && tcp.dst == 80 && ip.ttl == 64'
                                       # our trace: which ACL decided
  ovs-appctl -t $sb/northd.ctl status  # active / standby / paused
  ovs-appctl -t $sb/northd.ctl northd/stats
  tail -f $sb/northd.log
Stop it with: $top/utilities/sandbox.sh stop
EOF
