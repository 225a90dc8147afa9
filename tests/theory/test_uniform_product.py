"""E[H_b(P(C = 1 | c X Y + e))] for uniform X, Y by closed-form fibres
(:mod:`fstheory.theory.uniform_product`), against an independent route: mpmath's nested
double-exponential quadrature at 45 digits with the class probability evaluated from the rule
directly and numerical fibre roots, stored in tests/data/uniform_product_reference.json by
scripts/make_uniform_product_reference.py (its two runs, at 45 and 40 digits, agree to more than
33 digits; the certified values must agree with it to 28 digits, and their error bounds must
cover the difference up to the reference's own error)."""

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import arb

from fstheory.theory.coordinates import build
from fstheory.theory.laws import Normal, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule
from fstheory.theory.univariate import Accuracy
from fstheory.theory.uniform_product import uniform_product_class_average

X, Y, Z = sp.symbols("X Y Z", real=True)
Q = sp.Rational
REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "uniform_product_reference.json")
                       .read_text())["values"]

CASES = {
    "r05 k=1/2": ({X: Uniform(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)},
                  X * Y + Q(1, 2) * Z - Q(1, 2)),
    "r05 k=3/10": ({X: Uniform(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)},
                   X * Y + Q(3, 10) * Z - Q(1, 2)),
    "asymmetric rest": ({X: Uniform(-1, 2), Y: Uniform(Q(-1, 2), 1), Z: Uniform(0, 1)},
                        X * Y + Q(3, 4) * Z - Q(1, 4)),
    "line indicator": ({X: Uniform(Q(-1, 2), Q(3, 2)), Y: Uniform(-1, 1)}, X + Y - Q(1, 2)),
    "r04 k=3/10": ({X: Uniform(-1, 1), Y: Uniform(-1, 1), Z: Normal(0, 1)},
                   Q(1, 2) - X**2 - Q(3, 10) * Y**2),
    # the ellipse through the box's edge points (0, +-1): a cut end within w^3 of a box end
    "r04 k=1/2": ({X: Uniform(-1, 1), Y: Uniform(-1, 1), Z: Normal(0, 1)},
                  Q(1, 2) - X**2 - Q(1, 2) * Y**2),
}


def _average(laws, form, feature=X * Y, bits=140):
    acc = Accuracy.from_bits(bits, int(bits * 0.30103) - 10)
    with flint_precision(bits):
        system = build([feature], laws, Rule(sp.expand(form)), acc)
        return uniform_product_class_average(system, acc)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_nested_mpmath(name):
    laws, form = CASES[name]
    value, error = _average(laws, form)
    with mpmath.workdps(40):
        ref = mpmath.mpf(REFERENCE[name])
        got = mpmath.mpf(value.str(40, radius=False))
        assert error < arb(10) ** -30
        assert abs(got - ref) < mpmath.mpf(10) ** -28
        assert abs(got - ref) <= mpmath.mpf(error.str(5, radius=False)) + mpmath.mpf(10) ** -33


def test_scale_and_shift_do_not_change_it():
    """V = c X Y + e carries the information of X Y: the same value for -3 X Y + 2."""
    laws, form = CASES["r05 k=1/2"]
    v1, _ = _average(laws, form, X * Y, bits=100)
    v2, _ = _average(laws, form, -3 * X * Y + 2, bits=100)
    with flint_precision(100):
        assert abs(v1 - v2) < arb(10) ** -20
        assert abs(v1 - arb(REFERENCE["r05 k=1/2"])) < arb(10) ** -20


def test_other_kinds_are_left_to_other_routes():
    """A normal factor, a normal rest, a feature that is not a product, or a uniform rest whose
    cut is tangent to the fibres (r09: C = 1{X + Y/2 + Z >= 1}): None."""
    normal = {X: Normal(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)}
    assert _average(normal, X * Y + Z - 1, bits=80) is None
    rest = {X: Uniform(0, 1), Y: Uniform(0, 1), Z: Normal(0, 1)}
    assert _average(rest, X + Y + Z - 1, bits=80) is None
    laws, form = CASES["r05 k=1/2"]
    assert _average(laws, form, X * Y + X, bits=80) is None
    assert _average(laws, X + Y / 2 + Z - 1, bits=80) is None


def test_numeric_route_uses_it():
    """MI(C, X Y) of r05 through the numerical route: certified, by this route, and equal to
    H(C) minus the reference."""
    laws, form = CASES["r05 k=1/2"]
    route = NumericRoute(laws, Rule(sp.expand(form)))
    with mpmath.workdps(30):
        got = route.mi_class(X * Y)
        hc = route.class_entropy()
        assert got.certified and "closed-form fibres" in got.method
        assert abs(got.value - (hc.value - mpmath.mpf(REFERENCE["r05 k=1/2"]))) < mpmath.mpf(10) ** -25


def test_small_boxes_scale_out():
    """X, Y ~ Unif(0, 1/100), C = 1{20000 X Y + Z/2 >= 1/2} is the unit-box class
    1{2 X' Y' + Z/2 >= 1/2} of X' = 100 X, Y' = 100 Y: the same MI (the band near w = 0 is
    bounded with delta below the range of W = X Y, here 10^-4)."""
    k = Q(1, 2)
    small = NumericRoute({X: Uniform(0, Q(1, 100)), Y: Uniform(0, Q(1, 100)), Z: Uniform(0, 1)},
                         Rule(20000 * X * Y + k * Z - k))
    unit = NumericRoute({X: Uniform(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)},
                        Rule(2 * X * Y + k * Z - k))
    with mpmath.workdps(20):
        a, b = small.mi_class(X * Y), unit.mi_class(X * Y)
        assert a.certified and b.certified
        assert abs(a.value - b.value) < mpmath.mpf(10) ** -15
        assert abs(a.value - b.value) <= a.error + b.error
