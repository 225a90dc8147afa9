r"""Rigorous enclosures of the integrals of the closed forms that ``acb.integral`` cannot enclose
on their own: integrals whose integrand arb cannot evaluate at an end of the range (the
compiler :mod:`fstheory.theory.arbexpr` recognises them; the engine's point values and the
atlas certificate both read them from here).

Both come from MI(Y^2, X-Y) = MI(X-Y, X^2) = MI(Z^2, Z+W) (one closed form per scenario).

Scenario II (``normal``): three integrals over theta of

    f_s(theta) = 2 s x + psi(1/2 + 1/(8 s x))/2 - psi(1 + 1/(8 s x))/2,
    x = x(theta) = (sin theta + cos theta) cos theta, s = +1 or -1,

over (pi/2, 3pi/4) (s = -1), (3pi/4, pi) and (0, pi/2) (s = +1). On each open range s x > 0, and
x = 0 at the ends pi/2 and 3pi/4, where psi's argument tends to +infinity. With z = 1/(8 s x) > 0,
2 s x = 1/(4z), so f_s = (1/(2z) - S(z))/2 with

    S(z) = psi(z+1) - psi(z+1/2) = sum_{k >= 0} 1 / (2 (z+k+1/2)(z+k+1))

(from psi(w) = -gamma + sum_k (1/(k+1) - 1/(k+w))). Since (z+k)(z+k+1) <= (z+k+1/2)(z+k+1)
<= (z+k+1)(z+k+2) and the sums of 1/((z+k)(z+k+1)) and 1/((z+k+1)(z+k+2)) telescope to 1/z and
1/(z+1),

    1/(2(z+1)) <= S(z) <= 1/(2z),   so   0 <= f_s <= 1/(4 z (z+1)) <= 1/(4 z^2) = 16 x^2.

Near pi/2, |x| <= sqrt(2) |cos theta| <= sqrt(2) |theta - pi/2|; near 3pi/4, sin theta + cos theta
= sqrt(2) sin(theta + pi/4), so |x| <= sqrt(2) |theta - 3pi/4|. Hence on a sliver of width eps at
such an end 0 <= f_s <= 32 eps^2 and the sliver's integral lies in [0, 32 eps^3]. The rest of the
range is enclosed by ``acb.integral`` on the integrand itself, between exact (dyadic) ends: the
gap between such an end and the true one (pi/2, 3pi/4, pi are balls) is a sliver of width w as
above at a singular end, and elsewhere contributes at most 32 w in absolute value (|x| <= sqrt(2)
everywhere, also just beyond pi, where s x > 0 still holds).

Scenario III (``laplace``): the integral over m in (0, oo) of

    F(m) = (-(A sinh m + 2 atan(tanh(m/2))) e^-m - B e^-m cosh m) e^-m,
    A = -m + log cosh m - 1 - log 2,  B = -m + log(cosh(m)/2) - 1 = A.

With sinh + cosh = e^m, log cosh m = m - log 2 + log(1 + e^-2m) and atan(tanh(m/2)) = pi/4 -
atan(e^-m) (tan(pi/4 - u) = (1 - tan u)/(1 + tan u), and both sides lie in [0, pi/4) for m >= 0):

    F(m) = (c - log(1 + e^-2m)) e^-m - (pi/2) e^-2m + 2 e^-2m atan(e^-m),   c = 1 + 2 log 2.

This form is analytic near [0, oo) (atan is written with logarithms so that arb detects a branch
cut) and is integrated by ``acb.integral`` over [0, R]. For the tail, 0 <= log(1 + u) <= u and
0 <= atan(u) <= u for u >= 0 give

    int_R^oo F = c e^-R - (pi/4) e^-2R + r,   -e^-3R / 3 <= r <= 2 e^-3R / 3.

Examples
--------
>>> from fstheory.theory.quadrature import flint_precision
>>> with flint_precision(120):
...     b = laplace_integral_ball()
>>> b.rad() < 1e-30
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.balls import NoEnclosure
from fstheory.theory.interrupts import acb_integral

__all__ = ["NORMAL_INTEGRALS", "LAPLACE_INTEGRAL", "special_integral_ball", "normal_integral_ball",
           "laplace_integral_ball", "gaussian_envelope", "GaussianEnvelope"]

_theta = sp.Symbol("theta", real=True)
_m = sp.Symbol("m", positive=True)


def _normal_integrand(s: int) -> sp.Expr:
    x = (sp.sin(_theta) + sp.cos(_theta)) * sp.cos(_theta)
    z = 1 / (8 * s * x)
    return (2 * s * x + sp.polygamma(0, sp.Rational(1, 2) + z) / 2
            - sp.polygamma(0, 1 + z) / 2)


def _normal_integrand_ball(s: int):
    """f_s(theta) on an acb ball (the integrand of :func:`_normal_integrand`, term by term)."""

    def f(theta: acb, analytic: bool) -> acb:
        x = (theta.sin() + theta.cos()) * theta.cos()
        z = 1 / (8 * s * x)
        return 2 * s * x + (z + acb(1) / 2).digamma() / 2 - (z + 1).digamma() / 2

    return f


#: the three integrals of Scenario II's closed form: s and the range, with (lower, upper) flags:
#: True where x = 0 at that end (a sliver is cut off there).
_NORMAL_RANGES = ((-1, sp.pi / 2, 3 * sp.pi / 4, (True, True)),
                  (1, 3 * sp.pi / 4, sp.pi, (True, False)),
                  (1, sp.Integer(0), sp.pi / 2, (False, True)))
NORMAL_INTEGRALS = {sp.Integral(_normal_integrand(s), (_theta, a, b)): flags
                    for s, a, b, flags in _NORMAL_RANGES}
_NORMAL_SIGN = {sp.Integral(_normal_integrand(s), (_theta, a, b)): s
                for s, a, b, _ in _NORMAL_RANGES}


def _laplace_integrand() -> sp.Expr:
    m = _m
    a = -m + sp.log(sp.cosh(m)) - 1 - sp.log(2)
    b = -m + sp.log(sp.cosh(m) / 2) - 1
    return ((-(a * sp.sinh(m) + 2 * sp.atan(sp.tanh(m / 2))) * sp.exp(-m)
             - b * sp.exp(-m) * sp.cosh(m)) * sp.exp(-m))


#: Scenario III's integral over the half line.
LAPLACE_INTEGRAL = sp.Integral(_laplace_integrand(), (_m, 0, sp.oo))

#: width 2^-SLIVER_BITS of the slivers cut off at the ends where x = 0 (sliver bound 32 eps^3)
SLIVER_BITS = 40
#: the Laplace integral's cut R (tail width e^-3R)
LAPLACE_CUT = 26


def _pi_multiple(end: sp.Expr) -> arb:
    """An end of the range, a rational multiple of pi, as a ball."""
    q = sp.Rational(end / sp.pi)
    return arb(int(q.p)) / int(q.q) * arb.pi() if q else arb(0)


def normal_integral_ball(integral: sp.Integral) -> arb:
    """A ball containing one of the three integrals of :data:`NORMAL_INTEGRALS` (at the current
    arb precision): ``acb.integral`` away from the ends where x = 0, plus [0, 32 eps^3] for each
    sliver of width eps (module docstring)."""
    _, a, b = integral.limits[0]
    eps = arb(2) ** -SLIVER_BITS
    gaps = arb(0)
    ends = []
    for end, cut, inward in ((a, NORMAL_INTEGRALS[integral][0], 1),
                             (b, NORMAL_INTEGRALS[integral][1], -1)):
        e = _pi_multiple(end)
        d = arb((e + inward * eps).mid() if cut else e.mid())  # an exact end for acb.integral
        w = arb(abs(d - e).upper())  # the gap between the true end and d is at most w wide
        if cut:  # 0 <= f <= 16 x^2 <= 32 w^2 on the gap (inside the range: checked)
            if not inward * (d - e) > 0:
                raise NoEnclosure("the sliver of a singular end is empty")
            gaps = gaps + 16 * w ** 3 + arb(0, 1) * 16 * w ** 3
        else:  # 0 <= f <= 16 x^2 <= 32 near the end, on either side
            gaps = gaps + arb(0, 1) * 32 * w
        ends.append(d)
    f = _normal_integrand_ball(_NORMAL_SIGN[integral])
    val = acb_integral(f, acb(ends[0]), acb(ends[1]))
    if not val.real.is_finite() or not val.imag.contains(0):
        raise NoEnclosure(f"the integral {integral} was not enclosed")
    return val.real + gaps


def _atan(w: acb, analytic: bool) -> acb:
    """atan(w) = (log(1 + i w) - log(1 - i w)) / (2i), with the logarithms' branch cut checked."""
    i = acb(0, 1)
    return ((1 + i * w).log(analytic=analytic) - (1 - i * w).log(analytic=analytic)) / (2 * i)


