"""The selector at scale: memory O(n_features x n_selected) and lean in the input's size, the
same results as the dense implementation it replaced (bit for bit), counts made by the compiled
kernels equal to numpy's, and progress on stderr. Speed is measured by `make bench`
(scripts/bench_selector.py), never asserted here."""

from __future__ import annotations

import json
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

from fstheory.selection import MIFeatureSelector, kernels
from fstheory.selection.estimators import BinnedBatch, count_histograms, bin_labels, grid
from fstheory.selection.options import EstimatorOptions

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests" / "data" / "selector_reference.json").read_text())
sys.path.insert(0, str(ROOT / "scripts"))
import make_selector_reference as reference


def _peak_bytes(fn) -> int:
    """Peak of the memory allocated (numpy included) while ``fn`` runs, after a small fit of
    every method used (loading the compiled kernels allocates too)."""
    rng = np.random.default_rng(9)
    for method in ("mrmr", "jmi"):
        MIFeatureSelector(method=method, n_features_to_select=2).fit(rng.normal(size=(300, 4)), np.arange(300) % 2)
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_the_dense_implementations_selections_are_reproduced_bit_for_bit():
    """Orderings, steps (scores, ties, indeterminate candidates with their forms and causes),
    score matrices, stops and warnings of 170 fits, as the dense implementation gave them --
    with the tie band rtol * max(1, |best|) since: in one fit (CMIM on "constant") a score of
    -2^-50 is now reported tied with the best score 0 (the order is the same)."""
    data = reference.datasets()
    for case in REFERENCE["selector"]:
        X, y = data[case["data"]]
        assert reference.fit_record(X, y, **case["params"]) == case["result"], (case["data"], case["params"])


def test_the_dense_implementations_estimates_are_reproduced_bit_for_bit():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        new = reference.estimator_cases()
    assert len(new) == len(REFERENCE["estimator"]) == 64
    for got, expected in zip(new, REFERENCE["estimator"]):
        assert got == expected, (expected["options"], expected["discrete"])


@pytest.mark.parametrize("layout", ["batch", "transposed"])
def test_kernel_counts_equal_numpy_bincount(layout):
    """Second route for the compiled counts: numpy's bincount of numpy's labels, on a C-ordered
    batch and on the transposed view the selector passes."""
    rng = np.random.default_rng(3)
    if layout == "batch":
        x = rng.normal(size=(3, 7, 500))
    else:
        x = rng.normal(size=(500, 40)).T[None]  # a feature's samples are not contiguous
    lo, hi = x.min(-1, keepdims=True), x.max(-1, keepdims=True)
    start, scale, _ = grid(lo, hi, 23, "range")
    expected = bin_labels(x, start, scale, 23)
    got = kernels.grid_labels(x, start[..., 0], scale[..., 0], 23, np.empty(x.shape, np.uint8))
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(kernels.count_labels(got, 23), count_histograms(expected, 23))
    c = rng.integers(0, 3, (x.shape[0], x.shape[2]))
    np.testing.assert_array_equal(kernels.count_labels_class(got, c, 3, 23),
                                  count_histograms(expected * 3 + c[:, None, :], 69))
    lo_k, hi_k = kernels.class_extremes(x, c, 3)
    for k in range(3):
        np.testing.assert_array_equal(lo_k[..., k], np.where(c[:, None, :] == k, x, np.inf).min(-1))
        np.testing.assert_array_equal(hi_k[..., k], np.where(c[:, None, :] == k, x, -np.inf).max(-1))


def test_no_matrix_of_n_features_squared():
    """200 x 20,000, select 5: the pair estimates kept are 4 rows of 20,000 (the dense
    implementation allocated 20,000 x 20,000 floats, 3.2 GB, and a mask of the same shape)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 20_000))
    y = (X[:, 0] + X[:, 1] >= 0).astype(int)
    sels = {}

    def fit(method):
        sels[method] = MIFeatureSelector(method=method, n_features_to_select=5).fit(X, y)

    for method in ("mrmr", "jmi"):
        peak = _peak_bytes(lambda method=method: fit(method))
        assert peak < 1.5 * X.nbytes, (method, peak / X.nbytes)
        assert sels[method].order_[0] in (0, 1) and len(sels[method].order_) == 5


def test_extra_memory_is_a_fraction_of_the_input():
    """Many samples: no temporary of the input's size (the dense implementation made several
    float and intp copies of it: bin positions, labels, per-class scratch arrays)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40_000, 60))
    y = (X[:, 0] - X[:, 1] >= 0).astype(int)
    for method in ("mrmr", "jmi"):
        peak = _peak_bytes(lambda method=method: MIFeatureSelector(method=method, n_features_to_select=6).fit(X, y))
        assert peak < 0.75 * X.nbytes, (method, peak / X.nbytes)


def test_the_pair_rows_kept_are_those_of_the_selected_features():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 50))
    y = (X[:, 3] >= 0).astype(int)
    from fstheory.selection.values import HistogramValues

    seen = []
    original = HistogramValues._rows

    def spy(self, group, first, rows):
        seen.append((group, first.tolist()))
        return original(self, group, first, rows)

    HistogramValues._rows = spy
    try:
        sel = MIFeatureSelector(method="jmi", n_features_to_select=4).fit(X, y)
    finally:
        HistogramValues._rows = original
    assert seen == [("class", [int(s)]) for s in sel.order_[:3]]


def test_progress_on_stderr_with_verbose(capsys):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((200, 30))
    y = (X[:, 0] >= 0).astype(int)
    MIFeatureSelector(n_features_to_select=4).fit(X, y)
    assert capsys.readouterr().err == ""
    MIFeatureSelector(n_features_to_select=4, verbose=1).fit(X, y)  # short: silent
    assert capsys.readouterr().err == ""
    MIFeatureSelector(n_features_to_select=4, verbose=2).fit(X, y)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("[MIFeatureSelector] mRMR: estimating h(V) and MI(C,V) of 30 features (")
    assert [line.split(" (")[0] for line in err[1:]] == [
        "[MIFeatureSelector] mRMR: step 2 of 4", "[MIFeatureSelector] mRMR: step 3 of 4",
        "[MIFeatureSelector] mRMR: step 4 of 4", "[MIFeatureSelector] mRMR: 4 features selected"]


def test_batch_reads_a_transposed_view_without_copying_it():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((1000, 30))
    b = BinnedBatch(X.T[None], EstimatorOptions())
    assert np.shares_memory(b.x, X)
    np.testing.assert_array_equal(b.entropy(), BinnedBatch(np.ascontiguousarray(X.T)[None]).entropy())
