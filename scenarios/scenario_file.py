"""Read a scenario declared in a TOML file into a :class:`~fstheory.scenarios.declaration.Scenario`.

The file is data: it is read with :mod:`tomllib`, every expression in it is parsed by the
whitelisted grammar of :mod:`fstheory.scenarios.grammar` (never ``eval`` or ``sympify``), and anything
outside the schema below is rejected with one :class:`ScenarioFileError` naming the file, the
line, the key and what was expected there. The engine (:mod:`fstheory.engine.evaluate`) then treats the
declaration like a built-in one; a file cannot carry closed forms, so what is not derived from
the laws is computed by the numerical route.

Schema
------
Top level::

    name        = "laplace"        # required; letters, digits, '_', '-', '.'; used in output names
    title       = "Scenario III"   # required; one line for tables and reports
    source      = "..."            # optional; where the scenario comes from
    description = "..."            # optional; free text, not used by the engine

``[parameters.<name>]`` (optional, one table per parameter; names are identifiers, not one of the
functions ``abs exp log sqrt`` and not a Python keyword)::

    default     = "1/2"            # optional; integer, float or string ("0.2", "1/5", "1e-3"),
                                   # read exactly (0.2 is 1/5); no default = required on the CLI
    domain      = "positive"       # optional; real (default) | positive | nonzero | unit ([0, 1])
    description = "..."            # optional

``[base.<VAR>]`` (required, one table per independent base variable)::

    law = "laplace"                # uniform | normal | laplace | logistic | exponential
                                   # (fstheory.theory.laws.BASE_LAWS)
    mu  = "0"                      # the law's own parameters, each an expression of the
    b   = "scale"                  # scenario's parameters (or a number):
                                   #   uniform: low, high    normal: mu, sigma
                                   #   laplace: mu, b        logistic: mu, s
                                   #   exponential: rate

The keys inside a ``[base.<VAR>]`` table are the *law's* parameter names; the values are
expressions over the *scenario's* parameters. So Laplace's scale key is ``b`` even when the
scenario also has a parameter ``b`` (Scenario III names its Laplace scale ``scale`` for that
reason: ``b = "scale"``).

``[[features]]`` (required, at least one, in order V1, V2, ...)::

    expr     = "a*X + b"           # required; an expression of base variables and parameters
    label    = "aX+b"              # optional; defaults to expr without spaces; unique
    template = "{a}X{+b}"          # optional; display label with parameter values filled in
                                   #   ({a}: coefficient, '' for 1 and '-' for -1;
                                   #    {+b}: signed term, dropped when 0)

``[class]`` (required)::

    rule = "X + k*Y >= 0"          # C = 1 when the rule holds

The rule is one comparison (``>=``, ``>``, ``<=``, ``<``) whose two sides differ by a polynomial
in the base variables, of degree at most 2 in each, with coefficients that depend on parameters
and numbers only: linear thresholds (``X + k*Y >= 0``, ``2*X - Y <= a``), products and signs
(``X*Y >= 0``, ``X*Y*Z >= 0``) and quadratic forms (``X^2 + Y^2 <= r``); not ``abs(X) >= k``
(write ``X^2 >= k^2``) nor ``X^3 >= Y``. A linear rule is stored as ``C = 1{sum_V w_V V >= t}``,
another as ``C = 1{F >= 0}``; ``>`` and ``>=`` give the same class almost surely (the base laws
are continuous), and ``<=``/``<`` are stored with the signs flipped.

Checks at load time (each failing one raises :class:`ScenarioFileError`): valid TOML; no unknown
or missing key; value types; names well formed and unique (parameters, base variables and
feature labels; no name both a parameter and a base variable); defaults inside their domains;
known law and exactly its parameters; law parameters free of base variables; each law valid at
the declared defaults (:meth:`fstheory.theory.laws.Law.check`: scales > 0, low < high); every feature an
expression of declared names that uses a base variable and does not refer to another feature;
label templates that name declared parameters only; every feature real on the support of its
base variables where the laws' supports are known at the defaults (``log(Y)`` or ``sqrt(Y)``
with Y normal is refused; supports that depend on parameters without defaults are checked when
the scenario is bound); the class rule a polynomial of degree <= 2 in each base variable. Limits:
:data:`MAX_FILE_BYTES` bytes (a regular file: FIFOs and devices are refused without waiting on
them), :data:`MAX_TOML_DEPTH` levels of nested tables and arrays, :data:`MAX_ITEMS` parameters,
base variables and features each, and the grammar's limits per expression.

Examples
--------
>>> from fstheory.scenarios.scenario_file import load_scenario_file, shipped_scenario_path
>>> s = load_scenario_file(shipped_scenario_path("laplace"))
>>> s.name, [p.name for p in s.parameters]
('laplace', ['scale', 'k', 'a', 'b', 'd'])
>>> s.base[s.features[0].expr]
Laplace(0, scale)
>>> s.class_rule.describe()
'C = 1{X + Y*k >= 0}'
"""

from __future__ import annotations

import os
import stat
import sys
import tomllib
from pathlib import Path

import sympy as sp

