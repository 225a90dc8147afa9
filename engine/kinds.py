r"""Typed derivations: how one quantity is obtained, and its ball at a point.

Each kind is a small class with

* ``kind``: the report's category ("structure", "closed", "numeric": what the general-expression
  tables show), ``name``: the typed kind (provenance), ``reason``: why it applies;
* ``key()``: equal keys mean equal values, exactly (identities cancel such terms before any
  number is computed: MI(C; X | 3X+1) = MI(C, X) - MI(C, 3X+1) is an exact 0);
* ``exact(point)``: the exact value when the kind knows it without balls (structure), else None;
* ``exact_fallback(point)``: the exact sympy value (substituted, limits at the ends of a
  parameter's range), tried only when a ball cannot tell the value from 0 or is not finite;
* ``ball(point, bits)``: an arb ball containing the value at the point, computed with ``bits``
  bits of working precision (rigorous: every rounding and truncation bounded).

The kinds:

==============================  ==========================================================
:class:`Structural`             0, +inf, -inf from a structural fact (exact)
:class:`ClosedForm`             a sympy expression in the parameters, compiled to arb once
                                (:mod:`fstheory.theory.arbexpr`)
:class:`Exact`                  a parameter-free sympy number (a limit, ln 2, a probability)
:class:`SkewNormalExpectation`  Scenario II's F(mu) = E[ln 2 Phi(mu A)]
                                (:mod:`fstheory.theory.skew_normal`)
:class:`UniformClassSeries`     Scenario I's MI(C_k, Y), MI(C_k, X-Y): series for k <= 1/2
                                (:mod:`fstheory.theory.uniform_class`)
:class:`LaplaceClassIntegral`   Scenario III's MI(C_k, V) (:mod:`fstheory.theory.laplace_class`)
:class:`GaussianThresholdClassMI`  MI(C, V), V and a linear class jointly normal, any threshold
                                (:mod:`fstheory.theory.gaussian_class`)
:class:`DirectionIntegral`      H(C | V_S) as an integral over directions
                                (:mod:`fstheory.theory.cone_enclosure`)
:class:`LineFibreEntropy`       E[H_b(P(C=1 | V_1, V_2))], uniform laws, a line fibre
                                (:mod:`fstheory.theory.uniform_line`)
:class:`SignFoldEntropy`        H(C | V_S) = ln 2 P(|L| < |a||Y - m|), a folded sign
                                (:mod:`fstheory.theory.sign_fold`)
:class:`Numerical`              the numerical route (:mod:`fstheory.theory.numeric`): a ball
                                when its error is a proved bound, else an estimate only
:class:`Linear`                 a combination of the above (identities, chain rules)
==============================  ==========================================================

Kinds that integrate (``integral = True``) get a smaller precision budget than elementary ones
(:mod:`fstheory.engine.prove`). A closed form is given its specialised kind by the recognisers
of :data:`CLOSED_FORM_KINDS` (by what the expression is); the kinds that need the bound numbers
(the Laplace class integrals) are recognised at the point (:mod:`fstheory.engine.resolve`).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb

from fstheory.theory.arbexpr import NoEnclosure, arb_from_mpf, compile_expr
from fstheory.theory.quadrature import flint_precision

__all__ = ["Derivation", "Structural", "ClosedForm", "Exact", "SkewNormalExpectation",
           "UniformClassSeries", "LaplaceClassIntegral", "GaussianThresholdClassMI",
           "DirectionIntegral", "LineFibreEntropy", "SignFoldEntropy", "NormalFibreEntropy",
           "Numerical",
           "Linear", "NotProved", "closed_kind", "CLOSED_FORM_KINDS"]


class NotProved(Exception):
    """A value known only as an estimate (no rigorous bound of its error)."""

    def __init__(self, value, error, how: str):
        self.value, self.error, self.how = value, error, how
        super().__init__(how)


class Derivation:
    """How one quantity is obtained (module docstring)."""

    kind = "numeric"
    name = "derivation"
    integral = False
    expr = None

    def __init__(self, reason: str = ""):
        self.reason = reason

    def key(self) -> tuple:
        return (type(self).__name__, id(self))

    def exact(self, point):
        return None

    def exact_fallback(self, point):
        return None

    def ball(self, point, bits: int) -> arb:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r})"


class Structural(Derivation):
    """0, +inf or -inf (sympy ``value``) from a structural fact."""

    kind = "structure"
    name = "structure"

    def __init__(self, value, reason: str = ""):
        super().__init__(reason)
        self.expr = sp.sympify(value)

    def key(self) -> tuple:
        return ("structure", self.expr)

    def exact(self, point):
        return self.expr

    def ball(self, point, bits: int) -> arb:
        if self.expr != 0:
            raise NoEnclosure(f"{self.expr} is not a finite ball")
        return arb(0)


class ClosedForm(Derivation):
    """A sympy expression in the scenario's parameter symbols."""

    kind = "closed"
    name = "closed form"

    def __init__(self, expr, reason: str = ""):
        super().__init__(reason)
        self.expr = sp.sympify(expr)
        self.integral = self.expr.has(sp.Integral)

    def key(self) -> tuple:
        return ("closed", self.expr)

    def exact_fallback(self, point):
        return point.exact(self.expr)

    def ball(self, point, bits: int) -> arb:
        with flint_precision(bits):
            b = compile_expr(self.expr, point.symbols)(*point.balls(bits))
            if b.is_finite():
                return b
            # singular at the point (0/0 at an end of a parameter's range): the exact limit
            at = point.exact(self.expr)
            if at.is_finite is False or at.has(sp.zoo, sp.nan):
                raise NoEnclosure(f"the closed form is {at} at the point")
            return compile_expr(at, ())()


