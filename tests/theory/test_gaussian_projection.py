"""MI(C; {V_1, V_2}) of linear features of normal variables as MI(C, T) of the projection T of
the class form on them (:mod:`fstheory.theory.gaussian_projection`): the defining law
(G - T uncorrelated with every feature, T a combination of the features) on random cases, the
hypotheses refused, and the engine's values against an independent two-dimensional integral
over the features' density (tests/data/gaussian_projection_reference.json, by
scripts/make_gaussian_projection_reference.py at 30 digits)."""

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.engine.derive_joint import joint_structure
from fstheory.engine.evaluate_sets import SetValues
from fstheory.scenarios.scenario_file import load_scenario_file
from fstheory.theory.determination import ClassEvent
from fstheory.theory.gaussian_projection import projection
from fstheory.theory.laws import Exponential, Normal, Uniform

X, Y, Z, U = sp.symbols("X Y Z U", real=True)
DATA = Path(__file__).parents[1] / "data"

small = st.integers(-3, 3)
positive = st.fractions(min_value="1/4", max_value=3, max_denominator=4)


def _cov(a: sp.Expr, b: sp.Expr, var: dict) -> sp.Expr:
    return sum(sp.diff(a, v) * sp.diff(b, v) * var[v] for v in var)


@settings(max_examples=40, deadline=None)
@given(st.lists(small, min_size=6, max_size=6), st.lists(small, min_size=3, max_size=3),
       st.lists(positive, min_size=3, max_size=3), st.lists(small, min_size=3, max_size=3))
def test_the_rest_is_uncorrelated_with_every_feature(rows, g, sigmas, mus):
    var = {v: sp.Rational(s.numerator, s.denominator) ** 2 for v, s in zip((X, Y, Z), sigmas)}
    laws = {v: Normal(m, sp.sqrt(var[v])) for v, m in zip((X, Y, Z), mus)}
    laws[U] = Uniform(-1, 1)
    f1 = rows[0] * X + rows[1] * Y + rows[2] * Z
    f2 = rows[3] * X + rows[4] * Y + rows[5] * Z + 1
    G = g[0] * X + g[1] * Y + g[2] * Z
    T = projection([f1, f2], ClassEvent(G + U, 0), laws)
    singular = sp.Matrix([[_cov(a, b, var) for b in (f1, f2)] for a in (f1, f2)]).det() == 0
    if not (f1.free_symbols | f2.free_symbols) or singular:
        assert T is None
        return
    assert T is not None
    for f in (f1, f2):
        assert sp.simplify(_cov(G - T, f, var)) == 0
    a, b = sp.symbols("a b")  # T = a f1 + b f2 (up to a constant)
    sol = sp.solve([sp.diff(T - a * f1 - b * (f2 - 1), v) for v in (X, Y, Z)], [a, b], dict=True)
    assert sol


def test_the_hypotheses_are_checked():
    laws = {X: Normal(0, 1), Y: Normal(0, 1), Z: Normal(0, 1), U: Exponential(1)}
    event = ClassEvent(X + Y / 2 + Z, 0)
    assert projection([X, Y**2], event, laws) is None  # Y^2 not linear
    assert projection([X, U], event, laws) is None  # U not normal
    assert projection([X + Y, X - Z], ClassEvent(X + Y + Z * U, 0), laws) is None  # Z in M too
    assert projection([X + Y, X - Z], ClassEvent(X + Y + Z**2, 0), laws) is None
    k = sp.Symbol("k")
    assert projection([X + Y, X - Z], ClassEvent(X + k * Y + Z, 0), laws) is None  # symbolic
    assert projection([X + Y, 2 * X + 2 * Y], event, laws) is None  # singular covariance
    assert projection([X - Z, Y], ClassEvent(X + Z + U, 0), laws) == 0
    assert projection([X - Z, Y], event, laws) == Y / 2


@pytest.mark.parametrize("name", ["iid", "unequal"])
def test_the_pair_equals_the_two_dimensional_integral(name):
    bound = load_scenario_file(DATA / "gaussian_projection" / f"{name}.toml").bind()
    d = joint_structure(bound).mi_class_set((0, 1))
    assert d.kind == "sufficient" and "linear projection" in d.reason
    v = SetValues(bound, 30).value((0, 1))
    assert v.is_finite
    mpmath.mp.dps = 40
    reference = json.loads((DATA / "gaussian_projection_reference.json").read_text())
    ref = mpmath.mpf(reference["values"][name])
    assert abs(v.value - ref) < mpmath.mpf(10) ** -25
    assert (v.radius or 0) < mpmath.mpf(10) ** -29


def test_an_uncorrelated_feature_leaves_the_other_alone():
    st_ = joint_structure(load_scenario_file(DATA / "gaussian_projection" / "iid.toml").bind())
    d = st_.mi_class_set((1, 2))  # {X - Z, Y}: X - Z is independent of (X + Z, Y)
    assert d.kind == "single" and d.reduced == (2,)


def test_an_uncorrelated_feature_is_dropped_before_a_fold():
    from fstheory.theory.gaussian_projection import uncorrelated_features

    laws = {X: Normal(0, 1), Y: Normal(0, 1), Z: Normal(0, 1), U: Exponential(1)}
    event = ClassEvent(X + Y / 2 + Z - sp.Rational(1, 2), 0)
    assert uncorrelated_features([X - Z, Y**2], event, laws) == [0]
    assert uncorrelated_features([X - Z, abs(Z)], event, laws) == []  # X - Z sees Z
    assert uncorrelated_features([X - Z, Y**2], ClassEvent(X + Y / 2 + Z + Z**2, 0), laws) == []
    assert uncorrelated_features([X - Z, U], ClassEvent(X + Z + U, 0), laws) == [0]
    assert uncorrelated_features([X - 2 * Z, Y**2], event, laws) == []  # Cov with G = -1


def _conditional_probability(d, r):
    """P(C = 1 | X - Z = d, |Y| = r) for i.i.d. N(0, 1) X, Y, Z and C = 1{X + Y/2 + Z >= 1/2},
    by integrating along the fibre {(x, +-r, x - d)} (mpmath at the current precision)."""
    w = lambda x: mpmath.npdf(x) * mpmath.npdf(x - d)  # noqa: E731
    norm = mpmath.quad(w, [-mpmath.inf, d / 2, mpmath.inf])
    total = 0
    for y in (r, -r):
        edge = (mpmath.mpf(1) / 2 + d - y / 2) / 2  # x + y/2 + (x - d) >= 1/2
        total += mpmath.quad(w, [edge, mpmath.inf]) / 2
    return total / norm


def test_the_fold_pair_does_not_depend_on_the_uncorrelated_feature():
    """{X - Z, Y^2} is MI(C, Y^2): P(C = 1 | X - Z = d, |Y| = r) is the same at every d."""
    bound = load_scenario_file(DATA / "gaussian_projection" / "fold.toml").bind()
    d = joint_structure(bound).mi_class_set((0, 1))
    assert d.kind == "single" and d.reduced == (1,)
    with mpmath.workdps(30):
        for r in (mpmath.mpf("0.3"), mpmath.mpf(2)):
            ps = [_conditional_probability(mpmath.mpf(x), r) for x in ("-1.5", "0", "2.25")]
            assert max(ps) - min(ps) < mpmath.mpf(10) ** -25
            # and it is P(C = 1 | |Y| = r): X + Z ~ N(0, 2)
            ref = sum(mpmath.ncdf((y / 2 - mpmath.mpf(1) / 2) / mpmath.sqrt(2)) for y in (r, -r)) / 2
            assert abs(ps[0] - ref) < mpmath.mpf(10) ** -25
