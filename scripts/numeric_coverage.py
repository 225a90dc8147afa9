"""How far the engine reaches on scenario files of the kinds a researcher writes.

For each TOML file of a directory (default ``tests/data/researcher_scenarios``), at the file's
default parameters and the default 30 digits, prints one row: the number of values of
``fstheory values`` (h(V), MI(C, V) and MI(V_i, V_j) for i < j; with ``--joint`` also the joint
quantities MI(C; {V_i, V_j}) for i < j), the share computed, the share of the computed numerical
values whose error is an estimate rather than a bound (the numerical route's ``certified``
flag, read from the provenance), the seconds, and whether ``fstheory order --method mrmr`` and
``--method jmi`` complete ("yes"), stop at a genuine indeterminate form ("indeterminate") or
stop because a value was not computed ("undecided: <value>"). Each file runs in its own
process with a wall-clock limit (``--timeout``), reported as "timeout" when reached.

Usage: python scripts/numeric_coverage.py [DIR] [--joint] [--digits N] [--timeout S] [--only TEXT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, sys, time
import fstheory
from fstheory.engine.evaluate_joint import SetValues
path, digits, joint = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
point = fstheory.load_scenario(path)
t0 = time.perf_counter()
values = point.values(digits=digits)
n = len(values.labels)
cells = [("h", i, values.entropy[i], values.provenance[("h", i)]) for i in range(n)]
cells += [("mi_c", i, values.mi_class[i], values.provenance[("mi_c", i)]) for i in range(n)]
cells += [("mi", (i, j), values.mi_features[i][j], values.provenance[("mi", i, j)])
          for i in range(n) for j in range(i + 1, n)]
out = {"labels": list(values.labels), "cells": []}
for kind, where, v, why in cells:
    out["cells"].append({"kind": kind, "where": where, "computed": v.is_determinate,
                         "estimated": "estimated error" in why, "value": v.text(digits),
                         "why": why[:300]})
if joint:
    sets = SetValues(point.bound, digits, values)
    for i in range(n):
        for j in range(i + 1, n):
            v = sets.value((i, j))
            out["cells"].append({"kind": "mi_c_pair", "where": (i, j),
                                 "computed": v.is_determinate, "estimated": False,
                                 "value": v.text(digits), "why": (v.cause or "")[:300]})
out["values_seconds"] = time.perf_counter() - t0
for method in ("mrmr", "jmi"):
    t = time.perf_counter()
    o = point.order(method, digits=digits)
    if not o.stopped:
        verdict = "yes"
    elif o.stop.kind == "indeterminate":
        verdict = "indeterminate"
    else:
        verdict = "undecided: " + "; ".join(o.stop.missing)[:200]
    out[method] = {"verdict": verdict, "order": list(o.labels),
                   "seconds": time.perf_counter() - t}
print(json.dumps(out))
"""


def run_file(path: Path, digits: int, joint: bool, timeout: float) -> dict:
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(digits),
                            "1" if joint else "0"], capture_output=True, text=True,
                           timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": "timeout", "seconds": time.perf_counter() - t0}
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["?"])[-1][:200],
                "seconds": time.perf_counter() - t0}
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["seconds"] = time.perf_counter() - t0
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory", nargs="?", default=str(ROOT / "tests/data/researcher_scenarios"))
    ap.add_argument("--digits", type=int, default=30)
    ap.add_argument("--joint", action="store_true", help="also MI(C;{Vi,Vj}) for every pair")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--only", default=None, help="only the files whose name contains this")
    ap.add_argument("--json", default=None, help="also write the full results to this file")
    ap.add_argument("--details", action="store_true", help="list every value not computed")
    args = ap.parse_args(argv)
    files = sorted(Path(args.directory).glob("*.toml"))
    if args.only:
        files = [f for f in files if args.only in f.name]
    results = {}
    total = computed = estimated = 0
    complete = {"mrmr": 0, "jmi": 0}
    print(f"{'file':<32} {'values':>6} {'computed':>9} {'estimated':>9} {'s':>7}  "
          f"{'mrmr':<14} {'jmi':<14}")
    for f in files:
        r = run_file(f, args.digits, args.joint, args.timeout)
        results[f.name] = r
        if "error" in r:
            print(f"{f.name:<32} {'-':>6} {'-':>9} {'-':>9} {r['seconds']:7.1f}  {r['error']}")
            continue
        cells = r["cells"]
        n, c = len(cells), sum(x["computed"] for x in cells)
        e = sum(x["computed"] and x["estimated"] for x in cells)
        total, computed, estimated = total + n, computed + c, estimated + e
        verdicts = []
        for m in ("mrmr", "jmi"):
            v = r[m]["verdict"]
            complete[m] += v in ("yes", "indeterminate")
            verdicts.append(v if len(v) <= 14 else v[:11] + "...")
        print(f"{f.name:<32} {n:>6} {c / n:>9.0%} {e / max(c, 1):>9.0%} {r['seconds']:7.1f}  "
              f"{verdicts[0]:<14} {verdicts[1]:<14}", flush=True)
        if args.details:
            for x in cells:
                if not x["computed"] or x["estimated"]:
                    print(f"    {x['kind']} {x['where']}: {x['why'][:160]}")
            for m in ("mrmr", "jmi"):
                if r[m]["verdict"] not in ("yes", "indeterminate"):
                    print(f"    {m}: {r[m]['verdict']}")
    print()
    print(f"all files: {computed}/{total} values computed ({computed / max(total, 1):.1%}), "
          f"{estimated} of them estimated; mRMR completes in {complete['mrmr']}/{len(files)}, "
          f"JMI in {complete['jmi']}/{len(files)}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
