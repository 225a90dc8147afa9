"""Named choices of the histogram estimator and of the float selection, with their defaults.

The paper (Section 8) fixes: differential entropies by equal-width bins, m = ceil(sqrt(n)) bins,
the correction ln(Delta) (Delta the bin width; ln(Delta_1 Delta_2) for a bivariate histogram),
MI(C, V) = h(V) - h(V|C) (property (e)) and MI(Vi, Vj) = h(Vi) + h(Vj) - h(Vi, Vj) (property (d)).
It is silent on the points below; each is an option here.

``joint`` -- the grid of the bivariate histogram of (Vi, Vj):

* ``"sqrt-cells"`` (default): ceil(sqrt(m)) equal-width bins per axis over each variable's sample
  range, so the grid has about m = ceil(sqrt(n)) cells, the paper's rule read for the *number of
  bins* of the bivariate histogram. The paper says the earlier studies may have "used the same bin
  width in the discretization of univariate and bivariate distributions" and that this explains
  their large errors; this grid does not, and it reproduces the printed mean estimates of
  MI(V1, V3) and MI(V1, V4) (reports/simulation/README.md).
* ``"product"``: the product of the univariate grids (m x m cells, the same edges as h(Vi) and
  h(Vj)). Then h(Vi) + h(Vj) - h(Vi, Vj) is exactly the discrete MI of the bin labels
  (``sklearn.metrics.mutual_info_score``), the baseline of the benchmark and of the tests.

``conditional`` -- how h(V | C) = sum_c P(C=c) h(V | C=c) is binned:

* ``"per-class"`` (default): each class's observations binned on their own range with
  ceil(sqrt(n_c)) bins (the paper's rule applied to the sub-sample), plus ln(Delta_c).
* ``"per-class-m"``: own range per class, but the m = ceil(sqrt(n)) bins of the whole sample.
* ``"shared"``: the edges of h(V); then the ln(Delta) terms cancel and MI(C, V) is the discrete
  MI of (bin label, class), never negative.

A class with fewer than two observations has no range; it is binned on the shared edges.

``edges`` -- where the m equal-width bins lie:

* ``"range"`` (default): [min, max] of the sample cut into m bins (the maximum falls in the last
  bin, as in ``numpy.histogram``).
* ``"centred"``: m bins of width (max - min)/(m - 1) whose extreme centres are min and max.

``ties`` (selection, :mod:`simulation.selection`) -- how near-equal objective values are broken:

* ``"relative"`` (default): candidates whose objective is within ``rtol * |best|`` of the best
  are tied, and the lowest feature index wins (the paper's rule for exact ties, Section 7: "X is
  selected before 3X+1 simply because it was placed first in the list"). X and 3X+1 have the
  same binned counts, so their estimates differ only by rounding (about 1e-16 relative).
* ``"exact"``: plain float comparison (``numpy.argmax``, first index on exact equality): the
  winner between X and 3X+1 is decided by rounding.

Objective values that are NaN (0/0 in floats) are never selected unless every remaining candidate
is NaN, in which case the lowest index is taken.

Examples
--------
>>> EstimatorOptions()
EstimatorOptions(joint='sqrt-cells', conditional='per-class', edges='range')
>>> EstimatorOptions.from_mapping({"joint": "cubic"})
Traceback (most recent call last):
...
simulation.errors.SimulationInputError: estimator option 'joint' must be one of sqrt-cells, product (got 'cubic')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Mapping

from simulation.errors import SimulationInputError

__all__ = ["EstimatorOptions", "SelectionOptions", "JOINT_GRIDS", "CONDITIONALS", "EDGES", "TIES"]

JOINT_GRIDS = ("coarse", "coarse-mixed", "product")
CONDITIONALS = ("per-class", "per-class-m", "shared")
EDGES = ("range", "centred")
TIES = ("relative", "exact")

_ALLOWED = {"joint": JOINT_GRIDS, "conditional": CONDITIONALS, "edges": EDGES}


@dataclass(frozen=True)
class EstimatorOptions:
    """The estimator's choices where the paper is silent (see the module docstring)."""

    joint: str = "coarse"
    conditional: str = "per-class"
    edges: str = "range"

    def __post_init__(self):
        for name, allowed in _ALLOWED.items():
            value = getattr(self, name)
            if value not in allowed:
                raise SimulationInputError(
                    f"estimator option '{name}' must be one of {', '.join(allowed)} (got {value!r})"
                )

    @classmethod
    def from_mapping(cls, values: "Mapping[str, str] | EstimatorOptions | None") -> "EstimatorOptions":
        if values is None:
            return cls()
        if isinstance(values, cls):
            return values
        if not isinstance(values, Mapping):
            raise SimulationInputError(
                f"parameter 'estimator' must be a mapping of option names to values (got {values!r})"
            )
        known = {f.name for f in fields(cls)}
        for name in values:
            if name not in known:
                raise SimulationInputError(
                    f"unknown estimator option {name!r} (allowed: {', '.join(sorted(known))})"
                )
        return cls(**dict(values))

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SelectionOptions:
    """How the float greedy breaks near-ties (see the module docstring)."""

    ties: str = "relative"
    rtol: float = 1e-9

    def __post_init__(self):
        if self.ties not in TIES:
            raise SimulationInputError(
                f"parameter 'ties' must be one of {', '.join(TIES)} (got {self.ties!r})"
            )
        if isinstance(self.rtol, bool) or not isinstance(self.rtol, (int, float)) or not (0 <= self.rtol < 1):
            raise SimulationInputError(f"parameter 'rtol' must be a number in [0, 1) (got {self.rtol!r})")

    def as_dict(self) -> dict:
        return asdict(self)
