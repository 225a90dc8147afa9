"""The Monte Carlo study of Section 8: frequency with which each method's first two selected
features form a relevance-optimal pair, and the mean MI estimates, reproducibly and in parallel.

Plan of a study
---------------
For every scenario and sample size n the ``reps`` replications are cut into fixed chunks of
:func:`chunk_size` (n) replications (a function of n only). A chunk is one task: it draws the
base variables from ``numpy.random.Generator(PCG64(SeedSequence(seed, spawn_key=(crc32(scenario),
n, chunk))))``, evaluates the features, bins them once, and then, for every k, computes the class,
the estimates and the first two selections of every method row. The k values share the feature
draws (common random numbers; only the class changes). Results are reduced in chunk order, so a
seed gives bit-identical results whatever the number of jobs or the backend
(:func:`fstheory.parallel.run_tasks`: local processes or a Dask cluster).

A replication is a *hit* for a method row when its first |S| selected features form one of the
relevance-optimal sets S of the bound scenario, unordered (for the paper's scenarios the five
pairs of Section 5: (X, Y), (X, X-Y), (Y, X-Y), (aX+b, Y), (aX+b, X-Y)). The sets are data: by
default derived by the engine for every (scenario, parameters, k)
(:func:`fstheory.engine.relevance.relevance_optimal_sets`), or given by the caller
(``optimal_sets``); feature labels play no role. The frequency is hits/reps and its Monte Carlo
standard error sqrt(f (1 - f) / reps) (binomial).

Method rows (:data:`PAPER_ROWS`) are the 14 rows of the paper's Table "Relative frequency of the
optimal subsets": MIFS and MIFS-U with beta = 0, 0.4, 0.7, 1, then mRMR, mMIFS-U, MICC, QMIFS,
NMIFS and maxMIFS. With beta = 0 the redundancy term is 0 * (finite estimate) = 0 in floats (the
estimates are finite), so MIFS and MIFS-U with beta = 0 select by MI(C, V) alone, as Section 8
says ("beta = 0 removes the redundancy component").
"""

from __future__ import annotations

import math
import platform
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping

import numpy as np

from fstheory.parallel import Progress, run_tasks
from fstheory.orderings.methods import MethodError, get_method
from fstheory.simulation.errors import SimulationInputError
from fstheory.selection.estimators import BinnedBatch
from fstheory.selection.values import HistogramValues
from fstheory.selection.options import EstimatorOptions, SelectionOptions
from fstheory.scenarios.declaration import ParameterError, Scenario
from fstheory.simulation.scheduler import connected
from fstheory.simulation.sampler import Keyed, ScenarioSampler, resolve_scenario, scenario_fingerprint
from fstheory.selection.greedy import first_feature, greedy, set_hits

__all__ = [
    "PAPER_ROWS",
    "PAPER_SIZES",
    "PAPER_KS",
    "PAPER_SCENARIOS",
    "derive_optimal_sets",
    "MethodRow",
    "StudyResult",
    "MeanEstimates",
    "chunk_size",
    "chunk_plan",
    "run_study",
    "simulate",
    "mean_estimates",
    "MAX_N",
    "MAX_REPS",
    "parse_sizes",
    "parse_ks",
]

PAPER_SIZES = (50, 100, 500, 1000, 5000)
PAPER_KS = (0.2, 0.8)
PAPER_SCENARIOS = ("uniform", "normal")
PAPER_REPS = 5000
MAX_N = 1_000_000
MAX_REPS = 10_000_000

#: Replications x observations per chunk (memory of one chunk: about 10 x this many floats).
CHUNK_OBSERVATIONS = 250_000

@dataclass(frozen=True)
class MethodRow:
    """A row of the frequency table: a registered method, its beta (or None), its reading."""

    method: str
    beta: float | None = None
    reading: str | None = None

    @property
    def label(self) -> str:
        m = get_method(self.method)
        return m.display if self.beta is None else f"{m.display} (beta={self.beta:g})"


def _reading(row: MethodRow) -> str | None:
    """The effective reading of a row for methods whose table and text differ, else None."""
    m = get_method(row.method)
    return (row.reading or m.default_reading) if m.readings_differ else None


