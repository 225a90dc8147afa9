"""Peer feature-selection libraries run the way a user would run them, for the comparisons of
``scripts/bench_selector.py`` (speed) and ``scripts/selection_quality.py`` (quality).

The peers live in the benchmark environment only (``.venv-bench``, ``make bench-venv``; see
``scripts/bench_peers.txt``), never in fstheory's dependencies. A peer that is not importable is
reported as "peer not installed" and skipped.

Each runner takes ``X`` (n, F) float, ``y`` (n,) int class codes and ``k`` and returns the selected
feature indices in selection order.

* ``mrmr_selection (F/corr)``: ``mrmr.mrmr_classif`` with its defaults (F statistic for relevance,
  Pearson correlation for redundancy, score relevance / mean redundancy).
* ``mrmr_selection (MI)``: the same library with MI callables: relevance
  ``sklearn.feature_selection.mutual_info_classif`` (Ross kNN), redundancy
  ``mutual_info_regression`` (KSG kNN) against the last selected feature, both with
  ``random_state=0``.
* ``ITMO_FS mRMR`` / ``ITMO_FS MIFS (beta=1)``: ``ITMO_FS.filters.multivariate.MultivariateFilter``
  on data binned into ceil(sqrt(n)) equal-width bins per feature (the library needs discrete data).
* ``pyitlib mRMR`` / ``pyitlib MIFS (beta=1)`` / ``pyitlib maxMIFS``: a direct greedy
  implementation over ``pyitlib.discrete_random_variable.information_mutual`` (plug-in MI in nats)
  on the same binned data.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np


def available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def binned(X: np.ndarray) -> np.ndarray:
    """Each column cut into ceil(sqrt(n)) equal-width bins over its range; integer labels."""
    n = X.shape[0]
    m = math.isqrt(n - 1) + 1
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.minimum(((X - lo) / span * m).astype(np.int64), m - 1)


def _mrmr_default(X, y, k):
    import pandas as pd
    from mrmr import mrmr_classif

    cols = [f"f{j}" for j in range(X.shape[1])]
    sel = mrmr_classif(pd.DataFrame(X, columns=cols), pd.Series(y), K=k, show_progress=False, n_jobs=1)
    return [cols.index(s) for s in sel]


def _mrmr_mi(X, y, k):
    import pandas as pd
    from mrmr.main import mrmr_base
    from sklearn.feature_selection import mutual_info_classif, mutual_info_regression

    cols = [f"f{j}" for j in range(X.shape[1])]
    df = pd.DataFrame(X, columns=cols)

    def relevance(X, y):
        return pd.Series(mutual_info_classif(X.values, y.values, random_state=0), index=X.columns)

    def redundancy(X, target_column, features):
        return pd.Series(mutual_info_regression(X[features].values, X[target_column].values, random_state=0),
                         index=features)

    sel = mrmr_base(K=k, relevance_func=relevance, redundancy_func=redundancy,
                    relevance_args={"X": df, "y": pd.Series(y)}, redundancy_args={"X": df},
                    show_progress=False)
    return [cols.index(s) for s in sel]


def _itmo(measure, beta=None):
    def run(X, y, k):
        from ITMO_FS.filters.multivariate import MultivariateFilter

        f = MultivariateFilter(measure, k, beta=beta)
        f.fit(binned(X), y)
        return [int(j) for j in f.selected_features]

    return run


def _pyitlib(kind):
    def run(X, y, k):
        from pyitlib import discrete_random_variable as drv

        Xb = binned(X)
        F = Xb.shape[1]
        relevance = np.array([drv.information_mutual(Xb[:, j], y, base=np.e) for j in range(F)])
        order = [int(np.argmax(relevance))]
        redundancy = [[] for _ in range(F)]
        while len(order) < k:
            s = order[-1]
            for j in range(F):
                if j not in order:
                    redundancy[j].append(drv.information_mutual(Xb[:, j], Xb[:, s], base=np.e))
            best, best_j = -np.inf, -1
            for j in range(F):
                if j in order:
                    continue
                r = redundancy[j]
                penalty = sum(r) if kind == "mifs" else (max(r) if kind == "maxmifs" else sum(r) / len(r))
                if relevance[j] - penalty > best:
                    best, best_j = relevance[j] - penalty, j
            order.append(best_j)
        return order

    return run


#: name -> (module that must be importable, runner)
PEERS = {
    "mrmr_selection (F/corr)": ("mrmr", _mrmr_default),
    "mrmr_selection (MI)": ("mrmr", _mrmr_mi),
    "ITMO_FS mRMR (binned)": ("ITMO_FS", _itmo("MRMR")),
    "ITMO_FS MIFS beta=1 (binned)": ("ITMO_FS", _itmo("MIFS", 1.0)),
    "pyitlib mRMR (binned)": ("pyitlib", _pyitlib("mrmr")),
    "pyitlib MIFS beta=1 (binned)": ("pyitlib", _pyitlib("mifs")),
    "pyitlib maxMIFS (binned)": ("pyitlib", _pyitlib("maxmifs")),
}

#: peers that failed to install in the benchmark environment (documented in the reports)
NOT_INSTALLABLE = {"pymrmr": "its source distribution imports Cython at build time without declaring it"}


def installed() -> dict:
    """name -> runner for the peers importable here; missing ones map to None."""
    return {name: (run if available(module) else None) for name, (module, run) in PEERS.items()}
