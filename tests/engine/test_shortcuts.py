"""Each structural shortcut (zeros from independence or a class-swapping symmetry, +inf from
functional dependence, H(C) from determination) applies only where its hypotheses hold: checked
at points where they fail, against the numerical route and closed forms."""

from hypothesis import given, settings
from hypothesis import strategies as st
import mpmath
from known_values import known
import numpy as np
import pytest
import sympy as sp

from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.scenario_file import parse_scenario_text
from fstheory.theory import structure
from fstheory.theory.laws import Exponential, Normal, Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.rule import Rule

X, Y = sp.symbols("X Y", real=True)
R = sp.Rational


def hb(p):
    return -mpmath.fsum(t * mpmath.log(t) for t in (p, 1 - p) if t > 0)


@pytest.mark.slow
def test_exponential_laws_allow_the_swap_but_no_sign_flip():
    """X, Y ~ Exp(1), C = 1{X - Y >= 0}: swapping X and Y preserves the laws and sends the rule
    to its negation, so MI(C, X + Y) = MI(C, (X - Y)^2) = 0; no sign flip preserves an
    exponential law, so X^2 keeps its information: MI(C, X) = ln 2 - E[H_b(1 - e^-X)]."""
    laws = {X: Exponential(1), Y: Exponential(1)}
    form = X - Y
    assert structure.class_symmetry(X + Y, form, laws) is not None
    assert structure.class_symmetry((X - Y) ** 2, form, laws) is not None
    assert structure.class_symmetry(X**2, form, laws) is None
    route = NumericRoute(laws, Rule(form))
    with mpmath.workdps(25):
        assert abs(route.mi_class(X + Y).value) < mpmath.mpf(10) ** -18
        ref = mpmath.log(2) - mpmath.quad(lambda x: mpmath.exp(-x) * hb(1 - mpmath.exp(-x)),
                                          [0, 1, 10, 80])
        assert abs(route.mi_class(X).value - ref) < mpmath.mpf(10) ** -18
        assert abs(route.mi_class(X**2).value - ref) < mpmath.mpf(10) ** -18  # X^2 <-> X on x > 0


def test_symmetry_about_the_centre_of_the_laws_and_a_threshold_that_breaks_it():
    """X, Y ~ U(0, 1): (X, Y) -> (1 - X, 1 - Y) swaps the classes of X + Y >= 1 and fixes
    (X - 1/2)^2, so that MI is 0; with X + Y >= 1/2 it is not, and MI(C, (X - 1/2)^2) > 0:
    given |X - 1/2| = d, P(C = 1) averages q(1/2 - d) and q(1/2 + d), q(x) = P(Y >= 1/2 - x)."""
    laws = {X: Uniform(0, 1), Y: Uniform(0, 1)}
    feature = (X - R(1, 2)) ** 2
    assert structure.class_symmetry(feature, X + Y - 1, laws) is not None
    assert structure.class_symmetry(feature, X + Y - R(1, 2), laws) is None
    route = NumericRoute(laws, Rule(X + Y - R(1, 2)))
    with mpmath.workdps(25):
        q = lambda x: min(mpmath.mpf(1), max(mpmath.mpf(0), mpmath.mpf(1) / 2 + x))  # noqa: E731
        p1 = 1 - mpmath.mpf(1) / 8
        ref = hb(p1) - 2 * mpmath.quad(lambda d: hb((q(mpmath.mpf(1) / 2 - d) + q(mpmath.mpf(1) / 2 + d)) / 2),
                                       [0, mpmath.mpf(1) / 2])
        got = route.mi_class(feature).value
        assert got > mpmath.mpf("0.01") and abs(got - ref) < mpmath.mpf(10) ** -18


SCENARIO = """name = "s"
title = "s"
[parameters.k]
domain = "real"
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
label = "(k-1/2)X"
expr = "(k - 1/2)*X"
[[features]]
expr = "X + Y"
[[features]]
expr = "X - Y"
[class]
rule = "2*X + 2*Y >= 1"
"""


