r"""Enclosures of the integrals over directions of :mod:`fstheory.theory.two_point_fibre`
(:func:`~fstheory.theory.two_point_fibre.cone_entropy`): H(C | V_S) as an arb ball, for every
value of the class's parameter in an interval.

Setting (two_point_fibre's module docstring). The features reveal (b_1, b_2), two i.i.d. centred
normal or Laplace variables, up to a linear involution T; the class is ``1{a(t) . b >= 0}`` with
a(t) affine in a parameter t. Then

.. math::

    H(C | V_S)(t) = \int_{A(t)} w(\theta)\, d\theta, \qquad
    A(t) = \{\theta : (a(t) \cdot e)(a(t) \cdot T e) < 0\},\ e = (\cos\theta, \sin\theta),

with ``w = g_0(|c|) / (2 pi)``, ``c = |Te|^2 - 1`` (normal) and ``w = g_1(|c|) / (4 |e|_1^2)``,
``c = |Te|_1 / |e|_1 - 1`` (Laplace), ``0 <= w <= m! ln 2 w_max`` (w_max = 1/(2 pi), 1/4).
w does not depend on t: only the set A(t) does.

An interval of t (:func:`cone_entropy_ball`). The boundaries of A(t) are the directions
orthogonal to v(t) = a(t) or T' a(t), affine in t: over [t0, t1] each such direction turns
monotonically through an arc shorter than pi (the path v(t) does not pass through 0, checked),
from its position at t0 to its position at t1. Outside these arcs, membership in A(t) is the
same for every t of the interval (it changes only where a boundary passes), so, as w >= 0,

.. math::

    \int_{A \setminus \mathrm{arcs}} w \;\le\; H(C | V_S)(t) \;\le\;
    \int_{A \setminus \mathrm{arcs}} w + \int_{\mathrm{arcs}} w,

membership decided at one point of each piece. This needs no monotonicity in t; with
t0 = t1 it is the value at a point, every rounding of a boundary direction counted as an
uncertain arc of its ball's width. This part is exact reasoning with arb balls.

The integrals of w (:class:`DirectionWeight`) are enclosures too. The circle is cut at nodes
(``GRID`` equal arcs, the directions where c = 0 and, for Laplace, where a coordinate of e or
T e vanishes): on a piece between nodes the signs of the Laplace norms and of c are fixed, so
``w = f(theta) g_m(s c(theta))`` with f and c analytic in theta, s = +-1. With
``h = H_b o sigma``, ``h'(x) = -x sech^2(x/2) / 4``, an integration by parts in u gives

.. math::

    g_m(c) = m! \ln 2 - \frac{c^2}{4} \int_0^\infty G_m(u)\, u\, \mathrm{sech}^2(cu/2)\, du,
    \qquad G_m(u) = \int_u^\infty s^m e^{-s}\, ds,

for c > 0; the right side is analytic for Re c > 0 (the poles of sech^2(cu/2) are at
cu = i pi (2j + 1), off the ray), so it continues g_m there. Where ``|Im c| <= t Re c``,
``|cosh(x + iy)|^2 = sinh^2 x + cos^2 y >= min(1, 1/t^2)`` (|y| <= t x, sinh x >= x,
|sin y| <= |y|) and ``int G_m(u) u du = (m+2)!/2``, so

.. math::

    |g_m(c) - m! \ln 2| \le \frac{(m+2)!}{8} |c|^2 \max(1, t^2),

a bound of w on complex boxes that does not cancel (the closed form in eta_s(1/c) does; it is
evaluated at real points only, with guard bits). Each piece is covered by Chebyshev models: on
[lo, hi] the interpolant p_N of w in the N + 1 Chebyshev points (the values balls) is within
``4 M rho^-N / (rho - 1)`` of w when w is analytic on the Bernstein ellipse E_rho of [lo, hi]
with |w| <= M there (Trefethen, *Approximation Theory and Approximation Practice*, Thm 8.2);
analyticity (Re(s c) > 0, the Laplace norm's formula nonzero) and M are checked on boxes
covering the ellipse, and an interval where no ellipse of ``RHOS`` gives a degree at most
``MAX_DEGREE`` is bisected (towards a direction where c = 0 the intervals shrink
geometrically). Next to such a direction g_m is not analytic (its expansion in c is only
asymptotic); there a window uses the bracket, for real c,

.. math::

    m! \ln 2 - \frac{(m+2)!}{8} c^2 + \frac{(m+4)!}{64} c^4 - \frac{(m+6)!}{576} c^6
    \le g_m(c) \le m! \ln 2 - \frac{(m+2)!}{8} c^2 + \frac{(m+4)!}{64} c^4

(integrate ``1 - y^2 <= sech^2 y <= 1 - y^2 + 2 y^4 / 3`` twice against h' and the moments
of u^m e^-u; the lower: ``cosh^2 y (1 - y^2) <= e^(y^2) (1 - y^2) <= 1``; the upper:
``cosh^2 y (1 - y^2 + 2 y^4 / 3) - 1`` has nonnegative Taylor coefficients): the factor times
the bracket's middle is analytic (a Chebyshev model of its own) and the factor times its
half-width is added to the model's error; the window is halved until that is below the
tolerance. A model's integral over any [a, b] inside it is that of p_N (ball arithmetic) plus
(b - a) times its error bound. The pointwise tolerance is 2^-prec at the caller's precision, so
an integral over the whole circle is a proved ball of radius about 2 pi 2^-prec. The models of
a piece are built once per precision (a few seconds for a weight at 128 bits); an integral is
then a sum of polynomial integrals. (arb's ``acb.integral`` needs w on complex balls too, but
also its values there, which the closed form gives only with catastrophic cancellation.)

Examples
--------
>>> import sympy as sp
>>> from flint import arb
>>> from fstheory.theory.quadrature import flint_precision
>>> k = sp.Symbol("k")
>>> T = sp.ImmutableMatrix([[1, -2], [0, -1]])     # {Y^2, X - Y}: (X, Y) -> (X - 2Y, -Y)
>>> with flint_precision(100):
...     w = DirectionWeight("normal", T)
...     h = cone_entropy_ball(w, (sp.Integer(1), k), k, arb(1) / 5, arb(1) / 5)
...     cell = cone_entropy_ball(w, (sp.Integer(1), k), k, arb(1) / 5, arb(1) / 4)
>>> h.overlaps(arb("0.20502799709231241273")), h.rad() < 1e-24
(True, True)
>>> cell.lower() < h.lower() and h.upper() < cell.upper()
True
"""

