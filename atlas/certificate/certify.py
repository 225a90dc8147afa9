r"""What an atlas guarantees, stated with the result (``"certificate"`` in its JSON), and the
certificate itself: a proof, cell by cell, that every region's ordering holds on the whole region.

The sweep of :mod:`fstheory.atlas.sweep` is *sampled and bracketed*: special points are
evaluated exactly, the ordering is sampled on a grid, and every change between neighbouring
samples is located to ``digits`` significant digits. Two changes between the same two samples
that restore the ordering, or a change within 10^-(digits/2) of a special point, would not be
seen. :func:`certify` closes that gap wherever every input has a rigorous enclosure
(:mod:`fstheory.atlas.certificate.enclose`):

1. The range is cut at the special points (each a *point piece*, evaluated with its exact values:
   exact zeros stay exact) and at every located breakpoint, whose bracket is widened to
   ``[x0 - 40w, x1 + 40w]`` (w its width; checked < 10^-digits relative): the *certified
   bracket*.
   What lies between is an *interval piece*, open at a special point, closed at a bracket.
2. On a cell of a piece the inputs are enclosed (IX values) and the method's own objective code
   runs in the interval world (:class:`fstheory.atlas.certificate.interval.IntervalOps`), step by
   step along the region's reported ordering. At every step the reported winner w must beat
   every other remaining candidate c on the whole cell:

   * by kinds: c indeterminate on the cell, or w = +inf, or c = -inf, or both the same infinity
     with w first in the list (the exact world's tie rule); w = +inf also beats a c whose
     objective is unbounded near an open end of the cell but finite at each of its points
     (every divisor's enclosure excludes 0, or its closed form has no zero in the cell);
   * for finite values, by the enclosure of obj(w) - obj(c) > 0; failing that, by the same
     difference written as one rational function of the input functions (:class:`SymbolicOps`,
     simplified by sympy, so shared terms cancel): if it is identically 0 the two candidates
     are the same function and w must come first in the list (X and 3X+1); else its enclosure,
     and failing that its derivative's: where the derivative's enclosure excludes 0 the
     difference is monotone on the cell and its values at the two ends decide (at an end
     excluded from the cell, >= 0 suffices); a difference with min or max terms is split
     (:meth:`Certifier._split_positive`); equal exact constants are one leaf, so they cancel;
   * a tie at a special point (or at the excluded end of a cell, with the difference monotone)
     is also proved by a symmetry of the scenario there (:meth:`Certifier._symmetry_at`:
     swapping two i.i.d. base variables that leaves the class invariant);
   * a stopped region: every remaining candidate indeterminate on the whole cell.

   An undecided cell is bisected (pairs proved on a cell are not re-checked on its halves), down
   to a relative width 10^-(digits+3); a cell that is still undecided makes the result *not
   certified*, with the place and the pair.
3. Lemma (soundness): each enclosure contains every value its quantity takes on the cell (the
   leaves' lemmas in :mod:`fstheory.atlas.certificate.enclose`; interval arithmetic with outward
   rounding); so a proved comparison holds at every point of the cell, and the ordering computed
   by :func:`fstheory.orderings.greedy.select` with exact real values is the reported one on the
   whole piece. Ties: only identical functions tie exactly (a symbolic identity); everywhere
   else the certificate proves strict inequalities, so the exact world's tie band
   (10^-(digits+7)) cannot change a certified ordering outside the certified brackets.

The 3-D methods' joint inputs are leaves and identities in them
(:class:`fstheory.atlas.certificate.joint.JointLeaves`, from the structure derived with the swept
parameter symbolic); at every special point each joint quantity derived there is proved equal
to the open form's limit before the point pieces are evaluated.

Whether a certificate applies is decided by the scenario's content, never by where it was
declared (a registered scenario or a file). A numerical-route input that does not vary over the
range is a constant leaf (the engine's proved ball at the reference point). Not certifiable (the
statement says which and why): inputs from the numerical route that vary (Scenario III's
MI(C, V) are enclosed by :mod:`fstheory.atlas.certificate.laplace`; the reason names every
other one), joint inputs without an enclosure (the integrals over directions of Scenario II,
two-point probabilities of non-uniform laws: the reason names the pairs), features whose
structural points are not known exactly, a structural point inside the range
(:mod:`fstheory.atlas.structural`: that point piece is not proved, the others are), a region
that stops undecided.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import (Cell, ConstLeaf, GenericLeaf, NoEnclosure,
                                              SkewNormalLeaf, UniformClassLeaf, arb_from_mpf, arb_of,
                                              mpf_down, mpf_up,
                                              skew_normal_argument, skew_normal_mi_ball, working_precision)
from fstheory.atlas.certificate.interval import IX, SYM_INF, IntervalOps, SymbolicOps, evaluate_expr
from fstheory.atlas.certificate.joint import JointLeaves
from fstheory.atlas.certificate.laplace import class_mi_expression, laplace_leaf, recognise
from fstheory.atlas import poles as atlas_poles
from fstheory.atlas.lowstage import LOW_DIGITS
from fstheory.orderings.methods import get_method
from fstheory.scenarios.domains import DOMAINS
from fstheory.atlas.numbers import as_exact, decimal_text, man_exp
from fstheory.theory.symbolic import GUARD_DIGITS, exact_value, is_exact_zero

__all__ = ["applicable", "certify", "guarantee", "Certifier"]

#: Half-widening of a located bracket for the certificate, in bracket widths w. The ends of a
#: located bracket are decided at the working precision and can miss the exact crossing by a few
#: widths (seen: 1.4 w, MIFS over beta at k = 0.975 in Scenario II); with w <= 10^-(digits+2)
#: relative, 40 widths keep the certified bracket below 10^-digits (checked in ``run``).
WIDEN = 40

#: The largest closed form (in sympy operations) whose zeros are sought exactly.
FACTOR_OPS = 200


def guarantee(spec, reason: str | None = None) -> dict:
    """The statement of what the sampled sweep of ``spec`` guarantees (no certificate)."""
    out = {
        "certified": False,
        "method": "sampled and bracketed",
        "summary": (f"sampled and bracketed, not certified: {spec.grid} sample points over the "
                    f"range plus every special point; each change between neighbouring samples "
                    f"located to {spec.digits} significant digits; a pair of changes between two "
                    f"samples that restores the ordering, or a change within "
                    f"10^-{spec.digits // 2} of a special point, is not resolved"),
        "grid": spec.grid,
    }
    if get_method(spec.method).reads_joint and spec.digits > LOW_DIGITS:
        out["summary"] += (f"; the orderings are first decided on {LOW_DIGITS}-digit joint "
                           "values, a step only where it holds for every input within 100 times "
                           "their stated error, term by term, and otherwise at the working "
                           "digits")
    if reason:
        out["reason"] = reason
        out["summary"] += f" (no certificate: {reason})"
    return out


def applicable(sweep) -> bool:
    """Whether a certificate can be attempted (every input has an enclosure)."""
    return _why_not(sweep) is None


def _why_not(sweep) -> str | None:
    """Why no certificate applies, from what the scenario contains (never from where it was
    declared): an input without an enclosure, or features whose structural points are not
    known exactly."""
    undecided = [] if sweep.on_beta else list(sweep.pv.structural.undecided)
    if undecided:
        return "the structure of the features is not known on every cell: " + "; ".join(undecided)
    try:
        cert = _certifier(sweep)
        if sweep.method.reads_joint:
            cert.joint()
    except NoEnclosure as exc:
        return str(exc)
    return None


def _certifier(sweep) -> "Certifier":
    # the leaves are shared by every method row over the same values and range (the range
    # bounds the critical points of the skew-normal leaves): the values object keeps them
    key = (sweep.spec.lo, sweep.spec.hi)
    hit = sweep.pv.certifiers.get(key)
    if hit is None:
        hit = sweep.pv.certifiers[key] = Certifier(sweep)
    hit.sw = sweep  # the row asking: what depends on the method is memoised per row
    return hit


def certify(sweep, result, **_) -> dict:
    """The certificate of ``result`` (an :class:`~fstheory.atlas.sweep.AtlasResult` of
    ``sweep``), or the sampled statement with the reason when none applies."""
    why = _why_not(sweep)
    if why is not None:
        return guarantee(sweep.spec, why)
    return _certifier(sweep).run(result)


# ----- the certifier ---------------------------------------------------------------------------------


def _bits(digits: int) -> int:
    return int((digits + GUARD_DIGITS) * 3.33) + 16


class _View:
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
        self.cert.joint().set_symbol(T)
        return self._q(("set", T))

    def cmi_c_set(self, i, T):
        """MI(C; V_i | V_T) = MI(C; V_T+{V_i}) - MI(C; V_T) as one expression in the leaf
        symbols (equal leaves cancel exactly)."""
        T = tuple(sorted(set(int(t) for t in T)))
        if len(T) == 1:
            return self.cmi_c(i, T[0])
        joint = self.cert.joint()
        return self._set_difference(sp.expand(joint.set_symbol(tuple(sorted(T + (int(i),))))
                                              - joint.set_symbol(T)))


class _IntervalView(_View):
    """One cell's values in the interval world."""

    def __init__(self, cert: "Certifier", cell: Cell, der: bool):
        self.cert, self.cell, self.der = cert, cell, der
        self._memo: dict = {}

    def _set_difference(self, expr):
        expr = expr.xreplace({z: 0 for z in self.cert._zeros(self)})
        if expr == 0:
            return IX.ZERO
        out = evaluate_expr(expr, self.cert._leaves_for(expr, self.cell, self.der))
        if out.finite and out.lo < 0:  # a conditional mutual information is >= 0
            out = IX("finite", mpmath.mpf(0), max(out.hi, mpmath.mpf(0)), False, out.shi, False,
                     out.dlo, out.dhi)
        return out

    def _q(self, q):
        if q not in self._memo:
            self._memo[q] = self.cert.leaf_ix(q, self.cell, self.der)
        return self._memo[q]

    def _derived(self, d):
        if d not in self._memo:
            joint = self.cert.joint()
            kind = joint.kind(d)
            if kind in JointLeaves.INFINITE:
                out = JointLeaves.INFINITE[kind]
            else:
                expr = joint.expression(d, self.cert._zeros(self))
                # at a special point the exact world recognises an exact 0 (H(Z, X, C_0))
                if expr == 0 or (self.cell.is_point
                                 and self.cert._exact_zero_at(expr, self.cell.lo)):
                    out = IX.ZERO
                else:
                    out = evaluate_expr(expr, self.cert._leaves_for(expr, self.cell, self.der))
                    if d[0] in ("cmi", "given") and out.finite and out.lo < 0:
                        # a conditional mutual information is >= 0 (a divergence): the
                        # identity's terms, enclosed apart, can only lose that
                        out = IX("finite", mpmath.mpf(0), max(out.hi, mpmath.mpf(0)), False,
                                 out.shi, False, out.dlo, out.dhi)
            self._memo[d] = out
        return self._memo[d]


