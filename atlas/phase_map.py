"""Two-parameter maps (phase diagrams): the atlas of the second parameter at each value of the
first, with the boundary curves traced through the located breakpoints.

For ``--vary k --vary beta`` every column k = k_j is a one-parameter atlas over beta
(:func:`fstheory.atlas.sweep.atlas`). MIFS and MIFS-U objectives are affine in beta, so each
boundary point beta*(k_j) is the exact solution of obj_A = obj_B at that k (located to the
requested digits, not read off a grid); a boundary curve is the sequence of these points for one
cause (the same pair crossing at the same step), in k order. Between columns the curve is drawn
as a polyline: the curves are exact at the columns, the lines between them are drawn.

Regions are the orderings of the columns' partitions; a region is marked *optimal* when its
first |S| features form one of the relevance-optimal sets of its column
(:func:`column_optimal_sets`: ``fstheory.engine.relevance.relevance_optimal_sets`` at the
column's parameter value, never labels; they change with k: at k = 0 the class is a function of
X alone and the optimal sets are {X} and {3X+1}). With ``certify`` every column's atlas carries
its certificate, and the map's notes say which columns are certified.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import sympy as sp

from fstheory.atlas.numbers import as_exact, decimal_text
from fstheory.atlas.sweep import AtlasSpec, atlas
from fstheory.parallel import run_tasks
from fstheory.simulation.scheduler import connected

__all__ = ["PhaseMap", "phase_map", "first_set_optimal", "column_optimal_sets", "column_values",
           "derive_column_sets", "ordered_specs"]


def first_set_optimal(order, optimal_sets) -> bool | None:
    """Whether the first features of ``order`` form one of ``optimal_sets`` (None: not known)."""
    if optimal_sets is None:
        return None
    return any(len(order) >= len(s) and set(order[: len(s)]) == set(s) for s in optimal_sets)


def column_optimal_sets(args):
    """The relevance-optimal sets of ``spec``'s scenario with ``spec.fixed`` and ``param`` =
    ``value`` (``args`` = (spec, param, value)), or (None, reason) when they are undecided."""
    from fstheory.engine.relevance import RelevanceUndecided, relevance_optimal_sets

    spec, param, value = args
    point = dict(spec.fixed)
    if param != "beta":
        point[param] = as_exact(value)
    try:
        return relevance_optimal_sets(spec.load_scenario().bind(**point), digits=30), None
    except RelevanceUndecided as exc:
        return None, str(exc)


@dataclass
class PhaseMap:
    x: AtlasSpec          # the first parameter's spec (columns)
    y: AtlasSpec          # the second parameter's spec (swept in each column)
    columns: list         # (x value, AtlasResult)
    labels: tuple
    column_sets: list | None = None  # per column: the relevance-optimal sets, or None (unknown)
    notes: list = field(default_factory=list)

    def region_optimal(self, j: int, order) -> bool | None:
        """Whether ``order``'s first features form a relevance-optimal set of column ``j``."""
        return first_set_optimal(order, self.column_sets[j] if self.column_sets else None)

    def ordering_optimal(self, key) -> bool | None:
        """True (False) when the ordering ``key`` starts with an optimal set in every (no) column
        where it occurs; None when that differs between columns or is unknown."""
        seen = {self.region_optimal(j, r.order) for j, (_, res) in enumerate(self.columns)
                for r in res.regions if (r.order, r.stopped) == key}
        return seen.pop() if len(seen) == 1 else None

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
                           "optimal_first_set": self.ordering_optimal((o, st))}
                          for i, (o, st) in enumerate(orders)],
            "columns": [{"at": decimal_text(xv, d),
                         "regions": [{"from": decimal_text(r.lo, d), "to": decimal_text(r.hi, d),
                                      "ordering": orders.index((r.order, r.stopped)),
                                      "optimal_first_set": self.region_optimal(j, r.order)}
                                     for r in res.regions]}
                        for j, (xv, res) in enumerate(self.columns)],
            "boundaries": self.curves(),
            "notes": list(self.notes),
        }

    def text(self) -> str:
        js = self.to_json()
        lines = [f"Phase map of {js['method']} on {js['scenario']} over "
                 f"{self.x.parameter} in [{self.x.lo}, {self.x.hi}] x {self.y.parameter} in "
                 f"[{self.y.lo}, {self.y.hi}] ({len(self.columns)} columns)", "", "orderings:"]
        for o in js["orderings"]:
            mark = {True: " [optimal first set]", False: "",
                    None: " [optimal first set in some columns]" if self.column_sets else ""}[
                o["optimal_first_set"]]
            lines.append(f"  {o['id']:>2}: {', '.join(o['order'])}"
                         + (" -- stopped" if o["stopped"] else "") + mark)
        lines += ["", "boundaries:"]
        for c in js["boundaries"]:
            a, b = c["points"][0], c["points"][-1]
            n = len(c["points"])
            lines.append(f"  {c['cause']}: {n} point{'' if n == 1 else 's'}, from "
                         f"({a[0]}, {a[1][:12]}) to ({b[0]}, {b[1][:12]})")
        if js["notes"]:
            lines += ["", "notes:"] + [f"  {n}" for n in js["notes"]]
        return "\n".join(lines)


