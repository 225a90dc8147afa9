"""Extended real numbers that keep +inf, -inf and name every indeterminate form.

The objectives of the paper's methods (Table "Objective functions", Section 4) are evaluated on
values that include MI = +inf (a feature and a measurable function of it, Section 6), exact zeros
(independent features, h(X) = ln(2*delta) = 0 at delta = 1/2) and negative differential entropies.
IEEE floats turn 0/0, 0*inf, inf-inf and inf/inf into one anonymous NaN; here each becomes an
:class:`ExtendedReal` of kind ``INDETERMINATE`` that records its :class:`Form` and the operation
that produced it, and propagates unchanged (first cause kept) through later arithmetic.

Rules (the extended real line, with one named convention):

==================  ===========================================================
``a + b``           finite sums as usual; inf + finite = inf; inf + inf = inf;
                    +inf + (-inf) -> indeterminate ``inf-inf``
``a * b``           0 * (+-inf) -> indeterminate ``0*inf``; otherwise sign rules
``a / b``           0/0 -> ``0/0``; (+-inf)/(+-inf) -> ``inf/inf``;
                    finite/(+-inf) = 0; x/0 for x != 0 -> :data:`DIVISION_BY_ZERO`
==================  ===========================================================

Finite values are :class:`mpmath.mpf`; their precision is the caller's ``mpmath.workdps``
context. Zero is unsigned: an exact zero (e.g. ``ln(1)``) has no sign, which is why division by it
needs the convention below.

Enclosures. A finite value carries a rigorous ``radius``: the true number lies in
``[value - radius, value + radius]`` (:meth:`ExtendedReal.enclosure`). A value the engine proved
by ball arithmetic has the radius of its ball; an exact value (an exact 0, a dyadic rational such
as 1/2, a constant given exactly) has radius 0; +-inf have radius 0. Arithmetic carries the
radii (and the rounding of each operation) forward, so a difference of two close values knows
how many of its digits are proved, and :meth:`ExtendedReal.text` prints only those: never a
digit that is not proved (|printed - true| < one unit in the last printed place).

Estimates. A value that the engine computed without a rigorous bound (a numerical integral whose
error is only estimated) is not a finite value: it is ``not computed`` (an ordering never ranks
past it), and carries the estimate and its error estimate in ``estimate`` for display
(:attr:`ExtendedReal.is_estimate`).

Examples
--------
>>> from fstheory.theory.extended import xr, POS_INF
>>> h = xr(0, "h(X)")
>>> mi = xr("0.5", "MI(X,X-Y)")
>>> (mi / h).is_pos_inf
True
>>> q = xr(0, "MI(Y,X)") / h
>>> q.form.value, q.cause
('0/0', 'MI(Y,X)/h(X) with MI(Y,X) = 0, h(X) = 0')
>>> (q + POS_INF).form.value      # the first cause is kept
'0/0'
"""

from __future__ import annotations

import decimal
import enum
import functools
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

import mpmath
from mpmath import libmp as _libmp

__all__ = [
    "Form",
    "Kind",
    "ExtendedReal",
    "xr",
    "POS_INF",
    "NEG_INF",
    "ZERO",
    "DIVISION_BY_ZERO",
    "xsum",
    "xmax",
    "xmin",
    "xmean",
    "IndeterminateComparison",
    "Enclosure",
    "proved_digits",
]


class Form(enum.Enum):
    """The four indeterminate forms of extended-real arithmetic, and one more kind of unknown.

    ``NOT_COMPUTED`` is not produced by arithmetic: it marks an input the engine could not compute
    reliably (a quantity outside the numerical route's reach in a user's scenario). It behaves
    like an indeterminate -- it propagates with its cause and can never be ordered or chosen -- so
    that no ordering silently uses a guessed value.
    """

    ZERO_OVER_ZERO = "0/0"
    ZERO_TIMES_INF = "0*inf"
    INF_MINUS_INF = "inf-inf"
    INF_OVER_INF = "inf/inf"
    NOT_COMPUTED = "not computed"


