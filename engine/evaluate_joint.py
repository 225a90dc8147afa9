"""Evaluate the joint quantities of a bound scenario: H(C), MI(C; {V_i, V_j}), MI(C; V_i | V_j),
MI(V_i; V_j | C) and H(V_i, V_j, C), each an extended real with how it was obtained.

The derivations are those of :mod:`fstheory.engine.derive_joint`, made typed derivations
(:mod:`fstheory.engine.kinds`) at the point and proved like the single-feature values
(:func:`fstheory.engine.prove.prove`): structure (exact 0, +inf, -inf, H(C)); the single-feature
values of :func:`fstheory.engine.evaluate.evaluate` (the same extended reals, so sets that reduce
to one feature tie exactly with it); H(C) - ln 2 P for a two-point fibre (P exact); H(C) minus
the integral over directions (:mod:`fstheory.theory.cone_enclosure`, enclosed); the numerical
route (``class_entropy``, ``mi_class_set``); and the identities, as :class:`~fstheory.engine.kinds.Linear`
combinations whose equal terms cancel exactly before any number is computed (MI(C; X | 3X+1) is
an exact 0) and whose balls are refined until the requested digits are proved. A value out of
reach is "not computed" (:data:`fstheory.theory.extended.Form.NOT_COMPUTED`) with a cause of
the form ``"<quantity> not computed: <why>"``, and everything derived from it says the same.

Invariants checked on every value: H(C) in [0, ln 2]; MI(C; {V_i, V_j}) in
[max(MI(C, V_i), MI(C, V_j)), H(C)]; MI(C; V_i | V_j) >= 0 and MI(V_i; V_j | C) >= 0 (a
violation is an internal error). H(V_i, V_j, C) has no sign (differential entropies can be
negative).

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> from fstheory.engine.evaluate import evaluate
>>> v = evaluate(get_scenario("uniform").bind(k="0.2"), digits=12)
>>> v.h_c().text(12), v.mi_c_pair(0, 6).text(12), v.mi_c_pair(0, 2).text(12)
('0.693147180560', '0.693147180560', '0.623832462504')
>>> v.cmi_c(1, 0).text(), v.mi_given_c(0, 1).text(), v.h_pair_c(0, 1).text()
('0', '+inf', '-inf')
>>> v.mi_c_pair(2, 3).text(12)  # MI(C;{Y^2,X-Y}): H(C) - ln 2 P for the fibre {(x, y), (x-2y, -y)}
'0.504107040407'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath

from fstheory.engine.evaluate_sets import SetQuantities, SetValues, not_computed, root_cause
from fstheory.engine.kinds import Linear
from fstheory.engine.prove import ENTROPY, MI, prove
from fstheory.engine.quantities import quantities_for
from fstheory.engine.resolve import class_entropy_derivation
from fstheory.engine.values import JointUnavailable, JointValues, ScenarioValues
from fstheory.scenarios.declaration import BoundScenario
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, xr
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["evaluate_joint", "joint_source", "JointSource", "LazyJointValues", "not_computed",
           "pair_label", "SetValues"]


def pair_label(a: str, b: str) -> str:
    return f"MI(C;{{{a},{b}}})"


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
    ``sweep`` is accepted for the atlas's callers (every point evaluates the same enclosures).

    >>> from fstheory.scenarios.registry import get_scenario
    >>> j = LazyJointValues(get_scenario("uniform").bind(k="0.2"), 12)
    >>> j.cmi_class[2][0].text(12), list(j.provenance)
    ('0.0306852819440', [('cmi_c', 2, 0), 'h_c', ('mi_c_pair', 0, 2), ('mi_c_pair', 2, 0)])
    """

    def __init__(self, bound: BoundScenario, digits: int = 30,
                 values: ScenarioValues | None = None, sweep: bool = False, quantities=None):
        self.quantities = quantities or quantities_for(bound, digits, values)
        if values is None:
            values = self.quantities.values(
                joint_source=JointSource(bound, digits, quantities=self.quantities))
        self.bound, self.digits, self.values = bound, digits, values
        self.structure = self.quantities.point.joint()
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
            self._sets = SetValues(self.bound, self.digits, self.values,
                                   quantities=self.quantities)
            self.provenance["h_c"] = self._sets.h_class_reason
        return self._sets

    @property
    def h_class(self) -> ExtendedReal:
        return self.sets.h_class

    def set_quantities(self, values: ScenarioValues) -> SetQuantities:
        """MI(C; V_S) for the sets of features of ``values``: this joint values' own sets."""
        return SetQuantities(self.sets)

    def entry(self, name: str, i: int, j: int) -> ExtendedReal:
        """Entry (i, j) of the matrix ``name`` ("mi_class_pair", "cmi_class", "mi_given_class",
        "h_pair_class")."""
        key = (name, i, j)
        hit = self._entries.get(key)
        if hit is None:  # values combined by extended-real arithmetic keep the working digits
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
        terms = [(1, ("pair", i, j)), (-1, ("mi_c", j))]
        return self._identity(terms, label, MI, "the chain rule")

    def _mi_given_class(self, i, j):
        L = self.values.labels
        if i > j:
            return self.entry("mi_given_class", j, i).named(f"MI({L[i]};{L[j]}|C)")
        label = f"MI({L[i]};{L[j]}|C)"
        d = self.structure.mi_given_class(i, j)
        why = d.reason
        if d.kind == "zero":
            value = xr(0, label)
        elif d.kind == "+inf":
            value = POS_INF.named(label)
        else:
            mi = self.values.mi(i, j)
            if mi.is_determinate and not mi.is_finite:
                value = not_computed(label, "MI(Vi,Vj) is infinite but the pair is not singular "
                                            "by structure")
                why = "not computed"
            else:
                terms = [(1, ("mi", i, j)), (-1, ("mi_c", i)), (-1, ("mi_c", j)),
                         (1, ("pair", i, j))]
                value = self._identity(terms, label, MI, "the identity")
                why = f"identity: {d.reason}"
        self.provenance[("mi_given_c", i, j)] = self.provenance[("mi_given_c", j, i)] = why
        return value

    def _h_pair_class(self, i, j):
        L = self.values.labels
        if i > j:
            return self.entry("h_pair_class", j, i).named(f"H({L[i]},{L[j]},C)")
        label = f"H({L[i]},{L[j]},C)"
        d = self.structure.joint_entropy_class(i, j)
        if d.kind == "-inf":
            value, why = NEG_INF.named(label), d.reason
        else:
            terms = [(1, ("h", i)), (1, ("h", j)), (-1, ("mi", i, j)), (1, ("h_c",)),
                     (-1, ("pair", i, j))]
            value, why = self._identity(terms, label, ENTROPY, "the identity"), \
                f"identity: {d.reason}"
        self.provenance[("h_pair_c", i, j)] = self.provenance[("h_pair_c", j, i)] = why
        return value

    # ----- identities -----------------------------------------------------------------------------
    def _term(self, q):
        """(value, derivation) of a term of an identity: the values already computed, and the
        derivation at the point that gave each."""
        v, sets, engine = self.values, self.sets, self.quantities
        if q[0] == "pair":
            i, j = q[1:]
            return self.entry("mi_class_pair", i, j), sets.derivation((i, j))
        if q[0] == "mi_c":
            return v.mi_c(q[1]), engine.derivation(("mi_c", q[1]))
        if q[0] == "mi":
            return v.mi(*q[1:]), engine.derivation(("mi", *q[1:]))
        if q[0] == "h":
            return v.h(q[1]), engine.derivation(("h", q[1]))
        return sets.h_class, class_entropy_derivation(engine.point)

    def _identity(self, terms, label: str, invariant, what: str) -> ExtendedReal:
        """sum coef * term as one :class:`~fstheory.engine.kinds.Linear` combination: equal terms
        cancel exactly (an empty sum is an exact 0); proved when every term left is finite and
        computed; else the terms' values combined (a value out of reach named first; estimates
        giving an estimate; infinities and indeterminate forms by extended-real arithmetic)."""
        values = {}
        parts = []
        for c, q in terms:
            val, der = self._term(q)
            values[der.key()] = val
            parts.append((c, der))
        d = Linear(parts, what)
        if not d.terms:
            return xr(0, label)
        net: dict = {}
        for c, der in parts:  # the terms as given, equal ones merged (for the values' route)
            net[der.key()] = (net.get(der.key(), (0, der))[0] + c, der)
        left = [(c, (values[key], der)) for key, (c, der) in net.items() if c != 0]
        if all(val.is_finite for _, (val, _) in left):
            value, _ = prove(d, self.quantities.point, self.digits, label, invariant)
            return value
        hard = [val for _, (val, _) in left if val.is_indeterminate and not val.is_estimate]
        if hard:  # a value out of reach: say which, not an estimate that happens to come first
            return hard[0].named(label)
        if all(val.is_finite or val.is_estimate for _, (val, _) in left):
            return _estimated_sum(left, label)
        total = None
        for c, (val, _) in left:
            term = val * ExtendedReal.finite(c) if c not in (1, -1) else (val if c == 1 else -val)
            total = term if total is None else total + term
        return total.named(label)


