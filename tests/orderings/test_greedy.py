"""Greedy forward selection: the paper's rules on small hand-made cases and as invariants over
random values, plus the explanation text and the JSON form."""

from __future__ import annotations

import json

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exact_values_fixture as fixture
from fstheory.orderings.explain import explain, referenced_entropies, to_json, to_json_text
from fstheory.orderings.greedy import select
from fstheory.orderings.methods import MethodError, get_method, method_names
from orderings_strategies import BETAS, scenario_values
from fstheory.theory.extended import POS_INF, xr
from fstheory.engine.values import ScenarioValues

# per-test settings (a loaded profile would change every hypothesis test in the session)
SETTINGS = settings(max_examples=80, deadline=None)


def toy(h, mc, mi) -> ScenarioValues:
    """ScenarioValues from plain lists ('inf' for +inf); labels A, B, C, ..."""
    n = len(h)
    labels = tuple("ABCDEFGH"[:n])
    val = lambda x: POS_INF if x == "inf" else xr(x)  # noqa: E731
    return ScenarioValues(
        "toy", {}, labels,
        tuple(val(x).named(f"h({labels[j]})") for j, x in enumerate(h)),
        tuple(val(x).named(f"MI(C,{labels[j]})") for j, x in enumerate(mc)),
        tuple(tuple(val(mi[r][c]).named(f"MI({labels[r]},{labels[c]})") for c in range(n))
              for r in range(n)),
    )


# ----- the rules on hand-made cases ---------------------------------------------------------------


def test_first_feature_maximises_mi_with_the_class_ties_to_lower_index():
    v = toy([1, 1, 1], ["0.1", "0.3", "0.3"], [["inf", 0, 0], [0, "inf", 0], [0, 0, "inf"]])
    r = select(v, "mrmr")
    assert r.order_labels == ["B", "C", "A"]
    assert r.steps[0].criterion == "MI(C,Vi)" and r.steps[0].tied == (2,)
    assert r.complete


def test_minus_infinity_can_win_and_ties_go_to_the_lower_index():
    # A first; B and C are both fully associated with A: -inf, -inf -> B (lower index)
    v = toy([1, 1, 1], ["0.5", "0.4", "0.4"], [["inf", "inf", "inf"], ["inf", "inf", 0],
                                                 [ "inf", 0, "inf"]])
    r = select(v, "maxmifs")
    assert r.order_labels == ["A", "B", "C"]
    assert r.steps[1].winner.value.is_neg_inf and r.steps[1].tied == (2,)


def test_indeterminate_is_never_chosen_and_selection_stops():
    # h(A) = 0 and MI(C,A) > 0: MI(C,A)/h(A) = +inf; B independent of A: +inf * 0 = 0*inf
    v = toy([0, 1, 1], ["0.5", "0.4", "0.1"], [["inf", 0, "inf"], [0, "inf", 0], ["inf", 0, "inf"]])
    r = select(v, "mmifs-u")
    assert r.order_labels == ["A", "C"]  # C (-inf) beats the indeterminate B although 0.4 > 0.1
    assert r.stop.after == 2 and r.stop.forms == {"V2": "0*inf"}
    assert r.stop.candidates[0].cause == "MI(C,A)/h(A)*MI(B,A) with MI(C,A)/h(A) = +inf, MI(B,A) = 0"


def test_no_stop_when_everything_is_selected():
    v = toy([1, 2], ["0.2", "0.1"], [["inf", "0.5"], ["0.5", "inf"]])
    r = select(v, "mifs", "0.5")
    assert r.order == [0, 1] and r.stop is None


def test_all_indeterminate_from_step_two():
    v = toy([0, 0, 0], ["0.5", "0", "0"], [["inf", 0, 0], [0, "inf", 0], [0, 0, "inf"]])
    r = select(v, "nmifs")
    assert r.order_labels == ["A"] and r.stop.after == 1
    assert set(r.stop.forms.values()) == {"0/0"}


