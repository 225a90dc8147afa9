#!/usr/bin/env python3
"""Speed and memory of fstheory.selection.MIFeatureSelector against peer libraries (make bench).

Data: standard normal features, class 1{V1 + V2 + V3 >= 0}, the same draw (seed 0) for every
implementation of a case. Cases and their goals, each judged against a baseline measured in this
one run:

* 10,000 x 500, select 50 -- mRMR faster than every peer (mrmr_selection with its default F
  statistic and correlation, and with kNN MI; ITMO_FS and a pyitlib greedy on binned data);
* 100,000 x 1,000, select 20 -- mRMR and JMI each at least 4x faster than mrmr_selection, with
  an extra peak memory of at most 1.5x the input's size;
* 200 x 20,000, select 5 -- mRMR and JMI under 20 s (the ratio to mrmr_selection printed too);
* 200 x 5,000 with the default number to select (half: 2,500) -- mRMR finishes (the ratio to
  mrmr_selection selecting as many printed too).

Every fit runs in a fresh process (imports, data generation and, for ours, a warm-up fit on a
slice that loads the compiled kernels, are not timed); ours twice, the best kept (once for the
2,500-step case), each peer once with a time limit (60 s; 120 s on 100,000 x 1,000): a peer that
does not finish gives a bound on the ratio. The extra memory is
the process's peak resident size during the fit minus its resident size before it. Ratios are
peer / ours (> 1: ours is faster). The peers live in ``.venv-bench`` only: run this script with
that environment's Python, as ``make bench`` does. The machine is shared: the load average is
printed with the results.

Usage: python scripts/bench_selector.py [--limit SECONDS] [--only TEXT] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402

MRMR = "mrmr_selection (F/corr)"
SPEED_PEERS = (MRMR, "mrmr_selection (MI)", "ITMO_FS mRMR (binned)", "pyitlib mRMR (binned)")


@dataclass(frozen=True)
class Case:
    label: str
    n: int
    F: int
    k: int | None  # None: the selector's default (half of the features)
    ours: tuple
    peers: tuple
    ratio_goal: float | None = None  # peer / ours at least this
    seconds_goal: float | None = None  # ours at most this
    memory_goal: float | None = None  # extra peak memory / input size at most this
    limit: float = 60.0  # seconds per peer fit (a bound on the ratio when reached)
    rounds: int = 2  # fits of ours, the fastest kept

    @property
    def select(self) -> int:
        return self.F // 2 if self.k is None else self.k


CASES = (
    Case("10,000 x 500, select 50", 10_000, 500, 50, ("mrmr",), SPEED_PEERS, ratio_goal=1.0),
    Case("100,000 x 1,000, select 20", 100_000, 1_000, 20, ("mrmr", "jmi"), (MRMR,), ratio_goal=4.0,
         memory_goal=1.5, limit=120.0),
    Case("200 x 20,000, select 5", 200, 20_000, 5, ("mrmr", "jmi"), (MRMR,), seconds_goal=20.0),
    Case("200 x 5,000, default number to select (2,500)", 200, 5_000, None, ("mrmr",), (MRMR,), rounds=1),
)


def data(n: int, F: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, F))
    return X, (X[:, 0] + X[:, 1] + X[:, 2] >= 0).astype(np.int64)


_RUN = """
import json, resource, sys, time
sys.path.insert(0, {here!r})
import bench_selector
X, y = bench_selector.data({n}, {F})
{setup}
def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))
before = rss()
t = time.perf_counter()
order = run(X, y, {k})
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"seconds": seconds, "extra_bytes": peak - before, "input_bytes": X.nbytes,
                   "order": [int(j) for j in order][:10]}}))
"""

_OURS = """
from fstheory.selection import MIFeatureSelector
MIFeatureSelector(method={method!r}, n_features_to_select=2).fit(X[:300, :6], y[:300])
def run(X, y, k):
    return MIFeatureSelector(method={method!r}, n_features_to_select={k_param}).fit(X, y).order_
"""

_PEER = """
import peers
run = peers.installed()[{name!r}]
"""


def _measure(case: Case, setup: str, limit: float) -> dict:
    code = _RUN.format(here=str(HERE), n=case.n, F=case.F, k=case.select, setup=setup)
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit + 30,
                           check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "limit": limit}
    if r.returncode != 0:
        return {"status": "error", "message": (r.stderr.strip().splitlines() or ["?"])[-1][:120]}
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if out["seconds"] > limit:
        return {"status": "timeout", "limit": limit}
    return {"status": "ok", **out}


def ours(case: Case, method: str, limit: float) -> dict:
    setup = _OURS.format(method=method, k_param="None" if case.k is None else "k")
    runs = []
    for _ in range(case.rounds):
        r = _measure(case, setup, limit)
        if r["status"] != "ok":
            return r
        runs.append(r)
    # the fastest round's time, the largest round's memory
    return {**min(runs, key=lambda r: r["seconds"]), "extra_bytes": max(r["extra_bytes"] for r in runs)}


def peer(case: Case, name: str, limit: float) -> dict:
    if peers.installed().get(name) is None:
        return {"status": "peer not installed"}
    return _measure(case, _PEER.format(name=name), limit)


def run_case(case: Case, limit: float | None) -> dict:
    """Ours with a limit of 600 s (a goal missed shows as "not finished"), each peer with the
    case's limit unless ``limit`` is given."""
    return {"case": case.label, "ours": {m: ours(case, m, 600.0) for m in case.ours},
            "peers": {name: peer(case, name, limit or case.limit) for name in case.peers}}


