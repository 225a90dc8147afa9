"""Hypothesis strategies for random ScenarioValues that exercise every extended-real case the
paper's scenarios meet: null and negative entropies, MI = 0 and MI = +inf between features.

Entropies are powers of two (or 0) and MI values multiples of 1/16, so that every quotient and
product in the objectives is a dyadic rational: float arithmetic is then exact up to the final
mean/ratio, and the exact and float worlds must agree on which values are zero.

The joint values (for the three-dimensional methods) and the set values (:class:`RandomSets`,
for CMI and JMI3) are consistent with the identities the engine uses: H(C) = 11/16 (>= every MI(C, V), <= ln 2), MI(C;{Vi,Vj}) in [max(MI(C,Vi),
MI(C,Vj)), H(C)], MI(C;Vi|Vj) = MI(C;{Vi,Vj}) - MI(C,Vj), MI(Vi;Vj|C) = MI(Vi,Vj) - MI(C,Vi) -
MI(C,Vj) + MI(C;{Vi,Vj}) (+inf when MI(Vi,Vj) = +inf), H(Vi,Vj,C) = h(Vi) + h(Vj) - MI(Vi,Vj) +
H(C) - MI(C;{Vi,Vj}) (-inf when MI(Vi,Vj) = +inf). ``unknown`` marks pairs whose MI(C;{Vi,Vj})
is "not computed" (and, as in the engine, what is derived from it).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
from hypothesis import strategies as st

from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr
from fstheory.engine.values import JointValues, ScenarioValues

ENTROPIES = [Fraction(0)] + [s * Fraction(2) ** e for s in (1, -1) for e in (-2, -1, 0, 1)]
MI_CLASS = [Fraction(n, 16) for n in range(0, 12)]  # MI with a binary class is <= ln 2
MI_FEATURE = [Fraction(0)] * 4 + [Fraction(n, 16) for n in range(1, 33)] + ["inf"] * 4
BETAS = [Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)]
H_CLASS = Fraction(11, 16)


def _nc(label):
    return ExtendedReal.indeterminate(Form.NOT_COMPUTED, f"{label} not computed: test", label)


def joint_values(values: ScenarioValues, pair_steps, unknown=frozenset()) -> JointValues:
    """Joint values consistent with ``values`` (see the module docstring). ``pair_steps[p]`` in
    [0, 1] places the p-th upper-triangle MI(C;{Vi,Vj}) between its bounds."""
    n, L = values.n_features, values.labels
    hc = xr(H_CLASS, "H(C)")
    pair = [[None] * n for _ in range(n)]
    pos = 0
    for i in range(n):
        pair[i][i] = values.mi_c(i).named(f"MI(C,{L[i]})")
        for j in range(i + 1, n):
            lo = max(values.mi_c(i).value, values.mi_c(j).value)
            frac = pair_steps[pos]
            pos += 1
            raw = xr(lo + (xr(H_CLASS).value - lo) * frac)
            for a, b in ((i, j), (j, i)):
                label = f"MI(C;{{{L[a]},{L[b]}}})"
                pair[a][b] = _nc(label) if (i, j) in unknown else raw.named(label)
    cmi = [[None] * n for _ in range(n)]
    given = [[None] * n for _ in range(n)]
    hpair = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            cmi[i][j] = xr(0, f"MI(C;{L[i]}|{L[i]})") if i == j else (
                pair[i][j] - values.mi_c(j)).named(f"MI(C;{L[i]}|{L[j]})")
            mi = values.mi(i, j)
            if i == j or mi.is_pos_inf:
                given[i][j] = POS_INF.named(f"MI({L[i]};{L[j]}|C)")
                hpair[i][j] = NEG_INF.named(f"H({L[i]},{L[j]},C)")
            else:
                given[i][j] = (mi - values.mi_c(i) - values.mi_c(j) + pair[i][j]).named(
                    f"MI({L[i]};{L[j]}|C)")
                hpair[i][j] = (values.h(i) + values.h(j) - mi + hc - pair[i][j]).named(
                    f"H({L[i]},{L[j]},C)")
    return JointValues(hc, tuple(map(tuple, pair)), tuple(map(tuple, cmi)),
                       tuple(map(tuple, given)), tuple(map(tuple, hpair)))


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


STEPS = [Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)]


class RandomSets:
    """MI(C; V_T) for random values, consistent with their joint values: one feature is
    MI(C, V), two are MI(C;{Vi,Vj}), more are min(H(C), max over the pairs + (|T| - 2)/64)
    (monotone, at most H(C), dyadic); "not computed" when a pair in T is. MI(C; V_i | V_T) is
    the difference (exact: the values are dyadic)."""

    def __init__(self, values: ScenarioValues):
        self.values = values
        self.h_class = values.h_c()

    def mi_c_set(self, T):
        v = self.values
        T = sorted(set(int(t) for t in T))
        if len(T) == 1:
            return v.mi_c(T[0])
        if len(T) == 2:
            return v.mi_c_pair(*T)
        label = "MI(C;{" + ",".join(v.labels[t] for t in T) + "})"
        pairs = [v.mi_c_pair(a, b) for a, b in combinations(T, 2)]
        missing = [p for p in pairs if p.is_indeterminate]
        if missing:
            return _nc(label)
        best = max(p.value for p in pairs)
        return xr(min(xr(H_CLASS).value, best + xr(Fraction(len(T) - 2, 64)).value), label)

    def cmi_c_set(self, i, T):
        v = self.values
        T = sorted(set(int(t) for t in T))
        label = f"MI(C;{v.labels[i]}|{{{','.join(v.labels[t] for t in T)}}})"
        return (self.mi_c_set(T + [i]) - self.mi_c_set(T)).named(label)


def with_sets(values: ScenarioValues) -> ScenarioValues:
    """``values`` with :class:`RandomSets` attached (what ``v.mi_c_set`` reads)."""
    object.__setattr__(values, "sets", RandomSets(values))
    return values


@st.composite
def scenario_values(draw, min_n=2, max_n=6, n=None, unknown_pairs=False):
    """Random values with consistent joint values; ``unknown_pairs``: some MI(C;{Vi,Vj}) are
    "not computed" (then ``values.complete`` holds the same values fully known)."""
    n = draw(st.integers(min_n, max_n)) if n is None else n
    m = n * (n - 1) // 2
    h = draw(st.lists(st.sampled_from(ENTROPIES), min_size=n, max_size=n))
    mc = draw(st.lists(st.sampled_from(MI_CLASS), min_size=n, max_size=n))
    upper = draw(st.lists(st.sampled_from(MI_FEATURE), min_size=m, max_size=m))
    steps = draw(st.lists(st.sampled_from(STEPS), min_size=m, max_size=m))
    v = _values(n, h, mc, upper)
    if not unknown_pairs:
        return with_sets(v.with_joint(joint_values(v, steps)))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    unknown = frozenset(draw(st.lists(st.sampled_from(pairs), max_size=2)))
    return with_sets(v.with_joint(joint_values(v, steps, unknown))), v, steps, unknown


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
