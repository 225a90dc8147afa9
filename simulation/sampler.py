"""Samplers for any declared scenario: draws of the base variables, the features, the class.

A :class:`ScenarioSampler` is built from a bound scenario
(``fstheory.scenarios.registry.get_scenario(name).bind(k=..., ...)``): the base variables are drawn from
their laws (``Law.sample``), the features are the scenario's own sympy expressions turned into
numpy functions with :func:`sympy.lambdify` (the expressions come from the declarations, parsed
by the scenario grammar, never evaluated as code), and the class is the declared rule: a linear
threshold C = 1{sum_b w_b b >= threshold} (paper eq. (class_Ck): C_k = 1{X + kY >= 0}) or any
other rule C = 1{form >= 0} (``X*Y >= 0``, ``X^2 + Y^2 <= r``).

Layout: ``features`` has shape ``(reps, F, n)`` (replication, feature, observation) and the
class ``(reps, n)`` (bool).

The class rule is applied to the *same* base draws for every k: a study that asks for k = 0.2 and
k = 0.8 uses common random numbers (the features are identical, only the class changes), which
halves the sampling and binning work and makes the two k columns directly comparable.

Examples
--------
>>> import numpy as np
>>> s = ScenarioSampler.from_registry("uniform", {"k": "0.2"})
>>> base = s.draw_base(np.random.default_rng(0), reps=2, n=5)
>>> s.features(base).shape, s.classes(base).shape
((2, 10, 5), (2, 5))
>>> bool(np.allclose(s.features(base)[:, 1], 3 * base[0] + 1))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Mapping

import numpy as np
import sympy as sp

from fstheory.scenarios.declaration import BoundScenario, ParameterError, Scenario
from fstheory.scenarios.registry import get_scenario, scenario_names
from fstheory.simulation.errors import SimulationInputError

__all__ = ["ScenarioSampler", "bind_scenario", "resolve_scenario", "scenario_fingerprint"]


def resolve_scenario(scenario: "str | Scenario") -> Scenario:
    """A registered scenario by name, or a :class:`Scenario` object (e.g. read from a file)."""
    if isinstance(scenario, Scenario):
        return scenario
    if not isinstance(scenario, str) or scenario not in scenario_names():
        raise SimulationInputError(
            f"parameter 'scenario' must be one of {', '.join(scenario_names())} "
            f"or a scenario declaration (got {scenario!r})"
        )
    return get_scenario(scenario)


def bind_scenario(scenario: "str | Scenario", params: Mapping[str, object]) -> BoundScenario:
    """Bind a scenario, turning every parameter error into :class:`SimulationInputError`."""
    sc = resolve_scenario(scenario)
    try:
        return sc.bind(**dict(params))
    except ParameterError as exc:
        raise SimulationInputError(f"scenario '{sc.name}': {exc}") from None


@dataclass(frozen=True)
class ScenarioSampler:
    """Numeric sampler of one bound scenario.

    Attributes
    ----------
    bound : BoundScenario
    symbols : tuple of sympy.Symbol
        The base variables, in declaration order (the order in which they are drawn).
    """

    bound: BoundScenario
    symbols: tuple

    @classmethod
    def from_bound(cls, bound: BoundScenario) -> "ScenarioSampler":
        return cls(bound, tuple(bound.laws()))

    @classmethod
    def from_registry(cls, scenario: "str | Scenario", params: Mapping[str, object]) -> "ScenarioSampler":
        """From a registered scenario's name (or a :class:`Scenario`) and parameter values."""
        return cls.from_bound(bind_scenario(scenario, params))

    @property
    def n_features(self) -> int:
        return len(self.bound.scenario.features)

    @property
    def labels(self) -> list[str]:
        return self.bound.display_labels()

    @cached_property
    def _laws(self) -> dict:
        return self.bound.laws()  # sympy substitution: once per sampler, not per draw

    @cached_property
    def _class_rule(self):
        """A linear rule as ((base index, weight), ...), threshold (summed in that order, as the
        paper's study does); any other rule as its form compiled to numpy (C = 1{form >= 0})."""
        rule = self.bound.scenario.class_rule
        if rule.is_linear:
            weights = self.bound.class_weights()
            out = (
                tuple((self.symbols.index(s), float(w)) for s, w in weights.items()),
                float(self.bound.class_threshold()),
            )
            if not all(np.isfinite(w) for _, w in out[0]) or not np.isfinite(out[1]):
                raise self._not_float("the class rule", "its coefficients")
            return out
        # The form is the scenario declaration's own (parsed by the grammar, no user code).
        return sp.lambdify(self.symbols, self.bound.class_rule().form, modules="numpy")

    def draw_base(self, rng: np.random.Generator, reps: int, n: int) -> np.ndarray:
        """Independent draws of the base variables, shape ``(len(symbols), reps, n)``.

        Drawn one variable after the other from ``rng`` (declaration order), each as one
        ``(reps, n)`` block, so a given generator state always gives the same numbers.
        """
        out = np.empty((len(self.symbols), reps, n))
        for b, s in enumerate(self.symbols):
            try:
                with np.errstate(all="ignore"):
                    out[b] = self._laws[s].sample(rng, (reps, n))
            except (OverflowError, ValueError):  # a parameter beyond the floats
                out[b] = np.nan
            if not np.isfinite(out[b]).all():
                raise self._not_float(f"base variable {s}", "its draws")
        return out

    def _not_float(self, what: str, part: str) -> SimulationInputError:
        return SimulationInputError(
            f"scenario '{self.bound.scenario.name}': {what}: {part} are beyond the range of "
            f"floats (|x| > 1.8e308, or undefined) at these parameters; the Monte Carlo study "
            f"computes in floats")

    def features(self, base: np.ndarray) -> np.ndarray:
        """The features evaluated on base draws: shape ``(reps, F, n)``."""
        funcs = _feature_functions(self)
        reps, n = base.shape[1:]
        out = np.empty((reps, len(funcs), n))
        with np.errstate(all="ignore"):
            for f, fn in enumerate(funcs):
                out[:, f, :] = fn(*base)  # broadcasts constants and (reps, n) arrays alike
        for f in range(len(funcs)):
            column = out[:, f, :]
            if not np.isfinite(column).all():
                raise self._not_float(f"feature {self.labels[f]}", "its values")
            if not column.any() and base.any():
                raise SimulationInputError(
                    f"scenario '{self.bound.scenario.name}': feature {self.labels[f]}: its values "
                    f"are all 0 in floats (below 1e-308 in absolute value) at these parameters; "
                    f"the Monte Carlo study computes in floats")
        return out

    def classes(self, base: np.ndarray) -> np.ndarray:
        """C = 1{rule form >= 0} on base draws: bool array ``(reps, n)``."""
        rule = self._class_rule
        if callable(rule):
            with np.errstate(all="ignore"):
                form = np.broadcast_to(rule(*base), base.shape[1:])
            if not np.isfinite(form).all():
                raise self._not_float("the class rule", "its values")
            return (form >= 0).copy()
        terms, threshold = rule
        lin = np.zeros(base.shape[1:])
        for b, w in terms:
            lin += w * base[b]
        return lin >= threshold


