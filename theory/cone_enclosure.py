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

The integrals of w (:class:`DirectionWeight`) are **not** enclosures: w is cut at its kinks (the
directions where c = 0, where g_m(|c|) is smooth but not analytic, and for Laplace where a
coordinate of e or Te vanishes) and each piece is integrated by double-exponential quadrature
(:func:`fstheory.theory.quadrature.integrate`), the integrand a rigorous ball at each node; the
piece's ball has ``ESTIMATE_FACTOR`` times the quadrature's error estimate as its radius. So a
result built on these balls is proved *given* the quadrature values, an assumption its user must
state. (arb's rigorous integration, ``acb.integral``, needs w on complex balls: the closed form
of g_m in eta_s(1/c) cancels its terms so strongly on a ball that the bounds are useless and the
integration does not finish near the directions where c = 0.)

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

import contextlib
import math

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.quadrature import integrate
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.two_point_fibre import _angles_of_form, _quadratic_zeros, g_series

__all__ = ["DirectionWeight", "cone_entropy_ball", "cone_entropy_derivative_ball", "NoConeEnclosure",
           "ESTIMATE_FACTOR"]

#: Equal parts of the circle between cached nodes (besides the kinks).
GRID = 32

#: Guard bits of the integrand inside a quadrature.
GUARD_BITS = 30

#: The radius of a piece's integral, in units of the quadrature's error estimate.
ESTIMATE_FACTOR = 100


@contextlib.contextmanager
def _guarded(extra: int):
    old = ctx.prec
    ctx.prec = old + extra
    try:
        yield
    finally:
        ctx.prec = old


def _g(m: int, c: arb) -> arb:
    """g_m(c) for c > 0 (:func:`~fstheory.theory.two_point_fibre.g_series`), at a precision
    raised by twice the bits of 1/c: the closed form in eta_s(1/c) cancels that many."""
    mag = c.lower()
    lost = int(-float(mag.log()) / math.log(2)) + 1 if 0 < mag < 1 else 0
    with _guarded(2 * lost + 10):
        return acb(g_series(m, c)).real


class NoConeEnclosure(ArithmeticError):
    """The hypotheses of the enclosure fail (the reason is the message)."""


def _arb(x) -> arb:
    x = exact_nsimplify(x)
    if not x.is_Rational:
        raise NoConeEnclosure(f"a coefficient {x} is not rational")
    return arb(int(x.p)) / int(x.q)


def _merge(balls: list) -> list:
    """Balls sorted by midpoint, overlapping ones replaced by their union."""
    out: list = []
    for x in sorted(balls, key=lambda b: float(b.mid())):
        if out and x.overlaps(out[-1]):
            out[-1] = out[-1].union(x)
        else:
            out.append(x)
    return out


