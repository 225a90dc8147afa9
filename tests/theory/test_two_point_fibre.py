"""H(C | V_S) on a two-point fibre {b, T b + t} with unequal densities
(fstheory.theory.two_point_fibre), checked by second routes:

* the exact polygon areas (uniform laws) against areas derived by hand for Scenario I and against
  the generic numerical route (nested quadrature over the fibres) on a scenario with asymmetric
  boxes and a class with a threshold;
* g_m(c), the radial integral in closed form (polygamma / Hurwitz zeta), against its definition
  integrated by mpmath;
* the integral over directions (normal, Laplace) against the generic numerical route, and its
  invariance under the common scale.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import acb, arb
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.engine.derive_joint import joint_structure
from fstheory.engine.evaluate_joint import SetValues
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.determination import ClassEvent
from fstheory.theory.laws import Laplace, Normal, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule
from fstheory.theory.two_point_fibre import (affine_partner, cone_entropy, g_series,
                                             radial_kind, uniform_disagreement)

X, Y = sp.symbols("X Y", real=True)
LN2 = sp.log(2)


def _event(k, threshold=0):
    return ClassEvent(X + k * Y, threshold)


def _route_mi(laws, k, exprs, threshold=0, dps=20):
    rule = Rule.from_linear({X: 1, Y: k}, threshold)  # C = 1{X + kY - threshold >= 0}
    with mpmath.workdps(dps):
        return NumericRoute(laws, rule).mi_class_set(tuple(exprs))


# ----- uniform laws --------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.fractions(min_value=sp.Rational(1, 1000), max_value=1, max_denominator=1000),
       st.fractions(min_value=sp.Rational(1, 10), max_value=5, max_denominator=50))
def test_uniform_polygons_match_the_areas_derived_by_hand(k, delta):
    """Scenario I (any delta: the areas are scale-free): for y > 0 the classes of (x, y) and its
    partner differ on -ky <= x < (2+k)y, and both points lie in the square when |x - 2y| <= delta;
    integrating the slices gives P = (1 + k) / (2 (2 + k)) for {Y^2, X-Y}, and (1 + k) /
    (2 (1 + 2k)) for {X-Y, X^2} (partner (-x, y - 2x))."""
    k, delta = sp.Rational(k.numerator, k.denominator), sp.Rational(delta.numerator, delta.denominator)
    laws = {X: Uniform(-delta, delta), Y: Uniform(-delta, delta)}
    event = _event(k)
    tau = affine_partner([Y**2, X - Y], event, laws)
    assert tau.describe() == "(X, Y) -> (X - 2*Y, -Y)"
    assert uniform_disagreement(tau, event, laws) == (1 + k) / (2 * (2 + k))
    tau = affine_partner([X - Y, X**2], event, laws)
    assert uniform_disagreement(tau, event, laws) == (1 + k) / (2 * (1 + 2 * k))


def test_uniform_polygon_against_the_numerical_route_on_asymmetric_boxes():
    """X ~ U(-1, 2), Y ~ U(-1/2, 1), C = 1{X + Y/3 >= 1/4}: the partner of Y^2's fibre is in the
    support only for |y| <= 1/2; the exact area against nested quadrature at 20 digits, within
    its stated error (1e-14)."""
    laws = {X: Uniform(-1, 2), Y: Uniform(sp.Rational(-1, 2), 1)}
    k, th = sp.Rational(1, 3), sp.Rational(1, 4)
    event = _event(k, th)
    for exprs in ([Y**2, X - Y], [X - Y, X**2]):
        tau = affine_partner(exprs, event, laws)
        p = uniform_disagreement(tau, event, laws)
        assert p.is_Rational and 0 < p < 1
        with mpmath.workdps(30):
            hc = NumericRoute(laws, Rule.from_linear({X: 1, Y: k}, th)).class_entropy().value
            exact = hc - mpmath.log(2) * mpmath.mpf(sp.N(p, 40))
        route = _route_mi(laws, k, exprs, threshold=th, dps=20)
        assert route.error <= mpmath.mpf(10) ** -13
        assert abs(route.value - exact) < route.error, (exprs, route.value, exact)


# ----- g_m(c) --------------------------------------------------------------------------------------

def _g_definition(m, c):
    def hb_sigma(x):  # H_b(sigma(x)) = ln(1 + e^-|x|) + |x| / (1 + e^|x|)
        x = abs(x)
        return mpmath.log1p(mpmath.exp(-x)) + x / (1 + mpmath.exp(x))
    return mpmath.quad(lambda u: u**m * mpmath.exp(-u) * hb_sigma(c * u), [0, 1, 10, mpmath.inf])


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 1), st.floats(min_value=1e-3, max_value=50))
def test_g_closed_form_matches_its_integral(m, c):
    """g_m(c) = int_0^inf u^m e^-u H_b(sigma(c u)) du: the polygamma / Hurwitz zeta form against
    the integral itself (mpmath, 35 digits), to 1e-28."""
    with mpmath.workdps(35):
        c = mpmath.mpf(c)
        with flint_precision(140):
            man, exp = c.man_exp
            closed = acb(g_series(m, acb(arb(man) * arb(2) ** exp))).real
        value = mpmath.mpf(closed.mid().str(40, radius=False))
        assert abs(value - _g_definition(m, c)) < mpmath.mpf(10) ** -28


def test_g_limits():
    """g_m(c) -> m! ln 2 as c -> 0 (|g_m(c) - ln 2| <= c^2, m = 0, 1) and -> 0 as c -> inf."""
    with flint_precision(120):
        for m in (0, 1):
            small = acb(g_series(m, acb(arb(10) ** -8))).real
            assert abs(small - arb.const_log2()) < arb(10) ** -16
            assert acb(g_series(m, acb(arb(10) ** 6))).real < arb(10) ** -5


# ----- radial laws ---------------------------------------------------------------------------------

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "two_point_reference.json").read_text())


#: the row `make test-fast` keeps (each row is a few seconds of certified quadrature)
FAST_ROW = ("normal", "0.71", [2, 3])


@pytest.mark.parametrize("row", [r if (r["scenario"], r["k"], r["pair"]) == FAST_ROW else
                                 pytest.param(r, marks=pytest.mark.slow) for r in REFERENCE["values"]],
                         ids=lambda r: f"{r['scenario']}-{r['k']}-{r['pair']}")
def test_cone_integral_against_the_generic_route(row):
    """The engine's MI(C;{Y^2,X-Y}) and MI(C;{X-Y,X^2}) of Scenarios II and III (the integral
    over directions, at 20 digits) against the generic nested quadrature at 32 digits
    (scripts/make_two_point_reference.py), to 1e-24."""
    b = get_scenario(row["scenario"]).bind(k=row["k"])
    assert joint_structure(b).mi_class_set(tuple(row["pair"])).kind == "two-point-cone"
    value = SetValues(b, 20).value(tuple(row["pair"])).value
    with mpmath.workdps(40):
        assert abs(value - mpmath.mpf(row["value"])) < mpmath.mpf(10) ** -24, (row, value)


@pytest.mark.slow
def test_cone_integral_against_the_generic_route_live():
    """The same at a scale and k of no reference (normal, sigma = 2, k = 3/10), live at 20 digits:
    agreement within the generic route's stated error (1e-14 there)."""
    law = Normal(0, 2)
    laws, k = {X: law, Y: law}, sp.Rational(3, 10)
    event = _event(k)
    tau = affine_partner([X - Y, X**2], event, laws)
    assert radial_kind(tau, event, laws) == "normal"
    with mpmath.workdps(32):
        r = cone_entropy(tau, event, laws)
        mine = mpmath.log(2) - r.value
    route = _route_mi(laws, k, [X - Y, X**2], dps=20)
    assert r.error < mpmath.mpf(10) ** -25 and route.error <= mpmath.mpf(10) ** -13
    assert abs(route.value - mine) < route.error, (route.value, mine)


