"""MI(C, V) for V linear in normal variables and a nonlinear rule, through the normal residuals
given V (:mod:`fstheory.theory.normal_conditioning`).

Second routes: the disc rule by rotation (X + Y = sqrt 2 U, X^2 + Y^2 = U^2 + W^2 with U, W
independent: P(C = 1 | U = u) = erf(sqrt((r - u^2)/2)), integrated by mpmath at 50 digits), and
an indefinite quadratic rule with unequal means and variances against the conditional law along
the fibre {V = v} (f_X(x) f_Y(y(x)) between the roots of the rule, mpmath at 20 digits,
stored by scripts/make_conditioning_reference.py).
"""

import pytest
import json
from pathlib import Path

import mpmath
import sympy as sp

from fstheory.theory.laws import Normal, Uniform
from fstheory.theory.normal_conditioning import normal_residuals
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.rule import Rule

X, Y, Z = sp.symbols("X Y Z", real=True)
REF = Path(__file__).parents[1] / "data" / "normal_conditioning_reference.json"


def _hb(p):
    return -p * mpmath.log(p) - (1 - p) * mpmath.log1p(-p) if 0 < p < 1 else mpmath.mpf(0)


def test_residuals_rebuild_the_variables_and_are_uncorrelated_with_v():
    laws = {X: Normal(sp.Rational(1, 2), 1), Y: Normal(-1, 2), Z: Normal(0, 3)}
    v, sub, residuals, mean, var = normal_residuals(X - 3 * Y + Z, laws)
    assert mean == sp.Rational(1, 2) + 3 and var == 1 + 9 * 4 + 9
    # V rebuilt from the substitution is v itself; each residual has no V component
    assert sp.expand((X - 3 * Y + Z).xreplace(sub)) == v
    assert len(residuals) == 2 and all(d > 0 for _, d in residuals)


def test_disc_rule_given_a_sum_agrees_with_the_rotation():
    r = sp.Rational(3, 2)
    laws = {X: Normal(0, 1), Y: Normal(0, 1), Z: Uniform(0, 2)}
    route = NumericRoute(laws, Rule(r - X**2 - Y**2))
    with mpmath.workdps(36):
        mi = route.mi_class(X + Y)
        mi2 = route.mi_class(X - 2 * Y)
    assert mi.certified and mi.error < mpmath.mpf(10) ** -30
    with mpmath.workdps(50):
        rr = mpmath.mpf(3) / 2

        def q1(u):
            return mpmath.erf(mpmath.sqrt((rr - u * u) / 2)) if u * u < rr else mpmath.mpf(0)

        s = mpmath.sqrt(rr)
        avg = mpmath.quad(lambda u: mpmath.npdf(u) * _hb(q1(u)), [-s, 0, s])
        ref = _hb(1 - mpmath.exp(-rr / 2)) - avg
        assert abs(mi.value - ref) < mpmath.mpf(10) ** -30
        # the disc is rotation invariant: every direction of V gives the same MI
        assert abs(mi2.value - ref) < mpmath.mpf(10) ** -30


@pytest.mark.slow
def test_indefinite_quadratic_rule_agrees_with_the_fibre_integral():
    """X ~ N(1/2, 1), Y ~ N(-1, 4), C = 1{X^2 + 2XY - Y^2 >= 1/2}, V = X - 3Y: against the
    fibre integral stored by scripts/make_conditioning_reference.py (mpmath, 20 digits)."""
    laws = {X: Normal(sp.Rational(1, 2), 1), Y: Normal(-1, 2)}
    rule = Rule(X**2 + 2 * X * Y - Y**2 - sp.Rational(1, 2))
    route = NumericRoute(laws, rule)
    with mpmath.workdps(32):
        hc, mi = route.class_entropy(), route.mi_class(X - 3 * Y)
    assert hc.certified and mi.certified and mi.error < mpmath.mpf(10) ** -28
    ref = json.loads(REF.read_text())["values"]
    with mpmath.workdps(32):
        assert abs(hc.value - mpmath.mpf(ref["h_c"])) < mpmath.mpf(10) ** -15
        assert abs(mi.value - mpmath.mpf(ref["mi_c"])) < mpmath.mpf(10) ** -15


def test_tail_bound_of_one_remaining_variable_never_undercuts_the_entropy():
    """On cells of every width, the tail bound of H_b(q) (one remaining normal variable, a
    concave quadratic: the roots' balls overlap on wide cells) is None or at least H_b(q) at
    points of the cell."""
    from flint import arb

    from fstheory.theory.class_probability import ClassProbability
    from fstheory.theory.coordinates import build
    from fstheory.theory.quadrature import flint_precision
    from fstheory.theory.univariate import Accuracy

    laws = {X: Normal(0, 1), Y: Normal(0, 1)}
    rule = Rule(sp.Rational(1, 4) - Y**2 + X * Y / 3)
    acc = Accuracy.from_bits(120, 30)
    with flint_precision(acc.bits):
        q = ClassProbability(build([X], laws, rule, acc), acc)
        for mid, rad in [("0", "3"), ("5", "4"), ("20", "10"), ("-60", "5"), ("1", "0.01")]:
            cell = arb(mid, rad)
            bound = q.tail_bound((cell,))
            if bound is None:
                continue
            for t in (cell.lower(), arb(mid), cell.upper()):
                q1, q0 = q.value((arb(t),))
                h = -(q1 * q1.log() if q1 > 0 else arb(0)) - (q0 * q0.log() if q0 > 0 else arb(0))
                assert bound.upper() >= h.lower()
