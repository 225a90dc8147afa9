"""The study's hits come from relevance-optimal sets given as data (indices, any size), never
from feature labels."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from fstheory.scenarios.scenario_file import parse_scenario_text, shipped_scenario_path
from fstheory.simulation.errors import SimulationInputError
from fstheory.simulation.study import run_study
from paper_sets import PAPER_PAIRS

RUN = dict(k=(0.2, 0.8), sizes=(200,), reps=40, seed=3, methods=["mrmr", ("mifs-u", 0.7), "nmifs"])


def _relabelled(text: str) -> str:
    """Every feature gets a new label (F1..F10) and no template; nothing else changes."""
    count = iter(range(1, 100))
    text = re.sub(r'^label = .*\n', "", text, flags=re.M)
    text = re.sub(r'^template = .*\n', "", text, flags=re.M)
    return re.sub(r"^\[\[features\]\]\n", lambda m: f'[[features]]\nlabel = "F{next(count)}"\n', text, flags=re.M)


def test_labels_play_no_role():
    text = shipped_scenario_path("uniform").read_text()
    original = parse_scenario_text(text)
    relabelled = parse_scenario_text(_relabelled(text))
    assert [f.label for f in relabelled.features][:3] == ["F1", "F2", "F3"]
    assert [f.label for f in original.features][:3] != ["F1", "F2", "F3"]
    sets = {"uniform": PAPER_PAIRS}
    a = run_study(scenarios=(original,), optimal_sets=sets, **RUN)
    b = run_study(scenarios=(relabelled,), optimal_sets=sets, **RUN)
    assert [r["hits"] for r in a.rows] == [r["hits"] for r in b.rows]
    assert any(r["hits"] for r in a.rows) and any(r["hits"] < r["reps"] for r in a.rows)


def test_a_single_feature_set():
    """At k = 0 the class is 1{X >= 0}: {X} and {3X+1} are the optimal sets; the first feature,
    the argmax of MI(C, V), is one of them in every replication; {Y} never is."""
    run = dict(scenarios=("uniform",), k=(0.0,), sizes=(500,), reps=30, seed=1, methods=["mrmr"])
    hit = run_study(optimal_sets={"uniform": [{0}, {1}]}, **run).rows[0]
    miss = run_study(optimal_sets={"uniform": [{6}]}, **run).rows[0]
    assert hit["frequency"] == 1.0 and miss["frequency"] == 0.0


def test_sets_of_three_need_three_steps():
    run = dict(scenarios=("normal",), k=(0.8,), sizes=(300,), reps=30, seed=2, methods=["maxmifs"])
    every = [set(c) for c in combinations(range(10), 3)]
    assert run_study(optimal_sets={"normal": every}, **run).rows[0]["frequency"] == 1.0
    # the triples that contain the pair (X, Y): a hit whenever X and Y are among the first three,
    # so at least every replication whose first two are X and Y
    with_xy = [{0, 6, j} for j in range(10) if j not in (0, 6)]
    three = run_study(optimal_sets={"normal": with_xy}, **run).rows[0]["hits"]
    two = run_study(optimal_sets={"normal": [{0, 6}]}, **run).rows[0]["hits"]
    assert three >= two > 0


@pytest.mark.parametrize("sets, needle", [
    ([], "non-empty list of non-empty sets"),
    ([set()], "non-empty list of non-empty sets"),
    ([{0, 10}], "in [0, 10)"),
    ([{0.5}], "0-based feature indices"),
])
def test_bad_sets_one_clear_message(sets, needle):
    with pytest.raises(SimulationInputError) as err:
        run_study(scenarios=("uniform",), sizes=(50,), reps=2, optimal_sets={"uniform": sets})
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_a_missing_scenario_entry():
    with pytest.raises(SimulationInputError, match="no entry for scenario 'normal'"):
        run_study(scenarios=("normal",), sizes=(50,), reps=2, optimal_sets={"uniform": PAPER_PAIRS})
