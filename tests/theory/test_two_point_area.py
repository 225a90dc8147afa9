"""The two-point disagreement probability as an exact function of a parameter
(fstheory.theory.two_point_fibre.uniform_disagreement_on), checked against:

* the numerical polygon code (uniform_disagreement) at random rational points of every piece,
  exactly, on Scenario I's affine pairs, asymmetric boxes, a moving threshold, a parameter in the
  box ends and a class whose line crosses polygon vertices at irrational parameters;
* closed forms derived by hand (Scenario I's four pairs over (0, 1); the splits where the class
  line crosses a vertex);
* determination.swap_probability for the reflections of reflection_partner.
"""

from __future__ import annotations

import functools

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.scenarios.declaration import BoundScenario
from fstheory.engine.derive_joint import JointStructure
from fstheory.scenarios.registry import get_scenario
from fstheory.theory import determination as det
from fstheory.theory.laws import Normal, Uniform
from fstheory.theory.two_point_fibre import (AffinePartner, affine_partner, reflection_partner,
                                             uniform_disagreement, uniform_disagreement_on)

X, Y = sp.symbols("X Y", real=True)
k = sp.Symbol("k", positive=True)
d = sp.Symbol("d", positive=True)
R = sp.Rational
UNIT = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
ASYM = {X: Uniform(-1, 2), Y: Uniform(R(-1, 2), 1)}
# Scenario I's features, by index: X, 3X+1, Y^2, X-Y, Z, Z^2, Y, X^2, W+2, Z+W
PAIRS = {"Y^2,X-Y": (2, 3), "X-Y,X^2": (3, 7), "X,Y^2": (0, 2), "Y,X^2": (6, 7)}


@functools.cache
def _scenario_one(**symbolic):
    sc = get_scenario("uniform")
    ref = sc.bind(k=R(1, 3))
    return JointStructure(BoundScenario(sc, {**ref.params, **symbolic}))


def _pair(structure, name):
    i, j = PAIRS[name]
    return [structure.exprs[i], structure.exprs[j]]


def _at(tau, event, laws, sym, x):
    """uniform_disagreement with the parameter set to x."""
    sub = {sym: x}
    laws_x = {b: Uniform(*(sp.sympify(e).subs(sub) for e in law.support()))
              for b, law in laws.items()}
    event_x = det.ClassEvent(event.expr.subs(sub), event.threshold.subs(sub))
    tau_x = AffinePartner(tau.coords, tau.T.subs(sub), tau.t.subs(sub))
    return uniform_disagreement(tau_x, event_x, laws_x)


def _case(name):
    """(tau, event, laws, sym, lo, hi) of a named case."""
    if name.startswith("I:"):
        s = _scenario_one(k=k)
        exprs = _pair(s, name[2:])
        return affine_partner(exprs, s.event, s.laws), s.event, s.laws, k, R(0), R(1)
    if name == "I, delta":  # P does not depend on the scale: (1 + k) / (2 (2 + k)) at k = 1/3
        s = _scenario_one(delta=d)
        exprs = _pair(s, "Y^2,X-Y")
        return affine_partner(exprs, s.event, s.laws), s.event, s.laws, d, R(1, 10), R(5)
    exprs = [Y**2, X - Y] if name.endswith("a") else [X - Y, X**2]
    if name.startswith("asym"):
        event, laws, sym, lo, hi = det.ClassEvent(X + k * Y, R(1, 4)), ASYM, k, R(0), R(3)
    elif name.startswith("threshold"):
        event, laws, sym, lo, hi = det.ClassEvent(X + Y / 3, k), ASYM, k, R(-2), R(3)
    elif name.startswith("box"):
        laws = {X: Uniform(-1, d), Y: Uniform(-d / 2, 1)}
        event, sym, lo, hi = det.ClassEvent(X + Y / 3, R(1, 4)), d, R(1, 2), R(3)
    else:  # "vertex": k X + k^2 Y = 1/5 crosses polygon vertices at irrational k
        event, laws, sym, lo, hi = det.ClassEvent(k * X + k**2 * Y, R(1, 5)), UNIT, k, R(1, 10), R(3)
    return affine_partner(exprs, event, laws), event, laws, sym, lo, hi


CASES = ["I:Y^2,X-Y", "I:X-Y,X^2", "I, delta", "asym a", "asym b", "threshold a", "threshold b",
         "box a", "box b", "vertex a", "vertex b"]


@functools.cache
def _pieces(name):
    tau, event, laws, sym, lo, hi = _case(name)
    return uniform_disagreement_on(tau, event, laws, sym, lo, hi)


def _assert_cover(pieces, lo, hi):
    assert pieces[0][0] == lo and pieces[-1][1] == hi
    for (_a, b, _), (a2, _, _) in zip(pieces, pieces[1:]):
        assert b == a2
    assert all(bool(a < b) for a, b, _ in pieces)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CASES), st.fractions(min_value=0, max_value=1, max_denominator=10**6))
