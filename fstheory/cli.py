"""The ``fstheory`` command: parse, validate, call, print. No mathematics here.

Exit codes (also in the README): 0 success; 1 an internal error (one line asking for a report,
the traceback with ``--debug``); 2 bad input (one line ``fstheory: error: ...`` naming the
parameter, or the file and line: every :class:`fstheory.errors.UserInputError`); 3 an ordering
that stopped because a value it needed is not computed; 130 interrupted (Ctrl-C); 143
terminated (SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import traceback

from fstheory.errors import UserInputError
from fstheory.signals import (Terminated, exit_code, interruption_behind, run_program,
                              sigterm_raises)

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_NOT_COMPUTED = 3

DESCRIPTION = """\
Exact entropies and mutual informations of analytic scenarios (continuous features, a binary
class), joint and conditional informations, the true feature orderings of twenty
mutual-information feature-selection methods (the paper's eight 2-D, six 3-D, and the six more
of FEAST and praznik) and how they change across the parameters, the theoretical tables of Pascoal, Oliveira, Pacheco and Valadas, "Theoretical
Evaluation of Feature Selection Methods based on Mutual Information", checked cell by cell, and
the paper's Monte Carlo study."""

EPILOG = """\
exit codes: 0 success; 1 internal error (please report it; --debug shows the traceback);
2 bad input (one line naming the parameter, or the file and line); 3 an ordering stopped at a
value that is not computed; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).
Python API: import fstheory; fstheory.scenario("uniform", k="0.2").values() (see the README)."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) raised as bad input (exit code 2)."""

    def error(self, message):  # noqa: D401 - argparse API
        raise _UsageError(message)


