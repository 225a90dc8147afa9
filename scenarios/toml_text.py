"""The raw text of a scenario file: the error that names a line of it, where its keys are
(:mod:`tomllib` reports no positions), and the limits checked on it before and after
:mod:`tomllib` reads it (nesting depth, the line of an over-long number, syntax errors
reworded with their line)."""

from __future__ import annotations

import re
import tomllib


from fstheory.scenarios.declaration import ParameterError

__all__ = ["ScenarioFileError", "MAX_TOML_DEPTH", "KeyLines", "nesting_error", "deepest_key",
           "longest_number_line", "toml_error"]

#: deepest accepted nesting of tables and arrays (the schema needs 3)
MAX_TOML_DEPTH = 16


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


class KeyLines:
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



def nesting_error(text: str, path: str) -> ScenarioFileError | None:
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


def deepest_key(data: dict) -> tuple | None:
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


def longest_number_line(text: str) -> int:
    """The line holding the longest run of digits (and TOML's '_' separators)."""
    best, line = 0, 1
    for n, row in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"[0-9_]+", row):
            if len(m.group()) > best:
                best, line = len(m.group()), n
    return line


def toml_error(exc: tomllib.TOMLDecodeError, text: str, keys: KeyLines, path: str):
    """The :class:`ScenarioFileError` of a :mod:`tomllib` syntax error: its line (or that of a
    duplicate key), the message without tomllib's position, and what was expected."""
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
