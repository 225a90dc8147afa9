r"""Proved digits: a derivation's value at a point, to the requested significant digits, or a
refusal with the reason.

Ziv's strategy. The derivation's ball is computed with ``bits_for(digits + GUARD_DIGITS)`` bits;
while the ball does not prove the digits -- the value printed with ``digits`` significant
digits must lie within one unit in its last place of every number in the ball
(:func:`fstheory.theory.extended.proved_digits`) -- the working precision is doubled, up to a
budget that depends on the kind only (the same on every machine):

==========================  =====================================================
elementary closed forms     up to 2^7 times the first precision (cancellation of
                            about 400 digits at 30 digits asked)
integrals (arb quadrature)  up to 4 times (arb's quadrature grows as about bits^2)
the numerical route         up to 2 times (its own work budget of integrand
                            evaluations applies at each)
==========================  =====================================================

Exact values never come from a ball: a value is exactly 0, +inf or -inf only by structure
(:class:`~fstheory.engine.kinds.Structural`) or an exact sympy evaluation of the closed form at
the point (tried once, when a ball cannot tell the value from 0 or is not finite: limits at the
ends of a parameter's range, ``h(X) = ln(2 delta) = 0`` at delta = 1/2). A ball that holds 0
until the budget is spent is "not computed: indistinguishable from 0".

A value the numerical route gives without a proved error bound is an *estimate*: it is returned
as "not computed" carrying the estimate (:meth:`fstheory.theory.extended.ExtendedReal.estimated`),
shown marked as such and never ranked on.

Invariants are checked on every proved value (MI >= 0, MI(C, V) <= H(C) <= ln 2 for the binary
class, ...): a ball entirely outside an invariant's range is a bug, reported as
:class:`InvariantViolation` (an internal error), never printed.

Examples
--------
>>> import sympy as sp
>>> from fstheory.scenarios.registry import get_scenario
>>> from fstheory.engine.point import Point
>>> from fstheory.engine.kinds import ClosedForm
>>> p = Point(get_scenario("uniform").bind(k="1e-60"))
>>> k = sp.Symbol("k", nonnegative=True)
>>> cancel = ClosedForm(((k**2 + 1) * sp.log((1 + k) / (1 - k)) + 2 * k * (sp.log(1 - k**2) - 1)) / (4 * k))
>>> v, how = prove(cancel, p, 12, "MI(C,Y)", MI)
>>> v.text(12), how
('1.66666666667e-121', 'closed form, proved at 640 bits')
"""

from __future__ import annotations

import mpmath
import sympy as sp
from flint import arb

from fstheory.engine.kinds import Derivation, Exact, Linear, NotProved, Numerical, ball_of
from fstheory.engine.point import Point, bits_for
from fstheory.theory import numeric
from fstheory.theory.arbexpr import NoEnclosure
from fstheory.theory.budget import DEFAULT_SECONDS, SymbolicTimeout, symbolic_budget
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, proved_digits, xr
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.symbolic import GUARD_DIGITS, is_exact_zero

__all__ = ["prove", "InvariantViolation", "not_computed", "MI", "MI_CLASS", "CLASS_ENTROPY",
           "ENTROPY", "ball_value", "DOUBLINGS"]

#: doublings of the working precision allowed per kind of derivation
DOUBLINGS = {"elementary": 7, "integral": 2, "numeric": 1}


class InvariantViolation(RuntimeError):
    """A proved value outside the range the mathematics allows: a bug in fstheory."""


# ----- invariants: (name, lower bound, upper bound) as functions of the working precision ------------

ENTROPY = ("a differential entropy", None, None)
MI = ("an MI", lambda: arb(0), None)
MI_CLASS = ("an MI with the binary class", lambda: arb(0), lambda: arb(2).log())
CLASS_ENTROPY = ("the entropy of the binary class", lambda: arb(0), lambda: arb(2).log())


def _check(ball: arb, invariant, label: str) -> None:
    what, lo, hi = invariant
    if lo is not None and ball.upper() < lo():
        raise InvariantViolation(f"{label} = {ball.str(10)} is below {lo().str(6)}, the least "
                                 f"value of {what}")
    if hi is not None and ball.lower() > hi():
        raise InvariantViolation(f"{label} = {ball.str(10)} is above {hi().str(6)}, the largest "
                                 f"value of {what}")


def _check_exact(value, invariant, label: str) -> None:
    what, lo, hi = invariant
    if (value == -sp.oo and lo is not None) or (value == sp.oo and hi is not None):
        raise InvariantViolation(f"{label} = {value}, outside the range of {what}")


def not_computed(label: str, why: str) -> ExtendedReal:
    """The "not computed" value of ``label`` (cause ``"<label> not computed: why"``)."""
    return ExtendedReal.indeterminate(Form.NOT_COMPUTED, f"{label} not computed: {why}", label)


def _mpf(x: arb) -> mpmath.mpf:
    """An exact arb (a midpoint or a radius) as an mpf, exactly."""
    man, exp = x.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def ball_value(ball: arb, label: str | None = None) -> ExtendedReal:
    """A finite ball as an extended real with its radius."""
    return ExtendedReal.finite(_mpf(ball.mid()), label, radius=_mpf(arb(ball.rad())))


def _proves(ball: arb, digits: int) -> bool:
    if not ball.is_finite() or ball.contains(0):
        return False
    return proved_digits(_mpf(ball.mid()), _mpf(arb(ball.rad())), digits) == digits


