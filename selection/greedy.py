"""Data-driven greedy selection on float estimates, vectorised across replications.

The objectives are the registered methods of :mod:`fstheory.orderings.methods` (one definition for the
exact and the float world, run here with :data:`fstheory.orderings.arithmetic.FLOAT_OPS`); this module only
supplies the values view and the greedy loop.

Greedy rules (as :mod:`fstheory.orderings.greedy`, Section 7 of the paper):

1. the first feature maximises MI(C, V_i);
2. then every remaining candidate's objective is evaluated and the largest wins;
3. near-ties are decided by plain float comparison (``ties="exact"``, the default) or go to the
   lower feature index (``ties="relative"``), see :mod:`fstheory.selection.options`;
4. a NaN objective (0/0, 0*inf, inf-inf in floats) cannot be chosen; if every remaining
   candidate is NaN the selection stops there for that replication (selected index -1).

All candidates of all replications are evaluated by one call of the objective: the candidate
handle is the int array ``(reps, F)`` (candidate j in column j) and a selected handle is an int
array ``(reps, 1)``, so every value the view returns broadcasts to ``(reps, F)``.

Examples
--------
>>> import numpy as np
>>> h = np.zeros((1, 3)); mic = np.array([[0.5, 0.5, 0.1]])
>>> mi = np.array([[[np.nan, 3.0, 0.0], [3.0, np.nan, 0.0], [0.0, 0.0, np.nan]]])
>>> greedy(FloatValues(h, mic, mi), "mifs", beta=1.0, steps=2).tolist()
[[0, 2]]
"""

from __future__ import annotations

import numpy as np

from fstheory.orderings.arithmetic import FLOAT_OPS
from fstheory.orderings.methods import Method, get_method
from fstheory.selection.options import SelectionOptions

__all__ = ["FloatValues", "greedy", "first_feature", "pick", "float_ops", "set_hits"]


class FloatValues:
    """Float values view for :meth:`fstheory.orderings.methods.Method.objective`.

    Parameters
    ----------
    h, mi_c : arrays (reps, F)
        Estimates of h(V_j) and MI(C, V_j) per replication.
    mi : array (reps, F, F) or callable
        Estimates of MI(V_j, V_l). Entries that were not computed are NaN; reading one is an
        error (a selection never needs MI(V, V), and the two-step study only fills the rows of
        the first selected feature).

    Handles are int arrays whose first axis is the replication (or plain ints); results have the
    broadcast shape of the handles.
    """

    def __init__(self, h: np.ndarray, mi_c: np.ndarray, mi: np.ndarray):
        # + 0.0 turns -0.0 into +0.0: views must not return signed zeros (fstheory.orderings.arithmetic)
        self.h_ = np.asarray(h, dtype=float) + 0.0
        self.mi_c_ = np.asarray(mi_c, dtype=float) + 0.0
        self.mi_ = np.asarray(mi, dtype=float) + 0.0
        self.reps, self.n_features = self.h_.shape
        if self.mi_c_.shape != self.h_.shape or self.mi_.shape != self.h_.shape + (self.n_features,):
            raise ValueError("h and mi_c must be (reps, F) and mi (reps, F, F)")
        self._rows = np.arange(self.reps)

    def _r(self, *handles):
        nd = max(np.ndim(x) for x in handles)
        return self._rows.reshape((self.reps,) + (1,) * max(nd - 1, 0)) if nd else self._rows

    def h(self, i):
        return self.h_[self._r(i), i]

    def mi_c(self, i):
        return self.mi_c_[self._r(i), i]

    def mi(self, i, j):
        out = self.mi_[self._r(i, j), i, j]
        if np.isnan(out).any():
            # a NaN estimate is never produced by the estimator for i != j: this is a read of an
            # entry that was not computed, i.e. a programming error, not a data condition
            same = np.broadcast_to(np.asarray(i) == np.asarray(j), out.shape)
            if np.isnan(out[~same]).any():
                raise RuntimeError("MI between features read where it was not computed")
        return out


def pick(values: np.ndarray, available: np.ndarray, options: SelectionOptions) -> np.ndarray:
    """Index of the winning candidate per row of ``values`` (reps, F); -1 if none is choosable.

    ``available`` masks the remaining candidates. NaN is never chosen. With
    ``options.ties == "relative"`` every candidate within ``rtol * max(1, |best|)`` of the best is
    tied and the lowest index wins; with ``"exact"`` the first index attaining the float maximum
    wins (:meth:`fstheory.orderings.arithmetic.FloatOps.pick`, the float world's greedy step).

    >>> v = np.array([[1.0, 1.0 + 1e-15, 0.5], [np.nan, np.nan, 2.0]])
    >>> ok = np.ones_like(v, dtype=bool)
    >>> pick(v, ok, SelectionOptions("relative")).tolist(), pick(v, ok, SelectionOptions("exact")).tolist()
    ([0, 2], [1, 2])
    """
    return float_ops(options).pick(values, available)