@pytest.mark.slow
@pytest.mark.parametrize("family", [Normal, Laplace])
def test_cone_integral_does_not_depend_on_the_scale(family):
    """The ratio f(T b) / f(b) on a ray and the law of the direction do not depend on the common
    scale: the values at scale 1/2 and 7 agree to 30 digits."""
    event = _event(sp.Rational(5, 7))
    vals = []
    for s in (sp.Rational(1, 2), 7):
        laws = {X: family(0, s), Y: family(0, s)}
        tau = affine_partner([Y**2, X - Y], event, laws)
        with mpmath.workdps(40):
            vals.append(cone_entropy(tau, event, laws).value)
    assert abs(vals[0] - vals[1]) < mpmath.mpf(10) ** -30


def test_radial_hypotheses_are_checked():
    """Off-centre or unequal laws, and a class boundary off 0, are not radial: the generic route
    takes them."""
    event = _event(sp.Rational(1, 2))
    tau = affine_partner([Y**2, X - Y], event, {X: Normal(0, 1), Y: Normal(0, 1)})
    assert radial_kind(tau, event, {X: Normal(0, 1), Y: Normal(0, 2)}) is None
    assert radial_kind(tau, event, {X: Normal(1, 1), Y: Normal(1, 1)}) is None
    assert radial_kind(tau, event, {X: Normal(0, 1), Y: Laplace(0, 1)}) is None
    shifted = _event(sp.Rational(1, 2), sp.Rational(1, 5))
    assert radial_kind(tau, shifted, {X: Normal(0, 1), Y: Normal(0, 1)}) is None