from __future__ import annotations

import functools

import sympy as sp
from flint import arb, ctx

from fstheory.theory.direction_weight import (DirectionWeight, NoConeEnclosure, apply_matrix,
                                              g_at_precision, merge_balls, to_arb)

__all__ = ["DirectionWeight", "g_at_precision", "cone_entropy_ball", "cone_entropy_at",
           "cone_entropy_derivative_ball", "NoConeEnclosure"]


def _form_direction(v) -> arb:
    """The angle in [0, 2 pi) of e = (-v1, v0), orthogonal to v (balls, v != 0)."""
    th = arb.atan2(v[0], -v[1])
    return th + 2 * arb.pi() if th < 0 else th


def _form_arcs(v0, v1) -> list:
    """The directions orthogonal to v(t) for t in [t0, t1] (v affine, v(t0) = v0, v(t1) = v1):
    two arcs (each as a list of (lo, hi) intervals within [0, 2 pi]), antipodal."""
    pi = arb.pi()
    out = []
    for sgn in (1, -1):
        a = _form_direction([sgn * v0[0], sgn * v0[1]])
        b = _form_direction([sgn * v1[0], sgn * v1[1]])
        lo, hi = (a, b) if a.mid() <= b.mid() else (b, a)
        if not hi - lo < pi:  # wraps around 0
            if not (lo + 2 * pi) - hi < pi:
                raise NoConeEnclosure("a class boundary turns by pi or more over the cell")
            out.append([(arb(0), lo), (hi, 2 * pi)])
        else:
            out.append([(lo, hi)])
    return out


