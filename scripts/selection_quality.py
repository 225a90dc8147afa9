#!/usr/bin/env python3
"""Quality of the selector on the paper's scenarios, next to peer libraries on the same samples
(``make reproduce-selection``; writes ``reports/selection/quality.{md,csv}``).

For Scenarios I and II, k = 0.2 and 0.8, n = 100, 500, 1000, 5000 and R replications, the
frequency with which the first |S| selected features form a relevance-optimal set S:

* ours: every method of the registry (:data:`fstheory.orderings.methods.METHODS`, iterated: new
  methods appear without a change here; MIFS and MIFS-U at beta = 0.4, 0.7, 1, beta-gamma at
  beta = gamma = 0.4, 0.7, 1) with the defaults
  of :class:`fstheory.selection.MIFeatureSelector` (histogram estimator, ties to the lower index);
  all replications of a cell are run at once through the selector's own estimator, view and greedy
  (and the first replication is checked against ``MIFeatureSelector.fit``);
* the peers of ``scripts/peers.py`` that are installed (run this with ``.venv-bench``'s Python).

The optimal sets are derived by the engine (``fstheory.simulation.study.derive_optimal_sets``)
unless given with ``--sets``. The samples are drawn from ``SeedSequence(seed, spawn_key=(crc32
(scenario), n, 0))``, shared by both k (only the class changes). Standard errors are binomial,
sqrt(f (1 - f) / R). Progress on stderr.

Usage: python scripts/selection_quality.py [--reps R] [--seed S] [--jobs J] [--out DIR]
       [--sets "uniform=0-6,0-3;normal=0-6"]
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402

from fstheory.orderings.methods import METHODS  # noqa: E402
from fstheory.parallel import run_tasks  # noqa: E402
from fstheory.selection import MIFeatureSelector  # noqa: E402
from fstheory.selection.estimators import BinnedBatch  # noqa: E402
from fstheory.selection.greedy import greedy, set_hits  # noqa: E402
from fstheory.selection.values import HistogramValues  # noqa: E402
from fstheory.selection.options import SelectionOptions  # noqa: E402
from fstheory.simulation.sampler import ScenarioSampler  # noqa: E402
from fstheory.simulation.study import chunk_rng, derive_optimal_sets  # noqa: E402

SCENARIOS = {"uniform": "Scenario I", "normal": "Scenario II"}
KS = (0.2, 0.8)
SIZES = (100, 500, 1000, 5000)
BETAS = (0.4, 0.7, 1.0)


def our_rows() -> list[tuple[str, float | None, float | None]]:
    """(method, beta, gamma) of every row."""
    rows = []
    for key, m in METHODS.items():
        if m.has_gamma:
            rows += [(key, b, b) for b in BETAS]
        else:
            rows += [(key, b, None) for b in BETAS] if m.has_beta else [(key, None, None)]
    return rows


def row_label(key: str, beta, gamma=None) -> str:
    d = METHODS[key].display
    if gamma is not None:
        return f"{d} (beta={beta:g}, gamma={gamma:g})"
    return d if beta is None else f"{d} (beta={beta:g})"


def parse_sets(text: str) -> dict:
    out = {}
    for part in text.split(";"):
        name, _, sets = part.partition("=")
        out[name.strip()] = tuple(frozenset(int(i) for i in s.split("-")) for s in sets.split(","))
    return out


def _peer_sample(task) -> dict:
    """Every installed peer's first ``steps`` selections on one sample ``(x (F, n), y, steps)``."""
    x, y, steps = task
    return {name: run(x.T, y, steps) for name, run in peers.installed().items() if run is not None}


def _hit(order, sets) -> bool:
    return any(sorted(order[: len(S)]) == sorted(S) for S in sets)


