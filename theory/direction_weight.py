"""The weight of the integrals over directions of :mod:`fstheory.theory.cone_enclosure`:
``w(theta)`` as piecewise Chebyshev models with rigorous remainders (Bernstein ellipses), built
on demand and kept per piece of the circle (:class:`DirectionWeight`), with the precision and
model constants they use."""

from __future__ import annotations

import math

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.quadrature import flint_precision
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.two_point_fibre import angles_of_form, quadratic_zeros, g_series


__all__ = ["DirectionWeight", "NoConeEnclosure", "g_at_precision", "to_arb", "apply_matrix", "merge_balls", "GRID", "GUARD_BITS", "RHOS",
           "MAX_DEGREE", "MAX_DEPTH", "MAX_BISECTIONS", "PMAX", "BOXES"]

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


def to_arb(x) -> arb:
    """An exact rational (after exact_nsimplify) as an arb ball; anything else is refused
    (NoConeEnclosure)."""
    x = exact_nsimplify(x)
    if not x.is_Rational:
        raise NoConeEnclosure(f"a coefficient {x} is not rational")
    return arb(int(x.p)) / int(x.q)


def merge_balls(balls: list) -> list:
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
        self.T = [[to_arb(v) for v in row] for row in Tq]
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
        self.nodes = merge_balls([arb(0), *grid[1:], *kinks])
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
        t0, t1 = apply_matrix(self.T, (c0, s0))
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
        t0, t1 = apply_matrix(self.T, (c0, s0))
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
        t0, t1 = apply_matrix(self.T, (cz, sz))
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


def apply_matrix(T, e):
    """T e for a 2x2 matrix of balls and a pair of balls."""
    return (T[0][0] * e[0] + T[0][1] * e[1], T[1][0] * e[0] + T[1][1] * e[1])
