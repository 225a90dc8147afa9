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

import keyword
import os
import re
import stat
import sys
import tomllib
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Iterable

import sympy as sp

from fstheory.scenarios.declaration import (
    ClassRule,
    Feature,
    RESERVED_PARAMETER_NAMES,
    Parameter,
    ParameterError,
    Scenario,
    check_law,
    to_rational,
)
from fstheory.scenarios.domains import DOMAINS
from fstheory.scenarios.grammar import (
    FUNCTIONS,
    GrammarError,
    Vocabulary,
    parse_comparison,
    parse_expression,
)
from fstheory.theory.feature_maps import domain_problem
from fstheory.theory.laws import BASE_LAWS, Law, LawParameterError
from fstheory.theory.rule import Rule
from fstheory.user_numbers import MAX_VALUE_DIGITS

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
#: deepest accepted nesting of tables and arrays (the schema needs 3)
MAX_TOML_DEPTH = 16
#: most parameters, base variables or features in one file
MAX_ITEMS = 100

_DOMAINS = tuple(DOMAINS)
_SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_TOP_KEYS = {
    "name": "required",
    "title": "required",
    "source": "optional",
    "description": "optional",
    "parameters": "optional",
    "base": "required",
    "features": "required",
    "class": "required",
}
_PARAMETER_KEYS = ("default", "domain", "description")
_FEATURE_KEYS = ("expr", "label", "template")
_CLASS_KEYS = ("rule",)
_RULE_EXAMPLE = "rule = \"X + k*Y >= 0\""


class ScenarioFileError(ParameterError):
    """A scenario file that cannot be read: ``path``, ``line`` (1-based, 0 if none), ``where``
    (the key, e.g. ``base.X.law``) and the message. A :class:`ParameterError`, so the CLI exits
    with code 2."""

    def __init__(self, path: str, line: int, where: str, message: str):
        self.path, self.line, self.where, self.detail = path, line, where, message
        location = f"{path}:{line}" if line else str(path)
        super().__init__(f"{location}: {where + ': ' if where else ''}{message}")


# --- where keys are in the raw text (tomllib reports no positions) ---------------------------

_KEY_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_ARRAY_HEADER = re.compile(rf"^\s*\[\[\s*({_DOTTED})\s*\]\]")
_TABLE_HEADER = re.compile(rf"^\s*\[\s*({_DOTTED})\s*\]")
_KEY_VALUE = re.compile(rf"^\s*({_DOTTED})\s*=")
_INLINE_KEY = re.compile(rf"[{{,]\s*({_DOTTED})\s*=")


def _split_key(dotted: str) -> tuple[str, ...]:
    parts = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


class _KeyLines:
    """Line numbers of tables and keys in a TOML text, found by scanning its lines.

    Paths are tuples of keys, with 0-based indices for arrays of tables (``("features", 2,
    "expr")``). Good enough for files that tomllib accepted: headers, dotted keys, inline tables
    on one line, and arrays of inline tables one per line. A path not found falls back to its
    nearest found ancestor.
    """

    def __init__(self, text: str):
        self.lines: dict[tuple, int] = {}
        self.duplicates: list[tuple[tuple, int]] = []
        counters: dict[tuple, int] = {}
        table: tuple = ()
        array_key: tuple | None = None
        array_index = 0
        in_multiline: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if in_multiline:
                if line.count(in_multiline) % 2 == 1:
                    in_multiline = None
                continue
            if array_key is not None:
                for _ in re.finditer(r"\{", line):
                    self._record(array_key + (array_index,), number)
                    for m in _INLINE_KEY.finditer(line):
                        self._record(array_key + (array_index,) + _split_key(m.group(1)), number)
                    array_index += 1
                if line.count("]") > line.count("["):
                    array_key = None
                continue
            if m := _ARRAY_HEADER.match(line):
                path = _split_key(m.group(1))
                index = counters.get(path, 0)
                counters[path] = index + 1
                table = path + (index,)
                self._record(table, number)
            elif m := _TABLE_HEADER.match(line):
                table = _split_key(m.group(1))
                for i in range(1, len(table)):
                    self.lines.setdefault(table[:i], number)
                self._record(table, number)
            elif m := _KEY_VALUE.match(line):
                key = table + _split_key(m.group(1))
                for i in range(len(table) + 1, len(key)):
                    self.lines.setdefault(key[:i], number)
                self._record(key, number)
                rest = line[m.end():]
                for inner in _INLINE_KEY.finditer(rest):
                    self._record(key + _split_key(inner.group(1)), number)
                if rest.strip().startswith("[") and rest.count("[") > rest.count("]"):
                    array_key, array_index = key, 0
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        in_multiline = quote

    def _record(self, path: tuple, number: int) -> None:
        if path in self.lines and len(path) > 0:
            self.duplicates.append((path, number))
            return
        self.lines[path] = number

    def line(self, path: tuple) -> int:
        for i in range(len(path), 0, -1):
            if path[:i] in self.lines:
                return self.lines[path[:i]]
        return 1


