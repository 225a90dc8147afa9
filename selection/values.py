"""Float values views of data, for the registry's objectives (:mod:`fstheory.orderings.methods`).

A view answers what the objectives read (PREAMBLE contract 1): ``h(i)``, ``mi_c(i)``,
``mi(i, j)``, ``h_c()``, ``mi_c_pair(i, j)`` = MI(C; {Vi, Vj}), ``cmi_c(i, j)`` = MI(C; Vi | Vj),
``mi_given_c(i, j)`` = MI(Vi; Vj | C), ``h_pair_c(i, j)`` = H(Vi, Vj, C), and for sets
``mi_c_set(T)`` = MI(C; V_T) and ``cmi_c_set(i, T)`` = MI(C; V_T + {Vi}) - MI(C; V_T)
(:mod:`fstheory.selection.sets`; each distinct set estimated once). Values are float
arrays over replications; handles are ints or int arrays whose first axis is the replication
(the layout of :func:`fstheory.selection.greedy.greedy`). ``h_c()`` has shape (reps, 1).

The quantities of a pair are computed **lazily**: when an objective asks for MI(V_i, V_s) with
V_s selected, the whole row of V_s (every feature against V_s) is estimated once and kept; rows of
features never selected are never estimated. Greedy selection of K features among F therefore
costs F x K pair estimates, and keeps them in O(F x K) memory (:class:`_Rows`), never an F x F
matrix. Each entry of a symmetric quantity is set once, by the first row computed through it, so
reads of (i, j) and (j, i) give the same float.

:class:`HistogramValues` reads the histogram estimator (:mod:`fstheory.selection.estimators`),
:class:`KnnValues` the k-nearest-neighbour one (:mod:`fstheory.selection.knn`). For the pair
quantities with the class, the histogram view uses the bivariate grid with the same edges for
every class, and MI(C; Vi | Vj) = MI(C; {Vi, Vj}) - MI(C; Vj) with both terms on that grid; the
kNN view uses the same chain rule with its own MI(C; Vj).

Examples
--------
>>> import numpy as np
>>> from fstheory.selection.estimators import BinnedBatch
>>> rng = np.random.default_rng(0)
>>> x = rng.uniform(size=(1, 3, 400)); c = x[:, 0, :] > 0.5
>>> v = HistogramValues(BinnedBatch(x), c)
>>> v.mi(np.array([[1, 2]]), np.array([[0]])).shape, v.rows_computed("mi")
((1, 2), 1)
"""

from __future__ import annotations

import numpy as np

from fstheory.selection import knn
from fstheory.selection.estimators import BinnedBatch
from fstheory.selection.sets import set_mi

__all__ = ["HistogramValues", "KnnValues"]


class _Rows:
    """The computed rows of one symmetric pair quantity: row ``slot[r, f]`` of ``data`` holds the
    quantity of feature f against every feature in replication r (-1: not computed).

    Memory is O(rows computed x F), never F x F. Each entry of the symmetric matrix is set once,
    by the first row computed through it: a new row takes, against a feature whose row exists,
    that row's value, so both rows hold the same float and a read may use either.
    """

    def __init__(self, reps: int, F: int):
        self.slot = np.full((reps, F), -1, dtype=np.intp)
        self.data = np.empty((0, F))
        self.size = 0

    def add(self, rows: np.ndarray, first: np.ndarray, new: np.ndarray) -> None:
        """Store the rows ``new`` (len(rows), F) of features ``first`` in replications ``rows``
        (one feature per replication)."""
        earlier = self.slot[rows]  # (k, F): the rows already computed in those replications
        has = earlier >= 0
        if has.any():
            new = np.where(has, self.data[np.where(has, earlier, 0), first[:, None]], new)
        k = rows.size
        if self.size + k > self.data.shape[0]:
            grown = np.empty((max(2 * self.data.shape[0], self.size + k, 8), self.data.shape[1]))
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size: self.size + k] = new
        self.slot[rows, first] = np.arange(self.size, self.size + k)
        self.size += k

    def read(self, r, i, j) -> np.ndarray:
        """Entries (r, i, j), broadcast; the row of j, or else of i, must exist."""
        sj = self.slot[r, j]
        if (sj >= 0).all():
            return self.data[sj, i]
        si = self.slot[r, i]
        own = sj >= 0
        return np.where(own, self.data[np.where(own, sj, 0), i], self.data[np.where(own, 0, si), j])

    def row(self, r: int, f: int) -> np.ndarray:
        """The stored row of feature f in replication r, as a (1, F) view (not to be written)."""
        s = self.slot[r, f]
        return self.data[s: s + 1]