from fstheory.scenarios.declaration import Scenario
from fstheory.user_numbers import MAX_VALUE_DIGITS
from fstheory.scenarios.file_schema import MAX_ITEMS, SchemaReader, build_scenario
from fstheory.scenarios.toml_text import (
    MAX_TOML_DEPTH,
    KeyLines,
    ScenarioFileError,
    deepest_key,
    longest_number_line,
    nesting_error,
    toml_error,
)

__all__ = [
    "ScenarioFileError",
    "load_scenario_file",
    "parse_scenario_text",
    "shipped_scenario_path",
    "shipped_scenario_files",
    "describe",
    "MAX_FILE_BYTES",
    "MAX_TOML_DEPTH",
    "MAX_ITEMS",
]

#: largest accepted scenario file
MAX_FILE_BYTES = 256 * 1024


def shipped_scenario_path(name: str) -> Path:
    """The scenario file shipped with the package as ``scenarios/<name>.toml``."""
    return Path(__file__).with_name(f"{name}.toml")


def shipped_scenario_files() -> list[Path]:
    """All scenario files shipped with the package, sorted by name."""
    return sorted(Path(__file__).parent.glob("*.toml"))


def load_scenario_file(path: str | Path) -> Scenario:
    """Read and validate a scenario file.

    Raises
    ------
    ScenarioFileError
        With the file, the line and what was expected, for any problem (see the module
        docstring for the schema and the checks).
    """
    shown = str(path)
    data = _read_limited(shown, Path(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ScenarioFileError(shown, line, "", "not valid UTF-8 text (expected a TOML file)") from None
    return parse_scenario_text(text, shown)


_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _file_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)", ...), None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _FILE_KINDS if test(mode)), "not a regular file")


def _read_limited(shown: str, path: Path) -> bytes:
    """At most :data:`MAX_FILE_BYTES` bytes of a regular file, never blocking.

    The type is checked with ``os.stat`` before opening (a FIFO, device, socket or directory is
    refused: opening a FIFO waits for a writer, and a device's size says nothing about what it
    yields), then again on the open descriptor, which is opened non-blocking. The size is
    enforced by reading at most one byte more than the limit, not by trusting ``st_size``.
    """

    def refuse(message: str) -> ScenarioFileError:
        return ScenarioFileError(shown, 0, "", message)

    try:
        kind = _file_kind(os.stat(path).st_mode)
        if kind is not None:
            raise refuse(f"cannot read the file: it is {kind} (expected a regular TOML file)")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise refuse(f"cannot read the file ({exc.strerror})") from None
    try:
        kind = _file_kind(os.fstat(fd).st_mode)  # the path may have been replaced meanwhile
        if kind is not None:
            raise refuse(f"cannot read the file: it is {kind} (expected a regular TOML file)")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise refuse(f"cannot read the file ({exc.strerror})") from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise refuse(f"file too large (more than {MAX_FILE_BYTES} bytes, at most {MAX_FILE_BYTES})")
    return b"".join(chunks)


def parse_scenario_text(text: str, path: str = "<string>") -> Scenario:
    """Read a scenario from TOML text; ``path`` is only used in error messages."""
    error = nesting_error(text, path)
    if error is not None:
        raise error
    keys = KeyLines(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_error(exc, text, keys, path) from None
    except ValueError:  # an integer past Python's limit on the digits of int(str)
        raise ScenarioFileError(
            path, longest_number_line(text), "",
            f"a number with too many digits (expected at most {MAX_VALUE_DIGITS})") from None
    deep = deepest_key(data)
    if deep is not None:
        raise ScenarioFileError(
            path, keys.line(deep[: MAX_TOML_DEPTH]), "",
            f"keys nested too deeply (expected at most {MAX_TOML_DEPTH} levels)",
        )
    return build_scenario(data, SchemaReader(path, keys))


# --- a readable summary ----------------------------------------------------------------------


def describe(scenario: Scenario) -> str:
    """A plain-text summary of a declaration: parameters, laws, features, class rule."""
    lines = [f"{scenario.name}: {scenario.title}", f"  source: {scenario.source}", "  parameters:"]
    for p in scenario.parameters:
        default = "required" if p.default is None else f"default {p.default}"
        lines.append(f"    {p.name:<8} {p.allowed:<16} {default:<16} {p.description}")
    lines.append("  base variables (independent):")
    for sym, law in scenario.base.items():
        lines.append(f"    {sym} ~ {law!r}")
    lines.append("  features:")
    for i, f in enumerate(scenario.features, start=1):
        template = f"   (displayed as {f.template})" if f.template else ""
        lines.append(f"    V{i:<3} {f.label:<12} = {sp.sstr(f.expr)}{template}")
    lines.append(f"  class: {scenario.class_rule.describe()}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m fstheory.scenarios.scenario_file FILE...``: check files and print their summaries."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m fstheory.scenarios.scenario_file FILE.toml [FILE.toml ...]", file=sys.stderr)
        return 2
    status = 0
    for name in argv:
        try:
            print(describe(load_scenario_file(name)))
        except ScenarioFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
