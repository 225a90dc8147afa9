r"""The leaves of the atlas certificate: every input of a sweep's values as a function of the
swept parameter with an enclosure over a cell (:mod:`fstheory.atlas.certificate.enclose`), and
the tables naming them by symbols so that equal functions cancel exactly.

One :class:`Leaves` serves every method row swept over the same values and range
(:func:`leaves_of` keeps it with the values, keyed by the range): it reads only the values, the
scenario, the swept parameter and the range, never a method row. What it builds on first use --
the joint leaves of the 3-D methods (:meth:`Leaves.joint`), the zeros of their divisors
(``poles``, :func:`fstheory.atlas.poles.divisor_zeros`), the symmetry classes at a special point
(``symmetry_memo``, :mod:`fstheory.atlas.certificate.symmetry`) -- is a function of those alone.

How the leaves are chosen
-------------------------
* a quantity that is 0 or +inf by structure is a constant leaf;
* a closed form that varies is one leaf per function (the derivation itself names it), with
  the skew-normal, Scenario I's class and generic elementary leaves
  (:class:`~fstheory.atlas.certificate.enclose.SkewNormalLeaf`, ``UniformClassLeaf``,
  ``GenericLeaf``);
* a closed form that does not vary is one leaf per exact value, so that equal constants
  cancel (h(X-Y) - MI(X, X-Y) = 1/2 - 1/2 in Scenario I);
* Scenario III's numerical MI(C, V) are the Laplace class leaves
  (:mod:`fstheory.atlas.certificate.laplace`); any other numerical-route input that does not
  vary is the engine's proved ball at the reference point; one that varies has no enclosure
  (:class:`~fstheory.atlas.certificate.enclose.NoEnclosure`, naming it).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import (Cell, ConstLeaf, GenericLeaf, NoEnclosure,
                                              SkewNormalLeaf, UniformClassLeaf, arb_from_mpf, arb_of,
                                              skew_normal_argument, skew_normal_mi_ball, working_precision)
from fstheory.atlas.certificate.interval import IX, SYM_INF, IntervalOps, SymbolicOps
from fstheory.atlas.certificate.joint import JointLeaves
from fstheory.atlas.certificate.laplace import class_mi_expression, laplace_leaf, recognise
from fstheory.atlas.certificate.points import fraction, ix_end
from fstheory.atlas.certificate.views import IntervalView
from fstheory.scenarios.domains import DOMAINS
from fstheory.theory.symbolic import GUARD_DIGITS, exact_value, is_exact_zero

__all__ = ["Leaves", "leaves_of"]


def leaves_of(sweep) -> "Leaves":
    """The :class:`Leaves` of ``sweep``'s values and range, built once and kept with the values
    (shared by every method row over them); raises NoEnclosure naming the inputs without one."""
    key = (sweep.spec.lo, sweep.spec.hi)
    hit = sweep.pv.leaves.get(key)
    if hit is None:
        hit = sweep.pv.leaves[key] = Leaves(sweep)
    return hit


def working_bits(digits: int) -> int:
    """The binary precision of the enclosures for ``digits`` printed digits."""
    return int((digits + GUARD_DIGITS) * 3.33) + 16


class Leaves:
    """The leaves of a sweep's values over its range and their symbols (see the module
    docstring): ``leaf`` and ``symbol`` map each quantity to its leaf and symbol,
    ``leaf_by_symbol`` each symbol to its leaf, ``constant_symbols`` the symbols of constant
    leaves; ``notes`` the assumptions a certificate over them states."""

    def __init__(self, sw):
        """The leaves of ``sw``'s values over its range (read from the sweep: its values,
        scenario, swept parameter and range, nothing of its method row)."""
        pv = self.pv = sw.pv
        self.scenario = sw.scenario
        self.param = sw.param
        self.labels = pv.labels
        self.lo_text, self.hi_text = sw.spec.lo, sw.spec.hi
        self.digits = sw.spec.digits
        self.bits = working_bits(self.digits)
        self.on_beta = sw.on_beta
        self.t = None if self.on_beta else pv.symbols[sw.param]
        self.beta_sym = sp.Symbol("beta") if self.on_beta else None
        self.notes: list[str] = []
        n = len(pv.labels)
        self.leaf: dict = {}
        self.symbol: dict = {}
        by_key: dict = {}
        lo, hi = sp.Rational(sw.spec.lo), sp.Rational(sw.spec.hi)
        missing: list = []  # every input without an enclosure, with the reason
        with working_precision(self.bits), mpmath.workprec(self.bits):
            qs = [("h", i) for i in range(n)] + [("mi_c", i) for i in range(n)] + [
                ("mi", i, j) for i in range(n) for j in range(i + 1, n)]
            for q in qs:
                d = pv._derivations[q]
                label = pv.quantity_label(q)
                if d.kind == "structure":
                    self.leaf[q] = ConstLeaf(IX.POS_INF if d.expr == sp.oo else IX.ZERO)
                    self.symbol[q] = SYM_INF if d.expr == sp.oo else sp.Integer(0)
                    continue
                varying = q in pv.varying
                if d.kind != "closed":
                    try:
                        key = self._laplace_key(q, label)
                    except NoEnclosure as exc:
                        if varying:
                            missing.append(str(exc))
                            continue
                        # constant over the range: the engine's proved ball at the reference
                        # point encloses it on every cell
                        key = ("constant", d.key())
                        if key not in by_key:
                            by_key[key] = (self._reference_leaf(q, label, missing),
                                           sp.Symbol(f"L{len(by_key)}"), [])
                        self.leaf[q], self.symbol[q], names = by_key[key]
                        names.append(label)
                        continue
                else:
                    # the derivation itself (with every parameter) names the function: after
                    # substitution two 0/0 forms at k = 1 would both read nan; structural, as
                    # srepr would evalf the integrals
                    key = (varying, sp.sympify(d.expr))
                if not varying and d.kind == "closed":
                    # constants with the same exact value are one leaf, so that they cancel
                    # exactly (h(X-Y) - MI(X, X-Y) = 1/2 - 1/2 in Scenario I)
                    value = self._constant_value(q)
                    if value is not None:
                        key = (False, "value", value)
                if key not in by_key:
                    names: list = []  # every quantity that is this function (for the notes)
                    by_key[key] = (self._make_leaf(q, varying, lo, hi, names),
                                   sp.Symbol(f"L{len(by_key)}"), names)
                self.leaf[q], self.symbol[q], names = by_key[key]
                names.append(label)
            if missing:
                raise NoEnclosure("; ".join(missing))
            self.leaf_by_symbol = {s: self.leaf[q] for q, s in self.symbol.items()
                                   if isinstance(s, sp.Symbol)}
            self.constant_symbols = {s for s, leaf in self.leaf_by_symbol.items()
                                     if isinstance(leaf, ConstLeaf)}
            for i in range(n):  # diagonal MI(Vi, Vi) = +inf
                self.leaf[("mi", i, i)] = ConstLeaf(IX.POS_INF)
                self.symbol[("mi", i, i)] = SYM_INF
        self.poles = None  # the zeros of the H(V_i,V_j,C), for atlas_poles.divisor_zeros
        self.symmetry_memo: dict = {}  # special point -> classes of leaves (symmetry_at)
        self._joint: JointLeaves | NoEnclosure | None = None

    def joint(self) -> "JointLeaves":
        """The leaves of the joint quantities (built on first use; raises NoEnclosure)."""
        if self._joint is None:
            try:
                with working_precision(self.bits), mpmath.workprec(self.bits):
                    self._joint = JointLeaves(self)
            except NoEnclosure as exc:
                self._joint = exc
        if isinstance(self._joint, NoEnclosure):
            raise self._joint
        return self._joint

    # ----- leaves ----------------------------------------------------------------------------
    def dirs(self, at: dict) -> dict:
        """The side each parameter at ``at`` is approached from (its domain's open end)."""
        dirs = {}
        for name, sym in self.scenario.symbols.items():
            side = DOMAINS[self.scenario.parameter(name).domain].side(at[sym]) \
                if sym in at else None
            if side is not None:
                dirs[sym] = side
        return dirs

    def _fixed(self) -> dict:
        pv = self.pv
        return {self.scenario.symbols[n]: v for n, v in pv.reference_bound.params.items()
                if n not in pv.vary}

    def _constant_value(self, q):
        """The exact value of a constant quantity when it is a closed number (else None)."""
        fixed = self._fixed()
        try:
            value = exact_value(sp.sympify(self.pv._derivations[q].expr), fixed,
                                self.dirs(fixed))
        except (ValueError, TypeError, NotImplementedError):
            return None
        if value.free_symbols or value.has(sp.Integral, sp.Float) or not value.is_finite:
            return None
        return sp.simplify(sp.expand_log(value, force=True))

    def _laplace(self, q):
        """(which, k) of :func:`fstheory.atlas.certificate.laplace.recognise` for a numerical
        MI(C, V), else None."""
        if q[0] != "mi_c":
            return None
        sc = self.scenario
        return recognise(sc, self._fixed(), sc.features[q[1]].expr, self.t)

    def _laplace_key(self, q, label: str):
        """The leaf key of a numerical-route quantity that Scenario III's leaves enclose: one
        per function of k (MI(C, X) = MI(C, 3X+1)), one per value when k is fixed."""
        found = self._laplace(q)
        if found is None:
            raise NoEnclosure(f"{label} comes from the numerical route (no rigorous enclosure)")
        if isinstance(found[1], sp.Symbol):
            return ("laplace",) + found
        return (False, "value", class_mi_expression(*found))

    def _make_leaf(self, q, varying: bool, lo, hi, names: list):
        pv = self.pv
        d = pv._derivations[q]
        if d.kind != "closed":
            return laplace_leaf(*self._laplace(q))
        raw = sp.sympify(d.expr)
        fixed = self._fixed()
        if not varying:
            if self.t in raw.free_symbols:
                # proved not to vary, yet written with the swept symbol (MI(Y^2, X-Y) over sigma:
                # log(4 e pi sigma^2)/2 - log(2 e pi sigma^2)/2 + ...): its value anywhere in the
                # range, here at the middle
                fixed = {**fixed, self.t: (lo + hi) / 2}
            mu = skew_normal_argument(raw)
            if mu is not None:
                m = exact_value(mu, fixed, self.dirs(fixed))
                if m == sp.oo or m == sp.zoo:
                        return ConstLeaf(lambda: arb_of(sp.log(2)), sp.log(2))
                if is_exact_zero(m):
                    return ConstLeaf(IX.ZERO, sp.Integer(0))
                from fstheory.theory.law_algebra import skew_normal_mi

                return ConstLeaf(lambda m=m: skew_normal_mi_ball(arb_of(m)), skew_normal_mi(m))
            value = exact_value(raw, fixed, self.dirs(fixed))
            if value == sp.oo:
                return ConstLeaf(IX.POS_INF)
            if is_exact_zero(value):
                return ConstLeaf(IX.ZERO, sp.Integer(0))
            try:
                arb_of(value)
                return ConstLeaf(lambda v=value: arb_of(v), value)
            except NoEnclosure:
                return ConstLeaf(lambda q=q: self._numerical_constant(q, " = ".join(names)),
                                 value)
        expr = pv.closed_form(q)
        t = self.t

        def exact_at(e, x=None):
            if x is None:  # exact_at(x) for the value itself
                e, x = expr, e
            at = {**fixed, t: x}
            return exact_value(e.subs(fixed), {t: x}, self.dirs(at))

        mu = skew_normal_argument(expr)
        if mu is not None:
            return SkewNormalLeaf(mu, t, lo, hi, lambda e, x: exact_at(e, x))
        from fstheory.scenarios import uniform
        from fstheory.scenarios.symbols import X, Y

        for which, form in (("Y", uniform.MI_CLASS[Y]), ("X-Y", uniform.MI_CLASS[X - Y])):
            if expr == form and t.name == "k":
                return UniformClassLeaf(which, expr, t)
        return GenericLeaf(expr, t, lambda x: exact_at(x))

    def _reference_leaf(self, q, label: str, missing: list) -> ConstLeaf:
        """A numerical-route quantity that does not vary over the range: its value at the
        reference point as the engine proved it (exact, or a ball with a rigorous radius); an
        estimate or a refusal there leaves it without an enclosure (said in ``missing``)."""
        v = self.pv.reference
        x = {"h": v.h, "mi_c": v.mi_c, "mi": v.mi}[q[0]](*q[1:])
        if x.is_pos_inf:
            return ConstLeaf(IX.POS_INF)
        if x.is_neg_inf:
            return ConstLeaf(IX.NEG_INF)
        if not x.is_finite:
            missing.append(f"{label} is not proved ({x.cause})")
            return ConstLeaf(IX.ZERO)
        if x.is_zero and x.enclosure().exact:
            return ConstLeaf(IX.ZERO, sp.Integer(0))
        from flint import arb

        from fstheory.theory.arbexpr import arb_from_mpf

        e = x.enclosure()
        return ConstLeaf(lambda: arb(arb_from_mpf(e.mid), arb_from_mpf(e.radius)))

    def _numerical_constant(self, q, label):
        """A constant whose closed form arb cannot enclose (an integral whose integrand is
        singular at an end of its range, other than those of
        :mod:`fstheory.theory.special_integrals`): the engine's value (tanh-sinh quadrature at
        digits + GUARD_DIGITS) with a radius 10^-(digits + GUARD_DIGITS/2) relative, an
        assumption the certificate states. No built-in scenario reaches it today."""
        from flint import arb

        v = self.pv.reference
        x = {"h": v.h, "mi_c": v.mi_c, "mi": v.mi}[q[0]](*q[1:]).value
        e = self.digits + GUARD_DIGITS // 2
        note = (f"{label} = {mpmath.nstr(x, 12)} is taken from its quadrature to within "
                f"10^-{e} relative (not enclosed by ball arithmetic)")
        if note not in self.notes:
            self.notes.append(note)
        r = abs(x) * mpmath.mpf(10) ** -e

        return arb(arb_from_mpf(x), arb_from_mpf(r))

    def leaf_ix(self, q, cell: Cell, der: bool) -> IX:
        if q[0] == "mi" and q[1] == q[2]:
            return IX.POS_INF
        return self.leaf[q].enclose(cell, der)

    def closed_forms(self, symbols) -> dict | None:
        """Leaf symbol -> its closed form in the swept symbol (None if one has none)."""
        out = {}
        for s in symbols:
            leaf = self.leaf_by_symbol.get(s)
            if isinstance(leaf, ConstLeaf):
                try:
                    out[s] = leaf.exact(None)
                except NoEnclosure:
                    return None
            elif isinstance(leaf, (GenericLeaf, UniformClassLeaf)):
                out[s] = leaf.expr
            else:
                return None
        return out

    # ----- one cell ----------------------------------------------------------------------------
    def beta_ops(self, cell: Cell, beta):
        """(ops, symbolic ops, beta value for the method) for a cell; ``beta``: the row's fixed
        beta (a beta sweep reads it from the cell)."""
        if not self.on_beta:
            return IntervalOps(), SymbolicOps(), beta
        if cell.is_point:
            x = cell.lo
            b = Fraction(int(sp.Rational(x).p), int(sp.Rational(x).q)) if not isinstance(
                x, mpmath.mpf) else fraction(x)
            return IntervalOps(), SymbolicOps(), b
        lo, hi = ix_end(cell.lo, "d"), ix_end(cell.hi, "u")
        bix = IX("finite", lo, hi, cell.open_lo, cell.open_hi, False, mpmath.mpf(1),
                 mpmath.mpf(1))
        mid = fraction((lo + hi) / 2)
        return IntervalOps(bix), SymbolicOps(self.beta_sym), mid

    def inputs_for(self, expr, cell: Cell, der: bool, beta=None) -> dict:
        """Leaf symbol -> its enclosure on ``cell`` for each symbol of ``expr`` (and beta's, in a
        beta sweep; ``beta``: the row's fixed beta otherwise)."""
        view = IntervalView(self, cell, der)
        inv = {}
        for q, s in self.symbol.items():
            if isinstance(s, sp.Symbol) and s in expr.free_symbols and s not in inv:
                inv[s] = view._q(q)
        if self.beta_sym is not None and self.beta_sym in expr.free_symbols:
            ops, _, beta = self.beta_ops(cell, beta)
            inv[self.beta_sym] = ops.beta if ops.beta is not None else IX.point(beta)
        return inv