class _LazyValues:
    """Shared machinery: univariate arrays, lazy rows of the pair quantities, handle broadcasting.

    Subclasses set ``h_``, ``mi_c_`` (reps, F), ``_h_c`` (reps,), ``_mi_c_grid`` (reps, F) (the
    MI(C; Vj) consistent with the pair quantities) and implement ``_rows(group, first, rows)``,
    returning a dict of (len(rows), F) arrays for the quantities of ``group`` ("mi" or "class").
    """

    _GROUPS = {"mi": ("mi",), "class": ("mi_c_pair", "mi_given_c", "h_pair_given_c")}

    def _init_store(self, reps: int, F: int) -> None:
        self.reps, self.n_features = reps, F
        self._rows_index = np.arange(reps)
        self._all = np.broadcast_to(np.arange(F), (reps, F))
        self._store: dict = {}

    def candidates(self) -> np.ndarray:
        """The handle of every feature as a candidate, (reps, F) (feature j in column j); reads
        through it of a computed row need no gather."""
        return self._all

    def _matrix(self, name: str) -> _Rows:
        """The rows of a quantity, allocated when first read."""
        if name not in self._store:
            self._store[name] = _Rows(self.reps, self.n_features)
        return self._store[name]

    def rows_computed(self, group: str = "mi") -> int:
        """How many (replication, feature) rows of a group have been estimated (for tests and
        the performance account)."""
        name = self._GROUPS[group][0]
        return int((self._store[name].slot >= 0).sum()) if name in self._store else 0

    def _r(self, *handles):
        nd = max(np.ndim(x) for x in handles)
        return self._rows_index.reshape((self.reps,) + (1,) * max(nd - 1, 0)) if nd else self._rows_index

    def _ensure(self, group: str, r: np.ndarray, f: np.ndarray, distinct: bool = False) -> None:
        done = self._matrix(self._GROUPS[group][0]).slot
        if distinct:
            missing = np.stack([r.ravel(), f.ravel()])
        else:
            missing = np.unique(np.stack([r.ravel(), f.ravel()]), axis=1)
        missing = missing[:, done[missing[0], missing[1]] < 0]
        while missing.shape[1]:
            # one feature per replication per call (the estimators compute one row per replication)
            _, first_of_rep = np.unique(missing[0], return_index=True)
            rows, first = missing[0, first_of_rep], missing[1, first_of_rep]
            for name, new in self._rows(group, first, rows).items():
                self._matrix(name).add(rows, first, np.asarray(new, dtype=float) + 0.0)
            missing = missing[:, done[missing[0], missing[1]] < 0]

    def _pair(self, name: str, group: str, i, j):
        if i is self._all and self.reps == 1 and getattr(j, "shape", None) == (1, 1):
            # every candidate against one feature (the greedy's read): the stored row itself
            s = int(j[0, 0])
            store = self._store.get(name)
            if store is None or store.slot[0, s] < 0:
                self._ensure(group, np.zeros(1, np.intp), np.array([s]), distinct=True)
                store = self._store[name]
            return store.row(0, s)
        i, j = np.asarray(i), np.asarray(j)
        r = self._r(i, j)
        store = self._matrix(name)
        # estimate the rows of the selected side: a handle with one feature per replication
        for side in (j, i):
            if side.ndim == 0 or (side.ndim == 1 and side.shape[0] == self.reps) or \
                    (side.shape[0] == self.reps and all(d == 1 for d in side.shape[1:])):
                rows = np.broadcast_to(r, side.shape) if side.ndim else self._rows_index
                self._ensure(group, rows.ravel(), np.broadcast_to(side, rows.shape).ravel(), distinct=True)
                return store.read(r, i, j)
        r_b, i_b, j_b = np.broadcast_arrays(r, i, j)
        self._ensure(group, r_b, j_b)
        return store.read(r_b, i_b, j_b)

    # --- the accessors of the values-view contract ----------------------------------------------
    def h(self, i):
        """h(V_i): differential entropy (continuous) or Shannon entropy (discrete), nats."""
        return self.h_[self._r(i), i]

    def mi_c(self, i):
        """MI(C, V_i)."""
        return self.mi_c_[self._r(i), i]

    def mi(self, i, j):
        """MI(V_i, V_j)."""
        return self._pair("mi", "mi", i, j)

    def h_c(self):
        """H(C), shape (reps, 1)."""
        return self._h_c[:, None]

    def mi_c_pair(self, i, j):
        """MI(C; {V_i, V_j})."""
        return self._pair("mi_c_pair", "class", i, j)

    def cmi_c(self, i, j):
        """MI(C; V_i | V_j) = MI(C; {V_i, V_j}) - MI(C; V_j) (chain rule)."""
        return self.mi_c_pair(i, j) - self._mi_c_grid[self._r(i, j), j]

    def mi_given_c(self, i, j):
        """MI(V_i; V_j | C)."""
        return self._pair("mi_given_c", "class", i, j)

    def h_pair_c(self, i, j):
        """H(V_i, V_j, C) = H(C) + h(V_i, V_j | C)."""
        return self._h_c[self._r(i, j)] + self._pair("h_pair_given_c", "class", i, j)

    def mi_c_set(self, T):
        """MI(C; V_T) for a tuple of handles broadcast together (the subclass's ``_set_mi``)."""
        handles = [np.asarray(t) for t in T]
        r, *cols = np.broadcast_arrays(self._r(*handles), *handles)
        memo = self.__dict__.setdefault("_set_memo", {})
        out = np.empty(r.shape)
        for idx in np.ndindex(r.shape):
            key = (int(r[idx]), tuple(sorted({int(c[idx]) for c in cols})))
            if key not in memo:
                memo[key] = self._set_mi(*key)
            out[idx] = memo[key]
        return out + 0.0

    def cmi_c_set(self, i, T):
        """MI(C; V_i | V_T) = MI(C; V_T + {V_i}) - MI(C; V_T) (chain rule)."""
        return self.mi_c_set(tuple(T) + (i,)) - self.mi_c_set(tuple(T)) + 0.0


