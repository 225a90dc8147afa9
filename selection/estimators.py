"""The histogram estimator of Section 8: differential entropies by equal-width bins and the MIs
built from them, vectorised across replications.

Formulas (paper Section 8 and properties (d), (e) of Section 2):

* m = ceil(sqrt(n)) bins; for a sample with bin counts c_1..c_m and bin width Delta,
  ``h(V) = H_binned + ln(Delta)`` with ``H_binned = -sum_j (c_j/n) ln(c_j/n) = ln n - (sum_j c_j ln c_j)/n``;
* bivariate: ``h(Vi, Vj) = H_binned(Vi, Vj) + ln(Delta_i Delta_j)``;
* ``h(V | C) = sum_c (n_c/n) h(V | C = c)``;
* ``MI(C, V) = h(V) - h(V | C)`` (property (e));
* ``MI(Vi, Vj) = h(Vi) + h(Vj) - h(Vi, Vj)`` (property (d)).

Where the paper is silent (grid of the bivariate histogram, binning of h(V | C), placement of the
edges) the choice is an :class:`~fstheory.selection.options.EstimatorOptions` field.

Used by the selector (:class:`fstheory.selection.MIFeatureSelector`, one sample: ``reps = 1``) and
by the simulation study (:mod:`fstheory.simulation.study`, many replications at once).

Arrays: a batch of samples ``x`` has shape ``(reps, F, n)``; the class ``c`` is bool ``(reps, n)``
or integer class codes. Discrete features (``discrete=``) are counted on their own values.
The histograms are counted by compiled loops (:mod:`fstheory.selection.kernels`) that read ``x``
in place (any memory layout) and keep only small-integer bin labels, so there is no Python loop
over samples, replications, features or pairs, and no temporary of the size of ``x``; the counts
are turned into entropies here, by numpy (:func:`entropy_from_counts`). :func:`bin_labels` and
:func:`count_histograms` are the same labels and counts written with numpy, the second route of the tests.

``sum_j c_j ln c_j`` is read from a table of ``c ln c`` for c = 0..n (exact same float for a given
count whatever the path), which also makes the estimator cheap.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> x = rng.uniform(-0.5, 0.5, (1, 2, 100_000))
>>> est = BinnedBatch(x)
>>> bool(abs(est.entropy()[0, 0]) < 0.01)    # h(Unif(-1/2, 1/2)) = 0
True
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache

import numpy as np

from fstheory.selection import kernels
from fstheory.selection.kernels import label_dtype
from fstheory.selection.options import EstimatorOptions

__all__ = [
    "n_bins",
    "n_bins_array",
    "cube_root_bins",
    "xlogx_table",
    "grid",
    "bin_labels",
    "entropy_from_counts",
    "BinnedBatch",
    "pairwise_mi",
    "pair_indices",
]


def n_bins(n: int) -> int:
    """m = ceil(sqrt(n)), exactly (integer square root), the paper's number of bins (Section 8).

    >>> [n_bins(n) for n in (2, 50, 100, 500, 1000, 5000)]
    [2, 8, 10, 23, 32, 71]
    """
    r = math.isqrt(n)
    return r if r * r == n else r + 1


def cube_root_bins(n: int) -> int:
    """ceil(n^(1/3)), exactly (the ``cube-root`` bivariate grid's bins per axis).

    >>> [cube_root_bins(n) for n in (8, 9, 1000, 5000)]
    [2, 3, 10, 18]
    """
    r = round(n ** (1 / 3))
    while r**3 < n:
        r += 1
    while r > 1 and (r - 1) ** 3 >= n:
        r -= 1
    return r


def n_bins_array(n: np.ndarray) -> np.ndarray:
    """Element-wise ceil(sqrt(n)) for integer arrays (exact for n < 2**52).

    >>> n_bins_array(np.array([0, 1, 2, 4, 5, 2500, 2501])).tolist()
    [0, 1, 2, 2, 3, 50, 51]
    """
    n = np.asarray(n, dtype=np.int64)
    r = np.floor(np.sqrt(n)).astype(np.int64)
    r -= r * r > n
    r += (r + 1) * (r + 1) <= n
    return r + (r * r < n)


@lru_cache(maxsize=32)
def xlogx_table(n: int) -> np.ndarray:
    """``c ln c`` for c = 0..n (0 ln 0 = 0), read-only."""
    c = np.arange(n + 1, dtype=float)
    t = np.zeros(n + 1)
    t[1:] = c[1:] * np.log(c[1:])
    t.flags.writeable = False
    return t


_WORKSPACE = threading.local()
_WORKSPACE_MAX = 4_000_000  # elements; larger temporaries are not kept


def _buffer(name: str, shape: tuple, dtype) -> np.ndarray:
    """A per-thread scratch array reused across calls.

    Large temporaries that are freed and allocated again on every call are returned to the
    operating system and cost page faults on every touch, which at the study's chunk sizes costs
    as much as the arithmetic. Only temporaries that die inside one function use this; each role
    has its own ``name`` so that two live temporaries never share memory.
    """
    size = int(np.prod(shape, dtype=np.int64))
    if size > _WORKSPACE_MAX:
        return np.empty(shape, dtype=dtype)
    store = getattr(_WORKSPACE, "arrays", None)
    if store is None:
        store = _WORKSPACE.arrays = {}
    buf = store.get((name, np.dtype(dtype).str))
    if buf is None or buf.size < size:
        buf = store[(name, np.dtype(dtype).str)] = np.empty(size, dtype=dtype)
    return buf[:size].reshape(shape)


def grid(lo: np.ndarray, hi: np.ndarray, m, edges: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Equal-width grid of m bins for samples with minimum ``lo`` and maximum ``hi``.

    Returns ``(start, scale, width)``: the label of a value v is ``floor((v - start) * scale)``
    clipped to m - 1, and ``width`` is Delta. ``edges="range"``: [lo, hi] cut into m bins
    (scale = m/(hi - lo)); ``edges="centred"``: width (hi - lo)/(m - 1), first centre at lo.
    """
    span = hi - lo
    m = np.asarray(m, dtype=float)
    # a sample without spread (span 0) has every value in bin 0 and width 0 (ln(Delta) = -inf)
    if edges == "range":
        with np.errstate(divide="ignore", invalid="ignore"):
            return lo, np.where(span > 0, m / span, 0.0), span / m
    width = span / (m - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return lo - width / 2, np.where(width > 0, 1.0 / width, 0.0), width


def bin_labels(x: np.ndarray, start, scale, m) -> np.ndarray:
    """Bin labels ``min(floor((x - start) * scale), m - 1)`` as ``intp``.

    ``x - start >= 0``, so truncation is the floor.
    """
    t = np.subtract(x, start, out=_buffer("bin_t", np.broadcast_shapes(np.shape(x), np.shape(start)), float))
    t *= scale
    labels = t.astype(np.intp)
    np.minimum(labels, np.asarray(m, dtype=np.intp) - 1, out=labels)
    return labels


def count_histograms(labels: np.ndarray, n_cells: int) -> np.ndarray:
    """Counts of every histogram of a batch: ``labels`` (..., n) in [0, n_cells) -> (..., n_cells)."""
    batch = labels.shape[:-1]
    n_hist = int(np.prod(batch, dtype=np.int64))
    offsets = (np.arange(n_hist, dtype=np.intp) * n_cells).reshape(batch + (1,))
    flat = np.add(labels, offsets, out=_buffer("count_index", labels.shape, np.intp))
    return np.bincount(flat.ravel(), minlength=n_hist * n_cells).reshape(batch + (n_cells,))


def entropy_from_counts(counts: np.ndarray, total, table: np.ndarray | None = None) -> np.ndarray:
    """Plug-in entropy (nats) of histograms along the last axis: ``ln N - sum c ln c / N``.

    ``total`` is N (scalar or array broadcasting against ``counts.shape[:-1]``); N = 0 gives 0,
    and so does a histogram with one non-empty cell, exactly (ln N - N ln N / N is not always 0
    in floats, and a constant's entropy must be an exact zero for the 0/0 of the objectives).

    >>> round(float(entropy_from_counts(np.array([5, 5]), 10)), 12)   # ln 2
    0.69314718056
    >>> float(entropy_from_counts(np.array([0, 7, 0]), 7))
    0.0
    """
    if table is None:
        table = xlogx_table(int(counts.max(initial=0)))
    s = np.take(table, counts, out=_buffer("xlogx_counts", counts.shape, float), mode="clip").sum(axis=-1)
    total = np.asarray(total, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log(total) - s / total
    return np.where((total > 0) & (counts.max(axis=-1, initial=0) < total), h, 0.0)


@lru_cache(maxsize=16)
def pair_indices(n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs i < j in row-major order (45 for ten features); cached, read-only."""
    iu, ju = np.triu_indices(n_features, 1)
    iu.flags.writeable = False
    ju.flags.writeable = False
    return iu, ju


class BinnedBatch:
    """Histogram estimates for a batch of samples ``x`` of shape ``(reps, F, n)``.

    The univariate grid (m = ceil(sqrt(n)) bins per feature and replication) is fixed once;
    entropies, MIs with a class and MIs between features reuse it. ``x`` may be any view (the
    selector passes the transpose of its input): it is never copied. What is kept besides it is
    O(reps x F x n) small integers -- the bin labels of the grids actually used, each in the
    smallest integer type that holds its cells -- and count arrays of O(reps x F x cells); the
    counting loops are compiled (:mod:`fstheory.selection.kernels`) and make no temporary of the
    size of ``x``.

    Parameters
    ----------
    x : ndarray (reps, F, n)
    options : EstimatorOptions, optional
    discrete : array of bool (F,), optional
        Features to treat as discrete: their "bins" are their distinct values (codes in sorted
        order), their entropies are plug-in (Shannon) entropies with no ln(Delta) term, and they
        are never coarsened by the bivariate grid. A pair with one discrete and one continuous
        feature gets the ln(Delta) of the continuous one only, so every MI is a difference of
        entropies of the same kind and the ln(Delta) terms cancel where they should.

    Classes: ``c`` is bool ``(reps, n)`` (two classes) or integer codes in ``[0, K)``.
    """

    def __init__(self, x: np.ndarray, options: EstimatorOptions | None = None,
                 discrete: np.ndarray | None = None):
        x = np.asarray(x, dtype=float)
        if x.ndim != 3:
            raise ValueError("x must have shape (reps, F, n)")
        self.x = x
        self.options = options or EstimatorOptions()
        self.reps, self.F, self.n = x.shape
        self.m = n_bins(self.n)
        self.table = xlogx_table(self.n)
        self.discrete = np.zeros(self.F, dtype=bool) if discrete is None else np.asarray(discrete, dtype=bool)
        if self.discrete.shape != (self.F,):
            raise ValueError("discrete must have one entry per feature")
        lo = x.min(axis=-1, keepdims=True)
        hi = x.max(axis=-1, keepdims=True)
        self._lo, self._hi = lo, hi
        self._start, self._scale, width = grid(lo, hi, self.m, self.options.edges)
        self.width = width[..., 0]  # (reps, F)
        self.stride = self.m  # cells per univariate histogram
        self._codes = None  # (reps, number of discrete features, n) codes of the discrete ones
        if self.discrete.any():
            self._codes = _codes(x, np.flatnonzero(self.discrete))
            self.width[:, self.discrete] = 1.0  # ln(1) = 0: plug-in entropy
            self.stride = max(self.m, int(self._codes.max(initial=0)) + 1)
        self._labels = None
        self._h = None
        self._coarse = None
        self._one = None
        self._class = None

    def _label(self, start, scale, m: int, stride: int) -> np.ndarray:
        """Labels of every feature on a grid (the codes for the discrete ones), (reps, F, n)."""
        out = np.empty(self.x.shape, dtype=label_dtype(stride))
        kernels.grid_labels(self.x, start[..., 0], scale[..., 0], m, out)
        if self._codes is not None:
            out[:, self.discrete] = self._codes
        return out

    @property
    def labels(self) -> np.ndarray:
        """Bin labels on the univariate grid (codes for discrete features), (reps, F, n), made
        when first read."""
        if self._labels is None:
            self._labels = self._label(self._start, self._scale, self.m, self.stride)
        return self._labels

    # --- univariate -----------------------------------------------------------------------------
    def entropy(self) -> np.ndarray:
        """h(V_f) per replication and feature, shape (reps, F)."""
        if self._h is None:
            counts = kernels.count_labels(self.labels, self.stride)
            with np.errstate(divide="ignore"):
                self._h = entropy_from_counts(counts, self.n, self.table) + np.log(self.width)
        return self._h

    # --- with the class -------------------------------------------------------------------------
    def _classes(self, c: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
        """(codes (reps, n) intp, K, class counts (reps, K)); cached for the last ``c`` seen."""
        if self._class is not None and self._class[0] is c:
            return self._class[1:]
        c_arr = np.asarray(c)
        if c_arr.shape != (self.reps, self.n):
            raise ValueError("c must have shape (reps, n)")
        if c_arr.dtype == bool:
            K = 2
        elif np.issubdtype(c_arr.dtype, np.integer) and (c_arr.size == 0 or c_arr.min() >= 0):
            K = max(int(c_arr.max(initial=0)) + 1, 1)
        else:
            raise ValueError("c must be bool or non-negative integer class codes")
        codes = np.ascontiguousarray(c_arr, dtype=np.intp)
        nc = count_histograms(codes, K)  # (reps, K)
        self._class = (c, codes, K, nc)
        return codes, K, nc

    def class_entropy(self, c: np.ndarray) -> np.ndarray:
        """H(C) per replication, plug-in, shape (reps,)."""
        _, _, nc = self._classes(c)
        return entropy_from_counts(nc, self.n, self.table)

    def conditional_entropy(self, c: np.ndarray) -> np.ndarray:
        """h(V_f | C) = sum_c (n_c/n) h(V_f | C=c), shape (reps, F).

        ``c`` is bool (reps, n) or integer class codes. A discrete feature's conditional entropy
        is always the plug-in one (its codes are the same for every class).
        """
        codes, K, nc = self._classes(c)
        mode = self.options.conditional
        if mode == "shared":
            hc = self._shared_conditional(self.labels, self.stride, self.width, codes, K, nc)
        else:
            hc = self._per_class_entropy(codes, K, nc, mode)
            if self.discrete.any():
                d = self.discrete
                hc[:, d] = self._shared_conditional(self._codes, self.stride, self.width[:, d], codes, K, nc)
        w = nc / self.n  # (reps, K)
        return (w[:, None, :] * hc).sum(axis=-1)

    def _shared_conditional(self, labels, stride, width, codes, K, nc) -> np.ndarray:
        """h(V | C = c) on the edges of h(V), shape (reps, F, K)."""
        counts = kernels.count_labels_class(labels, codes, K, stride).reshape(labels.shape[:2] + (stride, K))
        hc = entropy_from_counts(np.swapaxes(counts, -1, -2), nc[:, None, :], self.table)
        with np.errstate(divide="ignore"):
            return hc + np.log(width)[..., None]

    def _per_class_entropy(self, codes, K, nc, mode: str) -> np.ndarray:
        """h(V | C = c) with a grid per class, shape (reps, F, K).

        ``per-class``: the class's own range, ceil(sqrt(n_c)) bins; ``per-class-m``: own range,
        m bins; ``pooled``: the whole sample's range, ceil(sqrt(n_c)) bins.
        """
        if mode == "pooled":
            lo = np.broadcast_to(self._lo, (self.reps, self.F, K))
            hi = np.broadcast_to(self._hi, (self.reps, self.F, K))
        else:
            lo, hi = kernels.class_extremes(self.x, codes, K)
        # (reps, F, K); a class with < 2 observations has no range: use the whole sample's edges
        mc = np.full_like(nc, self.m) if mode == "per-class-m" else n_bins_array(nc)  # (reps, K)
        mc3 = np.broadcast_to(mc[:, None, :], lo.shape)
        degenerate = (nc < 2)[:, None, :] | ~(hi > lo)
        lo = np.where(degenerate, self._lo, lo)
        hi = np.where(degenerate, self._hi, hi)
        mc3 = np.where(degenerate, self.m, mc3)
        start, scale, width = grid(lo, hi, mc3, self.options.edges)
        # The class maximum may land on label m_c (floor of m_c times a ratio rounded up to 1):
        # it belongs to the last bin m_c - 1. The counts keep a spare, empty cell m after the m
        # bins of every histogram (m_c <= m), their layout since the estimator was written.
        counts = kernels.per_class_counts(self.x, codes, K, start, scale, mc3, self.m + 1)
        hc = entropy_from_counts(counts, nc[:, None, :], self.table)
        with np.errstate(divide="ignore"):
            return hc + np.log(width)

    def mi_class(self, c: np.ndarray) -> np.ndarray:
        """MI(C, V_f) = h(V_f) - h(V_f | C), shape (reps, F) (property (e))."""
        return self.entropy() - self.conditional_entropy(c)

    # --- between features -----------------------------------------------------------------------
    def _joint_grid(self):
        """(labels, cells per axis, axis widths, marginal entropies) for MI between features.

        ``product``: the univariate grids and h(V); ``coarse``: ceil(sqrt(m)) bins per axis and
        the marginal entropies of that same coarse grid; ``coarse-mixed``: the coarse grid for
        h(Vi, Vj) but the m-bin h(Vi), h(Vj); ``cube-root``: as ``coarse`` with ceil(n^(1/3))
        bins per axis. Discrete features keep their codes on every grid.
        """
        if self.options.joint == "product":
            return self.labels, self.stride, self.width, self.entropy()
        if self._coarse is None:
            m2 = n_bins(self.m) if self.options.joint != "cube-root" else cube_root_bins(self.n)
            start, scale, width = grid(self._lo, self._hi, m2, self.options.edges)
            width = width[..., 0]
            stride = m2
            if self._codes is not None:
                width[:, self.discrete] = 1.0
                stride = max(m2, int(self._codes.max(initial=0)) + 1)
            labels = self._label(start, scale, m2, stride)
            if self.options.joint in ("coarse", "cube-root"):
                with np.errstate(divide="ignore"):
                    h = entropy_from_counts(kernels.count_labels(labels, stride), self.n, self.table) + np.log(width)
            else:
                h = self.entropy()
            self._coarse = (labels, stride, width, h)
        return self._coarse

    def _joint_constant(self) -> np.ndarray:
        """(reps, F): the features with all their observations in one cell of the bivariate
        grid's axis (a constant)."""
        if self._one is None:
            labels, stride, _, _ = self._joint_grid()
            self._one = kernels.count_labels(labels, stride).max(axis=-1) == self.n
        return self._one

    def mi_rows(self, first: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """MI(V_first[r], V_j) for every replication r and feature j, shape (reps, F).

        The entry j = first[r] is the estimate of MI(V, V) (finite, it is never used by a
        selection, where a feature is not a candidate against itself). With ``rows`` (replication
        indices, one per entry of ``first``) only those replications are computed, shape
        (len(rows), F). The joint counts of a row are made by a compiled kernel
        (:func:`fstheory.selection.kernels.row_xlogx`), which reads the labels once per row and
        needs no temporary of size F x n.
        """
        first = np.asarray(first, dtype=np.intp)
        labels, m2, width, h = self._joint_grid()
        rows = np.arange(self.reps) if rows is None else np.asarray(rows, dtype=np.intp)
        s = kernels.row_xlogx(labels, rows, first, m2, self.table)
        with np.errstate(divide="ignore"):
            hij = np.log(self.n) - s / self.n + np.log(width[rows, first][:, None] * width[rows])
        mi = h[rows, first][:, None] + h[rows] - hij
        # a feature with one non-empty cell on this grid (a constant) shares no information: an
        # exact 0, not the rounding residue of h + h - h
        one = self._joint_constant()
        with np.errstate(invalid="ignore"):
            return np.where(one[rows, first][:, None] | one[rows], 0.0, mi)

    def pair_class_rows(self, first: np.ndarray, c: np.ndarray, rows: np.ndarray | None = None) -> dict:
        """The entropies behind the three-variable quantities of (V_first[r], V_j, C), on the
        bivariate grid of :meth:`mi_rows` with the same edges for every class.

        Returns a dict of arrays of shape (reps, F) (``h_c``: (reps,)):

        * ``h_pair`` = h(V_s, V_j) = H(labels_s, labels_j) + ln(Delta_s Delta_j);
        * ``h_pair_given_c`` = h(V_s, V_j | C) = H(labels_s, labels_j, C) - H(C) + ln(Delta_s Delta_j);
        * ``h`` = h(V_j) and ``h_given_c`` = h(V_j | C), the marginals of that grid;
        * ``h_c`` = H(C).

        So that the chain rules hold between the quantities built from them (MI(C; {Vs, Vj}) =
        MI(C; Vs) + MI(C; Vj | Vs) with every term on this grid), the marginals here are those of
        the bivariate grid (:meth:`class_marginals`), not the m-bin h(V_j) and per-class
        h(V_j | C) of :meth:`mi_class`. ``rows`` restricts the computation to some replications,
        as in :meth:`mi_rows`. The joint counts are made for a block of features at a time, so
        that they never hold more than about 2**22 cells.
        """
        first = np.asarray(first, dtype=np.intp)
        codes, K, _ = self._classes(c)
        labels, m2, width, _ = self._joint_grid()
        h_c, h, h_given_c = self.class_marginals(c)
        with np.errstate(divide="ignore"):
            logw = np.log(width)
        rows = np.arange(self.reps) if rows is None else np.asarray(rows, dtype=np.intp)
        logw, h_c, h, h_given_c = (a[rows] for a in (logw, h_c, h, h_given_c))
        block = max(1, _COUNT_CELLS // max(1, rows.size * m2 * m2 * K))
        h_pair, h_pair_c = [], []
        for j0 in range(0, self.F, block):
            j1 = min(j0 + block, self.F)
            pair, pairc = kernels.pair_class_counts(labels, codes, K, rows, first, m2, j0, j1)
            h_pair.append(entropy_from_counts(pair, self.n, self.table))
            h_pair_c.append(entropy_from_counts(pairc, self.n, self.table))
        h_pair, h_pair_c = np.concatenate(h_pair, axis=1), np.concatenate(h_pair_c, axis=1)
        lw = logw[np.arange(rows.size), first][:, None] + logw
        return {"h_pair": h_pair + lw, "h_pair_given_c": h_pair_c - h_c[:, None] + lw,
                "h": h, "h_given_c": h_given_c, "h_c": h_c}

    def class_marginals(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(H(C) (reps,), h(V_j) (reps, F), h(V_j | C) (reps, F)) on the axes of the bivariate
        grid, the marginals that :meth:`pair_class_rows` is consistent with."""
        codes, K, nc = self._classes(c)
        labels, m2, width, _ = self._joint_grid()
        with np.errstate(divide="ignore"):
            logw = np.log(width)
        h_c = entropy_from_counts(nc, self.n, self.table)
        h, h_given_c = self._coarse_marginals(labels, m2, c, codes, K, h_c, logw)
        return h_c, h, h_given_c

    def _coarse_marginals(self, labels, m2, c, codes, K, h_c, logw):
        """h(V_j) and h(V_j | C) on the bivariate grid's axes (cached for the last ``c``)."""
        cached = getattr(self, "_marg", None)
        if cached is not None and cached[0] is c:
            return cached[1]
        h = entropy_from_counts(kernels.count_labels(labels, m2), self.n, self.table) + logw
        hj_c = entropy_from_counts(kernels.count_labels_class(labels, codes, K, m2), self.n, self.table)
        out = (h, hj_c - h_c[:, None] + logw)
        self._marg = (c, out)
        return out

    def pairwise(self) -> np.ndarray:
        """MI(V_i, V_j) for all pairs, symmetric (reps, F, F); the diagonal is NaN (never used)."""
        labels, m2, width, h = self._joint_grid()
        out = np.full((self.reps, self.F, self.F), np.nan)
        iu, ju = pair_indices(self.F)
        if iu.size == 0:
            return out
        s = kernels.pair_xlogx(labels, m2, self.table)  # (reps, P)
        with np.errstate(divide="ignore"):
            hij = np.log(self.n) - s / self.n + np.log(width[:, iu] * width[:, ju])
        mi = h[:, iu] + h[:, ju] - hij
        out[:, iu, ju] = mi
        out[:, ju, iu] = mi
        return out


_COUNT_CELLS = 1 << 22  # joint count cells made at a time by pair_class_rows


def _codes(x: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Codes 0..K-1 of the distinct values of each replication's ``features`` of ``x``, in
    increasing order of the values: (reps, len(features), n), one feature at a time."""
    reps, _, n = x.shape
    out = np.empty((reps, len(features), n), dtype=np.int32)
    for r in range(reps):
        for q, f in enumerate(features):
            out[r, q] = np.unique(x[r, f], return_inverse=True)[1]
    return out


def pairwise_mi(x: np.ndarray, options: EstimatorOptions | None = None) -> np.ndarray:
    """All pairwise MI(V_i, V_j) estimates of samples ``x`` (reps, F, n) -> (reps, F, F).

    The diagonal is NaN. With ``options.joint == "product"`` the value of a pair is exactly the
    discrete MI of the two bin-label sequences (``sklearn.metrics.mutual_info_score``) up to
    rounding.
    """
    return BinnedBatch(x, options).pairwise()
