"""Where the structure of a scenario's features changes along a swept parameter.

The atlas evaluates most quantities from the derivation with the parameters symbolic
(:func:`fstheory.engine.derive.derive`). Its structural facts and the hypotheses of its closed
forms hold for *generic* parameter values, and fail exactly where the features degenerate:

* a feature stops depending on a base variable B: dV/dB vanishes identically in the base
  variables (``a*X`` at a = 0 is constant: h = -inf, MI 0 with everything, where MI(X, a*X) is
  +inf and MI(C, a*X) = MI(C, X) at every a != 0);
* two features become functionally dependent: every 2x2 minor of their Jacobian in the base
  variables vanishes identically (``a*X + Y`` and ``X + Y`` at a = 1: MI = +inf there only).

Those parameter values are the *structural points*. Between two of them every feature depends on
the same base variables and every pair has the same Jacobian rank, so the facts decided from the
symbolic derivation (independence by disjoint base variables, +inf by functional dependence,
a*X + b reduced to X) hold on the whole open cell; at a structural point the atlas evaluates the
point as ``fstheory values`` does, with the structure decided there
(:mod:`fstheory.engine.resolve`), and the sweep takes it as a special point (a region boundary
when the ordering changes there).

The points are found exactly: for an expression g(B, t) that must vanish identically in the base
variables B, the candidates are the real roots in t of g at one generic rational point of B
(sympy ``solveset``), each then checked exactly for every B (``simplify`` of g at the root). A
g whose roots sympy cannot list leaves the feature *undecided* (reported, never assumed).

Examples
--------
>>> import sympy as sp
>>> X, Y, a = sp.symbols("X Y a")
>>> laws = {X: None, Y: None}
>>> structural_points([X, a * X, Y], laws, a).points
(0,)
>>> structural_points([a * X + Y, X + Y], laws, a).points
(0, 1)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

from fstheory.theory import structure
from fstheory.theory.budget import DEFAULT_SECONDS, SymbolicTimeout, symbolic_budget

__all__ = ["StructuralPoints", "structural_points"]

#: a generic point of the base variables (rationals unlikely to be a root of anything simple)
_GENERIC = (sp.Rational(3, 7), sp.Rational(-5, 11), sp.Rational(13, 17), sp.Rational(-19, 23),
            sp.Rational(29, 31), sp.Rational(-37, 41), sp.Rational(43, 47), sp.Rational(-53, 59))


@dataclass(frozen=True)
class StructuralPoints:
    """The real parameter values where a feature's structure changes (sorted, exact), and the
    features or pairs whose structural points could not be found (with the reason)."""

    points: tuple
    undecided: tuple = ()

    def inside(self, lo, hi) -> list:
        """The points strictly between ``lo`` and ``hi``."""
        return [p for p in self.points if lo < p < hi]


def _generic(bases) -> dict:
    return {b: _GENERIC[i % len(_GENERIC)] + i for i, b in enumerate(sorted(bases, key=str))}


def _identically_zero_at(gs, bases, t) -> set | None:
    """The real t at which every g in ``gs`` vanishes identically in ``bases`` (None: sympy
    cannot list the candidates)."""
    gs = [sp.expand(g) for g in gs]
    gs = [g for g in gs if g != 0]
    if not gs:
        return None  # identically zero for every t: not a structural change
    sample = _generic(bases)
    g0 = sp.simplify(gs[0].subs(sample))
    if not g0.has(t):
        return set() if g0 != 0 else None
    sol = sp.solveset(g0, t, sp.Reals)
    if not isinstance(sol, sp.FiniteSet):
        return None
    out = set()
    for r in sol:
        if all(sp.simplify(g.subs(t, r)) == 0 for g in gs):
            out.add(sp.nsimplify(r) if r.is_Float else r)
    return out


def structural_points(exprs, laws, t: sp.Symbol) -> StructuralPoints:
    """The structural points in ``t`` of the features ``exprs`` (sympy expressions of the base
    variables, the keys of ``laws``, and of ``t``; other parameters already substituted)."""
    points: set = set()
    undecided = []
    bases_all = set(laws)
    exprs = [sp.expand(sp.sympify(e)) for e in exprs]

    def add(found, what):
        if found is None:
            undecided.append(what)
        else:
            points.update(found)

    try:
        with symbolic_budget(DEFAULT_SECONDS, f"the structural points in {t}"):
            for e in exprs:
                if not e.has(t):
                    continue
                for b in sorted(structure.bases_of(e, bases_all), key=str):
                    d = sp.diff(e, b)
                    if d.has(t):
                        add(_identically_zero_at([d], bases_all, t),
                            f"{e}: where it stops depending on {b} is not known exactly")
            for e1, e2 in itertools.combinations(exprs, 2):
                if not (e1.has(t) or e2.has(t)):
                    continue
                used = sorted(structure.bases_of(e1, bases_all) | structure.bases_of(e2, bases_all),
                              key=str)
                if len(used) < 2 or structure.jacobian_rank_deficient(e1, e2, bases_all):
                    continue  # dependent for every t (or a single base variable)
                minors = [sp.diff(e1, u) * sp.diff(e2, v) - sp.diff(e1, v) * sp.diff(e2, u)
                          for u, v in itertools.combinations(used, 2)]
                found = _identically_zero_at(minors, bases_all, t)
                add(found, f"{e1} and {e2}: where they become functionally dependent is not "
                           "known exactly")
    except SymbolicTimeout as exc:
        undecided.append(str(exc))
    real = sorted((p for p in points if p.is_real), key=lambda p: float(p))
    return StructuralPoints(tuple(real), tuple(undecided))
