r"""The numeric table (paper Table "Entropy of each input variable ... and MI between each input
variable and the class", Section 7): for each scenario at its default parameters (the paper's
a = 3, b = 1, d = 2, delta = 1/2, sigma = 1), each feature's law ("Dist."), h(V) and
MI(C_k, V) for k = 0.2 and 0.8, from :func:`fstheory.engine.evaluate.evaluate`.

Markdown shows 4 decimals as the paper does (an exact zero as 0); CSV and JSON hold the values
with the requested significant digits.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = numeric_table([get_scenario("uniform")], digits=12)
>>> row = t["scenarios"][0]["rows"][1]
>>> row["label"], row["dist"]["plain"], row["h"], row["mi_class"]["0.2"]
('3X+1', 'Unif(-1/2, 5/2)', '1.09861228867', '0.593147180560')
"""

from __future__ import annotations

from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.law_text import law_text
from fstheory.reports.render import csv_text, fixed, json_text, latex_text, md_table, shown
from fstheory.scenarios.declaration import param_text
from fstheory.theory.law_algebra import law_of

__all__ = ["numeric_table", "numeric_markdown", "numeric_latex", "numeric_csv", "numeric_json"]


def numeric_table(scenarios, digits: int, ks=K_VALUES, *,
                  store: PointStore | None = None) -> dict:
    store = PointStore() if store is None else store
    blocks = []
    for s in scenarios:
        vals = {k: store.values_at(s, {"k": k}, digits) for k in ks}
        first = vals[ks[0]]
        bound = s.bind(k=ks[0])
        laws, exprs = bound.laws(), bound.feature_exprs()
        params = {n: param_text(v) for n, v in first.params.items() if n != "k"}
        rows = []
        for i, label in enumerate(first.labels):
            lp, lt = law_text(law_of(exprs[i], laws))
            rows.append({
                "index": i + 1,
                "label": label,
                "dist": {"plain": lp, "latex": lt},
                "h": shown(first.entropy[i], digits),
                "h_4": fixed(first.entropy[i], 4),
                "mi_class": {k: shown(vals[k].mi_class[i], digits) for k in ks},
                "mi_class_4": {k: fixed(vals[k].mi_class[i], 4) for k in ks},
            })
        blocks.append({"scenario": s.name, "title": s.title, "params": params, "rows": rows})
    return {"ks": list(ks), "digits": digits, "scenarios": blocks}


def numeric_markdown(table: dict) -> str:
    ks = table["ks"]
    lines = [
        "# Entropy and MI with the class (numeric table)",
        "",
        f"Values to 4 decimals as the paper prints them (an exact zero as 0); "
        f"{table['digits']} significant digits in `numeric_table.csv` / `numeric_table.json`.",
    ]
    for b in table["scenarios"]:
        params = ", ".join(f"{k}={v}" for k, v in b["params"].items())
        head = ["V", "Feature", "Dist.", "h(V)"] + [f"MI(V, C_{k})" for k in ks]
        rows = [[f"V{r['index']}", f"`{r['label']}`", f"${r['dist']['latex']}$", r["h_4"]]
                + [r["mi_class_4"][k] for k in ks] for r in b["rows"]]
        lines += ["", f"## {b['title']}", "", f"Parameters: {params}.", "",
                  md_table(head, rows, "lllr" + "r" * len(ks))]
    return "\n".join(lines)


def numeric_latex(table: dict) -> str:
    ks = table["ks"]
    blocks = table["scenarios"]
    per = 2 + len(ks)
    spec = "c" + "".join("||c|" + "c" * (per - 1) for _ in blocks)
    title_cells = " & ".join(
        rf"\multicolumn{{{per}}}{{c}}{{{latex_text(b['title'].split(':')[0])}}}" for b in blocks)
    col_cells = " & ".join(
        " & ".join(["Dist.", r"$h(\cdot)$"] + [rf"$\mathrm{{MI}}(\cdot,C_{{{k}}})$" for k in ks])
        for _ in blocks)
    params = "; ".join(
        latex_text(b["scenario"] + ": " + ", ".join(f"{k}={v}" for k, v in b["params"].items()))
        for b in blocks)
    lines = [
        "% requires \\usepackage{booktabs,amsmath}",
        r"\begin{table*}[!h]",
        r"  \caption{Entropy of each feature, $h(V_i)$, and MI between each feature and the class, "
        r"$\mathrm{MI}(V_i, C_k)$, $k = " + ", ".join(ks) + r"$, derived by the engine (" + params + ").}",
        r"  \centering",
        r"  \scriptsize",
        rf"  \begin{{tabular}}{{{spec}}}",
        r"    \toprule",
        f"    & {title_cells} \\\\",
        f"    Feature & {col_cells} \\\\",
        r"    \midrule",
    ]
    n = max((len(b["rows"]) for b in blocks), default=0)
    for i in range(n):
        cells = []
        for b in blocks:
            if i >= len(b["rows"]):  # scenarios with fewer features: empty cells
                cells += [""] * per
                continue
            r = b["rows"][i]
            dist = "-" if r["dist"]["latex"] == "-" else f"${r['dist']['latex']}$"
            cells += [dist, f"${r['h_4']}$"] + [f"${r['mi_class_4'][k]}$" for k in ks]
        lines.append(f"    $V_{{{i + 1}}}$ & " + " & ".join(cells) + r" \\")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"\end{table*}"]
    return "\n".join(lines)


def numeric_csv(table: dict) -> str:
    ks = table["ks"]
    header = ["scenario", "V", "label", "dist", "h"] + [f"mi_class_k{k}" for k in ks]
    rows = []
    for b in table["scenarios"]:
        for r in b["rows"]:
            rows.append([b["scenario"], f"V{r['index']}", r["label"], r["dist"]["plain"], r["h"]]
                        + [r["mi_class"][k] for k in ks])
    return csv_text(header, rows)


def numeric_json(table: dict) -> str:
    out = {"ks": table["ks"], "digits": table["digits"], "scenarios": []}
    for b in table["scenarios"]:
        rows = [{k: v for k, v in r.items() if not k.endswith("_4")} for r in b["rows"]]
        out["scenarios"].append({**b, "rows": rows})
    return json_text(out)


