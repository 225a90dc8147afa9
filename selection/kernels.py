"""Compiled loops of the histogram estimator (:mod:`fstheory.selection.estimators`): bin labels,
histogram counts and the joint sums of ``c ln c``, with no temporary larger than the label arrays.

Every function here counts; none computes an entropy. The estimator turns the counts into
entropies with :func:`fstheory.selection.estimators.entropy_from_counts`, so a count array made
here and the one :func:`numpy.bincount` makes from the same labels give the same floats, bit for
bit (tests/selection/test_selector_scale.py checks both routes on every estimator option).

Arrays: a batch ``x`` is ``(reps, F, n)`` float64 in any memory layout (the selector passes the
transpose of its ``(n, F)`` input, a view); labels are ``(reps, F, n)`` in the smallest unsigned
integer type that holds the number of cells (:func:`label_dtype`), C-contiguous; class codes are
``(reps, n)`` integers in ``[0, K)``. When the samples of a feature are not contiguous in ``x``,
the loops visit blocks of samples and, inside a block, every feature, so that a block of ``x``
is read from the cache rather than from memory once per feature.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "class_extremes",
    "count_labels",
    "count_labels_class",
    "grid_labels",
    "integer_columns",
    "label_dtype",
    "pair_class_counts",
    "pair_xlogx",
    "per_class_counts",
    "row_xlogx",
]

_BLOCK_BYTES = 1 << 18  # a block of samples x features read through the cache


def label_dtype(cells: int) -> np.dtype:
    """The smallest unsigned type for labels in ``[0, cells)`` (int32 beyond 65,536 cells).

    >>> [label_dtype(c).name for c in (9, 256, 257, 70_000)]
    ['uint8', 'uint8', 'uint16', 'int32']
    """
    return np.dtype(np.uint8 if cells <= 1 << 8 else np.uint16 if cells <= 1 << 16 else np.int32)


def _block(x: np.ndarray) -> int:
    """Samples per block: all of them when a feature's samples are contiguous."""
    _, F, n = x.shape
    if x.strides[2] == x.itemsize or F <= 1:
        return max(n, 1)
    return max(16, _BLOCK_BYTES // (F * x.itemsize))


def grid_labels(x: np.ndarray, start: np.ndarray, scale: np.ndarray, m: int, out: np.ndarray) -> np.ndarray:
    """``out[r, f, t] = min(floor((x[r, f, t] - start[r, f]) * scale[r, f]), m - 1)``; the same
    float operations as :func:`fstheory.selection.estimators.bin_labels` (``x - start >= 0``, so
    truncation is the floor). ``out`` is ``(reps, F, n)``, returned."""
    _grid_labels(x, np.ascontiguousarray(start, dtype=np.float64), np.ascontiguousarray(scale, dtype=np.float64),
                 int(m), _block(x), out)
    return out


@numba.njit(cache=True, nogil=True)
def _grid_labels(x, start, scale, m, block, out):  # pragma: no cover - compiled
    reps, F, n = x.shape
    for r in range(reps):
        for t0 in range(0, n, block):
            t1 = min(t0 + block, n)
            for f in range(F):
                s, c = start[r, f], scale[r, f]
                for t in range(t0, t1):
                    v = int((x[r, f, t] - s) * c)
                    out[r, f, t] = min(v, m - 1)


def count_labels(labels: np.ndarray, stride: int) -> np.ndarray:
    """Counts of every (replication, feature) histogram: ``(reps, F, stride)`` int64."""
    out = np.zeros(labels.shape[:2] + (int(stride),), dtype=np.int64)
    _count_labels(labels, out)
    return out


@numba.njit(cache=True, nogil=True)
def _count_labels(labels, out):  # pragma: no cover - compiled
    reps, F, n = labels.shape
    for r in range(reps):
        for f in range(F):
            lab, cnt = labels[r, f], out[r, f]
            for t in range(n):
                cnt[lab[t]] += 1


def count_labels_class(labels: np.ndarray, codes: np.ndarray, K: int, stride: int) -> np.ndarray:
    """Counts of (label, class) cells ``label * K + class``: ``(reps, F, stride * K)`` int64."""
    out = np.zeros(labels.shape[:2] + (int(stride) * int(K),), dtype=np.int64)
    _count_labels_class(labels, np.ascontiguousarray(codes, dtype=np.intp), int(K), out)
    return out


@numba.njit(cache=True, nogil=True)
def _count_labels_class(labels, codes, K, out):  # pragma: no cover - compiled
    reps, F, n = labels.shape
    for r in range(reps):
        cls = codes[r]
        for f in range(F):
            lab, cnt = labels[r, f], out[r, f]
            for t in range(n):
                cnt[lab[t] * K + cls[t]] += 1


def class_extremes(x: np.ndarray, codes: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of each feature over each class's observations, ``(reps, F, K)``;
    +inf and -inf for a class without observations."""
    reps, F, _ = x.shape
    lo = np.full((reps, F, int(K)), np.inf)
    hi = np.full((reps, F, int(K)), -np.inf)
    _class_extremes(x, np.ascontiguousarray(codes, dtype=np.intp), _block(x), lo, hi)
    return lo, hi


@numba.njit(cache=True, nogil=True)
def _class_extremes(x, codes, block, lo, hi):  # pragma: no cover - compiled
    reps, F, n = x.shape
    for r in range(reps):
        cls = codes[r]
        for t0 in range(0, n, block):
            t1 = min(t0 + block, n)
            for f in range(F):
                lo_f, hi_f = lo[r, f], hi[r, f]
                for t in range(t0, t1):
                    v, k = x[r, f, t], cls[t]
                    lo_f[k] = min(lo_f[k], v)
                    hi_f[k] = max(hi_f[k], v)


def per_class_counts(x: np.ndarray, codes: np.ndarray, K: int, start: np.ndarray, scale: np.ndarray,
                     bins: np.ndarray, stride: int) -> np.ndarray:
    """Counts of each class's histogram on that class's own grid, ``(reps, F, K, stride)``.

    Observation t of class k falls in ``min(floor((x - start[r, f, k]) * scale[r, f, k]),
    bins[r, f, k] - 1)``; ``stride`` is at least the largest number of bins plus one (the cell
    past the last bin of every histogram stays empty: the layout of the counts the estimator
    always had).
    """
    reps, F, _ = x.shape
    out = np.zeros((reps, F, int(K), int(stride)), dtype=np.int64)
    _per_class_counts(x, np.ascontiguousarray(codes, dtype=np.intp),
                      np.ascontiguousarray(start, dtype=np.float64), np.ascontiguousarray(scale, dtype=np.float64),
                      np.ascontiguousarray(bins, dtype=np.intp), _block(x), out)
    return out


@numba.njit(cache=True, nogil=True)
def _per_class_counts(x, codes, start, scale, bins, block, out):  # pragma: no cover - compiled
    reps, F, n = x.shape
    for r in range(reps):
        cls = codes[r]
        for t0 in range(0, n, block):
            t1 = min(t0 + block, n)
            for f in range(F):
                s, c, b, cnt = start[r, f], scale[r, f], bins[r, f], out[r, f]
                for t in range(t0, t1):
                    k = cls[t]
                    v = int((x[r, f, t] - s[k]) * c[k])
                    last = b[k] - 1
                    cnt[k, min(v, last)] += 1


def pair_class_counts(labels: np.ndarray, codes: np.ndarray, K: int, rows: np.ndarray, first: np.ndarray,
                      m: int, j0: int, j1: int) -> tuple[np.ndarray, np.ndarray]:
    """Joint counts of (V_first[q], V_j) and of (V_first[q], V_j, C) in replication rows[q], for
    the features j0 <= j < j1: ``(R, j1 - j0, m * m)`` with cell ``a * m + b`` and
    ``(R, j1 - j0, m * m * K)`` with cell ``(a * m + b) * K + class``."""
    R, J = len(rows), j1 - j0
    pair = np.zeros((R, J, m * m), dtype=np.int64)
    pairc = np.zeros((R, J, m * m * int(K)), dtype=np.int64)
    _pair_class_counts(labels, np.ascontiguousarray(codes, dtype=np.intp), int(K),
                       np.ascontiguousarray(rows, dtype=np.intp), np.ascontiguousarray(first, dtype=np.intp),
                       int(m), int(j0), pair, pairc)
    return pair, pairc


@numba.njit(cache=True, nogil=True)
def _pair_class_counts(labels, codes, K, rows, first, m, j0, pair, pairc):  # pragma: no cover - compiled
    R, J = pair.shape[0], pair.shape[1]
    n = labels.shape[2]
    for q in range(R):
        r = rows[q]
        ls, cls = labels[r, first[q]], codes[r]
        for j in range(J):
            lj, p, pc = labels[r, j0 + j], pair[q, j], pairc[q, j]
            for t in range(n):
                cell = ls[t] * m + lj[t]
                p[cell] += 1
                pc[cell * K + cls[t]] += 1


# ----- sums of c ln c of joint histograms, straight from the labels --------------------------------


def pair_xlogx(labels: np.ndarray, m: int, table: np.ndarray) -> np.ndarray:
    """sum c ln c of the joint histogram of every pair i < j, shape (reps, P), pairs in
    row-major order (``np.triu_indices(F, 1)``).

    For each pair the m x m counts live in one small array that stays in the L1 cache
    (:func:`_joint_xlogx`), so no temporary of size reps * P * n is needed.
    """
    return _pair_xlogx(np.ascontiguousarray(labels), int(m), np.ascontiguousarray(table, dtype=np.float64))


@numba.njit(cache=True, nogil=True)
def _pair_xlogx(labels, m, table):  # pragma: no cover - compiled
    reps, F, _ = labels.shape
    P = F * (F - 1) // 2
    out = np.empty((reps, P))
    counts = np.zeros(m * m, np.int64)
    for r in range(reps):
        p = 0
        for i in range(F):
            for j in range(i + 1, F):
                out[r, p] = _joint_xlogx(labels[r, i], labels[r, j], m, table, counts)
                p += 1
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _joint_xlogx(li, lj, m, table, counts):  # pragma: no cover - compiled
    """sum c ln c of the joint histogram of two label sequences; ``counts`` (m*m) is zero on
    entry and on exit. A small grid (m^2 <= n) is counted and then summed cell by cell; a large
    one accumulates table[c + 1] - table[c] as each cell grows and resets only the touched cells,
    so that no pass over the m^2 cells is needed."""
    n = li.shape[0]
    s = 0.0
    if m * m <= n:
        for t in range(n):
            counts[li[t] * m + lj[t]] += 1
        for cell in range(m * m):
            s += table[counts[cell]]
            counts[cell] = 0
    else:
        for t in range(n):
            cell = li[t] * m + lj[t]
            c = counts[cell]
            s += table[c + 1] - table[c]
            counts[cell] = c + 1
        for t in range(n):
            counts[li[t] * m + lj[t]] = 0
    return s


def row_xlogx(labels: np.ndarray, rows: np.ndarray, first: np.ndarray, m: int, table: np.ndarray) -> np.ndarray:
    """sum c ln c of the joint histogram of (V_first[q], V_j) in replication rows[q], for every
    j: shape (len(rows), F); ``labels`` (reps, F, n), cells m x m."""
    return _row_xlogx(np.ascontiguousarray(labels), np.ascontiguousarray(rows, dtype=np.intp),
                      np.ascontiguousarray(first, dtype=np.intp), int(m),
                      np.ascontiguousarray(table, dtype=np.float64))


@numba.njit(cache=True, nogil=True)
def _row_xlogx(labels, rows, first, m, table):  # pragma: no cover - compiled
    R = rows.shape[0]
    F = labels.shape[1]
    out = np.empty((R, F))
    counts = np.zeros(m * m, np.int64)
    for q in range(R):
        li = labels[rows[q], first[q]]
        for j in range(F):
            out[q, j] = _joint_xlogx(li, labels[rows[q], j], m, table, counts)
    return out


def integer_columns(X: np.ndarray) -> np.ndarray:
    """Whether every value of each column of ``X`` (n, F) is an integer, (F,) bool; ``X`` is
    read row by row and the scan ends as soon as no column can still be integer-valued."""
    return _integer_columns(np.asarray(X, dtype=np.float64))


@numba.njit(cache=True, nogil=True)
def _integer_columns(X):  # pragma: no cover - compiled
    n, F = X.shape
    out = np.ones(F, dtype=np.bool_)
    left = F
    for t in range(n):
        if left == 0:
            break
        for f in range(F):
            if out[f]:
                v = X[t, f]
                if np.floor(v) != v:
                    out[f] = False
                    left -= 1
    return out
