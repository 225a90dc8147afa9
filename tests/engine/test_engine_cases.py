"""Scenarios the engine once got wrong or refused, one file each (tests/data/engine/, each saying
what went wrong): every value against an independent second route (a closed form, or mpmath
quadrature of formulas written here from the laws, in another order of integration), every
refusal with its reason."""

import re
from pathlib import Path

import mpmath
import pytest

from fstheory.orderings.greedy import select
from fstheory.scenarios.declaration import ParameterError
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.overrides import bind_from_cli
from fstheory.scenarios.scenario_file import ScenarioFileError, load_scenario_file, parse_scenario_text
from fstheory.theory.extended import Form
from fstheory.reports.values_output import value_text
from known_values import has_number, known, quadrature_reference

DATA = Path(__file__).parents[1] / "data" / "engine"
DIGITS = 15


def values(name: str, digits: int = DIGITS, **params):
    scenario = load_scenario_file(DATA / f"{name}.toml")
    return evaluate(bind_from_cli(scenario, {k: str(v) for k, v in params.items()}), digits)


def agree(x, expected, digits: int = DIGITS - 1) -> bool:
    assert has_number(x), x
    return abs(known(x) - expected) <= mpmath.mpf(10) ** -digits * max(1, abs(expected))


def hb(p):
    return -mpmath.fsum(t * mpmath.log(t) for t in (p, 1 - p) if t > 0)


@pytest.mark.slow
def test_three_variable_rule_values_against_quadrature_in_another_order():
    """Uniform X, Y, Z on [-1, 1], C = 1{X + Y/2 + Z >= 0}. With S = Y/2 + Z (trapezoidal on
    [-3/2, 3/2]), P(C = 1 | X = x) = P(S >= -x); given V = X + Y = v, Y is uniform on its range
    and P(C = 1 | v) = E[P(Z >= Y/2 - v) | V = v]; both written independently in
    scripts/make_quadrature_references.py (nested quadratures) and stored."""
    v = values("uniform_three_variable_rule", k="0.5")
    ref = quadrature_reference("three_variable_rule")  # scripts/make_quadrature_references.py
    mi_x, mi_xy, h3 = ref["mi_c_x"], ref["mi_c_x_plus_y"], ref["h_x_plus_y_plus_z"]
    labels = list(v.labels)
    assert agree(v.mi_class[labels.index("X")], mi_x)
    assert agree(v.mi_class[labels.index("X+Y")], mi_xy, 12)
    assert agree(v.entropy[labels.index("X+Y+Z")], h3)
    for zero in ("X^2", "|Y|", "W", "2*W-1"):  # symmetry or independence: exactly 0
        assert v.mi_class[labels.index(zero)].is_zero, zero
    result = select(v, "mrmr")
    n = len(labels)
    needed = list(v.mi_class) + [v.mi_features[i][j] for i in range(n) for j in range(i + 1, n)]
    if all(x.is_determinate for x in needed):
        assert result.stop is None and len(result.order) == n
    else:  # an estimate is never ranked on: the step that needs it is undecided, and says why
        assert result.undecided and "not proved" in result.stop.statement


def _clip(t):
    return min(mpmath.mpf(1), max(mpmath.mpf(0), t))


def _cuts(ends, inner):
    lo, hi = ends
    return [lo, *sorted(p for p in inner if lo < p < hi), hi]


