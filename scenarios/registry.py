"""The one registry of scenarios: name -> declaration."""

from __future__ import annotations

from fstheory.scenarios.declaration import ParameterError, Scenario

_REGISTRY: dict[str, Scenario] = {}

#: shipped scenario files (scenarios/<name>.toml) registered under their name
SHIPPED_FILE_ONLY = ("laplace", "three-variable", "threshold", "xor", "circle", "mixed")


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
    from fstheory.scenarios import normal, uniform
    from fstheory.scenarios.scenario_file import load_scenario_file as _load_file
    from fstheory.scenarios.scenario_file import shipped_scenario_path

    register(uniform.SCENARIO)
    register(normal.SCENARIO)
    # Scenarios that exist only as shipped files (uniform.toml and normal.toml restate the
    # built-in ones and are not registered again).
    for name in SHIPPED_FILE_ONLY:
        register(_load_file(shipped_scenario_path(name)))


def load_scenario_file(path) -> Scenario:
    """A scenario declared in a TOML file (see :mod:`fstheory.scenarios.scenario_file` for the format).

    Raises :class:`fstheory.scenarios.scenario_file.ScenarioFileError` (a :class:`ParameterError`, CLI exit
    code 2) with the file, line and what was expected.
    """
    from fstheory.scenarios.scenario_file import load_scenario_file as _load_file

    return _load_file(path)


def resolve_scenario(name: str | None = None, file=None) -> Scenario:
    """The scenario of ``--scenario NAME`` or ``--scenario-file FILE`` (exactly one given)."""
    if (name is None) == (file is None):
        raise ParameterError("give exactly one of --scenario NAME and --scenario-file FILE")
    return get_scenario(name) if file is None else load_scenario_file(file)