class _SymbolicView(_View):
    """The values as leaf symbols (0 for the leaves identically 0 on the cell)."""

    def __init__(self, cert: "Certifier", zeros: frozenset):
        self.cert, self.zeros = cert, zeros

    def _set_difference(self, expr):
        return expr.xreplace({z: 0 for z in self.zeros})

    def _q(self, q):
        sym = self.cert.symbol[q]
        if sym is SYM_INF:
            return SYM_INF
        return sp.Integer(0) if (sym == 0 or sym in self.zeros) else sym

    def _derived(self, d):
        return self.cert.joint().expression(d, self.zeros)


class Certifier:
    """The leaves of a sweep and the cell-by-cell proof (see the module docstring)."""

    def __init__(self, sw):
        self.sw = sw
        pv = sw.pv
        self.digits = sw.spec.digits
        self.bits = _bits(self.digits)
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
        self._sym_cache: dict = {}
        self._reads_h: dict = {}  # (method, reading) -> whether it divides by H(V_i,V_j,C)
        self.poles = None  # the zeros of the H(V_i,V_j,C), for atlas_poles.divisor_zeros
        self._symmetry_memo: dict = {}  # special point -> classes of leaves (_symmetry_at)
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
    def _dirs(self, at: dict) -> dict:
        dirs = {}
        for name, sym in self.sw.scenario.symbols.items():
            side = DOMAINS[self.sw.scenario.parameter(name).domain].side(at[sym]) \
                if sym in at else None
            if side is not None:
                dirs[sym] = side
        return dirs

    def _fixed(self) -> dict:
        pv = self.sw.pv
        return {self.sw.scenario.symbols[n]: v for n, v in pv.reference_bound.params.items()
                if n not in pv.vary}

    def _constant_value(self, q):
        """The exact value of a constant quantity when it is a closed number (else None)."""
        fixed = self._fixed()
        try:
            value = exact_value(sp.sympify(self.sw.pv._derivations[q].expr), fixed,
                                self._dirs(fixed))
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
        sc = self.sw.scenario
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
        pv = self.sw.pv
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
                m = exact_value(mu, fixed, self._dirs(fixed))
                if m == sp.oo or m == sp.zoo:
                        return ConstLeaf(lambda: arb_of(sp.log(2)), sp.log(2))
                if is_exact_zero(m):
                    return ConstLeaf(IX.ZERO, sp.Integer(0))
                from fstheory.theory.law_algebra import skew_normal_mi

                return ConstLeaf(lambda m=m: skew_normal_mi_ball(arb_of(m)), skew_normal_mi(m))
            value = exact_value(raw, fixed, self._dirs(fixed))
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
            return exact_value(e.subs(fixed), {t: x}, self._dirs(at))

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
        v = self.sw.pv.reference
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

        v = self.sw.pv.reference
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

    # ----- one cell ----------------------------------------------------------------------------
    def _beta_ops(self, cell: Cell):
        """(ops, symbolic ops, beta value for the method) for a cell."""
        if not self.on_beta:
            return IntervalOps(), SymbolicOps(), self.sw.spec.beta
        if cell.is_point:
            x = cell.lo
            b = Fraction(int(sp.Rational(x).p), int(sp.Rational(x).q)) if not isinstance(
                x, mpmath.mpf) else _fraction(x)
            return IntervalOps(), SymbolicOps(), b
        lo, hi = _ix_end(cell.lo, "d"), _ix_end(cell.hi, "u")
        bix = IX("finite", lo, hi, cell.open_lo, cell.open_hi, False, mpmath.mpf(1),
                 mpmath.mpf(1))
        mid = _fraction((lo + hi) / 2)
        return IntervalOps(bix), SymbolicOps(self.beta_sym), mid

    def _objective(self, ops, v, i, prefix, beta):
        m = self.sw.method
        if not prefix:
            return v.mi_c(i)
        return m.objective(ops, v, i, list(prefix), beta, reading=self.sw.spec.reading,
                           zero_beta=self.sw.spec.zero_beta, gamma=self.sw.spec.gamma)

    def _zeros(self, view: _IntervalView) -> frozenset:
        """The leaves identically 0 on the view's cell (their symbols are 0 in the symbolic
        world there)."""
        key = ("zeros",)
        if key in view._memo:
            return view._memo[key]
        out = set()
        for q, s in list(self.symbol.items()):
            if isinstance(s, sp.Symbol) and s not in out:
                x = view._q(q)
                if x.finite and x.zero:
                    out.add(s)
        view._memo[key] = frozenset(out)
        return view._memo[key]

    def _difference(self, cell, prefix, w, c, zeros, known_zero=(False, False)):
        """The simplified symbolic obj(w) - obj(c) (None: not a rational form). ``known_zero``:
        whether obj(w), obj(c) are identically 0 on the cell (an infinite input times an exact
        0 has no rational form, but its value is known)."""
        spec = self.sw.spec  # the certifier is shared by every method row of the same values
        key = (spec.method, spec.beta, spec.gamma, spec.reading, spec.zero_beta, prefix, w, c, zeros,
               known_zero, cell.is_point and self.on_beta and cell.lo == 0)
        if key not in self._sym_cache:
            _, sops, beta = self._beta_ops(cell)
            sv = _SymbolicView(self, zeros)
            a, b = (sp.Integer(0) if z else self._objective(sops, sv, i, prefix, beta)
                    for i, z in zip((w, c), known_zero))
            if a is SYM_INF or b is SYM_INF:
                out = None
            else:
                # factored: a leaf common to every term (L5*(m - L7)) is evaluated once; a
                # large difference, or DISR's sums of ratios of joint entropies, is left as it
                # is: multivariate factoring of its common numerator can run for minutes (DISR
                # at delta = 9/20), and a time limit would make the certificate depend on the
                # machine's load
                out = a - b
                if sp.count_ops(out) <= FACTOR_OPS:
                    if out.is_polynomial(*sorted(out.free_symbols, key=str)):
                        out = sp.factor(out)
                    elif not self.divides_by_joint_entropy():
                        out = sp.factor(sp.cancel(sp.together(out)))
            self._sym_cache[key] = out
        return self._sym_cache[key]

    def _leaves_for(self, expr, cell: Cell, der: bool) -> dict:
        view = _IntervalView(self, cell, der)
        inv = {}
        for q, s in self.symbol.items():
            if isinstance(s, sp.Symbol) and s in expr.free_symbols and s not in inv:
                inv[s] = view._q(q)
        if self.beta_sym is not None and self.beta_sym in expr.free_symbols:
            ops, _, beta = self._beta_ops(cell)
            inv[self.beta_sym] = ops.beta if ops.beta is not None else IX.point(beta)
        return inv

    def _beats(self, cell, prefix, w, c, a: IX, b: IX, zeros) -> bool | None:
        """True: w beats c on the whole cell; False: c beats or ties it somewhere (proved);
        None: not decided on this cell."""
        if a.kind == "+inf" and w < c:
            # whatever c is (even undecided): finite, -inf, indeterminate, or +inf with the index
            # deciding for w (c = -inf against an undecided w is left to the comparison by
            # kinds: w could be indeterminate there)
            return True
        if a.kind == "+inf" and b.kind == "undecided" and (cell.open_lo or cell.open_hi):
            # c's objective unbounded on the cell (a pole at its open end) but finite at every
            # point of it
            return True if self._finite_on(cell, prefix, c, zeros()) else None
        if not (a.finite and b.finite):  # by their kinds
            return IntervalOps().beats(a, b, first=w < c)
        g = a - b
        if g.positive():
            return True
        if g.finite and g.zero:  # both identically 0 on the cell: a tie
            return w < c
        if w < c and g.finite and g.lo >= 0:  # > 0, or a tie that the index gives to w
            return True
        diff = self._difference(cell, prefix, w, c, zeros(), (a.zero, b.zero))
        if diff is None:
            return None
        if diff == 0:
            return w < c
        return self._decide(diff, cell, w < c)

    def _decide(self, diff, cell, tie_ok: bool) -> bool | None:
        """:meth:`_positive`, then through the Min and Max terms (:meth:`_split_positive`)."""
        r = self._positive(diff, cell, tie_ok)
        if r is None and diff.has(sp.Min, sp.Max):
            return True if self._split_positive(sp.expand(diff), cell, tie_ok) else None
        return r

    def _finite_on(self, cell, prefix, c, zeros) -> bool:
        """Whether the objective of ``c`` is finite at every point of the open-ended ``cell``:
        every leaf it reads is finite there, and every denominator either has an enclosure that
        excludes 0 or, written with the leaves' closed forms, has no zero in the cell (exact,
        :func:`sympy.solveset`)."""
        if cell.is_point or self.on_beta:
            return False
        _, sops, beta = self._beta_ops(cell)
        expr = self._objective(sops, _SymbolicView(self, zeros), c, prefix, beta)
        if expr is SYM_INF:
            return False
        leaves = self._leaves_for(expr, cell, False)
        if not all(x.finite for x in leaves.values()):
            return False
        dens = []
        for p in expr.atoms(sp.Pow):
            if p.exp.is_Integer and p.exp < 0:
                d = evaluate_expr(p.base, leaves)
                if not (d.positive() or d.negative()):
                    dens.append(p.base)
        closed = self._closed_forms(set().union(*(d.free_symbols for d in dens)))
        if closed is None:
            return False
        where = self._interval(cell)
        for d in dens:
            if self._roots_in(d.xreplace(closed), where) is not sp.S.EmptySet:
                return False
        return True

    def _closed_forms(self, symbols) -> dict | None:
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

    @staticmethod
    def _interval(cell) -> sp.Interval:
        lo, hi = (sp.Rational(*_fraction(e).as_integer_ratio()) if isinstance(e, mpmath.mpf)
                  else e for e in (cell.lo, cell.hi))
        return sp.Interval(lo, hi, cell.open_lo, cell.open_hi)

    def _roots_in(self, form, where):
        """The zeros of ``form`` in ``where`` (exact) when it is a rational function of the
        swept symbol, else None."""
        form = sp.cancel(sp.together(form))
        if not form.is_rational_function(self.t) or sp.count_ops(form) > FACTOR_OPS:
            return None
        try:
            return sp.solveset(form, self.t, where)
        except (NotImplementedError, ValueError, TypeError):
            return None

    def _split_positive(self, diff, cell, tie_ok: bool, depth: int = 0) -> bool:
        """Whether ``diff`` > 0 on the cell, proved through one Min or Max term of the sum
        (coefficient c): where ``diff`` is at least the sum with that term replaced by one of its
        arguments (c > 0 and Max, c < 0 and Min), one such argument suffices; otherwise
        (``diff`` is the least of those sums) every argument must give a positive sum. A sum
        that is identically 0 is a tie, accepted when the index decides for the winner."""
        if depth > 6:
            return False
        for term in sp.Add.make_args(diff):
            coeff, node = term.as_coeff_Mul()
            if not isinstance(node, (sp.Min, sp.Max)) or not coeff.is_Rational:
                continue
            rest = diff - term
            subs = [sp.expand(rest + coeff * arg) for arg in node.args]
            any_one = (coeff > 0) == isinstance(node, sp.Max)

            def ok(e):
                if e == 0:
                    return tie_ok
                r = self._positive(e, cell, tie_ok)
                if r is None and e.has(sp.Min, sp.Max):
                    return self._split_positive(e, cell, tie_ok, depth + 1)
                return bool(r)

            return any(ok(e) for e in subs) if any_one else all(ok(e) for e in subs)
        return False

    def _positive(self, diff, cell, tie_ok: bool) -> bool | None:
        """True: ``diff`` > 0 on the cell (or identically 0 there and ``tie_ok``); False: proved
        <= 0 somewhere (a tie lost by the index, or negative); None: not decided."""
        G = evaluate_expr(diff, self._leaves_for(diff, cell, False))
        if G.positive():
            return True
        if G.negative():
            return False
        if G.finite and G.zero:  # identically 0 on the cell: a tie, decided by the index
            return tie_ok
        if tie_ok and G.finite and G.lo >= 0:  # > 0, or a tie that the index gives to w
            return True
        if cell.is_point:
            # at a special point an exact tie is recognised on the exact values
            return tie_ok if self._exact_zero_at(diff, cell.lo) else None
        if diff.free_symbols <= self.constant_symbols and self._exact_zero_at(
                diff, sp.Integer(0), symmetry=False):
            return tie_ok  # constants on the swept range (a beta sweep) that tie exactly
        Gd = evaluate_expr(diff, self._leaves_for(diff, cell, True))
        if Gd.has_der and (Gd.dlo > 0 or Gd.dhi < 0):
            increasing = Gd.dlo > 0
        else:
            increasing = self._monotone_by_leaves(diff, cell)
            if increasing is None:
                return None
        ends = []
        for x, is_open in ((cell.lo, cell.open_lo), (cell.hi, cell.open_hi)):
            e = evaluate_expr(diff, self._leaves_for(diff, Cell(x, x), False))
            ends.append((e, is_open))
        (e0, o0), (e1, o1) = ends

        def ok(e, x, is_open, low_end):
            if e.positive():
                return True
            # an excluded end where the difference is >= 0 and rises into the cell
            if not is_open or increasing != low_end:
                return False
            return (e.finite and (e.zero or e.lo >= 0)) or self._exact_zero_at(diff, x)

        if ok(e0, cell.lo, o0, True) and ok(e1, cell.hi, o1, False):
            return True
        return None

    def _monotone_by_leaves(self, diff, cell) -> bool | None:
        """True (False) if ``diff`` is proved strictly increasing (decreasing) on the cell as a
        sum of numbers times leaves, each leaf strictly monotone there
        (:meth:`~fstheory.atlas.certificate.enclose.Leaf.direction`) and every term moving the
        same way; None otherwise. It covers what a derivative enclosure cannot: a leaf whose
        derivative is not enclosed next to a special point (MI(C, X) of Scenario II near k = 0,
        where |lambda| = 1/k)."""
        syms = sorted(diff.free_symbols - self.constant_symbols, key=str)
        if not syms or any(s not in self.leaf_by_symbol for s in syms):
            return None
        try:
            poly = sp.Poly(diff, *syms)
        except sp.PolynomialError:
            return None
        if poly.total_degree() != 1:
            return None
        ways = set()
        for s in syms:
            c = poly.coeff_monomial(s)
            d = self.leaf_by_symbol[s].direction(cell)
            if not c.is_number or c == 0 or d is None:
                return None
            ways.add(d if c > 0 else -d)
        return (ways == {1}) if len(ways) == 1 else None

    def _exact_zero_at(self, diff, x, symmetry: bool = True) -> bool:
        """Whether ``diff`` is exactly 0 at the special point ``x`` (exact leaf values, or a
        symmetry of the scenario there: :meth:`_symmetric_zero_at`, unless ``symmetry`` is
        False)."""
        if isinstance(x, mpmath.mpf):
            return False
        if not symmetry:
            return self._exact_values_zero(diff, x)
        return self._exact_values_zero(diff, x) or self._symmetric_zero_at(diff, x)

    def _exact_values_zero(self, diff, x) -> bool:
        try:
            values = {s: self.leaf_by_symbol[s].exact(x)
                      for s in diff.free_symbols if s in self.leaf_by_symbol}
        except NoEnclosure:
            return False
        if diff.has(sp.Min, sp.Max):
            # sympy would order the arguments of min and max by evaluating integrals
            # numerically, for minutes (Scenario III's constant MI(Y^2, X-Y) in CMIM at k = 1):
            # an integral stays a symbol, so it must cancel for an exact zero
            values = {s: (sp.Dummy() if v.has(sp.Integral) else v) for s, v in values.items()}
        try:
            exact = diff.xreplace(values)
        except (ValueError, TypeError):
            # a min or max of a term that is infinite or undefined at the point (NJMIM's
            # MI(C;{Vi,Vs})/H(Vi,Vs,C) at a zero of its divisor): no exact zero to read
            return False
        return not exact.free_symbols and is_exact_zero(exact)

    def _symmetric_zero_at(self, diff, x) -> bool:
        """Whether ``diff`` is exactly 0 at the special point ``x`` because the leaves it reads
        are equal there in pairs by a symmetry of the scenario (:meth:`_symmetry_at`): the
        difference with every leaf replaced by its class's representative is identically 0
        (Y^2 and X^2 in DISR at k = 1 in Scenario III, where C = 1{X + Y >= 0})."""
        if self.on_beta or isinstance(x, mpmath.mpf):
            return False
        rep = self._symmetry_at(x)
        if not rep or not (diff.free_symbols & set(rep)):
            return False
        e = diff.xreplace(rep)
        return e == 0 or sp.expand(e) == 0

    def _symmetry_at(self, x) -> dict:
        """Leaf symbol -> representative of its class of leaves proved equal at the point ``x``
        of the swept parameter (memoised).

        Lemma: let u, v be two base variables with the same law and sigma the map that swaps
        them. The base variables are independent, so sigma preserves their joint law. If the
        class form is invariant (form o sigma = form, so C o sigma = C) and a feature satisfies
        V_i o sigma = e V_j + c (e = +-1, c a number), then (V_i o sigma, V_l o sigma, C) has the
        law of (V_i, V_l, C), and a map x -> e x + c on each coordinate has unit Jacobian: so
        h(V_i) = h(V_j), MI(C, V_i) = MI(C, V_j), and every MI(V_i, V_l), MI(C;{V_i, V_l}),
        H(V_i, V_l, C) equals the same quantity of the images. Leaves equal by such an equality
        (closed under transitivity) have the same value at ``x``. A leaf shared by several
        quantities is one function on the open range, so one value at ``x``."""
        memo = self._symmetry_memo
        if x in memo:
            return memo[x]
        from itertools import combinations

        try:
            bound = self.sw.pv.bound_at({self.sw.param: x})
        except ValueError:  # an irrational special point: no symmetry is sought there
            memo[x] = {}
            return memo[x]
        laws = bound.laws()
        exprs = [sp.expand(sp.sympify(e)) for e in bound.feature_exprs()]
        form = sp.expand(sp.sympify(bound.class_rule().form))
        bases = set(laws)
        parent: dict = {}

        def find(a):
            while parent.get(a, a) != a:
                a = parent[a]
            return a

        for u, v in combinations(sorted(laws, key=str), 2):
            if laws[u] != laws[v]:
                continue
            swap = {u: v, v: u}
            if sp.expand(form.xreplace(swap) - form) != 0:
                continue
            image = {}
            for i, e in enumerate(exprs):
                g = sp.expand(e.xreplace(swap))
                for j, f in enumerate(exprs):
                    if any(not (sp.expand(g - sign * f).free_symbols & bases)
                           for sign in (1, -1)):
                        image[i] = j
                        break
            for q, sym in self.symbol.items():
                idx = q[1:]
                if not isinstance(sym, sp.Symbol) or not all(i in image for i in idx):
                    continue
                moved = [image[i] for i in idx]
                q2 = (q[0], *sorted(moved)) if len(moved) == 2 else (q[0], *moved)
                sym2 = self.symbol.get(q2)
                if isinstance(sym2, sp.Symbol) and find(sym) != find(sym2):
                    parent[find(sym)] = find(sym2)
        memo[x] = {s: find(s) for s in list(parent)}
        return memo[x]

    def check_cell(self, cell: Cell, order, stopped: bool, pending) -> list:
        """The pairs (step, c) still undecided on ``cell`` (``pending``: those to check, None =
        all); raises _Refuted when the reported ordering is proved wrong on the cell."""
        ops, _, beta = self._beta_ops(cell)
        view = _IntervalView(self, cell, False)
        n_feat = len(self.sw.labels)
        undecided = []
        found: list = []

        def zeros():
            if not found:
                found.append(self._zeros(view))
            return found[0]

        steps = range(len(order) + (1 if stopped else 0))
        with working_precision(self.bits), mpmath.workprec(self.bits):
            for n in steps:
                if pending is not None and not any(p[0] == n for p in pending):
                    continue
                prefix = tuple(order[:n])
                remaining = [i for i in range(n_feat) if i not in prefix]
                todo = [c for c in remaining if pending is None or (n, c) in pending]
                if n == len(order):  # the stop: everyone indeterminate
                    for c in todo:
                        x = self._objective(ops, view, c, prefix, beta)
                        if x.kind == "indeterminate":
                            continue
                        if x.kind == "undecided":
                            undecided.append((n, c))
                        else:
                            raise _Refuted(cell, n, None, c)
                    continue
                w = order[n]
                a = self._objective(ops, view, w, prefix, beta)
                for c in todo:
                    if c == w:
                        continue
                    b = self._objective(ops, view, c, prefix, beta)
                    r = self._beats(cell, prefix, w, c, a, b, zeros)
                    if r is None:
                        undecided.append((n, c))
                    elif r is False:
                        raise _Refuted(cell, n, w, c)
        return undecided

    # ----- a piece, a result ---------------------------------------------------------------------
    def certify_piece(self, cell: Cell, order, stopped: bool, budget: int = 3000):
        """Cover ``cell`` by subcells on which every step is proved. Returns (cells used,
        failure or None)."""
        stack = [(cell, None)]
        used = 0
        tiny = mpmath.mpf(10) ** -(self.digits + 3)
        while stack:
            c, pending = stack.pop()
            used += 1
            if used > budget:
                return used, f"more than {budget} cells needed near {_text(c.lo)}"
            try:
                left = self.check_cell(c, order, stopped, pending)
            except _Refuted as r:
                return used, r.describe(self.sw.labels)
            except NoEnclosure as exc:
                return used, f"no enclosure on [{_text(c.lo)}, {_text(c.hi)}]: {exc}"
            if not left:
                continue
            if c.is_point:
                n, cand = left[0]
                return used, (f"at {_text(c.lo)}: step {n + 1}, {self.sw.labels[cand]} not "
                              "decided")
            lo, hi = _ix_end(c.lo, "d"), _ix_end(c.hi, "u")
            with mpmath.workprec(self.bits):
                if hi - lo <= tiny * max(abs(lo), abs(hi), mpmath.mpf(10) ** -self.digits):
                    n, cand = left[0]
                    return used, (f"on [{_text(c.lo)}, {_text(c.hi)}]: step {n + 1}, "
                                  f"{self.sw.labels[order[n]] if n < len(order) else 'stop'} "
                                  f"against {self.sw.labels[cand]} not decided")
                mid = (lo + hi) / 2
            pend = frozenset(left)
            stack.append((Cell(mid, c.hi, False, c.open_hi), pend))
            stack.append((Cell(c.lo, mid, c.open_lo, False), pend))
        return used, None

    def pieces(self, result):
        """[(Cell, region or None)] covering the range, and the certified brackets."""
        special = list(result.special)
        brackets = []
        with mpmath.workprec(self.bits):
            for b in result.breakpoints:
                if b.bracket is None:
                    continue
                x0, x1 = b.bracket
                w = x1 - x0
                brackets.append((x0 - WIDEN * w, x1 + WIDEN * w, b))
        bounds = [("s", s, s) for s in special] + [("b", x0, x1) for x0, x1, _ in brackets]
        bounds.sort(key=lambda t: (float(t[1]), 0 if t[0] == "s" else 1))
        out = []
        for kind, a, _b in bounds:
            if kind == "s":
                out.append((Cell(a, a), self._region_at(result, a, point=True)))
        for (k0, _, r0), (k1, l1, _) in zip(bounds, bounds[1:]):
            cell = Cell(r0, l1, k0 == "s", k1 == "s")
            out.append((cell, self._region_at(result, cell, point=False)))
        return out, brackets

    def _region_at(self, result, where, point: bool):
        """The region whose ordering a point or a whole interval piece must have (None: no
        region holds all of the piece, so the reported regions do not fit the cuts)."""
        with mpmath.workprec(self.bits):
            if point:
                x = where
                regs = [r for r in result.regions if r.lo == x and r.hi == x]
                if not regs:
                    # neighbouring regions share the point: it belongs to the one whose
                    # ordering was computed at it (its sample), else to the left one
                    regs = [r for r in result.regions if _le(r.lo, x) and _le(x, r.hi)]
                    regs.sort(key=lambda r: not (isinstance(r.sample, sp.Basic)
                                                 and r.sample == x))
            else:
                regs = [r for r in result.regions if _le(r.lo, where.lo) and _le(where.hi, r.hi)]
        return regs[0] if regs else None

    def divides_by_joint_entropy(self) -> bool:
        """A 3-D row whose objective divides by H(V_i,V_j,C) (memoised per row: the certifier is
        shared by every row over the same values, ``self.sw`` being the current one)."""
        key = (self.sw.spec.method, self.sw.spec.reading)
        if key not in self._reads_h:
            self._reads_h[key] = self.sw.method.reads_joint and self.reads_joint_entropy()
        return self._reads_h[key]

    def reads_joint_entropy(self) -> bool:
        """Whether the row's 3-D objective reads H(V_i,V_j,C) (DISR's divisor), recorded by
        running it once on the leaf symbols (raises NoEnclosure without joint leaves)."""
        read: set = set()

        class Recorder(_SymbolicView):
            def h_pair_c(self, i, j):
                read.add((min(i, j), max(i, j)))
                return super().h_pair_c(i, j)

        if self.on_beta or len(self.sw.labels) < 2:
            return False
        self.joint()  # the joint leaf symbols the view reads (raises NoEnclosure)
        lo = as_exact(self.sw.spec.lo)
        _, sops, beta = self._beta_ops(Cell(lo, lo))
        self._objective(sops, Recorder(self, frozenset()), 1, (0,), beta)
        return bool(read)

    def _pole_failures(self, result) -> list:
        """Zeros inside the range of an H(V_i,V_j,C) that the objective divides by and that are
        not special points of ``result`` (a region through a pole cannot be proved: said at once
        rather than after bisecting to the cell budget). The zeros are those of
        :func:`~fstheory.atlas.poles.divisor_zeros`, solved exactly from the closed
        forms; a divisor whose zeros are not known exactly is left to the cells, which cannot
        prove a cell where its enclosure holds 0."""
        poles = atlas_poles.divisor_zeros(self)
        special = set(result.special)
        return [f"{' = '.join(names)} = 0 at {self.sw.param} = {x} = {sp.N(x, 20)} inside the "
                "range: the objective has a pole there that the result does not take as a "
                "special point"
                for x, names in poles.points.items() if x not in special]

    def _layout_failures(self, result, brackets) -> list:
        """What makes the reported regions and breakpoints unfit for a proof, whatever the
        values: the regions must tile the range in order, and each breakpoint lie in its
        certified bracket (every region end is then a special point or inside a bracket, since
        each interval piece must lie in one region)."""
        out = []
        regs = list(result.regions)
        lo, hi = as_exact(self.sw.spec.lo), as_exact(self.sw.spec.hi)
        with mpmath.workprec(self.bits):
            if not regs or not (_le(regs[0].lo, lo) and _le(lo, regs[0].lo)) or not (
                    _le(regs[-1].hi, hi) and _le(hi, regs[-1].hi)):
                out.append("the regions do not start and end at the ends of the range")
            for a, b in zip(regs, regs[1:]):
                if not (_le(a.hi, b.lo) and _le(b.lo, a.hi)):
                    out.append(f"the regions ending at {_text(a.hi)} and starting at "
                               f"{_text(b.lo)} do not meet")
            for x0, x1, b in brackets:
                if not (_le(x0, b.at) and _le(b.at, x1)):
                    out.append(f"the breakpoint at {_text(b.at)} lies outside its certified "
                               f"bracket [{_text(x0)}, {_text(x1)}]")
        return out

    def run(self, result) -> dict:
        if self.sw.method.reads_joint:
            try:
                poles = atlas_poles.divisor_zeros(self)
                for x in result.special:
                    # an irrational pole cannot be bound: its values are the open forms there
                    if x.is_Rational or x not in poles.points:
                        self.joint().check_point(x)
            except NoEnclosure as exc:
                return guarantee(self.sw.spec, str(exc))
        pieces, brackets = self.pieces(result)
        cells = 0
        failures = []
        with mpmath.workprec(self.bits):
            limit = mpmath.mpf(10) ** -self.digits
            for x0, x1, _b in brackets:
                if x1 - x0 >= limit * max(abs(x0), abs(x1)):
                    failures.append(f"the certified bracket [{_text(x0)}, {_text(x1)}] is not "
                                    f"below 10^-{self.digits} relative")
        failures += self._layout_failures(result, brackets)
        poles = self._pole_failures(result) if self.sw.method.reads_joint else []
        if poles:
            return self._finish(0, brackets, failures + poles)
        for cell, region in pieces:
            if cell.is_point and not self.on_beta and self.sw.pv.is_structural(
                    {self.sw.param: as_exact(cell.lo)}):
                # the leaves hold the structure of the open cells, not this point's
                failures.append(f"at {self.sw.param} = {_text(cell.lo)}: the structure of the "
                                "features changes there (a feature degenerates or two become "
                                "dependent); the ordering at the point is the engine's, computed "
                                "there, not proved by enclosures")
                continue
            if region is None:
                failures.append(f"{_where(cell)}: no reported region holds the whole piece (a "
                                "region ends where no breakpoint bracket or special point is)")
                continue
            try:
                used, fail = self.certify_piece(cell, region.order, region.stopped)
            except NoEnclosure as exc:
                # an input first read on this piece has no enclosure (a set of CMI or JMI3
                # that reduces to more than two features, or whose value at a special point is
                # not the open form's): no certificate
                return guarantee(self.sw.spec, str(exc))
            cells += used
            if fail:
                failures.append(f"{_where(cell)}: {fail}")
        return self._finish(cells, brackets, failures)

    def _finish(self, cells: int, brackets, failures: list) -> dict:
        """The certificate of a run: what was proved, the printed brackets, the failures."""
        d = self.digits
        what = {"k": "MI(C, V) enclosed by monotone series (Scenario I), by the monotone "
                     "skew-normal expectation F(|lambda|) with certified integrals (Scenario II) "
                     "or by monotone certified integrals of the Laplace conditional class "
                     "probabilities (Scenario III)",
                "beta": "inputs enclosed at the fixed parameters; objectives affine in beta"}.get(
            self.sw.param, "inputs enclosed by ball arithmetic over each cell")
        if self.sw.method.reads_joint:
            what += ("; joint inputs from the structure derived with the parameter symbolic, "
                     "two-point pairs as closed forms in it times ln 2 (polygon areas under "
                     "uniform laws, (2/pi) atan and r/(1+r) for reflections of normal and "
                     "Laplace laws), integrals over directions with their sets of directions "
                     "bracketed over each cell and the weight integrated through Chebyshev "
                     "models with proved error bounds, identities in the leaves expanded "
                     "exactly; "
                     "each special point's own derivation proved equal to the open form's "
                     "limit there")
        out = {
            "certified": not failures,
            "method": ("interval arithmetic (python-flint arb balls, outward-rounded mpmath "
                       "intervals) through the method's own objective code; " + what),
            "cells": cells,
            "brackets": [],
        }
        for x0, x1, b in brackets:
            at = _dec(b.at, d + 3)  # the bracket's digits (20 digits can fall outside it)
            lo, hi = _bracket_text(x0, x1, at, d + 3)
            out["brackets"].append({"at": at, "from": lo, "to": hi})
            w, m = Fraction(hi) - Fraction(lo), max(abs(Fraction(lo)), abs(Fraction(hi)))
            if w >= Fraction(1, 10**d) * m:
                failures.append(f"the printed bracket [{lo}, {hi}] is not below 10^-{d} "
                                "relative")
        out["certified"] = not failures
        if self.notes:
            out["assumptions"] = list(self.notes)
        if failures:
            out["failures"] = failures
            out["summary"] = (f"not certified ({len(failures)} piece(s) not proved, listed); the "
                              f"rest as sampled and bracketed: " + guarantee(self.sw.spec)["summary"])
        else:
            cond = " (given the stated numerical constants)" if self.notes else ""
            out["summary"] = (f"certified{cond}: on every region the reported ordering is the "
                              f"exact one at every point (interval proof on {cells} cells); every "
                              f"change lies in a certified bracket of relative width < "
                              f"10^-{d} around its breakpoint; special points are exact")
        return out