class Kind(enum.Enum):
    FINITE = "finite"
    POS_INF = "+inf"
    NEG_INF = "-inf"
    INDETERMINATE = "indeterminate"


#: Convention for ``x / 0`` with ``x`` nonzero (finite or infinite) and an exact zero divisor:
#: the result is an infinity with the sign of ``x``. This is how the paper reads
#: ``MI(C, Vs) / h(Vs)`` when ``h(Vs) = 0`` (Section 7: "this quotient is ... +inf, for fully
#: associated features"). It is the one place the convention is made; the alternative reading
#: (treat ``x/0`` as undefined) would make every such objective indeterminate.
DIVISION_BY_ZERO = "signed-infinity"


class IndeterminateComparison(ValueError):
    """Raised when an indeterminate value is ordered against another value."""


def _to_mpf(v) -> mpmath.mpf:
    if isinstance(v, mpmath.mpf):
        return v
    if isinstance(v, bool):
        raise TypeError("booleans are not extended reals")
    if isinstance(v, numbers.Integral):
        return mpmath.mpf(int(v))
    if isinstance(v, float):
        return mpmath.mpf(v)
    if isinstance(v, str):
        return mpmath.mpf(v)
    if isinstance(v, numbers.Rational):  # fractions.Fraction
        return mpmath.mpf(v.numerator) / v.denominator
    # sympy numbers and anything else exposing an exact evaluation at the current precision
    evalf = getattr(v, "evalf", None)
    if evalf is not None:
        return mpmath.mpf(evalf(mpmath.mp.dps + 5))
    raise TypeError(f"cannot make an extended real from {v!r}")


@dataclass(frozen=True)
class Enclosure:
    """A proved enclosure of a determinate value: the true number is in
    ``[mid - radius, mid + radius]`` (radius 0: exact; +-inf have radius 0)."""

    mid: mpmath.mpf
    radius: mpmath.mpf

    @property
    def lower(self) -> mpmath.mpf:
        return self.mid - self.radius if self.radius else self.mid

    @property
    def upper(self) -> mpmath.mpf:
        return self.mid + self.radius if self.radius else self.mid

    @property
    def exact(self) -> bool:
        return not self.radius


