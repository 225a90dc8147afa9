"""The derivation of each quantity *at a point*: structure decided there first, then the kinds
that need the bound numbers, then the general derivation (:func:`fstheory.engine.derive.derive`).

A structural fact of the general derivation is never taken as it is: a shortcut that holds for
general parameters may fail at a point (``k*Y`` is constant at k = 0: h = -inf, MI 0 with
everything, MI(V, V) = 0), and one that fails in general may hold at a point (the class is a
function of X at k = 0). So the structure is decided again with the numbers
(:class:`~fstheory.engine.point.Point`); where it decides nothing, a general structural
derivation falls back to the numerical route.

The recognisers are registered per quantity in :data:`POINT_KINDS` (tried in order, first match
wins); each is ``recognise(point, general, index) -> Derivation | None``:

* h(V_i): a feature constant at the point (-inf); the general derivation;
* MI(C, V_i): structure at the point (0, or H(C) when the class is a function of V_i); Scenario
  I's closed forms and series (:func:`fstheory.theory.uniform_class.recognise`) and Scenario
  III's Laplace class integrals (:func:`fstheory.theory.laplace_class.recognise`), recognised by
  content (a scenario file gets them as the registered scenario does) with the class weight as
  a number; jointly normal V and class form with any threshold
  (:mod:`fstheory.theory.gaussian_class`); the general derivation;
* MI(V_i, V_j): structure at the point (0, +inf; the diagonal, 0 for a constant feature); the
  general derivation.

H(C) is 0 for a class constant at the point, ln 2 when a class-swapping map exists
(:meth:`fstheory.engine.derive_joint.JointStructure.class_entropy`), else the numerical route.
"""

from __future__ import annotations

import sympy as sp

from fstheory.engine.derive import (
    ScenarioDerivation,
    class_reduction,
    pair_reduction,
    reduce_bijection,
)
from fstheory.engine.kinds import (Derivation, Exact, GaussianThresholdClassMI,
                                   LaplaceClassIntegral, Numerical, Structural,
                                   UniformClassSeries)
from fstheory.engine.point import Point

__all__ = ["POINT_KINDS", "PointDerivations", "Alias", "class_entropy_derivation",
           "class_mi_of"]


def _constant_feature(point: Point, general, i):
    if point.constant(i[0]):
        return Structural(-sp.oo, f"{point.exprs[i[0]]} is constant at these parameters (no density)")
    return None


def _class_structure(point: Point, general, i):
    found = point.class_structure(i[0])
    if found is None:
        return None
    kind, why = found
    if kind == "zero":
        return Structural(0, why)
    return Alias(class_entropy_derivation(point), why)


def _uniform_class(point: Point, general, i):
    from fstheory.theory.uniform_class import mi_class_expression, recognise

    found = recognise(point.scenario, point.subs, point.scenario.features[i[0]].expr, None)
    if found is None:
        return None
    which, k = found
    reason = "uniform laws, class 1{A + kB >= 0}: Scenario I's closed form"
    if which == "X":
        return Exact(mi_class_expression(which, k), reason)
    if k in (0, 1):  # an end of the range: the closed form's one-sided limit
        return Exact(sp.limit(mi_class_expression(which, sp.Symbol("k")), sp.Symbol("k"), k,
                              "+" if k == 0 else "-"), reason)
    return UniformClassSeries(mi_class_expression(which, k), which, k, reason)


def _laplace_class(point: Point, general, i):
    from fstheory.theory.laplace_class import recognise

    found = recognise(point.scenario, point.subs, point.scenario.features[i[0]].expr, None)
    if found is None:
        return None
    which, k = found
    if not (k.is_Rational and 0 <= k <= 1):
        return None
    return LaplaceClassIntegral(which, k, "Laplace laws, class 1{A + kB >= 0}: one integral over "
                                          "the half line")


def _normal_threshold(point: Point, general, i):
    """V and the linear class form jointly normal, with any threshold (the general derivation
    has the skew-normal closed form when the threshold is the mean)."""
    from fstheory.theory.gaussian_class import threshold_parameters

    if general.kind == "closed" or not point.scenario.class_rule.is_linear:
        return None
    found = threshold_parameters(point.exprs[i[0]], point.bound.class_weights(),
                                 point.bound.class_threshold(), point.laws)
    if found is None:
        return None
    return GaussianThresholdClassMI(*found, "jointly normal (V, L), threshold class: one "
                                            "integral against the normal law")


def _pair_structure(point: Point, general, ij):
    found = point.pair_structure(*ij)
    if found is None:
        return None
    return Structural(*found)