class HistogramValues(_LazyValues):
    """Values of a :class:`~fstheory.selection.estimators.BinnedBatch` with classes ``c``.

    ``h`` and ``mi_c`` are the batch's ``entropy()`` and ``mi_class(c)``; ``mi`` its
    ``mi_rows``; the class-pair quantities its ``pair_class_rows`` (module docstring).
    """

    def __init__(self, batch: BinnedBatch, c: np.ndarray, h: np.ndarray | None = None,
                 mi_c: np.ndarray | None = None):
        self.batch, self.c = batch, c
        self._init_store(batch.reps, batch.F)
        # + 0.0 turns -0.0 into +0.0: views must not return signed zeros (fstheory.orderings.arithmetic)
        self.h_ = (batch.entropy() if h is None else np.asarray(h, dtype=float)) + 0.0
        self.mi_c_ = (batch.mi_class(c) if mi_c is None else np.asarray(mi_c, dtype=float)) + 0.0
        self._class_parts = None

    def _parts(self):
        if self._class_parts is None:
            h_c, h, h_given_c = self.batch.class_marginals(self.c)
            self._class_parts = (h_c, h - h_given_c, h_given_c)
        return self._class_parts

    @property
    def _h_c(self):
        return self._parts()[0]

    @property
    def _mi_c_grid(self):
        return self._parts()[1]

    def _set_mi(self, rep: int, cols: tuple) -> float:
        """MI(C; V_cols) in replication ``rep``: plug-in on the cells of the pair quantities'
        grid (:mod:`fstheory.selection.sets`)."""
        labels = self.batch._joint_grid()[0]
        codes = self.batch._classes(self.c)[0]
        return set_mi([labels[rep, f] for f in cols], codes[rep])

    def _rows(self, group, first, rows):
        if group == "mi":
            return {"mi": self.batch.mi_rows(first, rows)}
        p = self.batch.pair_class_rows(first, self.c, rows)
        h_gc = self._parts()[2][rows]
        own = h_gc[np.arange(rows.size), first][:, None]
        return {
            "mi_c_pair": p["h_pair"] - p["h_pair_given_c"],
            "mi_given_c": own + h_gc - p["h_pair_given_c"],
            "h_pair_given_c": p["h_pair_given_c"],
        }


