"""The ``fstheory`` command: parse, validate, call, print. No mathematics here.

Every user error (an unknown scenario or method, a parameter outside its range, a malformed
scenario file) ends in one line ``fstheory: error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from scenarios.declaration import ParameterError

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit code 2."""

    def error(self, message):  # noqa: D401 - argparse API
        raise ParameterError(message)


def _add_scenario_args(p: argparse.ArgumentParser, k_required: bool = True) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--scenario", default=None, help="uniform (Scenario I) or normal (Scenario II)")
    src.add_argument("--scenario-file", default=None, metavar="FILE",
                     help="a TOML scenario declaration (see docs/adding-a-scenario.md)")
    p.add_argument("--k", required=k_required, help="class weight k in [0, 1]")
    for name, hint in (("delta", "uniform half-width > 0 (default 0.5)"),
                       ("sigma", "normal standard deviation > 0 (default 1)"),
                       ("a", "slope of aX+b, != 0 (default 3)"),
                       ("b", "intercept of aX+b (default 1)"),
                       ("d", "shift of W+d (default 2)")):
        p.add_argument(f"--{name}", default=None, help=hint)
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set any declared parameter (repeatable)")


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
    from scenarios.registry import get_scenario

    overrides = {}
    for item in args.param:
        if "=" not in item:
            raise ParameterError(f"--param expects NAME=VALUE (got {item!r})")
        name, value = item.split("=", 1)
        overrides[name.strip()] = value.strip()
    for name in ("k", "delta", "sigma", "a", "b", "d"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    if args.scenario_file:
        from scenarios.scenario_file import load_scenario_file

        scenario = load_scenario_file(args.scenario_file)
    else:
        scenario = get_scenario(args.scenario or "uniform")
    declared = {p.name for p in scenario.parameters}
    for name in list(overrides):
        if name not in declared:
            if name in ("delta", "sigma") and getattr(args, name, None) is not None:
                raise ParameterError(
                    f"parameter '{name}' does not apply to scenario '{scenario.name}' "
                    f"(its parameters: {', '.join(sorted(declared))})"
                )
            scenario.parameter(name)  # raises the standard unknown-parameter message
    return scenario.bind(**overrides)


def _cmd_values(args) -> int:
    from reports.values_output import values_json, values_text
    from scenarios.evaluate import evaluate

    digits = _digits(args.digits)
    bound = _bound_from_args(args)
    values = evaluate(bound, digits)
    if args.json:
        print(json.dumps(values_json(values, digits)))
    else:
        print(values_text(values, digits))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fstheory", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("values", help="entropies and MIs of a scenario, to N digits")
    _add_scenario_args(p)
    p.add_argument("--digits", default="30", help="significant digits (1-100, default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_values)
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


if __name__ == "__main__":
    sys.exit(main())
