r"""Relevance and first selected sets: for each scenario and k = 0.2, 0.8, the
relevance classification derived by :func:`fstheory.engine.relevance.classify` (paper Section 3;
no labels are matched) and one row for every method, two- and three-dimensional (every beta of
the paper's rows, every reading of the 3-D methods): its first selected set (as many features
as a relevance-optimal set has), whether that set is relevance-optimal, whether the method
orders all features or stops, and why.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = first_set_table(get_scenario("uniform"), digits=30, ks=("0.2",))
>>> part = t["parts"][0]
>>> part["optimal_sets"][:2]
[['X', 'X-Y'], ['X', 'Y']]
>>> r = next(r for r in part["rows"] if r["method"] == "mrmr")
>>> r["first"], r["optimal"], r["complete"]
(['X', 'Y'], 'yes', 'yes')
"""

from __future__ import annotations

from fstheory.orderings.greedy import select
from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.ordering3d_tables import rows3d
from fstheory.reports.ordering_tables import method_rows, part_heading, stop_text
from fstheory.reports.render import csv_text, json_text, md_table
from fstheory.scenarios.declaration import param_text

__all__ = ["first_set_table", "first_set_markdown", "first_set_csv", "first_set_json"]


def _all_rows():
    for m, beta in method_rows():
        yield m, beta, None
    for m, reading in rows3d():
        yield m, None, reading


def first_set(r, optimal, size) -> tuple:
    """The first selected set of the selection ``r`` (``size`` features, two when the
    relevance-optimal sets are not decided) and whether it is relevance-optimal: 'yes', 'no', or
    why not decided."""
    first = r.order[:size] if size is not None else r.order[:2]
    if optimal is None:
        ok = "undecided (relevance-optimal sets not decided)"
    elif len(first) < size:
        ok = ("undecided: " if r.undecided else "no: ") + f"stopped after {len(r.order)}"
    else:
        ok = "yes" if frozenset(first) in optimal else "no"
    return first, ok


def relevance_part(scenario, k, digits: int, store: PointStore) -> tuple:
    """(values, relevance-optimal sets or None, their size or None, the part's heading fields)
    at ``k`` (the values and report kept in ``store``): what every per-k part of the first-set
    tables starts from."""
    values = store.values_at(scenario, {"k": k}, digits)
    report = store.relevance_at(scenario, {"k": k}, digits)
    optimal = None if report.optimal_sets is None else set(report.optimal_sets)
    size = None if optimal is None else len(next(iter(optimal)))
    labels = values.labels
    part = {
        "k": k,
        "params": {p: param_text(x) for p, x in values.params.items()},
        "optimal_sets": None if report.optimal_sets is None else
        [[labels[i] for i in sorted(s)] for s in report.optimal_sets],
        "optimal_reason": report.optimal_reason,
    }
    return values, report, optimal, size, part


def optimal_sets_line(part: dict) -> str:
    if part["optimal_sets"] is None:
        return f"Relevance-optimal sets: not decided ({part['optimal_reason']})."
    sets = ", ".join("(" + ", ".join(s) + ")" for s in part["optimal_sets"])
    return f"Relevance-optimal sets: {sets} ({part['optimal_reason']})."


def _row(m, beta, reading, values, optimal, size) -> dict:
    r = select(values, m, beta, reading=reading)
    labels = values.labels
    first, ok = first_set(r, optimal, size)
    if r.stop is None:
        complete, why = "yes", "all features ordered"
    else:
        complete = f"stops after {r.stop.after} ({r.stop.kind})"
        why = (r.stop.statement if r.undecided else
               f"every remaining candidate is indeterminate: {stop_text(r)}")
    return {
        "method": m.key,
        "display": m.display,
        "dimension": m.dimension,
        "beta": beta,
        "reading": r.reading,
        "first": [labels[i] for i in first],
        "optimal": ok,
        "complete": complete,
        "why": why,
    }


def first_set_table(scenario, digits: int, ks=K_VALUES, *, store: PointStore | None = None) -> dict:
    store = PointStore() if store is None else store
    parts = []
    for k in ks:
        values, report, optimal, size, part = relevance_part(scenario, k, digits, store)
        labels = values.labels
        part["classes"] = [{"feature": labels[c.index], "class": c.kind,
                            "in_optimal_sets": c.optimal, "reason": c.reason}
                           for c in report.classes]
        part["rows"] = [_row(m, beta, reading, values, optimal, size)
                        for m, beta, reading in _all_rows()]
        parts.append(part)
    return {"scenario": scenario.name, "title": scenario.title, "digits": digits, "parts": parts}


def _name(r: dict) -> str:
    if r["beta"] is not None:
        return f"{r['display']} (beta={r['beta']})"
    if r["dimension"] == 3:
        return f"{r['display']} ({r['reading']})"
    return r["display"]


def first_set_markdown(table: dict) -> str:
    lines = [
        f"# Relevance and first selected sets: {table['title']}",
        "",
        "Relevance derived from the structure of the declarations and the engine's values "
        "(`engine/relevance.py`; paper Section 3: maximally informative sets, strongly/weakly "
        "relevant, irrelevant; WR-NR / WR-R relative to the relevance-optimal sets). Then, for "
        "every method (the paper's rows for the 2-D methods, every reading of the 3-D ones), its "
        "first selected set -- as many features as a relevance-optimal set has -- and whether it "
        "is one, whether the method orders all features, and why it stops.",
    ]
    for letter, part in zip("abcdefghij", table["parts"]):
        lines += part_heading(letter, part)
        lines.append(optimal_sets_line(part))
        lines += ["", md_table(["Feature", "Class", "Relevance-optimal sets", "Why"],
                               [[f"`{c['feature']}`", c["class"], c["in_optimal_sets"], c["reason"]]
                                for c in part["classes"]]), ""]
        rows = [[_name(r), ", ".join(f"`{x}`" for x in r["first"]), r["optimal"], r["complete"],
                 r["why"]] for r in part["rows"]]
        lines.append(md_table(["Method", "First set", "Relevance-optimal", "Orders all", "Why"],
                              rows))
    return "\n".join(lines)


def first_set_csv(table: dict) -> str:
    rows = []
    for part in table["parts"]:
        for r in part["rows"]:
            rows.append([table["scenario"], part["k"], r["method"], r["beta"] or "", r["reading"],
                         " ".join(r["first"]), r["optimal"], r["complete"], r["why"]])
    return csv_text(["scenario", "k", "method", "beta", "reading", "first_set",
                     "relevance_optimal", "orders_all", "why"], rows)


def first_set_json(table: dict) -> str:
    return json_text(table)
