"""What a feature expression is, as a map of the base variables: its kind, where it is defined,
where it is monotone, and which points share its value (level-set maps).

* :func:`classify` -- ``"constant"``, ``"linear"`` (an affine combination of base variables),
  ``"single"`` (a nonlinear function of one base variable), ``"product"`` (``c B1 B2 + e``) or
  ``"general"`` (defined in :mod:`fstheory.theory.structure`, the one classifier of features).
* :func:`level_maps` -- for ``g`` of one variable on an interval: the affine maps
  ``y = m x + q`` with ``g(y) = g(x)`` (the identity first). ``g`` is split at its critical points
  (zeros of ``g'``, kinks of ``|.|``); one monotone piece gives the identity only; two pieces
  exchanged by the reflection about the critical point ``c`` (``g(2c - x) = g(x)``: ``x^2``,
  ``|x|``, ``(x - c)^2``, ``exp(-x^2)``) add ``y = 2c - x``; pieces with disjoint images keep the
  map injective. Anything else is refused (its level sets are not affine maps).
* :func:`undefined_reason` -- why a feature is not real on part of the support of its base
  variables (``log(Y)``, ``sqrt(Y)`` with Y normal), or None.

Monotonicity is decided from the sign of the derivative (sympy's assumptions, then a solveset
over the support), never by solving ``g(y) = g(x)``; every symbolic step runs inside the
symbolic time budget (:mod:`fstheory.theory.budget`).

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> level_maps(x**2, x, -sp.oo, sp.oo)
[(1, 0), (-1, 0)]
>>> level_maps(sp.exp(x), x, -sp.oo, sp.oo)
[(1, 0)]
>>> level_maps((x - 1)**2, x, 0, 3)
[(1, 0), (-1, 2)]
>>> undefined_reason(sp.log(x), x, -sp.oo, sp.oo)
'log(x) is not real where x <= 0, which has positive probability'
"""

from __future__ import annotations

import sympy as sp

from fstheory.theory.budget import SymbolicTimeout, symbolic_budget
from fstheory.theory.structure import bases_of, classify

__all__ = [
    "FeatureUnsupported",
    "classify",
    "bases_of",
    "level_maps",
    "critical_points",
    "undefined_reason",
    "domain_problem",
]

#: budget of one symbolic step on a feature
SECONDS = 10.0


class FeatureUnsupported(ValueError):
    """A feature whose level sets or domain this engine cannot handle (with the reason)."""


def _budget(what):
    return symbolic_budget(SECONDS, what)


def critical_points(g, x, lo, hi) -> list:
    """Sorted points of (lo, hi) where g is not strictly monotone: zeros of g' and kinks."""
    g = sp.sympify(g)
    dg = sp.diff(g, x)
    interval = sp.Interval.open(lo, hi)
    pts = set()
    try:
        with _budget(f"the critical points of {g}"):
            for a in g.atoms(sp.Abs):
                kinks = sp.solveset(a.args[0], x, interval)
                if kinks is sp.S.EmptySet:
                    continue
                if not isinstance(kinks, sp.FiniteSet):
                    raise FeatureUnsupported(f"{g}: |{a.args[0]}| vanishes on a set that is not finite")
                pts |= set(kinks)
            smooth = dg.replace(lambda e: isinstance(e, sp.sign), lambda e: sp.Integer(1))
            if _sign_known(dg, x, lo, hi):
                crit = sp.S.EmptySet
            else:
                crit = sp.solveset(sp.Eq(smooth, 0), x, interval) if not g.atoms(sp.Abs) else \
                    _piecewise_zeros(dg, x, lo, hi, sorted(pts, key=float))
            if isinstance(crit, sp.ConditionSet) or not isinstance(crit, (sp.FiniteSet, type(sp.S.EmptySet))):
                raise FeatureUnsupported(f"{g}: cannot find where its derivative {dg} vanishes")
            pts |= set(crit)
    except SymbolicTimeout as exc:
        raise FeatureUnsupported(f"{g}: {exc}") from None
    return sorted((p for p in pts if p.is_real), key=lambda p: float(p))


def _piecewise_zeros(dg, x, lo, hi, kinks):
    """Zeros of g' when g has |.|: on each piece between kinks, |a| is +-a."""
    ends = [lo, *kinks, hi]
    out = set()
    for a, b in zip(ends, ends[1:]):
        mid = _midpoint(a, b)
        piece = dg.replace(lambda e: isinstance(e, sp.Abs),
                           lambda e, mid=mid: sp.sign(e.args[0].subs(x, mid)) * e.args[0])
        piece = piece.replace(lambda e: isinstance(e, sp.sign),
                              lambda e, mid=mid: sp.sign(e.args[0].subs(x, mid)))
        zeros = sp.solveset(sp.Eq(piece, 0), x, sp.Interval.open(a, b))
        if not isinstance(zeros, sp.FiniteSet) and zeros is not sp.S.EmptySet:
            return sp.ConditionSet(x, sp.Eq(piece, 0), sp.Interval.open(a, b))
        out |= set(zeros)
    return sp.FiniteSet(*out)


def _midpoint(a, b):
    if a == -sp.oo and b == sp.oo:
        return sp.Integer(0)
    if a == -sp.oo:
        return b - 1
    if b == sp.oo:
        return a + 1
    return (a + b) / 2


