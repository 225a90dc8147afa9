"""Rendering of a :class:`~fstheory.theory.values.ScenarioValues` for the ``values`` command."""

from __future__ import annotations

from fstheory.scenarios.declaration import param_text
from fstheory.theory.values import ScenarioValues

__all__ = ["values_json", "values_text", "param_text"]


def values_json(values: ScenarioValues, digits: int) -> dict:
    """The JSON object of ``fstheory values --json`` (values as decimal strings or +inf/-inf)."""
    return {
        "scenario": values.scenario,
        "params": {k: param_text(v) for k, v in values.params.items()},
        "features": list(values.labels),
        "entropy": [x.text(digits) for x in values.entropy],
        "mi_class": [x.text(digits) for x in values.mi_class],
        "mi_features": [[x.text(digits) for x in row] for row in values.mi_features],
    }


def values_text(values: ScenarioValues, digits: int) -> str:
    params = ", ".join(f"{k}={param_text(v)}" for k, v in values.params.items())
    lines = [f"scenario {values.scenario} ({params}); {digits} significant digits", ""]
    w = max(len(s) for s in values.labels) + 4
    lines.append(f"{'feature':<{w}}  {'h(V)':<{digits + 8}}  MI(C,V)")
    for i, label in enumerate(values.labels):
        lines.append(
            f"{'V' + str(i + 1) + ' ' + label:<{w}}  {values.entropy[i].text(digits):<{digits + 8}}"
            f"  {values.mi_class[i].text(digits)}"
        )
    lines += ["", "MI(Vi, Vj), i > j (finite values; the diagonal is +inf):"]
    for i in range(values.n_features):
        for j in range(i):
            lines.append(
                f"  MI({values.labels[i]}, {values.labels[j]}) = {values.mi(i, j).text(digits)}"
            )
    return "\n".join(lines)
