"""Never rank past an unknown (orderings.greedy rule 6, orderings.bounds): a candidate whose
objective needs a not-computed value is passed over only when no completion of the missing
values could make it win; otherwise the step stops as undecided and ``fstheory order`` exits 3.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.cli import main
from fstheory.orderings.bounds import Interval, point
from fstheory.orderings.explain import explain, summary, to_json
from fstheory.orderings.greedy import select
from fstheory.orderings.methods import get_method, method_names
from report_values import values_at  # kept: shared with the other tests
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.extended import NEG_INF, POS_INF, xr
from orderings_strategies import STEPS, joint_values, scenario_values, with_sets
import pytest

DATA = Path(__file__).parents[1] / "data"


# ----- soundness: every completion of the missing values agrees with what was decided -------------


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(scenario_values(min_n=3, max_n=5, unknown_pairs=True), st.data())
def test_decided_steps_hold_for_every_completion(drawn, data):
    """With some MI(C;{Vi,Vj}) not computed (and the sets that hold them), each decided step must
    be the step of the fully known values for any completion within the information bounds; a
    selection that finished (complete or stopped by indeterminates) must be exactly the
    completed one. The 3-D methods and those of the libraries that read joint values."""
    v, base, steps, unknown = drawn
    pairs = [(i, j) for i in range(v.n_features) for j in range(i + 1, v.n_features)]
    filled = list(steps)
    for p, ij in enumerate(pairs):
        if ij in unknown:
            filled[p] = data.draw(st.sampled_from(STEPS))
    complete = with_sets(base.with_joint(joint_values(base, filled)))
    rows = [(name, reading, None, None) for name in method_names(family="3d") + [
        "cmi", "njmim", "jmi3", "condred"] for reading, _ in get_method(name).distinct_readings()]
    rows += [("beta-gamma", "original", "1/|S|", "1/|S|"), ("beta-gamma", "feast", "1/2", "1")]
    for name, reading, beta, gamma in rows:
        r = select(v, name, beta, reading=reading, gamma=gamma)
        c = select(complete, name, beta, reading=reading, gamma=gamma)
        assert c.order[: len(r.order)] == r.order, (name, reading)
        if r.stop is None or r.stop.kind == "indeterminate":
            assert c.order == r.order and (c.stop is None) == (r.stop is None), (name, reading)
        else:
            assert r.stop.blocking and all(b.unknown for b in r.stop.blocking)


def test_interval_rules():
    with mpmath.workdps(20):
        a = Interval(xr(0), xr(1))
        assert (a * point(POS_INF)).maybe and (a * point(POS_INF)).sure is None
        assert (point(xr(0)) * point(POS_INF)).sure.value == "0*inf"
        assert (point(xr(1)) / a).maybe                          # x/0 possible
        assert (point(xr(0)) / point(xr(0))).sure.value == "0/0"
        assert (a + point(NEG_INF)).hi.is_neg_inf
        b = Interval(xr(-2), xr(3)) * Interval(xr(-1), xr(2))
        assert (b.lo.value, b.hi.value) == (-4, 6)


# ----- Scenario I with two joint values masked as not computed ------------------------------------


def _masked(v, pairs):
    """``v`` with MI(C;{Vi,Vj}) (both orders) replaced by "not computed" for each labelled pair:
    the state of a route that cannot reach them (as the joint branch's route could not reach
    MI(C;{Y^2,X-Y}) and MI(C;{X-Y,X^2}) before the engine's set routes)."""
    from dataclasses import replace

    from fstheory.theory.extended import ExtendedReal, Form

    jv = v.joint_values()
    m = [list(row) for row in jv.mi_class_pair]
    for a, b in pairs:
        i, j = v.labels.index(a), v.labels.index(b)
        for r, c in ((i, j), (j, i)):
            label = f"MI(C;{{{v.labels[r]},{v.labels[c]}}})"
            m[r][c] = ExtendedReal.indeterminate(Form.NOT_COMPUTED, f"{label} not computed: masked")
    return v.with_joint(replace(jv, mi_class_pair=tuple(map(tuple, m))))


def test_jmi_passes_over_unknowns_that_cannot_win_then_stops():
    full = values_at(get_scenario("uniform"), {"k": "0.2"}, 30)
    v = _masked(full, [("Y^2", "X-Y"), ("X-Y", "X^2")])
    r = select(v, "jmi")
    assert r.order_labels == ["X", "X-Y", "Y", "3X+1"]
    # step 2: MI(C;{X-Y,X}) = MI(C;{Y,X}) = ln 2, an exact tie won by the lower index
    assert r.steps[1].tied == (6,)
    # step 3: Y^2 and X^2 need MI(C;{Y^2,X-Y}), MI(C;{X-Y,X^2}) but are bounded below Y's 2 ln 2
    unknown = {c.label: c for c in r.steps[2].unknown}
    assert set(unknown) == {"Y^2", "X^2"}
    with mpmath.workdps(30):
        assert unknown["Y^2"].bound.hi.value < r.steps[2].winner.value.value
    assert r.undecided and r.stop.after == 4
    assert {c.label for c in r.stop.blocking} == {"Y^2", "X^2"}
    assert r.stop.statement.startswith("step 5 cannot be decided: MI(C;{Y^2,X-Y}) not computed: ")
    text = explain(r)
    assert "not computed, and cannot win" in text and "This is not the answer" in text
    assert summary(r).splitlines()[1].startswith("X, X-Y, Y, 3X+1 -- step 5 cannot be decided")
    j = to_json(r)
    assert j["stopped"]["kind"] == "undecided" and j["stopped"]["undecided"]["step"] == 5
    assert set(j["stopped"]["undecided"]["blocking"]) == {"V3", "V8"}
    # with every value computed, the same four steps and then the rest
    done = select(full, "jmi")
    assert done.stop is None and done.order_labels[:4] == r.order_labels
    assert done.order_labels[4:6] == ["Y^2", "X^2"]


def test_cife_candidates_indeterminate_whatever_the_missing_value():
    """CIFE's Y^2 after Y: MI(Y^2,Y) = MI(Y^2;Y|C) = +inf give inf - inf whatever the other
    terms are: indeterminate, not unknown."""
    v = values_at(get_scenario("uniform"), {"k": "0.2"}, 30)
    r = select(v, "cife")
    assert not r.undecided and r.stop.kind == "indeterminate"
    y2 = next(c for c in r.stop.candidates if c.label == "Y^2")
    assert y2.form == "inf-inf" and not y2.unknown


# ----- the command line: exit 3 ------------------------------------------------------------------


def test_cli_exit_3_when_a_step_is_undecided(capsys):
    code = main(["order", "--scenario-file", str(DATA / "unreachable_feature.toml"), "--k", "0.5",
                 "--method", "mrmr", "--digits", "15"])
    out, err = capsys.readouterr()
    assert code == 3 and err == ""
    # the first value the step cannot do without: MI(C,X^3-X), out of reach, unless MI(C,X)
    # before it is only an estimate (the numerical route without a proved bound)
    assert ("step 1 cannot be decided: MI(C,X^3-X) not computed" in out
            or "step 1 cannot be decided: MI(C,X) not computed: not proved" in out)
    code = main(["order", "--scenario-file", str(DATA / "unreachable_feature.toml"), "--k", "0.5",
                 "--method", "jmi", "--json"])
    obj = json.loads(capsys.readouterr()[0])
    assert code == 3 and obj["stopped"]["kind"] == "undecided"
    # an indeterminate stop is an answer: exit 0 (the digits do not matter to inf - inf)
    assert main(["order", "--scenario", "uniform", "--k", "0.2", "--method", "cife",
                 "--digits", "12"]) == 0