def laplace_integral_ball() -> arb:
    """A ball containing :data:`LAPLACE_INTEGRAL` (at the current arb precision): the rewritten
    integrand over [0, R] by ``acb.integral`` plus the tail's bound (module docstring)."""
    c = 1 + 2 * arb(2).log()
    pi = arb.pi()

    def f(m, analytic):
        u = (-m).exp()
        return ((c - (1 + u * u).log(analytic=analytic)) * u - pi / 2 * u * u
                + 2 * u * u * _atan(u, analytic))

    r = arb(LAPLACE_CUT)
    val = acb_integral(f, acb(0), acb(r))
    if not val.real.is_finite() or not val.imag.contains(0):
        raise NoEnclosure("the Laplace integral was not enclosed")
    e = (-r).exp()
    e3 = e ** 3
    # r in [-e^-3R/3, 2 e^-3R/3]: midpoint e^-3R/6, radius e^-3R/2
    tail = c * e - pi / 4 * e * e + e3 / 6 + arb(0, 1) * e3 / 2
    return val.real + tail


def _canonical(integral: sp.Integral):
    """The integral with its integrand expanded (so that -(a + b) and -a - b compare equal)."""
    return (sp.expand(integral.function), integral.limits)


_NORMAL_CANONICAL = {_canonical(i): i for i in NORMAL_INTEGRALS}
_LAPLACE_CANONICAL = _canonical(LAPLACE_INTEGRAL)