class _Refuted(Exception):
    def __init__(self, cell, n, w, c):
        self.cell, self.n, self.w, self.c = cell, n, w, c

    def describe(self, labels) -> str:
        if self.w is None:
            return (f"refuted on {_where(self.cell)}: step {self.n + 1} should stop but "
                    f"{labels[self.c]} is determinate")
        return (f"refuted on {_where(self.cell)}: at step {self.n + 1} {labels[self.c]} is not "
                f"beaten by {labels[self.w]}")


def _fraction(x: mpmath.mpf) -> Fraction:
    man, exp = man_exp(x)
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _bracket_text(x0, x1, at: str, digits: int) -> tuple[str, str]:
    """A certified bracket [x0, x1] widened to hold the printed breakpoint ``at`` and written
    with ``digits`` significant digits, rounded outward (so the printed bracket still holds
    the crossing, and the printed ``at``)."""
    lo = min(_fraction(x0), Fraction(at))
    hi = max(_fraction(x1), Fraction(at))
    return _decimal(lo, digits, decimal.ROUND_FLOOR), _decimal(hi, digits, decimal.ROUND_CEILING)


def _decimal(f: Fraction, digits: int, rounding) -> str:
    if f == 0:
        return "0"
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.rounding = digits, rounding
        d = decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)
    return format(d, "f")


def _ix_end(x, rnd: str) -> mpmath.mpf:
    if isinstance(x, mpmath.mpf):
        return x
    b = arb_of(x)

    if rnd == "d":
        return mpf_down(b.lower())
    if rnd == "u":
        return mpf_up(b.upper())
    return mpf_down(b.mid())


def _num(x) -> float:
    return float(x)


def _lt(a, b) -> bool:
    return _ix_end(a, "n") < _ix_end(b, "n") if not (isinstance(a, sp.Basic) and isinstance(
        b, sp.Basic)) else bool(a < b)


def _le(a, b) -> bool:
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic):
        return bool(a <= b)
    return _ix_end(a, "n") <= _ix_end(b, "n")


def _text(x) -> str:
    return mpmath.nstr(_ix_end(x, "n"), 12) if isinstance(x, mpmath.mpf) else str(x)


def _where(cell: Cell) -> str:
    if cell.is_point:
        return f"{_text(cell.lo)}"
    return (f"{'(' if cell.open_lo else '['}{_text(cell.lo)}, {_text(cell.hi)}"
            f"{')' if cell.open_hi else ']'}")


def _dec(x, digits: int) -> str:
    return decimal_text(x, digits)
