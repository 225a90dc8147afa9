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
many preimages, related by affine maps p_j (the identity first; rational ones too for h(V1, V2)),
with weights
``w_j(u) = f_U(p_j(u)) / |J(p_j(u))|`` (J the Jacobian of phi). Then

* h(V) = sum_i h(U_i) + E ln|J(U)| - E[H(branch | V)], the last term the entropy of the
  normalised weights (0 when phi is one-to-one; the change of variables, paper Section 2);
  E ln|J| factor by factor, each a one-dimensional integral where the factor is an affine form
  (:mod:`fstheory.theory.log_jacobian`), and the branch entropy of two preimages whose log weight
  ratio is affine as one integral (:mod:`fstheory.theory.branch_line`);
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

import mpmath
import sympy as sp
from flint import arb

from fstheory.theory.arbexpr import UnsupportedExpression
from fstheory.theory.balls import binary_entropy, xlogx
from fstheory.theory.budget import SymbolicTimeout
from fstheory.theory.class_probability import ClassProbability
from fstheory.theory.coordinates import build, jacobian, partner_maps
from fstheory.theory.expectation import (
    expect,
    fibre_densities,
)
from fstheory.theory.extended import xr
from fstheory.theory.feature_maps import FeatureUnsupported, bases_of, classify
from fstheory.theory.branch_line import line_branch_entropy
from fstheory.theory.log_jacobian import expected_log_abs
from fstheory.theory.fibre_certified import fibre_class_average, fibre_entropy
from fstheory.theory.log_product import log_product_class_average, log_product_entropy
from fstheory.theory.integrands import (
    branch_entropy,
    class_mixture,
    cuts_of,
    entropy_tail,
    law_entropy,
    log_abs,
    num,
    partner_cuts,
)
from fstheory.theory.quadrature import (
    QuadratureError,
    QuadratureTimeout,
    flint_precision,
    integrate,
    time_limit,
    to_mpf,
    tracking,
    work_limit,
)
from fstheory.theory.normal_conditioning import conditioned_class_average
from fstheory.theory.rule import Rule
from fstheory.theory.uniform_linear_pair import (uniform_linear_pair_entropy,
                                                 uniform_square_pair_entropy)
from fstheory.theory.uniform_product_pair import uniform_product_pair_entropy
from fstheory.theory.univariate import Accuracy, Unsupported, linear_combination
from fstheory.theory.numeric_pieces import (NumericUnsupported, class_probability_by_expectation,
                                            fibre_form, gaussian_class_average,
                                            rotated_normal_class_average,
                                            gaussian_joint_entropy, location_bits)

__all__ = ["NumericRoute", "NumericResult", "NumericUnsupported", "MAX_LEVELS", "DEFAULT_SECONDS",
           "estimated_nested",
           "DEFAULT_EVALUATIONS", "announce_to"]

#: deepest nesting of numerical integrals the route attempts (beyond it: refused)
MAX_LEVELS = 3
#: wall-time guard of one quantity, in seconds: it only catches a hang (the work budget,
#: counted in integrand evaluations, decides what is refused, the same on every machine)
DEFAULT_SECONDS = 1800.0
#: default work budget of one quantity: integrand evaluations, inner integrals included (about
#: 40 s at 42 digits on the 2-core development machine; the same refusals on every machine)
DEFAULT_EVALUATIONS = 1_500_000


@dataclass(frozen=True)
class NumericResult:
    """A value of the numerical route.

    ``error`` bounds |value - truth| when ``certified`` is True: every integral below it was
    certified (arb's rigorous quadrature or cubature) and every truncation bounded. When False,
    ``error`` is an estimate (double-exponential quadrature somewhere below, or a truncation
    without a proved bound) and the value must not be taken as proved."""

    value: mpmath.mpf
    error: mpmath.mpf
    method: str = "quadrature"
    certified: bool = False

    def as_extended(self):
        return xr(self.value)

    def describe(self) -> str:
        kind = "error bound" if self.certified else "estimated error"
        return f"numerical route, {self.method}, {kind} {mpmath.nstr(self.error, 2)}"


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


