"""A scenario's values as functions of one or two swept parameters: what the atlas evaluates.

The joint quantities of the 3-D methods (MI(C; {V_i, V_j}), ...) are attached to each point's
values lazily: derived and computed at the point, bound exactly, entry by entry as the ordering
reads them (:class:`~fstheory.engine.evaluate_joint.LazyJointValues`).

Only the quantities that depend on the swept parameter are recomputed at each point. Which ones
depend on it is read from the symbolic derivation (:func:`fstheory.engine.derive.derive`):

* ``structure`` quantities never vary, except a +inf between features whose expressions hold a
  swept symbol (a*X is constant at a = 0, where its MI with X is 0): the engine decides those
  at each point, with the structure checked there;
* a ``closed`` form varies with P when P's symbol appears in it (after the other parameters are
  substituted); at each point it is the engine's typed derivation
  (:mod:`fstheory.engine.kinds`, compiled to arb once) proved to the digits asked
  (:func:`fstheory.engine.prove.prove`), the same object and the same code as ``fstheory
  values`` at that point;
* a ``numeric`` quantity (numerical route) is taken to vary with every parameter that enters its
  feature, the laws of its base variables or, for MI(C, V), the class rule; it is evaluated at each
  point, on its own, as :func:`fstheory.engine.evaluate.evaluate` does
  (:class:`~fstheory.engine.quantities.PointQuantities`), except Scenario III's MI(C, V)
  (:func:`fstheory.theory.laplace_class.recognise`), a function of the class weight alone,
  free of the Laplace scale, proved as the engine's Laplace class integral without re-deriving
  the point's structure. The numerical route binds the scenario at the point, so it needs
  a rational point: the sweep samples rational points, and at an irrational special point (a
  zero of a closed-form entropy) a numerical quantity refuses the row
  (:class:`IrrationalPoint`, naming the point and the quantity).

The other quantities are evaluated once, at a reference point. The method parameter ``beta`` is
not a scenario parameter: it is passed to the selection as it is.

A point is exact (a special point: the ends of the range, zeros of an entropy, possibly
irrational; or a sweep point, a binary fraction): the closed forms see it exactly, take one-sided
limits at the ends of a parameter's range (MI(C_0, X-Y) = 1/4 in Scenario I) and recognise exact
zeros (h(X) = ln(2 delta) at delta = 1/2) by the engine's exact fallback, never from a ball.

Examples
--------
>>> import sympy as sp
>>> from fstheory.scenarios.registry import get_scenario
>>> pv = ParametricValues(get_scenario("uniform"), {}, ("k",), digits=15)
>>> [pv.labels[q[1]] for q in pv.varying if q[0] == "mi_c"]
['X', '3X+1', 'X-Y', 'Y']
>>> pv.at({"k": sp.Integer(0)}, exact=True).mi_c(6).text(), pv.at({"k": sp.Rational(1, 5)}).mi_c(0).text(10)
('0', '0.5931471806')
"""

from __future__ import annotations

from dataclasses import replace

import mpmath
import sympy as sp

from fstheory.atlas.numbers import as_exact, man_exp
from fstheory.engine.derive import derive
from fstheory.engine.evaluate import evaluate
from fstheory.engine.kinds import LaplaceClassIntegral
from fstheory.engine.point import Parameters
from fstheory.engine.prove import ENTROPY, MI, MI_CLASS, prove
from fstheory.engine.quantities import PointQuantities
from fstheory.engine.values import ScenarioValues
from fstheory.atlas.structural import StructuralPoints, structural_points
from fstheory.scenarios.declaration import BoundScenario, ParameterError, Scenario
from fstheory.scenarios.domains import DOMAINS
from fstheory.theory.extended import ExtendedReal
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["ParametricValues", "METHOD_PARAMETERS", "QUANTITY_NAMES",
           "IrrationalPoint"]

#: Parameters of a method rather than of the scenario (swept by the atlas like any other).
METHOD_PARAMETERS = ("beta",)

QUANTITY_NAMES = {"h": "h({0})", "mi_c": "MI(C,{0})", "mi": "MI({0},{1})"}


class IrrationalPoint(ParameterError):
    """A row refused: a quantity without a closed form in the swept parameter is needed at an
    irrational special point, where the numerical route cannot bind the scenario."""


