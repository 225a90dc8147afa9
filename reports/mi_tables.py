r"""The MI-between-features table of a scenario (paper Tables "MI between the input features",
Scenario I and II): the lower triangle MI(V_i, V_j), j <= i, as derived for general parameters
(+inf and 0 from the structure of the declarations with their reasons, closed forms from the
laws), and its values at a parameter point.

Long closed forms (Scenario II's MI(Y^2, X-Y) holds an unevaluated integral) are named J_1, ...
in the cell and given in full under the table.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = mi_table(get_scenario("uniform"), {"k": "0.2"}, digits=10)
>>> [c["plain"] for c in t["cells"] if (c["i"], c["j"]) in ((2, 1), (4, 3), (4, 1))]
['+inf', '1/2', '1/2 - log(2)/2']
>>> next(c["value"] for c in t["cells"] if (c["i"], c["j"]) == (4, 3))
'0.1534264097'
"""

from __future__ import annotations

from fstheory.reports.compute import PointStore
from fstheory.reports.expressions import IntegralNames, show
from fstheory.reports.render import (csv_text, fixed, json_text, latex_label, latex_text, md_table,
                                     shown)
from fstheory.scenarios.declaration import param_text
from fstheory.scenarios.declaration import Scenario
from fstheory.engine.derive import derive

__all__ = ["mi_table", "mi_markdown", "mi_latex", "mi_csv", "mi_json"]

#: closed forms whose LaTeX is longer than this go to a note under the table
LONG = 60


def mi_table(scenario: Scenario, params: dict, digits: int, *,
             store: PointStore | None = None) -> dict:
    der = derive(scenario)
    store = PointStore() if store is None else store
    values = store.values_at(scenario, params, digits)
    names = IntegralNames()
    n = len(scenario.features)
    cells, notes = [], {}
    for i in range(n):
        for j in range(i + 1):
            s = show(der.mi_features[i][j], scenario, names)
            for name, latex, plain_text, display in s.notes:
                notes[name] = {"name": name, "latex": latex, "plain": plain_text,
                               "latex_display": display}
            cells.append({
                "i": i + 1, "j": j + 1,
                "label_i": scenario.features[i].label, "label_j": scenario.features[j].label,
                "kind": s.kind, "plain": s.plain, "latex": s.latex, "reason": s.reason,
                "value": shown(values.mi(i, j), digits),
                "value_4": fixed(values.mi(i, j), 4),
            })
    return {
        "scenario": scenario.name,
        "title": scenario.title,
        "labels": [f.label for f in scenario.features],
        "display_labels": list(values.labels),
        "params": {k: param_text(v) for k, v in values.params.items()},
        "digits": digits,
        "cells": cells,
        "integrals": list(notes.values()),
    }


def _matrix(table: dict, key: str, wrap=lambda s: s) -> list[list[str]]:
    n = len(table["labels"])
    grid = [[""] * n for _ in range(n)]
    for c in table["cells"]:
        grid[c["i"] - 1][c["j"] - 1] = wrap(c[key])
    return grid


def _symbolic(c: dict) -> str:
    return c["latex"] if len(c["latex"]) <= LONG else "(see note)"


def _reasons(table: dict) -> dict:
    """reason -> list of (i, j) off the diagonal."""
    out: dict = {}
    for c in table["cells"]:
        if c["i"] != c["j"]:
            out.setdefault(c["reason"], []).append((c["i"], c["j"]))
    return out


def mi_markdown(table: dict) -> str:
    labels = table["labels"]
    n = len(labels)
    head = ["MI(., .)"] + [f"V{j + 1}" for j in range(n)]
    sym = _matrix(table, "latex")
    for c in table["cells"]:
        sym[c["i"] - 1][c["j"] - 1] = f"${_symbolic(c)}$"
    rows = [[f"V{i + 1} `{labels[i]}`"] + sym[i] for i in range(n)]
    num = _matrix(table, "value_4")
    nrows = [[f"V{i + 1} `{table['display_labels'][i]}`"] + num[i] for i in range(n)]
    params = ", ".join(f"{k}={v}" for k, v in table["params"].items())
    lines = [
        f"# MI between features: {table['title']}",
        "",
        "MI(V_i, V_j), j <= i, derived for general parameters (`engine/derive.py`).",
        "",
        md_table(head, rows),
        "",
        f"Values at {params} (4 decimals; {table['digits']} significant digits in the CSV/JSON):",
        "",
        md_table(head, nrows),
        "",
        "Why each off-diagonal entry is what it is (the diagonal is a feature with itself, +inf):",
        "",
    ]
    for reason, pairs in _reasons(table).items():
        lines.append(f"- {reason}: " + ", ".join(f"(V{i}, V{j})" for i, j in pairs))
    for c in table["cells"]:
        if len(c["latex"]) > LONG:
            lines += ["", f"(V{c['i']}, V{c['j']}) = ${c['latex']}$"]
    for note in table["integrals"]:
        lines += ["", f"$${note['latex_display']}$$"]
    return "\n".join(lines)


def mi_latex(table: dict) -> str:
    labels = table["labels"]
    n = len(labels)
    lines = [
        "% requires \\usepackage{booktabs,amsmath}",
        r"\begin{table*}[!h]",
        r"  \centering",
        r"  \scriptsize",
        r"  \caption{MI between the input features, $\mathrm{MI}(V_i,V_j)$, $j\le i$, "
        + latex_text(table["title"]) + r", derived by the engine.}",
        r"  \begin{tabular}{l" + "c" * n + "}",
        r"    \toprule",
        r"    $\mathrm{MI}(\cdot,\cdot)$ & " + " & ".join(f"$V_{{{j + 1}}}$" for j in range(n)) + r" \\",
        r"    \midrule",
    ]
    grid = [[""] * n for _ in range(n)]
    for c in table["cells"]:
        grid[c["i"] - 1][c["j"] - 1] = f"${_symbolic(c)}$"
    for i in range(n):
        lines.append(f"    $V_{{{i + 1}}}$ {latex_label(labels[i])} & " + " & ".join(grid[i]) + r" \\")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"  \par\medskip\raggedright"]
    for c in table["cells"]:
        if len(c["latex"]) > LONG:
            lines.append(f"  $(V_{{{c['i']}}}, V_{{{c['j']}}})$: ${c['latex']}$\\\\")
    for note in table["integrals"]:
        lines.append(f"  \\[{note['latex_display']}\\]")
    lines.append(r"\end{table*}")
    return "\n".join(lines)


def mi_csv(table: dict) -> str:
    header = ["i", "j", "label_i", "label_j", "kind", "expression", "latex", "value", "reason"]
    rows = [[f"V{c['i']}", f"V{c['j']}", c["label_i"], c["label_j"], c["kind"], c["plain"],
             c["latex"], c["value"], c["reason"]] for c in table["cells"]]
    return csv_text(header, rows)


def mi_json(table: dict) -> str:
    out = dict(table)
    out["cells"] = [{k: v for k, v in c.items() if k != "value_4"} for c in table["cells"]]
    return json_text(out)