def _stated(computed, acc: Accuracy, reasons: set):
    """(value, error, method, certified) with the error that is stated: a certified bound as it
    is; an estimate (double-exponential quadrature somewhere below, whose error estimate is
    heuristic and was seen to undershoot the true error) no smaller than the tolerance the
    integration was run to."""
    value, error, method, proved = computed
    if proved and reasons:
        method += " (estimated below: " + "; ".join(sorted(reasons)) + ")"
    proved = proved and not reasons
    if not proved:
        error = max(arb(error).upper(), acc.tol)
    return value, error, method, proved


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
        self._extra_bits = location_bits(self.laws)

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
                with tracking() as reasons:
                    value, error, method, proved = _stated(compute(acc), acc, reasons)
                if error > abs(value) * acc.tol * arb(10) ** 6 and abs(value) > error:
                    # small values: tighten the tolerance to keep the digits relative
                    finer = Accuracy(acc.bits + 40, acc.tol * arb(10) ** -8, acc.eps * arb(10) ** -8)
                    with flint_precision(finer.bits), tracking() as reasons:
                        value, error, method, proved = _stated(compute(finer), finer, reasons)
                result = NumericResult(to_mpf(value), to_mpf(arb(error).upper()), method, proved)
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
            return law_entropy(law, acc)
        if kind == "product":
            got = _product_entropy(expr, self.laws, acc)
            if got is not None:
                return got[0], got[1], "product: logarithms of the factors, certified quadrature", True
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
        proved = True
        if hu is not None:
            v, e = hu, arb(0)
        else:
            v, e, _, proved = law_entropy(c.law, acc)
        dg = sp.diff(g, u)
        crit_cuts = [p[u] - u for p in maps[1:]]
        if dg.free_symbols:
            lv, le, _, ok = expect([c], log_abs(dg, [u]), cuts_of(dg, [u]) + crit_cuts, acc)
            v, e, proved = v + lv, e + le, proved and ok
        else:
            v = v + abs(num(dg)).log()
        if len(maps) > 1:
            bv, be, _, ok = expect([c], branch_entropy(system, maps, dg),
                                   partner_cuts(system, maps, dg), acc)
            v, e, proved = v - bv, e + be, proved and ok
        return v, e, "change of variables", proved

    def _entropy_fibre(self, system, acc):
        if len(system.coords) == 2:
            got = _certified_fibre(lambda: fibre_entropy(system, acc))
            if got is not None:
                return got[0], got[1], "density along fibres, certified nested quadrature", True
            # the slower route through ln|XY|, where the fibres in x and y do not converge
            got = _log_product(lambda: log_product_entropy(system, acc))
            if got is not None:
                return got[0], got[1], "product: density of ln|XY|, certified nested quadrature", True
        fib = fibre_form(system)
        densities, (lo, hi), bps = fibre_densities(fib, None, acc, with_class=False)
        pts = [lo, *bps(lo, hi), hi]
        v, e = integrate(lambda t: -xlogx(densities(t)), pts, acc.tol)
        return v, e + entropy_tail(acc, len(system.coords)), \
            "density along fibres, nested quadrature", False

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
        got = uniform_square_pair_entropy(exprs, self.laws)
        if got is not None:
            return got[0], got[1], "square of a fold, piecewise-linear density on exact cells", True
        system = build(list(exprs), self.laws, None, acc)
        g = len(system.coords)
        if g < 2 or (g == 2 and jacobian(system) == 0):
            raise NumericUnsupported(f"h{exprs}: the features are functionally dependent (no joint "
                                     "density, h = -inf)")
        if g > 2:
            gauss = gaussian_joint_entropy(exprs, self.laws)
            if gauss is not None:
                return gauss, arb(0), "bivariate normal closed form", True
            got = uniform_linear_pair_entropy(exprs, self.laws)
            if got is not None:
                return got[0], got[1], "piecewise-linear density on exact cells", True
            got = uniform_product_pair_entropy(exprs, self.laws, acc.tol)
            if got is not None:
                return got[0], got[1], "product density on exact cells, certified quadrature in ln(U/L)", True
            raise NumericUnsupported(
                f"h{exprs}: the pair depends on {g} independent coordinates; its joint density "
                "needs an integral along a fibre inside a two-dimensional integral (out of the time "
                "budget)")
        maps = partner_maps(system, rational=True)
        if maps is None:
            raise NumericUnsupported(f"h{exprs}: level sets of the pair are not finite")
        v, e, proved = arb(0), arb(0), True
        for c in system.coords:
            hu = c.law.entropy()
            if hu is None:
                hv, he, _, ok = law_entropy(c.law, acc)
                hu, e, proved = hv, e + he, proved and ok
            v += hu
        jac = jacobian(system)
        how = "change of variables"
        if jac.free_symbols:
            lv, le, how2, ok = expected_log_abs(jac, system, self.laws, acc)
            v, e, proved = v + lv, e + le, proved and ok
            how += f", {how2}"
        else:
            v = v + abs(num(jac)).log()
        if len(maps) > 1:
            got = line_branch_entropy(system, maps, jac, self.laws, acc) \
                if CERTIFIED_NESTED else None
            bv, be, how2, ok = got if got is not None else expect(
                system.coords, branch_entropy(system, maps, jac), partner_cuts(system, maps, jac),
                acc, cubature_evaluations=BRANCH_CUBATURE_EVALUATIONS)
            v, e, proved = v - bv, e + be, proved and ok
            how += f", {how2}"
        return v, e, how, proved

    def mi_pair(self, e1, e2) -> NumericResult:
        """MI(e1, e2) = h(e1) + h(e2) - h(e1, e2)."""
        e1, e2 = sp.expand(sp.sympify(e1)), sp.expand(sp.sympify(e2))
        if self._bases(e1).isdisjoint(self._bases(e2)):
            return NumericResult(mpmath.mpf(0), mpmath.mpf(0), "independent features", True)
        h1, h2 = self.entropy(e1), self.entropy(e2)
        h12 = self.joint_entropy((e1, e2))
        return NumericResult(h1.value + h2.value - h12.value, h1.error + h2.error + h12.error,
                             "h(V1) + h(V2) - h(V1, V2)",
                             h1.certified and h2.certified and h12.certified)

    # ----- class quantities -------------------------------------------------------------------------
    def class_entropy(self, weights=None, threshold=None) -> NumericResult:
        """H(C) = H_b(P(C = 1))."""
        rule = self._rule(weights, threshold)
        return self._run(("H", rule.form), "H(C)", lambda acc: self._class_entropy(rule, acc))

    def _class_entropy(self, rule, acc):
        system = build([], self.laws, rule, acc)
        if len(system.remaining) >= 2 and CERTIFIED_NESTED:
            got = class_probability_by_expectation(system, acc)
            if got is not None:
                (p1, p0), how, proved = got
                h = binary_entropy(p1, p0)
                return h.mid(), h.rad(), f"class probability, {how}", proved
        q = ClassProbability(system, acc)
        got = q.certified_value(())
        if got is not None:
            h = binary_entropy(*got)
            return h.mid(), h.rad(), "class probability, certified quadrature", True
        p1, p0 = q.value(())
        h = binary_entropy(p1, p0)
        return h.mid(), h.rad(), "class probability", True

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
            return NumericResult(mpmath.mpf(0), mpmath.mpf(0), "independent of the class", True)

        def difference():
            hc = self.class_entropy(weights, threshold)
            avg = self._run(("EHb", tuple(kept), rule.form), what,
                            lambda acc: self._expected_binary_entropy(kept, rule, acc))
            return hc.value, NumericResult(hc.value - avg.value, hc.error + avg.error,
                                           "H(C) - " + avg.method,
                                           hc.certified and avg.certified)

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
            return h.mid(), h.rad(), "independent of the class", True
        levels = len(system.coords) + q.depth + max((c.law.depth for c in system.coords), default=0)
        maps = partner_maps(system)
        if maps is not None and len(maps) == 1 and q.rest is None and not q.remaining:
            # V is one-to-one in the coordinates, which fix every variable of the rule
            return arb(0), arb(0), "the features determine the class", True
        if maps is not None:
            if levels > MAX_LEVELS:
                raise NumericUnsupported(f"needs {levels} nested integrals (at most {MAX_LEVELS})")
            jac = jacobian(system)
            if jac == 0:
                raise NumericUnsupported("the features are functionally dependent")
            F = class_mixture(system, maps, jac, q)
            cuts = partner_cuts(system, maps, jac) + [
                sp.sympify(cut).subs(p, simultaneous=True) for cut in q.cuts() for p in maps]
            v, e, how, proved = expect(system.coords, F, cuts, acc)
            return v, e, f"E[H_b(P(C=1|V))] by {how}", proved
        if len(system.features) != 1:
            raise NumericUnsupported(
                f"the {len(exprs)} features depend on {len(system.coords)} independent coordinates "
                "(a fibre integral inside a multi-dimensional one: out of the work budget)")
        if len(system.coords) == 2 and CERTIFIED_NESTED:
            got = _uniform_product(system, acc)
            if got is not None:
                return got[0], got[1], ("E[H_b(P(C=1|V))], closed-form fibres of a product of "
                                        "piecewise polynomial laws, certified quadrature"), True
        got = _uniform_bilinear(system, self.laws, acc)
        if got is not None:
            return got[0], got[1], ("E[H_b(P(C=1|V))], uniform fibre in closed cells, certified "
                                    "quadrature"), True
        got = _normal_rest(system, acc)
        if got is not None:
            return got[0], got[1], ("E[H_b(P(C=1|V))], fibre with a normal rest in closed cells, "
                                    "certified quadrature"), True
        gauss = gaussian_class_average(system, acc)
        if gauss is None and CERTIFIED_NESTED:
            gauss = rotated_normal_class_average(system, acc)
        if gauss is None:
            gauss = conditioned_class_average(exprs[0], self.laws, rule, acc)
        if gauss is not None:
            return gauss
        if len(system.coords) == 2:
            got = _certified_fibre(lambda: fibre_class_average(system, q, acc))
            if got is not None:
                return got[0], got[1], ("E[H_b(P(C=1|V))], densities along fibres, certified "
                                        "nested quadrature"), True
            got = _log_product(lambda: log_product_class_average(system, q, acc))
            if got is not None:
                return got[0], got[1], ("E[H_b(P(C=1|V))], density of ln|XY|, certified nested "
                                        "quadrature"), True
        fib = fibre_form(system)
        if levels > MAX_LEVELS:
            raise NumericUnsupported(f"needs {levels} nested integrals (at most {MAX_LEVELS})")
        densities, (lo, hi), bps = fibre_densities(fib, q, acc, with_class=True)

        def integrand(t):
            f, f1, f0 = densities(t)
            return xlogx(f) - xlogx(f1) - xlogx(f0)

        pts = [lo, *bps(lo, hi), hi]
        v, e = integrate(integrand, pts, acc.tol)
        return v, e + arb(2).log() * acc.eps * len(system.coords), \
            "E[H_b(P(C=1|V))], densities along fibres, nested quadrature", False


