"""The atlas certificate: every 2-D row of Scenario I and a crossing of Scenario II certified, a
wrong ordering and a hidden breakpoint rejected, enclosures that contain independent values,
interval rules that contain every point result."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from flint import arb
from hypothesis import strategies as st
from test_atlas import MI_XY, MI_Y, MIFS_04, k

from fstheory.atlas.certificate import certify as atlas_certify
from fstheory.atlas.certificate.points import fraction
from fstheory.atlas.sweep import AtlasSpec, sweep_of, atlas
from fstheory.atlas.certificate.enclose import (Cell, UniformClassLeaf, arb_of,
                                              skew_normal_mi_ball, working_precision)
from fstheory.atlas.certificate.interval import IX
from fstheory.atlas.report import method_rows

pytestmark = pytest.mark.slow


SLOW = settings(max_examples=6, deadline=None)


@pytest.fixture(scope="module")
def mifs04():
    return atlas(MIFS_04, certify=True)


def test_crossing_of_scenario_one_certified(mifs04):
    cert = mifs04.certificate
    assert cert["certified"] is True and "assumptions" not in cert
    assert cert["summary"].startswith("certified: ")
    (br,) = cert["brackets"]
    root = sp.nsolve(MI_XY - sp.Rational(1, 5) - MI_Y, k, 0.13, prec=40)
    with mpmath.workdps(40):
        lo, hi, r = mpmath.mpf(br["from"]), mpmath.mpf(br["to"]), mpmath.mpf(str(root))
        assert lo < r < hi and (hi - lo) / r < mpmath.mpf(10) ** -20


@pytest.mark.parametrize("method, beta", [r for r in method_rows()])
def test_every_row_of_scenario_one_certified_over_k(method, beta):
    spec = AtlasSpec(scenario="uniform", method=method, beta=beta, parameter="k", lo="0", hi="1",
                     digits=20, grid=48)
    cert = atlas(spec).certificate
    assert cert["certified"] is True, cert.get("failures")


def test_exact_crossing_of_scenario_two_certified():
    # MIFS, beta = 0 (explicit 0*inf): X-Y and Y swap at step 2 where lambda(X-Y) = (1-k)/(1+k)
    # equals lambda(Y) = k, i.e. at k = sqrt(2) - 1 exactly
    spec = AtlasSpec(scenario="normal", method="mifs", beta="0", zero_beta="explicit",
                     parameter="k", lo="0.4", hi="0.42", digits=20, grid=4)
    res = atlas(spec, certify=True)
    cert = res.certificate
    assert cert["certified"] is True, cert.get("failures")
    (br,) = cert["brackets"]
    with mpmath.workdps(40):
        assert mpmath.mpf(br["from"]) < mpmath.sqrt(2) - 1 < mpmath.mpf(br["to"])


@pytest.mark.parametrize("k_fixed", ["0", "1"])
def test_beta_sweep_at_the_ends_of_k_certified(k_fixed):
    # at k = 0 and 1 several closed forms are 0/0 (their values are limits): they must not be
    # taken for one function, and the exact tie MI(C_1, X) = MI(C_1, Y) = ln 2 - 1/2 is decided
    # by the index
    spec = AtlasSpec(scenario="uniform", method="mifs", parameter="beta", lo="0", hi="1",
                     fixed=(("k", k_fixed),), digits=20, grid=8)
    cert = atlas(spec, certify=True).certificate
    assert cert["certified"] is True, cert.get("failures")


def test_crossing_just_outside_its_located_bracket_is_certified():
    # MIFS over beta at k = 39/40 (Scenario II): X-Y and Z cross at beta = MI(C, X-Y)/ln 2 =
    # 7.357e-5, 1.4 located-bracket widths below the located bracket; the certified bracket
    # must still contain it and the pieces on both sides be proved
    spec = AtlasSpec(scenario="normal", method="mifs", parameter="beta", lo="0", hi="1",
                     fixed=(("k", "39/40"),), digits=20, grid=32)
    cert = atlas(spec, certify=True).certificate
    assert cert["certified"] is True, cert.get("failures")
    (br,) = cert["brackets"]
    with mpmath.workdps(45):
        # F(1/79) = MI(C, X-Y) at k = 39/40: arb ball and mpmath quad at 50 digits agree
        exact = mpmath.mpf("5.099745587244417748016847361957576112047e-5") / mpmath.log(2)
        assert mpmath.mpf(br["from"]) < exact < mpmath.mpf(br["to"])


def test_special_point_takes_the_ordering_computed_there():
    # h(3X+1) = ln(6 delta) = 0 at delta = 1/6: QMIFS stops after 3 there, as on the right; the
    # left region ends at the same point with another ordering
    spec = AtlasSpec(scenario="uniform", method="qmifs", parameter="delta", lo="0.1", hi="0.2",
                     fixed=(("k", "0.2"),), digits=20, grid=8)
    res = atlas(spec, certify=True)
    assert [r.hi for r in res.regions][0] == sp.Rational(1, 6)
    assert res.certificate["certified"] is True, res.certificate.get("failures")


def _recertify(result, regions, breakpoints):
    sw = sweep_of(result.spec)
    return atlas_certify.certify(sw, replace(result, regions=regions, breakpoints=breakpoints))


def test_a_wrong_ordering_is_refuted(mifs04):
    left, right = mifs04.regions
    order = list(left.order)
    order[2], order[3] = order[3], order[2]  # steps 3 and 4 exchanged on the left region
    bad = replace(left, order=tuple(order))
    cert = _recertify(mifs04, [bad, right], mifs04.breakpoints)
    assert cert["certified"] is False
    assert any("refuted" in f and "step 3" in f for f in cert["failures"])


def test_a_hidden_breakpoint_is_not_certified(mifs04):
    # the left ordering claimed over the whole range: the crossing near k = 0.1297 must show
    left, right = mifs04.regions
    whole = replace(left, hi=right.hi)
    cert = _recertify(mifs04, [whole], [])
    assert cert["certified"] is False
    assert any("refuted" in f and "step 2" in f for f in cert["failures"])


# ----- enclosures contain independent values ----------------------------------------------------

unit = st.fractions(min_value=0, max_value=1, max_denominator=10**6)


@SLOW
@given(a=unit, b=unit, u=st.fractions(min_value=0, max_value=1, max_denominator=1000))
def test_scenario_one_leaves_contain_the_printed_forms(a, b, u):
    a, b = sorted((a, b))
    if a == b or b == 1 or a == 0:
        return
    t = a + (b - a) * u
    for which, form in (("Y", MI_Y), ("X-Y", MI_XY)):
        leaf = UniformClassLeaf(which, form, k)
        with working_precision(120), mpmath.workprec(120):
            cell = Cell(sp.Rational(a.numerator, a.denominator),
                        sp.Rational(b.numerator, b.denominator))
            box = leaf.enclose(cell, True)
            tt = sp.Rational(t.numerator, t.denominator)
            point = leaf.enclose(Cell(tt, tt), False)
        with mpmath.workdps(60):  # the printed forms cancel near k = 0: 60 digits for 30
            f = sp.lambdify(k, form, "mpmath")
            v = f(mpmath.mpf(t.numerator) / t.denominator)
            d = mpmath.diff(f, mpmath.mpf(t.numerator) / t.denominator)
        assert box.lo <= v <= box.hi and box.dlo - 1e-30 <= d <= box.dhi + 1e-30
        assert point.lo <= v <= point.hi and point.hi - point.lo < 1e-30


def _skew_normal_mi(mu):
    """E[ln 2 Phi(mu A)] over the density 2 phi(a) Phi(mu a) on the whole line (not folded)."""
    def f(a):
        p = mpmath.ncdf(mu * a)
        return 2 * mpmath.npdf(a) * p * mpmath.log(2 * p) if p else mpmath.mpf(0)
    return mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf])


@SLOW
@given(mu=st.fractions(min_value=0, max_value=12, max_denominator=1000))
def test_skew_normal_ball_contains_the_unfolded_expectation(mu):
    with mpmath.workdps(20):  # the independent value to 10^-17 (checked: slack below)
        v = _skew_normal_mi(mpmath.mpf(mu.numerator) / mu.denominator)
    with working_precision(80):
        ball = skew_normal_mi_ball(arb_of(mu))
        assert ball.overlaps(arb_of(v) + arb(0, 1e-17)) and ball.rad() < 1e-20


@pytest.fixture(scope="module")
def normal_certifier():
    spec = AtlasSpec(scenario="normal", method="mrmr", parameter="k", lo="0", hi="1", digits=20,
                     grid=4)
    sw = sweep_of(spec)
    return sw, atlas_certify.Certifier(sw)


@SLOW
@given(a=unit, b=unit, u=st.fractions(min_value=0, max_value=1, max_denominator=1000))
def test_skew_normal_leaves_contain_the_expectation_over_a_cell(normal_certifier, a, b, u):
    # MI(C, X) = F(1/k), MI(C, Y) = F(k), MI(C, X-Y) = F((1-k)/(1+k)) in Scenario II
    a, b = sorted((a, b))
    if a == b or a == 0 or b == 1:
        return
    sw, cert = normal_certifier
    t = a + (b - a) * u
    lam = {"X": 1 / t, "Y": t, "X-Y": (1 - t) / (1 + t)}
    with working_precision(cert.bits), mpmath.workprec(cert.bits):
        cell = Cell(sp.Rational(a.numerator, a.denominator), sp.Rational(b.numerator,
                                                                          b.denominator))
        boxes = {name: cert.leaf[("mi_c", sw.labels.index(name))].enclose(cell, False)
                 for name in lam}
    with mpmath.workdps(20):
        for name, lam_t in lam.items():
            v = _skew_normal_mi(mpmath.mpf(lam_t.numerator) / lam_t.denominator)
            box = boxes[name]
            slack = mpmath.mpf(10) ** -17
            assert box.lo - slack <= v <= box.hi + slack, (name, t, box)


def test_singular_end_constant_enclosed(normal_certifier):
    # MI(Y^2, X-Y): an integrand arb cannot evaluate at the ends of its range, enclosed with
    # proved sliver bounds (theory/special_integrals.py), not assumed; Gauss-Legendre at 45
    # digits checks it.
    sw, cert = normal_certifier
    q = ("mi", sw.labels.index("Y^2"), sw.labels.index("X-Y"))
    q = (q[0], min(q[1:]), max(q[1:]))
    with working_precision(cert.bits), mpmath.workprec(cert.bits):
        box = cert.leaf[q].enclose(Cell(sp.Rational(1, 2), sp.Rational(1, 2)), False)
    expr = sp.sympify(sw.pv._derivations[q].expr).subs(sp.Symbol("sigma", positive=True), 1)
    v = gauss_legendre_value(expr)
    assert box.lo <= v <= box.hi and box.hi - box.lo < mpmath.mpf(10) ** -30
    assert not cert.notes, cert.notes


def gauss_legendre_value(expr, dps: int = 45) -> mpmath.mpf:
    """A closed form with one-dimensional integrals, each by Gauss-Legendre quadrature at ``dps``
    digits (not the engine's tanh-sinh; a half line [a, oo) split at a + 1, a + 10, a + 40)."""
    def points(lo, hi):
        a = mpmath.mpf(sp.N(lo, dps + 5))
        if hi == sp.oo:
            return [a, a + 1, a + 10, a + 40, mpmath.inf]
        return [a, mpmath.mpf(sp.N(hi, dps + 5))]

    with mpmath.workdps(dps):
        ints = {i: sp.Float(mpmath.quad(sp.lambdify(i.limits[0][0], i.function, "mpmath"),
                                        points(*i.limits[0][1:]), method="gauss-legendre"), dps)
                for i in expr.atoms(sp.Integral)}
        return mpmath.mpf(sp.N(expr.xreplace(ints), dps))


# ----- interval rules ---------------------------------------------------------------------------

dyadic = st.integers(-320, 320).map(lambda n: Fraction(n, 64))  # exact in binary
share = st.integers(0, 16).map(lambda n: Fraction(n, 16))


def _exact(x) -> Fraction:
    return fraction(x)  # the mpf as it is (no rounding to the context)


@settings(max_examples=200, deadline=None)
@given(a=dyadic, b=dyadic, c=dyadic, d=dyadic, s=share, r=share)
def test_interval_operations_contain_the_point_results(a, b, c, d, s, r):
    (a, b), (c, d) = sorted((a, b)), sorted((c, d))
    x, y = a + (b - a) * s, c + (d - c) * r
    with mpmath.workprec(60):
        A = IX.interval(mpmath.mpf(a.numerator) / a.denominator,
                        mpmath.mpf(b.numerator) / b.denominator)
        B = IX.interval(mpmath.mpf(c.numerator) / c.denominator,
                        mpmath.mpf(d.numerator) / d.denominator)
        results = {"+": (A + B, x + y), "-": (A - B, x - y), "*": (A * B, x * y)}
        if not (c <= 0 <= d):
            results["/"] = (A / B, x / y)
    for op, (box, exact) in results.items():
        assert box.finite, op
        assert _exact(box.lo) <= exact <= _exact(box.hi), (op, a, b, c, d, x, y, box)
    if c < 0 < d:
        assert (A / B).kind == "undecided"


def test_interval_kinds_follow_the_exact_world():
    one = IX.interval(1, 2)
    assert (IX.ZERO / IX.ZERO).form == "0/0"
    assert (IX.ZERO * IX.POS_INF).form == "0*inf"
    assert (IX.POS_INF - IX.POS_INF).form == "inf-inf"
    assert (one / IX.ZERO).kind == "+inf" and (-one / IX.ZERO).kind == "-inf"
    assert (one / IX.POS_INF).zero and (IX.POS_INF * -one).kind == "-inf"
    assert (IX.interval(-1, 1) * IX.POS_INF).kind == "undecided"
    # (0, 1] stays > 0 through a product by a positive number; 1/(0, 1] is unbounded above
    half_open = IX.interval(0, 1, slo=True)
    assert (half_open * IX.point(3)).positive() and (IX.point(1) / half_open).hi == mpmath.inf


def test_negative_points_keep_their_sign():
    # mpmath's mpf.man_exp drops the sign: cell ends, cache keys and exact points must not
    from fstheory.atlas.certificate.enclose import arb_from_mpf
    from fstheory.atlas.numbers import as_exact

    x = mpmath.mpf(-3) / 4
    assert as_exact(x) == sp.Rational(-3, 4) and fraction(x) == Fraction(-3, 4)
    assert arb_from_mpf(x).upper() < 0


def test_no_certificate_says_why():
    # the mixed-laws scenario's h(X+Z) comes from the numerical route: no enclosure, the reason
    # is given (decided from the sweep's values alone: no result is needed)
    spec = AtlasSpec(scenario="mixed", method="mrmr", parameter="k", lo="0.2", hi="0.3",
                     digits=20, grid=4)
    cert = atlas_certify.certify(sweep_of(spec), None)
    assert cert["certified"] is False and "numerical route" in cert["reason"]
    assert "(no certificate: " in cert["summary"]