class _UsageError(UserInputError):
    """A command line argparse cannot read."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fstheory")
    except PackageNotFoundError:  # pragma: no cover - running from an uninstalled checkout
        return "unknown (not installed)"


#: an argument that reads as a negative number ('-1e-3', '-.5', '-1/3'): a value, not an option
_NEGATIVE_NUMBER = re.compile(r"-\.?\d")


def normalize_argv(argv: list[str]) -> tuple[list[str], bool]:
    """Prepare a command line for argparse; return it and whether ``--debug`` was given.

    ``--a -1e-3`` becomes ``--a=-1e-3`` (argparse takes ``-1e-3`` for an option and would
    say "expected one argument"), and ``--debug`` may stand anywhere.

    >>> normalize_argv(["values", "--a", "-1e-3", "--debug", "--k", "0.2"])
    (['values', '--a=-1e-3', '--k', '0.2'], True)
    """
    out: list[str] = []
    debug = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        if arg == "--debug":
            debug = True
        elif (arg.startswith("--") and "=" not in arg and i + 1 < len(argv)
              and _NEGATIVE_NUMBER.match(argv[i + 1])):
            out.append(f"{arg}={argv[i + 1]}")
            i += 1
        else:
            out.append(arg)
        i += 1
    return out, debug


# ----- options ------------------------------------------------------------------------------------


def _scenario_list() -> str:
    from fstheory.scenarios.registry import scenario_names

    return ", ".join(scenario_names())


def _add_scenario_args(p: argparse.ArgumentParser, names: str) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--scenario", default=None, metavar="NAME",
                     help=f"a registered scenario: {names} (default: uniform)")
    src.add_argument("--scenario-file", default=None, metavar="FILE",
                     help="a TOML scenario declaration instead (see docs/adding-a-scenario.md; "
                          "default: none)")
    p.add_argument("--k", default=None,
                   help="class weight k in [0, 1] (default: the scenario file's, if it declares "
                        "one; required otherwise, and for every registered scenario)")
    for name, hint in (("delta", "uniform half-width > 0 (default: the scenario's, 0.5)"),
                       ("sigma", "normal standard deviation > 0 (default: the scenario's, 1)"),
                       ("a", "slope of aX+b, != 0 (default: the scenario's, 3)"),
                       ("b", "intercept of aX+b (default: the scenario's, 1)"),
                       ("d", "shift of W+d (default: the scenario's, 2)")):
        p.add_argument(f"--{name}", default=None, help=hint)
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set any declared parameter, repeatable (default: none)")


def _digits_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--digits", default="30", help=f"{what}, 1-100 (default: 30)")


def _study_run_args(p: argparse.ArgumentParser) -> None:
    """Options shared by simulate and simulate-study (the paper ran 5000 replications)."""
    p.add_argument("--reps", default="5000", help="replications per sample size (default: 5000)")
    p.add_argument("--seed", default="0", help="seed of the random streams (default: 0)")
    p.add_argument("--jobs", default="1",
                   help="local worker processes (default: 1; at most the number of chunks of "
                        "work and two per core are started)")
    _scheduler_args(p)


def _scheduler_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a dask.distributed scheduler address, tcp://host:port or tls://host:port, "
                        "to run on instead of local processes; connected to before any "
                        "computing (default: none)")
    p.add_argument("--connect-timeout", dest="connect_timeout", default="10", metavar="SECONDS",
                   help="seconds to wait for the scheduler to answer before giving up with exit "
                        "code 2 (default: 10)")


def _add_method_args(p: argparse.ArgumentParser, methods: str) -> None:
    p.add_argument("--method", required=True,
                   help=f"one of {methods} (required)")
    p.add_argument("--beta", default=None,
                   help="beta in [0, 1], required by mifs, mifs-u and beta-gamma (which also "
                        "takes 1/|S|), refused by the others (default: none)")
    p.add_argument("--gamma", default=None,
                   help="gamma in [0, 1] or 1/|S|, required by beta-gamma, refused by the others "
                        "(default: none)")
    p.add_argument("--zero-beta", dest="zero_beta", default="explicit",
                   help="at beta = 0 (mifs, mifs-u) or a zero beta or gamma (beta-gamma): "
                        "'explicit' (0*inf is indeterminate, the paper's tables) or 'drop' (the "
                        "term is left out) (default: explicit)")
    p.add_argument("--reading", default=None,
                   help="written form of the objective: 'table' or 'text' for the 2-D methods; "
                        "'original', 'unified', 'interaction', 'fleuret' or 'feast' (as the "
                        "method has them) for the others (default: the method's, see "
                        "docs/orderings.md)")


def build_parser() -> argparse.ArgumentParser:
    from fstheory.orderings.methods import METHODS
    from fstheory.selection import options as so

    names = _scenario_list()
    methods = ", ".join(METHODS)
    parser = _Parser(prog="fstheory", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"fstheory {_version()}")
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error, print the traceback (may stand anywhere)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".",
                              allow_abbrev=False)

    p = command("values", "entropies and MIs of a scenario, to N digits")
    _add_scenario_args(p, names)
    _digits_arg(p, "significant digits")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--joint", action="store_true",
                   help="add H(C), MI(C;{Vi,Vj}), MI(C;Vi|Vj), MI(Vi;Vj|C) and H(Vi,Vj,C)")
    p.set_defaults(func=_cmd_values)

    p = command("order", "true feature ordering of a method (exact values, greedy rules)")
    _add_scenario_args(p, names)
    _add_method_args(p, methods)
    _digits_arg(p, "working digits of the exact values")
    p.add_argument("--explain", action="store_true", help="a readable account of every step")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_order)

    p = command("atlas", "a method's orderings across a parameter: regions and breakpoints "
                         "(two --vary: a phase diagram)")
    _add_scenario_args(p, names)
    _add_method_args(p, methods)
    p.add_argument("--vary", action="append", required=True, metavar="P",
                   help="parameter to sweep (k, beta, delta, ...); twice: k and beta, a phase "
                        "diagram (required)")
    p.add_argument("--range", action="append", default=[], metavar="LO:HI",
                   help="range of the swept parameter, one per --vary (default: [0, 1] for k, "
                        "beta and other parameters in [0, 1]; required for a parameter with an "
                        "unbounded domain, such as delta or sigma)")
    p.add_argument("--digits", default="20",
                   help="significant digits of breakpoints, 1-100 (default: 20)")
    p.add_argument("--grid", default="48",
                   help="sample points over the range before bracketing (default: 48)")
    p.add_argument("--jobs", default="1", help="local worker processes (default: 1)")
    _scheduler_args(p)
    p.add_argument("--out", default=None, metavar="STEM",
                   help="phase diagram: write STEM.png, STEM.pdf and STEM.json (default: none)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_atlas)

    p = command("tables", "regenerate the theoretical tables (Markdown, LaTeX, CSV, JSON)")
    p.add_argument("--out", default="reports",
                   help="output directory; its generated files are replaced all at once when "
                        "every table is computed (default: reports)")
    _digits_arg(p, "significant digits")
    p.add_argument("--scenario", action="append", default=[], metavar="NAME",
                   help=f"scenario to include, repeatable: {names} (default: all of them)")
    p.add_argument("--jobs", default="1",
                   help="worker processes computing the values; the files do not depend on it "
                        "(default: 1)")
    p.add_argument("--verify", action="store_true",
                   help="then write OUT/verification.md and print its summary as 'fstheory "
                        "verify --out OUT --digits N' does (N at least 10), in the same process, "
                        "from the values the tables computed; the exit code is then verify's")
    p.set_defaults(func=_cmd_tables)

    p = command("verify", "check every printed cell of the paper against the engine")
    p.add_argument("--out", default="reports",
                   help="directory of verification.md (default: reports)")
    _digits_arg(p, "working digits")
    p.set_defaults(func=_cmd_verify)

    p = command("simulate", "the Monte Carlo study of Section 8 (frequencies of "
                            "relevance-optimal first pairs)")
    p.add_argument("--scenario", action="append", default=[], metavar="NAME",
                   help=f"scenario, repeatable: {names} (default: uniform and normal)")
    p.add_argument("--scenario-file", action="append", default=[], metavar="FILE",
                   help="a TOML scenario declaration, repeatable (default: none)")
    p.add_argument("--k", default="0.2,0.8", help="class weights, comma separated (default: 0.2,0.8)")
    p.add_argument("--sizes", default="50,100,500,1000,5000",
                   help="sample sizes, comma separated (default: 50,100,500,1000,5000)")
    _study_run_args(p)
    defaults = so.EstimatorOptions()
    choices = (("joint", so.JOINT_GRIDS), ("conditional", so.CONDITIONALS), ("edges", so.EDGES))
    p.add_argument("--estimator", action="append", default=[], metavar="NAME=VALUE",
                   help="histogram estimator option, repeatable: "
                        + ", ".join(f"{n}={'|'.join(a)}" for n, a in choices)
                        + " (default: "
                        + ", ".join(f"{n}={getattr(defaults, n)}" for n, _ in choices)
                        + "; see the module fstheory.selection.options)")
    p.add_argument("--ties", default="exact",
                   help=f"near-tie rule of the selection, {'|'.join(so.TIES)}: 'exact' compares "
                        f"the float objectives plainly, 'relative' ties those within "
                        f"{so.SelectionOptions().rtol:g} (relative) of the best and the lower "
                        f"feature index wins (default: exact)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_simulate)

    p = command("simulate-study", "the full Monte Carlo study and its reports")
    p.add_argument("--out", default="reports/simulation",
                   help="output directory; its generated files are replaced all at once when "
                        "the study is done (default: reports/simulation)")
    _study_run_args(p)
    p.set_defaults(func=_cmd_simulate_study)
    return parser


# ----- commands -------------------------------------------------------------------------------------


def _cmd_values(args) -> int:
    from fstheory.reports.values_output import values_json, values_text
    from fstheory.requests import ScenarioChoice, ValuesRequest, run_values

    request = ValuesRequest(ScenarioChoice.from_args(args), args.digits)
    values = run_values(request)
    if args.json:
        print(json.dumps(values_json(values, request.digits, joint=args.joint)))
    else:
        print(values_text(values, request.digits, joint=args.joint))
    return EXIT_OK


def _cmd_order(args) -> int:
    from fstheory.orderings.explain import explain, summary, to_json
    from fstheory.requests import OrderRequest, ScenarioChoice, run_order

    result = run_order(OrderRequest(ScenarioChoice.from_args(args), args.method, args.beta,
                                    args.reading, args.zero_beta, args.digits, args.gamma))
    if args.json:
        print(json.dumps(to_json(result)))
    elif args.explain:
        print(explain(result))
    else:
        print(summary(result))
    return EXIT_NOT_COMPUTED if result.undecided else EXIT_OK


def _cmd_atlas(args) -> int:
    from fstheory.atlas.cli import run_atlas
    from fstheory.requests import AtlasRequest, scheduler_client

    request = AtlasRequest.from_args(args)
    return run_atlas(request, scheduler_client(request), _progress("atlas"))


def _cmd_tables(args) -> int:
    """The tables; with --verify, then what `fstheory verify` does, in this process
    (:func:`fstheory.requests.run_tables`); the exit code is then the verification's."""
    from fstheory.requests import TablesRequest, run_tables

    return run_tables(TablesRequest.from_args(args))


