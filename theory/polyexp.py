"""Piecewise poly-exponential functions: the exact convolution algebra of uniform, Laplace and
exponential laws, and their smoothing by a normal law.

A :class:`PolyExp` is a function that is, on each piece ``[lo, hi]`` of a finite partition of the
real line (ends may be infinite), a finite sum ``sum c * x^k * exp(r * x)`` with integer ``k >= 0``,
exact rational rates ``r`` (:class:`fractions.Fraction`) and arb coefficients ``c``. Densities of
uniform (``k = r = 0``), Laplace (``r = +-1/b``) and exponential (``r = -rate``) laws are of this
form, and so are their affine images, their convolutions (:meth:`PolyExp.convolve`) and their
antiderivatives (:meth:`PolyExp.cdf`, :meth:`PolyExp.sf`). Breakpoints are exact rationals, so
coinciding breakpoints merge exactly.

Convolution, piece by piece: for pieces ``[a1, b1]`` of f and ``[a2, b2]`` of g,
``h(z) = int_L^U f(x) g(z - x) dx`` with ``L = max(a1, z - b2)``, ``U = min(b1, z - a2)``; expanding
``(z - x)^k2 = sum_m C(k2, m) z^(k2-m) (-x)^m`` leaves integrals of ``x^n e^(g x)``, whose
antiderivative is ``e^(g x) sum_i (-1)^i n!/(n-i)! x^(n-i) / g^(i+1)`` (``x^(n+1)/(n+1)`` when
g = 0), evaluated at constant ends or at ``z - const``: again a poly-exponential in z, on the
pieces cut by the four sums ``a1 + a2, a1 + b2, b1 + a2, b1 + b2``.

Normal smoothing (:func:`gauss_smooth`): ``int phi_s(u - y) y^k e^(l y) dy`` over a piece is, with
``e^(l y) phi_s(u - y) = e^(l u + l^2 s^2 / 2) phi_s(mu - y)``, ``mu = u + l s^2``, a combination
``sum_i C(k, i) mu^(k-i) s^i M_i`` of truncated normal moments ``M_i = int t^i phi(t) dt``
(``M_0`` a difference of normal CDFs taken from whichever tail keeps precision, ``M_1 = phi(ta) -
phi(tb)``, ``M_i = (i-1) M_(i-2) + ta^(i-1) phi(ta) - tb^(i-1) phi(tb)``): the density, CDF and
survival function of ``N(m, s^2) + P`` for a poly-exponential law P in closed form.

All formulas hold for complex arguments: :meth:`PolyExp.branch` returns the analytic formula of
the piece containing a real point, for certified quadrature on complex balls.

Examples
--------
>>> from fractions import Fraction as Q
>>> from flint import arb
>>> u = PolyExp.uniform(Q(-1), Q(1))
>>> t = u.convolve(u)                       # X + Y, triangular on [-2, 2]
>>> [str(p) for p in t.breakpoints()]
['-2', '0', '2']
>>> t.value(arb(1)).str(10), t.cdf().value(arb(0)).str(10)
('0.2500000000', '0.5000000000')
>>> lap = PolyExp.laplace(Q(0), Q(1))
>>> lap.sf().value(arb(2)).str(10, radius=False), (arb(-2).exp() / 2).str(10, radius=False)
('0.06766764162', '0.06766764162')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from math import comb, factorial

from flint import acb, arb, ctx

from fstheory.theory.balls import ball, ipow

__all__ = ["PolyExp", "Piece", "gauss_smooth", "log_gauss_smooth", "tail_integral", "product_integral", "end_sum", "INF"]

INF = math.inf

Terms = dict  # (k: int, rate: Fraction) -> arb coefficient


def _add(terms: Terms, key, coef) -> None:
    if key in terms:
        terms[key] = terms[key] + coef
    else:
        terms[key] = coef


def _poly_shift_terms(n: int, shift: Fraction) -> list:
    """(z - shift)^n = sum_l C(n, l) z^l (-shift)^(n-l): [(l, coefficient)]."""
    return [(l, comb(n, l) * ipow(ball(-shift), n - l)) for l in range(n + 1)]


def _antiderivative(n: int, g: Fraction) -> list:
    """int x^n e^(g x) dx = e^(g x) sum_i c_i x^i: [(i, c_i)] (g = 0: x^(n+1)/(n+1))."""
    if g == 0:
        return [(n + 1, arb(1) / (n + 1))]
    out = []
    ga = ball(g)
    for i in range(n + 1):
        coef = arb((-1) ** i * factorial(n) // factorial(n - i)) / ga ** (i + 1)
        out.append((n - i, coef))
    return out


def _at_constant(anti: list, g: Fraction, x) -> arb:
    """The antiderivative at a constant end (0 at an infinite end where e^(g x) decays)."""
    if x in (INF, -INF):
        if g == 0 or (g > 0) == (x > 0):
            raise ArithmeticError("divergent integral in a poly-exponential convolution")
        return arb(0)
    xa = ball(x)
    return (ball(g) * xa).exp() * sum((c * ipow(xa, i) for i, c in anti), arb(0))


def _at_shift(anti: list, g: Fraction, shift: Fraction) -> Terms:
    """The antiderivative at x = z - shift, as terms in z (rate g)."""
    out: Terms = {}
    factor = (-ball(g) * ball(shift)).exp()
    for i, c in anti:
        for l, cl in _poly_shift_terms(i, shift):
            _add(out, (l, g), factor * c * cl)
    return out


#: degree (exclusive) of the Taylor polynomials of e^(r y) near a piece's end
SERIES_ORDER = 8


def exp_tail(w, n: int):
    """``e^w - sum_(j<n) w^j/j!`` for |w| <= 1/2 (arb or acb): ``w^n sum_j w^j/(j+n)!``,
    truncated where the next term is below 2^-(prec+10), with the tail bounded by twice that
    term (the ratio of the terms is at most 1/2)."""
    size = abs(w).upper()
    total, term = w * 0, w * 0 + arb(1) / factorial(n)
    j = 0
    bound = arb(1) / factorial(n)
    limit = arb(2) ** -(ctx.prec + 10)
    while not bound <= limit:
        total += term
        j += 1
        term = term * w / (j + n)
        bound = bound * size / (j + n)
    err = arb(0, (2 * bound).upper())
    total += acb(err, err) if isinstance(total, acb) else err
    return ipow(w, n) * total


@dataclass
class Piece:
    """One piece: ``terms`` in the absolute variable x; evaluation uses the same function
    re-expanded about a finite end x0 of the piece (``y = x - x0``), which keeps the relative
    precision of values near a zero at that end (a density vanishing at its support end)."""

    lo: object  # Fraction or -INF
    hi: object  # Fraction or INF
    terms: Terms

    def __post_init__(self):
        self._local = {}
        ends = [e for e in (self.lo, self.hi) if e != INF and e != -INF]
        self._ends = ends
        self._ends_arb = [ball(e) for e in ends]
        self._split = (self._ends_arb[0] + self._ends_arb[1]) / 2 if len(ends) == 2 else None

    def _origin(self, x) -> int:
        """Index of the finite end of the piece nearest to the real point x (-1: none)."""
        if not self._ends:
            return -1
        if self._split is None:
            return 0
        xm = x.real.mid() if isinstance(x, acb) else x.mid()
        return 0 if xm <= self._split else 1

    def local_terms(self, i: int) -> list:
        """[(k, rate as arb or None, coefficient)] in y = x - x0 (x0 the i-th finite end, or 0):
        c x^k e^(r x) = c e^(r x0) (y + x0)^k e^(r y)."""
        if i not in self._local:
            x0 = self._ends[i] if i >= 0 else Fraction(0)
            out: Terms = {}
            for (k, r), c in self.terms.items():
                factor = c * (ball(r) * ball(x0)).exp() if r != 0 else c
                for l, cl in _poly_shift_terms(k, -x0):
                    _add(out, (l, r), factor * cl)
            self._local[i] = [(k, ball(r) if r != 0 else None, c) for (k, r), c in out.items()]
        return self._local[i]

    def series_terms(self, i: int):
        """(a, rest): the local terms about the i-th end with each e^(r y) written as its
        Taylor polynomial of degree < :data:`SERIES_ORDER` plus ``E(r y)`` (the series' tail,
        :func:`exp_tail`): ``a`` the polynomial's coefficients by power of y, ``rest`` the
        [(k, r, c)] of the terms ``c y^k E(r y)``. None for a single term or a polynomial
        (nothing cancels)."""
        key = ("series", i)
        if key not in self._local:
            terms = self.local_terms(i)
            out = None
            if len(terms) > 1 and any(r is not None for _, r, _ in terms):
                a = [arb(0)] * (max(k for k, _, _ in terms) + SERIES_ORDER)
                rest = []
                for k, r, c in terms:
                    if r is None:
                        a[k] += c
                        continue
                    power = c
                    for j in range(SERIES_ORDER):
                        a[k + j] += power
                        power = power * r / (j + 1)
                    rest.append((k, r, c))
                out = (a, rest)
            self._local[key] = out
        return self._local[key]

    def _series_at(self, i: int, y):
        """The function at y = x - end by :meth:`series_terms`, or None where some |r y| may
        exceed 1/2. Near an end where the terms cancel (``y - (1 - e^(-6 y))/6 ~ 3 y^2``) the
        polynomial's low coefficients are balls about 0 and the value keeps its relative
        precision on wide balls, where summing the terms would not."""
        got = self.series_terms(i)
        if got is None:
            return None
        a, rest = got
        size = abs(y).upper()
        if not all(abs(r).upper() * size <= arb("0.5") for _, r, _ in rest):
            return None
        total = y * 0
        for coef in reversed(a):
            total = total * y + coef
        for k, r, c in rest:
            t = c * exp_tail(r * y, SERIES_ORDER)
            total += t * ipow(y, k) if k else t
        return total

    def at(self, x, x_real=None):
        """The function at x (arb or acb), expanded about the end nearest to x_real (or x)."""
        i = self._origin(x if x_real is None else x_real)
        y = x - self._ends_arb[i] if i >= 0 else x
        if i >= 0:
            near = self._series_at(i, y)
            if near is not None:
                return near
        total = None
        for k, r, c in self.local_terms(i):
            t = c * ipow(y, k) if k else c
            if r is not None:
                t = t * (r * y).exp()
            total = t if total is None else total + t
        if total is None:
            return x * 0
        return total

    __call__ = at


class PolyExp:
    """A piecewise poly-exponential function (zero outside its pieces)."""

    def __init__(self, pieces: list):
        merged = []
        for p in sorted(pieces, key=lambda p: (p.lo, p.hi)):
            if p.lo < p.hi:
                merged.append(Piece(p.lo, p.hi, _prune(p)))
        self.pieces = merged

    # --- constructors ---------------------------------------------------------------------------
    @staticmethod
    def uniform(lo: Fraction, hi: Fraction) -> "PolyExp":
        return PolyExp([Piece(lo, hi, {(0, Fraction(0)): arb(1) / ball(hi - lo)})])

    @staticmethod
    def laplace(mu: Fraction, b: Fraction) -> "PolyExp":
        r = 1 / b
        c = arb(1) / (2 * ball(b))
        return PolyExp([
            Piece(-INF, mu, {(0, r): c * (-ball(r) * ball(mu)).exp()}),
            Piece(mu, INF, {(0, -r): c * (ball(r) * ball(mu)).exp()}),
        ])

    @staticmethod
    def exponential(rate: Fraction) -> "PolyExp":
        return PolyExp([Piece(Fraction(0), INF, {(0, -rate): ball(rate)})])

    # --- queries --------------------------------------------------------------------------------
    def breakpoints(self) -> list:
        pts = set()
        for p in self.pieces:
            pts.add(p.lo)
            pts.add(p.hi)
        return sorted(pts)

    @property
    def support(self) -> tuple:
        return self.pieces[0].lo, self.pieces[-1].hi

    def piece_at(self, x: arb) -> Piece | None:
        """The piece containing the real point x (by its midpoint), or None outside."""
        if isinstance(x, acb):
            x = x.real
        m = x.mid()
        for p in self.pieces:
            if (p.lo == -INF or p._ends_arb[0] <= m) and (p.hi == INF or m <= p._ends_arb[-1]):
                return p
        return None

    def value(self, x: arb) -> arb:
        p = self.piece_at(x)
        return arb(0) if p is None else p(x)

    def branch(self, m: arb):
        """The analytic formula of the piece containing the real point m, for complex balls."""
        p = self.piece_at(m)
        if p is None:
            return lambda z: z * 0
        return p.at

    # --- algebra ----------------------------------------------------------------------------------
    def affine(self, a: Fraction, b: Fraction, density: bool = True) -> "PolyExp":
        """The function x -> f((x - b)/a) (divided by |a| when ``density``): the law of aX + b."""
        if a == 0:
            raise ValueError("affine map with a = 0")
        out = []
        scale = arb(1) / abs(ball(a)) if density else arb(1)
        ainv = 1 / a
        for p in self.pieces:
            ends = [a * e + b if e not in (INF, -INF) else (e if a > 0 else -e) for e in (p.lo, p.hi)]
            lo, hi = min(ends), max(ends)
            terms: Terms = {}
            for (k, r), c in p.terms.items():
                # ((x - b)/a)^k e^(r (x - b)/a)
                rate = r * ainv
                factor = (-ball(r) * ball(b) * ball(ainv)).exp() * ipow(ball(ainv), k)
                for l, cl in _poly_shift_terms(k, b):
                    _add(terms, (l, rate), scale * c * factor * cl)
            out.append(Piece(lo, hi, terms))
        return PolyExp(out)

    def convolution_work(self, other: "PolyExp") -> int:
        """The number of term operations :meth:`convolve` does with ``other`` (up to a small
        factor): for each pair of pieces and each pair of terms x^k1 e^(a x), x^k2 e^(b x),
        (k2 + 1) binomial terms with antiderivatives of k1 + k2 + 1 terms, on up to three
        intervals. Cheap; the growth of repeated convolutions is in it (the sum of 40 uniform
        laws has 40 pieces of 40 terms)."""
        work = 0
        for p in self.pieces:
            for q in other.pieces:
                for (k1, _), _c in p.terms.items():
                    for (k2, _), _d in q.terms.items():
                        work += 3 * (k2 + 1) * (k1 + k2 + 2)
        return work

    def convolve(self, other: "PolyExp") -> "PolyExp":
        """The convolution (f * g)(z) = int f(x) g(z - x) dx: the law of the sum."""
        contributions = []  # (zlo, zhi, terms)
        for p in self.pieces:
            for q in other.pieces:
                contributions += _piece_convolution(p, q)
        return _assemble(contributions)

    def moment(self, j: int) -> arb:
        """int x^j f(x) dx over all pieces (exact antiderivatives)."""
        total = arb(0)
        for p in self.pieces:
            for (k, r), c in p.terms.items():
                anti = _antiderivative(k + j, r)
                total += c * (_at_constant(anti, r, p.hi) - _at_constant(anti, r, p.lo))
        return total

    def cdf(self) -> "PolyExp":
        """x -> int_{-inf}^x f (computed from the left)."""
        out, acc = [], arb(0)
        for p in self.pieces:
            terms: Terms = {}
            at_lo = arb(0)
            for (k, r), c in p.terms.items():
                anti = _antiderivative(k, r)
                for i, ci in anti:
                    _add(terms, (i, r), c * ci)
                at_lo += c * _at_constant(anti, r, p.lo)
            _add(terms, (0, Fraction(0)), acc - at_lo)
            piece = Piece(p.lo, p.hi, terms)
            out.append(piece)
            if p.hi != INF:
                acc = piece(ball(p.hi))
        last_hi = self.pieces[-1].hi if self.pieces else INF
        if last_hi != INF:
            out.append(Piece(last_hi, INF, {(0, Fraction(0)): acc}))
        return PolyExp(out)

    def sf(self) -> "PolyExp":
        """x -> int_x^inf f (computed from the right, so that upper tails keep precision)."""
        out, acc = [], arb(0)
        for p in reversed(self.pieces):
            terms: Terms = {}
            at_hi = arb(0)
            for (k, r), c in p.terms.items():
                anti = _antiderivative(k, r)
                for i, ci in anti:
                    _add(terms, (i, r), -c * ci)
                at_hi += c * _at_constant(anti, r, p.hi)
            _add(terms, (0, Fraction(0)), acc + at_hi)
            piece = Piece(p.lo, p.hi, terms)
            out.append(piece)
            if p.lo != -INF:
                acc = piece(ball(p.lo))
        first_lo = self.pieces[0].lo if self.pieces else -INF
        if first_lo != -INF:
            out.append(Piece(-INF, first_lo, {(0, Fraction(0)): acc}))
        return PolyExp(out)


def _prune(p: Piece) -> Terms:
    """Drop exact zeros, and terms that grow towards an infinite end of the piece: those are
    mathematically zero (the function is bounded there) and only rounding left them."""
    out: Terms = {}
    for (k, r), c in p.terms.items():
        if c.is_zero():
            continue
        grows = (p.hi == INF and (r > 0 or (r == 0 and k > 0))) or (
            p.lo == -INF and (r < 0 or (r == 0 and k > 0)))
        if grows or (p.lo == -INF and r == 0 and k == 0):
            if c.contains(0):
                continue
            if grows:
                raise ArithmeticError("a poly-exponential piece grows towards infinity")
        out[(k, r)] = c
    return out


def _piece_convolution(p: Piece, q: Piece) -> list:
    a1, b1, a2, b2 = p.lo, p.hi, q.lo, q.hi
    sums = sorted({end_sum(a1, a2), end_sum(a1, b2), end_sum(b1, a2), end_sum(b1, b2)})
    out = []
    for zlo, zhi in zip(sums, sums[1:]):
        zm = _mid(zlo, zhi)
        # L = max(a1, z - b2), U = min(b1, z - a2): each a constant or z - shift
        lower = ("const", a1) if (b2 == INF or zm - b2 <= a1) else ("shift", b2)
        upper = ("const", b1) if (a2 == -INF or zm - a2 >= b1) else ("shift", a2)
        if lower[0] == "const" and lower[1] == -INF and upper[0] == "const" and upper[1] == INF:
            raise ArithmeticError("divergent convolution")
        terms: Terms = {}
        for (k1, al), c1 in p.terms.items():
            for (k2, be), c2 in q.terms.items():
                g = al - be
                for m in range(k2 + 1):
                    coef = c1 * c2 * comb(k2, m) * (-1) ** m
                    n = k1 + m
                    anti = _antiderivative(n, g)
                    zpow = k2 - m
                    for sign, end in ((1, upper), (-1, lower)):
                        if end[0] == "const":
                            val = _at_constant(anti, g, end[1])
                            _add(terms, (zpow, be), sign * coef * val)
                        else:
                            for (l, rate), cz in _at_shift(anti, g, end[1]).items():
                                _add(terms, (zpow + l, be + rate), sign * coef * cz)
        out.append((zlo, zhi, terms))
    return out


def end_sum(a, b):
    """a + b for interval ends that may be infinite (Fractions or +-INF)."""
    if a in (INF, -INF):
        return a
    if b in (INF, -INF):
        return b
    return a + b


def _mid(lo, hi):
    if lo == -INF and hi == INF:
        return Fraction(0)
    if lo == -INF:
        return hi - 1
    if hi == INF:
        return lo + 1
    return (lo + hi) / 2


def _assemble(contributions: list) -> PolyExp:
    pts = sorted({e for lo, hi, _ in contributions for e in (lo, hi)})
    pieces = []
    for lo, hi in zip(pts, pts[1:]):
        zm = _mid(lo, hi)
        terms: Terms = {}
        for clo, chi, t in contributions:
            if clo <= zm <= chi:
                for key, c in t.items():
                    _add(terms, key, c)
        if terms:
            pieces.append(Piece(lo, hi, terms))
    return PolyExp(pieces)


def product_integral(p: Piece, q: Piece, alpha: arb, beta: Fraction, lo: arb, hi: arb) -> arb:
    """int_lo^hi p(x) q(alpha + beta x) dx in closed form, for pieces p and q of poly-exponential
    functions (the interval inside both pieces): the integrand is a poly-exponential in x,
    c1 x^k1 e^(r1 x) c2 (alpha + beta x)^k2 e^(r2 alpha) e^(r2 beta x), integrated term by term.

    >>> from fractions import Fraction as Q
    >>> u = PolyExp.uniform(Q(0), Q(1)).pieces[0]
    >>> product_integral(u, u, arb(1), Q(-1), arb(0), arb(1)).str(5, radius=False)  # int 1*1
    '1.0000'
    """
    terms: Terms = {}
    b = ball(beta)
    for (k1, r1), c1 in p.terms.items():
        for (k2, r2), c2 in q.terms.items():
            factor = c1 * c2 * ((ball(r2) * alpha).exp() if r2 != 0 else 1)
            g = r1 + r2 * beta
            for j in range(k2 + 1):
                _add(terms, (k1 + j, g), factor * comb(k2, j) * ipow(alpha, k2 - j) * ipow(b, j))
    total = arb(0)
    for (n, g), c in terms.items():
        anti = _antiderivative(n, g)
        ga = ball(g)
        for x, sign in ((hi, 1), (lo, -1)):
            e = (ga * x).exp() if g != 0 else 1
            total += sign * c * e * sum((ci * ipow(x, i) for i, ci in anti), arb(0))
    return total


# --- smoothing by a normal law --------------------------------------------------------------------

def _phi(t):
    return (-t * t / 2).exp() / (2 * arb.pi()).sqrt()


def _normal_mass(ta, tb, mid_a, mid_b):
    """Phi(tb) - Phi(ta), from the tail that keeps precision (sides decided at real points)."""
    r2 = arb(2).sqrt()
    if mid_a is not None and mid_a >= 0:  # both in the upper tail
        q_b = (tb / r2).erfc() / 2 if tb is not None else 0
        return (ta / r2).erfc() / 2 - q_b
    if mid_b is not None and mid_b <= 0:  # both in the lower tail
        p_a = (-ta / r2).erfc() / 2 if ta is not None else 0
        return (-tb / r2).erfc() / 2 - p_a
    lower = (-ta / r2).erfc() / 2 if ta is not None else 0
    upper = (tb / r2).erfc() / 2 if tb is not None else 0
    return 1 - lower - upper


def _smooth_term(k: int, la, p, u, umid, s, s2, shift: Fraction = Fraction(0)):
    """int_piece phi_s(u - y) (y - shift)^k e^(la y) dy = e^(la u + la^2 s^2 / 2) * poly:
    ``poly``."""
    mu = u + la * s2
    mu_mid = umid + la * s2
    ta = None if p.lo == -INF else (ball(p.lo) - mu) / s
    tb = None if p.hi == INF else (ball(p.hi) - mu) / s
    ta_mid = None if p.lo == -INF else ((ball(p.lo) - mu_mid) / s).mid()
    tb_mid = None if p.hi == INF else ((ball(p.hi) - mu_mid) / s).mid()
    moments = [_normal_mass(ta, tb, ta_mid, tb_mid)]
    pa = _phi(ta) if ta is not None else 0
    pb = _phi(tb) if tb is not None else 0
    if k >= 1:
        moments.append(pa - pb)
    for i in range(2, k + 1):
        term_a = ipow(ta, i - 1) * pa if ta is not None else 0
        term_b = ipow(tb, i - 1) * pb if tb is not None else 0
        moments.append((i - 1) * moments[i - 2] + term_a - term_b)
    centre = mu - ball(shift) if shift else mu
    return sum((comb(k, i) * ipow(centre, k - i) * ipow(s, i) * moments[i] for i in range(k + 1)),
               u * 0)


def gauss_smooth(f: PolyExp, m, s, z, zmid: arb | None = None):
    """int phi_s(z - m - y) f(y) dy: the density (f a density), CDF (f a CDF) or survival
    function (f a survival function) of N(m, s^2) + P, at z (arb or acb; for a complex ball give
    the real point ``zmid`` at which the tail choices are made)."""
    if zmid is None:
        zmid = z.real if isinstance(z, acb) else z
    u = z - m
    umid = zmid - (m.real if isinstance(m, acb) else m)
    total = z * 0
    s2 = s * s
    for p in f.pieces:
        for (k, lam), c in p.terms.items():
            la = ball(lam)
            total += c * (la * u + la * la * s2 / 2).exp() * _smooth_term(k, la, p, u, umid, s, s2)
    return total


# --- logarithms of normal smoothings, for far tails ---------------------------------------------

#: a term is written from its piece's end once the end lies this many standard deviations into
#: the normal's tail (below it the moments above keep their precision)
TAIL = 1


def _tail_integral_point(i: int, a0):
    """K_i at an exact point a0, as an acb ball: K_0 = sqrt(pi/2)
    e^(a^2/2) erfc(a/sqrt 2), then K_1 = 1 - a K_0 and K_(j+1) = j K_(j-1) - a K_j (integration
    by parts), run with 2 log2|a| + 2 more bits per step for the cancellation of the recurrence
    (arb's asymptotic series of U is limited to about e^(-a^2/2) relative accuracy)."""
    a0 = acb(a0)
    size = abs(a0).upper()
    step = 2 * max(0, math.ceil(math.log2(float(size)))) + 2
    saved = ctx.prec
    ctx.prec = saved + 20 + i * step
    try:
        r2 = arb(2).sqrt()
        k_prev, k = None, (arb.pi() / 2).sqrt() * (a0 * a0 / 2).exp() * (a0 / r2).erfc()
        for j in range(i):
            k_prev, k = k, (1 if j == 0 else j * k_prev) - a0 * k
        return k + 0
    finally:
        ctx.prec = saved


def tail_integral(i: int, a):
    """K_i(a) = int_0^oo v^i e^(-a v - v^2/2) dv = i! 2^(-(i+1)/2) U((i+1)/2, 1/2, a^2/2) (U
    Tricomi's confluent hypergeometric function; DLMF 12.5.1 and 12.7.14): an entire function
    of a, positive and slowly varying on the positive axis (K_i ~ i!/a^(i+1)).

    On a ball it is evaluated at the centre a0 and widened by ``|a - a0| K_(i+1)(min Re a)``: ``|K_i'| = |K_(i+1)| <=
    K_(i+1)(Re a)``, and K_(i+1) decreases on the real axis (arb's enclosures of erfc and U on
    a wide complex ball are far looser, or nan).

    >>> from flint import arb
    >>> tail_integral(0, arb(2)).str(10, radius=False)      # sqrt(pi/2) e^2 erfc(sqrt 2)
    '0.4213692293'
    """
    z = acb(a)
    re, im = z.real, z.imag
    a0 = acb(re.mid(), im.mid())
    lo = re.lower()
    if not (lo.is_finite() and im.is_finite()):
        return acb("nan") if isinstance(a, acb) else arb("nan")
    value = _tail_integral_point(i, a0)
    r = (re.rad() * re.rad() + im.rad() * im.rad()).sqrt()
    if r != 0:
        slope = abs(_tail_integral_point(i + 1, acb(lo))).upper()
        e = arb(0, (r * slope).upper())
        value += acb(e, e)
    return value if isinstance(a, acb) else value.real


def _smooth_parts(f: PolyExp, m, s, z, zmid):
    """f smoothed by N(m, s^2) at z (:func:`gauss_smooth`) as a list of ((A, B, C), W) with the
    value ``sum W e^E``, ``E = A + B u + C u^2`` (u = z - m) and W slowly varying. A term whose
    piece lies in the normal's upper tail from its lower end ``lo`` (``ta >= TAIL``), with
    ``y = lo + s v``, is ``int_lo^oo phi_s(u - y) y^k e^(l y) dy = e^(l lo - (lo - u)^2 / (2
    s^2)) / sqrt(2 pi) sum_i C(k, i) lo^(k-i) s^i K_i(ta)`` (:func:`tail_integral`), and a
    finite piece is the difference of two such tails; the lower tail likewise from its upper
    end. No two parts of the size of the value cancel: the far tail of a smoothed law keeps its
    relative precision on complex balls, where the moments of :func:`gauss_smooth` lose it."""
    u = z - m
    umid = zmid - (m.real if isinstance(m, acb) else m)
    s2 = s * s
    norm = 1 / (2 * arb.pi()).sqrt()
    parts = []
    for p in f.pieces:
        rates: dict = {}
        for (k, lam), c in p.terms.items():
            rates.setdefault(lam, {})[k] = c
        for lam, poly in rates.items():
            la = ball(lam)
            mu_mid = umid + la * s2
            ta_mid = None if p.lo == -INF else ((ball(p.lo) - mu_mid) / s).mid()
            tb_mid = None if p.hi == INF else ((ball(p.hi) - mu_mid) / s).mid()
            if ta_mid is not None and ta_mid >= TAIL:
                ends = [(p.lo, 1, 1)] + ([(p.hi, 1, -1)] if p.hi != INF else [])
            elif tb_mid is not None and tb_mid <= -TAIL:
                ends = [(p.hi, -1, 1)] + ([(p.lo, -1, -1)] if p.lo != -INF else [])
            else:
                # the piece's polynomial about its centre: its Taylor coefficients are small
                # where the powers of y would cancel (a piece far from 0)
                centre = _mid(p.lo, p.hi) if (p.lo != -INF or p.hi != INF) else Fraction(0)
                w = u * 0
                for j in range(max(poly) + 1):
                    d = _taylor(poly, j, centre)
                    if not d.is_zero():
                        w += d * _smooth_term(j, la, p, u, umid, s, s2, centre)
                parts.append(((la * la * s2 / 2, la, arb(0)), w))
                continue
            mu = u + la * s2
            top = max(poly)
            for end, side, sign in ends:
                e = ball(end)
                a = side * (e - mu) / s
                # the piece's polynomial expanded about its end (its Taylor coefficients d_i
                # exact where the polynomial is: a survival function's piece vanishing at its
                # end leaves no leading term to cancel)
                w = u * 0
                for i in range(top + 1):
                    d = _taylor(poly, i, end)
                    if not d.is_zero():
                        w += d * ipow(side * s, i) * tail_integral(i, a)
                parts.append(((la * e - e * e / (2 * s2), e / s2, -1 / (2 * s2)), sign * norm * w))
    return parts


def _taylor(poly: dict, i: int, centre: Fraction):
    """The coefficient of (y - centre)^i in sum_k poly[k] y^k."""
    c = ball(centre)
    return sum((a * comb(k, i) * ipow(c, k - i) for k, a in poly.items() if k >= i), arb(0))


def _quadratic(coefs, u):
    a, b, c = coefs
    return a + u * (b + c * u)


def log_gauss_smooth(f: PolyExp, m, s, zmid: arb):
    """ln of :func:`gauss_smooth` as an analytic function of complex balls near the real point
    ``zmid`` (every choice made there): ``E_r + ln sum_j W_j e^(E_j - E_r)`` over the parts of
    :func:`_smooth_parts`, the reference r the largest part at ``zmid``, each ``E_j - E_r``
    evaluated from the differences of the polynomials' coefficients. Non-finite where a ball
    meets the logarithm's cut. Unlike ln of the sum itself, no exponential of a far tail is
    taken: in a normal tail the value is ``e^(-t^2/2)`` times a slowly varying factor, and
    ``-t^2/2`` is a polynomial."""
    at = _smooth_parts(f, m, s, zmid, zmid)
    u_mid = zmid - m

    def size(part):
        coefs, w = part
        w = abs(w).mid()
        return _quadratic(coefs, u_mid).mid() + (w.log() if w > 0 else arb(-10**9))

    sizes = [size(part) for part in at]
    ref = max(range(len(at)), key=lambda j: sizes[j])
    coefs_ref = at[ref][0]

    def g(z):
        u = z - m
        parts = _smooth_parts(f, m, s, z, zmid)
        total = z * 0
        for coefs, w in parts:
            delta = tuple(x - y for x, y in zip(coefs, coefs_ref))
            total += w * _quadratic(delta, u).exp()
        log_total = total.log(analytic=True) if isinstance(total, acb) else total.log()
        return _quadratic(coefs_ref, u) + log_total

    return g
