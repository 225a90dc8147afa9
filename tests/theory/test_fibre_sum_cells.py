"""Closed inner integrals of a sum's fibre (theory/fibre_sum_cells.py): MI(C, V) of sums of
laws with exponential pieces certified, against the estimated nested quadrature (the second
route); the logistic cells against mpmath's quadrature of the inner integral."""

from fractions import Fraction as Q

import pytest
import mpmath
import sympy as sp
from flint import acb, arb

from fstheory.theory.class_probability import ClassProbability
from fstheory.theory.coordinates import build
from fstheory.theory.fibre_certified import Fibre
from fstheory.theory.fibre_sum_cells import closed_sum_cell
from fstheory.theory.laws import Exponential, Laplace, Logistic, Uniform
from fstheory.theory.numeric import NumericRoute, estimated_nested
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule
from fstheory.theory.univariate import Accuracy

X, Y = sp.symbols("X Y", real=True)


def _both_routes(laws, rule, feature, dps=30):
    route = NumericRoute(laws, rule)
    with mpmath.workdps(dps):
        got = route.mi_class(feature)
    with estimated_nested(), mpmath.workdps(dps):
        ref = NumericRoute(laws, rule).mi_class(feature)
    return got, ref


def test_difference_of_exponentials_is_certified():
    """X ~ Exp(1), Y ~ Exp(2), C = 1{X + Y/2 >= 1}, V = X - Y (the r08 scenario file)."""
    got, ref = _both_routes({X: Exponential(1), Y: Exponential(2)},
                            Rule.from_linear({X: 1, Y: Q(1, 2)}, 1), X - Y)
    assert got.certified and "certified nested" in got.method
    assert not ref.certified
    with mpmath.workdps(40):
        assert abs(got.value - ref.value) < mpmath.mpf(10) ** -22
        assert got.error < mpmath.mpf(10) ** -28


def test_laplace_plus_uniform_is_certified():
    """X ~ Laplace(0, 1), Y ~ Unif(-1, 1), C = 1{X - Y/2 >= 1/3}, V = X + 2 Y."""
    got, ref = _both_routes({X: Laplace(0, 1), Y: Uniform(-1, 1)},
                            Rule.from_linear({X: 1, Y: Q(-1, 2)}, Q(1, 3)), X + 2 * Y)
    assert got.certified
    with mpmath.workdps(40):
        assert abs(got.value - ref.value) < mpmath.mpf(10) ** -22


def _logistic_pdf(z, mu, s):
    e = mpmath.exp(-abs(z - mu) / s)
    return e / (s * (1 + e) ** 2)


def test_logistic_cells_against_the_inner_integral():
    """V = X + Z with Z logistic and X exponential, either one solved for: each closed cell
    at real v equals mpmath's quadrature of f_X(x) f_Z(v - x) over the cell."""
    Z = sp.Symbol("Z", real=True)
    laws = {X: Exponential(1), Z: Logistic(0, Q(1, 2))}
    rule = Rule.from_linear({X: 1, Z: Q(1, 2)}, 1)
    acc = Accuracy.from_bits(160)
    with flint_precision(160), mpmath.workdps(50):
        system = build([X + Z], laws, rule, acc)
        q = ClassProbability(system, acc)
        for swap in (False, True):
            F = Fibre(system, q, acc)
            if swap:  # solve for the logistic coordinate instead
                F.s, F.o = F.o, F.s
                x = F.o.symbol
                F.a, F.r = sp.Integer(1), x
                F.solved = lambda v, xx: v - xx
            checked = 0
            for v in ("-3", "0.5", "2"):
                m = arb(v)
                cells = F.cells(m) if not swap else [(lambda z: acb(0), lambda z: acb(3),
                                                      arb("1.5"))]
                for cell in cells:
                    value = closed_sum_cell(F, m, cell)
                    assert value is not None
                    lo, hi = (mpmath.mpf(acb(e(m)).real.mid().str(60, radius=False)) for e in cell[:2])
                    v_ = mpmath.mpf(v)
                    if F.o.symbol == X:  # x exponential, s = v - x logistic
                        ref = mpmath.quad(lambda t, v_=v_: mpmath.exp(-t)
                                          * _logistic_pdf(v_ - t, 0, mpmath.mpf(1) / 2), [lo, hi])
                    else:  # x logistic, s = v - x exponential
                        ref = mpmath.quad(lambda t, v_=v_: mpmath.exp(-(v_ - t))
                                          * _logistic_pdf(t, 0, mpmath.mpf(1) / 2), [lo, hi])
                    got = value(acb(m)).real
                    assert abs(mpmath.mpf(got.mid().str(45, radius=False)) - ref) \
                        < mpmath.mpf(10) ** -35 * max(1, abs(ref)), (swap, v, lo, hi)
                    checked += 1
            assert checked >= 3


