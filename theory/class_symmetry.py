"""Law-preserving signed permutations of the base variables and what they prove about the
class: a swap of the class that fixes every feature (:func:`class_swap`: MI(C; V_S) = 0), a
two-point fiber ``{b, tau b}`` (:func:`two_point`) and the probability that ``tau`` changes the
class (:func:`swap_probability`: H(C | V_S) = ln 2 * P(C != C o tau)). The overview is in
:mod:`fstheory.theory.determination`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.law_algebra import law_of, linear_parts
from fstheory.theory.laws import Law
from fstheory.theory.fibers import ClassEvent, bases, fiber, rational_polynomial, sorted_symbols


__all__ = ["SignedMap", "class_swap", "two_point", "swap_probability"]


# ----- law-preserving signed permutations --------------------------------------------------------


@dataclass(frozen=True)
class SignedMap:
    """``b -> sign * image + shift`` for each coordinate (a measure-preserving map when every
    law is preserved)."""

    mapping: tuple  # ((b, sign, image, shift), ...)

    def subs(self) -> dict:
        return {b: s * img + t for b, s, img, t in self.mapping}

    def describe(self) -> str:
        parts = []
        for b, s, img, t in self.mapping:
            if s == 1 and img == b and t == 0:
                continue
            rhs = f"{'-' if s < 0 else ''}{img}"
            if t != 0:
                rhs += f" {'+' if t > 0 else '-'} {abs(t)}"
            parts.append(f"{b} -> {rhs}")
        return "(" + ", ".join(parts) + ")"


def _shift(target: Law, source: Law, sign: int):
    """The shift t with law(sign * source + t) = target, or None."""
    ct, cs = target.center(), source.center()
    if sign > 0:
        t = sp.Integer(0) if ct is None or cs is None else sp.simplify(ct - cs)
    else:
        if ct is None or cs is None:
            return None
        t = sp.simplify(ct + cs)
    image = source.affine(sp.Integer(sign), t)
    return t if image is not None and image == target else None


@lru_cache(maxsize=256)
def _preserving_maps(coords: tuple, laws_key: tuple) -> tuple:
    laws = dict(laws_key)
    out = []
    for perm in itertools.permutations(coords):
        for signs in itertools.product((1, -1), repeat=len(coords)):
            mapping = []
            for b, s, img in zip(coords, signs, perm):
                t = _shift(laws[b], laws[img], s)
                if t is None:
                    break
                mapping.append((b, s, img, t))
            else:
                out.append(SignedMap(tuple(mapping)))
    return tuple(out)


def _fixes(expr, sub) -> bool:
    """``expr o sub == expr`` identically (kept: it does not depend on the class)."""
    return _fixes_items(expr, tuple(sorted(sub.items(), key=lambda kv: str(kv[0]))))


@lru_cache(maxsize=20000)
def _fixes_items(expr, items: tuple) -> bool:
    diff = sp.expand(expr.xreplace(dict(items)) - expr)
    return diff == 0 or (not rational_polynomial(diff) and sp.simplify(diff) == 0)


def class_swap(exprs, event: ClassEvent, laws) -> SignedMap | None:
    """A law-preserving signed permutation that fixes every feature and maps the class
    expression g to ``2 theta - g`` (then C and V_S are independent, P(C=1) = 1/2); None if no
    such map is found or the hypotheses (g a non-constant polynomial) fail."""
    g, theta = event.expr, event.threshold
    gb = bases(g, laws)
    if not gb or not g.is_polynomial(*gb):
        return None
    used = set(gb)
    for e in exprs:
        used |= bases(e, laws)
    coords = sorted_symbols(used)
    for tau in _preserving_maps(coords, tuple((b, laws[b]) for b in coords)):
        sub = tau.subs()
        if sp.expand(g.xreplace(sub) + g - 2 * theta) != 0:
            continue
        if all(_fixes(sp.sympify(e), sub) for e in exprs):
            return tau
    return None


# ----- two-point fibers --------------------------------------------------------------------------


def two_point(exprs, event: ClassEvent, laws) -> SignedMap | None:
    """The reflection tau when the fiber of ``exprs`` over the class's variables is exactly
    ``{b, tau b}``, tau reflecting some coordinates about the centres of their symmetric laws
    (so tau preserves the joint density) and the class expression linear; else None."""
    g = event.expr
    gb = bases(g, laws)
    if not gb or linear_parts(g, list(sorted_symbols(gb))) is None:
        return None
    f = fiber(exprs, laws, gb)
    if f is None or f.free.cols or len(f.branches) != 2:
        return None
    br = f.branches[1]
    mapping = []
    for j, b in enumerate(f.coords):
        row = br.T.row(j)
        if any(row[c] != 0 for c in range(len(f.coords)) if c != j):
            return None
        s = row[j]
        if s == 1 and br.t[j] == 0:
            mapping.append((b, 1, b, sp.Integer(0)))
            continue
        if s != -1 or _shift(laws[b], laws[b], -1) != br.t[j]:
            return None
        mapping.append((b, -1, b, br.t[j]))
    return SignedMap(tuple(mapping))


def _piecewise_cdf(law: Law, u):
    lo, hi = law.support()
    inner = law.cdf(u)
    if inner is None:
        return None
    return sp.Piecewise((0, u <= lo), (inner, u < hi), (1, True))


def _safe_to_integrate(expr, u) -> bool:
    """Polynomials times exponentials of polynomials: sympy integrates these quickly."""
    for f in expr.atoms(sp.Function):
        if not isinstance(f, sp.exp):
            return False
    return not expr.has(sp.Integral)


def swap_probability(event: ClassEvent, tau: SignedMap, laws) -> sp.Expr | None:
    """``P(C != C o tau)`` for a reflection tau of some class variables (:func:`two_point`).

    Write ``g - theta = A + U`` with ``A`` the part in the fixed variables (plus constants) and
    ``U = sum_R w_j (b_j - c_j)`` the reflected part, symmetric about 0 and independent of A.
    Then ``g o tau - theta = A - U`` and the classes differ iff ``|A| < |U|``:
    ``P = int_0^inf 2 f_U(u) (F_A(u) - F_A(-u)) du`` (or ``P(|U| > |a|)`` for a constant A).
    Pieces that sympy integrates quickly are integrated; the others stay one-dimensional
    integrals (evaluated by quadrature). None if a law is not in a known family, or if the
    laws' parameters are symbolic.
    """
    g = sp.expand(event.expr - event.threshold)
    moved = {b: t for b, s, _, t in tau.mapping if s == -1}
    sub_c = {b: t / 2 for b, t in moved.items()}  # reflection about c = t/2
    A = sp.expand(g.xreplace({b: sub_c[b] for b in moved}))
    U = sp.expand(g - A)
    u = sp.Dummy("u", positive=True)
    law_u = law_of(U, laws)
    if law_u is None:
        return None
    if not bases(A, laws):
        a = sp.Abs(A)
        cdf = _piecewise_cdf(law_u, a)
        return None if cdf is None else exact_nsimplify(sp.simplify(2 * (1 - cdf))) if a != 0 else sp.Integer(1)
    law_a = law_of(A, laws)
    if law_a is None:
        return None
    Fa_hi, Fa_lo = _piecewise_cdf(law_a, u), _piecewise_cdf(law_a, -u)
    if Fa_hi is None:
        return None
    lo_u, hi_u = law_u.support()
    dens = 2 * sp.Piecewise((law_u.pdf(u), u < hi_u), (0, True))
    integrand = dens * (Fa_hi - Fa_lo)
    cuts = {sp.Integer(0), hi_u}
    for p in (*law_a.support(), *law_a.breakpoints()):
        if p.is_finite:
            cuts.add(sp.Abs(p))
    for p in law_u.breakpoints():
        if p.is_finite:
            cuts.add(sp.Abs(p))
    if not all(c.is_number for c in cuts | {hi_u}):
        return None  # a symbolic parameter in the laws: the pieces cannot be ordered
    pts = sorted((c for c in cuts if c.is_finite and 0 <= c and (hi_u == sp.oo or c <= hi_u)),
                 key=lambda c: float(c))
    if hi_u == sp.oo:
        pts.append(sp.oo)
    total = sp.Integer(0)
    for a, b in zip(pts, pts[1:]):
        mid = (a + 1) if b == sp.oo else (a + b) / 2
        piece = _branch(integrand, u, mid)
        if piece == 0:
            continue
        if _safe_to_integrate(piece, u):
            res = sp.integrate(piece, (u, a, b))
            if not res.has(sp.Integral):
                total += res
                continue
        total += sp.Integral(piece, (u, a, b))
    return total if total.has(sp.Integral) else exact_nsimplify(sp.simplify(total))


def _branch(expr, u, point):
    """``expr`` with every Piecewise replaced by its branch at ``u = point``."""
    while expr.has(sp.Piecewise):
        pw = next(iter(expr.atoms(sp.Piecewise)))
        for value, cond in pw.args:
            if cond == sp.true or bool(cond.subs(u, point)):
                expr = expr.xreplace({pw: value})
                break
    return sp.expand(expr)
