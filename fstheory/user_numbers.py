"""Numbers written by the user (command line, scenario files, the Python API), read exactly and
within limits.

A number is ASCII text: a decimal with an optional exponent (``0.2``, ``-1e-3``, ``.5``, ``5.``)
or a fraction ``p/q``, read as an exact :class:`fractions.Fraction` (``0.2`` is 1/5). Digits of
other scripts (Arabic-Indic ``٠.٢``, full-width ``０``), which Python's ``int`` and ``Fraction``
would accept, are refused: a value the user did not visibly type in the usual digits is more
likely a mistake than a wish.

Limits, checked on the text before any arithmetic (``Fraction("1e999999999")`` would compute
``10**999999999`` and never return): at most :data:`MAX_DECIMAL_EXPONENT` in absolute value for
the exponent, at most :data:`MAX_NUMBER_DIGITS` digits in the mantissa, the numerator or the
denominator. Every refusal is a :class:`NumberTextError` naming the parameter.

Examples
--------
>>> parse_rational("0.2", "k"), parse_rational("-1e-3", "a"), parse_rational("1/3", "k")
(Fraction(1, 5), Fraction(-1, 1000), Fraction(1, 3))
>>> parse_rational("1e999999999", "k")
Traceback (most recent call last):
...
fstheory.user_numbers.NumberTextError: parameter 'k': the exponent of '1e999999999' is out of range (expected at most 1000 in absolute value)
>>> parse_rational("\u0660.\u0662", "k")
Traceback (most recent call last):
...
fstheory.user_numbers.NumberTextError: parameter 'k' must be written with the ASCII digits 0-9 (got '٠.٢', with '٠' U+0660)
>>> parse_integer("30", "digits", 1, 100)
30
"""

from __future__ import annotations

import re
from fractions import Fraction

from fstheory.errors import UserInputError

__all__ = [
    "NumberTextError",
    "parse_rational",
    "parse_integer",
    "check_exact",
    "MAX_DECIMAL_EXPONENT",
    "MAX_NUMBER_DIGITS",
    "MAX_VALUE_DIGITS",
]

#: largest accepted |exponent| of a decimal (``1e1000``, ``1e-1000``)
MAX_DECIMAL_EXPONENT = 1000
#: most digits in a mantissa, numerator or denominator
MAX_NUMBER_DIGITS = 1000
#: most digits in the numerator or denominator of an exact value given as a number (a Python
#: ``int`` or ``Fraction``, a TOML integer): as many as the longest typed number has
#: (1000 digits and an exponent of 1000)
MAX_VALUE_DIGITS = MAX_NUMBER_DIGITS + MAX_DECIMAL_EXPONENT + 1

_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]+))?")
_FRACTION = re.compile(r"([+-]?)([0-9]+)\s*/\s*([0-9]+)")
_INTEGER = re.compile(r"[+-]?[0-9]+")


class NumberTextError(UserInputError):
    """Text that is not a number in range; the message names the parameter.

    ``malformed`` is True when the text is not a number at all (or divides by zero), False when
    it is one outside the limits or written with non-ASCII digits: a caller with its own wording
    for "not a number" uses it only in the first case.
    """

    def __init__(self, message: str, malformed: bool = False):
        super().__init__(message)
        self.malformed = malformed


def _non_ascii(name: str, text: str) -> NumberTextError:
    ch = next(c for c in text if not c.isascii())
    return NumberTextError(
        f"parameter '{name}' must be written with the ASCII digits 0-9 (got {text!r}, with "
        f"{ch!r} U+{ord(ch):04X})"
    )


def _too_many_digits(name: str, text: str) -> NumberTextError:
    shown = text if len(text) <= 40 else f"{text[:20]}...{text[-10:]}"
    return NumberTextError(
        f"parameter '{name}': the number {shown!r} has too many digits (expected at most "
        f"{MAX_NUMBER_DIGITS})"
    )


