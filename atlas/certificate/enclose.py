r"""Rigorous enclosures of a scenario's inputs over a cell of the swept parameter: the leaves of
the atlas certificate's interval world (:mod:`fstheory.atlas.certificate.interval`).

Every quantity (h(V_i), MI(C, V_i), MI(V_i, V_j)) of a sweep becomes a *leaf*, one per distinct
function of the swept parameter t (MI(C, X) and MI(C, 3X+1) share one), enclosed over a
:class:`Cell` with python-flint's arb balls (every rounding error bounded):

structure
    0 (identically: the exact world's exact zero) or +inf.
constants
    closed forms without t: evaluated as arb balls by the project's one compiler
    (:func:`fstheory.theory.arbexpr.arb_of`: integrals over finite ranges by ``acb.integral``,
    the integrals of MI(Y^2, X-Y) in Scenarios II and III, singular at an end or over the half
    line, with the proved end bounds of :mod:`fstheory.theory.special_integrals`); the
    skew-normal expectations by :func:`fstheory.theory.skew_normal.skew_normal_mi_ball`.
:class:`GenericLeaf`
    an elementary closed form in t (entropies over delta or sigma; ln 2 - k/2): the expression
    and its derivative evaluated on the cell as a ball (a valid, if wide, enclosure). Where the
    derivative's enclosure excludes 0 the value's range is the hull of the two end values,
    strict at an end that is excluded from the cell.
:class:`UniformClassLeaf`
    Scenario I's MI(C_k, Y) and MI(C_k, X-Y), 0/0 at k = 0 and with ln(1-k) at k = 1. Both are
    power series with the signs below (docs/atlas.md proves them), so on [0, 1] each value and
    each derivative is monotone, and the range over a cell is the hull of the end values:

    * MI(C_k, Y) = sum_{n odd >= 3} k^(n-1) / (n (n-1) (n-2)): increasing and convex;
    * 4 MI(C_k, X-Y) = 1 - 3k/2 + sum_{j >= 2} 2 k^j / ((j-1) j (j+1)): decreasing and convex
      (its derivative rises to 0 at k = 1).

    Point values: the series (:mod:`fstheory.theory.uniform_class`) with a geometric tail bound
    for k <= 1/2, the closed form in arb above, the limits at k = 1.
:class:`SkewNormalLeaf`
    Scenario II's MI(C, V) = F(|lambda(t)|) with F(mu) = E[ln 2 Phi(mu A)], A ~ SN(0, 1, mu),
    strictly increasing in mu >= 0 (docs/atlas.md), and |lambda(t)| monotone between its
    critical points (found exactly with sympy). The range over a cell is the hull of F at the
    ends (and at a critical point inside); F(0) = 0 and F(+inf) = ln 2 exactly. The derivative
    F'(mu) |lambda|'(t) uses F' over the cell's range of mu as one certified integral with mu a
    ball (F and F' are in :mod:`fstheory.theory.skew_normal`).

A value that cannot be enclosed (a numerical-route value, an integral over an infinite range
that is not a skew-normal expectation) raises :class:`NoEnclosure` with the reason: the
certificate then does not apply.

Examples
--------
>>> import sympy as sp
>>> k = sp.Symbol("k", positive=True)
>>> with working_precision(80):
...     b = skew_normal_mi_ball(arb_of(sp.Rational(1, 5)))
>>> b.overlaps(arb("0.012395307153215386090698424")), b.rad() < 1e-20
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb, ctx

from fstheory.atlas.certificate.interval import IX
from fstheory.atlas.numbers import man_exp
from fstheory.theory.arbexpr import NoEnclosure, arb_from_mpf, arb_of
from fstheory.theory.quadrature import flint_precision as working_precision
from fstheory.theory.skew_normal import (skew_normal_argument, skew_normal_mi_ball,
                                         skew_normal_mi_derivative_ball,
                                         skew_normal_mi_pole_slope_ball)
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.uniform_class import uniform_series

__all__ = ["Cell", "NoEnclosure", "arb_of", "arb_from_mpf", "to_ix", "mpf_down", "mpf_up", "hull",
           "monotone_ix", "PointMemo", "working_precision", "skew_normal_mi_ball",
           "skew_normal_mi_derivative_ball", "skew_normal_mi_pole_slope_ball", "uniform_series",
           "Leaf", "ConstLeaf", "GenericLeaf", "UniformClassLeaf", "SkewNormalLeaf",
           "CellMemoLeaf", "skew_normal_argument"]


@dataclass(frozen=True)
class Cell:
    """[lo, hi] in the swept parameter (mpf or exact sympy numbers); ``open_lo``/``open_hi``
    exclude an end (a special point whose own values differ). ``lo is hi`` (or equal) for a
    point."""

    lo: object
    hi: object
    open_lo: bool = False
    open_hi: bool = False

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi


# ----- numbers -------------------------------------------------------------------------------------


def to_ix(a: arb, dlo=None, dhi=None, slo=False, shi=False) -> IX:
    """An arb ball as an IX enclosure (ends rounded outward at mpmath's precision)."""
    if not a.is_finite():
        raise NoEnclosure("a ball is not finite")
    lo = mpf_down(a.lower())
    hi = mpf_up(a.upper())
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


def _mpf_round(x: arb, rnd: str) -> mpmath.mpf:
    man, exp = x.mid().man_exp()
    return mpmath.mpf(mpmath.libmp.from_man_exp(int(man), int(exp), mpmath.mp.prec, rnd))


def mpf_down(x: arb) -> mpmath.mpf:
    return _mpf_round(x, "f")


def mpf_up(x: arb) -> mpmath.mpf:
    return _mpf_round(x, "c")


def hull(balls) -> arb:
    """A ball containing every ball of ``balls``."""
    out = None
    for b in balls:
        out = b if out is None else out.union(b)
    return out


def _inf_ix(sign: int, strict: bool) -> tuple:
    return (mpmath.inf if sign > 0 else -mpmath.inf), strict


# ----- leaves --------------------------------------------------------------------------------------


class Leaf:
    """An input function of the swept parameter, enclosed over cells (values memoised)."""

    def enclose(self, cell: Cell, der: bool) -> IX:
        raise NotImplementedError

    def exact(self, x) -> sp.Expr:
        """The exact value at a special point (sympy; limits at the ends of the range), used to
        recognise exact ties there."""
        raise NoEnclosure("no exact value")

    def direction(self, cell: Cell) -> int | None:
        """+1 (-1) if the leaf is proved strictly increasing (decreasing) on the cell, else
        None."""
        return None


class ConstLeaf(Leaf):
    """A value that does not depend on the swept parameter (derivative 0)."""

    def __init__(self, value, exact=None):
        self._value = value  # IX, or a callable giving the ball (evaluated on first use)
        self._ix = value if isinstance(value, IX) else None
        self._exact = exact

    def exact(self, x) -> sp.Expr:
        if self._exact is None:
            raise NoEnclosure("no exact value")
        return self._exact

    def enclose(self, cell: Cell, der: bool) -> IX:
        if self._ix is None:
            ball = self._value()
            z = mpmath.mpf(0)
            self._ix = to_ix(ball, z, z)
        return self._ix


class PointMemo:
    """Values of a function at points (mpf or exact), kept per point and working precision."""

    def __init__(self):
        self._memo: dict = {}

    def key(self, x):
        return (man_exp(x), ctx.prec) if isinstance(x, mpmath.mpf) else (sp.srepr(x), ctx.prec)

    def get(self, x, fn):
        key = self.key(x)
        if key not in self._memo:
            if len(self._memo) > 20000:
                self._memo.clear()
            self._memo[key] = fn(x)
        return self._memo[key]


def monotone_ix(vals: list, ends_open: tuple, direction: int | None, dlo=None, dhi=None) -> IX:
    """The hull of end values of a function monotone on the cell (``direction`` +1 increasing,
    -1 decreasing, strictly; None: not strict) with strictness at excluded ends. ``vals`` are
    (ball or "+inf"/"-inf"/"zero") at (lo, hi)."""
    lo_v, hi_v = vals
    open_lo, open_hi = ends_open
    if direction is None:
        left, right = lo_v, hi_v
        slo = shi = False
    elif direction > 0:
        left, right, slo, shi = lo_v, hi_v, open_lo, open_hi
    else:
        left, right, slo, shi = hi_v, lo_v, open_hi, open_lo
    lo = mpf_down(left.lower()) if isinstance(left, arb) else (-mpmath.inf if left == "-inf" else mpmath.mpf(0))
    hi = mpf_up(right.upper()) if isinstance(right, arb) else (mpmath.inf if right == "+inf" else mpmath.mpf(0))
    if direction is None:
        lo2 = mpf_down(right.lower()) if isinstance(right, arb) else lo
        hi2 = mpf_up(left.upper()) if isinstance(left, arb) else hi
        lo, hi = min(lo, lo2), max(hi, hi2)
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


class GenericLeaf(Leaf):
    """An elementary closed form ``expr`` in the swept symbol ``sym`` (see the module docstring).

    ``exact_at(x)`` gives the exact sympy value at a special point (limits at the ends of a
    parameter's range), so that a value exactly 0 there is the exact world's exact zero.
    """

    def __init__(self, expr: sp.Expr, sym: sp.Symbol, exact_at):
        self.expr, self.sym = expr, sym
        self.dexpr = sp.diff(expr, sym)
        self.exact_at = exact_at
        self._points = PointMemo()

    def _ball(self, e, x: arb) -> arb:
        return arb_of(e, {self.sym: x})

    def exact(self, x) -> sp.Expr:
        return self.exact_at(x)

    def point(self, x):
        def fn(x):
            if not isinstance(x, mpmath.mpf):
                v = self.exact_at(x)
                if v == sp.oo:
                    return "+inf"
                if v == -sp.oo:
                    return "-inf"
                from fstheory.theory.symbolic import is_exact_zero

                if is_exact_zero(v):
                    return "zero"
                return arb_of(v)
            return self._ball(self.expr, arb_of(x))
        return self._points.get(x, fn)

    def direction(self, cell: Cell) -> int | None:
        d = self._ball(self.dexpr, hull([arb_of(cell.lo), arb_of(cell.hi)]))
        if d.is_finite() and d.lower() > 0:
            return 1
        if d.is_finite() and d.upper() < 0:
            return -1
        return None

    def enclose(self, cell: Cell, der: bool) -> IX:
        if cell.is_point:
            v = self.point(cell.lo)
            if v == "zero":
                return IX.ZERO
            if v in ("+inf", "-inf"):
                return IX.POS_INF if v == "+inf" else IX.NEG_INF
            d = self._ball(self.dexpr, arb_of(cell.lo)) if der else None
            if d is not None and d.is_finite():
                return to_ix(v, mpf_down(d.lower()), mpf_up(d.upper()))
            return to_ix(v)
        a, b = arb_of(cell.lo), arb_of(cell.hi)
        ball = hull([a, b])
        d = self._ball(self.dexpr, ball)
        if d.is_finite() and (d.lower() > 0 or d.upper() < 0):
            direction = 1 if d.lower() > 0 else -1
            vals = [self.point(cell.lo), self.point(cell.hi)]
            if any(isinstance(v, str) and v != "zero" for v in vals):
                raise NoEnclosure("an infinite end value")
            vals = [arb(0) if v == "zero" else v for v in vals]
            return monotone_ix(vals, (cell.open_lo, cell.open_hi), direction,
                                mpf_down(d.lower()), mpf_up(d.upper()))
        v = self._ball(self.expr, ball)
        if not v.is_finite():
            return IX.undecided("the closed form is not enclosed on the cell")
        if d.is_finite():
            return to_ix(v, mpf_down(d.lower()), mpf_up(d.upper()))
        return to_ix(v)


class UniformClassLeaf(Leaf):
    """Scenario I's MI(C_k, Y) or MI(C_k, X-Y) (``which`` "Y" or "X-Y"), monotone with monotone
    derivative on [0, 1] (module docstring)."""

    LIMITS = {"Y": ((0, 0), (None, Fraction(1, 2))), "X-Y": ((Fraction(1, 4), Fraction(-3, 8)),
                                                              (0, 0))}

    def __init__(self, which: str, expr: sp.Expr, sym: sp.Symbol):
        self.which, self.expr, self.sym = which, expr, sym
        self.dexpr = sp.diff(expr, sym)
        self.way = 1 if which == "Y" else -1
        self._points = PointMemo()

    def exact(self, x) -> sp.Expr:
        from fstheory.theory.symbolic import exact_value

        return exact_value(self.expr, {self.sym: x}, {self.sym: "+" if x == 0 else "-"})

    def direction(self, cell: Cell) -> int | None:
        return self.way

    def _value(self, x, derivative: bool):
        xs = exact_nsimplify(x) if not isinstance(x, mpmath.mpf) else None
        if xs is not None and xs in (0, 1):
            v = self.LIMITS[self.which][int(xs)][1 if derivative else 0]
            if v is None:  # MI(C_1, Y) = ln 2 - 1/2
                return arb(2).log() - arb(1) / 2
            return "zero" if v == 0 and not derivative else arb(v.numerator) / v.denominator
        k = arb_of(x)
        if k.upper() <= arb(1) / 2:
            return uniform_series(self.which, k, derivative)
        return arb_of(self.dexpr if derivative else self.expr, {self.sym: k})

    def point(self, x, derivative: bool = False):
        return self._points.get(x, lambda x: (self._value(x, False), self._value(x, True)))[
            1 if derivative else 0]

    def enclose(self, cell: Cell, der: bool) -> IX:
        if cell.is_point:
            v, d = self.point(cell.lo), self.point(cell.lo, True)
            if v == "zero":
                return IX.ZERO
            return to_ix(v, mpf_down(d.lower()), mpf_up(d.upper()))
        vals = [self.point(cell.lo), self.point(cell.hi)]
        vals = [arb(0) if v == "zero" else v for v in vals]
        ders = [self.point(cell.lo, True), self.point(cell.hi, True)]
        d = hull(ders)
        return monotone_ix(vals, (cell.open_lo, cell.open_hi), self.way,
                            mpf_down(d.lower()), mpf_up(d.upper()))


class CellMemoLeaf(Leaf):
    """A leaf whose enclosures are kept per cell and precision (every pair of candidates asks
    again on the same cell): subclasses set ``self._cells = {}`` and implement ``_enclose``."""

    def enclose(self, cell: Cell, der: bool) -> IX:
        key = (cell, der, ctx.prec)
        if key not in self._cells:
            if len(self._cells) > 20000:
                self._cells.clear()
            self._cells[key] = self._enclose(cell, der)
        return self._cells[key]

    def _enclose(self, cell: Cell, der: bool) -> IX:
        raise NotImplementedError


class SkewNormalLeaf(CellMemoLeaf):
    """Scenario II's MI(C, V) = F(mu(t)), mu = |lambda(t)| = sqrt(mu2(t)) (module docstring)."""

    def __init__(self, mu: sp.Expr, sym: sp.Symbol, lo, hi, exact_at):
        self.sym = sym
        self.mu2 = sp.simplify(mu**2)
        self.mu = sp.sqrt(self.mu2)
        self.dmu = sp.diff(self.mu2, sym) / (2 * self.mu)
        # s = 1/mu and ds/dt for t > 0 (next to a pole of mu, where mu' is unbounded but
        # dF/dt = -L(s) ds/dt is not: _der_near_pole)
        tp = sp.Dummy("tp", positive=True)
        s_pos = sp.sqrt(sp.cancel(1 / self.mu2)).subs(sym, tp)
        self.ds_pos = sp.simplify(sp.diff(s_pos, tp)).subs(tp, sym)
        self.exact_at = exact_at
        # |lambda| is monotone between the zeros of (mu^2)', of mu^2 (a kink of |lambda|) and of
        # its denominator (a pole, where F = ln 2): those are the critical points
        crit = set()
        d2, m2 = sp.together(sp.diff(self.mu2, sym)), sp.together(self.mu2)
        for e in (sp.numer(d2), sp.numer(m2), sp.denom(m2)):
            sol = sp.solveset(e, sym, sp.Interval.open(lo, hi))
            if sol is sp.S.EmptySet:
                continue
            if not isinstance(sol, sp.FiniteSet):
                raise NoEnclosure(f"the monotone pieces of |lambda| = {self.mu} were not found "
                                  "exactly")
            crit |= set(sol)
        self.critical = sorted(crit, key=lambda c: float(c))
        self._points = PointMemo()
        self._cells: dict = {}

    def exact(self, x) -> sp.Expr:
        from fstheory.theory.law_algebra import skew_normal_mi

        mu2 = self.exact_at(self.mu2, x)
        if mu2 == sp.oo:
            return sp.log(2)
        return skew_normal_mi(sp.sqrt(mu2))

    def _mu_at(self, x):
        """|lambda| at a cell end: a ball, or "+inf" at a pole."""
        if not isinstance(x, mpmath.mpf):
            lim = self.exact_at(self.mu2, x)
            if lim == sp.oo:
                return "+inf"
            return arb_of(sp.sqrt(lim))
        v = arb_of(self.mu, {self.sym: arb_of(x)})
        if not v.is_finite():
            raise NoEnclosure("|lambda| is not finite at an interior point")
        return v

    def point(self, x):
        def fn(x):
            mu = self._mu_at(x)
            if mu == "+inf":
                return arb(2).log()
            if mu.is_zero():
                return "zero"
            return skew_normal_mi_ball(mu)
        return self._points.get(x, fn)

    def _mu_range(self, cell: Cell):
        ends = [self._mu_at(cell.lo), self._mu_at(cell.hi)]
        return ends

    def _enclose(self, cell: Cell, der: bool) -> IX:
        if cell.is_point:
            v = self.point(cell.lo)
            if v == "zero":
                return IX.ZERO
            dl = dh = None
            if der and isinstance(cell.lo, mpmath.mpf):
                d = self._der(cell, [self._mu_at(cell.lo)])
                if d is not None:
                    dl, dh = d
            return to_ix(v, dl, dh)
        inside = [c for c in self.critical if _lt(cell.lo, c) and _lt(c, cell.hi)]
        pts = [cell.lo] + inside + [cell.hi]
        vals = [self.point(p) for p in pts]
        vals = [arb(0) if v == "zero" else v for v in vals]
        dl = dh = None
        if der:
            d = self._der(cell, [self._mu_at(p) for p in pts])
            if d is not None:
                dl, dh = d
        direction = None if inside else self.direction(cell)
        if direction is None:
            return to_ix(hull(vals), dl, dh)
        return monotone_ix(vals, (cell.open_lo, cell.open_hi), direction, dl, dh)

    def direction(self, cell: Cell) -> int | None:
        """F is strictly increasing in mu and mu is monotone between the critical points: the
        direction is that of mu from one end of the cell to the other."""
        if any(_lt(cell.lo, c) and _lt(c, cell.hi) for c in self.critical):
            return None
        m0, m1 = self._mu_at(cell.lo), self._mu_at(cell.hi)
        if m0 == "+inf":
            return -1
        if m1 == "+inf" or m1.lower() > m0.upper():
            return 1
        if m0.lower() > m1.upper():
            return -1
        return None

    def _der(self, cell: Cell, mus):
        """Enclosure of d/dt F(mu(t)) over the cell: F'(mu range) * mu'(t range)."""
        if any(m == "+inf" for m in mus):
            return self._der_near_pole(cell, mus)
        mu_ball = hull(mus)
        if mu_ball.lower() < 0:  # |lambda| >= 0: F' (0 at mu = 0) on [0, upper]
            mu_ball = arb(0).union(mu_ball.upper())
        t = hull([arb_of(cell.lo), arb_of(cell.hi)])
        with working_precision(max(64, ctx.prec // 2)):
            try:
                fd = skew_normal_mi_derivative_ball(mu_ball)
            except NoEnclosure:  # too wide a ball of mu: the cell is split
                return None
        dmu = arb_of(self.dmu, {self.sym: t})
        d = fd * dmu
        if not d.is_finite():
            return None
        return mpf_down(d.lower()), mpf_up(d.upper())

    def _der_near_pole(self, cell: Cell, mus):
        """d/dt F(mu(t)) on a cell in t > 0 that ends at a pole of mu (mu -> +inf there): with
        s = 1/mu, F'(mu) = s^2 L(s) (:func:`skew_normal_mi_pole_slope_ball`) and
        mu' = -s'/s^2, so dF/dt = -L(s) s'(t), where L is finite and decreasing in s: over the
        cell L(s) lies in [L(s_max), L(0)], s_max = 1/(least mu at the cell's ends), since mu is
        monotone on the cell (no critical point inside). For mu = 1/k (MI(C, X) of Scenario II)
        s' = 1 and dF/dk -> -L(0) = -0.72065... as k -> 0."""
        if _lt(cell.lo, 0) or any(_lt(cell.lo, c) and _lt(c, cell.hi) for c in self.critical):
            return None
        finite = [m for m in mus if m != "+inf"]
        if not finite:
            return None
        m_min = hull(finite)
        if m_min.lower() <= 0:
            return None
        s_max = (1 / m_min).upper()
        t = hull([arb_of(cell.lo), arb_of(cell.hi)])
        with working_precision(max(64, ctx.prec // 2)):
            slope = skew_normal_mi_pole_slope_ball(arb(0)).union(
                skew_normal_mi_pole_slope_ball(s_max))
        try:
            ds = arb_of(self.ds_pos, {self.sym: t})
        except (NoEnclosure, ValueError, TypeError, ZeroDivisionError):
            return None
        d = -slope * ds
        if not d.is_finite():
            return None
        return mpf_down(d.lower()), mpf_up(d.upper())


def _lt(a, b) -> bool:
    return float(a) < float(b) if not (isinstance(a, mpmath.mpf) and isinstance(b, mpmath.mpf)) \
        else a < b
