r"""The orderings of the three-dimensional methods (JMI, CMIM, JMIM, CIFE, DISR, ICAP), every
named reading, for k = 0.2 and 0.8 at the scenario's defaults, with the ties and the stops
explained: a stop is either "indeterminate" (every remaining candidate is) or "undecided" (a
value the step needs is not computed and could change the winner; the ordering is then not an
answer, :mod:`fstheory.orderings.greedy` rule 6).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = ordering3d_table(get_scenario("uniform"), digits=30, ks=("0.2",))
>>> r = next(r for r in t["parts"][0]["rows"] if r["method"] == "cife" and r["reading"] == "original")
>>> r["order"][:7], r["stop_kind"]
(['X', 'X-Y', 'Y', 'Z', 'W+2', 'Z+W', '-'], 'indeterminate')
"""

from __future__ import annotations

from fstheory.orderings.greedy import select
from fstheory.orderings.methods import METHODS
from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.ordering_tables import order_md_table, part_heading
from fstheory.reports.render import csv_text, json_text
from fstheory.scenarios.declaration import param_text

__all__ = ["ordering3d_table", "ordering3d_markdown", "ordering3d_csv", "ordering3d_json",
           "ties_text", "stop_explanation", "rows3d"]


def rows3d():
    """(method, reading) for every distinct reading of every three-dimensional method."""
    for m in METHODS.values():
        if m.family == "3d":
            for reading, _ in m.distinct_readings():
                yield m, reading


def ties_text(result) -> list[str]:
    """'step 2: X-Y tied with Y (the lower index wins)' for every step with a tie."""
    labels = result.values.labels
    return [f"step {s.number}: {labels[s.selected]} tied with "
            f"{', '.join(labels[i] for i in s.tied)} (the lower index wins)"
            for s in result.steps if s.tied]


def stop_explanation(result) -> str:
    """Why the selection stopped ('' when it ordered every feature)."""
    stop = result.stop
    if stop is None:
        return ""
    if stop.kind == "undecided":
        return f"after {stop.after}: {stop.statement}"
    causes = "; ".join(f"{c.label} {c.form} ({c.cause})" for c in stop.candidates)
    return f"after {stop.after}: every remaining candidate is indeterminate: {causes}"


def ordering3d_table(scenario, digits: int, ks=K_VALUES, *,
                     store: PointStore | None = None) -> dict:
    store = PointStore() if store is None else store
    parts = []
    for k in ks:
        values = store.values_at(scenario, {"k": k}, digits)
        n = values.n_features
        rows = []
        for m, reading in rows3d():
            r = select(values, m, reading=reading)
            rows.append({
                "method": m.key,
                "display": m.display,
                "reading": reading,
                "default": reading == m.default_reading,
                "order": r.order_labels + ["-"] * (n - len(r.order)),
                "order_indices": [i + 1 for i in r.order],
                "stop_kind": None if r.stop is None else r.stop.kind,
                "stopped_after": None if r.stop is None else r.stop.after,
                "stop": stop_explanation(r),
                "ties": ties_text(r),
            })
        parts.append({"k": k, "params": {p: param_text(x) for p, x in values.params.items()},
                      "rows": rows})
    return {"scenario": scenario.name, "title": scenario.title, "digits": digits, "parts": parts}


def _heading(r: dict) -> str:
    return f"{r['display']} ({r['reading']}{', default' if r['default'] else ''})"


def ordering3d_markdown(table: dict) -> str:
    lines = [
        f"# Three-dimensional methods, feature selection ordering: {table['title']}",
        "",
        "Greedy selection on the exact values (`orderings/greedy.py`), every reading of each "
        "method (`docs/orderings.md`). '-' = nothing selected. Stop: 'indeterminate' (every "
        "remaining candidate is) or 'undecided' (a value the step needs is not computed and "
        "could change the winner: the features listed are then not the answer).",
    ]
    for letter, part in zip("abcdefghij", table["parts"]):
        lines += part_heading(letter, part) + [order_md_table(part, _heading, "stop_kind"), "",
                                               "Ties and stops:", ""]
        for r in part["rows"]:
            notes = r["ties"] + ([f"stopped {r['stop']}"] if r["stop"] else ["all features ordered"])
            lines.append(f"- {_heading(r)}: " + "; ".join(notes))
    return "\n".join(lines)


def ordering3d_csv(table: dict) -> str:
    n = len(table["parts"][0]["rows"][0]["order"]) if table["parts"] else 0
    header = ["scenario", "k", "method", "reading", "default"] + [f"pos{i + 1}" for i in range(n)] \
        + ["stop_kind", "stopped_after", "stop", "ties"]
    rows = []
    for part in table["parts"]:
        for r in part["rows"]:
            rows.append([table["scenario"], part["k"], r["method"], r["reading"],
                         "yes" if r["default"] else "no"] + r["order"]
                        + [r["stop_kind"] or "", "" if r["stopped_after"] is None else r["stopped_after"],
                           r["stop"], "; ".join(r["ties"])])
    return csv_text(header, rows)


def ordering3d_json(table: dict) -> str:
    return json_text(table)
