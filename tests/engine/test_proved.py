"""Every printed digit proved: the engine's values at extreme parameters against independent
references (the defining integrals by mpmath quadrature at much higher precision, or the closed
forms in mpmath with hundreds of digits), the refusals, the exact zeros, the estimates, the
enclosures and the invariants."""

import json

import mpmath
import pytest
import sympy as sp

from fstheory.cli import main
from fstheory.engine.evaluate import evaluate
from fstheory.engine.kinds import ClosedForm, Numerical
from fstheory.engine.point import Point
from fstheory.engine.prove import MI, MI_CLASS, InvariantViolation, prove
from fstheory.scenarios.registry import get_scenario
from fstheory.theory import numeric
from fstheory.theory.extended import ExtendedReal, proved_digits, xr

K = sp.Symbol("k", nonnegative=True)


def value(name, digits=30, **params):
    return evaluate(get_scenario(name).bind(**params), digits)


def agrees(x: ExtendedReal, reference, digits: int) -> bool:
    """x's printed digits are within one unit of the last one of the reference."""
    text = x.text(digits)
    with mpmath.workdps(digits + 40):
        got, ref = mpmath.mpf(text), mpmath.mpf(reference)
        if ref == 0 or got == 0:
            return got == ref
        ulp = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(got))) - digits + 1)
        return abs(got - ref) < ulp


def hb(p):
    return -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)


# ----- extreme parameters: cancellations the printed digits must survive -----------------------


def test_uniform_k_1e_60_mi_class_y_is_positive_and_right():
    """MI(C_k, Y) = ln 2 - int_{-1/2}^{1/2} H_b(1/2 + k y) dy (delta = 1/2): the defining
    integral at 320 digits (the cancellation costs about 120)."""
    v = value("uniform", k="1e-60")
    with mpmath.workdps(320):
        k = mpmath.mpf("1e-60")
        ref = mpmath.log(2) - mpmath.quad(lambda y: hb(mpmath.mpf(1) / 2 + k * y), [-0.5, 0, 0.5])
    assert v.mi_class[6].text(30).startswith("1.6666666666666666666666666666")
    assert agrees(v.mi_class[6], ref, 30)


def test_uniform_k_1e_200_mi_class_difference_is_at_most_ln_2():
    """MI(C_k, X-Y) = -(1-k)^2 ln(1-k) / (4k) -> 1/4 - 3k/8: mpmath at 700 digits."""
    v = value("uniform", k="1e-200")
    with mpmath.workdps(700):
        k = mpmath.mpf("1e-200")
        ref = -(1 - k) ** 2 * mpmath.log1p(-k) / (4 * k)
    assert agrees(v.mi_class[3], ref, 30) and v.mi_class[3].text(5) == "0.25000"


@pytest.mark.slow
def test_normal_k_1e_30_mi_class_y_is_k_squared_over_pi():
    """MI(C_k, Y) = 2 int_0^oo phi(v) (ln 2 - H_b(Phi(k v))) dv, the defining expectation by
    quadrature at 120 digits (about 60 lost to the cancellation); k^2/pi to leading order."""
    v = value("normal", k="1e-30")
    with mpmath.workdps(120):
        k = mpmath.mpf("1e-30")

        def f(x):
            return 2 * mpmath.npdf(x) * (mpmath.log(2) - hb(mpmath.ncdf(k * x)))

        ref = mpmath.quad(f, [0, 2, 6, 12, 40])
    assert agrees(v.mi_class[6], ref, 30)
    assert v.mi_class[6].text(3) == "3.18e-61"


def test_normal_k_near_one_mi_class_difference_is_positive():
    """k = 1 - 10^-30: MI(C_k, X-Y) = F((1-k)/(1+k)) ~ mu^2/pi, by the same quadrature."""
    v = value("normal", k="0.999999999999999999999999999999")
    with mpmath.workdps(120):
        mu = mpmath.mpf("1e-30") / (2 - mpmath.mpf("1e-30"))

        def f(x):
            return 2 * mpmath.npdf(x) * (mpmath.log(2) - hb(mpmath.ncdf(mu * x)))

        ref = mpmath.quad(f, [0, 2, 6, 12, 40])
    assert v.mi_class[3].value > 0 and agrees(v.mi_class[3], ref, 30)


@pytest.mark.slow
def test_laplace_k_1e_60_mi_class_y():
    """Scenario III: MI(C_k, Y) = int_0^oo e^-u (ln 2 - H_b(e^(-ku)/2)) du ~ k^2, by
    quadrature at 260 digits."""
    v = value("laplace", k="1e-60")
    with mpmath.workdps(260):
        k = mpmath.mpf("1e-60")

        def f(u):
            return mpmath.exp(-u) * (mpmath.log(2) - hb(mpmath.exp(-k * u) / 2))

        ref = mpmath.quad(f, [0, 1, 10, 100, 700])
    assert agrees(v.mi_class[6], ref, 30)


