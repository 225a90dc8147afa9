"""What an atlas sweeps: :class:`AtlasSpec` (a scenario, a method row, one parameter and its
range), and the checks of a parameter and a range against the parameter's domain."""

from __future__ import annotations

from dataclasses import dataclass

from fstheory.atlas.values import METHOD_PARAMETERS
from fstheory.orderings.methods import get_method
from fstheory.scenarios.declaration import ParameterError, param_text, to_rational
from fstheory.scenarios.domains import DOMAINS

__all__ = ["AtlasSpec", "check_parameter", "parse_range"]


@dataclass(frozen=True)
class AtlasSpec:
    """What to sweep: a scenario (registry name or file), a method row, one parameter and a range.

    ``lo`` and ``hi`` are exact numbers as text ("0", "0.25", "1/3"); ``fixed`` holds the other
    parameters' values as (name, text) pairs (defaults fill the rest); ``grid`` is the number of
    sample points over the range. Picklable, so that worker processes can rebuild the values.
    """

    method: str
    parameter: str
    lo: str
    hi: str
    scenario: str | None = None
    scenario_file: str | None = None
    fixed: tuple = ()
    beta: str | None = None
    reading: str | None = None
    zero_beta: str = "explicit"
    digits: int = 20
    grid: int = 48
    gamma: str | None = None

    def load_scenario(self):
        from fstheory.scenarios.registry import resolve_scenario

        return resolve_scenario(self.scenario if self.scenario_file is None else None, self.scenario_file)

    @property
    def scenario_name(self) -> str:
        return self.scenario if self.scenario_file is None else self.scenario_file


def check_parameter(scenario, method, name: str) -> str:
    """The domain of a parameter that can be swept: 'unit', 'positive', 'nonzero', 'real'.

    Raises ParameterError naming the parameter when it is neither a scenario parameter nor the
    method's beta.
    """
    if name in METHOD_PARAMETERS:
        if not get_method(method).has_beta:
            raise ParameterError(f"parameter 'vary': {get_method(method).display} has no beta to vary")
        return "unit"
    names = [p.name for p in scenario.parameters]
    if name not in names:
        allowed = names + (["beta"] if get_method(method).has_beta else [])
        if not allowed:
            raise ParameterError(
                f"parameter 'vary': scenario '{scenario.name}' declares no parameter and "
                f"{get_method(method).display} has no beta: nothing to vary (got {name!r})")
        raise ParameterError(f"parameter 'vary' must be one of {', '.join(allowed)} (got {name!r})")
    return scenario.parameter(name).domain


def parse_range(name: str, domain: str, text: str | None) -> tuple[str, str]:
    """'LO:HI' checked against the parameter's domain; the whole domain when ``text`` is None."""
    d = DOMAINS[domain]
    if text is None:
        if d.whole is not None:
            return d.whole
        raise ParameterError(f"parameter '{name}' has no bounded domain: give --range LO:HI")
    lo_t, sep, hi_t = text.partition(":")
    if not sep:
        raise ParameterError(f"parameter 'range' of {name} must be LO:HI (got {text!r})")
    lo, hi = to_rational(name, lo_t), to_rational(name, hi_t)
    if lo >= hi:
        raise ParameterError(f"parameter '{name}': range LO:HI needs LO < HI (got {text})")
    if not d.range_ok(lo, hi):
        raise ParameterError(f"parameter '{name}': range {text} must be {d.range_text}")
    return param_text(lo), param_text(hi)  # exact, and short: '1e-1000', not 1/10^1000
