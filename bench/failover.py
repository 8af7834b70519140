#! /usr/bin/env python3
"""failover.py: what an SB cluster's leader failure costs each northd.

The NB is generated once (bench/gen.py, as run.py does) and copied for
every northd, which gets its own standalone NB server and its own 3-member
SB RAFT cluster (ovsdb-tool create-cluster / join-cluster; election timer
--election-timer, default 16 s), and is given
the three members as one remote list.  For each northd, in the order
given:

  cold start   northd start until "ovn-nbctl --wait=sb sync" returns; then
               the runner waits until northd and the servers are idle
  baseline     one "--wait=sb sync" without a failure: the SB bytes it
               appends to the leader's file (its SB_Global nb_cfg commit)
               are subtracted from each kill's below
  kills        --kills N times: the SB leader is killed (SIGKILL), then
               "ovn-nbctl --wait=sb sync" is run until it returns (northd
               is back, active on a new leader, and has written the
               nb_cfg), then the runner waits until northd and the
               servers are idle.  Measured:
                 converge s     from the kill until that sync returned
                 northd CPU s   northd's utime+stime from the kill until
                                idle
                 SB bytes       bytes the new leader appended to its file
                                from the kill until idle, minus the
                                baseline: what northd rewrote (0 if it
                                kept every row; an election adds a few
                                hundred)
                 lflows kept    (--versions) the share of Logical_Flow
                                rows whose _version is the same after the
                                kill as before it (read from a member that
                                is not killed: each member has its own
                                _version values)
               The killed member is restarted and rejoins before the next
               kill.

Results: OUT.json and OUT.md, the median of each figure over the kills,
and every kill in the JSON.

usage: failover.py --northd ours=northd/ovn-northd
                   --northd stock=/usr/bin/ovn-northd
                   [--size medium] [--kills 3] [--versions]
                   [--out bench/results/NAME]
"""

import datetime
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import ovsdbrpc  # noqa: E402
import run  # noqa: E402

SB_DB = "OVN_Southbound"
MEMBERS = (1, 2, 3)