def parse_rational(text: str, name: str) -> Fraction:
    """``text`` as an exact fraction: a decimal with optional exponent, or ``p/q``.

    Raises
    ------
    NumberTextError
        For text that is not such a number, uses non-ASCII characters, has a zero denominator,
        an exponent beyond :data:`MAX_DECIMAL_EXPONENT` or more than :data:`MAX_NUMBER_DIGITS`
        digits.
    """
    if not isinstance(text, str):
        raise NumberTextError(f"parameter '{name}' must be a finite number (got {text!r})", True)
    s = text.strip()
    if not s.isascii():
        raise _non_ascii(name, text)
    m = _DECIMAL.fullmatch(s)
    if m and (m.group(2) or m.group(3)):
        sign, whole, frac, exp_sign, exp_digits = m.groups()
        frac = frac or ""
        if len(whole) + len(frac) > MAX_NUMBER_DIGITS:
            raise _too_many_digits(name, s)
        exponent = 0
        if exp_digits is not None:
            significant = exp_digits.lstrip("0")
            too_long = len(significant) > len(str(MAX_DECIMAL_EXPONENT))
            if too_long or int(significant or "0") > MAX_DECIMAL_EXPONENT:
                raise NumberTextError(
                    f"parameter '{name}': the exponent of {s!r} is out of range (expected at "
                    f"most {MAX_DECIMAL_EXPONENT} in absolute value)"
                )
            exponent = -int(significant or "0") if exp_sign == "-" else int(significant or "0")
        mantissa = int(whole + frac or "0")
        scale = exponent - len(frac)
        value = Fraction(mantissa * 10**scale) if scale >= 0 else Fraction(mantissa, 10**-scale)
        return -value if sign == "-" else value
    m = _FRACTION.fullmatch(s)
    if m:
        sign, p, q = m.groups()
        if max(len(p), len(q)) > MAX_NUMBER_DIGITS:
            raise _too_many_digits(name, s)
        if int(q) == 0:
            raise NumberTextError(
                f"parameter '{name}' must be a finite number (got {text!r}: division by zero)", True
            )
        value = Fraction(int(p), int(q))
        return -value if sign == "-" else value
    raise NumberTextError(f"parameter '{name}' must be a finite number (got {text!r})", True)


_VALUE_BOUND = 10**MAX_VALUE_DIGITS


def check_exact(value: Fraction, name: str) -> Fraction:
    """``value`` itself, when its numerator and denominator have at most
    :data:`MAX_VALUE_DIGITS` digits.

    >>> check_exact(Fraction(1, 10**5000), "a")
    Traceback (most recent call last):
    ...
    fstheory.user_numbers.NumberTextError: parameter 'a': the number 1/~10^5000 has too many digits (expected a numerator and a denominator of at most 2001 digits)
    """
    p, q = abs(value.numerator), value.denominator
    if p < _VALUE_BOUND and q < _VALUE_BOUND:
        return value

    def shown(n: int) -> str:  # never str() of a huge int (Python refuses past 4300 digits)
        return str(n) if n < 10**40 else f"~10^{int(n.bit_length() * 0.30103)}"

    text = shown(p) if q == 1 else f"{shown(p)}/{shown(q)}"
    raise NumberTextError(
        f"parameter '{name}': the number {'-' if value < 0 else ''}{text} has too many "
        f"digits (expected a numerator and a denominator of at most {MAX_VALUE_DIGITS} digits)")


def parse_integer(text: str, name: str, low: int, high: int) -> int:
    """``text`` as an integer in ``[low, high]`` (ASCII digits, optional sign).

    Raises
    ------
    NumberTextError
        For anything else, with the allowed range.
    """
    expected = f"parameter '{name}' must be an integer in [{low}, {high}] (got {text!r})"
    if not isinstance(text, str):
        raise NumberTextError(expected)
    s = text.strip()
    if not s.isascii():
        raise _non_ascii(name, text)
    if not _INTEGER.fullmatch(s) or len(s) > max(len(str(low)), len(str(high))) + 2:
        raise NumberTextError(expected)
    value = int(s)
    if not low <= value <= high:
        raise NumberTextError(expected)
    return value
