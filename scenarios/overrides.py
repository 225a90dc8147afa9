"""Parameter values given on the command line, applied to any scenario (built-in or from a file).

The CLI accepts named flags for the paper's parameters (``--k --delta --sigma --a --b --d``) and a
generic ``--param NAME=VALUE`` (repeatable) for any declared parameter, e.g. ``--param scale=0.3``
for Scenario III. Both override the scenario's declared defaults; a name the scenario does not
declare, a value that is not a number, a value outside the parameter's domain or a required
parameter left out is a :class:`~fstheory.scenarios.declaration.ParameterError` (exit code 2) naming the
parameter and the allowed range.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> s = get_scenario("uniform")
>>> overrides = merge_overrides({"k": "0.2", "delta": None}, parse_param_assignments(["a=2"]))
>>> bound = bind_from_cli(s, overrides)
>>> bound.params["k"], bound.params["a"], bound.params["delta"]
(1/5, 2, 1/2)
>>> bind_from_cli(s, {"sigma": "1"})
Traceback (most recent call last):
...
fstheory.scenarios.declaration.ParameterError: unknown parameter 'sigma' for scenario 'uniform' (allowed: delta, k, a, b, d)
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from fstheory.scenarios.declaration import BoundScenario, ParameterError, Scenario

__all__ = ["NAMED_FLAGS", "parse_param_assignments", "merge_overrides", "bind_from_cli"]

#: parameters with their own command-line flag (``--k 0.2``); others use ``--param NAME=VALUE``
NAMED_FLAGS = ("k", "delta", "sigma", "a", "b", "d")

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def parse_param_assignments(items: Iterable[str] | None) -> dict[str, str]:
    """``["scale=0.3", "k=1/5"]`` -> ``{"scale": "0.3", "k": "1/5"}``.

    Raises
    ------
    ParameterError
        For an item without ``=``, an empty or malformed name, or a name given twice.
    """
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not _NAME.fullmatch(name) or not value:
            raise ParameterError(f"--param expects NAME=VALUE, e.g. --param k=0.2 (got {item!r})")
        if name in out:
            raise ParameterError(f"parameter '{name}' is given twice with --param")
        out[name] = value
    return out


def merge_overrides(named: Mapping[str, str | None], params: Mapping[str, str]) -> dict[str, str]:
    """Join the named flags (``None`` = not given) and the ``--param`` values.

    Raises
    ------
    ParameterError
        If a parameter is given both ways with different values.
    """
    out = {n: str(v) for n, v in named.items() if v is not None}
    for name, value in params.items():
        if name in out and out[name] != value:
            raise ParameterError(
                f"parameter '{name}' is given twice (--{name} {out[name]} and "
                f"--param {name}={value})"
            )
        out[name] = value
    return out


def bind_from_cli(scenario: Scenario, overrides: Mapping[str, str]) -> BoundScenario:
    """Bind ``scenario`` with its declared defaults overridden by ``overrides`` (name -> text).

    Raises
    ------
    ParameterError
        For an undeclared name (listing the allowed ones), a value that is not a number or is
        outside its domain, a required parameter not given, or a law parameter out of range or
        undefined at these values (e.g. a scale <= 0, or 1/k at k = 0).
    """
    for name in overrides:
        scenario.parameter(name)  # raises with the list of allowed names
    for p in scenario.parameters:
        if p.default is None and p.name not in overrides:
            flag = f"--{p.name} VALUE or " if p.name in NAMED_FLAGS else ""
            raise ParameterError(
                f"parameter '{p.name}' of scenario '{scenario.name}' has no default: give it "
                f"with {flag}--param {p.name}=VALUE ({p.allowed})"
            )
    return scenario.bind(**overrides)
