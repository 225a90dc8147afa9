"""The Python front of fstheory: a scenario at one parameter point, its values and orderings.

Thin, like the command line: each function and method here checks its options and calls the
same engine functions as ``fstheory values`` and ``fstheory order``. Everything is re-exported by
the package (``import fstheory``); the examples are in its docstring and in the README.

Errors: bad input raises a :class:`fstheory.errors.UserInputError` (a ``ValueError``) whose
message names the parameter, or the file and line.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from fstheory.theory.extended import ExtendedReal

if TYPE_CHECKING:  # imported lazily below: ``import fstheory`` stays light
    from fstheory.orderings.greedy import SelectionResult, Step, Stop
    from fstheory.scenarios.declaration import BoundScenario
    from fstheory.engine.values import ScenarioValues

__all__ = [
    "ScenarioPoint",
    "Ordering",
    "ProvedValue",
    "scenario",
    "load_scenario",
    "shipped_scenario",
    "scenario_names",
]


def _check_digits(digits: int) -> int:
    """``digits`` as an int in [1, 100]: a Python or numpy integer (text is refused: the digits
    of a value already computed are a number, not an option of a command)."""
    from fstheory.requests import integer_option
    from fstheory.scenarios.declaration import ParameterError

    if isinstance(digits, str):
        raise ParameterError(f"parameter 'digits' must be an integer in [1, 100] (got {digits!r})")
    return integer_option(digits, "digits", 1, 100)


def _plain(value):
    """A numpy number as the Python number it stands for: an integer exactly, a float as the
    float it is (read downstream through its shortest repr, 0.2 is 1/5); anything else (str,
    Fraction, sympy numbers, Decimal) as it is."""
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        return float(value)  # np.float64 is a float, but its repr is 'np.float64(0.2)'
    return value


def _proved(x, digits: int):
    """``x`` (an engine value) as a :class:`ProvedValue` that knows its proved digits."""
    from dataclasses import fields

    return ProvedValue(**{f.name: getattr(x, f.name) for f in fields(x)}, proved_digits=digits)


def _proved_view(values, digits: int):
    """The engine's values with every entry a :class:`ProvedValue` of ``digits`` digits."""
    from dataclasses import replace

    return replace(values,
                   entropy=tuple(_proved(x, digits) for x in values.entropy),
                   mi_class=tuple(_proved(x, digits) for x in values.mi_class),
                   mi_features=tuple(tuple(_proved(x, digits) for x in row)
                                     for row in values.mi_features))


@dataclass(frozen=True, eq=False)
class ProvedValue(ExtendedReal):
    """A value of :meth:`ScenarioPoint.values`: an
    :class:`~fstheory.theory.extended.ExtendedReal` that knows how many significant digits of it
    are proved (the ``digits`` it was computed with). ``text(d)`` for a larger ``d`` is refused
    (``fstheory.UserInputError``): the digits past those are not proved. Arithmetic on it gives
    plain extended reals."""

    proved_digits: int = 30

    def text(self, digits: int = 6) -> str:
        from fstheory.scenarios.declaration import ParameterError

        digits = _check_digits(digits)
        if self.is_finite and digits > self.proved_digits:
            raise ParameterError(
                f"parameter 'digits': {digits} significant digits asked of a value proved to "
                f"{self.proved_digits} (computed by values(digits={self.proved_digits})); ask "
                f"values(digits={digits}) for more")
        return super().text(digits)

    def __str__(self) -> str:
        return self.text(min(6, self.proved_digits))

    def __repr__(self) -> str:
        core = self.text(min(12, self.proved_digits))
        if self.is_indeterminate:
            core += f" [{self.cause}]"
        return f"ExtendedReal({core}{', ' + self.label if self.label else ''})"


