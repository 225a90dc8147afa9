r"""The joint and conditional MI tables of a scenario: for k = 0.2 and 0.8 at the
scenario's defaults, H(C) and the four n x n matrices MI(C;{Vi,Vj}), MI(C;Vi|Vj), MI(Vi;Vj|C)
and H(Vi,Vj,C) (:mod:`fstheory.engine.evaluate_joint`), with why each entry is what it is and
the reason of every value not computed.

Markdown shows 4 decimals; CSV and JSON hold every cell with the requested significant digits.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = joint_table(get_scenario("uniform"), digits=12, ks=("0.2",))
>>> part = t["parts"][0]
>>> part["h_class"], part["matrices"]["mi_class_joint"][0][6]
('0.693147180560', '0.693147180560')
"""

from __future__ import annotations

from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.render import csv_text, fixed, json_text, md_table, shown
from fstheory.reports.values_output import JOINT_MATRICES
from fstheory.scenarios.declaration import param_text

__all__ = ["joint_table", "joint_markdown", "joint_csv", "joint_json"]

_PROVENANCE_KEY = {"mi_class_joint": "mi_c_pair", "cmi_class": "cmi_c",
                   "mi_features_given_class": "mi_given_c", "joint_entropy_class": "h_pair_c"}


def joint_table(scenario, digits: int, ks=K_VALUES, *, store: PointStore | None = None) -> dict:
    store = PointStore() if store is None else store
    parts = []
    for k in ks:
        v = store.values_at(scenario, {"k": k}, digits)
        jv = v.joint_values()
        n = v.n_features
        matrices, short, why = {}, {}, {}
        for key, attr, _title in JOINT_MATRICES:
            m = getattr(jv, attr)
            matrices[key] = [[shown(x, digits) for x in row] for row in m]
            short[key] = [[fixed(x, 4) for x in row] for row in m]
            reasons: dict = {}
            for i in range(n):
                for j in range(n):
                    if i == j:
                        continue
                    if m[i][j].is_indeterminate:
                        r = m[i][j].cause
                    else:
                        r = jv.provenance.get((_PROVENANCE_KEY[key], i, j), "")
                    reasons.setdefault(r, []).append([i + 1, j + 1])
            why[key] = [{"reason": r, "cells": cells} for r, cells in reasons.items()]
        parts.append({
            "k": k,
            "params": {p: param_text(x) for p, x in v.params.items()},
            "h_class": shown(jv.h_class, digits),
            "h_class_reason": jv.provenance.get("h_c", ""),
            "matrices": matrices,
            "matrices_4": short,
            "why": why,
        })
    first = store.values_at(scenario, {"k": ks[0]}, digits)
    return {"scenario": scenario.name, "title": scenario.title, "digits": digits,
            "labels": list(first.labels), "titles": {key: t for key, _, t in JOINT_MATRICES},
            "parts": parts}


def joint_markdown(table: dict) -> str:
    labels = table["labels"]
    n = len(labels)
    head = [""] + [f"V{j + 1}" for j in range(n)]
    lines = [
        f"# Joint and conditional MI: {table['title']}",
        "",
        "H(C), MI(C;{Vi,Vj}), MI(C;Vi|Vj), MI(Vi;Vj|C) and H(Vi,Vj,C), derived by the engine "
        "(`engine/derive_joint.py`, `engine/evaluate_joint.py`): structure (exact 0, +inf, "
        "-inf, H(C)), closed forms, the identities, or the numerical route; 'not computed' where "
        "none reaches (the reason is listed). 4 decimals here; "
        f"{table['digits']} significant digits in the CSV/JSON.",
    ]
    for letter, part in zip("abcdefghij", table["parts"]):
        params = ", ".join(f"{k}={v}" for k, v in part["params"].items())
        lines += ["", f"## ({letter}) k = {part['k']}", "", f"Parameters: {params}.", "",
                  f"H(C) = {part['h_class']} ({part['h_class_reason']})."]
        for key, title in table["titles"].items():
            rows = [[f"V{i + 1} `{labels[i]}`"] + part["matrices_4"][key][i] for i in range(n)]
            lines += ["", f"### {title}", "", md_table(head, rows), "", "Why:", ""]
            for item in part["why"][key]:
                cells = ", ".join(f"(V{i}, V{j})" for i, j in item["cells"])
                lines.append(f"- {item['reason']}: {cells}")
    return "\n".join(lines)


def joint_csv(table: dict) -> str:
    labels = table["labels"]
    rows = []
    for part in table["parts"]:
        rows.append([table["scenario"], part["k"], "h_class", "", "", "", "", part["h_class"]])
        for key in table["titles"]:
            for i, row in enumerate(part["matrices"][key]):
                for j, value in enumerate(row):
                    rows.append([table["scenario"], part["k"], key, f"V{i + 1}", f"V{j + 1}",
                                 labels[i], labels[j], value])
    return csv_text(["scenario", "k", "quantity", "i", "j", "label_i", "label_j", "value"], rows)


def joint_json(table: dict) -> str:
    out = dict(table)
    out["parts"] = [{k: v for k, v in p.items() if k != "matrices_4"} for p in table["parts"]]
    return json_text(out)