def test_laplace_k_near_one_mi_class_difference():
    """MI(C_k, X-Y) = ln 2 - (1/2) int_0^oo (1+d) e^-d H_b(p_k(d)) dd with
    p_k(d) = (1 + k + 2d) / (2 (1+k)(1+d)), quadrature at 150 digits."""
    v = value("laplace", k="0.999999999999999999999999999999")
    with mpmath.workdps(150):
        k = 1 - mpmath.mpf("1e-30")

        def f(d):
            t = (1 - k) * d / ((1 + k) * (1 + d))  # 2 p - 1
            p = (1 + t) / 2
            return (1 + d) * mpmath.exp(-d) * (mpmath.log(2) - hb(p)) / 2

        ref = mpmath.quad(f, [0, 1, 10, 100, 400])
    assert agrees(v.mi_class[3], ref, 30)


@pytest.mark.parametrize("name, params", [
    ("uniform", {"k": "1e-300"}),
    ("uniform", {"k": "0.999999999999999999999999999999"}),
    ("normal", {"k": "1e-300"}),
    ("normal", {"k": "0.3", "sigma": "1e-300"}),
    ("normal", {"k": "0.3", "sigma": "1e300"}),
    ("uniform", {"k": "0.3", "delta": "1e-300"}),
    ("uniform", {"k": "0.3", "delta": "0.50000000000000000000000000000000000001"}),
    ("laplace", {"k": "1e-300"}),
])
def test_extremes_are_proved(name, params):
    """Every value at the extremes is proved (finite, +-inf) with 0 <= MI(C, V) <= ln 2; the
    entropies against their closed forms in mpmath at 700 digits."""
    v = value(name, digits=20, **params)
    for x in list(v.entropy) + list(v.mi_class):
        assert x.is_determinate, x
    with mpmath.workdps(50):
        for x in v.mi_class:
            assert 0 <= x.value <= mpmath.log(2)
    b = get_scenario(name).bind(**params)
    from fstheory.engine.derive import derive

    d = derive(b.scenario)
    with mpmath.workdps(700):
        for i, x in enumerate(v.entropy):
            expr = d.entropy[i].expr.subs(b.subs)
            assert agrees(x, mpmath.mpf(sp.N(expr, 700)), 20)


def test_delta_near_one_half_gives_the_tiny_entropy_not_zero():
    v = value("uniform", k="0.3", delta="0.50000000000000000000000000000000000001")
    assert v.entropy[0].text(5) == "2.0000e-38"  # ln(1 + 2e-38)


# ----- exact zeros, refusals ---------------------------------------------------------------------------


def test_exact_zero_comes_from_the_exact_closed_form():
    v = value("uniform", k="0.2")
    assert v.entropy[0].is_zero and v.entropy[0].enclosure().exact  # ln(2 delta), delta = 1/2
    assert "exactly 0" in v.provenance[("h", 0)]


def test_a_ball_that_only_holds_zero_is_refused():
    """exp(k^4) - 1 - k^4 at k = 10^-900 is about 5e-7201: its terms cancel to 7200 digits,
    beyond the precision budget, and it is not exactly 0: refused, never printed as 0."""
    p = Point(get_scenario("uniform").bind(k="1e-900"))
    v, _ = prove(ClosedForm(sp.exp(K**4) - 1 - K**4), p, 10, "q", MI)
    assert v.is_indeterminate and "indistinguishable from 0" in v.cause


def test_a_cancellation_within_the_budget_is_proved():
    p = Point(get_scenario("uniform").bind(k="1e-100"))
    v, how = prove(ClosedForm(sp.exp(K) - 1 - K), p, 10, "q", MI)
    assert v.text(10) == "5.000000000e-201" and "bits" in how


def test_invariant_violation_is_an_internal_error():
    p = Point(get_scenario("uniform").bind(k="0.2"))
    with pytest.raises(InvariantViolation, match="below"):
        prove(ClosedForm(-K), p, 10, "MI(C,X)", MI_CLASS)
    with pytest.raises(InvariantViolation, match="above"):
        prove(ClosedForm(1 + K), p, 10, "MI(C,X)", MI_CLASS)


# ----- estimates ----------------------------------------------------------------------------------------


class _Result:
    """A result of the numerical route, with or without a proved bound."""

    def __init__(self, value, error, method, certified):
        self.value, self.error, self.method, self.certified = value, error, method, certified

    def describe(self):
        return f"numerical route, {self.method}"


