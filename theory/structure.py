"""Structure derived from the declarations: which MIs are +inf, which are 0, and why.

* Two features built on disjoint sets of independent base variables are independent: MI = 0.
* Two features whose Jacobian with respect to the base variables has rank < 2 everywhere are
  functionally dependent (one is a measurable function of the other, locally): their joint law
  is singular while both marginals are continuous, so MI = +inf (Kotz 1966, cited in Section 6).
* MI(C, V) = 0 when V shares no base variable with the class rule, or by a symmetry: if a
  measure-preserving involution tau of the base variables (signed permutation of identically
  distributed, symmetric variables) fixes V and maps the linear form L of the class to
  2*threshold - L, then P(C=1 | V) = P(C=0 | V), so C is independent of V. This is the paper's
  Appendix theorem (MI(C_k, X^2) = 0, tau = (X, Y) -> (-X, -Y)) in general form.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

__all__ = [
    "bases_of",
    "jacobian_rank_deficient",
    "class_symmetry",
    "Involution",
]


def bases_of(expr: sp.Expr, bases) -> frozenset:
    return frozenset(s for s in sp.sympify(expr).free_symbols if s in bases)


def jacobian_rank_deficient(e1: sp.Expr, e2: sp.Expr, bases) -> bool:
    """True if d(e1, e2)/d(bases) has rank < 2 identically (all 2x2 minors vanish)."""
    used = sorted(bases_of(e1, bases) | bases_of(e2, bases), key=str)
    if len(used) < 2:
        return True
    g1 = [sp.diff(e1, b) for b in used]
    g2 = [sp.diff(e2, b) for b in used]
    for i, j in itertools.combinations(range(len(used)), 2):
        if sp.simplify(g1[i] * g2[j] - g1[j] * g2[i]) != 0:
            return False
    return True


@dataclass(frozen=True)
class Involution:
    """b -> sign * image for each base variable."""

    mapping: tuple  # ((b, sign, image), ...)

    def subs(self) -> dict:
        return {b: s * img for b, s, img in self.mapping}

    def describe(self) -> str:
        parts = [f"{b} -> {'-' if s < 0 else ''}{img}" for b, s, img in self.mapping]
        return "(" + ", ".join(parts) + ")"


def _law_preserved(laws: dict, b, sign: int, img) -> bool:
    target, source = laws[b], laws[img]
    if sign > 0:
        return target == source
    flipped = source.affine(sp.Integer(-1), sp.Integer(0))
    return flipped is not None and target == flipped


def class_symmetry(v: sp.Expr, weights: dict, threshold: sp.Expr, laws: dict) -> Involution | None:
    """A law-preserving signed permutation tau with v(tau) = v and L(tau) = 2 threshold - L."""
    lform = sp.Add(*(w * b for b, w in weights.items()))
    used = sorted(bases_of(v, laws) | bases_of(lform, laws), key=str)
    for perm in itertools.permutations(used):
        for signs in itertools.product((1, -1), repeat=len(used)):
            mapping = tuple(zip(used, signs, perm))
            if not all(_law_preserved(laws, b, s, img) for b, s, img in mapping):
                continue
            tau = {b: s * img for b, s, img in mapping}
            if sp.expand(v.xreplace(tau) - v) != 0:
                continue
            if sp.expand(lform.xreplace(tau) - (2 * threshold - lform)) != 0:
                continue
            return Involution(mapping)
    return None
