"""The law of a logistic variable plus an independent uniform, Laplace or exponential one, in
closed form through incomplete beta functions.

Let Z ~ Logistic(mu, s) (cdf sigma(t), t = (z - mu)/s, sigma(t) = 1/(1 + e^(-t))) and X have a
piecewise exponential density: terms c e^(r x) on pieces [p, q] (a uniform law: r = 0 on a
bounded piece; Laplace and exponential laws: r != 0 on half-lines). For V = X + Z, substitute
x = v - mu - s t and then w = sigma(t) (e^t = w / (1 - w), sigma'(t) dt = dw, dt = dw / (w (1 - w))):

    int_p^q c e^(r x) f_Z(v - x) dx = c e^(r (v - mu)) I(1 - rho, 1 + rho),
    int_p^q c e^(r x) F_Z(v - x) dx = c e^(r (v - mu)) s I(1 - rho, rho),
    int_p^q c e^(r x) S_Z(v - x) dx = c e^(r (v - mu)) s I(-rho, 1 + rho),

with rho = r s and I(a, b) = int w^(a-1) (1 - w)^(b-1) dw from sigma(t_lo) to sigma(t_hi),
t_lo = (v - mu - q)/s, t_hi = (v - mu - p)/s: a difference of lower incomplete beta functions
B(z; a, b) (arb's ``acb.beta_lower``), or B(1 - z; b, a) of the complementary argument
1 - sigma(t) = sigma(-t) where that is the convergent or the better conditioned form. The
exponent of each infinite piece makes the integral converge (r < 0 towards +inf, r > 0
towards -inf), so a = 1 - rho > 0 at w -> 0 and b = 1 + rho > 0 at w -> 1 as needed.

Analyticity: sigma(t) is real only for Im t in pi Z, and then in (0, 1) when Im t = 0; for
|Im t| < pi it avoids the branch cuts (-inf, 0] and [1, inf) of w^a, (1 - w)^b and B(w; a, b).
So V's density, cdf and survival function are analytic on the strip |Im v| < pi s; on complex
balls beyond it the branches return a non-finite ball (the poles of the logistic density at
Im t = +-pi bound the strip), as certified quadrature requires.

Source of the substitution: the logistic cdf as the change of variables of the incomplete beta
integral, e.g. N. L. Johnson, S. Kotz, N. Balakrishnan, Continuous Univariate Distributions,
vol. 2, ch. 23 (the logistic distribution and its relation to the beta family).
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb, ctx

from fstheory.theory.balls import ball
from fstheory.theory.law1d import Law1D, Logistic, PELaw
from fstheory.theory.polyexp import INF
from fstheory.theory.quadrature import flint_precision

__all__ = ["LogisticPE", "LogisticPair", "incomplete_beta_between", "logistic_pair",
           "logistic_plus"]


def logistic_plus(logistic: Logistic, law: PELaw):
    """The law of Z + X (Z ~ ``logistic``, X ~ ``law`` independent) in closed form, or None
    when X's density has a term this module does not integrate in closed form (a power of x,
    or r != 0 on a bounded piece: sums of several base laws)."""
    for p in law.pe.pieces:
        finite = p.lo != -INF and p.hi != INF
        for (k, r), _c in p.terms.items():
            if k != 0 or (finite and r != 0) or (not finite and r == 0):
                return None
            if p.hi == INF and not r < 0 or p.lo == -INF and not r > 0:
                return None
    return LogisticPE(logistic, law)


def _log(x):
    """ln x on a real ball, or the analytic branch on a complex ball (non-finite on the cut)."""
    return x.log(analytic=True) if isinstance(x, acb) else x.log()


def _sigma(t):
    return 1 / (1 + (-t).exp())


def _beta_lower(t, a: Fraction, b: Fraction):
    """B(sigma(t); a, b). Right of 0, sigma(t) is near 1, where B(.; a, b) is singular and
    1 - sigma(t) = sigma(-t) would be lost to rounding: there B(z; a, b) = B(a, b) -
    B(1 - z; b, a) (the complete beta function, continued to b <= 0 through Gamma, exact
    except at b = 0, -1, ..., where sigma(t) is instead carried with e^(-t)'s extra bits)."""
    m = acb(t).real.mid()
    if not m > 0:
        return _beta_ball(_sigma(t), a, b)
    if not (b <= 0 and b.denominator == 1):
        A, B = ball(a), ball(b)
        complete = A.gamma() * B.gamma() * (A + B).rgamma()
        return complete - _beta_ball(_sigma(-t), b, a)
    with flint_precision(ctx.prec + int(float(m) * 1.4427) + 16):
        return _beta_ball(_sigma(t), a, b)


def _beta_ball(z, a: Fraction, b: Fraction):
    """B(z; a, b) on a ball z: its value at the centre plus the radius times a bound of the
    derivative z^(a-1) (1 - z)^(b-1) on the ball (arb's own propagation of an input radius
    through the hypergeometric series was seen 100 times too wide)."""
    z = acb(z)
    A, B = ball(a), ball(b)
    centre = acb(z.real.mid(), z.imag.mid())
    value = centre.beta_lower(A, B)
    r = z.real.rad() + z.imag.rad()
    if r == 0:
        return value
    slope = abs(z ** (A - 1) * (1 - z) ** (B - 1)).upper() * arb(r)
    if not slope.is_finite():
        return acb("nan")
    d = arb(0, slope.upper())
    return value + acb(d, d)


def incomplete_beta_between(a: Fraction, b: Fraction, t_lo, t_hi):
    """int w^(a-1) (1 - w)^(b-1) dw from sigma(t_lo) to sigma(t_hi) (None: -inf, +inf)."""
    def lower(t):  # int_0^sigma(t)
        return _beta_lower(t, a, b)

    def upper(t):  # int_sigma(t)^1 = int_0^sigma(-t) of the mirrored integrand
        return _beta_lower(-t, b, a)

    if t_lo is None and t_hi is None:
        raise ValueError("a piece unbounded on both sides")
    if t_lo is None:
        if not a > 0:
            raise ValueError("divergent incomplete beta integral at 0")
        return lower(t_hi)
    if t_hi is None:
        if not b > 0:
            raise ValueError("divergent incomplete beta integral at 1")
        return upper(t_lo)
    mid = (acb(t_lo).real.mid() + acb(t_hi).real.mid()) / 2
    if a > 0 and (not b > 0 or mid <= 0):
        return lower(t_hi) - lower(t_lo)
    if b > 0:
        return upper(t_lo) - upper(t_hi)
    raise ValueError("divergent incomplete beta integral")


class LogisticPE(Law1D):
    """Z + X, Z logistic and X uniform, Laplace or exponential (module docstring)."""

    def __init__(self, logistic: Logistic, law: PELaw):
        self.logistic, self.law = logistic, law
        self._mu, self._s = logistic._mu, logistic._s
        self._pi_s = arb.pi() * self._s

    def support(self):
        return -INF, INF

    def breakpoints(self):
        """No point of non-analyticity; split points that keep arb's pieces short: the images
        of X's breakpoints and the centre, and points 4, 16 and 64 scales out on each side
        (the density turns from one exponential rate to the other there)."""
        centre = self._centre()
        pts = {self.logistic.mu + p for p in self.law.pe.breakpoints() if p not in (INF, -INF)}
        pts |= {centre + side * k * self.logistic.s for side in (-1, 1) for k in (4, 16, 64)}
        return sorted(pts)

    def _centre(self):
        lo, hi = self.law.support()
        centre = self.law._centre() if lo == -INF or hi == INF else (lo + hi) / 2
        return self.logistic.mu + centre

    def _sum(self, v, kind: str):
        """The density (kind "pdf"), cdf or sf of V at v (real or complex ball)."""
        if isinstance(v, acb) and not abs(v.imag) < self._pi_s:
            return acb("nan")  # outside the strip of analyticity
        s = self._s
        u = v - self._mu
        total = acb(0)
        for p in self.law.pe.pieces:
            t_lo = None if p.hi == INF else (u - ball(p.hi)) / s
            t_hi = None if p.lo == -INF else (u - ball(p.lo)) / s
            for (_k, r), c in p.terms.items():
                rho = r * self.logistic.s
                if kind == "pdf":
                    a, b, factor = 1 - rho, 1 + rho, c
                elif kind == "cdf":
                    a, b, factor = 1 - rho, rho, c * s
                else:
                    a, b, factor = -rho, 1 + rho, c * s
                weight = factor if r == 0 else factor * (ball(r) * u).exp()
                total += weight * incomplete_beta_between(a, b, t_lo, t_hi)
        if isinstance(v, acb):
            return total
        return total.real

    def pdf_branch(self, x0):
        return lambda z: self._sum(z, "pdf")

    def cdf_branch(self, x0):
        return lambda z: self._sum(z, "cdf")

    def sf_branch(self, x0):
        return lambda z: self._sum(z, "sf")

    def log_pdf_branch(self, x0):
        return lambda z: _log(self._sum(z, "pdf"))

    def pdf(self, x):
        return self._sum(x, "pdf")

    def cdf(self, x):
        return self._sum(x, "cdf")

    def sf(self, x):
        return self._sum(x, "sf")

    def moments(self):
        (m1, s1), (m2, s2) = self.logistic.moments(), self.law.moments()
        return m1 + m2, s1 + s2 + 2 * m1 * m2

    def affine(self, a, b):
        return LogisticPE(self.logistic.affine(a, b), self.law.affine(a, Fraction(0)))


def logistic_pair(x: Logistic, y: Logistic):
    """The law of X + Y for independent logistic laws of one scale, or None (other scales)."""
    if x.s != y.s:
        return None
    return LogisticPair(x.mu + y.mu, x.s)


def _series(t, coef, start: int):
    """sum_{n >= start} coef(n) t^(n - start) on a ball |t| <= 1/2, with the tail after the
    terms kept bounded by twice the first omitted term's bound (coef(n) <= 2^n / n!, so the
    ratio of successive bounds is at most 2 |t| / (n + 1) <= 1/2 past n = 1)."""
    n_terms = ctx.prec // 2 + 20
    total, power = acb(0), acb(1)
    for n in range(start, start + n_terms):
        total += coef(n) * power
        power *= t
    n = start + n_terms
    radius = abs(acb(t)).upper() ** n_terms * 2 * abs(coef(n)).upper()
    return total + acb(arb(0, radius), arb(0, radius))


def _fact(n):
    return arb(n + 1).gamma()


class LogisticPair(Law1D):
    """mu + s (L1 + L2), L1, L2 independent standard logistic: with t = (v - mu)/(2 s),

        f = (t cosh t - sinh t) / (2 s sinh^3 t),   F = (e^t sinh t - t) / (2 sinh^2 t),
        S = (t - e^(-t) sinh t) / (2 sinh^2 t)

    (the convolution of two logistic densities, e.g. f(z) = e^z ((z - 2) e^z + z + 2) /
    (e^z - 1)^3 at s = 1, z = 2 t; George and Mudholkar, "On the convolution of logistic
    random variables", Metrika 30, 1983). The removable singularity at t = 0 is evaluated by
    the Taylor series (t cosh t - sinh t)/t^3 = sum_(n>=1) 2n t^(2n-2)/(2n+1)! and
    (e^t sinh t - t)/t^2 = sum_(n>=2) 2^(n-1) t^(n-2)/n! on |t| <= 1/2. Analytic on the strip
    |Im t| < pi (poles at t = i pi n, n != 0), guarded."""

    def __init__(self, mu: Fraction, s: Fraction):
        self.mu, self.s = mu, s
        self._mu, self._s = ball(mu), ball(s)

    def support(self):
        return -INF, INF

    def _centre(self):
        return self.mu

    def breakpoints(self):
        """Split points only (the law is analytic): the centre and 4, 16, 64 scales out."""
        return sorted({self.mu} | {self.mu + side * k * self.s for side in (-1, 1)
                                   for k in (4, 16, 64)})

    def _t(self, v):
        return (v - self._mu) / (2 * self._s)

    def _eval(self, v, kind: str):
        t = self._t(v)
        if isinstance(v, acb) and not abs(t.imag) < arb.pi():
            return acb("nan")
        small = abs(acb(t)).upper() <= arb(1) / 2
        if kind == "pdf":
            if small:
                g = _series(acb(t) * acb(t), lambda n: arb(2 * n) / _fact(2 * n + 1), 1)
                out = g / (2 * self._s * _sinh_over(t) ** 3)
            else:
                sh = t.sinh()
                out = (t * t.cosh() - sh) / (2 * self._s * sh ** 3)
        else:
            sign = 1 if kind == "cdf" else -1
            tt = sign * t
            if small:
                g = _series(acb(tt), lambda n: arb(2) ** (n - 1) / _fact(n), 2)
                out = g / (2 * _sinh_over(tt) ** 2)
            else:
                sh = tt.sinh()
                out = (tt.exp() * sh - tt) / (2 * sh * sh)
        if isinstance(v, acb):
            return acb(out)
        return acb(out).real

    def pdf_branch(self, x0):
        return lambda z: self._eval(z, "pdf")

    def cdf_branch(self, x0):
        return lambda z: self._eval(z, "cdf")

    def sf_branch(self, x0):
        return lambda z: self._eval(z, "sf")

    def log_pdf_branch(self, x0):
        return lambda z: _log(self._eval(z, "pdf"))

    def pdf(self, x):
        return self._eval(x, "pdf")

    def cdf(self, x):
        return self._eval(x, "cdf")

    def sf(self, x):
        return self._eval(x, "sf")

    def moments(self):
        var = 2 * arb.pi() ** 2 * self._s * self._s / 3
        return self._mu, self._mu * self._mu + var

    def affine(self, a, b):
        return LogisticPair(a * self.mu + b, abs(a) * self.s)


def _sinh_over(t):
    """sinh(t)/t, 1 at 0 (entire): the series sum t^(2n)/(2n+1)! near 0."""
    return _series(acb(t) * acb(t), lambda n: 1 / _fact(2 * n + 1), 0)
