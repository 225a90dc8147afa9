r"""The joint inputs of the 3-D methods as leaves of the atlas certificate
(:mod:`fstheory.atlas.certificate.certify`): H(C), MI(C;{V_i,V_j}), and the quantities that are
identities in the leaves.

Over the open range of the swept parameter t the structure comes from
:class:`fstheory.engine.derive_joint.ParametricStructure`, derived once with t symbolic, so it
holds at every t where no coefficient of the class or of a feature vanishes
(:meth:`~fstheory.engine.derive_joint.ParametricStructure.degenerate_points`; such a point
inside the range is refused). Each pair is then, on the whole range:

* 0, H(C) or MI(C, V_r) of the one feature left: the leaf of that quantity (the same symbol, so
  sets that reduce to one feature tie exactly with it);
* two-point: H(C) - ln 2 * P(t), with P(t) the exact probability of disagreement as a rational
  function of t (:func:`fstheory.theory.two_point_fibre.uniform_disagreement_on`, uniform laws:
  polygon areas with every sign decision proved on the range by exact root isolation), an
  elementary leaf (:class:`~fstheory.atlas.certificate.enclose.GenericLeaf`);
* an integral over directions (Scenarios II and III, normal or Laplace laws):
  :class:`~fstheory.atlas.certificate.cone.ConeLeaf`;
* otherwise (the numerical route) there is no enclosure and the certificate says which pairs.

MI(C; V_T) of a larger set T (CMI, JMI3) is registered when an objective first reads it
(:meth:`JointLeaves.set_symbol`): by its open derivation it is 0, H(C), MI(C, V_r) of one feature
left, or MI(C;{V_a,V_b}) of the pair left after the reductions -- the leaf of that quantity; any
other derivation has no enclosure. At every special point already checked (and at every one
checked later) the set's value derived at the point must equal the open leaf's there.

The other joint quantities are the engine's identities
(:mod:`fstheory.engine.derive_joint`), written in the leaf symbols and expanded, so shared
terms cancel exactly (H(X,Y,C) = h(X) + h(Y) - MI(X,Y) + H(C) - MI(C;{X,Y}) is exactly 0 in
Scenario I):

* MI(C;V_i|V_j) = MI(C;{V_i,V_j}) - MI(C,V_j);
* MI(V_i;V_j|C) = MI(V_i,V_j) - MI(C,V_i) - MI(C,V_j) + MI(C;{V_i,V_j}), or +inf or 0 from the
  structure;
* H(V_i,V_j,C) = h(V_i) + h(V_j) - MI(V_i,V_j) + H(C) - MI(C;{V_i,V_j}), or -inf.

Special points (the ends of the range, zeros of an entropy) are evaluated with the leaves'
exact values there. The structure derived at such a point can differ from the open one (at
k = 0 in Scenario I the class is a function of X alone), so :meth:`JointLeaves.check_point`
proves, quantity by quantity, that the value derived at the point equals the open form's
one-sided limit (exactly, by sympy): then the leaves are continuous up to the point, the point
cells are the engine's values, and the open cells' end arguments are sound.
"""

from __future__ import annotations

import sympy as sp

from fstheory.atlas.certificate.cone import ConeLeaf
from fstheory.atlas.certificate.enclose import ConstLeaf, GenericLeaf, NoEnclosure, arb_of
from fstheory.atlas.certificate.interval import IX, SYM_INF
from fstheory.engine.derive_joint import ParametricStructure, joint_structure
from fstheory.theory import two_point_fibre as tpf
from fstheory.theory.determination import SignedMap
from fstheory.theory.symbolic import exact_value, is_exact_zero

__all__ = ["JointLeaves"]

LN2 = sp.log(2)


