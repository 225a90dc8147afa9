"""A rule's rest that is a sum of closed laws (an exponential plus a uniform): its tail
probabilities near the rest's finite support end keep their relative precision on complex balls
(theory/polyexp.py, Piece near an end), so MI(C, X) is certified. Second route: mpmath at 40
digits of the 2-D integral with the rest's convolution integrated directly
(scripts/make_sum_rest_reference.py, tests/data/sum_rest_reference.json)."""

import json
from fractions import Fraction as Q
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import acb, arb

from fstheory.theory.laws import Exponential, Laplace, Logistic, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.polyexp import PolyExp, exp_tail
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule

REF = json.loads((Path(__file__).parent.parent / "data" / "sum_rest_reference.json").read_text())
X, Y, Z = sp.symbols("X Y Z", real=True)
R = sp.Rational


def _route(name):
    if name == "r13":
        laws = {X: Laplace(0, 2), Y: Exponential(3), Z: Uniform(0, 1)}
        rule = Rule(sp.expand(X + Y / 2 - Z - R(1, 3)))
    else:
        laws = {X: Logistic(1, R(1, 2)), Y: Uniform(-2, 1), Z: Exponential(R(1, 2))}
        rule = Rule(sp.expand(X + Z / 2 - Y - R(1, 2)))
    return NumericRoute(laws, rule)


@pytest.mark.parametrize("name", ["r13", "r15"])
def test_mi_class_of_x_is_certified_and_agrees_with_mpmath(name):
    """MI(C, X) proved at 30 digits, and within 1e-25 (relative) of the 40-digit reference."""
    with mpmath.workdps(30):
        got = _route(name).mi_class(X)
        ref = mpmath.mpf(REF[f"{name}_mi_class_X"])
        assert got.certified, got.method
        assert "certified quadrature" in got.method
        assert got.error < abs(got.value) * mpmath.mpf(10) ** -27
        assert abs(got.value - ref) <= abs(ref) * mpmath.mpf(10) ** -25 + got.error


def _exp_plus_uniform_cdf():
    """The CDF of Y/2 - Z, Y ~ Exp(3), Z ~ U(0, 1): on [-1, 0] it is y - (1 - e^(-6y))/6 with
    y = t + 1, about 3 y^2 at the end."""
    pe = PolyExp.exponential(Q(3)).affine(Q(1, 2), Q(0)).convolve(PolyExp.uniform(Q(-1), Q(0)))
    return pe.cdf()


@pytest.mark.parametrize("y", ["1e-3", "1e-9", "1e-20"])
def test_cdf_near_the_end_is_enclosed_on_wide_balls(y):
    """Next to the end the terms cancel (3 y^2 from terms of size 1/6). The enclosure at the
    real point contains the value (mpmath at 150 digits), and on a complex ball of radius y/100
    around it stays within 10% of the value: summing the terms gives a radius of about y/100,
    which contains 0 (no logarithm of it is then enclosed)."""
    with flint_precision(200), mpmath.workdps(150):
        cdf = _exp_plus_uniform_cdf()
        t = arb(-1) + arb(y)
        # the exact y of the rounded point; 150 digits survive the cancellation
        yy = mpmath.mpf(t.mid().str(100, radius=False)) + 1
        truth = yy - (1 - mpmath.exp(-6 * yy)) / 6
        at = cdf.value(t)
        assert abs(mpmath.mpf(at.mid().str(100, radius=False)) - truth) <= mpmath.mpf(at.rad().str(5, radius=False)) * 2
        assert at.rad() < truth * mpmath.mpf(10) ** -15
        wide = cdf.branch(t)(acb(arb(t.mid(), float(y) / 100), arb(0, float(y) / 100)))
        assert wide.rad() < truth * mpmath.mpf("0.1")
        assert abs(mpmath.mpf(wide.real.mid().str(60, radius=False)) - truth) < truth * mpmath.mpf("0.1")


@pytest.mark.parametrize("w", ["0.5", "-0.5", "1e-8", "0.25"])
def test_exp_tail_is_the_exponential_minus_its_taylor_polynomial(w):
    with flint_precision(200), mpmath.workdps(150):
        for n in (1, 3, 8):
            v = exp_tail(arb(w), n)
            ww = mpmath.mpf(w)
            truth = mpmath.exp(ww) - sum(ww**j / mpmath.factorial(j) for j in range(n))
            assert abs(mpmath.mpf(v.mid().str(80, radius=False)) - truth) <= abs(truth) * mpmath.mpf(10) ** -50
            assert v.rad() < abs(v.mid()) * arb(10) ** -50
