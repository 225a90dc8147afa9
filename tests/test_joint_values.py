"""The joint quantities of a scenario (fstheory.scenarios.evaluate_joint): structural values and
their hypotheses, the two-point closed form against hand-derived formulas, the identity for
MI(Vi;Vj|C) against an independent quadrature, and the information identities (hypothesis) on the
exact values."""

from __future__ import annotations

import functools
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.scenarios.declaration import ClassRule, Feature, Parameter, Scenario
from fstheory.scenarios.evaluate import evaluate
from fstheory.scenarios.evaluate_joint import SetValues
from fstheory.scenarios.registry import get_scenario, load_scenario_file
from fstheory.scenarios.symbols import X, Y, Z, k
from fstheory.theory.extended import Form
from fstheory.theory.laws import Uniform

DATA = Path(__file__).parent / "data"
X1, AXB, Y2, XMY, ZZ, Z2, YY, X2, WD, ZW = range(10)


def values(name: str, kval: str, digits: int = 30):
    """Through the reports' cache: the table regeneration of test_reports, in the same process,
    needs the same values (the joint ones of Scenarios II and III take a minute to compute)."""
    from fstheory.reports.compute import values_at

    return values_at(get_scenario(name), {"k": kval}, digits)


def close(a, b, digits=25):
    return abs(a - b) <= mpmath.mpf(10) ** -digits * max(1, abs(b))


# ----- structure ---------------------------------------------------------------------------------


def test_scenario_i_structure_and_exact_ties():
    v = values("uniform", "0.2")
    ln2 = v.h_c()
    with mpmath.workdps(42):
        assert close(ln2.value, mpmath.log(2), 40)  # computed at 30 + 12 guard digits
    # the five relevance-optimal pairs reach H(C), as the same number (an exact tie)
    for i, j in [(X1, YY), (X1, XMY), (YY, XMY), (AXB, YY), (AXB, XMY)]:
        assert v.mi_c_pair(i, j).same(ln2)
    # functions of one feature and independent features drop out: the same value as MI(C, X)
    for j in (AXB, X2, ZZ, Z2, WD, ZW):
        assert v.mi_c_pair(X1, j).same(v.mi_c(X1))
    # the class-swapping map (X, Y) -> (-X, -Y) fixes X^2 and Y^2
    assert v.mi_c_pair(X2, Y2).is_zero and v.mi_c_pair(ZZ, ZW).is_zero
    assert "swaps the classes" in v.joint_values().provenance[("mi_c_pair", X2, Y2)]


def test_diagonals_symmetry_and_infinities():
    v = values("uniform", "0.8")
    n = v.n_features
    for i in range(n):
        assert v.cmi_c(i, i).is_zero and v.mi_given_c(i, i).is_pos_inf and v.h_pair_c(i, i).is_neg_inf
        assert v.mi_c_pair(i, i).same(v.mi_c(i))
        for j in range(n):
            for f in (v.mi_c_pair, v.mi_given_c, v.h_pair_c):
                assert f(i, j).same(f(j, i))
    # a feature and a function of it: +inf given the class, no joint density
    assert v.mi_given_c(X1, AXB).is_pos_inf and v.h_pair_c(X1, AXB).is_neg_inf
    assert v.mi_given_c(YY, Y2).is_pos_inf and v.h_pair_c(ZZ, Z2).is_neg_inf
    # Z is independent of (X, C): exactly 0 from the structure
    assert v.mi_given_c(ZZ, X1).is_zero
    assert "independent" in v.joint_values().provenance[("mi_given_c", X1, ZZ)]


