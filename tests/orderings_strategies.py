"""Hypothesis strategies for random ScenarioValues that exercise every extended-real case the
paper's scenarios meet: null and negative entropies, MI = 0 and MI = +inf between features.

Entropies are powers of two (or 0) and MI values multiples of 1/16, so that every quotient and
product in the objectives is a dyadic rational: float arithmetic is then exact up to the final
mean/ratio, and the exact and float worlds must agree on which values are zero.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from fstheory.theory.extended import POS_INF, xr
from fstheory.theory.values import ScenarioValues

ENTROPIES = [Fraction(0)] + [s * Fraction(2) ** e for s in (1, -1) for e in (-2, -1, 0, 1)]
MI_CLASS = [Fraction(n, 16) for n in range(0, 12)]  # MI with a binary class is <= ln 2
MI_FEATURE = [Fraction(0)] * 4 + [Fraction(n, 16) for n in range(1, 33)] + ["inf"] * 4
BETAS = [Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)]


def _values(n, h, mc, upper) -> ScenarioValues:
    labels = tuple(f"F{j + 1}" for j in range(n))
    matrix = [[None] * n for _ in range(n)]
    pos = 0
    for r in range(n):
        matrix[r][r] = POS_INF.named(f"MI({labels[r]},{labels[r]})")
        for c in range(r + 1, n):
            raw = upper[pos]
            pos += 1
            val = POS_INF if raw == "inf" else xr(raw)
            matrix[r][c] = val.named(f"MI({labels[r]},{labels[c]})")
            matrix[c][r] = val.named(f"MI({labels[c]},{labels[r]})")
    return ScenarioValues(
        scenario="random",
        params={},
        labels=labels,
        entropy=tuple(xr(x, f"h({labels[j]})") for j, x in enumerate(h)),
        mi_class=tuple(xr(x, f"MI(C,{labels[j]})") for j, x in enumerate(mc)),
        mi_features=tuple(tuple(row) for row in matrix),
        digits=30,
    )


@st.composite
def scenario_values(draw, min_n=2, max_n=6, n=None):
    n = draw(st.integers(min_n, max_n)) if n is None else n
    h = draw(st.lists(st.sampled_from(ENTROPIES), min_size=n, max_size=n))
    mc = draw(st.lists(st.sampled_from(MI_CLASS), min_size=n, max_size=n))
    upper = draw(st.lists(st.sampled_from(MI_FEATURE), min_size=n * (n - 1) // 2,
                          max_size=n * (n - 1) // 2))
    return _values(n, h, mc, upper)


def to_float(x) -> float:
    if x.is_pos_inf:
        return float("inf")
    if x.is_neg_inf:
        return float("-inf")
    return float(x.value)


def float_arrays(values_list):
    """(h, mi_c, mi) arrays of shape (reps, n), (reps, n), (reps, n, n) from ScenarioValues."""
    h = np.array([[to_float(v.h(j)) for j in range(v.n_features)] for v in values_list])
    mc = np.array([[to_float(v.mi_c(j)) for j in range(v.n_features)] for v in values_list])
    mi = np.array([[[to_float(v.mi(r, c)) for c in range(v.n_features)]
                    for r in range(v.n_features)] for v in values_list])
    return h, mc, mi
