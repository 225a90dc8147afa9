"""The relevance-optimal pairs of the paper's Scenarios I and II (Section 5), as 0-based indices of
the features of Table "Input features": X = V1, aX+b = V2, X-Y = V4, Y = V7.

Only the tests read this (printed values); the engine derives the sets
(fstheory.engine.relevance) and the simulation takes them as data.
"""

PAPER_PAIRS = (frozenset({0, 6}), frozenset({0, 3}), frozenset({6, 3}), frozenset({1, 6}), frozenset({1, 3}))


def paper_sets(bound):
    """``optimal_sets`` for run_study: the paper's pairs for either paper scenario, any k."""
    assert bound.scenario.name in ("uniform", "normal"), bound.scenario.name
    return PAPER_PAIRS
