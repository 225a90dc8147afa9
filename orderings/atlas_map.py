"""Two-parameter maps (phase diagrams): the atlas of the second parameter at each value of the
first, with the boundary curves traced through the located breakpoints.

For ``--vary k --vary beta`` every column k = k_j is a one-parameter atlas over beta
(:func:`fstheory.orderings.atlas.atlas`). MIFS and MIFS-U objectives are affine in beta, so each
boundary point beta*(k_j) is the exact solution of obj_A = obj_B at that k (located to the
requested digits, not read off a grid); a boundary curve is the sequence of these points for one
cause (the same pair crossing at the same step), in k order. Between columns the curve is drawn
as a polyline: the curves are exact at the columns, the lines between them are drawn.

Regions are the orderings of the columns' partitions; a region is marked *optimal* when its
first |S| features form one of the relevance-optimal sets given (from
``fstheory.theory.relevance.relevance_optimal_sets``; never from labels).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import sympy as sp

from fstheory.orderings.atlas import AtlasSpec, _run, atlas, decimal_text
from fstheory.orderings.atlas_values import as_exact

__all__ = ["PhaseMap", "phase_map", "first_set_optimal"]


def first_set_optimal(order, optimal_sets) -> bool | None:
    """Whether the first features of ``order`` form one of ``optimal_sets`` (None: not known)."""
    if optimal_sets is None:
        return None
    return any(len(order) >= len(s) and set(order[: len(s)]) == set(s) for s in optimal_sets)


@dataclass
class PhaseMap:
    x: AtlasSpec          # the first parameter's spec (columns)
    y: AtlasSpec          # the second parameter's spec (swept in each column)
    columns: list         # (x value, AtlasResult)
    labels: tuple
    optimal_sets: tuple | None = None
    notes: list = field(default_factory=list)

    def orderings(self) -> list:
        """Distinct (order, stopped) in order of first appearance."""
        seen = []
        for _, res in self.columns:
            for r in res.regions:
                key = (r.order, r.stopped)
                if key not in seen:
                    seen.append(key)
        return seen

    def curves(self) -> list[dict]:
        """Boundary curves: one per (step, pair) cause, points (x, y) in x order."""
        out: dict = {}
        for xv, res in self.columns:
            for b in res.breakpoints:
                key = (b.step, b.between, b.cause if b.kind == "value" else "crossing")
                out.setdefault(key, []).append((xv, b.at))
        d = self.y.digits
        return [{"step": k[0], "between": list(k[1]),
                 "cause": k[2] if k[2] != "crossing" else
                 f"objectives of {k[1][0]} and {k[1][1]} cross at step {k[0]}",
                 "points": [[decimal_text(x, d), decimal_text(y, d)] for x, y in pts]}
                for k, pts in out.items()]

    def to_json(self) -> dict:
        orders = self.orderings()
        d = self.y.digits
        return {
            "parameters": [self.x.parameter, self.y.parameter],
            "scenario": self.x.scenario_name,
            "method": self.columns[0][1].method_text if self.columns else "",
            "fixed": dict(self.x.fixed),
            "orderings": [{"id": i, "order": [self.labels[j] for j in o], "stopped": st,
                           "optimal_first_set": first_set_optimal(o, self.optimal_sets)}
                          for i, (o, st) in enumerate(orders)],
            "columns": [{"at": decimal_text(xv, d),
                         "regions": [{"from": decimal_text(r.lo, d), "to": decimal_text(r.hi, d),
                                      "ordering": orders.index((r.order, r.stopped))}
                                     for r in res.regions]}
                        for xv, res in self.columns],
            "boundaries": self.curves(),
            "notes": list(self.notes),
        }

    def text(self) -> str:
        js = self.to_json()
        lines = [f"Phase map of {js['method']} on {js['scenario']} over "
                 f"{self.x.parameter} in [{self.x.lo}, {self.x.hi}] x {self.y.parameter} in "
                 f"[{self.y.lo}, {self.y.hi}] ({len(self.columns)} columns)", "", "orderings:"]
        for o in js["orderings"]:
            mark = {True: " [optimal first set]", False: "", None: ""}[o["optimal_first_set"]]
            lines.append(f"  {o['id']:>2}: {', '.join(o['order'])}"
                         + (" -- stopped" if o["stopped"] else "") + mark)
        lines += ["", "boundaries:"]
        for c in js["boundaries"]:
            a, b = c["points"][0], c["points"][-1]
            lines.append(f"  {c['cause']}: {len(c['points'])} points, from "
                         f"({a[0]}, {a[1][:12]}) to ({b[0]}, {b[1][:12]})")
        return "\n".join(lines)


def _column_task(args):
    spec = args
    return atlas(spec, certify=False)


def phase_map(specs, *, columns: int = 41, optimal_sets=None, jobs: int = 1, scheduler=None,
              progress=None) -> PhaseMap:
    """The map of ``specs[1].parameter`` (swept in each column) against ``specs[0].parameter``
    (``columns`` equally spaced values over its range, ends included)."""
    xs, ys = specs
    if ys.parameter != "beta" and xs.parameter == "beta":
        xs, ys = ys, xs
    lo, hi = as_exact(xs.lo), as_exact(xs.hi)
    values = [lo + (hi - lo) * sp.Rational(i, columns - 1) for i in range(columns)]
    col_specs = []
    for v in values:
        fixed = dict(ys.fixed)
        if xs.parameter == "beta":
            col_specs.append(replace(ys, beta=str(v)))
        else:
            fixed[xs.parameter] = str(v)
            col_specs.append(replace(ys, fixed=tuple(sorted(fixed.items()))))
    results = _run(_column_task, col_specs, jobs, scheduler, progress, "columns")
    labels = results[0].labels
    return PhaseMap(xs, ys, list(zip(values, results)), labels, optimal_sets)
