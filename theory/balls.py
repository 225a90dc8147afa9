"""Small functions on arb/acb balls that integrands share: x log x, the binary entropy, the
integrand of an entropy or of a class average, and exact rationals of balls.

Both are analytic away from 0 (and 1); on a ball that touches 0 they return a finite enclosure
of the real function (``x ln x`` lies in ``[e ln e, 0]`` for ``0 <= x <= e < 1/e``) when the
caller does not ask for analyticity, and a non-finite ball when it does (as arb's certified
quadrature requires: it then bisects and bounds the last tiny segment by the enclosure).

Examples
--------
>>> from flint import arb
>>> xlogx(arb("0.5")).str(10, radius=False)
'-0.3465735903'
>>> xlogx(arb(0, "1e-20")).contains(0)
True
>>> binary_entropy(arb("0.5"), arb("0.5")).str(10, radius=False)
'0.6931471806'
>>> ipow(arb(0, "1e-20"), 2).contains(0), ipow(arb(3), 4)
(True, 81.0000000000000)
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb

__all__ = ["xlogx", "xlogx_density", "entropy_integrand", "binary_entropy", "log_of", "ipow",
           "ball", "exact_rational", "rational_fraction", "NoEnclosure"]


class NoEnclosure(ArithmeticError):
    """A quantity has no rigorous ball here (the reason is the message)."""


def ball(q) -> arb:
    """An exact rational (Fraction, int) as an arb at the working precision."""
    if hasattr(q, "denominator"):
        return arb(int(q.numerator)) / int(q.denominator)
    return arb(q)


def ipow(x, k: int):
    """x^k for an integer k >= 0 by multiplication (python-flint's ``arb ** int`` is nan on a
    ball that contains 0)."""
    if k == 0:
        return x * 0 + 1
    result = None
    base = x
    while k:
        if k & 1:
            result = base if result is None else result * base
        k >>= 1
        if k:
            base = base * base
    return result


def _touches_zero(p) -> bool:
    if isinstance(p, acb):
        return p.real.contains(0) or (p.real < 0)
    return p.contains(0) or p < 0


def xlogx(p, analytic: bool = False):
    """p ln p (0 at p = 0), on an arb or acb ball."""
    if isinstance(p, acb):
        if analytic:
            return p * p.log(analytic=True)
        if p.imag.contains(0) and p.real.contains(0) or p.real < 0:
            return acb(_xlogx_real(p.real))
        return p * p.log()
    if p.contains(0) or p < 0:
        return _xlogx_real(p)
    return p * p.log()


def xlogx_density(z, analytic: bool = False):
    """f ln f of a density value inside a certified quadrature: as :func:`xlogx`, except that
    without analyticity a complex ball whose real part reaches 0 (arb then evaluates a real
    segment) gets the finite enclosure of its real part."""
    if isinstance(z, acb) and not analytic and (z.real.contains(0) or z.real < 0):
        return acb(xlogx(z.real))
    return xlogx(z, analytic)


def entropy_integrand(parts, analytic: bool = False):
    """The integrand over v of h(V) or of the class average E[H_b(P(C = 1 | V))].

    ``parts`` is ``(f,)``, the density of V at v: returns ``-f ln f`` (h(V) is its integral); or
    ``(f, f1, f0)`` with ``f1 + f0 = f`` the densities of (V, C = 1) and (V, C = 0): returns
    ``f ln f - f1 ln f1 - f0 ln f0 = f H_b(f1 / f)``, whose integral is E[H_b(P(C = 1 | V))].
    A part that is exactly 0 contributes 0 (its logarithm is not analytic there)."""
    if len(parts) == 1:
        return -xlogx_density(parts[0], analytic)
    f, f1, f0 = parts
    out = xlogx_density(f, analytic)
    for part in (f1, f0):
        if not part.is_zero():
            out -= xlogx_density(part, analytic)
    return out


def exact_rational(x) -> sp.Rational:
    """A Fraction, or the midpoint of an arb ball (a dyadic number), as an exact sympy Rational."""
    if isinstance(x, Fraction):
        return sp.Rational(x.numerator, x.denominator)
    m, e = x.mid().man_exp()
    return sp.Integer(int(m)) * sp.Integer(2) ** int(e)


def rational_fraction(e) -> Fraction | None:
    """An exact rational coefficient as a Fraction; None for anything else (a Float is not
    guessed: a route that needs exact coefficients then leaves the quantity to the others)."""
    e = sp.sympify(e)
    if not e.is_Rational:
        return None
    return Fraction(int(e.p), int(e.q))


def _xlogx_real(p: arb) -> arb:
    if p.is_zero():
        return arb(0)
    e = p.upper()
    if not e.is_finite():
        return arb("nan")
    if e <= 0:
        return arb(0)
    if e < arb(1) / arb(1).exp():
        low = e * e.log()
        return arb(low / 2, abs(low) / 2)
    low, high = -arb(1) / arb(1).exp(), max(arb(0), e * e.log())
    return arb((low + high) / 2, (high - low) / 2)


def binary_entropy(p1, p0, analytic: bool = False):
    """-p1 ln p1 - p0 ln p0 for the two class probabilities, each computed directly."""
    return -(xlogx(p1, analytic) + xlogx(p0, analytic))


def log_of(p, analytic: bool = False):
    """ln p for p > 0 (arb or acb)."""
    if isinstance(p, acb):
        return p.log(analytic=analytic)
    return p.log()
