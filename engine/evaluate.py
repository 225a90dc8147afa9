"""Evaluate a bound scenario: every entropy and MI as an extended real, to the requested digits.

For each quantity, in this order:

1. **Structure at the bound parameters** (:mod:`fstheory.theory.structure`), re-checked with the
   numbers, since a shortcut that holds for general parameters may fail at a point and one that
   fails in general may hold at a point: a feature constant here (``k*Y`` at k = 0) has
   h = -inf and MI 0 with everything; a class constant here has MI 0 with every feature;
   disjoint base variables give independence; a class-swapping symmetry (its hypotheses --
   threshold, symmetric laws -- checked with the numbers), or jointly normal uncorrelated linear
   forms, give MI(C, V) = 0; a class that is a function of V gives MI(C, V) = H(C); a Jacobian of
   rank 1 between two non-constant features gives MI = +inf.
2. **Closed forms** of the derivation (:mod:`fstheory.engine.derive`), evaluated exactly where
   possible (sympy, with one-sided limits at the ends of a parameter's range) and then with
   mpmath at ``digits + GUARD_DIGITS`` significant digits.
3. **The numerical route** (:mod:`fstheory.theory.numeric`). A value it cannot compute to the
   requested digits -- out of its reach, or indistinguishable from 0 at the working precision
   without a structural reason for a zero -- is "not computed"
   (:data:`fstheory.theory.extended.Form.NOT_COMPUTED`) with the reason, never guessed.

Each value is labelled ("h(X)", "MI(C,X)", "MI(X,X-Y)") so that the extended-real arithmetic of
the orderings can say which term made an objective indeterminate; ``provenance`` says how each
was obtained (and why a value is missing).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=10)
>>> v.entropy[0].text(10), v.mi_class[0].text(10), v.mi(0, 3).text(10)
('0', '0.5931471806', '0.5000000000')
>>> v.mi(0, 1).text(), v.mi_class[7].text()
('+inf', '0')
"""

from __future__ import annotations

import sys
import time

import mpmath
import sympy as sp

from fstheory.scenarios.declaration import BoundScenario
from fstheory.engine.derive import Derivation, derive
from fstheory.engine.evaluate_joint import joint_source
from fstheory.theory import numeric, structure
from fstheory.theory.budget import DEFAULT_SECONDS, SymbolicTimeout, symbolic_budget
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr
from fstheory.theory.symbolic import GUARD_DIGITS, exact_value, is_exact_zero, mp_value
from fstheory.engine.values import ScenarioValues

__all__ = ["evaluate", "PointQuantities", "limit_directions", "not_computed"]


def limit_directions(bound: BoundScenario) -> dict:
    """Parameters at an end of a closed range ([0, 1]) and the side to approach them from."""
    out = {}
    for p in bound.scenario.parameters:
        if p.domain == "unit":
            v = bound.params[p.name]
            if v == 0:
                out[p.symbol] = "+"
            elif v == 1:
                out[p.symbol] = "-"
    return out


def not_computed(why: str) -> tuple[ExtendedReal, str]:
    """The "not computed" value with its reason, and the provenance line."""
    return ExtendedReal.indeterminate(Form.NOT_COMPUTED, why), f"not computed: {why}"


def _closed_value(d: Derivation, bound: BoundScenario, dirs: dict) -> tuple[ExtendedReal, str]:
    exact = exact_value(d.expr, bound.subs, dirs)
    if exact == sp.oo:
        return POS_INF, d.reason
    if exact == -sp.oo:
        return NEG_INF, d.reason
    if is_exact_zero(exact):
        return xr(0), f"{d.reason}; exactly 0"
    return xr(mp_value(exact)), d.reason


def _numeric(fn, digits: int) -> tuple[ExtendedReal, str]:
    try:
        result = fn()
    except numeric.NumericUnsupported as exc:
        return not_computed(f"the numerical route cannot compute it ({exc})")
    value, error = result.value, result.error
    if error >= 1:
        return not_computed(f"the integration error bound {mpmath.nstr(error, 2)} leaves no "
                            "correct digit (the rule or a feature may be badly scaled)")
    if abs(value) <= error:
        return not_computed(
            f"indistinguishable from 0 at the working precision (|value| <= {mpmath.nstr(error, 2)}) "
            "and no structural reason for an exact 0 was found")
    if error > abs(value) * mpmath.mpf(10) ** (-digits):
        return not_computed(f"only about {int(mpmath.log10(abs(value) / error))} correct digits "
                            f"reached ({result.describe()})")
    return result.as_extended(), result.describe()


class _Point:
    """The bound scenario's expressions, laws and rule, and the structural checks on them."""

    def __init__(self, bound: BoundScenario):
        self.laws = bound.laws()
        self.exprs = [sp.expand(e) for e in bound.feature_exprs()]
        self.rule = bound.class_rule()
        self.form = self.rule.form
        self.params = ", ".join(f"{k} = {v}" for k, v in bound.params.items())

    def constant(self, i: int) -> bool:
        return structure.is_constant(self.exprs[i], self.laws)

    def class_structure(self, i: int):
        """(kind, reason) with kind "zero" or "class-entropy", or None (also when the symbolic
        checks run out of their time budget: the numerical route then decides)."""
        try:
            with symbolic_budget(DEFAULT_SECONDS, f"the structure of MI(C, {self.exprs[i]})"):
                return self._class_structure(i)
        except SymbolicTimeout:
            return None

    def _class_structure(self, i: int):
        e, laws, form = self.exprs[i], self.laws, self.form
        if self.constant(i):
            return "zero", f"{e} is constant at these parameters (MI 0 with everything)"
        if structure.is_constant(form, laws):
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

    def pair_structure(self, i: int, j: int):
        """(value, reason) from structure for MI(V_i, V_j), or None."""
        try:
            with symbolic_budget(DEFAULT_SECONDS, f"the structure of MI(V{i + 1}, V{j + 1})"):
                return self._pair_structure(i, j)
        except SymbolicTimeout:
            return None

    def _pair_structure(self, i: int, j: int):
        laws = self.laws
        if self.constant(i) or self.constant(j):
            return xr(0), "a feature is constant at these parameters (MI 0 with everything)"
        e1, e2 = self.exprs[i], self.exprs[j]
        if structure.bases_of(e1, laws).isdisjoint(structure.bases_of(e2, laws)):
            return xr(0), "independent (disjoint base variables)"
        if structure.jacobian_rank_deficient(e1, e2, laws):
            return POS_INF, "functionally dependent (Jacobian of rank 1)"
        if structure.gaussian_independent(e1, e2, laws):
            return xr(0), "independent (jointly normal and uncorrelated)"
        return None


