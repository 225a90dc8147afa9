"""One call from a bound scenario to a selection result: what ``fstheory order`` runs.

>>> from fstheory.scenarios.registry import get_scenario
>>> r = order(get_scenario("uniform").bind(k="0.2"), "MIFS-U", "0.4")
>>> r.order_labels, r.stop.after
(['X', '3X+1', 'X-Y', 'X^2'], 4)
"""

from __future__ import annotations

from fstheory.orderings.greedy import SelectionResult, select
from fstheory.orderings.methods import MethodError, get_method

__all__ = ["order"]


def order(bound, method: str, beta=None, *, reading: str | None = None,
          zero_beta: str = "explicit", digits: int = 30, values=None,
          gamma=None) -> SelectionResult:
    """Greedy ordering of ``bound``'s features by ``method`` on exact values.

    The method options are checked first (before the values are computed), so bad input fails
    fast with :class:`fstheory.orderings.methods.MethodError` (a ``ValueError``): unknown method, beta
    missing / outside [0, 1] / given to a method without beta, the same for ``gamma``
    (beta-gamma only), bad ``reading`` or ``zero_beta``, ``zero_beta="drop"`` for a method
    without beta.

    Parameters
    ----------
    bound : fstheory.scenarios.declaration.BoundScenario
        E.g. ``get_scenario("uniform").bind(k="0.2")``.
    method, beta, reading, zero_beta, gamma
        As in :func:`fstheory.orderings.greedy.select`.
    digits : int
        Significant digits of the values (``fstheory.engine.evaluate.evaluate``).
    values : fstheory.engine.values.ScenarioValues, optional
        ``evaluate(bound, digits)`` when the caller already has it (the Python API keeps it).
    """
    from fstheory.engine.evaluate import evaluate

    m = get_method(method)
    m.check(beta, reading, zero_beta, gamma)
    if zero_beta != "explicit" and not m.has_beta:
        raise MethodError(
            f"parameter 'zero_beta' = {zero_beta!r} applies only to methods with beta (mifs, "
            f"mifs-u, beta-gamma); {m.display} has no beta"
        )
    if values is None:
        values = evaluate(bound, digits)
    return select(values, m, beta, reading=reading, zero_beta=zero_beta, gamma=gamma)
