"""The numerical route: entropies, mutual informations and class quantities of features of
independent base variables, from the base laws alone, at the caller's precision.

Quantities (contract of the engine, ``NumericRoute(laws, rule)``):

* ``entropy(V)`` = h(V); ``joint_entropy((V1, V2))`` = h(V1, V2);
* ``mi_pair(V1, V2)`` = MI(V1, V2) = h(V1) + h(V2) - h(V1, V2);
* ``class_entropy()`` = H(C); ``mi_class(V)`` = MI(C, V);
* ``mi_class_set((V1, ..., Vm))`` = MI(C; {V1, ..., Vm}), m = 1..3.

Each returns a :class:`NumericResult` (value as an mpmath number at the caller's
``mpmath.workdps``, and an error bound or estimate) or raises :class:`NumericUnsupported` with the
reason, which the caller reports as "not computed".

How (formulas)
--------------
The features are first written in as few independent coordinates U as possible
(:mod:`fstheory.theory.coordinates`): linear combinations with proportional coefficient vectors
merge into one coordinate whose law comes from the convolution algebra
(:mod:`fstheory.theory.univariate`). With as many coordinates as features, V = phi(U) has finitely
many preimages, related by affine maps p_j (the identity first), with weights
``w_j(u) = f_U(p_j(u)) / |J(p_j(u))|`` (J the Jacobian of phi). Then

* h(V) = sum_i h(U_i) + E ln|J(U)| - E[H(branch | V)], the last term the entropy of the
  normalised weights (0 when phi is one-to-one; the change of variables, paper Section 2);
* MI(C; V) = H(C) - E[H_b(P(C = 1 | V))], with ``P(C = 1 | V = phi(u)) = sum_j w_j q(p_j(u)) /
  sum_j w_j`` and q the class probability given the coordinates
  (:mod:`fstheory.theory.class_probability`); H_b is bounded by ln 2, so the truncation of the
  coordinates to boxes of mass 1 - eps changes it by at most ln 2 * eps per coordinate.

With more coordinates than features (one feature affine in one of several coordinates: a sum of
differently weighted variables, a product), the densities f_V and f_{V,c} are integrals along the
fibres {V = v} (:func:`fstheory.theory.expectation.fibre_densities`) and h(V) = -int f_V ln f_V,
MI(C, V) = H(C) - int f_V H_b(f_{V,1}/f_V) dv.

Integrals with one coordinate and closed-form factors use certified quadrature (the error is a
bound); nested integrals use double-exponential quadrature (the error is an estimate, and the
stated error is never below the tolerance the integration was run to: the estimate alone was
seen to undershoot the true error tenfold). See :mod:`fstheory.theory.quadrature`.

Examples
--------
>>> import mpmath, sympy as sp
>>> from fstheory.theory.laws import Normal
>>> from fstheory.theory.rule import Rule
>>> X, Y = sp.symbols("X Y", real=True)
>>> route = NumericRoute({X: Normal(0, 1), Y: Normal(0, 1)}, Rule.from_linear({X: 1, Y: 1}, 1))
>>> with mpmath.workdps(20):
...     print(route.class_entropy().value, route.mi_class(X + Y).value)
0.55079165734696090599 0.55079165734696090599
"""

from __future__ import annotations

import contextlib

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp
from flint import acb, arb

from fstheory.theory.arbexpr import UnsupportedExpression, compile_expr, resolve_abs
from fstheory.theory.balls import ball, binary_entropy, xlogx
from fstheory.theory.budget import SymbolicTimeout
from fstheory.theory.class_probability import ClassProbability
from fstheory.theory.coordinates import build, jacobian, partner_maps
from fstheory.theory.expectation import (
    Fibre,
    Integrand,
    expect,
    fibre_densities,
    support_cuts,
)
from fstheory.theory.extended import xr
from fstheory.theory.feature_maps import FeatureUnsupported, bases_of, classify
from fstheory.theory.quadrature import (
    QuadratureError,
    best,
    flint_precision,
    integrate,
    time_limit,
    to_mpf,
    work_limit,
)
from fstheory.theory.rule import Rule
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.univariate import Accuracy, Unsupported, linear_combination
from fstheory.theory.univariate import Normal as NormalLaw

__all__ = ["NumericRoute", "NumericResult", "NumericUnsupported", "MAX_LEVELS", "DEFAULT_SECONDS",
           "DEFAULT_EVALUATIONS", "announce_to"]