@dataclass(frozen=True, eq=False)
class ExtendedReal:
    """A point of the extended real line, or a named indeterminate.

    Parameters
    ----------
    kind : Kind
    value : mpmath.mpf or None
        The value when ``kind`` is ``FINITE``.
    form : Form or None
        The indeterminate form when ``kind`` is ``INDETERMINATE``.
    cause : str or None
        For an indeterminate, the operation that produced it, with its operands.
    label : str or None
        An optional name ("h(X)", "MI(C,X)") used to describe operations in causes.
    radius : mpmath.mpf or None
        For a finite value: a rigorous bound of |true - value| (None or 0: exact). The result of
        an operation computes it on first use (an ordering compares values and reads few radii).
    estimate : tuple or None
        For a value not computed because only an estimate is known: (estimate, error
        estimate), both mpf, shown by the ``values`` output but never used as a value.
    """

    kind: Kind
    value: mpmath.mpf | None = None
    form: Form | None = None
    cause: str | None = None
    label: str | None = None
    _radius: object = None  # an mpf, None (exact), or (a, b, op, prec) until first read
    estimate: tuple | None = None

    @property
    def radius(self) -> mpmath.mpf | None:
        r = self._radius
        if type(r) is tuple:
            r = _radius(*r, self.value)
            object.__setattr__(self, "_radius", r)
        return r

    # ----- construction -------------------------------------------------------------------------
    @staticmethod
    def finite(v, label: str | None = None, radius=None) -> "ExtendedReal":
        """A finite value; ``radius`` a rigorous bound of its error (None: exact)."""
        r = _to_mpf(radius) if radius is not None else None
        return ExtendedReal(Kind.FINITE, _to_mpf(v), label=label, _radius=r or None)

    @staticmethod
    def indeterminate(form: Form, cause: str, label: str | None = None) -> "ExtendedReal":
        return ExtendedReal(Kind.INDETERMINATE, form=form, cause=cause, label=label)

    @staticmethod
    def estimated(value, error, cause: str, label: str | None = None) -> "ExtendedReal":
        """Not computed, with an estimate and its (not rigorous) error estimate for display."""
        return ExtendedReal(Kind.INDETERMINATE, form=Form.NOT_COMPUTED, cause=cause, label=label,
                            estimate=(_to_mpf(value), _to_mpf(error)))

    def named(self, label: str | None) -> "ExtendedReal":
        """The same value carrying another label."""
        return ExtendedReal(self.kind, self.value, self.form, self.cause, label, self._radius,
                            self.estimate)

    # ----- predicates ---------------------------------------------------------------------------
    @property
    def is_finite(self) -> bool:
        return self.kind is Kind.FINITE

    @property
    def is_pos_inf(self) -> bool:
        return self.kind is Kind.POS_INF

    @property
    def is_neg_inf(self) -> bool:
        return self.kind is Kind.NEG_INF

    @property
    def is_infinite(self) -> bool:
        return self.kind in (Kind.POS_INF, Kind.NEG_INF)

    @property
    def is_indeterminate(self) -> bool:
        return self.kind is Kind.INDETERMINATE

    @property
    def is_determinate(self) -> bool:
        return self.kind is not Kind.INDETERMINATE

    @property
    def is_zero(self) -> bool:
        return self.kind is Kind.FINITE and self.value == 0

    @property
    def is_estimate(self) -> bool:
        """Not computed, but with an estimate (:attr:`estimate`) that is not proved."""
        return self.estimate is not None

    def enclosure(self) -> Enclosure:
        """The proved enclosure of a determinate value: ``Enclosure(mid, radius)``, the true
        number in [mid - radius, mid + radius]; radius 0 for an exact value and for +-inf.

        Raises
        ------
        ValueError
            For an indeterminate or not-computed value (an estimate included), naming its cause.

        Examples
        --------
        >>> xr("0.5").enclosure()
        Enclosure(mid=mpf('0.5'), radius=mpf('0.0'))
        >>> e = (xr(1) / xr(3)).enclosure()
        >>> e.radius < mpmath.mpf(10) ** -14, e.exact
        (True, False)
        """
        if self.kind is Kind.INDETERMINATE:
            raise ValueError(f"no enclosure: {self.form.value} ({self.cause})")
        if self.kind is Kind.FINITE:
            return Enclosure(self.value, self.radius or mpmath.mpf(0))
        return Enclosure(mpmath.inf if self.kind is Kind.POS_INF else -mpmath.inf, mpmath.mpf(0))

    def sign(self) -> int:
        """-1, 0 or +1 (raises for an indeterminate)."""
        if self.kind is Kind.POS_INF:
            return 1
        if self.kind is Kind.NEG_INF:
            return -1
        if self.kind is Kind.FINITE:
            return (self.value > 0) - (self.value < 0)
        raise IndeterminateComparison(f"the sign of an indeterminate ({self.form.value}) is undefined")

    # ----- description --------------------------------------------------------------------------
    def text(self, digits: int = 6) -> str:
        """'+inf', '-inf', the form ('0/0', ...) or the value with ``digits`` significant digits,
        fewer when fewer are proved by its radius (none proved: ``0 +/- b`` with |x| <= b);
        ``digits`` an integer in [1, 100] (else a :class:`fstheory.errors.UserInputError` naming it)."""
        if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) \
                or not 1 <= digits <= 100:
            from fstheory.errors import UserInputError

            raise UserInputError(f"parameter 'digits' must be an integer in [1, 100] (got {digits!r})")
        digits = int(digits)
        if self.kind is Kind.FINITE:
            if not self.radius:
                return format_value(self.value, digits)
            shown = proved_digits(self.value, self.radius, digits)
            if shown == 0:
                with mpmath.workdps(15):
                    bound = abs(self.value) + self.radius
                    return f"0 +/- {mpmath.nstr(bound * (1 + mpmath.mpf(2) ** -40), 2)}"
            return format_value(self.value, shown)
        if self.kind is Kind.INDETERMINATE:
            return self.form.value
        return self.kind.value

    def _describe(self) -> str:
        return self.label if self.label is not None else self.text()

    def _describe_with_value(self) -> str:
        if self.label is None:
            return self.text()
        return f"{self.label} = {self.text()}"

    def __repr__(self) -> str:
        core = self.text(12)
        if self.kind is Kind.INDETERMINATE:
            core += f" [{self.cause}]"
        return f"ExtendedReal({core}{', ' + self.label if self.label else ''})"

    __str__ = text

    def __float__(self) -> float:
        """The nearest float: a finite value rounded, +-inf as ``float("inf")``, never NaN.

        Raises
        ------
        ValueError
            For an indeterminate or not-computed value, naming its form and cause.
        OverflowError
            For a finite value beyond the float range.

        Examples
        --------
        >>> float(xr("0.5")), float(POS_INF), float(NEG_INF)
        (0.5, inf, -inf)
        >>> float(xr(0, "MI(Y,X)") / xr(0, "h(X)"))
        Traceback (most recent call last):
        ...
        ValueError: no float value: 0/0 (MI(Y,X)/h(X) with MI(Y,X) = 0, h(X) = 0)
        """
        if self.kind is Kind.POS_INF:
            return float("inf")
        if self.kind is Kind.NEG_INF:
            return float("-inf")
        if self.kind is Kind.INDETERMINATE:
            raise ValueError(f"no float value: {self.form.value} ({self.cause})")
        x = float(self.value)
        if x in (float("inf"), float("-inf")):
            raise OverflowError(f"{self.text(6)} is beyond the float range")
        return x

    # ----- arithmetic ---------------------------------------------------------------------------
    def __neg__(self) -> "ExtendedReal":
        label = f"-{_wrap(self.label, '*')}" if self.label else None
        if self.kind is Kind.FINITE:
            # exact: ``-value`` would round to the working precision without a radius for it
            return ExtendedReal(Kind.FINITE, mpmath.mp.make_mpf(_libmp.mpf_neg(self.value._mpf_)),
                                label=label, _radius=self._radius)
        if self.kind is Kind.POS_INF:
            return ExtendedReal(Kind.NEG_INF, label=label)
        if self.kind is Kind.NEG_INF:
            return ExtendedReal(Kind.POS_INF, label=label)
        return self

    def __add__(self, other) -> "ExtendedReal":
        return _binary(self, xr(other), "+")

    def __radd__(self, other) -> "ExtendedReal":
        return _binary(xr(other), self, "+")

    def __sub__(self, other) -> "ExtendedReal":
        return _binary(self, xr(other), "-")

    def __rsub__(self, other) -> "ExtendedReal":
        return _binary(xr(other), self, "-")

    def __mul__(self, other) -> "ExtendedReal":
        return _binary(self, xr(other), "*")

    def __rmul__(self, other) -> "ExtendedReal":
        return _binary(xr(other), self, "*")

    def __truediv__(self, other) -> "ExtendedReal":
        return _binary(self, xr(other), "/")

    def __rtruediv__(self, other) -> "ExtendedReal":
        return _binary(xr(other), self, "/")

    # ----- order --------------------------------------------------------------------------------
    def _key(self) -> tuple:
        if self.kind is Kind.INDETERMINATE:
            raise IndeterminateComparison(
                f"cannot order an indeterminate value ({self.form.value}: {self.cause})"
            )
        if self.kind is Kind.NEG_INF:
            return (-1, 0)
        if self.kind is Kind.POS_INF:
            return (1, 0)
        return (0, self.value)

    def __lt__(self, other) -> bool:
        return self._key() < xr(other)._key()

    def __le__(self, other) -> bool:
        return self._key() <= xr(other)._key()

    def __gt__(self, other) -> bool:
        return self._key() > xr(other)._key()

    def __ge__(self, other) -> bool:
        return self._key() >= xr(other)._key()

    def same(self, other) -> bool:
        """Structural equality: same kind and value, or same indeterminate form."""
        other = xr(other)
        if self.kind is not other.kind:
            return False
        if self.kind is Kind.FINITE:
            return self.value == other.value
        if self.kind is Kind.INDETERMINATE:
            return self.form is other.form
        return True

    def __eq__(self, other) -> bool:
        try:
            return self.same(other)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        if self.kind is Kind.FINITE:
            return hash((self.kind, self.value))
        return hash((self.kind, self.form))