def _general_for(quantity: str):
    """The general derivation at the point: a closed form as it is; otherwise the numerical
    route's ``quantity`` on the bound features (a structural derivation that the point did not
    confirm goes there too). MI(C, V) is computed on V's one-to-one reduction (a*B + c -> B,
    g(B) -> B for g strictly monotone, or when the class depends on B only through g(B)), so
    that equal MIs are one computation and cancel exactly in identities; MI(U, V) on the pair
    with a strictly monotone g(B) replaced by B."""

    def recognise(point: Point, general: Derivation, index):
        if general.kind == "closed":
            return general
        exprs = [point.exprs[i] for i in index]
        if quantity == "mi_class":
            exprs = [reduce_bijection(class_reduction(exprs[0], point.form, point.laws),
                                      point.laws)]
        elif quantity == "mi_pair":
            exprs = list(pair_reduction(*exprs, point.laws))
        reason = general.reason if general.kind == "numeric" else "numerical route"
        return Numerical(quantity, tuple(exprs), reason)

    return recognise


#: point recognisers per quantity ("h", "mi_c", "mi"), tried in order
POINT_KINDS = {
    "h": [_constant_feature, _general_for("entropy")],
    "mi_c": [_class_structure, _uniform_class, _laplace_class, _normal_threshold,
             _general_for("mi_class")],
    "mi": [_pair_structure, _general_for("mi_pair")],
}


class Alias(Derivation):
    """Another quantity's derivation under a reason of its own (MI(C, V) = H(C) when the class
    is a function of V): same key, same value."""

    def __init__(self, target: Derivation, reason: str):
        super().__init__(reason)
        self.target = target
        self.kind, self.name, self.integral = target.kind, target.name, target.integral
        self.expr = target.expr

    def key(self):
        return self.target.key()

    def exact(self, point):
        return self.target.exact(point)

    def exact_fallback(self, point):
        return self.target.exact_fallback(point)

    def ball(self, point, bits):
        return self.target.ball(point, bits)


class PointDerivations:
    """The derivation at ``point`` of every quantity of the scenario (kept)."""

    def __init__(self, point: Point, general: ScenarioDerivation):
        self.point, self.general = point, general
        self._memo: dict = {}

    def get(self, q: tuple) -> Derivation:
        """``q`` = ("h", i), ("mi_c", i) or ("mi", i, j)."""
        hit = self._memo.get(q)
        if hit is None:
            name, index = q[0], q[1:]
            if name == "mi" and index[0] > index[1]:
                hit = self._memo[q] = self.get(("mi", index[1], index[0]))
                return hit
            if name == "h":
                general = self.general.entropy[index[0]]
            elif name == "mi_c":
                general = self.general.mi_class[index[0]]
            else:
                general = self.general.mi_features[index[0]][index[1]]
            for recognise in POINT_KINDS[name]:
                hit = recognise(self.point, general, index)
                if hit is not None:
                    break
            if name == "mi_c" and isinstance(hit, Numerical):
                hit = self._image(index[0], hit)
            self._memo[q] = hit
        return hit

    def _image(self, i: int, hit: Derivation) -> Derivation:
        """MI(C, V_i) computed by the numerical route equals MI(C, V_j) for an earlier V_j that
        a law-preserving map of the base variables fixing the class takes to V_i (X + Y and
        X - Y under Y -> -Y for a rule in X^2 + Y^2): one integral for both, checked at the
        point."""
        point = self.point
        for j in range(i):
            target = self.get(("mi_c", j))
            if not isinstance(getattr(target, "target", target), Numerical):
                continue
            tau = point.class_image(j, i)
            if tau is not None:
                return Alias(target, f"equal to MI(C, {point.labels[j]}): {tau.describe()} "
                                      f"preserves the laws and the class and takes "
                                      f"{point.labels[j]} to {point.labels[i]}")
        return hit


def class_entropy_derivation(point: Point) -> Derivation:
    """H(C) at the point (kept by the point)."""
    hit = point.memo.get("h_c")
    if hit is None:
        d = point.joint().class_entropy()
        if d.kind == "zero":
            hit = Structural(0, d.reason)
        elif d.kind == "ln2":
            hit = Exact(sp.log(2), d.reason)
        else:
            hit = Numerical("class_entropy", (), d.reason)
        point.memo["h_c"] = hit
    return hit


def class_mi_of(point: Point, expr, reason: str) -> Derivation:
    """MI(C, V) at the point for an expression V of the base variables that need not be one of
    the features (the one-dimensional statistic of a set, :mod:`fstheory.theory.sufficiency`):
    jointly normal V and linear class form (:mod:`fstheory.theory.gaussian_class`), else the
    numerical route on V's one-to-one reduction, as for a feature (so a statistic equal to a
    feature up to a one-to-one map has the same key)."""
    from fstheory.theory.gaussian_class import threshold_parameters

    expr = sp.expand(sp.sympify(expr))
    if point.scenario.class_rule.is_linear:
        found = threshold_parameters(expr, point.bound.class_weights(),
                                     point.bound.class_threshold(), point.laws)
        if found is not None:
            return GaussianThresholdClassMI(*found, reason)
    reduced = reduce_bijection(class_reduction(expr, point.form, point.laws), point.laws)
    return Numerical("mi_class", (reduced,), reason)