# --- reading -----------------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "table"
    if isinstance(value, list):
        return "array"
    if isinstance(value, (datetime, date, time)):
        return "date/time"
    return type(value).__name__


def _show_path(path: tuple) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part + 1}]"
        else:
            out += ("." if out else "") + part
    return out


@dataclass
class _Reader:
    path: str
    keys: _KeyLines

    def error(self, path: tuple, message: str) -> ScenarioFileError:
        return ScenarioFileError(self.path, self.keys.line(path), _show_path(path), message)

    def table(self, value: Any, path: tuple, example: str) -> dict:
        if not isinstance(value, dict):
            raise self.error(path, f"expected a table ({example}), got {_type_name(value)}")
        return value

    def string(self, value: Any, path: tuple, what: str = "a string") -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected {what}, got {_type_name(value)} {value!r}")
        return value

    def known_keys(self, table: dict, path: tuple, allowed: Iterable[str], what: str) -> None:
        allowed = tuple(allowed)
        for key in table:
            if key not in allowed:
                raise self.error(
                    path + (key,), f"unknown key '{key}' in {what} (allowed: {', '.join(allowed)})"
                )

    def required(self, table: dict, path: tuple, key: str, what: str, example: str) -> Any:
        if key not in table:
            raise self.error(path, f"missing '{key}' in {what} (expected e.g. {example})")
        return table[key]

    def identifier(self, name: str, path: tuple, what: str) -> str:
        if not _IDENTIFIER.fullmatch(name):
            raise self.error(
                path,
                f"{what} name '{name}' is not valid (expected a letter then letters, digits or "
                f"'_', at most 32 characters)",
            )
        if name in FUNCTIONS or keyword.iskeyword(name):
            raise self.error(path, f"{what} name '{name}' is reserved (a function or keyword)")
        return name

    def expression(self, text: Any, path: tuple, vocabulary: Vocabulary) -> sp.Expr:
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            try:
                return to_rational(_show_path(path), text)
            except ParameterError as exc:
                raise self.error(path, str(exc)) from None
        text = self.string(text, path, "an expression string (e.g. \"2*scale\") or a number")
        try:
            return parse_expression(text, vocabulary)
        except GrammarError as exc:
            raise self.error(path, f"{text!r}: {exc}") from None


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