@pytest.mark.slow
def test_laplace_sum_with_a_laplace_rest():
    """X, Y ~ Laplace(0, 1), Z ~ Laplace(1, 1/2), C = 1{X + Y/2 + Z >= 1}, V = X + Y (the r07
    scenario file): the class parts in closed form with the rest's survival function, and the
    runs of negligible class parts bounded; against the estimated nested quadrature."""
    Z = sp.Symbol("Z", real=True)
    laws = {X: Laplace(0, 1), Y: Laplace(0, 1), Z: Laplace(1, Q(1, 2))}
    rule = Rule.from_linear({X: 1, Y: Q(1, 2), Z: 1}, 1)
    got, ref = _both_routes(laws, rule, X + Y, dps=24)
    assert got.certified and not ref.certified
    with mpmath.workdps(40):
        assert abs(got.value - ref.value) < mpmath.mpf(10) ** -17


@pytest.mark.slow
def test_exponential_plus_logistic_class_average():
    """X ~ Exp(1), Z ~ Logistic(0, 1/2), C = 1{X + Z/2 >= 1}, V = X + Z (the r11 scenario
    file): incomplete beta cells, far tails bounded; against the estimated nested quadrature."""
    Z = sp.Symbol("Z", real=True)
    got, ref = _both_routes({X: Exponential(1), Z: Logistic(0, Q(1, 2))},
                            Rule.from_linear({X: 1, Z: Q(1, 2)}, 1), X + Z, dps=24)
    assert got.certified and not ref.certified
    with mpmath.workdps(40):
        assert abs(got.value - ref.value) < mpmath.mpf(10) ** -17


def test_logistic_pair_cell_antiderivative():
    """int sigma'(u) sigma'(u + d) du between two ends by the closed antiderivative (and its
    series near d = 0, the removable singularity), against mpmath at 60 digits; real and
    complex balls."""
    from fstheory.theory.fibre_sum_cells import pair_antiderivative

    def sp_(u):
        e = mpmath.exp(-abs(u))
        return e / (1 + e) ** 2

    with flint_precision(200), mpmath.workdps(60):
        for d in ("0", "1e-30", "0.1", "-0.2", "2", "-5", "40"):
            for u0, u1 in ((-3, 2), (-50, -10), (5, 60), (-0.5, 0.5)):
                ref = mpmath.quad(lambda u, d=d: sp_(u) * sp_(u + mpmath.mpf(d)),
                                  [u0, (u0 + u1) / 2, u1])
                for dd in (acb(arb(d)), acb(arb(d), arb(0, "1e-40"))):
                    got = pair_antiderivative(dd, acb(u1)) - pair_antiderivative(dd, acb(u0))
                    value = mpmath.mpf(got.real.mid().str(60, radius=False))
                    assert abs(value - ref) < ref * mpmath.mpf(10) ** -28, (d, u0, u1)
                    assert got.real.rad() < abs(got.real.mid()) * arb(10) ** -28
