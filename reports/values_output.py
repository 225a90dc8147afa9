"""Rendering of a :class:`~fstheory.engine.values.ScenarioValues` for the ``values`` command.

With ``joint=True`` the JSON object gains ``h_class`` (H(C)) and four n x n matrices,
``mi_class_joint`` (MI(C; {Vi, Vj}), diagonal MI(C, Vi)), ``cmi_class`` (MI(C; Vi | Vj), diagonal
0), ``mi_features_given_class`` (MI(Vi; Vj | C), diagonal +inf) and ``joint_entropy_class``
(H(Vi, Vj, C)), with the same string conventions ("+inf", "-inf", decimal strings, "not
computed"), and ``joint_not_computed``: for every cell not computed, the matrix, the 0-based
cell and the reason. The plain text shows the four matrices as tables.

A value the engine could not compute prints as ``not computed`` followed by the reason on the
same line; the JSON lists every such value under ``not_computed`` (quantity and reason).
"""

from __future__ import annotations

from fstheory.scenarios.declaration import param_text
from fstheory.theory.extended import Form
from fstheory.engine.values import ScenarioValues

__all__ = ["values_json", "values_text", "param_text", "missing_values", "JOINT_MATRICES", "TABLE_DIGITS"]

#: (JSON key, JointValues attribute, title) of the joint matrices, in output order
JOINT_MATRICES = (
    ("mi_class_joint", "mi_class_pair", "MI(C;{Vi,Vj}) (diagonal: MI(C,Vi))"),
    ("cmi_class", "cmi_class", "MI(C;Vi|Vj) (row i, column j; diagonal 0)"),
    ("mi_features_given_class", "mi_given_class", "MI(Vi;Vj|C) (diagonal +inf)"),
    ("joint_entropy_class", "h_pair_class", "H(Vi,Vj,C)"),
)

#: significant digits of the plain-text joint tables (the JSON carries every digit)
TABLE_DIGITS = 8


def _missing(x) -> bool:
    return x.is_indeterminate and x.form is Form.NOT_COMPUTED


def missing_values(values: ScenarioValues) -> list[dict]:
    """The values that are not computed: [{"quantity": "MI(C,X)", "reason": ...}]."""
    out = []
    n = values.n_features
    items = [x for x in values.entropy] + [x for x in values.mi_class]
    items += [values.mi(i, j) for i in range(n) for j in range(i + 1, n)]
    for x in items:
        if _missing(x):
            out.append({"quantity": x.label, "reason": x.cause})
    return out


def values_json(values: ScenarioValues, digits: int, joint: bool = False) -> dict:
    """The JSON object of ``fstheory values --json`` (values as decimal strings or +inf/-inf)."""
    out = {
        "scenario": values.scenario,
        "params": {k: param_text(v) for k, v in values.params.items()},
        "features": list(values.labels),
        "entropy": [x.text(digits) for x in values.entropy],
        "mi_class": [x.text(digits) for x in values.mi_class],
        "mi_features": [[x.text(digits) for x in row] for row in values.mi_features],
        "not_computed": missing_values(values),
    }
    if joint:
        jv = values.joint_values()
        out["h_class"] = jv.h_class.text(digits)
        missing = []
        for key, attr, _ in JOINT_MATRICES:
            m = getattr(jv, attr)
            out[key] = [[x.text(digits) for x in row] for row in m]
            missing += [{"matrix": key, "cell": [i, j], "reason": x.cause}
                        for i, row in enumerate(m) for j, x in enumerate(row)
                        if x.is_indeterminate]
        if jv.h_class.is_indeterminate:
            missing.insert(0, {"matrix": "h_class", "cell": None, "reason": jv.h_class.cause})
        out["joint_not_computed"] = missing
    return out


def _cell(x, digits: int) -> str:
    return f"not computed ({x.cause})" if _missing(x) else x.text(digits)


def _table(labels, matrix, digits: int) -> list[str]:
    cells = [[x.text(digits) for x in row] for row in matrix]
    names = [f"V{i + 1} {label}" for i, label in enumerate(labels)]
    w0 = max(len(n) for n in names)
    w = max(max(len(c) for row in cells for c in row), max(len(f"V{j + 1}") for j in range(len(labels))))
    head = " " * w0 + "  " + "  ".join(f"{'V' + str(j + 1):>{w}}" for j in range(len(labels)))
    return [head] + [f"{n:<{w0}}  " + "  ".join(f"{c:>{w}}" for c in row)
                     for n, row in zip(names, cells)]


def values_text(values: ScenarioValues, digits: int, joint: bool = False) -> str:
    params = ", ".join(f"{k}={param_text(v)}" for k, v in values.params.items())
    lines = [f"scenario {values.scenario} ({params}); {digits} significant digits", ""]
    w = max(len(s) for s in values.labels) + 4
    lines.append(f"{'feature':<{w}}  {'h(V)':<{digits + 8}}  MI(C,V)")
    for i, label in enumerate(values.labels):
        h = values.entropy[i]
        h_text = "not computed (see below)" if _missing(h) else h.text(digits)
        lines.append(
            f"{'V' + str(i + 1) + ' ' + label:<{w}}  {h_text:<{digits + 8}}"
            f"  {_cell(values.mi_class[i], digits)}"
        )
        if _missing(h):
            lines.append(f"{'':<{w}}  h({label}) not computed: {h.cause}")
    lines += ["", "MI(Vi, Vj), i > j (each MI(Vi, Vi) is +inf):"]
    for i in range(values.n_features):
        for j in range(i):
            lines.append(
                f"  MI({values.labels[i]}, {values.labels[j]}) = {_cell(values.mi(i, j), digits)}"
            )
    if joint:
        lines += _joint_text(values, digits)
    return "\n".join(lines)


def _joint_text(values: ScenarioValues, digits: int) -> list[str]:
    jv = values.joint_values()
    shown = min(digits, TABLE_DIGITS)
    lines = ["", f"H(C) = {jv.h_class.text(digits)}"
             + (f"  ({jv.h_class.cause})" if jv.h_class.is_indeterminate else "")]
    reasons: list[str] = []
    for _, attr, title in JOINT_MATRICES:
        m = getattr(jv, attr)
        lines += ["", f"{title}, {shown} significant digits (--json for {digits}):"]
        lines += _table(values.labels, m, shown)
        for row in m:
            for x in row:
                if x.is_indeterminate and x.cause not in reasons:
                    reasons.append(x.cause)
    if reasons:
        lines += ["", "Not computed:"] + [f"  {r}" for r in reasons]
    return lines
