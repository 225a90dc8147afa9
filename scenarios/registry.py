"""The one registry of scenarios: name -> declaration.

The built-in scenarios (the paper's ``uniform`` and ``normal``, and the shipped files of
:data:`SHIPPED_FILE_ONLY`) are loaded once, on first use, whatever the user registered before.

Examples
--------
>>> scenario_names()[:3]
['uniform', 'normal', 'laplace']
>>> get_scenario("gaussian")
Traceback (most recent call last):
...
fstheory.scenarios.declaration.ParameterError: unknown scenario 'gaussian' (allowed: uniform, normal, laplace, three-variable, threshold, xor, circle, mixed)
"""

from __future__ import annotations

from fstheory.scenarios.declaration import ParameterError, Scenario

_REGISTRY: dict[str, Scenario] = {}
_BUILTINS_LOADED = False

#: shipped scenario files (scenarios/<name>.toml) registered under their name
SHIPPED_FILE_ONLY = ("laplace", "three-variable", "threshold", "xor", "circle", "mixed")


def register(scenario: Scenario) -> Scenario:
    """Add ``scenario`` under its name (after the built-in ones); a taken name is refused.

    Raises
    ------
    ParameterError
        If a scenario of that name is already registered.
    """
    _load()
    if scenario.name in _REGISTRY:
        raise ParameterError(f"scenario '{scenario.name}' is already registered")
    _REGISTRY[scenario.name] = scenario
    return scenario


def scenario_names() -> list[str]:
    """Registered names: the built-in scenarios first, then the user's in registration order."""
    _load()
    return list(_REGISTRY)


def get_scenario(name: str) -> Scenario:
    """The registered scenario called ``name``.

    Raises
    ------
    ParameterError
        For an empty or unknown name, listing the registered ones.
    """
    _load()
    if not isinstance(name, str) or not name.strip():
        raise ParameterError(
            f"parameter 'scenario' must be a scenario name (got {name!r}; allowed: "
            f"{', '.join(_REGISTRY)})"
        )
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown scenario '{name}' (allowed: {', '.join(_REGISTRY)})"
        ) from None


def _load() -> None:
    """Register the built-in scenarios once; :func:`register` calls this first, so they come
    ahead of the user's and their names cannot be taken."""
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    from fstheory.scenarios import normal, uniform
    from fstheory.scenarios.scenario_file import load_scenario_file as _load_file
    from fstheory.scenarios.scenario_file import shipped_scenario_path

    # Scenarios that exist only as shipped files (uniform.toml and normal.toml restate the
    # built-in ones and are not registered again).
    builtins = [uniform.SCENARIO, normal.SCENARIO]
    builtins += [_load_file(shipped_scenario_path(name)) for name in SHIPPED_FILE_ONLY]
    for s in builtins:
        _REGISTRY[s.name] = s
    _BUILTINS_LOADED = True


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