def _nesting_error(text: str, path: str) -> ScenarioFileError | None:
    """An error if arrays and inline tables nest deeper than :data:`MAX_TOML_DEPTH`.

    Scanned on the raw text, before :mod:`tomllib` (which recurses once per level and would
    hit Python's recursion limit on a few thousand levels). Brackets inside strings and
    comments do not count; a table header ``[[features]]`` counts as two levels.
    """
    depth, line, i, n = 0, 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch in "\"'":
            quote = text[i : i + 3] if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if ch == '"' and text[j] == "\\":
                    j += 1
                elif len(quote) == 1 and text[j] == "\n":
                    break  # an unterminated string: tomllib reports it
                j += 1
            line += text.count("\n", i, j)
            i = j + len(quote) if text.startswith(quote, j) else j
            continue
        elif ch in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return ScenarioFileError(
                    path, line, "",
                    f"arrays and tables nested too deeply (expected at most {MAX_TOML_DEPTH} "
                    f"levels of [ and {{)",
                )
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _deepest_key(data: dict) -> tuple | None:
    """The path of a value nested deeper than :data:`MAX_TOML_DEPTH` (dotted keys such as
    ``a.b.c...`` nest without brackets), found without recursion; None if there is none."""
    stack = [((), data)]
    while stack:
        path, value = stack.pop()
        if len(path) > MAX_TOML_DEPTH:
            return path
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in enumerate(value))
    return None


def parse_scenario_text(text: str, path: str = "<string>") -> Scenario:
    """Read a scenario from TOML text; ``path`` is only used in error messages."""
    error = _nesting_error(text, path)
    if error is not None:
        raise error
    keys = _KeyLines(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(exc, text, keys, path) from None
    except ValueError:  # an integer past Python's limit on the digits of int(str)
        raise ScenarioFileError(
            path, _longest_number_line(text), "",
            f"a number with too many digits (expected at most {MAX_VALUE_DIGITS})") from None
    deep = _deepest_key(data)
    if deep is not None:
        raise ScenarioFileError(
            path, keys.line(deep[: MAX_TOML_DEPTH]), "",
            f"keys nested too deeply (expected at most {MAX_TOML_DEPTH} levels)",
        )
    return _build(data, _Reader(path, keys))


def _longest_number_line(text: str) -> int:
    """The line holding the longest run of digits (and TOML's '_' separators)."""
    best, line = 0, 1
    for n, row in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"[0-9_]+", row):
            if len(m.group()) > best:
                best, line = len(m.group()), n
    return line


def _toml_error(exc: tomllib.TOMLDecodeError, text: str, keys: _KeyLines, path: str):
    message = str(exc)
    m = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if m:
        line = int(m.group(1))
        message = message[: m.start()].strip() + f" at column {m.group(2)}"
    else:
        message = re.sub(r"\s*\(at end of document\)", "", message)
        line = keys.duplicates[0][1] if keys.duplicates else max(1, len(text.splitlines()))
    if "overwrite" in message or "twice" in message:
        hint = "each key and table declared once"
    else:
        hint = "valid TOML, with expressions and names in quotes, e.g. expr = \"a*X + b\""
    return ScenarioFileError(path, line, "", f"TOML syntax error: {message} (expected {hint})")