def float_ops(options: SelectionOptions):
    """The float arithmetic with ``options``' tie band (:meth:`FloatOps.with_ties`)."""
    return FLOAT_OPS.with_ties(options.rtol if options.ties == "relative" else 0.0)


def first_feature(mi_c: np.ndarray, options: SelectionOptions | None = None) -> np.ndarray:
    """Rule 1: the argmax of MI(C, V_i) per replication (ties by ``options``)."""
    options = options or SelectionOptions()
    return pick(mi_c, np.ones(mi_c.shape, dtype=bool), options)


def greedy(
    view: FloatValues,
    method: "str | Method",
    beta: float | None = None,
    steps: int | None = None,
    options: SelectionOptions | None = None,
    *,
    reading: str | None = None,
    zero_beta: str = "explicit",
    first: np.ndarray | None = None,
    record: list | None = None,
    progress=None,
    gamma=None,
) -> np.ndarray:
    """Forward selection for every replication at once: selected indices, shape (reps, steps).

    ``steps`` defaults to all features. ``first`` may pass the precomputed first pick (it is the
    same for every method). Once a replication has stopped (-1) its later entries are -1 too.
    ``record``, a list, receives ``(values, available)`` of every step: the (reps, F) scores
    (MI(C, V) at step 1, the objective after) and the mask of the candidates they were taken over.
    ``progress``, a callable, is called as ``progress(step, steps)`` before each later step.
    The objective reads the view through ``view.candidates()`` (the (reps, F) handle of every
    feature) when the view has it. ``gamma``: beta-gamma's second coefficient (refused by the
    other methods).
    """
    options = options or SelectionOptions()
    ops = float_ops(options)
    method = get_method(method) if isinstance(method, str) else method
    reps, F = view.reps, view.n_features
    steps = F if steps is None else steps
    out = np.full((reps, steps), -1, dtype=np.intp)
    if steps == 0:
        return out
    out[:, 0] = first_feature(view.mi_c_, options) if first is None else first
    available = np.ones((reps, F), dtype=bool)
    if record is not None:
        record.append((view.mi_c_, available.copy()))
    rows = np.arange(reps)
    alive = out[:, 0] >= 0
    available[rows[alive], out[alive, 0]] = False
    candidates = view.candidates() if hasattr(view, "candidates") else np.broadcast_to(np.arange(F), (reps, F))
    # a stopped replication keeps a valid dummy handle; its result is discarded below
    selected = [np.where(out[:, 0] >= 0, out[:, 0], 0)[:, None]]
    for step in range(1, steps):
        if progress is not None:
            progress(step, steps)
        values = np.broadcast_to(
            method.objective(ops, view, candidates, selected, beta, reading=reading,
                             zero_beta=zero_beta, gamma=gamma),
            (reps, F),
        )
        if record is not None:
            record.append((values, available & alive[:, None]))
        choice = ops.pick(values, available & alive[:, None])
        alive &= choice >= 0
        out[:, step] = np.where(alive, choice, -1)
        available[rows[alive], choice[alive]] = False
        selected.append(np.where(alive, choice, 0)[:, None])
    return out


def set_hits(selected: np.ndarray, optimal_sets) -> np.ndarray:
    """Whether the first |S| selected features form one of the ``optimal_sets``, per replication.

    ``selected`` is (reps, steps) with -1 after a stop; ``optimal_sets`` an iterable of sets of
    0-based feature indices (any sizes up to ``steps``). Order within the first |S| does not matter.

    >>> sel = np.array([[0, 6, 2], [6, 0, 2], [3, 1, 0], [3, -1, -1]])
    >>> set_hits(sel, [frozenset({0, 6}), frozenset({3})]).tolist()
    [True, True, True, True]
    >>> set_hits(sel, [frozenset({0, 2, 6})]).tolist()
    [True, True, False, False]
    """
    selected = np.asarray(selected)
    hits = np.zeros(selected.shape[0], dtype=bool)
    for S in optimal_sets:
        size = len(S)
        if size == 0 or size > selected.shape[1]:
            continue
        first = np.sort(selected[:, :size], axis=1)
        hits |= (first == np.array(sorted(S))).all(axis=1)
    return hits
