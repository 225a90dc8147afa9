"""MI(C, a1 X + a2 Y) for two normal variables of equal variance under a nonlinear rule
(theory/numeric_pieces.rotated_normal_class_average): the rotation V = a.U, W = a_perp.U,
against one-dimensional closed forms integrated by mpmath (second route)."""

from fractions import Fraction as Q

import mpmath
import pytest
import sympy as sp

from fstheory.theory.laws import Normal
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.rule import Rule

X, Y = sp.symbols("X Y", real=True)


def _hb(p):
    if p <= 0 or p >= 1:
        return mpmath.mpf(0)
    return -p * mpmath.log(p) - (1 - p) * mpmath.log1p(-p)


def test_disc_rule_sum_of_normals():
    """X, Y ~ N(0, 1), C = 1{X^2 + Y^2 <= 1 + k}, k = 1/2 (the r12 scenario file). With
    V = X + Y, W = Y - X ~ N(0, 2) independent, X^2 + Y^2 = (V^2 + W^2)/2, so
    P(C = 1 | V = v) = erf(sqrt(2(1 + k) - v^2)/2) for v^2 < 2(1 + k), else 0, and
    P(C = 1) = 1 - e^(-(1 + k)/2) (chi-square with 2 degrees of freedom)."""
    k = Q(1, 2)
    route = NumericRoute({X: Normal(0, 1), Y: Normal(0, 1)},
                         Rule(sp.Rational(3, 2) - X**2 - Y**2))
    with mpmath.workdps(36):
        got = route.mi_class(X + Y)
    assert got.certified and "rotated normal pair" in got.method
    with mpmath.workdps(45):
        c = 2 * (1 + mpmath.mpf(k.numerator) / k.denominator)
        hc = _hb(1 - mpmath.exp(-c / 4))

        def integrand(v):
            p = mpmath.erf(mpmath.sqrt(max(c - v * v, 0)) / 2)
            return mpmath.npdf(v, 0, mpmath.sqrt(2)) * _hb(p)
        r = mpmath.sqrt(c)
        ref = hc - mpmath.quad(integrand, [-r, 0, r])
        assert abs(got.value - ref) < mpmath.mpf(10) ** -30
        assert got.error < mpmath.mpf(10) ** -30


@pytest.mark.slow
def test_parabola_rule_with_unequal_means():
    """X ~ N(1, 1/4), Y ~ N(-1/2, 1/4), C = 1{X^2 - Y >= 1}, V = X - 2 Y: P(C = 1 | V = v) by
    mpmath's integral over W = 2 X + Y (independent of V, both of variance 5/4), against the
    rotated route, to 20 digits."""
    laws = {X: Normal(1, Q(1, 2)), Y: Normal(Q(-1, 2), Q(1, 2))}
    route = NumericRoute(laws, Rule(X**2 - Y - 1))
    with mpmath.workdps(30):
        got = route.mi_class(X - 2 * Y)
    assert got.certified and "rotated normal pair" in got.method
    with mpmath.workdps(25):
        sd = mpmath.sqrt(mpmath.mpf(5) / 4)
        mv, mw = 1 + 1, 2 - mpmath.mpf(1) / 2

        def p_of(v):
            # X = (V + 2 W)/5, Y = (-2 V + W)/5; the rule X^2 - Y - 1 >= 0 is a quadratic in w
            # with roots where (v + 2w)^2/25 + (2v - w)/5 - 1 = 0
            a, b, c = mpmath.mpf(4) / 25, mpmath.mpf(4) * v / 25 - mpmath.mpf(1) / 5, \
                v * v / 25 + 2 * v / 5 - 1
            disc = b * b - 4 * a * c
            if disc <= 0:
                return mpmath.mpf(1)
            r1, r2 = sorted([(-b - mpmath.sqrt(disc)) / (2 * a), (-b + mpmath.sqrt(disc)) / (2 * a)])
            inside = mpmath.ncdf(r2, mw, sd) - mpmath.ncdf(r1, mw, sd)
            return 1 - inside

        def integrand(v):
            return mpmath.npdf(v, mv, sd) * _hb(p_of(v))

        # the discriminant -8v/25 + 17/25 vanishes at v = 17/8: a kink of P(C = 1 | v)
        kink = mpmath.mpf(17) / 8
        p1 = mpmath.quad(lambda v: mpmath.npdf(v, mv, sd) * p_of(v), [-mpmath.inf, kink, mpmath.inf])
        ref = _hb(p1) - mpmath.quad(integrand, [-mpmath.inf, mv - 3, kink, mv + 3, mpmath.inf])
        assert abs(got.value - ref) < mpmath.mpf(10) ** -18
