"""Derive, for a declared scenario and general parameters, how each quantity is obtained.

For every h(V_i), MI(C, V_i) and MI(V_i, V_j) the derivation, with the parameters as symbols, is
a typed derivation (:mod:`fstheory.engine.kinds`) whose ``kind`` is one of

* ``structure``: +inf (functional dependence, or the diagonal) or 0 (independence, or a symmetry
  of the class rule), with the reason (:class:`~fstheory.engine.kinds.Structural`);
* ``closed``: a sympy expression in the scenario's parameter symbols, from law algebra
  (:mod:`fstheory.theory.law_algebra`) or from the scenario's declared closed forms, given its
  specialised kind by what it is (a skew-normal expectation, Scenario I's class series,
  :func:`~fstheory.engine.kinds.closed_kind`);
* ``numeric``: no closed form known; the value comes from the numerical route
  (:class:`~fstheory.engine.kinds.Numerical`).

The derivation depends on the declaration only, so it is computed once per scenario content
(a cache keyed by the declaration's content, not by object identity) and reused for every
parameter point; at a point :mod:`fstheory.engine.resolve` checks the structure again with the
bound numbers first. It is also what the general-expression tables of the reports render.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from fstheory.engine.kinds import Derivation, Numerical, Structural, closed_kind
from fstheory.scenarios.declaration import Scenario
from fstheory.theory import law_algebra, structure, uniform_class
from fstheory.theory.determination import univariate_partners
from fstheory.theory.budget import DEFAULT_SECONDS, SymbolicTimeout, symbolic_budget
from fstheory.theory.uniform_class import mi_class_expression

__all__ = ["Derivation", "ScenarioContent", "ScenarioDerivation", "class_reduction", "declaration_key", "derive",
           "pair_reduction", "reduce_bijection", "reduce_monotone"]


@dataclass(frozen=True)
class ScenarioDerivation:
    scenario: Scenario
    entropy: tuple
    mi_class: tuple
    mi_features: tuple


def declaration_key(scenario: Scenario) -> tuple:
    """A hashable key of ``scenario``'s declaration content (name, parameters, laws, features,
    rule, closed forms): two objects declaring the same scenario have the same key."""
    closed = scenario.closed_forms or {}
    return (
        scenario.name,
        tuple((p.name, p.domain) for p in scenario.parameters),
        tuple((s, repr(law)) for s, law in scenario.base.items()),
        tuple(f.expr for f in scenario.features),
        repr(scenario.class_rule),
        tuple(sorted(((k, tuple(sorted(v.items(), key=lambda kv: sp.srepr(kv[0]))))
                      for k, v in closed.items()), key=lambda kv: str(kv[0])))
        if isinstance(closed, dict) else repr(closed),
    )


class ScenarioContent:
    """A scenario compared and hashed by its declaration's content (for the cache of
    :func:`derive`): two objects declaring the same laws, features, rule and closed forms share
    one derivation."""

    __slots__ = ("scenario", "_key")

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self._key = declaration_key(scenario)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other) -> bool:
        return isinstance(other, ScenarioContent) and self._key == other._key


def derive(scenario: Scenario) -> ScenarioDerivation:
    """The derivation of every quantity of ``scenario`` (kept per declaration content)."""
    return _derived(ScenarioContent(scenario))


@lru_cache(maxsize=64)
def _derived(content: ScenarioContent) -> ScenarioDerivation:
    return _derive(content.scenario)


def reduce_bijection(expr: sp.Expr, laws: dict) -> sp.Expr:
    """MI is invariant under one-to-one maps (Section 6): g(B) -> B for g strictly monotone on
    the support of B (a*B + c, B^3, exp(B)); c1 B1 + c2 B2 + e -> minus e."""
    base = reduce_monotone(expr, laws)
    if base is not expr:
        return base
    bases = sorted(structure.bases_of(expr, laws), key=str)
    lin = law_algebra.linear_parts(expr, bases)
    if lin is None:
        return expr
    coefs, const = lin
    if len(bases) == 1:
        return bases[0]
    return sp.expand(expr - const)


def reduce_monotone(expr: sp.Expr, laws: dict) -> sp.Expr:
    """B when ``expr`` is a strictly monotone function g(B) of one base variable on its support
    (MI(V, g(B)) = MI(V, B) for every V and for the class), else ``expr`` itself."""
    base = law_algebra.injective_base(expr, laws)
    return expr if base is None else base


def class_reduction(expr: sp.Expr, form: sp.Expr, laws: dict) -> sp.Expr:
    """B when ``expr`` = g(B) is a function of one base variable B and the class rule's form is
    unchanged by every level-set partner map B -> m B + q of g (B -> -B for B^2 in a rule even
    in B), else ``expr``. The class is then a function of g(B) and of variables independent of
    B, so MI(C, B | g(B)) = 0 and, by the chain rule, MI(C, g(B)) = MI(C, B)."""
    bases = structure.bases_of(expr, laws)
    if len(bases) != 1:
        return expr
    (B,) = bases
    partners = univariate_partners(sp.expand(expr), B, laws[B])
    if partners is None:
        return expr
    form = sp.expand(sp.sympify(form))
    if all(sp.expand(form.subs(B, m * B + q) - form) == 0 for m, q in partners[1:]):
        return B
    return expr


def _derive_entropy(expr, laws) -> Derivation:
    law = law_algebra.law_of(expr, laws)
    if law is not None and law.entropy() is not None:
        return closed_kind(sp.simplify(law.entropy()), f"law {law!r}")
    form = law_algebra.monotone_entropy(expr, laws)
    if form is not None:
        return closed_kind(form, "change of variables: h(g(B)) = h(B) + E[ln|g'(B)|], g "
                                 "strictly monotone")
    return Numerical("entropy", (expr,), "no closed-form law; numerical integration of -f ln f")


def _derive_mi_class(expr, scenario: Scenario, laws) -> Derivation:
    rule = scenario.class_rule
    form = sp.expand(sp.sympify(rule.rule_form()))
    class_vars = structure.bases_of(form, laws)
    if structure.bases_of(expr, laws).isdisjoint(class_vars):
        return Structural(0, "independent of the class (no common base variable)")
    tau = structure.class_symmetry(expr, form, laws)
    if tau is not None:
        return Structural(0, f"symmetry {tau.describe()} fixes the feature and swaps the classes")
    if structure.gaussian_independent(expr, form, laws):
        return Structural(0, "jointly normal and uncorrelated with the rule")
    numeric = Numerical("mi_class", (expr,), "numerical integration of the mixed MI")
    base = class_reduction(expr, form, laws)
    if base is not expr and law_algebra.linear_parts(expr, [base]) is None:
        why = ("a one-to-one image" if law_algebra.injective_base(expr, laws) is not None
               else "the class depends on it only through the feature")
        numeric = Numerical("mi_class", (base,), f"numerical integration of the mixed MI of "
                            f"{base} ({why})")
    if not rule.is_linear:
        return numeric
    weights = {b: sp.sympify(w) for b, w in rule.weights.items()}
    threshold = sp.sympify(rule.threshold)
    reduced = reduce_bijection(expr, laws)
    known = (scenario.closed_forms or {}).get("mi_class", {})
    for key, form in known.items():
        if sp.expand(key - reduced) == 0:
            note = "" if reduced == expr else f" (one-to-one image of {reduced})"
            return closed_kind(form, f"declared closed form for MI(C, {key}){note}", scenario)
    found = _uniform_class(expr, scenario)
    if found is not None:
        return closed_kind(mi_class_expression(*found), "uniform laws, class 1{A + kB >= 0}: "
                           "Scenario I's closed form", scenario)
    form = law_algebra.gaussian_class_mi(reduced, weights, threshold, laws)
    if form is not None:
        return closed_kind(form, "bivariate normal (V, L): skew-normal expectation", scenario)
    return numeric


def _uniform_class(expr, scenario: Scenario):
    """(which, k) of :func:`fstheory.theory.uniform_class.recognise` for MI(C, expr), the class
    weight k a number or a parameter with domain [0, 1]: the closed form depends on the laws
    and the rule only, wherever they are declared."""
    weights = [sp.sympify(w) for w in scenario.class_rule.weights.values()]
    swept = next((w for w in weights if isinstance(w, sp.Symbol)), None)
    return uniform_class.recognise(scenario, {}, expr, swept)


def _derive_pair(e1, e2, laws) -> Derivation:
    if structure.bases_of(e1, laws).isdisjoint(structure.bases_of(e2, laws)):
        return Structural(0, "independent (disjoint base variables)")
    if structure.jacobian_rank_deficient(e1, e2, laws):
        return Structural(sp.oo, "functionally dependent (Jacobian of rank 1)")
    form = law_algebra.pair_mi(e1, e2, laws)
    if form is not None:
        return closed_kind(form, "h(V) - h(V | U) from the laws")
    r1, r2 = pair_reduction(e1, e2, laws)
    if (r1, r2) != (e1, e2):
        note = f"MI({r1}, {r2}): one-to-one images"
        form = law_algebra.pair_mi(r1, r2, laws)
        if form is not None:
            return closed_kind(form, f"h(V) - h(V | U) from the laws, {note}")
        return Numerical("mi_pair", (r1, r2), f"numerical integration of {note}")
    return Numerical("mi_pair", (e1, e2), "numerical integration")


def pair_reduction(e1: sp.Expr, e2: sp.Expr, laws: dict) -> tuple:
    """(e1, e2) with a feature that is a strictly monotone non-affine function of one base
    variable replaced by that variable (MI is invariant under one-to-one maps of either
    argument; affine ones are left as they are, the route handles them directly)."""

    def one(e):
        base = reduce_monotone(e, laws)
        return e if base is e or law_algebra.linear_parts(e, [base]) is not None else base

    return one(e1), one(e2)


def _budgeted(step, what: str, quantity: str, args: tuple) -> Derivation:
    """One derivation inside the symbolic time budget; a step that runs out of time leaves the
    quantity to the numerical route (with the reason), never hangs."""
    try:
        with symbolic_budget(DEFAULT_SECONDS, what):
            return step()
    except SymbolicTimeout as exc:
        return Numerical(quantity, args, f"no closed form ({exc})")


def _derive(scenario: Scenario) -> ScenarioDerivation:
    laws = dict(scenario.base)
    exprs = [f.expr for f in scenario.features]
    n = len(exprs)
    entropy = tuple(_budgeted(lambda e=e: _derive_entropy(e, laws), f"the law of {e}",
                              "entropy", (e,)) for e in exprs)
    mi_class = tuple(_budgeted(lambda e=e: _derive_mi_class(e, scenario, laws), f"MI(C, {e})",
                               "mi_class", (e,)) for e in exprs)
    matrix = [[None] * n for _ in range(n)]
    for i in range(n):
        matrix[i][i] = Structural(sp.oo, "a feature with itself")
        for j in range(i + 1, n):
            matrix[i][j] = matrix[j][i] = _budgeted(
                lambda i=i, j=j: _derive_pair(exprs[i], exprs[j], laws),
                f"MI({exprs[i]}, {exprs[j]})", "mi_pair", (exprs[i], exprs[j]))
    return ScenarioDerivation(scenario, entropy, mi_class, tuple(map(tuple, matrix)))
