"""Evaluate the joint quantities of a bound scenario: H(C), MI(C; {V_i, V_j}), MI(C; V_i | V_j),
MI(V_i; V_j | C) and H(V_i, V_j, C), each an extended real with how it was obtained.

The derivations are those of :mod:`fstheory.engine.derive_joint`; values come from the
structure (exact 0, +inf, -inf, H(C)), from the single-feature values of
:func:`fstheory.engine.evaluate.evaluate` (the same extended reals, so sets that reduce to one
feature tie exactly with it), from closed forms (evaluated with mpmath at ``digits +
GUARD_DIGITS``), from the identities, from the integral over directions of
:mod:`fstheory.theory.two_point_fibre` (two-point fibres whose points have unequal densities),
or from the numerical route
(:class:`fstheory.theory.numeric.NumericRoute`: ``class_entropy``, ``mi_class_set``). A value out
of reach is "not computed" (:data:`fstheory.theory.extended.Form.NOT_COMPUTED`) with a cause of
the form ``"<quantity> not computed: <why>"``, and everything derived from it says the same.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> from fstheory.engine.evaluate import evaluate
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=12)
>>> v.h_c().text(12), v.mi_c_pair(0, 6).text(12), v.mi_c_pair(0, 2).text(12)
('0.693147180560', '0.693147180560', '0.623832462504')
>>> v.cmi_c(1, 0).text(), v.mi_given_c(0, 1).text(), v.h_pair_c(0, 1).text()
('0', '+inf', '-inf')
>>> v.mi_c_pair(2, 3).text(12)  # MI(C;{Y^2,X-Y}): the numerical route, fibre {(x, y), (x-2y, -y)}
'0.504107040407'
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
from flint import arb

from fstheory.scenarios.declaration import BoundScenario
from fstheory.engine.derive_joint import joint_structure
from fstheory.theory import numeric
from fstheory.theory import two_point_fibre as tpf
from fstheory.theory.cone_enclosure import cone_entropy_at
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr
from fstheory.theory.quadrature import flint_precision, to_mpf
from fstheory.theory.symbolic import GUARD_DIGITS, is_exact_zero, mp_value
from fstheory.engine.values import JointValues, ScenarioValues

__all__ = ["evaluate_joint", "joint_source", "JointSource", "LazyJointValues", "not_computed", "pair_label",
           "SetValues"]


def not_computed(label: str, why: str) -> ExtendedReal:
    """The "not computed" value of the quantity ``label`` (cause ``"<label> not computed: why"``)."""
    return ExtendedReal.indeterminate(Form.NOT_COMPUTED, f"{label} not computed: {why}", label)


def _root_cause(x: ExtendedReal) -> str:
    """The cause of a not-computed value, naming the quantity."""
    if " not computed: " in (x.cause or ""):
        return x.cause
    return f"{x.label} not computed: {x.cause}"


def pair_label(a: str, b: str) -> str:
    return f"MI(C;{{{a},{b}}})"


def _route(bound: BoundScenario):
    return numeric.NumericRoute(bound.laws(), bound.class_rule())


def _numeric(fn, label):
    try:
        result = fn()
    except numeric.NumericUnsupported as exc:
        return not_computed(label, str(exc)), f"not computed: {exc}"
    return result.as_extended().named(label), f"numerical route ({result.describe()})"


def evaluate_joint(bound: BoundScenario, digits: int = 30,
                   values: ScenarioValues | None = None) -> JointValues:
    """Every joint quantity of ``bound`` to ``digits`` significant digits.

    ``values`` are the single-feature values of ``bound`` at the same digits (computed if not
    given). The entries are those of :class:`LazyJointValues`, all computed.
    """
    lazy = LazyJointValues(bound, digits, values)
    n = lazy.values.n_features
    hc = lazy.h_class
    pair, cmi, given, hpair = ([[None] * n for _ in range(n)] for _ in range(4))
    # in the order of the provenance entries: H(C), the pairs, then row by row
    for i in range(n):
        for j in range(n):
            pair[i][j] = lazy.entry("mi_class_pair", i, j)
    for i in range(n):
        for j in range(n):
            cmi[i][j] = lazy.entry("cmi_class", i, j)
        for j in range(i, n):
            given[i][j] = lazy.entry("mi_given_class", i, j)
            hpair[i][j] = lazy.entry("h_pair_class", i, j)
    for i in range(n):
        for j in range(i):
            given[i][j] = lazy.entry("mi_given_class", i, j)
            hpair[i][j] = lazy.entry("h_pair_class", i, j)
    return JointValues(
        h_class=hc,
        mi_class_pair=tuple(map(tuple, pair)),
        cmi_class=tuple(map(tuple, cmi)),
        mi_given_class=tuple(map(tuple, given)),
        h_pair_class=tuple(map(tuple, hpair)),
        provenance=dict(lazy.provenance),
    )


class _LazyMatrix:
    """``m[i][j]`` of one joint quantity, each entry computed on first use."""

    __slots__ = ("_owner", "_name")

    def __init__(self, owner: "LazyJointValues", name: str):
        self._owner, self._name = owner, name

    def __len__(self) -> int:
        return self._owner.values.n_features

    def __getitem__(self, i: int):
        return _LazyRow(self._owner, self._name, i)


class _LazyRow:
    __slots__ = ("_owner", "_name", "_i")

    def __init__(self, owner, name, i):
        self._owner, self._name, self._i = owner, name, i

    def __len__(self) -> int:
        return self._owner.values.n_features

    def __getitem__(self, j: int) -> ExtendedReal:
        return self._owner.entry(self._name, self._i, j)


class LazyJointValues:
    """The joint quantities of ``bound`` with the attribute interface of
    :class:`~fstheory.engine.values.JointValues` (``h_class``, ``mi_class_pair[i][j]``, ...),
    each entry computed on first use and kept: an ordering reads only the pairs it compares, so
    the numerical-route pairs it never reads are never computed (what the atlas needs at each
    point of a sweep). Entries equal those of :func:`evaluate_joint` (which is built from them).
    ``sweep``: passed to :class:`SetValues`.

    >>> from fstheory.scenarios.registry import get_scenario
    >>> j = LazyJointValues(get_scenario("uniform").bind(k="0.2"), 12)
    >>> j.cmi_class[2][0].text(12), list(j.provenance)
    ('0.0306852819440', [('cmi_c', 2, 0), 'h_c', ('mi_c_pair', 0, 2), ('mi_c_pair', 2, 0)])
    """

    def __init__(self, bound: BoundScenario, digits: int = 30,
                 values: ScenarioValues | None = None, sweep: bool = False):
        if values is None:
            from fstheory.engine.evaluate import evaluate

            values = evaluate(bound, digits)
        self.bound, self.digits, self.values = bound, digits, values
        self.sweep = sweep
        self.structure = joint_structure(bound)
        self.provenance: dict = {}
        self._entries: dict = {}
        self._sets: SetValues | None = None
        self.mi_class_pair = _LazyMatrix(self, "mi_class_pair")
        self.cmi_class = _LazyMatrix(self, "cmi_class")
        self.mi_given_class = _LazyMatrix(self, "mi_given_class")
        self.h_pair_class = _LazyMatrix(self, "h_pair_class")

    @property
    def sets(self) -> "SetValues":
        if self._sets is None:
            self._sets = SetValues(self.bound, self.digits, self.values, self.sweep)
            self.provenance["h_c"] = self._sets.h_class_reason
        return self._sets

    @property
    def h_class(self) -> ExtendedReal:
        return self.sets.h_class

    def entry(self, name: str, i: int, j: int) -> ExtendedReal:
        """Entry (i, j) of the matrix ``name`` ("mi_class_pair", "cmi_class", "mi_given_class",
        "h_pair_class")."""
        key = (name, i, j)
        hit = self._entries.get(key)
        if hit is None:
            with mpmath.workdps(self.digits + GUARD_DIGITS):
                hit = self._entries[key] = getattr(self, "_" + name)(i, j)
        return hit

    def _mi_class_pair(self, i, j):
        L = self.values.labels
        if i > j:
            return self.entry("mi_class_pair", j, i).named(pair_label(L[i], L[j]))
        label = f"MI(C,{L[i]})" if i == j else pair_label(L[i], L[j])
        value = self.sets.value((i, j), label)
        reason = self.structure.mi_class_set((i, j)).reason
        self.provenance[("mi_c_pair", i, j)] = self.provenance[("mi_c_pair", j, i)] = reason
        return value

    def _cmi_class(self, i, j):
        label = f"MI(C;{self.values.labels[i]}|{self.values.labels[j]})"
        if i == j:
            self.provenance[("cmi_c", i, j)] = "a feature given itself"
            return xr(0, label)
        self.provenance[("cmi_c", i, j)] = "MI(C;{Vi,Vj}) - MI(C,Vj) (chain rule)"
        return (self.entry("mi_class_pair", i, j) - self.values.mi_c(j)).named(label)

    def _mi_given_class(self, i, j):
        L = self.values.labels
        if i > j:
            return self.entry("mi_given_class", j, i).named(f"MI({L[i]};{L[j]}|C)")
        g, why = _given_value(self.structure.mi_given_class(i, j), i, j, self.values,
                              self.entry("mi_class_pair", i, j))
        self.provenance[("mi_given_c", i, j)] = self.provenance[("mi_given_c", j, i)] = why
        return g.named(f"MI({L[i]};{L[j]}|C)")

    def _h_pair_class(self, i, j):
        L = self.values.labels
        if i > j:
            return self.entry("h_pair_class", j, i).named(f"H({L[i]},{L[j]},C)")
        h, why = _joint_entropy_value(self.structure.joint_entropy_class(i, j), i, j,
                                      self.values, self.h_class, self.entry("mi_class_pair", i, j))
        self.provenance[("h_pair_c", i, j)] = self.provenance[("h_pair_c", j, i)] = why
        return h.named(f"H({L[i]},{L[j]},C)")


class SetValues:
    """MI(C; V_S) for any set S of ``bound``'s features (and H(C)), at ``digits`` significant
    digits, from the derivations of :func:`fstheory.engine.derive_joint.joint_structure`;
    values are kept. ``sweep``: the caller evaluates the same scenario at many values of its
    parameters (the atlas), so the integrals over directions are taken from models of their
    weight kept between points (:func:`_cone_value`).

    >>> from fstheory.scenarios.registry import get_scenario
    >>> s = SetValues(get_scenario("uniform").bind(k="0.2"), 10)
    >>> s.value((0, 6)).text(10), s.value((0, 1, 7)).text(10), s.value((4, 5, 8)).text()
    ('0.6931471806', '0.5931471806', '0')
    """

    def __init__(self, bound: BoundScenario, digits: int = 30, values: ScenarioValues | None = None,
                 sweep: bool = False):
        if values is None:
            from fstheory.engine.evaluate import evaluate

            values = evaluate(bound, digits)
        self.bound, self.digits, self.values = bound, digits, values
        self.sweep = sweep
        self.structure = joint_structure(bound)
        self._memo: dict = {}
        with mpmath.workdps(digits + GUARD_DIGITS):
            self._route = _route(bound)
            self._ln2 = xr(mpmath.log(2), "ln 2")
            d = self.structure.class_entropy()
            self.h_class_reason = d.reason
            if d.kind == "zero":
                self.h_class = xr(0, "H(C)")
            elif d.kind == "ln2":
                self.h_class = xr(mpmath.log(2), "H(C)")
            else:
                self.h_class, self.h_class_reason = _numeric(self._route.class_entropy, "H(C)")

    def label(self, S) -> str:
        return "MI(C;{" + ",".join(self.values.labels[i] for i in sorted(S)) + "})"

    def value(self, S, label: str | None = None) -> ExtendedReal:
        """MI(C; V_S) as an extended real (labelled "MI(C;{X,Y})" unless ``label`` is given)."""
        S = tuple(sorted(set(S)))
        if S not in self._memo:
            d = self.structure.mi_class_set(S)
            with mpmath.workdps(self.digits + GUARD_DIGITS):
                self._memo[S] = _set_value(d, self.label(S), self.values, self.h_class,
                                           self._ln2, self._route, self.structure, self.sweep)
        v = self._memo[S]
        return v.named(label) if label else v


def _set_value(d, label, values, hc, ln2, route, st, sweep: bool = False) -> ExtendedReal:
    if d.kind == "zero":
        return xr(0, label)
    if d.kind == "class-entropy":
        if hc.is_indeterminate:
            return not_computed(label, f"it equals H(C) ({d.reason}); {_root_cause(hc)}")
        return hc.named(label)
    if d.kind == "single":
        v = values.mi_c(d.reduced[0])
        if v.is_indeterminate:
            return not_computed(label, f"it equals {v.label} ({d.reason}); {_root_cause(v)}")
        return v.named(label)
    if d.kind == "two-point":
        if hc.is_indeterminate:
            return not_computed(label, f"it needs H(C) ({d.reason}); {_root_cause(hc)}")
        p = xr(0) if is_exact_zero(d.expr) else xr(mp_value(d.expr))
        return (hc - ln2 * p).named(label)
    if d.kind == "two-point-cone":
        return _cone_value(d, label, hc, st, sweep)
    exprs = tuple(st.exprs[i] for i in d.reduced)
    value, _ = _numeric(lambda: route.mi_class_set(exprs), label)
    return value


def _cone_value(d, label, hc, st, sweep: bool) -> ExtendedReal:
    """H(C) - H(C | V_S) with H(C | V_S) the integral over directions at the working precision
    (``digits + GUARD_DIGITS``): mpmath's quadrature at one point
    (:func:`fstheory.theory.two_point_fibre.cone_entropy`); in a sweep, the enclosure of
    :func:`fstheory.theory.cone_enclosure.cone_entropy_at` (20 guard bits), whose models of the
    weight cost about twenty single-point integrals to build and then about 0.01 s per point.
    Refused when the error estimate or radius is above 10^-(dps - 10), 10^4 times the tolerance
    the numerical route works to."""
    if hc.is_indeterminate:
        return not_computed(label, f"it needs H(C) ({d.reason}); {_root_cause(hc)}")
    try:
        if sweep:
            kind, a, T = tpf.radial_form(d.partner, st.event, st.laws)
            with flint_precision(mpmath.mp.prec + 20):
                ball = cone_entropy_at(kind, a, T)
            value, error = to_mpf(ball.mid()), to_mpf(arb(ball.rad()))
        else:
            r = tpf.cone_entropy(d.partner, st.event, st.laws)
            value, error = r.value, r.error
    except ArithmeticError as exc:
        return not_computed(label, str(exc))
    tol = mpmath.mpf(10) ** -(mpmath.mp.dps - 6)
    if error > tol * 10 ** 4:
        return not_computed(label, f"the integral over directions did not reach the accuracy "
                            f"(radius {mpmath.nstr(error, 2)})")
    return (hc - xr(value)).named(label)


def _given_value(d, i, j, values, pair_ij) -> tuple[ExtendedReal, str]:
    if d.kind == "zero":
        return xr(0), d.reason
    if d.kind == "+inf":
        return POS_INF, d.reason
    mi = values.mi(i, j)
    if mi.is_determinate and not mi.is_finite:
        return not_computed(f"MI({values.labels[i]};{values.labels[j]}|C)",
                            "MI(Vi,Vj) is infinite but the pair is not singular by structure"), "not computed"
    return mi - values.mi_c(i) - values.mi_c(j) + pair_ij, f"identity: {d.reason}"


def _joint_entropy_value(d, i, j, values, hc, pair_ij) -> tuple[ExtendedReal, str]:
    if d.kind == "-inf":
        return NEG_INF, d.reason
    return (values.h(i) + values.h(j) - values.mi(i, j) + hc - pair_ij), f"identity: {d.reason}"


@dataclass(frozen=True)
class JointSource:
    """What :func:`fstheory.engine.evaluate.evaluate` attaches to its values: called with the
    values, it computes their joint quantities (on first use; a plain object, so values stay
    picklable)."""

    bound: BoundScenario
    digits: int
    lazy: bool = False

    def __call__(self, values: ScenarioValues) -> JointValues | LazyJointValues:
        if self.lazy:
            return LazyJointValues(self.bound, self.digits, values)
        return evaluate_joint(self.bound, self.digits, values)


def joint_source(bound: BoundScenario, digits: int) -> JointSource:
    return JointSource(bound, digits)