def _build(data: dict, r: _Reader) -> Scenario:
    for key in data:
        if key not in _TOP_KEYS:
            raise r.error(
                (key,), f"unknown top-level key '{key}' (allowed: {', '.join(_TOP_KEYS)})"
            )
    for key, status in _TOP_KEYS.items():
        if status == "required" and key not in data:
            example = {
                "name": 'name = "my-scenario"',
                "title": 'title = "..."',
                "base": '[base.X] with law = "normal", mu = "0", sigma = "1"',
                "features": '[[features]] with expr = "X"',
                "class": f"[class] with {_RULE_EXAMPLE}",
            }[key]
            for table, content in data.items():
                if isinstance(content, dict) and key in content:
                    raise r.error(
                        (table, key),
                        f"'{key}' is inside [{table}] (expected it at the top level: in TOML "
                        f"a key belongs to the last [table] above it, so write top-level keys "
                        f"and [[{key}]] / [{key}] tables outside other tables)",
                    )
            raise ScenarioFileError(
                r.path, 1, "", f"missing required '{key}' (expected e.g. {example})"
            )

    name = r.string(data["name"], ("name",))
    if not _SCENARIO_NAME.fullmatch(name):
        raise r.error(
            ("name",),
            f"scenario name {name!r} is not valid (expected letters, digits, '_', '-', '.', "
            f"starting with a letter or digit, at most 64 characters)",
        )
    title = r.string(data["title"], ("title",))
    source = r.string(data.get("source", f"scenario file {Path(r.path).name}"), ("source",))
    r.string(data.get("description", ""), ("description",))

    parameters = _parameters(data.get("parameters", {}), r)
    param_symbols = {p.name: p.symbol for p in parameters}
    base = _base(data["base"], r, param_symbols)
    _check_laws_at_defaults(base, parameters, r)
    variables = {str(s): s for s in base}
    features = _features(data["features"], r, param_symbols, variables)
    _check_feature_domains(features, base, parameters, r)
    rule = _class_rule(data["class"], r, param_symbols, variables)
    return Scenario(
        name=name,
        title=title,
        source=source,
        parameters=parameters,
        base=base,
        features=features,
        class_rule=rule,
    )


def _parameters(value: Any, r: _Reader) -> tuple[Parameter, ...]:
    example = '[parameters.k] with domain = "unit", default = 0.2'
    table = r.table(value, ("parameters",), example)
    if len(table) > MAX_ITEMS:
        raise r.error(("parameters",), f"too many parameters ({len(table)}, at most {MAX_ITEMS})")
    out = []
    for pname, spec in table.items():
        path = ("parameters", pname)
        r.identifier(pname, path, "parameter")
        if pname in RESERVED_PARAMETER_NAMES:
            raise r.error(path, f"parameter name '{pname}' is reserved: it names a method option "
                                f"or an output field beside the parameters (reserved: "
                                f"{', '.join(RESERVED_PARAMETER_NAMES)}); choose another name")
        spec = r.table(spec, path, example)
        r.known_keys(spec, path, _PARAMETER_KEYS, f"[parameters.{pname}]")
        domain = r.string(spec.get("domain", "real"), path + ("domain",))
        if domain not in _DOMAINS:
            raise r.error(
                path + ("domain",), f"unknown domain '{domain}' (expected one of: {', '.join(_DOMAINS)})"
            )
        description = r.string(spec.get("description", ""), path + ("description",))
        default = None
        if "default" in spec:
            raw = spec["default"]
            if not isinstance(raw, (int, float, str)) or isinstance(raw, bool):
                raise r.error(
                    path + ("default",),
                    f"expected a number or a string such as \"1/2\" or \"0.2\", "
                    f"got {_type_name(raw)} {raw!r}",
                )
            try:
                default = Parameter(pname, raw, domain).validate(raw)
            except ParameterError as exc:
                raise r.error(path + ("default",), f"default: {exc}") from None
        out.append(Parameter(pname, default, domain, description))
    return tuple(out)


