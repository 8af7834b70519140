#!/usr/bin/env python3
"""Logs what each SB transaction inserts, one JSON line per transaction.

    sb-txn-log.py unix:SB.sock OUT [--until-file FILE]
    sb-txn-log.py --check OUT N_FLOWS MAX

Monitors Logical_Flow (pipeline, table_id) and SB_Global (nb_cfg) and
appends to OUT, for every update notification ovsdb-server sends (one per
committed transaction, since northd sends the next one only after the
previous reply), a line {"flows": [[pipeline, table_id], ...], "nb_cfg": N
or null}: the flows inserted and the nb_cfg written.  The initial contents
are the first line.  Stops when FILE exists (checked every 0.1 s) or the
server goes away.

--check reads such a log and checks how northd split its write of N_FLOWS
flows into an empty SB: each transaction inserts at most MAX flows, all of
them are inserted, each transaction's flows come no earlier in the pipeline
than the previous one's (back to front: the egress pipeline's last table
first, the ingress pipeline's table 0 last), and nb_cfg is passed on only
with the last of them.  It prints what is wrong and exits 1, or prints a
summary.  tests/northd.at uses both.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench"))
import ovsdbrpc  # noqa: E402


def summarize(updates):
    flows = []
    nb_cfg = None
    for uuid, change in updates.get("Logical_Flow", {}).items():
        new = change.get("new")
        if new is not None and change.get("old") is None:
            flows.append([new["pipeline"], new["table_id"]])
    for uuid, change in updates.get("SB_Global", {}).items():
        new = change.get("new") or {}
        if "nb_cfg" in new:
            nb_cfg = new["nb_cfg"]
    return {"flows": sorted(flows), "nb_cfg": nb_cfg}


def rank(flow):
    """Position in the back-to-front order of a (pipeline, table) pair."""
    return (0 if flow[0] == "egress" else 256) + 255 - flow[1]


def check(log, n_flows, max_flows):
    txns = [json.loads(line) for line in open(log)]
    problems = []
    if not txns or txns[0]["flows"]:
        problems.append("the SB was not empty at the start")
    chunks = [(i, t["flows"]) for i, t in enumerate(txns) if t["flows"]]
    total = sum(len(f) for i, f in chunks)
    if total != n_flows:
        problems.append("%d flows inserted, %d in the SB" % (total, n_flows))
    if len(chunks) < -(-n_flows // max_flows):
        problems.append("only %d transactions" % len(chunks))
    for i, f in chunks:
        if len(f) > max_flows:
            problems.append("transaction %d inserted %d flows" % (i, len(f)))
    for (i, a), (j, b) in zip(chunks, chunks[1:]):
        if max(map(rank, a)) > min(map(rank, b)):
            problems.append("transaction %d inserted %s, after %d inserted %s"
                            % (j, min(b, key=rank), i, max(a, key=rank)))
    last = chunks[-1][0] if chunks else 0
    for i, t in enumerate(txns):
        if t["nb_cfg"] and i < last:
            problems.append("nb_cfg %d in transaction %d, before the last "
                            "flows (in %d)" % (t["nb_cfg"], i, last))
    for p in problems:
        print(p)
    if problems:
        return 1
    print("%d flows in %d transactions" % (total, len(chunks)))
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    p = argparse.ArgumentParser()
    p.add_argument("remote")
    p.add_argument("out")
    p.add_argument("--until-file")
    a = p.parse_args()

    c = ovsdbrpc.Connection(a.remote)
    # A "monitor" (not "monitor_cond"): every insert comes with its columns,
    # and a modification lists only what changed.
    initial = c.call("monitor", [
        "OVN_Southbound", None, {
            "Logical_Flow": {"columns": ["pipeline", "table_id"],
                             "select": {"initial": True, "insert": True,
                                        "delete": False, "modify": False}},
            "SB_Global": {"columns": ["nb_cfg"]},
        }])
    with open(a.out, "a") as out:
        out.write(json.dumps(summarize(initial)) + "\n")
        out.flush()
        while not (a.until_file and os.path.exists(a.until_file)):
            try:
                c.poll(0.1)
            except ovsdbrpc.RpcError:
                break
            for n in c.notifications:
                if n.get("method") == "update":
                    out.write(json.dumps(summarize(n["params"][1])) + "\n")
            out.flush()
            c.notifications = []


if __name__ == "__main__":
    main()
