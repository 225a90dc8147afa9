"""The one registry of scenarios: name -> declaration."""

from __future__ import annotations

from scenarios.declaration import ParameterError, Scenario

_REGISTRY: dict[str, Scenario] = {}


def register(scenario: Scenario) -> Scenario:
    if scenario.name in _REGISTRY:
        raise ValueError(f"scenario '{scenario.name}' is already registered")
    _REGISTRY[scenario.name] = scenario
    return scenario


def scenario_names() -> list[str]:
    _load()
    return list(_REGISTRY)


def get_scenario(name: str) -> Scenario:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown scenario '{name}' (allowed: {', '.join(_REGISTRY)})"
        ) from None


def _load() -> None:
    if _REGISTRY:
        return
    from scenarios import normal, uniform

    register(uniform.SCENARIO)
    register(normal.SCENARIO)
