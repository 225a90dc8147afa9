"""The certificate of the 3-D atlas rows: the twelve rows of Scenario I certified over k in
[0, 1], a wrong ordering and a hidden breakpoint refuted, the joint leaves against the
independent closed forms of ``tests/scenario_one_closed.py`` (exact values and interval
enclosures), the special-point proof refusing a leaf that is not continuous there, and a
Scenario II row certified with its integrals over directions enclosed, no assumption about
them (a wrong ordering refuted there too)."""

from __future__ import annotations

from dataclasses import replace

import mpmath
import pytest
import sympy as sp

import scenario_one_closed as S
from atlas_results import certified
from fstheory.atlas.certificate import certify as atlas_certify
from fstheory.atlas.sweep import AtlasSpec, sweep_of, atlas
from fstheory.atlas.certificate.certify import Certifier
from fstheory.atlas.certificate.views import IntervalView
from fstheory.atlas.certificate.enclose import Cell, NoEnclosure, working_precision
from fstheory.atlas.report import rows_3d


pytestmark = pytest.mark.slow


def _spec(method, reading, lo="0", hi="1", grid=12, scenario="uniform"):
    return AtlasSpec(scenario=scenario, method=method, reading=reading, parameter="k", lo=lo,
                     hi=hi, digits=20, grid=grid)


@pytest.fixture(scope="module")
def rows():
    # shared with test_atlas_certify_3d_adversarial.py's ICAP row (one xdist group)
    return {(m, r): certified(_spec(m, r)) for m, r in rows_3d()}


def test_every_3d_row_of_scenario_one_certified_over_k(rows):
    # the twelve rows, DISR included (its objective has a pole at k = 0: H(Z,X,C_k) = k/2)
    assert len(rows) == 12
    for key, res in rows.items():
        cert = res.certificate
        assert cert["certified"] is True, (key, cert.get("failures"), cert.get("reason"))
        assert cert["cells"] > 0 and "joint inputs from the structure derived" in cert["method"]
        # every located crossing in a certified bracket (the rest are exact special points)
        assert len(cert["brackets"]) == sum(b.bracket is not None for b in res.breakpoints)


def _recertify(result, regions, breakpoints):
    sw = sweep_of(result.spec)
    return atlas_certify.certify(sw, replace(result, regions=regions, breakpoints=breakpoints))


def test_a_wrong_3d_ordering_is_refuted(rows):
    # DISR: on its widest region exchange the features of steps 4 and 5
    res = rows[("disr", "original")]
    i = max(range(len(res.regions)), key=lambda n: res.regions[n].hi - res.regions[n].lo)
    order = list(res.regions[i].order)
    order[3], order[4] = order[4], order[3]
    regions = list(res.regions)
    regions[i] = replace(regions[i], order=tuple(order))
    cert = _recertify(res, regions, res.breakpoints)
    assert cert["certified"] is False
    assert any("refuted" in f and "step 4" in f for f in cert["failures"]), cert["failures"]


def test_a_hidden_3d_breakpoint_is_not_certified(rows):
    # ICAP (interaction): its change at step 4 (Y^2 and 3X+1, near k = 0.295) hidden by
    # claiming the left ordering on the region to its right as well
    res = rows[("icap", "interaction")]
    (bp,) = [b for b in res.breakpoints if b.step == 4 and 0 < b.at < 1]
    assert set(bp.between) == {"Y^2", "3X+1"}
    cut = min(range(len(res.regions)), key=lambda n: abs(res.regions[n].hi - bp.at))
    whole = replace(res.regions[cut], hi=res.regions[cut + 1].hi)
    regions = list(res.regions[:cut]) + [whole] + list(res.regions[cut + 2:])
    breakpoints = [b for b in res.breakpoints if b is not bp]
    cert = _recertify(res, regions, breakpoints)
    assert cert["certified"] is False
    # refuted, or stuck at the crossing itself (where the two objectives are equal)
    assert any("step 4, Y^2 against 3X+1" in f or ("refuted" in f and "step 4" in f)
               for f in cert["failures"]), cert["failures"]


# ----- the joint leaves against the independent closed forms ------------------------------------

@pytest.fixture(scope="module")
def cert():
    c = Certifier(sweep_of(_spec("disr", "original", grid=4)))
    c.joint()
    return c


def _exact(cert, expr, k):
    """A leaf expression at the exact point k (every leaf's exact value)."""
    return sp.sympify(expr).xreplace({s: cert.leaf_by_symbol[s].exact(k)
                                      for s in sp.sympify(expr).free_symbols})


@pytest.mark.parametrize("k", [sp.Rational(3, 10), sp.Rational(7, 9), sp.Rational(1, 1000)])
def test_joint_leaves_equal_the_closed_forms(cert, k):
    # MI(C;{Vi,Vj}) and H(Vi,Vj,C) of every pair as the certificate writes them (two-point
    # areas, closed-form leaves, identities in the leaves) against scenario_one_closed, 40 digits
    joint = cert.joint()
    with mpmath.workdps(50):
        p = S.Point(S.closed_forms(), mpmath.mpf(k.p) / k.q)
        for i in range(S.N):
            for j in range(i + 1, S.N):
                mine = p.mi_c_pair(i, j)
                got = _exact(cert, cert.symbol[("pair", i, j)], k)
                assert abs(sp.N(got, 50) - mine.num()) < mpmath.mpf(10) ** -40, (i, j)
                mine = p.h_pair_c(i, j)
                kind = joint.kind(("hpair", i, j))
                if mine.kind in ("+inf", "-inf"):
                    assert kind == mine.kind, (i, j)
                    continue
                got = _exact(cert, joint.expression(("hpair", i, j), frozenset()), k)
                assert abs(sp.N(got, 50) - mine.num()) < mpmath.mpf(10) ** -40, (i, j)


