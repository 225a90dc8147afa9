"""The small arithmetic interface that the methods' objectives are written against.

Every objective in :mod:`fstheory.orderings.methods` is one function ``objective(ops, v, i, S, beta)``
that uses only

* Python's ``+ - * /`` (and unary ``-``) on the values ``v`` returns and on ``ops.const``;
* ``ops.sum(seq)``, ``ops.max(seq)``, ``ops.min(seq)``, ``ops.mean(seq)`` over a sequence (the
  sets of the objectives: sums, maxima, minima and means over the already selected features
  ``S``; ``min`` for CMIM and JMIM);
* ``ops.min2(a, b)`` and ``ops.max2(a, b)``, the minimum and maximum of two values
  (``min{h(V_i), h(V_s)}`` in NI, ``max(0, ...)`` in ICAP);
* ``ops.const(x, label)``, a constant (``beta``, ``1/2``, ``|S|``, ``1/|S|``) with a name for
  explanations.

So the *same* definition runs in two worlds:

``EXACT_OPS``
    values are :class:`fstheory.theory.extended.ExtendedReal`; handles are ints; ``v`` is a
    :class:`fstheory.engine.values.ScenarioValues`. 0/0, 0*inf, inf-inf and inf/inf become named
    indeterminates; ``x/0`` follows :data:`fstheory.theory.extended.DIVISION_BY_ZERO`.
``FLOAT_OPS``
    values are numpy float arrays of shape ``(reps,)`` (one entry per Monte-Carlo replication);
    handles are ints or int arrays of shape ``(reps,)`` (one feature index per replication);
    ``v`` is any view with ``h(i)``, ``mi_c(i)``, ``mi(i, j)`` (and, for the methods that read
    them, ``h_c()``, ``mi_c_pair(i, j)``, ``cmi_c(i, j)``, ``mi_given_c(i, j)``,
    ``h_pair_c(i, j)``, ``mi_c_set(T)``, ``cmi_c_set(i, T)``) returning such arrays (e.g.
    :class:`ArrayValues`, :mod:`fstheory.selection.values`). IEEE rules apply; every indeterminate form is ``nan``, which means
    "not choosable" -- exactly where the exact world has an indeterminate. ``x/0.0`` is
    ``sign(x)*inf`` as in the exact convention: the set operations return unsigned zeros and
    views must not return ``-0.0`` (see :class:`FloatOps`).

The greedy comparison is part of the interface too, so that one greedy step serves every world
(:mod:`fstheory.orderings.greedy`, :mod:`fstheory.selection.greedy`, the atlas's sweep and its
interval certificate):

* ``ops.choosable(a)``: the value can win a step (an indeterminate, "not computed" or ``nan``
  value cannot);
* ``ops.compare(a, b)``: +1 if ``a`` wins against ``b``, -1 if it loses, 0 if they are tied, or
  None if this world cannot tell (an interval "undecided"); a value that is not choosable loses
  against one that is, two equal infinities tie, and values within the world's tie band tie;
* ``ops.tied(a, b)`` (compare is 0) and ``ops.beats(a, b, first=False)``: whether ``a`` wins
  the step against ``b``, given whether ``a``'s candidate comes first in the list (ties go to
  the lower index): :func:`beats_by`.

The tie band is the world's: exact ties in ``EXACT_OPS``, ``EXACT_OPS.with_band(eps)`` ties
finite values within ``eps * max(1, |a|, |b|)`` (:func:`fstheory.orderings.greedy.tie_band`),
and ``ops.proved_apart()`` unless their enclosures are disjoint;
the float world ties within ``rtol * max(1, |b|)`` below the best value ``b``
(:meth:`FloatOps.with_ties`).

Run an objective inside ``with ops.quiet():`` (the methods' :meth:`~fstheory.orderings.methods.Method.objective`
does this), which silences numpy's floating-point warnings in the float world and does nothing
in the exact world.

Examples
--------
>>> import numpy as np
>>> from fstheory.orderings.arithmetic import EXACT_OPS, FLOAT_OPS
>>> from fstheory.theory.extended import xr
>>> str(EXACT_OPS.mean([xr(1), xr(2)]))
'1.50000'
>>> with FLOAT_OPS.quiet():
...     FLOAT_OPS.sum([np.array([1.0, np.inf]), np.array([2.0, -np.inf])])
array([ 3., nan])
"""

from __future__ import annotations

import contextlib
import copy
import functools
import operator
from fractions import Fraction
from typing import Sequence

import mpmath
import numpy as np

from fstheory.theory.extended import ExtendedReal, xmax, xmin, xr, xsum

__all__ = ["ExactOps", "TracingExactOps", "FloatOps", "EXACT_OPS", "FLOAT_OPS", "ArrayValues",
           "beats_by", "first_best"]