def _verdict(case: Case, r: dict, baseline: dict | None) -> str:
    if r["status"] != "ok":
        return "NOT FINISHED"
    notes = []
    if case.memory_goal is not None:
        ok = r["extra_bytes"] <= case.memory_goal * r["input_bytes"]
        notes.append(f"memory {'ok' if ok else 'ABOVE GOAL'}")
    if case.seconds_goal is not None:
        notes.append(f"time {'ok' if r['seconds'] <= case.seconds_goal else 'ABOVE GOAL'}")
    if case.ratio_goal is not None and baseline is not None:
        if baseline["status"] == "ok":
            ok = baseline["seconds"] / r["seconds"] >= case.ratio_goal
        else:
            ok = baseline["status"] == "timeout" and baseline["limit"] / r["seconds"] >= case.ratio_goal
        notes.append(f"ratio {'ok' if ok else 'BELOW GOAL'}" if baseline["status"] in ("ok", "timeout") else
                     "ratio not measured")
    return ", ".join(notes) or "ok"


def _cell_time(r: dict) -> str:
    if r["status"] == "ok":
        return f"{r['seconds']:.2f} s"
    if r["status"] == "timeout":
        return f"> {r['limit']:.0f} s"
    return r["status"] if r["status"] != "error" else "error: " + r["message"]


def _cell_memory(r: dict) -> str:
    if r["status"] != "ok":
        return "-"
    return f"{r['extra_bytes'] / 2**20:.0f} MB ({r['extra_bytes'] / r['input_bytes']:.2f}x)"


def report(case: Case, result: dict) -> list[str]:
    base = result["peers"].get(MRMR)
    goals = []
    if case.ratio_goal is not None:
        goals.append(f"peer/ours >= {case.ratio_goal:g}" + (" vs mrmr_selection" if case.ratio_goal > 1 else " vs every peer"))
    if case.memory_goal is not None:
        goals.append(f"extra memory <= {case.memory_goal:g}x the input")
    if case.seconds_goal is not None:
        goals.append(f"ours <= {case.seconds_goal:g} s")
    rows = []
    for method, r in result["ours"].items():
        baselines = [b for b in result["peers"].values() if b["status"] in ("ok", "timeout")]
        fastest = min(baselines, key=lambda b: b.get("seconds", b.get("limit")), default=None)
        against = base if case.ratio_goal and case.ratio_goal > 1 else fastest
        ratio = "-"
        if r["status"] == "ok" and base is not None and base["status"] == "ok":
            ratio = f"{base['seconds'] / r['seconds']:.1f}x"
        elif r["status"] == "ok" and base is not None and base["status"] == "timeout":
            ratio = f"> {base['limit'] / r['seconds']:.0f}x"
        rounds = f" (best of {case.rounds})" if case.rounds > 1 else ""
        rows.append((f"fstheory MIFeatureSelector {method}{rounds}", _cell_time(r), _cell_memory(r), ratio,
                     _verdict(case, r, against)))
    for name, r in result["peers"].items():
        rows.append((name, _cell_time(r), _cell_memory(r), "1" if name == MRMR else "", ""))
    w = max(len(row[0]) for row in rows)
    lines = [f"{case.label}" + (f"  (goals: {'; '.join(goals)})" if goals else ""),
             f"  {'':<{w}}  {'wall':>10}  {'extra peak memory':>20}  {'mrmr/ours':>9}  status"]
    lines += [f"  {a:<{w}}  {b:>10}  {c:>20}  {d:>9}  {e}" for a, b, c, d, e in rows]
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=None,
                    help="time limit per peer fit, seconds (default: 60, 120 for 100,000 x 1,000)")
    ap.add_argument("--only", default=None, help="run only the cases whose label contains this text")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    load_before = os.getloadavg()[0]
    cases = [c for c in CASES if args.only is None or args.only in c.label]
    results = [run_case(c, args.limit) for c in cases]
    out = {"results": results, "cpus": os.cpu_count(), "load_before": load_before,
           "load_after": os.getloadavg()[0], "python": sys.executable}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print("selector speed and memory (histogram estimator; ratios peer / ours measured in this run)")
    for case, result in zip(cases, results):
        print()
        print("\n".join(report(case, result)))
    print()
    print(f"({os.cpu_count()} cores; peers from "
          f"{'.venv-bench' if '.venv-bench' in sys.executable else 'this environment'}; load average "
          f"before / after {load_before:.2f} / {out['load_after']:.2f}; pymrmr: "
          f"{peers.NOT_INSTALLABLE['pymrmr']}, not run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
