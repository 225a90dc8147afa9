"""The ``fstheory`` command: parse, validate, call, print. No mathematics here.

Every user error (an unknown scenario or method, a parameter outside its range, a malformed
scenario file) ends in one line ``fstheory: error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from fstheory.scenarios.declaration import ParameterError

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit code 2."""

    def error(self, message):  # noqa: D401 - argparse API
        raise ParameterError(message)


def _add_scenario_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--scenario", default=None, help="uniform (Scenario I) or normal (Scenario II)")
    src.add_argument("--scenario-file", default=None, metavar="FILE",
                     help="a TOML scenario declaration (see docs/adding-a-scenario.md)")
    p.add_argument("--k", default=None,
                   help="class weight k in [0, 1] (required unless the scenario declares a default)")
    for name, hint in (("delta", "uniform half-width > 0 (default 0.5)"),
                       ("sigma", "normal standard deviation > 0 (default 1)"),
                       ("a", "slope of aX+b, != 0 (default 3)"),
                       ("b", "intercept of aX+b (default 1)"),
                       ("d", "shift of W+d (default 2)")):
        p.add_argument(f"--{name}", default=None, help=hint)
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set any declared parameter (repeatable)")


def _add_method_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", required=True,
                   help="mifs, mifs-u, mrmr, mmifs-u, micc, qmifs, nmifs, maxmifs")
    p.add_argument("--beta", default=None, help="beta in [0, 1] (mifs, mifs-u only)")
    p.add_argument("--zero-beta", dest="zero_beta", default="explicit",
                   help="beta = 0: 'explicit' (0*inf is indeterminate, the paper's tables) or 'drop'")
    p.add_argument("--reading", default=None,
                   help="'table' or 'text' grouping of the objective (default: the method's)")


def _digits(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise ParameterError(f"parameter 'digits' must be an integer in [1, 100] (got {text!r})")
    if not 1 <= n <= 100:
        raise ParameterError(f"parameter 'digits' must be an integer in [1, 100] (got {n})")
    return n


def _bound_from_args(args):
    """The bound scenario named or declared by the arguments, with overrides applied."""
    from fstheory.scenarios.overrides import (
        NAMED_FLAGS,
        bind_from_cli,
        merge_overrides,
        parse_param_assignments,
    )
    from fstheory.scenarios.registry import resolve_scenario

    name = None if args.scenario_file else (args.scenario or "uniform")
    scenario = resolve_scenario(name, args.scenario_file)
    named = {n: getattr(args, n, None) for n in NAMED_FLAGS}
    return bind_from_cli(scenario, merge_overrides(named, parse_param_assignments(args.param)))


def _cmd_values(args) -> int:
    from fstheory.reports.values_output import values_json, values_text
    from fstheory.scenarios.evaluate import evaluate

    digits = _digits(args.digits)
    bound = _bound_from_args(args)
    values = evaluate(bound, digits)
    if args.json:
        print(json.dumps(values_json(values, digits)))
    else:
        print(values_text(values, digits))
    return 0


def _cmd_order(args) -> int:
    from fstheory.orderings.explain import explain, summary, to_json
    from fstheory.orderings.order import order

    digits = _digits(args.digits)
    bound = _bound_from_args(args)
    result = order(bound, args.method, args.beta, reading=args.reading,
                   zero_beta=args.zero_beta, digits=digits)
    if args.json:
        print(json.dumps(to_json(result)))
    elif args.explain:
        print(explain(result))
    else:
        print(summary(result))
    return 0


def _cmd_atlas(args) -> int:
    from fstheory.orderings.atlas_cli import run_atlas

    return run_atlas(args, _digits(args.digits))


def _cmd_tables(args) -> int:
    from fstheory.reports.tables import main as tables_main

    return tables_main(args.out, _digits(args.digits), args.scenario or None)


def _cmd_verify(args) -> int:
    from fstheory.reports.verify import main as verify_main

    return verify_main(args.out, _digits(args.digits))  # 0: every disagreement documented


def _progress_bar(label: str):
    """A progress callback drawing one updating line on stderr (nothing when not a terminal)."""
    if not sys.stderr.isatty():
        return None

    def bar(done: int, total: int) -> None:
        frac = done / total if total else 1.0
        filled = int(30 * frac)
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (30 - filled)}] {100 * frac:5.1f}%")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return bar


def _estimator_options(items) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise ParameterError(f"--estimator expects NAME=VALUE (got {item!r})")
        name, value = item.split("=", 1)
        out[name.strip()] = value.strip()
    return out


