"""The class rules that Scenarios I and III share, recognised by content: C = 1{A + k B >= 0}
with A, B two base variables of one law (centred uniform, centred Laplace), k in [0, 1], and a
feature that is a non-constant affine function of A, of B or of A - B. Their MIs with the class
are functions of k alone (:mod:`fstheory.theory.uniform_class`,
:mod:`fstheory.theory.laplace_class`), whether the scenario is registered or read from a file.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["recognise_pair"]


def recognise_pair(scenario, fixed: dict, feature: sp.Expr, swept, same_law):
    """(which, k) with which "X" (``feature`` = c A + e), "Y" (c B + e) or "X-Y" (c (A - B) + e),
    c a nonzero number, e free of A and B, when the class rule of ``scenario`` is 1{A + k B >= 0}
    with ``same_law(law_A, law_B)`` true for A's and B's laws, k the swept symbol ``swept`` (a
    parameter with domain [0, 1]) or a number in [0, 1] once ``fixed`` (parameter symbol ->
    value) is substituted. None otherwise."""
    rule = scenario.class_rule
    if not rule.is_linear or sp.sympify(rule.threshold).subs(fixed) != 0:
        return None
    weights = {b: sp.sympify(w).subs(fixed) for b, w in rule.weights.items()}
    if len(weights) != 2:
        return None
    (a, wa), (b, wb) = weights.items()
    if wa != 1:
        (a, wa), (b, wb) = (b, wb), (a, wa)
    if wa != 1:
        return None
    if swept is not None and wb == swept:
        names = [n for n, s in scenario.symbols.items() if s == swept]
        if len(names) != 1 or scenario.parameter(names[0]).domain != "unit":
            return None
    elif not (wb.is_Rational and 0 <= wb <= 1):
        return None
    laws = [scenario.base[s].subs(fixed) for s in (a, b)]
    if not same_law(*laws):
        return None
    expr = sp.expand(sp.sympify(feature).subs(fixed))
    if expr.free_symbols & (set(scenario.base) - {a, b}):
        return None
    try:
        poly = sp.Poly(expr, a, b)
    except sp.PolynomialError:
        return None
    if poly.total_degree() != 1:
        return None
    ca, cb = poly.coeff_monomial(a), poly.coeff_monomial(b)
    if ca.free_symbols or cb.free_symbols:
        return None
    which = ("X" if cb == 0 else "Y" if ca == 0 else "X-Y" if ca == -cb else None)
    return (which, wb) if which else None
