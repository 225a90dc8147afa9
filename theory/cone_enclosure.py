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
import math

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.quadrature import flint_precision
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.two_point_fibre import angles_of_form, quadratic_zeros, g_series

__all__ = ["DirectionWeight", "cone_entropy_ball", "cone_entropy_at", "cone_entropy_derivative_ball",
           "NoConeEnclosure"]

#: Equal parts of the circle between cached nodes (besides the kinks).
GRID = 32

#: Guard bits of the weight's values and coefficients while a model is built.
GUARD_BITS = 30

#: Parameters rho of the Bernstein ellipses tried for a Chebyshev model.
RHOS = (24.0, 12.0, 8.0, 6.0, 5.0, 4.0, 3.25, 2.5, 1.75)

#: The highest degree of a Chebyshev model (beyond it the interval is bisected).
MAX_DEGREE = 64

#: Bisections of an interval, and of all the intervals of a piece, before a constant model
#: (the weight on the real ball: rigorous, wide) is taken.
MAX_DEPTH = 60
MAX_BISECTIONS = 2000

#: A bound of |w| (w_max m! ln 2 <= ln 2 / 4).
PMAX = arb("0.174")

#: Boxes per side of the rectangle around a Bernstein ellipse (its upper half: BOXES / 2 rows).
BOXES = 4


def g_at_precision(m: int, c: arb) -> arb:
    """g_m(c) for c > 0 (:func:`~fstheory.theory.two_point_fibre.g_series`), at a precision
    raised by twice the bits of 1/c: the closed form in eta_s(1/c) cancels that many."""
    mag = c.lower()
    lost = int(-float(mag.log()) / math.log(2)) + 1 if 0 < mag < 1 else 0
    with flint_precision(ctx.prec + 2 * lost + 10):
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


class _Model:
    """A Chebyshev model of the weight on [lo, hi] (exact ends): ``|w - p| <= err`` there, p of
    degree N with ball coefficients in x = (2 theta - lo - hi) / (hi - lo); kept as the
    coefficients ``C`` of an antiderivative of p in x (``P = sum C_k T_k``)."""

    __slots__ = ("lo", "hi", "C", "err", "full")

    def __init__(self, lo: arb, hi: arb, coeffs: list, err: arb):
        self.lo, self.hi, self.err = lo, hi, err
        n = len(coeffs)
        c = coeffs + [arb(0), arb(0)]
        # int T_0 = T_1, int T_1 = T_2 / 4, int T_k = T_(k+1) / (2(k+1)) - T_(k-1) / (2(k-1))
        self.C = [arb(0)] + [((2 * c[0] if k == 1 else c[k - 1]) - c[k + 1]) / (2 * k)
                             for k in range(1, n + 1)]
        odd = sum((self.C[k] for k in range(1, n + 1, 2)), arb(0))
        self.full = (hi - lo) * odd + arb(0, ((hi - lo) * err).upper())

    def _P(self, x: arb) -> arb:
        """The antiderivative at a ball x within [-1, 1]: sum C_k cos(k phi) at the exact point
        cos(phi) = mid(x) (the powers of e^(i phi) keep every term's radius tight, where
        Clenshaw's recurrence in ball arithmetic would multiply it by up to (1 + sqrt 2)^N),
        plus rad(x) times a bound of |p| = |P'| (|w| <= w_max m! ln 2, |p - w| <= err)."""
        xm = arb(min(1.0, max(-1.0, float(x.mid())))) if abs(x.mid()) > 1 else arb(x.mid())
        z = acb(0, xm.acos()).exp()
        zk, total = acb(1), self.C[0]
        for ck in self.C[1:]:
            zk *= z
            total += ck * zk.real
        slope = (PMAX + self.err) * (abs(x - xm) + x.rad())
        return total + arb(0, slope.upper())

    def integral(self, a: arb, b: arb) -> arb:
        """The integral of w over [a, b], lo <= a <= b <= hi exact."""
        if a <= self.lo and self.hi <= b:
            return self.full
        span = self.hi - self.lo
        xa, xb = (2 * a - self.lo - self.hi) / span, (2 * b - self.lo - self.hi) / span
        return span / 2 * (self._P(xb) - self._P(xa)) + arb(0, ((b - a) * self.err).upper())


