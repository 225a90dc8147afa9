"""One parameter point of a scenario, and what every derivation evaluated there shares.

A :class:`Point` holds the bound scenario (exact rational parameters), the parameters as arb
balls at each precision, exact sympy values of closed forms there (with one-sided limits at the
ends of a parameter's range), the numerical route at each working precision, the balls already
computed (so that a quantity read by several identities is integrated once per precision), and
the structural facts *decided at this point* with the bound numbers: a feature constant here
(``k*Y`` at k = 0), a class constant here, independence through disjoint base variables, a
class-swapping symmetry (its hypotheses -- threshold, symmetric laws -- checked with the
numbers), jointly normal uncorrelated forms, a class that is a function of the feature, a
Jacobian of rank 1. A fact is never carried from another point.

The point is the owner of these caches: it lives as long as the evaluation that made it (one
``fstheory values`` or ``order`` call, one point of an atlas sweep) and is never shared.
"""

from __future__ import annotations

import mpmath
import sympy as sp
from flint import arb

from fstheory.scenarios.declaration import BoundScenario
from fstheory.scenarios.domains import DOMAINS
from fstheory.theory import numeric, structure
from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.budget import DEFAULT_SECONDS, SymbolicTimeout, symbolic_budget
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.symbolic import exact_value

__all__ = ["Parameters", "Point", "limit_directions", "bits_for", "dps_for"]

#: decimal digits per bit
_LOG10_2 = 0.30102999566398120


def bits_for(digits: int) -> int:
    """Working bits that carry ``digits`` decimal digits."""
    return int(digits / _LOG10_2) + 1


def dps_for(bits: int) -> int:
    """Decimal digits carried by ``bits`` bits (the numerical route's ``mpmath.workdps``)."""
    return int(bits * _LOG10_2)


def limit_directions(bound: BoundScenario) -> dict:
    """Parameters at an end of a closed range ([0, 1]) and the side to approach them from."""
    out = {}
    for p in bound.scenario.parameters:
        side = DOMAINS[p.domain].side(bound.params[p.name])
        if side is not None:
            out[p.symbol] = side
    return out