class Member:
    """One member of the SB cluster in DIR, named sbI."""

    def __init__(self, d, i):
        self.d, self.i = d, i
        self.name = "sb%d" % i
        self.db = os.path.join(d, self.name + ".db")
        self.sock = os.path.join(d, self.name + ".sock")
        self.raft = "unix:" + os.path.join(d, self.name + ".raft")
        self.pidfile = os.path.join(d, self.name + ".pid")
        self.ctl = os.path.join(d, self.name + ".ctl")
        self.pid = None

    def start(self):
        subprocess.run([run.OVSDB_SERVER, "--detach", "--no-chdir",
                        "-vconsole:off", "--pidfile=" + self.pidfile,
                        "--log-file=" + os.path.join(self.d,
                                                     self.name + ".log"),
                        "--unixctl=" + self.ctl,
                        "--remote=punix:" + self.sock, self.db], check=True)
        with open(self.pidfile) as f:
            self.pid = int(f.read())

    def status(self):
        r = subprocess.run([run.OVS_APPCTL, "-t", self.ctl, "cluster/status",
                            SB_DB], capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else ""

    def is_leader(self):
        return self.pid is not None and "Role: leader" in self.status()

    def kill(self):
        os.kill(self.pid, signal.SIGKILL)
        for _ in range(200):
            try:
                os.kill(self.pid, 0)
            except OSError:
                break
            time.sleep(0.01)
        self.pid = None
        try:
            os.unlink(self.pidfile)
        except OSError:
            pass

    def stop(self):
        if self.pid is not None:
            gen.stop_server(self.pidfile)
            self.pid = None


def start_cluster(d, schema, election_timer):
    members = [Member(d, i) for i in MEMBERS]
    first = members[0]
    subprocess.run([run.OVSDB_TOOL, "create-cluster", first.db, schema,
                    first.raft], check=True)
    first.start()
    for m in members[1:]:
        subprocess.run([run.OVSDB_TOOL, "join-cluster", m.db, SB_DB,
                        m.raft, first.raft], check=True)
        m.start()
    wait_until(lambda: all("Status: cluster member" in m.status()
                           for m in members), 60, "SB cluster formed")
    # The election timer doubles at most per change, from 1000 ms; a change
    # is refused while the previous one is still being committed
    # ("election timer change pending"): asked again until taken.
    timer = 1000
    while timer < election_timer:
        timer = min(timer * 2, election_timer)

        def change(timer=timer):
            if leader(members) is None:
                return False
            r = subprocess.run([run.OVS_APPCTL, "-t", leader(members).ctl,
                                "cluster/change-election-timer", SB_DB,
                                str(timer)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            return r.returncode == 0
        wait_until(change, 60, "election timer %d ms" % timer)
    return members


def wait_until(cond, limit, what):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > limit:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.05)


def leader(members):
    for m in members:
        if m.is_leader():
            return m
    return None


def sync(nb, timeout):
    r = subprocess.run([run.NBCTL, "--db=" + nb.remote,
                        "--timeout=%d" % timeout, "--wait=sb", "sync"])
    if r.returncode:
        raise RuntimeError("ovn-nbctl --wait=sb sync failed")


def lflow_versions(m):
    conn = ovsdbrpc.Connection("unix:" + m.sock)
    try:
        res = conn.transact(SB_DB, [{"op": "select", "table": "Logical_Flow",
                                     "where": [],
                                     "columns": ["_uuid", "_version"]}],
                            timeout=600)
    finally:
        conn.close()
    return {r["_uuid"][1]: r["_version"][1] for r in res[0]["rows"]}


def bench_northd(name, path, work, nb_file, a):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    nb_db = os.path.join(d, "nb.db")
    shutil.copyfile(nb_file, nb_db)
    nb = run.Server(d, "nb", nb_db)
    members = []
    proc = None
    try:
        members = start_cluster(d, a.sb_schema, a.election_timer)
        remotes = ",".join("unix:" + m.sock for m in members)
        f = os.path.join(d, "northd")
        t0 = time.monotonic()
        with open(f + ".stderr", "w") as err:
            proc = subprocess.Popen(
                [path, "-vconsole:off", "--no-chdir",
                 "--pidfile=" + f + ".pid", "--log-file=" + f + ".log",
                 "--unixctl=" + f + ".ctl", "--ovnnb-db=" + nb.remote,
                 "--ovnsb-db=" + remotes],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err)
        sync(nb, a.timeout)
        r = {"cold_start_s": time.monotonic() - t0,
             "cold_start_cpu_s": run.proc_cpu(proc.pid)}
        run.log("%s: cold start on the SB cluster %.2f s, CPU %.2f s"
                % (name, r["cold_start_s"], r["cold_start_cpu_s"]))

        def pids():
            return [proc.pid, nb.pid] + [m.pid for m in members if m.pid]

        run.wait_idle(pids(), limit=600)
        lead = leader(members)
        size0 = os.path.getsize(lead.db)
        sync(nb, a.timeout)
        run.wait_idle(pids(), limit=60)
        r["baseline_sb_bytes"] = os.path.getsize(lead.db) - size0

        kills = []
        for k in range(a.kills):
            lead = leader(members)
            if lead is None:
                raise RuntimeError("no SB leader")
            # _version is each member's own: compare on one that survives.
            witness = next(m for m in members if m is not lead and m.pid)
            before = lflow_versions(witness) if a.versions else None
            sizes0 = {m.i: os.path.getsize(m.db) for m in members}
            cpu0 = run.proc_cpu(proc.pid)
            t0 = time.monotonic()
            lead.kill()
            sync(nb, a.timeout)
            t_sync = time.monotonic()
            run.wait_idle(pids(), limit=120)
            cpu = run.proc_cpu(proc.pid) - cpu0
            new = leader(members)
            written = (os.path.getsize(new.db) - sizes0[new.i]
                       - r["baseline_sb_bytes"]) if new else None
            c = {"converge_s": t_sync - t0, "northd_cpu_s": cpu,
                 "sb_bytes_written": written}
            if before is not None:
                after = lflow_versions(witness)
                kept = sum(1 for u, v in before.items()
                           if after.get(u) == v)
                c["lflows"] = len(before)
                c["lflows_kept"] = kept
            kills.append(c)
            run.log("%s: kill %d: converged in %.2f s, northd CPU %.2f s, "
                    "%s SB bytes written%s"
                    % (name, k + 1, c["converge_s"], cpu, written,
                       ", %d of %d lflows kept" % (c["lflows_kept"],
                                                    c["lflows"])
                       if "lflows" in c else ""))
            lead.start()
            wait_until(lambda: "Status: cluster member" in lead.status(),
                       120, "the killed member to rejoin")
            run.wait_idle(pids(), limit=300)
        r["kills"] = kills
        for key in ("converge_s", "northd_cpu_s", "sb_bytes_written"):
            xs = [c[key] for c in kills if c.get(key) is not None]
            r[key] = statistics.median(xs) if xs else None
        if a.versions:
            r["lflows_kept_min"] = min(c["lflows_kept"] / c["lflows"]
                                       for c in kills if c.get("lflows"))
        r["log_warnings"] = run.count_log(f + ".log")
    finally:
        if proc is not None:
            run.stop_northd(proc, os.path.join(d, "northd.ctl"))
            run.kill(proc)
        for m in members:
            m.stop()
        nb.stop()
    return r


def markdown(res):
    out = ["# SB leader failover: %s, %s" % (res["meta"]["profile"],
                                               res["meta"]["date"]), ""]
    m = res["meta"]
    out.append("`%s`  " % m["command"])
    out.append("Host: %s.  NB: %s.  %d kills per northd; medians." % (
        m["host"], json.dumps(res["nb"]["counts"]), m["kills"]))
    out.append("")
    names = list(res["northds"])
    out.append("| | " + " | ".join(names) + " |")
    out.append("|---|" + "---|" * len(names))

    def row(label, key, nd=2):
        cells = []
        for n in names:
            v = res["northds"][n].get(key)
            cells.append("-" if v is None else
                         ("%.*f" % (nd, v) if isinstance(v, float)
                          else str(v)))
        out.append("| %s | %s |" % (label, " | ".join(cells)))
    row("cold start on the cluster, s", "cold_start_s")
    row("CPU during cold start, s", "cold_start_cpu_s")
    row("after a leader kill: converged, s", "converge_s")
    row("after a leader kill: northd CPU, s", "northd_cpu_s")
    row("after a leader kill: SB bytes written", "sb_bytes_written", 0)
    row("Logical_Flow rows kept (lowest share)", "lflows_kept_min", 4)
    out.append("| northd log warnings, errors | %s |" % " | ".join(
        "%d, %d" % (res["northds"][n]["log_warnings"]["WARN"],
                    res["northds"][n]["log_warnings"]["ERR"])
        for n in names))
    out.append("")
    return "\n".join(out) + "\n"


def main():
    p = run.arg_parser("SB leader failover benchmark", __doc__)
    p.add_argument("--kills", type=int, default=3)
    p.add_argument("--election-timer", type=int, default=16000,
                   metavar="MS", help="the SB cluster's election timer "
                   "(default 16000, as large deployments set it: with "
                   "OVS's 1000 the members hold elections while the "
                   "leader commits a cold start's transaction)")
    p.add_argument("--versions", action="store_true",
                   help="compare every Logical_Flow row's _version before "
                   "and after each kill")
    a = gen.resolve_sizes(p.parse_args())
    northds = run.parse_northds(p, a)

    work = a.workdir or tempfile.mkdtemp(prefix="lsn-failover-")
    os.makedirs(work, exist_ok=True)
    res = {"meta": {
        "command": " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        "profile": "%s %s" % (a.profile, a.size or "custom"),
        "kills": a.kills,
        "date": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%d %H:%M UTC"),
        "host": "%s, %d CPUs" % (platform.machine(), os.cpu_count())},
        "northds": {}}
    try:
        nb_file, manifest = run.generate_nb(work, a)
        res["nb"] = {"counts": manifest["counts"]}
        for name, path in northds:
            res["northds"][name] = bench_northd(name, path, work, nb_file, a)
    finally:
        if not a.keep and not a.workdir:
            shutil.rmtree(work, ignore_errors=True)
    run.write_results(a.out, res, markdown(res))


if __name__ == "__main__":
    main()
