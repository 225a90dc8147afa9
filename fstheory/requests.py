"""One request object per command, built and validated once from the command line or from Python.

Each command of ``fstheory`` (values, order, atlas, tables, verify, simulate, simulate-study) is
one frozen dataclass here. Its constructor validates every option and raises one
:class:`fstheory.errors.UserInputError` (a ``ValueError``) naming the parameter; the command line
builds the request from its argparse namespace (``from_args``) and prints that message as one
line with exit code 2, the Python API builds it from keyword arguments and lets the exception
rise. Both then call the same ``run_*`` function with the request, so the same bad option gives
the same message and the same good request the same result from either front.

Options are accepted as the command line writes them (text) or as Python values: ``digits=30``
and ``digits="30"`` are the same request.

Examples
--------
>>> ValuesRequest(digits="12").digits
12
>>> ValuesRequest(digits=0)
Traceback (most recent call last):
...
fstheory.scenarios.declaration.ParameterError: parameter 'digits' must be an integer in [1, 100] (got 0)
"""

from __future__ import annotations

import contextlib
import numbers
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fstheory.user_numbers import NumberTextError, parse_integer

if TYPE_CHECKING:
    from fstheory.scenarios.declaration import BoundScenario

__all__ = [
    "integer_option",
    "ScenarioChoice",
    "ValuesRequest",
    "OrderRequest",
    "RelevanceRequest",
    "AtlasRequest",
    "TablesRequest",
    "VerifyRequest",
    "SimulateRequest",
    "StudyRequest",
    "run_values",
    "run_order",
    "run_relevance",
    "run_tables",
    "run_verify",
    "scheduler_client",
    "run_simulate",
    "run_study",
]

#: the largest number of local worker processes a command accepts
MAX_JOBS = 1024

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def integer_option(value, name: str, low: int, high: int) -> int:
    """``value`` (a Python or numpy integer, or its text) as an int in ``[low, high]``.

    The message of a refusal is the same whether the value came as text (the command line) or
    as a number (Python): an integer is shown as it is written, anything else by its repr.

    >>> integer_option("12", "digits", 1, 100), integer_option(12, "digits", 1, 100)
    (12, 12)
    """
    from fstheory.scenarios.declaration import ParameterError

    def refused(shown: str) -> ParameterError:
        return ParameterError(
            f"parameter '{name}' must be an integer in [{low}, {high}] (got {shown})")

    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
        if low <= number <= high:
            return number
        raise refused(str(number) if number.bit_length() < 128
                      else f"{'-' if number < 0 else ''}~10^{int(abs(number).bit_length() * 0.30103)}")
    if not isinstance(value, str):
        raise refused(repr(value))
    try:
        return parse_integer(value, name, low, high)
    except NumberTextError as exc:
        text = value.strip()
        if text.isascii() and _INTEGER_TEXT.fullmatch(text) and len(text) <= 40:
            raise refused(text) from None
        raise ParameterError(str(exc)) from None


def _set(obj, name: str, value) -> None:
    """Store the validated form of an option on a frozen request (in ``__post_init__``)."""
    object.__setattr__(obj, name, value)


def _digits(obj, default_name: str = "digits") -> None:
    _set(obj, default_name, integer_option(getattr(obj, default_name), default_name, 1, 100))


def _bind(obj) -> None:
    """A request's ``bound``: given bound (the Python API), or a :class:`ScenarioChoice` (the
    command line) bound here."""
    if isinstance(obj.bound, ScenarioChoice):
        _set(obj, "bound", obj.bound.bind())