class Exact(ClosedForm):
    """A parameter-free sympy number (a limit, ln 2, H(C) - ln 2 p with p exact, ...)."""

    name = "exact"

    def key(self) -> tuple:
        return ("exact", self.expr)

    def exact_fallback(self, point):
        return self.expr

    def ball(self, point, bits: int) -> arb:
        with flint_precision(bits):
            return compile_expr(self.expr, ())()


class SkewNormalExpectation(ClosedForm):
    """F(mu) = E[ln 2 Phi(mu A)], A ~ SN(0, 1, mu), with mu = |lambda| an expression in the
    parameters (``expr`` is the integral as law algebra writes it)."""

    name = "skew-normal expectation"

    def __init__(self, expr, mu, reason: str = ""):
        super().__init__(expr, reason)
        self.mu = sp.sympify(mu)
        self.integral = True

    def key(self) -> tuple:
        return ("skew-normal", self.mu)

    def exact_fallback(self, point):
        m2 = point.exact(self.mu**2)
        if m2 == sp.oo:
            return sp.log(2)  # F(+inf) = ln 2: the class is a function of V
        if m2.is_zero:
            return sp.Integer(0)
        return None

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.skew_normal import skew_normal_mi_ball

        with flint_precision(bits):
            mu = compile_expr(self.mu, point.symbols)(*point.balls(bits))
            if not mu.is_finite():
                m2 = point.exact(self.mu**2)
                if m2 == sp.oo:
                    return arb(2).log()
                mu = compile_expr(sp.sqrt(m2), ())()
            return skew_normal_mi_ball(mu)


class UniformClassSeries(ClosedForm):
    """Scenario I's MI(C_k, Y) or MI(C_k, X-Y) (``which``): the power series for k <= 1/2 (no
    cancellation at small k), the closed form above; ``k`` the parameter's symbol, or a number
    (the kind recognised at a point, :func:`fstheory.theory.uniform_class.recognise`)."""

    name = "uniform class series"

    def __init__(self, expr, which: str, k, reason: str = ""):
        super().__init__(expr, reason)
        self.which, self.k = which, sp.sympify(k)

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.uniform_class import uniform_series

        k = point.value(self.k) if self.k.is_Symbol else self.k
        if bool(k > sp.Rational(1, 2)):
            return super().ball(point, bits)
        with flint_precision(bits):
            kb = arb(int(k.p)) / int(k.q) if k.is_Rational else compile_expr(k, ())()
            return uniform_series(self.which, kb)


class LaplaceClassIntegral(Derivation):
    """Scenario III's MI(C_k, V), V an affine function of X, Y or X - Y (``which``), for a number
    k in [0, 1] at the point (:func:`fstheory.theory.laplace_class.recognise`)."""

    kind = "numeric"  # the general tables show the numerical route: the kind needs the point
    name = "Laplace class integral"
    integral = True

    def __init__(self, which: str, k, reason: str = ""):
        super().__init__(reason)
        self.which, self.k = which, sp.Rational(k)

    def key(self) -> tuple:
        return ("laplace", self.which, self.k)

    def exact_fallback(self, point):
        from fstheory.theory.laplace_class import class_mi_expression

        e = class_mi_expression(self.which, self.k)
        return None if e.has(sp.Integral) else e

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.laplace_class import class_mi_ball

        k, k1 = self.k, 1 - self.k
        with flint_precision(bits):
            return class_mi_ball(self.which, arb(int(k.p)) / int(k.q),
                                 arb(int(k1.p)) / int(k1.q))


