"""The special points of a sweep and the causes of changes there: the ends of the range, the
exact zeros of the varying entropies (2-D rows) or of the divisors of a 3-D objective (poles),
the structural points; the sample points next to them; and what changes kind or sign at a point.
"""

from __future__ import annotations

import sympy as sp

from fstheory.atlas.numbers import as_exact
from fstheory.atlas.row import Sweep
from fstheory.theory.extended import ExtendedReal

__all__ = ["between", "entropy_zeros", "kind", "kind_text", "offset", "pole_points",
           "rational_near", "special_cause"]


def entropy_zeros(sw: Sweep, lo, hi) -> list:
    """Exact zeros of the varying entropies strictly inside (lo, hi)."""
    if sw.on_beta:
        return []
    sym = sw.pv.symbols[sw.param]
    out = set()
    for q in sw.pv.varying:
        form = sw.pv.closed_form(q)
        if q[0] != "h" or form is None or form.has(sp.Integral):
            continue
        try:
            sol = sp.solveset(form, sym, sp.Interval.open(lo, hi))
        except (NotImplementedError, ValueError, TypeError):
            continue
        if isinstance(sol, sp.FiniteSet):
            out |= {sp.nsimplify(s) if s.is_Float else s for s in sol}
    return sorted(out, key=lambda s: float(s))


def pole_points(sw: Sweep) -> list:
    """Exact zeros strictly inside the range of the H(Vi,Vj,C) a 3-D objective divides by
    (:func:`fstheory.atlas.poles.divisor_zeros`; none where the joint leaves cannot be
    built: the change through infinity is then located as a pole): ``sw.poles``."""
    return list(sw.poles)


def between(a, b, n: int) -> list:
    """``n`` points spread evenly strictly inside (a, b)."""
    return [a + (b - a) * sp.Rational(i, n + 1) for i in range(1, n + 1)]


def rational_near(x, digits: int):
    """``x`` itself when rational, else a rational within 10^-(digits+6) relative of it (a sample
    point near an irrational special point, where the joint values can be bound)."""
    x = as_exact(x)
    if x.is_Rational:
        return x
    return sp.Rational(str(sp.N(x, digits + 6)))


def offset(t, toward, digits: int):
    """A point at distance 10^-(digits/2) max(|t|, 1) from ``t`` toward ``toward`` (exact): a
    change closer than that to a special point is reported at the point."""
    t, toward = as_exact(t), as_exact(toward)
    step = sp.Rational(1, 10 ** (digits // 2)) * max(abs(t), 1)
    step = min(step, abs(toward - t) / 2)
    return t + step if toward > t else t - step


def special_cause(sw: Sweep, s, left_pt, right_pt) -> str:
    """Which varying values change kind or sign at the special point ``s``."""
    if sw.on_beta:
        if s != 0:
            return "end of the range"
        if sw.spec.zero_beta == "drop":
            return "beta = 0 exactly (the redundancy term is left out there: --zero-beta drop)"
        return ("beta = 0 exactly (the redundancy term is evaluated as written: 0 times an "
                "infinite term is 0*inf)")
    at = sw.values(s, exact=True)
    sides = [sw.values(p) for p in (left_pt, right_pt) if p is not None]
    parts = []
    for q in sw.pv.varying:
        getter = lambda v, q=q: {"h": v.h, "mi_c": v.mi_c, "mi": v.mi}[q[0]](*q[1:])  # noqa: E731
        k_at = kind(getter(at))
        k_sides = {kind(getter(v)) for v in sides}
        if k_sides == {k_at}:
            continue
        name = sw.pv.quantity_label(q)
        if k_at == "0" and {"+", "-"} <= k_sides:
            parts.append(f"{name} changes sign (0 at this point)")
        elif k_at == "0":
            parts.append(f"{name} = 0 exactly")
        elif k_at in ("+inf", "-inf"):
            parts.append(f"{name} = {k_at}")
        else:
            parts.append(f"{name} changes sign")
    if sw.poles.get(s):
        parts.append(f"{' = '.join(sw.poles[s])} = 0 exactly (a pole: the objectives dividing "
                     "by it are infinite or indeterminate here)")
    seen, uniq = set(), []
    for p in parts:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return "; ".join(uniq) if uniq else "end of the range"


def kind_text(v: ExtendedReal) -> str:
    """:func:`kind` in words ('finite > 0', '0', '+inf', an indeterminate form ...)."""
    k = kind(v)
    return {"+": "finite > 0", "-": "finite < 0", "0": "0"}.get(k, k)


def kind(v: ExtendedReal) -> str:
    """'+', '-' or '0' for a finite value, its infinity or its indeterminate form otherwise."""
    if v.is_indeterminate:
        return v.form.value
    if v.is_infinite:
        return v.kind.value
    return "0" if v.is_zero else ("+" if v.value > 0 else "-")