class DirectionWeight:
    """w(theta) of one radial kind ("normal" or "laplace") and one involution T (2x2
    rationals), with enclosures of its integrals over intervals of directions (module
    docstring: Chebyshev models with proved error bounds, built once per piece and precision).
    Uses the caller's python-flint precision."""

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
            kinks += quadratic_zeros(M[0], 2 * M[1], M[2])
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
                kinks += angles_of_form(form)
        # T preserves the density (c = 0 everywhere: T'T = I, or for Laplace a signed
        # permutation): w is m! ln 2 times its factor, analytic
        if self.m == 0:
            self.flat = all(x == 0 for x in M)
        else:
            cols = [[j for j in (0, 1) if Tq[i][j] != 0] for i in (0, 1)]
            self.flat = (all(len(c) == 1 and abs(Tq[i][c[0]]) == 1 for i, c in enumerate(cols))
                         and cols[0] != cols[1])
        grid = [pi2 * j / GRID for j in range(GRID + 1)]
        self.nodes = _merge([arb(0), *grid[1:], *kinks])
        self._budget = MAX_BISECTIONS
        self._models: dict = {}  # prec -> {piece i: [_Model, ...] covering it}
        self._full: dict = {}  # (i, prec) -> integral between nodes i and i + 1
        self.wmax = arb(1) / 4 if self.m else 1 / (2 * arb.pi())
        self.gmax = arb.const_log2()  # m! ln 2 for m <= 1
        # g_m(c) = m! ln 2 - (m+2)! c^2 / 8 + (m+4)! c^4 / 64 - [0, (m+6)! c^6 / 576] (module
        # docstring): the polynomial at the middle of the bracket, and its half-width / c^6
        self.poly = [self.gmax, arb(-math.factorial(self.m + 2)) / 8,
                     arb(math.factorial(self.m + 4)) / 64,
                     arb(-math.factorial(self.m + 6)) / 1152]
        self.poly_err = arb(math.factorial(self.m + 6)) / 1152

    # ----- the weight at points, on real balls and on complex boxes -------------------------

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
        return g_at_precision(self.m, c)

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

    def _poly_at(self, c):
        """The even polynomial of ``self.poly`` at c (a ball or a complex ball)."""
        c2 = c * c
        return self.poly[0] + c2 * (self.poly[1] + c2 * (self.poly[2] + c2 * self.poly[3]))

    def _near_zero(self, x: arb) -> arb:
        """w's factor times the polynomial of g_m at c, at a real ball x (|w - this| <=
        factor * poly_err * c^6)."""
        w, c = self._w_abs_c(x)
        return w * self._poly_at(c)

    def _signs(self, x: arb):
        """The signs of cos, sin, (Te)_0, (Te)_1 and c at a real point x, or None if one is
        not decided: on a piece between nodes they fix w's analytic formula."""
        c0, s0 = x.cos(), x.sin()
        t0, t1 = _apply(self.T, (c0, s0))
        if self.m == 0:
            c = t0 * t0 + t1 * t1 - 1
        else:
            c = (abs(t0) + abs(t1)) / (abs(c0) + abs(s0)) - 1
        out = [1 if v > 0 else -1 if v < 0 else 0 for v in (c0, s0, t0, t1, c)]
        return None if 0 in out[: 4 if self.m else 0] else out

    def _box_parts(self, z: acb, signs):
        """(w's factor, c) as analytic functions on a complex box z, the signs of the piece
        fixing the Laplace norms; None where a norm's formula may vanish."""
        cz, sz = z.cos(), z.sin()
        t0, t1 = _apply(self.T, (cz, sz))
        if self.m == 0:
            return acb(1 / (2 * arb.pi())), t0 * t0 + t1 * t1 - 1
        n = signs[0] * cz + signs[1] * sz
        if n.contains(0):
            return None
        return 1 / (4 * n * n), (signs[2] * t0 + signs[3] * t1) / n - 1

    def _w_box_bound(self, z: acb, signs):
        """An upper bound of |w| on the box z, or None if w may not be analytic there: with
        s c in the sector |Im| <= t Re of the right half-plane, |g_m(c) - m! ln 2| <= |c|^2
        (m+2)!/8 max(1, t^2) (module docstring)."""
        parts = self._box_parts(z, signs)
        if parts is None or signs[4] == 0:
            return None
        f, c = parts
        cs = signs[4] * c
        if not cs.real > 0:
            return None
        t = abs(cs.imag).upper() / cs.real.lower()
        t2 = arb(1).union(t * t).upper()
        bound = self.gmax + abs(c).upper() ** 2 * math.factorial(self.m + 2) / 8 * t2
        return (abs(f) * bound).upper()

    def _near_zero_box_bound(self, z: acb, signs):
        parts = self._box_parts(z, signs)
        if parts is None:
            return None
        f, c = parts
        return abs(f * self._poly_at(c)).upper()

    # ----- models -------------------------------------------------------------------------

    def _tolerance(self) -> arb:
        """The pointwise error allowed to a model at the working precision."""
        return arb(2) ** -ctx.prec

    def _window(self, p: arb, q: arb, at_end: bool, tol: arb):
        """The longest window [p, x] (or [x, q] ``at_end``), its length (q - p) / 2^j, over
        which the polynomial of g_m is within tol of w: (x exact, error bound), or None when
        |c| is not small enough at the end."""
        for j in range(200):
            if j == 0:
                x = q if not at_end else p
            else:
                step = (q - p) / 2 ** j
                x = arb(((q - step) if at_end else (p + step)).mid())
            f, c = self._w_abs_c(x.union(q) if at_end else p.union(x))
            err = (f * self.poly_err * c ** 6).upper()
            if err <= tol:
                return x, err
            if not c.is_finite() or c.lower() * 2 > c.upper():  # |c| bounded away from 0
                return None
        return None

    def _piece_models(self, i: int) -> list:
        """Models covering the piece between nodes i and i + 1 at the working precision (those
        cached at the lowest precision at least as high are reused)."""
        prec = ctx.prec
        done = [b for b in self._models if b >= prec and i in self._models[b]]
        if done:
            return self._models[min(done)][i]
        p, q = self.nodes[i].upper(), self.nodes[i + 1].lower()
        tol = self._tolerance()
        self._budget = MAX_BISECTIONS
        with flint_precision(ctx.prec + GUARD_BITS):
            out = self._cover(p, q, tol)
        self._models.setdefault(prec, {})[i] = out
        return out

    def _cover(self, p: arb, q: arb, tol: arb) -> list:
        """Models of [p, q] (no kink strictly inside): windows at the ends where |c| is small
        (the polynomial of g_m, within tol / 2), Chebyshev models of w in between."""
        half = tol / 2
        if self.flat:
            return self._fit(p, q, half, arb(0), near_zero=True)
        left = self._window(p, q, False, half)
        right = self._window(p, q, True, half)
        a = left[0] if left else p
        b = right[0] if right else q
        if a >= b:  # the windows cover the piece
            err = arb(0)
            for window in (left, right):
                err = err if window is None else err.union(window[1]).upper()
            return self._fit(p, q, half, err, near_zero=True)
        out = self._fit(p, a, half, left[1], near_zero=True) if left else []
        out += self._fit(a, b, half, arb(0))
        if right:
            out += self._fit(b, q, half, right[1], near_zero=True)
        return out

    def _fit(self, lo: arb, hi: arb, tol: arb, extra: arb, near_zero=False, depth=0) -> list:
        """Chebyshev models of w (or, ``near_zero``, of the polynomial form, ``extra`` its
        pointwise distance to w) on [lo, hi], bisected until one has degree <= MAX_DEGREE: the
        interpolant in N + 1 Chebyshev points of a function analytic in the Bernstein ellipse
        E_rho of [lo, hi] with |f| <= M there is within 4 M rho^-N / (rho - 1) of it
        (Trefethen, *Approximation Theory and Approximation Practice*, Thm 8.2); M is bounded
        on boxes covering E_rho, where analyticity is checked."""
        if not hi > lo:
            return []
        mid = arb(((lo + hi) / 2).mid())
        signs = self._signs(mid)
        bound = self._near_zero_box_bound if near_zero else self._w_box_bound
        best = None
        if signs is not None:
            for rho in RHOS:
                M = _ellipse_bound(lambda z: bound(z, signs), lo, hi, rho)
                if M is None:
                    continue
                need = math.log(4 * float(M) / ((rho - 1) * float(tol))) / math.log(rho)
                n = max(2, math.ceil(need))
                if n <= MAX_DEGREE and (best is None or n < best[0]):
                    best = (n, rho, M)
        if best is not None:
            n, rho, M = best
            rho = arb(rho)
            err = (4 * M / ((rho - 1) * rho ** n)).upper()
            f = self._near_zero if near_zero else self._integrand
            return [_Model(lo, hi, _chebyshev(f, lo, hi, n), (err + extra).upper())]
        self._budget -= 1
        if depth >= MAX_DEPTH or self._budget < 0:  # a constant: w on the real ball (wide)
            v = self._near_zero(lo.union(hi)) if near_zero else self.w_ball(lo.union(hi))
            return [_Model(lo, hi, [arb(v.mid())], (v.rad() + extra).upper())]
        return (self._fit(lo, mid, tol, extra, near_zero, depth + 1)
                + self._fit(mid, hi, tol, extra, near_zero, depth + 1))

    # ----- integrals ----------------------------------------------------------------------

    def _piece_of(self, a: arb, b: arb) -> int:
        nodes = self.nodes
        for i in range(len(nodes) - 1):
            if nodes[i].upper() <= a and b <= nodes[i + 1].lower():
                return i
        raise NoConeEnclosure("an interval of directions crosses a node of the weight")

    def _between_kinks(self, a: arb, b: arb) -> arb:
        """The integral over [a, b] (exact ends, within one piece between nodes): the sum of
        the models' integrals, each with its error bound times the length."""
        if not b > a:
            return arb(0)
        total = arb(0)
        for mod in self._piece_models(self._piece_of(a, b)):
            lo = a if a > mod.lo else mod.lo
            hi = b if b < mod.hi else mod.hi
            if hi > lo:
                total += mod.integral(lo, hi)
        return total

    def _node_integral(self, i: int) -> arb:
        """The integral between node balls i and i + 1 (their radii counted as uncertain)."""
        key = (i, ctx.prec)
        if key not in self._full:
            p, q = self.nodes[i], self.nodes[i + 1]
            v = sum((mod.full for mod in self._piece_models(i)), arb(0))
            self._full[key] = v + self.uncertain(p.rad() + q.rad())
        return self._full[key]

    def uncertain(self, width: arb) -> arb:
        """[0, w_max m! ln 2 * width]: the integral over directions of unknown membership."""
        return (self.wmax * self.gmax * width).union(arb(0))

    def integral(self, a: arb, b: arb) -> arb:
        """The integral of w over [a, b], 0 <= a <= b <= 2 pi (the node balls touched and the
        radii of a and b count as uncertain)."""
        if a.rad() > 0 or b.rad() > 0:
            return self.integral(a.upper(), b.lower()) + self.uncertain(2 * (a.rad() + b.rad()))
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


