"""The atlas: a method's ordering across one parameter, as regions of constant ordering and the
breakpoints between them, each located to ``digits`` significant digits with its cause.

How the partition is found
--------------------------
An ordering (the greedy path of :func:`fstheory.orderings.greedy.select`, with its stop) can change
only where, at some step, two candidates' objectives cross, where a value changes kind (becomes 0
exactly, +-inf, or indeterminate) or at the ends of the range. So the sweep

1. takes as *special points* the ends of the range, the structural points inside it (where a
   feature degenerates or two become dependent, :mod:`fstheory.atlas.structural`) and every point
   inside where a varying entropy is 0 (solved exactly with sympy when it can); for a 3-D row
   instead of the zeros, every point where an
   H(Vi,Vj,C) its objective divides by is 0 (a pole, :mod:`fstheory.atlas.poles`);
   the values there are evaluated exactly (0 is 0, so x/0 and 0/0 follow the engine's conventions);
2. evaluates the ordering at every special point and on a grid of ``grid`` points spread over the
   open intervals between them (at least 4 per interval);
3. between two neighbouring points with different orderings, finds the first step where the two
   greedy paths part, with winners A (left) and B (right) after the same selected prefix, and
   locates the sign change of obj(A) - obj(B) (MI(C,A) - MI(C,B) at step 1) by a bracketing
   Illinois iteration at ``digits`` + 12 working digits, to a relative width of 10^-(digits+2). If
   the orderings just left and right of the located point are not the two it was started from,
   the brackets on either side are searched again, so an A -> C -> B sequence is found whole.
   A sign change where the objectives stay far apart is a *pole* (a divisor of an objective changes
   sign), reported as such;
4. merges neighbouring pieces with equal orderings into regions; each region boundary is a
   breakpoint, with its cause: two objectives crossing at a step (which ones), a value becoming 0
   or infinite or changing sign at a special point (which ones), and the step where the orderings
   part.

The sampling of step 2 alone can miss a pair of crossings between two grid points. Where every
input has a rigorous enclosure (Scenarios I and II), :mod:`fstheory.atlas.certificate.certify`
then proves, cell by cell, that each region's ordering holds on the whole region; otherwise the
result states what the sampled and bracketed search guarantees (``docs/atlas.md``).

Examples
--------
>>> r = atlas(AtlasSpec(scenario="uniform", method="mifs", beta="1", parameter="k",
...                     lo="0", hi="1", digits=20, grid=8))
>>> [(reg["from"], reg["to"], reg["order"][:3]) for reg in r.to_json()["regions"]]
[('0', '0', ['X', 'Y^2', 'Z']), ('0', '1', ['X', 'Y', 'Z'])]
>>> r.to_json()["breakpoints"][0]["cause"]
'MI(C,Y) = 0 exactly'
>>> r.certificate["certified"]
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache

import mpmath
import sympy as sp

from fstheory.atlas import lowstage
from fstheory.atlas.lowstage import LOW_ACCURACY, LOW_DIGITS, LOW_ERROR
from fstheory.orderings.arithmetic import EXACT_OPS
from fstheory.orderings.greedy import select, tie_band
from fstheory.orderings.methods import get_method
from fstheory.atlas.numbers import as_exact, decimal_text
from fstheory.parallel import Progress, run_tasks
from fstheory.simulation.scheduler import connected
from fstheory.atlas.values import METHOD_PARAMETERS, ParametricValues
from fstheory.scenarios.declaration import ParameterError, param_text, to_rational
from fstheory.scenarios.domains import DOMAINS
from fstheory.theory.extended import ExtendedReal, Form
from fstheory.theory.symbolic import GUARD_DIGITS

__all__ = ["AtlasSpec", "AtlasResult", "Breakpoint", "Region", "atlas", "parse_range",
           "check_parameter"]


# ----- input ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AtlasSpec:
    """What to sweep: a scenario (registry name or file), a method row, one parameter and a range.

    ``lo`` and ``hi`` are exact numbers as text ("0", "0.25", "1/3"); ``fixed`` holds the other
    parameters' values as (name, text) pairs (defaults fill the rest); ``grid`` is the number of
    sample points over the range. Picklable, so that worker processes can rebuild the values.
    """

    method: str
    parameter: str
    lo: str
    hi: str
    scenario: str | None = None
    scenario_file: str | None = None
    fixed: tuple = ()
    beta: str | None = None
    reading: str | None = None
    zero_beta: str = "explicit"
    digits: int = 20
    grid: int = 48
    gamma: str | None = None

    def load_scenario(self):
        from fstheory.scenarios.registry import resolve_scenario

        return resolve_scenario(self.scenario if self.scenario_file is None else None, self.scenario_file)

    @property
    def scenario_name(self) -> str:
        return self.scenario if self.scenario_file is None else self.scenario_file


def check_parameter(scenario, method, name: str) -> str:
    """The domain of a parameter that can be swept: 'unit', 'positive', 'nonzero', 'real'.

    Raises ParameterError naming the parameter when it is neither a scenario parameter nor the
    method's beta.
    """
    if name in METHOD_PARAMETERS:
        if not get_method(method).has_beta:
            raise ParameterError(f"parameter 'vary': {get_method(method).display} has no beta to vary")
        return "unit"
    names = [p.name for p in scenario.parameters]
    if name not in names:
        allowed = names + (["beta"] if get_method(method).has_beta else [])
        if not allowed:
            raise ParameterError(
                f"parameter 'vary': scenario '{scenario.name}' declares no parameter and "
                f"{get_method(method).display} has no beta: nothing to vary (got {name!r})")
        raise ParameterError(f"parameter 'vary' must be one of {', '.join(allowed)} (got {name!r})")
    return scenario.parameter(name).domain


def parse_range(name: str, domain: str, text: str | None) -> tuple[str, str]:
    """'LO:HI' checked against the parameter's domain; the whole domain when ``text`` is None."""
    d = DOMAINS[domain]
    if text is None:
        if d.whole is not None:
            return d.whole
        raise ParameterError(f"parameter '{name}' has no bounded domain: give --range LO:HI")
    lo_t, sep, hi_t = text.partition(":")
    if not sep:
        raise ParameterError(f"parameter 'range' of {name} must be LO:HI (got {text!r})")
    lo, hi = to_rational(name, lo_t), to_rational(name, hi_t)
    if lo >= hi:
        raise ParameterError(f"parameter '{name}': range LO:HI needs LO < HI (got {text})")
    if not d.range_ok(lo, hi):
        raise ParameterError(f"parameter '{name}': range {text} must be {d.range_text}")
    return param_text(lo), param_text(hi)  # exact, and short: '1e-1000', not 1/10^1000


