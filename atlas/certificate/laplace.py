r"""The atlas certificate's leaves for Scenario III's MI(C_k, V) (C_k = 1{X + kY >= 0}, X, Y
i.i.d. Laplace(0, s), V a non-constant affine function of X, of Y or of X - Y): the formulas,
their balls and their derivatives are in :mod:`fstheory.theory.laplace_class` (shared with the
engine's point values); here they are enclosed over cells of k.

Over a cell of k the value is the hull of the two end values (strict at an excluded end), since
each function is monotone in k (:data:`~fstheory.theory.laplace_class.WHICH`), and the
derivative is one integral with k the cell's ball, intersected with the sign the integrands
give it.
"""

from __future__ import annotations

import mpmath
import sympy as sp
from flint import arb, ctx

from fstheory.atlas.certificate.enclose import (Cell, CellMemoLeaf, ConstLeaf, NoEnclosure, PointMemo,
                                              hull, monotone_ix, mpf_down, mpf_up, to_ix,
                                              working_precision)
from fstheory.atlas.certificate.interval import IX
from fstheory.atlas.numbers import as_exact
from fstheory.theory.arbexpr import arb_of
from fstheory.theory.laplace_class import (WHICH, class_mi_ball, class_mi_derivative_ball,
                                           class_mi_expression, recognise)

__all__ = ["WHICH", "class_mi_ball", "class_mi_derivative_ball", "class_mi_expression",
           "LaplaceClassLeaf", "recognise", "laplace_leaf"]


class LaplaceClassLeaf(CellMemoLeaf):
    """MI(C_k, V) of :func:`recognise` as a function of the swept class weight k in [0, 1]:
    monotone (direction :data:`WHICH`), so a cell's range is the hull of its end values."""

    def __init__(self, which: str):
        self.which = which
        self.way = WHICH[which]
        self._points = PointMemo()
        self._cells: dict = {}

    def direction(self, cell: Cell) -> int | None:
        return self.way

    def exact(self, x) -> sp.Expr:
        return class_mi_expression(self.which, as_exact(x))

    def point(self, x):
        """The value at a cell end: a ball, or "zero" at an exact 0 (k = 0 for Y, 1 for X-Y)."""
        def fn(x):
            if not isinstance(x, mpmath.mpf):
                v = class_mi_expression(self.which, as_exact(x))
                if v == 0:
                    return "zero"
                if not v.has(sp.Integral):
                    return arb_of(v)
            return class_mi_ball(self.which, arb_of(x))
        return self._points.get(x, fn)

    def _der(self, cell: Cell):
        k = hull([arb_of(cell.lo), arb_of(cell.hi)])
        with working_precision(max(64, ctx.prec // 2)):
            try:
                d = class_mi_derivative_ball(self.which, k)
            except NoEnclosure:  # too wide a ball of k: the certifier splits the cell
                return None, None
        if not d.is_finite():
            return None, None
        lo, hi = mpf_down(d.lower()), mpf_up(d.upper())
        # the integrands have a sign (module docstring): the derivative's is known
        zero = mpmath.mpf(0)
        return (max(lo, zero), hi) if self.way > 0 else (lo, min(hi, zero))

    def _enclose(self, cell: Cell, der: bool) -> IX:
        dl, dh = self._der(cell) if der else (None, None)
        if cell.is_point:
            v = self.point(cell.lo)
            return IX.ZERO if v == "zero" else to_ix(v, dl, dh)
        vals = [arb(0) if v == "zero" else v for v in (self.point(cell.lo),
                                                      self.point(cell.hi))]
        return monotone_ix(vals, (cell.open_lo, cell.open_hi), self.way, dl, dh)


def laplace_leaf(which: str, k):
    """The leaf of MI(C_k, V): a :class:`LaplaceClassLeaf` when k is the swept symbol, else a
    constant (a number k)."""
    if isinstance(k, sp.Symbol):
        return LaplaceClassLeaf(which)
    exact = class_mi_expression(which, k)
    if exact == 0:
        return ConstLeaf(IX.ZERO, exact)
    return ConstLeaf(lambda: class_mi_ball(which, arb(int(k.p)) / int(k.q)), exact)
