"""The enclosures over an interval of the parameter of H(C | V_S) as an integral over directions
(fstheory.theory.cone_enclosure), and the closed-form reflection probabilities of normal and
Laplace laws (two_point_fibre.radial_reflection_probability), checked by second routes:

* point values against the generic nested quadrature stored in tests/data/two_point_reference.json
  (scripts/make_two_point_reference.py, 32 digits) and against cone_entropy (mpmath's quadrature
  of the same integrand, 40 digits);
* cell enclosures containing the point values at points inside the cell (hypothesis), including
  cells over which the class boundaries turn through the kinks of the weight;
* the reflection probabilities against the engine's own integral at a point (the law of
  |A| < |U|, two_point_fibre's swap_probability) and against exact rationals (Laplace);
* the ingredients of the weight's enclosures: the polynomial bracket of g_m near c = 0 and the
  bound of g_m on complex sectors against the closed form, the integrals' radii and values
  against mpmath's quadrature next to the kinks, and maps that preserve the density.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from flint import acb, arb
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.engine.derive_joint import joint_structure
from fstheory.scenarios.registry import get_scenario
from fstheory.theory import two_point_fibre as tpf
from fstheory.theory.cone_enclosure import DirectionWeight, NoConeEnclosure, cone_entropy_ball
from fstheory.theory.determination import ClassEvent, SignedMap
from fstheory.theory.laws import Laplace, Normal
from fstheory.theory.quadrature import flint_precision, from_mpf, to_mpf

pytestmark = pytest.mark.slow

X, Y = sp.symbols("X Y", real=True)

K = sp.Symbol("k")
BITS = 122
REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "two_point_reference.json").read_text())

#: The two maps of the paper's scenarios: {Y^2, X-Y} and {X-Y, X^2}.
MAPS = {(2, 3): sp.ImmutableMatrix([[1, -2], [0, -1]]), (3, 7): sp.ImmutableMatrix([[-1, 0], [-2, 1]])}
_WEIGHTS: dict = {}


def _weight(kind, pair):
    if (kind, pair) not in _WEIGHTS:
        with flint_precision(BITS):
            _WEIGHTS[(kind, pair)] = DirectionWeight(kind, MAPS[pair])
    return _WEIGHTS[(kind, pair)]


def _h(kind, pair, t0, t1=None):
    with flint_precision(BITS):
        t1 = t0 if t1 is None else t1
        return cone_entropy_ball(_weight(kind, pair), (sp.Integer(1), K), K, t0, t1)


def _ball(q) -> arb:
    q = sp.Rational(q)
    return arb(int(q.p)) / int(q.q)


@pytest.mark.parametrize("row", REFERENCE["values"], ids=lambda r: f"{r['scenario']}-{r['k']}-{r['pair']}")
def test_point_values_against_the_generic_nested_quadrature(row):
    """ln 2 - H(C | V_S) at a point against the generic route at 32 digits: the maps are those
    the engine derives for the pair, and the ball is within 1e-26 of the reference."""
    bound = get_scenario(row["scenario"]).bind(k=row["k"])
    d = joint_structure(bound).mi_class_set(tuple(row["pair"]))
    assert d.kind == "two-point-cone" and d.partner.T == MAPS[tuple(row["pair"])]
    kind = "normal" if row["scenario"] == "normal" else "laplace"
    with flint_precision(BITS):
        mi = arb.const_log2() - _h(kind, tuple(row["pair"]), _ball(row["k"]))
        assert mi.rad() < 1e-28
        assert abs(mi - arb(row["value"])) < 1e-26, (mi, row["value"])


@pytest.mark.parametrize("kind,law", [("normal", Normal(0, 1)), ("laplace", Laplace(0, 1))])
@pytest.mark.parametrize("pair", sorted(MAPS))
@pytest.mark.parametrize("k", ["1/1000", "3/10", "29/31"])
def test_point_values_against_mpmath_quadrature(kind, law, pair, k):
    k = sp.Rational(k)
    tau = tpf.AffinePartner((X, Y), MAPS[pair], sp.ImmutableMatrix([0, 0]))
    with mpmath.workdps(40):
        ref = tpf.cone_entropy(tau, ClassEvent(X + k * Y, 0), {X: law, Y: law}).value
    with flint_precision(BITS):
        h = _h(kind, pair, _ball(k))
        assert h.rad() < 1e-30 and abs(h - arb(mpmath.nstr(ref, 40))) < 1e-30, (h, ref)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["normal", "laplace"]), st.sampled_from(sorted(MAPS)),
       st.fractions(min_value=0, max_value=1, max_denominator=64),
       st.fractions(min_value=0, max_value=1, max_denominator=64),
       st.fractions(min_value=0, max_value=1, max_denominator=16))
def test_cell_enclosure_contains_every_point_value(kind, pair, a, b, u):
    lo, hi = min(a, b), max(a, b)
    x = lo + (hi - lo) * u
    cell = _h(kind, pair, _ball(lo), _ball(hi))
    point = _h(kind, pair, _ball(x))
    assert cell.lower() <= point.lower() and point.upper() <= cell.upper(), (lo, hi, x)


def test_wide_cell_encloses_the_range_and_narrow_cells_are_tight():
    # over all of [0, 1] the boundaries sweep a quarter turn; nine points inside are enclosed
    cell = _h("normal", (2, 3), arb(0), arb(1))
    for j in range(9):
        p = _h("normal", (2, 3), arb(j) / 8)
        assert cell.lower() <= p.lower() and p.upper() <= cell.upper()
    # a cell of width 2^-20 is tight around its points (width of the order of the cell's)
    narrow = _h("normal", (2, 3), arb(1) / 3, arb(1) / 3 + arb(2) ** -20)
    assert narrow.rad() < 2.0**-20


def test_refusals():
    with pytest.raises(NoConeEnclosure, match="not affine"):
        _h_form = (sp.Integer(1), K**2)
        with flint_precision(BITS):
            cone_entropy_ball(_weight("normal", (2, 3)), _h_form, K, arb(0), arb(1))
    with pytest.raises(NoConeEnclosure, match="degenerate"):
        # a(k) = (1 - 2k, 0) vanishes at k = 1/2 inside the cell
        with flint_precision(BITS):
            cone_entropy_ball(_weight("normal", (2, 3)), (1 - 2 * K, sp.Integer(0)), K, arb(0),
                              arb(1))
    with pytest.raises(NoConeEnclosure, match="laws"):
        DirectionWeight("uniform", MAPS[(2, 3)])


# ----- reflections of normal and Laplace laws: closed forms ----------------------------------------

FLIPS = {"{X,Y^2}": ((X, 1, X, 0), (Y, -1, Y, 0)), "{Y,X^2}": ((X, -1, X, 0), (Y, 1, Y, 0))}


@pytest.mark.parametrize("name", sorted(FLIPS))
@pytest.mark.parametrize("k", ["3/10", "7/9"])
@pytest.mark.parametrize("scale", ["1", "5/2"])
def test_normal_reflection_probability_against_the_engines_integral(name, k, scale):
    """(2/pi) atan(k) (or 1 minus it) against swap_probability's integral
    int 2 f_U (F_A(u) - F_A(-u)) du at the point, to 30 digits."""
    from fstheory.theory.determination import swap_probability

    k, s = sp.Rational(k), sp.Rational(scale)
    laws = {X: Normal(0, s), Y: Normal(0, s)}
    event = ClassEvent(X + k * Y, 0)
    flip = SignedMap(FLIPS[name])
    closed = tpf.radial_reflection_probability(tpf.reflection_partner(flip), event, laws)
    assert closed.has(sp.atan)
    integral = swap_probability(event, flip, laws)
    (u, lo, hi), = integral.limits
    f = sp.lambdify(u, integral.function, "mpmath")
    with mpmath.workdps(40):
        value = mpmath.quad(f, [lo, 1, 4, mpmath.inf])
        assert abs(sp.N(closed, 40) - value) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("name,expected", [("{X,Y^2}", "k/(k+1)"), ("{Y,X^2}", "1/(k+1)")])
def test_laplace_reflection_probability_is_the_engines_rational(name, expected):
    flip = SignedMap(FLIPS[name])
    laws = {X: Laplace(0, 3), Y: Laplace(0, 3)}
    for k in (sp.Rational(1, 3), sp.Rational(5, 4)):
        event = ClassEvent(X + k * Y, 0)
        p = tpf.radial_reflection_probability(tpf.reflection_partner(flip), event, laws)
        from fstheory.theory.determination import swap_probability

        assert sp.simplify(p - swap_probability(event, flip, laws)) == 0
        assert sp.simplify(p - sp.sympify(expected).subs("k", k)) == 0


def test_reflection_probability_hypotheses():
    laws = {X: Normal(0, 1), Y: Normal(1, 1)}  # not centred
    flip = tpf.reflection_partner(SignedMap(FLIPS["{X,Y^2}"]))
    assert tpf.radial_reflection_probability(flip, ClassEvent(X + Y, 0), laws) is None
    laws = {X: Normal(0, 1), Y: Normal(0, 1)}
    assert tpf.radial_reflection_probability(flip, ClassEvent(X + Y, 1), laws) is None


@pytest.mark.parametrize("kind", ["normal", "laplace"])
@pytest.mark.parametrize("pair", sorted(MAPS))
@pytest.mark.parametrize("x", ["1/20", "3/10", "9/10"])
def test_derivative_enclosure_contains_the_difference_quotients(kind, pair, x):
    """dH/dk over [x, x + 1/100] (boundaries' turning rates times the weight at the swept arcs)
    against (H(y + h) - H(y)) / h at three points y of the cell, h = 1e-15: the quotient is
    within h * max|H''| of a derivative value, far below the enclosure's width."""
    from fstheory.theory.cone_enclosure import cone_entropy_derivative_ball

    with flint_precision(BITS):
        x = _ball(x)
        d = cone_entropy_derivative_ball(_weight(kind, pair), (sp.Integer(1), K), K, x,
                                         x + arb(1) / 100)
        assert d is not None and d.rad() < 0.06
        h = arb(10) ** -15
        for j in (0, 1, 2):
            y = x + arb(j) / 200
            q = (_h(kind, pair, y + h) - _h(kind, pair, y)) / h
            assert q.rad() < 1e-12 and d.lower() - 1e-10 < q.mid() < d.upper() + 1e-10


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["normal", "laplace"]), st.sampled_from(sorted(MAPS)),
       st.fractions(min_value=0, max_value=6, max_denominator=100),
       st.fractions(min_value=0, max_value=1, max_denominator=100))
