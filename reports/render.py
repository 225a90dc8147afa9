r"""Formatting shared by the generated reports: numbers, expressions, Markdown, LaTeX, CSV, JSON.

Everything here is deterministic (no timestamps, no locale, fixed float formatting), so that
regenerating the reports gives byte-identical files.

Examples
--------
>>> from fstheory.theory.extended import xr, POS_INF
>>> fixed(xr("0.593147180559945309417232121458"), 4), fixed(xr(0), 4), fixed(POS_INF, 4)
('0.5931', '0', '+inf')
>>> import sympy as sp
>>> a = sp.Symbol("a", real=True)
>>> tex(sp.log(2 * sp.Abs(a)))
'\\ln{\\left(2 \\left\\lvert {a}\\right\\rvert  \\right)}'
>>> md_table(["x", "y"], [["1", "a|b"]])
'| x | y |\n|---|---|\n| 1 | a\\|b |'
"""

from __future__ import annotations

import csv
import io
import json
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import sympy as sp

from fstheory.theory.extended import ExtendedReal

__all__ = [
    "fixed",
    "shown",
    "decimal_of",
    "tex",
    "plain",
    "md_cell",
    "md_table",
    "latex_text",
    "latex_label",
    "write_text",
    "csv_text",
    "json_text",
]


def decimal_of(x: ExtendedReal, digits: int = 40) -> Decimal:
    """A finite extended real as a :class:`decimal.Decimal` with ``digits`` significant digits."""
    if not x.is_finite:
        raise ValueError(f"not a finite value: {x.text()}")
    return Decimal(x.text(digits))


def shown(x: ExtendedReal, digits: int) -> str:
    """``x.text(digits)`` (only proved digits); an estimate (not computed, but with a value
    known without a proved bound) as ``~`` and its digits, never as a plain number."""
    if x.is_estimate:
        value, error = x.estimate
        return "~" + ExtendedReal.finite(value, radius=error).text(digits)
    return x.text(digits)


def fixed(x: ExtendedReal, decimals: int = 4) -> str:
    """'+inf', '-inf', the form of an indeterminate, '0' for an exact zero, else the value rounded
    (half to even) to ``decimals`` decimals, as the paper prints its numeric table; an estimate
    as ``~`` and its value so rounded."""
    if x.is_estimate:
        value, error = x.estimate
        return "~" + fixed(ExtendedReal.finite(value, radius=error), decimals)
    if not x.is_finite:
        return x.text()
    if x.is_zero:
        return "0"
    q = decimal_of(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
    return format(q, "f")


def tex(expr) -> str:
    """LaTeX of a sympy expression (ln notation); |x| written with \\lvert/\\rvert so that no bare
    '|' reaches a Markdown table."""
    expr = sp.sympify(expr)
    # sympy orders the terms of a sum by evaluating them numerically; for unevaluated integrals
    # that means quadrature inside the printer, so such sums are printed in their stored order
    order = "none" if expr.has(sp.Integral) else None
    out = sp.latex(expr, ln_notation=True, order=order)
    return out.replace(r"\left|", r"\left\lvert ").replace(r"\right|", r"\right\rvert ")


def plain(expr) -> str:
    """A one-line plain-text form of a sympy expression (sympy's ``sstr``)."""
    expr = sp.sympify(expr)
    return sp.sstr(expr, order="none" if expr.has(sp.Integral) else None)


def md_cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, newlines folded."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(headers, rows, align: str | None = None) -> str:
    """A GitHub Markdown table; ``align`` is one character per column: l, c or r."""
    marks = {"l": "---", "c": ":---:", "r": "---:"}
    sep = [marks[a] for a in align] if align else ["---"] * len(headers)
    lines = ["| " + " | ".join(md_cell(h) for h in headers) + " |", "|" + "|".join(sep) + "|"]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_text(text: str) -> str:
    """Plain text escaped for LaTeX."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def latex_label(label: str) -> str:
    """A feature label such as 'Y^2', '3X+1' in math mode ('-' stays a dash for an empty cell)."""
    if label == "-":
        return "-"
    return f"${label}$"


def write_text(path: Path, text: str) -> Path:
    """Write UTF-8 text with '\\n' line ends and exactly one final newline."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text.rstrip("\n") + "\n")
    return path


def csv_text(header, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def json_text(obj) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False)
