"""The information values of one scenario at one parameter point: what orderings consume.

A :class:`ScenarioValues` holds, for features ``V_1..V_n`` (0-based in code, 1-based in reports):

* ``entropy[i]``      = h(V_i), the differential entropy;
* ``mi_class[i]``     = MI(C, V_i), the mixed MI with the binary class (paper eq. (mi_cont_disc));
* ``mi_features[i][j]`` = MI(V_i, V_j), symmetric, +inf on the diagonal;

each an :class:`~fstheory.theory.extended.ExtendedReal` labelled for explanations ("h(X)", "MI(C,X)",
"MI(X,X-Y)"). ``provenance`` says, per quantity, how it was obtained (closed form, structure,
numerical route) so that reports can show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fstheory.theory.extended import ExtendedReal

__all__ = ["ScenarioValues"]


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

    def __post_init__(self):
        n = len(self.labels)
        if len(self.entropy) != n or len(self.mi_class) != n or len(self.mi_features) != n:
            raise ValueError("entropy, mi_class and mi_features must have one entry per feature")
        if any(len(row) != n for row in self.mi_features):
            raise ValueError("mi_features must be a square matrix")

    @property
    def n_features(self) -> int:
        return len(self.labels)

    def h(self, i: int) -> ExtendedReal:
        return self.entropy[i]

    def mi_c(self, i: int) -> ExtendedReal:
        return self.mi_class[i]

    def mi(self, i: int, j: int) -> ExtendedReal:
        return self.mi_features[i][j]