def ordered_specs(specs) -> tuple:
    """(columns' spec, swept spec): beta, when varied, is swept in each column."""
    xs, ys = specs
    if ys.parameter != "beta" and xs.parameter == "beta":
        xs, ys = ys, xs
    return xs, ys


def column_values(xs: AtlasSpec, columns: int) -> list:
    """The columns' values of ``xs.parameter``: equally spaced, ends included (exact)."""
    lo, hi = as_exact(xs.lo), as_exact(xs.hi)
    return [lo + (hi - lo) * sp.Rational(i, columns - 1) for i in range(columns)]


def derive_column_sets(xs, ys, values, jobs=1, scheduler=None, progress=None) -> tuple:
    """(relevance-optimal sets per column, notes) by :func:`column_optimal_sets`; a map of the
    same scenario and columns can reuse them (``phase_map(..., optimal_sets=result)``)."""
    with connected(scheduler) as client:
        found = run_tasks(column_optimal_sets, [(ys, xs.parameter, v) for v in values], jobs=jobs,
                          scheduler=client, progress=progress, label="relevance-optimal sets")
    notes = ["relevance-optimal sets: fstheory.engine.relevance.relevance_optimal_sets at each "
             f"column's {xs.parameter}"]
    notes += [f"{xs.parameter} = {decimal_text(v, ys.digits)}: optimal sets undecided ({why}): "
              "regions unmarked" for v, (_, why) in zip(values, found) if why]
    return [sets for sets, _ in found], notes


def _column_task(args):
    spec, certify = args
    return atlas(spec, certify=certify)


def _certificate_note(pm: "PhaseMap") -> str:
    failed = [(xv, res.certificate) for xv, res in pm.columns
              if not (res.certificate or {}).get("certified")]
    d = pm.y.digits
    if not failed:
        return (f"certificate: every column's ordering over {pm.y.parameter} is certified "
                f"(interval proof; docs/atlas.md)")
    reasons = {c.get("reason") for _, c in failed}
    if len(failed) == len(pm.columns) and len(reasons) == 1 and None not in reasons:
        return (f"certificate: no column certified ({reasons.pop()}): sampled and bracketed "
                f"(docs/atlas.md)")
    return (f"certificate: {len(pm.columns) - len(failed)} of {len(pm.columns)} columns "
            f"certified; not certified: " + "; ".join(
                f"{pm.x.parameter} = {decimal_text(xv, d)}: "
                + "; ".join(c.get("failures") or [c.get("reason", c["summary"])])
                for xv, c in failed))


def phase_map(specs, *, columns: int = 41, optimal_sets=None, certify: bool = False,
              jobs: int = 1, scheduler=None, progress=None) -> PhaseMap:
    """The map of ``specs[1].parameter`` (swept in each column) against ``specs[0].parameter``
    (``columns`` equally spaced values over its range, ends included).

    ``optimal_sets``: the relevance-optimal sets of every column (a tuple of frozensets), a list
    with one entry per column (a tuple, or None when unknown), ``"derive"`` to compute them per
    column with :func:`column_optimal_sets`, or what :func:`derive_column_sets` returned; None
    leaves the regions unmarked. ``certify``: run every
    column's certificate (None: where applicable)."""
    xs, ys = ordered_specs(specs)
    values = column_values(xs, columns)
    col_specs = []
    for v in values:
        fixed = dict(ys.fixed)
        if xs.parameter == "beta":
            col_specs.append(replace(ys, beta=str(v)))
        else:
            fixed[xs.parameter] = v  # exact (a text '1/4000...0' of 1000 digits would not parse)
            col_specs.append(replace(ys, fixed=tuple(sorted(fixed.items()))))
    with connected(scheduler) as client:
        results = run_tasks(_column_task, [(c, certify) for c in col_specs], jobs=jobs,
                            scheduler=client, progress=progress, label="columns")
    labels = results[0].labels
    notes = []
    if optimal_sets == "derive":
        optimal_sets, notes = derive_column_sets(xs, ys, values, jobs, scheduler, progress)
    elif isinstance(optimal_sets, tuple) and len(optimal_sets) == 2 and isinstance(
            optimal_sets[1], list):  # (sets per column, notes) from derive_column_sets
        optimal_sets, notes = optimal_sets[0], list(optimal_sets[1])
    elif isinstance(optimal_sets, tuple):
        optimal_sets = [optimal_sets] * len(values)
    pm = PhaseMap(xs, ys, list(zip(values, results)), labels, optimal_sets, notes)
    if certify is not False:
        pm.notes.append(_certificate_note(pm))
    return pm