def _budget(d: Derivation) -> int:
    """Doublings of the working precision allowed for ``d``: the least of its terms'."""
    if isinstance(d, Linear):
        return min((_budget(t) for _, t in d.terms), default=DOUBLINGS["elementary"])
    if isinstance(d, Numerical):
        return DOUBLINGS["numeric"]
    return DOUBLINGS["integral" if d.integral else "elementary"]


def _exact_fallback(d: Derivation, point: Point):
    try:
        with symbolic_budget(DEFAULT_SECONDS, f"the exact value of {d.name}"):
            ex = d.exact_fallback(point)
            if ex is None:
                return None
            ex = sp.sympify(ex)
            if ex in (sp.oo, -sp.oo):
                return ex
            if is_exact_zero(ex):
                return sp.Integer(0)
            return ex
    except (SymbolicTimeout, ArithmeticError, NotImplementedError):
        return None


def _exact_result(value, label: str, invariant, how: str) -> tuple[ExtendedReal, str]:
    _check_exact(value, invariant, label)
    if value == sp.oo:
        return POS_INF.named(label), how
    if value == -sp.oo:
        return NEG_INF.named(label), how
    return xr(0, label), how


def prove(d: Derivation, point: Point, digits: int, label: str,
          invariant=ENTROPY) -> tuple[ExtendedReal, str]:
    """(value, how) of the derivation ``d`` at ``point`` with ``digits`` significant digits
    proved (module docstring); ``label`` names the quantity ("MI(C,X)") in values and causes;
    ``invariant`` is one of :data:`ENTROPY`, :data:`MI`, :data:`MI_CLASS`,
    :data:`CLASS_ENTROPY`."""
    exact = d.exact(point)
    if exact is not None and (exact.is_infinite or exact == 0):
        return _exact_result(exact, label, invariant, d.reason)
    first = bits_for(digits + GUARD_DIGITS)
    cap = first << _budget(d)
    bits, tried_exact, ball = first, False, None
    current = d
    while True:
        try:
            ball = ball_of(current, point, bits)
        except NotProved as est:
            return _estimate(est, digits, label, d.reason)
        except (NoEnclosure, numeric.NumericUnsupported, SymbolicTimeout, ArithmeticError) as exc:
            return not_computed(label, _refusal(d, exc)), f"not computed: {exc}"
        if _proves(ball, digits):
            with flint_precision(bits):
                _check(ball, invariant, label)
            how = d.reason if bits == first else f"{d.reason}, proved at {bits} bits"
            if not d.reason:
                how = f"{d.name}, proved at {bits} bits"
            return ball_value(ball, label), how
        if not tried_exact and (not ball.is_finite() or ball.contains(0)):
            tried_exact = True
            ex = _exact_fallback(current, point)
            if ex is not None:
                if ex in (sp.oo, -sp.oo) or ex == 0:
                    return _exact_result(ex, label, invariant, f"{d.reason}; exactly {ex}"
                                         if ex == 0 else d.reason)
                if ex != current.expr:
                    current = Exact(ex, d.reason)
                    continue
        if bits >= cap:
            break
        bits *= 2
    return not_computed(label, _unproved(ball, digits, bits)), "not computed"


def _refusal(d: Derivation, exc: Exception) -> str:
    if d.name == "numerical route":
        return f"the numerical route cannot compute it ({exc})"
    return f"{d.name}: {exc}"


def _unproved(ball: arb, digits: int, bits: int) -> str:
    if ball is None or not ball.is_finite():
        return f"no finite enclosure within the precision budget ({bits} bits)"
    if ball.contains(0):
        return (f"indistinguishable from 0 at the working precision (|value| <= "
                f"{arb(abs(ball).upper()).str(2, radius=False)} at {bits} bits) and no "
                "structural reason for an exact 0 was found")
    shown = proved_digits(_mpf(ball.mid()), _mpf(arb(ball.rad())), digits)
    return (f"only {shown} of {digits} significant digits proved within the precision budget "
            f"({bits} bits)")


def _number(x, upper: bool = False) -> mpmath.mpf:
    """A number of the numerical route as an mpf without rounding it (an arb: its midpoint, or
    its upper end of |x| for an error)."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, arb):
        return _mpf(arb(abs(x).upper())) if upper else _mpf(x.mid())
    with mpmath.workdps(60):
        return mpmath.mpf(x)


def _estimate(est: NotProved, digits: int, label: str, reason: str) -> tuple[ExtendedReal, str]:
    value, error = _number(est.value), abs(_number(est.error, upper=True))
    if not (mpmath.isfinite(error) and error < 1):
        why = (f"the error estimate {mpmath.nstr(error, 2)} leaves no correct digit (the rule or "
               "a feature may be badly scaled)")
        return not_computed(label, why), f"not computed: {why}"
    if abs(value) <= error:
        why = (f"indistinguishable from 0 (|value| <= {mpmath.nstr(error, 2)}, an estimate) and "
               "no structural reason for an exact 0 was found")
        return not_computed(label, why), f"not computed: {why}"
    shown = proved_digits(value, error, digits)
    if shown < digits:
        why = f"only about {shown} correct digits reached, by an estimate ({est.how})"
        return not_computed(label, why), f"not computed: {why}"
    why = (f"not proved, only an estimate (error estimate {mpmath.nstr(error, 2)}, not a bound; "
           f"{est.how})")
    cause = f"{label} not computed: {why}"
    return ExtendedReal.estimated(value, error, cause, label), f"{reason}: estimate ({est.how})"