class KnnValues(_LazyValues):
    """k-nearest-neighbour values of one sample (reps = 1): ``x`` (n, F), class codes (n,).

    Continuous features are jittered once by :func:`fstheory.selection.knn.jitter` with ``rng``;
    discrete ones (``discrete``, bool (F,)) enter through their codes (:mod:`fstheory.selection.knn`).
    """

    def __init__(self, x: np.ndarray, codes: np.ndarray, discrete: np.ndarray, k: int = 3,
                 rng: np.random.Generator | None = None):
        x = np.asarray(x, dtype=float)
        n, F = x.shape
        self.k = k
        self.discrete = np.asarray(discrete, dtype=bool)
        rng = np.random.default_rng(0) if rng is None else rng
        self.x = x.copy()
        cont = ~self.discrete
        if cont.any():
            self.x[:, cont] = knn.jitter(x[:, cont], rng)
        self.codes = np.asarray(codes)
        self._init_store(1, F)
        everyone = np.ones(n, dtype=bool)
        self.h_ = np.array([[self._h_set([f], everyone) for f in range(F)]]) + 0.0
        self.mi_c_ = np.array([[self._mi_c_set([f]) for f in range(F)]]) + 0.0
        self._h_c = np.array([knn.plugin_entropy(self.codes)])
        self._mi_c_grid = self.mi_c_

    def _set_mi(self, rep: int, cols: tuple) -> float:
        return self._mi_c_set(list(cols))

    def _split(self, cols):
        return [f for f in cols if self.discrete[f]], [f for f in cols if not self.discrete[f]]

    def _h_set(self, cols, mask) -> float:
        """h of the feature set ``cols`` on the observations ``mask``: H(D) + sum_d P(d) h(X | d)."""
        D, X = self._split(cols)
        d = knn.joint_codes(*[self.x[mask, f] for f in D]) if D else np.zeros(int(mask.sum()), np.intp)
        out = knn.plugin_entropy(d) if D else 0.0
        if X:
            xs = self.x[mask][:, X]
            out += sum(w * knn.entropy(xs[g], self.k) for w, g in knn.groups(d))
        return out

    def _mi_c_set(self, cols) -> float:
        """MI(C; V_cols) = MI(C; D) + sum_d P(d) MI(C; X | D = d)."""
        D, X = self._split(cols)
        d = knn.joint_codes(*[self.x[:, f] for f in D]) if D else np.zeros(self.x.shape[0], np.intp)
        out = knn.plugin_mi(self.codes, d) if D else 0.0
        if X:
            xs = self.x[:, X]
            out += sum(w * knn.mi_discrete_continuous(self.codes[g], xs[g], self.k) for w, g in knn.groups(d))
        return out

    def _mi_two(self, a: int, b: int, mask) -> float:
        """MI(V_a, V_b) on the observations ``mask``: KSG, Ross or plug-in by the features' kinds."""
        xa, xb = self.x[mask, a], self.x[mask, b]
        if xa.size < 2:
            return 0.0
        da, db = self.discrete[a], self.discrete[b]
        if da and db:
            return knn.plugin_mi(xa, xb)
        if da or db:
            return knn.mi_discrete_continuous(xa if da else xb, xb if da else xa, self.k)
        return knn.mi_continuous(xa, xb, self.k)

    def _rows(self, group, first, rows):
        (s,) = first
        F, n = self.n_features, self.x.shape[0]
        everyone = np.ones(n, dtype=bool)
        if group == "mi":
            return {"mi": np.array([[self._mi_two(s, j, everyone) if j != s else np.nan for j in range(F)]])}
        by_class = knn.groups(self.codes)
        pair = np.full((1, F), np.nan)
        given = np.full((1, F), np.nan)
        hpc = np.full((1, F), np.nan)
        for j in range(F):
            if j == s:
                continue
            pair[0, j] = self._mi_c_set([s, j])
            given[0, j] = sum(w * self._mi_two(s, j, g) for w, g in by_class)
            hpc[0, j] = sum(w * self._h_set([s, j], g) for w, g in by_class)
        return {"mi_c_pair": pair, "mi_given_c": given, "h_pair_given_c": hpc}
