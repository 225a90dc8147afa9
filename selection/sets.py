"""MI(C; V_T) of a set T of features, estimated from one sample: what CMI and JMI3 read on data
(``v.mi_c_set(T)``, ``v.cmi_c_set(i, T)`` of :mod:`fstheory.selection.values`).

The plug-in estimate on cells: each observation's cell is the tuple of its features' labels
(the histogram's bins on the grid of the pair quantities, or a discrete feature's own values),
and MI(C; V_T) = H(cells) + H(C) - H(cells, C). On that grid the ln(Delta) terms of the
differential entropies cancel, so for T = {V_i, V_j} this is the histogram view's
MI(C; {V_i, V_j}), and on discrete features it is the plug-in MI of the joint variable.

Each entropy is summed over its counts in increasing order: an entropy is a function of the
multiset of counts, and two sets with the same partition of the sample (a feature that adds
nothing to the others) then give the same float, so that their difference is an exact 0.

>>> import numpy as np
>>> a = np.array([0, 0, 1, 1]); b = np.array([0, 1, 0, 1]); c = a ^ b
>>> round(set_mi([a], c), 12), round(set_mi([a, b], c), 12)   # XOR: nothing alone, ln 2 together
(0.0, 0.69314718056)
>>> set_mi([a, b, a], c) == set_mi([a, b], c)
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["entropy_of_counts", "set_mi"]


def entropy_of_counts(counts: np.ndarray) -> float:
    """Plug-in entropy (nats) of a histogram, summed over the sorted non-zero counts."""
    c = np.sort(counts[counts > 0]).astype(float)
    n = c.sum()
    if c.size <= 1:
        return 0.0
    return float(np.log(n) - np.sum(c * np.log(c)) / n)


def set_mi(labels: list, classes: np.ndarray) -> float:
    """MI(C; V_T) from the labels of the features of T (each an int array over the observations)
    and the class codes (non-negative ints), plug-in on the cells (module docstring)."""
    classes = np.asarray(classes, dtype=np.intp)
    if not labels:
        return 0.0
    _, cells = np.unique(np.stack([np.asarray(x) for x in labels]), axis=1, return_inverse=True)
    cells = cells.ravel()
    K = int(classes.max(initial=0)) + 1
    h_t = entropy_of_counts(np.bincount(cells))
    h_c = entropy_of_counts(np.bincount(classes))
    h_tc = entropy_of_counts(np.bincount(cells * K + classes))
    return h_t + h_c - h_tc