class JointLeaves:
    """The joint leaves of a :class:`~fstheory.atlas.certificate.leaves.Leaves` (its ``leaf`` and
    ``symbol`` tables gain ``("hc",)`` and ``("pair", i, j)``); raises NoEnclosure, naming the
    quantities, when some have none."""

    #: The interval value of an infinite structural kind.
    INFINITE = {"+inf": IX.POS_INF, "-inf": IX.NEG_INF}

    def __init__(self, leaves):
        if leaves.on_beta:
            raise NoEnclosure("a 3-D method swept over beta")
        self.leaves = leaves
        pv = leaves.pv
        self.t = leaves.t
        self.lo, self.hi = sp.Rational(leaves.lo_text), sp.Rational(leaves.hi_text)
        try:
            self.st = ParametricStructure(leaves.scenario, dict(pv.reference_bound.params),
                                          leaves.param)
        except (AttributeError, TypeError) as exc:  # a parameter of the features' labels
            raise NoEnclosure(f"a 3-D method: the joint structure cannot be derived with "
                              f"'{leaves.param}' symbolic ({exc})") from exc
        inside = self.st.degenerate_points(self.lo, self.hi)
        if inside is None or inside:
            raise NoEnclosure("a 3-D method: the structure may change inside the range (a "
                              "coefficient of the class or of a feature vanishes at "
                              f"{inside if inside else 'points not found exactly'})")
        self.n = len(pv.labels)
        self._exprs: dict = {}
        self._checked: set = set()
        self._sets: set = set()  # the sets T (len > 2) registered by set_symbol
        self._closed_forms: dict = {}  # ("hpair", i, j) -> closed_form (memo)
        self._closed: dict = {}  # closed form -> (leaf, symbol), see _closed_leaf
        self._add_class_entropy()
        missing: dict = {}
        by_expr: dict = {}
        for i in range(self.n):
            for j in range(i + 1, self.n):
                why = self._add_pair(i, j, by_expr)
                if why:
                    missing.setdefault(why, []).append(
                        "MI(C;{" + f"{pv.labels[i]},{pv.labels[j]}" + "})")
        if missing:
            parts = [f"{', '.join(v)} ({k})" for k, v in missing.items()]
            raise NoEnclosure("a 3-D method: joint inputs without a rigorous enclosure over a "
                              "cell: " + "; ".join(parts))
        for i in range(self.n):
            for j in range(i + 1, self.n):
                for d in (("given", i, j), ("hpair", i, j)):
                    if self.kind(d) == "identity" and SYM_INF in self._terms(d):
                        raise NoEnclosure(f"{self._label(d)}: an identity with an infinite term "
                                          "(the engine does not compute it)")

    # ----- leaves --------------------------------------------------------------------------------
    def _add_class_entropy(self):
        leaves = self.leaves
        d = self.st.class_entropy()
        if d.kind == "numeric":
            raise NoEnclosure("a 3-D method: H(C) comes from the numerical route (no enclosure)")
        q = ("hc",)
        if d.kind == "zero":
            leaves.leaf[q], leaves.symbol[q] = ConstLeaf(IX.ZERO, sp.Integer(0)), sp.Integer(0)
        else:
            leaves.leaf[q] = ConstLeaf(lambda: arb_of(LN2), LN2)
            leaves.symbol[q] = sp.Symbol("HC")
            leaves.leaf_by_symbol[leaves.symbol[q]] = leaves.leaf[q]
            leaves.constant_symbols.add(leaves.symbol[q])
        self.hc_expr = sp.Integer(0) if d.kind == "zero" else LN2

    def _alias(self, q, r) -> None:
        """Quantity ``q`` is quantity ``r``: the same leaf and symbol (so they tie exactly)."""
        leaves = self.leaves
        leaves.leaf[q], leaves.symbol[q] = leaves.leaf[r], leaves.symbol[r]

    def _reduced(self, q, d) -> bool:
        """Register MI(C; V_S) ``q`` whose derivation ``d`` reduces it to 0, H(C) or MI(C, V_r)
        of one feature left; False for any other derivation."""
        if d.kind == "zero":
            self.leaves.leaf[q], self.leaves.symbol[q] = ConstLeaf(IX.ZERO, sp.Integer(0)), sp.Integer(0)
        elif d.kind == "class-entropy":
            self._alias(q, ("hc",))
        elif d.kind == "single":
            self._alias(q, ("mi_c", d.reduced[0]))
        else:
            return False
        return True

    def _share(self, q, table: dict, key, prefix: str, make) -> None:
        """Quantity ``q`` gets the leaf of ``key`` in ``table`` (key -> (leaf, symbol)), made by
        ``make()`` with a new symbol ``prefix<n>`` on first use: equal functions share one leaf."""
        if key not in table:
            leaf = make()
            sym = sp.Symbol(f"{prefix}{len(table)}")
            table[key] = (leaf, sym)
            self.leaves.leaf_by_symbol[sym] = leaf
        self.leaves.leaf[q], self.leaves.symbol[q] = table[key]

    def _add_pair(self, i, j, by_expr) -> str | None:
        """Register MI(C;{V_i,V_j}); the reason it has no enclosure, or None."""
        q = ("pair", i, j)
        d = self.st.mi_class_set((i, j))
        if self._reduced(q, d):
            return None
        if d.kind == "two-point":
            p = self._probability(d.partner)
            if p is None:
                return "a two-point probability that is not an exact function of the parameter"
            expr = sp.expand(self.hc_expr - LN2 * p)
            self._share(q, by_expr, expr, "J",
                        lambda: GenericLeaf(expr, self.t, lambda x, e=expr: self._exact(e, x)))
        elif d.kind == "two-point-cone":
            kind = tpf.radial_kind(d.partner, self.st.event, self.st.laws)
            leaf = ConeLeaf(kind, d.partner, self.st.event, self.t, self.hc_expr)
            self._share(q, by_expr, leaf.key, "J", lambda: leaf)
        else:
            return "the numerical route"
        return None

    def _probability(self, partner):
        """P(t) over the whole range as one closed form (a rational function for uniform laws,
        :func:`~fstheory.theory.two_point_fibre.radial_reflection_probability` for a reflection
        of i.i.d. centred normal or Laplace variables), or None."""
        tau = tpf.reflection_partner(partner) if isinstance(partner, SignedMap) else partner
        if tau is None:
            return None
        radial = tpf.radial_reflection_probability(tau, self.st.event, self.st.laws)
        if radial is not None:
            return radial
        pieces = tpf.uniform_disagreement_on(tau, self.st.event, self.st.laws, self.t, self.lo,
                                             self.hi)
        if not pieces or len(pieces) != 1:
            return None
        return pieces[0][2]

    def _same_cone(self, i, j, d, st, x) -> bool:
        """Whether the integral over directions for {V_i, V_j} at the point ``x`` is the open
        range's leaf there: the same map and the class form of the open range at x."""
        leaf = self.leaves.leaf.get(("pair", i, j))
        if not isinstance(leaf, ConeLeaf):
            return False
        kind = tpf.radial_kind(d.partner, st.event, st.laws)
        g_open = (self.st.event.expr - self.st.event.threshold).subs(self.t, x)
        return ((kind, d.partner.coords, d.partner.T) == leaf.key[:3]
                and sp.expand(st.event.expr - st.event.threshold - g_open) == 0)

    def _exact(self, expr, x):
        dirs = self.leaves.dirs({self.t: x})
        return exact_value(expr, {self.t: x}, dirs)

    def set_symbol(self, T):
        """The leaf symbol of MI(C; V_T) for a sorted tuple T of features (registering it on first
        use, and checking it at every special point already checked); raises NoEnclosure."""
        leaves = self.leaves
        if len(T) == 1:
            return leaves.symbol[("mi_c", T[0])]
        if len(T) == 2:
            return leaves.symbol[("pair",) + T]
        q = ("set", T)
        if q not in leaves.symbol:
            d = self.st.mi_class_set(T)
            if not self._reduced(q, d):
                if len(d.reduced) != 2:
                    raise NoEnclosure(f"{self._set_label(T)}: {len(d.reduced)} features left "
                                      "after the reductions (no leaf)")
                self._alias(q, ("pair",) + tuple(sorted(d.reduced)))
            self._sets.add(T)
            for x in self._checked:
                self._check_set(T, x, joint_structure(leaves.pv.bound_at({leaves.param: x})), {})
        return leaves.symbol[q]

    def _set_label(self, T) -> str:
        return "MI(C;{" + ",".join(self.leaves.pv.labels[i] for i in T) + "})"

    def _point_value(self, d, st, x, hc_pt, opened, pair):
        """The exact value at the point ``x`` of MI(C; V_S) with derivation ``d`` there (None:
        the same integral over directions as the open pair leaf, continuous); raises
        NoEnclosure."""
        if d.kind == "zero":
            return sp.Integer(0)
        if d.kind == "class-entropy":
            return hc_pt
        if d.kind == "single":
            return opened(self.leaves.symbol[("mi_c", d.reduced[0])])
        if d.kind == "two-point" and self._probability(d.partner) is not None:
            return hc_pt - LN2 * exact_value(self._probability(d.partner), {self.t: x},
                                             self.leaves.dirs({self.t: x}))
        if d.kind == "two-point" and d.expr is not None:
            return hc_pt - LN2 * d.expr
        if d.kind == "two-point-cone" and pair is not None and self._same_cone(*pair, d, st, x):
            return None
        raise NoEnclosure("no exact value")

    def _check_set(self, T, x, st, leaf_exact):
        """The set T derived at the point ``x`` against its open leaf (raises NoEnclosure)."""
        hc_pt = _class_entropy_at(st, x)
        d = st.mi_class_set(T)
        pair = tuple(sorted(d.reduced)) if len(d.reduced) == 2 else None
        try:
            v = self._point_value(d, st, x, hc_pt, lambda e: self.opened(e, x, leaf_exact), pair)
        except NoEnclosure:
            raise NoEnclosure(f"{self._set_label(T)} at {x}: no exact value") from None
        if v is not None:
            _same(v, self.opened(self.leaves.symbol[("set", T)], x, leaf_exact),
                  f"{self._set_label(T)} at {x}")

    # ----- the identities --------------------------------------------------------------------------
    def kind(self, d) -> str:
        """"+inf", "-inf", "zero" or "identity" for ("cmi" | "given" | "hpair", i, j)."""
        what, i, j = d
        if what == "cmi":
            return "zero" if i == j else "identity"
        if what == "given":
            return self.st.mi_given_class(i, j).kind
        return self.st.joint_entropy_class(i, j).kind

    def _terms(self, d) -> list:
        """The signed leaf symbols of an identity (SYM_INF for an infinite leaf)."""
        what, i, j = d
        sym = self.leaves.symbol

        def pair():
            return sym[("pair", min(i, j), max(i, j))]

        if what == "cmi":
            return [pair(), _neg(sym[("mi_c", j)])]
        if what == "given":
            return [sym[("mi", i, j)], _neg(sym[("mi_c", i)]), _neg(sym[("mi_c", j)]), pair()]
        return [sym[("h", i)], sym[("h", j)], _neg(sym[("mi", i, j)]), sym[("hc",)],
                _neg(pair())]

    def expression(self, d, zeros: frozenset):
        """The quantity ``d`` as an expanded sum of leaf symbols (the symbols in ``zeros`` are 0
        on the cell), 0, or SYM_INF for an infinite kind."""
        key = (d, zeros)
        if key not in self._exprs:
            kind = self.kind(d)
            if kind in self.INFINITE:
                out = SYM_INF
            elif kind == "zero":
                out = sp.Integer(0)
            else:
                terms = self._terms(d)
                if SYM_INF in terms:
                    raise NoEnclosure(f"{self._label(d)}: an infinite term")
                out = self._closed_leaf(d, terms) if d[0] == "hpair" else None
                if out is None:
                    out = sp.expand(sp.Add(*terms).xreplace({z: 0 for z in zeros}))
            self._exprs[key] = out
        return self._exprs[key]

    def closed_form(self, d):
        """H(V_i,V_j,C) (``d`` = ("hpair", i, j), an identity) as one closed form in t when every
        term has one (else None): what its zeros inside the range are solved from
        (:mod:`fstheory.atlas.poles`)."""
        terms = self._terms(d)
        if self.kind(d) != "identity" or SYM_INF in terms:
            return None
        if d in self._closed_forms:
            return self._closed_forms[d]
        s = sp.Add(*terms)
        closed = self.leaves.closed_forms(s.free_symbols)
        if closed is None:
            out = None
        else:
            # the integrals (constants such as h(Y^2) of Scenario II) are opaque symbols for
            # the cancellation: sympy would otherwise evaluate them numerically to order the
            # terms (minutes for DISR); an identity in independent symbols stays one after
            # they are put back
            e = sp.expand(s.xreplace(closed))
            opaque = {i: sp.Dummy() for i in e.atoms(sp.Integral)}
            out = sp.cancel(e.xreplace(opaque)).xreplace({v: i for i, v in opaque.items()})
        self._closed_forms[d] = out
        return out

    def _closed_leaf(self, d, terms):
        """H(V_i,V_j,C) as one leaf of its own closed form in t, when every term has one and
        the sum is a polynomial in t and ln t (else None); equal forms share one leaf, so ties
        stay exact. A divisor of DISR: the difference of its terms'
        enclosures cannot exclude 0 where it tends to 0 (H(Z,X,C_k) = k ln 2 / 2 in Scenario I,
        a pole at k = 0; 2 ln(2 delta) + k/2 at a pole inside a delta sweep), the closed
        form's monotone enclosure does."""
        leaves = self.leaves
        form = self.closed_form(d)
        if form is None:
            return None
        if is_exact_zero(form):
            return sp.Integer(0)
        u = sp.Dummy("u")
        if form.free_symbols != {self.t} or not form.xreplace({sp.log(self.t): u}).is_polynomial(
                self.t, u):
            return None  # (a removable singularity, as in log(1 - k)/k, has no enclosure)
        if d not in leaves.leaf:
            self._share(d, self._closed, form, "H",
                        lambda: GenericLeaf(form, self.t, lambda x, e=form: self._exact(e, x)))
        return leaves.symbol[d]

    def _label(self, d) -> str:
        what, i, j = d
        a, b = self.leaves.pv.labels[i], self.leaves.pv.labels[j]
        return {"cmi": f"MI(C;{a}|{b})", "given": f"MI({a};{b}|C)", "hpair": f"H({a},{b},C)"}[what]

    # ----- special points --------------------------------------------------------------------------
    def opened(self, sym_expr, x, memo: dict):
        """An expression in leaf symbols with each leaf's exact value at the point ``x``
        (``memo``: symbol -> value, filled as leaves are read)."""
        e = sp.sympify(sym_expr)
        for s in e.free_symbols - set(memo):
            memo[s] = self.leaves.leaf_by_symbol[s].exact(x)
        return e.xreplace(memo)

    def check_point(self, x) -> None:
        """Prove that every joint quantity derived at the special point ``x`` equals the open
        form's value there (its one-sided limit); raises NoEnclosure naming the first that does
        not."""
        if x in self._checked:
            return
        leaves = self.leaves
        pv = leaves.pv
        st = joint_structure(pv.bound_at({leaves.param: x}))
        leaf_exact: dict = {}

        def opened(sym_expr):
            return self.opened(sym_expr, x, leaf_exact)

        hc_pt = _class_entropy_at(st, x)
        _same(hc_pt, opened(leaves.symbol[("hc",)]), f"H(C) at {x}")
        for i in range(self.n):
            for j in range(i + 1, self.n):
                d = st.mi_class_set((i, j))
                try:
                    # None: the same integral over directions at the point, continuous
                    v = self._point_value(d, st, x, hc_pt, opened, (i, j))
                except NoEnclosure:
                    raise NoEnclosure(f"MI(C;{{{pv.labels[i]},{pv.labels[j]}}}) at {x}: no exact "
                                      "value") from None
                if v is not None:
                    _same(v, opened(leaves.symbol[("pair", i, j)]),
                          f"MI(C;{{{pv.labels[i]},{pv.labels[j]}}}) at {x}")
                for what, pt_kind in (("given", st.mi_given_class(i, j).kind),
                                      ("hpair", st.joint_entropy_class(i, j).kind)):
                    dd = (what, i, j)
                    open_kind = self.kind(dd)
                    if pt_kind == open_kind:
                        continue  # the same identity of continuous leaves, or the same constant
                    if pt_kind in self.INFINITE or open_kind in self.INFINITE:
                        raise NoEnclosure(f"{self._label(dd)} is {pt_kind} at {x} but "
                                          f"{open_kind} on the open range")
                    _same(sp.Integer(0), opened(self.expression(dd, frozenset())),
                          f"{self._label(dd)} at {x}")
        for T in self._sets:
            self._check_set(T, x, st, leaf_exact)
        self._checked.add(x)


def _class_entropy_at(st, x):
    """H(C) at the special point ``x`` from the structure ``st`` derived there: 0 or ln 2
    (raises NoEnclosure when it comes from the numerical route)."""
    hc = st.class_entropy()
    if hc.kind == "numeric":
        raise NoEnclosure(f"H(C) at {x} comes from the numerical route")
    return sp.Integer(0) if hc.kind == "zero" else LN2


def _neg(s):
    return SYM_INF if s is SYM_INF else -s


def _same(a, b, what: str) -> None:
    if a is SYM_INF or b is SYM_INF or not is_exact_zero(sp.sympify(a) - sp.sympify(b)):
        raise NoEnclosure(f"{what}: the value derived at the point ({a}) is not the limit of the "
                          f"open range's form ({b})")
