"""The information values of one scenario at one parameter point: what orderings consume.

A :class:`ScenarioValues` holds, for features ``V_1..V_n`` (0-based in code, 1-based in reports):

* ``entropy[i]``      = h(V_i), the differential entropy;
* ``mi_class[i]``     = MI(C, V_i), the mixed MI with the binary class (paper eq. (mi_cont_disc));
* ``mi_features[i][j]`` = MI(V_i, V_j), symmetric, +inf on the diagonal;

each an :class:`~fstheory.theory.extended.ExtendedReal` labelled for explanations ("h(X)", "MI(C,X)",
"MI(X,X-Y)"). ``provenance`` says, per quantity, how it was obtained (closed form, structure,
numerical route) so that reports can show it.

The joint quantities (:class:`JointValues`: H(C), MI(C; {V_i, V_j}), MI(C; V_i | V_j),
MI(V_i; V_j | C), H(V_i, V_j, C)) are computed only when asked: either given at construction
(``joint=``) or computed on first use by ``joint_source(values)`` (what
:func:`fstheory.engine.evaluate.evaluate` sets). The view methods the objectives read:

==========================  =========================================================
``v.h(i)``                  h(V_i)
``v.mi_c(i)``               MI(C, V_i)
``v.mi(i, j)``              MI(V_i, V_j)
``v.h_c()``                 H(C), the class entropy
``v.mi_c_pair(i, j)``       MI(C; {V_i, V_j}) (``i == j``: MI(C, V_i))
``v.cmi_c(i, j)``           MI(C; V_i | V_j) (0 on the diagonal)
``v.mi_given_c(i, j)``      MI(V_i; V_j | C) (+inf on the diagonal)
``v.h_pair_c(i, j)``        H(V_i, V_j, C), the mixed joint entropy
``v.mi_c_set(T)``           MI(C; V_T) for a set T of features (a tuple of indices;
                            :mod:`fstheory.engine.evaluate_sets`, computed on first use)
``v.cmi_c_set(i, T)``       MI(C; V_i | V_T) = MI(C; V_T + {V_i}) - MI(C; V_T)
==========================  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from fstheory.theory.extended import ExtendedReal

__all__ = ["ScenarioValues", "JointValues", "JointUnavailable"]


class JointUnavailable(LookupError):
    """The joint quantities were neither given nor can be computed for these values."""


Matrix = tuple[tuple[ExtendedReal, ...], ...]


@dataclass(frozen=True)
class JointValues:
    """The three-dimensional quantities of one scenario at one parameter point (n x n each)."""

    h_class: ExtendedReal
    mi_class_pair: Matrix
    cmi_class: Matrix
    mi_given_class: Matrix
    h_pair_class: Matrix
    provenance: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        n = len(self.mi_class_pair)
        for name in ("mi_class_pair", "cmi_class", "mi_given_class", "h_pair_class"):
            m = getattr(self, name)
            if len(m) != n or any(len(row) != n for row in m):
                raise ValueError(f"{name} must be an {n} x {n} matrix")


@dataclass(frozen=True)
class ScenarioValues:
    scenario: str
    params: dict
    labels: tuple[str, ...]
    entropy: tuple[ExtendedReal, ...]
    mi_class: tuple[ExtendedReal, ...]
    mi_features: tuple[tuple[ExtendedReal, ...], ...]
    digits: int = 30
    provenance: dict = field(default_factory=dict, compare=False)
    joint: JointValues | None = field(default=None, compare=False, repr=False)
    joint_source: Callable | None = field(default=None, compare=False, repr=False)
    #: the set quantities (:meth:`set_quantities`), kept on first use; not an argument, so a
    #: ``replace`` of these values starts without them
    sets: object = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self):
        n = len(self.labels)
        if len(self.entropy) != n or len(self.mi_class) != n or len(self.mi_features) != n:
            raise ValueError("entropy, mi_class and mi_features must have one entry per feature")
        if any(len(row) != n for row in self.mi_features):
            raise ValueError("mi_features must be a square matrix")
        if self.joint is not None and len(self.joint.mi_class_pair) != n:
            raise ValueError("the joint values must have one row per feature")

    @property
    def n_features(self) -> int:
        return len(self.labels)

    def h(self, i: int) -> ExtendedReal:
        return self.entropy[i]

    def mi_c(self, i: int) -> ExtendedReal:
        return self.mi_class[i]

    def mi(self, i: int, j: int) -> ExtendedReal:
        return self.mi_features[i][j]

    # ----- joint quantities (computed on first use) ----------------------------------------------
    @property
    def has_joint(self) -> bool:
        """True when the joint values are at hand or can be computed."""
        return self.joint is not None or self.joint_source is not None

    def joint_values(self) -> JointValues:
        """The joint values, computing (and keeping) them on first use."""
        if self.joint is None:
            if self.joint_source is None:
                raise JointUnavailable(
                    f"the joint quantities (MI(C; {{Vi, Vj}}), ...) of {self.scenario} were not "
                    "computed and these values carry no way to compute them")
            joint = self.joint_source(self)
            object.__setattr__(self, "joint", joint)
        return self.joint

    def with_joint(self, joint: JointValues) -> "ScenarioValues":
        return replace(self, joint=joint)

    def h_c(self) -> ExtendedReal:
        return self.joint_values().h_class

    def mi_c_pair(self, i: int, j: int) -> ExtendedReal:
        return self.joint_values().mi_class_pair[i][j]

    def cmi_c(self, i: int, j: int) -> ExtendedReal:
        return self.joint_values().cmi_class[i][j]

    def mi_given_c(self, i: int, j: int) -> ExtendedReal:
        return self.joint_values().mi_given_class[i][j]

    def h_pair_c(self, i: int, j: int) -> ExtendedReal:
        return self.joint_values().h_pair_class[i][j]

    def set_quantities(self):
        """MI(C; V_T) for sets T of features (:class:`fstheory.engine.evaluate_sets.SetQuantities`),
        kept on first use: from the joint values when they provide them (lazy joint values share
        their sets), else from the joint source, else from the joint values it computes."""
        if self.sets is None:
            object.__setattr__(self, "sets", self._new_set_quantities())
        return self.sets

    def _new_set_quantities(self):
        for provider in (self.joint, self.joint_source):
            make = getattr(provider, "set_quantities", None)
            if make is not None:
                return make(self)
        if self.joint is None and self.joint_source is not None:
            make = getattr(self.joint_values(), "set_quantities", None)
            if make is not None:
                return make(self)
        raise JointUnavailable(
            f"MI(C; V_S) for sets of features of {self.scenario} cannot be computed: these values "
            "carry no scenario to derive them from")

    def mi_c_set(self, indices) -> ExtendedReal:
        """MI(C; V_T) for the features ``indices`` (any order; repeats ignored)."""
        return self.set_quantities().mi_c_set(indices)

    def cmi_c_set(self, i: int, indices) -> ExtendedReal:
        """MI(C; V_i | V_T) = MI(C; V_T + {V_i}) - MI(C; V_T) for the features ``indices``."""
        return self.set_quantities().cmi_c_set(i, indices)
