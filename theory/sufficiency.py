r"""A one-dimensional sufficient statistic of a set of features for the class.

Let the base variables be independent, B the base variables the features V_S depend on, R the
others, and let the class form split additively as ``g(B, R) = L(B) + M(R)`` (every term of the
expanded form uses variables of B only or of R only). Then, given L = L(B), the class
``C = 1{L + M(R) >= 0}`` depends only on R, which is independent of B and so of V_S:
C and V_S are conditionally independent given L. If moreover L is a function of V_S,

.. math::

    P(C = 1 \mid V_S) = P(C = 1 \mid L), \qquad MI(C; V_S) = MI(C; L)

(the data-processing inequality both ways: MI(C; V_S) >= MI(C; L) since L is a function of V_S,
and MI(C; V_S) <= MI(C; V_S, L) = MI(C; L) + MI(C; V_S | L) = MI(C; L); Cover & Thomas,
Thm 2.8.1). So the MI of a set of features that reveals the class's part L of its variables is
the MI of the class with the one feature L, a one-dimensional quantity.

Examples: C = 1{X + kY + Z >= 0} with independent X, Y, Z; the set {X, Y} gives L = X + kY,
{X, X + Z} gives L = X + Z (the feature itself). The set {X, X + Y + Z} does not qualify: its
variables are X, Y, Z, where L is the whole form, which (X, X + Y + Z) does not determine.

>>> import sympy as sp
>>> from fstheory.theory.laws import Uniform
>>> from fstheory.theory.determination import ClassEvent
>>> X, Y, Z = sp.symbols("X Y Z", real=True)
>>> laws = {s: Uniform(-1, 1) for s in (X, Y, Z)}
>>> event = ClassEvent(X + Y / 3 + Z, 0)
>>> sufficient_form([X, Y**3], event, laws)
X + Y/3
>>> sufficient_form([X, X + Z], event, laws)
X + Z
>>> sufficient_form([X, X + Y + Z], event, laws) is None
True
>>> sufficient_form([X, Y], ClassEvent(X * Y + Z, 0), laws) is None  # L = X*Y: not 1-D
True
"""

from __future__ import annotations

import sympy as sp

from fstheory.theory import determination as det
from fstheory.theory.law_algebra import linear_parts

__all__ = ["sufficient_form"]


def class_part(variables: frozenset, event: det.ClassEvent, laws) -> sp.Expr | None:
    """L: the terms of the class form that use the base variables ``variables``, when the form
    splits additively into L + (terms free of them); None when a term mixes both, when no term
    uses them, or when every base variable of the class is among them (no variable left outside:
    the class is then a function of L)."""
    form = sp.expand(sp.sympify(event.expr) - sp.sympify(event.threshold))
    inside, outside = [], []
    for term in sp.Add.make_args(form):
        used = det.bases(term, laws)
        if not used:
            continue  # the constant goes with the rest
        if used <= variables:
            inside.append(term)
        elif used.isdisjoint(variables):
            outside.append(term)
        else:
            return None
    if not inside or not outside:
        return None
    return sp.Add(*inside)


def sufficient_form(exprs, event: det.ClassEvent, laws) -> sp.Expr | None:
    """L of the module docstring when it exists, is affine in its base variables or a function
    of one of them (a one-dimensional law the single-feature route integrates directly; a
    product such as X*Y is left to the route on the set), and is proven a function of
    ``exprs`` (:func:`fstheory.theory.determination.determines`); else None."""
    variables = frozenset().union(*(det.bases(e, laws) for e in exprs))
    L = class_part(variables, event, laws)
    if L is None:
        return None
    used = sorted(det.bases(L, laws), key=str)
    if len(used) > 1 and linear_parts(L, used) is None:
        return None
    if not det.determines(list(exprs), L, laws):
        return None
    return L