#: the invariant each kind of quantity is checked against (:mod:`fstheory.engine.prove`)
_INVARIANT = {"h": ENTROPY, "mi_c": MI_CLASS, "mi": MI}


def _quantity(quantities: PointQuantities, q) -> ExtendedReal:
    """Quantity ``q`` ("h", i), ("mi_c", i) or ("mi", i, j) of :func:`evaluate` on its own."""
    get = {"h": quantities.entropy, "mi_c": quantities.mi_class, "mi": quantities.mi_pair}[q[0]]
    return get(*q[1:])[0]


class _Lazy:
    """A read-only sequence of ``n`` entries, each ``make(i)`` computed on first use and kept."""

    __slots__ = ("_n", "_make", "_memo")

    def __init__(self, n: int, make):
        self._n, self._make, self._memo = n, make, {}

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int):
        if not 0 <= i < self._n:
            raise IndexError(i)
        hit = self._memo.get(i)
        if hit is None:
            hit = self._memo[i] = self._make(i)
        return hit

    def __iter__(self):
        return (self[i] for i in range(self._n))


class _PointValues:
    """The varying values at one point, each computed on first use: locating a crossing reads
    only the candidates' quantities, not every quantity that varies. Equal closed forms (MI(C,X)
    and MI(C,3X+1)) are evaluated once; the numerical route once for the whole point."""

    def __init__(self, pv: "ParametricValues", point: dict, exact: bool):
        self.pv, self.point, self.exact = pv, point, exact
        self._numeric: PointQuantities | None = None  # one numerical route for the point
        self._params: Parameters | None = None  # the exact point, shared by its closed forms
        self._same: dict = {}

    def raw(self, q) -> ExtendedReal:
        pv = self.pv
        if pv._derivations[q].kind != "closed":  # numerical, or structure decided at the point
            fast = pv.laplace_mi_class(q, self.point)
            if fast is not None:
                return fast
            if self._numeric is None:
                self._numeric = PointQuantities(pv.bound_for(q, self.point), pv.digits)
            return _quantity(self._numeric, q)
        form = pv.closed_form(q)
        if form not in self._same:
            if self._params is None:
                self._params = pv.parameters_at(self.point)
            self._same[form] = pv.value(q, self.point, self.exact, self._params)
        return self._same[form]

    def get(self, q, reference: ExtendedReal) -> ExtendedReal:
        if q not in self.pv._varying_set:
            return reference
        return self.raw(q).named(self.pv.quantity_label(q))

    def pair(self, i: int, j: int) -> ExtendedReal:
        q = ("mi", min(i, j), max(i, j))
        if q not in self.pv._varying_set:
            return self.pv.reference.mi_features[i][j]
        labels = self.pv.labels
        return self.raw(q).named(f"MI({labels[i]},{labels[j]})")


class _JointAt:
    """The joint values at one point, computed entry by entry on first use
    (:class:`~fstheory.engine.evaluate_joint.LazyJointValues`): the structure is derived at
    the point itself, bound exactly (a weight 0 at k = 0 changes it), and the pairs an ordering
    never compares are never computed. Kept with the point's values in the cache of
    :meth:`ParametricValues.at`, so every 3-D method row swept over the same points reuses them."""

    def __init__(self, pv: "ParametricValues", point: dict, digits: int | None = None):
        self.pv, self.point = pv, point
        self.digits = pv.digits if digits is None else digits

    def __call__(self, values: ScenarioValues):
        from fstheory.engine.evaluate_joint import LazyJointValues

        return LazyJointValues(self.pv.bound_at(self.point), self.digits, values, sweep=True)