# ----- output --------------------------------------------------------------------------------------


def _distinct_texts(points: dict, brackets: dict, digits: int) -> dict:
    """key -> the text of ``points[key]`` at ``digits``; where two different points would read
    alike, with one or two digits more, as far as each one's bracket (``brackets[key]``: lo, hi;
    an exact point has none) proves them: a printed digit is a proved digit."""
    texts = {k: decimal_text(x, digits) for k, x in points.items()}
    identity = {k: decimal_text(x, digits + 8) for k, x in points.items()}
    for extra in (1, 2):
        groups: dict = {}
        for k, t in texts.items():
            groups.setdefault(t, []).append(k)
        clashes = [ks for ks in groups.values() if len({identity[k] for k in ks}) > 1]
        if not clashes:
            break
        for ks in clashes:
            for k in ks:
                t = decimal_text(points[k], digits + extra)
                lo_hi = brackets.get(k)
                if lo_hi is None or all(decimal_text(e, digits + extra) == t for e in lo_hi):
                    texts[k] = t
    return texts


@dataclass(frozen=True)
class Breakpoint:
    at: object  # sympy exact number (special point) or mpf (located)
    step: int | None
    cause: str
    between: tuple[str, ...]
    kind: str  # "crossing" | "pole" | "value" (a value changes kind or sign) | "change"
    bracket: tuple | None = None  # (lo, hi) mpf enclosure of a located crossing

    def to_json(self, digits: int, texts: dict | None = None) -> dict:
        at = (texts or {}).get(id(self.at)) or decimal_text(self.at, digits)
        return {"at": at, "step": self.step, "cause": self.cause, "between": list(self.between)}


@dataclass(frozen=True)
class Region:
    lo: object
    hi: object
    order: tuple[int, ...]
    stopped: bool
    sample: object  # a point inside (or the point itself) where the order was computed

    def to_json(self, labels, digits: int, texts: dict | None = None) -> dict:
        texts = texts or {}
        return {"from": texts.get(id(self.lo)) or decimal_text(self.lo, digits),
                "to": texts.get(id(self.hi)) or decimal_text(self.hi, digits),
                "order": [labels[i] for i in self.order], "stopped": self.stopped}