# ----- the scenario of a command -------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioChoice:
    """Which scenario a command works on, and its parameter overrides.

    ``name`` a registered scenario (default ``uniform``), or ``file`` a TOML declaration;
    ``params`` the overrides, (name, value) pairs (text as on the command line, or Python
    numbers), checked against the declaration when bound."""

    name: str | None = None
    file: str | None = None
    params: tuple = ()

    def __post_init__(self):
        from fstheory.scenarios.declaration import ParameterError

        if self.name is not None and self.file is not None:
            raise ParameterError("parameters 'scenario' and 'scenario_file' exclude each other: "
                                 "give one")
        _set(self, "params", tuple(self.params.items()) if isinstance(self.params, dict)
             else tuple(self.params))

    @classmethod
    def from_args(cls, args) -> ScenarioChoice:
        """From ``--scenario``, ``--scenario-file``, the named flags and ``--param``."""
        from fstheory.scenarios.overrides import (NAMED_FLAGS, merge_overrides,
                                                  parse_param_assignments)

        named = {n: getattr(args, n, None) for n in NAMED_FLAGS}
        params = merge_overrides(named, parse_param_assignments(args.param))
        return cls(args.scenario, args.scenario_file, tuple(params.items()))

    @property
    def registered_name(self) -> str | None:
        """The registered name asked for (``uniform`` when neither a name nor a file is given),
        None for a file."""
        if self.file is not None:
            return None
        return "uniform" if self.name is None else self.name

    def scenario(self):
        """The declaration (:func:`fstheory.scenarios.registry.resolve_scenario`)."""
        from fstheory.scenarios.registry import resolve_scenario

        return resolve_scenario(self.registered_name, self.file)

    def bind(self) -> BoundScenario:
        """The declaration bound at the overrides (the command line's rules: ``--k`` required
        where the declaration has no default)."""
        from fstheory.scenarios.overrides import bind_from_cli

        return bind_from_cli(self.scenario(), dict(self.params))


# ----- values, order, relevance -------------------------------------------------------------


@dataclass(frozen=True)
class ValuesRequest:
    """``fstheory values`` / :meth:`fstheory.ScenarioPoint.values`: every entropy and MI of
    ``bound`` (a bound scenario, or a :class:`ScenarioChoice` to bind) to ``digits``
    significant digits."""

    bound: Any = None
    digits: int = 30

    def __post_init__(self):
        _digits(self)
        _bind(self)


@dataclass(frozen=True)
class RelevanceRequest(ValuesRequest):
    """:meth:`fstheory.ScenarioPoint.relevance`: relevance classes and optimal sets (the
    options of a :class:`ValuesRequest`)."""


@dataclass(frozen=True)
class OrderRequest:
    """``fstheory order`` / :meth:`fstheory.ScenarioPoint.order`: the true ordering of
    ``method`` with its options (checked by :meth:`fstheory.orderings.methods.Method.check`
    before anything is computed)."""

    bound: Any = None
    method: str = ""
    beta: Any = None
    reading: str | None = None
    zero_beta: str = "explicit"
    digits: int = 30
    gamma: Any = None

    def __post_init__(self):
        from fstheory.orderings.methods import MethodError, get_method

        _digits(self)
        _bind(self)
        m = get_method(self.method)
        m.check(self.beta, self.reading, self.zero_beta, self.gamma)
        if self.zero_beta != "explicit" and not m.has_beta:
            raise MethodError(
                f"parameter 'zero_beta' = {self.zero_beta!r} applies only to methods with beta "
                f"(mifs, mifs-u, beta-gamma); {m.display} has no beta"
            )


def run_values(request: ValuesRequest):
    """:func:`fstheory.engine.evaluate.evaluate` of the request."""
    from fstheory.engine.evaluate import evaluate

    return evaluate(request.bound, request.digits)


def run_order(request: OrderRequest, values=None):
    """:func:`fstheory.orderings.order.order` of the request (``values``: the point's values at
    ``request.digits`` when the caller has them)."""
    from fstheory.orderings.order import order

    return order(request.bound, request.method, request.beta, reading=request.reading,
                 zero_beta=request.zero_beta, digits=request.digits, values=values,
                 gamma=request.gamma)


def run_relevance(request: RelevanceRequest, values=None):
    """:func:`fstheory.engine.relevance.classify` of the request."""
    from fstheory.engine.relevance import classify

    return classify(request.bound, request.digits, values=values)


# ----- tables, verify ------------------------------------------------------------------------