def _fake_route(monkeypatch, certified: bool):
    """The numerical route's MI(C, V) replaced by a fixed result: 0.25 with error 1e-40."""

    def mi_class(self, expr):
        return _Result(mpmath.mpf("0.25"), mpmath.mpf("1e-40"), "test quadrature", certified)

    monkeypatch.setattr(numeric.NumericRoute, "mi_class", mi_class)


@pytest.mark.parametrize("certified", [False, True])
def test_numeric_result_is_a_ball_only_when_certified(monkeypatch, certified):
    _fake_route(monkeypatch, certified)
    p = Point(get_scenario("xor").bind(k="0.5"))
    v, _ = prove(Numerical("mi_class", (p.exprs[2],)), p, 20, "MI(C,V)", MI_CLASS)
    if certified:
        assert v.is_finite and v.text(20) == "0.25000000000000000000"
        assert v.enclosure().radius <= mpmath.mpf("1.000001e-40")
    else:
        assert v.is_indeterminate and v.is_estimate and "not proved" in v.cause
        assert v.estimate[0] == mpmath.mpf("0.25")
        with pytest.raises(ValueError, match="not proved"):
            float(v)


def test_estimates_are_marked_in_text_and_json_and_not_ranked(monkeypatch, capsys):
    _fake_route(monkeypatch, False)
    code = main(["values", "--scenario", "xor", "--k", "0.5", "--json", "--digits", "15"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0
    i = 2  # X + kY, the one MI(C, V) of the numerical route
    assert obj["mi_class"][i].startswith("~0.25") and obj["mi_class_error"][i].startswith("~")
    entry = [e for e in obj["not_computed"] if e["quantity"].startswith("MI(C,")]
    assert entry and entry[0]["estimate"].startswith("0.25")
    code = main(["values", "--scenario", "xor", "--k", "0.5", "--digits", "15"])
    out = capsys.readouterr().out
    assert "~0.250000000000000 (an estimate, not proved)" in out and "~: an estimate" in out
    code = main(["order", "--scenario", "xor", "--k", "0.5", "--method", "mrmr"])
    out = capsys.readouterr().out
    assert code == 3 and "cannot be decided" in out and "not proved" in out


# ----- enclosures and printed digits --------------------------------------------------------------------


def test_enclosure_and_proved_digits():
    third = xr(1) / xr(3)
    e = third.enclosure()
    assert not e.exact and e.lower < mpmath.mpf(1) / 3 < e.upper
    near = ExtendedReal.finite(mpmath.mpf("0.123456789"), radius=mpmath.mpf("1e-6"))
    assert near.text(9) == "0.12346"  # only the proved digits
    assert proved_digits(mpmath.mpf("0.99999"), mpmath.mpf("1e-9"), 30) >= 5
    diff = (xr(1) / xr(3)) - ExtendedReal.finite(mpmath.mpf(1) / 3, radius=mpmath.mpf("1e-30"))
    assert diff.text(6).startswith("0 +/- ")  # nothing proved: no digit printed


def test_json_errors_bound_the_printed_values(capsys):
    """|printed - true| <= the stated error, for closed forms checked against mpmath."""
    main(["values", "--scenario", "uniform", "--k", "0.3", "--json", "--digits", "25"])
    obj = json.loads(capsys.readouterr().out)
    with mpmath.workdps(60):
        truth = {0: mpmath.log(2) - mpmath.mpf("0.15"), 6: None}
        got = mpmath.mpf(obj["mi_class"][0])
        assert abs(got - truth[0]) <= mpmath.mpf(obj["mi_class_error"][0])
        assert mpmath.mpf(obj["mi_class_error"][0]) < mpmath.mpf(10) ** -24
    assert obj["entropy_error"][0] == "0"


def test_atlas_point_values_are_the_engine_values():
    from fstheory.atlas.values import ParametricValues

    pv = ParametricValues(get_scenario("normal"), {}, ("k",), digits=20)
    at = pv.at({"k": sp.Rational(3, 10)})
    v = value("normal", digits=20, k="0.3")
    for i in range(len(v.labels)):
        assert at.mi_c(i).text(20) == v.mi_c(i).text(20)
        assert at.h(i).text(20) == v.h(i).text(20)


def test_constant_feature_has_mi_zero_with_itself():
    """k*Y at k = 0 is constant: h = -inf, MI 0 with everything, MI(V, V) = H(V) = 0."""
    from fstheory.scenarios.scenario_file import parse_scenario_text

    text = """name = "const"
title = "const"
[parameters.k]
domain = "unit"
[base.X]
law = "uniform"
low = "-1"
high = "1"
[base.Y]
law = "uniform"
low = "-1"
high = "1"
[[features]]
expr = "X"
[[features]]
label = "kY"
expr = "k*Y"
[class]
rule = "X + Y >= 0"
"""
    v = evaluate(parse_scenario_text(text).bind(k="0"), 10)
    assert v.entropy[1].is_neg_inf and v.mi(1, 1).is_zero and v.mi(0, 1).is_zero


STEEP = """name = "steep"
title = "normal X, Y; C = 1{X + kY >= 1}; the feature X + Y"
[parameters.k]
domain = "unit"
[base.X]
law = "normal"
mu = "0"
sigma = "1"
[base.Y]
law = "normal"
mu = "0"
sigma = "1"
[[features]]
expr = "X + Y"
[[features]]
expr = "X"
[class]
rule = "X + k*Y >= 1"
"""


@pytest.mark.parametrize("k", ["0.9", "0.95", "0.99"])
def test_steep_threshold_step_is_integrated(k):
    """MI(C, X+Y) for C = 1{X + kY >= 1}: given S = X + Y = s, Y ~ N(s/2, 1/2) and
    P(C = 1 | s) = Phi(sqrt 2 ((s - 1)/(1 - k) - s/2)), a step of width about (1 - k) at
    s = 2/(1 + k), which a quadrature that does not sample it misses (the engine printed H(C)
    there). Reference: mpmath quadrature at 50 digits split at the step."""
    from fstheory.scenarios.scenario_file import parse_scenario_text

    v = evaluate(parse_scenario_text(STEEP).bind(k=k), 15)
    with mpmath.workdps(50):
        kk = mpmath.mpf(k)
        hc = hb(mpmath.ncdf(-1 / mpmath.sqrt(1 + kk * kk)))

        def f(s):
            p = mpmath.ncdf(mpmath.sqrt(2) * ((s - 1) / (1 - kk) - s / 2))
            return mpmath.npdf(s, 0, mpmath.sqrt(2)) * hb(p) if 0 < p < 1 else 0

        s0 = 2 / (1 + kk)
        w = (1 - kk)
        pts = [-20, s0 - 40 * w, s0 - 4 * w, s0, s0 + 4 * w, s0 + 40 * w, 20]
        ref = hc - mpmath.quad(f, pts)
    assert v.mi_class[0].is_finite and agrees(v.mi_class[0], ref, 15)
    if k == "0.9":
        assert v.mi_class[0].text(15) == "0.508909382680876"


# ----- orderings at tiny k: values told apart by their enclosures ---------------------------------------


def test_order_at_tiny_k_selects_y_second():
    """mRMR in Scenario I at k = 10^-200: at step 2 Y's objective is MI(C, Y) - MI(Y, X) = k^2/6
    - 0 > 0 (independent reference: the series of test_uniform_k_1e_60...), while Y^2, Z, W+2
    and Z+W score an exact 0 (a symmetry zero and independence): Y wins, as at every k in (0, 1].
    Within the tie band, but proved apart by the enclosures (the greedy used to call it a tie)."""
    from fstheory.orderings.greedy import select

    v = value("uniform", k="1e-200")
    with mpmath.workdps(50):
        assert v.mi_class[6].enclosure().lower > 0  # k^2/6 = 1.67e-401, proved positive
    assert [v.labels[i] for i in select(v, "mrmr").order] == [
        "X", "Y", "Z", "W+2", "X-Y", "Z+W", "3X+1", "Y^2", "Z^2", "X^2"]


def test_greedy_tie_needs_overlapping_enclosures():
    from fstheory.orderings.arithmetic import EXACT_OPS
    from fstheory.orderings.greedy import tie_band

    ops = EXACT_OPS.with_band(tie_band(30))
    tiny = ExtendedReal.finite(mpmath.mpf("1e-41"), radius=mpmath.mpf("1e-71"))
    assert not ops.tied(tiny, xr(0))  # proved apart
    fuzzy = ExtendedReal.finite(mpmath.mpf("1e-41"), radius=mpmath.mpf("1e-40"))
    assert ops.tied(fuzzy, xr(0))  # cannot be told apart: the band decides
    assert not ops.tied(xr(1), xr(0))


def test_atlas_at_tiny_k_agrees_with_order_and_is_certified(capsys):
    """The issue's atlas over k in [1e-300, 1e-200]: one region, the ordering of
    test_order_at_tiny_k_selects_y_second, certified."""
    code = main(["atlas", "--scenario", "uniform", "--method", "mrmr", "--vary", "k",
                 "--range", "1e-300:1e-200", "--grid", "8", "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0 and len(obj["regions"]) == 1
    assert obj["regions"][0]["order"] == ["X", "Y", "Z", "W+2", "X-Y", "Z+W", "3X+1", "Y^2",
                                          "Z^2", "X^2"]
    assert obj["certificate"]["certified"] is True
