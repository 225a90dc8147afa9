"""The one-dimensional laws of the numerical route, each on arb balls: the working
:class:`Accuracy`, the interface :class:`Law1D` (support, breakpoints, ``pdf``, ``cdf``, ``sf``,
analytic branches for complex balls, :meth:`Law1D.box`) and its families -- :class:`Normal`,
:class:`Logistic`, the piecewise poly-exponential :class:`PELaw`, a normal plus a
poly-exponential law :class:`GaussPE`, and the numerical convolution :class:`Convolved`. How a
linear combination of base variables is built from them is in
:mod:`fstheory.theory.univariate`."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from flint import acb, arb

from fstheory.theory.balls import ball
from fstheory.theory.polyexp import (
    INF,
    TAIL,
    PolyExp,
    end_sum,
    gauss_smooth,
    log_gauss_smooth,
    tail_integral,
)
from fstheory.theory.quadrature import integrate_ball


__all__ = ["Accuracy", "Law1D", "Normal", "Logistic", "PELaw", "GaussPE", "Convolved",
           "to_fraction", "NotClosed", "Unsupported"]


class Unsupported(ValueError):
    """A law or combination this module cannot represent."""


class NotClosed(ValueError):
    """An analytic branch was asked of a law computed by numerical convolution."""


@dataclass(frozen=True)
class Accuracy:
    """Working precision (bits), absolute quadrature tolerance and tail mass of truncations."""

    bits: int
    tol: arb
    eps: arb

    @staticmethod
    def from_bits(bits: int, tol_digits: int | None = None) -> "Accuracy":
        digits = tol_digits if tol_digits is not None else int(bits * 0.30103) - 8
        tol = arb(10) ** (-digits)
        return Accuracy(bits, tol, tol * arb(10) ** -12)

    @property
    def inner_tol(self) -> arb:
        """Absolute tolerance of an inner integral (outer ranges are long and weight the inner
        error by factors such as |ln f| ~ 200): far below the outer tolerance."""
        return self.tol * arb(10) ** -6

    @property
    def inner_rel(self) -> arb:
        """Relative tolerance of an inner integral that enters a logarithm (a density): its
        error, times |ln f| and the outer length, must stay well below the outer tolerance,
        or the outer quadrature sees it as noise and cannot converge."""
        return self.tol / 100


def to_fraction(value, bits: int = 200) -> Fraction:
    """A sympy number as an exact Fraction (rationals) or a close rational approximation."""
    value = sp.sympify(value)
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    if not value.is_number or not value.is_finite:
        raise Unsupported(f"law parameter {value} is not a finite number")
    num = sp.N(value, int(bits * 0.30103) + 10)
    if not num.is_real:
        raise Unsupported(f"law parameter {value} is not real")
    return Fraction(str(num))


def _log(x):
    """ln x on a real ball, or the analytic branch on a complex ball (non-finite where the ball
    meets the branch cut, as certified quadrature needs)."""
    return x.log(analytic=True) if isinstance(x, acb) else x.log()


def _exact(x: arb) -> Fraction:
    """An exact (radius 0) arb as a Fraction."""
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2**-e)


def _frac_down(x: arb) -> Fraction:
    return _exact(x.lower())


def _frac_up(x: arb) -> Fraction:
    return _exact(x.upper())


def _tail_point(mass, eps) -> Fraction:
    """A t > 0 with mass(t) <= eps (mass decreasing): doubling, then 12 bisection steps."""
    t = Fraction(1)
    while not mass(t) <= eps:
        t *= 2
    lo, hi = t / 2 if t > 1 else Fraction(0), t
    for _ in range(12):
        mid = (lo + hi) / 2
        if mass(mid) <= eps:
            hi = mid
        else:
            lo = mid
    return hi


class Law1D:
    """A one-dimensional law on arb balls (see the module docstring)."""

    closed = True
    depth = 0  # nested numerical integration levels inside one density evaluation
    #: the centre c of symmetry (f(2c - x) = f(x)) when known exactly from the construction
    #: (a symmetric base law, and affine maps and sums of symmetric laws), else None
    symmetry: Fraction | None = None

    def support(self) -> tuple:
        raise NotImplementedError

    def breakpoints(self) -> list:
        return []

    # analytic branches (closed laws): functions of an acb (or arb) argument
    def pdf_branch(self, m: arb):
        raise NotImplementedError

    def cdf_branch(self, m: arb):
        raise NotImplementedError

    def sf_branch(self, m: arb):
        raise NotImplementedError

    def log_density_poly(self, m: arb):
        """(A, c1, c2) with ln pdf(x) = A + c1 x + c2 x^2 on the piece of the real point m, A a
        ball and c1, c2 exact sympy rationals; None when the log-density is not of that form
        there (the weights' log ratios are then evaluated numerically)."""
        return None

    def log_pdf_branch(self, m: arb):
        """ln pdf as an analytic function near the real point m (complex balls)."""
        f = self.pdf_branch(m)
        return lambda z: _log(f(z))

    def log_sf_branch(self, m: arb):
        """ln sf as an analytic function near the real point m (complex balls)."""
        f = self.sf_branch(m)
        return lambda z: _log(f(z))

    def log_cdf_branch(self, m: arb):
        """ln cdf as an analytic function near the real point m (complex balls)."""
        f = self.cdf_branch(m)
        return lambda z: _log(f(z))

    # real points
    def pdf(self, x: arb) -> arb:
        return self.pdf_branch(x)(x)

    def cdf(self, x: arb) -> arb:
        return self.cdf_branch(x)(x)

    def sf(self, x: arb) -> arb:
        return self.sf_branch(x)(x)

    def entropy(self) -> arb | None:
        return None

    def moments(self) -> tuple:
        """(E[X], E[X^2]) as balls (the truncation bounds of the certified integrals use them)."""
        raise NotImplementedError

    def affine(self, a: Fraction, b: Fraction) -> "Law1D":
        raise NotImplementedError

    def box(self, eps: arb) -> tuple:
        """(lo, hi) Fractions with P(outside) <= eps, by doubling on the exact tails."""
        lo, hi = self.support()
        centre = self._centre()
        if hi == INF:
            hi = centre + _tail_point(lambda t: self.sf(ball(centre + t)), eps / 2)
        if lo == -INF:
            lo = centre - _tail_point(lambda t: self.cdf(ball(centre - t)), eps / 2)
        return lo, hi

    def _centre(self) -> Fraction:
        lo, hi = self.support()
        if lo != -INF and hi != INF:
            return (lo + hi) / 2
        pts = self.breakpoints()
        if pts:
            return pts[len(pts) // 2]
        return Fraction(0)


# --- base families ---------------------------------------------------------------------------------


class Normal(Law1D):
    """N(m, s^2) with arb m, s; ``var`` the exact variance (a sympy number) when known."""

    def __init__(self, m: arb, s: arb, m_frac: Fraction, var=None):
        self.m, self.s, self.m_frac, self.var = m, s, m_frac, var
        self._c = 1 / (s * (2 * arb.pi()).sqrt())
        self._r = s * arb(2).sqrt()

    def support(self):
        return -INF, INF

    def _centre(self):
        return self.m_frac

    def _pdf(self, z):
        t = (z - self.m) / self.s
        return self._c * (-t * t / 2).exp()

    def _cdf(self, z):
        return (-(z - self.m) / self._r).erfc() / 2

    def _sf(self, z):
        return ((z - self.m) / self._r).erfc() / 2

    def pdf_branch(self, x0):
        return self._pdf

    def cdf_branch(self, x0):
        return self._cdf

    def sf_branch(self, x0):
        return self._sf

    pdf, cdf, sf = _pdf, _cdf, _sf

    def log_pdf_branch(self, x0):
        log_c = self._c.log()
        return lambda z: log_c - ((z - self.m) / self.s) ** 2 / 2

    def _log_tail(self, x0, side: int):
        """ln sf (side 1) or ln cdf (side -1) near x0. In the tail (t = side (x - m)/s >= 1 at
        x0), ``ln(erfc(t/sqrt 2)/2) = -t^2/2 + ln(erfcx(t/sqrt 2)/2)``, with
        ``erfcx(t/sqrt 2) = sqrt(2/pi) K_0(t)`` (:func:`fstheory.theory.polyexp.tail_integral`):
        no exponential of -t^2/2 is taken, whose phase wraps on complex balls."""
        if not side * (x0 - self.m) / self.s >= TAIL:
            f = self._sf if side == 1 else self._cdf
            return lambda z: _log(f(z))
        half_log_2pi = (2 * arb.pi()).log() / 2

        def g(z):
            t = side * (z - self.m) / self.s
            return _log(tail_integral(0, t)) - t * t / 2 - half_log_2pi

        return g

    def log_sf_branch(self, x0):
        return self._log_tail(x0, 1)

    def log_cdf_branch(self, x0):
        return self._log_tail(x0, -1)

    def log_density_poly(self, x0):
        if self.var is None or not sp.sympify(self.var).is_Rational:
            return None
        var = sp.sympify(self.var)
        mu = sp.Rational(self.m_frac.numerator, self.m_frac.denominator)
        const = -mu**2 / (2 * var)
        return (ball(Fraction(int(const.p), int(const.q))) + self._c.log(), mu / var,
                -1 / (2 * var))

    def entropy(self):
        return (2 * arb.pi() * arb(1).exp() * self.s * self.s).log() / 2

    def moments(self):
        return self.m, self.m * self.m + self.s * self.s

    def affine(self, a, b):
        var = None if self.var is None else self.var * sp.Rational(a.numerator, a.denominator) ** 2
        return Normal(ball(a) * self.m + ball(b), abs(ball(a)) * self.s, a * self.m_frac + b, var)

    def box(self, eps):
        z = arb(2).sqrt() * eps.erfcinv()
        return _frac_down(self.m - self.s * z), _frac_up(self.m + self.s * z)


class Logistic(Law1D):
    """Logistic(mu, s): sf = 1/(1 + e^{t}), cdf = 1/(1 + e^{-t}), t = (x - mu)/s."""

    def __init__(self, mu: Fraction, s: Fraction):
        self.mu, self.s = mu, s
        self._mu, self._s = ball(mu), ball(s)

    def support(self):
        return -INF, INF

    def breakpoints(self):
        return [self.mu]

    def _centre(self):
        return self.mu

    def _t(self, z):
        return (z - self._mu) / self._s

    def pdf_branch(self, x0):
        # the same analytic function, written with e^{-|t|} on each side of mu (no overflow)
        sign = -1 if x0 >= self._mu else 1
        s = self._s

        def f(z):
            e = (sign * self._t(z)).exp()
            return e / (s * (1 + e) * (1 + e))

        return f

    def pdf(self, x):
        # e^{-|t|} / (s (1 + e^{-|t|})^2): the density is even in t, and a real ball across
        # (or touching) mu keeps a finite enclosure
        t = self._t(x)
        lo, hi = t.abs_lower(), t.abs_upper()  # |t| as a ball within [0, inf)
        e = (-arb((lo + hi) / 2, ((hi - lo) / 2).upper())).exp()
        return e / (self._s * (1 + e) * (1 + e))

    def cdf_branch(self, x0):
        return lambda z: 1 / (1 + (-self._t(z)).exp())

    def sf_branch(self, x0):
        return lambda z: 1 / (1 + self._t(z).exp())

    def cdf(self, x):
        return 1 / (1 + (-self._t(x)).exp())

    def sf(self, x):
        return 1 / (1 + self._t(x).exp())

    def entropy(self):
        return self._s.log() + 2

    def moments(self):
        return self._mu, self._mu * self._mu + arb.pi() ** 2 * self._s * self._s / 3

    def affine(self, a, b):
        return Logistic(a * self.mu + b, abs(a) * self.s)

    def box(self, eps):
        t = self._s * (2 / eps).log()
        return _frac_down(self._mu - t), _frac_up(self._mu + t)


class PELaw(Law1D):
    """A piecewise poly-exponential law (uniform, Laplace, exponential and their sums)."""

    def __init__(self, pe: PolyExp, entropy: arb | None = None):
        self.pe = pe
        self._cdf = None
        self._sf = None
        self._entropy = entropy

    def support(self):
        return self.pe.support

    def breakpoints(self):
        lo, hi = self.support()
        return [p for p in self.pe.breakpoints() if lo < p < hi]

    def _cdf_pe(self):
        if self._cdf is None:
            self._cdf = self.pe.cdf()
        return self._cdf

    def _sf_pe(self):
        if self._sf is None:
            self._sf = self.pe.sf()
        return self._sf

    def pdf_branch(self, x0):
        return self.pe.branch(x0)

    def log_density_poly(self, x0):
        piece = self.pe.piece_at(x0)
        if piece is not None and len(piece.terms) == 1:
            ((k, r), c), = piece.terms.items()
            if k == 0 and c > 0:
                return c.log(), sp.Rational(r.numerator, r.denominator), sp.Integer(0)
        return None

    def log_pdf_branch(self, x0):
        """ln of the piece at x0; a single term c e^(r x) is ln c + r x exactly (no wrap of the
        exponential's phase on wide complex balls)."""
        piece = self.pe.piece_at(x0)
        if piece is not None and len(piece.terms) == 1:
            ((k, r), c), = piece.terms.items()
            if k == 0 and c > 0:
                log_c, rate = c.log(), ball(r)
                return lambda z: log_c + rate * z
        return super().log_pdf_branch(x0)

    def cdf_branch(self, x0):
        return self._cdf_pe().branch(x0)

    def sf_branch(self, x0):
        return self._sf_pe().branch(x0)

    def pdf(self, x):
        return self.pe.value(x)

    def cdf(self, x):
        return self._cdf_pe().value(x)

    def sf(self, x):
        return self._sf_pe().value(x)

    def entropy(self):
        return self._entropy

    def moments(self):
        return self.pe.moment(1), self.pe.moment(2)

    def affine(self, a, b):
        ent = None if self._entropy is None else self._entropy + abs(ball(a)).log()
        return PELaw(self.pe.affine(a, b), ent)


class GaussPE(Law1D):
    """N(m, s^2) + P with P poly-exponential: closed forms by normal smoothing."""

    def __init__(self, normal: Normal, pe: PolyExp):
        self.normal, self.pe = normal, pe
        self._cdf = pe.cdf()
        self._sf = pe.sf()

    def support(self):
        return -INF, INF

    def _centre(self):
        lo, hi = self.pe.support
        c = (lo + hi) / 2 if lo != -INF and hi != INF else (self.pe.breakpoints()[1] if len(self.pe.breakpoints()) > 2 else Fraction(0))
        return self.normal.m_frac + c

    def breakpoints(self):
        """Where the formulas of :func:`fstheory.theory.polyexp.log_gauss_smooth` change (the law
        itself is analytic): a piece of P with end e and rate l is in the normal's tail once
        ``|x - m - e + l s^2| >= TAIL s``. Splitting there keeps every quadrature piece on
        formulas chosen for all of it."""
        m, s = self.normal.m, self.normal.s
        rates = {lam for p in self.pe.pieces for (_k, lam) in p.terms}
        out = set()
        for e in self.pe.breakpoints():
            if e in (INF, -INF):
                continue
            for lam in rates:
                centre = m + ball(e) - ball(lam) * s * s
                for side in (-1, 1):
                    out.add(_exact((centre + side * TAIL * s).mid()))
        return sorted(out)

    def _branch(self, f):
        m, s = self.normal.m, self.normal.s

        def make(x0):
            x0 = x0.real if isinstance(x0, acb) else x0
            return lambda z: gauss_smooth(f, m, s, z, x0)

        return make

    def _log_branch(self, f):
        m, s = self.normal.m, self.normal.s
        return lambda x0: log_gauss_smooth(f, m, s, x0.real if isinstance(x0, acb) else x0)

    def log_pdf_branch(self, x0):
        return self._log_branch(self.pe)(x0)

    def log_cdf_branch(self, x0):
        return self._log_branch(self._cdf)(x0)

    def log_sf_branch(self, x0):
        return self._log_branch(self._sf)(x0)

    def pdf_branch(self, x0):
        return self._branch(self.pe)(x0)

    def cdf_branch(self, x0):
        return self._branch(self._cdf)(x0)

    def sf_branch(self, x0):
        return self._branch(self._sf)(x0)

    def moments(self):
        (m1, s1), (m2, s2) = self.normal.moments(), (self.pe.moment(1), self.pe.moment(2))
        return m1 + m2, s1 + s2 + 2 * m1 * m2

    def affine(self, a, b):
        return GaussPE(self.normal.affine(a, b), self.pe.affine(a, Fraction(0)))


class Convolved(Law1D):
    """A + B with A logistic (or any law) and B closed: numerical convolution at real points."""

    closed = False

    def __init__(self, a: Law1D, b: Law1D, acc: Accuracy):
        self.a, self.b, self.acc = a, b, acc
        self.depth = 1 + max(a.depth, b.depth)
        self._box = None

    def support(self):
        (a1, b1), (a2, b2) = self.a.support(), self.b.support()
        return end_sum(a1, a2), end_sum(b1, b2)

    def breakpoints(self):
        return []

    def _centre(self):
        return self.a._centre() + self.b._centre()

    def _boxes(self):
        if self._box is None:
            eps = self.acc.tol * arb(10) ** -6
            self._box = (self.a.box(eps), self.b.box(eps))
        return self._box

    def _conv(self, x: arb, g) -> arb:
        """int f_A(u) g(x - u) du over A's box, split at A's breakpoints and centre and at the
        images x - p of B's breakpoints and centre (so that each piece holds at most one peak)."""
        (lo, hi), (blo, bhi) = self._boxes()
        ulo = max(ball(lo), x - ball(bhi))
        uhi = min(ball(hi), x - ball(blo))
        if not ulo < uhi:
            return arb(0)
        cuts = [ball(p) for p in self.a.breakpoints() + [self.a._centre()]]
        cuts += [x - ball(p) for p in self.b.breakpoints() + [self.b._centre()]]
        inner = sorted((c for c in cuts if ulo < c < uhi), key=lambda t: t.mid())
        return integrate_ball(lambda u: self.a.pdf(u) * g(x - u), [ulo, *inner, uhi],
                              self.acc.inner_tol, self.acc.inner_rel)

    def certified_tails(self, x: arb):
        """(sf(x), cdf(x)) with proved radii when A and B are closed: the same integrals as
        :meth:`sf` and :meth:`cdf` by certified quadrature of their analytic branches, plus
        the truncations (each box holds all but ``eps`` of its law: at most ``2 eps`` in all).
        None when a law is not closed or the quadrature does not converge."""
        from fstheory.theory.quadrature import QuadratureError, QuadratureTimeout, certified

        if not (self.a.closed and self.b.closed):
            return None
        (lo, hi), (blo, bhi) = self._boxes()
        eps = self.acc.tol * arb(10) ** -6
        ulo, uhi = max(ball(lo), x - ball(bhi)), min(ball(hi), x - ball(blo))
        cuts = [ball(p) for p in self.a.breakpoints() + [self.a._centre()]]
        cuts += [x - ball(p) for p in self.b.breakpoints() + [self.b._centre()]]
        out = []
        for tail, outside in ((self.b.sf_branch, self.a.sf(x - ball(blo))),
                              (self.b.cdf_branch, self.a.cdf(x - ball(bhi)))):
            total = outside
            if ulo < uhi:
                pts = [ulo, *sorted((c for c in cuts if ulo < c < uhi), key=lambda t: t.mid()), uhi]

                def branch(m, tail=tail):
                    f, g = self.a.pdf_branch(m), tail(x - m)
                    return lambda z, an: f(z) * g(x - z)

                try:
                    v, e = certified(branch, pts, self.acc.inner_tol)
                except QuadratureTimeout:
                    raise
                except QuadratureError:
                    return None
                total = total + arb(v, e)
            out.append(total + arb(0, (2 * eps).upper()))
        return out[0], out[1]

    def pdf(self, x):
        return self._conv(x, self.b.pdf)

    def cdf(self, x):
        """P(A + B <= x) = int f_A(u) F_B(x - u) du: the integral where B's box holds x - u,
        plus P(A <= x - bhi) (there F_B(x - u) = 1 up to the box's mass)."""
        (_lo, _hi), (_blo, bhi) = self._boxes()
        return self._conv(x, self.b.cdf) + self.a.cdf(x - ball(bhi))

    def sf(self, x):
        """P(A + B > x) = int f_A(u) S_B(x - u) du, plus P(A > x - blo) (S_B = 1 there)."""
        (_lo, _hi), (blo, _bhi) = self._boxes()
        return self._conv(x, self.b.sf) + self.a.sf(x - ball(blo))

    def pdf_branch(self, x0):
        raise NotClosed("numerical convolution has no closed branch")

    cdf_branch = sf_branch = pdf_branch

    def moments(self):
        (m1, s1), (m2, s2) = self.a.moments(), self.b.moments()
        return m1 + m2, s1 + s2 + 2 * m1 * m2

    def affine(self, a, b):
        return Convolved(self.a.affine(a, b), self.b.affine(a, Fraction(0)), self.acc)

    def box(self, eps):
        (a1, b1), (a2, b2) = self.a.box(eps / 2), self.b.box(eps / 2)
        return a1 + a2, b1 + b2
