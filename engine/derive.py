"""Derive, for a declared scenario and general parameters, how each quantity is obtained.

For every h(V_i), MI(C, V_i) and MI(V_i, V_j) the derivation, with the parameters as symbols, is
one of

* ``structure``: +inf (functional dependence, or the diagonal) or 0 (independence, or a symmetry
  of the class rule), with the reason;
* ``closed``: a sympy expression in the scenario's parameter symbols, from law algebra
  (:mod:`fstheory.theory.law_algebra`) or from the scenario's declared closed forms;
* ``numeric``: no closed form known; the value comes from the numerical route
  (:mod:`fstheory.theory.numeric`).

The derivation depends on the declaration only, so it is computed once per scenario and reused
for every parameter point (:mod:`fstheory.engine.evaluate`, which re-checks every structural
shortcut with the bound numbers first). It is also what the general-expression tables of the
reports render.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from fstheory.scenarios.declaration import Scenario
from fstheory.theory import law_algebra, structure
from fstheory.theory.budget import DEFAULT_SECONDS, SymbolicTimeout, symbolic_budget

__all__ = ["Derivation", "ScenarioDerivation", "derive"]


@dataclass(frozen=True)
class Derivation:
    kind: str  # "structure" | "closed" | "numeric"
    expr: sp.Expr | None = None  # closed form; for structure: sp.oo or 0
    reason: str = ""


@dataclass(frozen=True)
class ScenarioDerivation:
    scenario: Scenario
    entropy: tuple
    mi_class: tuple
    mi_features: tuple


_CACHE: dict[int, tuple[Scenario, ScenarioDerivation]] = {}


def derive(scenario: Scenario) -> ScenarioDerivation:
    """The (cached) derivation of every quantity of ``scenario``."""
    hit = _CACHE.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    result = _derive(scenario)
    _CACHE[id(scenario)] = (scenario, result)
    return result


def _reduce_bijection(expr: sp.Expr, laws: dict) -> sp.Expr:
    """MI is invariant under one-to-one maps (Section 6): a*B + c -> B; c1 B1 + c2 B2 + e -> minus e."""
    bases = sorted(structure.bases_of(expr, laws), key=str)
    lin = law_algebra.linear_parts(expr, bases)
    if lin is None:
        return expr
    coefs, const = lin
    if len(bases) == 1:
        return bases[0]
    return sp.expand(expr - const)


def _derive_entropy(expr, laws) -> Derivation:
    law = law_algebra.law_of(expr, laws)
    if law is not None and law.entropy() is not None:
        return Derivation("closed", sp.simplify(law.entropy()), f"law {law!r}")
    return Derivation("numeric", reason="no closed-form law; numerical integration of -f ln f")


def _derive_mi_class(expr, scenario: Scenario, laws) -> Derivation:
    rule = scenario.class_rule
    form = sp.expand(sp.sympify(rule.rule_form()))
    class_vars = structure.bases_of(form, laws)
    if structure.bases_of(expr, laws).isdisjoint(class_vars):
        return Derivation("structure", sp.Integer(0), "independent of the class (no common base variable)")
    tau = structure.class_symmetry(expr, form, laws)
    if tau is not None:
        return Derivation(
            "structure",
            sp.Integer(0),
            f"symmetry {tau.describe()} fixes the feature and swaps the classes",
        )
    if structure.gaussian_independent(expr, form, laws):
        return Derivation("structure", sp.Integer(0), "jointly normal and uncorrelated with the rule")
    if not rule.is_linear:
        return Derivation("numeric", reason="numerical integration of the mixed MI")
    weights = {b: sp.sympify(w) for b, w in rule.weights.items()}
    threshold = sp.sympify(rule.threshold)
    reduced = _reduce_bijection(expr, laws)
    known = (scenario.closed_forms or {}).get("mi_class", {})
    for key, form in known.items():
        if sp.expand(key - reduced) == 0:
            note = "" if reduced == expr else f" (one-to-one image of {reduced})"
            return Derivation("closed", form, f"declared closed form for MI(C, {key}){note}")
    form = law_algebra.gaussian_class_mi(reduced, weights, threshold, laws)
    if form is not None:
        return Derivation("closed", form, "bivariate normal (V, L): skew-normal expectation")
    return Derivation("numeric", reason="numerical integration of the mixed MI")


def _derive_pair(e1, e2, laws) -> Derivation:
    if structure.bases_of(e1, laws).isdisjoint(structure.bases_of(e2, laws)):
        return Derivation("structure", sp.Integer(0), "independent (disjoint base variables)")
    if structure.jacobian_rank_deficient(e1, e2, laws):
        return Derivation("structure", sp.oo, "functionally dependent (Jacobian of rank 1)")
    form = law_algebra.pair_mi(e1, e2, laws)
    if form is not None:
        return Derivation("closed", form, "h(V) - h(V | U) from the laws")
    return Derivation("numeric", reason="numerical integration")


def _budgeted(step, what: str) -> Derivation:
    """One derivation inside the symbolic time budget; a step that runs out of time leaves the
    quantity to the numerical route (with the reason), never hangs."""
    try:
        with symbolic_budget(DEFAULT_SECONDS, what):
            return step()
    except SymbolicTimeout as exc:
        return Derivation("numeric", reason=f"no closed form ({exc})")


def _derive(scenario: Scenario) -> ScenarioDerivation:
    laws = dict(scenario.base)
    exprs = [f.expr for f in scenario.features]
    n = len(exprs)
    entropy = tuple(_budgeted(lambda e=e: _derive_entropy(e, laws), f"the law of {e}") for e in exprs)
    mi_class = tuple(_budgeted(lambda e=e: _derive_mi_class(e, scenario, laws), f"MI(C, {e})")
                     for e in exprs)
    matrix = [[None] * n for _ in range(n)]
    for i in range(n):
        matrix[i][i] = Derivation("structure", sp.oo, "a feature with itself")
        for j in range(i + 1, n):
            matrix[i][j] = matrix[j][i] = _budgeted(
                lambda i=i, j=j: _derive_pair(exprs[i], exprs[j], laws), f"MI({exprs[i]}, {exprs[j]})")
    return ScenarioDerivation(scenario, entropy, mi_class, tuple(map(tuple, matrix)))