@dataclass
class AtlasResult:
    spec: AtlasSpec
    labels: tuple
    method_text: str
    breakpoints: list
    regions: list
    special: list
    certificate: dict | None = None
    notes: list = field(default_factory=list)

    def point_texts(self) -> dict:
        """id(point) -> its text, for the ends of the regions and the breakpoints: ``digits``
        significant digits, more where two different points would read alike
        (:func:`_distinct_texts`)."""
        points, brackets = {}, {}
        for r in self.regions:
            points[id(r.lo)], points[id(r.hi)] = r.lo, r.hi
        for b in self.breakpoints:
            points[id(b.at)] = b.at
            if b.bracket is not None:
                brackets[id(b.at)] = b.bracket
        return _distinct_texts(points, brackets, self.spec.digits)

    def to_json(self) -> dict:
        d = self.spec.digits
        texts = self.point_texts()
        out = {
            "parameter": self.spec.parameter,
            "breakpoints": [b.to_json(d, texts) for b in self.breakpoints],
            "regions": [r.to_json(self.labels, d, texts) for r in self.regions],
            "scenario": self.spec.scenario_name,
            "method": self.method_text,
            "fixed": {k: str(v) for k, v in self.spec.fixed},
            "range": [self.spec.lo, self.spec.hi],
            "digits": d,
        }
        if self.certificate is not None:
            out["certificate"] = self.certificate
        return out

    def text(self) -> str:
        d = self.spec.digits
        lines = [f"Atlas of {self.method_text} on {self.spec.scenario_name} over "
                 f"{self.spec.parameter} in [{self.spec.lo}, {self.spec.hi}]"
                 + (f" ({', '.join(f'{k}={v}' for k, v in self.spec.fixed)})" if self.spec.fixed else "")]
        lines.append("")
        w = max(d + 8, 12)
        texts = self.point_texts()
        lines.append(f"{'from':<{w}} {'to':<{w}} order")
        for r in self.regions:
            js = r.to_json(self.labels, d, texts)
            order = ", ".join(js["order"]) + (" -- stopped" if r.stopped else "")
            lines.append(f"{js['from']:<{w}} {js['to']:<{w}} {order}")
        lines.append("")
        if self.breakpoints:
            lines.append(f"{'breakpoint':<{w}} step  cause")
            for b in self.breakpoints:
                js = b.to_json(d, texts)
                lines.append(f"{js['at']:<{w}} {str(js['step'] or '-'):>4}  {js['cause']}")
        else:
            lines.append("no breakpoint: one ordering over the whole range")
        if self.certificate is not None:
            lines.append("")
            lines.append(f"certificate: {self.certificate['summary']}")
            lines += [f"  assumed: {a}" for a in self.certificate.get("assumptions", ())]
            lines += [f"  not proved: {f}" for f in self.certificate.get("failures", ())]
        return "\n".join(lines)


# ----- one point -----------------------------------------------------------------------------------


class _Sweep:
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
        self.poles: dict = {}  # zero of a divisor H(Vi,Vj,C) -> the quantities vanishing there

    def values(self, t, exact: bool = False, low: bool = False):
        """The values at ``t``; ``low``: the joint values at :data:`LOW_DIGITS` (3-D methods).
        At an irrational special point (a pole, :mod:`fstheory.atlas.poles`) the
        joint values are the open range's closed forms there, exact, at the working digits."""
        if exact and self.method.reads_joint and not self.on_beta and not as_exact(t).is_Rational:
            key = as_exact(t)
            if key not in self._at_pole:
                from fstheory.atlas.certificate import certify as atlas_certify
                from fstheory.atlas import poles as atlas_poles

                v = self.pv.at({self.param: t}, True)
                joint = atlas_poles.joint_values_at(atlas_certify._certifier(self), key, v,
                                                    self.spec.digits)
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
def _sweep(spec: AtlasSpec) -> _Sweep:
    return _Sweep(spec)


# ----- special points ------------------------------------------------------------------------------


def _entropy_zeros(sw: _Sweep, lo, hi) -> list:
    """Exact zeros of the varying entropies strictly inside (lo, hi)."""
    if sw.on_beta:
        return []
    sym = sw.pv.symbols[sw.param]
    out = set()
    for q in sw.pv.varying:
        form = sw.pv.closed_form(q)
        if q[0] != "h" or form is None or form.has(sp.Integral):
            continue
        try:
            sol = sp.solveset(form, sym, sp.Interval.open(lo, hi))
        except (NotImplementedError, ValueError, TypeError):
            continue
        if isinstance(sol, sp.FiniteSet):
            out |= {sp.nsimplify(s) if s.is_Float else s for s in sol}
    return sorted(out, key=lambda s: float(s))


