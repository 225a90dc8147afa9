r"""E[H_b(P(C = 1 | V_1, V_2))] for independent uniform laws, two affine features and a linear
class whose base variables leave ONE free direction: an exact polygon decomposition and one
certified integral per strip.

Setting. b = (b_1, ..., b_n), n = 3, the base variables of the features and of the class,
independent and uniform on [lo_i, hi_i]; features V = A b (+ constants, which change no MI), A
of rank 2 with rational entries; class C = 1{a . b + c >= 0}. With d spanning the kernel of A and
P = A^T (A A^T)^-1 (so A P = I), every b is ``P v + s d`` for one (v, s), the change of
variables having the constant Jacobian ``J = |det[P | d]|``. Given V = v, b is uniform on the
segment of s where ``P v + s d`` lies in the box, ``L(v) <= s <= U(v)`` (L the largest, U the
smallest of the bounds ``(lo_i - (P v)_i) / d_i``, ``(hi_i - (P v)_i) / d_i``; a coordinate with
d_i = 0 only restricts v), and the class holds on one side of ``s* = -(a . P v + c) / (a . d)``
(a . d != 0, else the class is a function of V). With the lengths

    l(v) = U - L,  l_1(v) = length of the class-1 part,  l_0 = l - l_1,

the density of V is ``f_V = J l / vol`` (vol the box's volume) and P(C = 1 | v) = l_1 / l, so

.. math::

    E[H_b] = \frac{J}{vol} \int \big(l \ln l - l_1 \ln l_1 - l_0 \ln l_0\big)\, dv .

l, l_1, l_0 are continuous and piecewise affine: on each cell of the arrangement of the lines
where two of the bounds (or a bound and s*) are equal, each is one affine function (or 0). The
cells are found exactly in rational arithmetic: the outer variable v_2 is cut at every
intersection of two lines (and where a line is v_1-free), so that between consecutive cuts the
lines keep their order in v_1; each segment between consecutive lines is one cell, its affine
forms read at its rational midpoint. Along v_1 the integral of ``lam ln lam`` with lam =
alpha v_1 + beta(v_2) is ``(lam^2 ln lam / 2 - lam^2 / 4) / alpha`` between the segment's ends
(``lam ln lam`` times the length when alpha = 0), an analytic function of v_2 inside each strip;
the strips are integrated by arb's certified ``acb.integral`` (through
:func:`fstheory.theory.interrupts.acb_integral`), the logarithms flagged non-analytic where a
ball meets the branch cut (lam -> 0 at a strip's end).

Example: C = 1{X + kY + Z >= 0}, X, Y, Z i.i.d. Unif(-1, 1), features (X, X + Y + Z): given
(x, t) the pair (Y, Z) runs over the segment y + z = t, and the class is y <= (x + t)/(1 - k).

>>> import sympy as sp
>>> from fstheory.theory.laws import Uniform
>>> from fstheory.theory.determination import ClassEvent
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y, Z = sp.symbols("X Y Z", real=True)
>>> laws = {s: Uniform(-1, 1) for s in (X, Y, Z)}
>>> fib = line_fibre([X, X + Y + Z], ClassEvent(X + Y / 2 + Z, 0), laws)
>>> with flint_precision(80):
...     print(expected_entropy_ball(fib).str(15, radius=False))
0.159446383535834
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import sympy as sp
from flint import acb, arb

from fstheory.theory import determination as det
from fstheory.theory.balls import NoEnclosure, xlogx
from fstheory.theory.interrupts import acb_integral
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.laws import Uniform

__all__ = ["LineFibre", "line_fibre", "expected_entropy_ball"]

#: an affine function of v = (v_1, v_2): (c_0, c_1, c_2) for c_0 + c_1 v_1 + c_2 v_2
Affine = tuple


def _fraction(x) -> Fraction | None:
    x = sp.nsimplify(sp.sympify(x)) if isinstance(x, sp.Float) else sp.sympify(x)
    if not x.is_Rational:
        return None
    return Fraction(int(x.p), int(x.q))


@dataclass(frozen=True)
class LineFibre:
    """The data of the module docstring, exact: ``scale`` = J / vol; the bounds ``lower`` and
    ``upper`` of s and the threshold ``star`` as affine functions of v; ``region`` the affine
    g(v) >= 0 of the coordinates with d_i = 0; ``up``: class 1 is s >= s*; ``box`` the ranges
    of v_1 and v_2 (enclosing the support)."""

    scale: Fraction
    lower: tuple
    upper: tuple
    star: Affine
    up: bool
    region: tuple
    box: tuple


def line_fibre(exprs, event: det.ClassEvent, laws) -> LineFibre | None:
    """The :class:`LineFibre` of two features and the class, or None when the hypotheses of the
    module docstring fail (a law not uniform with rational ends, a feature or the class not
    affine with rational coefficients, not exactly one free direction, or a class that is a
    function of the features)."""
    if len(exprs) != 2:
        return None
    form = sp.expand(sp.sympify(event.expr) - sp.sympify(event.threshold))
    variables = sorted(frozenset().union(*(det.bases(e, laws) for e in exprs))
                       | det.bases(form, laws), key=str)
    if len(variables) != 3 or not all(isinstance(laws[b], Uniform) for b in variables):
        return None
    rows = []
    for e in list(exprs) + [form]:
        lin = linear_parts(e, variables)
        if lin is None:
            return None
        coefs, const = lin
        row = [_fraction(coefs[b]) for b in variables] + [_fraction(const)]
        if any(x is None for x in row):
            return None
        rows.append(row)
    ends = []
    for b in variables:
        lo, hi = (_fraction(x) for x in laws[b].support())
        if lo is None or hi is None or not lo < hi:
            return None
        ends.append((lo, hi))
    A = sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in r[:3]] for r in rows[:2]])
    if A.rank() != 2:
        return None
    (d,) = A.nullspace()
    P = A.T * (A * A.T).inv()
    J = abs(sp.Matrix.hstack(P, d).det())
    vol = 1
    for lo, hi in ends:
        vol *= hi - lo
    F = [[_fraction(x) for x in P.row(i)] for i in range(3)]
    dd = [_fraction(x) for x in d]
    a, c = rows[2][:3], rows[2][3]
    ad = sum(ai * di for ai, di in zip(a, dd))
    if ad == 0:
        return None
    lower, upper, region = [], [], []
    for i, (lo, hi) in enumerate(ends):
        pv = (Fraction(0), F[i][0], F[i][1])  # (P v)_i
        if dd[i] == 0:
            region.append((-lo, pv[1], pv[2]))
            region.append((hi, -pv[1], -pv[2]))
            continue
        lo_b = ((lo - pv[0]) / dd[i], -pv[1] / dd[i], -pv[2] / dd[i])
        hi_b = ((hi - pv[0]) / dd[i], -pv[1] / dd[i], -pv[2] / dd[i])
        if dd[i] > 0:
            lower.append(lo_b)
            upper.append(hi_b)
        else:
            lower.append(hi_b)
            upper.append(lo_b)
    apv = (c, sum(a[i] * F[i][0] for i in range(3)), sum(a[i] * F[i][1] for i in range(3)))
    star = (-apv[0] / ad, -apv[1] / ad, -apv[2] / ad)
    # v = A b over the box's corners encloses the support of v
    box = []
    for r in rows[:2]:
        lo = sum(min(r[i] * e[0], r[i] * e[1]) for i, e in enumerate(ends))
        hi = sum(max(r[i] * e[0], r[i] * e[1]) for i, e in enumerate(ends))
        box.append((lo, hi))
    return LineFibre(Fraction(int(J.p), int(J.q)) / vol, tuple(lower), tuple(upper), star, ad > 0,
                     tuple(region), tuple(box))


def _at(f: Affine, v1, v2):
    return f[0] + f[1] * v1 + f[2] * v2


def _minus(f: Affine, g: Affine) -> Affine:
    return (f[0] - g[0], f[1] - g[1], f[2] - g[2])


def _cuts(fib: LineFibre) -> tuple[list, list]:
    """(lines, vertical): the non-vertical lines v_1 = m v_2 + q as (m, q), and the v_2 of the
    v_1-free ones, from every difference of two of the affine functions and the region."""
    funcs = list(fib.lower) + list(fib.upper) + [fib.star]
    diffs = [_minus(f, g) for f, g in combinations(funcs, 2)] + list(fib.region)
    (v1lo, v1hi), _ = fib.box
    lines = {(Fraction(0), v1lo), (Fraction(0), v1hi)}
    vertical = set()
    for c0, c1, c2 in diffs:
        if c1 != 0:
            lines.add((-c2 / c1, -c0 / c1))
        elif c2 != 0:
            vertical.add(-c0 / c2)
    return sorted(lines), sorted(vertical)


def _strips(fib: LineFibre) -> list:
    lines, vertical = _cuts(fib)
    _, (lo, hi) = fib.box
    points = {lo, hi} | {x for x in vertical if lo < x < hi}
    for (m1, q1), (m2, q2) in combinations(lines, 2):
        if m1 != m2:
            x = (q2 - q1) / (m1 - m2)
            if lo < x < hi:
                points.add(x)
    points = sorted(points)
    return [(a, b, lines) for a, b in zip(points, points[1:])]


def _cells(fib: LineFibre, a: Fraction, b: Fraction, lines: list) -> list:
    """The cells of the strip a < v_2 < b: [(left line, right line, [(sign, lam), ...])], the
    integrand ``sum sign * lam ln lam`` with lam affine (identically-zero terms dropped)."""
    t = (a + b) / 2
    (v1lo, v1hi), _ = fib.box
    xs = sorted({m * t + q: (m, q) for m, q in lines}.items())
    out = []
    for (x0, left), (x1, right) in zip(xs, xs[1:]):
        if x1 <= v1lo or x0 >= v1hi:
            continue
        xm = (x0 + x1) / 2
        if any(_at(g, xm, t) <= 0 for g in fib.region):
            continue
        L = max(fib.lower, key=lambda f: _at(f, xm, t))
        U = min(fib.upper, key=lambda f: _at(f, xm, t))
        whole = _minus(U, L)
        if _at(whole, xm, t) <= 0:
            continue
        s = _at(fib.star, xm, t)
        lo_v, hi_v = _at(L, xm, t), _at(U, xm, t)
        if s <= lo_v or s >= hi_v:
            continue  # the class is constant on the segment: H_b = 0
        one = _minus(U, fib.star) if fib.up else _minus(fib.star, L)
        zero = _minus(whole, one)
        out.append((left, right, [(1, whole), (-1, one), (-1, zero)]))
    return out


def _primitive(lam: Affine, x: acb, t: acb, analytic: bool) -> acb:
    """int^x lam ln lam dv_1 at v_1 = x (alpha != 0): (lam^2 ln lam / 2 - lam^2 / 4) / alpha."""
    alpha = lam[1]
    w = _ball(lam[0]) + _ball(lam[1]) * x + _ball(lam[2]) * t
    return (w * xlogx(w, analytic) / 2 - w * w / 4) / _ball(alpha)


def _ball(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


def _vanishes_on(lam: Affine, line) -> bool:
    """lam is identically 0 along v_1 = m v_2 + q."""
    m, q = line
    return lam[0] + lam[1] * q == 0 and lam[1] * m + lam[2] == 0


def _strip_integrand(cells):
    def f(t: acb, analytic: bool) -> acb:
        total = acb(0)
        for left, right, terms in cells:
            x0 = _ball(left[0]) * t + _ball(left[1])
            x1 = _ball(right[0]) * t + _ball(right[1])
            for sign, lam in terms:
                if lam[1] == 0:
                    w = _ball(lam[0]) + _ball(lam[2]) * t
                    if lam[0] == 0 and lam[2] == 0:
                        continue
                    total += sign * xlogx(w, analytic) * (x1 - x0)
                    continue
                part = acb(0)
                if not _vanishes_on(lam, right):
                    part += _primitive(lam, x1, t, analytic)
                if not _vanishes_on(lam, left):
                    part -= _primitive(lam, x0, t, analytic)
                total += sign * part
        return total

    return f


def expected_entropy_ball(fib: LineFibre) -> arb:
    """E[H_b(P(C = 1 | V))] as a ball at the current precision (module docstring)."""
    total = arb(0)
    for a, b, lines in _strips(fib):
        cells = _cells(fib, a, b, lines)
        if not cells:
            continue
        val = acb_integral(_strip_integrand(cells), acb(_ball(a)), acb(_ball(b)))
        if not val.real.is_finite() or not val.imag.contains(0):
            raise NoEnclosure("the strip integral of a uniform line fibre was not enclosed")
        total += val.real
    return total * _ball(fib.scale)