def cell(sampler, base, k, n, sets, jobs) -> dict:
    """Hits of every row (ours and peers) over the replications of one (scenario, k, n)."""
    x = sampler.features(base)
    c = sampler.classes(base)
    steps = max(2, max(len(S) for S in sets))
    view = HistogramValues(BinnedBatch(x), c)
    options = SelectionOptions("relative")
    hits = {}
    for key, beta, gamma in our_rows():
        sel = greedy(view, key, beta, steps=steps, options=options, gamma=gamma)
        hits[row_label(key, beta, gamma)] = int(set_hits(sel, sets).sum())
        check = MIFeatureSelector(method=key, beta=beta, gamma=gamma,
                                  n_features_to_select=steps).fit(x[0].T, c[0])
        assert check.order_.tolist() == sel[0][: len(check.order_)].tolist(), (key, beta, gamma)
    yc = c.astype(np.int64)
    results = run_tasks(_peer_sample, [(x[r], yc[r], steps) for r in range(x.shape[0])], jobs=jobs)
    for name in peers.PEERS:
        if results and name in results[0]:
            hits[name] = sum(_hit(res[name], sets) for res in results)
    return hits


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default="reports/selection")
    ap.add_argument("--sets", default=None, help="optimal sets per scenario, e.g. 'uniform=0-6,0-3'")
    args = ap.parse_args(argv)
    given = parse_sets(args.sets) if args.sets else None
    R = args.reps

    table, used_sets, labels = {}, {}, {}
    for name in SCENARIOS:
        for k in KS:
            sampler = ScenarioSampler.from_registry(name, {"k": repr(k)})
            labels[name] = sampler.labels
            sets = given[name] if given else derive_optimal_sets(sampler.bound)
            used_sets[(name, k)] = tuple(sorted((tuple(sorted(S)) for S in sets)))
    for name in SCENARIOS:
        for n in SIZES:
            samplers = [ScenarioSampler.from_registry(name, {"k": repr(k)}) for k in KS]
            base = samplers[0].draw_base(chunk_rng(args.seed, name, n, 0), R, n)
            for sampler, k in zip(samplers, KS):
                print(f"{name} k={k} n={n} ...", file=sys.stderr, flush=True)
                table[(name, k, n)] = cell(sampler, base, k, n, used_sets[(name, k)], args.jobs)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = list(table[next(iter(table))])
    ours = [row_label(*r) for r in our_rows()]
    versions = []
    for dist in ("mrmr_selection", "ITMO_FS", "pyitlib", "scikit-learn", "numpy"):
        try:
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{dist}: peer not installed" if dist not in ("scikit-learn", "numpy") else f"{dist}: ?")
    missing = [p for p in peers.PEERS if p not in rows]
    md = [
        "# Frequency of a relevance-optimal first set: the selector's methods next to peer libraries",
        "",
        f"Generated by `make reproduce-selection` (`scripts/selection_quality.py --reps {R} --seed {args.seed}`); "
        f"do not edit. {R} replications per (scenario, n), the same samples for every row and both k "
        f"(only the class changes). Each cell: frequency ± binomial standard error sqrt(f(1-f)/{R}).",
        "",
        "A replication is a hit when the first |S| selected features form one of the relevance-optimal "
        "sets S (unordered); the sets (0-based feature indices) are "
        + ("given on the command line" if given else "derived by the engine")
        + ":",
        "",
    ]
    for (name, k), sets in used_sets.items():
        shown = ", ".join("{" + ", ".join(labels[name][i] for i in S) + "}" for S in sets)
        md.append(f"* {SCENARIOS[name]}, k = {k}: {shown}")
    md += [
        "",
        "Ours: `MIFeatureSelector` defaults (histogram estimator of Section 8 with the ln(Delta) "
        "correction, m = ceil(sqrt(n)) bins, bivariate grid ceil(sqrt(m)) bins per axis, per-class "
        "h(V|C); near-ties to the lower feature index). Peers (`scripts/peers.py`): "
        + "; ".join(versions) + "."
        + (f" Not run: {', '.join(missing)} (peer not installed)." if missing else "")
        + f" pymrmr: not installed ({peers.NOT_INSTALLABLE['pymrmr']}).",
        "",
    ]
    csv_rows = [["scenario", "k", "n", "method", "hits", "reps", "frequency", "se"]]
    for name in SCENARIOS:
        for k in KS:
            md += [f"## {SCENARIOS[name]} ({name}), k = {k}", "",
                   "| method | " + " | ".join(f"n = {n}" for n in SIZES) + " |",
                   "|---|" + "---:|" * len(SIZES)]
            for row in rows:
                cells = []
                for n in SIZES:
                    h = table[(name, k, n)][row]
                    f = h / R
                    se = math.sqrt(f * (1 - f) / R)
                    cells.append(f"{f:.2f} ± {se:.2f}")
                    csv_rows.append([name, k, n, row, h, R, repr(f), repr(se)])
                shown = row if row in ours else f"*{row}*"
                md.append(f"| {shown} | " + " | ".join(cells) + " |")
            md.append("")
    md.append("Rows in italics are peer libraries.")
    (out / "quality.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    with open(out / "quality.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(csv_rows)
    print(f"wrote {out / 'quality.md'} and {out / 'quality.csv'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