#: the certified routes of several coordinates (fibres, cubature, rules with several remaining
#: variables) are used; :func:`estimated_nested` turns them off
CERTIFIED_NESTED = True


@contextlib.contextmanager
def estimated_nested():
    """Inside the block the numerical route uses only its older, estimated nested quadrature
    for integrals over several coordinates: the independent second route of the tests and the
    baseline that ``make bench`` measures the certified routes against."""
    global CERTIFIED_NESTED
    from fstheory.theory import class_probability, expectation

    saved = CERTIFIED_NESTED, expectation.CUBATURE, class_probability.NESTED_BRANCH
    CERTIFIED_NESTED = expectation.CUBATURE = class_probability.NESTED_BRANCH = False
    try:
        yield
    finally:
        CERTIFIED_NESTED, expectation.CUBATURE, class_probability.NESTED_BRANCH = saved


def _product_entropy(expr, laws, acc):
    """h(c X Y + e) through the logarithms of the factors (:mod:`fstheory.theory.product_entropy`),
    or None where that route does not apply or does not converge."""
    if not CERTIFIED_NESTED:
        return None
    from fstheory.theory.product_entropy import product_entropy

    try:
        return product_entropy(expr, laws, acc)
    except QuadratureTimeout:
        raise
    except QuadratureError:
        return None