def test_ties_are_decided_at_the_working_precision():
    """Two values equal to 30 digits but rounded differently (1/3 at 40 and at 30 digits) tie
    at the values' 30 digits; a genuine difference of 1e-20 does not."""
    with mpmath.workdps(40):
        b = xr(1) / 3
    with mpmath.workdps(30):
        c = xr(1) / 3
        d = c - xr("1e-20")
    assert b.value != c.value
    v = toy([1, 1, 1, 1], ["0.5", b.value, c.value, d.value],
            [["inf" if r == q else 0 for q in range(4)] for r in range(4)])
    r = select(v, "mrmr")
    assert r.order_labels == ["A", "B", "C", "D"]
    assert r.steps[1].tied == (2,) and r.steps[2].tied == ()


def test_bad_method_input_raises_method_error():
    v = toy([1, 1], ["0.2", "0.1"], [["inf", 0], [0, "inf"]])
    with pytest.raises(MethodError, match="parameter 'method'"):
        select(v, "foo")
    with pytest.raises(MethodError, match="parameter 'beta'"):
        select(v, "mifs", 2)
    with pytest.raises(MethodError, match="parameter 'beta'"):
        select(v, "mrmr", 0.5)
    with pytest.raises(MethodError, match="parameter 'beta' is required"):
        select(v, "mifs-u")


# ----- invariants over random values --------------------------------------------------------------


def run_all(v, beta):
    """Every distinct (method, reading, zero_beta) combination; beta-gamma with gamma = beta and
    with 1/|S| for both."""
    for name in method_names():
        m = get_method(name)
        params = [(beta, beta), ("1/|S|", "1/|S|")] if m.has_gamma else [
            (beta if m.has_beta else None, None)]
        for reading, _ in m.distinct_readings():
            for b, g in params:
                for zero_beta in ("explicit", "drop") if m.has_beta and beta == 0 else ("explicit",):
                    yield name, select(v, name, b, reading=reading, zero_beta=zero_beta, gamma=g)


@pytest.mark.slow
@SETTINGS
@given(scenario_values(min_n=2, max_n=5), st.sampled_from(BETAS))
def test_greedy_invariants(v, beta):
    for _name, r in run_all(v, beta):
        order = r.order
        assert len(set(order)) == len(order)
        assert len(order) + (0 if r.stop is None else len(r.stop.candidates)) == v.n_features
        first = r.steps[0]
        assert all(c.value.same(v.mi_c(c.index)) for c in first.candidates)
        for step in r.steps:
            w = step.winner
            assert w.determinate
            assert [c.index for c in step.candidates] == sorted(c.index for c in step.candidates)
            for c in step.candidates:
                if c.determinate:
                    assert c.value <= w.value or c.index in step.tied
                    if c.index in step.tied:
                        assert c.index > w.index
                    elif c.index < w.index:
                        assert c.value < w.value  # an earlier candidate must be strictly smaller
                else:
                    assert c.index != w.index and c.form and c.cause and c.forms[0] == c.form
        if r.stop is not None:
            assert r.stop.after == len(order)
            assert all(not c.determinate for c in r.stop.candidates)
            assert {c.index for c in r.stop.candidates} == set(range(v.n_features)) - set(order)


@pytest.mark.slow
@SETTINGS
@given(scenario_values(min_n=3, max_n=5), st.sampled_from(BETAS))
def test_once_indeterminate_always_indeterminate_except_micc(v, beta):
    """Each objective except MICC aggregates per-selected-feature terms by sums, maxima and
    means, and an indeterminate term persists in them; so a candidate indeterminate at one step
    stays indeterminate at every later step. MICC divides by the mean NI: a 0/0 caused by a zero
    mean can disappear when a later NI makes the mean nonzero (test below)."""
    for name, r in run_all(v, beta):
        if name == "micc":
            continue
        seen: set[int] = set()
        for step in r.steps[1:]:
            now = {c.index for c in step.candidates if not c.determinate}
            assert seen <= now | {step.selected} and step.selected not in seen
            seen |= now
        if r.stop is not None:
            assert seen <= {c.index for c in r.stop.candidates}


