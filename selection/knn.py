r"""k-nearest-neighbour estimates of entropies and MIs (the selector's ``estimator="knn"``).

All distances are in the maximum norm, so a ball of radius r in d dimensions has volume (2r)^d.

* **Entropy** of a continuous (vector) variable, Kozachenko and Leonenko (1987), in the form of
  Kraskov et al. (2004), eq. (20): ``h = psi(n) - psi(k) + (d/n) sum_i ln(2 r_i)``, r_i the distance
  from observation i to its k-th neighbour.
* **MI between continuous variables**, Kraskov, Stoegbauer and Grassberger (2004), algorithm 1:
  ``MI = psi(k) + psi(n) - <psi(n_x + 1) + psi(n_y + 1)>``, n_x (n_y) the number of other
  observations strictly closer than r_i in the x (y) subspace.
* **MI between a continuous variable and a discrete one**, Ross (2014), eq. (2):
  ``MI = psi(n) - <psi(N_c)> + psi(k) - <psi(m_i)>``, r_i the distance to the k-th neighbour of
  the same class, m_i the observations of any class within r_i, N_c the class size.
* **Discrete variables** have plug-in (Shannon) entropies; conditioning on a discrete variable is
  exact: ``MI(A; B | D) = sum_d P(D = d) MI(A; B | D = d)`` and ``h(A | D) = sum_d P(d) h(A | D = d)``
  (Frenzel and Pompe's conditional estimator reduces to this when the conditioning variable is
  discrete). A continuous conditioning variable is handled by the chain rule
  ``MI(C; Vi | Vj) = MI(C; {Vi, Vj}) - MI(C; Vj)``.

A group (class or discrete value) with fewer than two observations carries no distance: it is
left out of the sums and the weights of the others are renormalised; k is lowered to
``n_group - 1`` in groups of at most k observations.

Ties in continuous data (repeated values) make distances 0; like scikit-learn's
``mutual_info_classif``, :func:`jitter` adds noise of relative size 1e-10 from a caller's
generator before estimating.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(4000, 1))
>>> round(float(entropy(x)), 1)            # ln(2 pi e)/2 = 1.419
1.4
>>> y = x + rng.normal(size=(4000, 1))
>>> round(float(mi_continuous(x, y)), 1)   # ln(2)/2 = 0.347
0.3
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma
from sklearn.neighbors import KDTree, NearestNeighbors

__all__ = ["jitter", "entropy", "mi_continuous", "mi_discrete_continuous", "plugin_entropy",
           "plugin_mi", "joint_codes", "groups"]


def jitter(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``x`` plus Gaussian noise of standard deviation 1e-10 * max(1, mean |x|) per column."""
    x = np.asarray(x, dtype=float)
    scale = 1e-10 * np.maximum(1.0, np.mean(np.abs(x), axis=0))
    return x + scale * rng.standard_normal(x.shape)


def _2d(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x[:, None] if x.ndim == 1 else x


def _kth_distance(x: np.ndarray, k: int) -> np.ndarray:
    nn = NearestNeighbors(metric="chebyshev", n_neighbors=k).fit(x)
    return nn.kneighbors()[0][:, -1]


def entropy(x, k: int = 3) -> float:
    """Kozachenko-Leonenko differential entropy (nats) of the rows of ``x`` (n, d)."""
    x = _2d(x)
    n, d = x.shape
    k = min(k, n - 1)
    r = _kth_distance(x, k)
    with np.errstate(divide="ignore"):
        return float(digamma(n) - digamma(k) + d * np.mean(np.log(2 * r)))


def _count_within(x: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Observations (self included) within a distance strictly below ``radius`` of each point."""
    tree = KDTree(x, metric="chebyshev")
    return tree.query_radius(x, np.nextafter(radius, 0), count_only=True)


def mi_continuous(x, y, k: int = 3) -> float:
    """KSG (algorithm 1) MI between the rows of ``x`` (n, dx) and ``y`` (n, dy), in nats."""
    x, y = _2d(x), _2d(y)
    n = x.shape[0]
    k = min(k, n - 1)
    radius = _kth_distance(np.hstack([x, y]), k)
    nx = _count_within(x, radius)
    ny = _count_within(y, radius)
    return float(digamma(n) + digamma(k) - np.mean(digamma(nx)) - np.mean(digamma(ny)))


def mi_discrete_continuous(codes, x, k: int = 3) -> float:
    """Ross (2014) MI between discrete ``codes`` (n,) and continuous ``x`` (n, d), in nats."""
    codes = np.asarray(codes)
    x = _2d(x)
    radius = np.zeros(x.shape[0])
    k_all = np.zeros(x.shape[0])
    size = np.zeros(x.shape[0])
    for value in np.unique(codes):
        mask = codes == value
        count = int(mask.sum())
        if count > 1:
            kk = min(k, count - 1)
            radius[mask] = _kth_distance(x[mask], kk)
            k_all[mask] = kk
        size[mask] = count
    keep = size > 1
    n = int(keep.sum())
    if n < 2:
        return 0.0
    x, radius, k_all, size = x[keep], radius[keep], k_all[keep], size[keep]
    m = _count_within(x, radius)
    return float(digamma(n) + np.mean(digamma(k_all)) - np.mean(digamma(size)) - np.mean(digamma(m)))


def joint_codes(*columns) -> np.ndarray:
    """One code per distinct row of the given discrete columns (0 columns: all zeros)."""
    if not columns:
        return np.zeros(0, dtype=np.intp)
    stacked = np.column_stack([np.asarray(c) for c in columns])
    return np.unique(stacked, axis=0, return_inverse=True)[1].ravel()


def plugin_entropy(codes) -> float:
    """Shannon entropy (nats) of discrete codes, plug-in."""
    counts = np.unique(np.asarray(codes), return_counts=True)[1]
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


def plugin_mi(a, b) -> float:
    """Plug-in MI (nats) between two discrete code sequences."""
    return plugin_entropy(a) + plugin_entropy(b) - plugin_entropy(joint_codes(a, b))


def groups(codes) -> list[tuple[float, np.ndarray]]:
    """``[(weight, mask), ...]`` for the values of a discrete variable with at least two
    observations, weights renormalised over them (module docstring)."""
    codes = np.asarray(codes)
    values, counts = np.unique(codes, return_counts=True)
    kept = [(c, codes == v) for v, c in zip(values, counts) if c > 1]
    total = sum(c for c, _ in kept)
    return [(c / total, mask) for c, mask in kept]
