r"""The ordering tables (paper Tables "Scenario I/II - Feature selection ordering", Section 7):
for each scenario and k = 0.2, 0.8, every (method, beta) row -- the methods of the registry
(:data:`fstheory.orderings.methods.METHODS`), beta = 0, 0.4, 0.7, 1 for those with beta -- derived by
greedy selection (:func:`fstheory.orderings.greedy.select`) on the exact values, with each method's
default reading and beta = 0 evaluated as written (``zero_beta="explicit"``), as the paper's
tables do. '-' marks a position where nothing was selected (every remaining candidate
indeterminate); the last column says which indeterminate forms stopped the selection.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = ordering_table(get_scenario("uniform"), digits=30)
>>> r = next(r for r in t["parts"][0]["rows"] if r["method"] == "mifs-u" and r["beta"] == "0.4")
>>> r["order"][:5], r["stop"]
(['X', '3X+1', 'X-Y', 'X^2', '-'], '0*inf (6)')
"""

from __future__ import annotations

from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.render import csv_text, json_text, latex_label, latex_text, md_table
from fstheory.scenarios.declaration import param_text
from fstheory.orderings.greedy import select
from fstheory.orderings.methods import METHODS

__all__ = ["BETAS", "ordering_table", "ordering_markdown", "ordering_latex", "ordering_csv",
           "ordering_json", "method_rows", "stop_text", "part_heading", "order_md_table"]

#: the betas of the paper's rows
BETAS = ("0", "0.4", "0.7", "1")


def method_rows(family: str | None = "paper"):
    """(method, beta) for every row: registry order, betas for methods that take one; the
    paper's two-dimensional methods by default (``family=None``: every method but beta-gamma,
    whose rows are its named points in :mod:`fstheory.reports.library_tables`)."""
    for m in METHODS.values():
        if (family is not None and m.family != family) or m.has_gamma:
            continue
        for beta in (BETAS if m.has_beta else (None,)):
            yield m, beta


def stop_text(result) -> str:
    """'0/0 (9)' or '0*inf (5), inf-inf (1)': the forms of the candidates left at the stop;
    'undecided at step 5 (not computed)' when a not-computed value left the step undecided."""
    if result.stop is None:
        return ""
    if result.undecided:
        return f"undecided at step {result.stop.after + 1} (not computed)"
    counts: dict = {}
    for c in result.stop.candidates:
        counts[c.form] = counts.get(c.form, 0) + 1
    return ", ".join(f"{f} ({n})" for f, n in counts.items())


def ordering_table(scenario, digits: int, ks=K_VALUES, *,
                   store: PointStore | None = None) -> dict:
    store = PointStore() if store is None else store
    parts = []
    for k in ks:
        values = store.values_at(scenario, {"k": k}, digits)
        n = values.n_features
        rows = []
        for m, beta in method_rows():
            r = select(values, m, beta)
            order = r.order_labels + ["-"] * (n - len(r.order))
            rows.append({
                "method": m.key,
                "display": m.display,
                "beta": beta,
                "reading": r.reading,
                "zero_beta": r.zero_beta if m.has_beta else None,
                "order": order,
                "order_indices": [i + 1 for i in r.order],
                "stopped_after": None if r.stop is None else r.stop.after,
                "stop": stop_text(r),
            })
        params = {p: param_text(v) for p, v in values.params.items()}
        parts.append({"k": k, "params": params, "rows": rows})
    return {"scenario": scenario.name, "title": scenario.title, "digits": digits, "parts": parts}


def _heading(r: dict) -> str:
    return r["display"] + (f" (beta={r['beta']})" if r["beta"] is not None else "")


def ordering_markdown(table: dict) -> str:
    lines = [
        f"# Feature selection ordering: {table['title']}",
        "",
        "Greedy selection on the exact values (`orderings/greedy.py`): the first feature maximises "
        "MI(C, V); later, the largest determinate objective wins (-inf included), ties go to the "
        "lower index, indeterminate candidates cannot be chosen, and selection stops when all "
        "remaining candidates are indeterminate. Each method's default reading; beta = 0 evaluated "
        "as written. '-' = nothing selected; 'Stop' = the indeterminate forms left (count).",
    ]
    for letter, part in zip("abcdefghij", table["parts"]):
        lines += part_heading(letter, part) + [order_md_table(part, _heading, "stop")]
    return "\n".join(lines)


def part_heading(letter: str, part: dict) -> list[str]:
    """'## (a) k = 0.2' and the parameters line of one part of an ordering table."""
    params = ", ".join(f"{k}={v}" for k, v in part["params"].items())
    return ["", f"## ({letter}) k = {part['k']}", "", f"Parameters: {params}.", ""]


def order_md_table(part: dict, heading, stop_key: str) -> str:
    """Markdown rows: method heading, the selected features by position ('-' none), the stop."""
    n = len(part["rows"][0]["order"])
    head = ["Method"] + [str(i + 1) for i in range(n)] + ["Stop"]
    rows = [[heading(r)] + [f"`{x}`" if x != "-" else "-" for x in r["order"]]
            + [r[stop_key] or ""] for r in part["rows"]]
    return md_table(head, rows)


def _latex_heading(r: dict) -> str:
    beta = "" if r["beta"] is None else f" ($\\beta={r['beta']}$)"
    return latex_text(r["display"]) + beta


def ordering_latex(table: dict) -> str:
    lines = ["% requires \\usepackage{booktabs,amsmath}", r"\begin{table*}[!h]", r"  \centering",
             r"  \scriptsize",
             r"  \caption{" + latex_text(table["title"].split(":")[0]) + " - Feature selection "
             r"ordering derived by the engine, "
             + ", ".join(f"({letter}) $k={p['k']}$" for letter, p in zip("abcdefghij", table["parts"]))
             + r". '-': no feature selected (every remaining candidate indeterminate).}"]
    for letter, part in zip("abcdefghij", table["parts"]):
        n = len(part["rows"][0]["order"])
        lines += [
            r"  \begin{tabular}{l " + "c" * n + "}",
            r"    \toprule",
            rf"    Methods & \multicolumn{{{n}}}{{c}}{{Order of feature selection}} \\",
            r"    \midrule",
        ]
        for r in part["rows"]:
            lines.append(f"    {_latex_heading(r)} & "
                         + " & ".join(latex_label(x) for x in r["order"]) + r" \\")
        lines += [r"    \bottomrule", r"  \end{tabular}",
                  rf"  \par\smallskip ({letter}) $k={part['k']}$\par\medskip"]
    lines.append(r"\end{table*}")
    return "\n".join(lines)


def ordering_csv(table: dict) -> str:
    n = len(table["parts"][0]["rows"][0]["order"]) if table["parts"] else 0
    header = ["scenario", "k", "method", "beta", "reading", "zero_beta"] + \
        [f"pos{i + 1}" for i in range(n)] + ["stopped_after", "stop_forms"]
    rows = []
    for part in table["parts"]:
        for r in part["rows"]:
            rows.append([table["scenario"], part["k"], r["method"], r["beta"] or "", r["reading"],
                         r["zero_beta"] or ""] + r["order"]
                        + ["" if r["stopped_after"] is None else r["stopped_after"], r["stop"]])
    return csv_text(header, rows)


def ordering_json(table: dict) -> str:
    return json_text(table)
