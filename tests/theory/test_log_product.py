"""h(X Y) and E[H_b(P(C = 1 | X Y))] through the density of ln|X Y|
(fstheory.theory.log_product), against independent routes: mpmath's quadrature of -f ln f in
u = X Y itself with the closed density f_U (E1 for an exponential times a uniform factor, K_0
for two normal factors), and the certified fibre integrals of fstheory.theory.fibre_certified
(inner integrals in x itself, a band around u = 0) and a stored mpmath reference (closed
density, class piece in sqrt(1 - 2u)) for the class average."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import mpmath
import sympy as sp
from flint import arb

from fstheory.theory import laws as L
from fstheory.theory.class_probability import ClassProbability
from fstheory.theory.coordinates import build
from fstheory.theory.fibre_certified import fibre_class_average
from fstheory.theory.log_product import log_product_class_average, log_product_entropy
from fstheory.theory.quadrature import flint_precision, work_limit
from fstheory.theory.rule import Rule
from fstheory.theory.univariate import Accuracy

X, Y = sp.symbols("X Y", real=True)


def _accuracy(digits: int) -> Accuracy:
    tol = arb(10) ** -digits
    return Accuracy(int(digits * 3.33) + 40, tol, tol * arb(10) ** -12)


def _entropy(laws, digits):
    """(value, error bound) as mpmath numbers (the caller works at 40 digits)."""
    acc = _accuracy(digits)
    with flint_precision(acc.bits), work_limit(20_000_000):
        value, error = log_product_entropy(build([X * Y], laws, None, acc), acc)
    return (mpmath.mpf(value.mid().str(digits + 10, radius=False)),
            mpmath.mpf(arb(error.upper()).str(5, radius=False)))


def _reference(f_pos, f_neg, dps=40):
    """-int f ln f over u > 0 (f_pos(u)) and u < 0 (f_neg(|u|)) by mpmath's tanh-sinh."""
    pts = [0, mpmath.mpf("1e-40"), mpmath.mpf("1e-20"), mpmath.mpf("1e-10"), mpmath.mpf("1e-5"),
           mpmath.mpf("0.01"), 1, 5, 20, 80, 200]
    with mpmath.workdps(dps):
        total = mpmath.mpf(0)
        for f in (f_pos, f_neg):
            if f is not None:
                total -= mpmath.quad(lambda u, f=f: f(u) * mpmath.log(f(u)), pts)
        return total


@pytest.mark.slow
@mpmath.workdps(40)
def test_exponential_times_uniform_agrees_with_the_closed_density():
    # f_U(u) = E1(|u|) / 2 for X ~ Exp(1), Y ~ Unif(-1, 1)
    value, error = _entropy({X: L.Exponential(1), Y: L.Uniform(-1, 1)}, 18)
    f = lambda u: mpmath.e1(u) / 2  # noqa: E731
    ref = _reference(f, f)
    assert error < mpmath.mpf("1e-17")
    assert abs(value - ref) <= error + mpmath.mpf("1e-25")
    assert abs(value - mpmath.mpf("0.94100027132878905853")) < mpmath.mpf("1e-17")


@pytest.mark.slow
@mpmath.workdps(40)
def test_asymmetric_sign_keeps_both_sides():
    # X ~ Exp(1), Y ~ Unif(-1/2, 1): sign(X Y) depends on |X Y|; f_U(u) = E1(u) / (3/2) for
    # u > 0 (x > u) and E1(2|u|) / (3/2) for u < 0 (x > 2|u|)
    value, error = _entropy({X: L.Exponential(1), Y: L.Uniform(sp.Rational(-1, 2), 1)}, 16)
    c = mpmath.mpf(2) / 3
    ref = _reference(lambda u: c * mpmath.e1(u), lambda u: c * mpmath.e1(2 * u))
    assert error < mpmath.mpf("1e-15")
    assert abs(value - ref) <= error + mpmath.mpf("1e-25")


@pytest.mark.slow
def test_class_average_agrees_with_the_fibre_route():
    # C = 1{X + Y/2 >= 1}: the indicator's cut x^2 - x + u/2 has a double root at u = 1/2
    laws = {X: L.Exponential(1), Y: L.Uniform(-1, 1)}
    rule = Rule.from_linear({X: 1, Y: sp.Rational(1, 2)}, 1)
    acc = _accuracy(15)
    with flint_precision(acc.bits), work_limit(20_000_000):
        system = build([X * Y], laws, rule, acc)
        q = ClassProbability(system, acc)
        v1, e1 = log_product_class_average(system, q, acc)
        v2, e2 = fibre_class_average(system, q, acc)
    assert e1 < arb(10) ** -14 and e2 < arb(10) ** -14
    assert abs(v1 - v2) <= e1 + e2
    assert abs(v1 - v2) < arb(10) ** -14


REFERENCE = Path(__file__).resolve().parent.parent / "data" / "log_product_reference.json"


@pytest.mark.slow
def test_class_average_of_two_exponentials_at_30_digits():
    # X ~ Exp(1), Y ~ Exp(2), C = 1{X + Y/2 >= 1}: the class cut x^2 - x + u/2 has a double
    # root at u = 1/2 (two cell ends meet as square roots); against mpmath's quadrature of the
    # closed density 4 K_0(2 sqrt(2u)) and the class-0 fibre piece
    # (scripts/log_product_reference.py)
    laws = {X: L.Exponential(1), Y: L.Exponential(2)}
    rule = Rule.from_linear({X: 1, Y: sp.Rational(1, 2)}, 1)
    acc = _accuracy(30)
    with flint_precision(acc.bits), work_limit(5_000_000):
        system = build([X * Y], laws, rule, acc)
        value, error = log_product_class_average(system, ClassProbability(system, acc), acc)
    with mpmath.workdps(45):
        ref = mpmath.mpf(json.loads(REFERENCE.read_text())["exp1_exp2_x_plus_half_y_ge_1"])
        v = mpmath.mpf(value.mid().str(45, radius=False))
        e = mpmath.mpf(arb(error.upper()).str(5, radius=False))
        assert e < mpmath.mpf("1e-29")
        assert abs(v - ref) <= e + mpmath.mpf("1e-39")
        assert abs(v - ref) < mpmath.mpf("1e-29")
