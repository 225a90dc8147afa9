r"""The methods of FEAST and praznik (MIM, CMI, NJMIM, JMI3, CondRed and beta-gamma at its named
points) for k = 0.2 and 0.8 at the scenario's defaults: their objectives, true orderings (ties
and stops explained, as in :mod:`fstheory.reports.ordering3d_tables`) and first selected sets
against the relevance-optimal sets (as in :mod:`fstheory.reports.first_set_tables`).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = library_table(get_scenario("uniform"), digits=30, ks=("0.2",))
>>> r = next(r for r in t["parts"][0]["rows"] if r["method"] == "cmi")
>>> r["order"][:3], r["first"], r["optimal"]
(['X', 'X-Y', '3X+1'], ['X', 'X-Y'], 'yes')
"""

from __future__ import annotations

from fstheory.orderings.greedy import select
from fstheory.orderings.methods import get_method, method_names
from fstheory.orderings.objective_table import markdown_table
from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.first_set_tables import first_set, optimal_sets_line, relevance_part
from fstheory.reports.ordering3d_tables import stop_explanation, ties_text
from fstheory.reports.ordering_tables import order_md_table, part_heading
from fstheory.reports.render import csv_text, json_text, md_table

__all__ = ["ROWS", "library_table", "library_markdown", "library_csv", "library_json"]

#: (method, reading, beta, gamma, zero_beta, the named method it reproduces): each library
#: method with each distinct reading, then beta-gamma at its named points (Brown et al. 2012) and
#: one point between them.
ROWS = (
    ("mim", "original", None, None, "explicit", ""),
    ("cmi", "original", None, None, "explicit", ""),
    ("njmim", "original", None, None, "explicit", ""),
    ("jmi3", "original", None, None, "explicit", ""),
    ("condred", "original", None, None, "explicit", ""),
    ("condred", "feast", None, None, "explicit", ""),
    ("beta-gamma", "original", "1", "0", "drop", "MIFS (beta=1)"),
    ("beta-gamma", "original", "1/|S|", "0", "drop", "mRMR"),
    ("beta-gamma", "original", "1/|S|", "0", "explicit", ""),
    ("beta-gamma", "original", "0", "1", "drop", "CondRed"),
    ("beta-gamma", "original", "1", "1", "explicit", "CIFE"),
    ("beta-gamma", "original", "1/|S|", "1/|S|", "explicit", "JMI"),
    ("beta-gamma", "feast", "1/|S|", "1/|S|", "explicit", "JMI"),
    ("beta-gamma", "original", "1/2", "1/2", "explicit", ""),
)


def _row(spec, values, optimal, size) -> dict:
    key, reading, beta, gamma, zero_beta, named = spec
    m = get_method(key)
    r = select(values, m, beta, reading=reading, zero_beta=zero_beta, gamma=gamma)
    n, labels = values.n_features, values.labels
    first, ok = first_set(r, optimal, size)
    return {
        "method": key,
        "display": m.describe(beta, reading, zero_beta, gamma) + (f" = {named}" if named else ""),
        "reading": reading,
        "beta": beta,
        "gamma": gamma,
        "zero_beta": zero_beta if m.has_beta else None,
        "order": r.order_labels + ["-"] * (n - len(r.order)),
        "order_indices": [i + 1 for i in r.order],
        "stop_kind": None if r.stop is None else r.stop.kind,
        "stopped_after": None if r.stop is None else r.stop.after,
        "stop": stop_explanation(r),
        "ties": ties_text(r),
        "first": [labels[i] for i in first],
        "optimal": ok,
    }


def library_table(scenario, digits: int, ks=K_VALUES, *, store: PointStore | None = None) -> dict:
    store = PointStore() if store is None else store
    parts = []
    for k in ks:
        values, _, optimal, size, part = relevance_part(scenario, k, digits, store)
        part["rows"] = [_row(spec, values, optimal, size) for spec in ROWS]
        parts.append(part)
    return {"scenario": scenario.name, "title": scenario.title, "digits": digits, "parts": parts}


def _heading(r: dict) -> str:
    return r["display"]


def library_markdown(table: dict) -> str:
    methods = [get_method(k) for k in method_names(family="libraries")]
    lines = [
        f"# Methods of FEAST and praznik, orderings and first sets: {table['title']}",
        "",
        "Greedy selection on the exact values (`orderings/greedy.py`) by the methods that the "
        "libraries FEAST (Brown et al. 2012) and praznik (Kursa 2021) add to the paper's and the "
        "three-dimensional ones, and by beta-gamma at the points where it is a named method "
        "(`docs/orderings.md` says how each maps). '-' = nothing selected. Stop: 'indeterminate' "
        "(every remaining candidate is) or 'undecided' (a value the step needs is not computed "
        "and could change the winner: the features listed are then not the answer). First set: "
        "as many features as a relevance-optimal set has.",
        "",
        "## Objectives",
        "",
        markdown_table(methods),
    ]
    for letter, part in zip("abcdefghij", table["parts"]):
        lines += part_heading(letter, part)
        lines.append(optimal_sets_line(part))
        lines += ["", order_md_table(part, _heading, "stop_kind"), "", "First sets:", "",
                  md_table(["Method", "First set", "Relevance-optimal"],
                           [[_heading(r), ", ".join(f"`{x}`" for x in r["first"]), r["optimal"]]
                            for r in part["rows"]]),
                  "", "Ties and stops:", ""]
        for r in part["rows"]:
            notes = r["ties"] + ([f"stopped {r['stop']}"] if r["stop"] else ["all features ordered"])
            lines.append(f"- {_heading(r)}: " + "; ".join(notes))
    return "\n".join(lines)


def library_csv(table: dict) -> str:
    n = len(table["parts"][0]["rows"][0]["order"]) if table["parts"] else 0
    header = ["scenario", "k", "method", "reading", "beta", "gamma", "zero_beta"] + [
        f"pos{i + 1}" for i in range(n)] + ["stop_kind", "stopped_after", "stop", "ties",
                                            "first_set", "relevance_optimal"]
    rows = []
    for part in table["parts"]:
        for r in part["rows"]:
            rows.append([table["scenario"], part["k"], r["method"], r["reading"], r["beta"] or "",
                         r["gamma"] or "", r["zero_beta"] or ""] + r["order"]
                        + [r["stop_kind"] or "",
                           "" if r["stopped_after"] is None else r["stopped_after"], r["stop"],
                           "; ".join(r["ties"]), " ".join(r["first"]), r["optimal"]])
    return csv_text(header, rows)


def library_json(table: dict) -> str:
    return json_text(table)