class GaussianThresholdClassMI(Derivation):
    """MI(C, V) for V and the class's linear form jointly normal, any threshold:
    H_b(Phi(c / sqrt(1 + a^2))) - E H_b(Phi(a Z + c)) with exact ``a``, ``c`` at the point
    (:mod:`fstheory.theory.gaussian_class`)."""

    kind = "closed"
    name = "normal threshold class integral"
    integral = True

    def __init__(self, a, c, reason: str = ""):
        super().__init__(reason)
        self.a, self.c = sp.sympify(a), sp.sympify(c)

    def key(self) -> tuple:
        return ("normal-threshold", self.a, self.c)

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.gaussian_class import threshold_class_mi_ball

        with flint_precision(bits):
            a, c = compile_expr(self.a, ())(), compile_expr(self.c, ())()
            return threshold_class_mi_ball(a, c)


class DirectionIntegral(Derivation):
    """H(C | V_S) = int over the directions where C != C o tau of the weight of (``radial``,
    ``T``), at class coefficients ``a`` (:func:`fstheory.theory.cone_enclosure.cone_entropy_at`)."""

    name = "integral over directions"
    integral = True

    def __init__(self, radial: str, a, T, reason: str = ""):
        super().__init__(reason)
        self.radial, self.a = radial, tuple(sp.sympify(x) for x in a)
        self.T = tuple(tuple(sp.sympify(x) for x in row) for row in T)

    def key(self) -> tuple:
        return ("directions", self.radial, self.a, self.T)

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.cone_enclosure import NoConeEnclosure, cone_entropy_at

        try:
            with flint_precision(bits):
                return cone_entropy_at(self.radial, self.a, self.T)
        except NoConeEnclosure as exc:
            raise NoEnclosure(str(exc)) from exc


class LineFibreEntropy(Derivation):
    """E[H_b(P(C = 1 | V_1, V_2))] for uniform laws and a one-dimensional fibre: exact polygon
    cells and one certified integral per strip (:mod:`fstheory.theory.uniform_line`), ``fibre``
    its exact data at the point."""

    name = "integral over a uniform line fibre"
    integral = True

    def __init__(self, fibre, reason: str = ""):
        super().__init__(reason)
        self.fibre = fibre

    def key(self) -> tuple:
        return ("uniform-line", self.fibre)

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.uniform_line import expected_entropy_ball

        with flint_precision(bits):
            return expected_entropy_ball(self.fibre)


class SignFoldEntropy(Derivation):
    """H(C | V_S) = ln 2 * P(|L| < |a| |Y - m|) when the features reveal all the class uses but
    the sign of a symmetric Y (:mod:`fstheory.theory.sign_fold`), ``fold`` exact at the point."""

    name = "integral over a folded sign"
    integral = True

    def __init__(self, fold, laws, reason: str = ""):
        super().__init__(reason)
        self.fold, self.laws = fold, laws

    def key(self) -> tuple:
        return ("sign-fold", self.fold, tuple(sorted(
            ((str(b), repr(self.laws[b])) for b in {self.fold.variable, *dict(self.fold.coefs)}))))

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.sign_fold import disagreement_ball

        with flint_precision(bits):
            return arb(2).log() * disagreement_ball(self.fold, self.laws)


#: bits below the point's precision at which :class:`NormalFibreEntropy` aims its ball
NESTED_SLACK_BITS = 24


class NormalFibreEntropy(Derivation):
    """H(C | V_S) for a two-point fibre of i.i.d. centred normal variables with unequal densities
    and a class boundary off the origin: one nested certified integral
    (:mod:`fstheory.theory.normal_fibre`), ``fibre`` its exact constants at the point."""

    name = "nested integral over a normal two-point fibre"
    integral = True

    def __init__(self, fibre, reason: str = ""):
        super().__init__(reason)
        self.fibre = fibre

    def key(self) -> tuple:
        return ("normal-fibre", self.fibre)

    def ball(self, point, bits: int) -> arb:
        from fstheory.theory.normal_fibre import conditional_entropy_ball

        # the point's bits carry GUARD_DIGITS (12) digits beyond the printed ones; this nested
        # integral costs about bits^2 and a ball 7 digits wider still proves the printed ones
        # after the identities' cancellations (else the caller doubles the bits)
        with flint_precision(max(bits - NESTED_SLACK_BITS, 53)):
            return conditional_entropy_ball(self.fibre)


