r"""The cell-by-cell proof of the atlas certificate for one method row
(:mod:`fstheory.atlas.certificate.certify` states the method and its lemma).

A :class:`Certifier` holds one row (a sweep of :mod:`fstheory.atlas.sweep`: its method, beta,
reading) and the :class:`~fstheory.atlas.certificate.leaves.Leaves` of its values, which it
shares with the other rows over the same values; nothing of the row is written into them.
:meth:`Certifier.check_cell` runs the method's own objective code in the interval world on one
cell, step by step along the reported ordering; :meth:`Certifier.certify_piece` bisects a piece
until every step is proved on every cell.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import Cell, NoEnclosure, working_precision
from fstheory.atlas.certificate.interval import IX, SYM_INF, IntervalOps, evaluate_expr
from fstheory.atlas.certificate.leaves import Leaves
from fstheory.atlas.certificate.points import cell_text, fraction, ix_end, point_text
from fstheory.atlas.certificate.symmetry import exact_zero_at
from fstheory.atlas.certificate.views import IntervalView, SymbolicView
from fstheory.atlas.numbers import as_exact

__all__ = ["Certifier", "Refuted", "FACTOR_OPS"]

#: The largest closed form (in sympy operations) whose zeros are sought exactly.
FACTOR_OPS = 200


class Certifier:
    """One method row's proof over the leaves of its values (see the module docstring)."""

    def __init__(self, sw, leaves: Leaves | None = None):
        """The proof of ``sw``'s row over ``leaves`` (default: leaves of its own, built here;
        the sweep's :attr:`~fstheory.atlas.row.Sweep.certifier` passes the shared ones,
        :func:`~fstheory.atlas.certificate.leaves.leaves_of`); raises NoEnclosure naming the
        inputs without an enclosure."""
        self.sw = sw
        self.leaves = Leaves(sw) if leaves is None else leaves
        self.digits = self.leaves.digits
        self.bits = self.leaves.bits
        self.on_beta = self.leaves.on_beta
        self.t = self.leaves.t
        self._sym_cache: dict = {}  # the simplified differences of objectives (_difference)
        self._divides: bool | None = None  # divides_by_joint_entropy

    # the leaves' tables, read as the certifier's
    @property
    def leaf(self) -> dict:
        return self.leaves.leaf

    @property
    def symbol(self) -> dict:
        return self.leaves.symbol

    @property
    def leaf_by_symbol(self) -> dict:
        return self.leaves.leaf_by_symbol

    @property
    def notes(self) -> list:
        return self.leaves.notes

    def joint(self):
        """The joint leaves (:meth:`~fstheory.atlas.certificate.leaves.Leaves.joint`)."""
        return self.leaves.joint()

    def inputs_for(self, expr, cell: Cell, der: bool) -> dict:
        """The enclosures on ``cell`` of the leaves ``expr`` reads (and of beta)."""
        return self.leaves.inputs_for(expr, cell, der, self.sw.spec.beta)

    def objective(self, ops, v, i, prefix, beta):
        """The row's objective of candidate ``i`` after ``prefix`` on the view ``v`` (MI(C, V_i)
        at the first step)."""
        m = self.sw.method
        if not prefix:
            return v.mi_c(i)
        return m.objective(ops, v, i, list(prefix), beta, reading=self.sw.spec.reading,
                           zero_beta=self.sw.spec.zero_beta, gamma=self.sw.spec.gamma)

    def _difference(self, cell, prefix, w, c, zeros, known_zero=(False, False)):
        """The simplified symbolic obj(w) - obj(c) (None: not a rational form). ``known_zero``:
        whether obj(w), obj(c) are identically 0 on the cell (an infinite input times an exact
        0 has no rational form, but its value is known)."""
        spec = self.sw.spec
        key = (spec.method, spec.beta, spec.gamma, spec.reading, spec.zero_beta, prefix, w, c, zeros,
               known_zero, cell.is_point and self.on_beta and cell.lo == 0)
        if key not in self._sym_cache:
            _, sops, beta = self.leaves.beta_ops(cell, self.sw.spec.beta)
            sv = SymbolicView(self.leaves, zeros)
            a, b = (sp.Integer(0) if z else self.objective(sops, sv, i, prefix, beta)
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
        _, sops, beta = self.leaves.beta_ops(cell, self.sw.spec.beta)
        expr = self.objective(sops, SymbolicView(self.leaves, zeros), c, prefix, beta)
        if expr is SYM_INF:
            return False
        leaves = self.inputs_for(expr, cell, False)
        if not all(x.finite for x in leaves.values()):
            return False
        dens = []
        for p in expr.atoms(sp.Pow):
            if p.exp.is_Integer and p.exp < 0:
                d = evaluate_expr(p.base, leaves)
                if not (d.positive() or d.negative()):
                    dens.append(p.base)
        closed = self.leaves.closed_forms(set().union(*(d.free_symbols for d in dens)))
        if closed is None:
            return False
        where = self._interval(cell)
        for d in dens:
            if self._roots_in(d.xreplace(closed), where) is not sp.S.EmptySet:
                return False
        return True

    @staticmethod
    def _interval(cell) -> sp.Interval:
        lo, hi = (sp.Rational(*fraction(e).as_integer_ratio()) if isinstance(e, mpmath.mpf)
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
        G = evaluate_expr(diff, self.inputs_for(diff, cell, False))
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
            return tie_ok if exact_zero_at(self.leaves, diff, cell.lo) else None
        if diff.free_symbols <= self.leaves.constant_symbols and exact_zero_at(self.leaves, 
                diff, sp.Integer(0), symmetry=False):
            return tie_ok  # constants on the swept range (a beta sweep) that tie exactly
        Gd = evaluate_expr(diff, self.inputs_for(diff, cell, True))
        if Gd.has_der and (Gd.dlo > 0 or Gd.dhi < 0):
            increasing = Gd.dlo > 0
        else:
            increasing = self._monotone_by_leaves(diff, cell)
            if increasing is None:
                return None
        ends = []
        for x, is_open in ((cell.lo, cell.open_lo), (cell.hi, cell.open_hi)):
            e = evaluate_expr(diff, self.inputs_for(diff, Cell(x, x), False))
            ends.append((e, is_open))
        (e0, o0), (e1, o1) = ends

        def ok(e, x, is_open, low_end):
            if e.positive():
                return True
            # an excluded end where the difference is >= 0 and rises into the cell
            if not is_open or increasing != low_end:
                return False
            return (e.finite and (e.zero or e.lo >= 0)) or exact_zero_at(self.leaves, diff, x)

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
        syms = sorted(diff.free_symbols - self.leaves.constant_symbols, key=str)
        if not syms or any(s not in self.leaves.leaf_by_symbol for s in syms):
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
            d = self.leaves.leaf_by_symbol[s].direction(cell)
            if not c.is_number or c == 0 or d is None:
                return None
            ways.add(d if c > 0 else -d)
        return (ways == {1}) if len(ways) == 1 else None

    def check_cell(self, cell: Cell, order, stopped: bool, pending) -> list:
        """The pairs (step, c) still undecided on ``cell`` (``pending``: those to check, None =
        all); raises Refuted when the reported ordering is proved wrong on the cell."""
        ops, _, beta = self.leaves.beta_ops(cell, self.sw.spec.beta)
        view = IntervalView(self.leaves, cell, False)
        n_feat = len(self.sw.labels)
        undecided = []
        found: list = []

        def zeros():
            if not found:
                found.append(view.zeros())
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
                        x = self.objective(ops, view, c, prefix, beta)
                        if x.kind == "indeterminate":
                            continue
                        if x.kind == "undecided":
                            undecided.append((n, c))
                        else:
                            raise Refuted(cell, n, None, c)
                    continue
                w = order[n]
                a = self.objective(ops, view, w, prefix, beta)
                for c in todo:
                    if c == w:
                        continue
                    b = self.objective(ops, view, c, prefix, beta)
                    r = self._beats(cell, prefix, w, c, a, b, zeros)
                    if r is None:
                        undecided.append((n, c))
                    elif r is False:
                        raise Refuted(cell, n, w, c)
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
                return used, f"more than {budget} cells needed near {point_text(c.lo)}"
            try:
                left = self.check_cell(c, order, stopped, pending)
            except Refuted as r:
                return used, r.describe(self.sw.labels)
            except NoEnclosure as exc:
                return used, f"no enclosure on [{point_text(c.lo)}, {point_text(c.hi)}]: {exc}"
            if not left:
                continue
            if c.is_point:
                n, cand = left[0]
                return used, (f"at {point_text(c.lo)}: step {n + 1}, {self.sw.labels[cand]} not "
                              "decided")
            lo, hi = ix_end(c.lo, "d"), ix_end(c.hi, "u")
            with mpmath.workprec(self.bits):
                if hi - lo <= tiny * max(abs(lo), abs(hi), mpmath.mpf(10) ** -self.digits):
                    n, cand = left[0]
                    return used, (f"on [{point_text(c.lo)}, {point_text(c.hi)}]: step {n + 1}, "
                                  f"{self.sw.labels[order[n]] if n < len(order) else 'stop'} "
                                  f"against {self.sw.labels[cand]} not decided")
                mid = (lo + hi) / 2
            pend = frozenset(left)
            stack.append((Cell(mid, c.hi, False, c.open_hi), pend))
            stack.append((Cell(c.lo, mid, c.open_lo, False), pend))
        return used, None

    def divides_by_joint_entropy(self) -> bool:
        """A 3-D row whose objective divides by H(V_i,V_j,C) (memoised)."""
        if self._divides is None:
            self._divides = self.sw.method.reads_joint and self.reads_joint_entropy()
        return self._divides

    def reads_joint_entropy(self) -> bool:
        """Whether the row's 3-D objective reads H(V_i,V_j,C) (DISR's divisor), recorded by
        running it once on the leaf symbols (raises NoEnclosure without joint leaves)."""
        read: set = set()

        class Recorder(SymbolicView):
            def h_pair_c(self, i, j):
                read.add((min(i, j), max(i, j)))
                return super().h_pair_c(i, j)

        if self.on_beta or len(self.sw.labels) < 2:
            return False
        self.leaves.joint()  # the joint leaf symbols the view reads (raises NoEnclosure)
        lo = as_exact(self.sw.spec.lo)
        _, sops, beta = self.leaves.beta_ops(Cell(lo, lo), self.sw.spec.beta)
        self.objective(sops, Recorder(self, frozenset()), 1, (0,), beta)
        return bool(read)


class Refuted(Exception):
    """The reported ordering proved wrong on a cell: at step ``n``, ``c`` not beaten by ``w``
    (``w`` None: the step should stop but ``c`` is determinate)."""

    def __init__(self, cell, n, w, c):
        self.cell, self.n, self.w, self.c = cell, n, w, c

    def describe(self, labels) -> str:
        if self.w is None:
            return (f"refuted on {cell_text(self.cell)}: step {self.n + 1} should stop but "
                    f"{labels[self.c]} is determinate")
        return (f"refuted on {cell_text(self.cell)}: at step {self.n + 1} {labels[self.c]} is not "
                f"beaten by {labels[self.w]}")
