"""The engine's values at the points the reports use, computed once per process.

The tables (:mod:`fstheory.reports.tables`) and the verification (:mod:`fstheory.reports.verify`) both need the
exact values of each scenario at its default parameters with k = 0.2 and 0.8 (the paper's
points); a small cache keyed by (scenario, parameters, digits) makes a run that does both
evaluate each point once. The relevance classification of a point (the first-set tables) is kept
the same way, and :func:`prefetch` computes the points not yet kept in worker processes.

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
from fstheory.engine.derive import declaration_key
from fstheory.engine.evaluate import evaluate
from fstheory.engine.values import ScenarioValues

__all__ = ["K_VALUES", "paper_points", "bind", "values_at", "relevance_at", "prefetch",
           "clear_cache"]

#: the class weights of the paper's numeric and ordering tables (Section 7)
K_VALUES = ("0.2", "0.8")

#: points kept per cache: far more than the reports use (about a hundred), a bound all the same
MAX_POINTS = 1024

# (declaration content, parameters, digits) -> the values (resp. relevance report) of the point
_CACHE: dict = {}
_RELEVANCE: dict = {}


def paper_points(scenario: Scenario, ks=K_VALUES) -> list[dict]:
    """Parameter overrides of the tables: the scenario's defaults with each k of ``ks``."""
    return [{"k": k} for k in ks]


def bind(scenario: Scenario, params: dict) -> BoundScenario:
    return scenario.bind(**params)


def _key(scenario: Scenario, params: dict, digits: int) -> tuple:
    bound = scenario.bind(**params)
    return (declaration_key(scenario), tuple(sorted((k, str(v)) for k, v in bound.params.items())),
            digits)


def _cached(cache: dict, scenario: Scenario, params: dict, digits: int):
    return cache.get(_key(scenario, params, digits))


def _keep(cache: dict, scenario: Scenario, params: dict, digits: int, value) -> None:
    if len(cache) >= MAX_POINTS:
        cache.pop(next(iter(cache)))  # the oldest point
    cache[_key(scenario, params, digits)] = value


def values_at(scenario: Scenario, params: dict, digits: int) -> ScenarioValues:
    """``fstheory.engine.evaluate.evaluate`` of ``scenario.bind(**params)``, cached."""
    values = _cached(_CACHE, scenario, params, digits)
    if values is None:
        values = evaluate(scenario.bind(**params), digits)
        _keep(_CACHE, scenario, params, digits, values)
    return values


def relevance_at(scenario: Scenario, params: dict, digits: int):
    """:func:`fstheory.engine.relevance.classify` of ``scenario.bind(**params)`` on the values of
    :func:`values_at`, cached."""
    from fstheory.engine.relevance import classify

    report = _cached(_RELEVANCE, scenario, params, digits)
    if report is None:
        report = classify(scenario.bind(**params), digits, values_at(scenario, params, digits))
        _keep(_RELEVANCE, scenario, params, digits, report)
    return report


def _point(scenario: Scenario, params: dict, digits: int, joint: bool, known):
    """One point's values (with the joint ones and the relevance report if ``joint``), computed
    in a worker process from what the parent already has (``known`` values, or None)."""
    if known is not None:
        _keep(_CACHE, scenario, params, digits, known)
    values = values_at(scenario, params, digits)
    if not joint:
        return values, None
    values.joint_values()
    return values, relevance_at(scenario, params, digits)


def prefetch(points, digits: int, jobs: int = 1) -> None:
    """Compute and keep the values of ``points`` (``(scenario, params, joint)`` triples; with
    ``joint`` also their joint values and relevance report) that are not kept yet, in ``jobs``
    worker processes (joblib). The values are those of :func:`values_at` and
    :func:`relevance_at` whatever ``jobs`` is: each point is computed whole in one process."""
    todo = []
    for scenario, params, joint in points:
        values = _cached(_CACHE, scenario, params, digits)
        if values is None or joint and (values.joint is None
                                        or _cached(_RELEVANCE, scenario, params, digits) is None):
            todo.append((scenario, params, joint, values))
    if jobs <= 1 or len(todo) <= 1:
        # in one process the order costs nothing: the points without joint values first, whose
        # work is Python that a Ctrl-C stops at once (a joint value can sit in one long
        # certified-quadrature call of python-flint, which sees the signal only when it returns)
        for scenario, params, joint, _ in sorted(todo, key=lambda t: t[2]):
            _point(scenario, params, digits, joint, None)
        return
    from joblib import Parallel, delayed

    results = Parallel(n_jobs=min(jobs, len(todo)))(
        delayed(_point)(scenario, params, digits, joint, known)
        for scenario, params, joint, known in todo)
    for (scenario, params, _, known), (values, report) in zip(todo, results):
        if known is None or known.joint is None:  # else keep the parent's own (equal) object
            _keep(_CACHE, scenario, params, digits, values)
        if report is not None:
            _keep(_RELEVANCE, scenario, params, digits, report)


def clear_cache() -> None:
    _CACHE.clear()
    _RELEVANCE.clear()
    _RELEVANCE.clear()