#: deepest nesting of numerical integrals the route attempts (beyond it: refused)
MAX_LEVELS = 3
#: default wall-time budget of one quantity, in seconds
DEFAULT_SECONDS = 300.0
#: default work budget of one quantity: integrand evaluations, inner integrals included (about
#: 40 s at 42 digits on the 2-core development machine; the same refusals on every machine)
DEFAULT_EVALUATIONS = 1_500_000


class NumericUnsupported(ValueError):
    """The numerical route has no reliable method for this quantity (the message says why)."""


@dataclass(frozen=True)
class NumericResult:
    value: mpmath.mpf
    error: mpmath.mpf
    method: str = "quadrature"

    def as_extended(self):
        return xr(self.value)

    def describe(self) -> str:
        return f"numerical route, {self.method}, error {mpmath.nstr(self.error, 2)}"


_FAILURES = (QuadratureError, FeatureUnsupported, Unsupported, SymbolicTimeout,
             UnsupportedExpression, ZeroDivisionError, ArithmeticError)


_WATCHERS: list = []  # callables told the name of each quantity as its computation starts


@contextlib.contextmanager
def announce_to(callback):
    """Inside the block, ``callback(what)`` is called as the computation of each numerical
    quantity starts (``what`` names it, e.g. ``"MI(C; {X + Y})"``): the command line shows it
    on stderr, since one quantity can take up to about a minute."""
    _WATCHERS.append(callback)
    try:
        yield
    finally:
        _WATCHERS.remove(callback)


def _stated(computed, acc: Accuracy):
    """(value, error, method) with the error that is stated: a certified bound as it is; an
    estimate (double-exponential quadrature, whose error estimate is heuristic and was seen to
    undershoot the true error) no smaller than the tolerance the integration was run to."""
    value, error, method = computed
    if "quadrature" in method and "certified" not in method:
        error = max(arb(error).upper(), acc.tol)
    return value, error, method