def special_integral_ball(integral: sp.Integral):
    """The ball of one of the integrals this module encloses (recognised up to the expansion of
    its integrand), or None for any other."""
    if not (len(integral.limits) == 1 and len(integral.limits[0]) == 3
            and integral.limits[0][0] in (_theta, _m)):
        return None
    key = _canonical(integral)
    if key in _NORMAL_CANONICAL:
        known = _NORMAL_CANONICAL[key]
    elif key == _LAPLACE_CANONICAL:
        known = LAPLACE_INTEGRAL
    else:
        return None
    return _ball_at(known, ctx.prec)


@lru_cache(maxsize=64)
def _ball_at(known: sp.Integral, prec: int) -> arb:
    """The ball of a known integral at ``prec`` bits: constants, computed once per precision."""
    return laplace_integral_ball() if known == LAPLACE_INTEGRAL else normal_integral_ball(known)


# ----- integrals over a half line with a Gaussian envelope ---------------------------------------


@dataclass(frozen=True)
class GaussianEnvelope:
    r"""A bound ``|f(u)| <= sum_i M_i exp(-alpha_i u^2 + beta_i u + gamma_i)`` for every real u,
    alpha_i > 0 (exact sympy numbers), so that

    .. math::

        \int_T^\infty |f| \le \sum_i M_i e^{\gamma_i + \beta_i^2 / (4\alpha_i)}
        \frac{\sqrt\pi}{2\sqrt{\alpha_i}}\,
        \operatorname{erfc}\!\big(\sqrt{\alpha_i}\,(T - \beta_i / (2\alpha_i))\big)

    (complete the square: ``int_T^oo exp(-alpha (u - u_0)^2) du = sqrt(pi) / (2 sqrt(alpha))
    erfc(sqrt(alpha) (T - u_0))``)."""

    terms: tuple  # ((M, alpha, beta, gamma), ...)

    def tail(self, T: arb, constants) -> arb:
        """The bound of int_T^oo |f| (an upper bound, as a ball); ``constants`` are the terms'
        (M, alpha, beta, gamma) as balls (the caller's compiler evaluates them)."""
        total = arb(0)
        for M, a, b, g in constants:
            u0 = b / (2 * a)
            total += (M * (g + b * b / (4 * a)).exp() * arb.pi().sqrt() / (2 * a.sqrt())
                      * (a.sqrt() * (T - u0)).erfc())
        return arb(total.upper())

    def cut(self, start, bits: int) -> sp.Rational:
        """A rational T >= start beyond which the tail is below about 2^-bits (the bound itself
        is computed by :meth:`tail`; this only chooses where to cut)."""
        T = float(start)
        for M, alpha, beta, gamma in self.terms:
            a, b = float(alpha), float(beta)
            scale = math.log(max(float(M), 1e-300)) + float(gamma) + b * b / (4 * a)
            need = (bits + 10) * math.log(2) + max(scale, 0.0)
            T = max(T, b / (2 * a) + math.sqrt(need / a) + 1)
        return sp.Rational(math.ceil(T))