@dataclass(frozen=True)
class Ordering:
    """The true ordering of one method on one scenario point (greedy rules, exact values).

    Attributes
    ----------
    labels : tuple of str
        Selected features in selection order (display labels, e.g. ``'3X+1'``).
    order : tuple of int
        The same as 0-based feature indices.
    stopped : bool
        True when selection stopped before every feature was chosen, because every remaining
        candidate's objective is indeterminate (0/0, 0*inf, inf-inf, inf/inf) or not computed.
    stop : Stop or None
        Where and why it stopped: ``stop.after`` features, ``stop.forms`` per candidate.
    steps : tuple of Step
        Each step's candidates with their objective values (extended reals) and the winner.
    result : fstheory.orderings.greedy.SelectionResult
        The engine's full result (for :mod:`fstheory.orderings.explain`).
    """

    result: SelectionResult

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.result.order_labels)

    @property
    def order(self) -> tuple[int, ...]:
        return tuple(self.result.order)

    @property
    def stopped(self) -> bool:
        return self.result.stop is not None

    @property
    def stop(self) -> Stop | None:
        return self.result.stop

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.result.steps

    def explain(self, *, digits: int | None = None) -> str:
        """A readable account of every step and of the stop (what ``fstheory order --explain``
        prints), values with ``digits`` significant digits (default 6, or fewer when the
        ordering was computed with fewer; more than it was computed with are refused: they are
        not proved)."""
        from fstheory.orderings.explain import explain
        from fstheory.scenarios.declaration import ParameterError

        working = self.result.values.digits
        digits = min(6, working) if digits is None else _check_digits(digits)
        if digits > working:
            raise ParameterError(
                f"parameter 'digits': {digits} significant digits asked of values proved to "
                f"{working} (order(..., digits={working})); ask order(..., digits={digits})")
        return explain(self.result, digits)

    def to_json(self) -> dict:
        """The JSON object of ``fstheory order --json``."""
        from fstheory.orderings.explain import to_json

        return to_json(self.result)

    def __repr__(self) -> str:
        from fstheory.orderings.explain import summary

        return f"<Ordering {summary(self.result)!r}>"