def _pole_points(sw: _Sweep) -> list:
    """Exact zeros strictly inside the range of the H(Vi,Vj,C) a 3-D objective divides by
    (:func:`fstheory.atlas.poles.divisor_zeros`; none where the joint leaves cannot be
    built: the change through infinity is then located as a pole). Kept in ``sw.poles``."""
    if sw.on_beta:
        return []
    from fstheory.atlas.certificate import certify as atlas_certify
    from fstheory.atlas import poles as atlas_poles
    from fstheory.atlas.certificate.enclose import NoEnclosure

    try:
        sw.poles = dict(atlas_poles.divisor_zeros(atlas_certify._certifier(sw)).points)
    except NoEnclosure:
        return []
    return list(sw.poles)


def _between(a, b, n: int) -> list:
    return [a + (b - a) * sp.Rational(i, n + 1) for i in range(1, n + 1)]


# ----- locating a change ---------------------------------------------------------------------------


def _first_difference(left, right) -> int | None:
    """0-based step where two (order, stopped) results part, or None if equal."""
    (ol, sl), (or_, sr) = left, right
    for n, (a, b) in enumerate(zip(ol, or_)):
        if a != b:
            return n
    if len(ol) != len(or_) or sl != sr:
        return min(len(ol), len(or_))
    return None


def _difference(sw: _Sweep, t, a: int, b: int, prefix, low: bool = False) -> ExtendedReal:
    fa, fb = sw.objective(t, a, prefix, low), sw.objective(t, b, prefix, low)
    if fa.is_indeterminate and fb.is_indeterminate:
        return fa
    if fa.is_indeterminate:  # only B can be chosen
        return ExtendedReal.finite(-1)
    if fb.is_indeterminate:
        return ExtendedReal.finite(1)
    if fa.is_infinite and fb.is_infinite and fa.kind is fb.kind:
        return ExtendedReal.finite(0)
    return fa - fb


def _to_mpf(t) -> mpmath.mpf:
    return mpmath.mpf(sp.N(t, mpmath.mp.dps)) if isinstance(t, sp.Basic) else mpmath.mpf(t)


