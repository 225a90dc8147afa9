"""Scenario III (the paper's features and class with Laplace(0, scale) base variables, declared
in scenarios/laplace.toml): values from the generic engine, each finite one checked by a
second route — a closed form where one exists, Monte Carlo with a stated tolerance otherwise."""

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import stats

from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.numeric import NumericRoute

AGREE = mpmath.mpf(10) ** -25


@pytest.fixture(scope="module")
def paper_point():
    bound = get_scenario("laplace").bind(k="0.2")
    return bound, evaluate(bound, 30)


def test_closed_form_entropies(paper_point):
    bound, v = paper_point
    with mpmath.workdps(40):
        s = mpmath.mpf("0.5")
        expected = {
            0: 1 + mpmath.log(2 * s),  # Laplace
            1: 1 + mpmath.log(2 * 3 * s),
            2: mpmath.log(2 * s * s) + 1 - mpmath.euler,  # Y^2
            3: mpmath.log(4 * s) + 1 - mpmath.e * mpmath.e1(1) / 2,  # X - Y
        }
        for i, e in expected.items():
            assert abs(v.entropy[i].value - e) < AGREE


def test_closed_form_entropies_agree_with_the_numerical_route(paper_point):
    bound, v = paper_point
    exprs = bound.feature_exprs()
    with mpmath.workdps(35):
        route = NumericRoute(bound.laws())
        for i in (2, 3):
            assert abs(route.entropy(exprs[i]).value - v.entropy[i].value) < AGREE
        # MI(X, X-Y) = h(X-Y) - h(Y): closed, against the numerical route
        assert abs(route.mi_pair(exprs[0], exprs[3]).value - v.mi(0, 3).value) < AGREE


def _laplace_ref():
    path = Path(__file__).parents[1] / "data" / "second_route_reference_laplace.json"
    return json.loads(path.read_text())["cases"]


@pytest.mark.parametrize("case", _laplace_ref(), ids=lambda c: json.dumps(c["params"]))
def test_against_the_stored_nested_quadrature(case):
    """MI(C, X-Y) by nested quadrature (no sympy step) and MI(Y^2, X-Y) by the nested mixture
    entropy, against the engine (sympy-integrated convolution; the Laplace mixture closed form)."""
    v = evaluate(get_scenario("laplace").bind(**case["params"]), 30)
    with mpmath.workdps(40):
        for key, entry in case["mi_class"].items():
            got = v.mi_class[int(key) - 1]
            ref = mpmath.mpf(entry["value"])
            assert (abs(ref) < 1e-28) if got.is_zero else abs(got.value - ref) < AGREE * abs(ref)
        for key, entry in case["mi_features"].items():
            i, j = (int(t) - 1 for t in key.split(","))
            ref = mpmath.mpf(entry["value"])
            assert abs(v.mi(i, j).value - ref) < AGREE * abs(ref)
        for key, entry in case["entropy"].items():
            ref = mpmath.mpf(entry["value"])
            assert abs(v.entropy[int(key) - 1].value - ref) < AGREE * max(1, abs(ref))


@pytest.mark.parametrize("k", [0.2, 0.8])
def test_mi_with_the_class_by_monte_carlo(k):
    """MI(C, V) = E[ln P(C | V) / P(C)], P(C) = 1/2 by symmetry, P(C = 1 | X = x) = P(Y >= -x/k)
    and P(C = 1 | Y = y) = P(X >= -ky) from the Laplace CDF. 400 000 draws; tolerance 5 standard
    errors (the estimator is unbiased)."""
    bound = get_scenario("laplace").bind(k=str(k))
    v = evaluate(bound, 20)
    rng = np.random.default_rng(20261126)
    n, s = 400_000, 0.5
    x, y = rng.laplace(0, s, n), rng.laplace(0, s, n)
    c = x + k * y >= 0
    law = stats.laplace(scale=s)
    for idx, p1 in ((0, law.sf(-x / k)), (6, law.sf(-k * y))):
        terms = np.log(2 * np.where(c, p1, 1 - p1))
        est, se = terms.mean(), terms.std(ddof=1) / np.sqrt(n)
        assert abs(est - float(v.mi_class[idx].value)) < 5 * se


def test_scenario_three_orderings_of_the_stable_methods():
    from fstheory.orderings.order import order

    bound = get_scenario("laplace").bind(k="0.2")
    for method, beta in (("mifs", "1"), ("mrmr", None), ("maxmifs", None)):
        result = order(bound, method, beta)
        labels = [bound.display_labels()[i] for i in result.order]
        assert labels == ["X", "Y", "Z", "W+2", "X-Y", "Z+W", "3X+1", "Y^2", "Z^2", "X^2"]


def test_a_small_mi_keeps_its_relative_digits():
    """Near k = 1, MI(C, X-Y) ~ 6e-7 is H(C) - E[H_b] with both terms near ln 2: the route
    carries log10(H(C)/MI) more digits, so the value has its 20 (30) digits, not 19, and the two
    precisions agree."""
    from fstheory.engine.evaluate import evaluate
    from fstheory.scenarios.registry import get_scenario

    b = get_scenario("laplace").bind(k="0.996")
    v20, v30 = evaluate(b, 20), evaluate(b, 30)
    i = v20.labels.index("X-Y")
    assert v20.mi_class[i].is_finite and v30.mi_class[i].is_finite
    assert v20.mi_class[i].text(20) == "5.9874010290590987581e-7"
    assert v30.mi_class[i].text(20) == v20.mi_class[i].text(20)
