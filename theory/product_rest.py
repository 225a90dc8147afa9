"""The law of the product W = X Y of two independent uniform variables, in closed form, as the
"rest" of a class rule ``c(u) + a X Y >= 0`` whose remaining variables X, Y enter only through
their product (C = 1{X Y + k Z >= 1/2} given Z = z: q1 = P(X Y >= 1/2 - k z)).

Formulas. X ~ U(a, b), Y ~ U(c, d), A = (b - a)(d - c). For a real t,

    P(X Y <= t) = (1/A) int_a^b L(x, t) dx,  L(x, t) = |{y in [c, d] : x y <= t}|,

with ``L = clamp(t/x - c, 0, d - c)`` for x > 0 and ``clamp(d - t/x, 0, d - c)`` for x < 0.
Between consecutive points of ``{ac, ad, bc, bd, 0}`` the order of the x-breakpoints
``a, b, 0, t/c, t/d`` does not change, so on each such t-piece the integral is a fixed sum of
pieces ``int (alpha + beta t / x) dx = alpha (x2 - x1) + beta t ln(x2 / x1)`` (x1, x2 of one
sign): an analytic function of t (its logarithms taken of ratios that are positive on the
piece). ``P(X Y >= t)`` is computed the same way from ``(d - c) - L`` (never as 1 minus the
other), and the density is the derivative. For X, Y ~ U(0, 1): ``P(X Y <= t) = t - t ln t``.

Examples
--------
>>> from fractions import Fraction as F
>>> from flint import arb
>>> w = UniformProduct((F(0), F(1)), (F(0), F(1)))
>>> w.cdf(arb("0.25")).str(10, radius=False), w.sf(arb("0.25")).str(10, radius=False)
('0.5965735903', '0.4034264097')
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.balls import ball
from fstheory.theory.law1d import Law1D

__all__ = ["UniformProduct", "uniform_product_rest"]

_T = sp.Symbol("t_", real=True)


def _rat(q: Fraction) -> sp.Rational:
    return sp.Rational(q.numerator, q.denominator)


class UniformProduct(Law1D):
    """The law of X Y for X ~ U(a, b), Y ~ U(c, d) (exact rational ends), see the module
    docstring."""

    closed = True
    depth = 0

    def __init__(self, xs: tuple, ys: tuple):
        (a, b), (c, d) = (tuple(map(Fraction, xs)), tuple(map(Fraction, ys)))
        if not (a < b and c < d):
            raise ValueError("a uniform law needs low < high")
        self.xs, self.ys = (a, b), (c, d)
        corners = sorted({a * c, a * d, b * c, b * d})
        self._lo, self._hi = corners[0], corners[-1]
        pts = set(corners) | ({Fraction(0)} if corners[0] < 0 < corners[-1] else set())
        self._pts = sorted(pts)
        # one analytic formula per t-piece: (cdf, sf, pdf), compiled
        self._pieces = []
        for t0, t1 in zip(self._pts, self._pts[1:]):
            cdf, sf = self._piece_formulas((t0 + t1) / 2)
            pdf = sp.diff(cdf, _T)
            self._pieces.append((t0, t1, *(compile_expr(e, (_T,)) for e in (cdf, sf, pdf))))

    # ----- the formulas --------------------------------------------------------------------------
    def _piece_formulas(self, tm: Fraction):
        """(P(W <= t), P(W >= t)) as sympy expressions in t, valid on the t-piece of tm."""
        (a, b), (c, d) = (tuple(map(_rat, self.xs)), tuple(map(_rat, self.ys)))
        t = _T
        tm = _rat(tm)
        ends = [a, b] + ([sp.Integer(0)] if a < 0 < b else [])
        moving = [t / e for e in (c, d) if e != 0]  # x where t / x reaches c or d
        cands = [(e, e) for e in ends] + [(m, m.subs(t, tm)) for m in moving]
        inside = sorted(((e, v) for e, v in cands if a <= v <= b), key=lambda ev: ev[1])
        below, above = sp.Integer(0), sp.Integer(0)
        width = d - c
        for (x1, v1), (x2, v2) in zip(inside, inside[1:]):
            if not v1 < v2:
                continue
            xm = (v1 + v2) / 2
            # L = |{y : x y <= t}| at the middle of the x-piece decides which formula holds
            y_cut = tm / xm
            if xm > 0:
                low = min(max(y_cut - c, 0), width)  # x y <= t  <=>  y <= t / x
                form = (t / sp.Symbol("x_") - c) if 0 < low < width else low
            else:
                low = min(max(d - y_cut, 0), width)  # y >= t / x
                form = (d - t / sp.Symbol("x_")) if 0 < low < width else low
            below += _integral(form, x1, x2, t)
            above += _integral(width - form, x1, x2, t)
        area = (b - a) * width
        return sp.expand(below / area), sp.expand(above / area)

    # ----- Law1D ---------------------------------------------------------------------------------
    def support(self):
        return self._lo, self._hi

    def breakpoints(self):
        return [p for p in self._pts if self._lo < p < self._hi]

    def _piece(self, x0) -> int:
        m = x0.mid() if isinstance(x0, arb) else arb(x0.real.mid())
        for i, (_t0, t1, *_) in enumerate(self._pieces):
            if m <= ball(t1) or i == len(self._pieces) - 1:
                return i
        return len(self._pieces) - 1

    def _branch(self, x0, which: int):
        i = self._piece(x0)
        f = self._pieces[i][2 + which]
        return lambda z: f(z, analytic=isinstance(z, acb))

    def cdf_branch(self, x0):
        return self._branch(x0, 0)

    def sf_branch(self, x0):
        return self._branch(x0, 1)

    def pdf_branch(self, x0):
        return self._branch(x0, 2)

    def _real(self, x: arb, which: int, below, above) -> arb:
        """The value on a real ball: the union over every piece the ball meets (each formula
        holds on its own piece only; the function is continuous, so the union encloses it),
        the constants outside the support."""
        out = None
        lo, hi = ball(self._lo), ball(self._hi)
        if x.lower() < lo.upper():
            out = _union(out, arb(below))
        if x.upper() > hi.lower():
            out = _union(out, arb(above))
        for t0, t1, *fs in self._pieces:
            if x.upper() >= ball(t0).lower() and x.lower() <= ball(t1).upper():
                # the ball clipped to the piece: the formula is evaluated where it holds
                a_, b_ = max(x.lower(), ball(t0).lower()), min(x.upper(), ball(t1).upper())
                seg = arb((a_ + b_) / 2, (b_ - a_) / 2)
                out = _union(out, fs[which](seg))
        if which < 2 and not out.is_finite():
            # t ln t at a breakpoint (t = 0): the CDF and SF are monotone, so their values at
            # two points just outside the ball enclose them on it
            h = arb(2) ** (-ctx.prec) * (1 + abs(x).upper())
            ends = [self._real(arb(x.lower() - h), which, below, above),
                    self._real(arb(x.upper() + h), which, below, above)]
            out = ends[0].union(ends[1])
        return out

    def cdf(self, x):
        return self._real(x, 0, 0, 1)

    def sf(self, x):
        return self._real(x, 1, 1, 0)

    def pdf(self, x):
        return self._real(x, 2, 0, 0)

    def moments(self):
        (a, b), (c, d) = self.xs, self.ys
        m1 = ball((a + b) / 2) * ball((c + d) / 2)
        m2 = ball((a * a + a * b + b * b) / 3) * ball((c * c + c * d + d * d) / 3)
        return m1, m2

    def affine(self, a, b):
        raise NotImplementedError("an affine image of a uniform product")

    def box(self, eps):
        return self._lo, self._hi


def _union(u, v):
    return v if u is None else u.union(v)


def _integral(form, x1, x2, t):
    """int_{x1}^{x2} form dx for form = const, or alpha + beta t / x (x1, x2 of one sign)."""
    x = sp.Symbol("x_")
    form = sp.sympify(form)
    if x not in form.free_symbols:
        return form * (x2 - x1)
    poly = sp.Poly(sp.expand(form * x), x)
    beta_t, alpha = poly.coeff_monomial(1), poly.coeff_monomial(x)
    # ln(x2 / x1) kept as one logarithm of a ratio positive on the piece (no split into
    # ln x2 - ln x1, whose branches differ for negative x)
    return alpha * (x2 - x1) + beta_t * sp.log(sp.cancel(x2 / x1), evaluate=False)


def uniform_product_rest(form, remaining):
    """(c(u), law of a X Y) when the form is ``c(u) + a X Y`` with the two remaining variables
    X, Y uniform and a a non-zero number (no other term in X or Y): then
    q1 = P(a X Y >= -c(u)) = sf(-c(u)). None otherwise."""
    if len(remaining) != 2:
        return None
    x, y = (r.symbol for r in remaining)
    form = sp.expand(form)
    coef = sp.diff(form, x, y)
    rest = sp.expand(form - coef * x * y)
    if coef == 0 or coef.free_symbols or not coef.is_Rational:
        return None
    if rest.free_symbols & {x, y} or sp.diff(form, x, 2) != 0 or sp.diff(form, y, 2) != 0:
        return None
    ends = [_uniform_ends(r.law) for r in remaining]
    if None in ends:
        return None
    (a, b), ys = ends
    k = Fraction(int(coef.p), int(coef.q))
    xs = (a * k, b * k) if k > 0 else (b * k, a * k)
    return rest, UniformProduct(xs, ys)


def _uniform_ends(law):
    """(low, high) of a uniform law of the numerical route, else None."""
    from fstheory.theory.law1d import PELaw

    if not isinstance(law, PELaw):
        return None
    pieces = law.pe.pieces
    if len(pieces) != 1:
        return None
    piece = pieces[0]
    if len(piece.terms) != 1:
        return None
    ((k, r), _c), = piece.terms.items()
    if k != 0 or r != 0:
        return None
    return Fraction(piece.lo), Fraction(piece.hi)
