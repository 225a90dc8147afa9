r"""The paper's Table "Objective functions" (Section 4) rendered from the method registry.

Each row is the renderings kept next to the objective's code in :mod:`fstheory.orderings.methods`, so the
table shows what the engine evaluates, to be compared with the paper's table by eye. Methods whose
text (equations of Section 4, discussion of Section 7) writes the objective differently get a
second line for that reading; the default reading is marked. In Markdown, ``|`` inside a cell
is escaped as ``\|`` (GitHub tables split cells on bare pipes, even in code spans).

>>> print(markdown_table().splitlines()[2])
| MIFS | Battiti 1994 | table | `MI(C,Vi) - beta * sum_{Vs in S} MI(Vi,Vs)` |
"""

from __future__ import annotations

from fstheory.orderings.methods import METHODS, Method

__all__ = ["latex_table", "markdown_table", "default_methods"]


def default_methods() -> list[Method]:
    """The paper's methods and the three-dimensional ones (the table of ``reports/``); the
    methods of FEAST and praznik have their own (:mod:`fstheory.reports.library_tables`)."""
    return [m for m in METHODS.values() if m.family in ("paper", "3d")]


def _rows(methods):
    for m in methods:
        for reading, r in m.distinct_readings():
            mark = " (default)" if m.readings_differ and reading == m.default_reading else ""
            yield m, reading, mark, r


def latex_table(methods: list[Method] | None = None) -> str:
    """A booktabs table: Method & Reading & Objective (argmax over V_i in F)."""
    methods = default_methods() if methods is None else methods
    lines = [
        r"\begin{table*}[!h]",
        r"  \centering",
        r"  \scriptsize",
        r"  \caption{Objective functions as implemented (rendered from the method registry). "
        r"Each method selects $\operatorname*{arg\,max}_{V_i \in F}$ of the expression.}",
        r"  \begin{tabular}{llc}",
        r"    \toprule",
        r"    Method & Reading & Objective function \\",
        r"    \midrule",
    ]
    for m, reading, mark, r in _rows(methods):
        beta = r" ($\beta\in[0,1]$)" if m.has_beta else ""
        first = reading == next(iter(m.readings))
        name = f"{m.display}{beta}" if first else ""
        lines.append(f"    {name} & {reading}{mark} & $\\displaystyle {r.latex}$ \\\\[0.4cm]")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"\end{table*}"]
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(methods: list[Method] | None = None) -> str:
    """A Markdown table: | Method | Source | Reading | Objective (plain text) |."""
    methods = default_methods() if methods is None else methods
    lines = ["| Method | Source | Reading | Objective (argmax over Vi in F) |", "|---|---|---|---|"]
    for m, reading, mark, r in _rows(methods):
        first = reading == next(iter(m.readings))
        lines.append(f"| {m.display} | {_md_cell(m.citation if first else r.source)} | "
                     f"{reading}{mark} | `{_md_cell(r.plain)}` |")
    return "\n".join(lines)
