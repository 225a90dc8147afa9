r"""Scenario I's mixed MIs MI(C_k, X), MI(C_k, Y) and MI(C_k, X - Y) (C_k = 1{X + kY >= 0},
X, Y i.i.d. Unif(-delta, delta)): the closed forms (derived in :mod:`fstheory.scenarios.uniform`,
free of delta) and, for MI(C_k, Y) and MI(C_k, X - Y), power series in k for balls without
cancellation at small k (the closed forms divide by k and cancel to about 2 log2(1/k) bits, the
series do not). :func:`recognise` finds them by content, in a registered scenario or a file. The
engine's point values and the atlas certificate's leaves both read them from here.

Closed forms (k in (0, 1); the limits at k = 0 and 1 are 0 and ln 2 - 1/2 for Y, 1/4 and 0 for
X - Y):

* MI(C_k, X) = ln 2 - k/2;
* MI(C_k, Y) = ((k^2 + 1) ln((1+k)/(1-k)) + 2k (ln(1 - k^2) - 1)) / (4k);
* MI(C_k, X - Y) = -(1-k)^2 ln(1-k) / (4k).

The series (docs/atlas.md proves them and their signs):

* MI(C_k, Y) = sum_{n odd >= 3} k^(n-1) / (n (n-1) (n-2));
* 4 MI(C_k, X-Y) = 1 - 3k/2 + sum_{j >= 2} 2 k^j / ((j-1) j (j+1)).

Every coefficient is at most 1 in absolute value, so for 0 <= k <= 1/2 the rest from k^m on is
at most k^m / (1 - k).

Examples
--------
>>> from flint import arb
>>> from fstheory.theory.quadrature import flint_precision
>>> with flint_precision(100):
...     y = uniform_series("Y", arb(10) ** -60)          # k^2 / 6 to leading order
...     r = y * 6 * arb(10) ** 120 - 1
>>> r.abs_upper() < 1e-25
True
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import arb, ctx

from fstheory.theory.arbexpr import NoEnclosure
from fstheory.theory.class_pairs import recognise_pair

__all__ = ["uniform_series", "series_coefficient", "WHICH", "mi_class_expression", "recognise"]

#: the two functions of k with a series, by the feature's name
WHICH = ("Y", "X-Y")


def mi_class_expression(which: str, k) -> sp.Expr:
    """The closed form of MI(C_k, V) for V = X, Y, X - Y (``which``), k a symbol or a number."""
    if which == "X":
        return sp.log(2) - k / 2
    if which == "Y":
        return ((k**2 + 1) * sp.log((1 + k) / (1 - k)) + 2 * k * (sp.log(1 - k**2) - 1)) / (4 * k)
    if which == "X-Y":
        return -((1 - k) ** 2) * sp.log(1 - k) / (4 * k)
    raise ValueError(f"which must be X, Y or X-Y, got {which!r}")


def _same_uniform(l1, l2) -> bool:
    return (l1.name == l2.name == "uniform" and l1.params[0] == -l1.params[1]
            and tuple(l1.params) == tuple(l2.params))


def recognise(scenario, fixed: dict, feature: sp.Expr, swept=None):
    """(which, k) when MI(C, ``feature``) is one of the closed forms above: the class rule is
    1{A + k B >= 0} with A, B base variables of one centred uniform law, k a number in [0, 1]
    (or the swept symbol), the feature a non-constant affine function of A, B or A - B
    (:func:`fstheory.theory.class_pairs.recognise_pair`). None otherwise."""
    return recognise_pair(scenario, fixed, feature, swept, _same_uniform)


def uniform_series(which: str, k: arb, derivative: bool = False) -> arb:
    """MI(C_k, Y) (``which`` "Y") or MI(C_k, X-Y) ("X-Y") of Scenario I, or its derivative, by
    the power series of the module docstring, for 0 <= k <= 1/2 (a ball: the result holds for
    every k in it)."""
    if not (k.upper() <= arb(1) / 2):
        raise NoEnclosure("the series is used for k <= 1/2 only")
    total = arb(0)
    power = arb(1)  # k^e
    e = 0
    eps = arb(2) ** -(ctx.prec + 10)
    kk = abs(k).upper()
    while True:
        c = series_coefficient(which, e, derivative)
        if c:
            total += arb(c.numerator) / c.denominator * power
        e += 1
        power = power * k
        bound = kk**e / (1 - kk)
        # relative to the sum at a point (k = 10^-60: no digit lost to the rest), absolute
        # for a ball of k that reaches 0
        small = abs(total).lower()
        if e > 3 and bound <= eps * (small if small > 0 else 1):
            break
    return total + arb(0, kk**e / (1 - kk))


def series_coefficient(which: str, e: int, derivative: bool) -> Fraction:
    """Coefficient of k^e in the series (or in its derivative)."""
    if derivative:
        return (e + 1) * series_coefficient(which, e + 1, False)
    if which == "Y":  # k^(n-1)/(n(n-1)(n-2)), n odd >= 3: e = n - 1 even >= 2
        if e < 2 or e % 2:
            return Fraction(0)
        n = e + 1
        return Fraction(1, n * (n - 1) * (n - 2))
    if which != "X-Y":
        raise ValueError(f"which must be one of {WHICH}, got {which!r}")
    # 4 MI(C_k, X-Y) = 1 - 3k/2 + sum_{j>=2} 2k^j/((j-1)j(j+1))
    if e == 0:
        return Fraction(1, 4)
    if e == 1:
        return Fraction(-3, 8)
    return Fraction(2, (e - 1) * e * (e + 1)) / 4
