#! /bin/sh
# nbctl-bench.sh: times our ovn-nbctl against stock ovn-nbctl on a large
# Northbound (no northd running).
#
# usage: bench/nbctl-bench.sh [BUILDDIR]   (run from the source tree;
#        BUILDDIR defaults to _build/plain, utilities/build.sh's build)
#
# Environment: PORTS (10000), SWITCHES (100), PGS (1000), ACLS (22000),
# RUNS (5), WORKDIR (a fresh temporary directory).
#
# The NB is populated with one ovsdb-client transaction per switch, so
# setting it up takes seconds, not the hours one nbctl call per row would.
# Each measured command is run RUNS times; the median wall time is printed.
set -e

builddir=${1:-_build/plain}
OURS=$(cd "$builddir" && pwd)/utilities/ovn-nbctl
STOCK=/usr/bin/ovn-nbctl
SCHEMA=$(cd "$(dirname "$0")/.." && pwd)/ovn-nb.ovsschema
PORTS=${PORTS:-10000}
SWITCHES=${SWITCHES:-100}
PGS=${PGS:-1000}
ACLS=${ACLS:-22000}
RUNS=${RUNS:-5}
WORKDIR=${WORKDIR:-$(mktemp -d)}

cd "$WORKDIR"
ovsdb-tool create nb.db "$SCHEMA"
ovsdb-server --detach --no-chdir --pidfile="$PWD/nb.pid" \
    --log-file="$PWD/nb.log" --unixctl="$PWD/nb.ctl" \
    --remote=punix:"$PWD/nb.sock" nb.db
trap 'kill $(cat "$WORKDIR/nb.pid") 2>/dev/null' 0
DB=unix:$PWD/nb.sock

echo "populating: $PORTS ports on $SWITCHES switches, $PGS port groups," \
     "$ACLS ACLs (in $WORKDIR)"
python3 - "$PORTS" "$SWITCHES" "$DB" <<'EOF'
import json, subprocess, sys
ports, switches, db = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
subprocess.run(["ovsdb-client", "transact", db, json.dumps(
    ["OVN_Northbound", {"op": "insert", "table": "NB_Global", "row": {}}])],
    check=True, stdout=subprocess.DEVNULL)
per_sw = ports // switches
for s in range(switches):
    ops, lsps = [], []
    for i in range(per_sw):
        n = s * per_sw + i
        mac = "00:00:%02x:%02x:%02x:%02x" % (n >> 24 & 255, n >> 16 & 255,
                                             n >> 8 & 255, n & 255)
        ip = "10.%d.%d.%d" % (n >> 16 & 255, n >> 8 & 255, n & 255)
        ops.append({"op": "insert", "table": "Logical_Switch_Port",
                    "uuid-name": "p%d" % n,
                    "row": {"name": "lsp%d" % n,
                            "addresses": "%s %s" % (mac, ip)}})
        lsps.append(["named-uuid", "p%d" % n])
    ops.append({"op": "insert", "table": "Logical_Switch",
                "row": {"name": "ls%d" % s, "ports": ["set", lsps]}})
    subprocess.run(["ovsdb-client", "transact", db,
                    json.dumps(["OVN_Northbound"] + ops)],
                   check=True, stdout=subprocess.DEVNULL)
EOF

# Port groups with ACLs, in batches of 10 groups per transaction.
python3 - "$PORTS" "$PGS" "$ACLS" "$DB" <<'EOF'
import json, subprocess, sys
ports, pgs, acls, db = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ports = int(ports)
per_pg = acls // pgs
for base in range(0, pgs, 10):
    ops = []
    for g in range(base, min(base + 10, pgs)):
        names = []
        for a in range(per_pg):
            nm = "a%d_%d" % (g, a)
            ops.append({"op": "insert", "table": "ACL", "uuid-name": nm,
                        "row": {"direction": "to-lport" if a % 2 else "from-lport",
                                "priority": 1000 + a,
                                "match": "outport == @pg%d && tcp.dst == %d"
                                         % (g, 1000 + a),
                                "action": "allow-related"}})
            names.append(["named-uuid", nm])
        ops.append({"op": "select", "table": "Logical_Switch_Port",
                    "where": [["name", "==", "lsp%d" % ((g * 10) % ports)]]})
        ops.append({"op": "insert", "table": "Port_Group",
                    "row": {"name": "pg%d" % g, "acls": ["set", names]}})
    subprocess.run(["ovsdb-client", "transact", db,
                    json.dumps(["OVN_Northbound"] + ops)],
                   check=True, stdout=subprocess.DEVNULL)
EOF
# Ten ports per port group.
for g in 0 1 2 3 4; do
    $STOCK --db="$DB" pg-set-ports pg$g lsp$((g*10)) lsp$((g*10+1)) \
        lsp$((g*10+2)) > /dev/null
done

# median CMD...: runs CMD RUNS times, prints the median wall time in ms.
median () {
    for i in $(seq "$RUNS"); do
        s=$(date +%s%N)
        "$@" > /dev/null
        e=$(date +%s%N)
        echo $(( (e - s) / 1000000 ))
    done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

printf '%-22s %10s %10s\n' command "stock(ms)" "ours(ms)"
# row NAME FUNC: times FUNC with each binary; FUNC gets the binary's path
# and a tag ("stock" or "ours") that keeps the two runs' rows apart.
row () {
    s=$(median "$2" "$STOCK" stock)
    o=$(median "$2" "$OURS" ours)
    printf '%-22s %10s %10s\n' "$1" "$s" "$o"
}

n=0
acl_add () {
    n=$((n + 1))
    "$1" --db="$DB" acl-add pg7 to-lport 2000 \
        "outport == @pg7 && udp.dst == $n && reg0 == ${#2}" drop
}
acl_del () {
    n=$((n + 1))
    "$1" --db="$DB" acl-del pg8 to-lport 2001 "ip4.src == 10.$n.0.0/16 && $2"
}
pg_set () {
    n=$((n + 1))
    "$1" --db="$DB" pg-set-ports pg9 lsp$((n % 100)) lsp$((n % 100 + 100))
}
lsp_add () {
    n=$((n + 1))
    "$1" --db="$DB" lsp-add ls1 newport-$2-$n
}
lsp_set_addr () {
    n=$((n + 1))
    "$1" --db="$DB" lsp-set-addresses lsp7 \
        "00:00:00:ff:00:$(printf %02x $n) 10.255.$n.1"
}

# ACLs for acl-del to remove, created outside the timing.
for tag in stock ours; do
    for i in $(seq "$RUNS"); do
        $STOCK --db="$DB" acl-add pg8 to-lport 2001 \
            "ip4.src == 10.$i.0.0/16 && $tag" drop
    done
done

row acl-add acl_add
row acl-del acl_del
row pg-set-ports pg_set
row lsp-add lsp_add
row lsp-set-addresses lsp_set_addr