class NumericRoute:
    """Numerical evaluation of entropies and MIs (see the module docstring).

    Parameters
    ----------
    laws : dict Symbol -> Law
        The independent base variables and their laws, numeric parameters.
    rule : Rule, optional
        The class rule C = 1{rule.form >= 0} (needed by the class quantities).
    seconds : float
        Wall-time budget of one quantity's integrals, a guard against hangs only; beyond it the
        quantity is refused (:class:`NumericUnsupported`, the reason says so).
    evaluations : int
        Work budget of one quantity: integrand evaluations in all its integrals. The budget that
        normally decides, and the same on every machine, so reports regenerate identically.
    """

    def __init__(self, laws: dict, rule: Rule | None = None, seconds: float = DEFAULT_SECONDS,
                 evaluations: int = DEFAULT_EVALUATIONS):
        self.laws = dict(laws)
        self.rule = rule
        self.seconds = seconds
        self.evaluations = evaluations
        self._memo: dict = {}
        self._extra_bits = _location_bits(self.laws)

    # ----- bookkeeping ----------------------------------------------------------------------------
    def _accuracy(self) -> Accuracy:
        bits = int(mpmath.mp.prec) + 40 + self._extra_bits
        digits = max(10, mpmath.mp.dps - 6)
        tol = arb(10) ** (-digits)
        return Accuracy(bits, tol, tol * arb(10) ** -12)

    def _run(self, key, what: str, compute) -> NumericResult:
        key = (key, mpmath.mp.prec)
        if key in self._memo:
            return self._memo[key]
        acc = self._accuracy()
        for watcher in _WATCHERS:
            watcher(what)
        try:
            with flint_precision(acc.bits), time_limit(self.seconds), \
                    work_limit(self.evaluations):
                value, error, method = _stated(compute(acc), acc)
                if error > abs(value) * acc.tol * arb(10) ** 6 and abs(value) > error:
                    # small values: tighten the tolerance to keep the digits relative
                    finer = Accuracy(acc.bits + 40, acc.tol * arb(10) ** -8, acc.eps * arb(10) ** -8)
                    with flint_precision(finer.bits):
                        value, error, method = _stated(compute(finer), finer)
                result = NumericResult(to_mpf(value), to_mpf(arb(error).upper()), method)
        except NumericUnsupported:
            raise
        except _FAILURES as exc:
            raise NumericUnsupported(f"{what}: {exc}") from None
        self._memo[key] = result
        return result

    def _bases(self, expr) -> frozenset:
        return bases_of(expr, self.laws)

    def _rule(self, weights=None, threshold=None) -> Rule:
        if weights is not None:
            return Rule.from_linear(weights, threshold if threshold is not None else 0)
        if self.rule is None:
            raise NumericUnsupported("no class rule was given to the numerical route")
        return self.rule

    # ----- entropies ------------------------------------------------------------------------------
    def entropy(self, expr) -> NumericResult:
        """h(expr)."""
        expr = sp.expand(sp.sympify(expr))
        kind, data = classify(expr, self.laws)
        if kind == "constant":
            raise NumericUnsupported(f"h({expr}): a constant has no density (h = -inf)")
        return self._run(("h", expr), f"h({expr})", lambda acc: self._entropy(expr, kind, data, acc))

    def _entropy(self, expr, kind, data, acc):
        if kind == "linear":
            coefs, const = data
            law = linear_combination(coefs, const, self.laws, acc)
            return _law_entropy(law, acc)
        system = build([expr], self.laws, None, acc)
        if len(system.coords) == 1:
            return self._entropy_one_coordinate(system, acc)
        return self._entropy_fibre(system, acc)

    def _entropy_one_coordinate(self, system, acc):
        """h(g(U)) = h(U) + E ln|g'(U)| - E[H(branch | V)]."""
        (c,) = system.coords
        u = c.symbol
        g = system.features[0]
        maps = partner_maps(system)
        hu = c.law.entropy()
        if hu is not None:
            v, e = hu, arb(0)
        else:
            v, e, _ = _law_entropy(c.law, acc)
        dg = sp.diff(g, u)
        crit_cuts = [p[u] - u for p in maps[1:]]
        if dg.free_symbols:
            lv, le, _ = expect([c], _log_abs(dg, [u]), _cuts_of(dg, [u]) + crit_cuts, acc)
            v, e = v + lv, e + le
        else:
            v = v + abs(_num(dg)).log()
        if len(maps) > 1:
            bv, be, _ = expect([c], _branch_entropy(system, maps, dg), _partner_cuts(system, maps, dg), acc)
            v, e = v - bv, e + be
        return v, e, "change of variables"

    def _entropy_fibre(self, system, acc):
        fib = _fibre(system)
        densities, (lo, hi), bps = fibre_densities(fib, None, acc, with_class=False)
        pts = [lo, *bps(lo, hi), hi]
        v, e = integrate(lambda t: -xlogx(densities(t)), pts, acc.tol)
        return v, e + _entropy_tail(acc, len(system.coords)), "density along fibres, nested quadrature"

    def joint_entropy(self, exprs) -> NumericResult:
        """h(V1, V2) (differential entropy of the pair)."""
        exprs = tuple(sp.expand(sp.sympify(e)) for e in exprs)
        if len(exprs) != 2:
            raise NumericUnsupported("joint entropies of two features only")
        for e in exprs:
            if classify(e, self.laws)[0] == "constant":
                raise NumericUnsupported(f"h{exprs}: {e} is constant, no joint density (h = -inf)")
        what = f"h({exprs[0]}, {exprs[1]})"
        return self._run(("h2", exprs), what, lambda acc: self._joint_entropy(exprs, acc))

    def _joint_entropy(self, exprs, acc):
        system = build(list(exprs), self.laws, None, acc)
        g = len(system.coords)
        if g < 2 or (g == 2 and jacobian(system) == 0):
            raise NumericUnsupported(f"h{exprs}: the features are functionally dependent (no joint "
                                     "density, h = -inf)")
        if g > 2:
            gauss = _gaussian_joint_entropy(exprs, self.laws)
            if gauss is not None:
                return gauss, arb(0), "bivariate normal closed form"
            raise NumericUnsupported(
                f"h{exprs}: the pair depends on {g} independent coordinates; its joint density "
                "needs an integral along a fibre inside a two-dimensional integral (out of the time "
                "budget)")
        maps = partner_maps(system)
        if maps is None:
            raise NumericUnsupported(f"h{exprs}: level sets of the pair are not finite")
        v, e = arb(0), arb(0)
        for c in system.coords:
            hu = c.law.entropy()
            if hu is None:
                hv, he, _ = _law_entropy(c.law, acc)
                hu, e = hv, e + he
            v += hu
        jac = jacobian(system)
        if jac.free_symbols:
            coords = [c for c in system.coords if c.symbol in jac.free_symbols]
            lv, le, _ = expect(coords, _log_abs(jac, [c.symbol for c in coords]),
                            _cuts_of(jac, [c.symbol for c in coords]), acc)
            v, e = v + lv, e + le
        else:
            v = v + abs(_num(jac)).log()
        if len(maps) > 1:
            bv, be, _ = expect(system.coords, _branch_entropy(system, maps, jac),
                            _partner_cuts(system, maps, jac), acc)
            v, e = v - bv, e + be
        return v, e, "change of variables, nested quadrature"

    def mi_pair(self, e1, e2) -> NumericResult:
        """MI(e1, e2) = h(e1) + h(e2) - h(e1, e2)."""
        e1, e2 = sp.expand(sp.sympify(e1)), sp.expand(sp.sympify(e2))
        if self._bases(e1).isdisjoint(self._bases(e2)):
            return NumericResult(mpmath.mpf(0), mpmath.mpf(0), "independent features")
        h1, h2 = self.entropy(e1), self.entropy(e2)
        h12 = self.joint_entropy((e1, e2))
        return NumericResult(h1.value + h2.value - h12.value, h1.error + h2.error + h12.error,
                             "h(V1) + h(V2) - h(V1, V2)")

    # ----- class quantities -------------------------------------------------------------------------
    def class_entropy(self, weights=None, threshold=None) -> NumericResult:
        """H(C) = H_b(P(C = 1))."""
        rule = self._rule(weights, threshold)
        return self._run(("H", rule.form), "H(C)", lambda acc: self._class_entropy(rule, acc))

    def _class_entropy(self, rule, acc):
        system = build([], self.laws, rule, acc)
        q = ClassProbability(system, acc)
        p1, p0 = q.value(())
        h = binary_entropy(p1, p0)
        return h.mid(), h.rad(), "class probability"

    def class_probability(self, weights=None, threshold=None):
        """(P(C = 1), P(C = 0)) as mpmath numbers."""
        rule = self._rule(weights, threshold)
        acc = self._accuracy()
        with flint_precision(acc.bits):
            p1, p0 = ClassProbability(build([], self.laws, rule, acc), acc).value(())
            return to_mpf(p1), to_mpf(p0)

    def mi_class(self, expr, weights=None, threshold=None) -> NumericResult:
        """MI(C, expr)."""
        return self.mi_class_set((expr,), weights, threshold)

    def mi_class_set(self, exprs, weights=None, threshold=None) -> NumericResult:
        """MI(C; {V1, ..., Vm}) for 1 <= m <= 3 features."""
        rule = self._rule(weights, threshold)
        exprs = tuple(sp.expand(sp.sympify(e)) for e in exprs)
        if not 1 <= len(exprs) <= 3:
            raise NumericUnsupported("MI with the class of sets of 1 to 3 features only")
        what = f"MI(C; {{{', '.join(map(str, exprs))}}})"
        acc0 = self._accuracy()
        with flint_precision(acc0.bits):
            try:
                kept = self._reduce(exprs, rule, acc0)
            except _FAILURES as exc:
                raise NumericUnsupported(f"{what}: {exc}") from None
        if not kept:
            return NumericResult(mpmath.mpf(0), mpmath.mpf(0), "independent of the class")
        def difference():
            hc = self.class_entropy(weights, threshold)
            avg = self._run(("EHb", tuple(kept), rule.form), what,
                            lambda acc: self._expected_binary_entropy(kept, rule, acc))
            return hc.value, NumericResult(hc.value - avg.value, hc.error + avg.error,
                                           "H(C) - " + avg.method)

        hc, result = difference()
        small = abs(result.value)
        if small > result.error > small * mpmath.mpf(10) ** (12 - mpmath.mp.dps):
            # a small MI is the difference of two values near H(C): their errors, relative to
            # H(C), lose log10(H(C)/MI) digits of the MI; carry that many more and recompute
            extra = int(mpmath.log10(abs(hc) / small)) + 2
            with mpmath.workdps(mpmath.mp.dps + extra):
                _, result = difference()
        return result

    def _reduce(self, exprs, rule, acc) -> list:
        """Drop constants, features independent of the class and the others, and features that
        are functions of the others (MI with the class is unchanged)."""
        feats = [e for e in dict.fromkeys(exprs) if classify(e, self.laws)[0] != "constant"]
        rule_bases = rule.bases(list(self.laws))
        changed = True
        while changed:
            changed = False
            for f in feats:
                others = [o for o in feats if o is not f]
                around = set(rule_bases).union(*(self._bases(o) for o in others))
                if self._bases(f).isdisjoint(around):
                    feats.remove(f)
                    changed = True
                    break
                if others and self._is_function_of(f, others, acc):
                    feats.remove(f)
                    changed = True
                    break
        return feats

    def _is_function_of(self, f, others, acc) -> bool:
        if not self._bases(f) <= set().union(*(self._bases(o) for o in others)):
            return False
        system = build(others + [f], self.laws, None, acc)
        sub = type(system)(system.coords, system.features[:-1])
        if len(sub.coords) != len(sub.features):
            return False
        maps = partner_maps(sub)
        if maps is None:
            return False
        g = system.features[-1]
        return all(sp.simplify(g.subs(p, simultaneous=True) - g) == 0 for p in maps)

    def _expected_binary_entropy(self, exprs, rule, acc):
        system = build(list(exprs), self.laws, rule, acc)
        q = ClassProbability(system, acc)
        if not (system.form.free_symbols & set(system.symbols)):
            # the class does not depend on the features' coordinates
            p1, p0 = q.value(tuple(arb(0) for _ in system.coords))
            h = binary_entropy(p1, p0)
            return h.mid(), h.rad(), "independent of the class"
        levels = len(system.coords) + q.depth + max((c.law.depth for c in system.coords), default=0)
        maps = partner_maps(system)
        if maps is not None and len(maps) == 1 and q.rest is None and not q.remaining:
            # V is one-to-one in the coordinates, which fix every variable of the rule
            return arb(0), arb(0), "the features determine the class"
        if maps is not None:
            if levels > MAX_LEVELS:
                raise NumericUnsupported(f"needs {levels} nested integrals (at most {MAX_LEVELS})")
            jac = jacobian(system)
            if jac == 0:
                raise NumericUnsupported("the features are functionally dependent")
            F = _class_mixture(system, maps, jac, q)
            cuts = _partner_cuts(system, maps, jac) + [
                sp.sympify(cut).subs(p, simultaneous=True) for cut in q.cuts() for p in maps]
            v, e, how = expect(system.coords, F, cuts, acc)
            return v, e, f"E[H_b(P(C=1|V))] by {how}"
        if len(system.features) != 1:
            raise NumericUnsupported(
                f"the {len(exprs)} features depend on {len(system.coords)} independent coordinates "
                "(a fibre integral inside a multi-dimensional one: out of the work budget)")
        gauss = _gaussian_class_average(system, acc)
        if gauss is not None:
            return gauss
        fib = _fibre(system)
        if levels > MAX_LEVELS:
            raise NumericUnsupported(f"needs {levels} nested integrals (at most {MAX_LEVELS})")
        densities, (lo, hi), bps = fibre_densities(fib, q, acc, with_class=True)

        def integrand(t):
            f, f1, f0 = densities(t)
            return xlogx(f) - xlogx(f1) - xlogx(f0)

        pts = [lo, *bps(lo, hi), hi]
        v, e = integrate(integrand, pts, acc.tol)
        return v, e + arb(2).log() * acc.eps * len(system.coords), \
            "E[H_b(P(C=1|V))], densities along fibres, nested quadrature"


