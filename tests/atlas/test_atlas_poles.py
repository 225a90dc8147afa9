"""Zeros of H(V_i,V_j,C) inside a 3-D sweep are special points (atlas/poles.py).

Scenario I: X, Z i.i.d. Unif(-delta, delta), Z independent of (X, C) and C = 1{X + kY >= 0}, so
H(X,Z,C) = h(X) + h(Z) + H(C | X) = 2 ln(2 delta) + k/2 (H(C | X) = k/2, scenarios/uniform.py).
It vanishes at delta = e^(-k/4)/2 (k fixed) and at k = -4 ln(2 delta) (delta fixed): a pole of
DISR's objective MI(C;{X,Z})/H(X,Z,C) at step 2. The roots below are computed here from that
hand-derived form, not read from the code.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import replace
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from fstheory.cli import main
from fstheory.atlas import poles as atlas_poles
from fstheory.atlas.sweep import AtlasSpec, sweep_of, atlas
from fstheory.atlas.certificate.certify import certifier, pole_failures
from fstheory.engine.evaluate_joint import LazyJointValues

pytestmark = pytest.mark.slow


K = Fraction(1, 5)
DELTA_ROW = AtlasSpec(scenario="uniform", method="disr", parameter="delta", lo="47/100",
                      hi="12/25", fixed=(("k", "0.2"),), digits=20, grid=8)
K_ROW = AtlasSpec(scenario="uniform", method="disr", parameter="k", lo="21/50", hi="43/100",
                  fixed=(("delta", "9/20"),), digits=20, grid=4)


def _delta_root():
    with mpmath.workdps(40):
        return mpmath.exp(-mpmath.mpf(K.numerator) / K.denominator / 4) / 2  # e^(-1/20)/2


def _k_root():
    with mpmath.workdps(40):
        return -4 * mpmath.log(mpmath.mpf(9) / 10)


@pytest.fixture(scope="module")
def delta_row():
    return atlas(DELTA_ROW, certify=True)


def _order_cli(delta: Fraction) -> list[str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["order", "--json", "--scenario", "uniform", "--method", "disr", "--k", "0.2",
                     "--delta", f"{delta.numerator}/{delta.denominator}"]) == 0
    return json.loads(buf.getvalue())["labels"]


def test_the_pole_is_a_breakpoint_to_twenty_digits(delta_row):
    js = delta_row.to_json()
    (bp,) = js["breakpoints"]
    assert bp["at"] == mpmath.nstr(_delta_root(), 20, strip_zeros=False)
    assert bp["cause"].startswith("H(X,Z,C) = H(X,W+2,C) = 0 exactly")
    assert bp["step"] == 2
    # the special point itself is the exact root
    (x,) = [s for s in delta_row.special if s not in (sp.Rational(47, 100), sp.Rational(12, 25))]
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(sp.N(x, 45)) - _delta_root()) < mpmath.mpf(10) ** -38


def test_regions_on_both_sides_agree_with_order_at_their_midpoints(delta_row):
    regions = delta_row.to_json()["regions"]
    assert len(regions) == 2
    # left of the pole H(X,Z,C) < 0: Z's objective tends to -inf, Z ranks last but one; right of
    # it +inf, Z second
    assert regions[0]["order"][1] != "Z" and regions[1]["order"][1] == "Z"
    for reg in regions:
        mid = (Fraction(reg["from"]) + Fraction(reg["to"])) / 2
        mid = Fraction(round(mid * 10**12), 10**12)
        assert _order_cli(mid) == reg["order"]


def test_the_row_is_certified_with_the_pole_as_a_special_point(delta_row):
    cert = delta_row.certificate
    assert cert["certified"] is True, cert.get("failures")


def test_joint_values_at_the_pole_are_exact_and_match_the_engine_next_to_it():
    sw = sweep_of(DELTA_ROW)
    x = sp.exp(-sp.Rational(1, 20)) / 2
    at = sw.values(x, exact=True)
    ix, iz = sw.labels.index("X"), sw.labels.index("Z")
    assert at.h_pair_c(ix, iz).is_zero and at.h_pair_c(iz, ix).is_zero
    # the engine's own derivation at a rational point 10^-30 away (second route)
    with mpmath.workdps(40):
        near = sp.Rational(str(sp.N(x, 40)))
    bound = sw.pv.bound_at({"delta": near})
    eng = LazyJointValues(bound, 20, sw.pv.at({"delta": near}, exact=True))
    n = len(sw.labels)
    tol = mpmath.mpf(10) ** -18
    for i in range(n):
        for j in range(n):
            for name in ("mi_class_pair", "cmi_class", "mi_given_class", "h_pair_class"):
                a = getattr(at.joint_values(), name)[i][j]
                b = getattr(eng, name)[i][j]
                if a.is_finite and b.is_finite:
                    assert abs(a.value - b.value) < tol, (name, sw.labels[i], sw.labels[j])
                else:
                    assert a.kind is b.kind, (name, sw.labels[i], sw.labels[j])


def test_k_sweep_locates_the_pole_and_is_certified():
    res = atlas(K_ROW, certify=True)
    js = res.to_json()
    (bp,) = js["breakpoints"]
    assert bp["at"] == mpmath.nstr(_k_root(), 20, strip_zeros=False)
    assert "H(X,Z,C)" in bp["cause"] and "= 0 exactly" in bp["cause"]
    assert res.certificate["certified"] is True, res.certificate.get("failures")
    # a result that does not take the pole as a special point is refused with the point
    cert = certifier(sweep_of(K_ROW))
    lo, hi = sp.Rational(21, 50), sp.Rational(43, 100)
    (fail,) = pole_failures(cert, replace(res, special=[lo, hi]))
    assert fail.startswith("H(X,Z,C) = H(X,W+2,C) = 0 at k = ")
    assert f"= {mpmath.nstr(_k_root(), 20)} inside the range" in fail and "pole" in fail


def test_a_zero_sympy_cannot_list_is_unsolved_not_guessed():
    cert = certifier(sweep_of(K_ROW))
    t = cert.t
    where = sp.Interval.open(0, 1)
    assert atlas_poles._zeros(sp.sin(5 * t) - t, t, where, cert) is None  # a ConditionSet
    assert atlas_poles._zeros(t - sp.Rational(1, 3), t, where, cert) == [sp.Rational(1, 3)]
    assert atlas_poles._zeros(t + 1, t, where, cert) == []


def test_poles_do_not_depend_on_the_row_swept_before():
    # the certifier is shared by every row over the same values: DISR swept after JMI (which
    # reads no H(V_i,V_j,C)) in one process still takes its pole -4 ln(9/10) as a special point
    from fstheory.atlas.special import pole_points
    from fstheory.atlas.sweep import AtlasSpec, sweep_of

    def spec(m):
        return AtlasSpec(scenario="uniform", method=m, parameter="k", lo="0", hi="1",
                         fixed=(("delta", "9/20"),))

    assert pole_points(sweep_of(spec("jmi"))) == []
    (pole,) = pole_points(sweep_of(spec("disr")))
    assert sp.simplify(pole + 4 * sp.log(sp.Rational(9, 10))) == 0