def beats_by(c, first: bool):
    """The greedy rule on a comparison ``c`` (of ``ops.compare``) of a candidate's objective
    with another's: it wins if larger, or tied and first in the list; None if ``c`` is None."""
    if c is None:
        return None
    return c > 0 or (c == 0 and first)


def first_best(ops, values):
    """The index of the winner of one greedy step among ``values`` (the candidates' objectives
    in list order), or None if none is choosable: scanned in order, a later candidate replaces
    the best so far only if it beats it (``ops.beats``: ties go to the lower index)."""
    best = None
    for k, v in enumerate(values):
        if ops.choosable(v) and (best is None or ops.beats(v, values[best])):
            best = k
    return best


class ExactOps:
    """Extended-real arithmetic (:mod:`fstheory.theory.extended`); labels compose into causes."""

    name = "exact"
    #: relative tie band of finite values (None: only equal values tie)
    band = None

    def with_band(self, band) -> "ExactOps":
        """These ops with finite values tied within ``band * max(1, |a|, |b|)``."""
        ops = copy.copy(self)
        ops.band = band
        return ops

    def proved_apart(self) -> "ExactOps":
        """These ops in the mode where finite values tie unless their enclosures prove them
        apart (an infinite band: only disjoint enclosures differ), the comparison that closes
        a bracket around a crossing in the atlas (:mod:`fstheory.atlas.locate`)."""
        return self.with_band(mpmath.inf)

    # ----- the greedy comparison ------------------------------------------------------------------
    def choosable(self, a: ExtendedReal) -> bool:
        """Determinate (an indeterminate or "not computed" value cannot be chosen)."""
        return a.is_determinate

    def tied(self, a: ExtendedReal, b: ExtendedReal) -> bool:
        """Two finite values within the band and not proved apart (equal without a band), or
        the same infinity. Values whose enclosures are disjoint differ however close: MI(C, Y)
        = k^2/6 at k = 10^-200 beats an exact 0."""
        if a.is_finite and b.is_finite:
            if self.band is None:
                return a.value == b.value
            gap = abs(a.value - b.value)
            if gap > self.band * max(1, abs(a.value), abs(b.value)):
                return False
            return gap <= (a.radius or 0) + (b.radius or 0)
        return a.same(b)

    def compare(self, a: ExtendedReal, b: ExtendedReal) -> int:
        if not self.choosable(a):
            return -1
        if not self.choosable(b):
            return 1
        if self.tied(a, b):
            return 0
        return 1 if a > b else -1

    def beats(self, a: ExtendedReal, b: ExtendedReal, first: bool = False) -> bool:
        return beats_by(self.compare(a, b), first)

    def const(self, x, label: str | None = None) -> ExtendedReal:
        """A constant; ``Fraction`` and decimal strings are read exactly at the working precision."""
        if isinstance(x, Fraction) and x.denominator == 1:
            x = x.numerator
        return xr(x, label if label is not None else str(x))

    def sum(self, seq: Sequence) -> ExtendedReal:
        """Sum over a set, left to right (empty sum = 0, labelled "0"); the first indeterminate
        is kept."""
        seq = list(seq)
        return xsum(seq) if seq else self.const(0)

    def max(self, seq: Sequence) -> ExtendedReal:
        """Maximum over a non-empty set; an indeterminate member makes it indeterminate."""
        return xmax(seq)

    def mean(self, seq: Sequence) -> ExtendedReal:
        """``(1/|seq|) * sum(seq)``, labelled "(a + b)/2"; the mean of one value is that value
        (x/1 = x for every kind, so only the label is spared the "/1")."""
        seq = list(seq)
        if not seq:
            raise ValueError("mean over an empty set")
        if len(seq) == 1:
            return xr(seq[0])
        return xsum(seq) / self.const(len(seq))

    def min(self, seq: Sequence) -> ExtendedReal:
        """Minimum over a non-empty set; an indeterminate member makes it indeterminate."""
        return xmin(seq)

    def min2(self, a: ExtendedReal, b: ExtendedReal) -> ExtendedReal:
        """min{a, b}; carries the label of the smaller one (so a cause names the entropy used)."""
        return xmin([a, b])

    def max2(self, a: ExtendedReal, b: ExtendedReal) -> ExtendedReal:
        """max{a, b}; an indeterminate operand makes it indeterminate."""
        return xmax([a, b])

    def quiet(self):
        return contextlib.nullcontext()


def _unsigned_zero(x):
    """-0.0 -> +0.0 (IEEE: -0.0 + 0.0 = +0.0); everything else, nan and inf included, unchanged."""
    return x + 0.0