def xr(v, label: str | None = None) -> ExtendedReal:
    """Make an extended real from a number (or return an extended real, relabelled if asked)."""
    if isinstance(v, ExtendedReal):
        return v if label is None else v.named(label)
    if isinstance(v, float) and v != v:
        raise ValueError("NaN is not an extended real; use an explicit indeterminate form")
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return ExtendedReal(Kind.POS_INF if v > 0 else Kind.NEG_INF, label=label)
    if isinstance(v, mpmath.mpf) and mpmath.isinf(v):
        return ExtendedReal(Kind.POS_INF if v > 0 else Kind.NEG_INF, label=label)
    if isinstance(v, mpmath.mpf) and mpmath.isnan(v):
        raise ValueError("NaN is not an extended real; use an explicit indeterminate form")
    return ExtendedReal.finite(v, label)


POS_INF = ExtendedReal(Kind.POS_INF)
NEG_INF = ExtendedReal(Kind.NEG_INF)
ZERO = ExtendedReal(Kind.FINITE, mpmath.mpf(0))


def _top_level(label: str) -> str:
    """'add' if the label is a sum/difference at parenthesis depth 0 (" + ", " - " as composed
    by :func:`_label`), 'mul' if a product/quotient at depth 0, else 'atom' ("MI(C,X-Y)", "beta",
    "-h(X)"). Feature names inside MI(...)/h(...) sit at depth 1 and do not count."""
    depth, kind = 0, "atom"
    for pos, ch in enumerate(label):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in "+-" and label[pos - 1 : pos] == " " and label[pos + 1 : pos + 2] == " ":
            return "add"
        elif depth == 0 and ch in "*/":
            kind = "mul"
    return kind


