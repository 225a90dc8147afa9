r"""The certificate's leaf for MI(C; {V_i, V_j}) = H(C) - H(C | V_i, V_j) when H(C | V_i, V_j) is
an integral over directions (Scenarios II and III: {Y^2, X-Y}, {X-Y, X^2};
:func:`fstheory.theory.two_point_fibre.cone_entropy`).

Over a cell of the swept parameter the enclosure is
:func:`fstheory.theory.cone_enclosure.cone_entropy_ball`: the set of directions where the
classes differ is bracketed by the arcs its boundaries sweep over the cell (exact reasoning, no
monotonicity needed), and the integrals of the weight over directions are enclosures (Chebyshev
models with proved error bounds, the module docstring of
:mod:`~fstheory.theory.cone_enclosure`). The derivative over a cell is
:func:`~fstheory.theory.cone_enclosure.cone_entropy_derivative_ball` (the weight at the swept
arcs times the boundaries' turning rates). Both are rigorous: a certificate that uses this leaf
assumes nothing about it.

At a special point the leaf is continuous: the boundaries of the set move continuously with the
parameter and the weight is integrable, so the value at the point is the limit of the open
range's values (the certificate's ``check_point`` only checks that the point has the same map
and class form).
"""

from __future__ import annotations

import math

import sympy as sp
from flint import arb, ctx

from fstheory.atlas.certificate.enclose import (Cell, CellMemoLeaf, NoEnclosure, mpf_down, mpf_up,
                                              PointMemo, arb_of, to_ix, working_precision)
from fstheory.theory.cone_enclosure import (DirectionWeight, NoConeEnclosure, cone_entropy_ball,
                                           cone_entropy_derivative_ball)
from fstheory.theory.law_algebra import linear_parts

__all__ = ["ConeLeaf"]

class ConeLeaf(CellMemoLeaf):
    """MI(C;{V_i,V_j}) = ln 2 - H(C | V_i, V_j)(t) for a map ``tau`` (an
    :class:`~fstheory.theory.two_point_fibre.AffinePartner`) of radial ``kind``, the class
    ``event`` linear in tau's coordinates with coefficients affine in ``sym``."""

    def __init__(self, kind: str, tau, event, sym, hc: sp.Expr):
        if hc != sp.log(2):
            raise NoEnclosure("an integral over directions with H(C) != ln 2")
        lin = linear_parts(event.expr - event.threshold, list(tau.coords))
        if lin is None:
            raise NoEnclosure("the class is not linear in the map's coordinates")
        self.a = tuple(sp.sympify(lin[0][b]) for b in tau.coords)
        self.sym = sym
        self.key = (kind, tau.coords, tau.T, self.a)
        try:
            self.weight = DirectionWeight(kind, tau.T)
        except NoConeEnclosure as exc:
            raise NoEnclosure(str(exc)) from exc
        self._points = PointMemo()
        self._cells: dict = {}

    def _mi(self, t0: arb, t1: arb) -> arb:
        # a cell's enclosure is as wide as the cell (the swept arcs): its integrals need only
        # about as many bits as the cell's width has, plus a margin (rounded to 32 bits, so
        # that the weight's cached node integrals are shared)
        bits = ctx.prec
        width = (t1 - t0).upper()
        if width > 0:
            need = 32 * ((int(-math.log2(float(width))) + 40) // 32 + 1)
            bits = min(bits, max(64, need))
        try:
            with working_precision(bits):
                h = cone_entropy_ball(self.weight, self.a, self.sym, t0, t1)
        except NoConeEnclosure as exc:
            raise NoEnclosure(str(exc)) from exc
        return arb.const_log2() - h

    def point(self, x) -> arb:
        return self._points.get(x, lambda x: self._mi(arb_of(x), arb_of(x)))

    def _enclose(self, cell: Cell, der: bool):
        if cell.is_point:
            return to_ix(self.point(cell.lo))
        t0, t1 = arb_of(cell.lo), arb_of(cell.hi)
        dlo = dhi = None
        if der:
            try:
                d = cone_entropy_derivative_ball(self.weight, self.a, self.sym, t0, t1)
            except NoConeEnclosure:
                d = None
            if d is not None and d.is_finite():  # d MI / dt = -dH/dt
                dlo, dhi = mpf_down(-d.upper()), mpf_up(-d.lower())
        return to_ix(self._mi(t0, t1), dlo, dhi)
