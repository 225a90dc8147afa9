"""Exact witnesses that a set of features does not determine the class
(:func:`uncertainty_witness`: two base points in one fiber on either side of the class rule,
inside the support and away from critical points, so H(C | V_S) > 0). The overview is in
:mod:`fstheory.theory.determination`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.laws import Law
from fstheory.theory.fibers import ClassEvent, bases, fiber, sorted_symbols


__all__ = ["Witness", "uncertainty_witness"]


# ----- witnesses of class uncertainty ------------------------------------------------------------


@dataclass(frozen=True)
class Witness:
    """Two base points with the same feature values and different classes (see
    :func:`uncertainty_witness`)."""

    coords: tuple
    first: tuple
    second: tuple

    def describe(self) -> str:
        def point(p):
            return "(" + ", ".join(f"{c}={v}" for c, v in zip(self.coords, p)) + ")"

        return f"{point(self.first)} and {point(self.second)}"


def _fraction(x) -> Fraction | None:
    x = exact_nsimplify(x)
    if not x.is_Rational:
        return None
    return Fraction(int(x.p), int(x.q))


def _grid(law: Law) -> list[Fraction] | None:
    """Rational points inside the support: eighths of a bounded one, a spread around the centre
    of an unbounded one."""
    lo, hi = law.support()
    if lo.is_finite and hi.is_finite:
        a, b = _fraction(lo), _fraction(hi)
        if a is None or b is None:
            return None
        return [a + (b - a) * Fraction(j, 16) for j in (8, 5, 11, 3, 13, 1, 15, 7, 9)]
    c = law.center()
    base = _fraction(c) if c is not None else (_fraction(lo) if lo.is_finite else _fraction(hi))
    if base is None:
        return None
    steps = [Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(1, 8), Fraction(4)]
    if lo.is_finite:
        return [base + s for s in steps]
    if hi.is_finite:
        return [base - s for s in steps]
    return [base + s for s in steps] + [base - s for s in steps]


def _inside(law: Law, v: Fraction) -> bool:
    lo, hi = law.support()
    return bool(lo < sp.Rational(v.numerator, v.denominator) < hi)


_Z_STEPS = [Fraction(1, 8), Fraction(-1, 8), Fraction(1, 4), Fraction(-1, 4), Fraction(1, 2),
            Fraction(-1, 2), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2)]


def uncertainty_witness(exprs, event: ClassEvent, laws, budget: int = 20000) -> Witness | None:
    """A proof that the features do not determine the class: rational base points ``b0`` and
    ``b1 = T b0 + t + N z`` on one fiber, both strictly inside the support with a positive
    density, neither a critical point of a one-variable feature, with ``g(b0) - theta`` and
    ``g(b1) - theta`` of strictly opposite signs. Strict inequalities persist in a neighbourhood,
    so ``0 < P(C=1 | V_S) < 1`` with positive probability and ``H(C | V_S) > 0``.

    Requires rational coefficients and a polynomial class expression; ``None`` if no witness is
    found within ``budget`` trials (which proves nothing).
    """
    g = sp.expand(event.expr - event.threshold)
    gb = bases(g, laws)
    if not gb or not g.is_polynomial(*gb):
        return None
    f = fiber(exprs, laws, gb)
    if f is None or f.trivial:
        return None
    coords = f.coords
    crit = _critical_points(exprs, laws)
    if crit is None:
        return None
    try:
        poly = sp.Poly(g, *coords)
        terms = [(mon, _fraction(c)) for mon, c in poly.terms()]
        branches = [([[_fraction(x) for x in br.T.row(r)] for r in range(len(coords))],
                      [_fraction(x) for x in br.t]) for br in f.branches]
        free = [[_fraction(f.free[r, c]) for c in range(f.free.cols)] for r in range(len(coords))]
    except (sp.PolynomialError, TypeError):
        return None
    if any(c is None for _, c in terms) or any(
            x is None for T, t in branches for row in T for x in row + t) or any(
            x is None for row in free for x in row):
        return None
    grids = [_grid(laws[b]) for b in coords]
    if any(gr is None for gr in grids):
        return None

    def gval(p):
        total = Fraction(0)
        for mon, c in terms:
            term = c
            for v, e in zip(p, mon):
                term *= v ** e
            total += term
        return total

    def ok(p):
        return all(_inside(laws[b], v) and v not in crit.get(b, ()) for b, v in zip(coords, p))

    d = f.free.cols
    zs = [tuple(z) for z in itertools.product(_Z_STEPS, repeat=d)] if d else [()]
    trials = 0
    for p0 in itertools.product(*grids):
        g0 = gval(p0)
        if g0 == 0 or not ok(p0):
            continue
        for (T, t), br in zip(branches, f.branches):
            for z in zs:
                if br.is_identity and not any(z):
                    continue
                trials += 1
                if trials > budget:
                    return None
                p1 = tuple(sum(T[r][c] * p0[c] for c in range(len(coords))) + t[r]
                           + sum(free[r][c] * z[c] for c in range(d)) for r in range(len(coords)))
                g1 = gval(p1)
                if g1 == 0 or (g1 > 0) == (g0 > 0) or not ok(p1):
                    continue
                if (_positive_density(laws, coords, p0) and _positive_density(laws, coords, p1)
                        and _same_features(exprs, coords, p0, p1)):
                    return Witness(coords, p0, p1)
    return None


def _same_features(exprs, coords, p0, p1) -> bool:
    """Exact check that the two points give every feature the same value."""
    a = {c: sp.Rational(v.numerator, v.denominator) for c, v in zip(coords, p0)}
    b = {c: sp.Rational(v.numerator, v.denominator) for c, v in zip(coords, p1)}
    return all(sp.simplify(sp.sympify(e).subs(a) - sp.sympify(e).subs(b)) == 0 for e in exprs)


def _positive_density(laws, coords, p) -> bool:
    return all(bool(laws[b].pdf(sp.Rational(v.numerator, v.denominator)) > 0)
               for b, v in zip(coords, p))


def _critical_points(exprs, laws) -> dict | None:
    """Per base variable, the points where a one-variable feature has a zero derivative or a
    kink (a finite set, or None if not derived)."""
    out: dict = {}
    for e in exprs:
        e = sp.sympify(e)
        bs = sorted_symbols(bases(e, laws))
        if len(bs) != 1 or linear_parts(e, list(bs)) is not None:
            continue
        (b,) = bs
        pts = set()
        crit = sp.solveset(sp.diff(e, b), b, sp.Interval(*laws[b].support()))
        if not isinstance(crit, sp.FiniteSet):
            if crit is not sp.S.EmptySet:
                return None
        else:
            pts |= set(crit)
        for atom in e.atoms(sp.Abs):
            pts |= set(sp.solve(atom.args[0], b))
        fr = {_fraction(p) for p in pts}
        if None in fr:
            return None
        out.setdefault(b, set()).update(fr)
    return out
