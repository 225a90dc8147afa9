"""Points and cells of the atlas certificate as text and as exact or outward-rounded numbers.

A cell's ends are exact sympy numbers (special points, the range's ends) or mpmath floats (the
ends of certified brackets, the midpoints of bisections); these helpers compare them, turn them
into fractions, and write them for the certificate's statements.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import Cell, arb_of, mpf_down, mpf_up
from fstheory.atlas.numbers import man_exp

__all__ = ["bracket_text", "cell_text", "fraction", "ix_end", "le", "point_text"]


def fraction(x: mpmath.mpf) -> Fraction:
    """The exact value of an mpf (no rounding to the working precision)."""
    man, exp = man_exp(x)
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def bracket_text(x0, x1, at: str, digits: int) -> tuple[str, str]:
    """A certified bracket [x0, x1] widened to hold the printed breakpoint ``at`` and written
    with ``digits`` significant digits, rounded outward (so the printed bracket still holds
    the crossing, and the printed ``at``)."""
    lo = min(fraction(x0), Fraction(at))
    hi = max(fraction(x1), Fraction(at))
    return _decimal(lo, digits, decimal.ROUND_FLOOR), _decimal(hi, digits, decimal.ROUND_CEILING)


def _decimal(f: Fraction, digits: int, rounding) -> str:
    if f == 0:
        return "0"
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.rounding = digits, rounding
        d = decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)
    return format(d, "f")


def ix_end(x, rnd: str) -> mpmath.mpf:
    """A cell end as an mpf: itself if it is one, else its enclosure's lower end (``rnd`` "d"),
    upper end ("u") or midpoint ("n")."""
    if isinstance(x, mpmath.mpf):
        return x
    b = arb_of(x)

    if rnd == "d":
        return mpf_down(b.lower())
    if rnd == "u":
        return mpf_up(b.upper())
    return mpf_down(b.mid())


def le(a, b) -> bool:
    """a <= b: exactly for two sympy numbers, else on :func:`ix_end` midpoints."""
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic):
        return bool(a <= b)
    return ix_end(a, "n") <= ix_end(b, "n")


def point_text(x) -> str:
    """A point for a statement: exact as sympy writes it, an mpf to 12 digits."""
    return mpmath.nstr(ix_end(x, "n"), 12) if isinstance(x, mpmath.mpf) else str(x)


def cell_text(cell: Cell) -> str:
    """A cell for a statement: the point, or the interval with its open and closed ends."""
    if cell.is_point:
        return f"{point_text(cell.lo)}"
    return (f"{'(' if cell.open_lo else '['}{point_text(cell.lo)}, {point_text(cell.hi)}"
            f"{')' if cell.open_hi else ']'}")
