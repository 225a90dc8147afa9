"""On discrete data the selector's estimates are plug-in (Shannon) entropies and MIs, so every
registered method, old and new, must order the features exactly as a direct plug-in computation
of its objective. The direct computation here shares no code with the package: entropies of
joint columns from their counts, the objectives written from their published definitions (each
method's default reading), the greedy rules of the paper (ties within 1e-9 relative to
max(1, |best|) to the lower index, NaN never chosen, stop when every candidate is NaN). Data: a synthetic sample with
redundant features (a copy, a function of another, a constant) and complementary ones (an XOR
class), and scikit-learn's digits (pixels with 17 grey levels)."""

from __future__ import annotations

import functools
import warnings
from itertools import combinations

import numpy as np
import pytest
from sklearn.datasets import load_digits

from fstheory.orderings.methods import METHODS
from fstheory.selection import MIFeatureSelector

RTOL = 1e-9


def _entropy(*cols) -> float:
    """Plug-in entropy (nats) of the joint of integer columns, summed over the sorted counts."""
    if not cols:
        return 0.0
    _, counts = np.unique(np.stack(cols), axis=1, return_counts=True)
    p = np.sort(counts) / counts.sum()
    return float(-np.sum(p * np.log(p)))


class Direct:
    """The information quantities of a discrete sample, by their definitions."""

    def __init__(self, x, c):
        self.x, self.c = x, c
        self.H = functools.lru_cache(maxsize=None)(self._h)

    def _h(self, cols, with_class):
        return _entropy(*[self.x[:, j] for j in cols], *([self.c] if with_class else []))

    def h(self, i):
        return self.H((i,), False)

    def hc(self):
        return self.H((), True)

    def mi_c(self, i):
        return self.h(i) + self.hc() - self.H((i,), True)

    def mi(self, i, j):
        return self.h(i) + self.h(j) - self.H(tuple(sorted((i, j))), False)

    def set(self, T):
        T = tuple(sorted(set(T)))
        return self.H(T, False) + self.hc() - self.H(T, True)

    def pair(self, i, j):
        return self.set((i, j))

    def given(self, i, j):  # MI(Vi;Vj|C) = H(Vi,C) + H(Vj,C) - H(Vi,Vj,C) - H(C)
        return self.H((i,), True) + self.H((j,), True) - self.H(tuple(sorted((i, j))), True) - self.hc()

    def hpc(self, i, j):
        return self.H(tuple(sorted((i, j))), True)


def _f(x):
    return np.float64(x) + 0.0  # IEEE rules (x/0 = +-inf, 0/0 = nan), unsigned zeros


def _sum(xs):
    return _f(sum(xs, np.float64(0.0)))


def _mean(xs):
    return _f(_sum(xs) / len(xs))


def _min(xs):
    return _f(np.min(xs)) if not np.isnan(xs).any() else np.nan


def _max(xs):
    return _f(np.max(xs)) if not np.isnan(xs).any() else np.nan


def _objective(name, d, i, S, beta=0.5, gamma=0.25):
    f = _f
    mc, mi, h = (lambda a: f(d.mi_c(a))), (lambda a, b: f(d.mi(a, b))), (lambda a: f(d.h(a)))

    def ni(a, b):
        return mi(a, b) / min(h(a), h(b))

    def phi(a, b):
        return mi(a, b) / h(b)

    if name == "mifs":
        return mc(i) - f(beta) * _sum([mi(i, s) for s in S])
    if name == "mifs-u":
        return mc(i) - _sum([f(beta) * mc(s) / h(s) * mi(i, s) for s in S])
    if name == "mrmr":
        return mc(i) - _mean([mi(i, s) for s in S])
    if name == "mmifs-u":
        return mc(i) - _max([mc(s) / h(s) * mi(i, s) for s in S])
    if name == "micc":
        return mc(i) / _mean([ni(i, s) for s in S]) - mc(i)
    if name == "qmifs":  # eq. (redQMIFS), the default text reading
        return mc(i) - _sum([(phi(i, k) - f(0.5) * _sum([phi(i, j) * phi(j, k) for j in S if j != k]))
                             * mc(k) for k in S])
    if name == "nmifs":
        return mc(i) - _mean([ni(i, s) for s in S])
    if name == "maxmifs":
        return mc(i) - _max([mi(i, s) for s in S])
    if name == "jmi":
        return _sum([f(d.pair(i, s)) for s in S])
    if name == "cmim":
        return _min([f(d.pair(i, s)) - mc(s) for s in S])
    if name == "jmim":
        return _min([f(d.pair(i, s)) for s in S])
    if name == "cife":
        return mc(i) - _sum([mi(i, s) for s in S]) + _sum([f(d.given(i, s)) for s in S])
    if name == "disr":
        return _sum([f(d.pair(i, s)) / f(d.hpc(i, s)) for s in S])
    if name == "icap":
        return mc(i) - _sum([max(f(0.0), mi(i, s) - f(d.given(i, s))) for s in S])
    if name == "mim":
        return mc(i)
    if name == "cmi":
        return f(d.set(tuple(S) + (i,))) - f(d.set(tuple(S)))
    if name == "njmim":
        return _min([f(d.pair(i, s)) / f(d.hpc(i, s)) for s in S])
    if name == "jmi3":
        if len(S) == 1:
            return f(d.pair(i, S[0]))
        return _sum([f(d.set((i, u, w))) for u, w in combinations(S, 2)])
    if name == "beta-gamma":
        b = 1 / len(S) if beta == "1/|S|" else beta
        g = 1 / len(S) if gamma == "1/|S|" else gamma
        return mc(i) - f(b) * _sum([mi(i, s) for s in S]) + f(g) * _sum([f(d.given(i, s)) for s in S])
    if name == "condred":
        return mc(i) + _sum([f(d.given(i, s)) for s in S])
    raise AssertionError(name)


