"""The number a test compares with its second route: a proved value, or -- where the numerical
route states no proved bound, so that the engine marks the value an estimate and never ranks on
it -- the estimate, which must still agree with the second route."""

from __future__ import annotations

import mpmath

from fstheory.theory.extended import ExtendedReal


def known(x: ExtendedReal) -> mpmath.mpf:
    """The proved value of ``x``, or its estimate."""
    if x.is_finite:
        return x.value
    if x.is_estimate:
        return x.estimate[0]
    raise AssertionError(f"neither a value nor an estimate: {x!r}")


def has_number(x: ExtendedReal) -> bool:
    return x.is_finite or x.is_estimate