#: largest extra working precision for laws located far from 0 relative to their scale
MAX_EXTRA_BITS = 4000


def _location_bits(laws: dict) -> int:
    """Bits needed beyond the target to resolve a law located at m with scale s: log2(|m|/s)
    (N(1e300, 1) needs about 1000 more bits; values differ by O(1) around 1e300)."""
    extra = 0
    for law in laws.values():
        lo, hi = law.support()
        centre = law.center()
        if centre is None:
            centre = lo if lo.is_finite else (hi if hi.is_finite else sp.Integer(0))
        scale = hi - lo if (lo.is_finite and hi.is_finite) else law.params[-1]
        try:
            ratio = abs(sp.N(centre / scale, 30))
        except (TypeError, ZeroDivisionError):
            continue
        if ratio > 1:
            extra = max(extra, int(mpmath.log(mpmath.mpf(str(ratio)), 2)) + 10)
    if extra > MAX_EXTRA_BITS:
        raise NumericUnsupported(
            f"a law is located at {2**extra:.1e} times its scale: more than {MAX_EXTRA_BITS} extra "
            "bits of working precision would be needed")
    return extra


# --- integrands -------------------------------------------------------------------------------------


def _num(e) -> arb:
    e = sp.sympify(e)
    return compile_expr(e, [])()


