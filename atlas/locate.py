"""Locating a change of ordering between two sample points: the step where the orderings part,
the bracket of the crossing of the two winners' objectives (or a pole, or a change located on the
orderings themselves), and the changes on either side of it (:func:`find_changes`).
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.atlas.lowstage import LOW_ACCURACY
from fstheory.atlas.result import Breakpoint
from fstheory.atlas.row import Sweep, sweep_of
from fstheory.atlas.spec import AtlasSpec
from fstheory.atlas.special import kind_text
from fstheory.theory.extended import ExtendedReal
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["bisect_orders", "find_changes", "first_difference", "locate", "to_mpf"]


def first_difference(left, right) -> int | None:
    """0-based step where two (order, stopped) results part, or None if equal."""
    (ol, sl), (or_, sr) = left, right
    for n, (a, b) in enumerate(zip(ol, or_)):
        if a != b:
            return n
    if len(ol) != len(or_) or sl != sr:
        return min(len(ol), len(or_))
    return None


def _difference(sw: Sweep, t, a: int, b: int, prefix, low: bool = False) -> ExtendedReal:
    fa, fb = sw.objective(t, a, prefix, low), sw.objective(t, b, prefix, low)
    if fa.is_indeterminate and fb.is_indeterminate:
        return fa
    if fa.is_indeterminate:  # only B can be chosen
        return ExtendedReal.finite(-1)
    if fb.is_indeterminate:
        return ExtendedReal.finite(1)
    if fa.is_infinite and fb.is_infinite and fa.kind is fb.kind:
        return ExtendedReal.finite(0)
    return fa - fb


def to_mpf(t) -> mpmath.mpf:
    """A point (sympy number or mpf) as an mpf at the working precision."""
    return mpmath.mpf(sp.N(t, mpmath.mp.dps)) if isinstance(t, sp.Basic) else mpmath.mpf(t)


def locate(sw: Sweep, tl, tr, a: int, b: int, prefix) -> tuple[mpmath.mpf, mpmath.mpf, bool]:
    """Bracket [x0, x1] of the change from A winning (at tl) to B winning (at tr), and whether it
    is a crossing (True) or a pole (False).

    The crossing is first estimated by mpmath's Anderson-Bjorck bracketing solver on
    g = obj(A) - obj(B); the bracket is then closed around the estimate by evaluating the pair's
    comparison on both sides of it (bisection whenever g is infinite or the estimate fails).
    For the 3-D methods a first bracket of relative width 10^-(LOW_ACCURACY-4) is found on the
    low-precision joint values, and used if the pair's comparison at the working digits confirms
    it at both ends.
    """
    digits = sw.spec.digits
    with mpmath.workdps(digits + GUARD_DIGITS):
        x0, x1 = to_mpf(tl), to_mpf(tr)
        tol = None
        if sw.two_stage:
            # the solver stops at the accuracy of the values (not below it, where every further
            # step costs a numerical-route pair and gains nothing): the brackets are closed by
            # the pair's comparison on both sides either way
            u, v = _close(sw, x0, x1, a, b, prefix, LOW_ACCURACY - 4, low=True,
                          tol=mpmath.mpf(10) ** -LOW_ACCURACY)
            if _wins(sw, u, a, b, prefix) and not _wins(sw, v, a, b, prefix):
                x0, x1 = u, v
            tol = mpmath.mpf(10) ** -(digits + 4)
        x0, x1 = _close(sw, x0, x1, a, b, prefix, digits + 2, tol=tol)
        ga, gb = _difference(sw, x0, a, b, prefix), _difference(sw, x1, a, b, prefix)
        small = mpmath.mpf(10) ** -(digits // 2)
        crossing = all(d.is_finite and abs(d.value) < small for d in (ga, gb))
        return x0, x1, crossing


def _wins(sw: Sweep, x, a: int, b: int, prefix, low: bool = False) -> bool:
    """Whether A's objective beats B's at ``x`` by the greedy rule without a tie band (ties,
    to the lower index, where the enclosures overlap); where neither can be chosen, A is taken
    to keep winning."""
    fa, fb = sw.objective(x, a, prefix, low), sw.objective(x, b, prefix, low)
    # objectives tie (to the lower index) unless their enclosures prove them apart, with no
    # band: deciding by the sign of a difference whose enclosure contains 0 chases rounding
    # noise (ICAP's step 4 in Scenario I, where 3X+1's objective is 0 +/- 3e-33 against Y^2's
    # exact 0 past k = 0.2946781..., gave a breakpoint at 0.2953)
    ops = sw.ops.proved_apart()
    if not (ops.choosable(fa) or ops.choosable(fb)):
        return True
    return ops.beats(fa, fb, first=a < b)


def _close(sw: Sweep, x0, x1, a: int, b: int, prefix, width: int, low: bool = False,
           tol=None):
    """[x0, x1] narrowed to a relative width 10^-width around the change (see :func:`locate`);
    ``tol``: the solver's tolerance (default 10^-(2 width))."""
    digits = sw.spec.digits
    tiny = mpmath.mpf(10) ** -width
    tol = tiny * tiny if tol is None else tol

    def wins(x):
        return _wins(sw, x, a, b, prefix, low)

    def done(u, v):
        return v - u <= tiny * max(abs(u), abs(v), mpmath.mpf(10) ** -digits)

    def g(x):
        d = _difference(sw, x, a, b, prefix, low)
        if not d.is_finite:
            raise ArithmeticError("non-finite difference")
        return d.value

    for _ in range(6):
        if done(x0, x1):
            break
        try:
            est = mpmath.findroot(g, (x0, x1), solver="anderson", tol=tol, maxsteps=10,
                                  verify=False)
        except (ArithmeticError, ValueError, ZeroDivisionError):
            est = None
        if est is None or not x0 < est < x1:
            break
        delta = tiny * max(abs(est), mpmath.mpf(10) ** -digits) / 4
        for _ in range(12):  # widen until the pair's comparison flips across the estimate
            u, v = max(x0, est - delta), min(x1, est + delta)
            wu, wv = wins(u), wins(v)
            if wu and not wv:
                x0, x1 = u, v
                break
            if wu and wv:
                x0 = v
                break
            if not wu and not wv:
                x1 = u
                break
            delta *= 16  # (False, True): the estimate is within rounding noise
        else:
            break
    while not done(x0, x1):  # bisection: poles, failures of the solver
        x = (x0 + x1) / 2
        if wins(x):
            x0 = x
        else:
            x1 = x
    return x0, x1