# ----- in the scenarios ----------------------------------------------------------------------------

def test_derivations_in_the_paper_scenarios():
    """Scenario I: exact areas; Scenarios II and III: the integral over directions; the values
    equal those of the numerical route shown in the joint tables (to their 20 digits here)."""
    b = get_scenario("uniform").bind(k="0.3")
    d = joint_structure(b).mi_class_set((2, 3))
    assert (d.kind, d.expr) == ("two-point", sp.Rational(13, 46))
    assert joint_structure(b).mi_class_set((3, 7)).expr == sp.Rational(13, 32)
    s = SetValues(b, 20)
    with mpmath.workdps(30):
        assert abs(s.value((2, 3)).value - mpmath.log(2) * (1 - mpmath.mpf(13) / 46)) < 1e-28
    for name in ("normal", "laplace"):
        d = joint_structure(get_scenario(name).bind(k="0.3")).mi_class_set((3, 7))
        assert d.kind == "two-point-cone" and "(X, Y) -> (-X, -2*X + Y)" in d.reason


@pytest.mark.slow
@pytest.mark.parametrize("family", [Normal, Laplace])
def test_class_on_one_of_the_two_coordinates(family):
    """C_0 = 1{X >= 0} uses only X, but (Y^2, X-Y) and (X-Y, X^2) still reveal (X, Y) up to tau:
    the uniform areas are exact (P = 1/4 and 1/2 at k = 0, from the hand-derived
    (1+k)/(2(2+k)) and (k+1)/(2(2k+1))), and the integral over directions agrees with the
    generic numerical route within its stated error."""
    b = get_scenario("uniform").bind(k="0")
    assert joint_structure(b).mi_class_set((2, 3)).expr == sp.Rational(1, 4)
    assert joint_structure(b).mi_class_set((3, 7)).expr == sp.Rational(1, 2)
    laws = {X: family(0, 1), Y: family(0, 1)}
    event = _event(0)
    tau = affine_partner([Y**2, X - Y], event, laws)
    assert tau is not None and radial_kind(tau, event, laws) is not None
    with mpmath.workdps(30):
        mine = mpmath.log(2) - cone_entropy(tau, event, laws).value
    route = _route_mi(laws, 0, [Y**2, X - Y], dps=20)
    assert route.error <= mpmath.mpf(10) ** -13
    assert abs(route.value - mine) < route.error, (route.value, mine)
