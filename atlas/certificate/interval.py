"""The interval world of the arithmetic interface: what the atlas certificate runs the method code
on.

A value is an :class:`IX`, the set of values one input or objective takes over a *cell* of the
swept parameter (a closed interval [c0, c1], a point, or a cell open at a special point):

``kind``
    "finite", "+inf", "-inf" (the whole cell), "indeterminate" (the whole cell, with the form
    and cause of :mod:`fstheory.theory.extended`), or "undecided": the cell is too coarse to say
    which (a divisor whose enclosure contains 0 without being identically 0, a 0*inf whose
    finite factor may or may not vanish). An undecided value makes the cell undecided: the
    certificate splits it.
finite values
    an enclosure [lo, hi] with outward rounding (mpmath's directed rounding at the working
    precision; ``lo = -inf`` or ``hi = +inf`` for a finite but unbounded value, e.g. 1/h(X) on a
    cell open at h(X) = 0), flags ``slo``/``shi`` when a bound is *not attained* on the cell
    (MI(C_k, Y) > 0 on (0, c]), ``zero`` when the value is identically 0 on the cell (a
    structural zero; then it behaves as the exact world's exact 0: x/0 is an infinity, 0/0 and
    0*inf are indeterminate), and an enclosure [dlo, dhi] of its derivative in the swept
    parameter over the cell (None when unknown).

The rules mirror :func:`fstheory.theory.extended._binary` kind by kind (tests/atlas/test_atlas_certify.py
checks the kinds, and that finite results contain every point result):

==================  ==========================================================================
``a + b``           first indeterminate kept; +inf + -inf -> ``inf-inf``; inf + finite = inf
``a * b``           0 * inf -> ``0*inf`` when the finite factor is identically 0, *undecided*
                    when its enclosure merely contains 0; inf * finite = inf with the finite
                    factor's sign
``a / b``           0/0 -> ``0/0`` (both identically 0); inf/inf -> ``inf/inf``; x/0 =
                    sign(x) inf for b identically 0 (undecided when x's sign is not known);
                    finite/inf = 0; finite/b undecided when b's enclosure contains 0
``min2, max2``      an indeterminate operand makes the result indeterminate (first one kept)
==================  ==========================================================================

A bound is strict (``slo``/``shi``) only where that is proved: sums of bounds are strict if one
of them is; products and quotients of sign-definite enclosures follow the corner that gives the
bound (a bound 0 reached by a factor that can be 0 is attained); everything else is taken as
attained (sound: a strict bound is a stronger claim).

:func:`evaluate_expr` runs a sympy expression (a simplified difference of two objectives, see
:mod:`fstheory.atlas.certificate.certify`) over IX leaves with the same rules and forward-mode
derivatives; :class:`SymbolicOps` is the arithmetic interface on sympy leaves, which gives each
objective as a rational function of its input functions.

Examples
--------
>>> import mpmath
>>> a = IX.interval(mpmath.mpf(0), mpmath.mpf(1), slo=True)        # (0, 1]
>>> (a * IX.point(2)).lo, (a * IX.point(2)).slo                    # (0, 2]: still > 0
(mpf('0.0'), True)
>>> (IX.point(1) / a).hi                                           # 1/(0, 1] is unbounded
mpf('+inf')
>>> (IX.ZERO / IX.ZERO).form
'0/0'
>>> (IX.POS_INF * IX.interval(mpmath.mpf(-1), mpmath.mpf(1))).kind  # the sign is not known
'undecided'
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Sequence

import mpmath
import sympy as sp

from fstheory.orderings.arithmetic import beats_by

__all__ = ["IX", "IntervalOps", "SymbolicOps", "evaluate_expr", "SYM_INF"]

_INF = mpmath.inf

# "d" (a lower bound) and "u" (an upper bound) here are floor and ceiling: mpmath's own "d" and
# "u" round toward and away from zero, which is the wrong way for negative bounds
_ROUND = {"d": "f", "u": "c"}


def _add(x, y, r):
    return mpmath.fadd(x, y, rounding=_ROUND[r])


def _mul(x, y, r):
    if x == 0 or y == 0:  # 0 * (unbounded) = 0: the values are finite
        return mpmath.mpf(0)
    return mpmath.fmul(x, y, rounding=_ROUND[r])


def _div(x, y, r):
    if x == 0:
        return mpmath.mpf(0)
    if mpmath.isinf(y):
        return mpmath.mpf(0)
    return mpmath.fdiv(x, y, rounding=_ROUND[r])


class IX:
    """See the module docstring. Construct with :meth:`point`, :meth:`interval`, the constants
    :attr:`ZERO`, :attr:`POS_INF`, :attr:`NEG_INF`, :meth:`indeterminate`, :meth:`undecided`."""

    __slots__ = ("kind", "lo", "hi", "slo", "shi", "zero", "dlo", "dhi", "form", "cause")

    def __init__(self, kind, lo=None, hi=None, slo=False, shi=False, zero=False, dlo=None,
                 dhi=None, form=None, cause=None):
        self.kind, self.lo, self.hi, self.slo, self.shi = kind, lo, hi, slo, shi
        self.zero, self.dlo, self.dhi, self.form, self.cause = zero, dlo, dhi, form, cause

    # ----- construction ---------------------------------------------------------------------
    @staticmethod
    def point(x, der=0) -> "IX":
        """An exact number (int, Fraction, mpf) as a point enclosure (outward rounded)."""
        if isinstance(x, Fraction):
            if x == 0:
                return IX.ZERO
            lo = mpmath.fdiv(x.numerator, x.denominator, rounding="f")
            hi = mpmath.fdiv(x.numerator, x.denominator, rounding="c")
        else:
            if x == 0:
                return IX.ZERO
            lo = hi = mpmath.mpf(x)
        d = None if der is None else mpmath.mpf(der)
        return IX("finite", lo, hi, dlo=d, dhi=d)

    @staticmethod
    def interval(lo, hi, slo=False, shi=False, dlo=None, dhi=None) -> "IX":
        return IX("finite", mpmath.mpf(lo), mpmath.mpf(hi), slo, shi, False, dlo, dhi)

    @staticmethod
    def indeterminate(form: str, cause: str) -> "IX":
        return IX("indeterminate", form=form, cause=cause)

    @staticmethod
    def undecided(cause: str) -> "IX":
        return IX("undecided", cause=cause)

    # ----- predicates -----------------------------------------------------------------------
    @property
    def finite(self) -> bool:
        return self.kind == "finite"

    @property
    def infinite(self) -> bool:
        return self.kind in ("+inf", "-inf")

    @property
    def has_der(self) -> bool:
        return self.finite and self.dlo is not None

    def positive(self) -> bool:
        """> 0 on the whole cell (proved)."""
        if self.kind == "+inf":
            return True
        return self.finite and not self.zero and (self.lo > 0 or (self.lo == 0 and self.slo))

    def negative(self) -> bool:
        if self.kind == "-inf":
            return True
        return self.finite and not self.zero and (self.hi < 0 or (self.hi == 0 and self.shi))

    def sign(self) -> int | None:
        """+1, -1, 0 (identically 0) on the whole cell, or None when not decided."""
        if self.positive():
            return 1
        if self.negative():
            return -1
        if self.finite and self.zero:
            return 0
        return None

    def __repr__(self) -> str:
        if self.finite:
            z = " zero" if self.zero else ""
            return (f"IX({'(' if self.slo else '['}{mpmath.nstr(self.lo, 8)}, "
                    f"{mpmath.nstr(self.hi, 8)}{')' if self.shi else ']'}{z})")
        if self.kind == "indeterminate":
            return f"IX({self.form})"
        return f"IX({self.kind})"

    # ----- arithmetic -----------------------------------------------------------------------
    def __neg__(self) -> "IX":
        if self.kind == "+inf":
            return IX.NEG_INF
        if self.kind == "-inf":
            return IX.POS_INF
        if not self.finite or self.zero:
            return self
        d = None if self.dlo is None else (-self.dhi, -self.dlo)
        return IX("finite", -self.hi, -self.lo, self.shi, self.slo, False,
                  *(d or (None, None)))

    def __add__(self, other) -> "IX":
        return _plus(self, _ix(other))

    def __radd__(self, other) -> "IX":
        return _plus(_ix(other), self)

    def __sub__(self, other) -> "IX":
        return _minus(self, _ix(other))

    def __rsub__(self, other) -> "IX":
        return _minus(_ix(other), self)

    def __mul__(self, other) -> "IX":
        return _times(self, _ix(other))

    def __rmul__(self, other) -> "IX":
        return _times(_ix(other), self)

    def __truediv__(self, other) -> "IX":
        return _over(self, _ix(other))

    def __rtruediv__(self, other) -> "IX":
        return _over(_ix(other), self)


IX.ZERO = IX("finite", mpmath.mpf(0), mpmath.mpf(0), zero=True, dlo=mpmath.mpf(0), dhi=mpmath.mpf(0))
IX.POS_INF = IX("+inf")
IX.NEG_INF = IX("-inf")


def _ix(x) -> IX:
    return x if isinstance(x, IX) else IX.point(x if isinstance(x, Fraction) else mpmath.mpf(x))


def _first_bad(a: IX, b: IX) -> IX | None:
    for x in (a, b):
        if x.kind == "indeterminate":
            return x
    for x in (a, b):
        if x.kind == "undecided":
            return x
    return None


def _der_add(a: IX, b: IX, sign: int = 1):
    if a.dlo is None or b.dlo is None:
        return None, None
    if sign > 0:
        return _add(a.dlo, b.dlo, "d"), _add(a.dhi, b.dhi, "u")
    return _add(a.dlo, -b.dhi, "d"), _add(a.dhi, -b.dlo, "u")


def _plus(a: IX, b: IX) -> IX:
    bad = _first_bad(a, b)
    if bad is not None:
        return bad
    if a.infinite and b.infinite and a.kind != b.kind:
        return IX.indeterminate("inf-inf", "+inf + (-inf) on the cell")
    if a.infinite:
        return a
    if b.infinite:
        return b
    if a.zero and b.zero:
        return IX.ZERO
    if a.zero:
        return b
    if b.zero:
        return a
    return IX("finite", _add(a.lo, b.lo, "d"), _add(a.hi, b.hi, "u"), a.slo or b.slo,
              a.shi or b.shi, False, *_der_add(a, b))


def _minus(a: IX, b: IX) -> IX:
    bad = _first_bad(a, b)
    if bad is not None:
        return bad
    if a.infinite and b.infinite and a.kind == b.kind:
        return IX.indeterminate("inf-inf", f"{a.kind} - ({b.kind}) on the cell")
    return _plus(a, -b)


def _iv_mul(a: IX, b: IX):
    """Bounds and strictness of the product of two finite enclosures."""
    corners = [(a.lo, a.slo, b.lo, b.slo), (a.lo, a.slo, b.hi, b.shi),
               (a.hi, a.shi, b.lo, b.slo), (a.hi, a.shi, b.hi, b.shi)]
    lo = min(_mul(x, y, "d") for x, _, y, _ in corners)
    hi = max(_mul(x, y, "u") for x, _, y, _ in corners)
    slo = shi = False
    # strictness only for sign-definite factors (reduce to nonnegative by symmetry)
    sa = 1 if a.lo >= 0 else (-1 if a.hi <= 0 else 0)
    sb = 1 if b.lo >= 0 else (-1 if b.hi <= 0 else 0)
    if sa and sb:
        (na, nsa), (xa, xsa) = ((a.lo, a.slo), (a.hi, a.shi)) if sa > 0 else ((-a.hi, a.shi), (-a.lo, a.slo))
        (nb, nsb), (xb, xsb) = ((b.lo, b.slo), (b.hi, b.shi)) if sb > 0 else ((-b.hi, b.shi), (-b.lo, b.slo))
        # the product of the magnitudes has bound na*nb (near) and xa*xb (far)
        if na == 0 and nb == 0:
            near = nsa and nsb
        elif na == 0:
            near = nsa
        elif nb == 0:
            near = nsb
        else:
            near = nsa or nsb
        far = xsa or xsb
        if sa * sb > 0:
            slo, shi = near, far
        else:
            slo, shi = far, near
    return lo, hi, slo, shi


def _times(a: IX, b: IX) -> IX:
    bad = _first_bad(a, b)
    if bad is not None:
        return bad
    if a.infinite or b.infinite:
        inf, other = (a, b) if a.infinite else (b, a)
        if other.infinite:
            return IX.POS_INF if a.kind == b.kind else IX.NEG_INF
        if other.zero:
            return IX.indeterminate("0*inf", "0 * inf on the cell")
        s = other.sign()
        if s is None:
            return IX.undecided("0*inf or inf: the finite factor's sign is not decided")
        return inf if s > 0 else -inf
    if a.zero or b.zero:
        return IX.ZERO
    lo, hi, slo, shi = _iv_mul(a, b)
    dlo = dhi = None
    if a.dlo is not None and b.dlo is not None:
        p = _iv_mul(IX.interval(a.dlo, a.dhi), b)
        q = _iv_mul(a, IX.interval(b.dlo, b.dhi))
        dlo, dhi = _add(p[0], q[0], "d"), _add(p[1], q[1], "u")
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


def _reciprocal(b: IX) -> IX:
    """1/b for a finite b whose sign is decided (b excludes 0)."""
    lo = _div(mpmath.mpf(1), b.hi, "d") if b.hi != 0 else -_INF
    hi = _div(mpmath.mpf(1), b.lo, "u") if b.lo != 0 else _INF
    if b.lo == 0:  # b in (0, h]: 1/b in [1/h, +inf)
        lo, hi = _div(mpmath.mpf(1), b.hi, "d"), _INF
    if b.hi == 0:  # b in [l, 0): 1/b in (-inf, 1/l]
        lo, hi = -_INF, _div(mpmath.mpf(1), b.lo, "u")
    # 1/x is monotone on a sign-definite interval: the bound is attained iff the other end is
    slo, shi = b.shi, b.slo
    if mpmath.isinf(b.lo) or mpmath.isinf(b.hi):  # 1/(unbounded) -> bound 0 never attained
        if mpmath.isinf(b.hi):
            slo = True
        if mpmath.isinf(b.lo):
            shi = True
    dlo = dhi = None
    if b.dlo is not None:
        sq = _iv_mul(b, b)
        inv2 = IX("finite", _div(mpmath.mpf(1), sq[1], "d"), _div(mpmath.mpf(1), sq[0], "u")
                  if sq[0] != 0 else _INF)
        d = _iv_mul(IX.interval(-b.dhi, -b.dlo), inv2)
        dlo, dhi = d[0], d[1]
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


def _over(a: IX, b: IX) -> IX:
    bad = _first_bad(a, b)
    if bad is not None:
        return bad
    if a.infinite and b.infinite:
        return IX.indeterminate("inf/inf", "inf/inf on the cell")
    if b.finite and b.zero:
        if a.finite and a.zero:
            return IX.indeterminate("0/0", "0/0 on the cell")
        s = a.sign()
        if s is None:
            return IX.undecided("x/0 with the sign of x not decided")
        return IX.POS_INF if s > 0 else IX.NEG_INF
    if b.infinite:
        return IX.ZERO
    s = b.sign()
    if s is None:
        return IX.undecided("a divisor's enclosure contains 0")
    if a.infinite:
        return a if s > 0 else -a
    if a.zero:
        return IX.ZERO
    return _times(a, _reciprocal(b))


def _extreme(values: Sequence[IX], pick_max: bool) -> IX:
    values = list(values)
    if not values:
        raise ValueError(f"{'max' if pick_max else 'min'} over an empty set")
    for v in values:
        if v.kind == "indeterminate":
            return v
    for v in values:
        if v.kind == "undecided":
            return v
    best = values[0]
    for v in values[1:]:
        best = _pair_extreme(best, v, pick_max)
        if best.kind == "undecided":
            return best
    return best


def _pair_extreme(a: IX, b: IX, pick_max: bool) -> IX:
    if not pick_max:
        return -_pair_extreme(-a, -b, True)
    if a.kind == "+inf" or b.kind == "-inf":
        return a
    if b.kind == "+inf" or a.kind == "-inf":
        return b
    if a.zero and b.zero:
        return IX.ZERO
    if a.lo > b.hi or (a.lo == b.hi and (a.slo or b.shi)):
        return a
    if b.lo > a.hi or (b.lo == a.hi and (b.slo or a.shi)):
        return b
    # the maximum of two functions: bounds from both; its difference quotients lie in the hull
    # of the two derivatives' enclosures
    lo = max(a.lo, b.lo)
    slo = (a.slo if a.lo > b.lo else b.slo if b.lo > a.lo else (a.slo and b.slo))
    hi = max(a.hi, b.hi)
    shi = (a.shi if a.hi > b.hi else b.shi if b.hi > a.hi else (a.shi and b.shi))
    dlo = dhi = None
    if a.dlo is not None and b.dlo is not None:
        dlo, dhi = min(a.dlo, b.dlo), max(a.dhi, b.dhi)
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


class IntervalOps:
    """The arithmetic interface (:mod:`fstheory.orderings.arithmetic`) on :class:`IX` values.

    ``beta`` is the enclosure that ``ops.const(beta, "beta")`` returns when beta is the swept
    parameter (derivative 1); otherwise constants are exact points.
    """

    name = "interval"

    def __init__(self, beta: IX | None = None):
        self.beta = beta

    # ----- the greedy comparison (fstheory.orderings.arithmetic), over the whole cell ----------
    def choosable(self, a: IX) -> bool | None:
        """Not indeterminate on the cell; None if undecided."""
        return None if a.kind == "undecided" else a.kind != "indeterminate"

    def compare(self, a: IX, b: IX) -> int | None:
        """The greedy comparison of ``a`` with ``b`` on the whole cell: by their kinds (an
        indeterminate loses, even to another one; the same infinity ties; +inf wins and -inf
        loses against anything else), and two finite values by their enclosures (one above the
        other on the whole cell, or both identically 0). None -- *undecided*, a world of its
        own: the cell must be split or the difference examined -- when either is undecided or
        the enclosures of two finite values do not decide."""
        if a.kind == "undecided" or b.kind == "undecided":
            return None
        if a.kind == "indeterminate":
            return -1
        if b.kind == "indeterminate":
            return 1
        if a.infinite and b.infinite and a.kind == b.kind:
            return 0
        if a.kind == "+inf" or b.kind == "-inf":
            return 1
        if a.kind == "-inf" or b.kind == "+inf":
            return -1
        g = a - b
        if g.positive():
            return 1
        if (b - a).positive():
            return -1
        if (a.zero and b.zero) or (g.finite and g.lo == 0 and g.hi == 0):
            return 0
        return None

    def tied(self, a: IX, b: IX) -> bool | None:
        c = self.compare(a, b)
        return None if c is None else c == 0

    def beats(self, a: IX, b: IX, first: bool = False) -> bool | None:
        """:func:`~fstheory.orderings.arithmetic.beats_by` on :meth:`compare`; and two finite
        values whose difference has the sign that, with ties to the lower index, decides
        (a >= b on the cell for the first, a <= b for the later candidate)."""
        c = self.compare(a, b)
        if c is None and a.finite and b.finite:
            g = a - b
            if first and g.finite and g.lo >= 0:
                return True
            if not first and g.finite and g.hi <= 0:
                return False
        return beats_by(c, first)

    def const(self, x, label: str | None = None) -> IX:
        if label == "beta" and self.beta is not None:
            return self.beta
        if isinstance(x, str):
            x = Fraction(x)
        if isinstance(x, (int, Fraction)):
            return IX.point(Fraction(x))
        return IX.point(mpmath.mpf(x))

    def sum(self, seq) -> IX:
        seq = list(seq)
        if not seq:
            return IX.ZERO
        total = seq[0]
        for x in seq[1:]:
            total = total + x
        return total

    def mean(self, seq) -> IX:
        seq = list(seq)
        if not seq:
            raise ValueError("mean over an empty set")
        if len(seq) == 1:
            return seq[0]
        return self.sum(seq) / IX.point(Fraction(len(seq)))

    def max(self, seq) -> IX:
        return _extreme(seq, True)

    def min(self, seq) -> IX:
        return _extreme(seq, False)

    def min2(self, a, b) -> IX:
        return _extreme([a, b], False)

    def max2(self, a, b) -> IX:
        return _extreme([a, b], True)

    def quiet(self):
        return contextlib.nullcontext()


# ----- the symbolic world ---------------------------------------------------------------------------


class _SymInf:
    """An infinite or indeterminate input in the symbolic world: the objective has no rational
    form (its comparisons are decided on kinds), except a finite value divided by it, which is
    0."""

    def _self(self, *_):
        return self

    def __rtruediv__(self, other):
        # a finite value over an infinite one is exactly 0, as in the interval and exact worlds
        return sp.Integer(0) if isinstance(other, (sp.Expr, int, Fraction)) else self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _self
    __truediv__ = __neg__ = _self


SYM_INF = _SymInf()


class SymbolicOps:
    """The arithmetic interface on sympy expressions in leaf symbols (one symbol per distinct
    input *function*: MI(C, X) and MI(C, 3X+1) share one). An infinite input gives
    :data:`SYM_INF`, which absorbs everything."""

    name = "symbolic"

    def __init__(self, beta=None):
        self.beta = beta

    def const(self, x, label: str | None = None):
        if label == "beta" and self.beta is not None:
            return self.beta
        if isinstance(x, str):
            x = Fraction(x)
        return sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else sp.sympify(x)

    def sum(self, seq):
        seq = list(seq)
        if any(x is SYM_INF for x in seq):
            return SYM_INF
        return sp.Add(*seq) if seq else sp.Integer(0)

    def mean(self, seq):
        seq = list(seq)
        if any(x is SYM_INF for x in seq):
            return SYM_INF
        return sp.Add(*seq) / len(seq) if len(seq) > 1 else seq[0]

    def _ext(self, seq, fn):
        seq = list(seq)
        if any(x is SYM_INF for x in seq):
            return SYM_INF
        return fn(*seq)

    def max(self, seq):
        return self._ext(seq, sp.Max)

    def min(self, seq):
        return self._ext(seq, sp.Min)

    def min2(self, a, b):
        return self._ext([a, b], sp.Min)

    def max2(self, a, b):
        return self._ext([a, b], sp.Max)

    def quiet(self):
        return contextlib.nullcontext()


def evaluate_expr(expr: sp.Expr, leaves: dict) -> IX:
    """``expr`` (Add, Mul, integer powers, Min, Max, numbers, leaf symbols) over the IX
    enclosures ``leaves[symbol]``, with derivatives carried forward."""
    if expr.is_Symbol:
        return leaves[expr]
    if expr.is_Rational:
        return IX.point(Fraction(int(expr.p), int(expr.q)))
    if expr.is_Add:
        out = IX.ZERO
        for a in expr.args:
            out = out + evaluate_expr(a, leaves)
        return out
    if expr.is_Mul:
        out = IX.point(Fraction(1))
        for a in expr.args:
            out = out * evaluate_expr(a, leaves)
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        base, n = evaluate_expr(expr.base, leaves), int(expr.exp)
        out = IX.point(Fraction(1))
        for _ in range(abs(n)):
            out = out * base
        return IX.point(Fraction(1)) / out if n < 0 else out
    if isinstance(expr, (sp.Min, sp.Max)):
        return _extreme([evaluate_expr(a, leaves) for a in expr.args], isinstance(expr, sp.Max))
    raise ValueError(f"no interval rule for {expr.func.__name__}")