def test_weight_over_a_ball_contains_its_point_values(kind, pair, theta, u):
    """w over a ball of directions (g_m decreasing in |c|) contains w at points of the ball."""
    w = _weight(kind, pair)
    with flint_precision(BITS):
        lo = _ball(theta)
        hi = lo + arb(1) / 20
        ball = w.w_ball(lo.union(hi))
        p = w._integrand(lo + (hi - lo) * _ball(u))
        assert ball.lower() <= p.lower() and p.upper() <= ball.upper()


# ----- the weight's integrals are enclosures: their ingredients, by second routes --------------


@pytest.mark.parametrize("m", [0, 1])
@pytest.mark.parametrize("c", ["1/1000", "1/50", "3/20", "1/2", "3/2"])
def test_polynomial_bracket_of_g_near_zero(m, c):
    """m! ln 2 - (m+2)! c^2/8 + (m+4)! c^4/64 - [0, (m+6)! c^6/576] contains g_m(c) (from
    sech^2 y >= 1 - y^2 and <= 1 - y^2 + 2 y^4/3), against the closed form in eta_s(1/c);
    the bracket is not loose: its lower end is within its width of g_m."""
    from fstheory.theory.cone_enclosure import g_at_precision

    with flint_precision(200):
        x = _ball(c)
        f = [math.factorial(m + j) for j in (2, 4, 6)]
        upper = arb.const_log2() * math.factorial(m) - f[0] * x**2 / 8 + f[1] * x**4 / 64
        width = f[2] * x**6 / 576
        g = g_at_precision(m, x)
        assert g.rad() < 1e-50
        assert upper - width <= g <= upper, (g, upper - width, upper)
        assert upper - g > width / 100


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([0, 1]), st.fractions(min_value="1/20", max_value=5, max_denominator=40),
       st.fractions(min_value=-3, max_value=3, max_denominator=40))