@pytest.mark.parametrize("kval", ["0.2", "0.55", "0.8", "1"])
def test_two_point_closed_form_scenario_i(kval):
    """V_S = {X, Y^2} reveals (x, |y|): P(C=1 | V_S) in {0, 1/2, 1}, and the classes of (x, y)
    and (x, -y) differ iff |X| < k|Y|, probability k/2: MI = ln 2 (1 - k/2). Also {X^2, Y}:
    they differ iff |X| > k|Y|, MI = ln 2 * k/2."""
    v = values("uniform", kval)
    with mpmath.workdps(40):
        kk = mpmath.mpf(sp.Rational(kval).p) / sp.Rational(kval).q
        assert close(v.mi_c_pair(X1, Y2).value, mpmath.log(2) * (1 - kk / 2), 28)
        assert close(v.mi_c_pair(YY, X2).value, mpmath.log(2) * kk / 2, 28)
        # MI(C; Y^2 | X) = k/2 (1 - ln 2) with MI(C, X) = ln 2 - k/2
        assert close(v.cmi_c(Y2, X1).value, kk / 2 * (1 - mpmath.log(2)), 28)


@pytest.mark.parametrize("name, prob", [
    ("normal", lambda kk: 2 * mpmath.atan(kk) / mpmath.pi),
    ("laplace", lambda kk: kk / (1 + kk)),
])
def test_two_point_closed_form_scenarios_ii_iii(name, prob):
    v = values(name, "0.2")
    with mpmath.workdps(40):
        assert close(v.mi_c_pair(X1, Y2).value, mpmath.log(2) * (1 - prob(mpmath.mpf("0.2"))), 25)


def _mi_x_y_given_c_by_quadrature(kk):
    """MI(X;Y|C) in Scenario I (delta = 1/2) integrated directly from the conditional densities:
    given C = 1 (probability 1/2) (X, Y) is uniform with density 2 on {x + ky >= 0},
    f(x|1) = min(1 + 2x/k, 2) on x > -k/2, f(y|1) = 1 + 2ky; the term of C = 0 is the same by
    (x, y) -> (-x, -y). MI = 2 int dy int_{-ky}^{1/2} [ln 2 - ln f(x|1) - ln f(y|1)] dx."""

    def xlogx(u):
        return u * mpmath.log(u) if u > 0 else mpmath.mpf(0)

    def inner_log_fx(a):  # int_a^{1/2} ln f(x|1) dx, a in [-k/2, k/2]
        u0 = 1 + 2 * a / kk
        part = kk / 2 * ((xlogx(2) - 2) - (xlogx(u0) - u0))
        return part + (mpmath.mpf(1) / 2 - kk / 2) * mpmath.log(2)

    def outer(y):
        a = -kk * y
        width = mpmath.mpf(1) / 2 - a
        return 2 * (width * (mpmath.log(2) - mpmath.log(1 + 2 * kk * y)) - inner_log_fx(a))

    return mpmath.quad(outer, [-mpmath.mpf(1) / 2, 0, mpmath.mpf(1) / 2])


def test_mi_given_class_identity_against_quadrature():
    """MI(X;Y|C) = MI(X,Y) - MI(C,X) - MI(C,Y) + MI(C;{X,Y}) = k/2 - MI(C,Y) (engine) against
    the direct integral of the conditional densities (second route), k = 0.55, 25 digits."""
    v = values("uniform", "0.55")
    with mpmath.workdps(35):
        direct = _mi_x_y_given_c_by_quadrature(mpmath.mpf("0.55"))
        assert close(v.mi_given_c(X1, YY).value, direct, 25)
        # and H(X, Y, C) = h(X) + h(Y) = 0: C is a function of (X, Y)
        assert v.h_pair_c(X1, YY).is_zero


def test_not_computed_cells_say_which_quantity_and_why():
    """X^3 - X is outside the numerical route: every joint cell that needs MI(C;{Y,X^3-X}) is
    not computed and names that quantity; cells that structure decides are still exact."""
    v = evaluate(load_scenario_file(DATA / "unreachable_feature.toml").bind(k="0.5"), 15)
    y, cubic, x = 1, 2, 0
    for cell in (v.mi_c_pair(y, cubic), v.mi_c_pair(cubic, y), v.mi_given_c(y, cubic),
                 v.h_pair_c(cubic, y)):
        assert cell.is_indeterminate and cell.form is Form.NOT_COMPUTED
        assert "X**3 - X" in cell.cause and "not related by a reflection" in cell.cause
    assert v.cmi_c(cubic, x).is_zero            # X determines X^3 - X
    assert v.mi_given_c(x, cubic).is_pos_inf    # ... given the class too
    assert v.h_pair_c(x, cubic).is_neg_inf      # no joint density