class FloatOps:
    """numpy float arithmetic, elementwise over replications; ``nan`` = indeterminate.

    IEEE zeros are signed and ``x / -0.0 = -sign(x) * inf``, while the exact world has one
    unsigned zero and ``x / 0 = sign(x) * inf`` (:data:`fstheory.theory.extended.DIVISION_BY_ZERO`). Every
    divisor in the objectives is a value of the view (``h``), a ``min2`` of such values, or a
    ``sum``/``mean``; so the results of the set operations are returned with unsigned zeros
    (e.g. a mean of ``0/h`` terms with ``h < 0`` is ``-0.0`` in IEEE), and views must not return
    ``-0.0`` (:class:`ArrayValues` normalises its arrays). With that the two worlds agree.
    """

    name = "float"
    #: relative tie band below the best value (0: only equal values tie)
    rtol = 0.0

    def with_ties(self, rtol: float) -> "FloatOps":
        """These ops with values within ``rtol * max(1, |best|)`` below the best one tied."""
        ops = copy.copy(self)
        ops.rtol = rtol
        return ops

    # ----- the greedy comparison, elementwise ----------------------------------------------------
    def choosable(self, a):
        """Not ``nan`` (an indeterminate form)."""
        return ~np.isnan(a)

    def tied(self, a, b):
        """``a`` within the band below ``b`` (``b`` the larger, e.g. the step's maximum):
        ``a >= b - rtol * max(1, |b|)``; against an infinite ``b`` only an equal ``a``. The band
        is relative to ``max(1, |b|)``: an objective that is 0 by its algebra comes out of float
        sums as +-1e-17, which a band relative to ``|b|`` alone could never tie. Unlike the
        exact world's band it is measured from the larger value only."""
        with np.errstate(invalid="ignore"):
            tol = np.where(np.isfinite(b), self.rtol * np.maximum(1.0, np.abs(b)), 0.0)
            return (a >= b - tol) & (b >= a - tol)

    def compare(self, a, b):
        ok_a, ok_b = self.choosable(a), self.choosable(b)
        with np.errstate(invalid="ignore"):
            hi, lo = np.maximum(a, b), np.minimum(a, b)
            tied = self.tied(lo, hi)
            sign = np.where(tied, 0, np.where(a > b, 1, -1))
        return np.where(ok_a & ok_b, sign, np.where(ok_a, 1, -1))

    def beats(self, a, b, first: bool = False):
        c = self.compare(a, b)
        return (c > 0) | ((c == 0) & first)

    def pick(self, values, available):
        """The winner of one greedy step per row of ``values`` (..., F), among the candidates
        ``available`` (a mask); -1 where none is choosable. Vectorised: the first candidate tied
        with the row's maximum (:meth:`tied`). With ``rtol = 0`` this is the exact world's scan
        (:func:`first_best`: the first candidate that no later one beats); with a band it ties
        every value within the band of the maximum, while the scan would let a chain of values,
        each within the band of the next, move the winner past the first of them."""
        ok = available & self.choosable(values)
        v = np.where(ok, values, -np.inf)
        winners = ok & self.tied(v, v.max(axis=-1, keepdims=True))
        idx = np.argmax(winners, axis=-1)
        return np.where(winners.any(axis=-1), idx, -1)

    def const(self, x, label: str | None = None) -> float:
        return float(Fraction(x)) if isinstance(x, str) else float(x)

    def sum(self, seq: Sequence):
        seq = list(seq)
        return _unsigned_zero(functools.reduce(operator.add, seq)) if seq else 0.0

    def max(self, seq: Sequence):
        seq = list(seq)
        if not seq:
            raise ValueError("max over an empty set")
        return _unsigned_zero(functools.reduce(np.maximum, seq))  # np.maximum propagates nan

    def mean(self, seq: Sequence):
        seq = list(seq)
        if not seq:
            raise ValueError("mean over an empty set")
        total = seq[0] if len(seq) == 1 else self.sum(seq) / float(len(seq))
        return _unsigned_zero(total)

    def min(self, seq: Sequence):
        seq = list(seq)
        if not seq:
            raise ValueError("min over an empty set")
        return _unsigned_zero(functools.reduce(np.minimum, seq))  # np.minimum propagates nan

    def min2(self, a, b):
        return _unsigned_zero(np.minimum(a, b))

    def max2(self, a, b):
        return _unsigned_zero(np.maximum(a, b))

    def quiet(self):
        return np.errstate(all="ignore")


