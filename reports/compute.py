"""The engine's values at the points the reports use, computed once per run.

The tables (:mod:`fstheory.reports.tables`) and the verification (:mod:`fstheory.reports.verify`)
both need the exact values of each scenario at its default parameters with k = 0.2 and 0.8 (the
paper's points). A :class:`PointStore`, made by the caller and passed down to both, keeps each
point's values under its content key (scenario declaration, parameters, digits), so that a run
that does both evaluates each point once; the relevance classification of a point (the
first-set tables) is kept the same way, and :meth:`PointStore.prefetch` computes the points not
yet kept in worker processes. Nothing is kept between runs that do not share a store.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> s = get_scenario("uniform")
>>> [dict(p) for p in paper_points(s)][0]["k"]
'0.2'
>>> store = PointStore()
>>> v = store.values_at(s, {"k": "0.2"}, 10)
>>> v.mi_class[0].text(10), store.values_at(s, {"k": "0.2"}, 10) is v
('0.5931471806', True)
"""

from __future__ import annotations

from fstheory.scenarios.declaration import BoundScenario, Scenario
from fstheory.engine.derive import declaration_key
from fstheory.engine.evaluate import evaluate
from fstheory.engine.values import ScenarioValues

__all__ = ["K_VALUES", "MAX_POINTS", "HEAVY", "paper_points", "PointStore"]

#: the class weights of the paper's numeric and ordering tables (Section 7)
K_VALUES = ("0.2", "0.8")

#: points kept per cache of a store: far more than the reports use (about a hundred), a bound
#: all the same
MAX_POINTS = 1024


def paper_points(scenario: Scenario, ks=K_VALUES) -> list[dict]:
    """Parameter overrides of the tables: the scenario's defaults with each k of ``ks``."""
    return [{"k": k} for k in ks]


def _params_key(params: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in params.items()))


def _name(build) -> str:
    return f"{build.__module__}.{build.__qualname__}"


class PointStore:
    """The values, relevance reports, bound scenarios and worker-built tables of the points of
    one run, each under its content key; made by the caller (``fstheory tables`` makes one for
    the tables and the verification that follows) and passed down.

    Each cache holds at most :data:`MAX_POINTS` points (the oldest is dropped). A kept value is
    the engine's result for its key, the same object for every reader."""

    def __init__(self):
        self._bound: dict = {}
        self._values: dict = {}
        self._relevance: dict = {}
        self._tables: dict = {}

    def bind(self, scenario: Scenario, params: dict) -> BoundScenario:
        """``scenario.bind(**params)``, kept: the tables and the verification bind the same few
        points hundreds of times, and binding checks every feature at the point."""
        key = (declaration_key(scenario), _params_key(params))
        hit = self._bound.get(key)
        if hit is None:
            hit = self._bound[key] = (scenario, scenario.bind(**params))
        return hit[1]

    def _key(self, scenario: Scenario, params: dict, digits: int) -> tuple:
        bound = self.bind(scenario, params)
        return (declaration_key(scenario), _params_key(bound.params), digits)

    def _cached(self, cache: dict, scenario: Scenario, params: dict, digits: int):
        hit = cache.get(self._key(scenario, params, digits))
        return None if hit is None else hit[1]

    def keep_values(self, scenario: Scenario, params: dict, digits: int, values) -> None:
        """Keep ``values`` as the point's values (computed elsewhere: a worker process)."""
        self._keep(self._values, scenario, params, digits, values)

    def _keep(self, cache: dict, scenario: Scenario, params: dict, digits: int, value) -> None:
        """Keep ``value`` under the point's content key (at most :data:`MAX_POINTS` points)."""
        if len(cache) >= MAX_POINTS:
            cache.pop(next(iter(cache)))  # the oldest point
        cache[self._key(scenario, params, digits)] = (scenario, value)

    def values_at(self, scenario: Scenario, params: dict, digits: int) -> ScenarioValues:
        """``fstheory.engine.evaluate.evaluate`` of ``scenario.bind(**params)``, kept."""
        values = self._cached(self._values, scenario, params, digits)
        if values is None:
            values = evaluate(self.bind(scenario, params), digits)
            self._keep(self._values, scenario, params, digits, values)
        return values

    def relevance_at(self, scenario: Scenario, params: dict, digits: int):
        """:func:`fstheory.engine.relevance.classify` of ``scenario.bind(**params)`` on the
        values of :meth:`values_at`, kept."""
        from fstheory.engine.relevance import classify

        report = self._cached(self._relevance, scenario, params, digits)
        if report is None:
            report = classify(self.bind(scenario, params), digits,
                              self.values_at(scenario, params, digits))
            self._keep(self._relevance, scenario, params, digits, report)
        return report

    def table(self, build, scenario: Scenario, digits: int, ks) -> dict:
        """``build(scenario, digits, ks, store=self)``: the table a worker built with the
        scenario's points (:meth:`prefetch` with ``builders``), else built here (the same table
        either way)."""
        hit = self._tables.get((declaration_key(scenario), _name(build), digits, tuple(ks)))
        if hit is not None:
            return hit[1]
        return build(scenario, digits, ks, store=self)

    def point(self, scenario: Scenario, params: dict, digits: int, joint: bool):
        """One point's values (with the joint ones and the relevance report if ``joint``)."""
        values = self.values_at(scenario, params, digits)
        if not joint:
            return values, None
        values.joint_values()
        return values, self.relevance_at(scenario, params, digits)

    def prefetch(self, points, digits: int, jobs: int = 1, builders=()) -> None:
        """Compute and keep the values of ``points`` (``(scenario, params, joint)`` triples;
        with ``joint`` also their joint values and relevance report) that are not kept yet, in
        ``jobs`` worker processes (:func:`fstheory.parallel.run_tasks`). The values are those of
        :meth:`values_at` and :meth:`relevance_at` whatever ``jobs`` is.

        With several workers the work is balanced: the points of a scenario with joint values
        are one task (they share what a process keeps of the scenario); the other points are
        split into their costly quantities, one task each, and the rest of the point; tasks
        start largest first and go to whichever worker is free. Each quantity is computed once,
        in one process, and the values of a point are assembled here from its quantities
        (:func:`fstheory.engine.evaluate.evaluate` with ``known``). The tables ``builders`` make
        of a scenario with joint values are built in the worker that computed its points (where
        the values their orderings read on first use, sets of features, are at hand) and kept
        for :meth:`table`."""
        todo = []
        for scenario, params, joint in points:
            values = self._cached(self._values, scenario, params, digits)
            if values is None or joint and (
                    values.joint is None
                    or self._cached(self._relevance, scenario, params, digits) is None):
                todo.append((scenario, params, joint, values))
        if jobs <= 1 or len(todo) <= 1:
            # in one process the order costs nothing: the points without joint values first,
            # whose work is Python that a Ctrl-C stops at once (a joint value can sit in one long
            # certified-quadrature call of python-flint, which sees the signal only when it
            # returns)
            for scenario, params, joint, _ in sorted(todo, key=lambda t: t[2]):
                self.point(scenario, params, digits, joint)
            return
        from fstheory.parallel import run_tasks

        tasks = _tasks(self, todo, digits, tuple(builders))
        results = run_tasks(_run_task, [(kind, payload, digits) for _, kind, payload in tasks],
                            jobs=jobs)
        known: dict = {}
        for (_, kind, payload), result in zip(tasks, results):
            if kind == "points":
                scenario, pts, _ = payload
                result, tables = result
                ks = tuple(params.get("k") for params, _ in pts)
                for name, t in tables.items():
                    self._tables[(declaration_key(scenario), name, digits, ks)] = (scenario, t)
                for (params, had), (values, report) in zip(pts, result):
                    if had is None or had.joint is None:  # else keep the parent's own (equal) one
                        self._keep(self._values, scenario, params, digits, values)
                    self._keep(self._relevance, scenario, params, digits, report)
            else:
                scenario, params, _ = payload
                known.setdefault(self._key(scenario, params, digits),
                                 (scenario, params, {}))[2].update(result)
        for scenario, params, quantities in known.values():
            self._keep(self._values, scenario, params, digits,
                       evaluate(self.bind(scenario, params), digits, known=quantities))