def test_a_feature_constant_at_the_parameters_and_a_constant_class():
    """k*Y at k = 0 is constant: independent of everything (MI 0 given the class, no joint
    density); the class k*Y >= 0 at k = 0 is constant: H(C) = 0 and every MI with it 0."""
    s = Scenario("const", "constant feature", "test", (Parameter("k", None, "unit"),),
                 {X: Uniform(-1, 1), Y: Uniform(-1, 1), Z: Uniform(-1, 1)},
                 (Feature("X", X), Feature("kY", k * Y), Feature("Z", Z)),
                 ClassRule({X: 1, Z: k}, 0))
    v = evaluate(s.bind(k="0"), 15)
    assert v.mi_c_pair(0, 1).same(v.mi_c(0)) and v.mi_given_c(0, 1).is_zero
    assert v.h_pair_c(0, 1).is_neg_inf and v.mi_given_c(1, 1).is_zero
    assert v.mi_c_pair(0, 2).same(v.mi_c(0))  # k = 0: Z leaves the class rule
    s2 = Scenario("constclass", "constant class", "test", (Parameter("k", None, "unit"),),
                  {X: Uniform(-1, 1), Y: Uniform(-1, 1)}, (Feature("X", X), Feature("Y", Y)),
                  ClassRule({Y: k}, 0))
    v2 = evaluate(s2.bind(k="0"), 15)
    assert v2.h_c().is_zero and v2.mi_c_pair(0, 1).is_zero


def test_three_variable_rule_against_a_direct_quadrature():
    """C = 1{X + kY + Z >= 0}, X, Y, Z i.i.d. Unif(-1, 1): given (X, Y), P(C = 1) =
    clip((1 + x + ky)/2); given (X, Z), clip((1 + (x + z)/k)/2). H(C) = ln 2 (swap sign), so
    MI(C;{.,.}) = ln 2 - E[H_b(P)], here by a plain nested tanh-sinh quadrature (mpmath) cut where P
    reaches 0 or 1, against the engine's route at 20 digits."""
    from fstheory.theory.numeric import NumericRoute

    b = load_scenario_file(DATA / "three_variable_rule.toml").bind(k="0.5")
    route = NumericRoute(b.laws(), b.class_rule())
    kk = mpmath.mpf(1) / 2
    with mpmath.workdps(25):
        def pair_reference(scale_second, scale_hidden):
            def inner(a):
                f = lambda c: -mpmath.fsum(  # noqa: E731
                    t * mpmath.log(t) for t in
                    (lambda p: (p, 1 - p))(min(max((1 + (a + scale_second * c) / scale_hidden) / 2,
                                                   mpmath.mpf(0)), mpmath.mpf(1))) if t > 0)
                cuts = sorted({mpmath.mpf(-1), mpmath.mpf(1)} | {
                    c for c in ((s * scale_hidden - a) / scale_second for s in (-1, 1))
                    if -1 < c < 1})
                return mpmath.quad(f, cuts) / 2
            cuts = sorted({mpmath.mpf(-1), mpmath.mpf(1)} | {
                a for a in (s * scale_hidden + t * scale_second for s in (-1, 1) for t in (-1, 1))
                if -1 < a < 1})
            return mpmath.log(2) - mpmath.quad(inner, cuts) / 2

        assert route.class_entropy().value == mpmath.log(2)
        for pair, ref in (((X, Y), pair_reference(kk, 1)), ((X, Z), pair_reference(1, kk))):
            got = route.mi_class_set(pair)
            # within the stated error (an estimate no smaller than the integration's tolerance)
            assert abs(got.value - ref) <= got.error < mpmath.mpf(10) ** -18


# ----- information identities on the exact values (hypothesis) ----------------------------------

KS = ["0.2", "0.55"]  # the values of the other tests (and of the reports, k = 0.2): cached


@functools.lru_cache(maxsize=None)
def set_values(kval: str) -> SetValues:
    return SetValues(get_scenario("uniform").bind(k=kval), 30, values("uniform", kval))


