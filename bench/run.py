#! /usr/bin/env python3
"""run.py: side-by-side benchmark of ovn-northd binaries on one NB.

The NB is generated once (bench/gen.py, deterministic from --seed) and
copied for every northd, which gets its own NB and SB ovsdb-servers.  For
each northd, in the order given:

  cold start      northd start until "ovn-nbctl --wait=sb sync" (started
                  together with northd) returns
  compile CPU     northd's utime+stime (/proc/PID/stat) when the SB first
                  has Logical_Flow rows: the runner holds an OVSDB "wait"
                  operation on the SB that the server answers as soon as a
                  commit makes Logical_Flow non-empty.  northd is idle
                  while the SB ingests its transaction, so this is close to
                  the CPU spent before the first lflow transaction was sent
                  (it includes reading the NB).
  peak RSS        VmHWM from /proc/PID/status after cold start and at end
  --cold-runs N   N cold starts per northd, each on fresh servers (the
                  extra ones first, alternating between the northds); the
                  cold-start rows give the median, and the JSON every run;
                  the floor below is measured N times too
  restart         at the end, northd is stopped and started again on the
                  same NB and SB (as after a failover or an upgrade):
                  the time until "--wait=sb sync" returns, its CPU, its
                  peak RSS, and the bytes the SB server appended to its
                  file meanwhile (--no-restart skips it)
  SB rows         Logical_Flow, Logical_DP_Group and a few others
  SB size         the SB file after cold start, and after online compaction
                  at the end of the run
  settle          then the runner waits (up to 5 minutes) until both
                  ovsdb-servers and northd are idle, so that the first
                  changes do not time the servers' work on the initial
                  transaction; an SB file over 100 MB is compacted
                  first, and followed by a 60 s pause (its automatic
                  compaction would otherwise come due during the
                  changes)
  warm-up         then up to --warmup N (400) unmeasured ACL match
                  changes, in windows of 20, until a window's median is
                  no longer 10% better than the one before and the NB and
                  SB servers spent at most 3 ms of CPU per change in it:
                  right after a cold start at a million ACLs the NB server
                  spent tens of ms per change for the first hundred or
                  so, mostly in glibc malloc (likely sorting the memory
                  freed with the initial monitor reply), whatever the
                  northd.  Reported (with each window's median and the
                  servers' CPU) next to the latencies.
  latency         for each change kind, N changes, each committed through a
                  persistent JSON-RPC connection together with an
                  NB_Global.nb_cfg increment in one transaction; the time is
                  from sending that transaction until a monitor on NB_Global
                  reports sb_cfg >= the new nb_cfg.  Median and p99
                  (nearest rank; with fewer than 100 samples p99 is the
                  maximum).  northd's CPU per change is also reported,
                  and the NB and SB servers'.

It also measures the floor: the time a fresh SB ovsdb-server takes to
ingest, in one transaction, the SB content produced by the first northd
(read back at the end of its run, so that the changes are not measured
against a server that has just sent the whole database).

usage: run.py --northd ours=northd/ovn-northd --northd stock=/usr/bin/ovn-northd
              [--size medium | --ports ... ] [--changes 50]
              [--max-changes stock=10] [--out bench/results/NAME]

Results: NAME.json and NAME.md.
"""

import argparse
import datetime
import json
import math
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

OVSDB_SERVER = "/usr/sbin/ovsdb-server"
OVSDB_TOOL = "/usr/bin/ovsdb-tool"
OVS_APPCTL = "/usr/bin/ovs-appctl"
NBCTL = "/usr/bin/ovn-nbctl"
SB_DB = "OVN_Southbound"
SB_COUNT_TABLES = ["Logical_Flow", "Logical_DP_Group", "Datapath_Binding",
                   "Port_Binding", "Port_Group", "Address_Set",
                   "Multicast_Group"]
CLK_TCK = os.sysconf("SC_CLK_TCK")
# An SB bigger than this after the cold start is compacted before the
# changes (see bench_northd()), then left alone for PRECOMPACT_PAUSE s.
PRECOMPACT_BYTES = 100e6
PRECOMPACT_PAUSE = 60
# Warm-up (--warmup N): unmeasured ACL match changes before the measured
# ones, in windows of WARMUP_WINDOW, until a window's median is no better
# than WARMUP_SETTLED times the one before and the NB and SB servers
# together spent at most WARMUP_SERVER_MS of CPU per change in it (or N
# changes).  The second condition because latency alone is too noisy to
# tell: at a million ACLs the window medians went 109, 13, 10, 20 ms
# while the NB server still spent 21 ms of CPU per change for the next
# 50.  Their ports start at 40000 + WARMUP_BASE, apart from the measured
# acl_modify ones.
WARMUP_WINDOW = 20
WARMUP_SETTLED = 0.9
WARMUP_SERVER_MS = 3.0
WARMUP_BASE = 10000


def log(*args):
    print("[%s]" % time.strftime("%H:%M:%S"), *args, file=sys.stderr,
          flush=True)


# ---------------------------------------------------------------------------
# Processes.