def _wrap(label: str, op: str, right: bool = False) -> str:
    """Parenthesise an operand label so that the composed label shows the grouping actually
    evaluated (e.g. ``MI(C,X)*(MI(Y,X)/h(X))`` versus ``MI(C,X)/h(X)*MI(Y,X)``), which is what
    an indeterminate's cause must name."""
    top = _top_level(label)
    if op in "*/" and top == "add":
        return f"({label})"
    if op in "*/" and right and top == "mul":
        return f"({label})"
    if op == "-" and right and top == "add":
        return f"({label})"
    return label


def _label(a: ExtendedReal, b: ExtendedReal, op: str) -> str | None:
    if a.label is None or b.label is None:
        return None
    left, right = _wrap(a.label, op), _wrap(b.label, op, right=True)
    return f"{left}{op}{right}" if op in "*/" else f"{left} {op} {right}"


def _indeterminate(form: Form, a: ExtendedReal, b: ExtendedReal, op: str) -> ExtendedReal:
    expr = _label(a, b, op)
    if expr is None:
        expr = f"{_wrap(a._describe(), op)} {op} {_wrap(b._describe(), op, right=True)}"
    cause = f"{expr} with {a._describe_with_value()}, {b._describe_with_value()}"
    return ExtendedReal.indeterminate(form, cause, label=_label(a, b, op))


