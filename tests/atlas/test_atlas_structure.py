"""Structural facts per cell in the atlas, and certificates decided by content.

A feature a*X is an invertible function of X for every a != 0 (MI(X, a*X) = +inf, MI(C, a*X) =
MI(C, X)) and a constant at a = 0 (h = -inf, MI 0 with everything). The atlas must take a = 0 as
a point of its own (:mod:`fstheory.atlas.structural`) and agree there, and on both sides, with
``fstheory order`` at the point (the engine deciding the structure with the numbers). The
reference is the engine's ordering at each sampled point, computed independently of the sweep.
"""

import sympy as sp
import pytest

from fstheory.atlas.structural import structural_points
from fstheory.atlas.sweep import AtlasSpec, atlas
from fstheory.atlas.values import ParametricValues
from fstheory.engine.evaluate import evaluate
from fstheory.orderings.greedy import select
from fstheory.scenarios.scenario_file import load_scenario_file

HEAD = """name = "{name}"
title = "structure along a"

[parameters.k]
default = "1/2"
domain = "unit"

[parameters.a]
default = "1/2"
domain = "real"

[base.X]
law = "normal"
mu = "0"
sigma = "1"

[base.Y]
law = "normal"
mu = "0"
sigma = "1"

[base.Z]
law = "uniform"
low = "-1"
high = "1"
"""

RULE = """
[class]
rule = "X + k*Y >= 0"
"""


def _file(tmp_path, name, features):
    text = HEAD.format(name=name) + "".join(
        f'\n[[features]]\nexpr = "{e}"\n' for e in features) + RULE
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


def _order_at(path, a):
    v = evaluate(load_scenario_file(path).bind(a=a), 20)
    return select(v, "mrmr").order_labels


def _region_at(result, a):
    """The ordering the atlas reports at ``a`` (a one-point region wins at its point)."""
    x = sp.Rational(a)
    regs = result.to_json()["regions"]
    for r in regs:
        if sp.Rational(r["from"]) == x == sp.Rational(r["to"]):
            return r["order"]
    for r in regs:
        if sp.Rational(r["from"]) <= x <= sp.Rational(r["to"]):
            return r["order"]
    raise AssertionError(f"no region at {a}")


def test_structural_points_of_degenerate_and_dependent_features():
    X, Y, a = sp.symbols("X Y a")
    laws = {X: None, Y: None}
    assert structural_points([X, a * X, Y], laws, a).points == (0,)
    assert structural_points([a * X + Y, X + Y], laws, a).points == (0, 1)
    assert structural_points([(a**2 - 2) * X, Y], laws, a).points == (-sp.sqrt(2), sp.sqrt(2))
    assert structural_points([X + a, Y], laws, a).points == ()  # a shift changes no structure


def test_reference_point_is_moved_off_a_structural_point(tmp_path):
    """The default reference of a real parameter is 0, where a*X is constant: the constant
    quantities must be those of a != 0 (MI(C, a*X) = MI(C, X), not 0)."""
    path = _file(tmp_path, "ref", ["X", "a*X", "Y"])
    pv = ParametricValues(load_scenario_file(path), {}, ("a",), digits=15)
    assert pv.reference_bound.params["a"] != 0
    at = pv.at({"a": sp.Rational(-3, 4)})
    assert at.mi_c(1).text(15) == at.mi_c(0).text(15) and at.mi(0, 1).is_pos_inf
    at0 = pv.at({"a": sp.Integer(0)})
    assert at0.mi_c(1).is_zero and at0.mi(0, 1).is_zero and at0.h(1).is_neg_inf
    assert at0.mi(1, 1).is_zero  # a constant with itself: H(V) = 0, not +inf


@pytest.mark.slow
def test_atlas_agrees_with_order_on_both_sides_of_a_degenerate_feature(tmp_path):
    """Features X, a*X, Y, Z (Z independent of everything): for a != 0 mRMR gives X, Y, Z, a*X
    (a*X scores -inf, MI(X, a*X) = +inf); at a = 0 a*X and Z tie at 0 and a*X, the lower
    index, comes third. The atlas shows a = 0 as its own region."""
    path = _file(tmp_path, "axz", ["X", "a*X", "Y", "Z"])
    r = atlas(AtlasSpec(method="mrmr", parameter="a", lo="-1", hi="1", scenario_file=path,
                        grid=8))
    for a in ["-1", "-1/2", "-1/1000", "0", "1/1000", "3/7", "1"]:
        assert _region_at(r, a) == _order_at(path, a), a
    assert _order_at(path, "0") == ["X", "Y", "a*X", "Z"]
    assert _order_at(path, "1/2") == ["X", "Y", "Z", "a*X"]
    assert [b["at"] for b in r.to_json()["breakpoints"]] == ["0"]
    cert = r.certificate
    assert not cert["certified"] and "a = 0" in str(cert)


@pytest.mark.slow
def test_atlas_breaks_where_two_features_become_dependent(tmp_path):
    """X + Y and a*X + Y are the same feature at a = 1 only (MI = +inf there)."""
    path = _file(tmp_path, "pair", ["X + Y", "a*X + Y", "Y", "Z"])
    r = atlas(AtlasSpec(method="mrmr", parameter="a", lo="1/2", hi="3/2", scenario_file=path,
                        grid=4))
    for a in ["1/2", "99/100", "1", "101/100", "3/2"]:
        assert _region_at(r, a) == _order_at(path, a), a
    assert "1" in [b["at"] for b in r.to_json()["breakpoints"]]


# ----- certificates by content ---------------------------------------------------------------------


@pytest.mark.slow
def test_laplace_file_is_certified_like_the_registered_scenario():
    from fstheory.scenarios.scenario_file import shipped_scenario_path

    path = str(shipped_scenario_path("laplace"))
    spec = dict(method="mrmr", parameter="k", lo="1/5", hi="4/5", grid=4)
    by_file = atlas(AtlasSpec(scenario_file=path, **spec))
    by_name = atlas(AtlasSpec(scenario="laplace", **spec))
    assert by_file.certificate["certified"] and by_name.certificate["certified"]
    assert by_file.to_json()["regions"] == by_name.to_json()["regions"]


def test_a_file_is_certified_where_its_kinds_allow(tmp_path):
    """Closed forms in a (normal laws) and a constant uniform feature: certified away from the
    structural point a = 0."""
    path = _file(tmp_path, "cert", ["X", "a*X", "Y", "Z"])
    r = atlas(AtlasSpec(method="mrmr", parameter="a", lo="1/4", hi="1", scenario_file=path,
                        grid=4))
    assert r.certificate["certified"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mixed"])
def test_a_file_without_enclosures_names_every_input(name):
    """mixed.toml: every MI(C, V) that varies with k comes from the numerical route; each is
    named, and the constant numerical ones (h(X+Z), proved at one point) are not."""
    from fstheory.scenarios.scenario_file import shipped_scenario_path

    path = str(shipped_scenario_path(name))
    r = atlas(AtlasSpec(method="mrmr", parameter="k", lo="1/5", hi="4/5", scenario_file=path,
                        grid=4))
    reason = r.certificate["reason"]
    assert not r.certificate["certified"]
    for label in ["MI(C,X)", "MI(C,Y)", "MI(C,Z)", "MI(C,X+Z)", "MI(C,exp(Y))"]:
        assert label in reason
    assert "h(X+Z)" not in reason
