r"""How each joint quantity of a bound scenario is obtained: structure, closed form, an identity,
or the numerical route.

The joint quantities reduce to three primitives -- H(C), MI(C, V_i) (the engine's
:mod:`fstheory.engine.derive`) and MI(C; V_S) for a set -- and to the pairwise values, by
identities that hold in the extended reals wherever their hypotheses hold:

* MI(C; V_i | V_j) = MI(C; {V_i, V_j}) - MI(C; V_j) (chain rule, Cover & Thomas Thm 2.5.2);
  finite, 0 on the diagonal;
* MI(V_i; V_j | C) = MI(V_i; V_j) - MI(C; V_i) - MI(C; V_j) + MI(C; {V_i, V_j}) when MI(V_i; V_j)
  is finite (two chain rules; the paper's eq. (MI_Chain_Rule)); then it is finite since
  MI(V_i; V_j | C) <= MI(V_i; V_j) + H(C). When (V_i, V_j) has no joint density (the Jacobian
  of rank 1: one feature a function of the other) while both are continuous, the same holds
  given each class (conditioning on an event of positive probability keeps each marginal
  absolutely continuous and the pair on the same null set): MI(V_i; V_j | C) = +inf, from the
  structure, never from inf - finite arithmetic. A constant feature gives 0;
* H(V_i, V_j, C) = h(V_i) + h(V_j) - MI(V_i; V_j) + H(C) - MI(C; {V_i, V_j}) for a pair with a
  joint density (h(V_i, V_j) + H(C | V_i, V_j)); -inf when there is none.

MI(C; V_S) for a set (:meth:`JointStructure.mi_class_set`) is reduced first, each step a proven
fact of :mod:`fstheory.theory.determination`: drop constant features and features independent of
the class and of the rest (no common base variable, or a linear feature of normal variables
uncorrelated with them: :func:`fstheory.theory.gaussian_projection.uncorrelated_features`); drop a feature that is a function of the others; then it is H(C) if
the class is a function of what is left, 0 if a class-swapping map fixes it, MI(C, V) of the one
feature left, MI(C, L) when the features reveal the class's part L of their base variables and
the class's other variables are independent of them (:mod:`fstheory.theory.sufficiency`; MI(C, V_j)
when L is a one-to-one function of a feature V_j), MI(C, T) for linear features of normal
variables and T the projection of the class form's normal part on them
(:mod:`fstheory.theory.gaussian_projection`), ``H(C) - ln 2 * P(C != C o tau)`` for a
two-point fiber, and else the numerical route. Two sets with the same derivation key have equal MI exactly (used for ties and for
relevance).

H(C) is 0 for a constant class, ln 2 when a class-swapping map exists for the empty set
(P(C=1) = 1/2), else numerical.

Everything is derived at the bound parameters (a weight that is 0 there, or a feature constant
there, changes the structure).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> s = joint_structure(get_scenario("uniform").bind(k="0.2"))
>>> s.class_entropy().kind
'ln2'
>>> d = s.mi_class_set((0, 6)); d.kind, d.reason
('class-entropy', 'C is a function of (X, Y)')
>>> s.mi_class_set((0, 7)).reason
'X^2 is a function of (X); MI(C, X) of the one feature left'
>>> d = s.mi_class_set((0, 2)); d.kind, d.expr
('two-point', 1/10)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from fstheory.scenarios.declaration import BoundScenario
from fstheory.theory import determination as det
from fstheory.theory import gaussian_projection as gp
from fstheory.theory import normal_fibre as nf
from fstheory.theory import sign_fold as sf
from fstheory.theory import sufficiency as suff
from fstheory.theory import two_point_fibre as tpf
from fstheory.theory import uniform_line as ul
from fstheory.theory.laws import Uniform
from fstheory.theory.structure import jacobian_rank_deficient

__all__ = ["ClassEntropyDerivation", "SetDerivation", "PairDerivation", "JointStructure",
           "ParametricStructure", "joint_structure", "class_event"]


@dataclass(frozen=True)
class ClassEntropyDerivation:
    kind: str  # "zero" (constant class) | "ln2" (P(C=1) = 1/2) | "numeric"
    reason: str


@dataclass(frozen=True)
class SetDerivation:
    """How MI(C; V_S) is obtained.

    ``kind``: "zero", "class-entropy" (= H(C)), "single" (= MI(C, V_r) of the one feature
    ``reduced[0]`` left), "two-point" (= H(C) - ln 2 * ``expr``), "two-point-cone" (= H(C) minus
    the integral over directions of :func:`fstheory.theory.two_point_fibre.cone_entropy` for
    ``partner``), "normal-fibre" (= H(C) minus the nested integral of
    :mod:`fstheory.theory.normal_fibre`, ``partner`` its
    :class:`~fstheory.theory.normal_fibre.NormalFibre`), "sign-fold" (= H(C) - ln 2 *
    P(|L| < |a||Y - m|), ``partner`` the
    :class:`~fstheory.theory.sign_fold.SignFold`), "uniform-line" (= H(C) - E[H_b] over a line fibre of uniform variables,
    ``partner`` the :class:`~fstheory.theory.uniform_line.LineFibre`), "sufficient" (= MI(C, ``expr``), one expression of the base variables that is
    a function of the features and carries all they say about the class:
    :mod:`fstheory.theory.sufficiency`), "numeric" (the numerical route on the ``reduced``
    features). A two-point
    kind keeps its map in ``partner`` (a reflection :class:`~fstheory.theory.determination.SignedMap`
    or an :class:`~fstheory.theory.two_point_fibre.AffinePartner`).
    """

    kind: str
    reduced: tuple
    reason: str
    expr: sp.Expr | None = field(default=None, compare=False)
    partner: object = field(default=None, compare=False)  # the map of a two-point kind

    @property
    def key(self) -> tuple:
        """Equal keys mean equal MI, exactly."""
        if self.kind in ("zero", "class-entropy"):
            return (self.kind,)
        if self.kind == "sufficient":
            return (self.kind, self.expr)
        return (self.kind, self.reduced)


@dataclass(frozen=True)
class PairDerivation:
    """MI(V_i; V_j | C) or H(V_i, V_j, C): "+inf" / "-inf" / "zero" from structure, or
    "identity" (from the primitives)."""

    kind: str
    reason: str


def class_event(bound: BoundScenario) -> det.ClassEvent:
    """The class of a bound scenario as ``C = 1{expr >= threshold}``: the bound rule's form
    (linear or not) with threshold 0."""
    return det.ClassEvent(bound.class_rule().form, 0)


def _join(labels) -> str:
    return "(" + ", ".join(labels) + ")"


class JointStructure:
    """The structural facts of one bound scenario, computed on demand and kept."""

    def __init__(self, bound: BoundScenario):
        self.bound = bound
        self.laws = bound.laws()
        self.exprs = [sp.sympify(e) for e in bound.feature_exprs()]
        self.labels = bound.display_labels()
        self.event = class_event(bound)
        self._sets: dict = {}
        self._hc: ClassEntropyDerivation | None = None

    # ----- facts ----------------------------------------------------------------------------------
    def constant(self, i: int) -> bool:
        """V_i is constant at the bound parameters (no base variable left)."""
        return not det.bases(self.exprs[i], self.laws)

    def class_constant(self) -> bool:
        return not det.bases(self.event.expr, self.laws)

    def determines_class(self, S) -> bool:
        return self.class_constant() or det.determines([self.exprs[i] for i in S],
                                                       self.event.expr, self.laws)

    def function_of(self, i: int, S) -> bool:
        """V_i is a function of V_S (proven)."""
        others = tuple(self.exprs[j] for j in S)
        return _function_of(others, self.exprs[i], det.LawsByContent(self.laws))

    def uncertainty_witness(self, S):
        """Proof that V_S does not determine the class (or None)."""
        if self.class_constant():
            return None
        return det.uncertainty_witness([self.exprs[i] for i in S], self.event, self.laws)

    def independent_of_rest(self, S) -> frozenset:
        """Members of S independent of the class and of the other members."""
        S = list(S)
        pos = det.independent_features([self.exprs[i] for i in S], self.event, self.laws)
        return frozenset(S[p] for p in pos)

    def singular_pair(self, i: int, j: int) -> bool:
        """(V_i, V_j) has no joint density (both non-constant, Jacobian of rank < 2)."""
        if i == j:
            return not self.constant(i)
        if self.constant(i) or self.constant(j):
            return False
        ei, ej = self.exprs[i], self.exprs[j]
        return _singular(ei, ej, det.LawsByContent(self.laws))

    # ----- H(C) -----------------------------------------------------------------------------------
    def class_entropy(self) -> ClassEntropyDerivation:
        if self._hc is None:
            if self.class_constant():
                self._hc = ClassEntropyDerivation("zero", "the class is constant at these parameters")
            else:
                tau = det.class_swap([], self.event, self.laws)
                if tau is not None:
                    self._hc = ClassEntropyDerivation(
                        "ln2", f"P(C=1) = 1/2: the map {tau.describe()} preserves the laws and "
                        "swaps the classes")
                else:
                    self._hc = ClassEntropyDerivation("numeric", "numerical route for P(C=1)")
        return self._hc

    # ----- MI(C; V_S) -----------------------------------------------------------------------------
    def mi_class_set(self, S) -> SetDerivation:
        S = tuple(sorted(set(S)))
        if S not in self._sets:
            self._sets[S] = self._derive_set(S)
        return self._sets[S]

    def _derive_set(self, S: tuple) -> SetDerivation:
        L = self.labels
        if self.class_constant():
            return SetDerivation("zero", (), "the class is constant at these parameters")
        notes = []
        rest = [i for i in S if not self.constant(i)]
        if len(rest) < len(S):
            notes.append(f"{_join(L[i] for i in S if i not in rest)} constant at these parameters")
        dropped = self.independent_of_rest(rest)
        if not dropped and len(rest) > 1:
            found = gp.uncorrelated_features([self.exprs[i] for i in rest], self.event, self.laws)
            dropped = frozenset(rest[p] for p in found[:1])  # one at a time: the others change
        if dropped:
            rest = [i for i in rest if i not in dropped]
            notes.append(f"{_join(L[i] for i in sorted(dropped))} independent of the class and of "
                         "the other features")
        changed = True
        while changed and len(rest) > 1:
            changed = False
            for i in reversed(rest):
                others = [j for j in rest if j != i]
                if self.function_of(i, others):
                    rest.remove(i)
                    notes.append(f"{L[i]} is a function of {_join(L[j] for j in others)}")
                    changed = True
                    break
        reduced = tuple(rest)

        def done(kind, why, expr=None, partner=None):
            return SetDerivation(kind, reduced, "; ".join(notes + [why]), expr, partner)

        if not rest:
            return done("zero", "no feature left: independent of the class")
        if self.determines_class(rest):
            return done("class-entropy", f"C is a function of {_join(L[i] for i in rest)}")
        exprs = [self.exprs[i] for i in rest]
        tau = det.class_swap(exprs, self.event, self.laws)
        if tau is not None:
            return done("zero", f"the map {tau.describe()} preserves the laws, fixes "
                        f"{_join(L[i] for i in rest)} and swaps the classes")
        if len(rest) == 1:
            return done("single", f"MI(C, {L[rest[0]]}) of the one feature left")
        found = self._sufficient(rest)
        if found is not None:
            return found
        tau = det.two_point(exprs, self.event, self.laws)
        if tau is not None:
            p = self._reflection_probability(tau)
            if p is not None:
                return done("two-point", f"{_join(L[i] for i in rest)} reveals the base variables "
                            f"up to {tau.describe()}: P(C=1 | V_S) in {{0, 1/2, 1}}, "
                            "MI = H(C) - ln 2 * P(C != C o tau)", _expr(p), tau)
        fold = sf.sign_fold(exprs, self.event, self.laws)
        if fold is not None:
            Y = fold.variable
            return done("sign-fold", f"{_join(L[i] for i in rest)} reveal all the class uses "
                        f"but the sign of {Y - fold.centre}, symmetric and of either sign with "
                        "probability 1/2 given them: MI = H(C) - ln 2 * P(the two signs give "
                        "different classes)", partner=fold)
        return self._affine_two_point(rest, done)

    def _sufficient(self, rest) -> SetDerivation | None:
        """MI(C; V_S) = MI(C; L) for the class's part L of the features' base variables, when
        the class form splits as L + (terms of the other variables) and L is a function of V_S
        (:mod:`fstheory.theory.sufficiency`): "single" when L is a one-to-one function of a
        feature V_j (its MI, the same value), else "sufficient" with ``expr`` = L."""
        L = self.labels
        exprs = [self.exprs[i] for i in rest]
        form = suff.sufficient_form(exprs, self.event, self.laws)
        if form is not None:
            why = (f"C depends on {_join(L[i] for i in rest)} only through {form}, a function of "
                   "them (the class's other variables are independent of them)")
        else:
            form = gp.projection(exprs, self.event, self.laws)
            if form is None:
                return None
            if form == 0:
                return SetDerivation("zero", tuple(rest), f"{_join(L[i] for i in rest)} are "
                                     "jointly normal with the class form's normal part and "
                                     "uncorrelated with it: independent of the class")
            why = (f"C depends on {_join(L[i] for i in rest)} only through {form}, their linear "
                   "projection of the class form (jointly normal; the rest is independent of "
                   "them)")
        laws = det.LawsByContent(self.laws)
        vars_l = det.bases(form, self.laws)
        for j, e in enumerate(self.exprs):
            if (det.bases(e, self.laws) == vars_l and _function_of((e,), form, laws)
                    and _function_of((form,), e, laws)):
                return SetDerivation("single", (j,), f"{why}; {form} is a one-to-one function of "
                                     f"{L[j]}: MI(C, {L[j]})")
        return SetDerivation("sufficient", tuple(rest), f"{why}: MI(C, {form})", form)

    def _reflection_probability(self, tau):
        """P(C != C o tau) for a reflection tau (None: not obtained): in closed form for i.i.d.
        centred normal or Laplace variables (:func:`~fstheory.theory.two_point_fibre.radial_reflection_probability`,
        (2/pi) atan r or r/(1+r)), else by :func:`~fstheory.theory.determination.swap_probability`
        (which may leave an integral)."""
        partner = tpf.reflection_partner(tau)
        if partner is not None:
            p = tpf.radial_reflection_probability(partner, self.event, self.laws)
            if p is not None:
                return p
        return det.swap_probability(self.event, tau, self.laws)

    def _uniform_probability(self, tau):
        """P(both in the support, C != C o tau) for an affine partner under uniform laws."""
        return tpf.uniform_disagreement(tau, self.event, self.laws)

    def _affine_two_point(self, rest, done) -> SetDerivation:
        """A fibre {b, T b + t} whose two points have unequal densities
        (:mod:`fstheory.theory.two_point_fibre`)."""
        L = self.labels
        exprs = [self.exprs[i] for i in rest]
        tau = tpf.affine_partner(exprs, self.event, self.laws)
        if tau is None:
            return self._line_fibre(rest, done)
        reveals = f"{_join(L[i] for i in rest)} reveals the base variables up to {tau.describe()}"
        p = self._uniform_probability(tau)
        if p is not None:
            return done("two-point", f"{reveals}; the uniform density is the same at both points "
                        "where both lie in the support: MI = H(C) - ln 2 * P(both in the support, "
                        "C != C o tau)", _expr(p), tau)
        kind = tpf.radial_kind(tau, self.event, self.laws)
        if kind is not None:
            return done("two-point-cone", f"{reveals}; i.i.d. centred {kind} laws and a class "
                        "boundary through 0: MI = H(C) - H(C | V_S), H(C | V_S) one integral over "
                        "the directions where C != C o tau", partner=tau)
        fib = nf.normal_fibre(exprs, self.event, self.laws)
        if fib is not None:
            return done("normal-fibre", f"{reveals}; i.i.d. centred normal laws with unequal "
                        "densities at the two points and a class boundary off 0: MI = H(C) - "
                        "H(C | V_S), H(C | V_S) one nested integral over the log-likelihood ratio "
                        "of the two points", partner=fib)
        return self._line_fibre(rest, done)

    def _line_fibre(self, rest, done) -> SetDerivation:
        """Two affine features of uniform variables leaving one free direction
        (:mod:`fstheory.theory.uniform_line`), else the numerical route."""
        exprs = [self.exprs[i] for i in rest]
        fibre = ul.line_fibre(exprs, self.event, self.laws)
        if fibre is None:
            return done("numeric", "numerical route")
        return done("uniform-line", f"{_join(self.labels[i] for i in rest)} leave one free "
                    "direction of uniform variables: P(C=1 | V_S) is the class's share of a "
                    "segment, MI = H(C) - E[H_b], exact cells and one integral per strip",
                    partner=fibre)

    # ----- pairs given the class ------------------------------------------------------------------
    def mi_given_class(self, i: int, j: int) -> PairDerivation:
        L = self.labels
        if self.constant(i) or self.constant(j):
            c = L[i] if self.constant(i) else L[j]
            return PairDerivation("zero", f"{c} is constant at these parameters")
        if i == j:
            return PairDerivation("+inf", "a continuous feature with itself, given each class")
        if self.singular_pair(i, j):
            return PairDerivation("+inf", f"({L[i]}, {L[j]}) has no joint density (Jacobian of "
                                  "rank 1) and each is continuous given each class")
        for a, b in ((i, j), (j, i)):
            reach = det.bases(self.exprs[b], self.laws) | det.bases(self.event.expr, self.laws)
            if det.bases(self.exprs[a], self.laws).isdisjoint(reach):
                return PairDerivation("zero", f"{L[a]} is independent of ({L[b]}, C): no common "
                                      "base variable")
        return PairDerivation("identity", "MI(Vi;Vj) - MI(C,Vi) - MI(C,Vj) + MI(C;{Vi,Vj})")

    def joint_entropy_class(self, i: int, j: int) -> PairDerivation:
        L = self.labels
        if i == j:
            return PairDerivation("-inf", f"({L[i]}, {L[i]}) has no joint density")
        for a in (i, j):
            if self.constant(a):
                return PairDerivation("-inf", f"{L[a]} is constant at these parameters: no "
                                      "joint density")
        if self.singular_pair(i, j):
            return PairDerivation("-inf", f"({L[i]}, {L[j]}) has no joint density (Jacobian of "
                                  "rank 1)")
        return PairDerivation("identity", "h(Vi) + h(Vj) - MI(Vi;Vj) + H(C) - MI(C;{Vi,Vj})")


#: What :class:`ParametricStructure` returns for a two-point probability: left to the caller.
DEFERRED = object()


def _expr(p):
    return None if p is DEFERRED else p


class ParametricStructure(JointStructure):
    """The structure of ``scenario`` with the parameter ``name`` left as its symbol (the others
    bound to ``params``): every fact it derives is an identity in that symbol, so it holds at
    every value of the parameter where the class's and the features' base variables are the same
    as for a generic value (:meth:`degenerate_points` lists where they are not).

    Why: each fact is proved symbolically -- a fibre or a law-preserving map is found from the
    features and laws (class-free); "C is a function of V_S" and "tau swaps the classes" are
    polynomial identities in the base variables and the parameter; independence and "no common
    base variable" read base-variable sets, which only shrink where a coefficient vanishes. A
    fact that holds only at isolated values is not found, which weakens the derivation (a
    two-point or numerical kind) but never makes it wrong there.

    The two-point probabilities are not computed (``expr`` None, ``partner`` the map): they are
    functions of the parameter, obtained by the caller over an interval
    (:func:`fstheory.theory.two_point_fibre.uniform_disagreement_on`).
    """

    def __init__(self, scenario, params: dict, name: str):
        self.symbol = scenario.parameter(name).symbol
        super().__init__(BoundScenario(scenario, {**params, name: self.symbol}))

    def _reflection_probability(self, tau):
        return DEFERRED

    def _uniform_probability(self, tau):
        return DEFERRED if all(isinstance(self.laws[b], Uniform) for b in tau.coords) else None

    def degenerate_points(self, lo, hi) -> list | None:
        """The values of the parameter in (lo, hi) where a coefficient of the class expression or
        of a feature (as a polynomial in the base variables) vanishes, so that a base-variable set
        changes (None if they cannot be found exactly)."""
        s = self.symbol
        out = set()
        for e in [self.event.expr, *self.exprs]:
            syms = sorted(det.bases(e, self.laws), key=str)
            if s not in e.free_symbols:
                continue
            if not syms or not e.is_polynomial(*syms):
                return None
            for c in sp.Poly(e, *syms).coeffs():
                if s not in c.free_symbols:
                    continue
                try:
                    roots = sp.solveset(c, s, sp.Interval.open(lo, hi))
                except (NotImplementedError, ValueError, TypeError):
                    return None
                if roots is sp.S.EmptySet:
                    continue
                if not isinstance(roots, sp.FiniteSet):
                    return None
                out |= set(roots)
        return sorted(out, key=lambda r: float(r))


# Facts about the features alone (no class), kept across bindings by content: an atlas sweep
# derives the structure at every point, where only the class changes.


@lru_cache(maxsize=20000)
def _function_of(others: tuple, target, laws: det.LawsByContent) -> bool:
    return det.determines(list(others), target, laws.laws)


@lru_cache(maxsize=20000)
def _singular(ei, ej, laws: det.LawsByContent) -> bool:
    return jacobian_rank_deficient(ei, ej, laws.laws)


def joint_structure(bound: BoundScenario) -> JointStructure:
    """The :class:`JointStructure` of ``bound`` (a new one: its owner, e.g. the point of
    :class:`fstheory.engine.point.Point`, keeps it; the class-free facts it proves are kept
    across bindings by content)."""
    return JointStructure(bound)
