"""Evaluate a bound scenario: every entropy and MI as an extended real whose printed digits are
proved, to the requested digits.

For each quantity the derivation at the point (:mod:`fstheory.engine.resolve`: structure decided
with the bound numbers first, then the kinds that need the numbers, then the general derivation
of :mod:`fstheory.engine.derive`) is evaluated by :func:`fstheory.engine.prove.prove`: exactly
(structure, exact sympy values: 0, +inf, -inf), or as a ball whose radius proves ``digits``
significant digits, raising the working precision as needed (Ziv's strategy), or "not computed"
(:data:`fstheory.theory.extended.Form.NOT_COMPUTED`) with the reason -- out of the precision
budget, indistinguishable from 0 without a structural reason for an exact 0, or only an estimate
(the numerical route without a proved error bound: shown marked, never ranked on). Invariants are
checked on every value (0 <= MI, MI(C, V) <= ln 2); a violation is an internal error.

Each value is labelled ("h(X)", "MI(C,X)", "MI(X,X-Y)") so that the extended-real arithmetic of
the orderings can say which term made an objective indeterminate; ``provenance`` says how each
was obtained (and why a value is missing).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=10)
>>> v.entropy[0].text(10), v.mi_class[0].text(10), v.mi(0, 3).text(10)
('0', '0.5931471806', '0.5000000000')
>>> v.mi(0, 1).text(), v.mi_class[7].text()
('+inf', '0')
>>> tiny = evaluate(get_scenario("uniform").bind(k="1e-60"), digits=10)
>>> tiny.mi_class[6].text(10)          # MI(C, Y) = k^2/6 (1 + O(k^2)): no cancellation
'1.666666667e-121'
"""

from __future__ import annotations

import sys
import time

from fstheory.engine.derive import derive
from fstheory.engine.evaluate_joint import JointSource
from fstheory.engine.point import Point
from fstheory.engine.prove import ENTROPY, MI, MI_CLASS, prove
from fstheory.engine.resolve import PointDerivations
from fstheory.engine.values import ScenarioValues
from fstheory.scenarios.declaration import BoundScenario
from fstheory.theory.extended import ExtendedReal

__all__ = ["evaluate", "PointQuantities", "check_digits", "quantity_keys"]


def check_digits(digits) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1 or digits > 100:
        raise ValueError(f"digits must be an integer in [1, 100] (got {digits!r})")
    return digits


class PointQuantities:
    """Each quantity of :func:`evaluate` on its own, as (value, provenance) at ``digits``: the
    same values as :func:`evaluate` (which is built from it), for callers that need only a few
    (the atlas, locating a crossing between two candidates). It owns the point's state (the
    parameters' balls, the numerical route, the balls computed so far)."""

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


def quantity_keys(n: int) -> list[tuple]:
    """The quantities of :func:`evaluate` for ``n`` features, in its order: h and MI(C, .) of
    each feature, then MI(V_i, V_j) for i <= j."""
    keys = [q for i in range(n) for q in (("h", i), ("mi_c", i))]
    return keys + [("mi", i, j) for i in range(n) for j in range(i, n)]


def _stderr_progress():
    """A counter on stderr after the first few seconds (only when stderr is a terminal)."""
    if not sys.stderr.isatty():
        return None
    start = time.monotonic()

    def show(done: int, total: int) -> None:
        if time.monotonic() - start < 3:
            return
        sys.stderr.write(f"\rvalues: {done}/{total} quantities")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def evaluate(bound: BoundScenario, digits: int = 30, progress=None,
             known: dict | None = None) -> ScenarioValues:
    """All entropies and MIs of ``bound`` with ``digits`` significant digits proved.

    ``progress(done, total)``, if given, is called after each quantity; by default a counter is
    shown on stderr when it is a terminal and the evaluation takes more than a few seconds.
    ``known`` maps quantities (:func:`quantity_keys`) to the (value, provenance) that
    :meth:`PointQuantities.get` gave for them at the same point and digits (in another process:
    the tables share the quantities of one point between worker processes); they are taken as
    they are, the others computed here.
    """
    quantities = PointQuantities(bound, digits)
    labels = quantities.labels
    n = len(labels)
    prov: dict = {}
    total = 2 * n + n * (n + 1) // 2
    done = 0
    progress = progress if progress is not None else _stderr_progress()

    def tick():
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    known = known or {}

    def get(q):
        hit = known.get(q)
        return hit if hit is not None else quantities.get(q)

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
        scenario=bound.scenario.name,
        params=dict(bound.params),
        labels=tuple(labels),
        entropy=tuple(entropy),
        mi_class=tuple(mi_class),
        mi_features=tuple(map(tuple, matrix)),
        digits=digits,
        provenance=prov,
        joint_source=JointSource(bound, digits, quantities=quantities),
    )