def _sign_known(dg, x, lo, hi) -> bool:
    """True when sympy proves g' > 0 or g' < 0 on the whole support (e.g. exp(x), x^3 + x)."""
    if dg.atoms(sp.Abs, sp.sign):
        return False
    t = sp.Symbol("t_", positive=True)
    if lo != -sp.oo and hi == sp.oo:
        e = dg.subs(x, lo + t)
    elif lo == -sp.oo and hi != sp.oo:
        e = dg.subs(x, hi - t)
    elif lo == -sp.oo and hi == sp.oo:
        e = dg.subs(x, sp.Symbol("r_", real=True))
    else:
        return False
    e = sp.simplify(e)
    return bool(e.is_positive) or bool(e.is_negative)


def level_maps(g, x, lo, hi) -> list:
    """Affine maps (m, q), y = m x + q, with g(y) = g(x) on (lo, hi); identity first."""
    g = sp.sympify(g)
    crit = critical_points(g, x, lo, hi)
    if not crit:
        return [(sp.Integer(1), sp.Integer(0))]
    try:
        with _budget(f"the level sets of {g}"):
            if len(crit) == 1:
                c = crit[0]
                if sp.simplify(g.subs(x, 2 * c - x) - g) == 0:
                    return [(sp.Integer(1), sp.Integer(0)), (sp.Integer(-1), 2 * c)]
            if _disjoint_images(g, x, [lo, *crit, hi]):
                return [(sp.Integer(1), sp.Integer(0))]
    except SymbolicTimeout as exc:
        raise FeatureUnsupported(f"{g}: {exc}") from None
    raise FeatureUnsupported(
        f"{g} takes each value at points not related by a reflection (its level sets are not "
        f"affine maps of x; supported: monotone functions and functions symmetric about one point)")


def _disjoint_images(g, x, ends) -> bool:
    ranges = []
    for a, b in zip(ends, ends[1:]):
        va = sp.limit(g, x, a, "+") if a in (-sp.oo,) else g.subs(x, a)
        vb = sp.limit(g, x, b, "-") if b in (sp.oo,) else g.subs(x, b)
        lo, hi = sorted((va, vb), key=lambda v: float(v) if v.is_finite else (1e308 if v == sp.oo else -1e308))
        ranges.append((lo, hi))
    ranges.sort(key=lambda r: float(r[0]) if r[0].is_finite else -1e308)
    for (_a1, b1), (a2, _b2) in zip(ranges, ranges[1:]):
        if not bool(b1 <= a2):
            return False
    return True


def undefined_reason(expr, x, lo, hi) -> str | None:
    """Why ``expr`` (of the base variable x with support (lo, hi)) is not real on a set of
    positive probability, or None when it is defined almost everywhere."""
    expr = sp.sympify(expr)
    for sub in sp.preorder_traversal(expr):
        arg = None
        if isinstance(sub, sp.log):
            arg, what = sub.args[0], f"{sub} is not real where {sub.args[0]} <= 0"
        elif isinstance(sub, sp.Pow) and sub.exp.is_Rational and sub.exp.q % 2 == 0:
            arg, what = sub.base, f"{sub} is not real where {sub.base} < 0"
        if arg is None or x not in arg.free_symbols:
            continue
        low = _lower_bound(arg, x, lo, hi)
        if low is None:
            return f"cannot decide where {sub} is real (expected log and sqrt of expressions that stay >= 0)"
        if bool(low < 0):
            return f"{what}, which has positive probability"
    return None


def _lower_bound(arg, x, lo, hi):
    try:
        with _budget(f"the range of {arg}"):
            from sympy.calculus.util import minimum

            return minimum(arg, x, sp.Interval(lo, hi))
    except (SymbolicTimeout, NotImplementedError, ValueError, TypeError):
        return None


def _restricted(sub):
    """(argument, what) when ``sub`` is real only where its argument is >= 0 (log, even roots)."""
    if isinstance(sub, sp.log):
        return sub.args[0], f"{sub} is not real where {sub.args[0]} <= 0"
    if isinstance(sub, sp.Pow) and sub.exp.is_Rational and sub.exp.q % 2 == 0:
        return sub.base, f"{sub} is not real where {sub.base} < 0"
    return None, None


def domain_problem(expr, laws: dict) -> str | None:
    """Why ``expr`` (bound parameters) is not real with positive probability under ``laws``, or
    None. Arguments of log and of even roots must stay >= 0 on the product of the supports
    (zeros on a null set are harmless); one-variable arguments are minimised with sympy, linear
    ones over the box of supports; others cannot be decided (a reason is returned)."""
    expr = sp.sympify(expr)
    for sub in sp.preorder_traversal(expr):
        arg, what = _restricted(sub)
        if arg is None:
            continue
        used = sorted(bases_of(arg, laws), key=str)
        if not used:
            if arg.is_number and bool(arg < 0):
                return f"{sub} is not real"
            continue
        if len(used) == 1:
            (b,) = used
            lo, hi = laws[b].support()
            why = undefined_reason(sub, b, lo, hi)
            if why:
                return why
            continue
        lin = {b: sp.diff(arg, b) for b in used}
        if any(c.free_symbols & set(used) for c in lin.values()):
            return f"cannot decide where {sub} is real (expected log and sqrt of one variable or of a linear form)"
        low = arg.subs({b: 0 for b in used})
        for b, c in lin.items():
            lo, hi = laws[b].support()
            low += min(c * lo, c * hi, key=lambda t: float(t) if t.is_finite else (-1e308 if t == -sp.oo else 1e308))
        if low == -sp.oo or bool(low < 0):
            return f"{what}, which has positive probability"
    return None