@pytest.mark.slow
def test_non_zero_threshold_normal():
    """X, Y ~ N(0, 1), C = 1{X + kY >= 1}. At k = 1, C is a function of X + Y (MI = H(C)), X - Y
    is independent of X + Y (MI 0), and MI(C, Y^2) > 0 (no class-swapping symmetry with a
    threshold 1); at k = 1/2, (X - Y, L) is bivariate normal: P(C = 1 | X - Y = t) is a normal CDF."""
    v = values("normal_threshold", k=1)
    with mpmath.workdps(30):
        p = mpmath.ncdf(-1 / mpmath.sqrt(2))
        h_c = hb(p)
        mi_x = h_c - mpmath.quad(lambda x: mpmath.npdf(x) * hb(mpmath.ncdf(x - 1)), [-mpmath.inf, 1, mpmath.inf])
        mi_y2 = h_c - 2 * mpmath.quad(
            lambda y: mpmath.npdf(y) * hb((mpmath.ncdf(y - 1) + mpmath.ncdf(-y - 1)) / 2), [0, mpmath.inf])
    assert agree(v.mi_class[2], h_c)            # X + Y
    assert v.mi_class[3].is_zero                # X - Y
    assert agree(v.mi_class[0], mi_x)
    assert agree(v.mi_class[4], mi_y2) and known(v.mi_class[4]) > mpmath.mpf("0.018")
    assert "function of the feature" in v.provenance[("mi_c", 2)]
    half = values("normal_threshold", k="0.5")
    with mpmath.workdps(30):
        # L = X + Y/2, V = X - Y: var L = 5/4, var V = 2, cov = 1/2
        mean_l = lambda t: t / 4  # noqa: E731  E[L | V = t] = cov/var V * t
        sd_l = mpmath.sqrt(mpmath.mpf(5) / 4 - mpmath.mpf(1) / 8)
        h_c = hb(mpmath.ncdf(-1 / mpmath.sqrt(mpmath.mpf(5) / 4)))
        mi = h_c - mpmath.quad(lambda t: mpmath.npdf(t, 0, mpmath.sqrt(2))
                               * hb(mpmath.ncdf((mean_l(t) - 1) / sd_l)), [-mpmath.inf, 0, 4, mpmath.inf])
    assert agree(half.mi_class[3], mi)


def test_uniform_threshold_half():
    """X, Y ~ U(-1, 1), C = 1{X + Y >= 1/2}: P(C = 1) = (3/2)^2 / 8 and C is a function of X + Y."""
    v = values("uniform_threshold")
    p = mpmath.mpf(9) / 32
    assert agree(v.mi_class[2], hb(p))
    assert value_text(v.mi_class[2], 6).lstrip("~") == "0.594130"
    with mpmath.workdps(30):
        mi_x = hb(p) - mpmath.quad(lambda x: hb(_clip((1 - (mpmath.mpf(1) / 2 - x)) / 2)) / 2,
                                   [-1, -mpmath.mpf(1) / 2, 1])
    assert agree(v.mi_class[0], mi_x)


@pytest.mark.slow
def test_logistic_difference():
    """X - Y for i.i.d. standard logistic X, Y has density e^-t ((t - 2) + (t + 2) e^-t)/(1 - e^-t)^3
    (t = |x|): its entropy by mpmath from that formula; MI(X, X - Y) = h(X - Y) - h(Y)."""
    v = values("logistic_difference")
    with mpmath.workdps(30):
        def f(x):
            e = mpmath.exp(-x)
            return e * ((x - 2) + (x + 2) * e) / (-mpmath.expm1(-x)) ** 3

        h = 2 * mpmath.quad(lambda x: -f(x) * mpmath.log(f(x)), [mpmath.mpf("1e-4"), 1, 5, 20, 80])
        with mpmath.workdps(60):  # [0, 1e-4]: f ~ 1/6, cancellation in the formula
            h += 2 * mpmath.quad(lambda x: -f(x) * mpmath.log(f(x)), [mpmath.mpf("1e-12"), mpmath.mpf("1e-4")])
    assert agree(v.entropy[1], h, 12)
    assert agree(v.mi(0, 1), h - 2, 12)
    assert v.mi_class[1].is_zero  # (X, Y) -> (-Y, -X) fixes X - Y and swaps the classes


@pytest.mark.slow
def test_laplace_plus_normal_and_logistic_minus_normal():
    """Laplace(0, 1) + N(0, 1) has the density (Reed's normal-Laplace law)
    f(z) = e^(1/2) [e^-z erfc((1 - z)/sqrt 2) + e^z erfc((1 + z)/sqrt 2)] / 4."""
    v = values("laplace_plus_normal")
    with mpmath.workdps(30):
        def f(z):
            return mpmath.exp(mpmath.mpf(1) / 2) * (
                mpmath.exp(-z) * mpmath.erfc((1 - z) / mpmath.sqrt(2))
                + mpmath.exp(z) * mpmath.erfc((1 + z) / mpmath.sqrt(2))) / 4

        h = 2 * mpmath.quad(lambda z: -f(z) * mpmath.log(f(z)), [0, 2, 8, 30, 100])
    assert agree(v.entropy[0], h)
    assert agree(v.mi_class[0], mpmath.log(2))   # C = 1{X + Y >= 0} is a function of X + Y
    assert has_number(v.entropy[1])               # logistic - normal: one numerical level
    assert agree(v.entropy[1], mpmath.mpf("2.14111854637974924836248694727"), 13)
    # MI(Z - Y, X + Y) needs a fibre integral inside a 2-D one: refused with the reason
    assert v.mi(0, 1).form is Form.NOT_COMPUTED and "a fibre inside a two-dimensional integral" in v.mi(0, 1).cause


