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

__all__ = ["K_VALUES", "paper_points", "bind", "values_at", "relevance_at", "prefetch", "table",
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


_BOUND: dict = {}


def bind(scenario: Scenario, params: dict) -> BoundScenario:
    """``scenario.bind(**params)``, kept: the tables and the verification bind the same few
    points hundreds of times, and binding checks every feature at the point."""
    key = (declaration_key(scenario), tuple(sorted((k, str(v)) for k, v in params.items())))
    hit = _BOUND.get(key)
    if hit is None:
        hit = _BOUND[key] = (scenario, scenario.bind(**params))
    return hit[1]


def _key(scenario: Scenario, params: dict, digits: int) -> tuple:
    bound = bind(scenario, params)
    return (declaration_key(scenario), tuple(sorted((k, str(v)) for k, v in bound.params.items())),
            digits)


def _cached(cache: dict, scenario: Scenario, params: dict, digits: int):
    hit = cache.get(_key(scenario, params, digits))
    return None if hit is None else hit[1]


def _keep(cache: dict, scenario: Scenario, params: dict, digits: int, value) -> None:
    """Keep ``value`` under the point's content key (at most :data:`MAX_POINTS` points)."""
    if len(cache) >= MAX_POINTS:
        cache.pop(next(iter(cache)))  # the oldest point
    cache[_key(scenario, params, digits)] = (scenario, value)


def values_at(scenario: Scenario, params: dict, digits: int) -> ScenarioValues:
    """``fstheory.engine.evaluate.evaluate`` of ``scenario.bind(**params)``, cached."""
    values = _cached(_CACHE, scenario, params, digits)
    if values is None:
        values = evaluate(bind(scenario, params), digits)
        _keep(_CACHE, scenario, params, digits, values)
    return values


def relevance_at(scenario: Scenario, params: dict, digits: int):
    """:func:`fstheory.engine.relevance.classify` of ``scenario.bind(**params)`` on the values of
    :func:`values_at`, cached."""
    from fstheory.engine.relevance import classify

    report = _cached(_RELEVANCE, scenario, params, digits)
    if report is None:
        report = classify(bind(scenario, params), digits, values_at(scenario, params, digits))
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


def _points(scenario: Scenario, todo, digits: int, builders=()) -> tuple:
    """:func:`_point` of each (params, known) of ``todo``, in one process: the points of one
    scenario share what a process keeps of it (the models of an integral over directions
    are built once for every value of k). Then the tables ``builders`` make of the scenario at
    these values of k (``build(scenario, digits, ks)``), built here, where the balls and the
    set values their orderings read were computed: {name: table}."""
    results = [_point(scenario, params, digits, True, known) for params, known in todo]
    tables = {}
    if all(set(params) == {"k"} for params, _ in todo):
        ks = tuple(params["k"] for params, _ in todo)
        for build in builders:
            tables[_name(build)] = build(scenario, digits, ks)
    for values, _ in results:  # the set values (balls of this process) stay here
        object.__setattr__(values, "sets", None)
    return results, tables


#: tables built by the worker that computed their scenario's points: (id, name, digits, ks) ->
#: (scenario, table)
_TABLES: dict = {}


def _name(build) -> str:
    return f"{build.__module__}.{build.__qualname__}"


def table(build, scenario: Scenario, digits: int, ks) -> dict:
    """``build(scenario, digits, ks)``: the table a worker built with the scenario's points
    (:func:`prefetch` with ``builders``), else built here (the same table either way)."""
    hit = _TABLES.get((declaration_key(scenario), _name(build), digits, tuple(ks)))
    if hit is not None:
        return hit[1]
    return build(scenario, digits, ks)


#: the point engines of a worker process, by content (a worker is sent a new copy of the scenario
#: with each task): the quantities of one point computed there share its balls and H(C)
_ENGINES: dict = {}


def _quantities(scenario: Scenario, params: dict, digits: int, keys) -> dict:
    """(value, provenance) of the quantities ``keys`` of one point
    (:meth:`fstheory.engine.evaluate.PointQuantities.get`), in a worker process."""
    from fstheory.engine.derive import ScenarioContent
    from fstheory.engine.quantities import PointQuantities

    bound = scenario.bind(**params)
    key = (ScenarioContent(scenario), tuple(sorted((k, str(v)) for k, v in bound.params.items())), digits)
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = PointQuantities(bound, digits)
    return {q: engine.get(q) for q in keys}


def _cost(d) -> float:
    """A rough relative cost of proving the derivation ``d``, to start the largest work first:
    the numerical route's class quantities (an expectation of H_b of an integral), its other
    quantities, the integrals of the specialised kinds, then everything elementary."""
    from fstheory.engine.kinds import Linear, Numerical

    d = getattr(d, "target", d)
    if isinstance(d, Linear):
        return sum(_cost(t) for _, t in d.terms)
    if isinstance(d, Numerical):
        return 5.0 if d.quantity in ("mi_class", "mi_class_set", "class_entropy") else 1.0
    return 0.3 if d.integral else 0.01


#: a quantity at least this costly (:func:`_cost`) is a task of its own; the rest of a point is one
HEAVY = 1.0


def _tasks(todo, digits: int, builders=()) -> list:
    """The work of ``todo`` as (cost, kind, payload) tasks, largest first: the points of a
    scenario with joint values together (one task), the others split into their costly
    quantities and the rest of the point."""
    from fstheory.engine.quantities import PointQuantities, quantity_keys

    tasks, joint = [], {}
    for scenario, params, want_joint, known in todo:
        if want_joint:
            joint.setdefault(declaration_key(scenario), (scenario, []))[1].append((params, known))
            continue
        engine = PointQuantities(bind(scenario, params), digits)
        light, heavy = [], {}
        for q in quantity_keys(len(engine.labels)):
            d = engine.derivation(q)
            cost = _cost(d)
            if cost >= HEAVY:  # quantities with one derivation (equal by a symmetry) together
                heavy.setdefault(d.key(), (cost, []))[1].append(q)
            else:
                light.append(q)
        for cost, keys in heavy.values():
            tasks.append((cost, "quantities", (scenario, params, keys)))
        if light:
            tasks.append((len(light) * 0.01, "quantities", (scenario, params, light)))
    for scenario, points in joint.values():
        engine = PointQuantities(bind(scenario, points[0][0]), digits)
        n = len(engine.labels)
        single = sum(_cost(engine.derivation(q)) for q in quantity_keys(n))
        # the joint quantities and the relevance report: a few costly integrals per point
        tasks.append((10.0 + len(points) * single, "points", (scenario, points, builders)))
    tasks.sort(key=lambda t: -t[0])
    return tasks


def _run_task(task):
    kind, payload, digits = task
    if kind == "points":
        scenario, points, builders = payload
        return _points(scenario, points, digits, builders)
    scenario, params, keys = payload
    return _quantities(scenario, params, digits, keys)


def prefetch(points, digits: int, jobs: int = 1, builders=()) -> None:
    """Compute and keep the values of ``points`` (``(scenario, params, joint)`` triples; with
    ``joint`` also their joint values and relevance report) that are not kept yet, in ``jobs``
    worker processes (:func:`fstheory.parallel.run_tasks`). The values are those of :func:`values_at` and
    :func:`relevance_at` whatever ``jobs`` is.

    With several workers the work is balanced: the points of a scenario with joint values are
    one task (they share what a process keeps of the scenario); the other points are split into
    their costly quantities, one task each, and the rest of the point; tasks start largest first
    and go to whichever worker is free. Each quantity is computed once, in one process, and the
    values of a point are assembled here from its quantities
    (:func:`fstheory.engine.evaluate.evaluate` with ``known``). The tables ``builders`` make of
    a scenario with joint values are built in the worker that computed its points (where the
    values their orderings read on first use, sets of features, are at hand) and kept for
    :func:`table`."""
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
    from fstheory.parallel import run_tasks

    tasks = _tasks(todo, digits, tuple(builders))
    results = run_tasks(_run_task, [(kind, payload, digits) for _, kind, payload in tasks],
                        jobs=jobs)
    known: dict = {}
    for (_, kind, payload), result in zip(tasks, results):
        if kind == "points":
            scenario, pts, _ = payload
            result, tables = result
            ks = tuple(params.get("k") for params, _ in pts)
            for name, t in tables.items():
                _TABLES[(declaration_key(scenario), name, digits, ks)] = (scenario, t)
            for (params, had), (values, report) in zip(pts, result):
                if had is None or had.joint is None:  # else keep the parent's own (equal) object
                    _keep(_CACHE, scenario, params, digits, values)
                _keep(_RELEVANCE, scenario, params, digits, report)
        else:
            scenario, params, _ = payload
            known.setdefault(_key(scenario, params, digits), (scenario, params, {}))[2].update(
                result)
    for scenario, params, quantities in known.values():
        _keep(_CACHE, scenario, params, digits,
              evaluate(bind(scenario, params), digits, known=quantities))


def clear_cache() -> None:
    _BOUND.clear()
    _TABLES.clear()
    _CACHE.clear()
    _RELEVANCE.clear()