class TracingExactOps(ExactOps):
    """:class:`ExactOps` that also records every non-finite value entering (role "term") or
    leaving (role "result") a set operation (sum, max, min, mean, min2, max2), in evaluation
    order, as
    ``(role, value)`` pairs in :attr:`events`.

    An indeterminate keeps only its *first* cause when it propagates; every term of the paper's
    objectives passes through a set operation, so the trace recovers *all* the indeterminate
    terms of an objective (e.g. QMIFS's candidate Y^2 with both 0/0 and 0*inf, Section 7) and
    the infinite terms behind an infinite objective (NMIFS's NI(X^2,X) = -inf).
    """

    name = "exact-tracing"

    def __init__(self):
        self.events: list[tuple[str, ExtendedReal]] = []

    def _note(self, values, result):
        for role, x in [("term", x) for x in values] + [("result", result)]:
            if isinstance(x, ExtendedReal) and not x.is_finite:
                self.events.append((role, x))
        return result

    def sum(self, seq):
        seq = list(seq)
        return self._note(seq, super().sum(seq))

    def max(self, seq):
        seq = list(seq)
        return self._note(seq, super().max(seq))

    def mean(self, seq):
        seq = list(seq)
        return self._note(seq, super().mean(seq))

    def min(self, seq):
        seq = list(seq)
        return self._note(seq, super().min(seq))

    def min2(self, a, b):
        return self._note([a, b], super().min2(a, b))

    def max2(self, a, b):
        return self._note([a, b], super().max2(a, b))


EXACT_OPS = ExactOps()
FLOAT_OPS = FloatOps()


class ArrayValues:
    """A float-world values view over Monte-Carlo replications.

    Parameters
    ----------
    h : array (reps, n)
        Entropy estimates h(V_j) per replication.
    mi_c : array (reps, n)
        MI(C, V_j) estimates per replication.
    mi : array (reps, n, n)
        MI(V_j, V_l) estimates per replication.
    joint : dict, optional
        For the three-dimensional methods: ``h_c`` (reps,), and ``mi_c_pair``, ``cmi_c``,
        ``mi_given_c``, ``h_pair_c`` (reps, n, n) -- the estimates of H(C), MI(C; {V_j, V_l}),
        MI(C; V_j | V_l), MI(V_j; V_l | C) and H(V_j, V_l, C). Reading one that was not given is
        an error.

    Handles are ints (the same feature in every replication) or int arrays of shape ``(reps,)``
    (feature ``handle[r]`` in replication ``r``); every accessor returns shape ``(reps,)``.

    >>> import numpy as np
    >>> v = ArrayValues(np.ones((2, 3)), np.arange(6.0).reshape(2, 3), np.zeros((2, 3, 3)))
    >>> v.mi_c(np.array([0, 2]))
    array([0., 5.])
    """

    JOINT = ("h_c", "mi_c_pair", "cmi_c", "mi_given_c", "h_pair_c")

    def __init__(self, h, mi_c, mi, joint: dict | None = None):
        # + 0.0 turns any -0.0 into +0.0 (see FloatOps)
        self.h_ = np.asarray(h, dtype=float) + 0.0
        self.mi_c_ = np.asarray(mi_c, dtype=float) + 0.0
        self.mi_ = np.asarray(mi, dtype=float) + 0.0
        reps, n = self.h_.shape
        if self.mi_c_.shape != (reps, n) or self.mi_.shape != (reps, n, n):
            raise ValueError("h and mi_c must be (reps, n) and mi (reps, n, n)")
        self._joint = {}
        for name, arr in (joint or {}).items():
            if name not in self.JOINT:
                raise ValueError(f"unknown joint quantity {name!r} (allowed: {', '.join(self.JOINT)})")
            arr = np.asarray(arr, dtype=float) + 0.0
            want = (reps,) if name == "h_c" else (reps, n, n)
            if arr.shape != want:
                raise ValueError(f"{name} must have shape {want} (got {arr.shape})")
            self._joint[name] = arr
        self._rows = np.arange(reps)

    @property
    def reps(self) -> int:
        return self.h_.shape[0]

    @property
    def n_features(self) -> int:
        return self.h_.shape[1]

    def h(self, i):
        return self.h_[self._rows, i]

    def mi_c(self, i):
        return self.mi_c_[self._rows, i]

    def mi(self, i, j):
        return self.mi_[self._rows, i, j]

    def _pair(self, name, i, j):
        if name not in self._joint:
            raise LookupError(f"{name} was not given to this ArrayValues view")
        return self._joint[name][self._rows, i, j]

    def h_c(self):
        if "h_c" not in self._joint:
            raise LookupError("h_c was not given to this ArrayValues view")
        return self._joint["h_c"]

    def mi_c_pair(self, i, j):
        return self._pair("mi_c_pair", i, j)

    def cmi_c(self, i, j):
        return self._pair("cmi_c", i, j)

    def mi_given_c(self, i, j):
        return self._pair("mi_given_c", i, j)

    def h_pair_c(self, i, j):
        return self._pair("h_pair_c", i, j)

    def mi_c_set(self, T):
        raise LookupError("an ArrayValues view holds no MI(C; V_S) of sets (CMI, JMI3 read them)")

    def cmi_c_set(self, i, T):
        raise LookupError("an ArrayValues view holds no MI(C; V_i | V_S) of sets (CMI reads them)")
