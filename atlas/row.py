"""One method row over the values of a spec: its ordering and its objectives at a point of the
swept parameter (:class:`Sweep`, one per spec: :func:`sweep_of`).

The values (:class:`~fstheory.atlas.values.ParametricValues`) are shared by every row swept over
them; a row keeps its own certifier (:mod:`fstheory.atlas.certificate.cells`) and the zeros of
the joint entropies its objective divides by (``poles``), both built on first use from the spec
alone. The orderings of the 3-D rows are first decided on low-precision joint values
(:mod:`fstheory.atlas.lowstage`), a step only where every comparison holds for every value
within their error.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cached_property, lru_cache

import mpmath
import sympy as sp

from fstheory.atlas import lowstage
from fstheory.atlas.lowstage import LOW_ACCURACY, LOW_DIGITS, LOW_ERROR
from fstheory.atlas.numbers import as_exact
from fstheory.atlas.spec import AtlasSpec
from fstheory.atlas.values import METHOD_PARAMETERS, ParametricValues
from fstheory.orderings.arithmetic import EXACT_OPS
from fstheory.orderings.greedy import select, tie_band
from fstheory.orderings.methods import get_method
from fstheory.theory.extended import ExtendedReal, Form
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["Sweep", "sweep_of"]


class Sweep:
    """The values and the method row of a spec, with ordering and objective at a point."""

    def __init__(self, spec: AtlasSpec):
        self.spec = spec
        self.scenario = spec.load_scenario()
        self.method = get_method(spec.method)
        self.param = spec.parameter
        self.on_beta = self.param in METHOD_PARAMETERS
        beta = None if self.on_beta else spec.beta
        self.method.check(Fraction(1, 2) if self.on_beta else beta, spec.reading, spec.zero_beta,
                          spec.gamma)
        vary = () if self.on_beta else (self.param,)
        mid = (as_exact(spec.lo) + as_exact(spec.hi)) / 2
        self.pv = _parametric_values(spec.scenario, spec.scenario_file, spec.fixed, vary,
                                     spec.digits, mid)
        self.labels = self.pv.labels
        self._at_pole: dict = {}
        #: the greedy comparison of this row: objectives tie within the band of the digits its
        #: values are proved to (:func:`fstheory.orderings.greedy.tie_band`)
        self.ops = EXACT_OPS.with_band(tie_band(self.tie_digits))

    @cached_property
    def certifier(self):
        """This row's certifier (:class:`fstheory.atlas.certificate.cells.Certifier`; raises
        NoEnclosure when an input has no enclosure, and is then built again on the next use)."""
        from fstheory.atlas.certificate.cells import Certifier
        from fstheory.atlas.certificate.leaves import leaves_of

        return Certifier(self, leaves_of(self))

    @cached_property
    def poles(self) -> dict:
        """Zero of a divisor H(Vi,Vj,C) strictly inside the range -> the quantities vanishing
        there (:func:`fstheory.atlas.poles.divisor_zeros`); none for a 2-D row, a beta sweep, or
        where the joint leaves cannot be built (the change through infinity is then located as
        a pole)."""
        if self.on_beta or not self.method.reads_joint:
            return {}
        from fstheory.atlas import poles as atlas_poles
        from fstheory.atlas.certificate.enclose import NoEnclosure

        try:
            return dict(atlas_poles.divisor_zeros(self.certifier).points)
        except NoEnclosure:
            return {}

    def values(self, t, exact: bool = False, low: bool = False):
        """The values at ``t``; ``low``: the joint values at :data:`LOW_DIGITS` (3-D methods).
        At an irrational special point (a pole, :mod:`fstheory.atlas.poles`) the
        joint values are the open range's closed forms there, exact, at the working digits."""
        if exact and self.method.reads_joint and not self.on_beta and not as_exact(t).is_Rational:
            key = as_exact(t)
            if key not in self._at_pole:
                from fstheory.atlas import poles as atlas_poles

                v = self.pv.at({self.param: t}, True)
                joint = atlas_poles.joint_values_at(self.certifier, key, v, self.spec.digits)
                self._at_pole[key] = replace(v, joint=joint, joint_source=None)
            return self._at_pole[key]
        return self.pv.at({} if self.on_beta else {self.param: t}, exact,
                          joint_digits=LOW_DIGITS if low else None)

    def beta_at(self, t):
        if not self.on_beta:
            return self.spec.beta
        x = as_exact(t)
        return Fraction(int(x.p), int(x.q)) if x.is_Rational else Fraction(str(sp.N(x, 40)))

    @property
    def two_stage(self) -> bool:
        """3-D methods: orderings and brackets first at :data:`LOW_DIGITS` joint values (their
        numerical-route pairs cost seconds each), kept only where every comparison holds for
        every value within their error, term by term (else recomputed at the working digits)."""
        return self.method.reads_joint and self.spec.digits > LOW_DIGITS

    def order(self, t, exact: bool = False) -> tuple[tuple[int, ...], bool]:
        start = ()
        if self.two_stage:
            order, stopped, decided = self._order_low(t, exact)
            if decided is None:
                return order, stopped
            start = order[:decided]
        v = self.values(t, exact)
        # ties at the precision of the values (10^-(digits+5)), not at the printed digits
        r = select(v, self.method, self.beta_at(t), reading=self.spec.reading,
                   zero_beta=self.spec.zero_beta, digits=self.tie_digits, gamma=self.spec.gamma,
                   start=start)
        return tuple(r.order), r.stop is not None

    @property
    def tie_digits(self) -> int:
        """The ``digits`` of :meth:`order`'s greedy selection (its ties)."""
        return self.pv.proof_digits  # the digits its values are proved to

    def _order_low(self, t, exact: bool = False):
        """The ordering at ``t`` from the low-precision joint values, and the number of its
        first steps decided for every value within the first stage's error
        (:mod:`fstheory.atlas.lowstage`; None: all of it, with the stop);
        the working digits decide from there (a near tie, a value not computed)."""
        v = self.values(t, exact, low=True)
        beta = self.beta_at(t)
        r = select(v, self.method, beta, reading=self.spec.reading,
                   zero_beta=self.spec.zero_beta, digits=LOW_ACCURACY, gamma=self.spec.gamma)
        order, stopped = tuple(r.order), r.stop is not None
        view = lowstage.LowStageView(v, LOW_ERROR, mpmath.mpf(10) ** -(LOW_ACCURACY + 2))
        with mpmath.workdps(LOW_ACCURACY + 4):
            rest = list(range(len(self.labels)))
            for n in range(len(order) + (1 if stopped else 0)):
                prefix = order[:n]
                objs = {c: self._objective_on(v, t, c, prefix) for c in rest}
                if any(o.is_indeterminate and o.form is Form.NOT_COMPUTED for o in objs.values()):
                    return order, stopped, n
                if n == len(order):  # a stop: every remaining candidate indeterminate
                    if not all(o.is_indeterminate for o in objs.values()):
                        return order, stopped, n
                    break
                enc = {c: lowstage.objective(self.method, view, c, prefix, beta,
                                             self.spec.reading, self.spec.zero_beta,
                                             self.spec.gamma)
                       for c in rest}
                w = order[n]
                for c, fc in objs.items():
                    if c == w or lowstage.decided(enc[w], enc[c], w, c):
                        continue
                    if not (_equal(objs[w], fc) and w < c and self._tie_at_full(t, exact, w, c,
                                                                                 prefix)):
                        return order, stopped, n
                rest.remove(w)
        return order, stopped, None

    def _tie_at_full(self, t, exact: bool, w: int, c: int, prefix) -> bool:
        """Two objectives equal at the first stage are an exact tie only if they are equal at the
        working digits too (the same function, as X and 3X+1); else a near tie that the first
        stage cannot see (seen: CIFE's Y^2 and 3X+1 at 6e-22 from their crossing)."""
        with mpmath.workdps(self.spec.digits + GUARD_DIGITS):
            v = self.values(t, exact)
            fw, fc = self._objective_on(v, t, w, prefix), self._objective_on(v, t, c, prefix)
            return _equal(fw, fc)

    def objective(self, t, i: int, selected: tuple[int, ...], low: bool = False) -> ExtendedReal:
        return self._objective_on(self.values(t, low=low), t, i, selected)

    def _objective_on(self, v, t, i: int, selected) -> ExtendedReal:
        if not selected:
            return v.mi_c(i)
        return self.method.objective(EXACT_OPS, v, i, list(selected), self.beta_at(t),
                                     reading=self.spec.reading, zero_beta=self.spec.zero_beta,
                                     gamma=self.spec.gamma)

    def method_text(self) -> str:
        if self.on_beta:
            return f"{self.method.display} (beta varied)"
        return self.method.describe(self.spec.beta, self.spec.reading, self.spec.zero_beta,
                                    self.spec.gamma)


@lru_cache(maxsize=64)
def _parametric_values(scenario: str | None, scenario_file: str | None, fixed: tuple,
                       vary: tuple, digits: int, mid) -> ParametricValues:
    """The values shared by every method row swept over them (``mid``: the reference point of
    the swept parameter, the middle of the range)."""
    from fstheory.scenarios.registry import resolve_scenario

    sc = resolve_scenario(scenario if scenario_file is None else None, scenario_file)
    return ParametricValues(sc, dict(fixed), vary, digits, reference={v: mid for v in vary})


def _equal(a: ExtendedReal, b: ExtendedReal) -> bool:
    return a.is_finite and b.is_finite and a.value == b.value


@lru_cache(maxsize=256)
def sweep_of(spec: AtlasSpec) -> Sweep:
    """The :class:`Sweep` of ``spec`` (one per spec in a process)."""
    return Sweep(spec)
