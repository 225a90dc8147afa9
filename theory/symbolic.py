"""From a sympy closed form to a high-precision number: substitution, one-sided limits at the
ends of a parameter's range, and evaluation with mpmath (integrals by ``mpmath.quad``).

Closed forms here may hold unevaluated one-dimensional :class:`sympy.Integral` objects (the
skew-normal expectations of Scenario II); they are evaluated by quadrature over their pieces, with
the working precision given by the caller through ``mpmath.workdps``.

Examples
--------
>>> import sympy as sp
>>> k = sp.Symbol("k", nonnegative=True)
>>> expr = -(1 - k)**2 * sp.log(1 - k) / (4 * k)       # MI(C_k, X-Y), Scenario I
>>> exact_value(expr, {k: sp.Integer(0)}, {k: "+"})    # 0/0 at k = 0: the limit
1/4
>>> import mpmath
>>> with mpmath.workdps(20):
...     print(mp_value(exact_value(expr, {k: sp.Rational(1, 5)}, {})))
0.17851484105136780461
"""

from __future__ import annotations

from functools import lru_cache

import mpmath
import sympy as sp

__all__ = ["exact_value", "mp_value", "limit_expr", "is_exact_zero", "exact_nsimplify", "GUARD_DIGITS"]

#: Extra decimal digits carried in every evaluation beyond the digits reported.
GUARD_DIGITS = 12


def _singular(expr: sp.Expr) -> bool:
    return expr.has(sp.zoo, sp.nan)


def exact_value(expr: sp.Expr, subs: dict, limit_dirs: dict) -> sp.Expr:
    """Substitute exact parameter values; where that is singular, take the one-sided limit.

    Parameters
    ----------
    expr : sympy expression in parameter symbols
    subs : dict symbol -> exact value
    limit_dirs : dict symbol -> '+' or '-'
        For parameters sitting at an end of their range (k = 0 or k = 1), the side from which the
        closed form is approached. The limit is taken only if plain substitution is singular
        (0/0, 0*inf, log 0 ...), one parameter at a time, the others substituted first.
    """
    expr = sp.sympify(expr)
    direct = expr.subs(subs)
    if not _singular(direct):
        return direct
    at_end = [s for s in limit_dirs if s in subs and s in expr.free_symbols]
    rest = {s: v for s, v in subs.items() if s not in at_end}
    partial = expr.subs(rest)
    for s in at_end:
        partial = limit_expr(partial, s, subs[s], limit_dirs[s])
    if _singular(partial):
        raise ArithmeticError(f"closed form {expr} has no limit at {subs}")
    return partial


def limit_expr(expr: sp.Expr, sym: sp.Symbol, point, direction: str) -> sp.Expr:
    """One-sided limit, passed under integral signs (dominated convergence).

    Integrals over the real line are split at 0 and the integration variable made positive, so
    that sympy can take the pointwise limit of the integrand (e.g. Phi(u/k) -> 1 for u > 0 as
    k -> 0+). Our integrands are bounded by an integrable function uniformly in the parameter
    (|integrand| <= 2 phi(u) ln 2 for the skew-normal expectations), which justifies the swap.
    """
    if isinstance(expr, sp.Integral):
        return _limit_integral(expr, sym, point, direction)
    if expr.has(sp.Integral) and isinstance(expr, (sp.Add, sp.Mul)):
        parts = [limit_expr(arg, sym, point, direction) for arg in expr.args]
        return expr.func(*parts)
    return sp.limit(expr, sym, point, direction)


def _limit_integral(expr: sp.Integral, sym, point, direction) -> sp.Expr:
    if len(expr.limits) != 1:
        raise NotImplementedError("limits of multiple integrals")
    var, lo, hi = expr.limits[0]
    f = expr.function
    pos = sp.Dummy("t", positive=True)
    pieces = []
    if lo == -sp.oo and hi == sp.oo:
        pieces = [(f.subs(var, pos), 0, sp.oo), (f.subs(var, -pos), 0, sp.oo)]
    elif lo == 0 and hi == sp.oo:
        pieces = [(f.subs(var, pos), 0, sp.oo)]
    else:
        raise NotImplementedError(f"limit of an integral over [{lo}, {hi}]")
    out = sp.Integer(0)
    for g, a, b in pieces:
        lim = sp.limit(g, sym, point, direction)
        out += sp.Integral(lim, (pos, a, b))
    return out


def exact_nsimplify(expr) -> sp.Expr:
    """``sympy.nsimplify`` for expressions holding Floats; an exact expression is returned as it
    is. nsimplify replaces an exact number by a guess good to about 15 digits: a rational with a
    large denominator (a parameter such as k = m / 2^108, a point of an atlas sweep) came back as
    ``2**(249/907)*3**(17/907)*5**(740/907)*7**(831/907)/42``, 1.5e-18 away.

    >>> k = sp.Rational(210927573050724737307704396943683, 2**108)
    >>> exact_nsimplify(k) == k, exact_nsimplify(sp.Float("0.25"))
    (True, 1/4)
    """
    expr = sp.sympify(expr)
    return sp.nsimplify(expr) if expr.has(sp.Float) else expr


def is_exact_zero(expr: sp.Expr) -> bool:
    """True when a numeric sympy expression is exactly zero (decided symbolically)."""
    expr = sp.sympify(expr)
    if expr.is_zero:
        return True
    if expr.has(sp.Integral):
        return False
    if expr.is_zero is False:
        return False
    return sp.simplify(expr) == 0


@lru_cache(maxsize=4096)
def _lambdified(var: tuple, body: sp.Expr):
    return sp.lambdify(var, body, modules="mpmath")


def _quad_integral(integral: sp.Integral) -> mpmath.mpf:
    if len(integral.limits) != 1:
        raise NotImplementedError("only one-dimensional integrals are evaluated")
    var, lo, hi = integral.limits[0]
    lo_v = mpmath.mpf(sp.N(lo, mpmath.mp.dps)) if lo.is_finite else -mpmath.inf
    hi_v = mpmath.mpf(sp.N(hi, mpmath.mp.dps)) if hi.is_finite else mpmath.inf
    body = integral.function
    if body.has(sp.Integral):
        inner = sp.Lambda(var, body)
        f = lambda t: mp_value(inner(t))  # noqa: E731 - nested integrals (rare)
    else:
        f = _lambdified((var,), body)
    pts = [lo_v, hi_v]
    if lo_v == -mpmath.inf and hi_v == mpmath.inf:
        pts = [lo_v, mpmath.mpf(0), hi_v]
    return mpmath.quad(f, pts)


def mp_value(expr: sp.Expr) -> mpmath.mpf:
    """Evaluate a parameter-free closed form at the current mpmath precision.

    Integrals are computed by tanh-sinh quadrature (``mpmath.quad``) over their range, split at
    0 for the whole real line; the rest by sympy's arbitrary-precision ``evalf``.
    """
    expr = sp.sympify(expr)
    if expr.free_symbols:
        raise ValueError(f"closed form still has free symbols: {expr.free_symbols}")
    dps = mpmath.mp.dps
    if expr.has(sp.Integral):
        ints = {i: sp.Float(_quad_integral(i), dps) for i in expr.atoms(sp.Integral)}
        expr = expr.xreplace(ints)
    value = sp.N(expr, dps)
    if not value.is_real:
        raise ArithmeticError(f"closed form is not real: {expr}")
    return mpmath.mpf(value)
