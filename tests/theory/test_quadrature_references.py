"""The stored mpmath references (tests/data/quadrature_references.json) are what
scripts/make_quadrature_references.py computes now: recomputed (nested quadratures, slow) and
compared to every stored digit."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import mpmath
import pytest

from known_values import quadrature_reference

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_quadrature_references.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_quadrature_references", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("name", ["three_variable_rule", "abs_difference_class", "product_rule"])
def test_stored_reference_is_what_the_script_computes(name):
    fresh = _script().REFERENCES[name]()
    digits = fresh.pop("digits")
    stored = quadrature_reference(name)
    assert set(stored) == set(fresh)
    with mpmath.workdps(digits + 10):
        for q, v in fresh.items():
            assert abs(stored[q] - v) <= mpmath.mpf(10) ** -(digits + 3) * max(1, abs(v)), q


def test_every_reference_of_the_script_is_stored():
    assert all(quadrature_reference(name) for name in _script().REFERENCES)