@dataclass(frozen=True, eq=False)
class ScenarioPoint:
    """A scenario with every parameter bound to an exact value.

    Made by :func:`scenario`, :func:`load_scenario`; the values and orderings are computed on
    demand and kept, per number of digits, so that one notebook cell after another does not
    recompute them.

    Each quantity of the engine is one method taking keyword-only options, calling one engine
    function with :attr:`bound`, and returning the engine's object (values, order, relevance,
    atlas).

    Attributes
    ----------
    bound : fstheory.scenarios.declaration.BoundScenario
        The declaration and its exact parameter values, as the engine takes them.
    """

    bound: BoundScenario
    #: where the declaration came from: (registered name, None) or (None, file path)
    source: tuple = (None, None)
    _values: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _views: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        """Registry name, or the ``name`` declared in the scenario file."""
        return self.bound.scenario.name

    @property
    def title(self) -> str:
        return self.bound.scenario.title

    @property
    def params(self) -> dict[str, Fraction]:
        """Parameter name -> exact value (defaults filled in)."""
        return {n: Fraction(int(v.p), int(v.q)) for n, v in self.bound.params.items()}

    @property
    def labels(self) -> tuple[str, ...]:
        """Feature display labels, V1 first (parameters filled in: ``'3X+1'``)."""
        return tuple(self.bound.display_labels())

    def values(self, *, digits: int = 30) -> ScenarioValues:
        """Every entropy and MI at this point, to ``digits`` significant digits.

        Returns
        -------
        fstheory.engine.values.ScenarioValues
            ``labels``; ``entropy[i]`` = h(V_i); ``mi_class[i]`` = MI(C, V_i);
            ``mi_features[i][j]`` = MI(V_i, V_j) (+inf on the diagonal); ``provenance``.
            Each value is a :class:`ProvedValue` (an
            :class:`fstheory.theory.extended.ExtendedReal`): ``float(x)`` gives a float (+-inf
            included) and raises ``ValueError`` for a value that is indeterminate or not
            computed, naming why; ``x.text(d)`` gives ``d`` significant digits, only proved ones,
            ``d`` at most ``digits`` (more would not be proved: refused with a
            ``UserInputError``); ``x.enclosure()`` the proved ``(mid, radius)`` (radius 0 for an
            exact value). A value known only as an estimate is not computed (``x.is_estimate``,
            ``x.estimate`` = (value, error estimate)).
        """
        from fstheory.requests import ValuesRequest, run_values

        request = ValuesRequest(self.bound, digits)
        digits = request.digits
        if digits not in self._values:
            self._values[digits] = run_values(request)
        if digits not in self._views:
            self._views[digits] = _proved_view(self._values[digits], digits)
        return self._views[digits]

    def order(self, method: str, beta: float | str | Fraction | None = None, *,
              reading: str | None = None, zero_beta: str = "explicit",
              digits: int = 30, gamma: float | str | Fraction | None = None) -> Ordering:
        """The true feature ordering of ``method`` (greedy rules of the paper, Section 7).

        Parameters
        ----------
        method : str
            mifs, mifs-u, mrmr, mmifs-u, micc, qmifs, nmifs, maxmifs, the 3-D methods jmi,
            cmim, jmim, cife, disr, icap, or those of FEAST and praznik mim, cmi, njmim, jmi3,
            beta-gamma, condred (case-insensitive).
        beta : number or str, optional
            In [0, 1]; required by mifs, mifs-u and beta-gamma (which also takes ``"1/|S|"``),
            refused by the others. A string or a Fraction is read exactly (``"0.4"`` is 2/5), a
            float through its repr.
        reading : str, optional
            Which written form of the objective (default: the method's): "table" or "text"
            for the 2-D methods; "original", "unified", "interaction", "fleuret" (CMIM) or
            "feast" (beta-gamma, CondRed) for the others (docs/orderings.md).
        zero_beta : {"explicit", "drop"}
            At beta = 0 (mifs, mifs-u) or a zero beta or gamma (beta-gamma): evaluate 0*inf as
            written, or drop the term.
        digits : int
            Working digits of the values.
        gamma : number or str, optional
            In [0, 1] or ``"1/|S|"``; required by beta-gamma, refused by the others.

        Raises
        ------
        fstheory.orderings.methods.MethodError
            For an unknown method or a bad option, before anything is computed.
        """
        from fstheory.requests import OrderRequest, run_order

        request = OrderRequest(self.bound, method, _plain(beta), reading, zero_beta, digits,
                               _plain(gamma))  # options checked before anything is computed
        digits = request.digits
        result = run_order(request, values=self._values.get(digits))
        self._values.setdefault(digits, result.values)
        return Ordering(result)

    def relevance(self, *, digits: int = 30):
        """Each feature's relevance class and the relevance-optimal sets (paper Section 3),
        derived from the declarations' structure and the values at this point.

        Returns
        -------
        fstheory.engine.relevance.RelevanceReport
            ``optimal_sets`` (tuple of frozensets of 0-based feature indices, or None with
            ``optimal_reason`` when undecidable) and ``classes`` (strongly relevant, weakly
            relevant, irrelevant or undecided, each with its reason).

        Examples
        --------
        >>> import fstheory
        >>> r = fstheory.scenario("uniform", k="0.2").relevance(digits=20)
        >>> sorted(sorted(s) for s in r.optimal_sets)
        [[0, 3], [0, 6], [1, 3], [1, 6], [3, 6]]
        >>> r.classes[4].label, r.classes[4].kind
        ('Z', 'irrelevant')
        """
        from fstheory.requests import RelevanceRequest, run_relevance

        request = RelevanceRequest(self.bound, digits)
        return run_relevance(request, values=self._values.get(request.digits))

    def atlas(self, method: str, vary, range=None, *, beta=None, gamma=None,
              reading: str | None = None, zero_beta: str = "explicit", digits: int = 20,
              grid: int = 48, jobs: int = 1):
        """The orderings of ``method`` as one parameter sweeps a range, the others held at this
        point (``fstheory atlas``, given the values that differ from the defaults), or a phase
        diagram when two parameters vary.

        Parameters
        ----------
        method : str
            As for :meth:`order`.
        vary : str or sequence of two str
            The parameter(s) to sweep: a scenario parameter, or ``"beta"`` of a method that has
            one.
        range : str or sequence of str, optional
            ``"LO:HI"`` per varied parameter (exact text: ``"1/10:1/2"``); default the whole
            domain where it is bounded.
        beta, gamma, reading, zero_beta : optional
            As for :meth:`order`.
        digits : int
            Significant digits of the breakpoints.
        grid : int
            Sample points over the range (at least 4).
        jobs : int
            Local worker processes.

        Returns
        -------
        fstheory.atlas.result.AtlasResult or fstheory.atlas.phase_map.PhaseMap
            ``regions`` (each ordering and where it holds), ``breakpoints`` with their causes
            and the certificate, for one varied parameter; the map for two. ``text()`` and
            ``to_json()`` are what ``fstheory atlas`` prints.

        Raises
        ------
        fstheory.scenarios.declaration.ParameterError
            For a bad option (a parameter that cannot vary, a range outside its domain, ...),
            before anything is computed.

        Examples
        --------
        >>> import fstheory
        >>> result = fstheory.scenario("uniform", k="0.2").atlas("mim", "k", "1/10:1/2", grid=4)
        >>> [(str(r.lo), str(r.hi), r.order) for r in result.regions]
        [('1/10', '1/2', (0, 1, 3, 6, 2, 4, 5, 7, 8, 9))]
        >>> result.text().splitlines()[3]
        '0.1                          0.5                          X, 3X+1, X-Y, Y, Y^2, Z, Z^2, X^2, W+2, Z+W'
        """
        from fstheory.atlas.cli import compute_atlas
        from fstheory.requests import AtlasRequest, ScenarioChoice
        from fstheory.scenarios.declaration import to_rational

        vary = (vary,) if isinstance(vary, str) else tuple(vary)
        ranges = () if range is None else (range,) if isinstance(range, str) else tuple(range)
        defaults = {p.name: p.default for p in self.bound.scenario.parameters}
        fixed = tuple((n, str(v)) for n, v in self.bound.params.items()
                      if n not in vary and (defaults.get(n) is None
                                            or to_rational(n, defaults[n]) != v))
        name, path = self.source
        if name is None and path is None:
            name = self.name
        request = AtlasRequest(ScenarioChoice(name, path, fixed), method, vary, ranges,
                               _plain(beta), _plain(gamma), reading, zero_beta, digits, grid,
                               jobs)
        return compute_atlas(request)

    def __repr__(self) -> str:
        from fstheory.scenarios.declaration import param_text

        params = ", ".join(f"{n}={param_text(v)}" for n, v in self.bound.params.items())
        return f"<ScenarioPoint {self.name} ({params})>"


