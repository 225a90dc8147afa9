r"""MI(C; V_S) when the features reveal everything the class uses except the sign of one
symmetric base variable: H(C) - ln 2 * P(|L| < |a| |Y - m|), one certified integral.

Setting. The class is ``C = 1{L + a (Y - m) >= 0}`` with L an affine form of base variables
other than Y (the class uses no variable outside the features' ones), Y's law symmetric about
m, and the reflection tau: Y -> 2m - Y fixes every feature, while the features determine L and
|Y - m| (:func:`fstheory.theory.determination.determines`). tau preserves the joint law of the
independent base variables and fixes V_S, so given V_S the sign of Y - m is + or - with
probability 1/2 each, and with R = |Y - m| (known given V_S)

.. math::

    P(C = 1 \mid V_S) = \tfrac12\big(1\{L + |a| R \ge 0\} + 1\{L - |a| R \ge 0\}\big)
    \in \{0, \tfrac12, 1\},

equal to 1/2 exactly where |L| < |a| R. So H(C | V_S) = ln 2 * P(|L| < |a| |Y - m|), and with
L independent of Y, by the symmetry of Y,

.. math::

    P = 2 \int_m^\infty f_Y(y)\,\big(F_L(|a|(y - m)) - F_L(-|a|(y - m))\big)\,dy,

integrated by certified quadrature (arb's ``acb.integral``) on the pieces between Y's
breakpoints and the points where ``+-|a| (y - m)`` meets a breakpoint of L's law (the law of L
from the convolution algebra, :func:`fstheory.theory.univariate.linear_combination`); Y is cut at
a box of mass 1 - eps, the integrand being at most 2 f_Y, which adds at most 2 eps (in the
radius).

Example: mixed.toml, C = 1{X + kY + Z >= 0} with Y ~ N(0, 1): the set {X + Z, Y^2} reveals
L = X + Z and |Y|.

>>> import sympy as sp
>>> from fstheory.theory.laws import Normal, Uniform
>>> from fstheory.theory.determination import ClassEvent
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y = sp.symbols("X Y", real=True)
>>> laws = {X: Uniform(-1, 1), Y: Normal(0, 1)}
>>> fold = sign_fold([X, Y**2], ClassEvent(X + Y, 0), laws)
>>> fold.variable, fold.weight
(Y, 1)
>>> with flint_precision(80):   # P(|X| < |Y|) = 2 (phi(0) - phi(1)) + 2 Phi(-1)
...     print(disagreement_ball(fold, laws).str(12, radius=False))
0.631253619627
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from flint import arb

from fstheory.theory import determination as det
from fstheory.theory.balls import NoEnclosure
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.quadrature import QuadratureError, certified
from fstheory.theory.univariate import Accuracy, Unsupported, base_law, linear_combination

__all__ = ["SignFold", "sign_fold", "disagreement_ball"]


@dataclass(frozen=True)
class SignFold:
    """``variable`` = Y, its centre ``centre`` = m, the class's ``weight`` a of Y, and the
    rest L as (coefficients, constant), exact sympy numbers."""

    variable: sp.Symbol
    centre: sp.Expr
    weight: sp.Expr
    coefs: tuple  # ((base variable, coefficient), ...)
    const: sp.Expr


def sign_fold(exprs, event: det.ClassEvent, laws) -> SignFold | None:
    """The :class:`SignFold` of the features ``exprs`` and the class (module docstring), or
    None when its hypotheses fail."""
    form = sp.expand(sp.sympify(event.expr) - sp.sympify(event.threshold))
    variables = frozenset().union(*(det.bases(e, laws) for e in exprs))
    used = det.bases(form, laws)
    if not used or not used <= variables:
        return None
    for Y in sorted(used, key=str):
        m = laws[Y].center()
        if m is None or not sp.sympify(m).is_number:
            continue
        a = sp.expand(sp.diff(form, Y))
        rest = sp.expand(form - a * (Y - m))
        if det.bases(a, laws) or Y in rest.free_symbols or not det.bases(rest, laws):
            continue
        if not a.is_number or a == 0:
            continue
        if any(sp.expand(e.subs(Y, 2 * m - Y) - e) != 0 for e in exprs):
            continue
        others = sorted(det.bases(rest, laws), key=str)
        lin = linear_parts(rest, others)
        if lin is None or not all(sp.sympify(c).is_number for c in lin[0].values()):
            continue
        if not (det.determines(list(exprs), rest, laws)
                and det.determines(list(exprs), (Y - m) ** 2, laws)):
            continue
        coefs, const = lin
        return SignFold(Y, sp.sympify(m), a, tuple((b, coefs[b]) for b in others), const)
    return None


def _ball(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


def disagreement_ball(fold: SignFold, laws) -> arb:
    """P(|L| < |a| |Y - m|) as a ball at the current precision (module docstring)."""
    from flint import ctx

    from fstheory.theory.arbexpr import compile_expr

    acc = Accuracy.from_bits(ctx.prec)
    try:
        law_l = linear_combination(dict(fold.coefs), fold.const, laws, acc)
        law_y = base_law(laws[fold.variable], acc)
    except Unsupported as exc:
        raise NoEnclosure(str(exc)) from None
    if not (law_l.closed and law_y.closed):
        raise NoEnclosure("a law of the sign fold is not in closed form")
    m = compile_expr(fold.centre, ())()
    w = abs(compile_expr(fold.weight, ())())
    _, hi = law_y.box(acc.eps)
    top = _ball(hi)
    cuts = [m, top]
    for p in list(law_y.breakpoints()) + [law_y.support()[1]]:
        if isinstance(p, Fraction) and m < _ball(p) < top:
            cuts.append(_ball(p))
    ends = [p for p in law_l.support() if isinstance(p, Fraction)]
    for beta in list(law_l.breakpoints()) + ends:
        for s in (1, -1):
            y = m + s * _ball(beta) / w
            if m < y < top:
                cuts.append(y)
    cuts = sorted(cuts, key=lambda b: b.mid())

    def branch(mid):
        f = law_y.pdf_branch(mid)
        u = w * (mid - m)
        up, down = law_l.cdf_branch(u), law_l.cdf_branch(-u)

        def g(z, analytic):
            v = w * (z - m)
            return f(z) * (up(v) - down(-v))

        return g

    try:
        value, radius = certified(branch, cuts, acc.tol)
    except QuadratureError as exc:
        raise NoEnclosure(str(exc)) from None
    return 2 * (value + arb(0, radius)) + arb(0, 2 * acc.eps)