class PointQuantities:
    """Each quantity of :func:`evaluate` on its own, as (value, provenance) at ``digits``: the
    same values as :func:`evaluate` (which is built from it), for callers that need only a few
    (the atlas, locating a crossing between two candidates). One numerical route per point."""

    def __init__(self, bound: BoundScenario, digits: int):
        self.bound, self.digits = bound, digits
        self.der = derive(bound.scenario)
        self.labels = bound.display_labels()
        self.dirs = limit_directions(bound)
        self.point = _Point(bound)
        with mpmath.workdps(digits + GUARD_DIGITS):
            self.route = numeric.NumericRoute(self.point.laws, self.point.rule)

    def entropy(self, i: int) -> tuple[ExtendedReal, str]:
        """h(V_i)."""
        point, route, d = self.point, self.route, self.der.entropy[i]
        with mpmath.workdps(self.digits + GUARD_DIGITS):
            if point.constant(i):
                return NEG_INF, f"{point.exprs[i]} is constant at these parameters (no density)"
            if d.kind == "closed":
                return _closed_value(d, self.bound, self.dirs)
            v, why = _numeric(lambda: route.entropy(point.exprs[i]), self.digits)
            return v, (f"{d.reason}: {why}" if v.is_determinate else why)

    def mi_class(self, i: int) -> tuple[ExtendedReal, str]:
        """MI(C, V_i)."""
        point, route, d = self.point, self.route, self.der.mi_class[i]
        with mpmath.workdps(self.digits + GUARD_DIGITS):
            found = point.class_structure(i)
            if found is not None and found[0] == "zero":
                return xr(0), found[1]
            if found is not None:
                v, why = _numeric(route.class_entropy, self.digits)
                return v, (f"{found[1]} ({why})" if v.is_determinate else why)
            if d.kind == "closed":
                return _closed_value(d, self.bound, self.dirs)
            return _numeric(lambda: route.mi_class(point.exprs[i]), self.digits)

    def mi_pair(self, i: int, j: int) -> tuple[ExtendedReal, str]:
        """MI(V_i, V_j) (+inf for i == j)."""
        if i == j:
            return POS_INF, "a feature with itself"
        point, route, d = self.point, self.route, self.der.mi_features[i][j]
        with mpmath.workdps(self.digits + GUARD_DIGITS):
            found = point.pair_structure(i, j)
            if found is not None:
                return found
            if d.kind == "closed":
                return _closed_value(d, self.bound, self.dirs)
            return _numeric(lambda: route.mi_pair(point.exprs[i], point.exprs[j]), self.digits)


def _stderr_progress():
    """A counter on stderr after the first few seconds (only when stderr is a terminal)."""
    if not sys.stderr.isatty():
        return None
    start = time.monotonic()

    def show(done: int, total: int) -> None:
        if time.monotonic() - start < 3:
            return
        sys.stderr.write(f"\rvalues: {done}/{total} quantities")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def evaluate(bound: BoundScenario, digits: int = 30, progress=None) -> ScenarioValues:
    """All entropies and MIs of ``bound`` with ``digits`` significant digits.

    ``progress(done, total)``, if given, is called after each quantity; by default a counter is
    shown on stderr when it is a terminal and the evaluation takes more than a few seconds.
    """
    if not isinstance(digits, int) or digits < 1 or digits > 100:
        raise ValueError(f"digits must be an integer in [1, 100] (got {digits!r})")
    quantities = PointQuantities(bound, digits)
    labels = quantities.labels
    n = len(labels)
    prov: dict = {}
    total = 2 * n + n * (n + 1) // 2
    done = 0
    progress = progress if progress is not None else _stderr_progress()

    def tick():
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    with mpmath.workdps(digits + GUARD_DIGITS):
        entropy, mi_class = [], []
        for i in range(n):
            v, why = quantities.entropy(i)
            entropy.append(v.named(f"h({labels[i]})"))
            prov[("h", i)] = why
            tick()
            v, why = quantities.mi_class(i)
            mi_class.append(v.named(f"MI(C,{labels[i]})"))
            prov[("mi_c", i)] = why
            tick()
        matrix = [[None] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                v, why = quantities.mi_pair(i, j)
                matrix[i][j] = v.named(f"MI({labels[i]},{labels[j]})")
                matrix[j][i] = v.named(f"MI({labels[j]},{labels[i]})")
                prov[("mi", i, j)] = prov[("mi", j, i)] = why
                tick()
    return ScenarioValues(
        scenario=bound.scenario.name,
        params=dict(bound.params),
        labels=tuple(labels),
        entropy=tuple(entropy),
        mi_class=tuple(mi_class),
        mi_features=tuple(map(tuple, matrix)),
        digits=digits,
        provenance=prov,
        joint_source=joint_source(bound, digits),  # joint quantities on first use (issue 10)
    )
