r"""MI(C; V_S) for the sets of features that CMI and JMI3 read: MI(C; S) and MI(C; S + {V_i}) for
the selected set S (and their difference MI(C; V_i | V_S)), MI(C; {V_i, V_u, V_w}) for a candidate
and a pair of selected features.

Each value is obtained as :func:`fstheory.engine.derive_joint.JointStructure.mi_class_set`
derives it (every step a proven fact of :mod:`fstheory.theory.determination`):

* drop the features that are constant, those independent of the class and of the others, and
  every feature that is a function of the others left (it adds nothing: MI(C; S) = MI(C; S minus
  that feature));
* then 0 (no feature left, or a law-preserving map that fixes the features and swaps the
  classes), H(C) when the class is a function of what is left (the set "determines the class"),
  MI(C, V) of the one feature left, H(C) - ln 2 * P(C != C o tau) for a set that reveals the
  base variables up to an involution tau (two-point fibres, including the integral over
  directions of :mod:`fstheory.theory.two_point_fibre`);
* else the numerical route (:meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`), which
  integrates sets of at most three features. More than three left after the reductions, or a
  set the route cannot integrate within its work budget: "not computed", with the reason.

The values are those of the set quantities the joint values already use
(:class:`fstheory.engine.evaluate_joint.SetValues`): when the values' joint quantities are
computed lazily the two share one :class:`SetValues` (a pair read by JMI3 at step 2 and by CMI
are computed once), so two sets with the same derivation are the same extended real and tie
exactly.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> from fstheory.engine.evaluate import evaluate
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=12)
>>> v.mi_c_set((0, 3, 1)).text(12), v.mi_c_set((0,)).text(12)  # {X, X-Y, 3X+1} reveals (X, Y)
('0.693147180560', '0.593147180560')
>>> set_quantities(v).reason((0, 1, 7))
'X^2 is a function of (X, 3X+1); 3X+1 is a function of (X); MI(C, X) of the one feature left'
"""

from __future__ import annotations

import mpmath

from fstheory.engine.evaluate_joint import JointSource, LazyJointValues, SetValues, not_computed
from fstheory.engine.values import JointUnavailable, ScenarioValues
from fstheory.theory.extended import ExtendedReal, xr
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["SetQuantities", "set_quantities", "MAX_NUMERIC_FEATURES"]

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


def _sets_of(values: ScenarioValues) -> SetValues:
    """The :class:`SetValues` of ``values``: those of its lazy joint values when it has them (or
    a lazy joint source), else its own, built from the scenario its joint source binds."""
    joint, source = values.joint, values.joint_source
    if isinstance(joint, LazyJointValues):
        return joint.sets
    if isinstance(source, JointSource) and not source.lazy:
        # eager joint values (which compute every pair first) keep no sets: sets of their own
        return SetValues(source.bound, source.digits, values)
    if joint is None and source is not None:
        joint = values.joint_values()
        if isinstance(joint, LazyJointValues):
            return joint.sets
    raise JointUnavailable(
        f"MI(C; V_S) for sets of features of {values.scenario} cannot be computed: these values "
        "carry no scenario to derive them from")


def set_quantities(values: ScenarioValues) -> SetQuantities:
    """The :class:`SetQuantities` of ``values`` (built on first use and kept with them)."""
    if values.sets is None:
        object.__setattr__(values, "sets", SetQuantities(_sets_of(values)))
    return values.sets
