"""DISR's 3-D atlas rows of Scenarios II and III at the ends of k in [0, 1], where the two
objectives compared tie exactly at the end:

* Scenario II next to k = 0, step 2 (S = {X}): Y^2 against Z^2. MI(C, X) = F(1/k) has no
  derivative enclosure from F'(mu) mu' (mu = 1/k is unbounded); the certificate encloses
  dF/dk = -L(k) (``skew_normal_mi_pole_slope_ball``) and proves the difference increasing from
  its exact tie at k = 0.
* Scenario III next to k = 1, step 4 (S = {X, X-Y, Y}): Y^2 against X^2, equal at k = 1 by the
  symmetry X <-> Y of C = 1{X + Y >= 0} (``fstheory.atlas.certificate.symmetry.symmetry_at``).

Each rule is checked by a second route (mpmath quadrature; the engine's values at points), and
a wrong ordering there is refuted."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from flint import arb

from fstheory.atlas.sweep import AtlasSpec, sweep_of
from fstheory.atlas.certificate.certify import Certifier
from fstheory.atlas.certificate.symmetry import symmetry_at
from fstheory.atlas.certificate.enclose import Cell, skew_normal_mi_pole_slope_ball, working_precision

pytestmark = pytest.mark.slow


ORDER_II = ("X", "Y^2", "X-Y", "Y", "3X+1", "Z^2", "Z", "W+2", "Z+W", "X^2")
ORDER_III = ("X", "X-Y", "Y", "Y^2", "X^2", "3X+1", "Z^2", "Z", "W+2", "Z+W")


def _certifier(scenario, lo, hi):
    spec = AtlasSpec(scenario=scenario, method="disr", reading="original", parameter="k",
                     lo=lo, hi=hi, digits=20, grid=4)
    cert = Certifier(sweep_of(spec))
    cert.joint()
    return cert


def _indices(cert, labels):
    names = list(cert.sw.labels)
    return tuple(names.index(x) for x in labels)


@pytest.fixture(scope="module")
def two():
    return _certifier("normal", "0", "1/100")


@pytest.fixture(scope="module")
def three():
    return _certifier("laplace", "99/100", "1")


def _hb_phi(w):
    p, q = mpmath.ncdf(w), mpmath.ncdf(-w)
    return -(p * mpmath.log(p) + q * mpmath.log(q))


def _mi_class_x(k):
    """MI(C_k, X) of Scenario II by quadrature: ln 2 - E[H_b(Phi(X/k))], after x = k w."""
    return mpmath.log(2) - 2 * k * mpmath.quad(lambda w, k=k: mpmath.npdf(k * w) * _hb_phi(w),
                                               [0, 1, 4, 10, mpmath.inf])


# ----- the pole derivative of the skew-normal leaf ----------------------------------------------
def test_pole_slope_against_quadrature():
    with mpmath.workdps(30):
        # L(0) = 2 phi(0) int_0^oo H_b(Phi(w)) dw (integration by parts of its definition)
        l0 = 2 * mpmath.npdf(0) * mpmath.quad(_hb_phi, [0, 1, 4, 10, mpmath.inf])
        # L(s) = F'(1/s) / s^2 = -dMI(C_k, X)/dk at k = s
        ls = -mpmath.diff(_mi_class_x, mpmath.mpf(1) / 10)
        with working_precision(100):
            b0 = skew_normal_mi_pole_slope_ball(arb(0))
            bs = skew_normal_mi_pole_slope_ball(arb(1) / 10)
        for ball, ref in ((b0, l0), (bs, ls)):
            assert ball.contains(arb(mpmath.nstr(ref, 25))), (ball, ref)
            assert ball.rad() < 1e-6
    assert float(bs.upper()) < float(b0.lower())  # decreasing in s


def test_derivative_enclosed_next_to_the_pole(two):
    leaf = two.leaf[("mi_c", _indices(two, ["X"])[0])]
    with working_precision(two.bits), mpmath.workprec(two.bits):
        ix = leaf.enclose(Cell(sp.Integer(0), sp.Rational(1, 100), True, False), True)
    assert ix.has_der and ix.dhi < 0
    with mpmath.workdps(20):
        for k in ("1e-6", "0.01"):
            d = mpmath.diff(_mi_class_x, mpmath.mpf(k))
            assert ix.dlo <= d <= ix.dhi, (k, d, ix.dlo, ix.dhi)


# ----- Scenario II next to k = 0 ----------------------------------------------------------------
def test_scenario_two_next_to_zero_certified(two):
    used, failure = two.certify_piece(Cell(sp.Integer(0), sp.Rational(1, 100), True, False),
                                      _indices(two, ORDER_II), False)
    assert failure is None and used < 20


def test_scenario_two_second_route_y2_beats_z2():
    # DISR at step 2, S = {X}: MI(C;{V,X}) / H(V,X,C) with H(V,X,C) = h(V) + h(X) + H(C) -
    # MI(C;{V,X}) (V independent of X) and h(Y^2) = h(Z^2): Y^2 beats Z^2 iff
    # MI(C;{Y^2,X}) > MI(C;X) = MI(C;{Z^2,X}). By quadrature: MI(C;{Y^2,X}) = ln 2 (1 - P(|X| <
    # k|Y|)) (the two points (X, +-Y) disagree iff |X| < k|Y|), against MI(C, X); scaled by k.
    with mpmath.workdps(40):
        for k in (mpmath.mpf("1e-30"), mpmath.mpf("1e-8"), mpmath.mpf("0.001"),
                  mpmath.mpf("0.01")):
            p_over_k = 2 * mpmath.quad(
                lambda y, k=k: mpmath.npdf(y) * (2 * mpmath.ncdf(k * y) - 1) / k, [0, 4, mpmath.inf])
            gap_y2 = mpmath.log(2) * p_over_k  # (ln 2 - MI(C;{Y^2,X})) / k
            gap_x = 2 * mpmath.quad(lambda w, k=k: mpmath.npdf(k * w) * _hb_phi(w),
                                    [0, 1, 4, 10, mpmath.inf])  # (ln 2 - MI(C;X)) / k
            assert gap_x - gap_y2 > mpmath.mpf("0.27"), k


def test_scenario_two_wrong_order_refuted(two):
    order = list(_indices(two, ORDER_II))
    order[1], order[5] = order[5], order[1]  # Z^2 claimed before Y^2 at step 2
    cell = Cell(sp.Integer(0), sp.Rational(1, 100), True, False)
    # the claimed step 2 is not proved (Z^2 does not beat Y^2 anywhere on the cell) ...
    _z2, y2 = order[1], order[5]
    with working_precision(two.bits), mpmath.workprec(two.bits):
        assert two.check_cell(cell, tuple(order), False, frozenset({(1, y2)})) == [(1, y2)]
    # ... and the claimed ordering is refuted on the cell (Y^2 proved above X-Y at step 3)
    used, failure = two.certify_piece(cell, tuple(order), False)
    assert failure is not None and failure.startswith("refuted"), failure


# ----- Scenario III next to k = 1 ---------------------------------------------------------------
def test_scenario_three_symmetry_at_one(three):
    rep = symmetry_at(three.leaves, sp.Integer(1))
    y2, x2, x, y, xy = _indices(three, ["Y^2", "X^2", "X", "Y", "X-Y"])
    sym = three.symbol
    for a, b in ((("h", y2), ("h", x2)), (("mi_c", x), ("mi_c", y)),
                 (("pair", min(y2, xy), max(y2, xy)), ("pair", min(x2, xy), max(x2, xy))),
                 (("pair", min(y2, x), max(y2, x)), ("pair", min(x2, y), max(x2, y)))):
        assert rep.get(sym[a], sym[a]) == rep.get(sym[b], sym[b]), (a, b)
    # second route: every pair of leaves the symmetry identifies has overlapping enclosures at
    # k = 1; at k = 99/100 (no X <-> Y symmetry) MI(C;{Y^2,X-Y}), MI(C;{X^2,X-Y}) stay apart
    one = Cell(sp.Integer(1), sp.Integer(1))
    with working_precision(three.bits), mpmath.workprec(three.bits):
        for s, r in rep.items():
            u = three.leaf_by_symbol[s].enclose(one, False)
            v = three.leaf_by_symbol[r].enclose(one, False)
            assert u.lo <= v.hi and v.lo <= u.hi, (s, r, u, v)
    other = symmetry_at(three.leaves, sp.Rational(99, 100))
    a, b = (sym[("pair", min(v, xy), max(v, xy))] for v in (y2, x2))
    assert a != b and other.get(a, a) != other.get(b, b)


def test_scenario_three_next_to_one_certified(three):
    order = _indices(three, ORDER_III)
    one = sp.Integer(1)
    assert three.certify_piece(Cell(one, one), order, False) == (1, None)
    used, failure = three.certify_piece(Cell(sp.Rational(99, 100), one, False, True), order,
                                        False)
    assert failure is None and used < 20


def test_scenario_three_second_route_engine_values():
    import fstheory

    def step4(k):
        st = fstheory.scenario("laplace", k=k).order("disr").steps[3]
        return {c.label: c.value for c in st.candidates}

    # (at k = 1 the leaves the symmetry identifies are compared in
    # test_scenario_three_symmetry_at_one)
    v = step4("999/1000")
    assert float(v["Y^2"]) - float(v["X^2"]) > 5e-4


def test_scenario_three_wrong_order_refuted(three):
    order = list(_indices(three, ORDER_III))
    order[3], order[4] = order[4], order[3]  # X^2 claimed before Y^2 at step 4
    one = sp.Integer(1)
    _, failure = three.certify_piece(Cell(one, one), tuple(order), False)
    assert failure is not None and "refuted" in failure and "step 4" in failure, failure
    _, failure = three.certify_piece(Cell(sp.Rational(99, 100), one, False, True), tuple(order),
                                     False)
    assert failure is not None and "refuted" in failure and "step 4" in failure, failure
