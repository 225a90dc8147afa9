r"""The general-expression table of a scenario (paper Tables "General expression for the entropy
of each feature ... and for the MI between each feature and the class", Scenario I and II),
regenerated from the engine's derivation (:func:`fstheory.engine.derive.derive`) for general
parameters.

Columns: feature, its law (:func:`fstheory.theory.law_algebra.law_of` on the declaration; '-' when no
closed-form law is known), h(V) and MI(C_k, V) as derived (LaTeX via ``sp.latex``), and how the
MI with the class is obtained (closed form, structure with its reason, or the numerical route).
Scenario II's MIs with the class are shown as the paper writes them, E[ln 2 Phi(lambda A)],
A ~ SN(0, 1, lambda), with the derived lambda (:mod:`fstheory.reports.expressions`).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> t = general_table(get_scenario("uniform"))
>>> t["features"][1]["h"]["plain"], t["features"][1]["law"]["plain"]
('log(2*delta*Abs(a))', 'Unif(b - delta*Abs(a), b + delta*Abs(a))')
>>> t["features"][2]["mi_class"]["reason"]
'symmetry (X -> -X, Y -> -Y) fixes the feature and swaps the classes'
"""

from __future__ import annotations

from fstheory.scenarios.declaration import Scenario
from fstheory.engine.derive import derive
from fstheory.reports.expressions import IntegralNames, show
from fstheory.reports.law_text import law_text
from fstheory.reports.render import csv_text, json_text, latex_label, latex_text, md_table
from fstheory.theory.law_algebra import law_of

__all__ = ["general_table", "general_markdown", "general_latex", "general_csv", "general_json",
           "parameters_text", "SN_NOTE"]

SN_NOTE = ("E[ln 2Phi(lambda A)], A ~ SN(0, 1, lambda): the MI with the class when "
           "P(C = 1 | V = v) = Phi(lambda v) for standardised V; the engine evaluates it as the folded "
           "half-line integral 2 int_0^oo phi(u) [(1-Q) ln 2(1-Q) + Q ln 2Q] du, Q = Phi(-|lambda| u) "
           "(theory/law_algebra.py, skew_normal_mi).")


def _shown_dict(s) -> dict:
    return {"kind": s.kind, "plain": s.plain, "latex": s.latex, "reason": s.reason}


def parameters_text(scenario: Scenario) -> str:
    """'delta > 0 (default 0.5), k in [0, 1] (no default), ...'."""
    parts = []
    for p in scenario.parameters:
        default = "no default" if p.default is None else f"default {p.default}"
        parts.append(f"{p.name} {p.allowed} ({default})")
    return ", ".join(parts)


def general_table(scenario: Scenario) -> dict:
    """The table as data (also the JSON file's content)."""
    der = derive(scenario)
    laws = dict(scenario.base)
    names = IntegralNames()
    feats = []
    notes: dict = {}
    for i, f in enumerate(scenario.features):
        h = show(der.entropy[i], scenario, names)
        m = show(der.mi_class[i], scenario, names)
        for s in (h, m):
            for name, latex, plain_text, display in s.notes:
                notes[name] = {"name": name, "latex": latex, "plain": plain_text,
                               "latex_display": display}
        lp, lt = law_text(law_of(f.expr, laws))
        feats.append({
            "index": i + 1,
            "label": f.label,
            "expr": str(f.expr),
            "law": {"plain": lp, "latex": lt},
            "h": _shown_dict(h),
            "mi_class": _shown_dict(m),
        })
    return {
        "scenario": scenario.name,
        "title": scenario.title,
        "source": scenario.source,
        "parameters": parameters_text(scenario),
        "class_rule": scenario.class_rule.describe(),
        "features": feats,
        "integrals": list(notes.values()),
    }


def _reason_marks(table: dict) -> dict:
    """A letter per distinct MI reason, in order of first appearance."""
    marks: dict = {}
    for f in table["features"]:
        r = f["mi_class"]["reason"]
        if r not in marks:
            marks[r] = "abcdefghijklmnopqrstuvwxyz"[len(marks)]
    return marks


def general_markdown(table: dict) -> str:
    marks = _reason_marks(table)
    rows = []
    for f in table["features"]:
        m = f["mi_class"]
        rows.append([f"V{f['index']}", f"`{f['label']}`", f"${f['law']['latex']}$",
                     f"${f['h']['latex']}$", f"${m['latex']}$", f"({marks[m['reason']]})"])
    lines = [
        f"# General expressions: {table['title']}",
        "",
        f"Regenerated from the engine's derivation (`engine/derive.py`) for general parameters: "
        f"{table['parameters']}. Class: `{table['class_rule']}`.",
        "Entropies follow from the law shown (`theory/law_algebra.py`); how each MI with the class "
        "is obtained is given by the letter in the last column.",
        "",
        md_table(["V", "Feature", "Law", "h(V)", "MI(C_k, V)", "How"], rows),
        "",
        "How MI(C_k, V) is obtained:",
        "",
    ]
    lines += [f"- ({mark}) {reason}" for reason, mark in marks.items()]
    if any(f["mi_class"]["kind"] == "skew-normal" for f in table["features"]):
        lines += ["", f"Note: {SN_NOTE}"]
    for note in table["integrals"]:
        lines += ["", f"$${note['latex_display']}$$"]
    return "\n".join(lines)


def general_latex(table: dict) -> str:
    marks = _reason_marks(table)
    lines = [
        "% requires \\usepackage{booktabs,amsmath}",
        r"\begin{table*}[!h]",
        r"  \centering",
        r"  \scriptsize",
        r"  \caption{General expressions, " + latex_text(table["title"]) + r": entropy $h(V_i)$ "
        r"and MI with the class $\mathrm{MI}(C_k, V_i)$, derived by the engine.}",
        r"  \begin{tabular}{llllll}",
        r"    \toprule",
        r"    & Feature & Law & $h(\cdot)$ & $\mathrm{MI}(C_k,\cdot)$ & \\",
        r"    \midrule",
    ]
    for f in table["features"]:
        m = f["mi_class"]
        law = "-" if f["law"]["latex"] == "-" else f"${f['law']['latex']}$"
        lines.append(f"    $V_{{{f['index']}}}$ & {latex_label(f['label'])} & {law} & "
                     f"${f['h']['latex']}$ & ${m['latex']}$ & ({marks[m['reason']]}) \\\\")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"  \par\medskip\raggedright"]
    for reason, mark in marks.items():
        lines.append(f"  ({mark}) {latex_text(reason)}.\\\\")
    if any(f["mi_class"]["kind"] == "skew-normal" for f in table["features"]):
        lines.append(r"  $A\sim\mathrm{SN}(0,1,\lambda)$: skew-normal law (Azzalini 1985).\\")
    for note in table["integrals"]:
        lines.append(f"  \\[{note['latex_display']}\\]")
    lines.append(r"\end{table*}")
    return "\n".join(lines)


def general_csv(table: dict) -> str:
    header = ["V", "label", "law", "h_kind", "h", "h_latex", "mi_class_kind", "mi_class",
              "mi_class_latex", "mi_class_reason"]
    rows = []
    for f in table["features"]:
        h, m = f["h"], f["mi_class"]
        rows.append([f"V{f['index']}", f["label"], f["law"]["plain"], h["kind"], h["plain"],
                     h["latex"], m["kind"], m["plain"], m["latex"], m["reason"]])
    return csv_text(header, rows)


def general_json(table: dict) -> str:
    return json_text(table)