class Parameters:
    """Exact parameter values and what closed forms evaluated there share: the values as balls
    per precision, exact sympy values (limits at the ends of a parameter's range), the balls
    computed so far. ``subs`` maps parameter symbols to exact sympy numbers (rational, or an
    exact irrational such as a zero of an entropy for the atlas); ``dirs`` the side from which a
    parameter at an end of its range is approached."""

    def __init__(self, subs: dict, dirs: dict | None = None):
        self.subs = dict(subs)
        self.symbols = tuple(sorted(self.subs, key=str))
        self.dirs = dict(dirs or {})
        self._balls: dict = {}
        self._exact: dict = {}
        self.memo: dict = {}  # (derivation key, bits) -> ball

    def balls(self, bits: int) -> tuple:
        """The parameters (in the order of :attr:`symbols`) as arb balls at ``bits``."""
        hit = self._balls.get(bits)
        if hit is None:
            with flint_precision(bits):
                hit = tuple(_ball(self.subs[s]) for s in self.symbols)
            self._balls[bits] = hit
        return hit

    def value(self, symbol) -> sp.Expr:
        return self.subs[symbol]

    def exact(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` at the point, exactly: substituted, or its one-sided limit where that is
        singular at an end of a parameter's range (sympy; kept)."""
        hit = self._exact.get(expr)
        if hit is None:
            hit = self._exact[expr] = exact_value(expr, self.subs, self.dirs)
        return hit


def _ball(v) -> arb:
    v = sp.sympify(v)
    if v.is_Rational:
        return arb(int(v.p)) / int(v.q)
    return compile_expr(v, ())()


class Point(Parameters):
    """A bound scenario and the state its derivations share (module docstring)."""

    def __init__(self, bound: BoundScenario):
        super().__init__(bound.subs, limit_directions(bound))
        self.bound = bound
        self.scenario = bound.scenario
        self.laws = bound.laws()
        self.exprs = [sp.expand(e) for e in bound.feature_exprs()]
        self.rule = bound.class_rule()
        self.form = self.rule.form
        self.labels = bound.display_labels()
        self.params = ", ".join(f"{k} = {v}" for k, v in bound.params.items())
        self._routes: dict = {}
        self._facts: dict = {}
        self._joint = None

    def route(self, dps: int) -> numeric.NumericRoute:
        """The numerical route at ``dps`` decimal digits (one per precision)."""
        hit = self._routes.get(dps)
        if hit is None:
            with mpmath.workdps(dps):
                hit = self._routes[dps] = numeric.NumericRoute(self.laws, self.rule)
        return hit

    def joint(self):
        """The joint structure at the point (:func:`fstheory.engine.derive_joint.joint_structure`)."""
        if self._joint is None:
            from fstheory.engine.derive_joint import joint_structure

            self._joint = joint_structure(self.bound)
        return self._joint

    # ----- structure at the point -------------------------------------------------------------
    def _fact(self, key, compute):
        if key not in self._facts:
            try:
                with symbolic_budget(DEFAULT_SECONDS, f"the structure of {key[0]}{key[1:]}"):
                    self._facts[key] = compute()
            except SymbolicTimeout:  # no structural fact: the value is computed instead
                self._facts[key] = None
        return self._facts[key]

    def constant(self, i: int) -> bool:
        """V_i is constant at the point (no base variable left)."""
        return structure.is_constant(self.exprs[i], self.laws)

    def class_constant(self) -> bool:
        return structure.is_constant(self.form, self.laws)

    def class_structure(self, i: int):
        """("zero" | "class-entropy", reason) for MI(C, V_i) from structure at the point, or
        None (also when the symbolic checks run out of their time budget)."""
        return self._fact(("MI(C, V", i), lambda: self._class_structure(i))

    def _class_structure(self, i: int):
        e, laws, form = self.exprs[i], self.laws, self.form
        if self.constant(i):
            return "zero", f"{e} is constant at these parameters (MI 0 with everything)"
        if self.class_constant():
            return "zero", "the class is constant at these parameters"
        if structure.bases_of(e, laws).isdisjoint(structure.bases_of(form, laws)):
            return "zero", "independent of the class (no common base variable at these parameters)"
        tau = structure.class_symmetry(e, form, laws)
        if tau is not None:
            return "zero", f"symmetry {tau.describe()} fixes the feature and swaps the classes"
        if structure.gaussian_independent(e, form, laws):
            return "zero", "jointly normal and uncorrelated with the rule's linear form"
        if structure.class_determined(e, form, laws):
            return "class-entropy", "the class is a function of the feature: MI(C, V) = H(C)"
        return None

    def class_image(self, i: int, j: int):
        """A law-preserving map of the base variables that fixes the class and takes V_i to V_j
        at the point (:func:`fstheory.theory.structure.class_preserving_map`), or None."""
        return self._fact(("MI(C, V", i, "image", j),
                          lambda: structure.class_preserving_map(self.exprs[i], self.exprs[j],
                                                                 self.form, self.laws))

    def pair_structure(self, i: int, j: int):
        """(value, reason) of MI(V_i, V_j) from structure at the point, value sympy 0 or oo;
        or None."""
        return self._fact(("MI(V", i, j), lambda: self._pair_structure(i, j))

    def _pair_structure(self, i: int, j: int):
        laws = self.laws
        if i == j:
            if self.constant(i):
                return sp.Integer(0), (f"{self.exprs[i]} is constant at these parameters: "
                                       "MI(V, V) = H(V) = 0")
            return sp.oo, "a feature with itself"
        if self.constant(i) or self.constant(j):
            return sp.Integer(0), "a feature is constant at these parameters (MI 0 with everything)"
        e1, e2 = self.exprs[i], self.exprs[j]
        if structure.bases_of(e1, laws).isdisjoint(structure.bases_of(e2, laws)):
            return sp.Integer(0), "independent (disjoint base variables)"
        if structure.jacobian_rank_deficient(e1, e2, laws):
            return sp.oo, "functionally dependent (Jacobian of rank 1)"
        if structure.gaussian_independent(e1, e2, laws):
            return sp.Integer(0), "independent (jointly normal and uncorrelated)"
        return None