def _base(value: Any, r: _Reader, params: dict) -> dict[sp.Symbol, Law]:
    example = '[base.X] with law = "normal", mu = "0", sigma = "1"'
    table = r.table(value, ("base",), example)
    if not table:
        raise r.error(("base",), f"no base variable declared (expected at least one: {example})")
    if len(table) > MAX_ITEMS:
        raise r.error(("base",), f"too many base variables ({len(table)}, at most {MAX_ITEMS})")
    no_variables = {
        v: "law parameters are expressions of the scenario's parameters and numbers, "
        "not of base variables"
        for v in table
    }
    vocabulary = Vocabulary(parameters=params, forbidden=no_variables)
    for vname in table:
        r.identifier(vname, ("base", vname), "base variable")
        if vname in params:
            raise r.error(
                ("base", vname),
                f"name '{vname}' is declared both as a parameter (line "
                f"{r.keys.line(('parameters', vname))}) and as a base variable "
                f"(expected distinct names)",
            )
    out: dict[sp.Symbol, Law] = {}
    for vname, spec in table.items():
        path = ("base", vname)
        spec = r.table(spec, path, example)
        law_name = r.string(r.required(spec, path, "law", f"[base.{vname}]", 'law = "normal"'),
                            path + ("law",))
        if law_name not in BASE_LAWS:
            raise r.error(
                path + ("law",),
                f"unknown law '{law_name}' (expected one of: {', '.join(BASE_LAWS)})",
            )
        cls = BASE_LAWS[law_name]
        expected = ", ".join(cls.param_names)
        for key in spec:
            if key != "law" and key not in cls.param_names:
                raise r.error(
                    path + (key,),
                    f"unknown parameter '{key}' for the {law_name} law (expected: {expected})",
                )
        args = []
        for pname in cls.param_names:
            if pname not in spec:
                raise r.error(
                    path, f"missing parameter '{pname}' of the {law_name} law (expected: {expected})"
                )
            args.append(r.expression(spec[pname], path + (pname,), vocabulary))
        out[sp.Symbol(vname, real=True)] = cls(*args)
    return out


def _features(value: Any, r: _Reader, params: dict, variables: dict) -> tuple[Feature, ...]:
    example = '[[features]] with expr = "X"'
    if not isinstance(value, list) or not all(isinstance(f, dict) for f in value):
        raise r.error(("features",), f"expected an array of tables ({example}), got {_type_name(value)}")
    if not value:
        raise r.error(("features",), f"empty feature list (expected at least one: {example})")
    if len(value) > MAX_ITEMS:
        raise r.error(("features",), f"too many features ({len(value)}, at most {MAX_ITEMS})")
    declared = set(params) | set(variables)
    labels = []
    for spec in value:
        label = spec.get("label", spec.get("expr"))
        labels.append(re.sub(r"\s+", "", label) if isinstance(label, str) else None)
    other = (
        "features are expressions of the base variables and parameters, not of other features: "
        "write that feature's expression out"
    )
    forbidden = {f"V{i + 1}": other for i in range(len(value)) if f"V{i + 1}" not in declared}
    forbidden.update(
        {lab: other for lab in labels if lab and _IDENTIFIER.fullmatch(lab) and lab not in declared}
    )
    vocabulary = Vocabulary(parameters=params, variables=variables, forbidden=forbidden)
    seen: dict[str, int] = {}
    out = []
    for i, spec in enumerate(value):
        path = ("features", i)
        r.known_keys(spec, path, _FEATURE_KEYS, f"feature V{i + 1}")
        text = r.required(spec, path, "expr", f"feature V{i + 1}", 'expr = "a*X + b"')
        expr = r.expression(text, path + ("expr",), vocabulary)
        if not expr.free_symbols & set(variables.values()):
            raise r.error(
                path + ("expr",),
                f"feature {expr} uses no base variable (expected an expression of "
                f"{', '.join(variables)})",
            )
        label = r.string(spec.get("label", text), path + ("label",))
        label = label.strip() if "label" in spec else re.sub(r"\s+", "", label)
        if not label:
            raise r.error(path + ("label",), "empty label (expected a short display name)")
        if label in seen:
            raise r.error(
                path + ("label",),
                f"duplicate feature label '{label}' (also feature V{seen[label] + 1}; "
                f"expected unique labels)",
            )
        seen[label] = i
        template = None
        if "template" in spec:
            template = r.string(spec["template"], path + ("template",))
            _check_template(template, path + ("template",), r, params)
        out.append(Feature(label, expr, template))
    return tuple(out)