def _cmd_verify(args) -> int:
    from fstheory.requests import VerifyRequest, run_verify

    return run_verify(VerifyRequest(args.out, args.digits))  # 0: every disagreement documented


def _progress(prefix: str):
    from fstheory.parallel import progress_printer

    return progress_printer(prefix)


def _quantity_line():
    """A callback showing, on one updating stderr line, the numerical quantity being computed
    (nothing when stderr is not a terminal)."""
    if not sys.stderr.isatty():
        return None

    def show(what: str) -> None:
        sys.stderr.write(f"\r\033[Kcomputing {what[:100]} ...")
        sys.stderr.flush()

    return show


def _with_progress(func, args) -> int:
    """Run a command with the numerical quantities it computes shown on stderr (a terminal)."""
    show = _quantity_line()
    if show is None:
        return func(args)
    from fstheory.theory.numeric import announce_to

    try:
        with announce_to(show):
            return func(args)
    finally:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def _cmd_simulate(args) -> int:
    from fstheory.requests import SimulateRequest, run_simulate

    request = SimulateRequest.from_args(args)
    out = run_simulate(request, progress=_progress("simulate"))
    if request.json:
        print(json.dumps(out))
        return EXIT_OK
    print(f"{'scenario':<9} {'k':>4} {'n':>5}  {'method':<8} {'beta':>4}  frequency (se)")
    for r in out["rows"]:
        beta = "" if r["beta"] is None else r["beta"]
        print(f"{r['scenario']:<9} {r['k']:>4} {r['n']:>5}  {r['method']:<8} {beta:>4}  "
              f"{r['frequency']:.4f} ({r['se']:.4f})")
    return EXIT_OK