def test_constant_feature_has_no_infinite_mi_and_determination_gives_the_class_entropy():
    s = parse_scenario_text(SCENARIO)
    v = evaluate(s.bind(k="0.5"), 20)
    assert v.entropy[1].is_neg_inf and v.mi_class[1].is_zero
    assert v.mi(0, 1).is_zero                      # not +inf: (k - 1/2) X is constant at k = 1/2
    w = evaluate(s.bind(k="0.7"), 20)
    assert w.mi(0, 1).is_pos_inf
    with mpmath.workdps(25):
        assert abs(known(w.entropy[1]) - mpmath.log(mpmath.mpf("0.4"))) < mpmath.mpf(10) ** -18
    # C = 1{2X + 2Y >= 1} is a function of X + Y: MI = H(C), P(C = 1) = (3/2)^2 / 8
    with mpmath.workdps(25):
        assert abs(known(v.mi_class[2]) - hb(mpmath.mpf(9) / 32)) < mpmath.mpf(10) ** -18
    assert "function of the feature" in v.provenance[("mi_c", 2)]
    # uniform X + Y and X - Y are uncorrelated but dependent (no Gaussian shortcut):
    # MI = h(X - Y) + h(X + Y) - h(X) - h(Y) - ln 2 = 1 - ln 2
    with mpmath.workdps(25):
        assert abs(known(v.mi(2, 3)) - (1 - mpmath.log(2))) < mpmath.mpf(10) ** -18


def test_gaussian_decorrelation_is_independence():
    laws = {X: Normal(0, 2), Y: Normal(0, 2)}
    assert structure.gaussian_independent(X - Y, X + Y, laws)
    assert not structure.gaussian_independent(X - Y, X + 2 * Y, laws)
    assert not structure.gaussian_independent(X - Y, X + Y, {X: Uniform(-1, 1), Y: Uniform(-1, 1)})


def test_functions_of_uncorrelated_normal_forms_are_independent():
    """|X - Y| and (X - Y)^2 are functions of X - Y, independent of X + Y for i.i.d. normals;
    X*Y and |X| + |Y| are functions of no single linear form; unequal variances correlate the
    forms (cov(X - Y, X + Y) = sigma_X^2 - sigma_Y^2)."""
    laws = {X: Normal(0, 1), Y: Normal(0, 1)}
    assert structure.gaussian_independent(sp.Abs(X - Y), X + Y, laws)
    assert structure.gaussian_independent((X - Y) ** 2, sp.Abs(X + Y) - 1, laws)
    assert structure.gaussian_independent(sp.exp(2 * X - 2 * Y), X + Y - 1, laws)
    assert not structure.gaussian_independent(X * Y, X + Y, laws)
    assert not structure.gaussian_independent(sp.Abs(X) + sp.Abs(Y), X - Y, laws)
    assert not structure.gaussian_independent(sp.Abs(X - Y), X + Y, {X: Normal(0, 1), Y: Normal(0, 2)})
    assert not structure.gaussian_independent(sp.Abs(X - Y), X + Y, {X: Uniform(-1, 1), Y: Uniform(-1, 1)})


@given(st.lists(st.integers(-5, 5).filter(bool), min_size=2, max_size=3),
       st.sampled_from(["abs", "square", "cube", "exp"]))
@settings(max_examples=10, deadline=None)
def test_linear_direction_is_the_form_up_to_scale(coefs, g):
    """For v = g(c . B) with g non-constant, the direction found is proportional to c; a product
    of two bases is a function of no linear form."""
    bases = sp.symbols("B0:%d" % len(coefs), real=True)
    form = sum(c * b for c, b in zip(coefs, bases))
    v = {"abs": sp.Abs, "square": lambda t: t ** 2, "cube": lambda t: t ** 3, "exp": sp.exp}[g](form)
    d = structure.linear_direction(v, set(bases))
    assert d is not None and set(d) == set(bases)
    ratio = d[bases[0]] / coefs[0]
    assert ratio != 0 and all(sp.simplify(d[b] - ratio * c) == 0 for c, b in zip(coefs, bases))
    assert structure.linear_direction(bases[0] * bases[1] + v, set(bases)) is None


NORMAL_PAIR = """name = "n"
title = "n"
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
expr = "abs(X - Y)"
[class]
rule = "X + Y >= 1"
"""