@dataclass(frozen=True)
class TablesRequest:
    """``fstheory tables``: the theoretical tables under ``out`` (``verify``: then
    verification.md from the same values, ``digits`` at least
    :data:`fstheory.reports.verify.MIN_DIGITS`)."""

    out: str = "reports"
    digits: int = 30
    scenarios: tuple = ()
    jobs: int = 1
    verify: bool = False

    def __post_init__(self):
        from fstheory.reports.verify import MIN_DIGITS
        from fstheory.scenarios.declaration import ParameterError

        _set(self, "jobs", integer_option(self.jobs, "jobs", 1, MAX_JOBS))
        _digits(self)
        _set(self, "scenarios", tuple(self.scenarios or ()))
        if self.verify and self.digits < MIN_DIGITS:
            raise ParameterError(f"parameter 'digits' must be at least {MIN_DIGITS} with --verify "
                                 f"(got {self.digits})")

    @classmethod
    def from_args(cls, args) -> TablesRequest:
        return cls(args.out, args.digits, tuple(args.scenario), args.jobs, args.verify)


@dataclass(frozen=True)
class VerifyRequest:
    """``fstheory verify``: every printed cell of the paper checked, OUT/verification.md."""

    out: str = "reports"
    digits: int = 30

    def __post_init__(self):
        _digits(self)


def run_tables(request: TablesRequest) -> int:
    """The tables; with ``verify``, then what :func:`run_verify` does, in this process: the
    values the tables computed are passed to it in their
    :class:`fstheory.reports.compute.PointStore`, not computed again, and the exit code is the
    verification's."""
    import sys

    from fstheory.reports.compute import PointStore
    from fstheory.reports.tables import main as tables_main

    store = PointStore()
    code = tables_main(request.out, request.digits, request.scenarios or None, request.jobs,
                       store=store)
    if not request.verify:
        return code
    print("fstheory tables: verification.md", file=sys.stderr, flush=True)
    return run_verify(VerifyRequest(request.out, request.digits), store=store)


def run_verify(request: VerifyRequest, store=None) -> int:
    """:func:`fstheory.reports.verify.main` (the values kept in ``store``, a
    :class:`fstheory.reports.compute.PointStore`, or computed): 0 when every disagreement is
    documented."""
    from fstheory.reports.verify import main as verify_main

    return verify_main(request.out, request.digits, store=store)


# ----- atlas ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AtlasRequest:
    """``fstheory atlas``: a method's orderings across one parameter (``vary`` of one name) or a
    phase diagram (two names); ``ranges`` "LO:HI" texts, one per varied parameter at most.
    The checks that need the scenario (domains, ranges, fixed values) are those of
    :func:`fstheory.atlas.cli.spec_from_request`."""

    scenario: ScenarioChoice = field(default_factory=ScenarioChoice)
    method: str = ""
    vary: tuple = ()
    ranges: tuple = ()
    beta: Any = None
    gamma: Any = None
    reading: str | None = None
    zero_beta: str = "explicit"
    digits: int = 20
    grid: int = 48
    jobs: int = 1
    scheduler: str | None = None
    connect_timeout: Any = "10"
    out: str | None = None
    json: bool = False

    def __post_init__(self):
        from fstheory.scenarios.declaration import ParameterError

        _set(self, "vary", tuple(self.vary))
        _set(self, "ranges", tuple(self.ranges))
        if not self.vary:
            raise ParameterError("parameter 'vary' is required (a parameter to sweep)")
        _set(self, "grid", integer_option(self.grid, "grid", 4, 100000))
        _set(self, "jobs", integer_option(self.jobs, "jobs", 1, MAX_JOBS))
        _digits(self)

    @classmethod
    def from_args(cls, args) -> AtlasRequest:
        return cls(ScenarioChoice.from_args(args), args.method, tuple(args.vary),
                   tuple(args.range), args.beta, args.gamma, args.reading, args.zero_beta,
                   args.digits, args.grid, args.jobs, args.scheduler, args.connect_timeout,
                   args.out, args.json)


# ----- the Monte Carlo study -------------------------------------------------------------


def _study_ints(request) -> None:
    from fstheory.simulation.study import MAX_REPS

    _set(request, "reps", integer_option(request.reps, "reps", 1, MAX_REPS))
    _set(request, "seed", integer_option(request.seed, "seed", 0, 2**63 - 1))
    _set(request, "jobs", integer_option(request.jobs, "jobs", 1, MAX_JOBS))


