"""H(C | V_S) over a normal two-point fibre (:mod:`fstheory.theory.normal_fibre`), against two
independent routes:

* the wedge integral written by hand for each pair of threshold.toml (C = 1{X + kY >= 1}) in the
  coordinates (r, s) = (the folded variable, the affine feature), integrated by scipy's dblquad in
  double precision (tolerance 1e-10: its error estimates are below 1e-12);
* the engine's generic numerical route on the pair itself (nested double-exponential quadrature,
  an estimate) at 25 digits, stored in tests/data/normal_fibre_reference.json by
  scripts/make_normal_fibre_reference.py (tolerance 1e-18: its error estimate is 1e-19).
"""

import json
import math
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from scipy import integrate

from fstheory.engine.derive_joint import joint_structure
from fstheory.scenarios.scenario_file import load_scenario_file, shipped_scenario_path
from fstheory.theory.determination import ClassEvent
from fstheory.theory.laws import Normal
from fstheory.theory.normal_fibre import conditional_entropy_ball, normal_fibre
from fstheory.theory.quadrature import flint_precision

X, Y = sp.symbols("X Y", real=True)
LAWS = {X: Normal(0, 1), Y: Normal(0, 1)}
FEATURES = {(2, 4): [X - Y, Y**2], (3, 4): [X + Y, Y**2], (2, 5): [X - Y, X**2],
            (3, 5): [X + Y, X**2]}
REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "normal_fibre_reference.json")
                       .read_text())


def _kernel(s, r):
    """(1/pi) e^{-r^2 - s^2/2} cosh(sr) H_b(sigmoid(2sr)): the two points' total density times
    the binary entropy of the posterior, written with |x| = |s r| (no overflow)."""
    ax = abs(s * r)
    base = -r * r - s * s / 2
    ln2cosh = ax + math.log1p(math.exp(-2 * ax))
    ch = (math.exp(base + ax) + math.exp(base - ax)) / 2
    sh = (math.exp(base + ax) - math.exp(base - ax)) / 2
    return (ch * ln2cosh - ax * sh) / math.pi


def _wedge(pair, k: float) -> float:
    """H(C | V_S) by hand. With d the affine feature and r = |Y| (or |X|) the fibre is
    {(d + r, r), (d - r, -r)} for {X - Y, Y^2} (and likewise for the others); the classes differ
    where |a s - c| < b r:  {X-Y, Y^2}: |s - 1| < (1 + k) r;  {X+Y, Y^2}: |s - 1| < (1 - k) r;
    {X-Y, X^2}: |k s + 1| < (1 + k) r;  {X+Y, X^2}: |k s - 1| < (1 - k) r."""
    a, c, b = {(2, 4): (1, 1, 1 + k), (3, 4): (1, 1, 1 - k), (2, 5): (k, -1, 1 + k),
               (3, 5): (k, 1, 1 - k)}[pair]
    if a == 0:  # every s, r > |c| / b; the Gaussian in s is cut at |s| = 40
        v, err = integrate.dblquad(_kernel, abs(c) / b, 12, -40, 40, epsabs=1e-13, epsrel=1e-13)
    else:
        lo = lambda r: min((c - b * r) / a, (c + b * r) / a)  # noqa: E731
        hi = lambda r: max((c - b * r) / a, (c + b * r) / a)  # noqa: E731
        v, err = integrate.dblquad(_kernel, 0, 12, lo, hi, epsabs=1e-13, epsrel=1e-13)
    assert err < 1e-11
    return v


def _ball(pair, k, bits=64):
    fib = normal_fibre(FEATURES[pair], ClassEvent(X + k * Y - 1, 0), LAWS)
    assert fib is not None
    with flint_precision(bits):
        return conditional_entropy_ball(fib)


def _hand(pair):
    k = sp.Rational(3, 10)
    b = _ball(pair, k)
    assert b.rad() < 1e-15
    assert abs(float(b.mid()) - _wedge(pair, 0.3)) < 1e-10


@pytest.mark.slow
def test_against_the_wedge_by_hand():
    _hand((2, 5))


@pytest.mark.slow
@pytest.mark.parametrize("pair", [(2, 4), (3, 4), (3, 5)])
def test_against_the_wedge_by_hand_all(pair):
    _hand(pair)


def _class_entropy(k) -> mpmath.mpf:
    p = mpmath.ncdf(-1 / mpmath.sqrt(1 + k * k))  # P(X + kY >= 1)
    return -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)


def _rows(slow: bool):
    first = [r for r in REFERENCE["values"] if r["k"] == "0.3" and r["pair"] == [2, 4]]
    return [r for r in REFERENCE["values"] if (r not in first) == slow]


def _check_row(row, bits, radius=1e-24):
    k = sp.Rational(row["k"])
    b = _ball(tuple(row["pair"]), k, bits)
    with mpmath.workdps(30):
        mi = _class_entropy(mpmath.mpf(row["k"])) - mpmath.mpf(b.mid().str(40, radius=False))
        assert abs(mi - mpmath.mpf(row["value"])) < mpmath.mpf("1e-18") + float(b.rad())
    assert b.rad() < radius


@pytest.mark.slow
@pytest.mark.parametrize("row", _rows(slow=False), ids=lambda r: f"k={r['k']}-{r['pair']}")
def test_against_the_numerical_route(row):
    _check_row(row, 80, 1e-20)


@pytest.mark.slow
@pytest.mark.parametrize("row", _rows(slow=True), ids=lambda r: f"k={r['k']}-{r['pair']}")
def test_against_the_numerical_route_all(row):
    _check_row(row, 96)


def test_only_off_the_origin_and_unequal_densities():
    k = sp.Rational(3, 10)
    assert normal_fibre([X - Y, Y**2], ClassEvent(X + k * Y, 0), LAWS) is None  # the cone
    laws = {X: Normal(0, 1), Y: Normal(0, 2)}
    assert normal_fibre([X - Y, Y**2], ClassEvent(X + k * Y - 1, 0), laws) is None


def test_threshold_pairs_take_the_kind():
    bound = load_scenario_file(shipped_scenario_path("threshold")).bind(k="0.3")
    st = joint_structure(bound)
    for pair in FEATURES:
        assert st.mi_class_set(pair).kind == "normal-fibre"