def _locate(sw: _Sweep, tl, tr, a: int, b: int, prefix) -> tuple[mpmath.mpf, mpmath.mpf, bool]:
    """Bracket [x0, x1] of the change from A winning (at tl) to B winning (at tr), and whether it
    is a crossing (True) or a pole (False).

    The crossing is first estimated by mpmath's Anderson-Bjorck bracketing solver on
    g = obj(A) - obj(B); the bracket is then closed around the estimate by evaluating the pair's
    comparison on both sides of it (bisection whenever g is infinite or the estimate fails).
    For the 3-D methods a first bracket of relative width 10^-(LOW_ACCURACY-4) is found on the
    low-precision joint values, and used if the pair's comparison at the working digits confirms
    it at both ends.
    """
    digits = sw.spec.digits
    with mpmath.workdps(digits + GUARD_DIGITS):
        x0, x1 = _to_mpf(tl), _to_mpf(tr)
        tol = None
        if sw.two_stage:
            # the solver stops at the accuracy of the values (not below it, where every further
            # step costs a numerical-route pair and gains nothing): the brackets are closed by
            # the pair's comparison on both sides either way
            u, v = _close(sw, x0, x1, a, b, prefix, LOW_ACCURACY - 4, low=True,
                          tol=mpmath.mpf(10) ** -LOW_ACCURACY)
            if _wins(sw, u, a, b, prefix) and not _wins(sw, v, a, b, prefix):
                x0, x1 = u, v
            tol = mpmath.mpf(10) ** -(digits + 4)
        x0, x1 = _close(sw, x0, x1, a, b, prefix, digits + 2, tol=tol)
        ga, gb = _difference(sw, x0, a, b, prefix), _difference(sw, x1, a, b, prefix)
        small = mpmath.mpf(10) ** -(digits // 2)
        crossing = all(d.is_finite and abs(d.value) < small for d in (ga, gb))
        return x0, x1, crossing


#: the pairwise comparison of :func:`_wins`: objectives tie (to the lower index) unless their
#: enclosures prove them apart, with no band; deciding by the sign of a difference whose
#: enclosure contains 0 chases rounding noise (ICAP's step 4 in Scenario I, where 3X+1's
#: objective is 0 +/- 3e-33 against Y^2's exact 0 past k = 0.2946781..., gave a breakpoint
#: at 0.2953)
_PROVED_APART = EXACT_OPS.with_band(mpmath.inf)


def _wins(sw: _Sweep, x, a: int, b: int, prefix, low: bool = False) -> bool:
    """Whether A's objective beats B's at ``x`` by the greedy rule without a tie band (ties,
    to the lower index, where the enclosures overlap); where neither can be chosen, A is taken
    to keep winning."""
    fa, fb = sw.objective(x, a, prefix, low), sw.objective(x, b, prefix, low)
    if not (_PROVED_APART.choosable(fa) or _PROVED_APART.choosable(fb)):
        return True
    return _PROVED_APART.beats(fa, fb, first=a < b)


def _close(sw: _Sweep, x0, x1, a: int, b: int, prefix, width: int, low: bool = False,
           tol=None):
    """[x0, x1] narrowed to a relative width 10^-width around the change (see :func:`_locate`);
    ``tol``: the solver's tolerance (default 10^-(2 width))."""
    digits = sw.spec.digits
    tiny = mpmath.mpf(10) ** -width
    tol = tiny * tiny if tol is None else tol

    def wins(x):
        return _wins(sw, x, a, b, prefix, low)

    def done(u, v):
        return v - u <= tiny * max(abs(u), abs(v), mpmath.mpf(10) ** -digits)

    def g(x):
        d = _difference(sw, x, a, b, prefix, low)
        if not d.is_finite:
            raise ArithmeticError("non-finite difference")
        return d.value

    for _ in range(6):
        if done(x0, x1):
            break
        try:
            est = mpmath.findroot(g, (x0, x1), solver="anderson", tol=tol, maxsteps=10,
                                  verify=False)
        except (ArithmeticError, ValueError, ZeroDivisionError):
            est = None
        if est is None or not x0 < est < x1:
            break
        delta = tiny * max(abs(est), mpmath.mpf(10) ** -digits) / 4
        for _ in range(12):  # widen until the pair's comparison flips across the estimate
            u, v = max(x0, est - delta), min(x1, est + delta)
            wu, wv = wins(u), wins(v)
            if wu and not wv:
                x0, x1 = u, v
                break
            if wu and wv:
                x0 = v
                break
            if not wu and not wv:
                x1 = u
                break
            delta *= 16  # (False, True): the estimate is within rounding noise
        else:
            break
    while not done(x0, x1):  # bisection: poles, failures of the solver
        x = (x0 + x1) / 2
        if wins(x):
            x0 = x
        else:
            x1 = x
    return x0, x1


def _rational_near(x, digits: int):
    """``x`` itself when rational, else a rational within 10^-(digits+6) relative of it (a sample
    point near an irrational special point, where the joint values can be bound)."""
    x = as_exact(x)
    if x.is_Rational:
        return x
    return sp.Rational(str(sp.N(x, digits + 6)))


def _offset(t, toward, digits: int):
    """A point at distance 10^-(digits/2) max(|t|, 1) from ``t`` toward ``toward`` (exact): a
    change closer than that to a special point is reported at the point."""
    t, toward = as_exact(t), as_exact(toward)
    step = sp.Rational(1, 10 ** (digits // 2)) * max(abs(t), 1)
    step = min(step, abs(toward - t) / 2)
    return t + step if toward > t else t - step


def _pair_cause(sw: _Sweep, n: int, a: int, b: int, crossing: bool) -> str:
    la, lb = sw.labels[a], sw.labels[b]
    if n == 0:
        return f"MI(C,{la}) and MI(C,{lb}) cross (step 1)"
    if crossing:
        return f"objectives of {la} and {lb} cross at step {n + 1}"
    return (f"objective of {la} or {lb} changes sign through infinity at step {n + 1} "
            f"(a divisor in it crosses 0)")


def _find_changes(spec: AtlasSpec, tl, tr, left, right, depth: int = 0) -> list:
    """Every change between two points with different orderings: [(x0, x1, Breakpoint, order
    just left, order just right)], left to right."""
    sw = _sweep(spec)
    n = _first_difference(left, right)
    if n is None:
        return []
    ol, or_ = left[0], right[0]
    if n >= len(ol) or n >= len(or_) or depth > 40:
        # one side stops earlier: located by bisection on the ordering itself
        return _bisect_orders(sw, tl, tr, left, right, n)
    a, b = ol[n], or_[n]
    prefix = tuple(ol[:n])
    x0, x1, crossing = _locate(sw, tl, tr, a, b, prefix)
    (pl, just_left), (pr, just_right) = _probes(sw, tl, tr, x0, x1, a, b, prefix, left, right)
    out = []
    with mpmath.workdps(spec.digits + GUARD_DIGITS):
        mid = (x0 + x1) / 2
    bp = Breakpoint(mid, n + 1, _pair_cause(sw, n, a, b, crossing), (sw.labels[a], sw.labels[b]),
                    "crossing" if crossing else "pole", (x0, x1))
    if just_left != left:
        out += _find_changes(spec, tl, pl, left, just_left, depth + 1)
    out.append((x0, x1, bp, just_left, just_right))
    if just_right != right:
        out += _find_changes(spec, pr, tr, just_right, right, depth + 1)
    return out


def _probes(sw: _Sweep, tl, tr, x0, x1, a: int, b: int, prefix, left, right) -> tuple:
    """Points just outside the bracket [x0, x1] of A and B's change, each with its ordering:
    the orderings on each side, read where the greedy rule tells the pair apart.

    The rule ties objectives closer than its band (:func:`fstheory.orderings.greedy.tie_band`,
    relative to max(1, |obj|): absolute for small objectives). Near a crossing at a small
    parameter value the band can span far more than the bracket (MIFS in Scenario III at
    k = 0.975: beta = 3.0e-5, the band 1e-25 absolute, 4e-21 relative in beta, the bracket
    1e-22 relative): the ordering just outside is then the left one by the tie, and searching
    again between it and the sample moved the breakpoint to the band's edge, 80 bracket widths
    from the crossing. So the probes start 10^-(digits+1) relative out and move out by factors
    of 10 (at most half-way to the samples ``tl``, ``tr``) while the ordering there is not the
    sample's (``left``, ``right``) and the pair is tied."""
    digits = sw.spec.digits
    ops = EXACT_OPS.with_band(tie_band(sw.tie_digits))
    prec = mpmath.workdps(digits + GUARD_DIGITS)
    with prec:
        tl, tr = _to_mpf(tl), _to_mpf(tr)
        w0 = mpmath.mpf(10) ** -(digits + 1) * max(abs(x0), mpmath.mpf(10) ** -6)

    def probe(x, limit, sign, sample):
        w = w0
        while True:
            with prec:
                p = max(x - w, limit) if sign < 0 else min(x + w, limit)
            o = sw.order(p)
            if o == sample or p == limit:
                return p, o
            with prec:
                if not ops.tied(sw.objective(p, a, prefix), sw.objective(p, b, prefix)):
                    return p, o
                w *= 10

    with prec:
        lim_l, lim_r = (tl + x0) / 2, (x1 + tr) / 2
    return probe(x0, lim_l, -1, left), probe(x1, lim_r, 1, right)


def _bisect_orders(sw: _Sweep, tl, tr, left, right, n) -> list:
    digits = sw.spec.digits
    with mpmath.workdps(digits + GUARD_DIGITS):
        x0, x1 = _to_mpf(tl), _to_mpf(tr)
        tol = mpmath.mpf(10) ** -(digits + 2)
        while x1 - x0 > tol * max(abs(x0), abs(x1), mpmath.mpf(10) ** -digits):
            x = (x0 + x1) / 2
            if sw.order(x) == left:
                x0 = x
            else:
                x1 = x
        jl, jr = sw.order(x0), sw.order(x1)
    ol, or_ = left[0], right[0]
    between = tuple(sw.labels[i] for i in (ol[n:n + 1] + or_[n:n + 1]))
    with mpmath.workdps(digits + GUARD_DIGITS):
        cause = _order_change_cause(sw, x0, x1, left, right, n)
        bp = Breakpoint((x0 + x1) / 2, n + 1, cause, between, "change", (x0, x1))
    return [(x0, x1, bp, jl, jr)]


def _order_change_cause(sw: _Sweep, x0, x1, left, right, n: int) -> str:
    """What changes between the two sides of a change located on the orderings themselves: which
    side stops at step n+1, and which candidates' objectives after the common prefix change kind
    between x0 and x1 (from what to what); else a neutral statement."""
    (ol, sl), (or_, sr) = left, right
    if sl and len(ol) == n and not (sr and len(or_) == n):
        head = f"the ordering stops at step {n + 1} on the left side only"
    elif sr and len(or_) == n and not (sl and len(ol) == n):
        head = f"the ordering stops at step {n + 1} on the right side only"
    else:
        head = f"the orderings part at step {n + 1}"
    prefix = tuple(ol[:n])
    changes: dict = {}
    for c in range(len(sw.labels)):
        if c in prefix:
            continue
        kl = _kind_text(sw.objective(x0, c, prefix))
        kr = _kind_text(sw.objective(x1, c, prefix))
        if kl != kr:
            changes.setdefault((kl, kr), []).append(sw.labels[c])
    if not changes:
        return f"{head} (no candidate's objective changes kind there: located on the orderings)"
    return f"{head} (" + "; ".join(
        f"objective of {', '.join(labs)}: {kl} on the left, {kr} on the right"
        for (kl, kr), labs in changes.items()) + ")"


def _kind_text(v: ExtendedReal) -> str:
    k = _kind(v)
    return {"+": "finite > 0", "-": "finite < 0", "0": "0"}.get(k, k)


def _kind(v: ExtendedReal) -> str:
    if v.is_indeterminate:
        return v.form.value
    if v.is_infinite:
        return v.kind.value
    return "0" if v.is_zero else ("+" if v.value > 0 else "-")


def _special_cause(sw: _Sweep, s, left_pt, right_pt) -> str:
    """Which varying values change kind or sign at the special point ``s``."""
    if sw.on_beta:
        if s != 0:
            return "end of the range"
        if sw.spec.zero_beta == "drop":
            return "beta = 0 exactly (the redundancy term is left out there: --zero-beta drop)"
        return ("beta = 0 exactly (the redundancy term is evaluated as written: 0 times an "
                "infinite term is 0*inf)")
    at = sw.values(s, exact=True)
    sides = [sw.values(p) for p in (left_pt, right_pt) if p is not None]
    parts = []
    for q in sw.pv.varying:
        getter = lambda v, q=q: {"h": v.h, "mi_c": v.mi_c, "mi": v.mi}[q[0]](*q[1:])  # noqa: E731
        k_at = _kind(getter(at))
        k_sides = {_kind(getter(v)) for v in sides}
        if k_sides == {k_at}:
            continue
        name = sw.pv.quantity_label(q)
        if k_at == "0" and {"+", "-"} <= k_sides:
            parts.append(f"{name} changes sign (0 at this point)")
        elif k_at == "0":
            parts.append(f"{name} = 0 exactly")
        elif k_at in ("+inf", "-inf"):
            parts.append(f"{name} = {k_at}")
        else:
            parts.append(f"{name} changes sign")
    if sw.poles.get(s):
        parts.append(f"{' = '.join(sw.poles[s])} = 0 exactly (a pole: the objectives dividing "
                     "by it are infinite or indeterminate here)")
    seen, uniq = set(), []
    for p in parts:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return "; ".join(uniq) if uniq else "end of the range"


# ----- the sweep -----------------------------------------------------------------------------------


def _order_task(args):
    spec, t, exact = args
    return _sweep(spec).order(sp.sympify(t), exact)


def _changes_task(args):
    spec, tl, tr, left, right = args
    tl = sp.sympify(tl) if isinstance(tl, str) else tl
    tr = sp.sympify(tr) if isinstance(tr, str) else tr
    return _find_changes(spec, tl, tr, left, right)


def atlas(spec: AtlasSpec, *, jobs: int = 1, scheduler=None, progress: "Progress | None" = None,
          certify: bool | None = None) -> AtlasResult:
    """Regions of constant ordering of ``spec``'s method row over its parameter, and breakpoints.

    Parameters
    ----------
    spec : AtlasSpec
    jobs, progress
        As in :func:`fstheory.parallel.run_tasks` (worker processes, a
        :class:`~fstheory.parallel.Progress`); the result does not depend on them.
    scheduler : str or distributed.Client, optional
        A Dask scheduler's address or client
        (:func:`fstheory.simulation.scheduler.connected`).
    certify : bool, optional
        Run the completeness certificate (:mod:`fstheory.atlas.certificate.certify`); the default
        runs it where it applies (every input has a rigorous enclosure over a cell, whether the
        scenario is registered or a file; not varying numerical-route inputs). Without it the result
        carries the statement of what the sampled search guarantees, with the reason.
    """
    with connected(scheduler) as client:
        return _atlas(spec, jobs, client, progress, certify)


def _atlas(spec: AtlasSpec, jobs: int, scheduler, progress, certify) -> AtlasResult:
    sw = _sweep(spec)
    lo, hi = as_exact(spec.lo), as_exact(spec.hi)
    # a 3-D objective reads h(V) only inside H(Vi,Vj,C), which is continuous where h(V) = 0,
    # and its joint values need the scenario bound at the point (rational: such zeros are often
    # not, delta = exp(-1/2)/10 + 2/15 for h = 0 in Scenario I); its special points are the
    # zeros of the H(Vi,Vj,C) it divides by, where the joint values are the open closed forms
    zeros = _pole_points(sw) if sw.method.reads_joint else _entropy_zeros(sw, lo, hi)
    # where a feature degenerates (a*X at a = 0), the structure of the open cells fails
    structural = [] if sw.on_beta else sw.pv.structural.inside(lo, hi)
    zeros = sorted(set(zeros) | set(structural), key=lambda s: float(s))
    special = [lo] + zeros + [hi]
    bind = sw.method.reads_joint or bool(sw.pv.numeric_varying)
    per_unit = max(spec.grid, 4)
    grid_pts = []
    for s0, s1 in zip(special, special[1:]):
        n = max(4, int(per_unit * float((s1 - s0) / (hi - lo))))
        pts = _between(s0, s1, n)
        # a 3-D row's joint values and the numerical route's quantities bind the scenario at
        # the point: rational points only (between irrational special points _between's are not)
        grid_pts.append([_rational_near(p, spec.digits) for p in pts] if bind else pts)
    points = []
    for i, s in enumerate(special):
        points.append(s)
        if i < len(grid_pts):
            points += grid_pts[i]
    is_special = set(special)
    run = dict(jobs=jobs, scheduler=scheduler, progress=progress)
    orders = run_tasks(_order_task, [(spec, str(p), p in is_special) for p in points],
                       label="orderings", **run)
    order_of = dict(zip(points, orders))
    # points just inside each special point, to tell a change at the point from a nearby crossing
    inside = {}
    extra = []
    for i, s in enumerate(special):
        if i > 0:
            extra.append((s, "L", _offset(s, grid_pts[i - 1][-1], spec.digits)))
        if i < len(grid_pts):
            extra.append((s, "R", _offset(s, grid_pts[i][0], spec.digits)))
    if bind:
        extra = [(s, side, _rational_near(p, spec.digits)) for s, side, p in extra]
    extra_orders = run_tasks(_order_task, [(spec, str(p), False) for _, _, p in extra],
                             label="orderings near special points", **run)
    for (s, side, p), o in zip(extra, extra_orders):
        inside[(s, side)] = (p, o)
        order_of[p] = o
    # brackets between neighbouring sample points of the open intervals
    brackets = []
    for i in range(len(grid_pts)):
        seq = [inside[(special[i], "R")][0]] + grid_pts[i] + [inside[(special[i + 1], "L")][0]]
        for p, q in zip(seq, seq[1:]):
            if order_of[p] != order_of[q]:
                brackets.append((p, q))
    found = run_tasks(_changes_task,
                      [(spec, str(p), str(q), order_of[p], order_of[q]) for p, q in brackets],
                      label="breakpoints", **run)
    # pieces: (lo, hi, order, sample) left to right
    pieces = []
    crossings = []
    for i, s in enumerate(special):
        pieces.append((s, s, order_of[s], s))
        if i == len(grid_pts):
            break
        seq = [inside[(s, "R")][0]] + grid_pts[i] + [inside[(special[i + 1], "L")][0]]
        start, current, sample = s, order_of[seq[0]], seq[0]
        for p, q in zip(seq, seq[1:]):
            if order_of[p] == order_of[q]:
                continue
            for x0, x1, bp, jl, jr in found[brackets.index((p, q))]:
                pieces.append((start, bp.at, jl, sample if jl == current else x0))
                crossings.append(bp)
                start, current, sample = bp.at, jr, x1
        pieces.append((start, special[i + 1], current, sample))
    regions, breakpoints = _merge(sw, pieces, crossings, special, inside)
    result = AtlasResult(spec, sw.labels, sw.method_text(), breakpoints, regions, special)
    from fstheory.atlas.certificate import certify as atlas_certify

    # certify() itself returns the sampled statement with the reason where no certificate applies
    result.certificate = (atlas_certify.guarantee(spec) if certify is False else
                          atlas_certify.certify(sw, result, jobs=jobs, scheduler=scheduler,
                                                progress=progress))
    return result


def _merge(sw: _Sweep, pieces, crossings, special, inside):
    regions: list[Region] = []
    breakpoints: list[Breakpoint] = []
    by_at = {id(b.at): b for b in crossings}
    for lo_, hi_, (order, stopped), sample in pieces:
        if regions and regions[-1].order == order and regions[-1].stopped == stopped:
            last = regions[-1]
            regions[-1] = Region(last.lo, hi_, order, stopped, last.sample)
            continue
        if regions:
            at = lo_
            bp = by_at.get(id(at))
            if bp is None:  # a special point
                left = inside.get((at, "L"), (None, None))[0]
                right = inside.get((at, "R"), (None, None))[0]
                prev = (regions[-1].order, regions[-1].stopped)
                n = _first_difference(prev, (order, stopped))
                pair = tuple(sw.labels[i] for i in (prev[0][n:n + 1] + order[n:n + 1]))
                bp = Breakpoint(at, n + 1, _special_cause(sw, at, left, right), pair, "value")
            if not breakpoints or breakpoints[-1].at is not bp.at:
                breakpoints.append(bp)
        regions.append(Region(lo_, hi_, order, stopped, sample))
    return regions, breakpoints
