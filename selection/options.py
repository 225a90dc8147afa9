"""Named choices of the histogram estimator and of the float selection, with their defaults.

They belong to the selection (:mod:`fstheory.selection`: the estimators, the float greedy and the
scikit-learn selector read them); the simulation study passes them on. A bad choice is a
:class:`~fstheory.scenarios.declaration.ParameterError` naming the option (exit code 2 on the
command line).

The paper (Section 8) fixes: differential entropies by equal-width bins, m = ceil(sqrt(n)) bins,
the correction ln(Delta) (Delta the bin width; ln(Delta_1 Delta_2) for a bivariate histogram),
MI(C, V) = h(V) - h(V|C) (property (e)) and MI(Vi, Vj) = h(Vi) + h(Vj) - h(Vi, Vj) (property (d)).
It is silent on the points below; each is an option here.

``joint`` -- the grid of the bivariate histogram of (Vi, Vj):

* ``"coarse"`` (default): ceil(sqrt(m)) equal-width bins per axis over each variable's sample
  range, so the grid has about m = ceil(sqrt(n)) cells (the paper's rule read as the number of
  bins of the bivariate histogram); h(Vi) and h(Vj) in MI(Vi, Vj) are the marginals of that same
  grid (so the ln(Delta) terms cancel and MI(Vi, Vj) is the discrete MI of the coarse labels).
  The paper blames the earlier studies' errors on having "used the same bin width in the
  discretization of univariate and bivariate distributions"; of the grids tried this one comes
  closest to the printed frequency table and to the printed MI(V1, V3) (see
  reports/simulation/README.md).
* ``"coarse-mixed"``: the coarse grid for h(Vi, Vj), but the m-bin h(Vi) and h(Vj).
* ``"cube-root"``: as ``"coarse"`` with ceil(n^(1/3)) bins per axis (an intermediate grid: 18 per
  axis at n = 5000 against 9 for ``"coarse"`` and 71 for ``"product"``).
* ``"product"``: the product of the univariate grids (m x m cells, the edges of h(Vi) and h(Vj)).
  Then h(Vi) + h(Vj) - h(Vi, Vj) is exactly the discrete MI of the bin labels
  (``sklearn.metrics.mutual_info_score``): the baseline of the benchmark and of the tests. Its
  plug-in bias, about (m - 1)^2 / (2n) ~ 1/2 nat, does not vanish as n grows.

``conditional`` -- how h(V | C) = sum_c P(C=c) h(V | C=c) is binned:

* ``"per-class"`` (default): each class's observations binned on their own range with
  ceil(sqrt(n_c)) bins (the paper's rule applied to the sub-sample), plus ln(Delta_c).
* ``"per-class-m"``: own range per class, but the m = ceil(sqrt(n)) bins of the whole sample.
* ``"pooled"``: the whole sample's range for every class, with ceil(sqrt(n_c)) bins (the paper's
  rule applied to the sub-sample's size but not to its range).
* ``"shared"``: the edges of h(V); then the ln(Delta) terms cancel and MI(C, V) is the discrete
  MI of (bin label, class), never negative.

A class with fewer than two observations has no range; it is binned on the whole sample's edges.

``edges`` -- where the m equal-width bins lie:

* ``"range"`` (default): [min, max] of the sample cut into m bins (the maximum falls in the last
  bin, as in ``numpy.histogram``).
* ``"centred"``: m bins of width (max - min)/(m - 1) whose extreme centres are min and max.

``ties`` (selection, :mod:`fstheory.selection.greedy`) -- how near-equal objective values are broken:

* ``"exact"`` (default): plain float comparison (``numpy.argmax``: the first index only on exact
  equality), what a direct implementation does. X and 3X+1 have the same MI with the class and,
  binned over their own sample ranges, the same counts, so their estimates differ only by the
  rounding of ln(Delta) (about 1e-16): which of the two is selected first is then decided by
  rounding, in a fraction of the replications that is neither 0 nor 1.
* ``"relative"``: candidates whose objective is within ``rtol * max(1, |best|)`` of the best are
  tied and the lowest feature index wins, the paper's rule for exact ties (Section 7: "X is
  selected before 3X+1 simply because it was placed first in the list").

A NaN objective (0/0, 0*inf, inf-inf in floats) is never selected; if every remaining candidate is
NaN, that replication's selection stops (rule 4 of :mod:`fstheory.orderings.greedy`).

Examples
--------
>>> EstimatorOptions()
EstimatorOptions(joint='coarse', conditional='per-class', edges='range')
>>> EstimatorOptions.from_mapping({"joint": "cubic"})
Traceback (most recent call last):
...
fstheory.scenarios.declaration.ParameterError: estimator option 'joint' must be one of coarse, coarse-mixed, cube-root, product (got 'cubic')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Mapping

from fstheory.scenarios.declaration import ParameterError

__all__ = ["EstimatorOptions", "SelectionOptions", "JOINT_GRIDS", "CONDITIONALS", "EDGES", "TIES"]

JOINT_GRIDS = ("coarse", "coarse-mixed", "cube-root", "product")
CONDITIONALS = ("per-class", "per-class-m", "pooled", "shared")
EDGES = ("range", "centred")
TIES = ("exact", "relative")

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
                raise ParameterError(
                    f"estimator option '{name}' must be one of {', '.join(allowed)} (got {value!r})"
                )

    @classmethod
    def from_mapping(cls, values: "Mapping[str, str] | EstimatorOptions | None") -> "EstimatorOptions":
        if values is None:
            return cls()
        if isinstance(values, cls):
            return values
        if not isinstance(values, Mapping):
            raise ParameterError(
                f"parameter 'estimator' must be a mapping of option names to values (got {values!r})"
            )
        known = {f.name for f in fields(cls)}
        for name in values:
            if name not in known:
                raise ParameterError(
                    f"unknown estimator option {name!r} (allowed: {', '.join(sorted(known))})"
                )
        return cls(**dict(values))

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SelectionOptions:
    """How the float greedy breaks near-ties (see the module docstring)."""

    ties: str = "exact"
    rtol: float = 1e-9

    def __post_init__(self):
        if self.ties not in TIES:
            raise ParameterError(
                f"parameter 'ties' must be one of {', '.join(TIES)} (got {self.ties!r})"
            )
        if isinstance(self.rtol, bool) or not isinstance(self.rtol, (int, float)) or not (0 <= self.rtol < 1):
            raise ParameterError(f"parameter 'rtol' must be a number in [0, 1) (got {self.rtol!r})")

    def as_dict(self) -> dict:
        return asdict(self)
