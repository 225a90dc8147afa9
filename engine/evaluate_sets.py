r"""MI(C; V_S) for the sets of features that CMI and JMI3 read: MI(C; S) and MI(C; S + {V_i}) for
the selected set S (and their difference MI(C; V_i | V_S)), MI(C; {V_i, V_u, V_w}) for a candidate
and a pair of selected features.

Each value is obtained as :func:`fstheory.engine.derive_joint.JointStructure.mi_class_set`
derives it (every step a proven fact of :mod:`fstheory.theory.determination`):

* drop the features that are constant, those independent of the class and of the others (no
  common base variable, or a linear normal feature uncorrelated with them), and
  every feature that is a function of the others left (it adds nothing: MI(C; S) = MI(C; S minus
  that feature));
* then 0 (no feature left, or a law-preserving map that fixes the features and swaps the
  classes), H(C) when the class is a function of what is left (the set "determines the class"),
  MI(C, V) of the one feature left, H(C) - ln 2 * P(C != C o tau) for a set that reveals the
  base variables up to an involution tau (two-point fibres, including the integral over
  directions of :mod:`fstheory.theory.two_point_fibre`); MI(C, L) of one sufficient statistic L
  (:mod:`fstheory.theory.sufficiency`), or the projection of the class form on linear features
  of normal variables (:mod:`fstheory.theory.gaussian_projection`); for uniform laws and a fibre that is a line,
  H(C) - E[H_b] by exact cells and one certified integral per strip
  (:mod:`fstheory.theory.uniform_line`); H(C) - ln 2 P(|L| < |a||Y - m|) when the features
  reveal all the class uses but the sign of a symmetric Y (:mod:`fstheory.theory.sign_fold`);
* else the numerical route (:meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`), which
  integrates sets of at most three features. More than three left after the reductions, or a
  set the route cannot integrate within its work budget: "not computed", with the reason.

:class:`SetValues` computes and keeps them; the joint values' pairs are its sets of two
(:class:`fstheory.engine.evaluate_joint.LazyJointValues`): when the values' joint quantities are
computed lazily the two share one :class:`SetValues` (a pair read by JMI3 at step 2 and by CMI
are computed once), so two sets with the same derivation are the same extended real and tie
exactly. ``ScenarioValues.mi_c_set`` reaches them through its joint values or joint source
(their ``set_quantities``).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> from fstheory.engine.evaluate import evaluate
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=12)
>>> v.mi_c_set((0, 3, 1)).text(12), v.mi_c_set((0,)).text(12)  # {X, X-Y, 3X+1} reveals (X, Y)
('0.693147180560', '0.593147180560')
>>> v.set_quantities().reason((0, 1, 7))
'X^2 is a function of (X, 3X+1); 3X+1 is a function of (X); MI(C, X) of the one feature left'
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.engine.kinds import (DirectionIntegral, Exact, Linear, LineFibreEntropy, Numerical,
                                   NormalFibreEntropy, SignFoldEntropy, Structural)
from fstheory.engine.prove import CLASS_ENTROPY, MI_CLASS, InvariantViolation, prove
from fstheory.engine.quantities import quantities_for
from fstheory.engine.resolve import Alias, class_entropy_derivation, class_mi_of
from fstheory.engine.values import ScenarioValues
from fstheory.scenarios.declaration import BoundScenario
from fstheory.theory import two_point_fibre as tpf
from fstheory.theory.extended import ExtendedReal, Form, xr
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["SetValues", "SetQuantities", "MAX_NUMERIC_FEATURES", "not_computed", "root_cause"]

#: The numerical route integrates MI with the class of sets of at most this many features
#: (:meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`).
MAX_NUMERIC_FEATURES = 3


class SetQuantities:
    """MI(C; V_S) of one scenario at one point, for any set S of its features (module
    docstring); values kept by the underlying :class:`SetValues`."""

    def __init__(self, sets: SetValues):
        self.sets = sets

    @property
    def h_class(self) -> ExtendedReal:
        """H(C)."""
        return self.sets.h_class

    def _derivation(self, S):
        return self.sets.structure.mi_class_set(S)

    def reason(self, S) -> str:
        """How MI(C; V_S) is obtained (the reductions and the final kind)."""
        return self._derivation(S).reason

    def mi_c_set(self, S) -> ExtendedReal:
        """MI(C; V_S), labelled "MI(C;{X,Y,Z})" (features in index order); a single feature is
        MI(C, V), the same extended real as the single-feature values."""
        S = tuple(sorted(set(int(i) for i in S)))
        if not S:
            return self.sets.value((), "MI(C;{})")
        d = self._derivation(S)
        if d.kind == "numeric" and len(d.reduced) > MAX_NUMERIC_FEATURES:
            L = self.sets.values.labels
            left = ", ".join(L[i] for i in d.reduced)
            return not_computed(self.sets.label(S), f"{len(d.reduced)} features are left after "
                                f"the structural reductions ({left}); the numerical route "
                                f"integrates at most {MAX_NUMERIC_FEATURES}")
        if len(S) == 1:
            return self.sets.values.mi_c(S[0])
        return self.sets.value(S)

    def cmi_c_set(self, i: int, S) -> ExtendedReal:
        """MI(C; V_i | V_S) = MI(C; V_S + {V_i}) - MI(C; V_S) (chain rule), labelled
        "MI(C;X|{Y,Z})": exactly 0 when the two sets have the same derivation (V_i adds nothing
        to S by structure), else the difference taken at the values' working precision
        (``digits`` + guard digits), so that equal values cancel exactly."""
        i, S = int(i), tuple(sorted(set(int(s) for s in S)))
        L = self.sets.values.labels
        label = f"MI(C;{L[i]}|{{{','.join(L[s] for s in S)}}})"
        if i in S:
            return xr(0, label)
        T = tuple(sorted(S + (i,)))
        if self._derivation(T).key == self._derivation(S).key:
            return xr(0, label)
        whole, part = self.mi_c_set(T), self.mi_c_set(S)
        with mpmath.workdps(self.sets.digits + GUARD_DIGITS):
            return (whole - part).named(label)


def not_computed(label: str, why: str) -> ExtendedReal:
    """The "not computed" value of the quantity ``label`` (cause ``"<label> not computed: why"``)."""
    return ExtendedReal.indeterminate(Form.NOT_COMPUTED, f"{label} not computed: {why}", label)


def root_cause(x: ExtendedReal) -> str:
    """The cause of a not-computed value, naming the quantity."""
    if " not computed: " in (x.cause or ""):
        return x.cause
    return f"{x.label} not computed: {x.cause}"


def _same_as(v: ExtendedReal, name: str, label: str, reason: str) -> ExtendedReal:
    """A set's MI that equals the value ``v`` (H(C), or MI(C, V) of the one feature left), with
    the cause of a value not computed (an estimate stays one)."""
    if not v.is_indeterminate:
        return v.named(label)
    cause = f"{label} not computed: it equals {name} ({reason}); {root_cause(v)}"
    if v.is_estimate:
        return ExtendedReal.estimated(*v.estimate, cause, label)
    return ExtendedReal.indeterminate(Form.NOT_COMPUTED, cause, label)


class SetValues:
    """MI(C; V_S) for any set S of ``bound``'s features (and H(C)), at ``digits`` significant
    digits, from the derivations of :func:`fstheory.engine.derive_joint.joint_structure` at the
    point; values are kept. ``sweep`` is accepted for the atlas's callers.

    >>> from fstheory.scenarios.registry import get_scenario
    >>> s = SetValues(get_scenario("uniform").bind(k="0.2"), 10)
    >>> s.value((0, 6)).text(10), s.value((0, 1, 7)).text(10), s.value((4, 5, 8)).text()
    ('0.6931471806', '0.5931471806', '0')
    """

    def __init__(self, bound: BoundScenario, digits: int = 30, values: ScenarioValues | None = None,
                 sweep: bool = False, quantities=None):
        self.quantities = quantities or quantities_for(bound, digits, values)
        if values is None:
            values = self.quantities.values()
        self.bound, self.digits, self.values = bound, digits, values
        self.point = self.quantities.point
        self.structure = self.point.joint()
        self._memo: dict = {}
        self._derivations: dict = {}
        self._hc_derivation = class_entropy_derivation(self.point)
        self.h_class, how = prove(self._hc_derivation, self.point, digits, "H(C)", CLASS_ENTROPY)
        d = self.structure.class_entropy()
        self.h_class_reason = d.reason if d.kind != "numeric" else how

    def label(self, S) -> str:
        return "MI(C;{" + ",".join(self.values.labels[i] for i in sorted(S)) + "})"

    def derivation(self, S):
        """The typed derivation of MI(C; V_S) at the point."""
        S = tuple(sorted(set(S)))
        hit = self._derivations.get(S)
        if hit is None:
            hit = self._derivations[S] = self._typed(self.structure.mi_class_set(S))
        return hit

    def _typed(self, d):
        st = self.structure
        hc = self._hc_derivation
        if d.kind == "zero":
            return Structural(0, d.reason)
        if d.kind == "class-entropy":
            return Alias(hc, d.reason)
        if d.kind == "single":
            return Alias(self.quantities.derivation(("mi_c", d.reduced[0])), d.reason)
        if d.kind == "sufficient":
            return class_mi_of(self.point, d.expr, d.reason)
        if d.kind == "sign-fold":
            return Linear([(1, hc), (-1, SignFoldEntropy(d.partner, st.laws, d.reason))],
                          d.reason)
        if d.kind == "uniform-line":
            return Linear([(1, hc), (-1, LineFibreEntropy(d.partner, d.reason))], d.reason)
        if d.kind == "normal-fibre":
            return Linear([(1, hc), (-1, NormalFibreEntropy(d.partner, d.reason))], d.reason)
        if d.kind == "two-point":
            return Linear([(1, hc), (-1, Exact(sp.log(2) * d.expr))], d.reason)
        if d.kind == "two-point-cone":
            try:
                radial, a, T = tpf.radial_form(d.partner, st.event, st.laws)
            except (ValueError, ArithmeticError) as exc:
                return Numerical("mi_class_set", (tuple(st.exprs[i] for i in d.reduced),),
                                 f"{d.reason} ({exc}); numerical route")
            return Linear([(1, hc), (-1, DirectionIntegral(radial, a, T, d.reason))], d.reason)
        exprs = tuple(st.exprs[i] for i in d.reduced)
        return Numerical("mi_class_set", (exprs,), d.reason)

    def value(self, S, label: str | None = None) -> ExtendedReal:
        """MI(C; V_S) as an extended real (labelled "MI(C;{X,Y})" unless ``label`` is given)."""
        S = tuple(sorted(set(S)))
        if S not in self._memo:
            self._memo[S] = self._value(S)
        v = self._memo[S]
        return v.named(label) if label else v

    def _value(self, S) -> ExtendedReal:
        d = self.structure.mi_class_set(S)
        label = self.label(S)
        hc = self.h_class
        if d.kind == "zero":
            return xr(0, label)
        if d.kind == "class-entropy":
            return _same_as(hc, "H(C)", label, d.reason)
        if d.kind == "single":
            v = self.values.mi_c(d.reduced[0])
            return _same_as(v, v.label, label, d.reason)
        if (d.kind in ("two-point", "two-point-cone", "uniform-line", "sign-fold", "normal-fibre")
                and hc.is_indeterminate):
            return not_computed(label, f"it needs H(C) ({d.reason}); {root_cause(hc)}")
        value, _ = prove(self.derivation(S), self.point, self.digits, label, MI_CLASS)
        self._check(S, value, label)
        return value

    def _check(self, S, value: ExtendedReal, label: str) -> None:
        """max(MI(C, V_i), i in S) <= MI(C; V_S) <= H(C), where the values are computed."""
        if not value.is_finite:
            return
        e = value.enclosure()
        if self.h_class.is_finite and e.lower > self.h_class.enclosure().upper:
            raise InvariantViolation(f"{label} = {value.text(10)} exceeds H(C) = "
                                     f"{self.h_class.text(10)}")
        for i in S:
            m = self.values.mi_c(i)
            if m.is_finite and e.upper < m.enclosure().lower:
                raise InvariantViolation(f"{label} = {value.text(10)} is below {m.label} = "
                                         f"{m.text(10)}")