def _cmd_simulate_study(args) -> int:
    from fstheory.requests import StudyRequest, run_study

    s = run_study(StudyRequest.from_args(args), progress=_progress("study"))
    rep = s["reproduction"]
    print(f"{s['reproduced']}/{s['cells']} printed cells reproduced within 2 combined Monte Carlo "
          f"standard errors (any reading: {rep['any_2se']} at 2 SE, {rep['any_3se']} at 3 SE; "
          f"{rep['tie_decided']} cells decided by the X / 3X+1 tie); outputs in {s['out']}")
    return EXIT_OK


# ----- the entry point --------------------------------------------------------------------------


def _internal_error_line(exc: BaseException, argv: list[str]) -> str:
    detail = str(exc).strip().splitlines()
    detail = f": {detail[0][:200]}" if detail else ""
    command = shlex.join(["fstheory", *argv])
    return (f"fstheory: internal error ({type(exc).__name__}{detail}), a bug in fstheory: please "
            f"report it with the command `{command}` (add --debug for the traceback)")


def main(argv=None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args_in, debug = normalize_argv(argv)
    try:
        with sigterm_raises():
            return _run(argv, args_in, debug)
    except (KeyboardInterrupt, Terminated) as exc:  # a signal between the handlers
        return exit_code(exc, "fstheory")


def _run(argv, args_in, debug) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(args_in)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        return _with_progress(args.func, args)
    except UserInputError as exc:
        print(f"fstheory: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except (KeyboardInterrupt, Terminated) as exc:
        return exit_code(exc, "fstheory")
    except BrokenPipeError:  # output piped into a pager or `head` that closed early
        sys.stderr.close()
        return EXIT_OK
    except Exception as exc:
        cause = interruption_behind(exc)
        if cause is not None:  # a signal turned into another error by C code it passed through
            return exit_code(cause, "fstheory")
        if debug:
            traceback.print_exc()
        print(_internal_error_line(exc, argv), file=sys.stderr)
        return EXIT_INTERNAL


def entry() -> None:
    """The console script ``fstheory``: :func:`main` as the whole program
    (:func:`fstheory.signals.run_program`: a signal while the interpreter shuts down still
    exits 130 / 143)."""
    run_program(main, "fstheory")


if __name__ == "__main__":
    entry()