def _membership(weight, av, theta: arb) -> int | None:
    """1 if the direction theta is in A at the class coefficients av, 0 if not, None if not
    decided: A = {(a . e)(a . T e) < 0}."""
    e = (theta.cos(), theta.sin())
    te = apply_matrix(weight.T, e)
    prod = (av[0] * e[0] + av[1] * e[1]) * (av[0] * te[0] + av[1] * te[1])
    return 1 if prod < 0 else 0 if prod > 0 else None


def _forms(weight: DirectionWeight, a, sym) -> list:
    """The class's coefficients a(t) and T' a(t) (the boundaries of A are orthogonal to them),
    each as a pair of components ``(c0, c1)`` of ``c0 + c1 t`` (balls); raises when a
    coefficient is not affine in ``sym``."""
    a = [sp.expand(sp.sympify(x)) for x in a]
    Tq = weight.Tq
    Ta = [a[0] * Tq[0][0] + a[1] * Tq[1][0], a[0] * Tq[0][1] + a[1] * Tq[1][1]]  # a . T e
    out = []
    for form in (a, Ta):
        parts = []
        for x in form:
            x = sp.expand(x)
            if not x.is_polynomial(sym) or sp.degree(x, sym) > 1:
                raise NoConeEnclosure(f"a class coefficient {x} is not affine in {sym}")
            p = sp.Poly(x, sym)
            parts.append((to_arb(p.coeff_monomial(1)), to_arb(p.coeff_monomial(sym))))
        out.append(parts)
    return out


def _at(form, t: arb) -> list:
    """An affine form of :func:`_forms` at t (a ball)."""
    return [c0 + c1 * t for c0, c1 in form]


def cone_entropy_derivative_ball(weight: DirectionWeight, a, sym, t0: arb, t1: arb):
    r"""An enclosure of dH(C | V_S)/dt for every t in [t0, t1], t0 < t1, or None.

    Each boundary of A(t) is a direction theta_j(t) orthogonal to an affine v(t) = v_0 + t v',
    turning at ``theta_j' = (v(t) x v') / |v(t)|^2`` (v x v' is constant in t), and A gains or
    loses the directions it passes at that rate (the level-set form of the Reynolds transport
    theorem): ``dH/dt = sum_j s_j w(theta_j) |theta_j'|``, s_j = +1 where the arc swept by
    boundary j over the cell is outside A at t0 and inside at t1, -1 the other way. None
    (no derivative) when two swept arcs meet (a direction could change membership twice) or a
    membership is not decided."""
    ca, cb = _forms(weight, a, sym)
    span = t0.union(t1)
    a0, a1 = _at(ca, t0), _at(ca, t1)
    arcs = []  # (pieces, |theta'| over the cell)
    for form in (ca, cb):
        v0, v1, vt = _at(form, t0), _at(form, t1), _at(form, span)
        norm2 = vt[0] * vt[0] + vt[1] * vt[1]
        if not norm2 > 0:
            return None
        cross = abs(form[0][0] * form[1][1] - form[1][0] * form[0][1])
        for pieces in _form_arcs(v0, v1):
            arcs.append((pieces, cross / norm2))
    balls = [lo.union(hi) for pieces, _ in arcs for lo, hi in pieces]
    for i, x in enumerate(balls):
        if any(x.overlaps(y) for y in balls[i + 1:]):
            return None
    total = arb(0)
    for pieces, rate in arcs:
        lo, hi = max(pieces, key=lambda p: float((p[1] - p[0]).mid()))
        if not hi.lower() > lo.upper():
            return None
        mid = (lo.upper() + hi.lower()) / 2
        m0, m1 = _membership(weight, a0, mid), _membership(weight, a1, mid)
        if m0 is None or m1 is None or m0 == m1:
            return None
        w = None
        for p, q in pieces:
            wp = weight.w_ball(p.union(q))
            w = wp if w is None else w.union(wp)
        total += (m1 - m0) * w * rate
    return total