class Numerical(Derivation):
    """The numerical route's ``quantity`` ("entropy", "mi_class", "mi_pair", "class_entropy",
    "mi_class_set") on the feature expressions ``args`` at the point. Its result is a ball when
    the route's error is a proved bound (``certified``), else :class:`NotProved` (an estimate)."""

    kind = "numeric"
    name = "numerical route"
    integral = True

    def __init__(self, quantity: str, args: tuple = (), reason: str = ""):
        super().__init__(reason)
        self.quantity, self.args = quantity, tuple(args)

    def key(self) -> tuple:
        return ("numeric", self.quantity, self.args)

    def ball(self, point, bits: int) -> arb:
        from fstheory.engine.point import dps_for

        dps = dps_for(bits)
        route = point.route(dps)
        with mpmath.workdps(dps):
            r = getattr(route, self.quantity)(*self.args)
        # until the numerical route states whether its error is a proved bound, it is not one
        if not getattr(r, "certified", False):
            raise NotProved(r.value, r.error, r.describe())
        with flint_precision(bits):
            err = abs(_exact_ball(r.error)).upper()
            return _exact_ball(r.value) + arb(0, err)


def _exact_ball(x) -> arb:
    """A number of the numerical route (mpf, arb, int) as a ball, without rounding it."""
    if isinstance(x, arb):
        return x
    if isinstance(x, mpmath.mpf):
        return arb_from_mpf(x)
    return arb(x)


class Linear(Derivation):
    """sum of ``coef * term`` (Fraction coefficients, derivations as terms), like terms merged
    by key: a chain rule or identity between quantities."""

    def __init__(self, terms, reason: str = ""):
        super().__init__(reason)
        merged: dict = {}
        for coef, d in terms:
            if isinstance(d, Linear):
                for c2, d2 in d.terms:
                    _add(merged, Fraction(coef) * c2, d2)
            else:
                _add(merged, Fraction(coef), d)
        self.terms = tuple((c, d) for c, d in merged.values() if c != 0)
        self.kind = "closed" if all(d.kind != "numeric" for _, d in self.terms) else "numeric"
        self.integral = any(d.integral for _, d in self.terms)
        self.name = "identity"

    def key(self) -> tuple:
        return ("linear", frozenset((d.key(), c) for c, d in self.terms))

    def exact(self, point):
        return sp.Integer(0) if not self.terms else None

    def exact_fallback(self, point):
        total = sp.Integer(0)
        for c, d in self.terms:
            e = d.exact(point)
            if e is None:
                e = d.exact_fallback(point)
            if e is None or not e.is_finite:
                return None
            total += sp.Rational(c.numerator, c.denominator) * e
        return total

    def ball(self, point, bits: int) -> arb:
        total = arb(0)
        with flint_precision(bits):
            for c, d in self.terms:
                total += (arb(c.numerator) / c.denominator) * ball_of(d, point, bits)
        return total


def _add(merged: dict, coef: Fraction, d: Derivation) -> None:
    key = d.key()
    if key in merged:
        merged[key] = (merged[key][0] + coef, merged[key][1])
    else:
        merged[key] = (coef, d)


def ball_of(d: Derivation, point, bits: int) -> arb:
    """``d.ball(point, bits)``, kept by the point (a term read by several identities is
    evaluated once per precision)."""
    key = (d.key(), bits)
    hit = point.memo.get(key)
    if hit is None:
        exact = d.exact(point)
        if exact is not None and exact.is_finite:
            with flint_precision(bits):
                hit = compile_expr(exact, ())()
        else:
            hit = d.ball(point, bits)
        point.memo[key] = hit
    return hit


# ----- recognisers of closed forms ----------------------------------------------------------------


def _skew_normal(expr, reason, scenario):
    from fstheory.theory.skew_normal import skew_normal_argument

    mu = skew_normal_argument(expr)
    if mu is None:
        return None
    return SkewNormalExpectation(expr, mu, reason)


def _uniform_series(expr, reason, scenario):
    from fstheory.theory.uniform_class import WHICH, mi_class_expression

    for k in expr.free_symbols:
        for which in WHICH:
            if sp.expand(expr - mi_class_expression(which, k)) == 0:
                return UniformClassSeries(expr, which, k, reason)
    return None


#: recognisers turning a closed form into its specialised kind (first match wins)
CLOSED_FORM_KINDS = [_skew_normal, _uniform_series]


def closed_kind(expr, reason: str, scenario=None) -> ClosedForm:
    """The typed derivation of the closed form ``expr``."""
    expr = sp.sympify(expr)
    for recognise in CLOSED_FORM_KINDS:
        found = recognise(expr, reason, scenario)
        if found is not None:
            return found
    return ClosedForm(expr, reason)