class ParametricValues:
    """The values of ``scenario`` as functions of the parameters ``vary``, the others fixed.

    Parameters
    ----------
    scenario : Scenario
    fixed : dict name -> value
        Values of the other parameters (defaults filled in by :meth:`Scenario.bind`).
    vary : tuple of str
        Scenario parameters swept (``beta`` is not one of them: see :data:`METHOD_PARAMETERS`).
    digits : int
        Significant digits of every value.
    reference : dict name -> value, optional
        A point of the swept parameters at which the constant quantities are evaluated (default:
        the middle of the parameter's domain, 1/2 for [0, 1] and 1 for a positive parameter).
    """

    def __init__(self, scenario: Scenario, fixed: dict, vary: tuple, digits: int = 20,
                 reference: dict | None = None):
        self.scenario = scenario
        self.vary = tuple(v for v in vary if v not in METHOD_PARAMETERS)
        self.digits = digits
        # closed forms are proved to the sweep's tie digits, not only to the printed ones: the
        # greedy comparisons at sample points separate objectives to 10^-(digits + guard - 7)
        # and a value proved to ``digits`` only has noise above that (a spurious crossing of
        # JMI's exactly tied X-Y and Y at k = 1 - 1e-10 in Scenario I)
        self.proof_digits = digits + GUARD_DIGITS - 2
        self.fixed = {n: v for n, v in fixed.items() if n not in self.vary}
        for name in self.vary:
            scenario.parameter(name)
        ref = dict(reference or {})
        for name in self.vary:
            if name not in ref:
                ref[name] = DOMAINS[scenario.parameter(name).domain].reference
        self.symbols = {n: scenario.parameter(n).symbol for n in self.vary}
        self._fixed_subs = {scenario.symbols[n]: v for n, v in
                            scenario.bind(**self.fixed, **ref).params.items()
                            if n not in self.vary}
        self.structural = self._structural_points()
        self.reference_bound = self._generic_reference(ref)
        self.labels = tuple(self.reference_bound.display_labels())
        der = derive(scenario)
        n = len(self.labels)
        self._derivations = {}
        for i in range(n):
            self._derivations[("h", i)] = der.entropy[i]
            self._derivations[("mi_c", i)] = der.mi_class[i]
            for j in range(i, n):
                self._derivations[("mi", i, j)] = der.mi_features[i][j]
        self.varying = tuple(q for q, d in self._derivations.items() if self._varies(q, d))
        self._varying_set = frozenset(self.varying)
        self.reference = evaluate(self.reference_bound, digits)
        self._cache: dict = {}
        #: (lo, hi) of a range -> the certificate's leaves over it
        #: (:func:`fstheory.atlas.certificate.leaves.leaves_of`), shared by every method row
        #: swept over these values
        self.leaves: dict = {}

    # ----- where the structure changes ---------------------------------------------------------
    def _structural_points(self) -> StructuralPoints:
        """The structural points of the one swept parameter (:mod:`fstheory.atlas.structural`);
        none when two parameters are swept (their structure is then taken from the derivation
        as it is, and the certificate does not apply)."""
        if len(self.vary) != 1:
            return StructuralPoints(())
        (sym,) = self.symbols.values()
        exprs = [f.expr.subs(self._fixed_subs) for f in self.scenario.features]
        return structural_points(exprs, dict(self.scenario.base), sym)

    def is_structural(self, point: dict) -> bool:
        """Whether ``point`` is a structural point (its values are then the engine's at the
        point, with the structure decided there)."""
        if len(self.vary) != 1 or not self.structural.points:
            return False
        (name,) = self.vary
        x = as_exact(point[name])
        return any(x == p if x.is_Rational and p.is_Rational else sp.simplify(x - p) == 0
                   for p in self.structural.points)

    def _generic_reference(self, ref: dict) -> BoundScenario:
        """The scenario bound at ``ref``, moved off a structural point: the constant quantities
        are read there, and must be those of every generic point (a*X at a = 0 is constant)."""
        if self.is_structural(ref):
            (name,) = self.vary
            x = as_exact(ref[name])
            for j in range(1, 40):
                for cand in (x + sp.Rational(1, 2 ** j), x - sp.Rational(1, 2 ** j)):
                    if self.is_structural({name: cand}):
                        continue
                    try:
                        return self.scenario.bind(**self.fixed, **{**ref, name: cand})
                    except ParameterError:
                        continue
        return self.scenario.bind(**self.fixed, **ref)

    # ----- which quantities vary ----------------------------------------------------------------
    def closed_form(self, q) -> sp.Expr | None:
        """The closed form of quantity ``q`` in the swept symbols (others substituted), or None."""
        d = self._derivations[q]
        if d.kind != "closed":
            return None
        return sp.sympify(d.expr).subs(self._fixed_subs)

    def _numeric_depends(self, q) -> bool:
        sc = self.scenario
        if q[0] == "mi_c" and len(self.vary) == 1 and self._scale_free(q[1]):
            return False
        feats = [sc.features[i].expr for i in q[1:]]
        syms = set().union(*(f.free_symbols for f in feats))
        bases = {b for b in sc.base if b in syms}
        if q[0] == "mi_c":
            for b, w in sc.class_rule.weights.items():
                bases.add(b)
                syms |= sp.sympify(w).free_symbols
            syms |= sp.sympify(sc.class_rule.threshold).free_symbols
        for b in bases:
            syms |= set().union(*(sp.sympify(p).free_symbols for p in sc.base[b].params))
        return any(s in syms for s in self.symbols.values())

    def _scale_free(self, i: int) -> bool:
        """Whether MI(C, V_i) is one of Scenario III's functions of the class weight alone
        (:func:`fstheory.atlas.certificate.laplace.recognise`: a Laplace(0, s) pair under the
        class 1{A + k B >= 0}, free of the scale s, proved there), with the weight not swept."""
        from fstheory.atlas.certificate.laplace import recognise

        (sym,) = self.symbols.values()
        found = recognise(self.scenario, self._fixed_subs, self.scenario.features[i].expr, sym)
        return found is not None and not sp.sympify(found[1]).has(sym)

    def _varies(self, q, d) -> bool:
        if d.kind == "structure":
            # holds on every open cell between structural points, where the point's own
            # values are used (a*X at a = 0: MI(X, a*X) = 0 there, +inf elsewhere)
            return False
        if d.kind == "numeric":
            return self._numeric_depends(q)
        expr = self.closed_form(q)
        free = expr.free_symbols & set(self.symbols.values())
        if not free:
            return False
        # a form that names P but does not depend on it (scale-free MIs written with sigma):
        # an integral varies when its integrand or limits name P; the rest is differentiated
        ints = expr.atoms(sp.Integral)
        if any(i.free_symbols & free for i in ints):
            return True
        rest = expr.xreplace({i: sp.Dummy() for i in ints})
        return any(sp.simplify(sp.expand_log(sp.diff(rest, s), force=True)) != 0 for s in free)

    def quantity_label(self, q) -> str:
        return QUANTITY_NAMES[q[0]].format(*(self.labels[i] for i in q[1:]))

    # ----- values at a point --------------------------------------------------------------------
    def laplace_mi_class(self, q, point: dict) -> ExtendedReal | None:
        """MI(C, V_i) (``q = ("mi_c", i)``) at ``point`` from the certified integrals of
        :mod:`fstheory.theory.laplace_class` when the class rule and the feature have its form
        (:func:`~fstheory.theory.laplace_class.recognise`) and 0 < k < 1, proved to the digits
        asked (the numerical route's quadrature of the same value takes about a thousand times
        longer). None otherwise: other quantities, and k = 0 or 1, where the engine recognises
        an exact structure (C a function of the feature, MI = 0)."""
        if q[0] != "mi_c":
            return None
        from fstheory.theory.laplace_class import recognise

        at = {**self._fixed_subs, **{self.symbols[n]: as_exact(point[n]) for n in self.vary}}
        found = recognise(self.scenario, at, self.scenario.features[q[1]].expr, None)
        if found is None or not (found[1].is_Rational and 0 < found[1] < 1):
            return None
        d = LaplaceClassIntegral(found[0], found[1])
        v, _ = prove(d, Parameters({}), self.proof_digits, self.quantity_label(q), MI_CLASS)
        return v if v.is_finite else None

    def bound_at(self, point: dict) -> BoundScenario:
        """The scenario bound at ``point`` (exact rationals; ValueError otherwise: the sweep
        only binds its own rational points, so an irrational one is an internal error, not the
        user's)."""
        vals = {}
        for name in self.vary:
            x = as_exact(point[name])
            if not x.is_Rational:
                raise ValueError(f"the atlas bound parameter '{name}' at {x}, which is not "
                                 "rational (the scenario's laws need a rational value)")
            vals[name] = x
        return self.scenario.bind(**self.fixed, **vals)

    @property
    def numeric_varying(self) -> tuple:
        """The varying quantities that come from the numerical route (no closed form in the
        swept parameter): they need the scenario bound at each point, so at rational points."""
        return tuple(q for q in self.varying if self._derivations[q].kind != "closed")

    def bound_for(self, q, point: dict) -> BoundScenario:
        """:meth:`bound_at` for the numerical route's quantity ``q``. At an irrational point (a
        special point: an irrational zero of a closed-form entropy) the numerical route has no
        exact scenario to work on and ``q`` no closed form to evaluate exactly there: refused
        with the point and the quantity (:class:`IrrationalPoint`)."""
        for name in self.vary:
            x = as_exact(point[name])
            if not x.is_Rational:
                raise IrrationalPoint(
                    f"parameter '{name}': the atlas cannot evaluate {self.quantity_label(q)} "
                    f"at the special point {name} = {x}, which is irrational: it has no closed "
                    f"form in {name} and the numerical route needs a rational {name}; choose a "
                    f"--range that does not contain {sp.N(x, 12)}")
        return self.bound_at(point)

    def parameters_at(self, point: dict) -> Parameters:
        """The exact point (the fixed parameters and the swept ones, exact, with the side of
        approach at an end of a parameter's range) for the closed forms."""
        subs = dict(self._fixed_subs)
        dirs = {}
        for n in self.vary:
            sym, x = self.symbols[n], as_exact(point[n])
            subs[sym] = x
            side = DOMAINS[self.scenario.parameter(n).domain].side(x)
            if side is not None:
                dirs[sym] = side
        return Parameters(subs, dirs)

    def value(self, q, point: dict, exact: bool = False,
              params: Parameters | None = None) -> ExtendedReal:
        """One varying quantity at ``point`` (labelled), its digits proved: a closed form by the
        engine's derivation at the exact point (``params``, made if not given), a numerical one
        by the engine at the bound point. ``exact`` is kept for the callers' cache keys: every
        point is exact (module docstring)."""
        d = self._derivations[q]
        label = self.quantity_label(q)
        if d.kind != "closed":
            v = _quantity(PointQuantities(self.bound_for(q, point), self.digits), q)
        else:
            v, _ = prove(d, params or self.parameters_at(point), self.proof_digits, label,
                         _INVARIANT[q[0]])
        return v.named(label)

    def _engine_at(self, point: dict) -> ScenarioValues:
        """Every value at a structural point as ``fstheory values`` computes it there (each on
        first read), the structure decided at the point."""
        bound = self.bound_at(point)
        quantities = PointQuantities(bound, self.digits)
        nf = len(self.labels)
        labels = self.labels

        def pair(i, j):
            v = quantities.mi_pair(min(i, j), max(i, j))[0]
            return v.named(f"MI({labels[i]},{labels[j]})")

        return ScenarioValues(self.reference.scenario, dict(bound.params), labels,
                              _Lazy(nf, lambda i: quantities.entropy(i)[0]),
                              _Lazy(nf, lambda i: quantities.mi_class(i)[0]),
                              _Lazy(nf, lambda i: _Lazy(nf, lambda j: pair(i, j))),
                              digits=self.digits, joint_source=_JointAt(self, dict(point)))

    def at(self, point: dict, exact: bool = False, joint_digits: int | None = None) -> ScenarioValues:
        """Every value at ``point`` (name -> exact number or mpf) as a :class:`ScenarioValues`;
        ``exact`` as in :meth:`value`. Each varying value is computed when first read (and
        kept with the point). ``joint_digits``: the joint values at these digits instead (the
        same values otherwise)."""
        if joint_digits is not None:
            key = ("joint", joint_digits, exact) + tuple(
                (n, man_exp(point[n]) if isinstance(point[n], mpmath.mpf) else str(point[n]))
                for n in self.vary)
            hit = self._cache.get(key)
            if hit is None:
                hit = self._cache[key] = replace(self.at(point, exact), joint=None,
                                                 joint_source=_JointAt(self, dict(point),
                                                                       joint_digits))
            return hit
        key = (exact, mpmath.mp.prec) + tuple(
            (n, man_exp(point[n]) if isinstance(point[n], mpmath.mpf) else str(point[n]))
            for n in self.vary)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if self.is_structural(point):
            out = self._engine_at(point)
            self._cache[key] = out
            return out
        ref = self.reference
        pt = _PointValues(self, point, exact)
        nf = len(self.labels)
        entropy = _Lazy(nf, lambda i: pt.get(("h", i), ref.entropy[i]))
        mi_class = _Lazy(nf, lambda i: pt.get(("mi_c", i), ref.mi_class[i]))
        matrix = _Lazy(nf, lambda i: _Lazy(nf, lambda j: pt.pair(i, j)))
        params = dict(ref.params)
        for n in self.vary:
            params[n] = point[n]
        out = ScenarioValues(ref.scenario, params, ref.labels, entropy, mi_class, matrix,
                             digits=self.digits,
                             joint_source=_JointAt(self, dict(point)))
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[key] = out
        return out