@functools.lru_cache(maxsize=64)
def _weight(kind: str, T: tuple, prec: int) -> DirectionWeight:
    """The weight of (kind, T) used at ``prec`` bits, by content. Its Chebyshev models are
    built on first use, piece by piece, each with a fresh bisection budget and only ever at
    ``prec``: a piece's models are a function of (kind, T, prec, piece) alone, so the object
    kept here gives the same balls whatever was asked of it before."""
    return DirectionWeight(kind, T)


_POINT = sp.Dummy("t")


def cone_entropy_at(kind: str, a, T) -> arb:
    """H(C | V_S) at fixed class coefficients ``a`` (two rationals), T's rows ``T``, at the
    caller's precision: the ball of :func:`cone_entropy_ball` at a point, with the weight of
    (kind, T) kept per precision, so that over many values of the class's parameter its models
    are built once."""
    weight = _weight(kind, tuple(tuple(row) for row in T), ctx.prec)
    return cone_entropy_ball(weight, a, _POINT, arb(0), arb(0))


def cone_entropy_ball(weight: DirectionWeight, a, sym, t0: arb, t1: arb) -> arb:
    """An enclosure of H(C | V_S)(t) for every t in [t0, t1] (module docstring): ``a`` the
    class's coefficients of (b_1, b_2), each affine in ``sym``; ``weight`` the integrand of T."""
    ends = [[_at(f, t0), _at(f, t1)] for f in _forms(weight, a, sym)]
    for e0, e1 in ends:
        for v in (e0, e1):
            if v[0].contains(0) and v[1].contains(0):
                raise NoConeEnclosure("a class boundary degenerates on the cell")
        # v(t) affine: it passes through 0 inside iff v0 and v1 are antiparallel
        cross = e0[0] * e1[1] - e0[1] * e1[0]
        dot = e0[0] * e1[0] + e0[1] * e1[1]
        if cross.contains(0) and not dot > 0:
            raise NoConeEnclosure("a class boundary may degenerate inside the cell")
    arcs = [arc for e0, e1 in ends for arc in _form_arcs(e0, e1)]
    pi2 = 2 * arb.pi()
    a0 = ends[0][0]  # a(t0)
    merged = merge_balls([arb(0), pi2] + [x for arc in arcs for piece in arc for x in piece])
    total = arb(0)
    for x in merged:  # the cut balls themselves: uncertain
        total += weight.uncertain(2 * x.rad())
    for p, q in zip(merged, merged[1:]):
        a_end = p.upper() if p.rad() > 0 else p
        b_end = q.lower() if q.rad() > 0 else q
        if not b_end > a_end:
            continue
        mid = (a_end + b_end) / 2
        e = (mid.cos(), mid.sin())
        te = apply_matrix(weight.T, e)
        prod = (a0[0] * e[0] + a0[1] * e[1]) * (a0[0] * te[0] + a0[1] * te[1])
        swept = any(lo.upper() <= mid.lower() and mid.upper() <= hi.lower()
                    for arc in arcs for lo, hi in arc)
        # the weight is integrated only over the pieces that count (its models are costly)
        if swept or not (prod < 0 or prod > 0):
            # membership varies over t (a swept arc) or is not decided at this precision (a
            # piece as narrow as the balls): anything between 0 and the whole piece
            total += weight.integral(a_end, b_end).union(arb(0))
        elif prod < 0:
            total += weight.integral(a_end, b_end)
    return total
