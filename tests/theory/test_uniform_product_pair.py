"""h(V1, V2) of a product and a sum of three uniform variables (density kappa ln(U/L) on exact
cells, certified quadrature in ln(U/L)), against independent routes: the closed form of
(X Y, X + Z) derived by hand, and the stored mpmath references of
scripts/uniform_linear_pair_reference.py (a brute-force density, nested tanh-sinh)."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import arb

from fstheory.theory.laws import Exponential, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.uniform_product_pair import uniform_product_pair_entropy

X, Y, Z = sp.symbols("X Y Z", real=True)
UNIT = {s: Uniform(0, 1) for s in (X, Y, Z)}
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "uniform_linear_pair_reference.json"


def _h(pair, laws=UNIT, digits=32):
    with flint_precision(int(digits * 3.33) + 60):
        return uniform_product_pair_entropy(pair, laws, arb(10) ** -digits)


def _close(value: arb, error: arb, expected, digits: int):
    assert error < arb(10) ** -(digits - 1)
    with mpmath.workdps(45):
        got = mpmath.mpf(value.mid().str(45, radius=False))
        assert abs(got - mpmath.mpf(expected)) < mpmath.mpf(10) ** -digits, (got, expected)


@pytest.mark.slow
def test_product_and_sum_against_the_hand_closed_form():
    # given X = x: X Y ~ U(0, x), X + Z ~ U(x, x + 1), so f(a, b) = ln(min(1, b) / max(a, b - 1));
    # on {b < 1} f = ln(b / a) (a = b t: int = (1 - gamma) / 2), on {b > 1} f = -ln max(a, b - 1)
    # (max of two uniforms, density 2m: int = (1 - gamma - ln 2) / 2); h = -(sum)
    with mpmath.workdps(45):
        expected = mpmath.euler - 1 + mpmath.log(2) / 2
    value, error = _h((X * Y, X + Z))
    _close(value, error, expected, 31)
    swapped, _ = _h((X + Z, Y * X))
    assert abs(swapped - value) < arb(10) ** -31


@pytest.mark.slow
@pytest.mark.parametrize("name", ["2XY+X-1, -X+3Z+2", "-XY+2X, X-2Z"])
def test_product_pairs_against_the_stored_brute_force(name):
    ref = json.loads(REFERENCE.read_text())["pairs"][name]
    (c, a, e), (b, g, d) = ref["product"]
    value, error = _h((c * X * Y + a * X + e, b * X + g * Z + d))
    _close(value, error, ref["h"], 30)


@pytest.mark.slow
def test_a_negative_shared_support_is_mirrored():
    """S ~ Unif(-1, 0): (S T, S + W) is (-S') T, -S' + W with S' ~ Unif(0, 1), and
    h(-V1, -V2 + ...) = h(V1, V2): the same entropy as (X Y, X - Z)."""
    laws = dict(UNIT)
    laws[X] = Uniform(-1, 0)
    mirrored, e1 = _h((X * Y, X + Z), laws, digits=20)
    direct, e2 = _h((X * Y, X - Z), digits=20)
    assert abs(mirrored - direct) <= e1 + e2


@pytest.mark.slow
def test_two_products_against_the_hand_closed_form():
    # (X Y, X Z): f(a, b) = int_{max(a, b)}^1 ds / s^2 = 1 / max(a, b) - 1, max(a, b) with
    # density 2 m: h = -2 int_0^1 (1 - m) ln((1 - m) / m) dm = -2 (-1/4 + 3/4) = -1
    value, error = _h((X * Y, X * Z), digits=30)
    _close(value, error, -1, 29)
    mirrored, _ = _h((X * Y, -X * Z), digits=30)
    assert abs(mirrored - value) < arb(10) ** -29


@pytest.mark.slow
def test_two_products_against_a_hand_density():
    # (X Y, X Z' + 1), Z' = 2 Z + 1 ~ U(1, 3): f(a, b) = (1/lo - 1/hi) / 2 with
    # lo = max(a, b / 3), hi = min(1, b) (b = V2 - 1), nested tanh-sinh with its kinks
    with mpmath.workdps(28):
        def f(a, b):
            lo, hi = max(a, b / 3), min(1, b)
            return (1 / lo - 1 / hi) / 2 if hi > lo else mpmath.mpf(0)

        def inner(b):
            def g(a):
                v = f(a, b)
                return -v * mpmath.log(v) if v > 0 else mpmath.mpf(0)
            return mpmath.quad(g, [0, b / 3, min(1, b)])
        expected = mpmath.quad(inner, [0, 1, 3])
    value, error = _h((X * Y, 2 * X * Z + X + 1), digits=30)
    _close(value, error, expected, 25)


def test_out_of_form_pairs_are_left_to_other_routes():
    assert _h((X * Y, X + Y + Z)) is None  # the sum holds both factors
    assert _h((X * Y, X + Z), {X: Uniform(-1, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)}) is None
    assert _h((X * Y, X + Z), {X: Exponential(1), Y: Uniform(0, 1), Z: Uniform(0, 1)}) is None
    assert _h((X + Y, X + Z)) is None  # no product
    assert _h((X * Y, X * Z + Z)) is None  # the second product's factor also alone


@pytest.mark.slow
def test_numeric_route_mi_of_the_product_and_the_sum():
    """MI(X Y, X + Z) = h(X Y) + h(X + Z) - h(pair) = (gamma - 1) + 1/2 - (gamma - 1 + ln 2 / 2)
    = (1 - ln 2) / 2, certified."""
    route = NumericRoute(UNIT)
    with mpmath.workdps(30):
        got = route.mi_pair(X * Y, X + Z)
        expected = (1 - mpmath.log(2)) / 2
    assert got.certified
    assert abs(got.value - expected) <= got.error + mpmath.mpf(10) ** -29
    assert got.error < mpmath.mpf(10) ** -23  # the route works to 10^-(dps - 6)