def _pick(values):
    ok = ~np.isnan(values)
    if not ok.any():
        return None
    v = np.where(ok, values, -np.inf)
    best = v.max()
    tol = RTOL * max(1.0, abs(best)) if np.isfinite(best) else 0.0
    return int(np.argmax(ok & (v >= best - tol)))


def direct_order(name, d, F, k, **params):
    with np.errstate(all="ignore"):
        order = [_pick(np.array([d.mi_c(i) for i in range(F)]))]
        while len(order) < k:
            values = np.array([np.nan if i in order else _objective(name, d, i, order, **params)
                               for i in range(F)])
            w = _pick(values)
            if w is None:
                break
            order.append(w)
    return order


def _rows():
    for key, m in METHODS.items():
        if m.has_gamma:
            yield key, {"beta": 0.5, "gamma": 0.25}
            yield key, {"beta": "1/|S|", "gamma": "1/|S|"}
        elif m.has_beta:
            yield key, {"beta": 0.5}
        else:
            yield key, {}


ROWS = list(_rows())


def _selector_order(x, y, key, k, params):
    sel = MIFeatureSelector(method=key, n_features_to_select=k, discrete_features=True, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a stop is compared, not warned about
        sel.fit(x, y)
    return sel.order_.tolist()


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(20240611)
    n = 3000
    a, b = rng.integers(0, 4, n), rng.integers(0, 4, n)
    y = (a + b) % 2                                  # complementary: a and b alone say little
    flip = rng.random(n) < 0.1
    y = np.where(flip, 1 - y, y)
    x = np.column_stack([
        a, b, a,                                     # a copy of a
        a // 2,                                      # a function of a
        (a + b) % 4,                                 # with b, determines a
        rng.integers(0, 3, n),                       # noise
        np.where(rng.random(n) < 0.3, 1 - y, y),     # informative alone
        b % 2,                                       # a function of b
        np.zeros(n, dtype=int),                      # a constant: h = 0
    ])
    return x, y


@pytest.mark.parametrize("key, params", ROWS, ids=[f"{k}{'-' + str(p['beta']) if p else ''}"
                                                   for k, p in ROWS])
def test_synthetic_orderings_equal_the_direct_plugin(synthetic, key, params):
    x, y = synthetic
    d = Direct(x, y)
    F = x.shape[1]
    assert _selector_order(x, y, key, F, params) == direct_order(key, d, F, F, **params)


@pytest.fixture(scope="module")
def digits():
    x, y = load_digits(return_X_y=True)
    return x.astype(int), y


@pytest.mark.parametrize("key, params", ROWS, ids=[f"{k}{'-' + str(p['beta']) if p else ''}"
                                                   for k, p in ROWS])
@pytest.mark.slow
def test_digits_orderings_equal_the_direct_plugin(digits, key, params):
    """Digits: 1797 images, 64 pixels with 17 grey levels (integers: discrete); the first eight
    features of every method."""
    x, y = digits
    d = Direct(x, y)
    assert _selector_order(x, y, key, 8, params) == direct_order(key, d, x.shape[1], 8, **params)