def _pair_cause(sw: Sweep, n: int, a: int, b: int, crossing: bool) -> str:
    la, lb = sw.labels[a], sw.labels[b]
    if n == 0:
        return f"MI(C,{la}) and MI(C,{lb}) cross (step 1)"
    if crossing:
        return f"objectives of {la} and {lb} cross at step {n + 1}"
    return (f"objective of {la} or {lb} changes sign through infinity at step {n + 1} "
            f"(a divisor in it crosses 0)")


def find_changes(spec: AtlasSpec, tl, tr, left, right, depth: int = 0) -> list:
    """Every change between two points with different orderings: [(x0, x1, Breakpoint, order
    just left, order just right)], left to right."""
    sw = sweep_of(spec)
    n = first_difference(left, right)
    if n is None:
        return []
    ol, or_ = left[0], right[0]
    if n >= len(ol) or n >= len(or_) or depth > 40:
        # one side stops earlier: located by bisection on the ordering itself
        return bisect_orders(sw, tl, tr, left, right, n)
    a, b = ol[n], or_[n]
    prefix = tuple(ol[:n])
    x0, x1, crossing = locate(sw, tl, tr, a, b, prefix)
    (pl, just_left), (pr, just_right) = _probes(sw, tl, tr, x0, x1, a, b, prefix, left, right)
    out = []
    with mpmath.workdps(spec.digits + GUARD_DIGITS):
        mid = (x0 + x1) / 2
    bp = Breakpoint(mid, n + 1, _pair_cause(sw, n, a, b, crossing), (sw.labels[a], sw.labels[b]),
                    "crossing" if crossing else "pole", (x0, x1))
    if just_left != left:
        out += find_changes(spec, tl, pl, left, just_left, depth + 1)
    out.append((x0, x1, bp, just_left, just_right))
    if just_right != right:
        out += find_changes(spec, pr, tr, just_right, right, depth + 1)
    return out


