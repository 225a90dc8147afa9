r"""The first stage of a 3-D row's sweep: each objective from the low-precision joint values as
an enclosure whose width follows the error of every term it is built from.

The sweep (:mod:`fstheory.atlas.sweep`) first orders a sample point from joint values at
``LOW_DIGITS`` digits (the numerical-route pairs cost seconds each at the working digits) and
keeps the steps that this first stage decides beyond doubt. An objective's error is not
proportional to the objective: CIFE's sums cancel terms of order 1 down to a small value, and
DISR divides by H(V_i,V_j,C), which the engine derives as
h(V_i) + h(V_j) - MI(V_i,V_j) + H(C) - MI(C;{V_i,V_j}) and which can be small against its terms.
So each input is an interval around the engine's value with the radius of its own error, the
joint quantities carry the sum of their terms' errors, and the method's objective code runs on
them in the interval world (:mod:`fstheory.atlas.certificate.interval`):

=========================  ===============================================================
MI(C;{V_i,V_j}), H(C)      ``rel`` |x| for numerical values (the integrals over directions,
                           a probability left as an integral, the numerical route),
                           ``rel_exact`` |x| for values from exact expressions (0,
                           H(C) = ln 2, MI(C, V), polygon areas)
h, MI(C, V), MI(V_i,V_j)   ``rel_exact`` |x| (computed at the working digits)
MI(C;V_i|V_j)              r(MI(C;{V_i,V_j})) + r(MI(C,V_j))
MI(V_i;V_j|C)              r(MI(V_i,V_j)) + r(MI(C,V_i)) + r(MI(C,V_j)) + r(MI(C;{V_i,V_j}))
                           (0 and +inf when they are structural)
H(V_i,V_j,C)               r(h(V_i)) + r(h(V_j)) + r(MI(V_i,V_j)) + r(H(C)) + r(MI(C;{V_i,V_j}))
                           (-inf when structural)
MI(C;V_T), a set T         as MI(C;{V_i,V_j}) (``rel`` or ``rel_exact`` by its derivation)
MI(C;V_i|V_T)              r(MI(C;V_T+{V_i})) + r(MI(C;V_T)) (an exact 0 when the two sets
                           have the same derivation)
=========================  ===============================================================

A computed 0 with a nonzero radius is the interval [-r, r], not an exact 0: a division by it is
undecided, and the working digits decide (they see the engine's exact zero where there is one).
A step is decided when the winner's enclosure is above every other candidate's (or the kinds
decide, as in the greedy rule); anything else goes to the working digits.

Examples
--------
>>> import mpmath
>>> from fstheory.theory.extended import xr
>>> a = enclosure(xr(mpmath.mpf("0.5")), mpmath.mpf("1e-6"))
>>> mpmath.nstr(a.lo, 10), mpmath.nstr(a.hi, 10)
('0.499999', '0.500001')
>>> enclosure(xr(0), mpmath.mpf("1e-9")).zero    # a computed 0 is not an exact 0
False
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.atlas.certificate.interval import IX, IntervalOps
from fstheory.theory.extended import ExtendedReal, Kind
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["LowStageView", "enclosure", "decided", "LOW_DIGITS", "LOW_ERROR"]

#: Significant digits of the first-stage joint values of the 3-D methods (the numerical route
#: then works to LOW_ACCURACY = LOW_DIGITS + GUARD_DIGITS - 6 digits, its stated target).
LOW_DIGITS = 8
LOW_ACCURACY = LOW_DIGITS + GUARD_DIGITS - 6

#: The relative error radius of a numerical first-stage joint value: 100 times the accuracy
#: the engine guarantees for it (a numerical value is accepted at LOW_DIGITS digits with a
#: relative error up to 10^-LOW_DIGITS, whatever the route aimed at). The objectives' enclosures
#: follow from it term by term.
LOW_ERROR = mpmath.mpf(10) ** -(LOW_DIGITS - 2)

#: Pair kinds whose value comes from an exact expression (kinds of
#: :meth:`fstheory.engine.derive_joint.JointStructure.mi_class_set`; a two-point
#: probability left as an integral is numerical).
_EXACT_PAIRS = ("zero", "class-entropy", "single", "two-point")


def enclosure(x: ExtendedReal, radius) -> IX:
    """``x`` as an IX: its kind, or the interval [x - radius, x + radius] (outward rounded;
    an exact 0 only when ``x`` is 0 and ``radius`` is 0)."""
    if x.is_indeterminate:
        return IX.indeterminate(x.form.value, x.cause or "")
    if x.kind is Kind.POS_INF:
        return IX.POS_INF
    if x.kind is Kind.NEG_INF:
        return IX.NEG_INF
    v = mpmath.mpf(x.value)
    if radius == 0:
        return IX.ZERO if v == 0 else IX.point(v)
    lo = mpmath.fsub(v, radius, rounding="f")
    hi = mpmath.fadd(v, radius, rounding="c")
    return IX.interval(lo, hi)


class LowStageView:
    """The values view (``h``, ``mi_c``, ``mi``, ``h_c``, ``mi_c_pair``, ``cmi_c``,
    ``mi_given_c``, ``h_pair_c``, ``mi_c_set``, ``cmi_c_set``) of the low-precision values ``v``
    of one point, in the interval world (module docstring)."""

    def __init__(self, v, rel, rel_exact):
        self.v, self.rel, self.rel_exact = v, mpmath.mpf(rel), mpmath.mpf(rel_exact)
        # the structure kinds (LazyJointValues has them; without, every pair counts as
        # numerical and no conditional MI as a structural 0)
        self.st = getattr(v.joint_values(), "structure", None)
        self._memo: dict = {}

    def _r(self, x: ExtendedReal, rel) -> mpmath.mpf:
        return rel * abs(x.value) if x.is_finite else mpmath.mpf(0)

    def _radius(self, key):
        """The error radius of one quantity (module docstring)."""
        if key in self._memo:
            return self._memo[key]
        what, *ij = key
        v, ex = self.v, self.rel_exact
        if what == "h":
            out = self._r(v.h(ij[0]), ex)
        elif what == "mi_c":
            out = self._r(v.mi_c(ij[0]), ex)
        elif what == "mi":
            out = self._r(v.mi(*ij), ex)
        elif what == "hc":
            kind = self.st.class_entropy().kind if self.st else None
            out = self._r(v.h_c(), ex if kind in ("zero", "ln2") else self.rel)
        elif what == "pair":
            i, j = ij
            out = self._r(v.mi_c_pair(i, j), ex if self._exact_set((i, j)) else self.rel)
        else:  # "set"
            (T,) = ij
            out = self._r(v.mi_c_set(T), ex if self._exact_set(T) else self.rel)
        self._memo[key] = out
        return out

    def _exact_set(self, T) -> bool:
        """MI(C; V_T) comes from an exact expression (not the numerical route or an integral)."""
        d = self.st.mi_class_set(tuple(sorted(T))) if self.st else None
        return d is not None and d.kind in _EXACT_PAIRS and not (
            d.kind == "two-point" and sp.sympify(d.expr).has(sp.Integral))

    def h(self, i):
        return enclosure(self.v.h(i), self._radius(("h", i)))

    def mi_c(self, i):
        return enclosure(self.v.mi_c(i), self._radius(("mi_c", i)))

    def mi(self, i, j):
        return enclosure(self.v.mi(i, j), self._radius(("mi", i, j)))

    def h_c(self):
        return enclosure(self.v.h_c(), self._radius(("hc",)))

    def mi_c_pair(self, i, j):
        if i == j:
            return self.mi_c(i)
        return enclosure(self.v.mi_c_pair(i, j), self._radius(("pair", i, j)))

    def cmi_c(self, i, j):
        if i == j:
            return IX.ZERO
        r = self._radius(("pair", i, j)) + self._radius(("mi_c", j))
        return enclosure(self.v.cmi_c(i, j), r)

    def mi_given_c(self, i, j):
        if self.st and self.st.mi_given_class(min(i, j), max(i, j)).kind == "zero":
            return IX.ZERO
        r = (self._radius(("mi", i, j)) + self._radius(("mi_c", i)) + self._radius(("mi_c", j))
             + self._radius(("pair", i, j)))
        return enclosure(self.v.mi_given_c(i, j), r)

    def h_pair_c(self, i, j):
        r = (self._radius(("h", i)) + self._radius(("h", j)) + self._radius(("mi", i, j))
             + self._radius(("hc",)) + self._radius(("pair", i, j)))
        return enclosure(self.v.h_pair_c(i, j), r)

    def _set_radius(self, T):
        T = tuple(sorted(set(T)))
        return self._radius(("mi_c", T[0])) if len(T) == 1 else self._radius(("set", T))

    def mi_c_set(self, T):
        return enclosure(self.v.mi_c_set(T), self._set_radius(T))

    def cmi_c_set(self, i, T):
        T = tuple(sorted(set(T)))
        whole = tuple(sorted(T + (i,)))
        if self.st and self.st.mi_class_set(whole).key == self.st.mi_class_set(T).key:
            return IX.ZERO
        r = self._set_radius(whole) + self._set_radius(T)
        return enclosure(self.v.cmi_c_set(i, T), r)


def objective(method, view: LowStageView, i: int, prefix, beta, reading, zero_beta,
              gamma=None) -> IX:
    """obj(V_i) after ``prefix`` in the interval world (MI(C, V_i) for the first step)."""
    if not prefix:
        return view.mi_c(i)
    return method.objective(IntervalOps(), view, i, list(prefix), beta, reading=reading,
                            zero_beta=zero_beta, gamma=gamma)


def decided(fw: IX, fc: IX, w: int, c: int) -> bool:
    """Whether w's objective beats c's for every value in their enclosures (kinds as in the
    greedy rule: an indeterminate candidate loses, equal infinities go to the lower index)."""
    if not (fw.finite and fc.finite):
        return bool(IntervalOps().beats(fw, fc, first=w < c))
    return (fw - fc).positive()
