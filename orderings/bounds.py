"""Bounds on an objective that needs a value the engine did not compute.

A candidate whose objective reads a "not computed" value (:data:`fstheory.theory.extended.Form.NOT_COMPUTED`)
is *unknown*. The greedy selection may pass it over only if it cannot win; this module proves
that, by evaluating the same objective code (written once against the arithmetic interface,
:mod:`fstheory.orderings.arithmetic`) in a third world: every value is an :class:`Interval` of
the extended reals, a known value is a point, and an unknown one is replaced by the range the
information inequalities allow:

=========================  ==============================================================
h(V), H(Vi,Vj,C)           [-inf, +inf] (or the identity's range when its terms are known)
MI(C,V)                    [0, H(C)]                       (H(C) <= ln 2 for a binary class)
MI(Vi,Vj), MI(Vi;Vj|C)     [0, +inf]  (MI(Vi;Vj|C) by its identity when MI(Vi,Vj) is finite)
H(C)                       [0, ln 2]
MI(C;{Vi,Vj})              [max(MI(C,Vi), MI(C,Vj)), H(C)]  (monotonicity)
MI(C;Vi|Vj)                [MI(C;{Vi,Vj}) - MI(C,Vj)] over that range, and >= 0
MI(C;V_T)                  [max_j MI(C,Vj) over T, H(C)]  (monotonicity)
MI(C;Vi|V_T)               [MI(C;V_T+{Vi}) - MI(C;V_T)] over those ranges, within [0, H(C)]
=========================  ==============================================================

Interval arithmetic keeps the extended-real rules: an operation that would be indeterminate for
*some* values in the ranges (inf - inf, 0 * inf, x/0, ...) makes the result the whole line and
marks it ``maybe`` indeterminate; one that is indeterminate for *every* value (a point +inf
minus a point +inf) marks it ``sure``, with the form. A ``sure`` candidate is indeterminate
whatever the missing values are; otherwise ``hi`` bounds what it could reach.

Examples
--------
>>> from fstheory.theory.extended import xr, POS_INF
>>> a = Interval(xr(0), xr("0.5"))
>>> (a + point(xr(1))).text(), (a - point(POS_INF)).text()
('[1.00000, 1.50000]', '[-inf, -inf]')
>>> (point(POS_INF) - point(POS_INF)).sure.value
'inf-inf'
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Sequence

import mpmath

from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr

__all__ = ["Interval", "point", "FULL", "IntervalOps", "INTERVAL_OPS", "IntervalView",
           "objective_bounds"]


@dataclass(frozen=True)
class Interval:
    """``[lo, hi]`` in the extended reals (both determinate), plus what may be indeterminate."""

    lo: ExtendedReal
    hi: ExtendedReal
    maybe: bool = False
    sure: Form | None = None

    def text(self, digits: int = 6) -> str:
        if self.sure is not None:
            return self.sure.value
        return f"[{self.lo.text(digits)}, {self.hi.text(digits)}]"

    # ----- helpers --------------------------------------------------------------------------------
    def _contains_zero(self) -> bool:
        return self.lo <= 0 <= self.hi

    def _is_point(self, kind) -> bool:
        return self.lo.kind is kind and self.hi.kind is kind

    def _is_zero_point(self) -> bool:
        return self.lo.is_zero and self.hi.is_zero

    def _reaches_inf(self) -> bool:
        return self.lo.is_neg_inf or self.hi.is_pos_inf

    # ----- arithmetic -----------------------------------------------------------------------------
    def __neg__(self) -> "Interval":
        if self.sure is not None:
            return self
        return Interval(-self.hi, -self.lo, self.maybe)

    def __add__(self, other) -> "Interval":
        other = _iv(other)
        if self.sure is not None or other.sure is not None:
            return _sure(self.sure or other.sure)
        if (self.hi.is_pos_inf and other.lo.is_neg_inf) or (self.lo.is_neg_inf and other.hi.is_pos_inf):
            if (self._is_point(POS_INF.kind) and other._is_point(NEG_INF.kind)) or (
                    self._is_point(NEG_INF.kind) and other._is_point(POS_INF.kind)):
                return _sure(Form.INF_MINUS_INF)
            return FULL_MAYBE
        return Interval(self.lo + other.lo, self.hi + other.hi, self.maybe or other.maybe)

    def __radd__(self, other) -> "Interval":
        return _iv(other) + self

    def __sub__(self, other) -> "Interval":
        return self + (-_iv(other))

    def __rsub__(self, other) -> "Interval":
        return _iv(other) + (-self)

    def __mul__(self, other) -> "Interval":
        other = _iv(other)
        if self.sure is not None or other.sure is not None:
            return _sure(self.sure or other.sure)
        for a, b in ((self, other), (other, self)):
            if a._is_zero_point() and (b._is_point(POS_INF.kind) or b._is_point(NEG_INF.kind)):
                return _sure(Form.ZERO_TIMES_INF)
            if a._contains_zero() and b._reaches_inf():
                return FULL_MAYBE
        ends = [x * y for x in (self.lo, self.hi) for y in (other.lo, other.hi)]
        return Interval(min(ends), max(ends), self.maybe or other.maybe)

    def __rmul__(self, other) -> "Interval":
        return _iv(other) * self

    def __truediv__(self, other) -> "Interval":
        other = _iv(other)
        if self.sure is not None or other.sure is not None:
            return _sure(self.sure or other.sure)
        if self._is_zero_point() and other._is_zero_point():
            return _sure(Form.ZERO_OVER_ZERO)
        if (self._is_point(POS_INF.kind) or self._is_point(NEG_INF.kind)) and (
                other._is_point(POS_INF.kind) or other._is_point(NEG_INF.kind)):
            return _sure(Form.INF_OVER_INF)
        if other._contains_zero() or (self._reaches_inf() and other._reaches_inf()):
            return FULL_MAYBE
        ends = [x / y for x in (self.lo, self.hi) for y in (other.lo, other.hi)]
        return Interval(min(ends), max(ends), self.maybe or other.maybe)

    def __rtruediv__(self, other) -> "Interval":
        return _iv(other) / self


def point(x: ExtendedReal) -> Interval:
    """The interval of one known, determinate value."""
    return Interval(x, x)


def _sure(form: Form) -> Interval:
    return Interval(NEG_INF, POS_INF, True, form)


FULL = Interval(NEG_INF, POS_INF)
FULL_MAYBE = Interval(NEG_INF, POS_INF, True)


def _iv(x) -> Interval:
    if isinstance(x, Interval):
        return x
    return point(xr(x))


def _extreme(seq, pick) -> Interval:
    seq = [_iv(x) for x in seq]
    if not seq:
        raise ValueError("extreme over an empty set")
    for x in seq:
        if x.sure is not None:
            return _sure(x.sure)
    return Interval(pick(x.lo for x in seq), pick(x.hi for x in seq), any(x.maybe for x in seq))


class IntervalOps:
    """The arithmetic interface over :class:`Interval` values."""

    name = "interval"

    def const(self, x, label: str | None = None) -> Interval:
        from fstheory.orderings.arithmetic import EXACT_OPS

        return point(EXACT_OPS.const(x, label))

    def sum(self, seq: Sequence) -> Interval:
        total = point(xr(0))
        for x in seq:
            total = total + x
        return total

    def max(self, seq: Sequence) -> Interval:
        return _extreme(seq, max)

    def min(self, seq: Sequence) -> Interval:
        return _extreme(seq, min)

    def mean(self, seq: Sequence) -> Interval:
        seq = list(seq)
        if not seq:
            raise ValueError("mean over an empty set")
        return self.sum(seq) / point(xr(len(seq)))

    def min2(self, a, b) -> Interval:
        return _extreme([a, b], min)

    def max2(self, a, b) -> Interval:
        return _extreme([a, b], max)

    def quiet(self):
        return contextlib.nullcontext()


INTERVAL_OPS = IntervalOps()


class IntervalView:
    """A values view returning :class:`Interval` s: points for known values, the ranges of the
    module table for "not computed" ones. ``missing`` collects the not-computed quantities read,
    as ``"<quantity> not computed: <why>"``."""

    def __init__(self, values):
        self.v = values
        self.missing: list[str] = []
        ln2 = xr(mpmath.log(2))
        hc = values.h_c() if values.joint is not None else None
        if hc is None and getattr(values, "sets", None) is not None:
            hc = values.sets.h_class
        self._hc_hi = hc if hc is not None and hc.is_finite else ln2
        self._ln2 = ln2

    def _known(self, x: ExtendedReal) -> bool:
        if x.is_indeterminate:
            cause = x.cause or ""
            note = cause if " not computed: " in cause else f"{x.label} not computed: {cause}"
            if note not in self.missing:
                self.missing.append(note)
            return False
        return True

    def _or(self, x: ExtendedReal, lo: ExtendedReal, hi: ExtendedReal) -> Interval:
        return point(x) if self._known(x) else Interval(lo, hi)

    def h(self, i):
        return self._or(self.v.h(i), NEG_INF, POS_INF)

    def mi_c(self, i):
        return self._or(self.v.mi_c(i), xr(0), self._hc_hi)

    def mi(self, i, j):
        return self._or(self.v.mi(i, j), xr(0), POS_INF)

    def h_c(self):
        return self._or(self.v.h_c(), xr(0), self._ln2)

    def mi_c_pair(self, i, j):
        x = self.v.mi_c_pair(i, j)
        if self._known(x):
            return point(x)
        lo = xr(0)
        for k in (i, j):
            m = self.v.mi_c(k)
            if m.is_finite and m > lo:
                lo = m
        return Interval(lo, self._hc_hi)

    def cmi_c(self, i, j):
        x = self.v.cmi_c(i, j)
        if self._known(x):
            return point(x)
        pair = self.mi_c_pair(i, j)
        mj = self.v.mi_c(j)
        if not mj.is_finite:
            return Interval(xr(0), self._hc_hi)
        lo = pair.lo - mj
        return Interval(lo if lo > 0 else xr(0), pair.hi - mj)

    def mi_given_c(self, i, j):
        x = self.v.mi_given_c(i, j)
        if self._known(x):
            return point(x)
        mi = self.v.mi(i, j)
        if mi.is_finite:
            r = self.mi(i, j) - self.mi_c(i) - self.mi_c(j) + self.mi_c_pair(i, j)
            if r.sure is None and not r.maybe:
                return Interval(r.lo if r.lo > 0 else xr(0), r.hi)
        return Interval(xr(0), POS_INF)

    def mi_c_set(self, T):
        x = self.v.mi_c_set(T)
        if self._known(x):
            return point(x)
        lo = xr(0)
        for k in T:
            m = self.v.mi_c(k)
            if m.is_finite and m > lo:
                lo = m
        return Interval(lo, self._hc_hi)

    def cmi_c_set(self, i, T):
        x = self.v.cmi_c_set(i, T)
        if self._known(x):
            return point(x)
        r = self.mi_c_set(tuple(T) + (i,)) - self.mi_c_set(T)
        if r.sure is not None or r.maybe:
            return Interval(xr(0), self._hc_hi)
        return Interval(r.lo if r.lo > 0 else xr(0), r.hi if r.hi < self._hc_hi else self._hc_hi)

    def h_pair_c(self, i, j):
        x = self.v.h_pair_c(i, j)
        if self._known(x):
            return point(x)
        r = self.h(i) + self.h(j) - self.mi(i, j) + self.h_c() - self.mi_c_pair(i, j)
        return r if r.sure is None and not r.maybe else FULL


def objective_bounds(method, values, i, S, beta, reading, zero_beta,
                     gamma=None) -> tuple[Interval, list[str]]:
    """The interval of candidate ``i``'s objective given ``S`` over every completion of the
    not-computed values, and those values' descriptions."""
    view = IntervalView(values)
    if not S:
        return view.mi_c(i), view.missing
    result = method.objective(INTERVAL_OPS, view, i, S, beta, reading=reading, zero_beta=zero_beta,
                              gamma=gamma)
    return _iv(result), view.missing
