r"""Relevance derived: the paper's Section 3 classes, relevance-optimal sets, and the sequel's
categories relative to a selected set -- from the engine's quantities and the structure of the
declarations, never from labels.

Definitions (Pascoal et al., Section 3)
    ``V_L`` is *maximally informative* if ``C | (V_L, V_rest) = C | V_L`` in law; equivalently
    (chain rule) MI(C; V_L) = MI(C; V_T), T all features. A *relevance-optimal* set is a
    maximally informative set of minimum size. ``V_i`` is *strongly relevant* if ``V_{T-i}`` is
    not maximally informative, *irrelevant* if MI(C; V_i | V_L) = 0 for every L in T - i, and
    *weakly relevant* otherwise. A weakly relevant feature is WR-NR for the relevance-optimal
    sets that contain it and WR-R for the others (Yu and Liu 2004).
Sequel (Macedo, Oliveira, Pacheco, Valadas, Neurocomputing 2019)
    Given a selected set S, a candidate V_i is judged by the target objective MI(C; V_i | S),
    which lies between 0 and H(C | S): *fully relevant* when it reaches H(C | S) > 0 (S and V_i
    explain the class completely), *relevant* when strictly between, *redundant* when it is 0
    while MI(C, V_i) > 0 (its information on the class is already in S), *irrelevant* when it is
    0 and MI(C, V_i) = 0.

How each comparison is decided (:class:`Judge`)
    * equal, by structure: the two sets have the same derivation key
      (:mod:`fstheory.engine.derive_joint`), or every feature added is a function of the
      others or independent of the class and the rest;
    * different, by structure: when the class is a function of the larger set, an exact
      witness that the smaller one does not determine it (:func:`fstheory.theory.determination.uncertainty_witness`);
    * different, by value: the two MIs differ by more than the working precision
      (``10**-(digits-5)``, relative);
    * otherwise undecided, with the reason -- equality is never concluded from floating values.

:func:`relevance_optimal_sets` raises :class:`RelevanceUndecided` when a set of the minimum size
cannot be decided.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> b = get_scenario("uniform").bind(k="0.2")
>>> sorted(sorted(s) for s in relevance_optimal_sets(b, digits=20))
[[0, 3], [0, 6], [1, 3], [1, 6], [3, 6]]
>>> [c.kind for c in classify(b, digits=20).classes][:3]
['weakly relevant', 'weakly relevant', 'weakly relevant']
>>> relevance_optimal_sets(get_scenario("uniform").bind(k="0"), digits=20)
(frozenset({0}), frozenset({1}))
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath

from fstheory.theory.extended import ExtendedReal

__all__ = [
    "RelevanceUndecided",
    "Decision",
    "FeatureClass",
    "RelevanceReport",
    "Category",
    "Judge",
    "relevance_optimal_sets",
    "classify",
    "categorize",
]


class RelevanceUndecided(Exception):
    """A relevance question that the structure and the computed values cannot decide."""


@dataclass(frozen=True)
class Decision:
    """A yes/no answer with its reason; ``value`` None means undecided."""

    value: bool | None
    reason: str


@dataclass(frozen=True)
class FeatureClass:
    index: int
    label: str
    kind: str  # "strongly relevant" | "weakly relevant" | "irrelevant" | "undecided"
    reason: str
    optimal: str = ""  # for a weakly relevant feature: in which relevance-optimal sets (WR-NR / WR-R)


@dataclass(frozen=True)
class RelevanceReport:
    labels: tuple
    optimal_sets: tuple | None
    optimal_reason: str
    classes: tuple  # FeatureClass per feature

    def set_labels(self, s) -> str:
        return "(" + ", ".join(self.labels[i] for i in sorted(s)) + ")"


@dataclass(frozen=True)
class Category:
    """A candidate's category relative to a selected set (the sequel's)."""

    index: int
    label: str
    kind: str  # "fully relevant" | "relevant" | "redundant" | "irrelevant" | "undecided"
    target: ExtendedReal  # MI(C; V_i | S)
    upper: ExtendedReal  # H(C | S)
    reason: str


class Judge:
    """Decides equalities and strict inequalities between MI(C; V_S) of sets of one bound
    scenario (see the module docstring)."""

    def __init__(self, bound, digits: int = 30, values=None):
        from fstheory.engine.evaluate_joint import SetValues

        self.sets = SetValues(bound, digits, values)
        self.st = self.sets.structure
        self.labels = tuple(self.sets.values.labels)
        self.n = len(self.labels)
        self.all = tuple(range(self.n))
        self.tol = mpmath.mpf(10) ** -(max(digits - 5, 5))
        self._irrelevant_by_components = self.st.independent_of_rest(self.all)

    def name(self, S) -> str:
        return "(" + ", ".join(self.labels[i] for i in sorted(S)) + ")"

    def mi_name(self, S) -> str:
        return "MI(C;{" + ",".join(self.labels[i] for i in sorted(S)) + "})"

    # ----- values ---------------------------------------------------------------------------------
    def mi(self, S) -> ExtendedReal:
        return self.sets.value(S)

    def _by_value(self, big, small, what: str) -> Decision:
        """MI(C;big) > MI(C;small) (small a subset of big) decided from the values."""
        a, b = self.mi(big), self.mi(small)
        for x in (a, b):
            if x.is_indeterminate:
                return Decision(None, f"{what} cannot be decided: {x.cause}")
        diff = a.value - b.value
        if diff > self.tol * max(1, abs(a.value), abs(b.value)):
            return Decision(True, f"{self.mi_name(big)} = {a.text(8)} > {self.mi_name(small)} "
                            f"= {b.text(8)}")
        return Decision(None, f"{what} cannot be decided: {self.mi_name(big)} and "
                        f"{self.mi_name(small)} agree to the working precision and no structure "
                        "proves them equal")

    # ----- comparisons ----------------------------------------------------------------------------
    def adds_information(self, i: int, L) -> Decision:
        """MI(C; V_L + V_i) > MI(C; V_L), i.e. MI(C; V_i | V_L) > 0."""
        L = tuple(sorted(set(L) - {i}))
        big = tuple(sorted(L + (i,)))
        d1, d0 = self.st.mi_class_set(big), self.st.mi_class_set(L)
        if d1.key == d0.key:
            return Decision(False, f"{self.mi_name(big)} and {self.mi_name(L)} have the "
                            f"same derivation ({d1.reason})" if L else
                            f"MI(C,{self.labels[i]}) = 0 ({d1.reason})")
        if L and self.st.function_of(i, L):
            return Decision(False, f"{self.labels[i]} is a function of {self.name(L)}")
        if i in self.st.independent_of_rest(big):
            return Decision(False, f"{self.labels[i]} is independent of the class and of "
                            f"{self.name(L)}")
        if d1.kind == "class-entropy" and not self.st.class_constant():
            w = self.st.uncertainty_witness(L)
            if w is not None:
                return Decision(True, f"C is a function of {self.name(big)} but not of "
                                f"{self.name(L)} (same features, different classes at "
                                f"{w.describe()})")
        return self._by_value(big, L, f"whether {self.labels[i]} adds to {self.name(L)}")

    def maximally_informative(self, L) -> Decision:
        """MI(C; V_L) = MI(C; V_T)."""
        L = tuple(sorted(set(L)))
        rest = [j for j in self.all if j not in L and j not in self._irrelevant_by_components]
        if all(self.st.function_of(j, L) for j in rest) if L else not rest:
            why = (f"every other relevant feature is a function of {self.name(L)}" if rest
                   else "every other feature is independent of the class and of the rest")
            return Decision(True, why)
        dT, dL = self.st.mi_class_set(self.all), self.st.mi_class_set(L)
        if dT.key == dL.key:
            return Decision(True, f"{self.mi_name(L)} = MI(C;T): {dL.reason}")
        if dT.kind == "zero":
            return Decision(True, "MI(C;T) = 0")
        if dT.kind == "class-entropy":
            w = self.st.uncertainty_witness(L)
            if w is not None:
                return Decision(False, f"C is not a function of {self.name(L)} (same features, "
                                f"different classes at {w.describe()})")
        return self._negate(self._by_value(self.all, L, f"whether {self.name(L)} is maximally "
                                           "informative"))

    def explains_class(self, L) -> Decision:
        """MI(C; V_L) = H(C): the class is a function of V_L."""
        L = tuple(sorted(set(L)))
        if self.st.determines_class(L):
            return Decision(True, f"C is a function of {self.name(L)}")
        w = self.st.uncertainty_witness(L)
        if w is not None:
            return Decision(False, f"C is not a function of {self.name(L)} (same features, "
                            f"different classes at {w.describe()})")
        a, hc = self.mi(L), self.sets.h_class
        for x in (a, hc):
            if x.is_indeterminate:
                return Decision(None, f"whether C is a function of {self.name(L)} cannot be "
                                f"decided: {x.cause}")
        if hc.value - a.value > self.tol * max(1, abs(hc.value)):
            return Decision(False, f"{self.mi_name(L)} = {a.text(8)} < H(C) = {hc.text(8)}")
        return Decision(None, f"whether C is a function of {self.name(L)} cannot be decided: "
                        "MI(C;V_L) and H(C) agree to the working precision")

    @staticmethod
    def _negate(d: Decision) -> Decision:
        return d if d.value is None else Decision(not d.value, d.reason)


def _optimal(judge: Judge, candidates) -> tuple[tuple, str]:
    for m in range(len(candidates) + 1):
        found, open_ = [], []
        for L in itertools.combinations(candidates, m):
            d = judge.maximally_informative(L)
            if d.value:
                found.append(frozenset(L))
            elif d.value is None:
                open_.append((L, d.reason))
        if open_ and found:
            raise RelevanceUndecided(
                f"size {m}: {len(found)} maximally informative set(s) found, but "
                f"{judge.name(open_[0][0])} cannot be decided: {open_[0][1]}")
        if open_:
            raise RelevanceUndecided(
                f"no set of size {m} is proven maximally informative and "
                f"{judge.name(open_[0][0])} cannot be decided: {open_[0][1]}")
        if found:
            return tuple(found), (f"minimum size {m}: every other set of that size is proven not "
                                  "maximally informative")
    raise RelevanceUndecided("no maximally informative set found")  # pragma: no cover - T itself is


def relevance_optimal_sets(bound, digits: int = 30, values=None) -> tuple:
    """The relevance-optimal sets of ``bound`` (paper Section 3): the maximally informative sets
    of minimum size, as frozensets of 0-based feature indices (in the order of their sorted
    indices).

    Raises
    ------
    RelevanceUndecided
        With the reason, when a set of the minimum size cannot be decided.
    """
    judge = Judge(bound, digits, values)
    return _optimal_from(judge)[0]


def _optimal_from(judge: Judge):
    candidates = [j for j in judge.all if j not in judge._irrelevant_by_components]
    sets, reason = _optimal(judge, candidates)
    return tuple(sorted(sets, key=lambda s: (len(s), sorted(s)))), reason


def classify(bound, digits: int = 30, values=None, max_condition: int = 2) -> RelevanceReport:
    """Each feature's class (strongly relevant, weakly relevant, irrelevant, or undecided with
    the reason), and the relevance-optimal sets (None with the reason when undecided).

    Irrelevance is proven from the structure (a feature whose base variables never connect to
    the class's through the other features); relevance by a set L of at most ``max_condition``
    other features with MI(C; V_i | V_L) > 0.
    """
    judge = Judge(bound, digits, values)
    try:
        optimal, why = _optimal_from(judge)
    except RelevanceUndecided as exc:
        optimal, why = None, str(exc)
    classes = []
    irrelevant = judge._irrelevant_by_components
    for i in judge.all:
        label = judge.labels[i]
        if i in irrelevant:
            classes.append(FeatureClass(i, label, "irrelevant", "no base variable connects it to "
                                        "the class, through the other features or directly"))
            continue
        others = tuple(j for j in judge.all if j != i)
        strong = judge._negate(judge.maximally_informative(others))
        relevant = None
        if strong.value is not True:
            pool = [j for j in others if j not in irrelevant]
            for size in range(max_condition + 1):
                for L in itertools.combinations(pool, size):
                    d = judge.adds_information(i, L)
                    if d.value:
                        relevant = d
                        break
                if relevant:
                    break
        if strong.value:
            kind, reason = "strongly relevant", f"without it the rest is not maximally informative: {strong.reason}"
        elif strong.value is False and relevant is not None:
            kind, reason = "weakly relevant", (f"not strongly relevant ({strong.reason}); relevant "
                                               f"given a set: {relevant.reason}")
        else:
            why = strong.reason if strong.value is None else (
                f"no set of at most {max_condition} other features proven to gain from it")
            kind, reason = "undecided", why
        optimal_text = ""
        if kind == "weakly relevant" and optimal is not None:
            inside = [s for s in optimal if i in s]
            optimal_text = ("WR-NR in " + ", ".join(judge.name(s) for s in inside)
                            + ("; WR-R in the others" if len(inside) < len(optimal) else "")
                            if inside else "WR-R for every relevance-optimal set")
        classes.append(FeatureClass(i, label, kind, reason, optimal_text))
    return RelevanceReport(judge.labels, optimal, why, tuple(classes))


def categorize(bound, selected, digits: int = 30, values=None) -> tuple:
    """The sequel's category of every candidate not in ``selected`` (0-based indices), with
    MI(C; V_i | S) and its upper bound H(C | S)."""
    judge = Judge(bound, digits, values)
    S = tuple(sorted(set(selected)))
    hc = judge.sets.h_class
    with mpmath.workdps(judge.sets.digits + 12):
        upper = (hc - judge.mi(S)).named(f"H(C|{judge.name(S)})") if S else hc
        out = []
        for i in judge.all:
            if i in S:
                continue
            label = judge.labels[i]
            target = (judge.mi(S + (i,)) - judge.mi(S)).named(f"MI(C;{label}|{judge.name(S)})")
            gain = judge.adds_information(i, S)
            if gain.value is None:
                out.append(Category(i, label, "undecided", target, upper, gain.reason))
                continue
            if gain.value is False:
                alone = judge.adds_information(i, ())
                if alone.value is None:
                    out.append(Category(i, label, "undecided", target, upper, alone.reason))
                elif alone.value:
                    out.append(Category(i, label, "redundant", target, upper,
                                        f"{gain.reason}; alone: {alone.reason}"))
                else:
                    out.append(Category(i, label, "irrelevant", target, upper,
                                        f"{gain.reason}; alone: {alone.reason}"))
                continue
            full = judge.explains_class(S + (i,))
            if full.value is None:
                out.append(Category(i, label, "undecided", target, upper,
                                    f"{gain.reason}; {full.reason}"))
            else:
                kind = "fully relevant" if full.value else "relevant"
                out.append(Category(i, label, kind, target, upper, f"{gain.reason}; {full.reason}"))
    return tuple(out)