PAPER_ROWS = tuple(
    [MethodRow("mifs", b) for b in (0.0, 0.4, 0.7, 1.0)]
    + [MethodRow("mifs-u", b) for b in (0.0, 0.4, 0.7, 1.0)]
    + [MethodRow(m) for m in ("mrmr", "mmifs-u", "micc", "qmifs", "nmifs", "maxmifs")]
)


def chunk_size(n: int) -> int:
    """Replications per chunk for sample size n (fixed: the result must not depend on jobs)."""
    return max(1, CHUNK_OBSERVATIONS // n)


def chunk_plan(n: int, reps: int) -> list[tuple[int, int]]:
    """[(chunk index, replications in the chunk), ...] covering ``reps`` replications.

    >>> chunk_plan(5000, 120)
    [(0, 50), (1, 50), (2, 20)]
    """
    size = chunk_size(n)
    return [(c, min(size, reps - c * size)) for c in range(math.ceil(reps / size))]


def _scenario_key(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def chunk_rng(seed: int, scenario: str, n: int, chunk: int) -> np.random.Generator:
    """The generator of one chunk, keyed by (scenario, n, chunk) under the study seed."""
    ss = np.random.SeedSequence(seed, spawn_key=(_scenario_key(scenario), n, chunk))
    return np.random.Generator(np.random.PCG64(ss))


# ----- validation --------------------------------------------------------------------------------


def _int_in(name: str, value, lo: int, hi: int, extra: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise SimulationInputError(
                f"parameter '{name}' must be an integer in [{lo}, {hi}]{extra} (got {value!r})"
            )
    value = int(value)
    if not lo <= value <= hi:
        raise SimulationInputError(
            f"parameter '{name}' must be an integer in [{lo}, {hi}]{extra} (got {value})"
        )
    return value


def _sizes(sizes) -> tuple[int, ...]:
    if isinstance(sizes, (int, np.integer)) and not isinstance(sizes, bool):
        sizes = (sizes,)
    try:
        sizes = tuple(sizes)
    except TypeError:
        raise SimulationInputError(f"parameter 'sizes' must be a list of integers in [2, {MAX_N}] (got {sizes!r})") from None
    if not sizes:
        raise SimulationInputError(f"parameter 'sizes' must list at least one sample size in [2, {MAX_N}]")
    out = []
    for n in sizes:
        ok = isinstance(n, (int, np.integer)) and not isinstance(n, bool) and 2 <= n <= MAX_N
        if not ok:
            raise SimulationInputError(f"parameter 'sizes' must be integers in [2, {MAX_N}] (got {n!r})")
        out.append(int(n))
    out = tuple(out)
    if len(set(out)) != len(out):
        raise SimulationInputError(f"parameter 'sizes' must not repeat a sample size (got {list(out)})")
    return out


def _names(name: str, values, allowed_check) -> tuple:
    if isinstance(values, str):
        values = (values,)
    values = tuple(values)
    if not values:
        raise SimulationInputError(f"parameter '{name}' must not be empty")
    if len(set(map(str, values))) != len(values):
        raise SimulationInputError(f"parameter '{name}' must not repeat a value (got {list(values)})")
    for v in values:
        allowed_check(v)
    return values


def _ks(ks) -> tuple[float, ...]:
    if isinstance(ks, (int, float, str)) and not isinstance(ks, bool):
        ks = (ks,)
    out = []
    for k in ks:
        if isinstance(k, bool) or (isinstance(k, str) and not k.isascii()):  # float() reads '٠.٢'
            raise SimulationInputError(f"parameter 'k' must be a number in [0, 1] (got {k!r})")
        try:
            kf = float(k)
        except (TypeError, ValueError):
            raise SimulationInputError(f"parameter 'k' must be a number in [0, 1] (got {k!r})") from None
        if not (math.isfinite(kf) and 0 <= kf <= 1):
            raise SimulationInputError(f"parameter 'k' must be a number in [0, 1] (got {k!r})")
        out.append(kf)
    if not out:
        raise SimulationInputError("parameter 'k' must list at least one value in [0, 1]")
    if len(set(out)) != len(out):
        raise SimulationInputError(f"parameter 'k' must not repeat a value (got {out})")
    return tuple(out)


def _rows(rows) -> tuple[MethodRow, ...]:
    if rows is None:
        return PAPER_ROWS
    out = []
    for r in rows:
        if isinstance(r, MethodRow):
            row = r
        elif isinstance(r, str):
            row = MethodRow(r)
        elif isinstance(r, Mapping):
            row = MethodRow(r.get("method"), r.get("beta"), r.get("reading"))
        else:
            row = MethodRow(*r)
        try:
            m = get_method(row.method)
            beta, reading, _ = m.check(row.beta, row.reading)
        except MethodError as exc:
            raise SimulationInputError(str(exc)) from None
        out.append(MethodRow(m.key, None if beta is None else float(beta), row.reading))
    if not out:
        raise SimulationInputError("parameter 'methods' must list at least one method")
    return tuple(out)


def _params(scenarios, params) -> dict:
    params = {} if params is None else dict(params)
    for name in params:
        if name not in scenarios:
            raise SimulationInputError(
                f"parameter 'params' names scenario {name!r}, which is not simulated "
                f"(simulated: {', '.join(scenarios)})"
            )
        if "k" in params[name]:
            raise SimulationInputError("parameter 'params' must not set k (use parameter 'k')")
    return {s: {str(k): str(v) for k, v in params.get(s, {}).items()} for s in scenarios}


def derive_optimal_sets(bound) -> tuple[frozenset, ...]:
    """The relevance-optimal sets of a bound scenario, derived by the engine
    (:func:`fstheory.engine.relevance.relevance_optimal_sets`, minimal S with
    MI(C; S) = MI(C; all features)).

    The engine's refusal (``RelevanceUndecided``, with its reason) becomes a
    :class:`SimulationInputError`; any other exception is an internal error and propagates.
    """
    try:
        from fstheory.engine import relevance
    except ImportError:
        raise SimulationInputError(
            f"scenario '{bound.scenario.name}': the relevance-optimal sets cannot be derived in this "
            f"build (fstheory.engine.relevance is missing); the Python API takes them as data: "
            f"run_study(optimal_sets=...)"
        ) from None
    refusal = getattr(relevance, "RelevanceUndecided", None)
    try:
        return relevance.relevance_optimal_sets(bound, digits=30)
    except Exception as exc:
        if refusal is not None and isinstance(exc, refusal):
            raise SimulationInputError(
                f"scenario '{bound.scenario.name}': relevance-optimal sets not derived ({exc})"
            ) from None
        raise


def _check_sets(sets, name: str, n_features: int) -> tuple[frozenset, ...]:
    """Validate optimal sets: a non-empty collection of non-empty sets of feature indices."""
    bad = SimulationInputError(
        f"parameter 'optimal_sets' of scenario '{name}' must be a non-empty list of non-empty sets of "
        f"0-based feature indices in [0, {n_features}) (got {sets!r})"
    )
    try:
        out = tuple(frozenset(int(i) for i in S) for S in sets)
        ok = all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for S in sets for i in S)
    except (TypeError, ValueError):
        raise bad from None
    if not ok or not out or any(not S or min(S) < 0 or max(S) >= n_features for S in out):
        raise bad
    return tuple(dict.fromkeys(out))


def _optimal_sets(sampler: ScenarioSampler, given) -> tuple[frozenset, ...]:
    """The sets of one bound scenario: ``given`` (a mapping from scenario name to sets, or a
    callable of the bound scenario) or, when None, the engine's derivation."""
    bound = sampler.bound
    name = bound.scenario.name
    if given is None:
        sets = derive_optimal_sets(bound)
    elif callable(given):
        sets = given(bound)
    elif isinstance(given, Mapping):
        if name not in given:
            raise SimulationInputError(f"parameter 'optimal_sets' has no entry for scenario '{name}'")
        sets = given[name]
    else:
        raise SimulationInputError(
            f"parameter 'optimal_sets' must map scenario names to sets or be a function of the bound "
            f"scenario (got {given!r})"
        )
    return _check_sets(sets, name, sampler.n_features)


def parse_sizes(text: str) -> tuple[int, ...]:
    """'50,100,500' -> (50, 100, 500) for a command line; a bad item raises SimulationInputError.

    >>> parse_sizes("50, 100,5000")
    (50, 100, 5000)
    """
    items = [t.strip() for t in str(text).split(",")]
    out = []
    for t in items:
        if not (t.isascii() and t.isdigit()):  # int() would read Arabic-Indic digits
            raise SimulationInputError(
                f"parameter 'sizes' must be a comma-separated list of integers in [2, {MAX_N}] (got {text!r})"
            )
        out.append(int(t))
    return _sizes(out)


def parse_ks(text: str) -> tuple[float, ...]:
    """'0.2,0.8' -> (0.2, 0.8) for a command line; a bad item raises SimulationInputError.

    >>> parse_ks("0.2,0.8")
    (0.2, 0.8)
    """
    return _ks([t.strip() for t in str(text).split(",")])


# ----- one chunk ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    scenario: Scenario
    params: tuple  # ((name, value-string), ...) without k
    ks: tuple
    n: int
    chunk: int
    size: int
    seed: int
    rows: tuple
    estimator: EstimatorOptions
    selection: SelectionOptions
    zero_beta: str = "explicit"
    fingerprint: tuple | None = None
    optimal: tuple = ()  # per k: the relevance-optimal sets (frozensets of feature indices)


def _sampler(scenario: Scenario, params: tuple, k: float, fingerprint: tuple | None = None) -> ScenarioSampler:
    """Cached sampler. Jobs arrive in workers as unpickled copies, so the key is the scenario's
    fingerprint, computed once by the parent and carried by the job."""
    return _kept_sampler(Keyed(scenario, fingerprint or scenario_fingerprint(scenario)), params, k)


@lru_cache(maxsize=256)
def _kept_sampler(scenario: Keyed, params: tuple, k: float) -> ScenarioSampler:
    return ScenarioSampler.from_registry(scenario.value, {**dict(params), "k": repr(k)})


def _run_chunk(job: _Job) -> dict:
    """Hits per (k, row) and selection diagnostics of one chunk (a pure function of ``job``)."""
    samplers = [_sampler(job.scenario, job.params, k, job.fingerprint) for k in job.ks]
    rng = chunk_rng(job.seed, job.scenario.name, job.n, job.chunk)
    base = samplers[0].draw_base(rng, job.size, job.n)
    x = samplers[0].features(base)
    batch = BinnedBatch(x, job.estimator)
    F = x.shape[1]
    h = batch.entropy()
    out = {"hits": [], "first": [], "second": [], "stopped": []}
    for sampler, sets in zip(samplers, job.optimal):
        c = sampler.classes(base)
        mi_c = batch.mi_class(c)
        first = first_feature(mi_c, job.selection)
        # one lazy view per k, shared by the method rows: a row of pair estimates is computed
        # once, for the replications whose selection reaches that feature
        view = HistogramValues(batch, c, h=h, mi_c=mi_c)
        steps = min(F, max(2, max(len(S) for S in sets)))
        hits, second, stopped = [], [], []
        for row in job.rows:
            sel = greedy(view, row.method, row.beta, steps=steps, options=job.selection,
                         reading=row.reading, zero_beta=job.zero_beta, first=first)
            hits.append(int(set_hits(sel, sets).sum()))
            after = sel[:, 1] if steps > 1 else np.full(job.size, -1)
            second.append(np.bincount(after + 1, minlength=F + 1))  # slot 0: stopped
            stopped.append(int((sel[:, -1] < 0).sum()))
        out["hits"].append(hits)
        out["first"].append(np.bincount(first, minlength=F))
        out["second"].append(np.array(second))
        out["stopped"].append(stopped)
    return {k: np.asarray(v) for k, v in out.items()}


# ----- the study ---------------------------------------------------------------------------------


@dataclass
class StudyResult:
    """Result of :func:`run_study`.

    ``rows`` is the JSON-able list ``{"scenario", "k", "n", "method", "beta", "frequency", "se"}``
    (plus ``"hits"``, ``"reps"`` and ``"reading"``, the objective's written form for the methods
    whose table and text differ, else null); ``diagnostics`` has, per (scenario, k, n), the frequency of
    each first pick and, per method row, of each second pick; ``meta`` records every option.
    """

    rows: list
    diagnostics: list
    meta: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"meta": self.meta, "rows": self.rows}

    def frequency(self, scenario: str, k: float, n: int, method: str, beta: float | None = None,
                  reading: str | None = None) -> dict:
        """The row of one cell; ``reading`` None means the method's default reading."""
        want = _reading(MethodRow(method, beta, reading))
        for r in self.rows:
            if (r["scenario"], r["k"], r["n"], r["method"], r["beta"], r["reading"]) == (scenario, k, n, method, beta, want):
                return r
        raise KeyError((scenario, k, n, method, beta, reading))


def _study_input(make, *args):
    """``make(*args)``, an option of the selection, with a bad choice reported as the study's
    input error (the same one-line message)."""
    try:
        return make(*args)
    except ParameterError as exc:
        raise SimulationInputError(str(exc)) from None


def _validate_common(reps, seed, jobs):
    reps = _int_in("reps", reps, 1, MAX_REPS)
    seed = _int_in("seed", seed, 0, 2**63 - 1)
    if isinstance(jobs, (int, np.integer)) and not isinstance(jobs, bool) and int(jobs) == -1:
        jobs = -1
    else:
        jobs = _int_in("jobs", jobs, 1, 1024, " (or -1 for all cores)")
    return reps, seed, jobs


def run_study(
    scenarios: Iterable[str] = PAPER_SCENARIOS,
    k: Iterable[float] = PAPER_KS,
    sizes: Iterable[int] = PAPER_SIZES,
    reps: int = PAPER_REPS,
    seed: int = 0,
    jobs: int = 1,
    scheduler=None,
    methods=None,
    estimator: "Mapping[str, str] | EstimatorOptions | None" = None,
    ties: str = "exact",
    rtol: float = 1e-9,
    params: Mapping[str, Mapping[str, object]] | None = None,
    zero_beta: str = "explicit",
    progress: "Progress | None" = None,
    optimal_sets=None,
) -> StudyResult:
    """Frequency of a relevance-optimal first set for every (scenario, k, n, method row).

    Parameters
    ----------
    scenarios : names in the scenario registry or :class:`~fstheory.scenarios.declaration.Scenario`
        declarations (e.g. read from a scenario file); default: both of the paper
    k : class weights k in [0, 1] (default 0.2, 0.8)
    sizes : sample sizes n, integers in [2, MAX_N] (default 50, 100, 500, 1000, 5000)
    reps : replications per (scenario, n), in [1, MAX_REPS] (default 5000)
    seed : non-negative integer; the whole result is a function of it
    jobs : worker processes (joblib/loky), or -1 for all cores
    scheduler : Dask scheduler address (or a ``distributed.Client``): run through joblib's dask
        backend instead of local processes
    methods : rows, each a :class:`MethodRow`, a method name, ``(method, beta)`` or a mapping;
        default :data:`PAPER_ROWS`
    estimator : :class:`~fstheory.selection.options.EstimatorOptions` or a mapping of its fields
    ties, rtol : near-tie rule of the selection (:class:`~fstheory.selection.options.SelectionOptions`)
    params : optional extra scenario parameters per scenario, e.g. ``{"uniform": {"delta": 1}}``
    zero_beta : passed to the objectives ("explicit" or "drop"; the same in floats)
    progress : :class:`fstheory.parallel.Progress`, called as ``progress("observations", done,
        total)`` in observations (replications x n)
    optimal_sets : None (default: derived by the engine for every scenario and k, see
        :func:`derive_optimal_sets`), a mapping from scenario name to its sets (each an iterable
        of 0-based feature indices, of any size), or a function of the bound scenario returning
        them. A hit is a replication whose first |S| selected features form one of the sets.

    Raises
    ------
    SimulationInputError
        For any parameter outside its allowed range (the message names it).
    """
    if isinstance(scenarios, (str, Scenario)):
        scenarios = (scenarios,)
    objs = [resolve_scenario(s) for s in scenarios]
    scenarios = _names("scenario", [o.name for o in objs], lambda s: None)
    objs = dict(zip(scenarios, objs))
    ks = _ks(k)
    sizes = _sizes(sizes)
    reps, seed, jobs = _validate_common(reps, seed, jobs)
    rows = _rows(methods)
    est = _study_input(EstimatorOptions.from_mapping, estimator)
    sel = _study_input(SelectionOptions, ties, rtol)
    if zero_beta not in ("explicit", "drop"):
        raise SimulationInputError(f"parameter 'zero_beta' must be one of explicit, drop (got {zero_beta!r})")
    per_scenario = _params(scenarios, params)
    for s in scenarios:  # a scenario the float samplers cannot draw is refused before any work
        for kv in ks:
            sampler = _sampler(objs[s], tuple(sorted(per_scenario[s].items())), kv)
            base = sampler.draw_base(np.random.default_rng(0), 1, 64)
            sampler.features(base)
            sampler.classes(base)
    optimal = {
        s: tuple(_optimal_sets(_sampler(objs[s], tuple(sorted(per_scenario[s].items())), kv), optimal_sets)
                 for kv in ks)
        for s in scenarios
    }

    fingerprints = {s: scenario_fingerprint(objs[s]) for s in scenarios}
    jobs_list, weights = [], []
    for s in scenarios:
        ptuple = tuple(sorted(per_scenario[s].items()))
        for n in sizes:
            for chunk, size in chunk_plan(n, reps):
                jobs_list.append(_Job(objs[s], ptuple, ks, n, chunk, size, seed, rows, est, sel, zero_beta,
                                      fingerprints[s], optimal[s]))
                weights.append(size * n)
    with connected(scheduler) as client:
        results = run_tasks(_run_chunk, jobs_list, jobs=jobs, scheduler=client, progress=progress,
                            label="observations", weights=weights)

    # reduce in chunk order (integers: exact whatever the order, kept ordered anyway)
    acc: dict = {}
    for job, res in zip(jobs_list, results):
        key = (job.scenario.name, job.n)
        if key not in acc:
            acc[key] = {name: np.zeros_like(v) for name, v in res.items()}
        for name, v in res.items():
            acc[key][name] = acc[key][name] + v

    out_rows, diagnostics = [], []
    labels = {s: _sampler(objs[s], tuple(sorted(per_scenario[s].items())), ks[0]).labels for s in scenarios}
    for s in scenarios:
        for ki, kv in enumerate(ks):
            for n in sizes:
                a = acc[(s, n)]
                for ri, row in enumerate(rows):
                    hits = int(a["hits"][ki][ri])
                    f = hits / reps
                    out_rows.append({
                        "scenario": s, "k": kv, "n": n, "method": row.method, "beta": row.beta,
                        "frequency": f, "se": math.sqrt(f * (1 - f) / reps), "hits": hits, "reps": reps,
                        "reading": _reading(row),
                    })
                diagnostics.append({
                    "scenario": s, "k": kv, "n": n, "labels": labels[s],
                    "first": (a["first"][ki] / reps).tolist(),
                    "second": {
                        rows[ri].label: dict(zip(["(stopped)"] + labels[s], (a["second"][ki][ri] / reps).tolist()))
                        for ri in range(len(rows))
                    },
                })
    meta = {
        "seed": seed, "reps": reps, "sizes": list(sizes), "k": list(ks), "scenarios": list(scenarios),
        "params": per_scenario, "estimator": est.as_dict(), "selection": sel.as_dict(),
        "zero_beta": zero_beta,
        "optimal_sets": {s: {repr(kv): [sorted(S) for S in sets] for kv, sets in zip(ks, optimal[s])}
                         for s in scenarios},
        "methods": [{"method": r.method, "beta": r.beta, "reading": r.reading or get_method(r.method).default_reading} for r in rows],
        "chunk_observations": CHUNK_OBSERVATIONS, "numpy": np.__version__, "python": platform.python_version(),
    }
    return StudyResult(out_rows, diagnostics, meta)


def simulate(**kwargs) -> dict:
    """CLI-facing :func:`run_study`: returns ``{"meta": {...}, "rows": [...]}`` (JSON-able)."""
    return run_study(**kwargs).to_json()


# ----- mean estimates (Table "Estimated (mean of the) MI") ---------------------------------------

#: The quantities of the paper's mean-estimate table: ("class", j) is MI(C, V_{j+1}),
#: ("pair", i, j) is MI(V_{i+1}, V_{j+1}).
MEAN_QUANTITIES = (("class", 0), ("class", 1), ("class", 2), ("class", 3), ("pair", 0, 2), ("pair", 0, 3))


@dataclass(frozen=True)
class _MeanJob:
    scenario: Scenario
    params: tuple
    k: float
    n: int
    chunk: int
    size: int
    seed: int
    estimator: EstimatorOptions
    fingerprint: tuple | None = None


def _mean_chunk(job: _MeanJob) -> np.ndarray:
    """Per-quantity (sum, sum of squares) over the chunk's replications, shape (Q, 2)."""
    sampler = _sampler(job.scenario, job.params, job.k, job.fingerprint)
    rng = chunk_rng(job.seed, job.scenario.name, job.n, job.chunk)
    base = sampler.draw_base(rng, job.size, job.n)
    batch = BinnedBatch(sampler.features(base), job.estimator)
    mi_c = batch.mi_class(sampler.classes(base))
    rows_cache: dict = {}
    cols = []
    for q in MEAN_QUANTITIES:
        if q[0] == "class":
            cols.append(mi_c[:, q[1]])
        else:
            if q[1] not in rows_cache:
                rows_cache[q[1]] = batch.mi_rows(np.full(job.size, q[1]))
            cols.append(rows_cache[q[1]][:, q[2]])
    v = np.stack(cols, axis=-1)
    return np.stack([v.sum(axis=0), (v * v).sum(axis=0)], axis=-1)


@dataclass
class MeanEstimates:
    """Mean and Monte Carlo standard error of the quantities of :data:`MEAN_QUANTITIES`."""

    labels: list
    mean: list
    se: list
    meta: dict


def mean_estimates(
    scenario: str = "uniform",
    k: float = 0.2,
    n: int = 1000,
    reps: int = PAPER_REPS,
    seed: int = 0,
    jobs: int = 1,
    scheduler=None,
    estimator=None,
    params: Mapping[str, object] | None = None,
    progress: "Progress | None" = None,
) -> MeanEstimates:
    """Mean estimates of MI(C, V1..V4), MI(V1, V3), MI(V1, V4) (paper Table "Estimated (mean of
    the) MI", Scenario I, k = 0.2, n = 1000), on the same draws as :func:`run_study` with the
    same seed (chunks are keyed identically)."""
    scenario = resolve_scenario(scenario)
    (kv,) = _ks(k)
    n = _int_in("n", n, 2, MAX_N)
    reps, seed, jobs = _validate_common(reps, seed, jobs)
    est = _study_input(EstimatorOptions.from_mapping, estimator)
    ptuple = tuple(sorted(_params((scenario.name,), {scenario.name: params or {}})[scenario.name].items()))
    sampler = _sampler(scenario, ptuple, kv)
    fp = scenario_fingerprint(scenario)
    jobs_list = [_MeanJob(scenario, ptuple, kv, n, c, size, seed, est, fp) for c, size in chunk_plan(n, reps)]
    with connected(scheduler) as client:
        results = run_tasks(_mean_chunk, jobs_list, jobs=jobs, scheduler=client, progress=progress,
                            label="observations", weights=[j.size * n for j in jobs_list])
    total = np.zeros_like(results[0])
    for r in results:
        total = total + r
    mean = total[:, 0] / reps
    var = np.maximum(total[:, 1] / reps - mean**2, 0.0) * reps / max(reps - 1, 1)
    se = np.sqrt(var / reps)
    names = sampler.labels
    labels = [f"MI(C,{names[q[1]]})" if q[0] == "class" else f"MI({names[q[1]]},{names[q[2]]})" for q in MEAN_QUANTITIES]
    meta = {"scenario": scenario.name, "k": kv, "n": n, "reps": reps, "seed": seed, "estimator": est.as_dict()}
    return MeanEstimates(labels, mean.tolist(), se.tolist(), meta)
