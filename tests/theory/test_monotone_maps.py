"""Strictly monotone maps of one base variable: h(g(B)) = h(B) + E[ln|g'(B)|] in closed form,
and MI(V, g(B)) = MI(V, B), MI(C, g(B)) = MI(C, B). Second route: mpmath quadrature of -f ln f
of the transformed density at 40 digits."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.engine.derive import class_reduction, derive, pair_reduction, reduce_bijection
from fstheory.engine.evaluate import evaluate
from fstheory.engine.point import Point
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.law_algebra import injective_base, is_injective, monotone_entropy
from fstheory.theory.laws import Laplace, Normal, Uniform

Y = sp.Symbol("Y", real=True)
X = sp.Symbol("X", real=True)


def _entropy_of_density(f, points) -> mpmath.mpf:
    return -mpmath.quad(lambda t: f(t) * mpmath.log(f(t)), points)


def _geometric(decades: int) -> list:
    return [0] + [mpmath.mpf(10) ** -j for j in range(decades, 0, -2)] + [1]


def test_cube_of_uniform_is_ln6_minus_2_by_two_routes():
    form = monotone_entropy(Y**3, {Y: Uniform(-1, 1)})
    assert sp.simplify(form - (sp.log(6) - 2)) == 0
    with mpmath.workdps(40):
        # T = Y^3: f(t) = 1 / (6 |t|^(2/3)) on (-1, 1)
        # (the t^(-2/3) singularity at 0 needs geometric breakpoints; below 1e-130 the
        # integral is < 1e-42)
        f = lambda t: 1 / (6 * abs(t) ** (mpmath.mpf(2) / 3))  # noqa: E731
        ref = 2 * _entropy_of_density(f, _geometric(130))
        assert abs(ref - sp.N(form, 45)) < mpmath.mpf(10) ** -38


@pytest.mark.slow
def test_cube_of_laplace_by_two_routes():
    form = monotone_entropy(Y**3, {Y: Laplace(0, sp.Rational(1, 2))})
    # 1 + ln 3 + 2 E ln|Y|, |Y| ~ Exp(2): E ln|Y| = -gamma - ln 2
    assert sp.simplify(form - (1 + sp.log(3) - 2 * sp.EulerGamma - 2 * sp.log(2))) == 0
    with mpmath.workdps(40):
        def f(t):
            y = abs(t) ** (mpmath.mpf(1) / 3)
            return mpmath.exp(-2 * y) / (3 * y**2)
        ref = 2 * _entropy_of_density(f, [*_geometric(130), 10, 100, mpmath.inf])
        assert abs(ref - sp.N(form, 45)) < mpmath.mpf(10) ** -35


@pytest.mark.slow
def test_lognormal_by_two_routes():
    form = monotone_entropy(sp.exp(Y), {Y: Normal(1, 2)})
    assert sp.simplify(form - (sp.log(2 * sp.sqrt(2 * sp.pi * sp.E)) + 1)) == 0
    with mpmath.workdps(40):
        f = lambda t: mpmath.npdf(mpmath.log(t), 1, 2) / t  # noqa: E731
        ref = _entropy_of_density(f, [0, mpmath.e**-3, 1, mpmath.e, mpmath.e**5, mpmath.inf])
        assert abs(ref - sp.N(form, 45)) < mpmath.mpf(10) ** -30


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3), st.integers(-3, 3).filter(bool), st.integers(-2, 2))
def test_odd_powers_are_one_to_one_even_ones_are_not(n, a, c):
    laws = {Y: Uniform(-1, 1)}
    assert injective_base(a * Y ** (2 * n + 1) + c, laws) == Y
    assert injective_base(a * Y ** (2 * n + 2) + c, laws) is None
    assert is_injective(a * Y ** (2 * n + 2) + c, Y, 0, 1)  # on one side of the fold


def test_monotonicity_is_checked_on_the_support():
    assert not is_injective(Y**3 - Y, Y, -1, 1)  # turns at +-1/sqrt(3)
    assert is_injective(Y**3 - Y, Y, 1, sp.oo)
    assert injective_base(Y**2, {Y: Uniform(0, 1)}) == Y
    assert injective_base(Y**2, {Y: Uniform(-1, 1)}) is None
    assert monotone_entropy(Y**3 - Y, {Y: Uniform(-1, 1)}) is None
    assert monotone_entropy(X * Y**3, {X: Uniform(1, 2), Y: Uniform(-1, 1)}) is None


def test_reductions():
    laws = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
    assert reduce_bijection(Y**3, laws) == Y
    assert reduce_bijection(2 * Y + 1, laws) == Y
    assert reduce_bijection(Y**2, laws) == Y**2
    assert pair_reduction(X + Y, Y**3, laws) == (X + Y, Y)
    assert pair_reduction(X + Y, 3 * Y, laws) == (X + Y, 3 * Y)  # affine: left to the route


@pytest.mark.slow
def test_three_variable_cube_is_proved_and_equals_its_base():
    scenario = get_scenario("three-variable")
    d = derive(scenario)
    exprs = [str(f.expr) for f in scenario.features]
    i3, iy, isum = exprs.index("Y**3"), exprs.index("Y"), exprs.index("X + Y + Z")
    assert d.entropy[i3].kind == "closed"
    v = evaluate(scenario.bind(k="0.2"), 30)
    with mpmath.workdps(50):
        assert abs(mpmath.mpf(v.entropy[i3].text(30)) - (mpmath.log(6) - 2)) < mpmath.mpf(10) ** -29
    assert v.mi_features[isum][i3].text(30) == v.mi_features[isum][iy].text(30)
    assert not v.mi_features[isum][i3].text(30).startswith("~")
    assert v.mi_class[i3].text(30) == v.mi_class[iy].text(30)


# ----- a fold the class does not see: MI(C, g(B)) = MI(C, B) ------------------------------------


def test_class_reduction_needs_a_rule_invariant_under_the_partner_maps():
    laws = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
    k = sp.Symbol("k")
    assert class_reduction(X**2, X**2 + Y**2 - k, laws) == X
    assert class_reduction(sp.Abs(X), X**2 * Y - k, laws) == X
    assert class_reduction(X**2, X + k * Y - 1, laws) == X**2  # the sign of X matters
    assert class_reduction(X**2, X**3 + Y, laws) == X**2
    assert class_reduction(X + Y, X**2 + Y**2, laws) == X + Y  # two base variables: no claim
    shifted = {X: Uniform(0, 2), Y: Uniform(-1, 1)}
    assert class_reduction((X - 1) ** 2, (X - 1) ** 2 + Y, shifted) == X
    assert class_reduction((X - 1) ** 2, X**2 + Y, shifted) == (X - 1) ** 2


@pytest.mark.slow
def test_circle_mi_class_of_the_square_is_proved_by_two_routes():
    """C = 1{X^2 + Y^2 <= 1/2 + k}: P(C = 1 | X^2 = x^2) = (q(x) + q(-x)) / 2 = q(x) with
    q(x) = P(|Y| <= sqrt(r - x^2)) = sqrt(r - x^2) (r = 0.7 < 1), so the MI is
    H_b(int_0^1 q) - int_0^1 H_b(q(x)) dx (|X| ~ Unif(0, 1)): mpmath at 40 digits with the
    breakpoint sqrt(r) placed by hand."""
    scenario = get_scenario("circle")
    exprs = [str(f.expr) for f in scenario.features]
    ix, i2 = exprs.index("X"), exprs.index("X**2")
    assert str(derive(scenario).mi_class[i2].args) == "(X,)"
    v = evaluate(scenario.bind(k="0.2"), 30)
    got = v.mi_class[i2].text(30)
    assert not got.startswith("~") and got == v.mi_class[ix].text(30)
    with mpmath.workdps(40):
        r = mpmath.mpf("0.7")
        q = lambda x: mpmath.sqrt(r - x * x)  # noqa: E731
        hb = lambda p: -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)  # noqa: E731
        p1 = mpmath.quad(q, [0, mpmath.sqrt(r)])
        ref = hb(p1) - mpmath.quad(lambda x: hb(q(x)), [0, mpmath.sqrt(r) / 2, mpmath.sqrt(r)])
        assert abs(mpmath.mpf(got) - ref) < mpmath.mpf(10) ** -29


# ----- a fold the class sees: E[H_b(P(C=1 | X^2))] with both preimages -------------------------


def _route_mi_class(name: str, feature: str, dps: int = 35):
    point = Point(get_scenario(name).bind(k="0.2"))
    with mpmath.workdps(dps):
        return point.route(dps).mi_class(sp.sympify(feature, locals={s.name: s for s in point.laws}))


@pytest.mark.slow
def test_threshold_mi_class_of_the_square_is_proved_by_two_routes():
    """C = 1{X + kY >= 1}, X, Y ~ N(0, 1), k = 0.2: P(C = 1 | X^2 = x^2) = (q(x) + q(-x)) / 2
    with q(x) = P(kY >= 1 - x) = Phi_c((1 - x) / k); MI = H_b(P(C = 1)) - int_0^oo 2 phi(x)
    H_b(p(x)) dx, mpmath at 40 digits with the breakpoints placed by hand (q switches near 1)."""
    scenario = get_scenario("threshold")
    i2 = [str(f.expr) for f in scenario.features].index("X**2")
    v = evaluate(scenario.bind(k="0.2"), 30)
    got = v.mi_class[i2].text(30)
    assert not got.startswith("~")
    with mpmath.workdps(40):
        k = mpmath.mpf("0.2")
        q = lambda x: mpmath.ncdf(-(1 - x) / k)  # noqa: E731
        hb = lambda p: -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)  # noqa: E731
        avg = mpmath.quad(lambda x: 2 * mpmath.npdf(x) * hb((q(x) + q(-x)) / 2),
                          [0, 0.5, 0.8, 1, 1.2, 1.5, 2, 3, 5, 8, 12, mpmath.inf])
        ref = hb(mpmath.ncdf(-1 / mpmath.sqrt(1 + k * k))) - avg
        assert abs(mpmath.mpf(got) - ref) < mpmath.mpf(10) ** -29


@pytest.mark.slow
def test_fold_with_a_remaining_variable_is_certified_and_agrees_with_the_reduction():
    """The numerical route on X^2 itself (circle: the class probability integrates Y out) agrees
    with MI(C, X), which the class reduction uses."""
    fold, base = _route_mi_class("circle", "X**2"), _route_mi_class("circle", "X")
    assert fold.certified and base.certified
    assert abs(fold.value - base.value) <= fold.error + base.error
    assert fold.error < mpmath.mpf(10) ** -30
