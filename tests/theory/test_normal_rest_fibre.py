"""MI(C, a1 U1 + a2 U2) for piecewise exponential U1, U2 under a linear rule with a normal rest
(theory/normal_rest_fibre.py: closed class parts along the fibres, certified outer integral),
against mpmath's nested quadrature of f_X(x(y)) f_Y(y) Phi(...) along the fibre (no closed
form) and of its outer integral."""

import mpmath
import pytest
import sympy as sp

from fstheory.theory.laws import Exponential, Laplace, Normal, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.rule import Rule

X, Y, Z = sp.symbols("X Y Z", real=True)


def _xlogx(t):
    return t * mpmath.log(t) if t > 0 else mpmath.mpf(0)


def _mi(parts, outer_points):
    """H(C) - int (f ln f - f1 ln f1 - f0 ln f0) dv, with (f1, f0) = parts(v)."""
    p1 = mpmath.quad(lambda v: parts(v)[0], outer_points)
    hc = -_xlogx(p1) - _xlogx(1 - p1)

    def integrand(v):
        f1, f0 = parts(v)
        return _xlogx(f1 + f0) - _xlogx(f1) - _xlogx(f0)
    return hc - mpmath.quad(integrand, outer_points)


@pytest.mark.slow
def test_laplace_plus_uniform_with_normal_rest():
    """The r03 file: X ~ Laplace(0, 1), Y ~ Unif(-1, 1), Z ~ N(0, 1), C = 1{X + Y/2 + Z >= 0},
    V = X + Y: on the fibre x = v - y, P(C = 1 | x, y) = Phi(v - y/2)."""
    laws = {X: Laplace(0, 1), Y: Uniform(-1, 1), Z: Normal(0, 1)}
    route = NumericRoute(laws, Rule(X + Y / 2 + Z))
    with mpmath.workdps(30):
        got = route.mi_class(X + Y)
    assert got.certified and "normal rest in closed cells" in got.method, got.method
    with mpmath.workdps(25):
        def parts(v):
            def dens(y):
                return mpmath.exp(-abs(v - y)) / 4
            pts = sorted({mpmath.mpf(-1), mpmath.mpf(1), min(max(v, -1), 1)})
            f1 = mpmath.quad(lambda y: dens(y) * mpmath.ncdf(v - y / 2), pts)
            f0 = mpmath.quad(lambda y: dens(y) * mpmath.ncdf(-(v - y / 2)), pts)
            return f1, f0
        ref = _mi(parts, [-mpmath.inf, -1, 1, mpmath.inf])
    assert abs(got.value - ref) < mpmath.mpf(10) ** -20, (got.value, ref)
    assert got.error < mpmath.mpf(10) ** -26


@pytest.mark.slow
def test_exponential_minus_uniform_with_shifted_rest():
    """X ~ Exp(1), Y ~ Unif(0, 2), Z ~ N(1/2, 1), C = 1{2 X + Y + Z >= 1}, V = X - 2 Y: on the
    fibre x = v + 2 y, P(C = 1 | x, y) = Phi(2 v + 5 y - 1/2)."""
    laws = {X: Exponential(1), Y: Uniform(0, 2), Z: Normal(sp.Rational(1, 2), 1)}
    route = NumericRoute(laws, Rule(2 * X + Y + Z - 1))
    with mpmath.workdps(20):
        got = route.mi_class(X - 2 * Y)
    assert got.certified and "normal rest in closed cells" in got.method, got.method
    with mpmath.workdps(22):
        def parts(v):
            lo = max(mpmath.mpf(0), -v / 2)
            if lo >= 2:
                return mpmath.mpf(0), mpmath.mpf(0)

            def dens(y):
                return mpmath.exp(-(v + 2 * y)) / 2
            f1 = mpmath.quad(lambda y: dens(y) * mpmath.ncdf(2 * v + 5 * y - 0.5), [lo, 2])
            f0 = mpmath.quad(lambda y: dens(y) * mpmath.ncdf(-(2 * v + 5 * y - 0.5)), [lo, 2])
            return f1, f0
        ref = _mi(parts, [-4, 0, mpmath.inf])
    assert abs(got.value - ref) < mpmath.mpf(10) ** -17, (got.value, ref)
