"""The number a test compares with its second route: a proved value, or -- where the numerical
route states no proved bound, so that the engine marks the value an estimate and never ranks on
it -- the estimate, which must still agree with the second route."""

from __future__ import annotations

import json
from pathlib import Path

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


def quadrature_reference(name: str) -> dict:
    """The values of reference ``name`` of tests/data/quadrature_references.json (written by
    scripts/make_quadrature_references.py: nested mpmath quadratures, too slow to redo on every
    run), as mpf at their stored digits."""
    entry = _QUADRATURE_REFERENCES[name]
    with mpmath.workdps(entry["digits"] + 10):
        return {q: mpmath.mpf(v) for q, v in entry.items() if q not in ("digits", "doc")}


_QUADRATURE_REFERENCES = json.loads(
    (Path(__file__).parent / "data" / "quadrature_references.json").read_text(encoding="utf-8"))
