"""h(V1, V2) of piecewise-linear features of three uniform variables on exact cells, against
independent routes: mpmath nested quadrature of a density written by hand, and the stored
references of scripts/uniform_linear_pair_reference.py (a brute-force density)."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import arb
from hypothesis import given, settings, strategies as st

from fstheory.theory.laws import Normal, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.uniform_linear_pair import (uniform_linear_pair_entropy,
                                                 uniform_square_pair_entropy)

X, Y, Z = sp.symbols("X Y Z", real=True)
UNIT = {s: Uniform(0, 1) for s in (X, Y, Z)}
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "uniform_linear_pair_reference.json"


def _h(pair, laws=UNIT, bits=140):
    with flint_precision(bits):
        return uniform_linear_pair_entropy(pair, laws)


def _agree(value: arb, error: arb, expected, digits: int):
    assert error < arb(10) ** -30
    with mpmath.workdps(45):
        got = mpmath.mpf(value.mid().str(40, radius=False))
        assert abs(got - mpmath.mpf(expected)) < mpmath.mpf(10) ** -digits, (got, expected)


@pytest.mark.slow
def test_sum_and_fold_against_a_hand_density():
    # S = X + Y and D = |X - Y| have density 1 on {0 < d < 1, d < s < 2 - d}; adding Z:
    # f(v, d) = len([d, 2 - d] & [v - 1, v]), kinks at v = d, d + 1, 2 - d, 3 - d and d = 1/2
    with mpmath.workdps(32):
        def g(v, d):
            t = max(mpmath.mpf(0), min(2 - d, v) - max(d, v - 1))
            return -t * mpmath.log(t) if t > 0 else mpmath.mpf(0)
        expected = mpmath.quad(
            lambda d: mpmath.quad(lambda v: g(v, d), sorted([d, d + 1, 2 - d, 3 - d])),
            [0, mpmath.mpf(1) / 2, 1])
    value, error = _h((X + Y + Z, sp.Abs(X - Y)))
    _agree(value, error, expected, 28)


@pytest.mark.parametrize("name", ["2X-3Y+Z, X+Y", "X+Z, Y+Z", "X-Y+2Z, 3X+Y-Z"])
def test_linear_pairs_against_the_stored_brute_force(name):
    ref = json.loads(REFERENCE.read_text())["pairs"][name]
    (a1, b1, c1), (a2, b2, c2) = ref["rows"]
    value, error = _h((a1 * X + b1 * Y + c1 * Z, a2 * X + b2 * Y + c2 * Z))
    _agree(value, error, ref["h"], 30)


@settings(max_examples=12, deadline=None)
@given(st.fractions(min_value=-5, max_value=5).filter(lambda c: c != 0),
       st.fractions(min_value=-3, max_value=3))
def test_affine_change_of_the_second_feature(c, d):
    """h(V1, c V2 + d) = h(V1, V2) + ln|c|, exactly in the cells' rationals."""
    c, d = sp.Rational(c.numerator, c.denominator), sp.Rational(d.numerator, d.denominator)
    base, e0 = _h((X + Y + Z, sp.Abs(X - Y)))
    moved, e1 = _h((X + Y + Z, c * sp.Abs(X - Y) + d))
    with flint_precision(140):
        diff = moved - base - arb(abs(c.p)).log() + arb(c.q).log()
    assert abs(diff) <= e0 + e1 + arb(10) ** -35


def test_symmetries_of_the_pair_and_of_the_box():
    h1, _ = _h((2 * X - 3 * Y + Z, sp.Abs(X - Y)))
    h2, _ = _h((sp.Abs(Y - X), Z + 2 * X - 3 * Y))  # order of the pair, sign inside |.|
    assert abs(h1 - h2) < arb(10) ** -35
    # X ~ Unif(0, 2) is 2 X' with X' ~ Unif(0, 1): (X + Y, X + Z) = (2X' + Y, 2X' + Z)
    wide = dict(UNIT)
    wide[X] = Uniform(0, 2)
    h3, _ = _h((X + Y, X + Z), wide)
    h4, _ = _h((2 * X + Y, 2 * X + Z))
    assert abs(h3 - h4) < arb(10) ** -35


def test_out_of_form_pairs_are_left_to_other_routes():
    assert _h((X * Y, X + Z)) is None  # a product
    assert _h((X + Y, Y + Z), {X: Normal(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)}) is None
    assert _h((X + Y, X - Y)) is None  # two base variables only


def test_numeric_route_mi_of_a_sum_and_a_fold_is_certified():
    route = NumericRoute(UNIT)
    with mpmath.workdps(30):
        got = route.mi_pair(X + Y + Z, sp.Abs(X - Y))
    assert got.certified
    assert got.error < mpmath.mpf(10) ** -23  # the route works to 10^-(dps - 6)
    # 0 < MI <= MI(X + Y + Z; (X, Y)) = h(X + Y + Z) - h(Z) = h(X + Y + Z)
    assert 0 < got.value < mpmath.mpf("0.7192948527751924547872574058")


@pytest.mark.slow
def test_square_and_sum_against_a_hand_density():
    # Q = (X - 1/2)^2 = r^2: preimages 1/2 +- r, each with weight 1 / (2 r); Y + Z triangular:
    # f(r^2, v) = (tri(v - 1/2 - r) + tri(v - 1/2 + r)) / (2 r), integrated in r (dq = 2 r dr)
    with mpmath.workdps(25):
        half = mpmath.mpf(1) / 2

        def tri(u):
            return max(mpmath.mpf(0), 1 - abs(u - 1))

        def inner(r):
            def g(v):
                f = (tri(v - half - r) + tri(v - half + r)) / (2 * r)
                return -f * mpmath.log(f) * 2 * r if f > 0 else mpmath.mpf(0)
            return mpmath.quad(g, sorted({half + s * r + a for s in (1, -1) for a in (0, 1, 2)}))
        expected = mpmath.quad(inner, [0, half])
    with flint_precision(140):
        value, error = uniform_square_pair_entropy(((X - sp.Rational(1, 2)) ** 2, X + Y + Z), UNIT)
        also, _ = uniform_square_pair_entropy((X + Y + Z, 3 * (X - sp.Rational(1, 2)) ** 2 - 1),
                                              UNIT)
        assert abs(also - value - arb(3).log()) < arb(10) ** -35
    _agree(value, error, expected, 22)


def test_squares_outside_the_form_are_left_to_other_routes():
    with flint_precision(100):
        assert uniform_square_pair_entropy((X * X + Y, X + Y + Z), UNIT) is None
        assert uniform_square_pair_entropy(((X - Y) ** 2, X + Z), UNIT) is None
        laws = dict(UNIT)
        laws[X] = Normal(0, 1)
        assert uniform_square_pair_entropy((X ** 2, X + Y + Z), laws) is None


def test_pairs_with_independent_parts_and_jumps_are_exact():
    """Where the pair splits into independent parts, h is the sum of known entropies; the first
    two have a fibre parallel to faces of the box (f jumps across the images of those faces)."""
    with flint_precision(140):
        cases = [((X + Y, X + Y + Z), arb(1) / 2),  # h(X + Y) + h(Z)
                 ((X - Y, 2 * Z + 1 + sp.Abs(X - Y)), arb(1) / 2 + arb(2).log()),
                 ((X, Y + Z), arb(1) / 2)]
        for pair, expected in cases:
            value, error = uniform_linear_pair_entropy(pair, UNIT)
            assert abs(value - expected) <= error + arb(10) ** -38, pair