def test_closed_form_leaf_of_a_vanishing_divisor(cert):
    # H(X,Z,C_k) = H(C_k | X) = k/2 (Z independent, h(X) = h(Z) = 0): one leaf of that closed
    # form, shared with H(X,W+2,C) (so DISR's Z and W+2 tie exactly), strictly positive on a
    # cell open at k = 0 where the difference of its terms' enclosures would contain 0
    joint = cert.joint()
    labels = cert.sw.labels
    x, z, w2 = labels.index("X"), labels.index("Z"), labels.index("W+2")
    hz = joint.expression(("hpair", min(x, z), max(x, z)), frozenset())
    hw = joint.expression(("hpair", min(x, w2), max(x, w2)), frozenset())
    assert hz == hw and sp.simplify(cert.leaf_by_symbol[hz].expr - cert.t / 2) == 0
    cell = Cell(mpmath.mpf(0), mpmath.mpf(10) ** -30, True, False)
    with working_precision(cert.bits), mpmath.workprec(cert.bits):
        ix = IntervalView(cert.leaves, cell, False).h_pair_c(x, z)
        assert ix.positive() and ix.hi <= cell.hi / 2 * (1 + mpmath.mpf(10) ** -20)


@pytest.mark.parametrize("lo, hi", [("0.3", "0.31"), ("0.9", "0.95")])
def test_joint_enclosures_contain_the_closed_forms(cert, lo, hi):
    # every H(Vi,Vj,C) and MI(C;Vi|Vj) enclosure over a cell contains the closed-form values at
    # five points of it
    cert.joint()
    a, b = mpmath.mpf(lo), mpmath.mpf(hi)
    cell = Cell(a, b)
    with mpmath.workdps(40):
        points = [S.Point(S.closed_forms(), a + (b - a) * n / 4) for n in range(5)]
    with working_precision(cert.bits), mpmath.workprec(cert.bits):
        view = IntervalView(cert.leaves, cell, False)
        for i in range(S.N):
            for j in range(S.N):
                if i == j:
                    continue
                for got, mine in ((view.h_pair_c(i, j), [p.h_pair_c(i, j) for p in points]),
                                  (view.cmi_c(i, j), [p.cmi_c(i, j) for p in points])):
                    if got.infinite:
                        assert all(m.kind == got.kind for m in mine), (i, j)
                        continue
                    assert got.finite, (i, j, got)
                    for m in mine:
                        assert got.lo <= m.num() <= got.hi, (i, j, got, m)


def test_special_point_proof_refuses_a_discontinuous_leaf():
    # a two-point leaf whose exact value at k = 0 is moved by 1/1000: the value derived at
    # k = 0 is no longer the open form's limit, and the proof says which quantity
    c = Certifier(sweep_of(_spec("jmi", "unified", grid=4)))
    joint = c.joint()
    sym = c.symbol[("pair", 2, 3)]  # {Y^2, X-Y}: two-point, P = (1 + k) / (2 (2 + k))
    leaf = c.leaf_by_symbol[sym]
    honest = leaf.exact_at
    joint.check_point(sp.Integer(1))  # k = 1 is untouched and passes
    leaf.exact_at = lambda x: honest(x) + (sp.Rational(1, 1000) if x == 0 else 0)
    with pytest.raises(NoEnclosure, match=r"MI\(C;\{Y\^2,X-Y\}\) at 0: the value derived at "
                                          r"the point .* is not the limit"):
        joint.check_point(sp.Integer(0))


@pytest.fixture(scope="module")
def scenario_two_cmim():
    # CMIM near k = 0 in Scenario II: its objectives read the integrals over directions
    # (MI(C;{Y^2,X-Y}), MI(C;{X-Y,X^2})), the reflections' (2/pi) atan(k), and at step 5
    # Y^2 (min_s MI(C;Y^2|V_s) -> 0 as k -> 0) against Z (exactly 0): proved by
    # MI(C;V_i|V_j) >= 0 and Y^2's index before Z's
    return atlas(_spec("cmim", "original", lo="0", hi="1/10", grid=4, scenario="normal"),
                 certify=True)


def test_scenario_two_3d_row_certified_with_enclosed_integrals(scenario_two_cmim):
    cert = scenario_two_cmim.certificate
    assert cert["certified"] is True, cert.get("failures")
    # the integrals over directions are enclosures (theory/cone_enclosure.py), and so is
    # Scenario II's MI(Y^2,X-Y) (theory/special_integrals.py): nothing is assumed
    assert "assumptions" not in cert, cert["assumptions"]


def test_scenario_two_wrong_3d_ordering_is_refuted(scenario_two_cmim):
    res = scenario_two_cmim
    i = max(range(len(res.regions)), key=lambda n: res.regions[n].hi - res.regions[n].lo)
    order = list(res.regions[i].order)
    labels = sweep_of(res.spec).labels
    assert [labels[n] for n in order[4:6]] == ["Y^2", "Z"]
    order[4], order[5] = order[5], order[4]
    regions = list(res.regions)
    regions[i] = replace(regions[i], order=tuple(order))
    cert = _recertify(res, regions, res.breakpoints)
    assert cert["certified"] is False
    assert any("refuted" in f and "step 5" in f for f in cert["failures"]), cert["failures"]
