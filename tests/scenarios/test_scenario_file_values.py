"""The shipped TOML versions of Scenarios I and II give the built-in values to 25 digits.

The built-in Scenario I carries closed forms for MI(C, X), MI(C, Y), MI(C, X-Y); its TOML version
cannot, so the engine computes those by its numerical route: this is also a cross-check of the
two routes. Scenario II's values are derived from the laws in both versions.
"""

import mpmath
import pytest

from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.overrides import bind_from_cli
from fstheory.scenarios.registry import get_scenario
from fstheory.scenarios.scenario_file import load_scenario_file, shipped_scenario_path

DIGITS = 25


def _agree(a, b, what: str) -> None:
    assert a.kind is b.kind, f"{what}: {a.text()} vs {b.text()}"
    if a.is_finite:
        with mpmath.workdps(DIGITS + 15):
            scale = max(mpmath.mpf(1), abs(b.value))
            assert abs(a.value - b.value) <= mpmath.mpf(10) ** -DIGITS * scale, (
                f"{what}: {a.text(DIGITS + 3)} vs {b.text(DIGITS + 3)}"
            )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["uniform", "normal"])
@pytest.mark.parametrize("k", ["0.2", "0.8"])  # the paper's Tables (Section 7)
def test_toml_scenario_gives_builtin_values_to_25_digits(name, k):
    builtin = evaluate(bind_from_cli(get_scenario(name), {"k": k}), DIGITS)
    from_file = evaluate(
        bind_from_cli(load_scenario_file(shipped_scenario_path(name)), {"k": k}), DIGITS
    )
    assert from_file.labels == builtin.labels
    assert from_file.params == builtin.params
    n = builtin.n_features
    for i in range(n):
        _agree(from_file.entropy[i], builtin.entropy[i], f"h(V{i + 1})")
        _agree(from_file.mi_class[i], builtin.mi_class[i], f"MI(C,V{i + 1})")
        for j in range(n):
            _agree(from_file.mi(i, j), builtin.mi(i, j), f"MI(V{i + 1},V{j + 1})")


ROWS = [("mifs", "0"), ("mifs", "0.4"), ("mifs-u", "0"), ("mifs-u", "0.4"), ("mifs-u", "1"),
        ("mrmr", None), ("mmifs-u", None), ("micc", None), ("qmifs", None), ("nmifs", None),
        ("maxmifs", None)]


@pytest.mark.parametrize("name", ["uniform", pytest.param("normal", marks=pytest.mark.slow)])
def test_toml_scenario_gives_builtin_orderings(name):
    """Same orderings (and the same stops, with the same indeterminate forms) from the files."""
    from fstheory.orderings.greedy import select

    builtin = evaluate(bind_from_cli(get_scenario(name), {"k": "0.2"}), DIGITS)
    from_file = evaluate(
        bind_from_cli(load_scenario_file(shipped_scenario_path(name)), {"k": "0.2"}), DIGITS
    )
    for method, beta in ROWS:
        a, b = select(builtin, method, beta), select(from_file, method, beta)
        assert a.order == b.order, (method, beta)
        assert (a.stop is None) == (b.stop is None), (method, beta)
