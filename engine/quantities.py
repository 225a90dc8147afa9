"""One bound scenario's quantities, each on its own: the point engine that
:func:`fstheory.engine.evaluate.evaluate`, the joint quantities and the atlas share.

:class:`PointQuantities` owns the point's state (the parameters' balls, the numerical route, the
balls computed so far) and proves h(V_i), MI(C, V_i) and MI(V_i, V_j) one at a time
(:func:`fstheory.engine.prove.prove`); :meth:`PointQuantities.values` collects them all into
:class:`~fstheory.engine.values.ScenarioValues`.
"""

from __future__ import annotations

from fstheory.engine.derive import derive
from fstheory.engine.point import Point
from fstheory.engine.prove import ENTROPY, MI, MI_CLASS, prove
from fstheory.engine.resolve import PointDerivations
from fstheory.engine.values import ScenarioValues
from fstheory.scenarios.declaration import BoundScenario
from fstheory.theory.extended import ExtendedReal

__all__ = ["PointQuantities", "check_digits", "quantities_for", "quantity_keys"]


def check_digits(digits) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1 or digits > 100:
        raise ValueError(f"digits must be an integer in [1, 100] (got {digits!r})")
    return digits


class PointQuantities:
    """Each quantity of :func:`fstheory.engine.evaluate.evaluate` on its own, as (value,
    provenance) at ``digits``: the same values as ``evaluate`` (which is built from it), for
    callers that need only a few (the atlas, locating a crossing between two candidates). It
    owns the point's state (the parameters' balls, the numerical route, the balls computed so
    far)."""

    def __init__(self, bound: BoundScenario, digits: int):
        self.bound, self.digits = bound, check_digits(digits)
        self.point = Point(bound)
        self.derivations = PointDerivations(self.point, derive(bound.scenario))
        self.labels = self.point.labels

    def derivation(self, q: tuple):
        """The derivation at the point of ``q`` = ("h", i), ("mi_c", i) or ("mi", i, j)."""
        return self.derivations.get(q)

    def entropy(self, i: int) -> tuple[ExtendedReal, str]:
        """h(V_i)."""
        return prove(self.derivation(("h", i)), self.point, self.digits,
                     f"h({self.labels[i]})", ENTROPY)

    def mi_class(self, i: int) -> tuple[ExtendedReal, str]:
        """MI(C, V_i)."""
        return prove(self.derivation(("mi_c", i)), self.point, self.digits,
                     f"MI(C,{self.labels[i]})", MI_CLASS)

    def mi_pair(self, i: int, j: int) -> tuple[ExtendedReal, str]:
        """MI(V_i, V_j) (+inf for i == j, 0 for a feature constant at the point)."""
        return prove(self.derivation(("mi", i, j)), self.point, self.digits,
                     f"MI({self.labels[i]},{self.labels[j]})", MI)

    def get(self, q: tuple) -> tuple[ExtendedReal, str]:
        """(value, provenance) of ``q`` = ("h", i), ("mi_c", i) or ("mi", i, j)."""
        if q[0] == "h":
            return self.entropy(q[1])
        if q[0] == "mi_c":
            return self.mi_class(q[1])
        return self.mi_pair(q[1], q[2])

    def values(self, progress=None, joint_source=None, known: dict | None = None) -> ScenarioValues:
        """Every h(V_i), MI(C, V_i) and MI(V_i, V_j), with their provenance, as
        :class:`ScenarioValues` carrying ``joint_source``; ``progress(done, total)``, if given,
        is called after each quantity. ``known`` maps quantities (:func:`quantity_keys`) to the
        (value, provenance) that :meth:`get` gave for them at the same point and digits (in
        another process); they are taken as they are, the others computed here."""
        labels = self.labels
        n = len(labels)
        prov: dict = {}
        total = 2 * n + n * (n + 1) // 2
        done = 0

        def tick():
            nonlocal done
            done += 1
            if progress is not None:
                progress(done, total)

        known = known or {}

        def get(q):
            hit = known.get(q)
            return hit if hit is not None else self.get(q)

        entropy, mi_class = [], []
        for i in range(n):
            v, why = get(("h", i))
            entropy.append(v)
            prov[("h", i)] = why
            tick()
            v, why = get(("mi_c", i))
            mi_class.append(v)
            prov[("mi_c", i)] = why
            tick()
        matrix = [[None] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                v, why = get(("mi", i, j))
                matrix[i][j] = v.named(f"MI({labels[i]},{labels[j]})")
                matrix[j][i] = v.named(f"MI({labels[j]},{labels[i]})")
                prov[("mi", i, j)] = prov[("mi", j, i)] = why
                tick()
        return ScenarioValues(
            scenario=self.bound.scenario.name,
            params=dict(self.bound.params),
            labels=tuple(labels),
            entropy=tuple(entropy),
            mi_class=tuple(mi_class),
            mi_features=tuple(map(tuple, matrix)),
            digits=self.digits,
            provenance=prov,
            joint_source=joint_source,
        )


def quantity_keys(n: int) -> list[tuple]:
    """The quantities of :meth:`PointQuantities.values` for ``n`` features, in its order: h and
    MI(C, .) of each feature, then MI(V_i, V_j) for i <= j."""
    keys = [q for i in range(n) for q in (("h", i), ("mi_c", i))]
    return keys + [("mi", i, j) for i in range(n) for j in range(i, n)]


def quantities_for(bound: BoundScenario, digits: int, values: ScenarioValues | None = None):
    """The point engine the values were made with (their joint source's), when it is for the
    same point and digits; else a new one."""
    source = getattr(values, "joint_source", None)
    engine = getattr(source, "quantities", None)
    if engine is not None and engine.bound == bound and engine.digits == digits:
        return engine
    return PointQuantities(bound, digits)
