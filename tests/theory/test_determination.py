"""Structure of feature sets (fstheory.theory.determination): level-set partners, what a set of
features reveals, class-swapping maps and their hypotheses, two-point fibers and their swap
probability (checked against hand-derived closed forms and a seeded Monte Carlo), and witnesses
of class uncertainty (checked exactly)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from fstheory.theory import determination as det
from fstheory.theory.laws import Laplace, Normal, Uniform
from fstheory.theory.symbolic import mp_value

X, Y, Z = sp.symbols("X Y Z", real=True)
R = sp.Rational


# ----- level-set partners ------------------------------------------------------------------------


@pytest.mark.parametrize("expr, law, want", [
    (X**2, Normal(0, 1), {(1, 0), (-1, 0)}),
    ((X - 1)**2, Normal(0, 1), {(1, 0), (-1, 2)}),
    (X**2, Uniform(0, 1), {(1, 0)}),                 # the partner -x leaves the support
    (X**2, Uniform(R(-1, 2), 1), {(1, 0), (-1, 0)}),  # active on part of the support
    (sp.Abs(X - 2), Normal(0, 1), {(1, 0), (-1, 4)}),
    (sp.exp(X), Normal(0, 1), {(1, 0)}),
    (X**3, Normal(0, 1), {(1, 0)}),                  # the complex roots are discarded
    (X**4, Laplace(0, 1), {(1, 0), (-1, 0)}),
    (3 * X + 1, Uniform(-1, 1), {(1, 0)}),
])
def test_univariate_partners(expr, law, want):
    got = det.univariate_partners(expr, X, law)
    assert {(int(m), int(q)) for m, q in got} == want and got[0] == (1, 0)


@pytest.mark.parametrize("expr", [X**3 - X, sp.sin(X), sp.Abs(X) + X])
def test_partners_not_derived_are_refused(expr):
    """Level sets that are not affine maps (x^3 - x), not complete (sin) or not finite (|x| + x,
    constant for x < 0): no claim."""
    assert det.univariate_partners(expr, X, Normal(0, 1)) is None


# ----- what a set reveals ------------------------------------------------------------------------

NORMAL = {X: Normal(0, 1), Y: Normal(0, 1), Z: Normal(0, 1)}
UNIFORM = {X: Uniform(-1, 1), Y: Uniform(-1, 1), Z: Uniform(-1, 1)}


def test_determines():
    assert det.determines([X**2, (X - 1)**2], X, NORMAL)          # together they reveal x
    assert not det.determines([X**2], X, NORMAL)
    assert det.determines([X**2], sp.Abs(X), NORMAL)
    assert det.determines([X, X - Y], Y, NORMAL)                  # linear algebra
    assert det.determines([X + Y, X - Y], X, NORMAL)
    assert not det.determines([X + Y], X, NORMAL)
    assert det.determines([Y**2, X - Y, X**2], Y, NORMAL)         # branches inconsistent a.s.
    assert not det.determines([Y**2, X - Y], Y, NORMAL)
    assert det.determines([X * Y], sp.Integer(3), NORMAL)         # a constant is a function of anything
    assert not det.determines([X * Y], X, NORMAL)                 # products: not derived, no claim


def test_fiber_branches():
    f = det.fiber([Y**2, X - Y], NORMAL)
    assert len(f.branches) == 2 and f.free.cols == 0
    tau = f.branches[1]
    assert list(tau.T) == [1, -2, 0, -1] and list(tau.t) == [0, 0]  # (x, y) -> (x - 2y, -y)
    f = det.fiber([X + Y], NORMAL)
    assert len(f.branches) == 1 and f.free.cols == 1 and not f.trivial


def test_independent_features():
    event = det.ClassEvent(X + Y / 5, 0)
    exprs = [X, Z**2, Z + Y, sp.Integer(2)]
    assert det.independent_features(exprs, event, NORMAL) == frozenset({3})  # Z+Y links Z^2
    assert det.independent_features([Z, Z**2], event, NORMAL) == frozenset({0, 1})


# ----- class-swapping maps: hypotheses checked ---------------------------------------------------


def test_class_swap_needs_zero_threshold_and_symmetric_laws():
    assert det.class_swap([Y**2], det.ClassEvent(X + Y / 5, 0), NORMAL) is not None
    assert det.class_swap([], det.ClassEvent(X + Y / 5, 1), NORMAL) is None          # threshold 1
    assert det.class_swap([Y**2], det.ClassEvent(X + Y / 5, 1), NORMAL) is None
    skew = {X: Uniform(0, 3), Y: Uniform(-1, 1)}                                       # not symmetric about 0
    assert det.class_swap([Y**2], det.ClassEvent(X + Y, 0), skew) is None


def test_class_swap_with_shifts_and_permutations():
    """Reflections about the centres and exchanges of identically distributed variables keep
    the laws: P(C=1) = 1/2 for X + Y >= 1 on Unif(0, 1)^2 (tau = (1-X, 1-Y)) and for X >= Y."""
    unit = {X: Uniform(0, 1), Y: Uniform(0, 1)}
    tau = det.class_swap([], det.ClassEvent(X + Y, 1), unit)
    assert tau is not None and tau.describe() == "(X -> -X + 1, Y -> -Y + 1)"
    assert det.class_swap([X + Y], det.ClassEvent(X - Y, 0), unit).describe() == "(X -> Y, Y -> X)"
    assert det.class_swap([X], det.ClassEvent(X - Y, 0), unit) is None


def test_class_swap_refuses_a_constant_or_non_polynomial_class():
    assert det.class_swap([], det.ClassEvent(sp.Integer(0), 0), NORMAL) is None
    assert det.class_swap([], det.ClassEvent(sp.Abs(X), 1), NORMAL) is None


# ----- two-point fibers: P(C != C o tau) by two routes -------------------------------------------


def _hand(law_name: str, k):
    """P(|X| < k|Y|), X, Y i.i.d. and symmetric: by hand (|X|, |Y| i.i.d. on (0, w) for the
    uniform, half-normal, exponential)."""
    k = mpmath.mpf(k)
    return {"uniform": k / 2, "normal": 2 * mpmath.atan(k) / mpmath.pi, "laplace": k / (1 + k)}[law_name]


LAWS = {"uniform": Uniform(R(-1, 2), R(1, 2)), "normal": Normal(0, 2), "laplace": Laplace(0, R(1, 3))}


@pytest.mark.parametrize("law_name", list(LAWS))
def test_swap_probability_against_hand_closed_forms_and_monte_carlo(law_name):
    """{X, Y^2} with C = 1{X + kY >= 0}: the fiber is {(x, y), (x, -y)} and the classes differ
    iff |X| < k|Y|. Closed form vs the hand formula (25 digits) and vs 10^6 seeded samples
    (within 5 standard errors)."""
    law = LAWS[law_name]
    laws = {X: law, Y: law}
    k = R(3, 10)
    event = det.ClassEvent(X + k * Y, 0)
    tau = det.two_point([X, Y**2], event, laws)
    assert tau is not None and tau.describe() == "(Y -> -Y)"
    p = det.swap_probability(event, tau, laws)
    with mpmath.workdps(30):
        assert abs(mp_value(p) - _hand(law_name, k)) < mpmath.mpf(10) ** -25
    rng = np.random.default_rng(20240601)
    x, y = (law.sample(rng, 10**6) for _ in range(2))
    differ = np.mean(np.sign(x + 0.3 * y) != np.sign(x - 0.3 * y))
    se = np.sqrt(differ * (1 - differ) / 10**6)
    assert abs(differ - float(_hand(law_name, k))) < 5 * se


def test_two_point_needs_a_law_preserving_reflection():
    # (x, y) -> (x - 2y, -y) does not preserve the density: no two-point closed form
    assert det.two_point([Y**2, X - Y], det.ClassEvent(X + Y / 5, 0), NORMAL) is None
    skew = {X: Normal(0, 1), Y: Normal(1, 1)}          # Y^2 does not reveal y up to a reflection
    assert det.two_point([X, Y**2], det.ClassEvent(X + Y / 5, 0), skew) is None
    # reflection about a centre other than 0: (Y - 1)^2 with Y ~ N(1, 1)
    tau = det.two_point([X, (Y - 1)**2], det.ClassEvent(X + Y / 5, 0), skew)
    assert tau is not None and tau.describe() == "(Y -> -Y + 2)"


# ----- witnesses ---------------------------------------------------------------------------------


@pytest.mark.parametrize("exprs", [[Y**2, X - Y], [X**2, X - Y], [X], [X - Y], [X**2, Y**2]])
def test_witnesses_are_checked_exactly(exprs):
    event = det.ClassEvent(X + Y / 5, 0)
    w = det.uncertainty_witness(exprs, event, UNIFORM)
    assert w is not None
    a = dict(zip(w.coords, (sp.Rational(v.numerator, v.denominator) for v in w.first)))
    b = dict(zip(w.coords, (sp.Rational(v.numerator, v.denominator) for v in w.second)))
    for e in exprs:
        assert e.subs(a) == e.subs(b)                                   # same feature values
    assert (event.expr.subs(a) >= 0) != (event.expr.subs(b) >= 0)      # different classes
    assert all(-1 < v < 1 for v in (*a.values(), *b.values()))        # inside the support


def test_no_witness_when_the_class_is_determined():
    event = det.ClassEvent(X + Y / 5, 0)
    assert det.uncertainty_witness([X, X - Y], event, UNIFORM) is None


def test_swap_probability_with_a_symbolic_law_parameter_is_refused():
    # Uniform(-d, d) with d symbolic: the pieces of the integral cannot be ordered, so no value
    # (None, as for a law outside the known families) rather than a TypeError
    d = sp.Symbol("d", positive=True)
    laws = {X: Uniform(-d, d), Y: Uniform(-d, d)}
    event = det.ClassEvent(X + R(3, 10) * Y, 0)
    tau = det.two_point([X, Y**2], event, laws)
    assert tau is not None
    assert det.swap_probability(event, tau, laws) is None