def _uniform_bilinear(system, laws, acc):
    """:func:`fstheory.theory.uniform_bilinear_fibre.uniform_bilinear_class_average`, or None
    where it does not apply or does not converge."""
    if not CERTIFIED_NESTED:
        return None
    from fstheory.theory.uniform_bilinear_fibre import uniform_bilinear_class_average

    try:
        return uniform_bilinear_class_average(system, laws, acc)
    except QuadratureTimeout:
        raise
    except QuadratureError:
        return None


def _normal_rest(system, acc):
    """:func:`fstheory.theory.normal_rest_fibre.normal_rest_class_average`, or None where it
    does not apply or does not converge."""
    if not CERTIFIED_NESTED:
        return None
    from fstheory.theory.normal_rest_fibre import normal_rest_class_average

    try:
        return normal_rest_class_average(system, acc)
    except QuadratureTimeout:
        raise
    except (QuadratureError, ArithmeticError):
        return None


def _uniform_product(system, acc):
    """E[H_b] of c X Y + e for piecewise polynomial laws (:mod:`fstheory.theory.uniform_product`),
    or None where it does not apply or does not converge within its share of the work."""
    from fstheory.theory.uniform_product import uniform_product_class_average

    with work_limit(UNIFORM_PRODUCT_EVALUATIONS) as budget:
        try:
            return uniform_product_class_average(system, acc)
        except QuadratureTimeout:
            if budget[0] >= 0:
                raise
        except (QuadratureError, UnsupportedExpression, SymbolicTimeout):
            pass
    return None


