"""The float greedy (fstheory.selection.greedy) against the exact greedy of orderings on the paper's
exact values, and its tie and NaN rules."""

from __future__ import annotations

import numpy as np
import pytest

from fstheory.orderings.greedy import select
from fstheory.orderings.methods import method_names
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.selection.options import SelectionOptions
from fstheory.selection.greedy import FloatValues, greedy, pick, set_hits


def _float_view(values, reps=3):
    F = values.n_features
    h = np.array([[float(values.h(i).value) if values.h(i).is_finite else np.inf for i in range(F)]] * reps)

    def f(x):
        if x.is_pos_inf:
            return np.inf
        if x.is_neg_inf:
            return -np.inf
        return float(x.value)

    mic = np.array([[f(values.mi_c(i)) for i in range(F)]] * reps)
    mi = np.array([[[f(values.mi(i, j)) if i != j else np.nan for j in range(F)] for i in range(F)]] * reps)
    return FloatValues(h, mic, mi)


@pytest.fixture(scope="module", params=[("uniform", "0.2"), ("uniform", "0.8"), ("normal", "0.2"), ("normal", "0.8")])
def exact_values(request):
    name, k = request.param
    return evaluate(get_scenario(name).bind(k=k), digits=20)


def _rows():
    for m in method_names(dimension=2):  # the float view here holds no joint estimates
        if m in ("mifs", "mifs-u"):
            for b in ("0", "0.4", "0.7", "1"):
                yield m, b
        else:
            yield m, None


def test_float_greedy_reproduces_the_exact_orderings(exact_values):
    """On the exact values (inf included) the float greedy with ties to the lower index gives
    the exact world's ordering for every method row, and stops (-1) where it stops."""
    view = _float_view(exact_values)
    for method, beta in _rows():
        exact = select(exact_values, method, beta)
        got = greedy(view, method, None if beta is None else float(beta),
                     options=SelectionOptions("relative"))
        expected = exact.order + [-1] * (exact_values.n_features - len(exact.order))
        assert got.tolist() == [expected] * view.reps, (method, beta)


def test_pick_rules():
    ok = np.ones((4, 3), dtype=bool)
    v = np.array([
        [0.5, 0.5 * (1 + 1e-15), 0.1],   # near-tie
        [np.nan, np.nan, np.nan],         # nothing choosable
        [np.nan, -np.inf, -1.0],          # NaN is never chosen; -inf can be
        [np.inf, np.inf, 0.0],            # +inf ties only with +inf
    ])
    assert pick(v, ok, SelectionOptions("relative")).tolist() == [0, -1, 2, 0]
    assert pick(v, ok, SelectionOptions("exact")).tolist() == [1, -1, 2, 0]
    avail = ok.copy()
    avail[2, 2] = False
    assert pick(v, avail, SelectionOptions("exact"))[2] == 1  # -inf chosen over NaN


def test_greedy_handles_per_replication_and_stops():
    h = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    mic = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    mi = np.array([[[np.nan, 0.0, 0.5], [0.0, np.nan, 0.5], [0.5, 0.5, np.nan]]] * 2)
    out = greedy(FloatValues(h, mic, mi), "maxmifs")
    assert out.tolist() == [[0, 1, 2], [2, 1, 0]]
    # a view read where it was not computed is a programming error, not a silent NaN
    bad = mi.copy()
    bad[:, 0, 1] = bad[:, 1, 0] = np.nan
    with pytest.raises(RuntimeError):
        greedy(FloatValues(h, mic, bad), "maxmifs")


def test_set_hits_unordered_and_of_any_size():
    pairs = [frozenset({0, 6}), frozenset({0, 3})]
    sel = np.array([[0, 6, 1], [6, 0, 1], [3, 0, 1], [0, 1, 3], [-1, -1, -1], [0, -1, -1]])
    assert set_hits(sel, pairs).tolist() == [True, True, True, False, False, False]
    assert set_hits(sel, [frozenset({1})]).tolist() == [False] * 6
    assert set_hits(sel, [frozenset({0, 1, 3}), frozenset({4})]).tolist() == [False, False, True, True, False, False]