class DirectionWeight:
    """w(theta) of one radial kind ("normal" or "laplace") and one involution T (2x2
    rationals), with its integrals over intervals of directions (module docstring: quadrature
    values, not enclosures). Uses the caller's python-flint precision."""

    def __init__(self, kind: str, T):
        if kind not in ("normal", "laplace"):
            raise NoConeEnclosure(f"no direction weight for {kind} laws")
        self.m = 0 if kind == "normal" else 1
        Tq = [[exact_nsimplify(v) for v in sp.Matrix(T).row(i)] for i in range(2)]
        if not all(v.is_Rational for row in Tq for v in row):
            raise NoConeEnclosure("the map is not rational")
        self.Tq = Tq
        self.T = [[_arb(v) for v in row] for row in Tq]
        pi2 = 2 * arb.pi()
        kinks = []
        if self.m == 0:
            M = [Tq[0][0] ** 2 + Tq[1][0] ** 2 - 1, Tq[0][0] * Tq[0][1] + Tq[1][0] * Tq[1][1],
                 Tq[0][1] ** 2 + Tq[1][1] ** 2 - 1]  # |Te|^2 - 1 = e' (T'T - I) e
            kinks += _quadratic_zeros(M[0], 2 * M[1], M[2])
        else:
            forms = [[1, 0], [0, 1], Tq[0], Tq[1]]
            # c = 0 on a piece of fixed signs: (u_0 T[0] + u_1 T[1] - s) . e = 0
            for s0 in (1, -1):
                for s1 in (1, -1):
                    for u0 in (1, -1):
                        for u1 in (1, -1):
                            forms.append([u0 * Tq[0][0] + u1 * Tq[1][0] - s0,
                                          u0 * Tq[0][1] + u1 * Tq[1][1] - s1])
            for form in forms:
                kinks += _angles_of_form(form)
        grid = [pi2 * j / GRID for j in range(GRID + 1)]
        self.nodes = _merge([arb(0), *grid[1:], *kinks])
        self._full: dict = {}  # (i, prec) -> integral between nodes i and i + 1
        self.wmax = arb(1) / 4 if self.m else 1 / (2 * arb.pi())
        self.gmax = arb.const_log2()  # m! ln 2 for m <= 1

    def _w_abs_c(self, x: arb):
        """(w's factor without g, |c|) on a real ball of directions."""
        c0, s0 = x.cos(), x.sin()
        t0, t1 = _apply(self.T, (c0, s0))
        if self.m == 0:
            return 1 / (2 * arb.pi()), abs(t0 * t0 + t1 * t1 - 1)
        n = abs(c0) + abs(s0)
        return 1 / (4 * n * n), abs((abs(t0) + abs(t1)) / n - 1)

    def _integrand(self, x: arb) -> arb:
        """w at a real point (a ball): ``g_m(|c|) = m! ln 2 +- c^2`` below |c| = 2^-(prec/2)
        (two_point_fibre's module docstring), where the closed form cancels too many bits."""
        w, c = self._w_abs_c(x)
        return w * self._g_at(c)

    def _g_at(self, c: arb) -> arb:
        """g_m at an exact point c >= 0 (a ball)."""
        if c < arb(2) ** -(ctx.prec // 2):
            return self.gmax + arb(0, (c * c).upper())
        return _g(self.m, c)

    def w_ball(self, ball: arb) -> arb:
        """w over a real ball of directions, a rigorous enclosure: g_m is decreasing in c >= 0
        (H_b(sigma(x)) has derivative -x sech^2(x/2)/4 <= 0 for x >= 0), so over |c| in
        [c_lo, c_hi] it lies between g_m(c_hi) and g_m(c_lo), evaluated at those points."""
        w, c = self._w_abs_c(ball)
        if not c.is_finite():
            return w * arb(0).union(self.gmax)
        lo = c.lower()
        lo = lo if lo > 0 else arb(0)
        return w * self._g_at(c.upper()).union(self._g_at(lo))

    def _between_kinks(self, a: arb, b: arb) -> arb:
        """The integral over [a, b] (exact ends, no kink strictly inside): the quadrature's value
        with ``ESTIMATE_FACTOR`` times its error estimate as radius."""
        if not b > a:
            return arb(0)
        tol = arb(2) ** -(ctx.prec - 8)
        with _guarded(GUARD_BITS):
            v, e = integrate(self._integrand, [a, b], tol)
        return arb(v.mid(), (v.rad() + ESTIMATE_FACTOR * e).upper())

    def _node_integral(self, i: int) -> arb:
        """The integral between node balls i and i + 1 (their radii counted as uncertain)."""
        key = (i, ctx.prec)
        if key not in self._full:
            p, q = self.nodes[i], self.nodes[i + 1]
            v = self._between_kinks(p.upper(), q.lower())
            self._full[key] = v + self.uncertain(p.rad() + q.rad())
        return self._full[key]

    def uncertain(self, width: arb) -> arb:
        """[0, w_max m! ln 2 * width]: the integral over directions of unknown membership."""
        return (self.wmax * self.gmax * width).union(arb(0))

    def integral(self, a: arb, b: arb) -> arb:
        """The integral of w over [a, b], 0 <= a <= b <= 2 pi exact (the node balls touched
        count as uncertain)."""
        if not b > a:
            return arb(0)
        nodes = self.nodes
        touching = [i for i, n in enumerate(nodes) if n.upper() >= a and n.lower() <= b]
        if not touching:
            return self._between_kinks(a, b)
        first, last = touching[0], touching[-1]
        n0, n1 = nodes[first], nodes[last]
        total = self.uncertain(2 * n0.rad() + 2 * n1.rad())
        if n0.lower() > a:
            total += self._between_kinks(a, n0.lower())
        for i in range(first, last):
            total += self._node_integral(i)
        if n1.upper() < b:
            total += self._between_kinks(n1.upper(), b)
        return total


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
    te = _apply(weight.T, e)
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
            parts.append((_arb(p.coeff_monomial(1)), _arb(p.coeff_monomial(sym))))
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
    merged = _merge([arb(0), pi2] + [x for arc in arcs for piece in arc for x in piece])
    total = arb(0)
    for x in merged:  # the cut balls themselves: uncertain
        total += weight.uncertain(2 * x.rad())
    for p, q in zip(merged, merged[1:]):
        a_end = p.upper() if p.rad() > 0 else p
        b_end = q.lower() if q.rad() > 0 else q
        if not b_end > a_end:
            continue
        mid = (a_end + b_end) / 2
        part = weight.integral(a_end, b_end)
        e = (mid.cos(), mid.sin())
        te = _apply(weight.T, e)
        prod = (a0[0] * e[0] + a0[1] * e[1]) * (a0[0] * te[0] + a0[1] * te[1])
        swept = any(lo.upper() <= mid.lower() and mid.upper() <= hi.lower()
                    for arc in arcs for lo, hi in arc)
        if swept or not (prod < 0 or prod > 0):
            # membership varies over t (a swept arc) or is not decided at this precision (a
            # piece as narrow as the balls): anything between 0 and the whole piece
            total += part.union(arb(0))
        elif prod < 0:
            total += part
    return total


def _apply(T, e):
    """T e for a 2x2 matrix of balls and a pair of balls."""
    return (T[0][0] * e[0] + T[0][1] * e[1], T[1][0] * e[0] + T[1][1] * e[1])