def test_micc_indeterminate_then_chosen_y2_in_scenario_i():
    """MICC's Y^2 (Scenario I): MI(C,Y^2) = 0 and NI(Y^2,X) = NI(Y^2,X^2) = 0 give 0/0 at steps 2
    and 3; NI(Y^2,X-Y) = MI(Y^2,X-Y)/h(Y^2) != 0 makes it 0 at step 4, where it is chosen."""
    r = select(fixture.scenario_i("0.2"), "micc")
    y2 = [next((c for c in s.candidates if c.label == "Y^2"), None) for s in r.steps[1:]]
    assert [c.form for c in y2[:2]] == ["0/0", "0/0"]
    assert r.steps[3].winner.label == "Y^2" and r.steps[3].winner.value.is_zero


# ----- explanation and JSON -----------------------------------------------------------------------


def test_explanation_names_winner_ties_indeterminates_and_stop():
    v = toy([0, 1, 1], ["0.5", "0.4", "0.1"], [["inf", 0, "inf"], [0, "inf", 0], ["inf", 0, "inf"]])
    text = explain(select(v, "mmifs-u"))
    lines = text.splitlines()
    assert lines[0] == "mMIFS-U (table reading) on toy ()"
    assert lines[1] == "Order: A, C -- stopped after 2 of 3"
    assert lines[2].startswith("Step 1: A wins with MI(C,A) = 0.500000")
    assert "Step 2: C wins with -inf from MI(C,A)/h(A)*MI(C,A) = +inf." in text
    assert "    B: 0*inf in MI(C,A)/h(A)*MI(B,A) with MI(C,A)/h(A) = +inf, MI(B,A) = 0" in lines
    assert "  where h(A) = 0 (null)" in lines
    assert "Stop after 2: every remaining candidate is indeterminate (B 0*inf)." in lines


def test_json_format_exactly():
    v = fixture.scenario_i("0.2")
    r = select(v, "nmifs")
    j = to_json(r)
    assert list(j) == ["method", "beta", "scenario", "params", "order", "labels", "stopped", "steps"]
    assert j["method"] == "nmifs" and j["beta"] is None and j["scenario"] == "uniform"
    assert j["params"] == {"k": "0.2", "delta": "0.5", "a": "3", "b": "1", "d": "2",
                           "reading": "table", "zero_beta": None}
    assert j["order"] == [1, 8, 3, 6, 4] and j["labels"] == ["X", "X^2", "Y^2", "Z^2", "X-Y"]
    assert j["stopped"] == {"after": 5, "kind": "indeterminate",
                            "candidates": {"V2": "inf-inf", "V5": "0/0", "V7": "0/0", "V9": "0/0",
                                           "V10": "0/0"},
                            "statement": "every remaining candidate is indeterminate"}
    assert len(j["steps"]) == 5
    s1, s2 = j["steps"][0], j["steps"][1]
    assert s1["selected"] == 1 and list(s1["values"]) == [f"V{i}" for i in range(1, 11)]
    assert s1["values"]["V1"] == "0.593147180559945" and s1["values"]["V3"] == "0"
    assert s2["selected"] == 8 and "V1" not in s2["values"]
    assert s2["values"]["V8"] == "+inf" and s2["values"]["V2"] == "-inf" and s2["values"]["V5"] == "0/0"
    assert json.loads(to_json_text(r)) == j


def test_json_beta_and_zero_beta():
    v = fixture.scenario_i("0.2")
    j = to_json(select(v, "mifs", "0.4"))
    assert j["beta"] == 0.4 and j["params"]["zero_beta"] == "explicit"
    j = to_json(select(v, "mifs-u", 0, zero_beta="drop"))
    assert j["beta"] == 0.0 and j["params"]["zero_beta"] == "drop" and j["stopped"] is None


def test_referenced_entropies():
    labels = ["X", "3X+1", "X-Y", "h(X)"]
    assert referenced_entropies("MI(C,X)/h(X) + MI(X,3X+1)/h(3X+1)*h(X-Y)", labels) == [0, 1, 2]
    assert referenced_entropies("ph(X) h(Q)", labels) == []
