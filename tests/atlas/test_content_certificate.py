"""Closed forms and atlas certificates decided by a scenario's content, not by where it was
declared: a scenario file with Scenario I's laws and rule (tests/data/atlas_tiny.toml) gets
Scenario I's closed forms for MI(C, V) and the same certificates as ``--scenario uniform``;
a file whose laws differ (uniform but not centred) does not."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from fstheory.atlas.sweep import AtlasSpec, atlas
from fstheory.engine.derive import derive
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.scenarios.scenario_file import load_scenario_file
from fstheory.theory.uniform_class import mi_class_expression

TINY = str(Path(__file__).parents[1] / "data" / "atlas_tiny.toml")


def test_file_with_scenario_one_content_gets_its_closed_forms():
    scenario = load_scenario_file(TINY)
    d = derive(scenario)
    k = scenario.symbols["k"]
    assert [m.kind for m in d.mi_class] == ["closed", "closed", "structure"]
    assert sp.simplify(d.mi_class[0].expr - mi_class_expression("X", k)) == 0
    assert sp.simplify(d.mi_class[1].expr - mi_class_expression("Y", k)) == 0
    assert d.mi_class[1].name == "uniform class series"


@pytest.mark.parametrize("k", ["1/10", "3/10", "4/5"])
def test_file_values_equal_the_registered_scenario_values(k):
    """MI(C, X) and MI(C, Y) of the file (laws Unif(-1, 1)) against Scenario I at delta = 1,
    whose values the second-route tests check against the numerical route."""
    mine = evaluate(load_scenario_file(TINY).bind(k=k), 30)
    ref = evaluate(get_scenario("uniform").bind(k=k, delta=1), 30)
    for i, j in ((0, 0), (1, 6)):  # X, Y in the file; X, Y in Scenario I
        assert mine.mi_class[i].text(30) == ref.mi_class[j].text(30)


@pytest.mark.slow
@pytest.mark.parametrize("method, reading", [("mrmr", None), ("jmi", "unified")])
def test_file_is_certified_like_the_registered_scenario(method, reading):
    r = atlas(AtlasSpec(scenario_file=TINY, method=method, reading=reading, parameter="k",
                        lo="0", hi="1", digits=20, grid=4))
    assert r.certificate["certified"] is True, r.certificate.get("reason")


@pytest.mark.slow
def test_other_uniform_laws_are_not_taken_for_scenario_one(tmp_path):
    """Unif(0, 1) laws: P(C = 1) is not 1/2 and the closed forms do not hold; MI(C, X) stays with
    the numerical route and the certificate names it."""
    text = Path(TINY).read_text().replace('low = "-1"', 'low = "0"')
    path = tmp_path / "shifted.toml"
    path.write_text(text)
    d = derive(load_scenario_file(str(path)))
    assert d.mi_class[0].kind == "numeric" and d.mi_class[1].kind == "numeric"
    r = atlas(AtlasSpec(scenario_file=str(path), method="mrmr", parameter="k", lo="1/4",
                        hi="3/4", digits=20, grid=4))
    assert not r.certificate["certified"] and "MI(C,X)" in r.certificate["reason"]
