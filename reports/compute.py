"""The engine's values at the points the reports use, computed once per process.

The tables (:mod:`fstheory.reports.tables`) and the verification (:mod:`fstheory.reports.verify`) both need the
exact values of each scenario at its default parameters with k = 0.2 and 0.8 (the paper's
points); a small cache keyed by (scenario, parameters, digits) makes a run that does both
evaluate each point once.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> s = get_scenario("uniform")
>>> [dict(p) for p in paper_points(s)][0]["k"]
'0.2'
>>> v = values_at(s, {"k": "0.2"}, 10)
>>> v.mi_class[0].text(10), values_at(s, {"k": "0.2"}, 10) is v
('0.5931471806', True)
"""

from __future__ import annotations

from fstheory.scenarios.declaration import BoundScenario, Scenario
from fstheory.scenarios.evaluate import evaluate
from fstheory.theory.values import ScenarioValues

__all__ = ["K_VALUES", "paper_points", "bind", "values_at", "clear_cache"]

#: the class weights of the paper's numeric and ordering tables (Section 7)
K_VALUES = ("0.2", "0.8")

_CACHE: dict = {}


def paper_points(scenario: Scenario, ks=K_VALUES) -> list[dict]:
    """Parameter overrides of the tables: the scenario's defaults with each k of ``ks``."""
    return [{"k": k} for k in ks]


def bind(scenario: Scenario, params: dict) -> BoundScenario:
    return scenario.bind(**params)


def _key(scenario: Scenario, params: dict, digits: int) -> tuple:
    bound = scenario.bind(**params)
    return (scenario.name, id(scenario), tuple(sorted((k, str(v)) for k, v in bound.params.items())),
            digits)


def values_at(scenario: Scenario, params: dict, digits: int) -> ScenarioValues:
    """``fstheory.scenarios.evaluate.evaluate`` of ``scenario.bind(**params)``, cached."""
    key = _key(scenario, params, digits)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is scenario:
        return hit[1]
    values = evaluate(scenario.bind(**params), digits)
    _CACHE[key] = (scenario, values)
    return values


def clear_cache() -> None:
    _CACHE.clear()
