"""Exact zeros at a special point: by the leaves' exact values there, or by a symmetry of the
scenario (two i.i.d. base variables whose swap leaves the class invariant), the certificate's
symmetry prover (:func:`symmetry_at`).

Each function reads the :class:`~fstheory.atlas.certificate.leaves.Leaves` of a sweep; the
classes found at a point are kept in its ``symmetry_memo`` (a function of the point and the
leaves alone).
"""

from __future__ import annotations

from itertools import combinations

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import NoEnclosure
from fstheory.theory.symbolic import is_exact_zero

__all__ = ["exact_zero_at", "exact_values_zero", "symmetric_zero_at", "symmetry_at"]


def exact_zero_at(leaves, diff, x, symmetry: bool = True) -> bool:
    """Whether ``diff`` is exactly 0 at the special point ``x`` (exact leaf values, or a
    symmetry of the scenario there: :func:`symmetric_zero_at`, unless ``symmetry`` is
    False)."""
    if isinstance(x, mpmath.mpf):
        return False
    if not symmetry:
        return exact_values_zero(leaves, diff, x)
    return exact_values_zero(leaves, diff, x) or symmetric_zero_at(leaves, diff, x)


def exact_values_zero(leaves, diff, x) -> bool:
    """Whether ``diff`` is exactly 0 at the special point ``x`` on its leaves' exact values there."""
    try:
        values = {s: leaves.leaf_by_symbol[s].exact(x)
                  for s in diff.free_symbols if s in leaves.leaf_by_symbol}
    except NoEnclosure:
        return False
    if diff.has(sp.Min, sp.Max):
        # sympy would order the arguments of min and max by evaluating integrals
        # numerically, for minutes (Scenario III's constant MI(Y^2, X-Y) in CMIM at k = 1):
        # an integral stays a symbol, so it must cancel for an exact zero
        values = {s: (sp.Dummy() if v.has(sp.Integral) else v) for s, v in values.items()}
    try:
        exact = diff.xreplace(values)
    except (ValueError, TypeError):
        # a min or max of a term that is infinite or undefined at the point (NJMIM's
        # MI(C;{Vi,Vs})/H(Vi,Vs,C) at a zero of its divisor): no exact zero to read
        return False
    return not exact.free_symbols and is_exact_zero(exact)


def symmetric_zero_at(leaves, diff, x) -> bool:
    """Whether ``diff`` is exactly 0 at the special point ``x`` because the leaves it reads
    are equal there in pairs by a symmetry of the scenario (:func:`symmetry_at`): the
    difference with every leaf replaced by its class's representative is identically 0
    (Y^2 and X^2 in DISR at k = 1 in Scenario III, where C = 1{X + Y >= 0})."""
    if leaves.on_beta or isinstance(x, mpmath.mpf):
        return False
    rep = symmetry_at(leaves, x)
    if not rep or not (diff.free_symbols & set(rep)):
        return False
    e = diff.xreplace(rep)
    return e == 0 or sp.expand(e) == 0


def symmetry_at(leaves, x) -> dict:
    """Leaf symbol -> representative of its class of leaves proved equal at the point ``x``
    of the swept parameter (memoised).

    Lemma: let u, v be two base variables with the same law and sigma the map that swaps
    them. The base variables are independent, so sigma preserves their joint law. If the
    class form is invariant (form o sigma = form, so C o sigma = C) and a feature satisfies
    V_i o sigma = e V_j + c (e = +-1, c a number), then (V_i o sigma, V_l o sigma, C) has the
    law of (V_i, V_l, C), and a map x -> e x + c on each coordinate has unit Jacobian: so
    h(V_i) = h(V_j), MI(C, V_i) = MI(C, V_j), and every MI(V_i, V_l), MI(C;{V_i, V_l}),
    H(V_i, V_l, C) equals the same quantity of the images. Leaves equal by such an equality
    (closed under transitivity) have the same value at ``x``. A leaf shared by several
    quantities is one function on the open range, so one value at ``x``."""
    memo = leaves.symmetry_memo
    if x in memo:
        return memo[x]
    try:
        bound = leaves.pv.bound_at({leaves.param: x})
    except ValueError:  # an irrational special point: no symmetry is sought there
        memo[x] = {}
        return memo[x]
    laws = bound.laws()
    exprs = [sp.expand(sp.sympify(e)) for e in bound.feature_exprs()]
    form = sp.expand(sp.sympify(bound.class_rule().form))
    bases = set(laws)
    parent: dict = {}

    def find(a):
        while parent.get(a, a) != a:
            a = parent[a]
        return a

    for u, v in combinations(sorted(laws, key=str), 2):
        if laws[u] != laws[v]:
            continue
        swap = {u: v, v: u}
        if sp.expand(form.xreplace(swap) - form) != 0:
            continue
        image = {}
        for i, e in enumerate(exprs):
            g = sp.expand(e.xreplace(swap))
            for j, f in enumerate(exprs):
                if any(not (sp.expand(g - sign * f).free_symbols & bases)
                       for sign in (1, -1)):
                    image[i] = j
                    break
        for q, sym in leaves.symbol.items():
            idx = q[1:]
            if not isinstance(sym, sp.Symbol) or not all(i in image for i in idx):
                continue
            moved = [image[i] for i in idx]
            q2 = (q[0], *sorted(moved)) if len(moved) == 2 else (q[0], *moved)
            sym2 = leaves.symbol.get(q2)
            if isinstance(sym2, sp.Symbol) and find(sym) != find(sym2):
                parent[find(sym)] = find(sym2)
    memo[x] = {s: find(s) for s in list(parent)}
    return memo[x]