def _estimated_sum(pairs, label: str) -> ExtendedReal:
    """sum coef * term where some terms are estimates: an estimate too (the errors added), not
    computed, naming the first estimate it rests on."""
    total, error, first = 0, 0, None
    for c, (val, _) in pairs:
        if val.is_estimate:
            v, e = val.estimate
            first = first or val
        else:
            v, e = val.value, val.radius or 0
        total, error = total + c * v, error + abs(c) * e
    why = (f"not proved, only an estimate (error estimate {mpmath.nstr(error, 2)}, not a bound; "
           f"from {first.label}, {root_cause(first)})")
    return ExtendedReal.estimated(total, error, f"{label} not computed: {why}", label)


@dataclass(frozen=True)
class JointSource:
    """What :func:`fstheory.engine.evaluate.evaluate` attaches to its values: called with the
    values, it computes their joint quantities (on first use). ``quantities``, the point engine
    that computed the values, is reused when present and never pickled (values sent between
    processes carry only the bound scenario and the digits)."""

    bound: BoundScenario
    digits: int
    lazy: bool = False
    quantities: object = field(default=None, compare=False, repr=False)

    def __call__(self, values: ScenarioValues) -> JointValues | LazyJointValues:
        if self.lazy:
            return LazyJointValues(self.bound, self.digits, values)
        return evaluate_joint(self.bound, self.digits, values)

    def set_quantities(self, values: ScenarioValues) -> SetQuantities:
        """MI(C; V_S) for the sets of features of ``values``: those of the lazy joint values
        (computed first), or sets of their own next to eager joint values (which compute every
        pair first and keep no sets)."""
        if not self.lazy:
            return SetQuantities(SetValues(self.bound, self.digits, values))
        joint = values.joint_values()
        if isinstance(joint, LazyJointValues):
            return joint.set_quantities(values)
        raise JointUnavailable(f"MI(C; V_S) for sets of features of {values.scenario} cannot be "
                               "computed: these values carry no scenario to derive them from")

    def __getstate__(self):
        return {"bound": self.bound, "digits": self.digits, "lazy": self.lazy}

    def __setstate__(self, state):
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "quantities", None)


def joint_source(bound: BoundScenario, digits: int) -> JointSource:
    return JointSource(bound, digits)