def _inf(sign: int, label: str | None) -> ExtendedReal:
    return ExtendedReal(Kind.POS_INF if sign > 0 else Kind.NEG_INF, label=label)


def _binary(a: ExtendedReal, b: ExtendedReal, op: str) -> ExtendedReal:
    if a.kind is Kind.INDETERMINATE:
        return a.named(_label(a, b, op))
    if b.kind is Kind.INDETERMINATE:
        return b.named(_label(a, b, op))
    label = _label(a, b, op)
    if op == "-":
        if a.is_infinite and b.is_infinite and a.kind is b.kind:
            return _indeterminate(Form.INF_MINUS_INF, a, b, op)
        return _binary(a, -b, "+").named(label)
    if op == "+":
        if a.is_infinite and b.is_infinite and a.kind is not b.kind:
            return _indeterminate(Form.INF_MINUS_INF, a, b, op)
        if a.is_infinite:
            return a.named(label)
        if b.is_infinite:
            return b.named(label)
        v = a.value + b.value
        return ExtendedReal(Kind.FINITE, v, label=label,
                            _radius=(a, b, "+", mpmath.mp.prec))
    if op == "*":
        if (a.is_infinite and b.is_zero) or (a.is_zero and b.is_infinite):
            return _indeterminate(Form.ZERO_TIMES_INF, a, b, op)
        if a.is_infinite or b.is_infinite:
            return _inf(a.sign() * b.sign(), label)
        v = a.value * b.value
        return ExtendedReal(Kind.FINITE, v, label=label,
                            _radius=(a, b, "*", mpmath.mp.prec))
    if op == "/":
        if a.is_zero and b.is_zero:
            return _indeterminate(Form.ZERO_OVER_ZERO, a, b, op)
        if a.is_infinite and b.is_infinite:
            return _indeterminate(Form.INF_OVER_INF, a, b, op)
        if b.is_zero:  # the DIVISION_BY_ZERO convention: x/0 = sign(x) * inf
            return _inf(a.sign(), label)
        if b.is_infinite:
            return ExtendedReal(Kind.FINITE, mpmath.mpf(0), label=label)
        if a.is_infinite:
            return _inf(a.sign() * b.sign(), label)
        v = a.value / b.value
        return ExtendedReal(Kind.FINITE, v, label=label,
                            _radius=(a, b, "/", mpmath.mp.prec))
    raise ValueError(f"unknown operation {op!r}")


def _radius(a: ExtendedReal, b: ExtendedReal, op: str, prec: int, v: mpmath.mpf):
    """A rigorous bound of |true - v| for ``v = a op b`` computed in mpf at ``prec`` bits: the
    operands' radii carried through the operation, plus the rounding of ``v``, all enlarged by
    (1 + 2^(4 - prec)) for the rounding of this bound's own few operations (done at ``prec``
    bits too). None when both operands are exact and so is ``v`` (the exact operation is checked
    only then)."""
    ra, rb = a.radius, b.radius
    rounding, grow = _rounding(prec)
    with mpmath.workprec(prec):
        if ra is None and rb is None:
            x, y = a.value._mpf_, b.value._mpf_
            if op == "+":
                exact = _libmp.mpf_add(x, y, 0) == v._mpf_
            elif op == "*":
                exact = _libmp.mpf_mul(x, y, 0) == v._mpf_
            else:
                exact = _libmp.mpf_mul(v._mpf_, y, 0) == x
            return None if exact else abs(v) * rounding * grow
        ra, rb = ra or 0, rb or 0
        if op == "+":
            spread = ra + rb
        elif op == "*":
            spread = abs(a.value) * rb + abs(b.value) * ra + ra * rb
        else:
            ay = abs(b.value)
            if rb and rb * 2 > ay:
                return mpmath.inf
            spread = (abs(a.value) * rb + ay * ra) / (ay * (ay - rb))
        return (spread + abs(v) * rounding) * grow  # v's rounding, whether or not it happened


