"""Scenario III's MI(C_k, V) enclosed for the atlas certificate (atlas/certificate/laplace.py): the
enclosures against the engine's numerical route, against mpmath quadrature of the unsubstituted
integrals at 40 digits and against Monte Carlo; every 2-D row over k certified with the stored
regions and breakpoints; a wrong ordering and a hidden breakpoint refuted."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st
from test_atlas_certify import _recertify, gauss_legendre_value

from fstheory.atlas.certificate import certify as atlas_certify
from fstheory.atlas.sweep import AtlasSpec, sweep_of, atlas
from fstheory.atlas.certificate.enclose import Cell, arb_of, working_precision
from fstheory.atlas.certificate.laplace import (LaplaceClassLeaf, class_mi_ball,
                                              class_mi_derivative_ball, class_mi_expression,
                                              recognise)
from fstheory.atlas.report import method_rows
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.scenarios.symbols import X, Y, Z

pytestmark = pytest.mark.slow


STORED = Path(__file__).resolve().parents[2] / "reports" / "atlas" / "k_laplace.json"
INDEX = {"X": 0, "3X+1": 1, "X-Y": 3, "Y": 6}  # features of scenarios/laplace.toml


def _hb(p):
    return -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)


def _p_xy(d, k):
    """P(C = 1 | X - Y = d), scale 1 (the module docstring's closed form, both signs of d)."""
    if d < 0:
        return 1 - _p_xy(-d, k)
    return (1 + k + 2 * d) / (2 * (1 + k) * (1 + d))


def _quad_mi(which, k):
    """MI(C_k, V) by mpmath quadrature of the integrals as first derived (before the
    substitutions the leaves use): over u = |x| for X and Y, over the whole line for X - Y."""
    ln2, inf = mpmath.log(2), mpmath.inf
    if which == "X":
        if k == 0:
            return ln2
        f = lambda u: mpmath.exp(-u) * _hb(mpmath.exp(-u / k) / 2)  # noqa: E731
        return ln2 - mpmath.quad(f, [0, k, 10 * k, 1, inf])
    if which == "Y":
        f = lambda u: mpmath.exp(-u) * _hb(mpmath.exp(-k * u) / 2)  # noqa: E731
        return ln2 - mpmath.quad(f, [0, 1, 10, inf])
    f = lambda d: (1 + abs(d)) * mpmath.exp(-abs(d)) / 4 * _hb(_p_xy(d, k))  # noqa: E731
    return ln2 - mpmath.quad(f, [-inf, -10, -1, 0, 1, 10, inf])


# ----- point values: the engine, 40-digit quadrature, Monte Carlo ---------------------------------


@pytest.mark.parametrize("k, scale", [("1/10", "1/2"), ("7/20", "2"), ("4/5", "1/2")])
def test_enclosures_contain_the_engine_values(k, scale):
    # the engine's numerical route at 30 digits (scale-free values: a non-default scale too)
    v = evaluate(get_scenario("laplace").bind(k=k, scale=scale), 30)
    with working_precision(140):
        kb = arb_of(sp.Rational(k))
        for name, i in INDEX.items():
            ball = class_mi_ball(name.replace("3X+1", "X"), kb)
            assert ball.rad() < 1e-38
            with mpmath.workdps(45):
                got = v.mi_class[i].value
                assert abs(got - mpmath.mpf(ball.mid().str(45, radius=False))) < \
                    mpmath.mpf(10) ** -28 * got, (name, k)


@pytest.mark.parametrize("k", ["0", "1/1000", "1/5", "1/2", "0.9", "1"])
def test_enclosures_agree_with_independent_quadrature(k):
    with mpmath.workdps(40):
        kk = mpmath.mpf(sp.Rational(k).p) / sp.Rational(k).q
        ref = {w: _quad_mi(w, kk) for w in ("X", "Y", "X-Y")}
    with working_precision(160):
        kb = arb_of(sp.Rational(k))
        for w, r in ref.items():
            ball = class_mi_ball(w, kb)
            assert ball.rad() < 1e-40
            assert ball.overlaps(arb_of(r) + arb(0, 1e-36)), (w, k, ball, r)


def test_conditional_probability_of_x_minus_y_by_quadrature():
    # P(C = 1 | D = d) = int_{-d/(1+k)}^oo f(y) f(y + d) dy / f_D(d): the closed form against
    # quadrature of the Laplace densities (scale 1), both signs of d
    f = lambda x: mpmath.exp(-abs(x)) / 2  # noqa: E731
    with mpmath.workdps(30):
        for k in (mpmath.mpf(0), mpmath.mpf("0.3"), mpmath.mpf(1)):
            for d in (mpmath.mpf("-2.5"), mpmath.mpf("0.1"), mpmath.mpf(3)):
                t = -d / (1 + k)
                pts = sorted({t, -d, mpmath.mpf(0)})
                num = mpmath.quad(lambda y, d=d: f(y) * f(y + d), [t] + [p for p in pts if p > t]
                                  + [mpmath.inf])
                den = mpmath.quad(lambda y, d=d: f(y) * f(y + d), [-mpmath.inf] + pts + [mpmath.inf])
                assert abs(num / den - _p_xy(d, k)) < mpmath.mpf(10) ** -25


def test_mi_of_x_minus_y_by_monte_carlo():
    """MI(C, X-Y) = E[ln P(C | D) / P(C)], P(C) = 1/2, with (D, C) simulated and P(C | D) the
    closed form p_k(D) (scale 1/2, so p reads D/scale). A wrong p_k would give the true MI minus
    E[KL(true || p_k)] here but a different integral in the leaf. 2 000 000 draws; tolerance 5
    standard errors (the estimator is unbiased), 2% of the value."""
    k, s, n = 0.1, 0.5, 2_000_000
    rng = np.random.default_rng(20261127)
    x, y = rng.laplace(0, s, n), rng.laplace(0, s, n)
    d, c = (x - y) / s, x + k * y >= 0
    a = np.abs(d)
    p_pos = (1 + k + 2 * a) / (2 * (1 + k) * (1 + a))
    p1 = np.where(d >= 0, p_pos, 1 - p_pos)
    terms = np.log(2 * np.where(c, p1, 1 - p1))
    est, se = terms.mean(), terms.std(ddof=1) / np.sqrt(n)
    with working_precision(100):
        value = float(class_mi_ball("X-Y", arb(1) / 10).mid())
    assert abs(est - value) < 5 * se and 5 * se < 0.02 * value


@pytest.mark.parametrize("k", ["1/100", "1/2", "9/10"])
def test_derivative_enclosures_contain_the_quadrature_derivative(k):
    with mpmath.workdps(30):
        kk = mpmath.mpf(sp.Rational(k).p) / sp.Rational(k).q
        ref = {w: mpmath.diff(lambda t, w=w: _quad_mi(w, t), kk) for w in ("X", "Y", "X-Y")}
    with working_precision(80):
        for w, r in ref.items():
            ball = class_mi_derivative_ball(w, arb_of(sp.Rational(k)))
            assert ball.overlaps(arb_of(r) + arb(0, 1e-15)) and ball.rad() < 1e-6, (w, k)


def test_exact_values_at_the_ends():
    # k = 0: C = 1{X >= 0}; k = 1: MI(C, X) = MI(C, Y) = ln 2 - 1/2, MI(C, X - Y) = 0
    assert class_mi_expression("X", 0) == sp.log(2)
    assert class_mi_expression("Y", 0) == 0 and class_mi_expression("X-Y", 1) == 0
    assert class_mi_expression("X", 1) == class_mi_expression("Y", 1) == sp.log(2) - sp.S.Half
    assert class_mi_expression("X-Y", 0).has(sp.Integral)
    with working_precision(120), mpmath.workdps(40):
        for w, at, value in (("X", 1, mpmath.log(2) - mpmath.mpf(1) / 2),
                             ("Y", 1, mpmath.log(2) - mpmath.mpf(1) / 2),
                             ("X", 0, mpmath.log(2)), ("Y", 0, 0), ("X-Y", 1, 0)):
            assert class_mi_ball(w, arb(at)).overlaps(arb_of(value)), (w, at)
            assert abs(_quad_mi(w, mpmath.mpf(at)) - value) < mpmath.mpf(10) ** -35


def test_leaves_are_continuous_and_strict_at_the_ends():
    # cells open at the ends: the hull reaches the end value, not attained
    with working_precision(120), mpmath.workprec(120):
        tiny = mpmath.mpf(10) ** -12
        y = LaplaceClassLeaf("Y").enclose(Cell(sp.Integer(0), tiny, open_lo=True), True)
        assert y.lo == 0 and y.slo and y.hi < 1e-23 and y.dlo >= 0
        x = LaplaceClassLeaf("X").enclose(Cell(sp.Integer(0), tiny, open_lo=True), True)
        assert abs(x.hi - mpmath.log(2)) < 1e-30 and x.shi and x.dhi < 0
        d = LaplaceClassLeaf("X-Y").enclose(Cell(1 - tiny, sp.Integer(1), open_hi=True), True)
        assert d.lo == 0 and d.slo and d.hi < 1e-23 and d.dhi <= 0
        assert LaplaceClassLeaf("Y").enclose(Cell(sp.Integer(0), sp.Integer(0)), False).zero


unit = st.fractions(min_value=0, max_value=1, max_denominator=10**4)


@settings(max_examples=4, deadline=None)
@given(a=unit, b=unit, u=st.fractions(min_value=0, max_value=1, max_denominator=100))
def test_cell_enclosures_contain_the_values_inside(a, b, u):
    a, b = sorted((a, b))
    if a == b:
        return
    t = a + (b - a) * u
    cell = Cell(sp.Rational(a.numerator, a.denominator), sp.Rational(b.numerator, b.denominator))
    # the reference at 30 digits: at 20, mpmath's quadrature of MI(C, X) can be off by 2e-17;
    # at the ends of [0, 1] the difference quotient is one-sided (the integrals need k >= 0)
    side = 1 if t == 0 else -1 if t == 1 else 0
    with mpmath.workdps(30):
        tt = mpmath.mpf(t.numerator) / t.denominator
        for w in ("X", "Y", "X-Y"):
            v = _quad_mi(w, tt)
            dv = mpmath.diff(lambda s, w=w: _quad_mi(w, s), tt, direction=side)
            with working_precision(100), mpmath.workprec(100):
                box = LaplaceClassLeaf(w).enclose(cell, True)
            assert box.lo - 1e-17 <= v <= box.hi + 1e-17, (w, a, b, t)
            if box.has_der:
                assert box.dlo - 1e-12 <= dv <= box.dhi + 1e-12, (w, a, b, t)


# ----- recognising the structure ----------------------------------------------------------------


def test_recognise_the_three_functions_and_refuse_the_rest():
    sc = get_scenario("laplace")
    s = sc.symbols
    fixed = {s["scale"]: sp.Rational(1, 2), s["a"]: -2, s["b"]: 1, s["d"]: 2}
    k = s["k"]
    for expr, which in ((X, "X"), (s["a"] * X + s["b"], "X"), (2 * Y + 5, "Y"),
                        (Y - X, "X-Y"), (3 * X - 3 * Y + s["d"], "X-Y")):
        assert recognise(sc, fixed, expr, k) == (which, k), expr
    assert recognise(sc, {**fixed, k: sp.Rational(1, 3)}, X, None) == ("X", sp.Rational(1, 3))
    for expr in (X + Y, Y**2, X + Z, X * Y, sp.Integer(1), sp.sqrt(X**2 + 1)):
        assert recognise(sc, fixed, expr, k) is None, expr
    # the class weight swept on a parameter without domain [0, 1], or out of [0, 1] once fixed
    assert recognise(sc, fixed, X, s["d"]) is None
    assert recognise(sc, {**fixed, k: 2}, X, None) is None
    # other laws, scales, centres or class rules
    from fstheory.theory.laws import Laplace, Normal

    for base in ({X: Normal(0, 1), Y: Normal(0, 1)}, {X: Laplace(0, 1), Y: Laplace(0, 2)},
                 {X: Laplace(1, 1), Y: Laplace(1, 1)}):
        assert recognise(replace(sc, base={**sc.base, **base}), fixed, X, k) is None
    rule = sc.class_rule
    for r in (replace(rule, threshold=1), replace(rule, weights={X: 1, Y: k, Z: 1}),
              replace(rule, weights={X: 2, Y: k})):
        assert recognise(replace(sc, class_rule=r), fixed, X, k) is None
    assert recognise(replace(sc, class_rule=replace(rule, weights={X: k, Y: 1})), fixed, Y,
                     k) == ("X", k)


# ----- every 2-D row certified, as stored --------------------------------------------------------


def _stored():
    return {r["method"]: r for r in json.loads(STORED.read_text())}


@pytest.fixture(scope="module")
def rows():
    """Every 2-D row of Scenario III over k in [0, 1] on the report's grid, certified, with the
    seconds each took (sweep and certificate; printed with -s)."""
    out = {}
    for method, beta in method_rows():
        spec = AtlasSpec(scenario="laplace", method=method, beta=beta, parameter="k", lo="0",
                         hi="1", digits=20, grid=16)
        start = time.perf_counter()
        res = atlas(spec, certify=True)
        out[(method, beta)] = res
        print(f"{res.to_json()['method']}: {time.perf_counter() - start:.2f} s, "
              f"{res.certificate.get('cells')} cells")
    return out


@pytest.mark.parametrize("method, beta", method_rows())
def test_every_row_of_scenario_three_certified_as_stored(rows, method, beta):
    res = rows[(method, beta)]
    j = res.to_json()
    ref = _stored()[j["method"]]
    assert j["regions"] == ref["regions"] and j["breakpoints"] == ref["breakpoints"]
    cert = res.certificate
    assert cert["certified"] is True, cert.get("failures")
    assert len(cert["brackets"]) == sum(1 for b in ref["breakpoints"] if b["at"] not in ("0", "1"))
    assert "Scenario III" in cert["method"]


def test_certified_bracket_holds_the_quadrature_crossing(rows):
    # MIFS (beta = 0.4), step 2: X-Y and Y cross where MI(C, X-Y) - 0.4 MI(X, X-Y) = MI(C, Y)
    # (MI(Y, X) = 0), MI(X, X-Y) = ln 2 - e E_1(1)/2
    cert = rows[("mifs", "0.4")].certificate
    (br,) = cert["brackets"]
    with mpmath.workdps(40):
        c = mpmath.mpf("0.4") * (mpmath.log(2) - mpmath.e * mpmath.e1(1) / 2)
        root = mpmath.findroot(lambda t: _quad_mi("X-Y", t) - c - _quad_mi("Y", t),
                               mpmath.mpf(br["at"]))
        assert mpmath.mpf(br["from"]) < root < mpmath.mpf(br["to"])


def test_a_wrong_ordering_is_refuted(rows):
    res = rows[("nmifs", None)]
    left, right = res.regions
    order = list(right.order)
    order[3], order[4] = order[4], order[3]  # steps 4 and 5 exchanged on the right region
    cert = _recertify(res, [left, replace(right, order=tuple(order))], res.breakpoints)
    assert cert["certified"] is False
    assert any("refuted" in f and "step 4" in f for f in cert["failures"])


def test_a_hidden_breakpoint_is_not_certified(rows):
    # MIFS (beta = 0.4): k = 0 keeps its ordering, the right one is claimed on all of (0, 1]; the
    # crossing near k = 0.0073 must show on the interval piece
    res = rows[("mifs", "0.4")]
    left, right = res.regions
    cert = _recertify(res, [replace(left, hi=left.lo), replace(right, lo=left.lo)], [])
    assert cert["certified"] is False
    (fail,) = cert["failures"]
    assert fail.startswith("(0, 1): refuted on (0, ") and "step 2 X-Y is not beaten by Y" in fail


def test_a_change_at_an_end_claimed_away_is_not_certified(rows):
    # MICC changes at k = 1 (MI(C_1, X) = MI(C_1, Y) exactly, MI(C_1, X-Y) = 0): the middle
    # ordering claimed up to and at 1 is refuted at the point
    res = rows[("micc", None)]
    first, middle, last = res.regions
    cert = _recertify(res, [first, replace(middle, hi=last.hi)],
                      [b for b in res.breakpoints if b.at != 1])
    assert cert["certified"] is False
    assert any("refuted on 1" in f for f in cert["failures"]), cert["failures"]


def test_half_line_constant_enclosed(rows):
    # MI(Y^2, X-Y) of Scenario III (an integral over the half line): enclosed with a proved tail
    # bound (theory/special_integrals.py), not assumed; Gauss-Legendre at 36 digits checks it,
    # at the report's scale 1/2
    res = rows[("mifs", "0.4")]
    assert "assumptions" not in res.certificate, res.certificate["assumptions"]
    sw = sweep_of(res.spec)
    cert = atlas_certify.certifier(sw)
    q = ("mi", sw.labels.index("Y^2"), sw.labels.index("X-Y"))
    with working_precision(cert.bits), mpmath.workprec(cert.bits):
        box = cert.leaf[q].enclose(Cell(sp.Rational(1, 2), sp.Rational(1, 2)), False)
    expr = sp.sympify(sw.pv._derivations[q].expr).subs(sw.scenario.symbols["scale"],
                                                       sp.Rational(1, 2))
    v = gauss_legendre_value(expr, 36)
    assert box.lo <= v <= box.hi and box.hi - box.lo < mpmath.mpf(10) ** -30


def test_sweep_point_values_from_the_enclosures_match_the_numerical_route():
    # the sweep reads MI(C, V) of 0 < k < 1 from class_mi_ball; the engine's numerical route is
    # the second route (30 digits); at k = 0 and 1 the sweep defers to the engine (exact structure)
    from fstheory.atlas.values import ParametricValues
    from fstheory.engine.quantities import PointQuantities

    sc = get_scenario("laplace")
    pv = ParametricValues(sc, {"scale": sp.Rational(3, 2)}, ("k",), 20)
    k = sp.Rational(2, 7)
    engine = PointQuantities(sc.bind(k=k, scale=sp.Rational(3, 2)), 30)
    for name, i in INDEX.items():
        fast = pv.laplace_mi_class(("mi_c", i), {"k": k})
        ref = engine.mi_class(i)[0].value
        with mpmath.workdps(40):
            assert abs(fast.value - ref) < mpmath.mpf(10) ** -26 * ref, name
    assert pv.laplace_mi_class(("mi_c", 2), {"k": k}) is None  # Y^2: not of the form
    for end in (0, 1):
        assert pv.laplace_mi_class(("mi_c", 0), {"k": sp.Integer(end)}) is None


def test_crossing_at_a_small_beta_is_located_where_the_objectives_cross():
    # the k = 0.975 column of the (k, beta) map of MIFS: X-Y and Z cross at step 3 at
    # beta* = MI(C,X-Y) / (MI(X-Y,X) + MI(X-Y,Y)) = 3.0e-5, where the greedy rule's tie band
    # (1e-25 absolute) spans 80 bracket widths; the sweep reported the band's edge, outside the
    # certified bracket (not certified). Here beta* by quadrature at 40 digits of the formulas of
    # atlas/certificate/laplace.py (H(C | X-Y)) and of h(X-Y) - h(Y) for MI(X-Y, X).
    spec = AtlasSpec(method="mifs", parameter="beta", lo="0", hi="1", scenario="laplace",
                     fixed=(("k", "39/40"),), digits=20, grid=32)
    res = atlas(spec, certify=None)
    with mpmath.workdps(40):
        k = mpmath.mpf(39) / 40

        def hb(p):
            return -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)

        def p_k(d):
            return (1 + k + 2 * d) / (2 * (1 + k) * (1 + d))

        mi_c = mpmath.log(2) - mpmath.quad(
            lambda d: (1 + d) * mpmath.exp(-d) * hb(p_k(d)), [0, 1, 10, mpmath.inf]) / 2
        # f_D(d) = (1 + |d|) e^-|d| / 4, h(Y) = 1 + ln 2 at scale 1 (MI is scale-free)
        h_d = -2 * mpmath.quad(lambda d: (1 + d) * mpmath.exp(-d) / 4
                               * mpmath.log((1 + d) * mpmath.exp(-d) / 4), [0, 1, 10, mpmath.inf])
        beta = mi_c / (2 * (h_d - 1 - mpmath.log(2)))
        (bp,) = [b for b in res.breakpoints if b.kind == "crossing"]
        assert bp.between == ("X-Y", "Z") and bp.step == 3
        x0, x1 = bp.bracket
        assert x0 <= beta <= x1 and x1 - x0 < beta * mpmath.mpf(10) ** -21
    assert res.certificate["certified"], res.certificate.get("failures")