def test_pieces_agree_with_the_numeric_code_exactly(name, u):
    """At a rational x of [lo, hi] (ends and split points included, where continuity is
    claimed), the piece containing x evaluated at x is the numeric function's Rational."""
    tau, event, laws, sym, lo, hi = _case(name)
    pieces = _pieces(name)
    _assert_cover(pieces, lo, hi)
    x = lo + R(u.numerator, u.denominator) * (hi - lo)
    expected = _at(tau, event, laws, sym, x)
    assert expected.is_Rational
    hits = [p for a, b, p in pieces if bool(a <= x) and bool(x <= b)]
    assert hits
    for p in hits:
        assert p.subs(sym, x) == expected, (name, x)


@pytest.mark.parametrize("name", CASES)
def test_every_piece_end_agrees_with_the_numeric_code(name):
    """Both pieces meeting at a rational split point take the numeric value there."""
    tau, event, laws, sym, lo, hi = _case(name)
    for a, b, p in _pieces(name):
        for x in (a, b):
            if x.is_Rational:
                assert p.subs(sym, x) == _at(tau, event, laws, sym, x), (name, x)


@pytest.mark.parametrize("name, expected", [
    ("Y^2,X-Y", (1 + k) / (2 * (2 + k))),
    ("X-Y,X^2", (k + 1) / (2 * (2 * k + 1))),
    ("X,Y^2", k / 2),       # (x, -y): the classes differ iff |X| < k |Y|
    ("Y,X^2", 1 - k / 2),   # (-x, y): iff |X| > k |Y|
])
def test_scenario_one_closed_forms_over_the_unit_interval(name, expected):
    """Scenario I (delta = 1/2), k symbolic: one piece over (0, 1) equal to the form derived by
    hand (MI(C; pair) = ln 2 (1 - P)); for the reflections P(|X| < k|Y|) = int_0^1 k v dv."""
    s = _scenario_one(k=k)
    exprs = _pair(s, name)
    tau = affine_partner(exprs, s.event, s.laws)
    assert tau is not None
    (piece,) = uniform_disagreement_on(tau, s.event, s.laws, k, 0, 1)
    assert piece[:2] == (0, 1)
    assert sp.cancel(piece[2] - expected) == 0


def test_scale_does_not_matter():
    """Scenario I with delta symbolic over [1/10, 5]: one constant piece, 2/7 at k = 1/3."""
    (piece,) = _pieces("I, delta")
    assert piece == (R(1, 10), R(5), R(2, 7))


def test_split_where_the_class_line_reaches_the_box_corners():
    """(x, y) -> (x, -y) on the unit box, C = 1{X + kY >= 0}, k in (0, 3): the classes differ iff
    |X| < k|Y|, of probability k/2 for k <= 1 and 1 - 1/(2k) for k >= 1 (the line reaches the
    corners at k = 1)."""
    event = det.ClassEvent(X + k * Y, 0)
    tau = affine_partner([X, Y**2], event, UNIT)
    pieces = uniform_disagreement_on(tau, event, UNIT, k, 0, 3)
    assert [(a, b) for a, b, _ in pieces] == [(0, 1), (1, 3)]
    assert sp.cancel(pieces[0][2] - k / 2) == 0
    assert sp.cancel(pieces[1][2] - (1 - 1 / (2 * k))) == 0
    for x, (_, _, p) in [(R(99, 100), pieces[0]), (R(1), pieces[0]), (R(1), pieces[1]),
                         (R(101, 100), pieces[1])]:
        assert p.subs(k, x) == _at(tau, event, UNIT, k, x)


def test_split_at_an_irrational_root():
    """tau (x, y) -> (x - 2y, -y) on the unit box keeps the parallelogram with vertices (1, 0),
    (1, 1), (-1, 0), (-1, -1); C = 1{kX + k^2 Y >= 1/5}. Below k + k^2 = 1/5 the class is 0 on
    the whole box (P = 0); the line passes the vertex (1, 1) at the root (3 sqrt 5 - 5)/10 of
    5k^2 + 5k - 1, and the partner's line k(x - 2y) - k^2 y = 1/5 the vertex (1, 0) at k = 1/5."""
    pieces = _pieces("vertex a")
    root = sp.CRootOf(5 * k**2 + 5 * k - 1, 1)
    assert [(a, b) for a, b, _ in pieces] == [(R(1, 10), root), (root, R(1, 5)), (R(1, 5), 3)]
    assert abs(root.evalf(60) - ((3 * sp.sqrt(5) - 5) / 10).evalf(60)) < 1e-55
    assert pieces[0][2] == 0
    below, above = R(17, 100), R(171, 1000)
    assert below < root < above
    tau, event, laws, sym, _, _ = _case("vertex a")
    assert _at(tau, event, laws, k, below) == 0
    assert pieces[1][2].subs(k, above) == _at(tau, event, laws, k, above) > 0


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["X,Y^2", "Y,X^2"]),
       st.fractions(min_value=R(1, 1000), max_value=1, max_denominator=1000))