def test_complex_bound_of_g(m, re, slope):
    """|g_m(c) - m! ln 2| <= |c|^2 (m+2)!/8 max(1, t^2) for Re c > 0, |Im c| = t Re c (the bound
    the Chebyshev models use on complex boxes), against the closed form at complex points."""
    re, im = _ball(re), _ball(re * slope)
    c = acb(re, im)
    with flint_precision(160):
        g = tpf.g_series(m, c)
        t2 = max(1, float(slope) ** 2)
        bound = abs(c) ** 2 * math.factorial(m + 2) / 8 * t2
        assert abs(g - arb.const_log2() * math.factorial(m)) <= bound, (c, g)


@pytest.mark.parametrize("kind", ["normal", "laplace"])
@pytest.mark.parametrize("pair", sorted(MAPS))
def test_integrals_are_tight_enclosures(kind, pair):
    """Over the whole circle, over arcs ending inside pieces and next to the directions where
    c = 0, the balls are enclosures of radius far below the certificate's needs (< 1e-33 at
    122 bits) and agree with mpmath's double-exponential quadrature of w."""
    w = _weight(kind, pair)
    with flint_precision(BITS):
        kinks = [n for n in w.nodes if 0 < n < 2 * arb.pi()]
        ends = [(arb(0), 2 * arb.pi()), (arb(3) / 10, arb(21) / 10)]
        for n in kinks[:2]:  # exact ends 2^-40 after a kink, 2^-50 before one
            ends.append((arb((n.upper() + arb(2) ** -40).mid()), arb((n + arb(1) / 7).mid())))
            ends.append((arb((n - arb(1) / 9).mid()), arb((n.lower() - arb(2) ** -50).mid())))
        for a, b in ends:
            v = w.integral(a, b)
            assert v.rad() < 1e-33, (a, b, v)
            with mpmath.workdps(40):
                pts = [a] + [n.mid() for n in kinks if a < n < b] + [b]
                ref = mpmath.quad(lambda t: to_mpf(w._integrand(from_mpf(t))),
                                  [to_mpf(x) for x in pts])
            assert abs(float((v - arb(mpmath.nstr(ref, 40))).mid())) < 1e-25, (a, b, v, ref)