# ----- the work of a worker process ------------------------------------------------------------


def _points(scenario: Scenario, todo, digits: int, builders=()) -> tuple:
    """:meth:`PointStore.point` of each (params, known) of ``todo``, in one process and one
    store: the points of one scenario share what a process keeps of it (the models of an
    integral over directions are built once for every value of k). Then the tables
    ``builders`` make of the scenario at these values of k (``build(scenario, digits, ks,
    store=...)``), built here, where the balls and the set values their orderings read were
    computed: {name: table}."""
    store = PointStore()
    results = []
    for params, known in todo:
        if known is not None:
            store.keep_values(scenario, params, digits, known)
        results.append(store.point(scenario, params, digits, True))
    tables = {}
    if all(set(params) == {"k"} for params, _ in todo):
        ks = tuple(params["k"] for params, _ in todo)
        for build in builders:
            tables[_name(build)] = build(scenario, digits, ks, store=store)
    for values, _ in results:  # the set values (balls of this process) stay here
        object.__setattr__(values, "sets", None)
    return results, tables


def _quantities(scenario: Scenario, params: dict, digits: int, keys) -> dict:
    """(value, provenance) of the quantities ``keys`` of one point
    (:meth:`fstheory.engine.evaluate.PointQuantities.get`), in a worker process."""
    from fstheory.engine.quantities import PointQuantities

    engine = PointQuantities(scenario.bind(**params), digits)
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


def _tasks(store: PointStore, todo, digits: int, builders=()) -> list:
    """The work of ``todo`` as (cost, kind, payload) tasks, largest first: the points of a
    scenario with joint values together (one task), the others split into their costly
    quantities and the rest of the point."""
    from fstheory.engine.quantities import PointQuantities, quantity_keys

    tasks, joint = [], {}
    for scenario, params, want_joint, known in todo:
        if want_joint:
            joint.setdefault(declaration_key(scenario), (scenario, []))[1].append((params, known))
            continue
        engine = PointQuantities(store.bind(scenario, params), digits)
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
        engine = PointQuantities(store.bind(scenario, points[0][0]), digits)
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