def _probes(sw: Sweep, tl, tr, x0, x1, a: int, b: int, prefix, left, right) -> tuple:
    """Points just outside the bracket [x0, x1] of A and B's change, each with its ordering:
    the orderings on each side, read where the greedy rule tells the pair apart.

    The rule ties objectives closer than its band (:func:`fstheory.orderings.greedy.tie_band`,
    relative to max(1, |obj|): absolute for small objectives). Near a crossing at a small
    parameter value the band can span far more than the bracket (MIFS in Scenario III at
    k = 0.975: beta = 3.0e-5, the band 1e-25 absolute, 4e-21 relative in beta, the bracket
    1e-22 relative): the ordering just outside is then the left one by the tie, and searching
    again between it and the sample moved the breakpoint to the band's edge, 80 bracket widths
    from the crossing. So the probes start 10^-(digits+1) relative out and move out by factors
    of 10 (at most half-way to the samples ``tl``, ``tr``) while the ordering there is not the
    sample's (``left``, ``right``) and the pair is tied."""
    digits = sw.spec.digits
    ops = sw.ops
    prec = mpmath.workdps(digits + GUARD_DIGITS)
    with prec:
        tl, tr = to_mpf(tl), to_mpf(tr)
        w0 = mpmath.mpf(10) ** -(digits + 1) * max(abs(x0), mpmath.mpf(10) ** -6)

    def probe(x, limit, sign, sample):
        w = w0
        while True:
            with prec:
                p = max(x - w, limit) if sign < 0 else min(x + w, limit)
            o = sw.order(p)
            if o == sample or p == limit:
                return p, o
            with prec:
                if not ops.tied(sw.objective(p, a, prefix), sw.objective(p, b, prefix)):
                    return p, o
                w *= 10

    with prec:
        lim_l, lim_r = (tl + x0) / 2, (x1 + tr) / 2
    return probe(x0, lim_l, -1, left), probe(x1, lim_r, 1, right)


def bisect_orders(sw: Sweep, tl, tr, left, right, n) -> list:
    """A change between ``tl`` and ``tr`` located by bisection on the orderings themselves (one
    side stops earlier), as :func:`find_changes` returns it."""
    digits = sw.spec.digits
    with mpmath.workdps(digits + GUARD_DIGITS):
        x0, x1 = to_mpf(tl), to_mpf(tr)
        tol = mpmath.mpf(10) ** -(digits + 2)
        while x1 - x0 > tol * max(abs(x0), abs(x1), mpmath.mpf(10) ** -digits):
            x = (x0 + x1) / 2
            if sw.order(x) == left:
                x0 = x
            else:
                x1 = x
        jl, jr = sw.order(x0), sw.order(x1)
    ol, or_ = left[0], right[0]
    between = tuple(sw.labels[i] for i in (ol[n:n + 1] + or_[n:n + 1]))
    with mpmath.workdps(digits + GUARD_DIGITS):
        cause = _order_change_cause(sw, x0, x1, left, right, n)
        bp = Breakpoint((x0 + x1) / 2, n + 1, cause, between, "change", (x0, x1))
    return [(x0, x1, bp, jl, jr)]


def _order_change_cause(sw: Sweep, x0, x1, left, right, n: int) -> str:
    """What changes between the two sides of a change located on the orderings themselves: which
    side stops at step n+1, and which candidates' objectives after the common prefix change kind
    between x0 and x1 (from what to what); else a neutral statement."""
    (ol, sl), (or_, sr) = left, right
    if sl and len(ol) == n and not (sr and len(or_) == n):
        head = f"the ordering stops at step {n + 1} on the left side only"
    elif sr and len(or_) == n and not (sl and len(ol) == n):
        head = f"the ordering stops at step {n + 1} on the right side only"
    else:
        head = f"the orderings part at step {n + 1}"
    prefix = tuple(ol[:n])
    changes: dict = {}
    for c in range(len(sw.labels)):
        if c in prefix:
            continue
        kl = kind_text(sw.objective(x0, c, prefix))
        kr = kind_text(sw.objective(x1, c, prefix))
        if kl != kr:
            changes.setdefault((kl, kr), []).append(sw.labels[c])
    if not changes:
        return f"{head} (no candidate's objective changes kind there: located on the orderings)"
    return f"{head} (" + "; ".join(
        f"objective of {', '.join(labs)}: {kl} on the left, {kr} on the right"
        for (kl, kr), labs in changes.items()) + ")"