def _entropy_tail(acc: Accuracy, n: int) -> arb:
    """Truncation error of -int f ln f outside boxes of mass eps: eps (|ln eps| + 50) each."""
    return acc.eps * (abs(acc.eps.log()) + 50) * n


def _law_entropy(law, acc):
    """-int f ln f for a one-dimensional law (certified when the law is in closed form)."""
    lo, hi = law.box(acc.eps)
    lo, hi = ball(lo), ball(hi)
    pts = [lo, *[ball(p) for p in law.breakpoints() if lo < ball(p) < hi], hi]
    tail = _entropy_tail(acc, 1)
    branch = None
    if law.closed:
        def branch(m):
            f = law.pdf_branch(m)
            return lambda z, an: -xlogx(f(z), an)

    v, e, how = best(branch, lambda x: -xlogx(law.pdf(x)), pts, acc.tol)
    return v, e + tail, f"{how} of -f ln f"


def _rat(q: Fraction):
    return sp.Rational(q.numerator, q.denominator)


def _resolve(expr, syms, m):
    """expr with |a| and sign(a) fixed as they are at the real point m (a tuple of arb)."""
    point = {s: sp.Float(v.mid().str(40, radius=False), 40) for s, v in zip(syms, m)}
    expr = resolve_abs(expr, point)
    return expr.replace(lambda e: isinstance(e, sp.sign),
                        lambda e: sp.Integer(1) if sp.N(e.args[0].subs(point), 30) >= 0 else sp.Integer(-1))