def _log_product(compute):
    """A product's route through ln|X Y| (:mod:`fstheory.theory.log_product`), tried after the
    fibre routes (it is slower where both converge), or None where it does not apply or does
    not converge (the estimated nested quadrature then takes over)."""
    if not CERTIFIED_NESTED:
        return None
    try:
        return compute()
    except QuadratureTimeout:
        raise
    except QuadratureError:
        return None


def _certified_fibre(compute):
    """The certified fibre integrals, or None where they do not apply or do not converge within
    their share of the work (the estimated nested quadrature then takes over)."""
    if not CERTIFIED_NESTED:
        return None
    with work_limit(FIBRE_EVALUATIONS) as budget:
        try:
            return compute()
        except QuadratureTimeout:
            if budget[0] >= 0:
                raise
        except (QuadratureError, UnsupportedExpression):
            pass  # not convergent, or a piecewise term it cannot evaluate on complex balls
    return None


#: work the closed-form fibres of a product of uniform laws may spend before the other routes
#: take over
UNIFORM_PRODUCT_EVALUATIONS = 150_000
#: work the certified fibre integrals may spend before the estimated route takes over
FIBRE_EVALUATIONS = 1_000_000
#: work the certified cubature of a pair's branch entropy E[H(branch | V1, V2)] may spend (the
#: weights of a swap of unequal laws, or of a rational partner map, switch along curves that
#: need many rectangles: about 300,000 evaluations, 8 s, for (X + Y, X Y) of two exponentials)
BRANCH_CUBATURE_EVALUATIONS = 500_000


