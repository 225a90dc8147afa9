"""The law of a product of two uniform variables in closed form
(:class:`fstheory.theory.product_rest.UniformProduct`) and the class probability of a rule that
uses them only through their product (C = 1{X Y + k Z >= 1/2}).

Second routes: the CDF against mpmath's quadrature of its definition
``(1/A) int |{y : x y <= t}| dx`` at 40 digits, the density against a difference quotient of
that integral, and MI(C, Z) against mpmath's quadrature of the textbook form
``P(X Y >= t) = 1 - t + t ln t`` (X, Y ~ U(0, 1)).
"""

from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.theory.laws import Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.product_rest import UniformProduct
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule


def _m(q):
    return mpmath.mpf(q.numerator) / q.denominator


def _reference_cdf(xs, ys, t):
    """P(X Y <= t) by mpmath's quadrature of the length of {y : x y <= t}."""
    a, b = map(_m, xs)
    c, d = map(_m, ys)

    def length(x):
        if x > 0:
            return min(max(t / x - c, 0), d - c)
        return min(max(d - t / x, 0), d - c)

    pts = {a, b} | {t / e for e in (c, d) if e != 0 and a < t / e < b}
    if a < 0 < b:
        pts.add(mpmath.mpf(0))
    return mpmath.quad(length, sorted(pts)) / ((b - a) * (d - c))


def _value(f):
    return mpmath.mpf(f.mid().str(45, radius=False))


ENDS = st.fractions(min_value=-3, max_value=3, max_denominator=7)


@settings(max_examples=25, deadline=None)
@given(ENDS, ENDS, ENDS, ENDS, st.fractions(min_value=-10, max_value=10, max_denominator=9))
def test_cdf_and_sf_agree_with_the_quadrature_of_their_definition(a, b, c, d, t):
    if a == b or c == d:
        return
    xs, ys = tuple(sorted((F(a), F(b)))), tuple(sorted((F(c), F(d))))
    with flint_precision(160):
        w = UniformProduct(xs, ys)
        tt = arb(t.numerator) / t.denominator
        cdf, sf = w.cdf(tt), w.sf(tt)
        assert cdf.rad() < arb(10) ** -35 and sf.rad() < arb(10) ** -35
    with mpmath.workdps(45):
        ref = _reference_cdf(xs, ys, _m(F(t)))
        assert abs(_value(cdf) - ref) < mpmath.mpf(10) ** -30
        assert abs(_value(sf) - (1 - ref)) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("xs, ys, t", [((-1, 2), (F(1, 2), 3), F(1, 4)),
                                       ((-2, -1), (-1, 3), F(-5, 2)),
                                       ((0, 1), (0, 1), F(1, 10))])
def test_density_is_the_derivative_of_the_cdf(xs, ys, t):
    xs, ys = tuple(map(F, xs)), tuple(map(F, ys))
    with flint_precision(160):
        pdf = UniformProduct(xs, ys).pdf(arb(t.numerator) / t.denominator)
    with mpmath.workdps(60):
        h = mpmath.mpf(10) ** -20
        tt = _m(t)
        slope = (_reference_cdf(xs, ys, tt + h) - _reference_cdf(xs, ys, tt - h)) / (2 * h)
        assert abs(_value(pdf) - slope) < mpmath.mpf(10) ** -30


def test_product_rule_mi_with_the_third_variable_agrees_with_the_textbook_cdf():
    X, Y, Z = sp.symbols("X Y Z", real=True)
    laws = {X: Uniform(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)}
    route = NumericRoute(laws, Rule(X * Y + Z / 2 - sp.Rational(1, 2)))
    with mpmath.workdps(36):
        hc, mi = route.class_entropy(), route.mi_class(Z)
    assert hc.certified and mi.certified

    def q1(z):
        t = (1 - z) / 2
        return 1 - t + t * mpmath.log(t) if t > 0 else mpmath.mpf(1)

    def hb(p):
        return -p * mpmath.log(p) - (1 - p) * mpmath.log1p(-p) if 0 < p < 1 else mpmath.mpf(0)

    with mpmath.workdps(50):
        p1 = mpmath.quad(q1, [0, 1])
        assert abs(hc.value - hb(p1)) < mpmath.mpf(10) ** -30
        ref = hb(p1) - mpmath.quad(lambda z: hb(q1(z)), [0, mpmath.mpf(1) / 2, 1])
        assert abs(mi.value - ref) < mpmath.mpf(10) ** -30