def _compiled_branches(expr, syms):
    """A cache of compiled branches of expr (one per pattern of signs of its |.| terms)."""
    cache = {}

    def at(m):
        e = _resolve(expr, syms, m)
        if e not in cache:
            cache[e] = compile_expr(e, syms)
        return cache[e]

    return at


def _log_abs(expr, syms) -> Integrand:
    """ln|expr| on the coordinates ``syms`` (sign fixed per cell)."""
    branches = _compiled_branches(expr, syms)
    real = compile_expr(expr, syms)

    def value(u):
        return abs(real(*u)).log()

    def branch(m):
        f = branches(m)
        sign = 1 if f(*m) > 0 else -1
        return lambda z, an: acb(sign * f(*z)).log(analytic=an)

    return Integrand(value, branch, arb(1000))


def _cuts_of(expr, syms) -> list:
    """Zeros of expr and of the arguments of its |.| and sign(.) terms."""
    out = []
    expr = sp.sympify(expr)
    for a in expr.atoms(sp.Abs, sp.sign):
        out.append(a.args[0])
    base = expr.replace(lambda e: isinstance(e, (sp.Abs, sp.sign)), lambda e: e.args[0])
    num = sp.numer(sp.together(base))
    if num.is_polynomial(*syms):
        out.append(num)
    return [c for c in out if sp.sympify(c).free_symbols & set(syms)]


def _partner_cuts(system, maps, jac) -> list:
    """Cuts of the branch weights: support ends and kinks and zeros of J at every preimage, and
    for normal coordinates the balance curves where two preimages weigh the same (there the
    weights switch over a width that shrinks with |u|; a breakpoint keeps quadrature from
    stepping over the switch)."""
    cuts = []
    normal = [(c.symbol, c.law) for c in system.coords if isinstance(c.law, NormalLaw)]
    for p in maps[1:]:
        diff = sum((((u - _rat(law.m_frac)) ** 2 - (p[u] - _rat(law.m_frac)) ** 2)
                    / _rat(Fraction(law.s.mid().str(30, radius=False))) ** 2
                    for u, law in normal), sp.Integer(0))
        if sp.expand(diff) != 0:
            cuts.append(sp.expand(diff))
    for p in maps:
        for c in system.coords:
            for cut in support_cuts(c):
                cuts.append(cut.subs(p, simultaneous=True))
        if sp.sympify(jac).free_symbols:
            for cut in _cuts_of(jac, system.symbols):
                cuts.append(sp.sympify(cut).subs(p, simultaneous=True))
    return cuts