@dataclass(frozen=True)
class SimulateRequest:
    """``fstheory simulate``: frequencies of relevance-optimal first pairs (Section 8).
    ``scenarios`` registered names or declarations (a file given is read by ``from_args``);
    ``k`` and ``sizes`` comma-separated texts or sequences."""

    scenarios: tuple = ()
    k: Any = "0.2,0.8"
    sizes: Any = "50,100,500,1000,5000"
    reps: int = 5000
    seed: int = 0
    jobs: int = 1
    estimator: tuple = ()
    ties: str = "exact"
    scheduler: str | None = None
    connect_timeout: Any = "10"
    json: bool = False

    def __post_init__(self):
        from fstheory.simulation.study import PAPER_SCENARIOS, parse_ks, parse_sizes

        _set(self, "scenarios", tuple(self.scenarios) or tuple(PAPER_SCENARIOS))
        _set(self, "k", tuple(parse_ks(self.k)) if isinstance(self.k, str) else tuple(self.k))
        _set(self, "sizes", tuple(parse_sizes(self.sizes)) if isinstance(self.sizes, str)
             else tuple(self.sizes))
        _study_ints(self)
        _set(self, "estimator", _estimator_options(self.estimator))

    @classmethod
    def from_args(cls, args) -> SimulateRequest:
        from fstheory.scenarios.scenario_file import load_scenario_file

        scenarios = list(args.scenario) + [load_scenario_file(f) for f in args.scenario_file]
        return cls(tuple(scenarios), args.k, args.sizes, args.reps, args.seed, args.jobs,
                   tuple(args.estimator), args.ties, args.scheduler, args.connect_timeout,
                   args.json)

    def options(self) -> dict:
        """The keyword arguments of :func:`fstheory.simulation.study.simulate`."""
        return dict(scenarios=list(self.scenarios), k=self.k, sizes=self.sizes,
                    reps=self.reps, seed=self.seed, jobs=self.jobs,
                    estimator=dict(self.estimator), ties=self.ties)


@dataclass(frozen=True)
class StudyRequest:
    """``fstheory simulate-study``: the full study and its reports under ``out``."""

    out: str = "reports/simulation"
    reps: int = 5000
    seed: int = 0
    jobs: int = 1
    scheduler: str | None = None
    connect_timeout: Any = "10"

    def __post_init__(self):
        _study_ints(self)

    @classmethod
    def from_args(cls, args) -> StudyRequest:
        return cls(args.out, args.reps, args.seed, args.jobs, args.scheduler,
                   args.connect_timeout)


@contextlib.contextmanager
def scheduler_client(request):
    """The Dask client of ``request.scheduler`` (None without one), connected within
    ``request.connect_timeout`` seconds or refused (a :class:`fstheory.errors.UserInputError`),
    closed at the end; the timeout is checked even without a scheduler."""
    from fstheory.simulation.scheduler import connect, parse_timeout

    timeout = parse_timeout(request.connect_timeout, "connect-timeout")
    if request.scheduler is None:
        yield None
        return
    client = connect(request.scheduler, timeout)
    try:
        yield client
    finally:
        client.close()


def run_simulate(request: SimulateRequest, progress=None) -> dict:
    """:func:`fstheory.simulation.study.simulate` of the request (on its scheduler, if any):
    ``{"meta": ..., "rows": [...]}``, what ``fstheory simulate --json`` prints."""
    from fstheory.simulation.study import simulate

    with scheduler_client(request) as client:
        return simulate(**request.options(), scheduler=client, progress=progress)


def run_study(request: StudyRequest, progress=None) -> dict:
    """:func:`fstheory.simulation.report.reproduce` of the request: the full study, its reports
    written under ``request.out``; the summary ``fstheory simulate-study`` prints from."""
    from fstheory.simulation.report import reproduce

    with scheduler_client(request) as client:
        return reproduce(out=request.out, reps=request.reps, seed=request.seed,
                         jobs=request.jobs, scheduler=client, progress=progress)


def _estimator_options(items) -> tuple:
    """``NAME=VALUE`` texts (or a mapping) as sorted-by-appearance (name, value) pairs."""
    from fstheory.scenarios.declaration import ParameterError

    if isinstance(items, dict):
        return tuple(items.items())
    out = {}
    for item in items:
        if isinstance(item, tuple) and len(item) == 2:
            out[item[0]] = item[1]
            continue
        if not isinstance(item, str) or "=" not in item:
            raise ParameterError(f"--estimator expects NAME=VALUE (got {item!r})")
        name, value = item.split("=", 1)
        out[name.strip()] = value.strip()
    return tuple(out.items())
