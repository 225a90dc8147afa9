"""Rendering of a :class:`~fstheory.theory.values.ScenarioValues` for the ``values`` command.

A value the engine could not compute prints as ``not computed`` followed by the reason on the
same line; the JSON lists every such value under ``not_computed`` (quantity and reason).
"""

from __future__ import annotations

from fstheory.scenarios.declaration import param_text
from fstheory.theory.extended import Form
from fstheory.theory.values import ScenarioValues

__all__ = ["values_json", "values_text", "param_text", "missing_values"]


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


def values_json(values: ScenarioValues, digits: int) -> dict:
    """The JSON object of ``fstheory values --json`` (values as decimal strings or +inf/-inf)."""
    return {
        "scenario": values.scenario,
        "params": {k: param_text(v) for k, v in values.params.items()},
        "features": list(values.labels),
        "entropy": [x.text(digits) for x in values.entropy],
        "mi_class": [x.text(digits) for x in values.mi_class],
        "mi_features": [[x.text(digits) for x in row] for row in values.mi_features],
        "not_computed": missing_values(values),
    }


def _cell(x, digits: int) -> str:
    return f"not computed ({x.cause})" if _missing(x) else x.text(digits)


def values_text(values: ScenarioValues, digits: int) -> str:
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
    lines += ["", "MI(Vi, Vj), i > j (finite values; the diagonal is +inf):"]
    for i in range(values.n_features):
        for j in range(i):
            lines.append(
                f"  MI({values.labels[i]}, {values.labels[j]}) = {_cell(values.mi(i, j), digits)}"
            )
    return "\n".join(lines)
