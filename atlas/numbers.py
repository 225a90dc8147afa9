"""How the atlas writes a point of a swept parameter: exactly (a sympy number) and as text.

A point is given as a string, Fraction, int, sympy number or mpmath binary fraction;
:func:`as_exact` makes it an exact sympy number (an mpf exactly, through :func:`man_exp`), and
:func:`decimal_text` prints it (exactly when it is a short terminating decimal).

Examples
--------
>>> import mpmath
>>> man_exp(mpmath.mpf(-0.75)), as_exact(mpmath.mpf(-0.75)), as_exact("0.2")
((-3, -2), -3/4, 1/5)
>>> decimal_text(as_exact("0.2"), 10), decimal_text(mpmath.mpf(1) / 3, 5)
('0.2', '0.33333')
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from fstheory.scenarios.declaration import param_text

__all__ = ["man_exp", "as_exact", "decimal_text"]


def man_exp(x: mpmath.mpf) -> tuple[int, int]:
    """(m, e) with x = m 2^e exactly, m signed (mpmath's ``mpf.man_exp`` drops the sign)."""
    sign, man, exp, _ = x._mpf_
    return (-int(man) if sign else int(man)), int(exp)


def as_exact(x) -> sp.Expr:
    """A point given as a string, Fraction, int, sympy number or mpf, as an exact sympy number
    (an mpf is a binary fraction and is converted exactly)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, mpmath.mpf):
        man, exp = man_exp(x)
        return sp.Integer(man) * sp.Integer(2) ** exp
    if isinstance(x, Fraction):
        return sp.Rational(x.numerator, x.denominator)
    return sp.Rational(Fraction(str(x)))


def decimal_text(x, digits: int) -> str:
    """A point as a decimal string: exactly when it is a short terminating decimal, else with
    ``digits`` significant digits."""
    if isinstance(x, sp.Basic) and x.is_Rational:
        f = Fraction(int(x.p), int(x.q))
        for scale in range(0, digits + 1):
            if (f * 10**scale).denominator == 1:
                return param_text(x)
    with mpmath.workdps(digits + 10):
        v = mpmath.mpf(sp.N(x, digits + 10)) if isinstance(x, sp.Basic) else mpmath.mpf(x)
        if v == 0:
            return "0"
        return mpmath.nstr(v, digits, strip_zeros=False, min_fixed=-max(digits, 6),
                           max_fixed=digits + 2)