class _Weights:
    """w_j(u) = prod_i f_i(p_j(u)_i) / |J(p_j(u))| for the partner maps p_j."""

    def __init__(self, system, maps, jac):
        self.syms = system.symbols
        self.laws = [c.law for c in system.coords]
        self.maps = [[compile_expr(p[s], self.syms) for s in self.syms] for p in maps]
        self.jac = sp.sympify(jac)
        self.jac_branches = _compiled_branches(self.jac, self.syms) if self.jac.free_symbols else None
        self.jac_real = compile_expr(self.jac, self.syms) if self.jac.free_symbols else None

    def points(self, u):
        return [tuple(f(*u) for f in fs) for fs in self.maps]

    def value(self, u):
        pts = self.points(u)
        out = []
        for pt in pts:
            w = arb(1)
            for law, x in zip(self.laws, pt):
                w = w * law.pdf(x)
                if w.is_zero():
                    break
            if self.jac_real is not None and not w.is_zero():
                w = w / abs(self.jac_real(*pt))
            out.append(w)
        return pts, out

    def branch(self, m):
        pts_m = self.points(m)
        dens = [[law.pdf_branch(x) for law, x in zip(self.laws, pt)] for pt in pts_m]
        jacs = []
        for pt in pts_m:
            if self.jac_branches is None:
                jacs.append(None)
            else:
                f = self.jac_branches(pt)
                jacs.append((f, 1 if f(*pt) > 0 else -1))
        maps = self.maps

        def at(z):
            pts = [tuple(f(*z) for f in fs) for fs in maps]
            ws = []
            for pt, ds, jj in zip(pts, dens, jacs):
                w = acb(1)
                for d, x in zip(ds, pt):
                    w = w * d(x)
                if jj is not None:
                    w = w / (jj[1] * jj[0](*pt))
                ws.append(w)
            return pts, ws

        return at


def _branch_entropy(system, maps, jac) -> Integrand:
    """H(branch | V) = -sum_j w^_j ln w^_j with the normalised weights."""
    W = _Weights(system, maps, jac)

    top = arb(len(maps)).log()

    def value(u):
        _, ws = W.value(u)
        total = sum(ws, arb(0))
        if total.is_zero():
            return arb(0)
        if not total > 0:  # densities ~0 with rounding radii (a support end): enclose [0, ln n]
            return arb(top / 2, top / 2)
        return -sum((xlogx(w / total) for w in ws), arb(0))

    def branch(m):
        at = W.branch(m)

        def g(z, an):
            _, ws = at(z)
            total = sum(ws, acb(0))
            return -sum((xlogx(w / total, an) for w in ws), acb(0))

        return g

    return Integrand(value, branch, arb(len(maps)).log())


def _class_mixture(system, maps, jac, q) -> Integrand:
    """H_b(P(C = 1 | V = phi(u)), P(C = 0 | V = phi(u)))."""
    W = _Weights(system, maps, jac)
    single = len(maps) == 1

    def value(u):
        if single:
            q1, q0 = q.value(u)
            return binary_entropy(q1, q0)
        pts, ws = W.value(u)
        total = sum(ws, arb(0))
        if total.is_zero():
            return arb(0)
        if not total > 0:  # densities ~0 with rounding radii (a support end): enclose [0, ln 2]
            return arb(arb(2).log() / 2, arb(2).log() / 2)
        p1, p0 = arb(0), arb(0)
        for pt, w in zip(pts, ws):
            if w.is_zero():
                continue
            q1, q0 = q.value(pt)
            p1, p0 = p1 + w * q1, p0 + w * q0
        return binary_entropy(p1 / total, p0 / total)

    branch = None
    if q.closed:
        def branch(m):
            if single:
                qb = q.branch(m)
                return lambda z, an: binary_entropy(*(_acb(t) for t in qb(z, an)), an)
            at = W.branch(m)
            qbs = [q.branch(pt) for pt in W.points(m)]

            def g(z, an):
                pts, ws = at(z)
                total = sum(ws, acb(0))
                p1, p0 = acb(0), acb(0)
                for pt, w, qb in zip(pts, ws, qbs):
                    q1, q0 = qb(pt, an)
                    p1, p0 = p1 + w * q1, p0 + w * q0
                return binary_entropy(p1 / total, p0 / total, an)

            return g

    return Integrand(value, branch, arb(2).log())


