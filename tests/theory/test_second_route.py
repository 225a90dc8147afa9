"""Two routes for every finite value: closed forms (sympy, law algebra) against the numerical
route (quadrature from the base laws, no closed form), to >= 25 significant digits.

The numerical route's values at 32 digits are stored in tests/data/second_route_reference.json
by scripts/make_references.py (one of its quantities takes minutes); the last tests re-run its
fast part live, so the file cannot drift from the code.
"""

import json
from pathlib import Path

import mpmath
import pytest

from fstheory.engine.derive import derive
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.numeric import NumericRoute

REF = json.loads((Path(__file__).parents[1] / "data" / "second_route_reference.json").read_text())
CASES = REF["cases"]
AGREE = mpmath.mpf(10) ** -25  # >= 25 significant digits
ZERO = mpmath.mpf(10) ** -28  # a structural zero must come out of the integral as zero


def _ids(case):
    return f"{case['scenario']}-" + ",".join(f"{k}={v}" for k, v in case["params"].items())


def _agree(closed, ref: str) -> bool:
    with mpmath.workdps(40):
        r = mpmath.mpf(ref)
        if closed.is_zero:
            return abs(r) < ZERO
        return abs(closed.value - r) <= AGREE * abs(closed.value)


def test_reference_cases_cover_the_paper_and_two_other_points_per_scenario():
    names = [c["scenario"] for c in CASES]
    assert names.count("uniform") == 4 and names.count("normal") == 4
    ks = {(c["scenario"], c["params"]["k"]) for c in CASES if len(c["params"]) == 1}
    assert ks == {("uniform", "0.2"), ("uniform", "0.8"), ("normal", "0.2"), ("normal", "0.8")}


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_every_closed_form_agrees_with_the_second_route(case):
    scenario = get_scenario(case["scenario"])
    v = evaluate(scenario.bind(**case["params"]), 30)
    der = derive(scenario)
    # every finite non-structural quantity has a reference value: none silently skipped
    closed_pairs = {f"{i + 1},{j + 1}" for i in range(10) for j in range(i + 1, 10)
                    if der.mi_features[i][j].kind == "closed"}
    assert set(case["mi_features"]) == closed_pairs
    assert set(case["entropy"]) == {str(i + 1) for i in range(10)}
    closed_class = {str(i + 1) for i, d in enumerate(der.mi_class) if d.kind == "closed"}
    assert closed_class <= set(case["mi_class"])
    bad = []
    for key, entry in case["entropy"].items():
        if not _agree(v.entropy[int(key) - 1], entry["value"]):
            bad.append(("h", key, v.entropy[int(key) - 1].text(30), entry["value"]))
    for key, entry in case["mi_class"].items():
        if not _agree(v.mi_class[int(key) - 1], entry["value"]):
            bad.append(("MI(C,.)", key, v.mi_class[int(key) - 1].text(30), entry["value"]))
    for key, entry in case["mi_features"].items():
        i, j = (int(t) - 1 for t in key.split(","))
        if not _agree(v.mi(i, j), entry["value"]):
            bad.append(("MI", key, v.mi(i, j).text(30), entry["value"]))
    assert not bad


def test_symmetry_zeros_are_zero_by_integration_too():
    # MI(C_k, X^2) = MI(C_k, Y^2) = 0 (paper's Appendix theorem) computed, not assumed
    for case in CASES:
        for key in ("3", "8"):
            assert abs(mpmath.mpf(case["mi_class"][key]["value"])) < ZERO


@pytest.mark.parametrize("case", [CASES[2], CASES[7]], ids=_ids)
def test_the_stored_references_match_the_numerical_route_now(case):
    """Re-run the fast quantities of the numerical route live (seconds)."""
    bound = get_scenario(case["scenario"]).bind(**case["params"])
    exprs = bound.feature_exprs()
    with mpmath.workdps(32):
        route = NumericRoute(bound.laws())
        for key in ("1", "2", "3", "4"):
            live = route.entropy(exprs[int(key) - 1]).value
            assert abs(live - mpmath.mpf(case["entropy"][key]["value"])) < AGREE
        for key in ("1", "4", "7"):
            live = route.mi_class(exprs[int(key) - 1], bound.class_weights(),
                                  bound.class_threshold()).value
            assert abs(live - mpmath.mpf(case["mi_class"][key]["value"])) < AGREE
        live = route.mi_pair(exprs[0], exprs[3]).value
        assert abs(live - mpmath.mpf(case["mi_features"]["1,4"]["value"])) < AGREE
