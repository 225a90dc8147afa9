"""Evaluate a bound scenario: every entropy and MI as an extended real, to the requested digits.

Closed forms (:mod:`fstheory.scenarios.derive`) are evaluated exactly where possible (sympy, with
one-sided limits at the ends of a parameter's range) and then numerically with mpmath at
``digits + GUARD_DIGITS`` significant digits; quantities with no closed form go to the numerical
route (:mod:`fstheory.theory.numeric`); a quantity outside that route's reach is reported as "not
computed" (:data:`fstheory.theory.extended.Form.NOT_COMPUTED`), never guessed. Each value is labelled ("h(X)", "MI(C,X)", "MI(X,X-Y)") so that the
extended-real arithmetic of the orderings can say which term made an objective indeterminate.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=10)
>>> v.entropy[0].text(10), v.mi_class[0].text(10), v.mi(0, 3).text(10)
('0', '0.5931471806', '0.5000000000')
>>> v.mi(0, 1).text(), v.mi_class[7].text()
('+inf', '0')
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.scenarios.declaration import BoundScenario
from fstheory.scenarios.derive import Derivation, derive
from fstheory.scenarios.evaluate_joint import joint_source
from fstheory.theory import numeric
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr
from fstheory.theory.symbolic import GUARD_DIGITS, exact_value, is_exact_zero, mp_value
from fstheory.theory.values import ScenarioValues

__all__ = ["evaluate", "limit_directions"]


def limit_directions(bound: BoundScenario) -> dict:
    """Parameters at an end of a closed range ([0, 1]) and the side to approach them from."""
    out = {}
    for p in bound.scenario.parameters:
        if p.domain == "unit":
            v = bound.params[p.name]
            if v == 0:
                out[p.symbol] = "+"
            elif v == 1:
                out[p.symbol] = "-"
    return out


def _closed_value(d: Derivation, bound: BoundScenario, dirs: dict) -> tuple[ExtendedReal, str]:
    exact = exact_value(d.expr, bound.subs, dirs)
    if exact == sp.oo:
        return POS_INF, d.reason
    if exact == -sp.oo:
        return NEG_INF, d.reason
    if is_exact_zero(exact):
        return xr(0), f"{d.reason}; exactly 0"
    return xr(mp_value(exact)), d.reason


def _value(d: Derivation, bound, dirs, numeric_fn) -> tuple[ExtendedReal, str]:
    if d.kind == "structure":
        return (POS_INF if d.expr == sp.oo else xr(0)), d.reason
    if d.kind == "closed":
        return _closed_value(d, bound, dirs)
    try:
        result = numeric_fn()
    except numeric.NumericUnsupported as exc:
        why = f"the numerical route cannot compute it reliably ({exc})"
        return ExtendedReal.indeterminate(Form.NOT_COMPUTED, why), f"not computed: {why}"
    return result.as_extended(), f"{d.reason} ({result.describe()})"


def evaluate(bound: BoundScenario, digits: int = 30) -> ScenarioValues:
    """All entropies and MIs of ``bound`` with ``digits`` significant digits."""
    if not isinstance(digits, int) or digits < 1 or digits > 100:
        raise ValueError(f"digits must be an integer in [1, 100] (got {digits!r})")
    der = derive(bound.scenario)
    labels = bound.display_labels()
    dirs = limit_directions(bound)
    exprs = bound.feature_exprs()
    laws = bound.laws()
    weights, threshold = bound.class_weights(), bound.class_threshold()
    n = len(labels)
    prov: dict = {}
    with mpmath.workdps(digits + GUARD_DIGITS):
        route = numeric.NumericRoute(laws)
        entropy, mi_class = [], []
        for i in range(n):
            v, why = _value(der.entropy[i], bound, dirs, lambda: route.entropy(exprs[i]))
            entropy.append(v.named(f"h({labels[i]})"))
            prov[("h", i)] = why
            v, why = _value(
                der.mi_class[i], bound, dirs,
                lambda: route.mi_class(exprs[i], weights, threshold),
            )
            mi_class.append(v.named(f"MI(C,{labels[i]})"))
            prov[("mi_c", i)] = why
        matrix = [[None] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                v, why = _value(
                    der.mi_features[i][j], bound, dirs,
                    lambda: route.mi_pair(exprs[i], exprs[j]),
                )
                matrix[i][j] = v.named(f"MI({labels[i]},{labels[j]})")
                matrix[j][i] = v.named(f"MI({labels[j]},{labels[i]})")
                prov[("mi", i, j)] = prov[("mi", j, i)] = why
    return ScenarioValues(
        scenario=bound.scenario.name,
        params=dict(bound.params),
        labels=tuple(labels),
        entropy=tuple(entropy),
        mi_class=tuple(mi_class),
        mi_features=tuple(map(tuple, matrix)),
        digits=digits,
        provenance=prov,
        joint_source=joint_source(bound, digits),  # joint quantities on first use (issue 10)
    )
