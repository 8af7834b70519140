#! /usr/bin/env python3
"""check.py RESULTS.json NAME=CHANGES...: sanity checks on a run.py result.

Used by the smoke test (tests/bench.at).  Checks that every field the
report promises is there, that the numbers are plausible (positive times,
p99 >= median, counts match), and that each named northd ran the expected
number of changes of every kind without errors.  It checks no speed.
"""

import json
import sys

import gen
from run import WARMUP_WINDOW

SB_TABLES = ["Logical_Flow", "Logical_DP_Group"]


def main():
    res = json.load(open(sys.argv[1]))
    want = dict((s.split("=")[0], int(s.split("=")[1])) for s in sys.argv[2:])
    errs = []

    def need(cond, what):
        if not cond:
            errs.append(what)

    meta = res.get("meta", {})
    for k in ("command", "profile", "seed", "sizes", "kinds", "date",
              "host", "loadavg_start", "loadavg_end"):
        need(k in meta, "meta.%s missing" % k)
    kinds = meta.get("kinds", [])
    if "--kinds" not in meta.get("command", ""):
        want_kinds = (gen.CHANGE_KINDS
                      + (gen.service_kinds(meta.get("profile"))
                         if meta.get("services") else [])
                      + (gen.router_kinds(meta.get("profile"))
                         if meta.get("routers") else []))
        need(kinds == want_kinds, "expected change kinds %s, got %s"
             % (",".join(want_kinds), ",".join(kinds)))
    nb = res.get("nb", {})
    need(nb.get("db_bytes", 0) > 0, "nb.db_bytes")
    need(nb.get("counts", {}).get("acls", 0) > 0, "nb.counts.acls")
    floor = res.get("floor", {})
    need(floor.get("seconds", 0) > 0, "floor.seconds")
    need(floor.get("rows", 0) > 0, "floor.rows")
    need(len(floor.get("runs", [])) == meta.get("cold_runs", 1),
         "floor.runs: %d, not --cold-runs" % len(floor.get("runs", [])))

    for name, n in want.items():
        r = res.get("northds", {}).get(name)
        if r is None:
            errs.append("northd %s missing" % name)
            continue
        p = name + "."
        for k in ("cold_start_s", "first_lflows_s", "rss_peak_cold_mb",
                  "rss_peak_mb", "sb_db_bytes", "sb_db_compacted_bytes",
                  "total_cpu_s"):
            need(isinstance(r.get(k), (int, float)) and r[k] > 0, p + k)
        if not meta.get("no_restart"):
            for k in ("restart_s", "rss_peak_restart_mb"):
                need(isinstance(r.get(k), (int, float)) and r[k] > 0, p + k)
            need(isinstance(r.get("restart_cpu_s"), (int, float))
                 and r["restart_cpu_s"] >= 0, p + "restart_cpu_s")
            need(isinstance(r.get("restart_sb_bytes_written"), int)
                 and r["restart_sb_bytes_written"] >= 0,
                 p + "restart_sb_bytes_written")
            need("restart_log_warnings" in r, p + "restart_log_warnings")
        for k in ("compile_cpu_s", "cold_start_cpu_s"):
            need(isinstance(r.get(k), (int, float)) and r[k] >= 0, p + k)
        need(r.get("first_lflows_s", 0) <= r.get("cold_start_s", 0) + 0.5,
             p + "first lflows after sync")
        runs = r.get("cold_runs", [])
        need(len(runs) == meta.get("cold_runs", 1),
             p + "cold_runs: %d runs, not %s" % (len(runs),
                                                  meta.get("cold_runs", 1)))
        for k in ("cold_start_s", "compile_cpu_s", "rss_peak_cold_mb"):
            vals = sorted(run.get(k, 0) for run in runs)
            need(bool(vals) and vals[0] <= r.get(k, -1) <= vals[-1],
                 p + k + " is not the median of cold_runs")
        # The end's peak includes the last cold start's (the others ran
        # on servers and a northd of their own), give or take the kernel's
        # per-CPU batching of RSS counters (Linux 6.2 and later), which
        # can make an early VmHWM read a few dozen pages high.
        last = runs[-1] if runs else r
        need(r.get("rss_peak_mb", 0) >= last.get("rss_peak_cold_mb", 1) - 0.5,
             p + "rss_peak_mb < rss_peak_cold_mb")
        for t in SB_TABLES:
            need(r.get("sb_rows", {}).get(t, 0) > 0, p + "sb_rows." + t)
        need(r.get("change_errors") == [], p + "change_errors: %s"
             % r.get("change_errors"))
        need(r.get("exit_status") == 0, p + "exit_status %s"
             % r.get("exit_status"))
        for k in kinds:
            s = (r.get("latency") or {}).get(k)
            if not s:
                errs.append(p + "latency." + k + " missing")
                continue
            need(s["n"] == n, p + "%s: %d changes, wanted %d" % (k, s["n"], n))
            need(0 < s["median_ms"] <= s["p99_ms"] <= s["max_ms"],
                 p + k + ": median/p99/max out of order")
            for c in ("cpu_ms_per_change", "nb_server_cpu_ms_per_change",
                      "sb_server_cpu_ms_per_change"):
                need(s.get(c, -1) >= 0, p + k + ": " + c)
        # The warm-up: at most --warmup changes (at most M for a northd
        # with --max-changes NAME=M), a window median and the servers' CPU
        # per change for each full window.
        w = r.get("warmup")
        limit = meta.get("warmup", 0)
        limit = min(limit, meta.get("max_changes", {}).get(name, limit))
        if limit > 0:
            need(isinstance(w, dict) and 0 < w.get("n", 0) <= limit
                 and 0 < w["median_ms"] <= w["max_ms"]
                 and all(len(w.get(k, [])) == w["n"] // WARMUP_WINDOW
                         for k in ("window_medians_ms",
                                   "window_server_cpu_ms"))
                 and all(c >= 0 for c in w["window_server_cpu_ms"]),
                 p + "warmup: %s (limit %d)" % (w, limit))
        else:
            need(w is None, p + "warmup: %s, wanted none" % w)
    for q, rr in res.get("ratios", {}).items():
        need(rr.get("cold_start_s") is not None, "ratios.%s.cold_start_s" % q)
        need(rr.get("Logical_Flow") is not None, "ratios.%s.Logical_Flow" % q)
        need(set(rr.get("latency_median", {})) == set(kinds),
             "ratios.%s.latency_median" % q)
    if errs:
        print("\n".join(errs))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
