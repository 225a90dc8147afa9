"""What ``fstheory atlas`` does with its arguments: check them, build the spec, run, print.

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

__all__ = ["run_atlas", "spec_from_args"]


def _fixed(args, scenario, vary) -> tuple:
    from fstheory.scenarios.overrides import NAMED_FLAGS, merge_overrides, parse_param_assignments

    named = {n: getattr(args, n, None) for n in NAMED_FLAGS}
    given = merge_overrides(named, parse_param_assignments(args.param))
    for name in vary:
        if name in given:
            raise ParameterError(f"parameter '{name}' is varied (--vary {name}) and also given a "
                                 f"value ({given[name]}): drop the value to vary it")
    for name in given:
        scenario.parameter(name)
    return tuple(sorted(given.items()))


def spec_from_args(args, digits: int) -> tuple[list[AtlasSpec], list]:
    """The spec(s) of the command line: one per --vary (checked), and the parsed ranges."""
    from fstheory.scenarios.registry import resolve_scenario

    name = None if args.scenario_file else (args.scenario or "uniform")
    scenario = resolve_scenario(name, args.scenario_file)
    method = get_method(args.method)
    vary = list(args.vary)
    if len(vary) > 2:
        raise ParameterError("parameter 'vary' can be given at most twice (a phase diagram)")
    if len(vary) == 2 and vary[0] == vary[1]:
        raise ParameterError(f"parameter 'vary': {vary[0]} is given twice")
    if len(args.range) > len(vary):
        raise ParameterError("parameter 'range': one --range per --vary at most")
    domains = [check_parameter(scenario, method.key, v) for v in vary]
    ranges = [parse_range(v, d, args.range[i] if i < len(args.range) else None)
              for i, (v, d) in enumerate(zip(vary, domains))]
    if "beta" in vary and args.beta is not None:
        raise ParameterError(f"parameter 'beta' is varied (--vary beta) and also given a value "
                             f"(--beta {args.beta}): drop --beta to vary it (a (k, beta) map is "
                             f"--vary k --vary beta without --beta)")
    fixed = _fixed(args, scenario, vary)
    beta = args.beta
    if "beta" not in vary:
        method.check(beta, args.reading, args.zero_beta, args.gamma)
    specs = [AtlasSpec(method=method.key, parameter=v, lo=r[0], hi=r[1], scenario=name,
                       scenario_file=args.scenario_file, fixed=fixed, beta=beta,
                       reading=args.reading, zero_beta=args.zero_beta, digits=digits,
                       gamma=args.gamma,
                       grid=args.grid) for v, r in zip(vary, ranges)]
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


def run_atlas(args, digits: int, dask_client=None, progress=None) -> int:
    """Check the arguments, then (within ``dask_client``, a context manager giving the Dask client
    of ``--scheduler`` or None) compute and print; ``progress``: a
    :class:`fstheory.parallel.Progress` (the command line's drawing)."""
    import contextlib

    if args.out is not None:  # checked before anything is computed, as `tables --out`
        from fstheory.atlas.figures import MAP_SUFFIXES
        from fstheory.reports.atomic import check_output_stem

        if len(args.vary) != 2:
            raise ParameterError(
                "parameter 'out': STEM.png, STEM.pdf and STEM.json draw a phase diagram, which "
                "needs two --vary (e.g. --vary k --vary beta); with one --vary the regions are "
                "printed (--json for the data)")
        check_output_stem(args.out, MAP_SUFFIXES)
    specs, _ = spec_from_args(args, digits)
    with dask_client if dask_client is not None else contextlib.nullcontext() as client:
        scheduler = client if client is not None else args.scheduler
        if len(specs) == 1:
            result = atlas(specs[0], jobs=args.jobs, scheduler=scheduler, progress=progress)
            print(json.dumps(result.to_json()) if args.json else result.text())
            return 0
        from fstheory.atlas.phase_map import phase_map

        pm = phase_map(specs, optimal_sets="derive", certify=None, jobs=args.jobs,
                       scheduler=scheduler, progress=progress)
    if args.out is not None:
        from fstheory.atlas.figures import write_map

        write_map(pm, args.out, title=map_title(specs[0]))
    print(json.dumps(pm.to_json()) if args.json else pm.text())
    return 0
