"""What ``fstheory atlas`` does with its request: check it, build the spec, run, print.

Every bad input is a :class:`~fstheory.scenarios.declaration.ParameterError` naming the
parameter (exit 2): a parameter that cannot be varied, the same one varied twice, a range outside
its domain or with LO >= HI, a swept parameter also given a fixed value.
"""

from __future__ import annotations

import json

from fstheory.atlas.sweep import AtlasSpec, atlas, check_parameter, parse_range
from fstheory.atlas.numbers import as_exact
from fstheory.orderings.methods import get_method
from fstheory.scenarios.declaration import ParameterError, to_rational

__all__ = ["compute_atlas", "run_atlas", "spec_from_request"]


def _fixed(request, scenario, vary) -> tuple:
    given = dict(request.scenario.params)
    for name in vary:
        if name in given:
            raise ParameterError(f"parameter '{name}' is varied (--vary {name}) and also given a "
                                 f"value ({given[name]}): drop the value to vary it")
    for name in given:
        scenario.parameter(name)
    return tuple(sorted(given.items()))


def spec_from_request(request) -> tuple[list[AtlasSpec], list]:
    """The spec(s) of a :class:`fstheory.requests.AtlasRequest`: one per varied parameter
    (checked), and the parsed ranges."""
    choice = request.scenario
    name = choice.registered_name
    scenario = choice.scenario()
    method = get_method(request.method)
    vary = list(request.vary)
    if len(vary) > 2:
        raise ParameterError("parameter 'vary' can be given at most twice (a phase diagram)")
    if len(vary) == 2 and vary[0] == vary[1]:
        raise ParameterError(f"parameter 'vary': {vary[0]} is given twice")
    if len(request.ranges) > len(vary):
        raise ParameterError("parameter 'range': one --range per --vary at most")
    domains = [check_parameter(scenario, method.key, v) for v in vary]
    ranges = [parse_range(v, d, request.ranges[i] if i < len(request.ranges) else None)
              for i, (v, d) in enumerate(zip(vary, domains))]
    if "beta" in vary and request.beta is not None:
        raise ParameterError(f"parameter 'beta' is varied (--vary beta) and also given a value "
                             f"(--beta {request.beta}): drop --beta to vary it (a (k, beta) map is "
                             f"--vary k --vary beta without --beta)")
    fixed = _fixed(request, scenario, vary)
    beta = request.beta
    if "beta" not in vary:
        method.check(beta, request.reading, request.zero_beta, request.gamma)
    specs = [AtlasSpec(method=method.key, parameter=v, lo=r[0], hi=r[1], scenario=name,
                       scenario_file=choice.file, fixed=fixed, beta=beta,
                       reading=request.reading, zero_beta=request.zero_beta, digits=request.digits,
                       gamma=request.gamma,
                       grid=request.grid) for v, r in zip(vary, ranges)]
    point = dict(fixed)
    for s in specs:  # bind once: a fixed parameter out of its domain fails here, before the work
        if s.parameter != "beta":
            point[s.parameter] = as_exact(s.lo)  # exact: '1/10^1000' is no number to parse
    scenario.bind(**point)
    return specs, ranges


def map_title(spec: AtlasSpec) -> str:
    """The title of a phase diagram: scenario, method, reading and the fixed parameters."""
    from fstheory.scenarios.declaration import param_text
    from fstheory.scenarios.registry import resolve_scenario

    scenario = resolve_scenario(spec.scenario, spec.scenario_file)
    method = get_method(spec.method)
    parts = [f"{n}={param_text(to_rational(n, v))}" for n, v in spec.fixed]
    if spec.reading:
        parts.append(f"reading {spec.reading}")
    if spec.zero_beta != "explicit":
        parts.append(f"zero beta: {spec.zero_beta}")
    return (f"{scenario.title}\n{method.display}" + (f" ({', '.join(parts)})" if parts else ""))


def run_atlas(request, dask_client=None, progress=None) -> int:
    """Check the :class:`fstheory.requests.AtlasRequest`, then (within ``dask_client``, a
    context manager giving the Dask client of ``--scheduler`` or None) compute and print;
    ``progress``: a :class:`fstheory.parallel.Progress` (the command line's drawing)."""
    import contextlib

    if request.out is not None:  # checked before anything is computed, as `tables --out`
        from fstheory.atlas.figures import MAP_SUFFIXES
        from fstheory.reports.atomic import check_output_stem

        if len(request.vary) != 2:
            raise ParameterError(
                "parameter 'out': STEM.png, STEM.pdf and STEM.json draw a phase diagram, which "
                "needs two --vary (e.g. --vary k --vary beta); with one --vary the regions are "
                "printed (--json for the data)")
        check_output_stem(request.out, MAP_SUFFIXES)
    specs, _ = spec_from_request(request)
    with dask_client if dask_client is not None else contextlib.nullcontext() as client:
        scheduler = client if client is not None else request.scheduler
        result = compute_atlas(request, specs, scheduler=scheduler, progress=progress)
    if request.out is not None:
        from fstheory.atlas.figures import write_map

        write_map(result, request.out, title=map_title(specs[0]))
    print(json.dumps(result.to_json()) if request.json else result.text())
    return 0


def compute_atlas(request, specs=None, *, scheduler=None, progress=None):
    """The :class:`~fstheory.atlas.result.AtlasResult` of a request with one varied parameter,
    or the :class:`~fstheory.atlas.phase_map.PhaseMap` of one with two (``specs``: those of
    :func:`spec_from_request`, built here when not given)."""
    if specs is None:
        specs, _ = spec_from_request(request)
    if len(specs) == 1:
        return atlas(specs[0], jobs=request.jobs, scheduler=scheduler, progress=progress)
    from fstheory.atlas.phase_map import phase_map

    return phase_map(specs, optimal_sets="derive", certify=None, jobs=request.jobs,
                     scheduler=scheduler, progress=progress)