def _check_template(template: str, path: tuple, r: _Reader, params: dict) -> None:
    for m in re.finditer(r"\{([^{}]*)\}", template):
        inner = m.group(1)
        name = inner[1:] if inner.startswith("+") else inner
        if name not in params:
            raise r.error(
                path,
                f"template field '{{{inner}}}' does not name a parameter (expected "
                f"{{name}} or {{+name}} with name one of: {', '.join(params) or 'none declared'})",
            )
    stray = re.sub(r"\{[^{}]*\}", "", template)
    if "{" in stray or "}" in stray:
        raise r.error(path, f"unbalanced brace in template {template!r} (expected {{name}} or {{+name}})")


def _class_rule(value: Any, r: _Reader, params: dict, variables: dict) -> ClassRule:
    path = ("class",)
    table = r.table(value, path, f"[class] with {_RULE_EXAMPLE}")
    r.known_keys(table, path, _CLASS_KEYS, "[class]")
    text = r.string(r.required(table, path, "rule", "[class]", _RULE_EXAMPLE), path + ("rule",))
    rpath = path + ("rule",)
    try:
        lhs, op, rhs = parse_comparison(text, Vocabulary(parameters=params, variables=variables))
    except GrammarError as exc:
        raise r.error(rpath, f"{text!r}: {exc}") from None
    form = sp.expand(lhs - rhs)
    if op in ("<=", "<"):
        form = -form
    bases = list(variables.values())
    used = [v for v in bases if v in form.free_symbols]
    if not used:
        raise r.error(rpath, f"{text!r} uses no base variable (expected e.g. {_RULE_EXAMPLE})")
    if not form.is_polynomial(*used):
        raise r.error(
            rpath,
            f"{text!r} is not a polynomial in the base variables (expected a linear threshold such "
            f"as {_RULE_EXAMPLE}, a product or sign rule such as \"X*Y >= 0\", or a quadratic "
            f"form such as \"X^2 + Y^2 <= r\"; abs, exp, log and sqrt of base variables are not "
            f"supported: write abs(X) >= k as X^2 >= k^2)",
        )
    why = Rule(form).check(used)
    if why:
        raise r.error(rpath, f"{text!r}: {why}")
    lin = Rule(form).linear(used)
    if lin is None:
        return ClassRule(form=form)
    weights, threshold = lin
    return ClassRule({v: w for v, w in weights.items() if w != 0}, threshold)


def _check_feature_domains(features, base: dict, parameters: tuple, r: _Reader) -> None:
    """A feature undefined on part of its support (log(Y), sqrt(Y) with Y normal) is refused here
    when the supports are known at the declared defaults; otherwise at bind time."""
    subs = {p.symbol: p.default for p in parameters if p.default is not None}
    laws = {s: law.subs(subs) for s, law in base.items()}
    if any(law.free_symbols for law in laws.values()):
        laws = {s: law for s, law in laws.items() if not law.free_symbols}
    for i, f in enumerate(features):
        expr = f.expr.subs(subs)
        used = {s for s in expr.free_symbols if s in base}
        if not used <= set(laws) or (expr.free_symbols - used):
            continue
        why = domain_problem(expr, laws)
        if why:
            raise r.error(("features", i, "expr"), f"feature {f.label}: {why}")


def _check_laws_at_defaults(base: dict, parameters: tuple, r: _Reader) -> None:
    """Law.check with the declared defaults substituted (parameters without one stay symbolic
    and are checked when the scenario is bound)."""
    defaults = {p.name: p.default for p in parameters if p.default is not None}
    subs = {p.symbol: p.default for p in parameters if p.default is not None}
    for sym, law in base.items():
        bound = law.subs(subs)
        used = sorted(str(s) for s in law.free_symbols if str(s) in defaults)
        at = ", ".join(f"{n} = {defaults[n]}" for n in used)
        where = f" at the declared defaults ({at})" if at else ""
        try:
            check_law(bound)
        except LawParameterError as exc:
            key = next((k for k in bound.param_names if f"'{k}'" in str(exc)), None)
            raise r.error(("base", str(sym)) + ((key,) if key else ()), f"{exc}{where}") from None


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