def proc_cpu(pid):
    """utime + stime of PID in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def procs_cpu(pids):
    """utime + stime of the processes PIDS together, in seconds."""
    return sum(proc_cpu(p) for p in pids)


def wait_idle(pids, limit=300.0, window=1.0, busy=0.02):
    """Waits until the processes PIDS together used less than BUSY of a CPU
    over WINDOW seconds (at most LIMIT seconds).  After a large commit an
    ovsdb-server keeps working for a while (writing its log, compacting in
    a background thread); changes measured then time the server, not
    northd.  Returns the seconds waited."""
    t0 = time.monotonic()
    last = procs_cpu(pids)
    while time.monotonic() - t0 < limit:
        time.sleep(window)
        now = procs_cpu(pids)
        if now - last < busy * window:
            break
        last = now
    return time.monotonic() - t0


def proc_status(pid, key):
    """A "kB" field of /proc/PID/status, in kB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


class Server:
    """An ovsdb-server for one database file in DIR."""

    def __init__(self, d, name, dbfile):
        self.d, self.name = d, name
        self.sock = os.path.join(d, name + ".sock")
        self.pidfile = os.path.join(d, name + ".pid")
        self.ctl = os.path.join(d, name + ".ctl")
        self.dbfile = dbfile
        subprocess.run([OVSDB_SERVER, "--detach", "--no-chdir",
                        "-vconsole:off", "--pidfile=" + self.pidfile,
                        "--log-file=" + os.path.join(d, name + ".log"),
                        "--unixctl=" + self.ctl,
                        "--remote=punix:" + self.sock, dbfile], check=True)
        with open(self.pidfile) as f:
            self.pid = int(f.read())

    @property
    def remote(self):
        return "unix:" + self.sock

    def compact(self):
        subprocess.run([OVS_APPCTL, "-t", self.ctl, "ovsdb-server/compact"],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        gen.stop_server(self.pidfile)


def stop_northd(proc, ctl):
    """Stops northd and reaps it.  Returns the CPU seconds (user + system)
    it used in all, from the kernel's accounting at its exit: microseconds,
    where /proc/PID/stat counts clock ticks (10 ms), more than a small
    run's whole CPU.  None if it had been reaped already."""
    if proc.returncode is not None:
        return None
    subprocess.run([OVS_APPCTL, "-t", ctl, "exit"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=30)
    deadline = time.monotonic() + 20
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, ru = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime


# ---------------------------------------------------------------------------
# Statistics.

def pctl(xs, p):
    """Nearest-rank percentile."""
    s = sorted(xs)
    return s[max(0, math.ceil(p / 100.0 * len(s)) - 1)]


def summarize(xs):
    if not xs:
        return None
    return {"n": len(xs), "median_ms": statistics.median(xs) * 1e3,
            "p99_ms": pctl(xs, 99) * 1e3, "min_ms": min(xs) * 1e3,
            "max_ms": max(xs) * 1e3}


# ---------------------------------------------------------------------------
# SB helpers.

def sb_counts(conn):
    ops = [{"op": "select", "table": t, "where": [], "columns": ["_uuid"]}
           for t in SB_COUNT_TABLES]
    res = conn.transact(SB_DB, ops, timeout=600)
    return {t: len(r["rows"]) for t, r in zip(SB_COUNT_TABLES, res)}


def sb_dump_ops(conn, schema):
    """Insert operations that recreate every row of the SB, with the same
    UUIDs (so references stay valid within the one transaction)."""
    tables = sorted(schema["tables"])
    res = conn.transact(SB_DB, [{"op": "select", "table": t, "where": []}
                                for t in tables], timeout=600)
    ops = []
    for t, r in zip(tables, res):
        for row in r["rows"]:
            u = row.pop("_uuid")[1]
            row.pop("_version", None)
            ops.append({"op": "insert", "table": t, "uuid": u, "row": row})
    return ops


def measure_floor(work, sb_schema_file, ops, k=0):
    """Seconds for a fresh SB ovsdb-server to commit OPS in one
    transaction (encoding excluded).  K numbers the measurement."""
    d = os.path.join(work, "floor" if not k else "floor%d" % k)
    os.makedirs(d, exist_ok=True)
    db = os.path.join(d, "sb.db")
    subprocess.run([OVSDB_TOOL, "create", db, sb_schema_file], check=True)
    srv = Server(d, "sb", db)
    try:
        conn = ovsdbrpc.Connection(srv.remote)
        msg_id, data = conn.encode("transact", [SB_DB] + ops)
        t0 = time.monotonic()
        conn.send_raw(data)
        res = conn.wait_reply(msg_id, timeout=1800)
        t1 = time.monotonic()
        ovsdbrpc.check_result(res, ops)
        conn.close()
        return {"seconds": t1 - t0, "rows": len(ops),
                "bytes": len(data), "db_size": os.path.getsize(db)}
    finally:
        srv.stop()


# ---------------------------------------------------------------------------
# Propagation latency.

class NbClient:
    """A persistent NB connection with a monitor on NB_Global."""

    def __init__(self, remote):
        self.conn = ovsdbrpc.Connection(remote)
        res = self.conn.call("monitor", [gen.DB, "lat", {
            "NB_Global": {"columns": ["nb_cfg", "sb_cfg"]}}], timeout=60)
        rows = res.get("NB_Global", {})
        assert len(rows) == 1, "expected one NB_Global row"
        self.nb_global = list(rows)[0]
        self.sb_cfg = rows[self.nb_global]["new"].get("sb_cfg", 0)

    def _drain(self):
        for n in self.conn.notifications:
            if n.get("method") != "update":
                continue
            upd = n["params"][1].get("NB_Global", {})
            for row in upd.values():
                new = row.get("new") or {}
                if "sb_cfg" in new:
                    self.sb_cfg = max(self.sb_cfg, new["sb_cfg"])
        self.conn.notifications = []

    def change(self, ops, timeout):
        """Commits OPS with an nb_cfg increment; returns seconds until
        sb_cfg catches up."""
        ops = list(ops) + [
            {"op": "mutate", "table": "NB_Global", "where": [],
             "mutations": [["nb_cfg", "+=", 1]]},
            {"op": "select", "table": "NB_Global", "where": [],
             "columns": ["nb_cfg"]}]
        msg_id, data = self.conn.encode("transact", [gen.DB] + ops)
        t0 = time.monotonic()
        self.conn.send_raw(data)
        res = self.conn.wait_reply(msg_id, timeout)
        ovsdbrpc.check_result(res, ops)
        target = res[-1]["rows"][0]["nb_cfg"]
        deadline = t0 + timeout
        while True:
            self._drain()
            if self.sb_cfg >= target:
                return time.monotonic() - t0
            left = deadline - time.monotonic()
            if left <= 0:
                raise ovsdbrpc.RpcError("sb_cfg did not reach %d" % target)
            self.conn.poll(left)

    def close(self):
        self.conn.close()


def change_plan(kinds, n):
    """(kind, index) in the order they run: paired kinds alternate so that
    each removal undoes the addition just before it; ACL adds all run
    before their deletions."""
    plan = []
    if "acl_add" in kinds:
        plan += [("acl_add", i) for i in range(n)]
    if "acl_del" in kinds:
        plan += [("acl_del", i) for i in range(n)]
    if "acl_modify" in kinds:
        plan += [("acl_modify", i) for i in range(n)]
    for a, d in (("pg_add_port", "pg_del_port"), ("as_add", "as_del")):
        for i in range(n):
            plan += [(k, i) for k in (a, d) if k in kinds]
    for k in ["port_add", "switch_add", "lb_endpoint"] + gen.SERVICE_KINDS:
        if k in kinds:
            plan += [(k, i) for i in range(n)]
    for i in range(n):
        plan += [(k, i) for k in ("lb_service_add", "lb_service_del")
                 if k in kinds]
    for a, d in (("fip_add", "fip_del"), ("route_add", "route_del")):
        for i in range(n):
            plan += [(k, i) for k in (a, d) if k in kinds]
    return plan


# ---------------------------------------------------------------------------
# One northd.

# What one cold start measures; with --cold-runs N the report gives the
# median of N cold starts for each.
COLD_KEYS = ("cold_start_s", "first_lflows_s", "compile_cpu_s",
             "cold_start_cpu_s", "rss_peak_cold_mb", "sb_server_cold_cpu_s")


def servers_for(d, nb_file, sb_schema_file):
    """A copy of the NB and an empty SB in D, each with its server."""
    os.makedirs(d, exist_ok=True)
    nb_db, sb_db = os.path.join(d, "nb.db"), os.path.join(d, "sb.db")
    shutil.copyfile(nb_file, nb_db)
    subprocess.run([OVSDB_TOOL, "create", sb_db, sb_schema_file], check=True)
    nb = Server(d, "nb", nb_db)
    try:
        sb = Server(d, "sb", sb_db)
    except BaseException:
        nb.stop()
        raise
    return nb, sb, sb_db


def start_northd(path, d, nb, sb, tag):
    """Starts northd PATH on servers NB and SB, with its pidfile, log,
    unixctl socket and stderr in D named after TAG."""
    f = os.path.join(d, tag)
    with open(f + ".stderr", "w") as err:
        return subprocess.Popen(
            [path, "-vconsole:off", "--no-chdir", "--pidfile=" + f + ".pid",
             "--log-file=" + f + ".log", "--unixctl=" + f + ".ctl",
             "--ovnnb-db=" + nb.remote, "--ovnsb-db=" + sb.remote],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)


def restart(name, path, d, nb, sb, sb_db, a):
    """Starts northd PATH again on the NB and SB its first run left (the
    changes included), as after a failover or an upgrade, and waits until
    "--wait=sb sync" returns: the time, CPU, peak RSS and the bytes the
    SB server appended to its file meanwhile (what the restart wrote: none
    if it kept every row).  Stops northd again."""
    size0 = os.path.getsize(sb_db)
    t0 = time.monotonic()
    proc = start_northd(path, d, nb, sb, "restart")
    try:
        sync = subprocess.run([NBCTL, "--db=" + nb.remote,
                               "--timeout=%d" % a.timeout, "--wait=sb",
                               "sync"])
        if sync.returncode != 0:
            raise RuntimeError("%s: ovn-nbctl --wait=sb sync failed after "
                               "the restart" % name)
        t_sync = time.monotonic()
        c = {"restart_s": t_sync - t0,
             "restart_cpu_s": proc_cpu(proc.pid),
             "rss_peak_restart_mb": proc_status(proc.pid, "VmHWM") / 1024.0}
        # The SB_Global nb_cfg commit of the sync itself is in the file
        # too: a few hundred bytes.
        c["restart_sb_bytes_written"] = os.path.getsize(sb_db) - size0
        stop_northd(proc, os.path.join(d, "restart.ctl"))
        c["restart_log_warnings"] = count_log(os.path.join(d,
                                                           "restart.log"))
    finally:
        kill(proc)
    log("%s: restart %.2f s, CPU %.2f s, peak RSS %.1f MB, %d SB bytes "
        "written" % (name, c["restart_s"], c["restart_cpu_s"],
                     c["rss_peak_restart_mb"],
                     c["restart_sb_bytes_written"]))
    return c


def cold_start(name, path, d, nb, sb, a):
    """Starts northd PATH on servers NB and SB (an empty SB) and waits
    until "--wait=sb sync" returns.  Returns (process, {COLD_KEYS...}); the
    process keeps running."""
    sbc = ovsdbrpc.Connection(sb.remote)
    try:
        wait_id = sbc.send("transact", [SB_DB, {
            "op": "wait", "table": "Logical_Flow", "where": [],
            "columns": [], "until": "!=", "rows": []}])
        t0 = time.monotonic()
        sb_cpu0 = proc_cpu(sb.pid)
        proc = start_northd(path, d, nb, sb, "northd")
        try:
            sync = subprocess.Popen([NBCTL, "--db=" + nb.remote,
                                     "--timeout=%d" % a.timeout,
                                     "--wait=sb", "sync"])
            sbc.wait_reply(wait_id, timeout=a.timeout)
            t_lflow = time.monotonic()
            cpu_lflow = proc_cpu(proc.pid)
            if sync.wait() != 0:
                raise RuntimeError("%s: ovn-nbctl --wait=sb sync failed"
                                   % name)
            t_sync = time.monotonic()
            c = {"cold_start_s": t_sync - t0,
                 "first_lflows_s": t_lflow - t0,
                 "compile_cpu_s": cpu_lflow,
                 "cold_start_cpu_s": proc_cpu(proc.pid),
                 "sb_server_cold_cpu_s": proc_cpu(sb.pid) - sb_cpu0,
                 "rss_peak_cold_mb": proc_status(proc.pid, "VmHWM") / 1024.0}
        except BaseException:
            kill(proc)
            raise
    finally:
        sbc.close()
    log("%s: cold start %.2f s, compile CPU %.2f s"
        % (name, c["cold_start_s"], c["compile_cpu_s"]))
    return proc, c


def kill(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def extra_cold_start(name, path, work, k, nb_file, sb_schema_file, a):
    """Cold start number K (from 1) of --cold-runs, on servers of its own,
    which are stopped afterwards with northd."""
    d = os.path.join(work, "%s-cold%d" % (name, k))
    nb, sb, _ = servers_for(d, nb_file, sb_schema_file)
    try:
        proc, c = cold_start(name, path, d, nb, sb, a)
        stop_northd(proc, os.path.join(d, "northd.ctl"))
        kill(proc)
    finally:
        nb.stop()
        sb.stop()
    return c


def bench_northd(name, path, work, nb_file, sb_schema_file, manifest, a,
                 n_changes, n_warmup, want_dump, extra_colds=()):
    d = os.path.join(work, name)
    nb, sb, sb_db = servers_for(d, nb_file, sb_schema_file)
    ctl = os.path.join(d, "northd.ctl")
    r = {"binary": path, "version": binary_version(path)}
    proc = None
    dump = None
    try:
        log("%s: cold start" % name)
        proc, c = cold_start(name, path, d, nb, sb, a)
        # The extra cold starts ran first (see main()); this one counts too.
        r["cold_runs"] = list(extra_colds) + [c]
        for k in COLD_KEYS:
            r[k] = statistics.median(run[k] for run in r["cold_runs"])
        sbc = ovsdbrpc.Connection(sb.remote)

        r["sb_rows"] = sb_counts(sbc)
        r["sb_db_bytes"] = os.path.getsize(sb_db)
        sbc.close()
        r["sb_compacted_before_changes"] = (r["sb_db_bytes"]
                                            > PRECOMPACT_BYTES)
        t_settle = time.monotonic()
        if r["sb_compacted_before_changes"]:
            # ovsdb-server compacts on its own once 10 minutes have passed
            # since it started, its log has 100 entries and its file has
            # grown 4x: after a big cold start (whose SB takes minutes to
            # count) that came due within the first changes, and at a
            # million ACLs stopped the SB server for 99 s and left its
            # commits slower for a while.  So it is done here, before the
            # servers are waited for, and followed by a pause for the
            # slower commits that follow a compaction.
            sb.compact()
            wait_idle([nb.pid, sb.pid, proc.pid])
            time.sleep(PRECOMPACT_PAUSE)
        wait_idle([nb.pid, sb.pid, proc.pid])
        r["settle_s"] = time.monotonic() - t_settle

        nbc = NbClient(nb.remote)
        r["warmup"] = warm_up(name, nbc, manifest, a, n_warmup,
                              (nb.pid, sb.pid))
        log("%s: %d changes of each kind (after %.1f s for the servers to "
            "go idle)" % (name, n_changes, r["settle_s"]))
        pids = (proc.pid, nb.pid, sb.pid)
        lat = {k: [] for k in a.kinds}
        cpu = {k: [0.0, 0.0, 0.0] for k in a.kinds}
        errors = []
        for kind, i in change_plan(a.kinds, n_changes):
            c0 = [proc_cpu(pid) for pid in pids]
            try:
                lat[kind].append(nbc.change(gen.change_ops(kind, i, manifest),
                                            a.change_timeout))
            except ovsdbrpc.RpcError as e:
                errors.append("%s %d: %s" % (kind, i, e))
                if len(errors) > 5:
                    raise
            for j, pid in enumerate(pids):
                cpu[kind][j] += proc_cpu(pid) - c0[j]
        nbc.close()
        # Compacting (again) only now: commits right after an online
        # compaction of a large database were 2-4x slower for tens of
        # seconds (measured at 200,000 ACLs: 20-110 ms per ACL add instead
        # of about 10 ms), which would count against the changes.
        sb.compact()
        r["sb_db_compacted_bytes"] = os.path.getsize(sb_db)
        if want_dump:
            # Read back only now, for the same reason: the select of the
            # whole SB left its server slower for tens of seconds.
            sbc = ovsdbrpc.Connection(sb.remote)
            dump = sb_dump_ops(sbc, json.load(open(sb_schema_file)))
            sbc.close()
        r["latency"] = {}
        for k in a.kinds:
            s = summarize(lat[k])
            if s:
                for j, key in enumerate(("cpu_ms_per_change",
                                         "nb_server_cpu_ms_per_change",
                                         "sb_server_cpu_ms_per_change")):
                    s[key] = cpu[k][j] / s["n"] * 1e3
            r["latency"][k] = s
        r["change_errors"] = errors
        r["rss_peak_mb"] = proc_status(proc.pid, "VmHWM") / 1024.0
        r["total_cpu_s"] = stop_northd(proc, ctl)
        r["exit_status"] = proc.returncode
        r["log_warnings"] = count_log(os.path.join(d, "northd.log"))
        if not a.no_restart:
            log("%s: restart on the SB it wrote" % name)
            r.update(restart(name, path, d, nb, sb, sb_db, a))
    finally:
        if proc is not None:
            kill(proc)
        nb.stop()
        sb.stop()
    return r, dump


def warm_up(name, nbc, manifest, a, limit, server_pids):
    """Up to LIMIT unmeasured changes (ACL match changes) before the
    measured ones, stopping once they no longer get faster and the
    ovsdb-servers SERVER_PIDS have stopped working off their start-up
    (see WARMUP_WINDOW; the module's docstring says why).  Returns their
    summary, with the median and the servers' CPU per change of each
    window."""
    if limit <= 0:
        return None
    xs = []
    windows = []
    server_ms = []
    c0 = procs_cpu(server_pids)
    for k in range(limit):
        xs.append(nbc.change(gen.change_ops("acl_modify", WARMUP_BASE + k,
                                            manifest), a.change_timeout))
        if len(xs) % WARMUP_WINDOW == 0:
            windows.append(statistics.median(xs[-WARMUP_WINDOW:]))
            c1 = procs_cpu(server_pids)
            server_ms.append((c1 - c0) / WARMUP_WINDOW * 1e3)
            c0 = c1
            if (len(windows) >= 2
                    and windows[-1] > WARMUP_SETTLED * windows[-2]
                    and server_ms[-1] <= WARMUP_SERVER_MS):
                break
    s = summarize(xs)
    s["window_medians_ms"] = [w * 1e3 for w in windows]
    s["window_server_cpu_ms"] = server_ms
    log("%s: %d warm-up changes, window medians %s ms, servers' CPU per "
        "change %s ms" % (name, len(xs),
                          ", ".join("%.1f" % (w * 1e3) for w in windows),
                          ", ".join("%.1f" % c for c in server_ms)))
    return s


def count_log(path):
    """WARN/ERR/EMER lines in a northd log; "timeval" counts the WARNs of
    the timeval module ("Unreasonably long poll interval" and its context
    line), which a full recompute at scale produces on every pass and
    which are left out of "WARN"."""
    n = {"WARN": 0, "ERR": 0, "EMER": 0, "timeval": 0}
    try:
        with open(path) as f:
            for line in f:
                if "|timeval|WARN|" in line:
                    n["timeval"] += 1
                    continue
                for k in ("WARN", "ERR", "EMER"):
                    if "|%s|" % k in line:
                        n[k] += 1
    except OSError:
        pass
    return n


def binary_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True,
                             text=True, timeout=10).stdout
        return out.splitlines()[0] if out else ""
    except (OSError, subprocess.SubprocessError):
        return ""


# ---------------------------------------------------------------------------
# Report.

def ratio(a, b):
    if a is None or b is None or not b:
        return None
    return a / b


def add_ratios(res, base):
    """Per northd, every metric divided by the baseline's."""
    b = res["northds"].get(base)
    if not b:
        return
    for name, r in res["northds"].items():
        if name == base:
            continue
        rr = {}
        for k in ("cold_start_s", "compile_cpu_s", "cold_start_cpu_s",
                  "sb_server_cold_cpu_s", "rss_peak_cold_mb", "rss_peak_mb", "sb_db_bytes",
                  "sb_db_compacted_bytes", "restart_s", "restart_cpu_s",
                  "rss_peak_restart_mb"):
            rr[k] = ratio(r.get(k), b.get(k))
        for t in ("Logical_Flow", "Logical_DP_Group"):
            rr[t] = ratio(r["sb_rows"].get(t), b["sb_rows"].get(t))
        rr["latency_median"] = {}
        for k, s in r["latency"].items():
            bs = b["latency"].get(k)
            rr["latency_median"][k] = ratio(s and s["median_ms"],
                                            bs and bs["median_ms"])
        res["ratios"]["%s/%s" % (name, base)] = rr


def fmt(x, nd=2):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return "{:,}".format(x)
    if abs(x) >= 100:
        return "{:,.0f}".format(x)
    return "%.*f" % (nd, x)


def fmt_ratio(x):
    """Ratios far below 1 (a change 1,000 times faster) as "1/N"."""
    if x is None:
        return "-"
    if 0 < x < 0.1:
        return "1/{:,.0f}".format(1 / x)
    return fmt(x, 2)


def markdown(res):
    names = list(res["northds"])
    ratio_keys = list(res["ratios"])
    hdr = ["metric"] + names + ["ratio " + k for k in ratio_keys]
    out = []
    m = res["meta"]
    out.append("### %s: %s" % (m["profile"], ", ".join(
        "%s %s" % (fmt(v), k) for k, v in res["nb"]["counts"].items())))
    out.append("")
    runs = m.get("cold_runs", 1)
    out.append("seed %d, %s; %s; load average %s at start, %s at end; "
               "NB file %s MB%s" % (
                   m["seed"], m["date"], m["host"], m["loadavg_start"],
                   m["loadavg_end"], fmt(res["nb"]["db_bytes"] / 1e6),
                   "; cold-start rows: median of %d cold starts" % runs
                   if runs > 1 else ""))
    out.append("")
    out.append("| " + " | ".join(hdr) + " |")
    out.append("|" + "---|" * len(hdr))

    def row(label, get, rget=None, nd=2):
        cells = [label]
        for n in names:
            try:
                cells.append(fmt(get(res["northds"][n]), nd))
            except (KeyError, TypeError, IndexError):
                cells.append("-")
        for k in ratio_keys:
            try:
                cells.append(fmt_ratio(rget(res["ratios"][k])) if rget
                             else "")
            except (KeyError, TypeError):
                cells.append("-")
        out.append("| " + " | ".join(cells) + " |")

    row("cold start, s", lambda r: r["cold_start_s"],
        lambda q: q["cold_start_s"])
    row("compile CPU until first lflows in SB, s",
        lambda r: r["compile_cpu_s"], lambda q: q["compile_cpu_s"])
    row("CPU during cold start, s", lambda r: r["cold_start_cpu_s"],
        lambda q: q["cold_start_cpu_s"])
    row("SB server CPU during cold start, s",
        lambda r: r["sb_server_cold_cpu_s"],
        lambda q: q["sb_server_cold_cpu_s"])
    if res["floor"]:
        row("cold start / SB ingest floor", lambda r: r["cold_start_s"] /
            res["floor"]["seconds"])
    row("peak RSS after cold start, MB", lambda r: r["rss_peak_cold_mb"],
        lambda q: q["rss_peak_cold_mb"], 1)
    row("peak RSS at end, MB", lambda r: r["rss_peak_mb"],
        lambda q: q["rss_peak_mb"], 1)
    row("restart on its own SB, s", lambda r: r["restart_s"],
        lambda q: q["restart_s"])
    row("CPU during restart, s", lambda r: r["restart_cpu_s"],
        lambda q: q["restart_cpu_s"])
    row("peak RSS of the restart, MB", lambda r: r["rss_peak_restart_mb"],
        lambda q: q["rss_peak_restart_mb"], 1)
    row("SB bytes written by the restart",
        lambda r: r["restart_sb_bytes_written"], None, 0)
    row("Logical_Flow rows", lambda r: r["sb_rows"]["Logical_Flow"],
        lambda q: q["Logical_Flow"])
    row("Logical_DP_Group rows", lambda r: r["sb_rows"]["Logical_DP_Group"],
        lambda q: q["Logical_DP_Group"])
    row("SB file after cold start, MB", lambda r: r["sb_db_bytes"] / 1e6,
        lambda q: q["sb_db_bytes"])
    row("SB file compacted at the end, MB",
        lambda r: r["sb_db_compacted_bytes"] / 1e6,
        lambda q: q["sb_db_compacted_bytes"])
    row("wait for idle servers before the changes, s",
        lambda r: r["settle_s"], None, 1)
    row("warm-up changes before them (ACL match)",
        lambda r: r["warmup"]["n"] if r.get("warmup") else 0, None, 0)
    row("warm-up: first / last window median, ms",
        lambda r: "%s / %s" % (fmt(r["warmup"]["window_medians_ms"][0], 1),
                               fmt(r["warmup"]["window_medians_ms"][-1], 1)))
    row("warm-up: servers' CPU ms per change, first / last window",
        lambda r: "%s / %s" % (
            fmt(r["warmup"]["window_server_cpu_ms"][0], 1),
            fmt(r["warmup"]["window_server_cpu_ms"][-1], 1)))
    for k in res["meta"]["kinds"]:
        row("%s: median / p99 ms (n)" % k,
            lambda r, k=k: "%s / %s (%d)" % (
                fmt(r["latency"][k]["median_ms"], 1),
                fmt(r["latency"][k]["p99_ms"], 1), r["latency"][k]["n"]),
            lambda q, k=k: q["latency_median"][k])
    for k in res["meta"]["kinds"]:
        row("%s: northd CPU ms per change" % k,
            lambda r, k=k: r["latency"][k]["cpu_ms_per_change"], None, 1)
    for k in res["meta"]["kinds"]:
        row("%s: NB / SB server CPU ms per change" % k,
            lambda r, k=k: "%s / %s" % (
                fmt(r["latency"][k]["nb_server_cpu_ms_per_change"], 1),
                fmt(r["latency"][k]["sb_server_cpu_ms_per_change"], 1)))
    row("log WARN+ERR lines (timeval WARNs apart)",
        lambda r: r["log_warnings"]["WARN"] + r["log_warnings"]["ERR"],
        None, 0)
    row("log timeval WARNs (long poll intervals)",
        lambda r: r["log_warnings"].get("timeval"), None, 0)
    f = res["floor"]
    out.append("")
    if f:
        runs = f.get("runs", [f["seconds"]])
        out.append("SB ingest floor (fresh ovsdb-server, %s's SB content, %s "
                   "rows, %s MB of JSON, one transaction): %.2f s%s."
                   % (f["source"], fmt(f["rows"]), fmt(f["bytes"] / 1e6),
                      f["seconds"],
                      " (median of %s s)" % ", ".join("%.2f" % x
                                                      for x in runs)
                      if len(runs) > 1 else ""))
    if ratio_keys:
        out.append("Ratios are %s; below 1 means the first is "
                   "smaller/faster." % ", ".join(ratio_keys))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------

def arg_parser(description, doc):
    """An argument parser with the options every bench script takes: the
    NB's profile and sizes, --northd NAME=PATH (repeated), the schemas,
    --workdir, --keep, --timeout and --out."""
    p = argparse.ArgumentParser(
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    gen.add_size_args(p)
    p.add_argument("--northd", action="append", required=True,
                   metavar="NAME=PATH", help="a northd to measure (repeat)")
    p.add_argument("--nb-schema", default=os.path.join(
        HERE, "..", "ovn-nb.ovsschema"))
    p.add_argument("--sb-schema", default=os.path.join(
        HERE, "..", "ovn-sb.ovsschema"))
    p.add_argument("--workdir", help="default: a temporary directory, "
                   "removed unless --keep")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--timeout", type=int, default=1800,
                   help="cold start timeout, seconds")
    p.add_argument("--out", help="write OUT.json and OUT.md")
    return p


def parse_northds(p, a):
    """[(NAME, absolute PATH)] from A's --northd options."""
    northds = []
    for spec in a.northd:
        name, _, path = spec.partition("=")
        if not path:
            p.error("--northd wants NAME=PATH")
        northds.append((name, os.path.abspath(path)))
    return northds


def main():
    p = arg_parser("Side-by-side ovn-northd benchmark", __doc__)
    p.add_argument("--changes", type=int, default=50,
                   help="changes of each kind (default 50)")
    p.add_argument("--max-changes", action="append", default=[],
                   metavar="NAME=N", help="fewer changes for one northd")
    p.add_argument("--kinds", default=None,
                   help="change kinds (default: %s, and with --services "
                   "also %s (neutron) or %s (k8s), with --routers also "
                   "%s (neutron) or %s (k8s))"
                   % (",".join(gen.CHANGE_KINDS), ",".join(gen.SERVICE_KINDS),
                      ",".join(gen.LB_KINDS),
                      ",".join(gen.gen_routers.NEUTRON_KINDS),
                      ",".join(gen.gen_routers.K8S_KINDS)))
    p.add_argument("--baseline", default="stock",
                   help="the northd ratios are relative to")
    p.add_argument("--change-timeout", type=float, default=120)
    p.add_argument("--cold-runs", type=int, default=1,
                   help="cold starts per northd; the report gives the "
                        "median of each cold-start metric (default 1)")
    p.add_argument("--no-floor", action="store_true",
                   help="skip the SB ingest floor (it holds the whole SB "
                   "in the runner's memory)")
    p.add_argument("--warmup", type=int, default=400, metavar="N",
                   help="at most N unmeasured ACL match changes before "
                   "the measured ones, until they stop getting faster "
                   "and cost the servers at most %g ms of CPU each "
                   "(default 400; for a northd with --max-changes "
                   "NAME=M, at most M; 0: none)" % WARMUP_SERVER_MS)
    p.add_argument("--no-restart", action="store_true",
                   help="skip the restart of each northd on the SB it "
                   "wrote")
    a = gen.resolve_sizes(p.parse_args())
    if a.cold_runs < 1:
        p.error("--cold-runs must be at least 1")
    if a.kinds is None:
        a.kinds = ",".join(gen.CHANGE_KINDS
                           + (gen.service_kinds(a.profile) if a.services
                              else [])
                           + (gen.router_kinds(a.profile) if a.routers
                              else []))
    a.kinds = [k for k in a.kinds.split(",") if k]
    for k in a.kinds:
        if k not in (gen.CHANGE_KINDS + gen.SERVICE_KINDS + gen.LB_KINDS
                     + gen.ROUTER_KINDS):
            p.error("unknown change kind %s" % k)
        if k in gen.ROUTER_KINDS and (not a.routers or k not in
                                      gen.router_kinds(a.profile)):
            p.error("change kind %s needs --routers and profile %s"
                    % (k, "k8s" if k.startswith("route") else "neutron"))
        if (k in gen.SERVICE_KINDS + gen.LB_KINDS
                and k not in gen.service_kinds(a.profile)):
            p.error("change kind %s is not one of profile %s"
                    % (k, a.profile))
        if k in gen.SERVICE_KINDS + gen.LB_KINDS and not a.services:
            p.error("change kind %s needs --services" % k)
    northds = parse_northds(p, a)
    caps = dict((s.partition("=")[0], int(s.partition("=")[2]))
                for s in a.max_changes)

    work = a.workdir or tempfile.mkdtemp(prefix="lsn-bench-")
    os.makedirs(work, exist_ok=True)
    res = {"meta": {
        "command": " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        "profile": a.profile, "seed": a.seed,
        "sizes": {k: getattr(a, k) for k in ("ports", "switches",
                                             "port_groups", "acls")},
        "services": a.services, "routers": a.routers,
        "kinds": a.kinds, "changes": a.changes, "max_changes": caps,
        "cold_runs": a.cold_runs, "no_restart": a.no_restart,
        "warmup": a.warmup,
        "date": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%d %H:%M UTC"),
        "host": "%s, %d CPUs" % (platform.machine(), os.cpu_count()),
        "loadavg_start": "%.1f" % os.getloadavg()[0]},
        "northds": {}, "ratios": {}}
    try:
        t0 = time.monotonic()
        nb_file, manifest = generate_nb(work, a)
        res["nb"] = {"counts": manifest["counts"],
                     "db_bytes": os.path.getsize(nb_file),
                     "generate_s": time.monotonic() - t0}
        log("NB: %s" % json.dumps(manifest["counts"]))

        # Extra cold starts first, alternating between the northds so that
        # a change of the VM's speed during the run affects them alike.
        extra = {name: [] for name, _ in northds}
        for k in range(1, a.cold_runs):
            for name, path in northds:
                log("%s: extra cold start %d of %d" % (name, k,
                                                       a.cold_runs - 1))
                extra[name].append(extra_cold_start(name, path, work, k,
                                                    nb_file, a.sb_schema, a))

        dump = None
        for j, (name, path) in enumerate(northds):
            r, d = bench_northd(name, path, work, nb_file, a.sb_schema,
                                manifest, a, min(a.changes,
                                                 caps.get(name, a.changes)),
                                min(a.warmup, caps.get(name, a.warmup)),
                                want_dump=(j == 0 and not a.no_floor),
                                extra_colds=extra[name])
            res["northds"][name] = r
            if j == 0:
                dump = d
            log("%s: done, %d lflows" % (name, r["sb_rows"]["Logical_Flow"]))

        res["floor"] = None
        if dump:
            log("floor: ingesting %s's SB (%d rows)"
                % (northds[0][0], len(dump)))
            # As noisy as a cold start: measured --cold-runs times too, the
            # median reported.
            runs = [measure_floor(work, a.sb_schema, dump, k)
                    for k in range(a.cold_runs)]
            res["floor"] = dict(sorted(runs, key=lambda f: f["seconds"])
                                [(len(runs) - 1) // 2])
            res["floor"]["runs"] = [f["seconds"] for f in runs]
            res["floor"]["source"] = northds[0][0]
            del dump
        res["meta"]["loadavg_end"] = "%.1f" % os.getloadavg()[0]
        add_ratios(res, a.baseline)
    finally:
        if not a.keep and not a.workdir:
            shutil.rmtree(work, ignore_errors=True)
    write_results(a.out, res, markdown(res))


def generate_nb(work, a):
    """Generates the NB of A's profile and sizes into WORK/nb.db, compacted.
    Returns its path and the manifest (gen.load())."""
    log("generating %s NB in %s" % (a.profile, work))
    nb_file = os.path.join(work, "nb.db")
    subprocess.run([OVSDB_TOOL, "create", nb_file, a.nb_schema], check=True)
    srv = Server(work, "gen", nb_file)
    try:
        conn = ovsdbrpc.Connection(srv.remote)
        manifest = gen.load(conn, a)
        conn.close()
    finally:
        srv.stop()
    subprocess.run([OVSDB_TOOL, "compact", nb_file], check=True)
    return nb_file, manifest


def write_results(out, res, md):
    """Writes RES to OUT.json and MD to OUT.md (if OUT), and MD to
    stdout."""
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out + ".json", "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        with open(out + ".md", "w") as f:
            f.write(md)
    sys.stdout.write(md)


if __name__ == "__main__":
    main()