def scenario_fingerprint(scenario: Scenario) -> tuple:
    """A hashable summary of a declaration (name, laws, features, class rule) for caches."""
    return (
        scenario.name,
        tuple((str(s), repr(law)) for s, law in scenario.base.items()),
        tuple(str(f.expr) for f in scenario.features),
        scenario.class_rule.describe(),
    )


class Keyed:
    """``value`` compared and hashed by ``key`` alone (a content key: e.g. a scenario by its
    :func:`scenario_fingerprint`), so that a ``functools.lru_cache`` keyed by it is shared by
    equal declarations, whichever objects carry them."""

    __slots__ = ("value", "key")

    def __init__(self, value, key):
        self.value, self.key = value, key

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, Keyed) and self.key == other.key


def _feature_functions(sampler: ScenarioSampler) -> tuple:
    key = (
        scenario_fingerprint(sampler.bound.scenario),
        tuple(sorted((k, str(v)) for k, v in sampler.bound.params.items())),
    )
    return _lambdified_features(Keyed(sampler, key))


@lru_cache(maxsize=256)
def _lambdified_features(sampler: Keyed) -> tuple:
    exprs = sampler.value.bound.feature_exprs()
    # The expressions are the scenario declarations' own (no user text): lambdify is safe here.
    return tuple(sp.lambdify(sampler.value.symbols, sp.sympify(e), modules="numpy") for e in exprs)