def test_reflection_partner_matches_swap_probability(name, kf):
    """At rational k in Scenario I: the polygon code on the reflection of determination.two_point
    equals determination.swap_probability exactly."""
    kx = R(kf.numerator, kf.denominator)
    sc = get_scenario("uniform")
    s = JointStructure(sc.bind(k=kx))
    exprs = _pair(s, name)
    reflection = det.two_point(exprs, s.event, s.laws)
    tau = reflection_partner(reflection)
    assert tau is not None and (tau.T * tau.T) == sp.eye(2)
    swap = det.swap_probability(s.event, reflection, s.laws)
    assert sp.simplify(uniform_disagreement(tau, s.event, s.laws) - swap) == 0


def test_reflection_partner_over_an_interval():
    """The reflection of two_point with k symbolic gives the closed forms k/2 and 1 - k/2."""
    s = _scenario_one(k=k)
    for name, expected in (("X,Y^2", k / 2), ("Y,X^2", 1 - k / 2)):
        tau = reflection_partner(det.two_point(_pair(s, name), s.event, s.laws))
        (piece,) = uniform_disagreement_on(tau, s.event, s.laws, k, 0, 1)
        assert sp.cancel(piece[2] - expected) == 0


def test_reflection_partner_refuses_other_maps():
    Z = sp.Symbol("Z", real=True)
    three = det.SignedMap(((X, -1, X, 0), (Y, -1, Y, 0), (Z, 1, Z, 0)))
    one = det.SignedMap(((X, -1, X, 0),))
    swap = det.SignedMap(((X, 1, Y, 0), (Y, 1, X, 0)))
    assert [reflection_partner(m) for m in (three, one, swap)] == [None, None, None]
    shifted = reflection_partner(det.SignedMap(((X, -1, X, 3), (Y, 1, Y, 0))))
    assert (shifted.T, shifted.t) == (sp.ImmutableMatrix([[-1, 0], [0, 1]]),
                                      sp.ImmutableMatrix([3, 0]))


FLIP = AffinePartner((X, Y), sp.ImmutableMatrix([[1, -2], [0, -1]]), sp.ImmutableMatrix([0, 0]))


@pytest.mark.parametrize("laws, event, lo, hi", [
    ({X: Normal(0, 1), Y: Uniform(-1, 1)}, det.ClassEvent(X + k * Y), 0, 1),      # not uniform
    (UNIT, det.ClassEvent(X + sp.sqrt(k) * Y), 0, 1),                            # not rational
    (UNIT, det.ClassEvent(X + sp.exp(k) * Y), 0, 1),
    ({X: Uniform(-1, sp.sqrt(k)), Y: Uniform(-1, 1)}, det.ClassEvent(X + Y), 1, 2),
    (UNIT, det.ClassEvent(X + sp.sqrt(2) * k * Y), 0, 1),                        # not over Q
    ({X: Uniform(-1, k), Y: Uniform(-1, 1)}, det.ClassEvent(X + Y), -2, 0),      # empty box
    ({X: Uniform(-1, k), Y: Uniform(-1, 1)}, det.ClassEvent(X + Y), -1, 0),      # ... at an end
    ({X: Uniform(-1, 1 / k), Y: Uniform(-1, 1)}, det.ClassEvent(X + Y), -1, 1),  # a pole
    (UNIT, det.ClassEvent(k * X + k * Y, R(1, 2)), -1, 1),                       # no line at 0
])
def test_refusals(laws, event, lo, hi):
    assert uniform_disagreement_on(FLIP, event, laws, k, lo, hi) is None


def test_refusals_accept_the_same_inputs_where_the_hypotheses_hold():
    """The refused inputs above, on an interval where they are fine, give a value."""
    x_k = {X: Uniform(-1, k), Y: Uniform(-1, 1)}
    assert uniform_disagreement_on(FLIP, det.ClassEvent(X + Y), x_k, k, R(-1, 2), 0)
    assert uniform_disagreement_on(FLIP, det.ClassEvent(k * X + k * Y, R(1, 2)), UNIT, k, R(1, 2), 1)


def test_refuses_a_map_that_is_not_an_involution_and_an_empty_interval():
    stretch = AffinePartner((X, Y), sp.ImmutableMatrix([[2, 0], [0, 1]]), sp.ImmutableMatrix([0, 0]))
    assert uniform_disagreement_on(stretch, det.ClassEvent(X + k * Y), UNIT, k, 0, 1) is None
    for lo, hi in ((1, 1), (0, 0.5)):
        with pytest.raises(ValueError, match="rationals lo < hi"):
            uniform_disagreement_on(FLIP, det.ClassEvent(X + k * Y), UNIT, k, lo, hi)