def scenario(name: str, **params) -> ScenarioPoint:
    """A registered scenario (``"uniform"``, ``"normal"``, ``"laplace"``, ...) at ``params``.

    Parameters
    ----------
    name : str
        A registered name (:func:`scenario_names`).
    **params
        Parameter values by name (``k="0.2"``, ``delta=0.5``, ``a=Fraction(3)``); strings and
        Fractions are exact, floats are read through their repr (0.2 is 1/5). Parameters not
        given take the scenario's defaults.

    Raises
    ------
    fstheory.scenarios.declaration.ParameterError
        For an unknown scenario or parameter, or a value outside its range.
    """
    from fstheory.scenarios.registry import get_scenario

    return ScenarioPoint(get_scenario(name).bind(**{n: _plain(v) for n, v in params.items()}),
                         (name, None))


def load_scenario(path: str | Path, **params) -> ScenarioPoint:
    """The scenario declared in the TOML file ``path`` (docs/adding-a-scenario.md) at ``params``.

    Raises
    ------
    fstheory.scenarios.scenario_file.ScenarioFileError
        For a file that cannot be read or is malformed, naming the file, line and key.
    fstheory.scenarios.declaration.ParameterError
        For a bad parameter value.
    """
    from fstheory.scenarios.declaration import ParameterError
    from fstheory.scenarios.scenario_file import load_scenario_file

    if not isinstance(path, (str, os.PathLike)) or isinstance(os.fspath(path), bytes):
        raise ParameterError(f"parameter 'path' must be a file path, a str or a pathlib.Path "
                             f"(got {type(path).__name__} {_short(path)})")
    return ScenarioPoint(load_scenario_file(path).bind(**{n: _plain(v) for n, v in params.items()}),
                         (None, os.fspath(path)))


def shipped_scenario(name: str) -> Path:
    """The path of a scenario file shipped with the package (``"laplace"``: Scenario III), to
    read or to copy as the start of a new scenario.

    Raises
    ------
    fstheory.scenarios.declaration.ParameterError
        If no such file is shipped (the message lists those that are).
    """
    from fstheory.scenarios.declaration import ParameterError
    from fstheory.scenarios.scenario_file import shipped_scenario_files

    files = {p.stem: p for p in shipped_scenario_files()}
    if not isinstance(name, str) or name not in files:
        raise ParameterError(
            f"parameter 'name': no shipped scenario file {_short(name)} (shipped: "
            f"{', '.join(files)})"
        )
    return files[name]


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:50] + "..."


def scenario_names() -> list[str]:
    """The registered scenario names, the built-in ones first."""
    from fstheory.scenarios.registry import scenario_names as names

    return names()
