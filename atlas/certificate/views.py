"""The values view the methods' objectives read in the certificate: one cell's inputs in the
interval world (:class:`IntervalView`) or the leaf symbols (:class:`SymbolicView`), over the
:class:`~fstheory.atlas.certificate.leaves.Leaves` of a sweep.

Both follow the values-view protocol (:mod:`fstheory.orderings.protocols`): ``h``, ``mi_c``,
``mi``, and for the 3-D methods ``h_c``, ``mi_c_pair``, ``cmi_c``, ``mi_given_c``,
``h_pair_c``, ``mi_c_set``, ``cmi_c_set`` (the joint quantities that are identities in the
leaves, :meth:`~fstheory.atlas.certificate.joint.JointLeaves.expression`).
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import Cell
from fstheory.atlas.certificate.interval import IX, SYM_INF, evaluate_expr
from fstheory.atlas.certificate.joint import JointLeaves
from fstheory.atlas.certificate.symmetry import exact_zero_at

__all__ = ["IntervalView", "SymbolicView", "View"]


class View:
    """The values view the objectives read, over ``_q(leaf quantity)`` and ``_derived(quantity)``
    (the joint quantities that are identities in the leaves, :meth:`JointLeaves.expression`)."""

    def h(self, i):
        return self._q(("h", i))

    def mi_c(self, i):
        return self._q(("mi_c", i))

    def mi(self, i, j):
        return self._q(("mi", min(i, j), max(i, j)))

    def h_c(self):
        return self._q(("hc",))

    def mi_c_pair(self, i, j):
        return self.mi_c(i) if i == j else self._q(("pair", min(i, j), max(i, j)))

    def cmi_c(self, i, j):
        return self._derived(("cmi", i, j))

    def mi_given_c(self, i, j):
        return self._derived(("given", min(i, j), max(i, j)))

    def h_pair_c(self, i, j):
        return self._derived(("hpair", min(i, j), max(i, j)))

    def mi_c_set(self, T):
        """MI(C; V_T): the leaf its open derivation reduces it to
        (:meth:`~fstheory.atlas.certificate.joint.JointLeaves.set_symbol`)."""
        T = tuple(sorted(set(int(t) for t in T)))
        if len(T) == 1:
            return self.mi_c(T[0])
        if len(T) == 2:
            return self.mi_c_pair(*T)
        self.leaves.joint().set_symbol(T)
        return self._q(("set", T))

    def cmi_c_set(self, i, T):
        """MI(C; V_i | V_T) = MI(C; V_T+{V_i}) - MI(C; V_T) as one expression in the leaf
        symbols (equal leaves cancel exactly)."""
        T = tuple(sorted(set(int(t) for t in T)))
        if len(T) == 1:
            return self.cmi_c(i, T[0])
        joint = self.leaves.joint()
        return self._set_difference(sp.expand(joint.set_symbol(tuple(sorted(T + (int(i),))))
                                              - joint.set_symbol(T)))


def _nonnegative(out: IX) -> IX:
    """A conditional mutual information's enclosure cut at 0: it is >= 0 (a divergence), which
    the terms of its identity, enclosed apart, can lose."""
    if out.finite and out.lo < 0:
        return IX("finite", mpmath.mpf(0), max(out.hi, mpmath.mpf(0)), False, out.shi, False,
                  out.dlo, out.dhi)
    return out


class IntervalView(View):
    """One cell's values in the interval world."""

    def __init__(self, leaves, cell: Cell, der: bool):
        self.leaves, self.cell, self.der = leaves, cell, der
        self._memo: dict = {}

    def zeros(self) -> frozenset:
        """The leaf symbols identically 0 on the cell (0 in the symbolic world there)."""
        key = ("zeros",)
        if key in self._memo:
            return self._memo[key]
        out = set()
        for q, s in list(self.leaves.symbol.items()):
            if isinstance(s, sp.Symbol) and s not in out:
                x = self._q(q)
                if x.finite and x.zero:
                    out.add(s)
        self._memo[key] = frozenset(out)
        return self._memo[key]

    def _set_difference(self, expr):
        expr = expr.xreplace({z: 0 for z in self.zeros()})
        if expr == 0:
            return IX.ZERO
        out = evaluate_expr(expr, self.leaves.inputs_for(expr, self.cell, self.der))
        return _nonnegative(out)

    def _q(self, q):
        if q not in self._memo:
            self._memo[q] = self.leaves.leaf_ix(q, self.cell, self.der)
        return self._memo[q]

    def _derived(self, d):
        if d not in self._memo:
            joint = self.leaves.joint()
            kind = joint.kind(d)
            if kind in JointLeaves.INFINITE:
                out = JointLeaves.INFINITE[kind]
            else:
                expr = joint.expression(d, self.zeros())
                # at a special point the exact world recognises an exact 0 (H(Z, X, C_0))
                if expr == 0 or (self.cell.is_point
                                 and exact_zero_at(self.leaves, expr, self.cell.lo)):
                    out = IX.ZERO
                else:
                    out = evaluate_expr(expr, self.leaves.inputs_for(expr, self.cell, self.der))
                    if d[0] in ("cmi", "given"):
                        out = _nonnegative(out)
            self._memo[d] = out
        return self._memo[d]


class SymbolicView(View):
    """The values as leaf symbols (0 for the leaves identically 0 on the cell)."""

    def __init__(self, leaves, zeros: frozenset):
        self.leaves, self.zeros = leaves, zeros

    def _set_difference(self, expr):
        return expr.xreplace({z: 0 for z in self.zeros})

    def _q(self, q):
        sym = self.leaves.symbol[q]
        if sym is SYM_INF:
            return SYM_INF
        return sp.Integer(0) if (sym == 0 or sym in self.zeros) else sym

    def _derived(self, d):
        return self.leaves.joint().expression(d, self.zeros)
