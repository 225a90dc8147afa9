"""Orderings at parameters the paper never printed, derived the same way, checked against
properties proved in each test's docstring.

Feature indices (0-based): 0 X, 1 aX+b, 2 Y^2, 3 X-Y, 4 Z, 5 Z^2, 6 Y, 7 X^2, 8 W+d, 9 Z+W.
Scenario I values come from the closed forms in tests/exact_values_fixture.py (fast, so hypothesis
can range over k, delta, a, b, d); one Scenario I and one Scenario II point also come from
fstheory.engine.evaluate.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

import exact_values_fixture as fixture
from fstheory.orderings.explain import explain
from fstheory.orderings.greedy import select
import pytest

# per-test settings (a loaded profile would change every hypothesis test in the session)
SETTINGS = settings(max_examples=40, deadline=None)

X, AXB, Y2, XMY, Z, Z2, Y, X2, WD, ZW = range(10)
UNIVERSAL = [X, Y, Z, WD, XMY, ZW, AXB, Y2, Z2, X2]

ks = st.integers(1, 19).map(lambda n: str(Fraction(n, 20)))
deltas = st.sampled_from(["0.05", "0.1", "0.25", "0.3", "0.45", "0.5", "0.55", "0.75", "1", "1.5", "2", "3"])
slopes = st.sampled_from(["-3", "-1.5", "-1", "0.25", "0.5", "1", "2", "3", "5"])
shifts = st.sampled_from(["-1", "0", "1", "2", "0.5"])


@st.composite
def uniform_points(draw, delta=None):
    return fixture.scenario_i(k=draw(ks), delta=draw(deltas) if delta is None else delta,
                              a=draw(slopes), b=draw(shifts), d=draw(shifts))


@pytest.mark.slow
@SETTINGS
@given(uniform_points(), st.sampled_from(["0.1", "0.4", "0.5", "0.7", "1"]))
def test_mi_only_methods_never_stop(v, beta):
    """MIFS (beta > 0), mRMR, maxMIFS: MI(C,Vi) is finite and the redundancy is beta times a
    sum, a mean or a max of values in [0, +inf] -- no division, no 0*inf (beta > 0), no
    +inf - inf inside the term; so every objective is determinate and all ten are ordered."""
    for method, b in (("mifs", beta), ("mrmr", None), ("maxmifs", None)):
        r = select(v, method, b)
        assert r.complete and len(r.order) == 10
        assert all(c.determinate for s in r.steps for c in s.candidates)


@SETTINGS
@given(uniform_points(), st.sampled_from(["0.5", "0.75", "1"]))
def test_universal_order_in_scenario_i(v, beta):
    """For every k in (0,1), delta, a, b, d, Scenario I's mRMR, maxMIFS and MIFS (beta >= 1/2)
    order X, Y, Z, W+d, X-Y, Z+W, aX+b, Y^2, Z^2, X^2 (the paper's order at k = 0.2, 0.8).
    Proof: the MI values do not depend on delta, a, b, d; MI(C,X-Y) <= 1/4 (its sup, k -> 0)
    and MI(X,X-Y) = MI(Y,X-Y) = MI(Z,Z+W) = MI(W+d,Z+W) = 1/2. Step 1: X ties aX+b, lower index.
    Step 2: X-Y scores at most 1/4 - beta/2 <= 0 < MI(C,Y). Step 3: X-Y <= 1/4 - 1/2 < 0 = Z,
    which precedes the other zeros (Z^2, W+d, Z+W) by index. Step 4: W+d = 0 > Z+W, X-Y; Z^2 is
    -inf. Step 5: X-Y and Z+W carry the same redundancy and MI(C,X-Y) > 0. Then Z+W (finite), then
    the four -inf candidates in index order."""
    for method, b in (("mifs", beta), ("mrmr", None), ("maxmifs", None)):
        assert select(v, method, b).order == UNIVERSAL


@SETTINGS
@given(uniform_points())
def test_mifs_beta_zero_explicit(v):
    """MIFS at beta = 0 as written: 0 * sum MI(Vi,Vs) is 0*inf when Vi is a function of a selected
    feature, else 0; so the order is by MI(C,.) among features with no +inf link to a selected one:
    X, then X-Y and Y by MI(C,.), then Z, W+d, Z+W (zeros, index order); aX+b, X^2 (linked to X),
    Y^2 (to Y), Z^2 (to Z) are left, all 0*inf."""
    r = select(v, "mifs", 0)
    pair = sorted([XMY, Y], key=lambda i: (-v.mi_c(i).value, i))
    assert r.order == [X] + pair + [Z, WD, ZW]
    assert r.stop.forms == {f"V{i + 1}": "0*inf" for i in (AXB, Y2, Z2, X2)}


def _h(v, i):
    return v.h(i).value


@SETTINGS
@given(uniform_points())
def test_nmifs_second_feature_follows_the_sign_of_the_entropies(v):
    """NMIFS after X: NI(i,X) = MI(i,X)/min{h(i), h(X)}. For aX+b and X^2, MI(i,X) = +inf, so the
    objective is +inf exactly when that minimum is negative (NI = -inf: redundancy rewarded) and
    -inf otherwise. With h(X) = ln 2delta, h(aX+b) = ln 2|a|delta, h(X^2) = ln 2delta^2 - 1: the
    second feature is aX+b if min{h(aX+b),h(X)} < 0, else X^2 if min{h(X^2),h(X)} < 0 (the
    paper's case delta = 1/2), else no candidate is +inf."""
    step2 = select(v, "nmifs").steps[1]
    with mpmath.workdps(30):
        a_neg = min(_h(v, AXB), _h(v, X)) < 0
        sq_neg = min(_h(v, X2), _h(v, X)) < 0
    if a_neg:
        assert step2.selected == AXB and step2.winner.value.is_pos_inf
    elif sq_neg:
        assert step2.selected == X2 and step2.winner.value.is_pos_inf
    else:
        assert not step2.winner.value.is_pos_inf


@pytest.mark.slow
@SETTINGS
@given(uniform_points(delta="0.3"), st.sampled_from(["0.4", "1"]))
def test_mifs_u_negative_entropy_rewards_the_copy_of_x(v, beta):
    """delta < 1/2: h(X) < 0, so beta*MI(C,X)/h(X) < 0 and for aX+b (and X^2), with MI = +inf,
    the redundancy term is -inf: the objective is +inf and aX+b is selected second (mMIFS-U
    alike) -- the 'redundancy weighted positively' the paper warns of (Section 4)."""
    for method, b in (("mifs-u", beta), ("mmifs-u", None)):
        r = select(v, method, b)
        s2 = r.steps[1]
        assert s2.selected == AXB and s2.winner.value.is_pos_inf and s2.tied == (X2,)
    text = explain(select(v, "mifs-u", beta))
    assert f"wins with +inf from beta*MI(C,X)/h(X)*MI({v.labels[AXB]},X) = -inf" in text
    assert "h(X) = -0.510826 (negative)" in text


@SETTINGS
@given(uniform_points(delta="0.5"), st.sampled_from(["0.4", "0.7", "1"]))
def test_mifs_u_null_entropy_at_any_k(v, beta):
    """delta = 1/2 (h(X) = 0) at any k, a, b, d: beta*MI(C,X)/h(X) = +inf, every candidate
    independent of X is 0*inf, aX+b then X-Y are taken with -inf (list order). X^2 follows when
    h(aX+b) = ln|a| >= 0; when |a| < 1, h(aX+b) < 0 turns X^2's second term into -inf and
    X^2 is +inf - inf: the selection stops after 3 (the paper's a = 3 gives 4)."""
    r = select(v, "mifs-u", beta)
    assert r.order[:3] == [X, AXB, XMY]
    assert all(s.winner.value.is_neg_inf for s in r.steps[1:])
    with mpmath.workdps(30):
        a_small = _h(v, AXB) < 0
    if a_small:
        assert r.stop.after == 3 and r.stop.forms[f"V{X2 + 1}"] == "inf-inf"
    else:
        assert r.order == [X, AXB, XMY, X2] and r.stop.after == 4
    assert {c.index for c in r.stop.candidates if c.form == "0*inf"} == {Y2, Z, Z2, Y, WD, ZW}


@SETTINGS
@given(uniform_points(), st.sampled_from(["0.4", "1"]))
def test_mifs_u_positive_entropy_of_x_no_indeterminate_at_step_2(v, beta):
    """h(X) > 0 (delta > 1/2): beta*MI(C,X)/h(X) is finite and positive; every step-2 objective
    is determinate, aX+b and X^2 are -inf, and the second feature is Y or X-Y (the only other
    features with MI(C,.) > 0)."""
    with mpmath.workdps(30):
        if not _h(v, X) > 0:
            return
    s2 = select(v, "mifs-u", beta).steps[1]
    assert all(c.determinate for c in s2.candidates)
    assert s2.selected in (XMY, Y)
    assert {c.index for c in s2.candidates if c.value.is_neg_inf} == {AXB, X2}


# ----- two points through the engine (fstheory.engine.evaluate) -----------------------------------------


def test_uniform_k05_delta03_through_the_engine():
    v = fixture.evaluated("uniform", k="0.5", delta="0.3")
    with mpmath.workdps(30):
        assert v.h(X).value < 0 and v.h(XMY).value < 0  # ln 0.6 and 1/2 + ln 0.6
    assert select(v, "mrmr").order == UNIVERSAL
    for method, b in (("mifs-u", "0.7"), ("mmifs-u", None), ("nmifs", None)):
        s2 = select(v, method, b).steps[1]
        assert s2.selected == AXB and s2.winner.value.is_pos_inf


@pytest.mark.slow
def test_normal_small_sigma_through_the_engine():
    """sigma^2 < 1/(2 pi e) (sigma = 0.2): h(X) < 0 in Scenario II too (Section 7). MI values do
    not depend on sigma, so mRMR/maxMIFS/MIFS keep the universal order; MIFS-U, mMIFS-U and NMIFS
    now take 3X+1 second with +inf (coefficient MI(C,X)/h(X) < 0; for NMIFS
    min{h(3X+1), h(X)} = h(X) < 0)."""
    v = fixture.evaluated("normal", k="0.5", sigma="0.2")
    with mpmath.workdps(30):
        assert v.h(X).value < 0 < v.h(AXB).value
        want = mpmath.log(2 * mpmath.pi * mpmath.e * mpmath.mpf("0.04")) / 2
        assert abs(v.h(X).value - want) < 1e-25
    for method, b in (("mifs", "0.4"), ("mifs", 1), ("mrmr", None), ("maxmifs", None)):
        assert select(v, method, b).order == UNIVERSAL
    for method, b in (("mifs-u", "0.4"), ("mifs-u", 1), ("mmifs-u", None), ("nmifs", None)):
        s2 = select(v, method, b).steps[1]
        assert s2.selected == AXB and s2.winner.value.is_pos_inf