def _factor_bound(factor, u):
    """(bound of |factor| for real u, exponent) of one factor of a product: a number (its
    absolute value), exp(polynomial) (1 and the polynomial), erf or erfc of a real argument
    (1 or 2); None for anything else."""
    if factor.is_number:
        return sp.Abs(factor), sp.Integer(0)
    if isinstance(factor, sp.exp):
        return sp.Integer(1), factor.args[0]
    if isinstance(factor, sp.Pow) and factor.base == sp.E:
        return sp.Integer(1), factor.exp
    if isinstance(factor, (sp.erf, sp.erfc)):
        arg = factor.args[0]
        if arg.free_symbols - {u} or not arg.is_polynomial(u):
            return None
        if not all(c.is_real for c in sp.Poly(arg, u).all_coeffs()):
            return None  # real for real u only with real coefficients
        return sp.Integer(1 if isinstance(factor, sp.erf) else 2), sp.Integer(0)
    return None


def gaussian_envelope(function, u) -> GaussianEnvelope | None:
    """A :class:`GaussianEnvelope` of ``function`` (an expression in ``u`` alone, real for real u):
    every term of its expansion a product of numbers, exponentials of a polynomial of degree 2
    in u with a negative leading coefficient, and erf or erfc of real polynomials in u (bounded
    by 1 and 2); None when a term is of another form."""
    f = sp.expand(sp.sympify(function))
    if f.free_symbols - {u}:
        return None
    terms = []
    for term in sp.Add.make_args(f):
        M, expo = sp.Integer(1), sp.Integer(0)
        for factor in sp.Mul.make_args(term):
            got = _factor_bound(factor, u)
            if got is None:
                return None
            M, expo = M * got[0], expo + got[1]
        expo = sp.expand(expo)
        if expo.free_symbols - {u} or not expo.is_polynomial(u):
            return None
        poly = sp.Poly(expo, u)
        if poly.degree() != 2:
            return None
        c2, c1, c0 = (poly.coeff_monomial(u**n) for n in (2, 1, 0))
        if not all(c.is_real for c in (c2, c1, c0)) or not c2 < 0:
            return None
        terms.append((sp.nsimplify(M) if M.is_Float else M, -c2, c1, c0))
    return GaussianEnvelope(tuple(terms)) if terms else None