# each new set of 3 features is a numerical MI(C;S) of several seconds: a fixed set of examples
@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from(KS), st.lists(st.integers(0, 9), max_size=3, unique=True),
       st.integers(0, 9))
def test_bounds_and_monotonicity(kval, S, j):
    """0 <= MI(C;S) <= H(C) and MI(C;S) <= MI(C;S + V) wherever both are computed."""
    sv = set_values(kval)
    a, b = sv.value(S), sv.value(S + [j])
    hc = sv.h_class.value
    tol = mpmath.mpf(10) ** -15
    for x in (a, b):
        if x.is_finite:
            assert -tol <= x.value <= hc + tol
    if a.is_finite and b.is_finite:
        assert a.value <= b.value + tol
    if not S:
        assert a.is_zero


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(KS), st.integers(0, 9), st.integers(0, 9))
def test_chain_rule_and_interaction_symmetry(kval, i, j):
    """MI(C;{Vi,Vj}) = MI(C,Vi) + MI(C;Vj|Vi) = MI(C,Vj) + MI(C;Vi|Vj), and the interaction
    information MI(Vi,Vj) - MI(Vi;Vj|C) = MI(C,Vi) - MI(C;Vi|Vj) where finite."""
    v = values("uniform", kval)
    tol = mpmath.mpf(10) ** -15
    one, two = v.cmi_c(j, i) + v.mi_c(i), v.cmi_c(i, j) + v.mi_c(j)
    if one.is_finite and two.is_finite:
        assert abs(one.value - two.value) <= tol and abs(one.value - v.mi_c_pair(i, j).value) <= tol
        assert v.cmi_c(i, j).value >= -tol
    lhs, rhs = v.mi(i, j) - v.mi_given_c(i, j), v.mi_c(i) - v.cmi_c(i, j)
    if lhs.is_finite and rhs.is_finite:
        assert abs(lhs.value - rhs.value) <= tol
        assert v.mi_given_c(i, j).value >= -tol


# ----- fstheory values --joint -------------------------------------------------------------------


def test_cli_values_joint(capsys):
    import json

    from fstheory.cli import main

    assert main(["values", "--scenario", "uniform", "--k", "0.2", "--joint", "--json",
                 "--digits", "12"]) == 0
    obj = json.loads(capsys.readouterr()[0])
    assert obj["h_class"] == "0.693147180560"
    for key in ("mi_class_joint", "cmi_class", "mi_features_given_class", "joint_entropy_class"):
        assert len(obj[key]) == 10 and all(len(r) == 10 for r in obj[key])
    assert obj["mi_class_joint"][0][6] == obj["mi_class_joint"][0][3] == "0.693147180560"
    assert obj["cmi_class"][4][4] == "0" and obj["mi_features_given_class"][4][4] == "+inf"
    assert obj["joint_entropy_class"][0][1] == "-inf"
    assert obj["joint_not_computed"] == []  # every joint value of Scenario I is computed
    assert obj["mi_class_joint"][2][3] == obj["mi_class_joint"][3][2] != "not computed"
    assert main(["values", "--scenario", "uniform", "--k", "0.2", "--joint", "--digits", "6"]) == 0
    out = capsys.readouterr()[0]
    assert "MI(C;{Vi,Vj}) (diagonal: MI(C,Vi)), 6 significant digits" in out
    assert "Not computed:" not in out
    assert main(["values", "--scenario-file", str(DATA / "unreachable_feature.toml"), "--k", "0.5",
                 "--joint", "--json", "--digits", "12"]) == 0
    obj = json.loads(capsys.readouterr()[0])
    missing = {(m["matrix"], tuple(m["cell"])) for m in obj["joint_not_computed"]}
    assert ("mi_class_joint", (1, 2)) in missing and ("mi_class_joint", (0, 1)) not in missing
    assert all("X**3 - X" in m["reason"] for m in obj["joint_not_computed"])
    assert main(["values", "--scenario", "uniform", "--k", "0.2", "--json"]) == 0
    assert "h_class" not in json.loads(capsys.readouterr()[0])  # only when asked