def _ellipse_bound(bound, lo: arb, hi: arb, rho: float):
    """The largest of ``bound`` on boxes covering the Bernstein ellipse E_rho of [lo, hi] (foci
    lo and hi, semi-axes (hi - lo)(rho +- 1/rho)/4) in the upper half-plane (w is real on the
    real line, so |w| is symmetric), or None if ``bound`` refuses a box."""
    r = arb(rho)
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    ax, ay = half * (r + 1 / r) / 2, half * (r - 1 / r) / 2
    fa, fb = float(ax.upper()), float(ay.upper())
    worst = arb(0)
    for i in range(BOXES):
        x0, x1 = mid - ax + 2 * ax * i / BOXES, mid - ax + 2 * ax * (i + 1) / BOXES
        for j in range(BOXES // 2):
            y0, y1 = ay * 2 * j / BOXES, ay * 2 * (j + 1) / BOXES
            dx = max(0.0, max(abs(float((x0 - mid).mid())), abs(float((x1 - mid).mid())))
                     - float((x1 - x0).mid()))
            dy = float(y0.mid())
            if (dx / fa) ** 2 + (dy / fb) ** 2 > 1.01:  # the box misses the ellipse
                continue
            z = acb(x0.union(x1), y0.union(y1))
            b = bound(z)
            if b is None or not b.is_finite():
                return None
            worst = worst.union(b).upper()
    return worst


def _chebyshev(f, lo: arb, hi: arb, n: int) -> list:
    """The Chebyshev coefficients of the interpolant of f in the n + 1 points
    cos(j pi / n) of [lo, hi] (balls containing the exact interpolant's)."""
    cos = [(arb(i) / n).cos_pi() for i in range(2 * n)]
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    vals = [f(mid + half * cos[j]) for j in range(n + 1)]
    vals[0], vals[n] = vals[0] / 2, vals[n] / 2
    out = []
    for k in range(n + 1):
        s = arb(0)
        for j in range(n + 1):
            s += vals[j] * cos[(j * k) % (2 * n)]
        out.append(s * 2 / n)
    out[0], out[n] = out[0] / 2, out[n] / 2
    return out


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
        e = (mid.cos(), mid.sin())
        te = _apply(weight.T, e)
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


def _apply(T, e):
    """T e for a 2x2 matrix of balls and a pair of balls."""
    return (T[0][0] * e[0] + T[0][1] * e[1], T[1][0] * e[0] + T[1][1] * e[1])