@functools.lru_cache(maxsize=64)
def _rounding(prec: int) -> tuple:
    """(2^(1 - prec), 1 + 2^(4 - prec)): the relative rounding of one operation at ``prec`` bits,
    and the enlargement covering the rounding of a bound's own operations."""
    return mpmath.ldexp(1, 1 - prec), 1 + mpmath.ldexp(1, 4 - prec)


def proved_digits(value: mpmath.mpf, radius: mpmath.mpf, digits: int) -> int:
    """The largest d <= ``digits`` such that ``value`` printed with d significant digits is within
    one unit in its last place of every number in [value - radius, value + radius] (0 if none).

    >>> proved_digits(mpmath.mpf("0.123456"), mpmath.mpf("1e-4"), 6)
    3
    >>> proved_digits(mpmath.mpf(1) / 3, mpmath.mpf(0), 30)
    30
    """
    if not radius:
        return digits
    if not mpmath.isfinite(radius) or value == 0 or radius >= abs(value):
        return 0
    with mpmath.workdps(20):
        quick = abs(value) * mpmath.mpf(10) ** -(digits + 1)
    if radius <= quick * (1 - mpmath.mpf(2) ** -50):  # |printed - value| <= ulp/2, radius <= ulp/10
        return digits
    m, r = _fraction(value), _fraction(radius)
    for d in range(digits, 0, -1):
        printed = decimal.Decimal(format_value(value, d))
        ulp = Fraction(10) ** (printed.adjusted() - d + 1)
        if abs(Fraction(printed) - m) + r < ulp:
            return d
    return 0


def _fraction(x: mpmath.mpf) -> Fraction:
    sign, man, exp, _ = x._mpf_
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q


def xsum(values: Iterable, label: str | None = None) -> ExtendedReal:
    """Sum over a set (empty sum = 0); the first indeterminate met is returned."""
    total = None
    for v in values:
        total = xr(v) if total is None else total + v
    if total is None:
        return ExtendedReal(Kind.FINITE, mpmath.mpf(0), label=label)
    return total.named(label) if label else total


def _extreme(values: Iterable, pick_max: bool, label: str | None) -> ExtendedReal:
    best = None
    for v in map(xr, values):
        if v.is_indeterminate:
            return v.named(label) if label else v
        if best is None or (v > best if pick_max else v < best):
            best = v
    if best is None:
        raise ValueError(f"{'max' if pick_max else 'min'} over an empty set")
    return best.named(label) if label else best


def xmax(values: Iterable, label: str | None = None) -> ExtendedReal:
    """Maximum over a non-empty set; an indeterminate member makes the maximum indeterminate."""
    return _extreme(values, True, label)


def xmin(values: Iterable, label: str | None = None) -> ExtendedReal:
    """Minimum over a non-empty set; an indeterminate member makes the minimum indeterminate."""
    return _extreme(values, False, label)


def xmean(values: Iterable, label: str | None = None) -> ExtendedReal:
    """Mean over a non-empty set: ``xsum(values) / |set|`` (labelled "(a + b)/2" unless named)."""
    values = list(values)
    if not values:
        raise ValueError("mean over an empty set")
    mean = xsum(values) / ExtendedReal.finite(len(values), str(len(values)))
    return mean.named(label) if label else mean


def format_value(v, digits: int) -> str:
    """A finite value as a decimal string with ``digits`` significant digits ('0' for zero)."""
    with mpmath.workdps(digits + 10):
        if not isinstance(v, mpmath.mpf):
            v = mpmath.mpf(v)
        if v == 0:
            return "0"
        return mpmath.nstr(v, digits, strip_zeros=False, min_fixed=-6, max_fixed=digits + 2)
