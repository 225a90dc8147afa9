"""Remaining normal variables that enter the class rule linearly, with coefficients depending on
the features' coordinates (C = 1{X Y + k Z >= 0}, X, Y, Z normal): given u the form is normal,
so P(C = 1 | u) = Phi(mean(u) / sd(u)) in closed form
(:func:`fstheory.theory.class_probability.gaussian_rest`).

Second routes: the class probability against the nested integral over one remaining variable
(the interval probability of the other, the route without the closed form), and the MI against
mpmath's quadrature of the same expectation at 50 digits, an independent integrator.
"""

import mpmath
import pytest
import sympy as sp
from flint import arb

from fstheory.theory import class_probability as cp
from fstheory.theory.coordinates import build
from fstheory.theory.laws import Normal
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule
from fstheory.theory.univariate import Accuracy

X, Y, Z = sp.symbols("X Y Z", real=True)
K = sp.Rational(1, 2)
LAWS = {X: Normal(1, 1), Y: Normal(0, 1), Z: Normal(0, 2)}
RULE = Rule(X * Y + K * Z)


def _phi(t):
    return mpmath.ncdf(t)


def _hb(p):
    return -p * mpmath.log(p) - (1 - p) * mpmath.log1p(-p) if 0 < p < 1 else mpmath.mpf(0)


def test_gaussian_rest_recognises_a_linear_form_of_normals_with_coordinate_coefficients():
    acc = Accuracy.from_bits(120)
    with flint_precision(acc.bits):
        system = build([Y], LAWS, RULE, acc)
        mean, var, means = cp.gaussian_rest(system.form, system.remaining)
    mu = {str(r.symbol): m for m, r in zip(means, system.remaining)}
    assert sp.expand(mean - Y * mu["X"] - K * mu["Z"]) == 0
    assert [float(means[mu[v]].m.mid()) for v in ("X", "Z")] == [1.0, 0.0]
    assert sp.expand(var - (Y**2 + K**2 * 4)) == 0
    # a product of two remaining variables, or a non-normal one, is not a linear normal form
    with flint_precision(acc.bits):
        system = build([Z], LAWS, RULE, acc)
        assert cp.gaussian_rest(system.form, system.remaining) is None


@pytest.mark.parametrize("y", ["-2.5", "-0.3", "0.01", "0.7", "3"])
def test_class_probability_agrees_with_the_nested_integral(y):
    """q1(y) = Phi(y / sqrt(y^2 + 1)) against the integral over X of P(Z >= -X y / k)."""
    acc = Accuracy.from_bits(120, 30)
    with flint_precision(acc.bits):
        system = build([Y], LAWS, RULE, acc)
        closed = cp.ClassProbability(system, acc).value((arb(y),))
        cp.GAUSSIAN_REST = False
        try:
            nested = cp.ClassProbability(system, acc).value((arb(y),))
        finally:
            cp.GAUSSIAN_REST = True
        for a, b in zip(closed, nested):
            assert abs(a - b) < arb(10) ** -20
        assert closed[0].rad() < arb(10) ** -30
    with mpmath.workdps(40):
        t = mpmath.mpf(y)
        ref = _phi(t / mpmath.sqrt(t * t + 1))
        assert abs(mpmath.mpf(closed[0].mid().str(40, radius=False)) - ref) < mpmath.mpf(10) ** -30


def test_mi_with_the_class_agrees_with_mpmath_quadrature_to_30_digits():
    route = NumericRoute(LAWS, RULE)
    with mpmath.workdps(36):
        hc = route.class_entropy()
        mi = route.mi_class(Y)
        mi_x = route.mi_class(X)
    assert hc.certified and mi.certified and mi_x.certified
    with mpmath.workdps(50):
        # given X = x, x Y + k Z is a centred normal: P(C = 1 | X) = 1/2, so H(C) = ln 2 and
        # MI(C, X) = 0 (the symmetry Y -> -Y, Z -> -Z), here out of the closed form itself
        assert abs(hc.value - mpmath.log(2)) < mpmath.mpf(10) ** -33
        assert abs(mi_x.value) < mpmath.mpf(10) ** -33
        avg = mpmath.quad(lambda y: mpmath.npdf(y) * _hb(_phi(y / mpmath.sqrt(y * y + 1))),
                          [-mpmath.inf, -1, 0, 1, mpmath.inf])
        ref = mpmath.log(2) - avg
        assert abs(mi.value - ref) < mpmath.mpf(10) ** -30
        assert mi.error < mpmath.mpf(10) ** -30


def test_nonzero_means_and_a_quadratic_coefficient():
    """C = 1{X^2 + X Y + Z / 3 >= 1} with Y ~ N(1/2, 1), Z ~ N(-1, 4), X ~ N(0, 1): given x the
    form is N(x^2 + x/2 - 1 - 1/3, x^2 + 4/9); MI(C, X) against mpmath at 50 digits."""
    laws = {X: Normal(0, 1), Y: Normal(sp.Rational(1, 2), 1), Z: Normal(-1, 2)}
    rule = Rule(X**2 + X * Y + Z / 3 - 1)
    route = NumericRoute(laws, rule)
    with mpmath.workdps(32):
        mi = route.mi_class(X)
    assert mi.certified

    def q1(x):
        return _phi((x * x + x / 2 - 1 - mpmath.mpf(1) / 3) / mpmath.sqrt(x * x + mpmath.mpf(4) / 9))

    with mpmath.workdps(50):
        p1 = mpmath.quad(lambda x: mpmath.npdf(x) * q1(x), [-mpmath.inf, -2, 0, 2, mpmath.inf])
        avg = mpmath.quad(lambda x: mpmath.npdf(x) * _hb(q1(x)), [-mpmath.inf, -2, 0, 2, mpmath.inf])
        ref = _hb(p1) - avg
        assert abs(mi.value - ref) < mpmath.mpf(10) ** -26


@pytest.mark.slow
def test_a_variance_vanishing_at_a_coordinate_value():
    """C = 1{X Y + X Z >= 1/2}, Y ~ N(1, 1), Z ~ N(0, 1): given x the form is
    N(x - 1/2, 2 x^2), whose standard deviation sqrt 2 |x| vanishes at x = 0 (a cut; sympy's
    |x| has no analytic form on complex balls, the variance's principal root is used)."""
    laws = {X: Normal(0, 1), Y: Normal(1, 1), Z: Normal(0, 1)}
    route = NumericRoute(laws, Rule(X * Y + X * Z - sp.Rational(1, 2)))
    with mpmath.workdps(32):
        hc, mi = route.class_entropy(), route.mi_class(X)
    assert hc.certified and mi.certified

    def q1(x):
        return _phi((x - mpmath.mpf(1) / 2) / (mpmath.sqrt(2) * abs(x)))

    with mpmath.workdps(50):
        pts = [-mpmath.inf, -1, 0, mpmath.mpf(1) / 2, 1, mpmath.inf]
        p1 = mpmath.quad(lambda x: mpmath.npdf(x) * q1(x), pts)
        avg = mpmath.quad(lambda x: mpmath.npdf(x) * _hb(q1(x)), pts)
        assert abs(hc.value - _hb(p1)) < mpmath.mpf(10) ** -26
        assert abs(mi.value - (_hb(p1) - avg)) < mpmath.mpf(10) ** -26