def test_constant_feature_at_zero():
    v = values("constant_at_zero", k=0)
    assert v.entropy[1].is_neg_inf and v.mi_class[1].is_zero
    assert v.mi(0, 1).is_zero and v.mi(1, 2).is_zero
    assert v.mi(0, 2).is_pos_inf                                 # (k - 1/2) X = -X/2
    assert agree(v.mi_class[2], mpmath.log(2) - mpmath.mpf(1) / 2)  # Scenario I's ln 2 - k/2 at k = 1
    w = values("constant_at_zero", k="0.3")
    assert w.entropy[1].is_finite and agree(w.entropy[1], mpmath.log(mpmath.mpf("0.6")))


@pytest.mark.slow
def test_xor_rule():
    """C = 1{XY >= 0}: each feature alone is independent of C (symmetry Y -> -Y), the pair
    determines it; given X + Y = v, P(C = 1) = erf(|v|/2) and MI(C, X + Y) = ln 2 - 1/2."""
    v = values("xor_normal")
    assert v.mi_class[0].is_zero and v.mi_class[1].is_zero and v.mi_class[3].is_zero
    assert agree(v.mi_class[2], mpmath.log(2) - mpmath.mpf(1) / 2)
    from fstheory.theory.numeric import NumericRoute

    bound = bind_from_cli(load_scenario_file(DATA / "xor_normal.toml"), {})
    X, Y = (f.expr for f in bound.scenario.features[:2])
    with mpmath.workdps(25):
        route = NumericRoute(bound.laws(), bound.class_rule())
        assert abs(route.mi_class_set((X, Y)).value - mpmath.log(2)) < mpmath.mpf(10) ** -20


TINY = DATA.parent / "scenarios" / "tiny.toml"


@pytest.mark.parametrize("expr, fragment", [
    ("log(Y)", "log(Y) is not real where Y <= 0"),
    ("sqrt(Y)", "sqrt(Y) is not real where Y < 0"),
])
def test_feature_undefined_on_its_support_is_refused_at_load(expr, fragment):
    text = TINY.read_text().replace('expr = "X + Y"', f'expr = "{expr}"')
    with pytest.raises(ScenarioFileError, match=re.escape(fragment)) as err:
        parse_scenario_text(text, "t.toml")
    assert err.value.line > 0


def test_feature_undefined_at_the_bound_support_is_a_parameter_error():
    text = """name = "s"\ntitle = "s"\n[parameters.a]\ndomain = "real"\n[base.Y]\nlaw = "uniform"
low = "a"\nhigh = "a + 1"\n[[features]]\nexpr = "sqrt(Y)"\n[class]\nrule = "Y >= a + 1/2"\n"""
    scenario = parse_scenario_text(text)
    with pytest.raises(ParameterError, match=r"feature sqrt\(Y\): sqrt\(Y\) is not real"):
        scenario.bind(a="-0.5")
    v = evaluate(scenario.bind(a="0.5"), DIGITS)
    with mpmath.workdps(30):  # h(sqrt Y) = h(Y) - ln 2 - E[ln Y]/2, Y ~ U(1/2, 3/2)
        e_ln = (mpmath.mpf(3) / 2 * mpmath.log(1.5) - 1) - (mpmath.mpf(1) / 2 * mpmath.log(0.5))
        assert agree(v.entropy[0], -mpmath.log(2) - e_ln / 2)


@pytest.mark.parametrize("rule, fragment", [
    ("log(k)*X + Y >= 0", "a coefficient is not finite at k = 0"),
])
def test_rule_coefficient_not_finite_at_the_bound_point(rule, fragment):
    text = TINY.read_text().replace('rule = "X + k*Y >= 0"', f'rule = "{rule}"')
    scenario = parse_scenario_text(text)
    with pytest.raises(ParameterError, match=fragment):
        scenario.bind(k="0")