def test_functions_of_independent_forms_at_a_point():
    """At a point the engine takes MI(|X - Y|, X + Y) = 0 and MI(C, |X - Y|) = 0 for a rule on
    X + Y (i.i.d. normals), each with its reason."""
    v = evaluate(parse_scenario_text(NORMAL_PAIR).bind(), 15)
    assert v.mi(0, 1).is_zero and v.mi_class[1].is_zero
    assert "jointly normal and uncorrelated" in v.provenance[("mi_c", 1)]
    assert "jointly normal and uncorrelated" in v.provenance[("mi", 0, 1)]


def test_independent_forms_by_monte_carlo():
    """The second route: for i.i.d. N(0, 1) samples, P(|X - Y| <= a, X + Y <= b) factorises
    (10^6 samples, each probability within 5 standard errors of the product)."""
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((2, 1_000_000))
    for a, b in [(0.5, 0.0), (1.0, 1.0), (2.0, -0.5)]:
        u, w = np.abs(x - y) <= a, x + y <= b
        joint, prod = np.mean(u & w), np.mean(u) * np.mean(w)
        assert abs(joint - prod) < 5 * np.sqrt(prod * (1 - prod) / x.size)
    # and the same test sees the dependence of uniform forms (1 - ln 2 nats of MI)
    x, y = rng.uniform(-1, 1, (2, 1_000_000))
    u, w = np.abs(x - y) <= 1.0, np.abs(x + y) <= 1.0
    prod = np.mean(u) * np.mean(w)
    assert abs(np.mean(u & w) - prod) > 5 * np.sqrt(prod * (1 - prod) / x.size)


@pytest.mark.parametrize("expr", ["exp(1000*X)", "exp(exp(X))"])
def test_steep_features_are_computed_within_the_symbolic_budget(expr):
    """h(g(X)) = h(X) + E[ln g'(X)] for monotone g: X ~ N(0, 1) gives ln 1000 for exp(1000 X),
    and E[X + e^X] = e^(1/2) for exp(exp(X))."""
    text = SCENARIO.replace('expr = "X + Y"', f'expr = "{expr}"')
    v = evaluate(parse_scenario_text(text).bind(k="0.7"), 15)
    with mpmath.workdps(20):
        h_x = mpmath.log(2)  # h(U(-1, 1))
        extra = mpmath.log(1000) if "1000" in expr else mpmath.fsum(
            [mpmath.quad(lambda x: mpmath.exp(x) / 2, [-1, 1])])
        assert abs(known(v.entropy[2]) - (h_x + extra)) < mpmath.mpf(10) ** -13


@pytest.mark.slow
def test_a_class_preserving_map_gives_one_integral_only_where_it_exists():
    """MI(C, V_j) = MI(C, V_i) when a law-preserving map of the base variables fixes the class
    and takes V_i to V_j: Y -> -Y takes X + Y to X - Y under a circle rule, X <-> Y takes X to Y.
    A rule that the map does not fix (X^2 + Y <= 1/2), or laws it does not preserve (Y
    exponential), give no map; where it exists, the shared value agrees with the numerical
    route on V_j itself."""
    uniform = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
    circle = R(1, 2) - X**2 - Y**2
    assert structure.class_preserving_map(X + Y, X - Y, circle, uniform).describe() == \
        "(X -> X, Y -> -Y)"
    assert structure.class_preserving_map(X, Y, circle, uniform) is not None
    assert structure.class_preserving_map(X + Y, X - Y, R(1, 2) - X**2 - Y, uniform) is None
    assert structure.class_preserving_map(
        X + Y, X - Y, circle, {X: Uniform(-1, 1), Y: Exponential(1)}) is None
    assert structure.class_preserving_map(X + Y, X - Y, R(1, 2) - X**2 - Y**2 - X * Y,
                                          uniform) is None
    text = """
name = "circle-pair"
title = "circle"
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
expr = "X + Y"
[[features]]
expr = "X - Y"
[class]
rule = "X^2 + Y^2 <= 1/2 + k"
"""
    v = evaluate(parse_scenario_text(text).bind(k="0.2"), 20)
    assert "Y -> -Y" in v.provenance[("mi_c", 1)]
    assert v.mi_class[0].value == v.mi_class[1].value
    route = NumericRoute(uniform, Rule(R(7, 10) - X**2 - Y**2))
    with mpmath.workdps(30):
        direct = route.mi_class(X - Y)
    assert abs(direct.value - v.mi_class[1].value) < mpmath.mpf(10) ** -19