def _acb(t):
    return t if isinstance(t, acb) else acb(t)


def _fibre(system) -> Fibre:
    """The fibre parametrisation of the single feature: solve it for a coordinate it is affine
    in (a constant coefficient preferred)."""
    (f,) = system.features
    best = None
    for i, c in enumerate(system.coords):
        a = sp.diff(f, c.symbol)
        if c.symbol in a.free_symbols or a == 0:
            continue
        if not a.free_symbols:
            return Fibre(system.coords, f, i)
        if best is None:
            best = i
    if best is None:
        raise NumericUnsupported(f"{f} is not affine in any of its coordinates (no fibre form)")
    return Fibre(system.coords, f, best)


def _gaussian_class_average(system, acc):
    """E[H_b(P(C = 1 | V))] for V linear in normal coordinates and a linear rule whose rest is
    normal (or absent): (V, L) is bivariate normal, so P(C = 1 | V = v) = Phi((E[L | v])/sd(L | v))
    with L = form(U) + R, and the average is one integral against the normal law of V (certified).
    None when these hypotheses do not hold."""
    coords = system.coords
    if not all(isinstance(c.law, NormalLaw) for c in coords):
        return None
    if system.rest is not None and not isinstance(system.rest, NormalLaw):
        return None
    (f,) = system.features
    syms = system.symbols
    a = [sp.diff(f, u) for u in syms]
    b = [sp.diff(system.form, u) for u in syms]
    if any(t.free_symbols for t in a + b):
        return None
    a, b = [_num(t) for t in a], [_num(t) for t in b]
    mean = [c.law.m for c in coords]
    var = [c.law.s * c.law.s for c in coords]
    mv = sum((ai * m for ai, m in zip(a, mean)), _num(f.subs({u: 0 for u in syms})))
    ml = sum((bi * m for bi, m in zip(b, mean)), _num(system.form.subs({u: 0 for u in syms})))
    vv = sum((ai * ai * w for ai, w in zip(a, var)), arb(0))
    vl = sum((bi * bi * w for bi, w in zip(b, var)), arb(0))
    cov = sum((ai * bi * w for ai, bi, w in zip(a, b, var)), arb(0))
    if system.rest is not None:
        ml += system.rest.m
        vl += system.rest.s * system.rest.s
    resid = vl - cov * cov / vv
    if not resid > 0:
        return None
    slope, sd = cov / vv, resid.sqrt()
    law = NormalLaw(mv, vv.sqrt(), Fraction(mv.mid().str(30, radius=False)))
    r2 = arb(2).sqrt()

    def branch(m):
        f_v = law.pdf_branch(m)

        def g(z, an):
            t = (ml + slope * (z - mv)) / (sd * r2)
            p1, p0 = (-t).erfc() / 2, t.erfc() / 2
            return f_v(z) * binary_entropy(_acb(p1), _acb(p0), an)

        return g

    def value(x):
        t = (ml + slope * (x - mv)) / (sd * r2)
        return law.pdf(x) * binary_entropy((-t).erfc() / 2, t.erfc() / 2)

    lo, hi = law.box(acc.eps)
    pts = [ball(lo), ball(hi)]
    v, e, how = best(branch, value, pts, acc.tol)
    return v, e + arb(2).log() * acc.eps, f"E[H_b(P(C=1|V))], bivariate normal, {how}"


def _gaussian_joint_entropy(exprs, laws):
    """h of linear features of normal base variables: ln(2 pi e) + ln(det Sigma)/2."""
    from fstheory.theory.laws import Normal

    bases = sorted(set().union(*(bases_of(e, laws) for e in exprs)), key=str)
    if not all(isinstance(laws[b], Normal) for b in bases):
        return None
    rows = []
    for e in exprs:
        kind, data = classify(e, laws)
        if kind != "linear":
            return None
        rows.append([data[0].get(b, 0) for b in bases])
    A = sp.Matrix(rows)
    S = sp.diag(*[laws[b].params[1] ** 2 for b in bases])
    det = exact_nsimplify(sp.simplify((A * S * A.T).det()))
    if det == 0:
        return None
    return (2 * arb.pi() * arb(1).exp()).log() + _num(det).log() / 2
