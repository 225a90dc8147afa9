"""The histogram estimator (fstheory.selection.estimators) against exact values and against a plain
loop over sklearn.metrics.mutual_info_score on the same binned data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.selection.estimators import (
    BinnedBatch,
    entropy_from_counts,
    n_bins,
    n_bins_array,
    pair_indices,
    pairwise_mi,
)
from fstheory.selection.options import EstimatorOptions
from fstheory.simulation.sampler import ScenarioSampler

N_LARGE = 250_000  # m = 500 bins


def _tolerance(n: int, width: float, sigma: float, extra_bins: int = 0) -> float:
    """Allowed |estimate - exact| for a histogram entropy (or a difference of two).

    * plug-in bias of H_binned: about -(m - 1)/(2n) for each histogram (Miller-Madow); an MI
      with the class combines h(V) and the per-class histograms, at most (m - 1)/n + extra/n;
    * discretisation: h_Delta - h is O(Delta) for a density of bounded variation (the
      densities here are piecewise smooth), so one bin width;
    * sampling: 4 standard deviations of the mean of -ln f(V), sigma/sqrt(n) each.
    """
    m = n_bins(n)
    return (m - 1 + extra_bins) / n + width + 4 * sigma / math.sqrt(n)


@pytest.fixture(scope="module")
def exact_uniform():
    return evaluate(get_scenario("uniform").bind(k="0.2"), digits=15)


@pytest.fixture(scope="module")
def large_uniform():
    s = ScenarioSampler.from_registry("uniform", {"k": "0.2"})
    base = s.draw_base(np.random.default_rng(20240501), 2, N_LARGE)
    return s.features(base), s.classes(base)


def test_n_bins_is_ceil_sqrt():
    ns = np.arange(2, 20_000)
    expected = [math.ceil(math.sqrt(n)) for n in ns]
    assert [n_bins(int(n)) for n in ns] == expected
    assert n_bins_array(ns).tolist() == expected


def test_entropy_from_counts_is_plugin_entropy():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 50, size=(7, 13))
    p = counts / counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = -np.nansum(np.where(p > 0, p * np.log(p), 0.0), axis=1)
    got = entropy_from_counts(counts, counts.sum(axis=1))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_entropy_of_uniform_and_normal_at_large_n():
    rng = np.random.default_rng(7)
    x = np.stack([rng.uniform(-0.5, 0.5, (3, N_LARGE)), rng.normal(0.0, 1.0, (3, N_LARGE))], axis=1)
    b = BinnedBatch(x)
    h = b.entropy()
    # Unif(-1/2, 1/2): h = ln 1 = 0; -ln f is constant, sigma = 0
    tol_u = _tolerance(N_LARGE, float(b.width[:, 0].max()), 0.0)
    assert np.all(np.abs(h[:, 0] - 0.0) <= tol_u), (h[:, 0], tol_u)
    # N(0, 1): h = ln(2 pi e)/2; Var(-ln f) = Var(X^2/2) = 1/2
    tol_n = _tolerance(N_LARGE, float(b.width[:, 1].max()), math.sqrt(0.5))
    assert np.all(np.abs(h[:, 1] - 0.5 * math.log(2 * math.pi * math.e)) <= tol_n), (h[:, 1], tol_n)
    # and the estimate is biased downwards by about (m-1)/(2n) for the uniform, not a fluke of 0
    assert np.all(h[:, 0] < 0)


@pytest.mark.parametrize("conditional", ["per-class", "per-class-m", "shared"])
def test_mi_with_class_converges_to_exact_values(exact_uniform, large_uniform, conditional):
    x, c = large_uniform
    b = BinnedBatch(x, EstimatorOptions(conditional=conditional))
    mic = b.mi_class(c)
    for j in (0, 1, 2, 3, 6):  # X, 3X+1, Y^2, X-Y, Y
        exact = float(exact_uniform.mi_class[j].value)
        tol = _tolerance(N_LARGE, float(b.width[:, j].max()), 1.0, extra_bins=2 * n_bins(N_LARGE // 2))
        assert np.all(np.abs(mic[:, j] - exact) <= tol), (j, mic[:, j], exact, tol)
    # the exact values quoted in Section 8 for k = 0.2
    assert float(exact_uniform.mi_class[0].value) == pytest.approx(math.log(2) - 0.1, abs=1e-14)
    assert float(exact_uniform.mi_class[3].value) == pytest.approx(-0.64 * math.log(0.8) / 0.8, abs=1e-14)


def test_mi_between_features_on_the_coarse_grid(exact_uniform, large_uniform):
    x, _ = large_uniform
    b = BinnedBatch(x, EstimatorOptions(joint="coarse"))
    rows = b.mi_rows(np.zeros(x.shape[0], dtype=int))
    m2 = n_bins(n_bins(N_LARGE))
    # X, Y^2 independent: MI = 0; the plug-in bias of a discrete MI on an m2 x m2 grid is
    # about (m2 - 1)^2 / (2n) >= 0, so the estimate lies in [0, 2 * that]
    bias = (m2 - 1) ** 2 / (2 * N_LARGE)
    assert float(exact_uniform.mi(0, 2).value) == 0
    assert np.all((rows[:, 2] > 0) & (rows[:, 2] < 2 * bias)), (rows[:, 2], bias)
    # X, X-Y: MI = 1/2. The joint density is uniform on a parallelogram; the coarse cells cut by
    # its edges lose information, a loss of the order of the coarse bin width of X-Y (2/m2).
    exact = float(exact_uniform.mi(0, 3).value)
    assert exact == pytest.approx(0.5, abs=1e-14)
    assert np.all(np.abs(rows[:, 3] - exact) <= 2 / m2), (rows[:, 3], 2 / m2)
    # and it improves with n (the same draws, fewer observations)
    small = BinnedBatch(x[:, :, :10_000], EstimatorOptions(joint="coarse")).mi_rows(np.zeros(2, int))
    assert np.all(np.abs(rows[:, 3] - exact) < np.abs(small[:, 3] - exact))


def _sample(seed=0, reps=3, n=5000, scenario="normal"):
    s = ScenarioSampler.from_registry(scenario, {"k": "0.2"})
    base = s.draw_base(np.random.default_rng(seed), reps, n)
    return s.features(base), s.classes(base)


@pytest.mark.parametrize("joint", ["product", "coarse", "cube-root"])
def test_pairwise_mi_equals_sklearn_loop_on_the_same_labels(joint):
    x, _ = _sample()
    b = BinnedBatch(x, EstimatorOptions(joint=joint))
    got = b.pairwise()
    labels = b._joint_grid()[0]
    iu, ju = pair_indices(x.shape[1])
    expected = np.full_like(got, np.nan)
    for r in range(x.shape[0]):
        for i, j in zip(iu, ju):
            expected[r, i, j] = expected[r, j, i] = mutual_info_score(labels[r, i], labels[r, j])
    assert np.nanmax(np.abs(got - expected)) <= 1e-12
    assert np.isnan(np.diagonal(got, axis1=1, axis2=2)).all()
    assert iu.size == 45


def test_rows_of_the_first_feature_equal_the_pairwise_matrix():
    x, _ = _sample(seed=1, reps=4, n=777)
    for joint in ("product", "coarse", "coarse-mixed", "cube-root"):
        b = BinnedBatch(x, EstimatorOptions(joint=joint))
        first = np.array([0, 1, 6, 9])
        rows = b.mi_rows(first)
        full = b.pairwise()
        for r, f in enumerate(first):
            others = np.arange(x.shape[1]) != f
            np.testing.assert_allclose(rows[r, others], full[r, f, others], rtol=0, atol=1e-12)


def test_shared_conditional_is_the_discrete_mi_of_labels_and_class():
    x, c = _sample(seed=2, reps=3, n=3000)
    b = BinnedBatch(x, EstimatorOptions(conditional="shared"))
    mic = b.mi_class(c)
    for r in range(x.shape[0]):
        for f in range(x.shape[1]):
            assert abs(mic[r, f] - mutual_info_score(b.labels[r, f], c[r])) <= 1e-12


def test_per_class_conditional_against_a_plain_per_class_histogram():
    x, c = _sample(seed=4, reps=2, n=1001, scenario="uniform")
    for conditional in ("per-class", "per-class-m"):
        b = BinnedBatch(x, EstimatorOptions(conditional=conditional))
        got = b.conditional_entropy(c)
        for r in range(x.shape[0]):
            for f in range(x.shape[1]):
                total = 0.0
                for cls in (False, True):
                    v = x[r, f][c[r] == cls]
                    m = n_bins(v.size) if conditional == "per-class" else n_bins(x.shape[2])
                    counts, edges = np.histogram(v, bins=m, range=(v.min(), v.max()))
                    p = counts[counts > 0] / v.size
                    total += v.size / x.shape[2] * (-(p * np.log(p)).sum() + math.log(edges[1] - edges[0]))
                # np.histogram computes its labels differently; a value on an edge may move, so
                # compare to a tolerance of a few observations changing bin: 4 ln(n)/n
                assert abs(got[r, f] - total) <= 4 * math.log(x.shape[2]) / x.shape[2]


def test_x_and_3x_plus_1_have_the_same_counts_and_estimates_up_to_rounding():
    x, c = _sample(seed=5, reps=50, n=1000, scenario="uniform")
    b = BinnedBatch(x)
    same = (b.labels[:, 0] == b.labels[:, 1]).all(axis=-1)
    assert same.mean() > 0.9  # rounding of 3x + 1 may move an observation on a bin edge
    mic = b.mi_class(c)
    d = np.abs(mic[same, 0] - mic[same, 1])
    assert d.max() < 1e-14 and (d > 0).any()  # equal in exact arithmetic, not in floats


def test_pairwise_mi_function_and_shapes():
    x, _ = _sample(seed=6, reps=2, n=100)
    out = pairwise_mi(x, EstimatorOptions(joint="product"))
    assert out.shape == (2, 10, 10)
    np.testing.assert_array_equal(out, np.transpose(out, (0, 2, 1)))