def _cmd_simulate(args) -> int:
    from fstheory.scenarios.scenario_file import load_scenario_file
    from fstheory.simulation.study import PAPER_SCENARIOS, parse_ks, parse_sizes, simulate

    scenarios = (args.scenario or []) + [load_scenario_file(f) for f in args.scenario_file]
    out = simulate(
        scenarios=scenarios or list(PAPER_SCENARIOS), k=parse_ks(args.k),
        sizes=parse_sizes(args.sizes), reps=args.reps, seed=args.seed, jobs=args.jobs,
        scheduler=args.scheduler, estimator=_estimator_options(args.estimator), ties=args.ties,
        progress=_progress_bar("simulate"),
    )
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{'scenario':<9} {'k':>4} {'n':>5}  {'method':<8} {'beta':>4}  frequency (se)")
    for r in out["rows"]:
        beta = "" if r["beta"] is None else r["beta"]
        print(f"{r['scenario']:<9} {r['k']:>4} {r['n']:>5}  {r['method']:<8} {beta:>4}  "
              f"{r['frequency']:.4f} ({r['se']:.4f})")
    return 0


def _cmd_simulate_study(args) -> int:
    from fstheory.simulation.report import reproduce

    s = reproduce(out=args.out, seed=args.seed, reps=args.reps, jobs=args.jobs,
                  scheduler=args.scheduler, progress=_progress_bar("study"))
    print(f"{s['reproduced']}/{s['cells']} printed cells reproduced within Monte Carlo error; "
          f"outputs in {s['out']}")
    return 0


def _int(name: str, low: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or v < low:
            raise argparse.ArgumentTypeError(
                f"parameter '{name}' must be an integer >= {low} (got {text!r})")
        return v

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fstheory", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("values", help="entropies and MIs of a scenario, to N digits")
    _add_scenario_args(p)
    p.add_argument("--digits", default="30", help="significant digits (1-100, default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_values)

    p = sub.add_parser("order", help="true feature ordering of a method (exact values, greedy rules)")
    _add_scenario_args(p)
    _add_method_args(p)
    p.add_argument("--digits", default="30", help="working digits of the exact values (default 30)")
    p.add_argument("--explain", action="store_true", help="a readable account of every step")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_order)

    p = sub.add_parser("atlas", help="a method's orderings across a parameter: regions and "
                                      "breakpoints (two --vary: a phase diagram)")
    _add_scenario_args(p)
    _add_method_args(p)
    p.add_argument("--vary", action="append", required=True, metavar="P",
                   help="parameter to sweep (k, beta, delta, ...); twice: k and beta, a phase diagram")
    p.add_argument("--range", action="append", default=[], metavar="LO:HI",
                   help="range of the swept parameter (default its domain [0, 1]); one per --vary")
    p.add_argument("--digits", default="20", help="significant digits of breakpoints (default 20)")
    p.add_argument("--grid", type=_int("grid", 4), default=48,
                   help="sample points over the range before bracketing (default 48)")
    p.add_argument("--jobs", type=_int("jobs", 1), default=1)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a dask.distributed scheduler (joblib's dask backend)")
    p.add_argument("--out", default=None, metavar="STEM",
                   help="phase diagram: write STEM.png, STEM.pdf and STEM.json (boundaries)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_atlas)

    p = sub.add_parser("tables", help="regenerate the theoretical tables (Markdown, LaTeX, CSV, JSON)")
    p.add_argument("--out", default="reports", help="output directory (default: reports)")
    p.add_argument("--digits", default="30", help="significant digits (1-100, default 30)")
    p.add_argument("--scenario", action="append", default=[], metavar="NAME",
                   help="scenario to include, repeatable (default: every registered scenario)")
    p.set_defaults(func=_cmd_tables)

    p = sub.add_parser("verify", help="check every printed cell of the paper against the engine")
    p.add_argument("--out", default="reports", help="where verification.md is written")
    p.add_argument("--digits", default="30", help="working digits (default 30)")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("simulate", help="the Monte Carlo study of Section 8 (frequencies of "
                                         "relevance-optimal first pairs)")
    p.add_argument("--scenario", action="append", help="uniform, normal, ... (repeatable)")
    p.add_argument("--scenario-file", action="append", default=[], metavar="FILE")
    p.add_argument("--k", default="0.2,0.8", help="class weights, comma separated")
    p.add_argument("--sizes", default="50,100,500,1000,5000", help="sample sizes, comma separated")
    p.add_argument("--reps", type=_int("reps", 1), default=5000)
    p.add_argument("--seed", type=_int("seed", 0), default=0)
    p.add_argument("--jobs", type=_int("jobs", 1), default=1)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a dask.distributed scheduler (joblib's dask backend)")
    p.add_argument("--estimator", action="append", default=[], metavar="NAME=VALUE",
                   help="estimator option, e.g. joint=product (see simulation/options.py)")
    p.add_argument("--ties", default="exact", help="exact or tolerance (near-tie rule)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("simulate-study", help="the full study and its reports")
    p.add_argument("--out", default="reports/simulation")
    p.add_argument("--reps", type=_int("reps", 1), default=5000)
    p.add_argument("--seed", type=_int("seed", 0), default=0)
    p.add_argument("--jobs", type=_int("jobs", 1), default=1)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS")
    p.set_defaults(func=_cmd_simulate_study)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        return args.func(args)
    except ParameterError as exc:
        print(f"fstheory: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:  # validation errors of the engine's public functions
        print(f"fstheory: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into a pager or `head` that closed early
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
