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

from fstheory.engine.evaluate_joint import JointSource
from fstheory.engine.quantities import PointQuantities
from fstheory.engine.values import ScenarioValues
from fstheory.scenarios.declaration import BoundScenario

__all__ = ["evaluate"]


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
    ``known`` maps quantities (:func:`~fstheory.engine.quantities.quantity_keys`) to the (value, provenance) that
    :meth:`~fstheory.engine.quantities.PointQuantities.get` gave for them at the same point and digits (in another process:
    the tables share the quantities of one point between worker processes); they are taken as
    they are, the others computed here.
    """
    quantities = PointQuantities(bound, digits)
    return quantities.values(progress if progress is not None else _stderr_progress(),
                             JointSource(bound, digits, quantities=quantities), known)
