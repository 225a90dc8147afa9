"""fstheory: exact entropies, mutual informations and feature orderings of analytic scenarios.

The Python front of the engine (the ``fstheory`` command is the other; both call the same
functions). A scenario at one parameter point gives its values, exact to any number of digits,
and the true ordering of each feature-selection method of Pascoal et al. (Section 7):

>>> import fstheory
>>> s = fstheory.scenario("uniform", k="0.2")
>>> s
<ScenarioPoint uniform (delta=0.5, k=0.2, a=3, b=1, d=2)>
>>> v = s.values(digits=20)
>>> v.labels[:4]
('X', '3X+1', 'Y^2', 'X-Y')
>>> v.entropy[1].text(20), float(v.entropy[1])      # h(3X+1) = ln 3
('1.0986122886681096914', 1.0986122886681098)
>>> float(v.mi_class[0]), float(v.mi_features[0][1])  # MI(C, X); MI(X, 3X+1) = +inf
(0.5931471805599453, inf)
>>> r = s.order("mifs-u", beta="0.4")
>>> r.labels, r.stopped, r.stop.after
(('X', '3X+1', 'X-Y', 'X^2'), True, 4)
>>> print(r.explain().splitlines()[1])
Order: X, 3X+1, X-Y, X^2 -- stopped after 4 of 10

Also :func:`load_scenario` (a TOML scenario file), :func:`shipped_scenario` (the path of a
shipped one), :func:`scenario_names`. Bad input raises :class:`UserInputError` (a
``ValueError``) naming the parameter, or the file and line:

>>> fstheory.scenario("uniform", k="2")
Traceback (most recent call last):
...
fstheory.scenarios.declaration.ParameterError: parameter 'k' must be in [0, 1] (got 2)
"""

from fstheory.api import (
    Ordering,
    ScenarioPoint,
    load_scenario,
    scenario,
    scenario_names,
    shipped_scenario,
)
from fstheory.errors import UserInputError

__all__ = [
    "scenario",
    "load_scenario",
    "shipped_scenario",
    "scenario_names",
    "ScenarioPoint",
    "Ordering",
    "UserInputError",
    "__version__",
]


def __getattr__(name: str):
    if name == "__version__":  # from the installed metadata, read only when asked
        from importlib.metadata import version

        return version("fstheory")
    raise AttributeError(f"module 'fstheory' has no attribute {name!r}")