@pytest.mark.parametrize("kind,T", [("normal", [[0, 1], [1, 0]]), ("laplace", [[0, -1], [-1, 0]]),
                                    ("normal", [[-1, 0], [0, 1]])])
def test_density_preserving_maps_have_the_constant_weight(kind, T):
    """If T preserves the density (c = 0 everywhere) w = m! ln 2 times the factor: the integral
    over the circle is ln 2 (normal: ln 2 / (2 pi) * 2 pi; Laplace: int dtheta / (4 |e|_1^2)
    = 1), enclosed without a kink to cut at."""
    with flint_precision(BITS):
        v = DirectionWeight(kind, sp.ImmutableMatrix(T)).integral(arb(0), 2 * arb.pi())
        assert abs(v - arb.const_log2()) < 1e-30 and v.rad() < 1e-30, v


@pytest.mark.parametrize("name", ["normal", "laplace"])
def test_sweep_values_equal_the_single_point_route(name):
    # the atlas's sweep reads the integrals over directions from cone_entropy_at (models kept
    # between points); one point reads mpmath's quadrature (cone_entropy): two routes, 20 digits
    from fstheory.engine.evaluate_joint import SetValues

    for k in ("3/10", "5/7"):
        b = get_scenario(name).bind(k=k)
        one, many = SetValues(b, 20), SetValues(b, 20, sweep=True)
        for pair in ((2, 3), (3, 7)):  # {Y^2, X-Y}, {X-Y, X^2}
            assert one.structure.mi_class_set(pair).kind == "two-point-cone"
            a, c = one.value(pair).value, many.value(pair).value
            assert abs(a - c) < mpmath.mpf(10) ** -28 * a, (name, k, pair)
